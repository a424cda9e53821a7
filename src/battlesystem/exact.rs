//! Exact values for a charge: the whole joint distribution of its metrics (volleys, melee
//! hits both ways, figures and crew removed, morale), with no sampling.
//!
//! A charge is a short chain: each volley's hits (dice through the hits table, then an
//! armour d10 per hit, figures removed as hits accumulate), then one simultaneous melee
//! whose return blows depend on the target's figures and crew left, then the target's
//! morale check. The chain is walked state by state (the target's figures, carried hits
//! and crew after each step), merging equal states, so every metric's exact distribution
//! and their joint come out at once. The closed form of `hits_on_target` alone
//! ([`charge_hits_on_target`]) is kept as an independent check of the chain.

use super::resolve::{
    BattlesystemPlan, Fighting, MAX_CREW_GROUPS, Slots, charge_target_in_contact, charger_in_contact, fighting_crew,
    platform_or_driver_pmf, power,
};
use super::scenario::{Action, ChargeDoubles, PlatformHits, Role, Unit};
use crate::battlesystem::rules::{AttackDie, convolve, dice_count};
use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::BuildHasherDefault;

/// A map with a fixed hasher: the same insertions visit in the same order in every
/// process, so sums of probabilities (and every exact value written) are identical bit for
/// bit from run to run.
type Map<K> = HashMap<K, f64, BuildHasherDefault<DefaultHasher>>;

/// The exact distribution of `hits_on_target` (`pmf[h]` = P(h hits)), or why there is none.
pub fn charge_hits_on_target(plan: &BattlesystemPlan) -> Result<Vec<f64>, String> {
    let sc = &plan.scenario;
    let Action::Charge { unit, target, volleys, .. } = sc.action else {
        return Err(ROUT_NOT_EXACT.into());
    };
    let (c, t) = (&sc.units[unit], &sc.units[target]);
    let rules = &sc.rules;
    let table = &rules.attack.hits_table;
    if t.is_platform() && rules.platform_hits == PlatformHits::CrewFirst {
        return Err(
            "the target's hits fall on crew and platform of different AR (platform_hits = \"crew_first\")".into()
        );
    }
    // Can the volleys remove every figure of the target?
    let max_die_hits = |die: AttackDie| {
        let top = die.pmf().len() as u32 - 1;
        table.hits(top)
    };
    let mut max_volley_hits = 0u64;
    for crew in c.crew.iter().filter(|cr| cr.role == Role::Archer) {
        let best = crew.bands.iter().map(|b| b.hundredths).max().unwrap_or(0);
        let dice = dice_count(crew.count * c.figures, best, 100);
        max_volley_hits += u64::from(dice) * u64::from(max_die_hits(crew.ad)) * u64::from(volleys);
    }
    if max_volley_hits >= u64::from(t.figures) * u64::from(t.stats.hits) {
        return Err("the volleys could destroy the target before the melee".into());
    }
    let doubled = |which| rules.charge_doubles == which || rules.charge_doubles == ChargeDoubles::Both;
    let crew_mult = if doubled(ChargeDoubles::Crew) { (2, 1) } else { (1, 1) };
    let own_mult = if doubled(ChargeDoubles::Platform) { (2, 1) } else { (1, 1) };
    let in_contact = charger_in_contact(plan, unit, target);
    let mut left = [0; MAX_CREW_GROUPS];
    for (alive, cr) in left.iter_mut().zip(&c.crew) {
        *alive = cr.count * c.figures;
    }
    let mut groups = [(0, AttackDie::D4); MAX_CREW_GROUPS];
    let mut raw = vec![1.0];
    for _ in 0..in_contact {
        let n = fighting_crew(c, &mut left, &mut groups);
        raw = convolve(&raw, &platform_or_driver_pmf(plan, c, &groups[..n], crew_mult, Fighting::Charging));
    }
    if rules.platform_attacks_alone {
        let per_die = table.hits_pmf(&c.stats.ad.pmf());
        for _ in 0..dice_count(in_contact, own_mult.0, own_mult.1) {
            raw = convolve(&raw, &per_die);
        }
    }
    let keep = 1.0 - rules.attack.armour.cancel_probability(t.stats.ar);
    let mut through = vec![0.0; raw.len()];
    for (h, p) in raw.iter().enumerate() {
        for (k, q) in crate::dice::binomial_pmf(h, keep).iter().enumerate() {
            through[k] += p * q;
        }
    }
    Ok(through)
}

/// Why `exact` refuses a rout.
pub const ROUT_NOT_EXACT: &str = "exact values cover charges only: a rout is refused because its tree does not stay \
     small. Each of up to 1 + max_rerolls d12 headings (12^4 = 20,736 heading sequences under the default 3 re-rolls) \
     meets units whose trampling melee and morale push them back by distances that depend on the dice, so the board \
     positions after each step do not merge into a few states; use `charioteer run` (with --target-ci for any precision)";

/// Why a run has no exact values when `run --no-exact` skipped them.
pub const SKIPPED: &str = "skipped with --no-exact";

/// The most distinct states the exact walk of a charge may hold at once (about 100 bytes
/// each, so a few tens of MB); a charge beyond it (hundreds of figures with many hits each)
/// has no exact values, and `run` goes on without them.
pub const MAX_EXACT_STATES: usize = 250_000;

/// The most elementary steps (one state carried through one hit, or one pair of melee
/// outcomes joined) the exact walk of a charge may take: about a second on one core.
/// Past it the charge has no exact values, so no scenario the validator accepts makes `run`
/// wait on them.
pub const MAX_EXACT_WORK: u64 = 3_000_000;

/// What the exact walk of one charge has spent so far, against [`MAX_EXACT_STATES`] and
/// [`MAX_EXACT_WORK`].
#[derive(Default)]
struct Budget {
    work: u64,
}

impl Budget {
    /// Counts `steps` more steps of work; past the bound, why there are no exact values.
    fn spend(&mut self, steps: usize) -> Result<(), String> {
        self.work = self.work.saturating_add(steps as u64);
        if self.work > MAX_EXACT_WORK {
            return Err(format!(
                "the charge needs more than {MAX_EXACT_WORK} steps to enumerate (too many figures, hits and \
                 dice); the estimates stand on the trials alone"
            ));
        }
        Ok(())
    }

    /// Checks that `states` distinct states may be held.
    fn hold(states: usize) -> Result<(), String> {
        if states > MAX_EXACT_STATES {
            return Err(format!(
                "the charge has more than {MAX_EXACT_STATES} states; the estimates stand on the trials alone"
            ));
        }
        Ok(())
    }
}

/// The exact joint distribution of a charge's metrics (the engine's shape, shared with a
/// MESBG turn's exact engine and the exact files).
pub type ChargeJoint = crate::engine::statistics::JointDistribution;

/// A unit's state in the exact walk: figures, hits carried, and crew per group.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Held {
    figures: u32,
    carried: u32,
    crew_alive: [u32; MAX_CREW_GROUPS],
    crew_carried: [u32; MAX_CREW_GROUPS],
}

impl Held {
    fn fresh(unit: &Unit) -> Self {
        let mut crew_alive = [0; MAX_CREW_GROUPS];
        for (alive, c) in crew_alive.iter_mut().zip(&unit.crew) {
            *alive = c.count * unit.figures;
        }
        Self { figures: unit.figures, carried: 0, crew_alive, crew_carried: [0; MAX_CREW_GROUPS] }
    }

    /// Riders still aboard.
    fn riders(&self, unit: &Unit) -> u32 {
        unit.crew.iter().zip(&self.crew_alive).filter(|(c, _)| c.role == Role::Rider).map(|(_, n)| n).sum()
    }
}

/// A unit's state after some hits, with what those hits did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Took {
    held: Held,
    /// Hits that got through armour.
    through: u32,
    /// Figures (platforms) removed.
    figures: u32,
    /// Crew removed (with their platforms, or on their own).
    crew: u32,
}

fn add<K: std::hash::Hash + Eq>(map: &mut Map<K>, key: K, p: f64) {
    *map.entry(key).or_insert(0.0) += p;
}

/// The distributions of a unit's state after 0, 1, ..., `most` hits (before armour):
/// `out[r]` after `r` hits. Each hit rolls its armour d10 against the figure it falls on
/// (the platform, or under `platform_hits = "crew_first"` the first crew group with figures
/// left, riders last), and figures go as their hits fill up.
fn take_hits_upto(
    plan: &BattlesystemPlan,
    unit: &Unit,
    start: Held,
    most: usize,
    budget: &mut Budget,
) -> Result<Vec<Vec<(Took, f64)>>, String> {
    let rules = &plan.scenario.rules;
    let crew_first = unit.is_platform() && rules.platform_hits == PlatformHits::CrewFirst;
    let mut now: Map<Took> = Map::default();
    now.insert(Took { held: start, through: 0, figures: 0, crew: 0 }, 1.0);
    let mut out = Vec::with_capacity(most + 1);
    out.push(now.iter().map(|(k, p)| (*k, *p)).collect());
    let mut stored = 1;
    for _ in 0..most {
        budget.spend(now.len())?;
        let mut next = Map::with_capacity_and_hasher(now.len() * 2, Default::default());
        for (t, p) in &now {
            let crew_target = if crew_first {
                let fighting = unit.crew.iter().enumerate().filter(|(_, c)| c.role != Role::Rider);
                let riders = unit.crew.iter().enumerate().filter(|(_, c)| c.role == Role::Rider);
                fighting.chain(riders).map(|(g, _)| g).find(|&g| t.held.crew_alive[g] > 0)
            } else {
                None
            };
            let ar = crew_target.map_or(unit.stats.ar, |g| unit.crew[g].ar);
            let cancel = rules.attack.armour.cancel_probability(ar);
            if cancel > 0.0 {
                add(&mut next, *t, p * cancel);
            }
            if cancel >= 1.0 {
                continue;
            }
            let mut n = *t;
            n.through += 1;
            match crew_target {
                Some(g) => {
                    n.held.crew_carried[g] += 1;
                    if n.held.crew_carried[g] >= unit.crew[g].hits {
                        n.held.crew_carried[g] = 0;
                        n.held.crew_alive[g] -= 1;
                        n.crew += 1;
                    }
                }
                None if n.held.figures > 0 => {
                    n.held.carried += 1;
                    if n.held.carried >= unit.stats.hits {
                        n.held.carried = 0;
                        n.held.figures -= 1;
                        n.figures += 1;
                        for (g, c) in unit.crew.iter().enumerate() {
                            let removed = n.held.crew_alive[g].saturating_sub(c.count * n.held.figures);
                            n.held.crew_alive[g] -= removed;
                            n.crew += removed;
                        }
                    }
                }
                None => {}
            }
            add(&mut next, n, p * (1.0 - cancel));
        }
        now = next;
        stored += now.len();
        Budget::hold(stored)?;
        out.push(now.iter().map(|(k, p)| (*k, *p)).collect());
    }
    Ok(out)
}

/// The distribution of the hits (before armour) a unit scores in melee with `in_contact`
/// figures in state `held`, under the charge multipliers when `charging`.
fn melee_raw(plan: &BattlesystemPlan, unit: &Unit, held: &Held, in_contact: u32, charging: bool) -> Vec<f64> {
    let how = if charging { Fighting::Charging } else { Fighting::Standing };
    super::resolve::melee_raw(plan, unit, &held.crew_alive, in_contact, how)
}

fn to_u16(x: u32) -> u16 {
    x.min(u32::from(u16::MAX)) as u16
}

/// The exact joint distribution of every metric of a charge, or why there is none (a rout,
/// or a walk beyond [`MAX_EXACT_STATES`]).
pub fn charge_joint(plan: &BattlesystemPlan) -> Result<ChargeJoint, String> {
    let sc = &plan.scenario;
    let (Action::Charge { unit, target, volleys, gap }, Slots::Charge(s)) = (&sc.action, &plan.slots) else {
        return Err(ROUT_NOT_EXACT.into());
    };
    let (unit, target, volleys, gap) = (*unit, *target, *volleys, *gap);
    let (c, t) = (&sc.units[unit], &sc.units[target]);
    let table = &sc.rules.attack.hits_table;
    let mut budget = Budget::default();
    let charger = Held::fresh(c);
    // Volleys: archers aboard shoot at the gap, then at half of it.
    let mut stage: Map<(Held, u32, u32)> = Map::default();
    stage.insert((Held::fresh(t), 0, 0), 1.0);
    for v in 0..volleys {
        let range = if v == 0 { gap } else { gap / 2.0 };
        let mut raw = vec![1.0];
        for (g, crew) in c.crew.iter().enumerate().filter(|(_, cr)| cr.role == Role::Archer) {
            if let Some(band) = crew.bands.iter().find(|b| range >= b.from && range < b.to) {
                let count = dice_count(charger.crew_alive[g], band.hundredths, 100);
                raw = convolve(&raw, &power(&table.hits_pmf(&crew.ad.pmf()), count));
            }
        }
        let mut next = Map::default();
        for ((held, hits, kills), p) in stage {
            if held.figures == 0 {
                add(&mut next, (held, hits, kills), p);
                continue;
            }
            let after = take_hits_upto(plan, t, held, raw.len() - 1, &mut budget)?;
            for (r, pr) in raw.iter().enumerate().filter(|(_, p)| **p > 0.0) {
                budget.spend(after[r].len())?;
                for (took, pt) in &after[r] {
                    add(&mut next, (took.held, hits + took.through, kills + took.figures), p * pr * pt);
                }
            }
        }
        Budget::hold(next.len())?;
        stage = next;
    }
    // The melee: both sides roll, then both take their hits; then the target's morale.
    let on_target_raw = melee_raw(plan, c, &charger, charger_in_contact(plan, unit, target), true);
    let full_contact = charge_target_in_contact(plan, unit, target);
    // The charger starts every melee whole, so its state after r hits is walked once: up to
    // the most the target can strike back with (every figure and crew of it left).
    let most_back = melee_raw(plan, t, &Held::fresh(t), full_contact.min(t.figures), false).len();
    let mut charger_after = take_hits_upto(plan, c, charger, most_back.saturating_sub(1), &mut budget)?;
    let morale = sc.rules.morale.distribution(t.stats.ml);
    let width = plan.metrics.len();
    let mut outcomes: Map<Vec<u16>> = Map::default();
    for ((held, volley_hits, volley_kills), p) in stage {
        let mut values = vec![0u16; width];
        values[s.volley_hits] = to_u16(volley_hits);
        values[s.volley_kills] = to_u16(volley_kills);
        values[s.charger_destroyed] = u16::from(charger.figures == 0);
        if held.figures == 0 {
            values[s.target_figures_lost] = to_u16(volley_kills);
            values[s.target_morale] = 3;
            values[s.target_destroyed] = 1;
            values[s.platform_uncontrolled] = u16::from(charger.figures > 0 && charger.riders(c) < charger.figures);
            add(&mut outcomes, values, p);
            continue;
        }
        // The target's side of the exchange, reduced to what the metrics need.
        let target_after = take_hits_upto(plan, t, held, on_target_raw.len() - 1, &mut budget)?;
        let mut on_target: Map<(u32, u32, bool)> = Map::default();
        for (r, pr) in on_target_raw.iter().enumerate().filter(|(_, p)| **p > 0.0) {
            budget.spend(target_after[r].len())?;
            for (took, pt) in &target_after[r] {
                add(&mut on_target, (took.through, took.figures, took.held.figures > 0), pr * pt);
            }
        }
        let on_charger_raw = melee_raw(plan, t, &held, full_contact.min(held.figures), false);
        if on_charger_raw.len() > charger_after.len() {
            charger_after = take_hits_upto(plan, c, charger, on_charger_raw.len() - 1, &mut budget)?;
        }
        let mut on_charger: Map<(u32, u32, u32, bool, bool)> = Map::default();
        for (r, pr) in on_charger_raw.iter().enumerate().filter(|(_, p)| **p > 0.0) {
            budget.spend(charger_after[r].len())?;
            for (took, pt) in &charger_after[r] {
                let left = took.held.figures;
                let uncontrolled = left > 0 && took.held.riders(c) < left;
                add(&mut on_charger, (took.through, took.figures, took.crew, left == 0, uncontrolled), pr * pt);
            }
        }
        budget.spend(on_target.len() * on_charger.len() * morale.len())?;
        for (&(hits_t, figures_t, alive), pt) in &on_target {
            for (&(hits_c, figures_c, crew_c, destroyed, uncontrolled), pc) in &on_charger {
                let mut v = values.clone();
                v[s.hits_on_target] = to_u16(hits_t);
                v[s.target_figures_lost] = to_u16(volley_kills + figures_t);
                v[s.hits_on_charger] = to_u16(hits_c);
                v[s.platform_figures_lost] = to_u16(figures_c);
                v[s.crew_lost] = to_u16(crew_c);
                v[s.charger_destroyed] = u16::from(destroyed);
                v[s.platform_uncontrolled] = u16::from(uncontrolled);
                let results: Vec<(usize, f64)> =
                    if alive { morale.iter().copied().enumerate().collect() } else { vec![(3, 1.0)] };
                for (result, pm) in results.into_iter().filter(|(_, pm)| *pm > 0.0) {
                    let mut w = v.clone();
                    w[s.target_morale] = result as u16;
                    w[[s.target_held, s.target_fell_back, s.target_routed, s.target_destroyed][result]] = 1;
                    add(&mut outcomes, w, p * pt * pc * pm);
                }
            }
        }
        Budget::hold(outcomes.len())?;
    }
    let mut outcomes: Vec<(Vec<u16>, f64)> = outcomes.into_iter().collect();
    outcomes.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(ChargeJoint { outcomes })
}

/// The mean of a distribution.
pub fn mean_of(pmf: &[f64]) -> f64 {
    pmf.iter().enumerate().map(|(k, p)| k as f64 * p).sum()
}
