//! The `charioteer` command line: clap definitions, then validated options, then the
//! library. Bad input (a scenario error) exits with code 2, other failures with 1.

use crate::document::group_digits;
use crate::plan::{self, Plan};
use crate::report::{self, RunRecord};
use crate::resolve::{self, Event, Streams, TrialRange};
use crate::scenario::{self, MAX_TRIALS, Scenario, ScenarioError};
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
    /// Number of trials (default: the scenario's `trials`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_TRIALS))]
    pub trials: Option<u64>,
    /// Seed (default: the scenario's `seed`).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads (default: all cores, or RAYON_NUM_THREADS). Results do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
    /// Report folder (default: reports/<scenario-slug>/; with several files, one sub-folder each).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print one JSON object per scenario on standard output instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also write every trial's metrics as Parquet rows to FILE (one scenario only; the
    /// trials are played a second time, in chunks, so memory stays flat).
    #[arg(long, value_name = "FILE")]
    pub trials_out: Option<PathBuf>,
}

/// Runs the parsed command line.
pub fn main_with(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Run(args) => run(args),
        Command::Validate { files } => validate(&files),
        Command::Replay { file, trial, seed, json } => replay(file.as_deref(), trial, seed, json),
        Command::Exact { file, out, json } => exact(file.as_deref(), out, json),
    }
}

/// The exit code for an error: 2 for bad input, 1 for anything else.
pub fn exit_code(error: &anyhow::Error) -> u8 {
    if error.chain().any(|e| e.downcast_ref::<ScenarioError>().is_some()) { 2 } else { 1 }
}

fn load(file: Option<&Path>) -> Result<Scenario, ScenarioError> {
    match file {
        Some(path) => scenario::load(path),
        None => scenario::parse(scenario::DEFAULT_SCENARIO, scenario::DEFAULT_SCENARIO_NAME),
    }
}

fn validate(files: &[PathBuf]) -> Result<()> {
    let mut failed = None;
    for file in files {
        match scenario::load(file) {
            Ok(s) => {
                let plan = plan::compile(&s);
                println!(
                    "{}: ok ({} models, {} on the chariot's path{})",
                    file.display(),
                    plan.models.len(),
                    plan.models_on_path(),
                    if plan.breakthrough_possible { ", breakthrough possible" } else { "" }
                );
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

fn run(args: RunArgs) -> Result<()> {
    let files: Vec<Option<&Path>> =
        if args.files.is_empty() { vec![None] } else { args.files.iter().map(|f| Some(f.as_path())).collect() };
    // Every file is validated before any trial runs: one typo must not waste a long run.
    let scenarios = files.iter().map(|f| load(*f)).collect::<Result<Vec<_>, _>>()?;
    let pool = match args.threads {
        Some(n) => {
            rayon::ThreadPoolBuilder::new().num_threads(n as usize).build().context("cannot start worker threads")?
        }
        None => rayon::ThreadPoolBuilder::new().build().context("cannot start worker threads")?,
    };
    if args.trials_out.is_some() && scenarios.len() > 1 {
        anyhow::bail!("--trials-out writes the trials of one scenario: give a single scenario file with it");
    }
    let mut records = Vec::with_capacity(scenarios.len());
    for (scenario, file) in scenarios.iter().zip(&files) {
        let out = match (&args.out, scenarios.len()) {
            (Some(dir), 1) => dir.clone(),
            (Some(dir), _) => dir.join(scenario.slug()),
            (None, _) => PathBuf::from("reports").join(scenario.slug()),
        };
        let record = run_one(scenario, *file, &args, &pool)?;
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
        if let Some(path) = &args.trials_out {
            write_trials(scenario, &record, path, &pool)?;
        }
        if args.json {
            println!("{}", serde_json::to_string(&record.to_json())?);
        } else if !args.quiet {
            print_table(&record);
            println!("report: {} ({} files)", out.join("report.md").display(), written.len());
            if let Some(path) = &args.trials_out {
                println!("per-trial rows: {}", path.display());
            }
        }
        records.push(record);
    }
    if records.len() > 1 {
        let dir = match &args.out {
            Some(dir) => dir.join("comparison"),
            None => PathBuf::from("reports").join(comparison_slug(&scenarios)),
        };
        let written = report::write_comparison(&dir, &records)?;
        if !args.quiet && !args.json {
            println!("comparison: {} ({} files)", dir.join("report.md").display(), written.len());
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
    let cancel = AtomicBool::new(false);
    let done = pool.install(|| {
        report::write_trials_parquet(path, &plan.metrics, |sink| {
            resolve::for_each_chunk(&plan, streams, range, &cancel, sink)
        })
    })?;
    anyhow::ensure!(done, "writing {} was interrupted; nothing was left there", path.display());
    Ok(())
}

fn run_one(scenario: &Scenario, file: Option<&Path>, args: &RunArgs, pool: &rayon::ThreadPool) -> Result<RunRecord> {
    let trials = args.trials.unwrap_or(scenario.trials);
    let seed = args.seed.unwrap_or(scenario.seed);
    let plan = plan::compile(scenario);
    let streams = Streams::new(seed, scenario.hash());
    let bar = if args.quiet || args.json { ProgressBar::hidden() } else { ProgressBar::new(trials) };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {wide_bar} {human_pos}/{human_len} trials, {per_sec}, eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let cancel = AtomicBool::new(false);
    let started = Instant::now();
    let tally = pool
        .install(|| resolve::run(&plan, streams, TrialRange { first: 0, count: trials }, &|n| bar.inc(n), &cancel))?;
    let elapsed = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let file_arg = file.map(|f| format!(" {}", shell_quote(&f.display().to_string()))).unwrap_or_default();
    let command = format!("charioteer run{file_arg} --seed {seed} --trials {trials}");
    Ok(RunRecord::new(scenario, &plan, &tally, seed, pool.current_num_threads(), elapsed, command))
}

fn shell_quote(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn print_table(record: &RunRecord) {
    println!("{}", record.title);
    println!(
        "{} trials in {:.2} s ({:.1} M trials/s on {} thread{}), seed {}, scenario {:016x}",
        group_digits(record.trials),
        record.elapsed_s,
        record.trials_per_second() / 1e6,
        record.threads,
        if record.threads == 1 { "" } else { "s" },
        record.seed,
        record.scenario_hash
    );
    let pivots: Vec<String> = record.plan.pivots.iter().map(|p| format!("{p:+.0}")).collect();
    println!(
        "path: pivots [{}] deg, {:.1}\" driven, {} models in reach, {} contacts{}{}",
        pivots.join(", "),
        record.plan.path_length,
        record.plan.models_on_path,
        record.plan.contacts.len(),
        record.plan.obstacle.as_ref().map(|o| format!(", ends at obstacle \"{o}\"")).unwrap_or_default(),
        if record.plan.breakthrough_possible { ", breakthrough possible" } else { ", no breakthrough possible" }
    );
    let exact = record.exact.as_ref().ok();
    match &record.exact {
        Ok(_) => {
            println!("{:<22} {:>10}   {:<22} {:>10} {:>7}  meaning", "metric", "mean", "95% interval", "exact", "z")
        }
        Err(_) => println!("{:<22} {:>10}   {:<22} meaning", "metric", "mean", "95% interval"),
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
                println!(
                    "{:<22} {:>10}   {:<22} {:>10} {:>+7.2}  {}",
                    s.metric.name(),
                    mean,
                    interval,
                    value,
                    a.z,
                    s.metric.describe()
                );
            }
            None => println!("{:<22} {:>10}   {:<22} {}", s.metric.name(), mean, interval, s.metric.describe()),
        }
    }
    if let Err(reason) = &record.exact {
        println!("({reason})");
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
                println!("{}", serde_json::to_string_pretty(&value)?);
            } else {
                println!("{}", scenario.title);
                println!("{reason}");
                println!("not computed exactly: {} (use `charioteer run`)", names.join(", "));
            }
            return Ok(());
        }
    };
    let written = report::write_exact(&dir, &scenario, &plan, &distribution, elapsed)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report::exact_json(&scenario, &plan, &distribution, elapsed))?);
        return Ok(());
    }
    println!("{}", scenario.title);
    println!(
        "exact distribution of every metric in {:.3} ms ({} distinct outcomes)",
        elapsed * 1e3,
        distribution.outcomes.len()
    );
    println!("{:<22} {:>10} {:>10}   meaning", "metric", "mean", "sd");
    for &m in &plan.metrics {
        let s = distribution.summary(m);
        let mean = if m.is_flag() { format!("{:.4}%", 100.0 * s.mean) } else { format!("{:.5}", s.mean) };
        println!("{:<22} {:>10} {:>10.5}   {}", m.name(), mean, s.sd, m.describe());
    }
    println!("written: {}", written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    Ok(())
}

fn replay(file: Option<&Path>, trial: u64, seed: Option<u64>, json: bool) -> Result<()> {
    let scenario = load(file)?;
    let seed = seed.unwrap_or(scenario.seed);
    let plan = plan::compile(&scenario);
    let streams = Streams::new(seed, scenario.hash());
    let (outcome, events) = resolve::replay(&plan, streams, trial);
    if json {
        let metrics: serde_json::Map<String, serde_json::Value> =
            Metric::ALL.iter().map(|m| (m.name().to_string(), outcome.get(*m).into())).collect();
        let value = serde_json::json!({ "trial": trial, "seed": seed, "events": events, "metrics": metrics });
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
    }
    println!("{} - trial {trial}, seed {seed}", scenario.title);
    for event in &events {
        println!("  {}", describe_event(&plan, event));
    }
    for m in Metric::ALL {
        println!("  {:<22} {}", m.name(), outcome.get(m));
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
        Event::TerrainTest { roll } => format!(
            "difficult-terrain test: rolls {roll}{}",
            if *roll == 1 { ", the chariot suffers a Wound" } else { ", no harm" }
        ),
        Event::Obstacle { wounding_hits } => {
            format!("drives into the obstacle: 3 hits at Strength 6 each way, {wounding_hits} wound the chariot")
        }
        Event::Might { points, on } => format!("the Hero spends {points} Might on the {on} roll"),
        Event::Fate { roll, saved } => {
            format!(
                "the Hero spends a Fate point: rolls {roll}, {}",
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
