//! Paired comparisons on common random numbers: two scenarios play the same trial indices
//! from the same streams (seed and the first scenario's stream key, one stream per rule
//! phase), so each trial's difference isolates the change. Sums are kept as exact integers,
//! so the result never depends on the thread count.

use crate::engine::statistics::MetricName;
use crate::engine::{BLOCK, MetricDef, MetricKind, RuleSystem, Streams, TrialRange};
use crate::mesbg::analysis::Z95;
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};

/// Exact integer sums of a paired run, per metric.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct PairedSums {
    /// The metrics compared (those both scenarios report).
    pub metrics: Vec<MetricDef>,
    /// Trials.
    pub n: u64,
    /// Per metric: sum of A's values (a column may weigh some metrics negatively).
    pub sum_a: Vec<i128>,
    /// Per metric: sum of B's values.
    pub sum_b: Vec<i128>,
    /// Per metric: sum of squared differences (B - A)^2.
    pub sum_d2: Vec<u128>,
    /// Per metric: sum of A's squared values.
    pub sum_a2: Vec<u128>,
    /// Per metric: sum of B's squared values.
    pub sum_b2: Vec<u128>,
}

impl PairedSums {
    fn new(metrics: &[MetricDef]) -> Self {
        let zeros = vec![0u128; metrics.len()];
        Self {
            metrics: metrics.to_vec(),
            n: 0,
            sum_a: vec![0; metrics.len()],
            sum_b: vec![0; metrics.len()],
            sum_d2: zeros.clone(),
            sum_a2: zeros.clone(),
            sum_b2: zeros,
        }
    }

    /// Adds the sums of other trials (a later batch of the same comparison).
    pub fn add(&mut self, other: &Self) {
        self.n += other.n;
        for i in 0..self.metrics.len() {
            self.sum_a[i] += other.sum_a[i];
            self.sum_b[i] += other.sum_b[i];
            self.sum_d2[i] += other.sum_d2[i];
            self.sum_a2[i] += other.sum_a2[i];
            self.sum_b2[i] += other.sum_b2[i];
        }
    }
}

/// The metrics both plans report, in A's order, each with its index in A's and in B's
/// metric list. Categorical metrics are left out (the difference of two outcome codes
/// means nothing); their named outcomes are compared as the flags they are.
pub fn shared_metrics<S: RuleSystem>(a: &S, b: &S) -> Vec<(MetricDef, usize, usize)> {
    let theirs = b.metrics();
    a.metrics()
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.is_categorical())
        .filter_map(|(i, m)| theirs.iter().position(|t| t.metric_name() == m.metric_name()).map(|j| (m.def(), i, j)))
        .collect()
}

/// The metrics only one of two plans reports, by name: `[only A's, only B's]` (categorical
/// metrics left out, as [`shared_metrics`] leaves them out). A comparison cannot pair them,
/// and says so rather than dropping them silently.
pub fn unshared_metrics<S: RuleSystem>(a: &S, b: &S) -> [Vec<String>; 2] {
    let names = |p: &S| -> Vec<String> {
        p.metrics().iter().filter(|m| !m.is_categorical()).map(|m| m.metric_name().to_string()).collect()
    };
    let (in_a, in_b) = (names(a), names(b));
    [
        in_a.iter().filter(|n| !in_b.contains(n)).cloned().collect(),
        in_b.iter().filter(|n| !in_a.contains(n)).cloned().collect(),
    ]
}

/// One column of a paired run: a metric, or a weighted sum of metrics, on each side
/// (`(metric index, weight)` in that side's plan).
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// What the column holds.
    pub def: MetricDef,
    /// A's metrics and weights (negative for what counts against A).
    pub a: Vec<(usize, i64)>,
    /// B's metrics and weights.
    pub b: Vec<(usize, i64)>,
}

/// Plays trials `range` of both plans (of one rule system) on the same streams and sums
/// the paired values of every metric both report. Returns `None` when `cancel` was set.
pub fn run<S: RuleSystem>(
    a: &S,
    b: &S,
    streams: Streams,
    range: TrialRange,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> Option<PairedSums> {
    let columns: Vec<Column> = shared_metrics(a, b)
        .into_iter()
        .map(|(def, ia, ib)| Column { def, a: vec![(ia, 1)], b: vec![(ib, 1)] })
        .collect();
    run_columns(a, Some(b), &columns, streams, range, progress, cancel)
}

/// Plays trials `range` of `a` and `b` on the same streams and sums each column's paired
/// values exactly. Without `b`, B's side of each column is read from A's own trial (one
/// plan played once, as a balance against a target efficiency needs).
pub fn run_columns<S: RuleSystem>(
    a: &S,
    b: Option<&S>,
    columns: &[Column],
    streams: Streams,
    range: TrialRange,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> Option<PairedSums> {
    let metrics: Vec<MetricDef> = columns.iter().map(|c| c.def.clone()).collect();
    let value = |weights: &[(usize, i64)], values: &[u16]| -> i128 {
        weights.iter().map(|&(i, w)| i128::from(values[i]) * i128::from(w)).sum()
    };
    let blocks = range.count.div_ceil(BLOCK);
    let sums = (0..blocks)
        .into_par_iter()
        .map_init(
            || (S::Scratch::default(), S::Scratch::default(), Vec::new(), Vec::new()),
            |(scratch_a, scratch_b, va, vb), block| {
                if cancel.load(Ordering::Relaxed) {
                    return None;
                }
                let start = range.first + block * BLOCK;
                let end = (start + BLOCK).min(range.first + range.count);
                let mut sums = PairedSums::new(&metrics);
                for t in start..end {
                    a.play_values(streams, t, scratch_a, va);
                    let vb: &[u16] = match b {
                        Some(b) => {
                            b.play_values(streams, t, scratch_b, vb);
                            vb
                        }
                        None => va,
                    };
                    for (i, column) in columns.iter().enumerate() {
                        let (x, y) = (value(&column.a, va), value(&column.b, vb));
                        sums.sum_a[i] += x;
                        sums.sum_b[i] += y;
                        sums.sum_a2[i] += x.unsigned_abs().pow(2);
                        sums.sum_b2[i] += y.unsigned_abs().pow(2);
                        sums.sum_d2[i] += x.abs_diff(y).pow(2);
                    }
                }
                sums.n = end - start;
                progress(end - start);
                Some(sums)
            },
        )
        .reduce(
            || Some(PairedSums::new(&metrics)),
            |x, y| match (x, y) {
                (Some(mut x), Some(y)) => {
                    x.add(&y);
                    Some(x)
                }
                _ => None,
            },
        );
    sums.filter(|s| s.n == range.count)
}

/// A and B named by what differs between them, so a reader never sees two identical names:
/// with `--set` fields, A is its title "as written" and B "with" the fields; two files of
/// different titles by their titles; two files of one title by their file names.
pub fn side_names(titles: &[String; 2], files: &[String; 2], sets: &[String]) -> [String; 2] {
    if !sets.is_empty() {
        let fields: Vec<String> = sets.iter().map(|s| s.replacen('=', " = ", 1)).collect();
        return [format!("{} as written", titles[0]), format!("the same with {}", fields.join(", "))];
    }
    if titles[0] != titles[1] {
        return titles.clone();
    }
    if files[0] != files[1] {
        return [format!("{} ({})", titles[0], files[0]), format!("{} ({})", titles[1], files[1])];
    }
    [format!("{} (first)", titles[0]), format!("{} (second)", titles[1])]
}

/// A finished paired comparison, as reports need it.
#[derive(Clone, Debug)]
pub struct PairedRun {
    /// Titles of A and B.
    pub titles: [String; 2],
    /// A and B named by what differs between them ([`side_names`]), for charts and headings.
    pub names: [String; 2],
    /// Scenario files of A and B.
    pub files: [String; 2],
    /// Trials played by each.
    pub trials: u64,
    /// Seed.
    pub seed: u64,
    /// Each shared metric's difference.
    pub rows: Vec<Difference>,
    /// The command that reproduces it.
    pub command: String,
    /// The rule options and policies in force for A and for B.
    pub rulesets: [Vec<crate::mesbg::scenario::RuleOption>; 2],
    /// How `--target-ci` chose the trial count, when it was given.
    pub precision: Option<crate::engine::Precision>,
    /// The metrics only A reports and those only B reports: not compared.
    pub only_in: [Vec<String>; 2],
}

/// The version of the comparison's JSON object (`compare --json`).
pub const PAIRED_SCHEMA: &str = "charioteer.paired/2";

impl PairedRun {
    /// The comparison as one JSON object (`compare --json`, docs/json-schema.md).
    pub fn to_json(&self) -> serde_json::Value {
        let differences: serde_json::Map<String, serde_json::Value> = self
            .rows
            .iter()
            .map(|d| {
                let mut v = serde_json::to_value(d).unwrap_or(serde_json::Value::Null);
                if let Some(o) = v.as_object_mut() {
                    o.insert("flag".into(), d.metric.flag.into());
                    o.insert("description".into(), d.metric.description.clone().into());
                }
                (d.metric.name.clone(), v)
            })
            .collect();
        serde_json::json!({
            "schema": PAIRED_SCHEMA,
            "version": env!("CARGO_PKG_VERSION"),
            "titles": self.titles,
            "names": self.names,
            "scenario_files": self.files,
            "trials": self.trials,
            "seed": self.seed,
            "command": self.command,
            "precision": self.precision,
            "differences": differences,
            "only_in": {"a": self.only_in[0], "b": self.only_in[1]},
        })
    }
}

/// One metric's paired difference.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    /// The metric.
    #[serde(skip)]
    pub metric: MetricDef,
    /// A's mean.
    pub mean_a: f64,
    /// B's mean.
    pub mean_b: f64,
    /// Mean of B - A over the paired trials: B's gain over A (negative when B does less).
    pub diff: f64,
    /// Standard error of `diff` from the paired differences.
    pub se: f64,
    /// 95% interval of the difference.
    pub ci95_lo: f64,
    /// Upper end.
    pub ci95_hi: f64,
    /// Two-sided p-value of "no difference" (normal approximation).
    pub p_value: f64,
    /// What the same difference's standard error would be from two independent runs of
    /// the same size: how much pairing helped.
    pub se_unpaired: f64,
}

/// The paired differences of every metric.
pub fn differences(sums: &PairedSums) -> Vec<Difference> {
    let n = sums.n.max(1) as f64;
    sums.metrics
        .iter()
        .enumerate()
        .map(|(i, metric)| {
            let metric = metric.clone();
            let mean_a = sums.sum_a[i] as f64 / n;
            let mean_b = sums.sum_b[i] as f64 / n;
            let diff = mean_b - mean_a;
            let var = |sum: i128, sum_sq: u128| {
                if sums.n < 2 {
                    return 0.0;
                }
                let mean = sum as f64 / n;
                ((sum_sq as f64 - n * mean * mean) / (n - 1.0)).max(0.0)
            };
            // sum of d = sum_b - sum_a (exact), sum of d^2 kept exactly (its sign never matters).
            let var_d = if sums.n < 2 { 0.0 } else { ((sums.sum_d2[i] as f64 - n * diff * diff) / (n - 1.0)).max(0.0) };
            let se = if var_d < 1e-300 { 0.0 } else { (var_d / n).sqrt() };
            let se_unpaired = ((var(sums.sum_a[i], sums.sum_a2[i]) + var(sums.sum_b[i], sums.sum_b2[i])) / n).sqrt();
            let p_value = if se > 0.0 {
                erfc((diff / se).abs() / std::f64::consts::SQRT_2)
            } else if sums.sum_a[i] == sums.sum_b[i] {
                1.0
            } else {
                0.0
            };
            Difference {
                metric,
                mean_a,
                mean_b,
                diff,
                se,
                ci95_lo: diff - Z95 * se,
                ci95_hi: diff + Z95 * se,
                p_value,
                se_unpaired,
            }
        })
        .collect()
}

/// The paired frame: metric, mean_a, mean_b, diff, se, ci95_lo, ci95_hi, p_value,
/// se_unpaired.
pub fn paired_frame(rows: &[Difference]) -> polars::prelude::PolarsResult<polars::prelude::DataFrame> {
    use polars::prelude::*;
    df!(
        "metric" => rows.iter().map(|r| r.metric.name.as_str()).collect::<Vec<_>>(),
        "mean_a" => rows.iter().map(|r| r.mean_a).collect::<Vec<_>>(),
        "mean_b" => rows.iter().map(|r| r.mean_b).collect::<Vec<_>>(),
        "diff" => rows.iter().map(|r| r.diff).collect::<Vec<_>>(),
        "se" => rows.iter().map(|r| r.se).collect::<Vec<_>>(),
        "ci95_lo" => rows.iter().map(|r| r.ci95_lo).collect::<Vec<_>>(),
        "ci95_hi" => rows.iter().map(|r| r.ci95_hi).collect::<Vec<_>>(),
        "p_value" => rows.iter().map(|r| r.p_value).collect::<Vec<_>>(),
        "se_unpaired" => rows.iter().map(|r| r.se_unpaired).collect::<Vec<_>>(),
    )
}

/// The complementary error function (Chebyshev fit, relative error below 1.2e-7
/// everywhere), for p-values.
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// A comparison to play: A's and B's plans (of one rule system) and what names them.
pub struct Comparison<'a, S> {
    /// A's and B's compiled plans.
    pub plans: [&'a S; 2],
    /// A's and B's facts (B plays A's streams: the key is A's hash).
    pub sides: [&'a crate::tools::system::Facts; 2],
    /// The `--set` changes that made B from A (empty when B is a file of its own).
    pub sets: &'a [String],
    /// The seed and the trials to play first.
    pub seed: u64,
    /// Trials.
    pub trials: u64,
    /// With `--target-ci`: the 95% half-width every difference must reach, and the cap on
    /// trials; trials double until then.
    pub target: Option<(f64, u64)>,
    /// The command that reproduces it, without `--seed` and `--trials` (added here).
    pub command: String,
}

/// Plays A and B on A's streams, trial by trial (doubling the trials under a precision
/// target, every difference's 95% half-width below it or the cap reached), and returns
/// the paired comparison.
pub fn compare<S: RuleSystem>(
    c: Comparison<S>,
    player: &crate::tools::play::Player,
) -> Result<PairedRun, crate::tools::play::ToolError> {
    let [plan_a, plan_b] = c.plans;
    let [side_a, side_b] = c.sides;
    // Common random numbers: both play A's streams.
    let streams = Streams::new(c.seed, side_a.hash);
    player.progress.begin(c.trials);
    let play = |range: TrialRange| {
        player.play(
            "A and B, paired",
            "the comparison was interrupted",
            range,
            |range, progress, cancel| run(plan_a, plan_b, streams, range, progress, cancel),
            PairedSums::add,
        )
    };
    let mut sums = play(TrialRange { first: 0, count: c.trials })?;
    player.checkpoint()?;
    let mut precision = None;
    if let Some((target, cap)) = c.target {
        let cap = cap.max(c.trials);
        loop {
            let widest = differences(&sums)
                .into_iter()
                .map(|d| (d.metric.name, (d.ci95_hi - d.ci95_lo) / 2.0))
                .fold((String::new(), 0.0), |w, d| if d.1 > w.1 { d } else { w });
            if widest.1 < target || sums.n >= cap {
                precision = Some(crate::engine::Precision {
                    target,
                    reached: widest.1 < target,
                    worst_metric: widest.0,
                    half_width: widest.1,
                    cap,
                });
                break;
            }
            let next = sums.n.saturating_mul(2).min(cap);
            player.progress.expect(next);
            let more = play(TrialRange { first: sums.n, count: next - sums.n })?;
            sums.add(&more);
        }
    }
    player.progress.end();
    let titles = [side_a.title.clone(), side_b.title.clone()];
    let files = [side_a.name.clone(), side_b.name.clone()];
    Ok(PairedRun {
        rulesets: [side_a.ruleset.clone(), side_b.ruleset.clone()],
        names: side_names(&titles, &files, c.sets),
        titles,
        files,
        trials: sums.n,
        seed: c.seed,
        rows: differences(&sums),
        command: format!("{} --seed {} --trials {}", c.command, c.seed, sums.n),
        precision,
        only_in: unshared_metrics(plan_a, plan_b),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_sides_are_named_by_what_differs() {
        let t = |a: &str, b: &str| [a.to_string(), b.to_string()];
        let same = t("Khandish charge", "Khandish charge");
        let [a, b] = side_names(&same, &t("a.toml", "a.toml"), &["chariot.impact.strength=5".into()]);
        assert_eq!(a, "Khandish charge as written");
        assert_eq!(b, "the same with chariot.impact.strength = 5");
        assert_eq!(side_names(&t("One", "Two"), &t("a.toml", "b.toml"), &[]), t("One", "Two"));
        let [a, b] = side_names(&same, &t("a.toml", "b.toml"), &[]);
        assert!(a.ends_with("(a.toml)") && b.ends_with("(b.toml)"), "{a} / {b}");
        let [a, b] = side_names(&same, &t("a.toml", "a.toml"), &[]);
        assert_ne!(a, b);
    }

    #[test]
    fn the_difference_is_b_minus_a() {
        let metric = MetricDef {
            name: "kills".into(),
            description: "kills".into(),
            flag: false,
            labels: Vec::new(),
            circular: false,
        };
        let mut sums = PairedSums::new(&[metric]);
        // A scores 1 on each of two trials, B scores 2 and 4: B gains 2 on average.
        sums.n = 2;
        sums.sum_a[0] = 2;
        sums.sum_b[0] = 6;
        sums.sum_a2[0] = 2;
        sums.sum_b2[0] = 20;
        sums.sum_d2[0] = 1 + 9;
        let d = &differences(&sums)[0];
        assert_eq!(d.diff, 2.0);
        // Differences 1 and 3: variance 2, se = sqrt(2 / 2) = 1.
        assert!((d.se - 1.0).abs() < 1e-12, "{}", d.se);
    }

    #[test]
    fn erfc_matches_known_values() {
        assert!((erfc(0.0) - 1.0).abs() < 1e-7);
        assert!((erfc(1.0) - 0.157_299_207).abs() < 1e-7);
        // Two-sided p of z = 1.96 is 0.05.
        assert!((erfc(1.959_964 / std::f64::consts::SQRT_2) - 0.05).abs() < 1e-6);
        assert!((erfc(-1.0) - 1.842_700_793).abs() < 1e-7);
    }
}
