//! Who helps the models a chariot fights, by geometry: supporting spears and pikes (2024:
//! one supporter per model, one model per supporter, a pike also through a pike already
//! supporting) and banners within 3" of the fight. Everything here depends only on where
//! the models stand and which of them are still standing, so it is worked out once per
//! survivor configuration (or per die-by-die fight) from maps compiled with the plan.

use super::PlannedModel;
use crate::geometry::{Disc, MM_PER_INCH};
use crate::mesbg::rules::fight::{FoeSupport, Supporter};
use crate::mesbg::scenario::{BannerReroll, MesbgRules};

/// Bases whose edges are at most this far apart (mm) are in base contact: formations laid
/// out with no gap touch exactly, and a model placed by hand within a millimetre counts.
pub const BASE_CONTACT_MM: f64 = 1.0;

/// A banner helps fights within this distance (inches) of its bearer's base.
pub const BANNER_RANGE_INCHES: f64 = 3.0;

/// A supporting weapon.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Polearm {
    /// Supports a model it touches.
    Spear,
    /// Supports a model it touches, or through a pike already supporting.
    Pike,
}

/// What the support rules need of the board, compiled once with the plan.
#[derive(Clone, Debug, Default)]
pub struct SupportMap {
    /// Per model: its spear or pike.
    pub polearm: Vec<Option<Polearm>>,
    /// Per model: its base where it stands when contacted (round or oval).
    pub bases: Vec<Disc>,
    /// Per model: the models in base contact with it (empty when no model in the scenario
    /// has a spear or pike).
    pub touching: Vec<Vec<usize>>,
    /// The banner bearers (model indices).
    pub bearers: Vec<usize>,
    /// Per model: a pike with a shield (-1 on its own duel dice, in the fight or
    /// supporting).
    pub shielded: Vec<bool>,
    /// Per model: the contact group that touches it, or `usize::MAX`.
    pub group_of: Vec<usize>,
    /// Whether anything in the scenario can help a fight (worked out once: trials ask).
    pub active: bool,
    /// Per model, in a turn of several chariots: in base contact with a chariot (in a fight
    /// of its own, so it cannot support); empty for a single charge.
    pub engaged: Vec<bool>,
}

impl SupportMap {
    /// Whether anything in the scenario can help a fight (so fights need the geometry).
    #[inline]
    pub fn any(&self) -> bool {
        self.active
    }
}

/// What the fights fought earlier in a turn change for a later fight's help: each
/// supporter supports once a turn, a model slain in an earlier fight no longer stands, and
/// a banner bearer knocked Prone in one (his side lost to a chariot) gives no re-roll.
/// Nothing, for a single charge.
#[derive(Clone, Copy, Debug, Default)]
pub struct EarlierFights<'a> {
    /// Supporters already used.
    pub supporters: &'a [usize],
    /// Models slain in those fights.
    pub slain: &'a [usize],
    /// Models knocked Prone in those fights.
    pub prone: &'a [usize],
}

impl EarlierFights<'_> {
    /// No fight fought before this one.
    pub const NONE: EarlierFights<'static> = EarlierFights { supporters: &[], slain: &[], prone: &[] };
}

/// One model of the contact group the chariot stopped at, as the support rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Presence {
    /// In the fight: its rider (or the model) or its mount still stands.
    pub in_fight: bool,
    /// The rider (or the model) stands and rolls its own dice.
    pub rider: bool,
    /// Prone (a rider Knocked Flying): a Prone banner bearer gives nothing.
    pub prone: bool,
}

/// The help the enemy gets in the fight at contact group `g`, with `presence[i]` for the
/// group's i-th model. Models touched before `g` are slain (the chariot got past them);
/// models of `g` not in the fight are slain; everything else stands, unengaged.
///
/// Supporters: the assignment with the most supporting dice over every valid one, as the
/// supporting player makes it (a spear or pike touching a fighting model whose base is no
/// larger than its own supports it, one supporter per model and one model per supporter;
/// a pike touching a supporting pike also supports that pike's model, the line three
/// deep). Among assignments with as many dice, the better dice win (plain before -1, then
/// higher Fight, then the better Strike), so the answer never depends on the order of
/// formations or models in the file.
pub fn foe_support(
    models: &[PlannedModel],
    map: &SupportMap,
    group: &[usize],
    g: usize,
    presence: &[Presence],
    rules: &MesbgRules,
    earlier: EarlierFights,
) -> FoeSupport {
    let mut support = FoeSupport { supporter_fight_counts: rules.supporter_fight_counts, ..FoeSupport::NONE };
    if !map.any() {
        return support;
    }
    let fighters: Vec<usize> = group.iter().zip(presence).filter(|(_, p)| p.in_fight).map(|(&m, _)| m).collect();
    let in_group = |m: usize| group.iter().position(|&x| x == m);
    // Not slain before this fight: untouched so far (touched later along the path), or
    // standing after the turn's moves, and not slain in a fight fought earlier this turn.
    let alive = |m: usize| (map.group_of[m] == usize::MAX || map.group_of[m] > g) && !earlier.slain.contains(&m);
    // Free to support: alive, not in base contact with another chariot of the turn, and
    // not supporting in a fight already fought this turn.
    let engaged = |m: usize| map.engaged.get(m).copied().unwrap_or(false);
    let unengaged = |m: usize| alive(m) && !engaged(m) && !earlier.supporters.contains(&m);
    // Standing: in this fight, as the fight finds it; anywhere else, alive (a model that
    // supported, or fought, in an earlier fight and lived still stands).
    let standing = |m: usize| match in_group(m) {
        Some(i) => presence[i].in_fight,
        None => alive(m),
    };
    let eps = 1e-9;
    // A supporter's base is the same size as its friend's or larger (by area, for ovals).
    let no_smaller = |c: usize, f: usize| map.bases[c].area() * (1.0 + eps) >= map.bases[f].area();
    let candidates = |f: usize| -> Vec<usize> {
        map.touching[f]
            .iter()
            .copied()
            .filter(|&c| map.polearm[c].is_some() && unengaged(c) && no_smaller(c, f))
            .collect()
    };
    let seconds = |p1: usize, f: usize| -> Vec<usize> {
        map.touching[p1]
            .iter()
            .copied()
            .filter(|&c| map.polearm[c] == Some(Polearm::Pike) && unengaged(c) && no_smaller(c, f))
            .collect()
    };
    let chosen = if map.touching.is_empty() {
        Vec::new()
    } else {
        let options: Vec<Vec<Vec<usize>>> = fighters
            .iter()
            .map(|&f| {
                let mut ways = Vec::new();
                for c in candidates(f) {
                    ways.push(vec![c]);
                    if map.polearm[c] == Some(Polearm::Pike) {
                        ways.extend(seconds(c, f).into_iter().filter(|&p2| p2 != c).map(|p2| vec![c, p2]));
                    }
                }
                ways
            })
            .collect();
        let worth = |c: usize| SupporterWorth::of(&models[c], map.bearers.contains(&c) || map.shielded[c]);
        most_dice(&fighters, &options, &worth)
    };
    // The banner: a standing, not Prone bearer within 3" of a model in the fight; the
    // bearer's own dice (in the fight, or as a supporter) are at -1.
    // The banner is carried by the rider: a cavalry bearer whose rider the Impact Hits
    // slew is no standing bearer, though his mount still stands in the fight.
    for &b in &map.bearers {
        let bearer_stands = match in_group(b) {
            Some(i) => presence[i].rider && !presence[i].prone,
            None => standing(b) && !earlier.prone.contains(&b),
        };
        if !bearer_stands {
            continue;
        }
        let reach = |f: usize| f == b || map.bases[f].distance_to(&map.bases[b]) <= BANNER_RANGE_INCHES + eps;
        if rules.banner_reroll == BannerReroll::LowestWhenLosingOrTied && fighters.iter().any(|&f| reach(f)) {
            support.banner = true;
        }
        // A Hero's own dice are kept apart (his Might raises them): his -1 goes with them.
        if in_group(b).is_some_and(|i| presence[i].rider) && models[b].hero.is_none() {
            support.minus_one_dice += u32::from(models[b].attacks);
        }
    }
    // Pikes with shields in the fight roll their own dice at -1 too.
    for (&m, p) in group.iter().zip(presence) {
        if p.rider && map.shielded.get(m).copied().unwrap_or(false) && !map.bearers.contains(&m) {
            support.minus_one_dice += u32::from(models[m].attacks);
        }
    }
    support.supporters = chosen
        .iter()
        .map(|&c| Supporter {
            model: c,
            fight: models[c].fight,
            strikes_chariot: models[c].strikes_chariot,
            minus_one: map.bearers.contains(&c) || map.shielded.get(c).copied().unwrap_or(false),
        })
        .collect();
    support
}

/// The models (indices) whose bases touch, for every model of a scenario with spears or
/// pikes: bases within [`BASE_CONTACT_MM`] of each other.
pub fn touching(bases: &[Disc]) -> Vec<Vec<usize>> {
    let mut touching = vec![Vec::new(); bases.len()];
    for a in 0..bases.len() {
        for b in a + 1..bases.len() {
            if in_base_contact(&bases[a], &bases[b]) {
                touching[a].push(b);
                touching[b].push(a);
            }
        }
    }
    touching
}

/// Whether two bases are in base contact: their edges within [`BASE_CONTACT_MM`].
pub fn in_base_contact(a: &Disc, b: &Disc) -> bool {
    let tolerance = BASE_CONTACT_MM / MM_PER_INCH;
    (a.centre - b.centre).length() <= a.radius + b.radius + tolerance && a.distance_to(b) <= tolerance
}

/// What a supporter's die is worth beyond being a die, for choosing among assignments with
/// as many dice: plain before -1, then its Fight (for ties), then its Strike's chance.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
struct SupporterWorth {
    plain: bool,
    fight: u8,
    strike: f64,
}

impl SupporterWorth {
    fn of(model: &PlannedModel, minus_one: bool) -> Self {
        Self { plain: !minus_one, fight: model.fight, strike: model.strikes_chariot.probability() }
    }
}

/// The supporters of the assignment with the most dice: `options[i]` lists the ways
/// fighter `i` may be supported (one supporter, or a pike and the pike behind it). Ties in
/// dice go to the better multiset of dice ([`SupporterWorth`], best first, compared in
/// turn), then to the one found first. Returns the supporters, best die first.
fn most_dice(fighters: &[usize], options: &[Vec<Vec<usize>>], worth: &dyn Fn(usize) -> SupporterWorth) -> Vec<usize> {
    struct Search<'a> {
        options: &'a [Vec<Vec<usize>>],
        worth: &'a dyn Fn(usize) -> SupporterWorth,
        used: Vec<usize>,
        best: Option<Vec<usize>>,
        best_worth: Vec<SupporterWorth>,
    }
    fn sorted_worth(chosen: &[usize], worth: &dyn Fn(usize) -> SupporterWorth) -> Vec<SupporterWorth> {
        let mut w: Vec<SupporterWorth> = chosen.iter().map(|&c| worth(c)).collect();
        w.sort_by(|a, b| b.partial_cmp(a).unwrap_or(std::cmp::Ordering::Equal));
        w
    }
    fn better(a: &[SupporterWorth], b: &[SupporterWorth]) -> bool {
        if a.len() != b.len() {
            return a.len() > b.len();
        }
        for (x, y) in a.iter().zip(b) {
            match x.partial_cmp(y) {
                Some(std::cmp::Ordering::Greater) => return true,
                Some(std::cmp::Ordering::Less) => return false,
                _ => {}
            }
        }
        false
    }
    impl Search<'_> {
        fn go(&mut self, i: usize) {
            if i == self.options.len() {
                let w = sorted_worth(&self.used, self.worth);
                if self.best.is_none() || better(&w, &self.best_worth) {
                    self.best = Some(self.used.clone());
                    self.best_worth = w;
                }
                return;
            }
            // Even two dice for every fighter left cannot beat the best: stop here.
            let most = self.used.len() + 2 * (self.options.len() - i);
            if self.best.is_some() && most < self.best_worth.len() {
                return;
            }
            for way in &self.options[i] {
                if way.iter().any(|c| self.used.contains(c)) {
                    continue;
                }
                self.used.extend_from_slice(way);
                self.go(i + 1);
                self.used.truncate(self.used.len() - way.len());
            }
            self.go(i + 1);
        }
    }
    debug_assert_eq!(fighters.len(), options.len());
    let mut search = Search { options, worth, used: Vec::new(), best: None, best_worth: Vec::new() };
    search.go(0);
    let mut chosen = search.best.unwrap_or_default();
    chosen.sort_by(|&a, &b| worth(b).partial_cmp(&worth(a)).unwrap_or(std::cmp::Ordering::Equal).then(a.cmp(&b)));
    chosen
}
