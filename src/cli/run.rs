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

impl<'a> Source<'a> {
    /// The shared tools' view of a scenario of system `S`.
    pub(super) fn of<S: System>(scenario: &S::Scenario, file: Option<&'a Path>) -> Self {
        let f = S::facts(scenario);
        Source { file, name: f.name, hash: f.hash, seed: f.seed, trials: f.trials, slug: f.slug }
    }
}

/// A finished run's tally with how it was played.
pub(super) struct Played<T> {
    pub tally: T,
    pub seed: u64,
    pub elapsed_s: f64,
    pub precision: Option<report::Precision>,
    pub command: String,
    /// Whether the report checks the estimates against exact values (off with `--no-exact`).
    pub exact: bool,
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
        let Some(first) = loaded.into_iter().next() else { anyhow::bail!("no scenario to run") };
        return on_system!(first, run_shard(files[0], shard, &args, &pool));
    }
    let many = loaded.len() > 1;
    let mut compared: Vec<report::ComparedRun> = Vec::with_capacity(loaded.len());
    let mut slugs = Vec::new();
    for (scenario, file) in loaded.into_iter().zip(&files) {
        let (run, slug) = on_system!(scenario, run_file(*file, &args, &pool, many))?;
        compared.push(run);
        slugs.push(slug);
    }
    if compared.len() > 1 {
        let dir = match &args.play.out {
            Some(dir) => dir.join("comparison"),
            None => PathBuf::from("reports").join(comparison_slug(&slugs)),
        };
        let replaced = holds_report(&dir);
        let written = report::write_comparison(&dir, &compared)?;
        if !args.play.quiet && !args.play.json {
            out!("{}", report_line("comparison", &dir, written.len(), replaced));
        }
    }
    Ok(())
}

/// Runs one scenario of system `S` and writes its report (into `--out`, or a folder of
/// its own there when `many` scenarios run); returns it as a comparison shows it, with its
/// folder name.
fn run_file<S: System>(
    scenario: S::Scenario,
    file: Option<&Path>,
    args: &RunArgs,
    pool: &rayon::ThreadPool,
    many: bool,
) -> Result<(report::ComparedRun, String)> {
    let source = Source::of::<S>(&scenario, file);
    let out = match (&args.play.out, many) {
        (Some(dir), false) => dir.clone(),
        (Some(dir), true) => dir.join(&source.slug),
        (None, _) => PathBuf::from("reports").join(&source.slug),
    };
    let plan = S::compile(&scenario);
    system::print_warnings(&source.name, &S::warnings(&scenario, &plan), args.play.quiet);
    let played = play(&plan, &source, args, pool)?;
    let seed = played.seed;
    let trials = <S::Plan as RuleSystem>::trials_in(&played.tally);
    let record = S::record(&scenario, &plan, played, pool.current_num_threads());
    // The per-trial rows first: a run that cannot write them (or is interrupted while it
    // does) fails before it touches the report folder, so an earlier report stays.
    if let Some(path) = &args.trials_out {
        write_trials(&plan, Streams::new(seed, source.hash), trials, path, pool)?;
    }
    S::finish(&record, file, &out, args)?;
    Ok((S::compared(&record), source.slug))
}

/// Writes a MESBG run's report, warns of any disagreement with the exact engine, and says
/// what was written.
pub(super) fn finish_mesbg(record: &RunRecord, file: Option<&Path>, out: &Path, args: &RunArgs) -> Result<()> {
    let replaced = holds_report(out);
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
        out!("{}", report_line("report", out, written.len(), replaced));
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
        exact: !args.no_exact,
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
fn run_shard<S: System>(
    scenario: S::Scenario,
    file: Option<&Path>,
    shard: ShardSpec,
    args: &RunArgs,
    pool: &rayon::ThreadPool,
) -> Result<()> {
    let source = &Source::of::<S>(&scenario, file);
    let plan = &S::compile(&scenario);
    let (seed, trials) = source.seed_and_trials(&args.play);
    let range = shard.range(trials);
    let cancel = &CANCEL;
    let started = Instant::now();
    let tally = pool.install(|| crate::engine::run(plan, Streams::new(seed, source.hash), range, &|_| {}, cancel))?;
    let record = ShardFile {
        schema: crate::tools::shard::SHARD_SCHEMA.to_string(),
        system: <S::Plan as RuleSystem>::SYSTEM.to_string(),
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
    if args.play.json {
        // What a script driving the shards needs: which trials, where they went.
        let summary = serde_json::json!({
            "shard": { "index": shard.index, "count": shard.count },
            "first": range.first,
            "count": range.count,
            "trials": trials,
            "seed": seed,
            "scenario_hash": record.scenario_hash,
            "elapsed_s": record.elapsed_s,
            "threads": record.threads,
            "file": path.display().to_string(),
        });
        out!("{summary}");
    } else if !args.play.quiet {
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
    let files = crate::tools::shard::find_shard_files(paths)?;
    let first = files.first().ok_or_else(|| {
        let given: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        anyhow::anyhow!("no shard files found in {}", given.join(", "))
    })?;
    if crate::tools::shard::shard_schema(first)? == crate::tools::shard::JOB_SHARD_SCHEMA {
        return super::split::merge_job(&files, output);
    }
    let system = crate::tools::shard::shard_system(first)?;
    if system == <system::Battlesystem as Game>::Plan::SYSTEM {
        merge_of::<system::Battlesystem>(&files, output)
    } else if system == <super::turn::Turn as Game>::Plan::SYSTEM {
        merge_of::<super::turn::Turn>(&files, output)
    } else {
        merge_of::<system::Mesbg>(&files, output)
    }
}

fn merge_of<S: System>(files: &[PathBuf], output: &OutputOptions) -> Result<()> {
    let merged =
        crate::tools::shard::merge::<S::Plan>(files, |text, file| S::parse(text, file).map(|s| S::facts(&s).hash))?;
    let scenario = S::parse(&merged.scenario_text, &merged.scenario_file)?;
    let plan = S::compile(&scenario);
    let file_arg = if merged.scenario_file == scenario::DEFAULT_SCENARIO_NAME {
        String::new()
    } else {
        format!(" {}", shell_quote(&merged.scenario_file))
    };
    let played = Played {
        tally: merged.tally,
        seed: merged.seed,
        elapsed_s: merged.elapsed_s,
        precision: None,
        command: format!("charioteer run{file_arg} --seed {} --trials {}", merged.seed, merged.trials),
        exact: true,
    };
    let record = S::record(&scenario, &plan, played, merged.threads);
    let dir = output.out.clone().unwrap_or_else(|| PathBuf::from("reports").join(S::facts(&scenario).slug));
    if !output.quiet && !output.json {
        out!("merged {} shards ({} files)", merged.shards, files.len());
    }
    S::finish(&record, None, &dir, &RunArgs::quiet_or_json(output.quiet, output.json))
}
