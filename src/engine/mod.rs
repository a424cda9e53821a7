//! What every rule system shares to run trials: the streams that key a run's dice, the
//! trial range, and the parallel runner that plays fixed blocks of trials on the rayon pool
//! (so a result never depends on the thread count) with progress and cancellation.
//!
//! MESBG ([`crate::mesbg::resolve`]) and BATTLESYSTEM ([`crate::battlesystem::resolve`]) both run on it;
//! nothing here knows either rule system: each implements [`RuleSystem`], and every tool
//! (runs, `--target-ci`, per-trial rows, shards, paired comparisons, sweeps) is written once
//! against that trait.

use crate::dice::{RunKey, TrialKey};

pub mod statistics;
mod system;
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
pub use system::{
    MetricDef, MetricKind, MetricSet, OUTCOME_CHUNK, Precision, Reached, RuleSystem, Tallied, ValueSink,
    for_each_chunk, run, run_to_precision, summaries, worst_half_width,
};

/// Trials per block: the unit of parallel work, progress and cancellation.
pub const BLOCK: u64 = 1 << 15;

/// What keys every random stream of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Streams {
    /// The user's seed.
    pub seed: u64,
    /// Normally the scenario hash; a paired comparison gives both sides the same key.
    pub key: u64,
    #[serde(skip)]
    run_key: RunKey,
}

impl Streams {
    /// The streams of a run with this seed and stream key.
    pub const fn new(seed: u64, key: u64) -> Self {
        Self { seed, key, run_key: RunKey::new(seed, key) }
    }

    /// The key of trial `trial`'s streams (one per phase of a trial).
    #[inline]
    pub fn trial_key(&self, trial: u64) -> TrialKey {
        self.run_key.trial(trial)
    }
}

/// Which trials a run plays: `first..first + count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TrialRange {
    /// First trial index.
    pub first: u64,
    /// Number of trials.
    pub count: u64,
}

/// The run was interrupted before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the run was interrupted after {done} of {asked} trials; nothing was written for it")]
pub struct Interrupted {
    /// Trials finished.
    pub done: u64,
    /// Trials asked for.
    pub asked: u64,
}

/// Runs `range` in fixed blocks of [`BLOCK`] trials on the current rayon pool: each block
/// tallied by `block` (with per-thread scratch), the tallies merged by `merge`. The blocks
/// do not depend on the thread count, so neither does the result when `merge` is exact.
/// Shared by every rule system's runs.
///
/// Each thread keeps one scratch for the whole run (not one per piece of work rayon
/// splits off), so what a scratch learns of the plan (a turn's compiled chain, its memos)
/// is learnt once per thread and run.
pub fn run_in_blocks<T: Send, S: Default + Send>(
    range: TrialRange,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
    empty: impl Fn() -> T + Sync + Send,
    block: impl Fn(&mut S, std::ops::Range<u64>) -> T + Sync + Send,
    merge: impl Fn(&mut T, &T) + Sync + Send,
    trials_of: impl Fn(&T) -> u64,
) -> Result<T, Interrupted> {
    let blocks = range.count.div_ceil(BLOCK);
    let scratches: Vec<std::sync::Mutex<S>> =
        (0..rayon::current_num_threads().max(1)).map(|_| std::sync::Mutex::new(S::default())).collect();
    let tally = (0..blocks)
        .into_par_iter()
        .map(|b| {
            if cancel.load(Ordering::Relaxed) {
                return None;
            }
            let start = range.first + b * BLOCK;
            let end = (start + BLOCK).min(range.first + range.count);
            // The thread's own scratch. Should the thread hold it already (a block that
            // waited on rayon work and was handed another block of this run), or a thread
            // outside the pool's numbering get here, a fresh one serves: scratches hold
            // what a thread learnt, never what a block counts.
            let thread = rayon::current_thread_index().unwrap_or(0) % scratches.len();
            let mut own = match scratches[thread].try_lock() {
                Ok(scratch) => Some(scratch),
                Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => None,
            };
            let tally = match own.as_deref_mut() {
                Some(scratch) => block(scratch, start..end),
                None => block(&mut S::default(), start..end),
            };
            drop(own);
            progress(end - start);
            Some(tally)
        })
        .reduce(
            || Some(empty()),
            |a, b| match (a, b) {
                (Some(mut a), Some(b)) => {
                    merge(&mut a, &b);
                    Some(a)
                }
                _ => None,
            },
        );
    match tally {
        Some(t) if !cancel.load(Ordering::Relaxed) || trials_of(&t) == range.count => Ok(t),
        other => Err(Interrupted { done: other.map_or(0, |t| trials_of(&t)), asked: range.count }),
    }
}
