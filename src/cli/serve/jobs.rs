//! The server's runs and comparisons: started by a request, played on the worker pool,
//! polled for progress, cancellable, and each written to a report folder of its own under
//! [`REPORTS`](super::REPORTS) (the oldest finished ones are forgotten and their
//! folders removed, so a long-lived server does not fill the disk).

use super::super::run::Played;
use super::super::system::System;
use super::super::*;
use super::{ApiError, Server};
use axum::http::StatusCode;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

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
    Running,
    Done(Value),
    Failed(String),
    Cancelled(String),
}

/// One run or comparison.
#[derive(Debug)]
pub(super) struct Job {
    /// Its id in URLs.
    pub id: u64,
    /// Who started it (one running job per client).
    pub client: String,
    /// What it plays.
    pub kind: JobKind,
    /// Trials asked for.
    pub trials: u64,
    /// Trials played so far.
    pub done: AtomicU64,
    /// Set to stop it at its next block of trials.
    pub cancel: AtomicBool,
    started: Instant,
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
    /// Whether it is still playing.
    fn running(&self) -> bool {
        matches!(*lock(&self.outcome), Outcome::Running)
    }

    /// Its state as the API answers it: progress, then the result or why there is none.
    pub fn status(&self) -> Value {
        let outcome = lock(&self.outcome).clone();
        let (state, result, error) = match outcome {
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
        json!({
            "id": self.id.to_string(),
            "kind": match self.kind { JobKind::Run => "run", JobKind::Compare => "compare" },
            "state": state,
            "trials": self.trials,
            "done": self.done.load(Ordering::Relaxed).min(self.trials),
            "elapsed_s": self.started.elapsed().as_secs_f64(),
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
}

/// Every job the server knows.
#[derive(Default)]
pub(super) struct Jobs {
    by_id: Mutex<BTreeMap<u64, Arc<Job>>>,
    next: AtomicU64,
}

impl Jobs {
    /// Registers a new running job for `client`, refusing a second one while its first runs.
    pub fn start(&self, client: String, kind: JobKind, trials: u64) -> Result<Arc<Job>, ApiError> {
        let mut jobs = lock(&self.by_id);
        if let Some(busy) = jobs.values().find(|j| j.client == client && j.running()) {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                format!(
                    "a run of yours is still playing (job {}, {} of {} trials); wait for it or cancel it \
                     (DELETE /api/jobs/{}) first: one run at a time per client",
                    busy.id,
                    group_digits(busy.done.load(Ordering::Relaxed)),
                    group_digits(busy.trials),
                    busy.id
                ),
            ));
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let job = Arc::new(Job {
            id,
            client,
            kind,
            trials,
            done: AtomicU64::new(0),
            cancel: AtomicBool::new(false),
            started: Instant::now(),
            outcome: Mutex::new(Outcome::Running),
            report: Mutex::new(None),
            metrics: Mutex::new(Value::Null),
        });
        jobs.insert(id, job.clone());
        // Forget the oldest finished jobs beyond the kept number, with their folders.
        let finished: Vec<u64> = jobs.values().filter(|j| !j.running()).map(|j| j.id).collect();
        for old in finished.iter().take(finished.len().saturating_sub(KEPT_JOBS)) {
            if let Some(job) = jobs.remove(old)
                && let Some((dir, _)) = lock(&job.report).take()
            {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
        Ok(job)
    }

    /// A job by its id in a URL.
    pub fn find(&self, id: &str) -> Result<Arc<Job>, ApiError> {
        let not_found =
            || ApiError::new(StatusCode::NOT_FOUND, format!("no job {id:?} (finished jobs are kept a while)"));
        let id: u64 = id.parse().map_err(|_| not_found())?;
        lock(&self.by_id).get(&id).cloned().ok_or_else(not_found)
    }

    /// Stops every running job (the server is shutting down).
    pub fn cancel_all(&self) {
        for job in lock(&self.by_id).values() {
            job.cancel.store(true, Ordering::Relaxed);
        }
    }
}

/// Plays `work` for `job` on the worker pool and records how it ended; the handle answers
/// the same result.
pub(super) fn spawn(
    server: Arc<Server>,
    job: Arc<Job>,
    work: impl FnOnce(&Server, &Job) -> Result<Value, ApiError> + Send + 'static,
) -> tokio::task::JoinHandle<Result<Value, ApiError>> {
    tokio::task::spawn_blocking(move || {
        let result = server.pool.install(|| work(&server, &job));
        let outcome = match &result {
            Ok(value) => Outcome::Done(value.clone()),
            Err(e) if job.cancel.load(Ordering::Relaxed) => Outcome::Cancelled(e.error.clone()),
            Err(e) => Outcome::Failed(e.error.clone()),
        };
        *lock(&job.outcome) = outcome;
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
pub(super) fn run_job(
    server: &Server,
    job: &Job,
    loaded: Loaded,
    text: &str,
    seed: u64,
    trials: u64,
) -> Result<Value, ApiError> {
    on_system!(loaded, run_of(server, job, text, seed, trials))
}

fn run_of<S: System>(
    scenario: S::Scenario,
    server: &Server,
    job: &Job,
    text: &str,
    seed: u64,
    trials: u64,
) -> Result<Value, ApiError> {
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
    let record = S::record(&scenario, &plan, played, server.pool.current_num_threads());
    let dir = Path::new(super::REPORTS).join(format!("{}-{}", facts.slug, job.id));
    let written = S::write_report(&record, &dir).map_err(|e| ApiError::internal(&e))?;
    keep_report(job, &dir, written, &[(&facts.name, text)])?;
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
    // Common random numbers: both play A's streams.
    let streams = Streams::new(seed, facts_a.hash);
    let progress = |n| {
        job.done.fetch_add(n, Ordering::Relaxed);
    };
    let range = TrialRange { first: 0, count: trials };
    let sums = crate::tools::paired::run(&plan_a, &plan_b, streams, range, &progress, &job.cancel)
        .ok_or_else(|| interrupted(job))?;
    let (titles, files) =
        ([facts_a.title.clone(), facts_b.title.clone()], [facts_a.name.clone(), facts_b.name.clone()]);
    let run = crate::tools::paired::PairedRun {
        names: crate::tools::paired::side_names(&titles, &files, &[]),
        titles,
        files,
        trials,
        seed,
        rows: crate::tools::paired::differences(&sums),
        command: format!(
            "charioteer compare {} {} --seed {seed} --trials {trials}",
            shell_quote(&facts_a.name),
            shell_quote(&facts_b.name)
        ),
        rulesets: [facts_a.ruleset, facts_b.ruleset],
        precision: None,
        only_in: crate::tools::paired::unshared_metrics(&plan_a, &plan_b),
    };
    let dir = Path::new(super::REPORTS).join(format!("paired-{}", job.id));
    let written = report::write_paired(&dir, &run).map_err(|e| ApiError::internal(&e.into()))?;
    keep_report(job, &dir, written, &[(&facts_a.name, &texts[0]), (&facts_b.name, &texts[1])])?;
    Ok(run.to_json())
}
