//! The `charioteer` command line: clap definitions, then validated options, then the
//! library. Bad input (a scenario error) exits with code 2, other failures with 1.

/// Writes a line (as `println!`) to standard output through [`emit`].
macro_rules! out {
    () => {
        $crate::cli::emit(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::emit(format_args!("{}\n", format_args!($($arg)*)))
    };
}

mod battle;

use crate::battle::scenario::{BattleScenario, SystemField, system_of};
use crate::document::group_digits;
use crate::plan::{self, Plan};
use crate::report::{self, RunRecord};
use crate::resolve::{self, Event, Streams, TrialRange};
use crate::scenario::{self, MAX_TRIALS, Scenario, ScenarioError};
use crate::shard::{ShardFile, ShardSpec};
use crate::tally::Metric;
use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Odds for tabletop-wargame chariots by Monte Carlo simulation.
#[derive(Parser, Debug)]
#[command(name = "charioteer", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Simulate scenarios and write a report folder for each.
    Run(RunArgs),
    /// Check scenario files without running them.
    Validate {
        /// Scenario files (TOML).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Compute the exact distribution of every metric (no sampling) where the rules allow.
    Exact {
        /// Scenario file (TOML); without it, the bundled default.
        file: Option<PathBuf>,
        /// Folder for exact_summary.csv, exact_distribution.csv and exact.json (default:
        /// reports/<scenario-slug>/).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print the JSON document instead of the table.
        #[arg(long)]
        json: bool,
    },
    /// Compare two scenarios on common random numbers: each metric's paired difference
    /// (A - B) with its 95% interval and p-value.
    Compare(CompareArgs),
    /// Run the cartesian grid of scenario fields set with --set, one row per point.
    Sweep(SweepArgs),
    /// Price a chariot: its points efficiency and the fair price at which it matches a
    /// reference scenario (or a target efficiency), with a confidence interval.
    Balance(BalanceArgs),
    /// Merge the partial tallies of `run --shard K/N` into the report a single run gives.
    Merge {
        /// Shard files, or folders holding `shard-*.json`.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Report folder (default: reports/<scenario-slug>/).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print nothing but errors.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Replay one trial of a run with every event it rolled.
    Replay {
        /// Scenario file (TOML); without it, the bundled default.
        file: Option<PathBuf>,
        /// The trial index to replay (0-based, as in the run).
        #[arg(long)]
        trial: u64,
        /// Seed (default: the scenario's).
        #[arg(long)]
        seed: Option<u64>,
        /// Print the events as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Options of `run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Scenario files (TOML); without any, the bundled default scenario.
    pub files: Vec<PathBuf>,
    /// Trials, seed, threads, report folder, quiet.
    #[command(flatten)]
    pub play: PlayOptions,
    /// Print one JSON object per scenario on standard output instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also write every trial's metrics as Parquet rows to FILE (one scenario only; the
    /// trials are played a second time, in chunks, so memory stays flat).
    #[arg(long, value_name = "FILE")]
    pub trials_out: Option<PathBuf>,
    /// Play only shard K of N of the trial indices (e.g. 2/8) and write a partial tally
    /// (`shard-K-of-N.json`) for `charioteer merge` instead of a report.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<ShardSpec>,
    /// `--target-ci` and `--max-trials`.
    #[command(flatten)]
    pub precision: PrecisionOptions,
}

/// Options every command that plays trials shares.
#[derive(Args, Debug, Clone)]
pub struct PlayOptions {
    /// Number of trials (default: the scenario's `trials`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_TRIALS))]
    pub trials: Option<u64>,
    /// Seed (default: the scenario's `seed`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads (default: all cores, or RAYON_NUM_THREADS). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
    /// Report folder (default: a folder under reports/ named after the scenario or scenarios).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}

impl PlayOptions {
    /// The worker pool: `--threads`, or rayon's default (all cores, or RAYON_NUM_THREADS).
    fn pool(&self) -> Result<rayon::ThreadPool> {
        let builder = rayon::ThreadPoolBuilder::new();
        let builder = match self.threads {
            Some(n) => builder.num_threads(n as usize),
            None => builder,
        };
        builder.build().context("cannot start worker threads")
    }
}

/// Precision targets: add trials until every interval is narrow enough.
#[derive(Args, Debug, Clone)]
pub struct PrecisionOptions {
    /// Add trials in doubling batches until every reported 95% half-width is below X
    /// (probabilities as fractions, counts in their own units).
    #[arg(long, value_name = "X", value_parser = parse_target)]
    pub target_ci: Option<f64>,
    /// The most trials `--target-ci` may play (per point for `sweep`; default 100,000,000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_TRIALS))]
    pub max_trials: Option<u64>,
}

/// Options of `compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Scenario A (TOML).
    pub a: PathBuf,
    /// Scenario B (TOML); without it, B is A with the `--set` fields changed.
    pub b: Option<PathBuf>,
    /// PATH=VALUE: make B from A by setting a field (one value each), e.g.
    /// `--set chariot.impact.strength=5`.
    #[arg(long = "set", value_name = "PATH=VALUE")]
    pub sets: Vec<String>,
    /// `--target-ci` (on every difference) and `--max-trials`.
    #[command(flatten)]
    pub precision: PrecisionOptions,
    /// Trials (default: A's), seed (default: A's), threads, report folder
    /// (default: reports/paired--<slug A>--<slug B>/), quiet.
    #[command(flatten)]
    pub play: PlayOptions,
}

/// Options of `sweep`.
#[derive(Args, Debug)]
pub struct SweepArgs {
    /// Scenario file (TOML).
    pub file: PathBuf,
    /// PATH=VALUES: a field and the values to try: `a..b` (integers), `a..b:step`, or a
    /// comma-separated list, e.g. `--set chariot.impact.strength=3..7 --set chariot.move=8,10,12`.
    #[arg(long = "set", value_name = "PATH=VALUES", required = true)]
    pub sets: Vec<String>,
    /// `--target-ci` (at each point) and `--max-trials`.
    #[command(flatten)]
    pub precision: PrecisionOptions,
    /// Trials per point, seed, threads, report folder (default: reports/sweep--<slug>/), quiet.
    #[command(flatten)]
    pub play: PlayOptions,
    /// Continue an interrupted sweep: keep the points it finished (saved in the report
    /// folder's `sweep-state.json`) and play only the rest. The same command is required.
    #[arg(long)]
    pub resume: bool,
}

/// Options of `balance`.
#[derive(Args, Debug)]
pub struct BalanceArgs {
    /// Scenario to price (TOML).
    pub file: PathBuf,
    /// The field holding its price; `chariot.points` (plus the Hero's points when one rides).
    #[arg(long, default_value = "chariot.points")]
    pub price: String,
    /// Reference scenario whose efficiency the fair price matches.
    #[arg(long, conflicts_with = "target_efficiency", required_unless_present = "target_efficiency")]
    pub against: Option<PathBuf>,
    /// Efficiency to match instead (enemy points destroyed per point spent).
    #[arg(long, value_parser = parse_target)]
    pub target_efficiency: Option<f64>,
    /// Trials, seed, threads, report folder (default: reports/balance--<slug>/), quiet.
    #[command(flatten)]
    pub play: PlayOptions,
}

/// The default cap of `--target-ci`.
pub const DEFAULT_MAX_TRIALS: u64 = 100_000_000;

fn parse_target(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x < 1e6 => Ok(x),
        _ => Err(format!("--target-ci takes a positive half-width such as 0.001, not {text:?}")),
    }
}

/// Set by Ctrl-C (SIGINT): runs stop at the next block of trials and write nothing partial.
static CANCEL: AtomicBool = AtomicBool::new(false);

/// The exit code of a run stopped by Ctrl-C (128 + SIGINT, as shells expect).
pub const INTERRUPTED_EXIT: u8 = 130;

/// Makes Ctrl-C stop runs at the next block (within a second); a second Ctrl-C exits at once.
fn handle_interrupts() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let installed = ctrlc::set_handler(|| {
            if CANCEL.swap(true, std::sync::atomic::Ordering::SeqCst) {
                std::process::exit(i32::from(INTERRUPTED_EXIT));
            }
            eprintln!("\ninterrupted: stopping at the next block of trials (Ctrl-C again to quit at once)");
        });
        // Without a handler Ctrl-C still ends the process, and atomic writes still leave
        // nothing half-written; only the tidy stop is lost.
        if let Err(e) = installed {
            eprintln!("warning: cannot handle Ctrl-C ({e}); it will end runs abruptly");
        }
    });
}

/// Runs the parsed command line.
pub fn main_with(cli: Cli) -> Result<()> {
    handle_interrupts();
    match cli.command {
        Command::Run(args) => run(args),
        Command::Validate { files } => validate(&files),
        Command::Replay { file, trial, seed, json } => replay(file.as_deref(), trial, seed, json),
        Command::Exact { file, out, json } => exact(file.as_deref(), out, json),
        Command::Merge { paths, out, quiet } => merge(&paths, out, quiet),
        Command::Compare(args) => compare(args),
        Command::Balance(args) => balance(args),
        Command::Sweep(args) => sweep(args),
    }
}

/// A request this version cannot carry out for that scenario (an option its rule system
/// does not have yet): bad input, exit code 2, never a silent approximation.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UnsupportedRequest(pub String);

/// The exit code for an error: 2 for bad input (a scenario, a `--set`, a price field, an
/// option the scenario's rule system does not have), 130 for Ctrl-C, 1 for anything else.
pub fn exit_code(error: &anyhow::Error) -> u8 {
    if error.chain().any(|e| e.downcast_ref::<resolve::Interrupted>().is_some()) {
        return INTERRUPTED_EXIT;
    }
    let bad_input = |e: &(dyn std::error::Error + 'static)| {
        e.downcast_ref::<ScenarioError>().is_some()
            || e.downcast_ref::<crate::sweep::SweepError>().is_some()
            || e.downcast_ref::<crate::balance::BalanceError>().is_some()
            || e.downcast_ref::<UnsupportedRequest>().is_some()
    };
    if error.chain().any(bad_input) { 2 } else { 1 }
}

/// A scenario of either rule system.
enum Loaded {
    /// Middle-earth SBG.
    Mesbg(Box<Scenario>),
    /// BATTLESYSTEM.
    Battle(Box<BattleScenario>),
}

/// Reads a scenario of either system (the bundled default without a file).
fn load_any(file: Option<&Path>) -> Result<Loaded, ScenarioError> {
    let Some(path) = file else {
        return scenario::parse(scenario::DEFAULT_SCENARIO, scenario::DEFAULT_SCENARIO_NAME)
            .map(|s| Loaded::Mesbg(Box::new(s)));
    };
    let text = scenario::read(path)?;
    let name = path.display().to_string();
    match system_of(&text) {
        SystemField::Battlesystem => crate::battle::scenario::parse(&text, &name).map(|s| Loaded::Battle(Box::new(s))),
        SystemField::Mesbg | SystemField::Unreadable => {
            scenario::parse(&text, &name).map(|s| Loaded::Mesbg(Box::new(s)))
        }
        SystemField::Other(found) => Err(ScenarioError::Invalid {
            file: name,
            problems: vec![scenario::Problem {
                field: "system".into(),
                line: scenario::locate(&text, "system"),
                message: format!("unknown system {found}; allowed: \"mesbg\", \"battlesystem\""),
            }],
        }),
    }
}

/// Reads a MESBG scenario, for the commands that cover MESBG only (a BATTLESYSTEM file
/// is refused with the commands it works with).
fn load(file: Option<&Path>) -> Result<Scenario, ScenarioError> {
    match load_any(file)? {
        Loaded::Mesbg(s) => Ok(*s),
        Loaded::Battle(s) => Err(ScenarioError::Invalid {
            file: s.file.clone(),
            problems: vec![scenario::Problem {
                field: "system".into(),
                line: file.and_then(|f| std::fs::read_to_string(f).ok()).and_then(|t| scenario::locate(&t, "system")),
                message: scenario::BATTLESYSTEM_COMMANDS.into(),
            }],
        }),
    }
}

fn validate(files: &[PathBuf]) -> Result<()> {
    let mut failed = None;
    for file in files {
        match load_any(Some(file)) {
            Ok(Loaded::Battle(s)) => out!("{}: {}", file.display(), battle::describe(&s)),
            Ok(Loaded::Mesbg(s)) => {
                let plan = plan::compile(&s);
                out!(
                    "{}: ok ({} models, {} on the chariot's path{})",
                    file.display(),
                    plan.models.len(),
                    plan.models_on_path(),
                    if plan.breakthrough_possible { ", breakthrough possible" } else { "" }
                );
                for line in support_lines(&plan) {
                    out!("  {line}");
                }
            }
            Err(e) => {
                eprintln!("{e}");
                failed = Some(e);
            }
        }
    }
    match failed {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// What helps the enemy at each place the chariot may stop, when every model it touches
/// there survives its Impact Hits: the supporting spears and pikes (by name) and a banner
/// in range. Empty when the scenario has none.
fn support_lines(plan: &Plan) -> Vec<String> {
    if !plan.support.any() {
        return Vec::new();
    }
    plan.groups
        .iter()
        .enumerate()
        .map(|(g, group)| {
            let all = vec![plan::support::Presence { in_fight: true, rider: true, prone: false }; group.models.len()];
            let support = plan.foe_support(g, &all);
            let fighting: Vec<String> = group.models.iter().map(|&m| plan.model_label(m)).collect();
            let supporters: Vec<String> = support.supporters.iter().map(|s| plan.model_label(s.model)).collect();
            format!(
                "if it stops at {:.2}\" against {}: {}{}",
                group.distance,
                fighting.join(", "),
                if supporters.is_empty() {
                    "no supporters".to_string()
                } else {
                    format!("supported by {}", supporters.join(", "))
                },
                if support.banner { "; a banner within 3\" (one duel die may be re-rolled)" } else { "" }
            )
        })
        .collect()
}

fn run(args: RunArgs) -> Result<()> {
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

/// The folder name of a comparison: `compare-` and the scenarios' slugs, kept short.
fn comparison_slug(scenarios: &[Scenario]) -> String {
    let mut slug = String::from("compare");
    for s in scenarios {
        slug.push_str("--");
        slug.extend(s.slug().chars().take(24));
    }
    slug.chars().take(120).collect()
}

fn write_trials(scenario: &Scenario, record: &RunRecord, path: &Path, pool: &rayon::ThreadPool) -> Result<()> {
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

/// The text of a scenario file (the bundled default's text without a file).
fn scenario_text(file: Option<&Path>) -> Result<String> {
    match file {
        Some(path) => std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display())),
        None => Ok(scenario::DEFAULT_SCENARIO.to_string()),
    }
}

fn run_shard(
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

fn compare(args: CompareArgs) -> Result<()> {
    let a = load(Some(&args.a))?;
    let b = match (&args.b, args.sets.is_empty()) {
        (Some(path), true) => load(Some(path))?,
        (None, false) => {
            let sets = args.sets.iter().map(|s| crate::sweep::parse_set(s)).collect::<Result<Vec<_>, _>>()?;
            if let Some(many) = sets.iter().find(|s| s.values.len() != 1) {
                return Err(crate::sweep::SweepError::BadSet {
                    text: many.path.clone(),
                    reason: "compare sets one value per field (use sweep for several)".into(),
                }
                .into());
            }
            let mut points = crate::sweep::points(&scenario_text(Some(&args.a))?, &a.file, &sets)?;
            points.remove(0).scenario
        }
        _ => anyhow::bail!("compare takes A.toml B.toml, or A.toml with --set PATH=VALUE to make B (not both)"),
    };
    let trials = args.play.trials.unwrap_or(a.trials);
    let seed = args.play.seed.unwrap_or(a.seed);
    let pool = args.play.pool()?;
    let (plan_a, plan_b) = (plan::compile(&a), plan::compile(&b));
    // Common random numbers: both play A's streams.
    let streams = Streams::new(seed, a.hash());
    let bar = if args.play.quiet { ProgressBar::hidden() } else { ProgressBar::new(trials) };
    let cancel = &CANCEL;
    let started = Instant::now();
    let play = |range: TrialRange| {
        pool.install(|| crate::paired::run(&plan_a, &plan_b, streams, range, &|n| bar.inc(n), cancel))
            .context("the comparison was interrupted")
    };
    let mut sums = play(TrialRange { first: 0, count: trials })?;
    if let Some(target) = args.precision.target_ci {
        let cap = args.precision.max_trials.unwrap_or(DEFAULT_MAX_TRIALS).max(trials);
        loop {
            let widest =
                crate::paired::differences(&sums).iter().map(|d| (d.ci95_hi - d.ci95_lo) / 2.0).fold(0.0, f64::max);
            if widest < target || sums.n >= cap {
                if !args.play.quiet {
                    out!(
                        "--target-ci {target}: {} after {} trials (widest half-width {widest:.6})",
                        if widest < target { "reached" } else { "NOT reached (raise --max-trials)" },
                        group_digits(sums.n)
                    );
                }
                break;
            }
            let next = sums.n.saturating_mul(2).min(cap);
            bar.set_length(next);
            let more = play(TrialRange { first: sums.n, count: next - sums.n })?;
            sums.add(&more);
        }
    }
    let trials = sums.n;
    bar.finish_and_clear();
    let quote = |p: &Path| shell_quote(&p.display().to_string());
    let run = crate::paired::PairedRun {
        rulesets: [a.ruleset(), b.ruleset()],
        titles: [a.title.clone(), b.title.clone()],
        files: [a.file.clone(), b.file.clone()],
        trials,
        seed,
        rows: crate::paired::differences(&sums),
        command: format!(
            "charioteer compare {}{}{} --seed {seed} --trials {trials}",
            quote(&args.a),
            args.b.as_deref().map(|b| format!(" {}", quote(b))).unwrap_or_default(),
            args.sets.iter().map(|s| format!(" --set {}", shell_quote(s))).collect::<String>()
        ),
    };
    let dir = args.play.out.unwrap_or_else(|| {
        let slug = |s: &Scenario| s.slug().chars().take(40).collect::<String>();
        PathBuf::from("reports").join(format!("paired--{}--{}", slug(&a), slug(&b)))
    });
    let written = report::write_paired(&dir, &run)?;
    if !args.play.quiet {
        out!("A: {}\nB: {}", a.title, b.title);
        out!(
            "{} paired trials in {:.2} s, seed {seed} (common random numbers)",
            group_digits(trials),
            started.elapsed().as_secs_f64()
        );
        out!("{:<22} {:>10} {:>10}   {:<26} {:>10}", "metric", "A", "B", "A - B (95% half-width)", "p");
        for d in &run.rows {
            let fmt = |v: f64| if d.metric.is_flag() { format!("{:.2}%", v * 100.0) } else { format!("{v:.4}") };
            out!(
                "{:<22} {:>10} {:>10}   {:<26} {:>10}",
                d.metric.name(),
                fmt(d.mean_a),
                fmt(d.mean_b),
                crate::document::difference_words(d),
                crate::document::p_words(d.p_value)
            );
        }
        out!("report: {} ({} files)", dir.join("report.md").display(), written.len());
    }
    Ok(())
}

/// The checkpoint of a sweep in its report folder: the tallies of the points finished.
const SWEEP_STATE: &str = "sweep-state.json";

/// What `sweep-state.json` holds.
#[derive(serde::Serialize, serde::Deserialize)]
struct SweepState {
    /// The sweep it belongs to (scenario hash, seed, trials, sets, precision).
    key: String,
    /// (point index, its tally) for every finished point.
    finished: Vec<(usize, crate::tally::Tally)>,
}

fn read_sweep_state(path: &Path) -> Result<SweepState> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--resume needs {} from an interrupted sweep", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not a sweep checkpoint", path.display()))
}

fn write_sweep_state(path: &Path, key: &str, finished: &[Option<crate::tally::Tally>]) -> Result<()> {
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

fn sweep(args: SweepArgs) -> Result<()> {
    let base = load(Some(&args.file))?;
    let text = scenario_text(Some(&args.file))?;
    let sets = args.sets.iter().map(|s| crate::sweep::parse_set(s)).collect::<Result<Vec<_>, _>>()?;
    let points = crate::sweep::points(&text, &base.file, &sets)?;
    let trials = args.play.trials.unwrap_or(base.trials);
    let seed = args.play.seed.unwrap_or(base.seed);
    let pool = args.play.pool()?;
    let total = trials.saturating_mul(points.len() as u64);
    let bar = if args.play.quiet { ProgressBar::hidden() } else { ProgressBar::new(total) };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} {wide_bar} {human_pos}/{human_len} trials over the grid, {per_sec}, eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // Common random numbers: every point plays the base scenario's streams.
    let streams = Streams::new(seed, base.hash());
    let cancel = &CANCEL;
    let started = Instant::now();
    let dir = args.play.out.clone().unwrap_or_else(|| PathBuf::from("reports").join(format!("sweep--{}", base.slug())));
    let sets_text: String = args.sets.iter().map(|s| format!(" --set {}", shell_quote(s))).collect();
    let state_key = format!(
        "{:016x} seed {seed} trials {trials}{sets_text} target {:?} cap {:?}",
        base.hash(),
        args.precision.target_ci,
        args.precision.max_trials
    );
    let state_path = dir.join(SWEEP_STATE);
    let mut finished: Vec<Option<crate::tally::Tally>> = vec![None; points.len()];
    if args.resume {
        let state = read_sweep_state(&state_path)?;
        anyhow::ensure!(
            state.key == state_key,
            "{} was written by a different sweep ({}); run the same command with --resume, or drop --resume to start again",
            state_path.display(),
            state.key
        );
        for (index, tally) in state.finished {
            if let Some(slot) = finished.get_mut(index) {
                bar.inc(tally.trials);
                *slot = Some(tally);
            }
        }
    }
    let mut rows = Vec::with_capacity(points.len());
    for (index, point) in points.iter().enumerate() {
        let plan = plan::compile(&point.scenario);
        if let Some(tally) = &finished[index] {
            rows.push(crate::sweep::SweepRow {
                values: point.values.clone(),
                trials: tally.trials,
                summary: crate::analysis::summarize(tally, &plan.metrics),
            });
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
        let mut tally = pool
            .install(|| resolve::run(&plan, streams, range, &|n| bar.inc(n), cancel))
            .map_err(|e| anyhow::Error::new(e).context(interrupted(done_so_far)))?;
        if let Some(target) = args.precision.target_ci {
            let cap = args.precision.max_trials.unwrap_or(DEFAULT_MAX_TRIALS).max(trials);
            while worst_half_width(&tally, &plan.metrics).1 >= target && tally.trials < cap {
                let next = tally.trials.saturating_mul(2).min(cap);
                bar.inc_length(next - tally.trials);
                let range = TrialRange { first: tally.trials, count: next - tally.trials };
                let more = pool
                    .install(|| resolve::run(&plan, streams, range, &|n| bar.inc(n), cancel))
                    .map_err(|e| anyhow::Error::new(e).context(interrupted(done_so_far)))?;
                tally.merge(&more);
            }
        }
        finished[index] = Some(tally.clone());
        write_sweep_state(&state_path, &state_key, &finished)?;
        rows.push(crate::sweep::SweepRow {
            values: point.values.clone(),
            trials: tally.trials,
            summary: crate::analysis::summarize(&tally, &plan.metrics),
        });
    }
    bar.finish_and_clear();
    let run = crate::sweep::SweepRun {
        ruleset: base.ruleset(),
        title: base.title.clone(),
        paths: sets.iter().map(|a| a.path.clone()).collect(),
        axes: sets.iter().map(|a| a.values.iter().map(crate::sweep::value_text).collect()).collect(),
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
    let written = report::write_sweep(&dir, &run)?;
    // The report holds everything now; the checkpoint would only mislead a later --resume.
    let _ = std::fs::remove_file(&state_path);
    if !args.play.quiet {
        out!("{}", base.title);
        out!(
            "{} points x {} trials in {:.2} s, seed {seed} (common random numbers)",
            run.rows.len(),
            group_digits(trials),
            started.elapsed().as_secs_f64()
        );
        let metrics = crate::document::shared_headline(&run.metrics());
        let mut header: Vec<String> = run.paths.clone();
        header.extend(metrics.iter().map(|m| m.name().to_string()));
        out!("{}", header.iter().map(|h| format!("{h:>22}")).collect::<String>());
        for row in &run.rows {
            let mut cells = row.values.clone();
            for m in &metrics {
                let s = row.summary.iter().find(|s| s.metric == *m);
                cells.push(s.map_or_else(String::new, |s| crate::document::headline_value(s).0));
            }
            out!("{}", cells.iter().map(|c| format!("{c:>22}")).collect::<String>());
        }
        out!("report: {} ({} files)", dir.join("report.md").display(), written.len());
    }
    Ok(())
}

fn balance(args: BalanceArgs) -> Result<()> {
    let a = load(Some(&args.file))?;
    let trials = args.play.trials.unwrap_or(a.trials);
    let seed = args.play.seed.unwrap_or(a.seed);
    let pool = args.play.pool()?;
    let plan_a = plan::compile(&a);
    let pricing_a = crate::balance::pricing(&a, &plan_a, &args.price)?;
    let streams = Streams::new(seed, a.hash());
    let bar = if args.play.quiet { ProgressBar::hidden() } else { ProgressBar::new(trials) };
    let cancel = &CANCEL;
    let range = TrialRange { first: 0, count: trials };
    let quote = |p: &Path| shell_quote(&p.display().to_string());
    let (fair, reference_title, command) = match (&args.against, args.target_efficiency) {
        (Some(path), _) => {
            let r = load(Some(path))?;
            let plan_r = plan::compile(&r);
            let pricing_r = crate::balance::pricing(&r, &plan_r, &args.price)?;
            let sums = pool
                .install(|| crate::paired::run(&plan_a, &plan_r, streams, range, &|n| bar.inc(n), cancel))
                .context("the balance run was interrupted")?;
            let fair = crate::balance::fair_price_against(&sums, pricing_a, pricing_r)
                .context("the reference slays nothing, so no price matches its efficiency")?;
            let command = format!(
                "charioteer balance {} --price {} --against {} --seed {seed} --trials {trials}",
                quote(&args.file),
                args.price,
                quote(path)
            );
            (fair, Some((r.title.clone(), r.ruleset())), command)
        }
        (None, Some(target)) => {
            let tally = pool.install(|| resolve::run(&plan_a, streams, range, &|n| bar.inc(n), cancel))?;
            let kills = crate::analysis::summarize_metric(&tally, Metric::Kills);
            let fair = crate::balance::fair_price_for(&kills, tally.trials, pricing_a, target);
            let command = format!(
                "charioteer balance {} --price {} --target-efficiency {target} --seed {seed} --trials {trials}",
                quote(&args.file),
                args.price
            );
            (fair, None, command)
        }
        (None, None) => anyhow::bail!("balance needs --against REFERENCE.toml or --target-efficiency X"),
    };
    bar.finish_and_clear();
    anyhow::ensure!(
        fair.fair_price.is_finite(),
        "the reference slays nothing, so no price matches its efficiency: choose another reference"
    );
    let dir = args.play.out.unwrap_or_else(|| PathBuf::from("reports").join(format!("balance--{}", a.slug())));
    let mut rulesets = vec![(a.title.clone(), a.ruleset())];
    rulesets.extend(reference_title.clone());
    let run = crate::balance::BalanceRun {
        rulesets,
        title: a.title.clone(),
        reference: reference_title.map(|r| r.0),
        fair: fair.clone(),
        trials,
        seed,
        command,
    };
    let written = report::write_balance(&dir, &run)?;
    if !args.play.quiet {
        let s = &fair.scenario;
        out!("{}", a.title);
        out!(
            "price {:.0} points: {:.3} enemy points destroyed per charge (+/- {:.3}), efficiency {:.4} per point, {:.2} models per 100 points",
            s.price,
            s.points_destroyed,
            crate::analysis::Z95 * s.points_destroyed_se,
            s.efficiency,
            s.kills_per_100_points
        );
        if let (Some(r), Some(name)) = (&fair.reference, &run.reference) {
            out!("reference {name}: price {:.0}, efficiency {:.4} per point", r.price, r.efficiency);
        }
        out!(
            "fair price {:.2} points (95% CI {:.2} to {:.2}), {} trials, seed {seed}",
            fair.fair_price,
            fair.ci95_lo,
            fair.ci95_hi,
            group_digits(trials)
        );
        out!("report: {} ({} files)", dir.join("report.md").display(), written.len());
    }
    Ok(())
}

fn merge(paths: &[PathBuf], out: Option<PathBuf>, quiet: bool) -> Result<()> {
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

/// The progress bar of a run of `trials` trials (hidden when quiet).
fn trial_bar(trials: u64, hidden: bool) -> ProgressBar {
    let bar = if hidden { ProgressBar::hidden() } else { ProgressBar::new(trials) };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {wide_bar} {human_pos}/{human_len} trials, {per_sec}, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

fn run_one(scenario: &Scenario, file: Option<&Path>, args: &RunArgs, pool: &rayon::ThreadPool) -> Result<RunRecord> {
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

/// The reported metric with the widest 95% interval, and its half-width.
fn worst_half_width(tally: &crate::tally::Tally, metrics: &[Metric]) -> (Metric, f64) {
    crate::analysis::summarize(tally, metrics)
        .iter()
        .map(|s| (s.metric, (s.ci95_hi - s.ci95_lo) / 2.0))
        .fold((Metric::Kills, 0.0), |worst, m| if m.1 > worst.1 { m } else { worst })
}

fn shell_quote(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The rule options and policies in force on one line (`name=value`, a changed default
/// marked `*`); report.md and run.json give each one's meaning.
fn ruleset_line(ruleset: &[crate::scenario::RuleOption]) -> String {
    ruleset
        .iter()
        .map(|o| {
            let name = o.name.strip_prefix("chariot.hero.").unwrap_or(&o.name);
            let changed = if o.value == o.default { "" } else { "*" };
            format!("{name}={}{changed}", o.value)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn print_table(record: &RunRecord) {
    out!("{}", record.title);
    out!(
        "{} trials in {:.2} s ({:.1} M trials/s on {}), seed {}, scenario {:016x}",
        group_digits(record.trials),
        record.elapsed_s,
        record.trials_per_second() / 1e6,
        record.played_on(),
        record.seed,
        record.scenario_hash
    );
    let pivots: Vec<String> = record.plan.pivots.iter().map(|p| format!("{p:+.0}")).collect();
    out!(
        "path: pivots [{}] deg, {:.1}\" driven, {} models in reach, {} contacts{}{}",
        pivots.join(", "),
        record.plan.path_length,
        record.plan.models_on_path,
        record.plan.contacts.len(),
        record.plan.obstacle.as_ref().map(|o| format!(", ends at obstacle \"{o}\"")).unwrap_or_default(),
        if record.plan.breakthrough_possible { ", breakthrough possible" } else { ", no breakthrough possible" }
    );
    out!("ruleset: {}", ruleset_line(&record.ruleset));
    let exact = record.exact.as_ref().ok();
    match &record.exact {
        Ok(_) => {
            out!("{:<22} {:>10}   {:<22} {:>10} {:>7}  meaning", "metric", "mean", "95% interval", "exact", "z")
        }
        Err(_) => out!("{:<22} {:>10}   {:<22} meaning", "metric", "mean", "95% interval"),
    }
    for s in &record.summary {
        let (mean, lo, hi) = if s.metric.is_flag() {
            (
                format!("{:.2}%", 100.0 * s.mean),
                format!("{:.2}%", 100.0 * s.ci95_lo),
                format!("{:.2}%", 100.0 * s.ci95_hi),
            )
        } else {
            (format!("{:.4}", s.mean), format!("{:.4}", s.ci95_lo), format!("{:.4}", s.ci95_hi))
        };
        let interval = format!("{lo} - {hi}");
        match exact.and_then(|rows| rows.iter().find(|a| a.metric == s.metric)) {
            Some(a) => {
                let value =
                    if s.metric.is_flag() { format!("{:.2}%", 100.0 * a.exact) } else { format!("{:.4}", a.exact) };
                out!(
                    "{:<22} {:>10}   {:<22} {:>10} {:>+7.2}  {}",
                    s.metric.name(),
                    mean,
                    interval,
                    value,
                    a.z,
                    s.metric.describe()
                );
            }
            None => out!("{:<22} {:>10}   {:<22} {}", s.metric.name(), mean, interval, s.metric.describe()),
        }
    }
    if let Err(reason) = &record.exact {
        out!("({reason})");
    }
    if let Some(p) = &record.precision {
        out!(
            "--target-ci {}: {} after {} trials (widest: {} +/- {:.6}{})",
            p.target,
            if p.reached { "reached" } else { "NOT reached" },
            group_digits(record.trials),
            p.worst_metric.name(),
            p.half_width,
            if p.reached {
                String::new()
            } else {
                format!("; capped at {} trials, raise --max-trials", group_digits(p.cap))
            }
        );
    }
}

fn exact(file: Option<&Path>, out: Option<PathBuf>, json: bool) -> Result<()> {
    let scenario = load(file)?;
    let plan = plan::compile(&scenario);
    let started = Instant::now();
    let result = crate::exact::exact(&plan);
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
            } else {
                out!("{}", scenario.title);
                out!("{reason}");
                out!("not computed exactly: {} (use `charioteer run`)", names.join(", "));
            }
            return Ok(());
        }
    };
    let written = report::write_exact(&dir, &scenario, &plan, &distribution, elapsed)?;
    if json {
        out!("{}", serde_json::to_string_pretty(&report::exact_json(&scenario, &plan, &distribution, elapsed))?);
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

fn replay(file: Option<&Path>, trial: u64, seed: Option<u64>, json: bool) -> Result<()> {
    let scenario = match load_any(file)? {
        Loaded::Battle(s) => return battle::replay(&s, trial, seed, json),
        Loaded::Mesbg(s) => *s,
    };
    let seed = seed.unwrap_or(scenario.seed);
    let plan = plan::compile(&scenario);
    let streams = Streams::new(seed, scenario.hash());
    let (outcome, events) = resolve::replay(&plan, streams, trial);
    if json {
        let metrics: serde_json::Map<String, serde_json::Value> =
            Metric::ALL.iter().map(|m| (m.name().to_string(), outcome.get(*m).into())).collect();
        let value = serde_json::json!({ "trial": trial, "seed": seed, "events": events, "metrics": metrics });
        out!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
    }
    out!("{} - trial {trial}, seed {seed}", scenario.title);
    for event in &events {
        out!("  {}", describe_event(&plan, event));
    }
    for m in Metric::ALL {
        out!("  {:<22} {}", m.name(), outcome.get(m));
    }
    Ok(())
}

fn describe_event(plan: &Plan, event: &Event) -> String {
    match event {
        Event::Contact { distance, model, outcome: o } => {
            let plural = |n: u8| if n == 1 { "" } else { "s" };
            let mut text = format!(
                "at {distance:.2}\": touches {} - {} Impact Hit{}, {} Wound{}",
                plan.model_label(*model),
                o.hits,
                plural(o.hits),
                o.wounds,
                plural(o.wounds)
            );
            if o.fate_spent > 0 {
                text.push_str(&format!(" after {} Fate point{} spent", o.fate_spent, plural(o.fate_spent)));
            }
            if let Some((mh, mw)) = o.mount {
                text.push_str(&format!("; mount {mh} hit{}, {mw} Wound{}", plural(mh), plural(mw)));
            }
            if let Some(die) = o.thrown {
                let what = match die {
                    1 => "Knocked Flying",
                    6 => "Leaps into Action",
                    _ => "Rises from the Dust",
                };
                text.push_str(&format!("; Thrown Rider {die}: {what}"));
            }
            text.push_str(if o.passed {
                ", slain: the chariot drives on"
            } else if o.casualty {
                ", rider slain, the mount stands"
            } else {
                ", survives"
            });
            text
        }
        Event::KnockedFlying { model, wounded } => format!(
            "{} is Knocked Flying (Strength 3 hit): {}",
            plan.model_label(*model),
            if *wounded { "wounded" } else { "unhurt, Prone" }
        ),
        Event::Stopped { distance, by } => format!(
            "stops at {distance:.2}\" in base contact with {}",
            by.iter().map(|m| plan.model_label(*m)).collect::<Vec<_>>().join(", ")
        ),
        Event::DroveOn { breakthrough } => {
            format!(
                "drives its full Move{}",
                if *breakthrough { ", through every formation: breakthrough" } else { "" }
            )
        }
        Event::Support { supporters, banner } => {
            let mut parts = Vec::new();
            if !supporters.is_empty() {
                parts.push(format!(
                    "supported by {} (a die each, a Strike each if they win)",
                    supporters.iter().map(|m| plan.model_label(*m)).collect::<Vec<_>>().join(", ")
                ));
            }
            if *banner {
                parts.push("a banner within 3\" (one duel die may be re-rolled)".to_string());
            }
            format!("the enemy is {}", parts.join("; "))
        }
        Event::Duel { chariot_dice, enemy_dice, chariot_high, enemy_high, roll_off, chariot_won } => format!(
            "duel: chariot {chariot_dice} dice, high {chariot_high}; enemy {enemy_dice} dice, high {enemy_high}{}; {}",
            roll_off.map(|d| format!("; roll-off {d}")).unwrap_or_default(),
            if *chariot_won { "the chariot wins" } else { "the enemy wins" }
        ),
        Event::Fight { chariot_won, kills, wounds_lost } => format!(
            "fight result: {}, {kills} slain by its Strikes, {wounds_lost} Wound{} lost",
            if *chariot_won { "the chariot won" } else { "the chariot lost" },
            if *wounds_lost == 1 { "" } else { "s" }
        ),
        Event::Note { text } => format!("({text})"),
        Event::BacksAway { ours, roll } => format!(
            "chariot against chariot: {} Backs Away{}",
            if *ours { "our chariot" } else { "the enemy chariot" },
            roll.map(|d| format!(" (same size, D6 {d})")).unwrap_or_default()
        ),
        Event::TerrainTest { roll, might } => format!(
            "difficult-terrain test on entering: rolls {roll}{}",
            if *might > 0 {
                ", the Hero spends 1 Might to make it a 2: no harm"
            } else if *roll == 1 {
                ", the chariot suffers a Wound at once"
            } else {
                ", no harm"
            }
        ),
        Event::SlainByTerrain { distance } => {
            format!("the chariot is slain by the difficult terrain at {distance:.2}\" and stops there")
        }
        Event::StrikesDeclared { split } => format!(
            "the chariot declares its Strikes before rolling: {}",
            split.iter().map(|(m, k)| format!("{k} at {}", plan.model_label(*m))).collect::<Vec<_>>().join(", ")
        ),
        Event::Obstacle { wounding_hits } => {
            format!("drives into the obstacle: 3 hits at Strength 6 each way, {wounding_hits} wound the chariot")
        }
        Event::Might { points, on } => format!("the Hero spends {points} Might on the {on} roll"),
        Event::FoeMight { model, points, on } => {
            format!("{} spends {points} Might on the {on} roll", plan.model_label(*model))
        }
        Event::FoeFate { model, points, saved } => format!(
            "{} spends {points} Fate point{} against a Wound: {}",
            plan.model_label(*model),
            if *points == 1 { "" } else { "s" },
            if *saved { "prevented" } else { "no save" }
        ),
        Event::Fate { rolls, might, saved } => {
            format!(
                "the Hero spends {} Fate point{}: rolls {}{}, {}",
                rolls.len(),
                if rolls.len() == 1 { "" } else { "s" },
                rolls.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", "),
                if *might > 0 { format!(" (+{might} Might on the last)") } else { String::new() },
                if *saved { "the Wound is prevented" } else { "no save" }
            )
        }
        Event::Thrown { wounds, slain } => format!(
            "the chariot is slain: the Hero is thrown (Strength 3 hit): {wounds} Wound{}{}",
            if *wounds == 1 { "" } else { "s" },
            if *slain { ", slain" } else { ", Prone" }
        ),
        Event::Strike { by, target, rolls, wounds, slain } => match (by, target) {
            (_, Some(t)) => format!(
                "chariot strikes {} ({rolls} roll{}): {wounds} Wound{}{}",
                plan.model_label(*t),
                if *rolls == 1 { "" } else { "s" },
                if *wounds == 1 { "" } else { "s" },
                if *slain { ", slain" } else { "" }
            ),
            (Some(b), None) => format!(
                "{} strikes the chariot: {wounds} Wound{}{}",
                plan.model_label(*b),
                if *wounds == 1 { "" } else { "s" },
                if *slain { ", the chariot is slain" } else { "" }
            ),
            (None, None) => String::from("strike"),
        },
    }
}

/// Set once standard output can no longer be written (its reader went away).
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes to standard output. A reader that has gone away (`charioteer ... | head`) is not
/// an error: the rest of the output is dropped quietly and the command finishes its work,
/// reports included. Any other failure to write is said once on standard error.
pub(crate) fn emit(text: std::fmt::Arguments) {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    if let Err(error) = std::io::stdout().lock().write_fmt(text) {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
        if error.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("warning: cannot write to standard output ({error}); the rest is dropped");
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn digits_are_grouped() {
        assert_eq!(super::group_digits(0), "0");
        assert_eq!(super::group_digits(999), "999");
        assert_eq!(super::group_digits(1000), "1,000");
        assert_eq!(super::group_digits(1_234_567), "1,234,567");
    }

    #[test]
    fn shell_quoting() {
        assert_eq!(super::shell_quote("scenarios/a.toml"), "scenarios/a.toml");
        assert_eq!(super::shell_quote("my file's.toml"), "'my file'\\''s.toml'");
    }
}
