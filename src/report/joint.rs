//! `exact` for a system whose exact engine gives a joint distribution of its metrics (a
//! BATTLESYSTEM charge, a small MESBG turn): the distribution as files and JSON, in the
//! shape of a MESBG charge's exact output, plus the joint itself (`exact_joint.csv`).

use crate::engine::MetricSet;
use crate::engine::statistics::{self as analysis, DistributionRow, JointDistribution, MetricSummary};
use crate::input::RuleOption;
use crate::report::{Contents, EXACT_SCHEMA, FrameFormat, ReportError, ReportFile, exact_files, write_files};
use polars::prelude::*;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// What an exact file says about the scenario it was computed for.
#[derive(Clone, Copy, Debug)]
pub struct JointFacts<'a> {
    /// `"battlesystem"` or `"mesbg"`.
    pub system: &'a str,
    /// The scenario's title.
    pub title: &'a str,
    /// The scenario file as given.
    pub scenario_file: &'a str,
    /// The scenario's hash.
    pub scenario_hash: u64,
    /// Every rule option and player's choice in force.
    pub ruleset: &'a [RuleOption],
}

/// Each metric's exact statistics row, in plan order (categorical metrics included: their
/// named outcomes are the flags beside them).
pub fn joint_summaries(metrics: &MetricSet, joint: &JointDistribution) -> Vec<MetricSummary<String>> {
    metrics.defs.iter().enumerate().map(|(m, d)| analysis::exact_summary(&joint.marginal(m), d.name.clone())).collect()
}

/// The `exact --json` object (and `exact.json`).
pub fn joint_json(facts: JointFacts, metrics: &MetricSet, joint: &JointDistribution, elapsed_s: f64) -> Value {
    let mut by_name = Map::new();
    let mut distributions = Map::new();
    for (m, d) in metrics.defs.iter().enumerate() {
        let pmf = joint.marginal(m);
        let s = analysis::exact_summary(&pmf, ());
        by_name.insert(
            d.name.clone(),
            json!({ "mean": s.mean, "sd": s.sd, "flag": d.flag, "description": d.description }),
        );
        let rows: Vec<Value> = analysis::exact_rows(&pmf, &())
            .iter()
            .map(|r| json!({ "value": r.value, "label": metrics.value_label(m, r.value), "p": r.p, "p_at_least": r.p_at_least }))
            .collect();
        distributions.insert(d.name.clone(), Value::Array(rows));
    }
    json!({
        "schema": EXACT_SCHEMA,
        "system": facts.system,
        "version": env!("CARGO_PKG_VERSION"),
        "title": facts.title,
        "scenario_file": facts.scenario_file,
        "scenario_hash": format!("{:016x}", facts.scenario_hash),
        "elapsed_s": elapsed_s,
        "ruleset": crate::report::ruleset_json(facts.ruleset),
        "outcomes": joint.outcomes.len(),
        "metrics": by_name,
        "distributions": distributions,
    })
}

/// Writes `exact_summary.csv`, `exact_distribution.csv`, `exact_joint.csv` (one row per
/// distinct outcome: every metric's value and its probability) and `exact.json` into `dir`.
pub fn write_joint_exact(
    dir: &Path,
    facts: JointFacts,
    metrics: &MetricSet,
    joint: &JointDistribution,
    elapsed_s: f64,
) -> Result<Vec<PathBuf>, ReportError> {
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let summary = joint_summaries(metrics, joint);
    let rows: Vec<DistributionRow<String>> =
        metrics.defs.iter().enumerate().flat_map(|(m, d)| analysis::exact_rows(&joint.marginal(m), &d.name)).collect();
    let mut columns: Vec<Column> = metrics
        .defs
        .iter()
        .enumerate()
        .map(|(m, d)| {
            Column::new(
                d.name.as_str().into(),
                joint.outcomes.iter().map(|(v, _)| u32::from(v[m])).collect::<Vec<u32>>(),
            )
        })
        .collect();
    columns.push(Column::new("p".into(), joint.outcomes.iter().map(|(_, p)| *p).collect::<Vec<f64>>()));
    let joint_frame = DataFrame::new(joint.outcomes.len(), columns).map_err(frame_error("exact joint"))?;
    let mut files = exact_files(&summary, &rows, &joint_json(facts, metrics, joint, elapsed_s))?;
    files.push(ReportFile {
        name: "exact_joint.csv".into(),
        contents: Contents::Frame(joint_frame, "exact joint", FrameFormat::Csv),
    });
    write_files(dir, files)
}
