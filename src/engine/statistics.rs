//! Statistics every rule system shares: means with standard errors, Wilson intervals for
//! probabilities, the full distribution of a metric, exact rows in the same shape, and
//! their polars frames. Generic over how a metric is named ([`MetricName`]), so MESBG's
//! fixed metrics and BATTLESYSTEM's per-plan metrics use the same code. Renderers and
//! exporters read these; they never compute statistics themselves.

use polars::prelude::*;
use serde::Serialize;

/// The normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// What names a metric in files: MESBG's fixed metrics, or the names a BATTLESYSTEM
/// plan builds (per unit, so not known at compile time).
pub trait MetricName {
    /// The metric's name in files and on the command line.
    fn metric_name(&self) -> &str;
}

impl MetricName for String {
    fn metric_name(&self) -> &str {
        self
    }
}

/// One metric's headline statistics.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricSummary<M> {
    /// The metric.
    #[serde(skip)]
    pub metric: M,
    /// Mean over all trials (a probability for 0/1 metrics).
    pub mean: f64,
    /// Sample standard deviation.
    pub sd: f64,
    /// Standard error of the mean.
    pub se: f64,
    /// Lower end of the 95% interval (Wilson for 0/1 metrics, mean - 1.96 se cut at 0 otherwise).
    pub ci95_lo: f64,
    /// Upper end of the 95% interval.
    pub ci95_hi: f64,
}

/// P(metric = value) and P(metric >= value), each with its Wilson interval.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DistributionRow<M> {
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

/// The 95% interval of a count's mean (the normal one), cut at 0: a count is never
/// negative, so neither is its mean, and a rare count's interval must not say it might be.
pub fn count_interval(mean: f64, se: f64) -> (f64, f64) {
    ((mean - Z95 * se).max(0.0), mean + Z95 * se)
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
        if flag { wilson(hist.get(1).copied().unwrap_or(0), n, Z95) } else { count_interval(mean, se) };
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

/// One metric of several scenarios side by side: scenario, metric, mean, ci95_lo, ci95_hi.
pub fn comparison_frame<M: MetricName>(rows: &[(String, MetricSummary<M>)]) -> PolarsResult<DataFrame> {
    df!(
        "scenario" => rows.iter().map(|r| r.0.as_str()).collect::<Vec<_>>(),
        "metric" => rows.iter().map(|r| r.1.metric.metric_name()).collect::<Vec<_>>(),
        "mean" => rows.iter().map(|r| r.1.mean).collect::<Vec<_>>(),
        "ci95_lo" => rows.iter().map(|r| r.1.ci95_lo).collect::<Vec<_>>(),
        "ci95_hi" => rows.iter().map(|r| r.1.ci95_hi).collect::<Vec<_>>(),
    )
}

/// Counts one trial's metric values into per-metric histograms (`histograms[m][v]`: trials
/// in which metric `m` took value `v`), growing a histogram to a value not seen before.
pub fn count_values(histograms: &mut [Vec<u64>], values: &[u16]) {
    for (hist, &v) in histograms.iter_mut().zip(values) {
        count_value(hist, v);
    }
}

/// Counts one trial in which a metric took value `v` into its histogram, growing it to a
/// value not seen before.
#[inline]
pub fn count_value(hist: &mut Vec<u64>, v: u16) {
    let v = usize::from(v);
    if v >= hist.len() {
        hist.resize(v + 1, 0);
    }
    hist[v] += 1;
}

/// Counts rows of packed words (a trial's whole outcome) in an open-addressing table: a
/// trial costs one hash-table increment instead of one histogram increment per metric, and
/// the few distinct rows of a block go to the histograms at the end. Both systems' counters
/// of whole outcomes keep their rows here.
#[derive(Clone, Debug)]
pub struct RowCounts<const W: usize> {
    /// Rows by slot; a slot is free when its count is 0.
    keys: Vec<[u64; W]>,
    /// Counts by slot.
    counts: Vec<u64>,
    /// Slots in use.
    used: usize,
}

impl<const W: usize> Default for RowCounts<W> {
    fn default() -> Self {
        Self { keys: vec![[0; W]; Self::SLOTS], counts: vec![0; Self::SLOTS], used: 0 }
    }
}

impl<const W: usize> RowCounts<W> {
    const SLOTS: usize = 1 << 10;

    /// Counts one row; true when the table is half full and should be drained.
    #[inline]
    pub fn add(&mut self, key: [u64; W]) -> bool {
        let folded = key.iter().fold(0u64, |acc, &w| acc.rotate_left(23) ^ w);
        let mask = Self::SLOTS - 1;
        let mut slot = (folded.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 54) as usize & mask;
        loop {
            if self.counts[slot] == 0 {
                self.keys[slot] = key;
                self.counts[slot] = 1;
                self.used += 1;
                return 2 * self.used > Self::SLOTS;
            }
            // Compared word by word without branching (an array `==` calls memcmp).
            if self.keys[slot].iter().zip(&key).fold(0, |differ, (a, b)| differ | (a ^ b)) == 0 {
                self.counts[slot] += 1;
                return false;
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Hands every counted row and its count to `each`, and empties the table.
    pub fn drain(&mut self, mut each: impl FnMut(&[u64; W], u64)) {
        for (key, count) in self.keys.iter().zip(self.counts.iter_mut()) {
            if *count > 0 {
                each(key, *count);
                *count = 0;
            }
        }
        self.used = 0;
    }
}

/// Adds histograms of the same metrics (exact integer sums: any order gives the same).
pub fn add_histograms(into: &mut [Vec<u64>], other: &[Vec<u64>]) {
    for (mine, theirs) in into.iter_mut().zip(other) {
        if theirs.len() > mine.len() {
            mine.resize(theirs.len(), 0);
        }
        mine.iter_mut().zip(theirs).for_each(|(a, b)| *a += b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rare_counts_interval_stops_at_zero() {
        // 10,000 trials, one of which counted 1: mean 1e-4, sample variance
        // (1 - n mean^2) / (n - 1) = 0.9999 / 9999 = 1e-4, so se = 1e-4 and the normal
        // interval would run from -0.96e-4.
        let mut hist = vec![9_999, 1];
        let s = summarize_histogram(&hist, 10_000, false, ());
        assert!((s.mean - 1e-4).abs() < 1e-15);
        assert!((s.se - 1e-4).abs() < 1e-12);
        assert_eq!(s.ci95_lo, 0.0);
        assert!((s.ci95_hi - (1e-4 + Z95 * 1e-4)).abs() < 1e-12);
        // A common count keeps its symmetric interval.
        hist = vec![5_000, 5_000];
        let s = summarize_histogram(&hist, 10_000, false, ());
        assert!((s.mean - s.ci95_lo - (s.ci95_hi - s.mean)).abs() < 1e-12);
        assert!(s.ci95_lo > 0.0);
    }
}

/// The exact joint distribution of a trial's metrics, as an exact engine computes it:
/// every distinct set of values with its probability.
#[derive(Clone, Debug, PartialEq)]
pub struct JointDistribution {
    /// Every distinct outcome: the metric values (in the plan's metric order) and its
    /// probability, in ascending order of the values.
    pub outcomes: Vec<(Vec<u16>, f64)>,
}

impl JointDistribution {
    /// The exact distribution of metric `m`: `pmf[v]` = P(metric = v).
    pub fn marginal(&self, m: usize) -> Vec<f64> {
        let mut pmf = vec![0.0; 2];
        for (values, p) in &self.outcomes {
            let v = usize::from(values[m]);
            if v >= pmf.len() {
                pmf.resize(v + 1, 0.0);
            }
            pmf[v] += p;
        }
        pmf
    }

    /// The exact mean and standard deviation of metric `m`.
    pub fn mean_sd(&self, m: usize) -> (f64, f64) {
        let pmf = self.marginal(m);
        let mean: f64 = pmf.iter().enumerate().map(|(v, p)| v as f64 * p).sum();
        let var: f64 = pmf.iter().enumerate().map(|(v, p)| (v as f64 - mean).powi(2) * p).sum();
        (mean, var.max(0.0).sqrt())
    }
}
