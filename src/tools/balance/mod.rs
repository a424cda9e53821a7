//! Points balance: what a chariot, a battle platform or a routing beast is worth. Its
//! efficiency is the enemy points it destroys per point it costs; its fair price is the
//! price at which that efficiency equals a reference scenario's (or a target). Both
//! scenarios play the same trials on common random numbers, so the price is stable:
//! identical for the same seed, and its 95% interval (delta method on the ratio of paired
//! means) says how sure it is. Each rule system says what its acting piece costs and what
//! each metric's unit is worth ([`Pricing`]); the rest is written once.

mod procedure;

pub use procedure::{BalanceRequest, Balanced, balance};

use crate::battlesystem::resolve::BattlesystemPlan;
use crate::battlesystem::scenario::{Action, BattlesystemScenario};
use crate::engine::statistics::MetricName;
use crate::engine::{MetricDef, RuleSystem, Streams, TrialRange};
use crate::mesbg::analysis::Z95;
use crate::mesbg::plan::Plan;
use crate::mesbg::scenario::Scenario;
use crate::mesbg::tally::Metric;
use crate::tools::paired::{Column, PairedSums};
use serde::Serialize;
use std::sync::atomic::AtomicBool;

/// Why a scenario cannot be priced.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BalanceError {
    /// The price field is not one charioteer can price.
    #[error("--price {field}: {allowed}")]
    UnknownPriceField {
        /// The field asked for.
        field: String,
        /// What can be priced in this scenario.
        allowed: String,
    },
    /// The priced piece costs nothing.
    #[error("{file}: {field} is 0, so it has no efficiency: set {field}")]
    Free {
        /// The scenario file.
        file: String,
        /// The price field.
        field: String,
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
    /// Nothing it can destroy is worth anything.
    #[error("{file}: {what} worth 0 points: give {fix}")]
    Worthless {
        /// The scenario file.
        file: String,
        /// What is worthless.
        what: String,
        /// Where to give points.
        fix: String,
    },
}

/// What a trial is worth to the priced piece.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum ValueModel {
    /// The enemy points it destroys ("points removed"; `--value points_removed` also works).
    #[default]
    #[value(alias = "points_removed")]
    Kills,
    /// The enemy points it destroys, less its own points lost: a chariot's (and its Hero's)
    /// points in proportion to the Wounds lost, a unit's per figure lost, and friendly
    /// figures a routing beast tramples ("points traded"; `--value points_traded` also works).
    #[value(alias = "points_traded")]
    Net,
}

impl ValueModel {
    /// The option's value as the command line writes it (`kills`, `net`).
    pub fn flag(self) -> &'static str {
        match self {
            ValueModel::Kills => "kills",
            ValueModel::Net => "net",
        }
    }

    /// The model's name in a designer's words (`points removed`, `points traded`).
    pub fn name(self) -> &'static str {
        match self {
            ValueModel::Kills => "points removed",
            ValueModel::Net => "points traded",
        }
    }
}

/// What a scenario's acting piece costs and what a trial is worth to it: the sum over
/// `worth` of each metric's value times its points, divided by `scale` (so points per
/// Wound need no fractions; a negative weight is a loss).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pricing {
    /// Points paid for the chariot (and its Hero), platform unit or beasts.
    pub price: f64,
    /// (metric name, points per unit of it x `scale`): each enemy figure or model it can
    /// destroy, and (with the net value model) each of its own it loses, negative.
    pub worth: Vec<(String, i64)>,
    /// What every weight is divided by.
    pub scale: i64,
    /// The value model these weights follow.
    pub model: ValueModel,
}

impl Pricing {
    /// The value model in words, for reports: `kills x 8 - chariot_wounds_lost x 13.33`.
    pub fn words(&self) -> String {
        self.worth
            .iter()
            .enumerate()
            .map(|(i, (m, w))| {
                let points = *w as f64 / self.scale as f64;
                let sign = match (i, points < 0.0) {
                    (0, false) => "",
                    (0, true) => "-",
                    (_, false) => " + ",
                    (_, true) => " - ",
                };
                format!("{sign}`{m}` x {}", trim(points.abs()))
            })
            .collect()
    }
}

fn trim(x: f64) -> String {
    let text = format!("{x:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Reads a MESBG scenario's price (`field`, which must be `chariot.points`) and the value
/// per model slain.
pub fn pricing(scenario: &Scenario, plan: &Plan, field: &str, model: ValueModel) -> Result<Pricing, BalanceError> {
    if field != "chariot.points" {
        return Err(BalanceError::UnknownPriceField {
            field: field.to_string(),
            allowed: "only chariot.points can be priced (the chariot's points, plus its Hero's when one rides)".into(),
        });
    }
    let price =
        f64::from(scenario.chariot.points) + scenario.chariot.hero.as_ref().map_or(0.0, |h| f64::from(h.points));
    if price <= 0.0 {
        return Err(BalanceError::Free {
            file: scenario.file.clone(),
            field: "chariot.points (and the Hero's points)".into(),
        });
    }
    let mut values: Vec<u32> = plan.groups.iter().flat_map(|g| &g.models).map(|&m| plan.models[m].points).collect();
    values.sort_unstable();
    values.dedup();
    match values.as_slice() {
        [] | [0] => Err(BalanceError::Worthless {
            file: scenario.file.clone(),
            what: "the models on the chariot's path are".into(),
            fix: "their profiles points".into(),
        }),
        [one] => {
            let c = &scenario.chariot;
            // Points per Wound need no fractions in units of 1 / (chariot Wounds x Hero Wounds).
            let hero_wounds = c.hero.as_ref().map_or(1, |h| i64::from(h.wounds.max(1)));
            let scale = i64::from(c.wounds.max(1)) * hero_wounds;
            let mut worth = vec![(Metric::Kills.name().to_string(), i64::from(*one) * scale)];
            if model == ValueModel::Net {
                worth.push((
                    Metric::ChariotWoundsLost.name().to_string(),
                    -(i64::from(c.points) * scale / i64::from(c.wounds.max(1))),
                ));
                if let Some(h) = &c.hero {
                    worth.push((
                        Metric::HeroWoundsLost.name().to_string(),
                        -(i64::from(h.points) * scale / i64::from(h.wounds.max(1))),
                    ));
                }
            }
            Ok(Pricing { price, worth, scale, model })
        }
        many => Err(BalanceError::MixedPoints {
            file: scenario.file.clone(),
            values: many.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
        }),
    }
}

/// Reads a BATTLESYSTEM scenario's price: the charging or routing unit's `points` (per
/// figure) times its figures; each enemy figure it removes is worth its unit's `points`.
/// `field` is `units[K].points` for that unit (or `None` for it by default).
pub fn battlesystem_pricing(
    scenario: &BattlesystemScenario,
    plan: &BattlesystemPlan,
    field: Option<&str>,
    model: ValueModel,
) -> Result<Pricing, BalanceError> {
    let acting = match scenario.action {
        Action::Charge { unit, .. } | Action::Rout { unit, .. } => unit,
    };
    let own_field = format!("units[{acting}].points");
    if let Some(f) = field.filter(|f| *f != own_field) {
        return Err(BalanceError::UnknownPriceField {
            field: f.to_string(),
            allowed: format!(
                "in this scenario only {own_field} can be priced (the points per figure of \"{}\", the unit that {})",
                scenario.units[acting].name,
                if matches!(scenario.action, Action::Charge { .. }) { "charges" } else { "routs" }
            ),
        });
    }
    let unit = &scenario.units[acting];
    let price = f64::from(unit.points) * f64::from(unit.figures);
    if price <= 0.0 {
        return Err(BalanceError::Free { file: scenario.file.clone(), field: own_field });
    }
    let enemies = scenario.units.iter().enumerate().filter(|(i, u)| *i != acting && u.side != unit.side);
    let worth: Vec<(String, i64)> = match scenario.action {
        Action::Charge { target, .. } => enemies
            .filter(|(i, _)| *i == target)
            .map(|(_, u)| ("target_figures_lost".to_string(), i64::from(u.points)))
            .collect(),
        Action::Rout { .. } => enemies.map(|(_, u)| (format!("figures_lost.{}", u.key), i64::from(u.points))).collect(),
    };
    let mut worth: Vec<(String, i64)> =
        worth.into_iter().filter(|(name, p)| *p > 0 && plan.metrics.index(name).is_some()).collect();
    if worth.is_empty() {
        return Err(BalanceError::Worthless {
            file: scenario.file.clone(),
            what: "the enemy units it can reach are".into(),
            fix: "them `points` (per figure)".into(),
        });
    }
    if model == ValueModel::Net {
        // Its own figures lost, and (for a rout) the friends it tramples.
        let own = match scenario.action {
            Action::Charge { .. } => "platform_figures_lost".to_string(),
            Action::Rout { .. } => "beasts_figures_lost".to_string(),
        };
        worth.push((own, -i64::from(unit.points)));
        if matches!(scenario.action, Action::Rout { .. }) {
            let friends = scenario.units.iter().enumerate().filter(|(i, u)| *i != acting && u.side == unit.side);
            worth.extend(friends.map(|(_, u)| (format!("figures_lost.{}", u.key), -i64::from(u.points))));
        }
        worth.retain(|(name, p)| *p != 0 && plan.metrics.index(name).is_some());
    }
    Ok(Pricing { price, worth, scale: 1, model })
}

/// The two paired columns of a balance, for plan `a` (priced by `pa`) and plan `b` (priced
/// by `pb`): enemy points destroyed, and enemy figures or models destroyed.
fn balance_columns<S: RuleSystem>(a: &S, pa: &Pricing, b: &S, pb: &Pricing) -> Vec<Column> {
    let scale = common_scale(pa, pb);
    // Points in units of 1 / `scale` on both sides; the models column counts only what is
    // destroyed (positive weights), one each.
    let weights = |plan: &S, pricing: &Pricing, points: bool| -> Vec<(usize, i64)> {
        let metrics = plan.metrics();
        pricing
            .worth
            .iter()
            .filter(|(_, p)| points || *p > 0)
            .filter_map(|(name, p)| {
                let w = if points { p * (scale / pricing.scale.max(1)) } else { 1 };
                // A turn's `points_slain` counts points; its models are its `kills`.
                let name = if !points && name == "points_slain" { "kills" } else { name.as_str() };
                metrics.iter().position(|m| m.metric_name() == name).map(|i| (i, w))
            })
            .collect()
    };
    let def = |name: &str, description: &str| MetricDef {
        name: name.to_string(),
        description: description.to_string(),
        flag: false,
        labels: Vec::new(),
        circular: false,
    };
    vec![
        Column {
            def: def("points_destroyed", "enemy points destroyed"),
            a: weights(a, pa, true),
            b: weights(b, pb, true),
        },
        Column {
            def: def("models_destroyed", "enemy models or figures destroyed"),
            a: weights(a, pa, false),
            b: weights(b, pb, false),
        },
    ]
}

/// Plays the balance of `a` against the reference `b` (or `a` alone when `b` is `None`)
/// on `a`'s streams: the paired sums of points and models destroyed.
#[allow(clippy::too_many_arguments)]
pub fn play<S: RuleSystem>(
    a: &S,
    pa: &Pricing,
    reference: Option<(&S, &Pricing)>,
    streams: Streams,
    range: TrialRange,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> Option<PairedSums> {
    let (b, pb) = reference.unwrap_or((a, pa));
    let columns = balance_columns(a, pa, b, pb);
    crate::tools::paired::run_columns(a, reference.map(|r| r.0), &columns, streams, range, progress, cancel)
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

/// Means, variances and covariance of column `i` of paired sums.
/// The least common multiple of two pricings' scales: both sides' points in one unit.
fn common_scale(a: &Pricing, b: &Pricing) -> i64 {
    let gcd = |mut x: i64, mut y: i64| {
        while y != 0 {
            (x, y) = (y, x % y);
        }
        x.abs().max(1)
    };
    let (x, y) = (a.scale.max(1), b.scale.max(1));
    x / gcd(x, y) * y
}

/// Means, variances and covariance of column `i` of paired sums, in units of 1 / `scale`.
fn moments(sums: &PairedSums, i: usize, scale: i64) -> (f64, f64, f64, f64, f64, f64) {
    let n = sums.n.max(1) as f64;
    let (ma, mb) = (sums.sum_a[i] as f64 / n, sums.sum_b[i] as f64 / n);
    let denom = (n - 1.0).max(1.0);
    let var_a = ((sums.sum_a2[i] as f64 - n * ma * ma) / denom).max(0.0);
    let var_b = ((sums.sum_b2[i] as f64 - n * mb * mb) / denom).max(0.0);
    // sum of a*b = (sum a^2 + sum b^2 - sum (a - b)^2) / 2, exactly in integers.
    let sum_ab = (sums.sum_a2[i] as i128 + sums.sum_b2[i] as i128 - sums.sum_d2[i] as i128) as f64 / 2.0;
    let cov = (sum_ab - n * ma * mb) / denom;
    let s = scale.max(1) as f64;
    (n, ma / s, mb / s, var_a / (s * s), var_b / (s * s), cov / (s * s))
}

/// The efficiency of each side from a balance's paired sums (points in column 0, models
/// in column 1).
pub fn efficiencies(sums: &PairedSums, a: &Pricing, b: &Pricing) -> (Efficiency, Efficiency) {
    let (price_a, price_b) = (a.price, b.price);
    let (n, ma, mb, var_a, var_b, _) = moments(sums, 0, common_scale(a, b));
    let (_, ka, kb, _, _, _) = moments(sums, 1, 1);
    let one = |price: f64, mean: f64, var: f64, kills: f64| Efficiency {
        price,
        points_destroyed: mean,
        points_destroyed_se: (var / n).sqrt(),
        efficiency: mean / price,
        kills_per_100_points: 100.0 * kills / price,
    };
    (one(price_a, ma, var_a, ka), one(price_b, mb, var_b, kb))
}

/// The fair price of A against the reference B, from a balance's paired sums ([`play`]
/// with a reference); `None` when the reference destroys nothing.
pub fn fair_price_against(sums: &PairedSums, a: &Pricing, b: &Pricing) -> Option<FairPrice> {
    let (n, ma, mb, var_a, var_b, cov) = moments(sums, 0, common_scale(a, b));
    if mb <= 0.0 {
        return None;
    }
    let (scenario, reference) = efficiencies(sums, a, b);
    // p* = value_A / E_ref = price_B * ma / mb; delta method on ma / mb.
    let ratio = ma / mb;
    let var_ratio = (var_a / (mb * mb) + ma * ma * var_b / mb.powi(4) - 2.0 * ma * cov / mb.powi(3)) / n;
    let se = b.price * var_ratio.max(0.0).sqrt();
    let fair = b.price * ratio;
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

/// The fair price of A for a target efficiency (enemy points destroyed per point), from
/// the sums of [`play`] without a reference.
pub fn fair_price_for(sums: &PairedSums, a: &Pricing, target: f64) -> FairPrice {
    let (scenario, _) = efficiencies(sums, a, a);
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

/// What one line (or reference) of a field is worth to each side, per trial, with the
/// sampling (co)variances of those means: what a field priced as one adds up.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LineWorth {
    /// The line's weight (as given; normalised when added up).
    pub weight: f64,
    /// The priced piece's mean worth a trial.
    pub piece: f64,
    /// The reference's mean worth a trial.
    pub reference: f64,
    /// The reference's price.
    pub reference_price: f64,
    /// Sampling variance of `piece`.
    pub piece_var: f64,
    /// Sampling variance of `reference`.
    pub reference_var: f64,
    /// Sampling covariance of the two (both played on the same trials).
    pub cov: f64,
    /// Enemy models or figures each side destroyed a trial (for kills per 100 points).
    pub models: (f64, f64),
}

/// What A and B are each worth a trial against one line, from a balance's paired sums.
pub fn line_worth(sums: &PairedSums, a: &Pricing, b: &Pricing, weight: f64) -> LineWorth {
    let (n, ma, mb, var_a, var_b, cov) = moments(sums, 0, common_scale(a, b));
    let (_, ka, kb, _, _, _) = moments(sums, 1, 1);
    LineWorth {
        weight,
        piece: ma,
        reference: mb,
        reference_price: b.price,
        piece_var: var_a / n,
        reference_var: var_b / n,
        cov: cov / n,
        models: (ka, kb),
    }
}

/// One reference of a matchup set: its title, its weight, and the fair price against it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Matchup {
    /// The reference's title.
    pub reference: String,
    /// Its weight in the overall price (normalised to add up to 1).
    pub weight: f64,
    /// The fair price against it alone.
    pub fair: FairPrice,
    /// What each side is worth against it, for the overall.
    #[serde(skip)]
    pub worth: LineWorth,
}

/// How the fair prices of a matchup set spread, beside the sampling noise of each.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Spread {
    /// The weighted standard deviation of the matchups' fair prices around the overall.
    pub between_sd: f64,
    /// The sampling standard error of the overall (delta method on the ratio of totals).
    pub sampling_se: f64,
    /// The lowest and highest matchup's fair price.
    pub lowest: f64,
    /// Highest.
    pub highest: f64,
    /// The matchups of the lowest and highest fair price.
    pub lowest_against: String,
    /// Highest.
    pub highest_against: String,
    /// The overall's 95% sampling interval alone: where the field's price would lie with
    /// endless trials against these matchups at these weights.
    pub sampling_ci95: (f64, f64),
}

/// The overall fair price of a field, priced as one: the price at which the piece's
/// weighted worth over every counted line equals the reference's weighted efficiency over
/// them (the piece's total worth over the reference's, times the reference's price, when
/// one reference meets every line). Forward and reverse prices are then reciprocal, and
/// two anchors priced against each other give one exchange rate.
///
/// `lines` are the priced matchups; `counted` the worth of lines counted in the totals
/// though they have no price of their own (the reference destroys nothing there). The
/// interval holds the sampling noise (delta method on the ratio of the totals) and the
/// spread of the per-line prices around the overall (1.96 x the root of the sum of their
/// variances); `None` when the weights add up to nothing or the reference's weighted
/// worth is not above zero.
pub fn overall(lines: &[Matchup], counted: &[LineWorth]) -> Option<(FairPrice, Spread)> {
    let worths: Vec<LineWorth> = lines.iter().map(|m| m.worth).chain(counted.iter().copied()).collect();
    let total: f64 = worths.iter().map(|l| l.weight).sum();
    if total <= 0.0 {
        return None;
    }
    let w = |l: &LineWorth| l.weight / total;
    // X: the piece's weighted worth a trial; Y: the reference's weighted worth per point.
    let x: f64 = worths.iter().map(|l| w(l) * l.piece).sum();
    let y: f64 = worths.iter().map(|l| w(l) * l.reference / l.reference_price).sum();
    if y <= 0.0 {
        return None;
    }
    let var_x: f64 = worths.iter().map(|l| w(l).powi(2) * l.piece_var).sum();
    let var_y: f64 = worths.iter().map(|l| (w(l) / l.reference_price).powi(2) * l.reference_var).sum();
    let cov: f64 = worths.iter().map(|l| w(l).powi(2) / l.reference_price * l.cov).sum();
    // One reference over every line: its price times the ratio of the two totals (so a
    // piece that matches it trial for trial is priced at exactly its price).
    let one_reference = worths.windows(2).all(|p| p[0].reference_price == p[1].reference_price);
    let price = if one_reference {
        let reference_total: f64 = worths.iter().map(|l| w(l) * l.reference).sum();
        worths[0].reference_price * x / reference_total
    } else {
        x / y
    };
    let var_price = var_x / (y * y) + x * x * var_y / y.powi(4) - 2.0 * x * cov / y.powi(3);
    let sampling_se = var_price.max(0.0).sqrt();
    let line_total: f64 = lines.iter().map(|m| m.weight).sum::<f64>().max(f64::MIN_POSITIVE);
    let between_sd =
        lines.iter().map(|m| m.weight / line_total * (m.fair.fair_price - price).powi(2)).sum::<f64>().sqrt();
    let half = Z95 * (sampling_se.powi(2) + between_sd.powi(2)).sqrt();
    let piece_price = lines.first().map(|m| m.fair.scenario.price)?;
    let models: f64 = worths.iter().map(|l| w(l) * l.models.0).sum();
    let scenario = Efficiency {
        price: piece_price,
        points_destroyed: x,
        points_destroyed_se: var_x.sqrt(),
        efficiency: x / piece_price,
        kills_per_100_points: 100.0 * models / piece_price,
    };
    // One reference over every line: its weighted worth at its own price.
    let reference = one_reference.then(|| {
        let p = worths[0].reference_price;
        let models: f64 = worths.iter().map(|l| w(l) * l.models.1).sum();
        Efficiency {
            price: p,
            points_destroyed: y * p,
            points_destroyed_se: var_y.sqrt() * p,
            efficiency: y,
            kills_per_100_points: 100.0 * models / p,
        }
    });
    let fair = FairPrice {
        target_efficiency: y,
        scenario,
        reference,
        fair_price: price,
        fair_price_se: (sampling_se.powi(2) + between_sd.powi(2)).sqrt(),
        ci95_lo: price - half,
        ci95_hi: price + half,
    };
    let by_price = |a: &&Matchup, b: &&Matchup| a.fair.fair_price.total_cmp(&b.fair.fair_price);
    let (low, high) = (lines.iter().min_by(by_price)?, lines.iter().max_by(by_price)?);
    let spread = Spread {
        between_sd,
        sampling_se,
        lowest: low.fair.fair_price,
        highest: high.fair.fair_price,
        lowest_against: low.reference.clone(),
        highest_against: high.reference.clone(),
        sampling_ci95: (price - Z95 * sampling_se, price + Z95 * sampling_se),
    };
    Some((fair, spread))
}

/// A fair price beyond this many times the reference's own price says more about how little
/// the reference does against the line than about what the priced piece is worth: that
/// matchup is left out of the overall, with a warning naming it.
pub const UNBOUNDED_RATIO: f64 = 10.0;

/// Why a matchup's fair price cannot stand in an overall price (`None` when it can): the
/// reference destroys nothing of the line, or not surely more than nothing, or so little
/// that the fair price is more than [`UNBOUNDED_RATIO`] times its own price.
pub fn unbounded(fair: &FairPrice) -> Option<String> {
    let r = fair.reference.as_ref()?;
    let (mb, half_b) = (r.points_destroyed, Z95 * r.points_destroyed_se);
    if mb <= 0.0 {
        return Some(format!(
            "the reference is worth {mb:.2} points a trial against this line (it destroys nothing, or loses more than it \
             destroys), so no price matches its efficiency"
        ));
    }
    if mb - half_b <= 0.0 {
        return Some(format!(
            "the reference's worth against this line ({mb:.3} points a trial, 95% CI {:.3} to {:.3}) is not surely \
             above zero, so the ratio has no upper bound",
            mb - half_b,
            mb + half_b
        ));
    }
    if fair.fair_price > UNBOUNDED_RATIO * r.price {
        return Some(format!(
            "the reference destroys {mb:.2} points a trial against this line and the priced piece {:.2}: the fair \
             price {:.0} is more than {UNBOUNDED_RATIO} times the reference's own {:.0}, a ratio that measures the \
             reference's weakness here, not the piece's worth",
            fair.scenario.points_destroyed, fair.fair_price, r.price
        ));
    }
    None
}

/// A matchup without a price of its own, and why: left out of the overall when neither
/// piece destroys anything there, or (`counted`) counted in the overall's totals by what
/// each side is worth there though no price matches the reference's efficiency on it alone.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LeftOut {
    /// The line (or reference) it was played against.
    pub line: String,
    /// Why it has no price of its own, and whether it counts in the overall.
    pub reason: String,
    /// Its worth to each side, when it counts in the overall's totals.
    #[serde(skip)]
    pub counted: Option<LineWorth>,
}

/// What a price split weighs: the part of the fair price a scenario's last addition earns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SplitKind {
    /// A Hero riding the chariot: the chariot's part and his.
    HeroRiding,
    /// A turn's last listed chariot: the other chariots' part and what one more chariot adds.
    LastChariot,
}

/// The fair price of a chariot with a Hero riding it, split between the chariot (what
/// it does with no Hero aboard) and the Hero (what he adds by riding it).
///
/// Both charges are played on the same streams, so the share `chariot_share` (mean value
/// without the Hero over mean value with him) is estimated from paired trials. The Hero's
/// worth on foot is not modelled: this is what he adds to this charge.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PriceSplit {
    /// What the split weighs: a Hero riding a chariot, or a turn's last chariot.
    pub kind: SplitKind,
    /// The Hero's name, or the added chariot's words ("chariot 3, Khandish Chariot").
    pub hero: String,
    /// Mean value without the Hero over mean value with him.
    pub chariot_share: f64,
    /// Its standard error (delta method on the paired means).
    pub chariot_share_se: f64,
    /// The chariot's part of the fair price, with its 95% interval.
    pub chariot: (f64, f64, f64),
    /// The Hero's part, with its 95% interval.
    pub hero_part: (f64, f64, f64),
}

/// Splits `fair` (the fair price with the Hero riding) by the paired sums of [`play`]
/// with the charge without him as A and the charge with him as the reference: each
/// part's interval holds the fair price's and the share's uncertainty, taken as
/// independent. `None` when the charge with the Hero destroys nothing.
pub fn split_price(
    sums: &PairedSums,
    without: &Pricing,
    with: &Pricing,
    fair: &FairPrice,
    (kind, hero): (SplitKind, &str),
) -> Option<PriceSplit> {
    // `fair_price_against` prices A at price_B x mean_A / mean_B: the share is that over price_B.
    let ratio = fair_price_against(sums, without, with)?;
    let share = ratio.fair_price / with.price;
    let share_se = ratio.fair_price_se / with.price;
    let (f, f_se) = (fair.fair_price, fair.fair_price_se);
    let part = |s: f64, s_se: f64| {
        let value = f * s;
        let se = ((s * f_se).powi(2) + (f * s_se).powi(2)).sqrt();
        (value, value - Z95 * se, value + Z95 * se)
    };
    Some(PriceSplit {
        kind,
        hero: hero.to_string(),
        chariot_share: share,
        chariot_share_se: share_se,
        chariot: part(share, share_se),
        hero_part: part(1.0 - share, share_se),
    })
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
    /// How the priced scenario was priced (its price and what each enemy is worth).
    pub pricing: Pricing,
    /// Trials played.
    pub trials: u64,
    /// Seed.
    pub seed: u64,
    /// The command that reproduces it.
    pub command: String,
    /// The rule options and policies in force, per scenario (the priced one, then the
    /// reference), with its title.
    pub rulesets: Vec<(String, Vec<crate::mesbg::scenario::RuleOption>)>,
    /// With several references: each matchup's fair price (then `fair` is the overall).
    pub matchups: Vec<Matchup>,
    /// With several references: how their fair prices spread.
    pub spread: Option<Spread>,
    /// With a Hero riding: the fair price split between the chariot and the Hero.
    pub split: Option<PriceSplit>,
    /// The matchup set both pieces charged, in words (`The library's lines
    /// (scenarios/matchups/mesbg-lines.toml)`), when one was given.
    pub set: Option<String>,
    /// Matchups left out of the overall, each with its reason.
    pub left_out: Vec<LeftOut>,
    /// What else a reader must know: the priced piece and its reference are not the same
    /// kind of thing, a line priced through the turn engine, and the like.
    pub notes: Vec<String>,
    /// What the price does not count, as `(piece, what)`: wargear, options and special
    /// rules of each piece's profiles the engine does not play (report.md lists them with
    /// what no price here counts: shooting, later turns, a Hero off the chariot).
    pub leaves_out: Vec<(String, String)>,
}

/// The version of the balance's JSON object (`balance --json`).
pub const BALANCE_SCHEMA: &str = "charioteer.balance/2";

impl BalanceRun {
    /// What a reader must not miss about this result: a negative fair price (under the net
    /// value model the piece loses more points than it destroys, so no price makes it pay
    /// for itself; the number is not a price to charge).
    pub fn warnings(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .left_out
            .iter()
            .map(|l| match l.counted {
                Some(_) => format!("no price of its own against {}: {}", l.line, l.reason),
                None => format!("left out of the overall price: against {}: {}", l.line, l.reason),
            })
            .collect();
        out.extend(self.notes.iter().cloned());
        for m in self.matchups.iter().filter(|m| m.fair.fair_price < 0.0) {
            out.push(format!(
                "against {}: no price: under the net value model the piece loses more points than it destroys there \
                 ({:.2} points a trial), so no price makes it pay for itself in that matchup; the negative number \
                 ({:.2}) still counts in the overall, pulling it down",
                m.reference, m.fair.scenario.points_destroyed, m.fair.fair_price
            ));
        }
        if self.fair.fair_price < 0.0 {
            out.push(format!(
                "the fair price is negative ({:.2} points): under the net value model {} loses more points than it \
                 destroys{}, so no price makes it pay for itself; read it as \"not worth fielding in this matchup\", \
                 not as a price",
                self.fair.fair_price,
                self.title,
                self.reference.as_ref().map_or_else(String::new, |r| format!(" against {r}"))
            ));
        } else {
            // The sampling interval alone: with a matchup set the overall's own interval also
            // holds the spread across lines, which more trials cannot narrow.
            let (lo, hi) = self.spread.as_ref().map_or((self.fair.ci95_lo, self.fair.ci95_hi), |s| s.sampling_ci95);
            if lo < 0.0 {
                out.push(format!(
                    "the fair price's 95% sampling interval reaches below zero ({lo:.2} to {hi:.2}): the piece may \
                     lose more points than it destroys; play more trials before trusting the price"
                ));
            }
        }
        out
    }

    /// The balance as one JSON object (`balance --json`, docs/json-schema.md).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "schema": BALANCE_SCHEMA,
            "version": env!("CARGO_PKG_VERSION"),
            "title": self.title,
            "reference": self.reference,
            "trials": self.trials,
            "seed": self.seed,
            "command": self.command,
            "pricing": self.pricing,
            "fair": self.fair,
            "matchups": self.matchups,
            "spread": self.spread,
            "split": self.split,
            "set": self.set,
            "left_out": self.left_out,
            "warnings": self.warnings(),
        })
    }
}

/// The most values a cost curve may take (each is a whole balance).
pub const MAX_CURVE_POINTS: usize = 50;

/// A cost curve: the fair price of a piece as one of its fields changes (`balance --set
/// FIELD=a,b,c`), every value priced on the same trials against the same references, so
/// neighbouring prices differ by the change, not by the dice.
#[derive(Clone, Debug)]
pub struct CostCurve {
    /// The field swept, as written on the command line (`chariot.impact.hits`).
    pub field: String,
    /// The piece priced, as the file names it (without the changed value).
    pub title: String,
    /// The other `--set` changes every point shares (`chariot.move=8`), empty when none.
    pub fixed: Vec<String>,
    /// Each value as written, with the balance at that value.
    pub points: Vec<(String, BalanceRun)>,
    /// The command that reproduces the curve.
    pub command: String,
}

/// The version of the cost curve's JSON object (`balance --set FIELD=a,b --json`).
pub const BALANCE_CURVE_SCHEMA: &str = "charioteer.balance-curve/1";

impl CostCurve {
    /// Every point's warnings, each once, prefixed by its value where it is not shared by all.
    pub fn warnings(&self) -> Vec<String> {
        let all: Vec<Vec<String>> = self.points.iter().map(|(_, r)| r.warnings()).collect();
        let mut out: Vec<String> = Vec::new();
        for ((value, _), warnings) in self.points.iter().zip(&all) {
            for w in warnings {
                let shared = all.iter().all(|ws| ws.contains(w));
                let line = if shared { w.clone() } else { format!("at {}={value}: {w}", self.field) };
                if !out.contains(&line) {
                    out.push(line);
                }
            }
        }
        out
    }

    /// Whether the fair price is the same at every value: the field does not change what the
    /// piece destroys (or what it costs), so a chart would draw a constant.
    pub fn is_flat(&self) -> bool {
        let prices: Vec<f64> = self.points.iter().map(|(_, r)| r.fair.fair_price).collect();
        prices.windows(2).all(|w| (w[0] - w[1]).abs() <= 1e-9 * w[0].abs().max(1.0))
    }

    /// The curve as one JSON object (docs/json-schema.md): each value with its balance.
    pub fn to_json(&self) -> serde_json::Value {
        let points: Vec<serde_json::Value> = self
            .points
            .iter()
            .map(|(value, run)| serde_json::json!({ "value": value, "balance": run.to_json() }))
            .collect();
        serde_json::json!({
            "schema": BALANCE_CURVE_SCHEMA,
            "version": env!("CARGO_PKG_VERSION"),
            "field": self.field,
            "title": self.title,
            "fixed": self.fixed,
            "command": self.command,
            "points": points,
            "warnings": self.warnings(),
        })
    }
}

/// Prices a turn of several chariots: the price is every chariot's points (and its Hero's);
/// each model slain in the turn is worth its points (one value for every model on the
/// board), and with [`ValueModel::Net`] each chariot's Wounds lost cost its points per Wound.
pub fn turn_pricing(
    scenario: &Scenario,
    plan: &crate::mesbg::turn::TurnPlan,
    field: &str,
    model: ValueModel,
) -> Result<Pricing, BalanceError> {
    let entries = scenario.entries();
    if field != "chariot.points" && field != "chariots.points" {
        return Err(BalanceError::UnknownPriceField {
            field: field.to_string(),
            allowed: "a turn is priced by its chariots' points (each [[chariots]] table's `points`, plus its Hero's); \
                      leave --price out"
                .into(),
        });
    }
    let price: f64 = entries
        .iter()
        .map(|e| f64::from(e.chariot.points) + e.chariot.hero.as_ref().map_or(0.0, |h| f64::from(h.points)))
        .sum();
    if price <= 0.0 {
        return Err(BalanceError::Free { file: scenario.file.clone(), field: "chariots[*].points".into() });
    }
    if model == ValueModel::Net && entries.iter().any(|e| e.chariot.hero.is_some()) {
        return Err(BalanceError::UnknownPriceField {
            field: "--value net".into(),
            allowed: format!(
                "{}: a turn does not count a riding Hero's Wounds yet, so the net value would leave them out; use \
                 --value kills",
                scenario.file
            ),
        });
    }
    let mut values: Vec<u32> = plan.plans[0].models.iter().map(|m| m.points).collect();
    values.sort_unstable();
    values.dedup();
    // Points per Wound need no fractions in units of 1 / (the product of the chariots' Wounds).
    let scale: i64 = entries.iter().map(|e| i64::from(e.chariot.wounds.max(1))).product();
    // Each model slain is worth its own points: `kills` times the one value when they are
    // alike, else the turn's `points_slain`.
    let slain = match (values.as_slice(), plan.at.points_slain) {
        ([] | [0], _) => {
            return Err(BalanceError::Worthless {
                file: scenario.file.clone(),
                what: "the models on the board are".into(),
                fix: "their profiles points".into(),
            });
        }
        ([one], _) => ("kills".to_string(), i64::from(*one) * scale),
        (_, Some(_)) => ("points_slain".to_string(), scale),
        (many, None) => {
            return Err(BalanceError::MixedPoints {
                file: scenario.file.clone(),
                values: many.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
            });
        }
    };
    let mut worth = vec![slain];
    if model == ValueModel::Net {
        for (i, e) in entries.iter().enumerate() {
            let per_wound = i64::from(e.chariot.points) * scale / i64::from(e.chariot.wounds.max(1));
            worth.push((format!("chariot{}.wounds_lost", i + 1), -per_wound));
        }
    }
    Ok(Pricing { price, worth, scale, model })
}

/// The turn without its last listed chariot (an order given by number keeps the others'
/// order), and that chariot in words: what `balance` weighs to price one more chariot.
pub fn turn_without_last(scenario: &Scenario) -> Option<(Scenario, String)> {
    let mut fewer = scenario.clone();
    let last = fewer.more.pop()?;
    let n = scenario.more.len();
    if let crate::mesbg::scenario::TurnOrder::Given(order) = &mut fewer.turn {
        order.retain(|&c| c != n);
    }
    Some((fewer, format!("chariot {} ({})", n + 1, last.chariot.name)))
}
