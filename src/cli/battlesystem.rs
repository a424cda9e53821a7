//! `run`, `validate` and `replay` for BATTLESYSTEM scenarios.

use super::{RunArgs, shell_quote};
use crate::battlesystem::resolve::{self as battlesystem_resolve, BattlesystemEvent, BattlesystemPlan};
use crate::battlesystem::rules::MoraleResult;
use crate::battlesystem::scenario::{Action, BattlesystemScenario};
use crate::mesbg::resolve::Streams;
use crate::report::battlesystem::{self as battlesystem_report, BattlesystemRecord};
use crate::report::document::group_digits;
use anyhow::Result;
use std::path::Path;

/// One line saying what a valid BATTLESYSTEM scenario holds.
pub(super) fn describe(scenario: &BattlesystemScenario) -> String {
    let figures: u32 = scenario.units.iter().map(|u| u.figures).sum();
    let action = match scenario.action {
        Action::Charge { unit, target, volleys, gap } => format!(
            "\"{}\" charges \"{}\" {gap:.1}\" away, {volleys} volley{}",
            scenario.units[unit].name,
            scenario.units[target].name,
            if volleys == 1 { "" } else { "s" }
        ),
        Action::Rout { unit, .. } => {
            format!("\"{}\" routs up to {}\"", scenario.units[unit].name, scenario.rout_distance(unit))
        }
    };
    format!("ok (BATTLESYSTEM, {} units, {figures} figures; {action})", scenario.units.len())
}

/// Writes a BATTLESYSTEM run's report and says what was written.
pub(super) fn finish(record: &BattlesystemRecord, file: Option<&Path>, out: &Path, args: &RunArgs) -> Result<()> {
    let replaced = super::holds_report(out);
    let written = battlesystem_report::write_report(out, record)?;
    let file_arg = file.map(|f| format!(" {}", shell_quote(&f.display().to_string()))).unwrap_or_default();
    for a in record.disagreements() {
        eprintln!(
            "WARNING: {} disagrees with its exact value {:.6} (z = {:+.1}): a rule or the engine is wrong. \
             Inspect trials with `charioteer replay{file_arg} --seed {} --trial 0`.",
            a.metric, a.exact, a.z, record.seed
        );
    }
    if args.play.json {
        out!("{}", serde_json::to_string(&record.to_json())?);
    } else if !args.play.quiet {
        print_table(record);
        out!("{}", super::report_line("report", out, written.len(), replaced));
        if let Some(path) = &args.trials_out {
            out!("per-trial rows: {}", path.display());
        }
    }
    Ok(())
}

fn print_table(record: &BattlesystemRecord) {
    out!("{}", record.scenario.title);
    out!(
        "{} trials in {:.2} s ({:.2} M trials/s on {}), seed {}, scenario {:016x}",
        group_digits(record.trials),
        record.elapsed_s,
        record.trials_per_second() / 1e6,
        crate::report::document::played_on(record.threads),
        record.seed,
        record.scenario.hash()
    );
    out!("ruleset: {}", super::ruleset_line(&record.scenario.rules.ruleset()));
    if let Some(p) = &record.precision {
        out!("{}", super::precision_line(p, record.trials));
    }
    let rows: Vec<super::TableRow> = record
        .summary
        .iter()
        .zip(&record.metrics.defs)
        .map(|(s, d)| {
            // A categorical metric: the named outcomes are the flags printed below it.
            let categorical = !d.labels.is_empty();
            super::TableRow {
                name: &s.metric,
                flag: d.flag,
                estimate: (!categorical).then_some((s.mean, s.ci95_lo, s.ci95_hi)),
                exact: None, // printed below the table, one line each
                meaning: if categorical {
                    format!("{} ({})", d.description, d.labels.join(" / "))
                } else {
                    d.description.clone()
                },
            }
        })
        .collect();
    super::print_metric_table(&rows, 34, 24, false);
    match &record.exact {
        Ok(rows) => {
            for a in rows {
                out!("exact: {} = {:.4} (estimate z = {:+.2})", a.metric, a.exact, a.z);
            }
        }
        Err(reason) => out!("(no exact values: {reason})"),
    }
}

/// Replays one trial of a BATTLESYSTEM scenario.
pub(super) fn replay(
    scenario: &BattlesystemScenario,
    trial: u64,
    seed: Option<u64>,
    output: &super::OutputOptions,
) -> Result<()> {
    let seed = seed.unwrap_or(scenario.seed);
    let plan = battlesystem_resolve::compile(scenario);
    let streams = Streams::new(seed, scenario.hash());
    let (values, events) = battlesystem_resolve::replay(&plan, streams, trial);
    let metrics: serde_json::Map<String, serde_json::Value> =
        plan.metrics.defs.iter().zip(&values).map(|(d, v)| (d.name.clone(), (*v).into())).collect();
    let value = serde_json::json!({
        "schema": super::replay::REPLAY_SCHEMA,
        "system": "battlesystem",
        "title": scenario.title,
        "trial": trial,
        "seed": seed,
        "events": events,
        "metrics": metrics,
    });
    if !super::replay::finish_replay(&value, trial, output)? {
        return Ok(());
    }
    out!("{} - trial {trial}, seed {seed}", scenario.title);
    for event in &events {
        out!("  {}", describe_event(&plan, event));
    }
    for (d, v) in plan.metrics.defs.iter().zip(&values) {
        out!("  {:<34} {}", d.name, v);
    }
    Ok(())
}

fn describe_event(plan: &BattlesystemPlan, event: &BattlesystemEvent) -> String {
    let name = |i: usize| plan.scenario.units.get(i).map_or("?", |u| u.name.as_str());
    match event {
        BattlesystemEvent::Volley { range, dice, hits, removed } => {
            format!("volley at {range:.1}\": {dice} dice, {hits} hits through armour, {removed} figures removed")
        }
        BattlesystemEvent::Melee {
            attacker,
            defender,
            attacker_figures,
            defender_figures,
            hits_on_defender,
            hits_on_attacker,
            defender_lost,
            attacker_lost,
        } => format!(
            "melee: {} ({attacker_figures} in contact) vs {} ({defender_figures} in contact): {hits_on_defender} hits on {} \
             ({defender_lost} figures removed), {hits_on_attacker} hits on {} ({attacker_lost} removed)",
            name(*attacker),
            name(*defender),
            name(*defender),
            name(*attacker)
        ),
        BattlesystemEvent::Morale { unit, roll, result } => format!(
            "morale: {} rolls {roll} on 2d10 against ML {}: {}",
            name(*unit),
            plan.scenario.units[*unit].stats.ml,
            match result {
                MoraleResult::Held => "held",
                MoraleResult::FellBack => "falls back",
                MoraleResult::Routed => "routs",
            }
        ),
        BattlesystemEvent::Heading { hour, reroll } => {
            format!("{} d12: {hour} o'clock", if *reroll { "new direction," } else { "rout direction," })
        }
        BattlesystemEvent::Move { heading, veer, distance, to } => format!(
            "moves {distance:.2}\" at {heading:.0} degrees{} to ({:.2}, {:.2})",
            if *veer != 0.0 { format!(" (veering {veer:+.0})") } else { String::new() },
            to[0],
            to[1]
        ),
        BattlesystemEvent::Contact { unit, .. } => format!("contacts {}", name(*unit)),
        BattlesystemEvent::Displaced { unit, distance, off_board, still_blocking, .. } => format!(
            "{} pushed back {distance:.2}\"{}{}",
            name(*unit),
            if *off_board { ", off the board (lost)" } else { "" },
            if *still_blocking { ", still in the way" } else { ", path clear" }
        ),
        BattlesystemEvent::LeftBoard => "leaves the board (lost)".to_string(),
        BattlesystemEvent::Stopped => "stops: still blocked and no re-rolls left".to_string(),
        BattlesystemEvent::Finished { blocks } => format!(
            "ends with {}",
            blocks
                .iter()
                .enumerate()
                .map(|(i, b)| match b {
                    Some(b) => format!("{} at ({:.1}, {:.1})", name(i), b.centre.x, b.centre.y),
                    None => format!("{} gone", name(i)),
                })
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
