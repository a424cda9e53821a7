//! The command line's view of a rule system. Every command is written once, generic over
//! [`System`]; `on_system!` (in `tools::system`) picks the system from the scenario file's `system` field,
//! the one place a command asks which system a file is. The engine's
//! [`RuleSystem`](crate::engine::RuleSystem) plays the trials; this trait adds what only
//! the edge needs: reading and compiling a scenario, its facts, its prices, its record and
//! report, its exact values, its replay and its one-line description.

use super::*;
use crate::engine::RuleSystem;
use crate::report::ComparedRun;
use crate::report::battlesystem::BattlesystemRecord;
pub(super) use crate::tools::system::{Battlesystem, Mesbg};

/// A rule system as the command line uses it: the tools' [`Game`] and the run's record,
/// report and printing.
pub(super) trait System: Game {
    /// A finished run, as its report shows it.
    type Record;

    /// The record of a finished run.
    fn record(
        scenario: &Self::Scenario,
        plan: &Self::Plan,
        played: run::Played<<Self::Plan as RuleSystem>::Tally>,
        threads: usize,
    ) -> Self::Record;
    /// The record as a side-by-side comparison shows it.
    fn compared(record: &Self::Record) -> ComparedRun;
    /// Writes the report folder and prints nothing; returns the files written.
    #[cfg_attr(not(feature = "serve"), allow(dead_code))] // the page writes and answers with them
    fn write_report(record: &Self::Record, out: &Path) -> Result<Vec<PathBuf>>;
    /// The record as `run --json` prints it.
    #[cfg_attr(not(feature = "serve"), allow(dead_code))] // the page writes and answers with them
    fn json(record: &Self::Record) -> serde_json::Value;
    /// Writes the report folder and prints what a run prints (table, JSON or nothing).
    fn finish(record: &Self::Record, file: Option<&Path>, out: &Path, args: &RunArgs) -> Result<()>;
    /// `exact`: the exact distribution, written and printed, or why there is none.
    fn exact(scenario: &Self::Scenario, output: &OutputOptions) -> Result<()>;
    /// `replay`: one trial's events and metrics.
    fn replay(scenario: &Self::Scenario, trial: u64, seed: Option<u64>, output: &OutputOptions) -> Result<()>;
    /// `validate`: one line saying what the scenario holds (compiled as `plan`), and any
    /// lines of detail.
    fn describe(scenario: &Self::Scenario, plan: &Self::Plan) -> (String, Vec<String>);
    /// `validate --map`: the board drawn (the scenario compiled as `plan`), with what moves
    /// counted from the first [`BOARD_TRIALS`](crate::mesbg::board::BOARD_TRIALS) trials of
    /// the scenario's seed.
    fn board(scenario: &Self::Scenario, plan: &Self::Plan) -> Result<crate::report::charts::Rendered>;
}

/// Prints warnings on standard error (nothing under `--quiet`), each on one line naming
/// the file, line and field.
pub(super) fn print_warnings(name: &str, warnings: &[crate::input::Problem], quiet: bool) {
    if quiet {
        return;
    }
    for w in warnings {
        eprintln!("warning: {}", w.located(name));
    }
}

impl System for Mesbg {
    type Record = RunRecord;

    fn record(s: &Scenario, plan: &Plan, played: run::Played<crate::mesbg::tally::Tally>, threads: usize) -> RunRecord {
        let mut record = RunRecord::with_exact(
            s,
            plan,
            &played.tally,
            (played.seed, threads, played.elapsed_s),
            played.command,
            played.exact,
        );
        record.precision = played.precision;
        record.terrain_readings = report::terrain_readings(s);
        let board_trials = crate::mesbg::board::board_trials(played.tally.trials);
        record.board = Some(crate::mesbg::board::picture(s, plan, played.seed, board_trials));
        record.warnings = plan.warnings(s);
        record
    }
    fn compared(record: &RunRecord) -> ComparedRun {
        record.into()
    }
    fn write_report(record: &RunRecord, out: &Path) -> Result<Vec<PathBuf>> {
        Ok(report::write_report(out, record)?)
    }
    fn json(record: &RunRecord) -> serde_json::Value {
        record.to_json()
    }
    fn finish(record: &RunRecord, file: Option<&Path>, out: &Path, args: &RunArgs) -> Result<()> {
        run::finish_mesbg(record, file, out, args)
    }
    fn exact(s: &Scenario, output: &OutputOptions) -> Result<()> {
        exact::exact_mesbg(s, output)
    }
    fn replay(s: &Scenario, trial: u64, seed: Option<u64>, output: &OutputOptions) -> Result<()> {
        replay::replay_mesbg(s, trial, seed, output)
    }
    fn describe(s: &Scenario, plan: &Plan) -> (String, Vec<String>) {
        let summary = format!(
            "ok ({} model{}, {} on the chariot's path{})",
            plan.models.len(),
            if plan.models.len() == 1 { "" } else { "s" },
            plan.models_on_path(),
            if plan.breakthrough_possible { ", breakthrough possible" } else { "" }
        );
        let mut details = validate::support_lines(plan);
        details.extend(validate::trapped_lines(plan));
        if let Some(d) = plan.stop_at {
            details.push(format!(
                "the charge ends after {d:.2}\" driven, short of the full Move of {}\"{}",
                s.chariot.move_inches,
                if s.charge.distance.is_some() {
                    " ([charge] distance)"
                } else {
                    " (the best path stops short of a hazard)"
                }
            ));
        }
        (summary, details)
    }
    fn board(s: &Scenario, plan: &Plan) -> Result<crate::report::charts::Rendered> {
        let picture = crate::mesbg::board::picture(s, plan, s.seed, crate::mesbg::board::BOARD_TRIALS);
        Ok(report::board_figure(&picture, &s.title, picture.trials)?.0)
    }
}

impl System for Battlesystem {
    type Record = BattlesystemRecord;

    fn record(
        _: &BattlesystemScenario,
        plan: &Self::Plan,
        played: run::Played<crate::battlesystem::tally::BattlesystemTally>,
        threads: usize,
    ) -> BattlesystemRecord {
        let mut record = BattlesystemRecord::with_exact(
            plan,
            played.tally,
            (played.seed, threads, played.elapsed_s),
            played.command,
            played.exact,
        );
        record.precision = played.precision;
        record
    }
    fn compared(record: &BattlesystemRecord) -> ComparedRun {
        record.into()
    }
    fn write_report(record: &BattlesystemRecord, out: &Path) -> Result<Vec<PathBuf>> {
        Ok(crate::report::battlesystem::write_report(out, record)?)
    }
    fn json(record: &BattlesystemRecord) -> serde_json::Value {
        record.to_json()
    }
    fn finish(record: &BattlesystemRecord, file: Option<&Path>, out: &Path, args: &RunArgs) -> Result<()> {
        battlesystem::finish(record, file, out, args)
    }
    fn exact(s: &BattlesystemScenario, output: &OutputOptions) -> Result<()> {
        exact::exact_battlesystem(s, output)
    }
    fn replay(s: &BattlesystemScenario, trial: u64, seed: Option<u64>, output: &OutputOptions) -> Result<()> {
        battlesystem::replay(s, trial, seed, output)
    }
    fn describe(s: &BattlesystemScenario, _: &Self::Plan) -> (String, Vec<String>) {
        (battlesystem::describe(s), Vec::new())
    }
    fn board(s: &BattlesystemScenario, plan: &Self::Plan) -> Result<crate::report::charts::Rendered> {
        let streams = crate::engine::Streams::new(s.seed, s.hash());
        let range = crate::engine::TrialRange { first: 0, count: crate::mesbg::board::BOARD_TRIALS };
        let started = std::time::Instant::now();
        let tally = crate::engine::run(plan, streams, range, &|_| {}, &super::CANCEL)?;
        let record = BattlesystemRecord::new(
            plan,
            tally,
            s.seed,
            rayon::current_num_threads(),
            started.elapsed().as_secs_f64(),
            String::new(),
        );
        Ok(crate::report::battlesystem::board_map(&record)?)
    }
}
