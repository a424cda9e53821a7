//! `exact`: the exact distribution of every metric, with no sampling.

use super::*;
use crate::engine::MetricKind;
use crate::engine::statistics::MetricSummary;

pub(super) fn exact(file: Option<&Path>, output: &OutputOptions) -> Result<()> {
    on_system!(load_any(file)?, exact_of(output))
}

fn exact_of<S: System>(scenario: S::Scenario, output: &OutputOptions) -> Result<()> {
    S::exact(&scenario, output)
}

/// What `exact` computed, for the terminal: the written files and JSON come from each
/// system's report module.
struct Computed<M> {
    /// "exact distribution" or "exact joint distribution".
    what: &'static str,
    elapsed_s: f64,
    outcomes: usize,
    /// Every metric's exact row (categorical metrics left out).
    rows: Vec<MetricSummary<M>>,
    json: serde_json::Value,
    written: Vec<PathBuf>,
}

/// Says why there are no exact values (as JSON with `--json`).
fn unavailable(title: &str, system: &str, reason: &str, names: &[&str], output: &OutputOptions) -> Result<()> {
    if output.json {
        let value = serde_json::json!({
            "schema": report::EXACT_SCHEMA,
            "system": system,
            "title": title,
            "unavailable": reason,
            "not_computed": names,
        });
        out!("{}", serde_json::to_string_pretty(&value)?);
    } else if !output.quiet {
        out!("{title}");
        out!("{reason}");
        out!("not computed exactly: {} (use `charioteer run`)", names.join(", "));
    }
    Ok(())
}

/// Prints what `exact` computed: its JSON with `--json`, else the table and the files.
fn computed<M: MetricKind>(title: &str, c: Computed<M>, output: &OutputOptions) -> Result<()> {
    if output.json {
        out!("{}", serde_json::to_string_pretty(&c.json)?);
        return Ok(());
    }
    if output.quiet {
        return Ok(());
    }
    out!("{title}");
    out!("{} of every metric in {:.3} ms ({} distinct outcomes)", c.what, c.elapsed_s * 1e3, c.outcomes);
    out!("{:<24} {:>10} {:>10}   meaning", "metric", "mean", "sd");
    for s in &c.rows {
        let mean = if s.metric.is_flag() { format!("{:.4}%", 100.0 * s.mean) } else { format!("{:.5}", s.mean) };
        out!("{:<24} {:>10} {:>10.5}   {}", s.metric.metric_name(), mean, s.sd, s.metric.meaning());
    }
    out!("written: {}", c.written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    Ok(())
}

/// `exact` for a MESBG scenario: the joint distribution of every metric.
pub(super) fn exact_mesbg(scenario: &Scenario, output: &OutputOptions) -> Result<()> {
    let plan = plan::compile(scenario);
    let started = Instant::now();
    let result = crate::mesbg::exact::exact(&plan);
    let elapsed_s = started.elapsed().as_secs_f64();
    let distribution = match result {
        Ok(d) => d,
        Err(reason) => {
            let names: Vec<&str> = plan.metrics.iter().map(|m| m.name()).collect();
            return unavailable(&scenario.title, "mesbg", &reason.to_string(), &names, output);
        }
    };
    let dir = output.out.clone().unwrap_or_else(|| PathBuf::from("reports").join(scenario.slug()));
    let written = report::write_exact(&dir, scenario, &plan, &distribution, elapsed_s)?;
    let c = Computed {
        what: "exact distribution",
        elapsed_s,
        outcomes: distribution.outcomes.len(),
        rows: plan.metrics.iter().map(|&m| distribution.summary(m)).collect(),
        json: report::exact_json(scenario, &plan, &distribution, elapsed_s),
        written,
    };
    computed(&scenario.title, c, output)
}

/// `exact` for a BATTLESYSTEM scenario: the joint distribution of a charge's metrics.
pub(super) fn exact_battlesystem(scenario: &BattlesystemScenario, output: &OutputOptions) -> Result<()> {
    let plan = crate::battlesystem::resolve::compile(scenario);
    let started = Instant::now();
    let joint = match crate::battlesystem::exact::charge_joint(&plan) {
        Ok(joint) => joint,
        Err(reason) => {
            let names: Vec<&str> = plan.metrics.defs.iter().map(|d| d.name.as_str()).collect();
            return unavailable(&scenario.title, "battlesystem", &reason, &names, output);
        }
    };
    let elapsed_s = started.elapsed().as_secs_f64();
    let ruleset = scenario.rules.ruleset();
    let facts = crate::report::joint::JointFacts {
        system: "battlesystem",
        title: &scenario.title,
        scenario_file: &scenario.file,
        scenario_hash: scenario.hash(),
        ruleset: &ruleset,
    };
    // Categorical metrics (labelled outcomes) are their flags' business in the table.
    joint_computed(facts, &scenario.slug(), &plan.metrics, &joint, elapsed_s, |d| d.labels.is_empty(), output)
}

/// Writes and prints a joint exact distribution (BATTLESYSTEM charges, small MESBG turns):
/// its files under `--out` (or `reports/<slug>`), and the table of the metrics `shown`.
fn joint_computed(
    facts: crate::report::joint::JointFacts,
    slug: &str,
    metrics: &crate::engine::MetricSet,
    joint: &crate::engine::statistics::JointDistribution,
    elapsed_s: f64,
    shown: impl Fn(&crate::engine::MetricDef) -> bool,
    output: &OutputOptions,
) -> Result<()> {
    let dir = output.out.clone().unwrap_or_else(|| PathBuf::from("reports").join(slug));
    let written = crate::report::joint::write_joint_exact(&dir, facts, metrics, joint, elapsed_s)?;
    let rows = crate::report::joint::joint_summaries(metrics, joint)
        .into_iter()
        .zip(&metrics.defs)
        .filter(|(_, d)| shown(d))
        .map(|(s, d)| MetricSummary {
            metric: d.clone(),
            mean: s.mean,
            sd: s.sd,
            se: s.se,
            ci95_lo: s.ci95_lo,
            ci95_hi: s.ci95_hi,
        })
        .collect();
    let c = Computed {
        what: "exact joint distribution",
        elapsed_s,
        outcomes: joint.outcomes.len(),
        rows,
        json: crate::report::joint::joint_json(facts, metrics, joint, elapsed_s),
        written,
    };
    computed(facts.title, c, output)
}

/// `exact` for a turn of several chariots: the joint distribution of every metric where
/// the turn is small enough for the exact engine, else the reason it is not.
pub(super) fn exact_turn(scenario: &Scenario, output: &OutputOptions) -> Result<()> {
    let plan = crate::mesbg::turn::compile(scenario).map_err(|e| anyhow::anyhow!("{}: {e}", scenario.file))?;
    let started = Instant::now();
    let result = crate::mesbg::turn::exact_turn(&plan);
    let elapsed_s = started.elapsed().as_secs_f64();
    let exact = match result {
        Ok(exact) => exact,
        Err(reason) => {
            let names: Vec<&str> = plan.metrics.defs.iter().map(|d| d.name.as_str()).collect();
            return unavailable(&scenario.title, "mesbg", &reason.to_string(), &names, output);
        }
    };
    let ruleset = crate::report::turn::turn_ruleset(scenario, &plan);
    let facts = crate::report::joint::JointFacts {
        system: "mesbg",
        title: &scenario.title,
        scenario_file: &scenario.file,
        scenario_hash: scenario.hash(),
        ruleset: &ruleset,
    };
    joint_computed(facts, &scenario.slug(), &plan.metrics, &exact.joint, elapsed_s, |_| true, output)
}
