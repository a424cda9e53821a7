//! The trait every rule system implements, and the tools written once against it.

use super::statistics::{MetricName, MetricSummary, summarize_histogram};
use super::{Interrupted, Streams, TrialRange, run_in_blocks};
use rayon::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::sync::atomic::{AtomicBool, Ordering};

/// What a tool needs to know about a metric: its name in files, what it means, and
/// whether it is 0/1 (its mean a probability, its interval Wilson's).
pub trait MetricKind: MetricName + Clone + PartialEq + Send + Sync {
    /// What it means, in a phrase for reports.
    fn meaning(&self) -> String;
    /// True for 0/1 metrics.
    fn is_flag(&self) -> bool;
    /// True for a categorical metric (values are named outcomes, so its mean means
    /// nothing; its named outcomes are reported as flags beside it).
    fn is_categorical(&self) -> bool {
        false
    }
    /// True for a direction read as a number (a clock hour): its mean and interval mean
    /// nothing (the mean of 12 and 1 points the other way), so `--target-ci` never aims at it.
    fn is_circular(&self) -> bool {
        false
    }
    /// The metric as a [`MetricDef`], the form tools comparing or sweeping plans of
    /// either system keep.
    fn def(&self) -> MetricDef {
        MetricDef {
            name: self.metric_name().to_string(),
            description: self.meaning(),
            flag: self.is_flag(),
            labels: Vec::new(),
            circular: self.is_circular(),
        }
    }
}

/// One metric of a plan whose metrics depend on its contents (a BATTLESYSTEM plan has
/// one per unit): its name in files, its meaning, and whether it is 0/1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct MetricDef {
    /// Name in files (`contacted.pikemen`, `target_routed`, ...).
    pub name: String,
    /// What it means, for reports.
    pub description: String,
    /// True for 0/1 metrics, whose mean is a probability.
    pub flag: bool,
    /// Names of the values of a categorical metric (value `v` is `labels[v]`); empty for a
    /// count.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    /// True for a direction read as a number (see [`MetricKind::is_circular`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub circular: bool,
}

impl MetricName for MetricDef {
    fn metric_name(&self) -> &str {
        &self.name
    }
}

impl MetricKind for MetricDef {
    fn meaning(&self) -> String {
        self.description.clone()
    }
    fn is_flag(&self) -> bool {
        self.flag
    }
    fn is_categorical(&self) -> bool {
        !self.labels.is_empty()
    }
    fn is_circular(&self) -> bool {
        self.circular
    }
    fn def(&self) -> MetricDef {
        self.clone()
    }
}

/// The metrics of a plan, in report order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MetricSet {
    /// The metrics.
    pub defs: Vec<MetricDef>,
}

impl MetricSet {
    /// Adds a metric and returns its index.
    pub fn add(&mut self, name: impl Into<String>, description: impl Into<String>, flag: bool) -> usize {
        self.defs.push(MetricDef {
            name: name.into(),
            description: description.into(),
            flag,
            labels: Vec::new(),
            circular: false,
        });
        self.defs.len() - 1
    }

    /// Adds a direction read as a number (a clock hour), and returns its index.
    pub fn add_circular(&mut self, name: impl Into<String>, description: impl Into<String>) -> usize {
        let index = self.add(name, description, false);
        self.defs[index].circular = true;
        index
    }

    /// Adds a categorical metric whose value `v` means `labels[v]`, and returns its index.
    pub fn add_named(&mut self, name: impl Into<String>, description: impl Into<String>, labels: &[&str]) -> usize {
        let index = self.add(name, description, false);
        self.defs[index].labels = labels.iter().map(|l| l.to_string()).collect();
        index
    }

    /// The name of value `value` of metric `index`: its label, or the number itself.
    pub fn value_label(&self, index: usize, value: u32) -> String {
        self.defs.get(index).and_then(|d| d.labels.get(value as usize)).cloned().unwrap_or_else(|| value.to_string())
    }

    /// The number of metrics.
    pub fn len(&self) -> usize {
        self.defs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    /// The index of a metric by name.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.defs.iter().position(|d| d.name == name)
    }
}

/// A tally of trials: integer counts that add up exactly, whatever the order.
pub trait Tallied {
    /// Adds `other` (a tally of the same plan) into this one.
    fn merge(&mut self, other: &Self);
    /// The number of trials counted.
    fn trials(&self) -> u64;
}

/// A compiled scenario of one rule system, as the shared tools see it: it names its
/// metrics, plays trial `t` of a run's streams into metric values, and tallies blocks of
/// trials into mergeable tallies. MESBG's and BATTLESYSTEM's plans implement it; nothing
/// written against it asks which system it is.
pub trait RuleSystem: Sync {
    /// How the plan names its metrics.
    type Metric: MetricKind;
    /// The tally of a set of trials: exact integer counts, so merging in any order gives
    /// the same result.
    type Tally: Tallied + Clone + Send + Sync + Serialize + DeserializeOwned + PartialEq + std::fmt::Debug;
    /// Per-thread buffers reused from trial to trial.
    type Scratch: Default + Send;

    /// The rule system's name in files (`mesbg`, `battlesystem`).
    const SYSTEM: &'static str;

    /// The metrics this plan reports, in report order; per-trial values follow it.
    fn metrics(&self) -> Vec<Self::Metric>;
    /// An empty tally.
    fn empty_tally(&self) -> Self::Tally;
    /// Plays and tallies `trials` on this thread.
    fn tally_block(&self, streams: Streams, trials: std::ops::Range<u64>, scratch: &mut Self::Scratch) -> Self::Tally;
    /// Adds `other` (of the same plan) into `into`.
    fn merge_tally(into: &mut Self::Tally, other: &Self::Tally) {
        into.merge(other);
    }
    /// The number of trials a tally counts.
    fn trials_in(tally: &Self::Tally) -> u64 {
        tally.trials()
    }
    /// The histogram of metric `index` (of [`RuleSystem::metrics`]) in `tally`.
    fn histogram<'t>(&self, tally: &'t Self::Tally, index: usize) -> &'t [u64];
    /// Plays trial `trial` and writes its metric values, in [`RuleSystem::metrics`] order,
    /// into `values` (cleared first). The same dice as the trial in a tallied run.
    fn play_values(&self, streams: Streams, trial: u64, scratch: &mut Self::Scratch, values: &mut Vec<u16>);
}

/// Plays the trials of `range` on the current rayon pool and tallies them, in the engine's
/// fixed blocks (so the tally never depends on the thread count).
pub fn run<S: RuleSystem>(
    plan: &S,
    streams: Streams,
    range: TrialRange,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> Result<S::Tally, Interrupted> {
    run_in_blocks(
        range,
        progress,
        cancel,
        || plan.empty_tally(),
        |scratch: &mut S::Scratch, trials| plan.tally_block(streams, trials, scratch),
        S::merge_tally,
        S::trials_in,
    )
}

/// Headline statistics of every reported metric.
pub fn summaries<S: RuleSystem>(plan: &S, tally: &S::Tally) -> Vec<MetricSummary<S::Metric>> {
    let n = S::trials_in(tally);
    plan.metrics()
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let flag = m.is_flag();
            summarize_histogram(plan.histogram(tally, i), n, flag, m)
        })
        .collect()
}

/// The reported metric with the widest 95% interval, and that half-width (`None` for a
/// plan without metrics). Categorical metrics are left out: their named outcomes are
/// flags of their own. A count's half-width is its normal one (1.96 standard errors),
/// whether or not its interval was cut at 0.
pub fn worst_half_width<S: RuleSystem>(plan: &S, tally: &S::Tally) -> Option<(S::Metric, f64)> {
    summaries(plan, tally)
        .into_iter()
        .filter(|s| !s.metric.is_categorical() && !s.metric.is_circular())
        .map(|s| {
            let half = if s.metric.is_flag() { (s.ci95_hi - s.ci95_lo) / 2.0 } else { s.ci95_hi - s.mean };
            (s.metric, half)
        })
        .fold(None, |worst, m| match worst {
            Some(w) if w.1 >= m.1 => Some(w),
            _ => Some(m),
        })
}

/// The outcome of `--target-ci`.
#[derive(Clone, Debug, Serialize)]
pub struct Precision {
    /// The 95% half-width asked for.
    pub target: f64,
    /// Whether every reported metric got there.
    pub reached: bool,
    /// The name of the metric with the widest interval.
    pub worst_metric: String,
    /// Its 95% half-width.
    pub half_width: f64,
    /// The trial cap.
    pub cap: u64,
}

impl Precision {
    /// The report's sentence saying how the trial count was chosen.
    pub fn sentence(&self) -> String {
        format!(
            "Trials were added until every metric's 95% interval was narrower than +/- {} ({}; widest: `{}` +/- {:.6}).",
            self.target,
            if self.reached { "reached" } else { "not reached within the trial cap" },
            self.worst_metric,
            self.half_width
        )
    }
}

/// How [`run_to_precision`] ended.
#[derive(Clone, Debug, PartialEq)]
pub struct Reached<M> {
    /// Whether every reported metric's half-width got below the target.
    pub reached: bool,
    /// The metric with the widest interval and its 95% half-width.
    pub worst: Option<(M, f64)>,
}

/// Receives consecutive trials' metric values: the first trial's index, then the values
/// flat, one row of the plan's metrics per trial.
pub type ValueSink<'a, E> = dyn FnMut(u64, &[u16]) -> Result<(), E> + 'a;

/// `--target-ci`: doubles the trials of `tally` (the first `trials_in(tally)` trials of
/// the run) until every reported metric's 95% half-width is below `target` or `cap`
/// trials are played. The result is exactly the first N trials of the run, so `--trials N`
/// reproduces it. `grown` is told each growth (from, to trials) before it is played.
/// Returns whether the target was reached, and the worst metric with its half-width.
#[allow(clippy::too_many_arguments)]
pub fn run_to_precision<S: RuleSystem>(
    plan: &S,
    streams: Streams,
    tally: &mut S::Tally,
    target: f64,
    cap: u64,
    grown: &dyn Fn(u64, u64),
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> Result<Reached<S::Metric>, Interrupted> {
    loop {
        let worst = worst_half_width(plan, tally);
        let half_width = worst.as_ref().map_or(0.0, |w| w.1);
        let reached = half_width < target;
        let done = S::trials_in(tally);
        if reached || done >= cap {
            return Ok(Reached { reached, worst });
        }
        let next = done.saturating_mul(2).max(1).min(cap);
        grown(done, next);
        let more = run(plan, streams, TrialRange { first: done, count: next - done }, progress, cancel)?;
        S::merge_tally(tally, &more);
    }
}

/// Trials per chunk of [`for_each_chunk`].
pub const OUTCOME_CHUNK: u64 = 1 << 20;

/// Plays the trials of `range` again, [`OUTCOME_CHUNK`] at a time (in parallel within a
/// chunk), and hands each chunk's values to `sink` in trial order: the index of its first
/// trial and the values flat, `metrics().len()` per trial. Per-trial exports stay flat in
/// memory whatever the trial count. Stops at the first error of `sink`, or with `Ok(false)`
/// when `cancel` is set.
pub fn for_each_chunk<S: RuleSystem, E>(
    plan: &S,
    streams: Streams,
    range: TrialRange,
    cancel: &AtomicBool,
    sink: &mut ValueSink<'_, E>,
) -> Result<bool, E> {
    let end = range.first + range.count;
    let mut first = range.first;
    while first < end {
        if cancel.load(Ordering::Relaxed) {
            return Ok(false);
        }
        let last = (first + OUTCOME_CHUNK).min(end);
        let rows: Vec<Vec<u16>> = (first..last)
            .into_par_iter()
            .map_init(S::Scratch::default, |scratch, t| {
                let mut values = Vec::new();
                plan.play_values(streams, t, scratch, &mut values);
                values
            })
            .collect();
        let flat: Vec<u16> = rows.concat();
        sink(first, &flat)?;
        first = last;
    }
    Ok(true)
}
