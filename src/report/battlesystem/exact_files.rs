//! `exact` for a BATTLESYSTEM charge: the exact joint distribution as files and JSON, in
//! the shape of MESBG's exact output, plus the joint itself (`exact_joint.csv`).

use crate::battlesystem::exact::ChargeJoint;
use crate::battlesystem::resolve::BattlesystemPlan;
use crate::engine::statistics::{self as analysis, DistributionRow, MetricSummary};
use crate::report::{Contents, EXACT_SCHEMA, FrameFormat, ReportError, ReportFile, exact_files, write_files};
use polars::prelude::*;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// Each metric's exact statistics row, in plan order (categorical metrics included: their
/// named outcomes are the flags beside them).
pub fn exact_summaries(plan: &BattlesystemPlan, joint: &ChargeJoint) -> Vec<MetricSummary<String>> {
    plan.metrics
        .defs
        .iter()
        .enumerate()
        .map(|(m, d)| analysis::exact_summary(&joint.marginal(m), d.name.clone()))
        .collect()
}

/// The `exact --json` object (and `exact.json`).
pub fn exact_json(plan: &BattlesystemPlan, joint: &ChargeJoint, elapsed_s: f64) -> Value {
    let sc = &plan.scenario;
    let mut metrics = Map::new();
    let mut distributions = Map::new();
    for (m, d) in plan.metrics.defs.iter().enumerate() {
        let pmf = joint.marginal(m);
        let s = analysis::exact_summary(&pmf, ());
        metrics.insert(
            d.name.clone(),
            json!({ "mean": s.mean, "sd": s.sd, "flag": d.flag, "description": d.description }),
        );
        let rows: Vec<Value> = analysis::exact_rows(&pmf, &())
            .iter()
            .map(|r| json!({ "value": r.value, "label": plan.metrics.value_label(m, r.value), "p": r.p, "p_at_least": r.p_at_least }))
            .collect();
        distributions.insert(d.name.clone(), Value::Array(rows));
    }
    json!({
        "schema": EXACT_SCHEMA,
        "system": "battlesystem",
        "version": env!("CARGO_PKG_VERSION"),
        "title": sc.title,
        "scenario_file": sc.file,
        "scenario_hash": format!("{:016x}", sc.hash()),
        "elapsed_s": elapsed_s,
        "ruleset": crate::report::ruleset_json(&sc.rules.ruleset()),
        "outcomes": joint.outcomes.len(),
        "metrics": metrics,
        "distributions": distributions,
    })
}

/// Writes `exact_summary.csv`, `exact_distribution.csv`, `exact_joint.csv` (one row per
/// distinct outcome: every metric's value and its probability) and `exact.json` into `dir`.
pub fn write_exact(
    dir: &Path,
    plan: &BattlesystemPlan,
    joint: &ChargeJoint,
    elapsed_s: f64,
) -> Result<Vec<PathBuf>, ReportError> {
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let summary = exact_summaries(plan, joint);
    let rows: Vec<DistributionRow<String>> = plan
        .metrics
        .defs
        .iter()
        .enumerate()
        .flat_map(|(m, d)| analysis::exact_rows(&joint.marginal(m), &d.name))
        .collect();
    let mut columns: Vec<Column> = plan
        .metrics
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
    let mut files = exact_files(&summary, &rows, &exact_json(plan, joint, elapsed_s))?;
    files.push(ReportFile {
        name: "exact_joint.csv".into(),
        contents: Contents::Frame(joint_frame, "exact joint", FrameFormat::Csv),
    });
    write_files(dir, files)
}
