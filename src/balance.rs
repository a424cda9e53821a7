//! Points balance: what a chariot is worth. Its efficiency is the enemy points it destroys
//! per point it costs; its fair price is the price at which that efficiency equals a
//! reference scenario's (or a target). Both scenarios play the same trials on common random
//! numbers, so the price is stable: identical for the same seed, and its 95% interval (delta
//! method on the ratio of paired means) says how sure it is.

use crate::analysis::Z95;
use crate::paired::PairedSums;
use crate::plan::Plan;
use crate::scenario::Scenario;
use crate::tally::Metric;
use serde::Serialize;

/// Why a scenario cannot be priced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BalanceError {
    /// The price field is not one charioteer can price.
    #[error(
        "--price {field}: only chariot.points can be priced (the chariot's points, plus its Hero's when one rides)"
    )]
    UnknownPriceField {
        /// The field asked for.
        field: String,
    },
    /// The chariot costs nothing.
    #[error("{file}: the chariot's points are 0, so it has no efficiency: set chariot.points (and the Hero's points)")]
    Free {
        /// The scenario file.
        file: String,
    },
    /// Models on the path are worth different points.
    #[error(
        "{file}: the models on the chariot's path are worth different points ({values}); pricing needs one value per model on the path (mixed targets are not supported yet)"
    )]
    MixedPoints {
        /// The scenario file.
        file: String,
        /// The values found.
        values: String,
    },
    /// Nothing on the path is worth anything.
    #[error("{file}: the models on the chariot's path are worth 0 points: give their profiles points")]
    Worthless {
        /// The scenario file.
        file: String,
    },
}

/// The price of a scenario's chariot and the points value of each model it can slay.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Pricing {
    /// Points paid for the chariot (and its Hero).
    pub price: f64,
    /// Points of each model on its path.
    pub points_per_model: f64,
}

/// Reads the price (`field`, which must be `chariot.points`) and the value per model slain.
pub fn pricing(scenario: &Scenario, plan: &Plan, field: &str) -> Result<Pricing, BalanceError> {
    if field != "chariot.points" {
        return Err(BalanceError::UnknownPriceField { field: field.to_string() });
    }
    let price =
        f64::from(scenario.chariot.points) + scenario.chariot.hero.as_ref().map_or(0.0, |h| f64::from(h.points));
    if price <= 0.0 {
        return Err(BalanceError::Free { file: scenario.file.clone() });
    }
    let mut values: Vec<u32> = plan.groups.iter().flat_map(|g| &g.models).map(|&m| plan.models[m].points).collect();
    values.sort_unstable();
    values.dedup();
    match values.as_slice() {
        [] | [0] => Err(BalanceError::Worthless { file: scenario.file.clone() }),
        [one] => Ok(Pricing { price, points_per_model: f64::from(*one) }),
        many => Err(BalanceError::MixedPoints {
            file: scenario.file.clone(),
            values: many.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
        }),
    }
}

/// The efficiency of one scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Efficiency {
    /// Points paid.
    pub price: f64,
    /// Mean enemy points destroyed per charge.
    pub points_destroyed: f64,
    /// Its standard error.
    pub points_destroyed_se: f64,
    /// Enemy points destroyed per point spent.
    pub efficiency: f64,
    /// Models slain per 100 points spent.
    pub kills_per_100_points: f64,
}

/// A fair price with its interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FairPrice {
    /// The scenario priced.
    pub scenario: Efficiency,
    /// The reference (absent when a target efficiency was given).
    pub reference: Option<Efficiency>,
    /// The efficiency to match.
    pub target_efficiency: f64,
    /// The price at which the scenario's efficiency equals the target.
    pub fair_price: f64,
    /// Its standard error (delta method).
    pub fair_price_se: f64,
    /// 95% interval of the fair price.
    pub ci95_lo: f64,
    /// Upper end.
    pub ci95_hi: f64,
}

fn efficiency(price: f64, per_model: f64, mean_kills: f64, var_kills: f64, n: f64) -> Efficiency {
    let points_destroyed = per_model * mean_kills;
    Efficiency {
        price,
        points_destroyed,
        points_destroyed_se: per_model * (var_kills / n).sqrt(),
        efficiency: points_destroyed / price,
        kills_per_100_points: 100.0 * mean_kills / price,
    }
}

/// Moments of the kills of A and B from paired sums: means, variances and covariance.
fn kill_moments(sums: &PairedSums) -> Option<(f64, f64, f64, f64, f64, f64)> {
    let i = sums.metrics.iter().position(|m| m.name == Metric::Kills.name())?;
    let n = sums.n as f64;
    let (sa, sb) = (sums.sum_a[i] as f64, sums.sum_b[i] as f64);
    let (ma, mb) = (sa / n, sb / n);
    let denom = (n - 1.0).max(1.0);
    let var_a = ((sums.sum_a2[i] as f64 - n * ma * ma) / denom).max(0.0);
    let var_b = ((sums.sum_b2[i] as f64 - n * mb * mb) / denom).max(0.0);
    // sum of a*b = (sum a^2 + sum b^2 - sum (a - b)^2) / 2, exactly in integers.
    let sum_ab = (sums.sum_a2[i] + sums.sum_b2[i] - sums.sum_d2[i]) as f64 / 2.0;
    let cov = (sum_ab - n * ma * mb) / denom;
    Some((n, ma, mb, var_a, var_b, cov))
}

/// The fair price of A against the reference B, from a paired run of A against B.
pub fn fair_price_against(sums: &PairedSums, a: Pricing, b: Pricing) -> Option<FairPrice> {
    let (n, ma, mb, var_a, var_b, cov) = kill_moments(sums)?;
    let scenario = efficiency(a.price, a.points_per_model, ma, var_a, n);
    let reference = efficiency(b.price, b.points_per_model, mb, var_b, n);
    // p* = value_A / E_ref = price_B * (k_A ma) / (k_B mb); delta method on ma / mb.
    let ratio = ma / mb;
    let scale = b.price * a.points_per_model / b.points_per_model;
    let var_ratio = (var_a / (mb * mb) + ma * ma * var_b / mb.powi(4) - 2.0 * ma * cov / mb.powi(3)) / n;
    let se = scale * var_ratio.max(0.0).sqrt();
    let fair = scale * ratio;
    Some(FairPrice {
        target_efficiency: reference.efficiency,
        scenario,
        reference: Some(reference),
        fair_price: fair,
        fair_price_se: se,
        ci95_lo: fair - Z95 * se,
        ci95_hi: fair + Z95 * se,
    })
}

/// The fair price of A for a target efficiency (enemy points destroyed per point), from the
/// summary of its `kills` over `n` trials.
pub fn fair_price_for(kills: &crate::analysis::MetricSummary, n: u64, a: Pricing, target: f64) -> FairPrice {
    let scenario = efficiency(a.price, a.points_per_model, kills.mean, kills.sd * kills.sd, n.max(1) as f64);
    let fair = scenario.points_destroyed / target;
    let se = scenario.points_destroyed_se / target;
    FairPrice {
        scenario,
        reference: None,
        target_efficiency: target,
        fair_price: fair,
        fair_price_se: se,
        ci95_lo: fair - Z95 * se,
        ci95_hi: fair + Z95 * se,
    }
}

/// A finished balance, as reports need it.
#[derive(Clone, Debug)]
pub struct BalanceRun {
    /// The scenario priced.
    pub title: String,
    /// The reference's title (absent with a target efficiency).
    pub reference: Option<String>,
    /// The result.
    pub fair: FairPrice,
    /// Trials played.
    pub trials: u64,
    /// Seed.
    pub seed: u64,
    /// The command that reproduces it.
    pub command: String,
    /// The rule options and policies in force, per scenario (the priced one, then the
    /// reference), with its title.
    pub rulesets: Vec<(String, Vec<crate::scenario::RuleOption>)>,
}

/// The cost sweep: `(price, efficiency, (low, high))` at `steps` prices spanning the
/// scenario's own price and its fair price with a margin either side.
pub fn cost_sweep(fair: &FairPrice, steps: usize) -> Vec<(f64, f64, (f64, f64))> {
    let lo = 0.5 * fair.scenario.price.min(fair.fair_price).max(1e-9);
    let hi = 1.5 * fair.scenario.price.max(fair.fair_price).max(1e-9);
    let value = fair.scenario.points_destroyed;
    let half = Z95 * fair.scenario.points_destroyed_se;
    (0..steps.max(2))
        .map(|i| {
            let p = lo + (hi - lo) * i as f64 / (steps.max(2) - 1) as f64;
            (p, value / p, ((value - half).max(0.0) / p, (value + half) / p))
        })
        .collect()
}
