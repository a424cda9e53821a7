//! `run` (with `--shard`, `--target-ci`, `--trials-out`) and `merge`: simulate scenarios
//! and write their reports. Everything but the report itself is written once, against
//! [`RuleSystem`], and serves both rule systems.

use super::*;
use crate::engine::RuleSystem;
use crate::engine::statistics::MetricName;

/// What the shared run tools need to know about a loaded scenario of either system.
pub(super) struct Source<'a> {
    /// The file as given (`None` for the bundled default).
    pub file: Option<&'a Path>,
    /// The scenario's name in reports.
    pub name: String,
    /// Its hash (the key of its streams).
    pub hash: u64,
    /// The scenario's own seed and trials.
    pub seed: u64,
    /// Trials.
    pub trials: u64,
    /// Its folder name under reports/.
    pub slug: String,
}

impl Source<'_> {
    /// The seed and trials of this run: the command line's, or the scenario's.
    pub fn seed_and_trials(&self, play: &PlayOptions) -> (u64, u64) {
        (play.seed.unwrap_or(self.seed), play.trials.unwrap_or(self.trials))
    }

    /// The reproduce command of a run of `trials` trials with `seed`.
    pub fn command(&self, seed: u64, trials: u64) -> String {
        let file_arg = self.file.map(|f| format!(" {}", shell_quote(&f.display().to_string()))).unwrap_or_default();
        format!("charioteer run{file_arg} --seed {seed} --trials {trials}")
    }
}

impl Loaded {
    /// The shared tools' view of the scenario.
    pub(super) fn source<'a>(&self, file: Option<&'a Path>) -> Source<'a> {
        match self {
            Loaded::Mesbg(s) => {
                Source { file, name: s.file.clone(), hash: s.hash(), seed: s.seed, trials: s.trials, slug: s.slug() }
            }
            Loaded::Battlesystem(s) => {
                Source { file, name: s.file.clone(), hash: s.hash(), seed: s.seed, trials: s.trials, slug: s.slug() }
            }
        }
    }
}

/// A finished run's tally with how it was played.
pub(super) struct Played<T> {
    pub tally: T,
    pub seed: u64,
    pub elapsed_s: f64,
    pub precision: Option<report::Precision>,
    pub command: String,
}

pub(super) fn run(args: RunArgs) -> Result<()> {
    let files: Vec<Option<&Path>> =
        if args.files.is_empty() { vec![None] } else { args.files.iter().map(|f| Some(f.as_path())).collect() };
    // Every file is validated before any trial runs: one typo must not waste a long run.
    let loaded = files.iter().map(|f| load_any(*f)).collect::<Result<Vec<_>, _>>()?;
    let pool = args.play.pool()?;
    if loaded.len() > 1 && (args.trials_out.is_some() || args.shard.is_some()) {
        anyhow::bail!("--trials-out and --shard work on one scenario's trials: give a single scenario file with them");
    }
    if let Some(shard) = args.shard {
        anyhow::ensure!(
            args.trials_out.is_none() && args.precision.target_ci.is_none(),
            "--shard plays part of one scenario's fixed number of trials: give it without --trials-out or --target-ci"
        );
        let source = loaded[0].source(files[0]);
        return match &loaded[0] {
            Loaded::Mesbg(s) => run_shard(&plan::compile(s), &source, shard, &args, &pool),
            Loaded::Battlesystem(s) => {
                run_shard(&crate::battlesystem::resolve::compile(s), &source, shard, &args, &pool)
            }
        };
    }
    let mut compared: Vec<report::ComparedRun> = Vec::with_capacity(loaded.len());
    let mut slugs = Vec::new();
    for (scenario, file) in loaded.iter().zip(&files) {
        let source = scenario.source(*file);
        slugs.push(source.slug.clone());
        let out = match (&args.play.out, loaded.len()) {
            (Some(dir), 1) => dir.clone(),
            (Some(dir), _) => dir.join(&source.slug),
            (None, _) => PathBuf::from("reports").join(&source.slug),
        };
        match scenario {
            Loaded::Mesbg(s) => {
                let plan = plan::compile(s);
                let played = play(&plan, &source, &args, &pool)?;
                let mut record = RunRecord::new(
                    s,
                    &plan,
                    &played.tally,
                    played.seed,
                    pool.current_num_threads(),
                    played.elapsed_s,
                    played.command,
                );
                record.precision = played.precision;
                record.terrain_readings = report::terrain_readings(s);
                finish_mesbg(&record, *file, &out, &args, &pool, &plan, source.hash)?;
                compared.push((&record).into());
            }
            Loaded::Battlesystem(s) => {
                let plan = crate::battlesystem::resolve::compile(s);
                let played = play(&plan, &source, &args, &pool)?;
                let mut record = crate::report::battlesystem::BattleRecord::new(
                    &plan,
                    played.tally,
                    played.seed,
                    pool.current_num_threads(),
                    played.elapsed_s,
                    played.command,
                );
                record.precision = played.precision;
                if let Some(path) = &args.trials_out {
                    write_trials(&plan, Streams::new(record.seed, source.hash), record.trials, path, &pool)?;
                }
                battlesystem::finish(&record, &source, &out, &args)?;
                compared.push((&record).into());
            }
        }
    }
    if compared.len() > 1 {
        let dir = match &args.play.out {
            Some(dir) => dir.join("comparison"),
            None => PathBuf::from("reports").join(comparison_slug(&slugs)),
        };
        let written = report::write_comparison(&dir, &compared)?;
        if !args.play.quiet && !args.play.json {
            out!("comparison: {} ({} files)", dir.join("report.md").display(), written.len());
        }
    }
    Ok(())
}

/// Writes a MESBG run's per-trial rows and report, and says what was written.
fn finish_mesbg(
    record: &RunRecord,
    file: Option<&Path>,
    out: &Path,
    args: &RunArgs,
    pool: &rayon::ThreadPool,
    plan: &Plan,
    hash: u64,
) -> Result<()> {
    // The per-trial rows first: a run that cannot write them (or is interrupted while
    // it does) fails before it touches the report folder, so an earlier report stays.
    if let Some(path) = &args.trials_out {
        write_trials(plan, Streams::new(record.seed, hash), record.trials, path, pool)?;
    }
    let written = report::write_report(out, record)?;
    let file_arg = file.map(|f| format!(" {}", shell_quote(&f.display().to_string()))).unwrap_or_default();
    for a in record.disagreements() {
        eprintln!(
            "WARNING: {} = {:.6} disagrees with its exact value {:.6} (z = {:+.1}): a rule or the engine is wrong. \
             Inspect trials with `charioteer replay{file_arg} --seed {} --trial 0` and compare with `charioteer exact{file_arg}`.",
            a.metric.name(),
            a.estimate,
            a.exact,
            a.z,
            record.seed,
        );
    }
    if args.play.json {
        out!("{}", serde_json::to_string(&record.to_json())?);
    } else if !args.play.quiet {
        print_table(record);
        out!("report: {} ({} files)", out.join("report.md").display(), written.len());
        if let Some(path) = &args.trials_out {
            out!("per-trial rows: {}", path.display());
        }
    }
    Ok(())
}

/// Plays a run of either system: the asked trials, then more under `--target-ci`.
pub(super) fn play<S: RuleSystem>(
    plan: &S,
    source: &Source,
    args: &RunArgs,
    pool: &rayon::ThreadPool,
) -> Result<Played<S::Tally>> {
    let (seed, trials) = source.seed_and_trials(&args.play);
    let streams = Streams::new(seed, source.hash);
    let bar = trial_bar(trials, args.play.quiet || args.play.json);
    let cancel = &CANCEL;
    let started = Instant::now();
    let mut tally = pool.install(|| {
        crate::engine::run(plan, streams, TrialRange { first: 0, count: trials }, &|n| bar.inc(n), cancel)
    })?;
    let mut precision = None;
    if let Some(target) = args.precision.target_ci {
        // Doubling until every reported metric's 95% half-width is below the target: the
        // result is exactly the first N trials of the run, so `--trials N` reproduces it.
        let cap = args.precision.max_trials.unwrap_or(DEFAULT_MAX_TRIALS).max(trials);
        let crate::engine::Reached { reached, worst } = pool.install(|| {
            crate::engine::run_to_precision(
                plan,
                streams,
                &mut tally,
                target,
                cap,
                &|_, next| bar.set_length(next),
                &|n| bar.inc(n),
                cancel,
            )
        })?;
        let (worst_metric, half_width) = worst.map_or((String::new(), 0.0), |(m, h)| (m.metric_name().to_string(), h));
        precision = Some(report::Precision { target, reached, worst_metric, half_width, cap });
    }
    bar.finish_and_clear();
    let trials = S::trials_in(&tally);
    Ok(Played {
        tally,
        seed,
        elapsed_s: started.elapsed().as_secs_f64(),
        precision,
        command: source.command(seed, trials),
    })
}

/// `--trials-out`: plays the run's trials again, chunk by chunk, into Parquet rows.
pub(super) fn write_trials<S: RuleSystem>(
    plan: &S,
    streams: Streams,
    trials: u64,
    path: &Path,
    pool: &rayon::ThreadPool,
) -> Result<()> {
    let metrics = plan.metrics();
    let names: Vec<&str> = metrics.iter().map(MetricName::metric_name).collect();
    let range = TrialRange { first: 0, count: trials };
    let cancel = &CANCEL;
    let done = pool.install(|| {
        report::write_trials_parquet(path, &names, |sink| {
            crate::engine::for_each_chunk(plan, streams, range, cancel, sink)
        })
    })?;
    anyhow::ensure!(done, "writing {} was interrupted; nothing was left there", path.display());
    Ok(())
}

/// `--shard K/N`: plays the shard's trials and writes its partial tally.
pub(super) fn run_shard<S: RuleSystem>(
    plan: &S,
    source: &Source,
    shard: ShardSpec,
    args: &RunArgs,
    pool: &rayon::ThreadPool,
) -> Result<()> {
    let (seed, trials) = source.seed_and_trials(&args.play);
    let range = shard.range(trials);
    let cancel = &CANCEL;
    let started = Instant::now();
    let tally = pool.install(|| crate::engine::run(plan, Streams::new(seed, source.hash), range, &|_| {}, cancel))?;
    let record = ShardFile {
        schema: crate::tools::shard::SHARD_SCHEMA.to_string(),
        system: S::SYSTEM.to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        scenario_file: source.name.clone(),
        scenario_text: scenario_text(source.file)?,
        scenario_hash: format!("{:016x}", source.hash),
        seed,
        trials,
        shard,
        first: range.first,
        count: range.count,
        elapsed_s: started.elapsed().as_secs_f64(),
        threads: pool.current_num_threads(),
        tally,
        checksum: String::new(),
    }
    .sealed();
    // One folder per run (scenario, seed, trials), so two runs' shards never mix.
    let dir = args.play.out.clone().unwrap_or_else(|| {
        PathBuf::from("reports")
            .join(&source.slug)
            .join(format!("shards-{:016x}-seed{seed}-trials{trials}", source.hash))
    });
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

/// `merge`: adds every shard of one run (of either system) into the report one run of all
/// the trials would have written.
pub(super) fn merge(paths: &[PathBuf], output: &OutputOptions) -> Result<()> {
    let (out, quiet, json) = (output.out.clone(), output.quiet, output.json);
    let files = crate::tools::shard::find_shard_files(paths)?;
    let first = files.first().ok_or_else(|| {
        anyhow::anyhow!(
            "no shard files found in {}",
            paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        )
    })?;
    let system = crate::tools::shard::shard_system(first)?;
    let command = |file: &str, seed: u64, trials: u64| {
        let file_arg =
            if file == scenario::DEFAULT_SCENARIO_NAME { String::new() } else { format!(" {}", shell_quote(file)) };
        format!("charioteer run{file_arg} --seed {seed} --trials {trials}")
    };
    if system == crate::battlesystem::resolve::BattlePlan::SYSTEM {
        let merged = crate::tools::shard::merge::<crate::battlesystem::resolve::BattlePlan>(&files, |text, file| {
            crate::battlesystem::scenario::parse(text, file).map(|s| s.hash())
        })?;
        let scenario = crate::battlesystem::scenario::parse(&merged.scenario_text, &merged.scenario_file)?;
        let plan = crate::battlesystem::resolve::compile(&scenario);
        let record = crate::report::battlesystem::BattleRecord::new(
            &plan,
            merged.tally,
            merged.seed,
            merged.threads,
            merged.elapsed_s,
            command(&merged.scenario_file, merged.seed, merged.trials),
        );
        let dir = out.unwrap_or_else(|| PathBuf::from("reports").join(scenario.slug()));
        if !quiet && !json {
            out!("merged {} shards ({} files)", merged.shards, files.len());
        }
        let source = Loaded::Battlesystem(Box::new(scenario)).source(None);
        let args = RunArgs::quiet_or_json(quiet, json);
        return battlesystem::finish(&record, &source, &dir, &args);
    }
    let merged =
        crate::tools::shard::merge::<Plan>(&files, |text, file| scenario::parse(text, file).map(|s| s.hash()))?;
    let scenario = scenario::parse(&merged.scenario_text, &merged.scenario_file)?;
    let plan = plan::compile(&scenario);
    let mut record = RunRecord::new(
        &scenario,
        &plan,
        &merged.tally,
        merged.seed,
        merged.threads,
        merged.elapsed_s,
        command(&merged.scenario_file, merged.seed, merged.trials),
    );
    record.terrain_readings = report::terrain_readings(&scenario);
    let dir = out.unwrap_or_else(|| PathBuf::from("reports").join(scenario.slug()));
    let written = report::write_report(&dir, &record)?;
    if json {
        out!("{}", serde_json::to_string(&record.to_json())?);
    } else if !quiet {
        out!("merged {} shards ({} files)", merged.shards, files.len());
        print_table(&record);
        out!("report: {} ({} files)", dir.join("report.md").display(), written.len());
    }
    Ok(())
}
