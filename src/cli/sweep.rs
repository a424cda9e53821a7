//! `sweep`: the grid of scenario fields set with `--set`, one row per point, resumable.

use super::*;
use crate::tools::play::ToolError;

/// The checkpoint of a sweep in its report folder: the tallies of the points finished.
pub(super) const SWEEP_STATE: &str = "sweep-state.json";

/// A sweep's checkpoint, `sweep-state.json` in its report folder (`--out`, or
/// reports/<folder>/), read back under `--resume`.
struct StateFile<'a> {
    args: &'a SweepArgs,
}

impl StateFile<'_> {
    fn path(&self, folder: &str) -> PathBuf {
        report_dir(self.args, folder).join(SWEEP_STATE)
    }
}

impl crate::tools::sweep::Checkpoint for StateFile<'_> {
    fn name(&self, folder: &str) -> String {
        self.path(folder).display().to_string()
    }
    fn kept(&self, folder: &str) -> Result<Option<String>, ToolError> {
        if !self.args.resume {
            return Ok(None);
        }
        let path = self.path(folder);
        std::fs::read_to_string(&path)
            .map(Some)
            .map_err(|e| ToolError::Failed(format!("--resume needs {} from an interrupted sweep: {e}", path.display())))
    }
    fn keep(&self, folder: &str, state: &str) -> Result<(), ToolError> {
        let path = self.path(folder);
        let failed = |e: &dyn std::fmt::Display| ToolError::Failed(format!("cannot keep {}: {e}", path.display()));
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| failed(&e))?;
        }
        report::write_atomic(&path, |f| std::io::Write::write_all(f, state.as_bytes())).map_err(|e| failed(&e))
    }
}

/// The sweep's report folder: `--out`, or reports/<folder>/.
fn report_dir(args: &SweepArgs, folder: &str) -> PathBuf {
    args.play.out.clone().unwrap_or_else(|| PathBuf::from("reports").join(folder))
}

pub(super) fn sweep(args: SweepArgs) -> Result<()> {
    let request = crate::tools::sweep::SweepRequest {
        file: args.file.clone(),
        sets: args.sets.clone(),
        seed: args.play.seed,
        trials: args.play.trials,
        target_ci: args.precision.target_ci,
        max_trials: args.precision.max_trials,
    };
    let pool = args.play.pool()?;
    let bar = args.play.bar();
    let player = args.play.player(&pool, &bar);
    let state = StateFile { args: &args };
    let quiet = args.play.quiet;
    let hooks = crate::tools::sweep::SweepHooks {
        warnings: &|name, warnings| system::print_warnings(name, warnings, quiet),
        checkpoint: Some(&state),
    };
    let started = Instant::now();
    let swept = crate::tools::sweep::sweep(&request, &player, &hooks).map_err(tool_error)?;
    let (run, dir) = (swept.run, report_dir(&args, &swept.folder));
    let (trials, seed) = (run.trials, run.seed);
    let state_path = dir.join(SWEEP_STATE);
    let replaced = holds_report(&dir);
    let written = report::write_sweep(&dir, &run)?;
    // The report holds everything now; the checkpoint would only mislead a later --resume.
    let _ = std::fs::remove_file(&state_path);
    if args.play.json {
        out!("{}", serde_json::to_string(&run.to_json())?);
    } else if !args.play.quiet {
        out!("{}", run.title);
        out!(
            "{} points x {} trials in {:.2} s, seed {seed} (common random numbers)",
            run.rows.len(),
            group_digits(trials),
            started.elapsed().as_secs_f64()
        );
        let metrics = crate::report::document::headline_of(&run.metrics());
        let mut header: Vec<String> = run.paths.clone();
        header.extend(metrics.iter().map(|m| m.name.clone()));
        out!("{}", header.iter().map(|h| format!("{h:>22}")).collect::<String>());
        for row in &run.rows {
            let mut cells = row.values.clone();
            for m in &metrics {
                let s = row.summary.iter().find(|s| s.metric.name == m.name);
                cells.push(s.map_or_else(String::new, |s| crate::report::document::headline_value(s).0));
            }
            out!("{}", cells.iter().map(|c| format!("{c:>22}")).collect::<String>());
        }
        out!("{}", report_line("report", &dir, written.len(), replaced));
    }
    Ok(())
}
