//! A turn of several chariots (`[[chariots]]`) at the command line: the third [`System`],
//! sharing every tool the trait gives (runs, `--target-ci`, per-trial rows, shards,
//! comparisons, sweeps) and adding its own record, report, replay and board.

use super::*;
use crate::mesbg::turn::TurnPlan;
use crate::report::ComparedRun;
use crate::report::turn::TurnRecord;
pub(super) use crate::tools::system::Turn;

impl System for Turn {
    type Record = TurnRecord;

    fn record(
        s: &Scenario,
        plan: &TurnPlan,
        played: run::Played<crate::mesbg::turn::TurnTally>,
        threads: usize,
    ) -> TurnRecord {
        let mut record = TurnRecord::new(plan, &played.tally, (played.seed, threads, played.elapsed_s), played.command);
        let exact = if played.exact {
            crate::mesbg::turn::exact_turn(plan)
        } else {
            Err(crate::mesbg::turn::NotExactTurn::Skipped)
        };
        record.with_exact(exact.as_ref().map_err(ToString::to_string));
        record.precision = played.precision;
        let board_trials = crate::mesbg::board::board_trials(played.tally.trials);
        record.board = Some(crate::mesbg::board::turn_picture(plan, played.seed, board_trials));
        record.warnings = Self::warnings(s, plan);
        record
    }
    fn compared(r: &TurnRecord) -> ComparedRun {
        use crate::engine::MetricKind;
        ComparedRun {
            title: r.scenario.title.clone(),
            scenario_file: r.scenario_file.clone(),
            trials: r.trials,
            seed: r.seed,
            command: r.command.clone(),
            ruleset: r.ruleset.clone(),
            summary: r.summary.iter().zip(&r.metrics.defs).map(|(s, d)| crate::report::with_def(s, d.def())).collect(),
            trial_word: "turn",
        }
    }
    fn write_report(record: &TurnRecord, out: &Path) -> Result<Vec<PathBuf>> {
        Ok(crate::report::turn::write_report(out, record)?)
    }
    fn json(record: &TurnRecord) -> serde_json::Value {
        record.to_json()
    }
    fn finish(record: &TurnRecord, _file: Option<&Path>, out: &Path, args: &RunArgs) -> Result<()> {
        let replaced = holds_report(out);
        let written = crate::report::turn::write_report(out, record)?;
        if args.play.json {
            out!("{}", serde_json::to_string(&record.to_json())?);
        } else if !args.play.quiet {
            out!("{}", record.scenario.title);
            out!(
                "{} turns in {:.2} s ({:.2} M turns/s on {}), seed {}, scenario {:016x}",
                group_digits(record.trials),
                record.elapsed_s,
                record.trials_per_second() / 1e6,
                crate::report::document::played_on(record.threads),
                record.seed,
                record.scenario.hash()
            );
            out!("order: {}", record.order.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "));
            out!("ruleset: {}", ruleset_line(&record.ruleset));
            if let Some(p) = &record.precision {
                out!("{}", precision_line(p, record.trials));
            }
            let exact = record.exact.as_ref().ok();
            let rows: Vec<TableRow> = record
                .summary
                .iter()
                .zip(&record.metrics.defs)
                .enumerate()
                .map(|(i, (s, d))| TableRow {
                    name: &s.metric,
                    flag: d.flag,
                    estimate: Some((s.mean, s.ci95_lo, s.ci95_hi)),
                    exact: exact.and_then(|e| e.get(i)).map(|e| (e.exact, e.z)),
                    meaning: d.description.clone(),
                })
                .collect();
            print_metric_table(&rows, 26, 24, exact.is_some());
            match (&record.exact, record.worst_z()) {
                (Ok(_), Some(z)) if z > crate::mesbg::exact::DISAGREEMENT_Z => {
                    out!("warning: an estimate is {z:.1} standard errors from its exact value")
                }
                (Ok(_), _) => {
                    out!("exact: computed for this small turn (largest |z| {:.2})", record.worst_z().unwrap_or(0.0))
                }
                (Err(reason), _) => out!("exact: none ({reason})"),
            }
            out!("{}", report_line("report", out, written.len(), replaced));
            if let Some(path) = &args.trials_out {
                out!("per-trial rows: {}", path.display());
            }
        }
        Ok(())
    }
    fn exact(s: &Scenario, output: &OutputOptions) -> Result<()> {
        super::exact::exact_turn(s, output)
    }
    fn replay(s: &Scenario, trial: u64, seed: Option<u64>, output: &OutputOptions) -> Result<()> {
        let seed = seed.unwrap_or(s.seed);
        let plan = Self::compile(s);
        let streams = Streams::new(seed, s.hash());
        let (values, events) = crate::mesbg::turn::replay_turn(&plan, streams, trial);
        let metrics: serde_json::Map<String, serde_json::Value> =
            plan.metrics.defs.iter().zip(&values).map(|(d, v)| (d.name.clone(), (*v).into())).collect();
        let value = serde_json::json!({
            "schema": replay::REPLAY_SCHEMA,
            "system": "mesbg",
            "title": s.title,
            "trial": trial,
            "seed": seed,
            "events": events,
            "metrics": metrics,
        });
        if !replay::finish_replay(&value, trial, output)? {
            return Ok(());
        }
        out!("{} - turn {trial}, seed {seed}", s.title);
        let labels = &plan.plans[0];
        for event in &events {
            out!("  {}", replay::describe_event(labels, event));
        }
        for (d, v) in plan.metrics.defs.iter().zip(&values) {
            out!("  {:<26} {}", d.name, v);
        }
        Ok(())
    }
    fn describe(s: &Scenario, plan: &TurnPlan) -> (String, Vec<String>) {
        let summary = format!(
            "ok (a turn of {} chariots, {}, {} boards planned)",
            s.more.len() + 1,
            crate::report::document::counted(plan.models as u64, "model"),
            plan.nodes.len() + plan.finals.len()
        );
        let mut details = Vec::new();
        details
            .push(format!("order: {}", plan.order.iter().map(|c| (c + 1).to_string()).collect::<Vec<_>>().join(", ")));
        for (k, (order, v)) in plan.orders_tried.iter().enumerate() {
            details.push(format!(
                "order tried {}: [{}] -> {:.4}{}",
                k + 1,
                order.iter().map(|c| (c + 1).to_string()).collect::<Vec<_>>().join(", "),
                v,
                if plan.orders_by_exact { " (exact)" } else { " (mean on common random numbers)" }
            ));
        }
        for (depth, &c) in plan.order.iter().enumerate() {
            if let Some(first) = plan.nodes.iter().find(|n| n.chariot == c) {
                let touched: usize = first.groups.iter().map(|g| g.models.len()).sum();
                let drives = plan.nodes.iter().filter(|n| n.chariot == c).count();
                details.push(format!(
                    "chariot {} ({} of the turn): {} model{} on its path on the first board it may meet; {} board{} planned for it",
                    c + 1,
                    depth + 1,
                    touched,
                    if touched == 1 { "" } else { "s" },
                    drives,
                    if drives == 1 { "" } else { "s" }
                ));
            }
        }
        (summary, details)
    }
    fn board(_: &Scenario, plan: &TurnPlan) -> Result<crate::report::charts::Rendered> {
        let picture = crate::mesbg::board::turn_picture(plan, plan.scenario.seed, crate::mesbg::board::BOARD_TRIALS);
        Ok(report::board_figure(&picture, &plan.scenario.title, picture.trials)?.0)
    }
}
