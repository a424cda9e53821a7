//! The pairing of the Fight phase: the models in base contact split into fights so that no
//! fight has several models on both sides, as the charging player splits them.

use crate::mesbg::plan::Plan;
use crate::mesbg::rules::fight::{self as mesbg_fight, ChariotFighter, Combatant, FoeSupport, Grip};
use serde::Serialize;

/// One fight of the Fight phase: one chariot against the models it touches, or several
/// chariots against the one model they all touch.
#[derive(Clone, Debug, Serialize)]
pub struct TurnFight {
    /// The chariots (listed indices), in the order of the turn.
    pub chariots: Vec<usize>,
    /// The enemy models.
    pub models: Vec<usize>,
    /// The Monsters among them that cannot Back Away from where the chariot(s) stand.
    pub cannot_back_away: Vec<usize>,
}

/// Past this many contacts in one connected group of chariots and models, the splits are
/// not all tried: a local search looks for the best (see [`best_split`]).
pub const MAX_EXHAUSTIVE_CONTACTS: usize = 16;

/// At most this many splits are weighed by the local search of one group.
pub const MAX_LOCAL_SPLITS: usize = 20_000;

/// How the split of a board's contacts into fights was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SplitSearch {
    /// Every legal split was weighed.
    Exhaustive,
    /// A group had more than [`MAX_EXHAUSTIVE_CONTACTS`] contacts: a local search over who
    /// takes each shared model (one chariot, or all of them pooled against it).
    Local,
}

/// The split a board's fights come from: how many splits were weighed, the expected kills
/// of the one chosen, and how it was searched.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SplitChoice {
    /// Splits weighed.
    pub tried: usize,
    /// The chosen split's expected models slain.
    pub kills: f64,
    /// Exhaustive, or a local search.
    pub search: SplitSearch,
}

/// Every way to split the contacts `edges` (chariot, model) into fights, each fight one
/// chariot against models it touches or one model against chariots it touches, every
/// chariot and model in exactly one fight; each split's fights in the order of their first
/// chariot in `order`. Every subset of the contacts is tried: at most
/// [`MAX_EXHAUSTIVE_CONTACTS`] of them (more give no split).
pub fn legal_splits(edges: &[(usize, usize)], order: &[usize]) -> Vec<Vec<TurnFight>> {
    let mut splits = Vec::new();
    let n = edges.len();
    if n > MAX_EXHAUSTIVE_CONTACTS {
        return splits;
    }
    let chariots: Vec<usize> = order.iter().copied().filter(|c| edges.iter().any(|(k, _)| k == c)).collect();
    let mut models: Vec<usize> = edges.iter().map(|&(_, m)| m).collect();
    models.sort_unstable();
    models.dedup();
    for subset in 1u32..(1 << n) {
        let chosen: Vec<(usize, usize)> = (0..n).filter(|i| subset & (1 << i) != 0).map(|i| edges[i]).collect();
        let degree_c = |c: usize| chosen.iter().filter(|(k, _)| *k == c).count();
        let degree_m = |m: usize| chosen.iter().filter(|(_, x)| *x == m).count();
        if chariots.iter().any(|&c| degree_c(c) == 0) || models.iter().any(|&m| degree_m(m) == 0) {
            continue;
        }
        // Every chosen contact joins a chariot with several models or a model with several
        // chariots, never both: each fight is a star.
        if chosen.iter().any(|&(c, m)| degree_c(c) > 1 && degree_m(m) > 1) {
            continue;
        }
        splits.push(fights_of(&chosen, &chariots));
    }
    splits
}

/// The fights a legal set of contacts makes, in the order of `chariots`.
fn fights_of(chosen: &[(usize, usize)], chariots: &[usize]) -> Vec<TurnFight> {
    let degree_m = |m: usize| chosen.iter().filter(|(_, x)| *x == m).count();
    let mut fights: Vec<TurnFight> = Vec::new();
    for &c in chariots {
        let mine: Vec<usize> = chosen.iter().filter(|(k, _)| *k == c).map(|&(_, m)| m).collect();
        if mine.is_empty() {
            continue;
        }
        if mine.len() > 1 || degree_m(mine[0]) == 1 {
            fights.push(TurnFight { chariots: vec![c], models: mine, cannot_back_away: Vec::new() });
        } else if let Some(f) = fights.iter_mut().find(|f| f.models == mine) {
            f.chariots.push(c);
        } else {
            fights.push(TurnFight { chariots: vec![c], models: mine, cannot_back_away: Vec::new() });
        }
    }
    fights
}

/// The connected groups of the contacts (chariots and models joined by touching), each
/// group's contacts in the order given.
fn groups(edges: &[(usize, usize)]) -> Vec<Vec<(usize, usize)>> {
    let mut group_of: Vec<usize> = (0..edges.len()).collect();
    fn root(g: &mut [usize], mut i: usize) -> usize {
        while g[i] != i {
            g[i] = g[g[i]];
            i = g[i];
        }
        i
    }
    for i in 0..edges.len() {
        for j in 0..i {
            if edges[i].0 == edges[j].0 || edges[i].1 == edges[j].1 {
                let (a, b) = (root(&mut group_of, i), root(&mut group_of, j));
                group_of[a.max(b)] = a.min(b);
            }
        }
    }
    let mut out: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
    for (i, &e) in edges.iter().enumerate() {
        let r = root(&mut group_of, i);
        match out.iter_mut().find(|(g, _)| *g == r) {
            Some((_, list)) => list.push(e),
            None => out.push((r, vec![e])),
        }
    }
    out.into_iter().map(|(_, list)| list).collect()
}

/// The split of the contacts `edges` (chariot, model) the charging player fights: the one
/// with the most expected models slain, each fight weighed by `kills` (its expected models
/// slain). Each connected group of chariots and models is split on its own (the fights of
/// one group do not share a model or a chariot with another's): every legal split of a
/// group of at most [`MAX_EXHAUSTIVE_CONTACTS`] contacts is weighed, a larger group is
/// searched locally ([`local_split`]). Of splits as good, the first found is kept, and the
/// contacts come in the order the chariots charged, each chariot's models in the order it
/// met them, so no tie is broken by where the board lies. The fights come in the order of
/// their first chariot in `order`.
pub fn best_split(
    edges: &[(usize, usize)],
    order: &[usize],
    kills: &mut dyn FnMut(&TurnFight) -> FightWorth,
) -> (Vec<TurnFight>, Option<SplitChoice>) {
    let mut fights = Vec::new();
    let mut choice: Option<SplitChoice> = None;
    for group in groups(edges) {
        let (chosen, tried, value, search) = if group.len() <= MAX_EXHAUSTIVE_CONTACTS {
            let splits = legal_splits(&group, order);
            let mut best: Option<(Vec<TurnFight>, FightWorth)> = None;
            let tried = splits.len();
            for split in splits {
                let v = split.iter().map(&mut *kills).fold(FightWorth::default(), FightWorth::plus);
                if best.as_ref().is_none_or(|(_, b)| v.beats(b)) {
                    best = Some((split, v));
                }
            }
            let (split, v) = best.unwrap_or_default();
            (split, tried, v, SplitSearch::Exhaustive)
        } else {
            let (split, tried, v) = local_split(&group, order, kills);
            (split, tried, v, SplitSearch::Local)
        };
        if tried > 1 || search == SplitSearch::Local {
            let c = choice.get_or_insert(SplitChoice { tried: 0, kills: 0.0, search });
            c.tried += tried;
            c.kills += value.kills;
            if search == SplitSearch::Local {
                c.search = SplitSearch::Local;
            }
        }
        fights.extend(chosen);
    }
    let rank = |f: &TurnFight| order.iter().position(|c| f.chariots.first() == Some(c)).unwrap_or(usize::MAX);
    fights.sort_by_key(rank);
    (fights, choice)
}

/// A local search for a large group's split: each model several chariots touch (a shared
/// model) goes to one of them or to all of them pooled; starting from each shared model
/// going to the chariot among them with the fewest models so far (so every chariot that
/// can fight does), any change of one shared model's taker, or else of two at once, that
/// raises the expected kills while the split stays legal is kept, until none helps (or
/// [`MAX_LOCAL_SPLITS`] splits were weighed). Returns the split, how many splits were
/// weighed, and its expected kills.
fn local_split(
    edges: &[(usize, usize)],
    order: &[usize],
    kills: &mut dyn FnMut(&TurnFight) -> FightWorth,
) -> (Vec<TurnFight>, usize, FightWorth) {
    let chariots: Vec<usize> = order.iter().copied().filter(|c| edges.iter().any(|(k, _)| k == c)).collect();
    let mut models: Vec<usize> = Vec::new();
    for &(_, m) in edges {
        if !models.contains(&m) {
            models.push(m);
        }
    }
    let touching = |m: usize| -> Vec<usize> { chariots.iter().copied().filter(|&c| edges.contains(&(c, m))).collect() };
    // Per model: `Some(c)` goes to chariot c, `None` to every chariot touching it, pooled.
    let mut owner: Vec<Option<usize>> = Vec::with_capacity(models.len());
    // Models given so far, per chariot (by its place in `chariots`).
    let mut load = vec![0usize; chariots.len()];
    for &m in &models {
        let least = (0..chariots.len()).filter(|&i| edges.contains(&(chariots[i], m))).min_by_key(|&i| load[i]);
        if let Some(i) = least {
            load[i] += 1;
        }
        owner.push(least.map(|i| chariots[i]));
    }
    let chosen_of = |owner: &[Option<usize>]| -> Vec<(usize, usize)> {
        edges
            .iter()
            .copied()
            .filter(|&(c, m)| {
                let i = models.iter().position(|&x| x == m).unwrap_or(0);
                owner[i].is_none_or(|o| o == c)
            })
            .collect()
    };
    let legal = |chosen: &[(usize, usize)]| {
        let degree_c = |c: usize| chosen.iter().filter(|(k, _)| *k == c).count();
        let degree_m = |m: usize| chosen.iter().filter(|(_, x)| *x == m).count();
        chariots.iter().all(|&c| degree_c(c) > 0) && chosen.iter().all(|&(c, m)| degree_c(c) == 1 || degree_m(m) == 1)
    };
    let mut weighed = 0usize;
    let mut value = |owner: &[Option<usize>], weighed: &mut usize| -> Option<(Vec<TurnFight>, FightWorth)> {
        let chosen = chosen_of(owner);
        if !legal(&chosen) {
            return None;
        }
        *weighed += 1;
        let split = fights_of(&chosen, &chariots);
        let v = split.iter().map(&mut *kills).fold(FightWorth::default(), FightWorth::plus);
        Some((split, v))
    };
    let mut best = value(&owner, &mut weighed);
    let shared: Vec<usize> = (0..models.len()).filter(|&i| touching(models[i]).len() > 1).collect();
    let choices = |i: usize| -> Vec<Option<usize>> {
        touching(models[i]).into_iter().map(Some).chain(std::iter::once(None)).collect()
    };
    // Moves of one shared model, then (when none helps) of two at once: pooling a model
    // often needs another to change hands first.
    let mut improved = true;
    while improved && weighed < MAX_LOCAL_SPLITS {
        improved = false;
        let mut moves: Vec<Vec<(usize, Option<usize>)>> = Vec::new();
        for &i in &shared {
            moves.extend(choices(i).into_iter().filter(|&ch| ch != owner[i]).map(|ch| vec![(i, ch)]));
        }
        let singles = moves.len();
        for (a, &i) in shared.iter().enumerate() {
            for &j in &shared[a + 1..] {
                for ci in choices(i).into_iter().filter(|&ch| ch != owner[i]) {
                    for cj in choices(j).into_iter().filter(|&ch| ch != owner[j]) {
                        moves.push(vec![(i, ci), (j, cj)]);
                    }
                }
            }
        }
        for (k, mv) in moves.iter().enumerate() {
            if k == singles && improved {
                break;
            }
            if weighed >= MAX_LOCAL_SPLITS {
                break;
            }
            let kept: Vec<(usize, Option<usize>)> = mv.iter().map(|&(i, _)| (i, owner[i])).collect();
            for &(i, ch) in mv {
                owner[i] = ch;
            }
            match value(&owner, &mut weighed) {
                Some((split, v)) if best.as_ref().is_none_or(|(_, b)| v.beats(b)) => {
                    best = Some((split, v));
                    improved = true;
                }
                _ => {
                    for &(i, ch) in &kept {
                        owner[i] = ch;
                    }
                }
            }
        }
    }
    match best {
        Some((split, v)) => (split, weighed, v),
        // No legal start (a chariot every one of whose models another needs): each model
        // to its first chariot, the rest of the chariots out of the fight.
        None => {
            let chosen: Vec<(usize, usize)> =
                models.iter().filter_map(|&m| touching(m).first().map(|&c| (c, m))).collect();
            let split = fights_of(&chosen, &chariots);
            let v = split.iter().map(&mut *kills).fold(FightWorth::default(), FightWorth::plus);
            (split, weighed + 1, v)
        }
    }
}

/// The expected models slain in `fight`, from the fight's own outcome distribution as the
/// engine fights it, each model as it stood before the charge (its full Wounds, its mount,
/// its Hero's Might and Fate; `mount_wounds` gives a cavalry model's mount's Wounds), with
/// the help `support` it has: one chariot against its
/// models exactly, Hero's Might and Fate included, as long as it touches at most four (the
/// distribution grows with each; past four the chance to win the duel times the Strikes'
/// expected Wounds spread evenly, at most one kill per model); several chariots against
/// one model: the chance to win the pooled duel (their dice and Heroes' duel Might pooled,
/// the help included), times the chance the Strikes slay his rider, rolled in `strike_order`
/// with each chariot's own To Wound roll and its Hero's Might on To Wound rolls (an enemy
/// Hero's Fate is left out of this weighing, not of the fight).
pub fn expected_fight_kills(
    fight: &TurnFight,
    plans: &[Plan],
    support: &FoeSupport,
    strike_order: crate::mesbg::scenario::StrikeOrder,
    (mount_wounds, braced): (&dyn Fn(usize) -> u8, &dyn Fn(usize) -> bool),
) -> f64 {
    fight_worth(fight, plans, support, strike_order, (mount_wounds, braced)).kills
}

/// What a fight is worth to the charging player, as [`expected_fight_kills`] weighs it:
/// the expected models slain, then (to break a tie between splits) the expected points
/// slain and the expected enemy Heroes slain.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FightWorth {
    /// Expected models slain.
    pub kills: f64,
    /// Expected points of the models slain.
    pub points: f64,
    /// Expected enemy Heroes slain.
    pub heroes: f64,
}

impl FightWorth {
    /// The sum of two fights' worth.
    pub fn plus(self, other: FightWorth) -> FightWorth {
        FightWorth {
            kills: self.kills + other.kills,
            points: self.points + other.points,
            heroes: self.heroes + other.heroes,
        }
    }

    /// Whether it is worth more than `other`: more kills, or as many (to 1e-12) and more
    /// points, or as many points and more Heroes.
    pub fn beats(&self, other: &FightWorth) -> bool {
        let cmp = |a: f64, b: f64| {
            if a > b + 1e-12 {
                Some(true)
            } else if a < b - 1e-12 {
                Some(false)
            } else {
                None
            }
        };
        cmp(self.kills, other.kills)
            .or_else(|| cmp(self.points, other.points))
            .or_else(|| cmp(self.heroes, other.heroes))
            .unwrap_or(false)
    }
}

/// [`expected_fight_kills`] with the points and Heroes slain beside the kills.
pub fn fight_worth(
    fight: &TurnFight,
    plans: &[Plan],
    support: &FoeSupport,
    strike_order: crate::mesbg::scenario::StrikeOrder,
    (mount_wounds, braced): (&dyn Fn(usize) -> u8, &dyn Fn(usize) -> bool),
) -> FightWorth {
    let models = &plans[0].models;
    let rules = crate::mesbg::plan::fight_rules(&plans[0].rules);
    let standing = |m: usize, c: usize| {
        let pm = &plans[c].models[m];
        let mount = if pm.mount.is_some() { mount_wounds(m) } else { 0 };
        pm.combatant_standing(pm.wounds, mount, false, true, 0, braced(m))
    };
    if let [c] = fight.chariots[..] {
        if fight.models.len() > 4 {
            return rough_kills(fight, plans, braced);
        }
        let enemies: Vec<Combatant> = fight.models.iter().map(|&m| standing(m, c)).collect();
        let chariot = plans[c].chariot.fighter();
        let hero = plans[c].chariot.hero_in_fight();
        let mut worth = FightWorth::default();
        // Every model stands at full strength, so target `j` is model `j` of the fight.
        for ((o, slew), p) in mesbg_fight::fight_distribution_by_target(&chariot, &enemies, rules, hero, support) {
            worth.kills += p * f64::from(o.kills);
            for (j, &m) in fight.models.iter().enumerate() {
                if slew & (1 << j) != 0 {
                    worth.points += p * f64::from(models[m].points);
                    worth.heroes += p * f64::from(u8::from(models[m].hero.is_some()));
                }
            }
        }
        return worth;
    }
    let m = fight.models[0];
    let pooled = ChariotFighter {
        fight: fight.chariots.iter().map(|&c| plans[c].chariot.fight).max().unwrap_or(0),
        attacks: fight.chariots.iter().map(|&c| plans[c].chariot.attacks).sum(),
        wounds_left: fight.chariots.iter().map(|&c| plans[c].chariot.wounds).min().unwrap_or(1),
        side: plans[fight.chariots[0]].chariot.side,
        // The weight of a pooled fight reads the chariots as one: held as they all hold it
        // when they agree (the fight itself reads each chariot's own grip).
        grip: {
            let first = plans[fight.chariots[0]].chariot.grip;
            if fight.chariots.iter().all(|&c| plans[c].chariot.grip == first) { first } else { Grip::OneHanded }
        },
    };
    let heroes = fight.chariots.iter().filter_map(|&c| plans[c].chariot.hero.map(|h| (c, h)));
    let duel_might: u8 = heroes.clone().filter(|(_, h)| h.might_policy.on_duel()).map(|(_, h)| h.might).sum();
    let hero = crate::mesbg::rules::fight::HeroInFight {
        might: duel_might,
        might_on_duel: duel_might > 0,
        might_on_wounds: false,
        fate: 0,
        ..plans[fight.chariots[0]].chariot.hero_in_fight()
    };
    let target = standing(m, fight.chariots[0]);
    let win: f64 = mesbg_fight::fight_distribution(&pooled, &[target], rules, hero, support)
        .into_iter()
        .filter(|(o, _)| o.won)
        .map(|(_, p)| p)
        .sum();
    // Won: the Strikes in order, each chariot's own roll and its Hero's Might on wounds.
    let trapped = target.trapped_when_beaten(rules);
    let might: Vec<u8> = fight
        .chariots
        .iter()
        .map(|&c| plans[c].chariot.might_for_strikes(plans[c].chariot.hero.map_or(0, |h| h.might)))
        .collect();
    let mut left: Vec<(u8, f64)> = vec![(models[m].wounds, 1.0)];
    for k in crate::mesbg::resolve::strike_order(&might, strike_order) {
        let (c, might) = (fight.chariots[k], might[k]);
        let roll = plans[c].models[m].struck(braced(m)).0;
        let roll = if plans[c].chariot.grip == Grip::TwoHanded { roll.plus_one() } else { roll };
        // (Wounds left, Might left) of this chariot's Hero, with its chance.
        let mut states: Vec<(u8, u8, f64)> = left.iter().map(|&(w, p)| (w, might, p)).collect();
        for _ in 0..plans[c].chariot.attacks {
            let mut next: Vec<(u8, u8, f64)> = Vec::new();
            for (w, mt, p) in states {
                if w == 0 {
                    next.push((w, mt, p));
                    continue;
                }
                for ((wounds, spent), q) in mesbg_fight::strike_distribution(roll, trapped, w, mt) {
                    next.push((w - wounds.min(w), mt - spent.min(mt), p * q));
                }
            }
            states = next;
        }
        left = states.into_iter().map(|(w, _, p)| (w, p)).collect();
    }
    let slain: f64 = left.iter().filter(|(w, _)| *w == 0).map(|(_, p)| p).sum();
    let p = win * slain;
    FightWorth {
        kills: p,
        points: p * f64::from(models[m].points),
        heroes: p * f64::from(u8::from(models[m].hero.is_some())),
    }
}

/// A rough estimate of the models a fight of one chariot against more than four models
/// slays (whose exact distribution is not worked out): the chance to win the duel (dice
/// against dice, help and Might left out, equal Fight read as a roll-off) times the
/// expected kills of its Strikes spread evenly over its models, each Trapped unless a
/// Monster, at full Wounds, at most one kill per model.
fn rough_kills(f: &TurnFight, plans: &[Plan], braced: &dyn Fn(usize) -> bool) -> FightWorth {
    let models = &plans[0].models;
    let c = f.chariots[0];
    let ours = u32::from(plans[c].chariot.attacks);
    let theirs: u32 = f.models.iter().map(|&m| u32::from(models[m].attacks)).sum();
    let fight_theirs = f.models.iter().map(|&m| models[m].fight).max().unwrap_or(0);
    let win = duel_win(ours, theirs, plans[c].chariot.fight.cmp(&fight_theirs));
    let per = f64::from(plans[c].chariot.attacks) / f.models.len() as f64;
    let mut worth = FightWorth::default();
    for &m in &f.models {
        let p = plans[c].models[m].struck(braced(m)).0.probability();
        let trapped = if models[m].monster { 1.0 } else { 2.0 };
        let slain = win * (per * trapped * p / f64::from(models[m].wounds.max(1))).min(1.0);
        worth.kills += slain;
        worth.points += slain * f64::from(models[m].points);
        worth.heroes += slain * f64::from(u8::from(models[m].hero.is_some()));
    }
    worth
}

/// The chance that `ours` dice beat `theirs` (highest die; a tie to the higher Fight, an
/// equal Fight to a roll-off).
pub fn duel_win(ours: u32, theirs: u32, fight: std::cmp::Ordering) -> f64 {
    let at_most = |k: u32, n: u32| (f64::from(k) / 6.0).powi(n as i32);
    let mut win = 0.0;
    for high in 1..=6u32 {
        let p_ours = at_most(high, ours) - at_most(high - 1, ours);
        let below = at_most(high - 1, theirs);
        let tie = at_most(high, theirs) - below;
        let tie_won = match fight {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Less => 0.0,
            std::cmp::Ordering::Equal => 0.5,
        };
        win += p_ours * (below + tie * tie_won);
    }
    win
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `fights` is a legal split of `edges`: every fight a star of its contacts,
    /// every chariot and model in exactly one fight.
    fn legal(fights: &[TurnFight], edges: &[(usize, usize)]) -> bool {
        let mut chariots: Vec<usize> = edges.iter().map(|e| e.0).collect();
        let mut models: Vec<usize> = edges.iter().map(|e| e.1).collect();
        chariots.sort_unstable();
        chariots.dedup();
        models.sort_unstable();
        models.dedup();
        let mut seen_c: Vec<usize> = fights.iter().flat_map(|f| f.chariots.clone()).collect();
        let mut seen_m: Vec<usize> = fights.iter().flat_map(|f| f.models.clone()).collect();
        seen_c.sort_unstable();
        seen_m.sort_unstable();
        let stars = fights.iter().all(|f| {
            (f.chariots.len() == 1 || f.models.len() == 1)
                && f.chariots.iter().all(|&c| f.models.iter().all(|&m| edges.contains(&(c, m))))
        });
        stars && seen_c == chariots && seen_m == models
    }

    /// Chariot 0 touches twelve models of its own and model 12; chariots 1 and 2 both touch
    /// models 12 and 13 (17 contacts, one group). The best split pools chariots 1 and 2
    /// against model 13 and gives model 12 to chariot 0: two shared models change hands
    /// from the start, which the local search must find.
    #[test]
    fn past_the_exhaustive_limit_the_search_still_pools_a_shared_model() {
        let mut edges: Vec<(usize, usize)> = (0..12).map(|m| (0, m)).collect();
        edges.extend([(0, 12), (1, 12), (1, 13), (2, 12), (2, 13)]);
        assert!(edges.len() > MAX_EXHAUSTIVE_CONTACTS);
        assert!(legal_splits(&edges, &[0, 1, 2]).is_empty(), "too many contacts to try them all");
        let mut kills = |f: &TurnFight| {
            let kills = if f.chariots == [1, 2] && f.models == [13] { 5.0 } else { f.models.len() as f64 * 0.5 };
            FightWorth { kills, ..FightWorth::default() }
        };
        let (fights, choice) = best_split(&edges, &[0, 1, 2], &mut kills);
        assert!(legal(&fights, &edges), "{fights:?}");
        let choice = choice.expect("a choice was made");
        assert_eq!(choice.search, SplitSearch::Local);
        assert!(fights.iter().any(|f| f.chariots == [1, 2] && f.models == [13]), "{fights:?}");
        assert!(fights.iter().any(|f| f.chariots == [0] && f.models.contains(&12)), "{fights:?}");
        // 13 models of chariot 0 at 0.5 each, and the pool.
        assert!((choice.kills - (6.5 + 5.0)).abs() < 1e-12, "{choice:?}");
    }

    /// Groups that share no chariot and no model are split each on its own: every split of
    /// each is weighed, the best of each kept, so two small groups of 17 contacts in all are
    /// still weighed exhaustively.
    #[test]
    fn groups_apart_are_split_each_on_its_own_and_exhaustively() {
        // Group one: chariots 0 and 1 both touch models 0 and 1. Group two: chariots 2 and 3,
        // each with six models of their own, both touching model 20.
        let mut edges = vec![(0, 0), (0, 1), (1, 0), (1, 1)];
        edges.extend((2..8).map(|m| (2, m)));
        edges.extend((8..14).map(|m| (3, m)));
        edges.extend([(2, 20), (3, 20)]);
        assert!(edges.len() > MAX_EXHAUSTIVE_CONTACTS);
        // Chariot 1 on model 0 is worth most; model 20 is worth more to chariot 3.
        let mut kills = |f: &TurnFight| {
            let mut v = f.models.len() as f64;
            if f.chariots == [1] && f.models == [0] {
                v += 3.0;
            }
            if f.chariots == [3] && f.models.contains(&20) {
                v += 2.0;
            }
            FightWorth { kills: v, ..FightWorth::default() }
        };
        let (fights, choice) = best_split(&edges, &[0, 1, 2, 3], &mut kills);
        assert!(legal(&fights, &edges), "{fights:?}");
        let choice = choice.expect("a choice");
        assert_eq!(choice.search, SplitSearch::Exhaustive);
        assert!(fights.iter().any(|f| f.chariots == [1] && f.models == [0]));
        assert!(fights.iter().any(|f| f.chariots == [3] && f.models.contains(&20)));
        // Fights come in the order of their first chariot.
        let firsts: Vec<usize> = fights.iter().map(|f| f.chariots[0]).collect();
        assert_eq!(firsts, vec![0, 1, 2, 3]);
        assert!((choice.kills - (1.0 + 4.0 + 6.0 + 9.0)).abs() < 1e-12, "{choice:?}");
    }
}
