//! The server's runs and comparisons: started by a request, queued for one of the
//! server's few run slots (so many players share it fairly: no run starts while the
//! slots are taken, and a full queue is refused with 429), played on the run pool,
//! polled for progress, cancellable, and each written to a report folder of its own
//! under [`REPORTS`](super::REPORTS) (the oldest finished ones are forgotten and their
//! folders removed, so a long-lived server does not fill the disk).
//!
//! A job's id is 128 random bits: only the page that started it knows it, so only that
//! page can read, download or cancel it. A job the page stops asking after (the page was
//! closed without saying so) is cancelled after [`Limits::abandon_after`].

use super::super::run::Played;
use super::super::system::System;
use super::super::*;
use super::{ApiError, Server};
use axum::http::StatusCode;
use serde_json::{Value, json};
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// Finished jobs kept (with their report folders); older ones are forgotten.
const KEPT_JOBS: usize = 32;

/// What a job plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum JobKind {
    /// One scenario's run (`run --json`'s object).
    Run,
    /// Two scenarios on common random numbers (`compare --json`'s object).
    Compare,
}

/// How a job ended, or that it has not.
#[derive(Debug, Clone)]
enum Outcome {
    Queued,
    Running,
    Done(Value),
    Failed(String),
    Cancelled(String),
}

/// How many jobs the server plays and keeps waiting, and when it gives up on a page.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// Jobs playing at once (they share the run pool's threads).
    pub running: usize,
    /// Jobs waiting for a slot; one more is refused (429).
    pub queued: usize,
    /// A job started through the jobs API whose status nobody asked for this long is
    /// cancelled (its page went away without cancelling it).
    pub abandon_after: Duration,
}

/// One run or comparison.
#[derive(Debug)]
pub(super) struct Job {
    /// Its id in URLs: 32 hex digits from the OS's random source.
    pub id: String,
    /// Its place in the order jobs were started (queue order, and which to forget first).
    seq: u64,
    /// Who started it (one job at a time per client).
    pub client: String,
    /// What it plays.
    pub kind: JobKind,
    /// Trials asked for.
    pub trials: u64,
    /// Trials played so far.
    pub done: AtomicU64,
    /// Set to stop it at its next block of trials (or before it leaves the queue).
    pub cancel: AtomicBool,
    /// Whether a request waits on it (`/api/run`): then it is never taken as abandoned.
    watched: bool,
    /// When it was started (asked for).
    asked: Instant,
    /// When it began to play, once it has.
    playing_since: Mutex<Option<Instant>>,
    /// When its status was last asked for.
    seen: Mutex<Instant>,
    outcome: Mutex<Outcome>,
    /// Its report folder and the files written there, once written.
    report: Mutex<Option<(PathBuf, Vec<String>)>>,
    /// Each metric's meaning and kind (the result names the metrics only), once played.
    metrics: Mutex<Value>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these small locks leaves plain data behind: keep going.
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Job {
    /// Whether it is queued or playing.
    fn active(&self) -> bool {
        matches!(*lock(&self.outcome), Outcome::Queued | Outcome::Running)
    }

    /// Its state as the API answers it (`position`: its place in the queue, 1 next, while
    /// queued): progress, then the result or why there is none.
    fn status(&self, position: Option<usize>) -> Value {
        let outcome = lock(&self.outcome).clone();
        let (state, result, error) = match outcome {
            Outcome::Queued => ("queued", Value::Null, Value::Null),
            Outcome::Running => ("running", Value::Null, Value::Null),
            Outcome::Done(v) => ("done", v, Value::Null),
            Outcome::Failed(e) => ("failed", Value::Null, e.into()),
            Outcome::Cancelled(e) => ("cancelled", Value::Null, e.into()),
        };
        let files: Vec<Value> = lock(&self.report)
            .as_ref()
            .map(|(_, names)| {
                names.iter().map(|n| json!({"name": n, "url": format!("/api/jobs/{}/files/{n}", self.id)})).collect()
            })
            .unwrap_or_default();
        let playing_since = *lock(&self.playing_since);
        json!({
            "id": self.id,
            "kind": match self.kind { JobKind::Run => "run", JobKind::Compare => "compare" },
            "state": state,
            "position": position,
            "trials": self.trials,
            "done": self.done.load(Ordering::Relaxed).min(self.trials),
            "waited_s": playing_since.unwrap_or_else(Instant::now).duration_since(self.asked).as_secs_f64(),
            "elapsed_s": playing_since.map_or(0.0, |t| t.elapsed().as_secs_f64()),
            "url": format!("/api/jobs/{}", self.id),
            "result": result,
            "error": error,
            "files": files,
            "metrics": lock(&self.metrics).clone(),
        })
    }

    /// The path of a file its report wrote, by name (nothing else is served).
    pub fn report_file(&self, name: &str) -> Option<PathBuf> {
        let report = lock(&self.report);
        let (dir, names) = report.as_ref()?;
        names.iter().any(|n| n == name).then(|| dir.join(name))
    }

    /// Every file its report wrote, by name and path, report.md first.
    pub fn report_files(&self) -> Vec<(String, PathBuf)> {
        lock(&self.report)
            .as_ref()
            .map(|(dir, names)| names.iter().map(|n| (n.clone(), dir.join(n))).collect())
            .unwrap_or_default()
    }

    /// The name of its report folder, once written.
    pub fn report_folder(&self) -> Option<String> {
        lock(&self.report).as_ref().and_then(|(dir, _)| dir.file_name()).map(|n| n.to_string_lossy().into_owned())
    }

    /// Asks it to stop (at its next block of trials, or before it leaves the queue).
    pub fn stop(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Every job the server knows, and its queue.
struct Book {
    by_id: BTreeMap<String, Arc<Job>>,
    /// Queued jobs' `seq`, first in line first.
    waiting: VecDeque<u64>,
    /// Run slots free now (each its own pool of threads).
    free: Vec<usize>,
}

/// Every job the server knows, the queue for its run slots, and their limits.
pub(super) struct Jobs {
    book: Mutex<Book>,
    next: AtomicU64,
    limits: Limits,
    /// Wakes queued jobs when a slot frees or the queue moves.
    moved: tokio::sync::Notify,
}

/// A new job id: 128 bits from the operating system's random source, as hex.
fn new_id() -> Result<String, ApiError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("no random source for a job id: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl Jobs {
    /// No jobs yet, within `limits`.
    pub fn new(limits: Limits) -> Self {
        Self {
            book: Mutex::new(Book {
                by_id: BTreeMap::new(),
                waiting: VecDeque::new(),
                free: (0..limits.running).rev().collect(),
            }),
            next: AtomicU64::new(0),
            limits,
            moved: tokio::sync::Notify::new(),
        }
    }

    /// Registers a new job of `client` at the back of the queue. Refused while the
    /// client's earlier job is queued or playing (409), and when the queue is full (429).
    /// `watched`: a request waits on it (never taken as abandoned).
    pub fn start(&self, client: String, kind: JobKind, trials: u64, watched: bool) -> Result<Arc<Job>, ApiError> {
        let mut book = lock(&self.book);
        if let Some(busy) = book.by_id.values().find(|j| j.client == client && j.active()) {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                format!(
                    "a run of yours is still {} ({} of {} trials); wait for it or cancel it first: \
                     one run at a time per page",
                    if matches!(*lock(&busy.outcome), Outcome::Queued) { "waiting its turn" } else { "playing" },
                    group_digits(busy.done.load(Ordering::Relaxed)),
                    group_digits(busy.trials),
                ),
            ));
        }
        // Those in line ahead that a free slot is waiting for are about to start (their
        // tasks take the slot a moment later): only the rest wait, and only they fill the
        // queue. Counting them too refused a page while the server sat idle.
        if book.waiting.len() >= book.free.len() + self.limits.queued {
            return Err(ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "the server is busy: {} run{} playing and {} waiting, the most it keeps; try again in a minute",
                    self.limits.running - book.free.len(),
                    if self.limits.running - book.free.len() == 1 { "" } else { "s" },
                    book.waiting.len()
                ),
            ));
        }
        let seq = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let job = Arc::new(Job {
            id: new_id()?,
            seq,
            client,
            kind,
            trials,
            done: AtomicU64::new(0),
            cancel: AtomicBool::new(false),
            watched,
            asked: Instant::now(),
            playing_since: Mutex::new(None),
            seen: Mutex::new(Instant::now()),
            outcome: Mutex::new(Outcome::Queued),
            report: Mutex::new(None),
            metrics: Mutex::new(Value::Null),
        });
        book.by_id.insert(job.id.clone(), job.clone());
        book.waiting.push_back(seq);
        // Forget the oldest finished jobs beyond the kept number, with their folders.
        let mut finished: Vec<(u64, String)> =
            book.by_id.values().filter(|j| !j.active()).map(|j| (j.seq, j.id.clone())).collect();
        finished.sort();
        for (_, old) in finished.iter().take(finished.len().saturating_sub(KEPT_JOBS)) {
            if let Some(job) = book.by_id.remove(old)
                && let Some((dir, _)) = lock(&job.report).take()
            {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
        Ok(job)
    }

    /// A job by its id in a URL (asking for it counts as its page still being there).
    pub fn find(&self, id: &str) -> Result<Arc<Job>, ApiError> {
        let job = lock(&self.book).by_id.get(id).cloned().ok_or_else(|| {
            ApiError::new(
                StatusCode::NOT_FOUND,
                format!("no job {id:?} (a job is known by the id its start answered; finished jobs are kept a while)"),
            )
        })?;
        *lock(&job.seen) = Instant::now();
        Ok(job)
    }

    /// A job's state as the API answers it, with its place in the queue while queued.
    pub fn status(&self, job: &Job) -> Value {
        let position = lock(&self.book).waiting.iter().position(|s| *s == job.seq).map(|p| p + 1);
        job.status(position)
    }

    /// Takes `job` out of the queue into a free run slot (answered) if it is first in line
    /// and a slot is free.
    fn try_begin(&self, job: &Job) -> Option<usize> {
        let mut book = lock(&self.book);
        if book.waiting.front() != Some(&job.seq) {
            return None;
        }
        let slot = book.free.pop()?;
        book.waiting.pop_front();
        *lock(&job.outcome) = Outcome::Running;
        *lock(&job.playing_since) = Some(Instant::now());
        // The next in line may be able to start too.
        self.moved.notify_waiters();
        Some(slot)
    }

    /// Takes a cancelled `job` out of the queue.
    fn leave_queue(&self, job: &Job) {
        lock(&self.book).waiting.retain(|s| *s != job.seq);
        self.moved.notify_waiters();
    }

    /// Frees the run slot a job held.
    fn end(&self, slot: usize) {
        lock(&self.book).free.push(slot);
        self.moved.notify_waiters();
    }

    /// Stops every queued or running job (the server is shutting down).
    pub fn cancel_all(&self) {
        for job in lock(&self.book).by_id.values() {
            job.stop();
        }
    }

    /// Cancels the jobs whose page stopped asking after them (see [`Limits::abandon_after`]).
    pub fn cancel_abandoned(&self) {
        for job in lock(&self.book).by_id.values() {
            if job.active() && !job.watched && lock(&job.seen).elapsed() > self.limits.abandon_after {
                job.stop();
            }
        }
    }
}

/// Queues `job` for a run slot, then plays `work` for it on the slot's own threads (two
/// runs in one pool would not share it: the pool's threads keep to the first run's work)
/// and records how it ended; the handle answers the same result.
pub(super) fn spawn(
    server: Arc<Server>,
    job: Arc<Job>,
    work: impl FnOnce(&Server, &Job) -> Result<Value, ApiError> + Send + 'static,
) -> tokio::task::JoinHandle<Result<Value, ApiError>> {
    tokio::spawn(async move {
        // Wait in line; a slot freeing or the queue moving wakes every waiter, and a
        // periodic look catches a wake missed between the check and the wait.
        let slot = loop {
            if let Some(slot) = server.jobs.try_begin(&job) {
                break slot;
            }
            if job.cancel.load(Ordering::Relaxed) {
                server.jobs.leave_queue(&job);
                let error = "cancelled while waiting its turn; nothing was played".to_string();
                *lock(&job.outcome) = Outcome::Cancelled(error.clone());
                return Err(ApiError::new(StatusCode::CONFLICT, error));
            }
            let moved = server.jobs.moved.notified();
            tokio::select! {
                _ = moved => {}
                _ = tokio::time::sleep(Duration::from_millis(100)) => {}
            }
        };
        /// Frees the slot however the play ends (a panic included).
        struct Slot(Arc<Server>, usize);
        impl Drop for Slot {
            fn drop(&mut self) {
                self.0.jobs.end(self.1);
            }
        }
        let held = Slot(server.clone(), slot);
        let (pools, playing) = (server.clone(), job.clone());
        let played =
            tokio::task::spawn_blocking(move || pools.run_pools[slot].install(|| work(&pools, &playing))).await;
        // The slot is free before the job says it finished: a page that sees its run end
        // may start the next at once, and must find the slot free, not the queue full.
        drop(held);
        let result = played
            .unwrap_or_else(|e| Err(ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("the run failed: {e}"))));
        *lock(&job.outcome) = match &result {
            Ok(value) => Outcome::Done(value.clone()),
            Err(e) if job.cancel.load(Ordering::Relaxed) => Outcome::Cancelled(e.error.clone()),
            Err(e) => Outcome::Failed(e.error.clone()),
        };
        result
    })
}

/// The answer when a job was stopped before it finished.
fn interrupted(job: &Job) -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        format!(
            "cancelled after {} of {} trials; nothing was written",
            group_digits(job.done.load(Ordering::Relaxed)),
            group_digits(job.trials)
        ),
    )
}

/// A report that could not be written: its folder is removed (no half-written report is
/// left behind) and the failure answered.
fn failed_report(dir: &Path, error: &anyhow::Error) -> ApiError {
    let _ = std::fs::remove_dir_all(dir);
    ApiError::internal(error)
}

/// Writes a report's scenario files beside it, and notes the folder and its files on the job.
fn keep_report(job: &Job, dir: &Path, written: Vec<PathBuf>, scenarios: &[(&str, &str)]) -> Result<(), ApiError> {
    let mut names: Vec<String> =
        written.iter().filter_map(|p| p.file_name().and_then(|n| n.to_str()).map(str::to_string)).collect();
    for (name, text) in scenarios {
        report::write_atomic(&dir.join(name), |f| std::io::Write::write_all(f, text.as_bytes()))
            .map_err(|e| ApiError::internal(&e.into()))?;
        names.push(name.to_string());
    }
    // report.md first: the page lists it as "the report".
    names.sort_by_key(|n| (n != "report.md", !n.ends_with(".toml"), n.clone()));
    *lock(&job.report) = Some((dir.to_path_buf(), names));
    Ok(())
}

/// Plays one scenario's run for `job` and writes its report; answers `run --json`'s object.
pub(super) fn run_job(job: &Job, loaded: Loaded, text: &str, seed: u64, trials: u64) -> Result<Value, ApiError> {
    on_system!(loaded, run_of(job, text, seed, trials))
}

fn run_of<S: System>(scenario: S::Scenario, job: &Job, text: &str, seed: u64, trials: u64) -> Result<Value, ApiError> {
    let facts = S::facts(&scenario);
    let plan = S::compile(&scenario);
    let streams = Streams::new(seed, facts.hash);
    let started = Instant::now();
    let progress = |n| {
        job.done.fetch_add(n, Ordering::Relaxed);
    };
    let tally = crate::engine::run(&plan, streams, TrialRange { first: 0, count: trials }, &progress, &job.cancel)
        .map_err(|_| interrupted(job))?;
    let played = Played {
        tally,
        seed,
        elapsed_s: started.elapsed().as_secs_f64(),
        precision: None,
        command: format!("charioteer run {} --seed {seed} --trials {trials}", shell_quote(&facts.name)),
        exact: true,
    };
    *lock(&job.metrics) = metric_defs(&plan);
    let record = S::record(&scenario, &plan, played, rayon::current_num_threads());
    let dir = Path::new(super::REPORTS).join(format!("{}-{}", facts.slug, &job.id[..12]));
    let written = S::write_report(&record, &dir).map_err(|e| failed_report(&dir, &e))?;
    keep_report(job, &dir, written, &[(&facts.name, text)]).inspect_err(|_| drop(std::fs::remove_dir_all(&dir)))?;
    Ok(S::json(&record))
}

/// Each metric of a plan: its name, meaning, and whether it is 0/1 or categorical.
pub(super) fn metric_defs<P: crate::engine::RuleSystem>(plan: &P) -> Value {
    use crate::engine::MetricKind;
    serde_json::to_value(plan.metrics().iter().map(MetricKind::def).collect::<Vec<_>>()).unwrap_or(Value::Null)
}

/// Whether two loaded scenarios are of one rule system (a comparison pairs their streams).
pub(super) fn same_system(a: &Loaded, b: &Loaded) -> bool {
    matches!(
        (a, b),
        (Loaded::Mesbg(_), Loaded::Mesbg(_))
            | (Loaded::Battlesystem(_), Loaded::Battlesystem(_))
            | (Loaded::Turn(_), Loaded::Turn(_))
    )
}

/// Plays A and B on A's streams for `job` and writes the paired report; answers `compare
/// --json`'s object.
pub(super) fn compare_job(
    job: &Job,
    a: Loaded,
    b: Loaded,
    texts: &[String; 2],
    seed: u64,
    trials: u64,
) -> Result<Value, ApiError> {
    on_system!(a, compare_of(b, job, texts, seed, trials))
}

fn compare_of<S: System>(
    a: S::Scenario,
    b: Loaded,
    job: &Job,
    texts: &[String; 2],
    seed: u64,
    trials: u64,
) -> Result<Value, ApiError> {
    let kind = b.kind();
    let b = S::take(b).ok_or_else(|| {
        ApiError::bad(format!(
            "a comparison pairs two scenarios of one kind (their trials share random streams): B is {kind}"
        ))
    })?;
    let (facts_a, facts_b) = (S::facts(&a), S::facts(&b));
    let (plan_a, plan_b) = (S::compile(&a), S::compile(&b));
    let progress = |n| {
        job.done.fetch_add(n, Ordering::Relaxed);
    };
    let player = crate::tools::play::Player {
        pool: None,
        progress: &progress,
        cancel: &job.cancel,
        plays: crate::tools::shard::Plays::default(),
    };
    let comparison = crate::tools::paired::Comparison {
        plans: [&plan_a, &plan_b],
        sides: [&facts_a, &facts_b],
        sets: &[],
        seed,
        trials,
        target: None,
        command: format!("charioteer compare {} {}", shell_quote(&facts_a.name), shell_quote(&facts_b.name)),
    };
    let run = crate::tools::paired::compare(comparison, &player).map_err(|e| match e {
        crate::tools::play::ToolError::Interrupted { .. } => interrupted(job),
        other => ApiError::internal(&other.into()),
    })?;
    let dir = Path::new(super::REPORTS).join(format!("paired-{}", &job.id[..12]));
    let written = report::write_paired(&dir, &run).map_err(|e| failed_report(&dir, &e.into()))?;
    keep_report(job, &dir, written, &[(&facts_a.name, &texts[0]), (&facts_b.name, &texts[1])])
        .inspect_err(|_| drop(std::fs::remove_dir_all(&dir)))?;
    Ok(run.to_json())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_admitted_but_not_yet_started_does_not_fill_the_queue() {
        let jobs = Jobs::new(Limits { running: 1, queued: 1, abandon_after: Duration::from_secs(60) });
        // Admitted, its task not yet in its slot: the slot is free, so it is about to play.
        let first = jobs.start("page-1".into(), JobKind::Run, 10, false).expect("the first is admitted");
        let second = jobs.start("page-2".into(), JobKind::Run, 10, false).expect("the second may wait in line");
        // One about to play and one waiting: the queue is full now.
        let third = jobs.start("page-3".into(), JobKind::Run, 10, false).expect_err("the third is refused");
        assert_eq!(third.status, StatusCode::TOO_MANY_REQUESTS);
        assert!(third.error.contains("0 runs playing and 2 waiting"), "{}", third.error);
        // The first takes its slot: still full, and now said as one playing, one waiting.
        assert_eq!(jobs.try_begin(&first), Some(0));
        assert_eq!(jobs.try_begin(&second), None, "no slot for the second yet");
        let fourth = jobs.start("page-4".into(), JobKind::Run, 10, false).expect_err("the fourth is refused");
        assert!(fourth.error.contains("1 run playing and 1 waiting"), "{}", fourth.error);
    }
}
