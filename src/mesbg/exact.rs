//! The exact engine: the distribution of every metric of a charge, computed from the
//! compiled plan instead of sampled. The contact list is fixed once planned, so a charge is
//! a short sequence of chance events: where the chariot stops (the compiled chain), what
//! the Impact Hits did to the group it stops at (each model's compiled outcome table,
//! conditioned on not all being slain), the terrain's tests, the fight (the compiled exact
//! fight tables, or the same exact fight for a chariot already hurt), and the Hero thrown
//! from a slain chariot. Each step branches a weighted set of states; outcomes that agree
//! are merged. It mirrors [`crate::mesbg::resolve`]'s trial step by step with the same rule
//! functions and tables, and the two check each other (tests, and `run`'s z-scores).
//!
//! Cavalry are covered: rider and mount in the duel, the Knocked Flying hit on a beaten
//! rider, Strikes at a riderless mount, and riders thrown by the Impact Hits who make no
//! Strikes. A contact group too large to enumerate gets [`NotExact`], never an
//! approximation.

use crate::mesbg::analysis::{DistributionRow, MetricSummary};
use crate::mesbg::plan::support::Presence;
use crate::mesbg::plan::{Plan, fight_rules};
use crate::mesbg::rules::FightOutcome;
use crate::mesbg::rules::fight::{self as mesbg_fight, ChariotFighter, Combatant, FoeSupport, HeroInFight, WoundOn};
use crate::mesbg::tally::{Metric, Outcome};
use std::collections::BTreeMap;

/// Why a scenario has no exact distribution.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotExact {
    /// A contact group has so many outcome combinations that enumerating them is unreasonable.
    #[error(
        "no exact values: {combinations} Impact Hit outcome combinations in one contact group (at most {MAX_COMBINATIONS} are enumerated)"
    )]
    TooManyCombinations {
        /// Combinations the group would need.
        combinations: u128,
    },
    /// The run was asked not to compute them (`run --no-exact`).
    #[error("no exact values: skipped with --no-exact")]
    Skipped,
}

/// The most Impact Hit outcome combinations of one contact group the engine enumerates.
pub const MAX_COMBINATIONS: u128 = 1 << 20;

/// The exact joint distribution of a charge's metrics.
#[derive(Clone, Debug)]
pub struct ExactDistribution {
    /// Every possible outcome (all metrics) with its probability; probabilities sum to 1.
    pub outcomes: Vec<(Outcome, f64)>,
}

/// A branch of the computation: the outcome so far, what the chariot has left, and its
/// probability.
#[derive(Clone, Copy, Debug)]
struct Branch {
    out: Outcome,
    wounds: u8,
    might: u8,
    fate: u8,
    p: f64,
}

impl Branch {
    /// The chariot suffers a Wound unless the Hero's Fate (retried by the ruleset, with
    /// Might on the Fate roll) prevents it: one branch per way that can go.
    fn suffer_wound(self, plan: &Plan) -> Vec<Branch> {
        let on = WoundOn::Chariot { wounds_left: self.wounds };
        mesbg_fight::prevention_distribution(plan.chariot.saves, on, self.fate, self.might)
            .into_iter()
            .map(|(pr, q)| Branch {
                wounds: if pr.prevented { self.wounds } else { self.wounds.saturating_sub(1) },
                fate: self.fate - pr.fate_spent,
                might: self.might - pr.might_spent,
                p: self.p * q,
                ..self
            })
            .collect()
    }
}

/// Computes the exact distribution of every metric of `plan`'s charge.
pub fn exact(plan: &Plan) -> Result<ExactDistribution, NotExact> {
    for g in &plan.groups {
        let combinations: u128 = g.models.iter().map(|&m| plan.models[m].impact.outcomes.len() as u128).product();
        if combinations > MAX_COMBINATIONS {
            return Err(NotExact::TooManyCombinations { combinations });
        }
    }
    let hero = plan.chariot.hero;
    let fresh = Branch {
        out: Outcome::default(),
        wounds: plan.chariot.wounds,
        might: hero.map_or(0, |h| h.might),
        fate: hero.map_or(0, |h| h.fate),
        p: 1.0,
    };
    let mut finished: BTreeMap<[u16; Metric::ALL.len()], f64> = BTreeMap::new();
    let mut finish = |b: Branch| *finished.entry(b.out.values).or_default() += b.p;
    let stops = &plan.chain.stop_probabilities;
    for (g, &p_stop) in stops.iter().enumerate() {
        if p_stop <= 0.0 {
            continue;
        }
        // The difficult-terrain test, on entering, when the chariot gets that far.
        let start = Branch { p: p_stop, ..fresh };
        let branches = if plan.difficult_from.is_some() && g >= plan.terrain_group {
            terrain_test(plan, start)
        } else {
            vec![start]
        };
        for b in branches {
            if b.wounds == 0 {
                // Slain on entering: it stops there, past only the models before that point.
                let mut b = b;
                let passed = plan.groups[..plan.terrain_group].iter().map(|g| g.models.len()).sum::<usize>() as u16;
                b.out.set(Metric::ImpactKills, passed);
                b.out.set(Metric::Contacts, passed);
                b.out.set(Metric::Kills, passed);
                for b in heroes_driven_past(plan, plan.terrain_group, b) {
                    finish_charge(plan, b).into_iter().for_each(&mut finish);
                }
            } else if g < plan.groups.len() {
                for b in heroes_driven_past(plan, g, b) {
                    stopped_at(plan, g, b, &mut finish);
                }
            } else {
                // Drove through every contact.
                let mut b = b;
                let passed = plan.models_on_path() as u16;
                b.out.set(Metric::ImpactKills, passed);
                b.out.set(Metric::Contacts, passed);
                b.out.set(Metric::Kills, passed);
                b.out.set(Metric::Breakthrough, u16::from(plan.breakthrough_possible));
                for b in heroes_driven_past(plan, plan.groups.len(), b).into_iter().flat_map(|b| obstacle(plan, b)) {
                    finish_charge(plan, b).into_iter().for_each(&mut finish);
                }
            }
        }
    }
    Ok(ExactDistribution {
        outcomes: finished.into_iter().filter(|(_, p)| *p > 0.0).map(|(values, p)| (Outcome { values }, p)).collect(),
    })
}

/// The enemy Heroes the chariot drove past before group `g`: each was slain by the Impact
/// Hits, and the Fate he spent first has its exact distribution given that.
fn heroes_driven_past(plan: &Plan, g: usize, b: Branch) -> Vec<Branch> {
    let mut branches = vec![b];
    for m in plan.foe_heroes_before(g) {
        let table = &plan.models[m].impact;
        let slain: Vec<(u8, f64)> = table
            .outcomes
            .iter()
            .zip(&table.probabilities)
            .filter(|(o, p)| o.passed && **p > 0.0)
            .map(|(o, p)| (o.fate_spent, *p / table.p_passed))
            .collect();
        branches = branches
            .into_iter()
            .flat_map(|b| {
                slain.iter().map(move |&(fate, q)| {
                    let mut b = Branch { p: b.p * q, ..b };
                    b.out.add(Metric::FoeHeroesSlain, 1);
                    b.out.add(Metric::FoeFateSpent, u16::from(fate));
                    b
                })
            })
            .collect();
    }
    branches
}

/// The chariot stopped at `group` (branch `b` has the chance of getting there and
/// stopping): every combination of the group's contact outcomes in which someone stands,
/// then the fight and who Backs Away.
fn stopped_at(plan: &Plan, g: usize, b: Branch, finish: &mut impl FnMut(Branch)) {
    let group = &plan.groups[g];
    let p_all_passed: f64 = group.models.iter().map(|&m| plan.models[m].impact.p_passed).product();
    let mut combos: Vec<(Vec<usize>, f64)> = vec![(Vec::new(), 1.0)];
    for &m in &group.models {
        let table = &plan.models[m].impact;
        combos = combos
            .into_iter()
            .flat_map(|(picked, p)| {
                table.probabilities.iter().enumerate().filter(|(_, q)| **q > 0.0).map(move |(i, q)| {
                    let mut next = picked.clone();
                    next.push(i);
                    (next, p * q)
                })
            })
            .collect();
    }
    for (picked, p) in combos {
        let outcomes: Vec<_> =
            group.models.iter().zip(&picked).map(|(&m, &i)| plan.models[m].impact.outcomes[i]).collect();
        if outcomes.iter().all(|o| o.passed) {
            continue;
        }
        let mut b = Branch { p: b.p * p / (1.0 - p_all_passed), ..b };
        let impact_kills = (group.models_before + outcomes.iter().filter(|o| o.casualty).count()) as u16;
        if outcomes.iter().any(|o| !o.passed && o.thrown.is_some()) {
            b.out.set(Metric::ThrownRiderStopped, 1);
        }
        b.out.set(Metric::ImpactKills, impact_kills);
        b.out.set(Metric::Contacts, (group.models_before + group.models.len()) as u16);
        for (&m, o) in group.models.iter().zip(&outcomes) {
            if plan.models[m].hero.is_some() {
                b.out.add(Metric::FoeFateSpent, u16::from(o.fate_spent));
                b.out.add(Metric::FoeHeroesSlain, u16::from(o.casualty));
            }
        }
        let mut config = 0;
        let mut survivors: Vec<Combatant> = Vec::new();
        let mut enemy_chariot = None;
        let in_fight = |n: usize| group.models.iter().zip(&outcomes).any(|(&k, o)| k == n && !o.passed);
        for (i, (&m, o)) in group.models.iter().zip(&outcomes).enumerate() {
            if !o.passed {
                config += group.config_part(i, o, &plan.models);
                survivors.push(plan.models[m].combatant_braced(o, group.braced_in_fight(i, in_fight)));
                enemy_chariot = enemy_chariot.or(plan.models[m].chariot);
            }
        }
        let presence: Vec<Presence> = outcomes
            .iter()
            .map(|o| Presence { in_fight: !o.passed, rider: !o.passed && o.left > 0, prone: o.prone })
            .collect();
        let support = plan.foe_support(g, &presence);
        for &(result, q) in fight(plan, group, config, &survivors, &support, b).iter() {
            let mut f = Branch {
                wounds: b.wounds - result.wounds_lost,
                might: b.might - result.might_spent,
                fate: b.fate - result.fate_spent,
                p: b.p * q,
                ..b
            };
            let kills = u16::from(result.kills);
            f.out.set(Metric::FightFought, 1);
            f.out.set(Metric::FightWon, u16::from(result.won));
            f.out.set(Metric::FightKills, kills);
            f.out.set(Metric::Kills, impact_kills + kills);
            if !plan.foe_heroes.is_empty() {
                f.out.add(Metric::FoeMightSpent, u16::from(result.foe_might_spent));
                f.out.add(Metric::FoeFateSpent, u16::from(result.foe_fate_spent));
                f.out.add(Metric::FoeHeroesSlain, u16::from(result.foe_heroes_slain));
            }
            // Nobody Backs Away once either chariot is slain.
            let both_stand = !result.foe_chariot_slain && f.wounds > 0;
            // (ours backs away, theirs backs away, chance)
            let backs_away: Vec<(bool, bool, f64)> = match (plan.has_enemy_chariot && both_stand, enemy_chariot) {
                (true, Some(Some(larger))) => vec![(!larger, larger, 1.0)],
                (true, Some(None)) => vec![(true, false, 0.5), (false, true, 0.5)],
                _ => vec![(false, false, 1.0)],
            };
            for (backs, theirs, r) in backs_away {
                let mut f = Branch { p: f.p * r, ..f };
                f.out.set(Metric::ChariotBackedAway, u16::from(backs));
                f.out.set(Metric::FoeChariotBackedAway, u16::from(theirs));
                finish_charge(plan, f).into_iter().for_each(&mut *finish);
            }
        }
    }
}

/// The fight's exact outcomes: the compiled table when the chariot and its Hero are
/// untouched, else the same exact fight for what they have left.
fn fight<'a>(
    plan: &Plan,
    group: &'a crate::mesbg::plan::ContactGroup,
    config: usize,
    survivors: &[Combatant],
    support: &FoeSupport,
    b: Branch,
) -> std::borrow::Cow<'a, [(FightOutcome, f64)]> {
    let fresh = b.wounds == plan.chariot.wounds && plan.chariot.hero_in_fight() == hero_left(plan, b);
    if fresh && let Some(Some(table)) = group.fights.get(config) {
        return std::borrow::Cow::Borrowed(&table.distribution);
    }
    let chariot = ChariotFighter { wounds_left: b.wounds, ..plan.chariot.fighter() };
    std::borrow::Cow::Owned(mesbg_fight::fight_distribution(
        &chariot,
        survivors,
        fight_rules(&plan.rules),
        hero_left(plan, b),
        support,
    ))
}

fn hero_left(plan: &Plan, b: Branch) -> HeroInFight {
    HeroInFight { might: b.might, fate: b.fate, ..plan.chariot.hero_in_fight() }
}

/// The difficult-terrain test, as [`crate::mesbg::resolve`] rolls it: a 1 in six, turned by one
/// Might when the Hero saves with Might, else an immediate Wound (which Fate may prevent).
fn terrain_test(plan: &Plan, b: Branch) -> Vec<Branch> {
    let safe = Branch { p: b.p * 5.0 / 6.0, ..b };
    let one = Branch { p: b.p / 6.0, ..b };
    if plan.chariot.saves.might_on_terrain && b.might > 0 {
        return vec![safe, Branch { might: b.might - 1, ..one }];
    }
    let mut wounded = one;
    wounded.out.set(Metric::TerrainWound, 1);
    std::iter::once(safe).chain(wounded.suffer_wound(plan)).collect()
}

/// The obstacle's three Strength 6 hits on a chariot that drove its full Move into it.
fn obstacle(plan: &Plan, b: Branch) -> Vec<Branch> {
    if plan.obstacle.is_none() {
        return vec![b];
    }
    let hit = plan.obstacle_hit.probability();
    let mut branches = vec![b];
    for b in &mut branches {
        b.out.set(Metric::ObstacleStruck, 1);
    }
    for _ in 0..crate::mesbg::plan::OBSTACLE_HITS {
        branches = branches
            .into_iter()
            .flat_map(|b| {
                if b.wounds == 0 {
                    return vec![b];
                }
                let mut next = vec![Branch { p: b.p * (1.0 - hit), ..b }];
                next.extend(Branch { p: b.p * hit, ..b }.suffer_wound(plan));
                next
            })
            .collect();
    }
    branches
}

/// The chariot's and the Hero's metrics and the Break Point, as the resolver's finish.
fn finish_charge(plan: &Plan, mut b: Branch) -> Vec<Branch> {
    let lost = plan.chariot.wounds - b.wounds;
    b.out.set(Metric::ChariotWoundsLost, u16::from(lost));
    let slain = b.wounds == 0;
    b.out.set(Metric::ChariotSlain, u16::from(slain));
    let mut branches = vec![(b, 0u8)];
    if let Some(hero) = plan.chariot.hero {
        if slain {
            let hit = hero.thrown_hit.probability();
            let on = WoundOn::Hero { wounds_left: hero.wounds };
            branches = vec![(Branch { p: b.p * (1.0 - hit), ..b }, 0)];
            for (pr, q) in mesbg_fight::prevention_distribution(plan.chariot.saves, on, b.fate, b.might) {
                let after =
                    Branch { fate: b.fate - pr.fate_spent, might: b.might - pr.might_spent, p: b.p * hit * q, ..b };
                branches.push((after, u8::from(!pr.prevented)));
            }
        }
        for (b, hero_lost) in &mut branches {
            b.out.set(Metric::HeroWoundsLost, u16::from(*hero_lost));
            b.out.set(Metric::HeroDismounted, u16::from(slain));
            b.out.set(Metric::HeroSlain, u16::from(*hero_lost >= hero.wounds));
            b.out.set(Metric::MightSpent, u16::from(hero.might - b.might));
            b.out.set(Metric::FateSpent, u16::from(hero.fate - b.fate));
            b.out.set(Metric::HeroKills, b.out.get(Metric::FightKills));
        }
    }
    if let Some(army) = plan.army {
        for (b, _) in &mut branches {
            let casualties = u64::from(army.casualties) + u64::from(b.out.get(Metric::Kills));
            b.out.set(Metric::ArmyBroken, u16::from(plan.rules.break_point.broken(casualties, u64::from(army.models))));
        }
    }
    branches.into_iter().map(|(b, _)| b).filter(|b| b.p > 0.0).collect()
}

impl ExactDistribution {
    /// P(metric = v) for v = 0 up to its largest possible value.
    pub fn marginal(&self, metric: Metric) -> Vec<f64> {
        let mut pmf = vec![0.0; 2];
        for (o, p) in &self.outcomes {
            let v = usize::from(o.get(metric));
            if v >= pmf.len() {
                pmf.resize(v + 1, 0.0);
            }
            pmf[v] += p;
        }
        pmf
    }

    /// The exact wound split: `(chariot wounds lost, Hero wounds lost, probability)` for
    /// every pair that can happen.
    pub fn wound_split(&self) -> Vec<(u16, u16, f64)> {
        let mut cells: BTreeMap<(u16, u16), f64> = BTreeMap::new();
        for (o, p) in &self.outcomes {
            *cells.entry((o.get(Metric::ChariotWoundsLost), o.get(Metric::HeroWoundsLost))).or_default() += p;
        }
        cells.into_iter().map(|((c, h), p)| (c, h, p)).collect()
    }

    /// Exact mean and standard deviation of a metric, in the summary's shape (the interval
    /// is the mean itself, the standard error 0).
    pub fn summary(&self, metric: Metric) -> MetricSummary {
        crate::mesbg::analysis::exact_summary(&self.marginal(metric), metric)
    }

    /// Exact distribution rows of a metric, in the run's shape (`count` is 0 and each
    /// interval is the value itself).
    pub fn distribution(&self, metric: Metric) -> Vec<DistributionRow> {
        crate::mesbg::analysis::exact_rows(&self.marginal(metric), &metric)
    }
}

/// How a Monte Carlo estimate compares with the exact value.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Agreement {
    /// The metric.
    #[serde(skip)]
    pub metric: Metric,
    /// The Monte Carlo mean.
    pub estimate: f64,
    /// The exact mean.
    pub exact: f64,
    /// (estimate - exact) / (exact sd / sqrt(trials)); 0 when both are certain and equal.
    pub z: f64,
    /// Whether so many trials were played that z can be read against a normal law
    /// ([`z_readable`]); a z from a handful of trials of a rare outcome is never a
    /// disagreement.
    #[serde(skip)]
    pub readable: bool,
}

/// The z-score of an estimate (the mean of `trials` trials) against an exact mean with
/// standard deviation `sd`, from the exact sd: a rare outcome not yet seen has a sample se of
/// 0 and would read as infinitely far off. 0 when both are certain and equal.
pub fn z_score(estimate: f64, mean: f64, sd: f64, trials: u64) -> f64 {
    let se = sd / (trials.max(1) as f64).sqrt();
    let diff = estimate - mean;
    if se > 1e-12 {
        diff / se
    } else if diff.abs() < 1e-9 {
        0.0
    } else {
        f64::INFINITY.copysign(diff)
    }
}

/// Whether a z-score over `trials` trials of an outcome of standard deviation `sd` can be
/// read against a normal law: trials x variance at least 10 (for a chance p, about ten
/// trials each way). Below that, one rare success in a few trials lies many "standard
/// errors" from a small p by chance alone, so |z| > 5 would cry wolf. A certain outcome
/// (sd 0) is always readable: any difference is a real one.
pub fn z_readable(sd: f64, trials: u64) -> bool {
    sd <= 1e-12 || trials as f64 * sd * sd >= 10.0
}

/// The z-score of each estimated metric against its exact mean.
pub fn agreement(estimates: &[MetricSummary], exact: &ExactDistribution, trials: u64) -> Vec<Agreement> {
    estimates
        .iter()
        .map(|s| {
            let e = exact.summary(s.metric);
            let z = z_score(s.mean, e.mean, e.sd, trials);
            Agreement { metric: s.metric, estimate: s.mean, exact: e.mean, z, readable: z_readable(e.sd, trials) }
        })
        .collect()
}

/// The |z| beyond which a run's estimate is reported as disagreeing with the exact value.
pub const DISAGREEMENT_Z: f64 = 5.0;

#[cfg(test)]
mod z_tests {
    use super::{z_readable, z_score};

    #[test]
    fn z_is_read_only_over_enough_trials() {
        // A chance p = 0.01 (sd = sqrt(0.0099)) seen once in one trial: z = 0.99 / 0.0995
        // = 9.95, but 1 x 0.0099 < 10: not readable. Over 2,000 trials, 19.8 >= 10.
        let sd = (0.01f64 * 0.99).sqrt();
        assert!((z_score(1.0, 0.01, sd, 1) - 0.99 / sd).abs() < 1e-12);
        assert!(!z_readable(sd, 1) && !z_readable(sd, 1000) && z_readable(sd, 2000));
        // A certain outcome: any difference is real, and readable at once.
        assert!(z_readable(0.0, 1));
        assert_eq!(z_score(1.0, 0.0, 0.0, 1), f64::INFINITY);
        assert_eq!(z_score(0.5, 0.5, 0.0, 1), 0.0);
        // An even chance over 40 trials: 40 x 0.25 = 10, readable.
        assert!(z_readable(0.5, 40) && !z_readable(0.5, 39));
    }
}
