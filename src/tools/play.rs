//! How a tool plays its trials, wherever it is called from: on which threads, how it says
//! its progress, how it is stopped, and whether it plays in full, a shard's share, or
//! answers from merged shards. The command line and the web server each make a [`Player`]
//! and call the same procedures with it; [`ToolError`] is what those procedures refuse or
//! fail with, so each caller can say it in its own way (an exit code, an HTTP status).

use crate::engine::{Interrupted, TrialRange};
use crate::tools::shard::{PlayError, Plays};
use serde::{Serialize, de::DeserializeOwned};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Where a procedure's progress is shown: a terminal's bar, a job's counter, or nowhere.
pub trait Progress: Sync {
    /// A new piece of work of `total` trials begins (a fresh count).
    fn begin(&self, _total: u64) {}
    /// The piece of work now counts `total` trials in all (more were added to it).
    fn expect(&self, _total: u64) {}
    /// `trials` more were played.
    fn advance(&self, trials: u64);
    /// The piece of work is done (its count may be cleared away).
    fn end(&self) {}
}

/// Progress counted by a function of the trials played (the server's job counter).
impl<F: Fn(u64) + Sync> Progress for F {
    fn advance(&self, trials: u64) {
        self(trials)
    }
}

/// The most trials a play to a precision (`--target-ci`) makes unless told otherwise (per
/// point of a sweep).
pub const DEFAULT_MAX_TRIALS: u64 = 100_000_000;

/// What a procedure plays with.
pub struct Player<'a> {
    /// The worker threads (`None`: the current rayon pool).
    pub pool: Option<&'a rayon::ThreadPool>,
    /// Where progress is shown.
    pub progress: &'a dyn Progress,
    /// Set to stop the play at the next block of trials.
    pub cancel: &'a AtomicBool,
    /// Played here in full, a shard's share, or merged shards' results.
    pub plays: Plays,
}

impl Player<'_> {
    /// The result of trials `range` of the play `label` (`run` plays a range with a progress
    /// count and the stop flag; `add` adds two results, for a merge): in full, a shard's
    /// share, or the merged shards' parts. Stopped, it is [`ToolError::Interrupted`], said
    /// as `what` ("the comparison was interrupted").
    pub fn play<T: Serialize + DeserializeOwned + Send>(
        &self,
        label: &str,
        what: &'static str,
        range: TrialRange,
        run: impl FnOnce(TrialRange, &(dyn Fn(u64) + Sync), &AtomicBool) -> Option<T> + Send,
        add: impl Fn(&mut T, &T),
    ) -> Result<T, ToolError> {
        self.plays.play(
            label,
            range,
            |part| {
                let done = AtomicU64::new(0);
                let progress = |n| {
                    done.fetch_add(n, Ordering::Relaxed);
                    self.progress.advance(n);
                };
                let played = self.install(|| run(part, &progress, self.cancel));
                played.ok_or_else(|| ToolError::Interrupted {
                    what: what.to_string(),
                    source: Interrupted { done: done.load(Ordering::Relaxed).min(part.count), asked: part.count },
                })
            },
            add,
        )
    }

    /// `f`'s result, computed on the player's threads.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match self.pool {
            Some(pool) => pool.install(f),
            None => f(),
        }
    }

    /// Called once a piece of work has made all its plays, before anything reads their
    /// results: a shard stops here ([`PlayError::ShardPlayed`]).
    pub fn checkpoint(&self) -> Result<(), ToolError> {
        Ok(self.plays.checkpoint()?)
    }
}

/// Why a procedure refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The request asks for what this version cannot do for those files (bad input).
    #[error("{0}")]
    Unsupported(String),
    /// The request was fine but no answer came of it (not bad input).
    #[error("{0}")]
    Failed(String),
    /// A scenario file is unreadable or invalid.
    #[error(transparent)]
    Scenario(#[from] crate::mesbg::scenario::ScenarioError),
    /// A price cannot be read from a scenario.
    #[error(transparent)]
    Balance(#[from] crate::tools::balance::BalanceError),
    /// A `--set` is malformed or its values too many.
    #[error(transparent)]
    Sweep(#[from] crate::tools::sweep::SweepError),
    /// A play was not made or answered, or (not a failure) a shard has played its part.
    #[error(transparent)]
    Play(#[from] PlayError),
    /// Stopped before the end (Ctrl-C, or a page that went away).
    #[error("{what}")]
    Interrupted {
        /// The play stopped, in words (and what was kept of it).
        what: String,
        /// How far it got.
        #[source]
        source: Interrupted,
    },
}

impl ToolError {
    /// True for a shard that has played its part of every play: not a failure.
    pub fn is_shard_played(&self) -> bool {
        matches!(self, ToolError::Play(PlayError::ShardPlayed { .. }))
    }
}
