//! From tallies to statistics: means with standard errors, Wilson intervals for
//! probabilities, and the full distribution of every metric, as plain rows and as polars
//! frames. Renderers and exporters read these; they never compute statistics themselves.

use crate::mesbg::tally::{Metric, Tally};
use polars::prelude::*;
use serde::Serialize;

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// What names a metric in files: MESBG's fixed [`Metric`]s, or the names a BATTLESYSTEM
/// plan builds (per unit, so not known at compile time).
pub trait MetricName {
    /// The metric's name in files and on the command line.
    fn metric_name(&self) -> &str;
}

impl MetricName for Metric {
    fn metric_name(&self) -> &str {
        self.name()
    }
}

impl MetricName for String {
    fn metric_name(&self) -> &str {
        self
    }
}

/// One metric's headline statistics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricSummary<M = Metric> {
    /// The metric.
    #[serde(skip)]
    pub metric: M,
    /// Mean over all trials (a probability for 0/1 metrics).
    pub mean: f64,
    /// Sample standard deviation.
    pub sd: f64,
    /// Standard error of the mean.
    pub se: f64,
    /// Lower end of the 95% interval (Wilson for 0/1 metrics, mean - 1.96 se otherwise).
    pub ci95_lo: f64,
    /// Upper end of the 95% interval.
    pub ci95_hi: f64,
}

/// P(metric = value) and P(metric >= value), each with its Wilson interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DistributionRow<M = Metric> {
    /// The metric.
    #[serde(skip)]
    pub metric: M,
    /// The value.
    pub value: u32,
    /// Trials that gave exactly this value.
    pub count: u64,
    /// Their share of all trials.
    pub p: f64,
    /// Wilson 95% lower bound of `p`.
    pub p_lo: f64,
    /// Wilson 95% upper bound of `p`.
    pub p_hi: f64,
    /// Share of trials that gave this value or more.
    pub p_at_least: f64,
    /// Wilson 95% lower bound of `p_at_least`.
    pub p_at_least_lo: f64,
    /// Wilson 95% upper bound of `p_at_least`.
    pub p_at_least_hi: f64,
}

/// The Wilson score interval for `successes` out of `n` at normal quantile `z`.
pub fn wilson(successes: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n_f = n as f64;
    let p = successes as f64 / n_f;
    let z2 = z * z;
    let denom = 1.0 + z2 / n_f;
    let centre = (p + z2 / (2.0 * n_f)) / denom;
    let half = z * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt() / denom;
    let lo = if successes == 0 { 0.0 } else { (centre - half).max(0.0) };
    let hi = if successes == n { 1.0 } else { (centre + half).min(1.0) };
    (lo, hi)
}

/// Headline statistics of one metric.
pub fn summarize_metric(tally: &Tally, metric: Metric) -> MetricSummary {
    summarize_histogram(tally.histogram(metric), tally.trials, metric.is_flag(), metric)
}

/// Headline statistics of a histogram of `n` trials (`hist[v]` trials gave value `v`);
/// `flag` marks 0/1 metrics, whose interval is Wilson's.
pub fn summarize_histogram<M>(hist: &[u64], n: u64, flag: bool, metric: M) -> MetricSummary<M> {
    let n_f = n as f64;
    let (sum, sum_sq) = hist.iter().enumerate().fold((0.0, 0.0), |(s, q), (v, &c)| {
        let v = v as f64;
        let c = c as f64;
        (s + v * c, q + v * v * c)
    });
    let mean = if n > 0 { sum / n_f } else { 0.0 };
    let var = if n > 1 { ((sum_sq - n_f * mean * mean) / (n_f - 1.0)).max(0.0) } else { 0.0 };
    let sd = var.sqrt();
    let se = if n > 0 { sd / n_f.sqrt() } else { 0.0 };
    let (ci95_lo, ci95_hi) =
        if flag { wilson(hist.get(1).copied().unwrap_or(0), n, Z95) } else { (mean - Z95 * se, mean + Z95 * se) };
    MetricSummary { metric, mean, sd, se, ci95_lo, ci95_hi }
}

/// The statistics row of an exact distribution (`pmf[v]` = P(value v)): its mean and
/// standard deviation, standard error 0 and the interval the mean itself.
pub fn exact_summary<M>(pmf: &[f64], metric: M) -> MetricSummary<M> {
    let mean: f64 = pmf.iter().enumerate().map(|(v, p)| v as f64 * p).sum();
    let var: f64 = pmf.iter().enumerate().map(|(v, p)| (v as f64 - mean).powi(2) * p).sum();
    // Rounding leaves a certain value a variance of about 1e-16: that is 0.
    let sd = if var > 1e-12 { var.sqrt() } else { 0.0 };
    MetricSummary { metric, mean, sd, se: 0.0, ci95_lo: mean, ci95_hi: mean }
}

/// The distribution rows of an exact distribution, in a run's shape (`count` is 0 and
/// each interval is the value itself).
pub fn exact_rows<M: Clone>(pmf: &[f64], metric: &M) -> Vec<DistributionRow<M>> {
    let mut at_least: f64 = pmf.iter().sum();
    pmf.iter()
        .enumerate()
        .map(|(v, &p)| {
            let tail = at_least.clamp(0.0, 1.0);
            at_least -= p;
            DistributionRow {
                metric: metric.clone(),
                value: v as u32,
                count: 0,
                p,
                p_lo: p,
                p_hi: p,
                p_at_least: tail,
                p_at_least_lo: tail,
                p_at_least_hi: tail,
            }
        })
        .collect()
}

/// Headline statistics of the given metrics.
pub fn summarize(tally: &Tally, metrics: &[Metric]) -> Vec<MetricSummary> {
    metrics.iter().map(|&m| summarize_metric(tally, m)).collect()
}

/// The distribution of one metric, from 0 to its largest value seen (0 and 1 at least).
pub fn distribution_of(tally: &Tally, metric: Metric) -> Vec<DistributionRow> {
    histogram_distribution(tally.histogram(metric), tally.trials, &metric)
}

/// The distribution of a histogram of `n` trials, from 0 to its largest value seen (0 and 1
/// at least), each row naming `metric`.
pub fn histogram_distribution<M: Clone>(hist: &[u64], n: u64, metric: &M) -> Vec<DistributionRow<M>> {
    let last = hist.iter().rposition(|&c| c > 0).unwrap_or(0).max(1);
    let mut at_least: u64 = hist.iter().sum();
    (0..=last)
        .map(|v| {
            let count = hist.get(v).copied().unwrap_or(0);
            let (lo, hi) = wilson(at_least, n, Z95);
            let (p_lo, p_hi) = wilson(count, n, Z95);
            let row = DistributionRow {
                metric: metric.clone(),
                value: v as u32,
                count,
                p: if n > 0 { count as f64 / n as f64 } else { 0.0 },
                p_lo,
                p_hi,
                p_at_least: if n > 0 { at_least as f64 / n as f64 } else { 0.0 },
                p_at_least_lo: lo,
                p_at_least_hi: hi,
            };
            at_least -= count;
            row
        })
        .collect()
}

/// The distributions of the given metrics, metric by metric.
pub fn distributions(tally: &Tally, metrics: &[Metric]) -> Vec<DistributionRow> {
    metrics.iter().flat_map(|&m| distribution_of(tally, m)).collect()
}

/// One cell of the wound split: P(chariot lost `chariot_wounds_lost` and the Hero
/// `hero_wounds_lost`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SplitCell {
    /// Wounds the chariot lost.
    pub chariot_wounds_lost: u32,
    /// Wounds the Hero lost.
    pub hero_wounds_lost: u32,
    /// Trials.
    pub count: u64,
    /// Share of all trials.
    pub p: f64,
    /// Wilson 95% lower bound of `p`.
    pub p_lo: f64,
    /// Wilson 95% upper bound of `p`.
    pub p_hi: f64,
}

/// The joint distribution of chariot and Hero Wounds lost, every cell.
pub fn wound_split(tally: &Tally) -> Vec<SplitCell> {
    let n = tally.trials;
    tally
        .wound_split()
        .into_iter()
        .map(|(c, h, count)| {
            let (p_lo, p_hi) = wilson(count, n, Z95);
            SplitCell {
                chariot_wounds_lost: c as u32,
                hero_wounds_lost: h as u32,
                count,
                p: if n > 0 { count as f64 / n as f64 } else { 0.0 },
                p_lo,
                p_hi,
            }
        })
        .collect()
}

/// The wound split frame: chariot_wounds_lost, hero_wounds_lost, count, p, p_lo, p_hi.
pub fn wound_split_frame(rows: &[SplitCell]) -> PolarsResult<DataFrame> {
    df!(
        "chariot_wounds_lost" => rows.iter().map(|r| r.chariot_wounds_lost).collect::<Vec<_>>(),
        "hero_wounds_lost" => rows.iter().map(|r| r.hero_wounds_lost).collect::<Vec<_>>(),
        "count" => rows.iter().map(|r| r.count).collect::<Vec<_>>(),
        "p" => rows.iter().map(|r| r.p).collect::<Vec<_>>(),
        "p_lo" => rows.iter().map(|r| r.p_lo).collect::<Vec<_>>(),
        "p_hi" => rows.iter().map(|r| r.p_hi).collect::<Vec<_>>(),
    )
}

/// One step of the impact chain: a group of simultaneous contacts, how often the charge
/// got there and how often it stopped there.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChainStep {
    /// 1-based index of the contact group along the path.
    pub step: u32,
    /// Distance driven when it is touched, inches.
    pub distance: f64,
    /// Models touched at this step.
    pub models: u32,
    /// Share of trials in which the charge reached this step.
    pub p_reached: f64,
    /// Wilson 95% bounds of `p_reached`.
    pub p_reached_lo: f64,
    /// Upper bound.
    pub p_reached_hi: f64,
    /// Share of trials in which a survivor here stopped the chariot.
    pub p_stopped: f64,
    /// Wilson 95% bounds of `p_stopped`.
    pub p_stopped_lo: f64,
    /// Upper bound.
    pub p_stopped_hi: f64,
    /// The exact probability of stopping here, from the compiled chain.
    pub p_stopped_exact: f64,
}

/// The impact chain step by step, from the `contacts` histogram: the charge reached step
/// `g` when it touched more models than the steps before it hold, and stopped there when
/// it touched exactly the models up to `g` and did not slay them all. `steps` are
/// (distance, models touched) per contact group and `exact_stop` the compiled chain's
/// P(stop at group g) (one more entry: P(driving through)).
pub fn impact_chain(tally: &Tally, steps: &[(f64, usize)], exact_stop: &[f64]) -> Vec<ChainStep> {
    let n = tally.trials;
    let contacts = tally.histogram(Metric::Contacts);
    let at_least = |k: usize| contacts.iter().skip(k).sum::<u64>();
    let total: usize = steps.iter().map(|s| s.1).sum();
    // Trials that slew every model on the path drove through.
    let drove_through = tally.histogram(Metric::ImpactKills).get(total).copied().unwrap_or(0);
    let share = |c: u64| if n > 0 { c as f64 / n as f64 } else { 0.0 };
    let mut before = 0;
    steps
        .iter()
        .enumerate()
        .map(|(g, &(distance, models))| {
            let reached = at_least(before + 1);
            let through = before + models;
            let mut stopped = contacts.get(through).copied().unwrap_or(0);
            if through == total {
                stopped -= drove_through.min(stopped);
            }
            before = through;
            let (p_reached_lo, p_reached_hi) = wilson(reached, n, Z95);
            let (p_stopped_lo, p_stopped_hi) = wilson(stopped, n, Z95);
            ChainStep {
                step: g as u32 + 1,
                distance,
                models: models as u32,
                p_reached: share(reached),
                p_reached_lo,
                p_reached_hi,
                p_stopped: share(stopped),
                p_stopped_lo,
                p_stopped_hi,
                p_stopped_exact: exact_stop.get(g).copied().unwrap_or(f64::NAN),
            }
        })
        .collect()
}

/// The impact chain frame, one row per contact group.
pub fn impact_chain_frame(rows: &[ChainStep]) -> PolarsResult<DataFrame> {
    df!(
        "step" => rows.iter().map(|r| r.step).collect::<Vec<_>>(),
        "distance" => rows.iter().map(|r| r.distance).collect::<Vec<_>>(),
        "models" => rows.iter().map(|r| r.models).collect::<Vec<_>>(),
        "p_reached" => rows.iter().map(|r| r.p_reached).collect::<Vec<_>>(),
        "p_reached_lo" => rows.iter().map(|r| r.p_reached_lo).collect::<Vec<_>>(),
        "p_reached_hi" => rows.iter().map(|r| r.p_reached_hi).collect::<Vec<_>>(),
        "p_stopped" => rows.iter().map(|r| r.p_stopped).collect::<Vec<_>>(),
        "p_stopped_lo" => rows.iter().map(|r| r.p_stopped_lo).collect::<Vec<_>>(),
        "p_stopped_hi" => rows.iter().map(|r| r.p_stopped_hi).collect::<Vec<_>>(),
        "p_stopped_exact" => rows.iter().map(|r| r.p_stopped_exact).collect::<Vec<_>>(),
    )
}

/// One metric of several scenarios side by side: scenario, metric, mean, ci95_lo, ci95_hi.
pub fn comparison_frame(rows: &[(String, MetricSummary)]) -> PolarsResult<DataFrame> {
    df!(
        "scenario" => rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        "metric" => rows.iter().map(|r| r.1.metric.name()).collect::<Vec<_>>(),
        "mean" => rows.iter().map(|r| r.1.mean).collect::<Vec<_>>(),
        "ci95_lo" => rows.iter().map(|r| r.1.ci95_lo).collect::<Vec<_>>(),
        "ci95_hi" => rows.iter().map(|r| r.1.ci95_hi).collect::<Vec<_>>(),
    )
}

/// The summary frame: metric, mean, sd, se, ci95_lo, ci95_hi.
pub fn summary_frame<M: MetricName>(rows: &[MetricSummary<M>]) -> PolarsResult<DataFrame> {
    df!(
        "metric" => rows.iter().map(|r| r.metric.metric_name()).collect::<Vec<_>>(),
        "mean" => rows.iter().map(|r| r.mean).collect::<Vec<_>>(),
        "sd" => rows.iter().map(|r| r.sd).collect::<Vec<_>>(),
        "se" => rows.iter().map(|r| r.se).collect::<Vec<_>>(),
        "ci95_lo" => rows.iter().map(|r| r.ci95_lo).collect::<Vec<_>>(),
        "ci95_hi" => rows.iter().map(|r| r.ci95_hi).collect::<Vec<_>>(),
    )
}

/// The distribution frame: metric, value, count, p and its Wilson bounds, p_at_least
/// and its Wilson bounds.
pub fn distribution_frame<M: MetricName>(rows: &[DistributionRow<M>]) -> PolarsResult<DataFrame> {
    df!(
        "metric" => rows.iter().map(|r| r.metric.metric_name()).collect::<Vec<_>>(),
        "value" => rows.iter().map(|r| r.value).collect::<Vec<_>>(),
        "count" => rows.iter().map(|r| r.count).collect::<Vec<_>>(),
        "p" => rows.iter().map(|r| r.p).collect::<Vec<_>>(),
        "p_lo" => rows.iter().map(|r| r.p_lo).collect::<Vec<_>>(),
        "p_hi" => rows.iter().map(|r| r.p_hi).collect::<Vec<_>>(),
        "p_at_least" => rows.iter().map(|r| r.p_at_least).collect::<Vec<_>>(),
        "p_at_least_lo" => rows.iter().map(|r| r.p_at_least_lo).collect::<Vec<_>>(),
        "p_at_least_hi" => rows.iter().map(|r| r.p_at_least_hi).collect::<Vec<_>>(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesbg::tally::Outcome;

    fn tally_of(values: &[(u16, u16)]) -> Tally {
        let mut t = Tally::new(&[1; Metric::ALL.len()]);
        for &(kills, broke) in values {
            let mut o = Outcome::default();
            o.set(Metric::ImpactKills, kills);
            o.set(Metric::Breakthrough, broke);
            t.record(&o);
        }
        t
    }

    #[test]
    fn wilson_matches_a_known_value() {
        // 81 of 263 (a textbook example): 0.2553 to 0.3662.
        let (lo, hi) = wilson(81, 263, Z95);
        assert!((lo - 0.2553).abs() < 1e-3 && (hi - 0.3662).abs() < 1e-3, "{lo} {hi}");
        let (lo, hi) = wilson(0, 100, Z95);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.03 && hi < 0.04);
    }

    #[test]
    fn summary_and_distribution() {
        let t = tally_of(&[(0, 0), (1, 0), (2, 1), (3, 1)]);
        let s = summarize_metric(&t, Metric::ImpactKills);
        assert!((s.mean - 1.5).abs() < 1e-12);
        assert!((s.sd - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        let b = summarize_metric(&t, Metric::Breakthrough);
        assert!((b.mean - 0.5).abs() < 1e-12);
        assert_eq!((b.ci95_lo, b.ci95_hi), wilson(2, 4, Z95));
        let d = distribution_of(&t, Metric::ImpactKills);
        assert_eq!(d.len(), 4);
        assert_eq!(d[0].p_at_least, 1.0);
        assert_eq!(d[2].p_at_least, 0.5);
        assert_eq!(d[3].p, 0.25);
        let frame = distribution_frame(&distributions(&t, &Metric::CHARGE)).unwrap();
        assert_eq!(frame.width(), 9);
        assert_eq!(summary_frame(&summarize(&t, &Metric::CHARGE)).unwrap().height(), Metric::CHARGE.len());
        let split = wound_split(&t);
        assert_eq!(split.iter().map(|c| c.count).sum::<u64>(), 4);
        assert_eq!(wound_split_frame(&split).unwrap().width(), 6);
    }
}
