//! Writing a run's results: `summary.csv`, `distribution.csv` and `run.json`, each written
//! to a temporary file and renamed into place, so a reader never sees half a file.

use crate::analysis::{self, DistributionRow, MetricSummary, SplitCell};
use crate::plan::Plan;
use crate::scenario::{MesbgRules, Scenario};
use crate::tally::Tally;
use polars::prelude::{CsvWriter, DataFrame, SerWriter};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The version of the `run.json` layout; bumped on any incompatible change.
pub const RUN_SCHEMA: &str = "charioteer.run/1";

/// Why results could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file or folder could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A frame could not be built or serialised.
    #[error("cannot build the {what} table: {source}")]
    Frame {
        /// Which table.
        what: &'static str,
        /// The underlying error.
        source: polars::error::PolarsError,
    },
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, flushed, then renamed.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), ReportError> {
    let io = |source| ReportError::Io { path: path.to_path_buf(), source };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        write(&mut file)?;
        file.flush()?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

fn write_frame(path: &Path, frame: &mut DataFrame, what: &'static str) -> Result<(), ReportError> {
    let mut polars_error = None;
    let result = write_atomic(path, |file| {
        CsvWriter::new(file).finish(frame).map_err(|e| {
            let io = std::io::Error::other(e.to_string());
            polars_error = Some(e);
            io
        })
    });
    match polars_error {
        Some(source) => Err(ReportError::Frame { what, source }),
        None => result,
    }
}

/// Everything known about a finished run: the stamp, the statistics, and the options.
#[derive(Clone, Debug)]
pub struct RunRecord {
    /// The scenario's title.
    pub title: String,
    /// Its question, if given.
    pub question: Option<String>,
    /// The scenario file.
    pub scenario_file: String,
    /// The scenario hash (stream key).
    pub scenario_hash: u64,
    /// Seed used.
    pub seed: u64,
    /// Trials played.
    pub trials: u64,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock seconds of the trials.
    pub elapsed_s: f64,
    /// Ruleset options in force.
    pub rules: MesbgRules,
    /// Headline statistics per metric.
    pub summary: Vec<MetricSummary>,
    /// Distribution rows per metric.
    pub distribution: Vec<DistributionRow>,
    /// The joint distribution of chariot and Hero Wounds lost (when a Hero rides).
    pub wound_split: Option<Vec<SplitCell>>,
    /// Facts of the compiled path.
    pub plan: PlanFacts,
    /// The command that reproduces the run.
    pub command: String,
}

/// What the compiled path looks like, for reports.
#[derive(Clone, Debug, Serialize)]
pub struct PlanFacts {
    /// Models on the full path.
    pub models_on_path: usize,
    /// Contact distances (inches) with the number of models touched at each.
    pub contacts: Vec<(f64, usize)>,
    /// Models pushed aside by pivots.
    pub models_pushed: usize,
    /// Formations on the path.
    pub formations_on_path: Vec<String>,
    /// Whether driving the full Move carries the chariot through them all.
    pub breakthrough_possible: bool,
    /// The pivot made at each chance (degrees, clockwise), as chosen by the path policy.
    pub pivots: Vec<f64>,
    /// Distance driven on the full path, inches.
    pub path_length: f64,
    /// The obstacle the path ends at, if any (it takes 3 hits at Strength 6).
    pub obstacle: Option<String>,
}

impl PlanFacts {
    /// Facts of a plan.
    pub fn of(plan: &Plan) -> Self {
        Self {
            models_on_path: plan.models_on_path(),
            contacts: plan.groups.iter().map(|g| (g.distance, g.models.len())).collect(),
            models_pushed: plan.pushes.len(),
            formations_on_path: plan.formations_on_path.clone(),
            breakthrough_possible: plan.breakthrough_possible,
            pivots: plan.pivots.clone(),
            path_length: plan.path_length,
            obstacle: plan.obstacle.as_ref().map(|o| o.name.clone()),
        }
    }
}

impl RunRecord {
    /// Builds the record of a finished run.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        scenario: &Scenario,
        plan: &Plan,
        tally: &Tally,
        seed: u64,
        threads: usize,
        elapsed_s: f64,
        command: String,
    ) -> Self {
        Self {
            title: scenario.title.clone(),
            question: scenario.question.clone(),
            scenario_file: scenario.file.clone(),
            scenario_hash: scenario.hash(),
            seed,
            trials: tally.trials,
            threads,
            elapsed_s,
            rules: scenario.rules.clone(),
            summary: analysis::summarize(tally, &plan.metrics),
            distribution: analysis::distributions(tally, &plan.metrics),
            wound_split: plan.chariot.hero.map(|_| analysis::wound_split(tally)),
            plan: PlanFacts::of(plan),
            command,
        }
    }

    /// Trials per second of wall-clock time.
    pub fn trials_per_second(&self) -> f64 {
        if self.elapsed_s > 0.0 { self.trials as f64 / self.elapsed_s } else { 0.0 }
    }

    /// The run as one JSON object (the `run.json` file and `--json` output).
    pub fn to_json(&self) -> Value {
        let mut metrics = Map::new();
        for s in &self.summary {
            metrics.insert(s.metric.name().to_string(), serde_json::to_value(s).unwrap_or(Value::Null));
        }
        let mut distributions = Map::new();
        for m in self.summary.iter().map(|s| s.metric) {
            let rows: Vec<Value> = self
                .distribution
                .iter()
                .filter(|r| r.metric == m)
                .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
                .collect();
            distributions.insert(m.name().to_string(), Value::Array(rows));
        }
        json!({
            "schema": RUN_SCHEMA,
            "version": env!("CARGO_PKG_VERSION"),
            "title": self.title,
            "question": self.question,
            "scenario_file": self.scenario_file,
            "scenario_hash": format!("{:016x}", self.scenario_hash),
            "seed": self.seed,
            "trials": self.trials,
            "threads": self.threads,
            "elapsed_s": self.elapsed_s,
            "trials_per_second": self.trials_per_second(),
            "ruleset": self.rules,
            "plan": self.plan,
            "command": self.command,
            "metrics": metrics,
            "distributions": distributions,
            "wound_split": self.wound_split,
        })
    }
}

/// Writes the report folder of a run: `summary.csv`, `distribution.csv`, `run.json`.
/// Returns the files written.
pub fn write_report(dir: &Path, record: &RunRecord) -> Result<Vec<PathBuf>, ReportError> {
    std::fs::create_dir_all(dir).map_err(|source| ReportError::Io { path: dir.to_path_buf(), source })?;
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let mut summary = analysis::summary_frame(&record.summary).map_err(frame_error("summary"))?;
    let mut distribution = analysis::distribution_frame(&record.distribution).map_err(frame_error("distribution"))?;
    let files = [dir.join("summary.csv"), dir.join("distribution.csv"), dir.join("run.json")];
    write_frame(&files[0], &mut summary, "summary")?;
    write_frame(&files[1], &mut distribution, "distribution")?;
    let text = serde_json::to_string_pretty(&record.to_json()).unwrap_or_default();
    write_atomic(&files[2], |f| f.write_all(text.as_bytes()))?;
    let mut files = files.to_vec();
    if let Some(split) = &record.wound_split {
        let mut frame = analysis::wound_split_frame(split).map_err(frame_error("wound split"))?;
        let path = dir.join("wound_split.csv");
        write_frame(&path, &mut frame, "wound split")?;
        files.push(path);
    }
    Ok(files)
}
