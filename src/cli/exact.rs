//! `exact`: the exact distribution of every metric, with no sampling.

use super::*;

pub(super) fn exact(file: Option<&Path>, output: &OutputOptions) -> Result<()> {
    on_system!(load_any(file)?, exact_of(output))
}

fn exact_of<S: System>(scenario: S::Scenario, output: &OutputOptions) -> Result<()> {
    S::exact(&scenario, output)
}

/// `exact` for a MESBG scenario: the joint distribution of every metric.
pub(super) fn exact_mesbg(scenario: &Scenario, output: &OutputOptions) -> Result<()> {
    let (out, json, quiet) = (output.out.clone(), output.json, output.quiet);
    let plan = plan::compile(scenario);
    let started = Instant::now();
    let result = crate::mesbg::exact::exact(&plan);
    let elapsed = started.elapsed().as_secs_f64();
    let dir = out.unwrap_or_else(|| PathBuf::from("reports").join(scenario.slug()));
    let distribution = match result {
        Ok(d) => d,
        Err(reason) => {
            let names: Vec<&str> = plan.metrics.iter().map(|m| m.name()).collect();
            if json {
                let value = serde_json::json!({
                    "schema": report::EXACT_SCHEMA,
                    "title": scenario.title,
                    "unavailable": reason.to_string(),
                    "not_computed": names,
                });
                out!("{}", serde_json::to_string_pretty(&value)?);
            } else if !quiet {
                out!("{}", scenario.title);
                out!("{reason}");
                out!("not computed exactly: {} (use `charioteer run`)", names.join(", "));
            }
            return Ok(());
        }
    };
    let written = report::write_exact(&dir, scenario, &plan, &distribution, elapsed)?;
    if json {
        out!("{}", serde_json::to_string_pretty(&report::exact_json(scenario, &plan, &distribution, elapsed))?);
        return Ok(());
    }
    if quiet {
        return Ok(());
    }
    out!("{}", scenario.title);
    out!(
        "exact distribution of every metric in {:.3} ms ({} distinct outcomes)",
        elapsed * 1e3,
        distribution.outcomes.len()
    );
    out!("{:<22} {:>10} {:>10}   meaning", "metric", "mean", "sd");
    for &m in &plan.metrics {
        let s = distribution.summary(m);
        let mean = if m.is_flag() { format!("{:.4}%", 100.0 * s.mean) } else { format!("{:.5}", s.mean) };
        out!("{:<22} {:>10} {:>10.5}   {}", m.name(), mean, s.sd, m.describe());
    }
    out!("written: {}", written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    Ok(())
}

/// `exact` for a BATTLESYSTEM scenario: the joint distribution of a charge's metrics.
pub(super) fn exact_battlesystem(scenario: &BattleScenario, output: &OutputOptions) -> Result<()> {
    let (out, json, quiet) = (output.out.clone(), output.json, output.quiet);
    let plan = crate::battlesystem::resolve::compile(scenario);
    let started = Instant::now();
    let joint = match crate::battlesystem::exact::charge_joint(&plan) {
        Ok(joint) => joint,
        Err(reason) => {
            let names: Vec<&str> = plan.metrics.defs.iter().map(|d| d.name.as_str()).collect();
            if json {
                let value = serde_json::json!({
                    "schema": report::EXACT_SCHEMA,
                    "system": "battlesystem",
                    "title": scenario.title,
                    "unavailable": reason,
                    "not_computed": names,
                });
                out!("{}", serde_json::to_string_pretty(&value)?);
            } else if !quiet {
                out!("{}", scenario.title);
                out!("{reason}");
                out!("not computed exactly: {} (use `charioteer run`)", names.join(", "));
            }
            return Ok(());
        }
    };
    let elapsed = started.elapsed().as_secs_f64();
    let dir = out.unwrap_or_else(|| PathBuf::from("reports").join(scenario.slug()));
    let written = crate::report::battlesystem::write_exact(&dir, &plan, &joint, elapsed)?;
    if json {
        out!("{}", serde_json::to_string_pretty(&crate::report::battlesystem::exact_json(&plan, &joint, elapsed))?);
        return Ok(());
    }
    if quiet {
        return Ok(());
    }
    out!("{}", scenario.title);
    out!(
        "exact joint distribution of every metric in {:.3} ms ({} distinct outcomes)",
        elapsed * 1e3,
        joint.outcomes.len()
    );
    out!("{:<24} {:>10} {:>10}   meaning", "metric", "mean", "sd");
    for (s, d) in crate::report::battlesystem::exact_summaries(&plan, &joint).iter().zip(&plan.metrics.defs) {
        if !d.labels.is_empty() {
            continue;
        }
        let mean = if d.flag { format!("{:.4}%", 100.0 * s.mean) } else { format!("{:.5}", s.mean) };
        out!("{:<24} {:>10} {:>10.5}   {}", d.name, mean, s.sd, d.description);
    }
    out!("written: {}", written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    Ok(())
}
