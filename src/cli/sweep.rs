//! `sweep`: the grid of scenario fields set with `--set`, one row per point, resumable.

use super::*;
use crate::engine::{MetricKind, RuleSystem};

/// The checkpoint of a sweep in its report folder: the tallies of the points finished.
pub(super) const SWEEP_STATE: &str = "sweep-state.json";

/// What `sweep-state.json` holds (`T`: the rule system's tally).
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct SweepState<T> {
    /// The sweep it belongs to (scenario hash, seed, trials, sets, precision).
    key: String,
    /// (point index, its tally) for every finished point.
    finished: Vec<(usize, T)>,
}

pub(super) fn read_sweep_state<T: serde::de::DeserializeOwned>(path: &Path) -> Result<SweepState<T>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--resume needs {} from an interrupted sweep", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a sweep checkpoint", path.display()))
}

pub(super) fn write_sweep_state<T: serde::Serialize + Clone>(
    path: &Path,
    key: &str,
    finished: &[Option<T>],
) -> Result<()> {
    let state = SweepState {
        key: key.to_string(),
        finished: finished.iter().enumerate().filter_map(|(i, t)| t.clone().map(|t| (i, t))).collect(),
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let text = serde_json::to_string(&state)?;
    report::write_atomic(path, |f| std::io::Write::write_all(f, text.as_bytes()))?;
    Ok(())
}

pub(super) fn sweep(args: SweepArgs) -> Result<()> {
    on_system!(load_any(Some(&args.file))?, sweep_of(&args))
}

/// The grid of a scenario of system `S`, each point validated and compiled, then played.
fn sweep_of<S: System>(base: S::Scenario, args: &SweepArgs) -> Result<()> {
    let text = scenario_text(Some(&args.file))?;
    let sets = args.sets.iter().map(|s| crate::tools::sweep::parse_set(s)).collect::<Result<Vec<_>, _>>()?;
    let facts = S::facts(&base);
    let points = crate::tools::sweep::points_of(&text, &facts.name, &sets, &S::profile_library(), S::parse)?;
    let plans = points
        .into_iter()
        .map(|p| {
            let plan = S::compile(&p.scenario);
            system::print_warnings(&S::facts(&p.scenario).name, &S::warnings(&p.scenario, &plan), args.play.quiet);
            (p.values, plan)
        })
        .collect();
    sweep_plans(args, &sets, &facts, plans)
}

/// Plays every point of a sweep (each a compiled plan with its values as text) on the base
/// scenario's streams, resumably, and writes the report.
fn sweep_plans<S: RuleSystem>(
    args: &SweepArgs,
    sets: &[crate::tools::sweep::Assignment],
    base: &crate::tools::system::Facts,
    points: Vec<(Vec<String>, S)>,
) -> Result<()> {
    let trials = args.play.trials.unwrap_or(base.trials);
    let seed = args.play.seed.unwrap_or(base.seed);
    let pool = args.play.pool()?;
    let total = trials.saturating_mul(points.len() as u64);
    let plays = &args.play.plays;
    let hidden = args.play.quiet || args.play.json || !plays.is_whole();
    let bar = if hidden { ProgressBar::hidden() } else { ProgressBar::new(total) };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} {wide_bar} {human_pos}/{human_len} trials over the grid, {per_sec}, eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // Common random numbers: every point plays the base scenario's streams.
    let streams = Streams::new(seed, base.hash);
    let cancel = &CANCEL;
    let started = Instant::now();
    let dir = args.play.out.clone().unwrap_or_else(|| PathBuf::from("reports").join(format!("sweep--{}", base.slug)));
    let sets_text: String = args.sets.iter().map(|s| format!(" --set {}", shell_quote(s))).collect();
    let state_key = format!(
        "{:016x} seed {seed} trials {trials}{sets_text} target {:?} cap {:?}",
        base.hash, args.precision.target_ci, args.precision.max_trials
    );
    let state_path = dir.join(SWEEP_STATE);
    let mut finished: Vec<Option<S::Tally>> = vec![None; points.len()];
    if args.resume {
        let state: SweepState<S::Tally> = read_sweep_state(&state_path)?;
        anyhow::ensure!(
            state.key == state_key,
            "{} was written by a different sweep ({}); run the same command with --resume, or drop --resume to start again",
            state_path.display(),
            state.key
        );
        for (index, tally) in state.finished {
            if let Some(slot) = finished.get_mut(index) {
                bar.inc(S::trials_in(&tally));
                *slot = Some(tally);
            }
        }
    }
    let mut rows = Vec::with_capacity(points.len());
    let row = |values: &[String], plan: &S, tally: &S::Tally| crate::tools::sweep::SweepRow {
        values: values.to_vec(),
        trials: S::trials_in(tally),
        summary: crate::engine::summaries(plan, tally)
            .into_iter()
            .map(|s| crate::engine::statistics::MetricSummary {
                metric: s.metric.def(),
                mean: s.mean,
                sd: s.sd,
                se: s.se,
                ci95_lo: s.ci95_lo,
                ci95_hi: s.ci95_hi,
            })
            .collect(),
    };
    for (index, (values, plan)) in points.iter().enumerate() {
        if let Some(tally) = &finished[index] {
            rows.push(row(values, plan, tally));
            continue;
        }
        let range = TrialRange { first: 0, count: trials };
        let interrupted = |done: usize| {
            anyhow::anyhow!(
                "{done} of {} points were finished and kept in {}; run the same command with --resume to play the rest",
                points.len(),
                state_path.display()
            )
        };
        let done_so_far = finished.iter().filter(|f| f.is_some()).count();
        let label = format!("point {} ({})", index + 1, values.join(", "));
        let mut tally = plays.play(
            &label,
            range,
            |range| {
                pool.install(|| crate::engine::run(plan, streams, range, &|n| bar.inc(n), cancel))
                    .map_err(|e| anyhow::Error::new(e).context(interrupted(done_so_far)))
            },
            S::merge_tally,
        )?;
        if let Some(target) = args.precision.target_ci {
            let cap = args.precision.max_trials.unwrap_or(DEFAULT_MAX_TRIALS).max(trials);
            pool.install(|| {
                crate::engine::run_to_precision(
                    plan,
                    streams,
                    &mut tally,
                    target,
                    cap,
                    &|from, to| bar.inc_length(to - from),
                    &|n| bar.inc(n),
                    cancel,
                )
            })
            .map_err(|e| anyhow::Error::new(e).context(interrupted(done_so_far)))?;
        }
        finished[index] = Some(tally.clone());
        // A shard's or a merge's progress is its shard files, not a checkpoint of its own.
        if plays.is_whole() {
            write_sweep_state(&state_path, &state_key, &finished)?;
        }
        rows.push(row(values, plan, &tally));
    }
    plays.checkpoint()?;
    bar.finish_and_clear();
    let run = crate::tools::sweep::SweepRun {
        ruleset: base.ruleset.clone(),
        trial_word: base.trial_word.to_string(),
        title: base.title.clone(),
        paths: sets.iter().map(|a| a.path.clone()).collect(),
        axes: sets.iter().map(|a| a.values.iter().map(crate::tools::sweep::value_text).collect()).collect(),
        rows,
        trials,
        seed,
        command: format!(
            "charioteer sweep {}{sets_text} --seed {seed} --trials {trials}{}",
            shell_quote(&args.file.display().to_string()),
            args.precision
                .target_ci
                .map(|x| format!(
                    " --target-ci {x}{}",
                    args.precision.max_trials.map(|m| format!(" --max-trials {m}")).unwrap_or_default()
                ))
                .unwrap_or_default()
        ),
    };
    let replaced = holds_report(&dir);
    let written = report::write_sweep(&dir, &run)?;
    // The report holds everything now; the checkpoint would only mislead a later --resume.
    let _ = std::fs::remove_file(&state_path);
    if args.play.json {
        out!("{}", serde_json::to_string(&run.to_json())?);
    } else if !args.play.quiet {
        out!("{}", base.title);
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
