//! `run` (with `--shard`, `--target-ci`, `--trials-out`) and `merge`: simulate scenarios
//! and write their reports.

use super::*;

pub(super) fn run(args: RunArgs) -> Result<()> {
    let files: Vec<Option<&Path>> =
        if args.files.is_empty() { vec![None] } else { args.files.iter().map(|f| Some(f.as_path())).collect() };
    // Every file is validated before any trial runs: one typo must not waste a long run.
    let loaded = files.iter().map(|f| load_any(*f)).collect::<Result<Vec<_>, _>>()?;
    let pool = args.play.pool()?;
    if let Some((Loaded::Battle(battle_scenario), Some(file))) =
        loaded.iter().zip(&files).find(|(l, _)| matches!(l, Loaded::Battle(_)))
    {
        battle::check_run_options(&args, files.len())?;
        return battle::run(battle_scenario, file, &args, &pool);
    }
    let scenarios: Vec<Scenario> = loaded
        .into_iter()
        .filter_map(|l| match l {
            Loaded::Mesbg(s) => Some(*s),
            Loaded::Battle(_) => None,
        })
        .collect();
    if args.trials_out.is_some() && scenarios.len() > 1 {
        anyhow::bail!("--trials-out writes the trials of one scenario: give a single scenario file with it");
    }
    if let Some(shard) = args.shard {
        anyhow::ensure!(
            scenarios.len() == 1 && args.trials_out.is_none() && args.precision.target_ci.is_none(),
            "--shard plays part of one scenario's fixed number of trials: give one file, without --trials-out or --target-ci"
        );
        return run_shard(&scenarios[0], files[0], shard, &args, &pool);
    }
    let mut records = Vec::with_capacity(scenarios.len());
    for (scenario, file) in scenarios.iter().zip(&files) {
        let out = match (&args.play.out, scenarios.len()) {
            (Some(dir), 1) => dir.clone(),
            (Some(dir), _) => dir.join(scenario.slug()),
            (None, _) => PathBuf::from("reports").join(scenario.slug()),
        };
        let record = run_one(scenario, *file, &args, &pool)?;
        // The per-trial rows first: a run that cannot write them (or is interrupted while
        // it does) fails before it touches the report folder, so an earlier report stays.
        if let Some(path) = &args.trials_out {
            write_trials(scenario, &record, path, &pool)?;
        }
        let written = report::write_report(&out, &record)?;
        for a in record.disagreements() {
            eprintln!(
                "WARNING: {} = {:.6} disagrees with its exact value {:.6} (z = {:+.1}): a rule or the engine is wrong. \
                 Inspect trials with `charioteer replay{} --seed {} --trial 0` and compare with `charioteer exact{}`.",
                a.metric.name(),
                a.estimate,
                a.exact,
                a.z,
                file.map(|f| format!(" {}", shell_quote(&f.display().to_string()))).unwrap_or_default(),
                record.seed,
                file.map(|f| format!(" {}", shell_quote(&f.display().to_string()))).unwrap_or_default(),
            );
        }
        if args.json {
            out!("{}", serde_json::to_string(&record.to_json())?);
        } else if !args.play.quiet {
            print_table(&record);
            out!("report: {} ({} files)", out.join("report.md").display(), written.len());
            if let Some(path) = &args.trials_out {
                out!("per-trial rows: {}", path.display());
            }
        }
        records.push(record);
    }
    if records.len() > 1 {
        let dir = match &args.play.out {
            Some(dir) => dir.join("comparison"),
            None => PathBuf::from("reports").join(comparison_slug(&scenarios)),
        };
        let written = report::write_comparison(&dir, &records)?;
        if !args.play.quiet && !args.json {
            out!("comparison: {} ({} files)", dir.join("report.md").display(), written.len());
        }
    }
    Ok(())
}

pub(super) fn write_trials(
    scenario: &Scenario,
    record: &RunRecord,
    path: &Path,
    pool: &rayon::ThreadPool,
) -> Result<()> {
    let plan = plan::compile(scenario);
    let streams = Streams::new(record.seed, scenario.hash());
    let range = TrialRange { first: 0, count: record.trials };
    let cancel = &CANCEL;
    let done = pool.install(|| {
        report::write_trials_parquet(path, &plan.metrics, |sink| {
            resolve::for_each_chunk(&plan, streams, range, cancel, sink)
        })
    })?;
    anyhow::ensure!(done, "writing {} was interrupted; nothing was left there", path.display());
    Ok(())
}

pub(super) fn run_shard(
    scenario: &Scenario,
    file: Option<&Path>,
    shard: ShardSpec,
    args: &RunArgs,
    pool: &rayon::ThreadPool,
) -> Result<()> {
    let trials = args.play.trials.unwrap_or(scenario.trials);
    let seed = args.play.seed.unwrap_or(scenario.seed);
    let plan = plan::compile(scenario);
    let range = shard.range(trials);
    let cancel = &CANCEL;
    let started = Instant::now();
    let tally = pool.install(|| resolve::run(&plan, Streams::new(seed, scenario.hash()), range, &|_| {}, cancel))?;
    let record = ShardFile {
        schema: crate::shard::SHARD_SCHEMA.to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        scenario_file: scenario.file.clone(),
        scenario_text: scenario_text(file)?,
        scenario_hash: format!("{:016x}", scenario.hash()),
        seed,
        trials,
        shard,
        first: range.first,
        count: range.count,
        elapsed_s: started.elapsed().as_secs_f64(),
        tally,
        checksum: String::new(),
    }
    .sealed();
    let dir = args.play.out.clone().unwrap_or_else(|| PathBuf::from("reports").join(scenario.slug()).join("shards"));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(shard.file_name());
    let text = serde_json::to_string(&record)?;
    report::write_atomic(&path, |f| std::io::Write::write_all(f, text.as_bytes()))?;
    if !args.play.quiet {
        out!(
            "shard {}/{}: trials {}..{} of {} in {:.2} s -> {}",
            shard.index,
            shard.count,
            group_digits(range.first),
            group_digits(range.first + range.count),
            group_digits(trials),
            record.elapsed_s,
            path.display()
        );
    }
    Ok(())
}

pub(super) fn merge(paths: &[PathBuf], out: Option<PathBuf>, quiet: bool) -> Result<()> {
    let files = crate::shard::find_shard_files(paths)?;
    let merged = crate::shard::merge(&files)?;
    let plan = plan::compile(&merged.scenario);
    let file_arg = if merged.scenario.file == scenario::DEFAULT_SCENARIO_NAME {
        String::new()
    } else {
        format!(" {}", shell_quote(&merged.scenario.file))
    };
    let command = format!("charioteer run{file_arg} --seed {} --trials {}", merged.seed, merged.trials);
    // Threads 0 marks a merge: the time is the shards' summed wall-clock time.
    let mut record = RunRecord::new(&merged.scenario, &plan, &merged.tally, merged.seed, 0, merged.elapsed_s, command);
    record.terrain_readings = report::terrain_readings(&merged.scenario);
    let dir = out.unwrap_or_else(|| PathBuf::from("reports").join(merged.scenario.slug()));
    let written = report::write_report(&dir, &record)?;
    if !quiet {
        out!("merged {} shards ({} files)", merged.shards, files.len());
        print_table(&record);
        out!("report: {} ({} files)", dir.join("report.md").display(), written.len());
    }
    Ok(())
}

pub(super) fn run_one(
    scenario: &Scenario,
    file: Option<&Path>,
    args: &RunArgs,
    pool: &rayon::ThreadPool,
) -> Result<RunRecord> {
    let trials = args.play.trials.unwrap_or(scenario.trials);
    let seed = args.play.seed.unwrap_or(scenario.seed);
    let plan = plan::compile(scenario);
    let streams = Streams::new(seed, scenario.hash());
    let bar = trial_bar(trials, args.play.quiet || args.json);
    let cancel = &CANCEL;
    let started = Instant::now();
    let mut tally =
        pool.install(|| resolve::run(&plan, streams, TrialRange { first: 0, count: trials }, &|n| bar.inc(n), cancel))?;
    let mut precision = None;
    if let Some(target) = args.precision.target_ci {
        // Double the trials until every reported metric's 95% half-width is below the
        // target, or the cap is reached. The result is exactly the first `tally.trials`
        // trials of the run, so `--trials` that many reproduces it.
        let cap = args.precision.max_trials.unwrap_or(DEFAULT_MAX_TRIALS).max(trials);
        loop {
            let (worst, half_width) = worst_half_width(&tally, &plan.metrics);
            let reached = half_width < target;
            if reached || tally.trials >= cap {
                precision = Some(report::Precision { target, reached, worst_metric: worst, half_width, cap });
                break;
            }
            let next = (tally.trials.saturating_mul(2)).min(cap);
            bar.set_length(next);
            let range = TrialRange { first: tally.trials, count: next - tally.trials };
            let more = pool.install(|| resolve::run(&plan, streams, range, &|n| bar.inc(n), cancel))?;
            tally.merge(&more);
        }
    }
    let trials = tally.trials;
    let elapsed = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let file_arg = file.map(|f| format!(" {}", shell_quote(&f.display().to_string()))).unwrap_or_default();
    let command = format!("charioteer run{file_arg} --seed {seed} --trials {trials}");
    let mut record = RunRecord::new(scenario, &plan, &tally, seed, pool.current_num_threads(), elapsed, command);
    record.precision = precision;
    record.terrain_readings = report::terrain_readings(scenario);
    Ok(record)
}
