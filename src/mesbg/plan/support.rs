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
}

impl SupportMap {
    /// Whether anything in the scenario can help a fight (so fights need the geometry).
    #[inline]
    pub fn any(&self) -> bool {
        self.active
    }
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
/// Supporters: a maximum matching between the fighting models and the standing spear and
/// pike models touching them whose bases are no smaller (fighters in group order, each
/// trying the candidates in model order, reassigning earlier ones where that lets one more
/// model be supported); then each fighter whose supporter is a pike takes one more pike
/// touching that pike, if one is free (the line three deep).
pub fn foe_support(
    models: &[PlannedModel],
    map: &SupportMap,
    group: &[usize],
    g: usize,
    presence: &[Presence],
    rules: &MesbgRules,
) -> FoeSupport {
    let mut support = FoeSupport { supporter_fight_counts: rules.supporter_fight_counts, ..FoeSupport::NONE };
    if !map.any() {
        return support;
    }
    let fighters: Vec<usize> = group.iter().zip(presence).filter(|(_, p)| p.in_fight).map(|(&m, _)| m).collect();
    let in_group = |m: usize| group.iter().position(|&x| x == m);
    // Standing and not in the fight: untouched so far (touched later along the path).
    let unengaged = |m: usize| map.group_of[m] == usize::MAX || map.group_of[m] > g;
    let standing = |m: usize| unengaged(m) || in_group(m).is_some_and(|i| presence[i].in_fight);
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
    // Kuhn's augmenting paths: supporter -> fighter.
    let mut owner: Vec<Option<usize>> = vec![None; models.len()];
    fn augment(
        f: usize,
        cands: &dyn Fn(usize) -> Vec<usize>,
        owner: &mut [Option<usize>],
        seen: &mut Vec<usize>,
    ) -> bool {
        for c in cands(f) {
            if seen.contains(&c) {
                continue;
            }
            seen.push(c);
            if owner[c].is_none_or(|other| augment(other, cands, owner, seen)) {
                owner[c] = Some(f);
                return true;
            }
        }
        false
    }
    if !map.touching.is_empty() {
        for &f in &fighters {
            augment(f, &candidates, &mut owner, &mut Vec::new());
        }
    }
    let mut chosen: Vec<(usize, usize)> = (0..models.len()).filter_map(|c| owner[c].map(|f| (f, c))).collect();
    chosen.sort_by_key(|&(f, c)| (fighters.iter().position(|&x| x == f), c));
    let mut used: Vec<usize> = chosen.iter().map(|&(_, c)| c).collect();
    let direct = chosen.clone();
    for &(f, p1) in &direct {
        if map.polearm[p1] != Some(Polearm::Pike) {
            continue;
        }
        let second = map.touching[p1]
            .iter()
            .copied()
            .find(|&c| map.polearm[c] == Some(Polearm::Pike) && unengaged(c) && !used.contains(&c) && no_smaller(c, f));
        if let Some(p2) = second {
            used.push(p2);
            chosen.push((f, p2));
        }
    }
    // The banner: a standing, not Prone bearer within 3" of a model in the fight; the
    // bearer's own dice (in the fight, or as a supporter) are at -1.
    for &b in &map.bearers {
        let prone = in_group(b).is_some_and(|i| presence[i].prone);
        if !standing(b) || prone {
            continue;
        }
        let reach = |f: usize| f == b || map.bases[f].distance_to(&map.bases[b]) <= BANNER_RANGE_INCHES + eps;
        if rules.banner_reroll == BannerReroll::LowestWhenLosingOrTied && fighters.iter().any(|&f| reach(f)) {
            support.banner = true;
        }
        if in_group(b).is_some_and(|i| presence[i].rider) {
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
        .map(|&(_, c)| Supporter {
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
    let tolerance = BASE_CONTACT_MM / MM_PER_INCH;
    let mut touching = vec![Vec::new(); bases.len()];
    for a in 0..bases.len() {
        for b in a + 1..bases.len() {
            let (pa, pb) = (&bases[a], &bases[b]);
            if (pa.centre - pb.centre).length() <= pa.radius + pb.radius + tolerance && pa.distance_to(pb) <= tolerance
            {
                touching[a].push(b);
                touching[b].push(a);
            }
        }
    }
    touching
}
