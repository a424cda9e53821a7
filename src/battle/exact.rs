//! Exact values for a charge, where the rules make them a closed form: the distribution of
//! the melee hits the charger gets through the target's armour (`hits_on_target`).
//!
//! The charger's attack depends on nothing random before it (its crew are all aboard), so
//! its hits are convolutions of the dice: per platform in contact, the crew's dice mixed
//! over the shared platform roll (or with a roll per die), the platform's own dice when it
//! attacks alone, then a binomial for the armour roll of each hit. The only thing that can
//! break this is the target being wiped out by the volleys (no melee then), so the exact
//! value is offered only when the volleys cannot possibly remove every figure.

use super::resolve::{BattlePlan, MAX_CREW_GROUPS, fighting_crew};
use super::scenario::{Action, ChargeDoubles, PlatformHits, Role};
use crate::rules::battlesystem::{AttackDie, PlatformRoll, convolve, dice_count};

/// The exact distribution of `hits_on_target` (`pmf[h]` = P(h hits)), or why there is none.
pub fn charge_hits_on_target(plan: &BattlePlan) -> Result<Vec<f64>, String> {
    let sc = &plan.scenario;
    let Action::Charge { unit, target, volleys, .. } = sc.action else {
        return Err("exact values cover charges only; a rout's path depends on every roll before it".into());
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
    let in_contact = c.figures.min(c.frontage);
    let mut left = [0; MAX_CREW_GROUPS];
    for (alive, cr) in left.iter_mut().zip(&c.crew) {
        *alive = cr.count * c.figures;
    }
    let mut groups = [(0, AttackDie::D4); MAX_CREW_GROUPS];
    let mut raw = vec![1.0];
    for _ in 0..in_contact {
        let n = fighting_crew(c, &mut left, &mut groups);
        let dice: Vec<(u32, AttackDie)> =
            groups[..n].iter().map(|&(aboard, die)| (dice_count(aboard, crew_mult.0, crew_mult.1), die)).collect();
        raw = convolve(&raw, &platform_pmf(c.stats.ad, &dice, rules.platform_roll, table));
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
        for (k, q) in crate::rules::mesbg::binomial_pmf(h, keep).iter().enumerate() {
            through[k] += p * q;
        }
    }
    Ok(through)
}

/// Hits (before armour) of one platform's crew: `groups` of (dice, die).
fn platform_pmf(
    platform: AttackDie,
    groups: &[(u32, AttackDie)],
    roll: PlatformRoll,
    table: &crate::rules::battlesystem::HitsTable,
) -> Vec<f64> {
    let all_dice = |shift_pmf: &dyn Fn(AttackDie) -> Vec<f64>| {
        let mut total = vec![1.0];
        for &(dice, die) in groups {
            let per_die = table.hits_pmf(&shift_pmf(die));
            for _ in 0..dice {
                total = convolve(&total, &per_die);
            }
        }
        total
    };
    match roll {
        PlatformRoll::PerFigure => all_dice(&|die| convolve(&die.pmf(), &platform.pmf())),
        PlatformRoll::Shared => {
            let mut out = vec![0.0];
            for (shared, p) in platform.pmf().iter().enumerate().filter(|(_, p)| **p > 0.0) {
                let given = all_dice(&|die| {
                    let mut shifted = vec![0.0; shared];
                    shifted.extend(die.pmf());
                    shifted
                });
                if given.len() > out.len() {
                    out.resize(given.len(), 0.0);
                }
                out.iter_mut().zip(&given).for_each(|(o, g)| *o += p * g);
            }
            out
        }
    }
}

/// The mean of a distribution.
pub fn mean_of(pmf: &[f64]) -> f64 {
    pmf.iter().enumerate().map(|(k, p)| k as f64 * p).sum()
}
