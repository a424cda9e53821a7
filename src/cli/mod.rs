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

mod balance;
mod battlesystem;
mod compare;
mod exact;
mod replay;
mod run;
#[cfg(feature = "serve")]
mod serve;
mod split;
mod sweep;
mod system;
mod turn;
mod validate;

use crate::battlesystem::scenario::BattlesystemScenario;
use crate::mesbg::plan::{self, Plan};
use crate::mesbg::resolve::{self, Event, Streams, TrialRange};
use crate::mesbg::scenario::{self, MAX_TRIALS, Scenario, ScenarioError};
use crate::mesbg::tally::Metric;
use crate::report::document::group_digits;
use crate::report::{self, RunRecord};
use crate::tools::shard::{ShardFile, ShardSpec};
use crate::tools::system::{Game, load_file as load_any, on_system, shell_quote};
#[cfg(feature = "serve")]
use crate::tools::system::{Loaded, load_text};
use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use exact::exact;
use replay::replay;
use run::{merge, run};
use system::System;
use validate::validate;

/// Odds for tabletop-wargame chariots by Monte Carlo simulation.
#[derive(Parser, Debug)]
#[command(name = "charioteer", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
    /// How charts are written (any command that writes them).
    #[command(flatten)]
    pub charts: ChartOptions,
}

/// How charts are written: their PNG size and how their SVGs carry text.
#[derive(Args, Debug, Clone)]
pub struct ChartOptions {
    /// Write PNG charts at this many times their size, for print: 2 gives 1920 x 1120
    /// pixels with text and lines drawn at that size (0.5 to 4).
    #[arg(long, global = true, value_name = "FACTOR", value_parser = parse_png_scale, conflicts_with = "dpi")]
    pub png_scale: Option<f64>,
    /// PNG resolution in dots per inch, charts being 10 inches wide: 96 is the normal
    /// size, 192 the same as --png-scale 2 (48 to 384).
    #[arg(long, global = true, value_name = "DPI", value_parser = parse_dpi)]
    pub dpi: Option<f64>,
    /// How SVG charts carry their text: `paths` (outlines of the bundled DejaVu Sans, so
    /// they look the same in every viewer) or `text` (smaller and editable, drawn in the
    /// viewer's sans-serif font).
    #[arg(long, global = true, value_enum, default_value_t)]
    pub svg_text: crate::report::charts::svg_text::SvgText,
}

impl ChartOptions {
    /// The render options these ask for.
    pub fn render_options(&self) -> crate::report::charts::RenderOptions {
        let png_scale = self.png_scale.or(self.dpi.map(|d| d / DPI_AT_SCALE_1)).unwrap_or(1.0);
        crate::report::charts::RenderOptions { png_scale, svg_text: self.svg_text }
    }
}

/// The resolution of a chart at --png-scale 1: 960 pixels over 10 inches.
const DPI_AT_SCALE_1: f64 = 96.0;

fn parse_png_scale(text: &str) -> Result<f64, String> {
    let range = crate::report::charts::PNG_SCALES;
    match text.parse::<f64>() {
        Ok(x) if range.contains(&x) => Ok(x),
        _ => Err(format!(
            "--png-scale takes a factor from {} to {} (2 for print), not {text:?}",
            range.start(),
            range.end()
        )),
    }
}

fn parse_dpi(text: &str) -> Result<f64, String> {
    let range = crate::report::charts::PNG_SCALES;
    let (lo, hi) = (range.start() * DPI_AT_SCALE_1, range.end() * DPI_AT_SCALE_1);
    match text.parse::<f64>() {
        Ok(x) if (lo..=hi).contains(&x) => Ok(x),
        _ => Err(format!("--dpi takes {lo} to {hi} (96 is the normal size, 192 for print), not {text:?}")),
    }
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Simulate scenarios and write a report folder for each. Every field a scenario file
    /// may hold: docs/scenario.md.
    Run(RunArgs),
    /// Check scenario files without running them: every problem with its file, line and
    /// field, and warnings. Every field a scenario file may hold: docs/scenario.md.
    Validate {
        /// Scenario files (TOML).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Also draw the board to FILE (.png or .svg): the bases, terrain, the chariot's
        /// path with its pivots, where charges stop and each model's chance to be slain
        /// (BATTLESYSTEM: the units and where a rout goes). Takes one scenario file.
        #[arg(long, value_name = "FILE")]
        map: Option<PathBuf>,
        /// `--out` (writes validation.json there), `--quiet`, `--json`.
        #[command(flatten)]
        output: OutputOptions,
    },
    /// Compute the exact distribution of every metric (no sampling) where the rules allow.
    Exact {
        /// Scenario file (TOML); without it, the bundled default.
        file: Option<PathBuf>,
        /// `--out` (exact_summary.csv, exact_distribution.csv and exact.json go there;
        /// default reports/<scenario-slug>/), `--quiet`, `--json`.
        #[command(flatten)]
        output: OutputOptions,
    },
    /// Compare two scenarios on common random numbers: each metric's paired difference
    /// (A - B) with its 95% interval and p-value.
    Compare(CompareArgs),
    /// Run the cartesian grid of scenario fields set with --set, one row per point.
    Sweep(SweepArgs),
    /// Price a chariot: its points efficiency and the fair price at which it matches a
    /// reference scenario (or a target efficiency), with a confidence interval.
    Balance(BalanceArgs),
    /// Merge the shards of `run`, `sweep`, `balance` or `compare --shard K/N` into the
    /// report one machine gives.
    Merge {
        /// Shard files, or folders holding `shard-*.json`.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// `--out` (the report folder; default reports/<scenario-slug>/), `--quiet`,
        /// `--json` (the merged run, as `run --json`).
        #[command(flatten)]
        output: OutputOptions,
    },
    /// Serve a page for players on this machine: place the chariot and formations on a
    /// board, see the path, and run the odds with intervals in the browser. (Built with the
    /// default `serve` feature.)
    #[cfg(feature = "serve")]
    Serve(serve::ServeArgs),
    /// Print a complete, commented scenario file to start from (the files of
    /// docs/scenario.md's "Start here"): `charioteer new turn > my-turn.toml`.
    New {
        /// What to start from: `charge` (one chariot into a line), `turn` (two chariots),
        /// `line` (a Captain, a banner and spears), `battlesystem-charge`, `rout`,
        /// `matchups` (a set of lines for `balance --matchups`).
        #[arg(default_value = "charge")]
        kind: String,
    },
    /// List the bundled MESBG profiles a scenario can name (2024 characteristics, points,
    /// options, what is modelled, source), one line each; with WORD, those whose name,
    /// army, wargear or rules contain it.
    Profiles {
        /// A word to search for (case-insensitive), e.g. "minas tirith" or "shieldwall".
        word: Option<String>,
        /// Print the profiles as JSON instead.
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
        /// `--out` (writes replay-<trial>.json there), `--quiet`, `--json` (the events and
        /// metrics as one object).
        #[command(flatten)]
        output: OutputOptions,
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
    /// Skip the check of the estimates against exact values (the exact walk is bounded in
    /// time and memory anyway; this saves that time on large charges).
    #[arg(long)]
    pub no_exact: bool,
}

impl RunArgs {
    /// The options of a report written without playing trials (`merge`): only how much to
    /// print.
    fn quiet_or_json(quiet: bool, json: bool) -> Self {
        Self {
            files: Vec::new(),
            play: PlayOptions {
                trials: None,
                seed: None,
                threads: None,
                out: None,
                quiet,
                json,
                plays: Default::default(),
            },
            trials_out: None,
            shard: None,
            precision: PrecisionOptions { target_ci: None, max_trials: None },
            no_exact: false,
        }
    }
}

/// Options every command that plays trials shares.
#[derive(Args, Debug, Clone, serde::Serialize, serde::Deserialize)]
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
    /// Print one JSON object per result on standard output instead of the text
    /// (docs/json-schema.md).
    #[arg(long)]
    pub json: bool,
    /// Where the command's plays come from: played here (always, from the command line),
    /// or a shard's share of them, or the merged shards' results (set by `--shard` and
    /// `merge`).
    #[arg(skip)]
    #[serde(skip)]
    pub plays: crate::tools::shard::Plays,
}

/// What every command that plays no trials takes: where its files go, and how much it
/// prints.
#[derive(Args, Debug, Clone)]
pub struct OutputOptions {
    /// Folder for the command's files (default: a folder under reports/ named after the
    /// scenario).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print one JSON object on standard output instead of the text (docs/json-schema.md).
    #[arg(long)]
    pub json: bool,
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

    /// The terminal's progress bar for a procedure: hidden when quiet, printing JSON, or
    /// playing a shard (or answering from merged shards).
    fn bar(&self) -> Bar {
        Bar::new(self.quiet || self.json || !self.plays.is_whole())
    }

    /// What a procedure plays with: `pool`, progress on `bar`, stopped by Ctrl-C, and these
    /// options' whole or sharded plays.
    fn player<'a>(&self, pool: &'a rayon::ThreadPool, bar: &'a Bar) -> crate::tools::play::Player<'a> {
        crate::tools::play::Player { pool: Some(pool), progress: bar, cancel: &CANCEL, plays: self.plays.clone() }
    }
}

/// Precision targets: add trials until every interval is narrow enough.
#[derive(Args, Debug, Clone, serde::Serialize, serde::Deserialize)]
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
#[derive(Args, Debug, Clone, serde::Serialize, serde::Deserialize)]
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
    /// Play only shard K of N (e.g. 2/8): K's share of the trials of every play, written
    /// as `shard-K-of-N.json` (to --out, default reports/shards/compare-<job>/) for `charioteer
    /// merge`, which writes the report one machine would.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<ShardSpec>,
    /// Trials (default: A's), seed (default: A's), threads, report folder
    /// (default: reports/paired--<slug A>--<slug B>/), quiet.
    #[command(flatten)]
    pub play: PlayOptions,
}

/// Options of `sweep`.
#[derive(Args, Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SweepArgs {
    /// Scenario file (TOML).
    pub file: PathBuf,
    /// PATH=VALUES: a field and the values to try: `a..b` (integers), `a..b:step`, a
    /// comma-separated list, or TOML arrays or inline tables, e.g. `--set
    /// chariot.impact.strength=3..7 --set chariot.move=8,10,12 --set 'formations[0].hero.at=[1,4],[1,1]'`.
    #[arg(long = "set", value_name = "PATH=VALUES", required = true)]
    pub sets: Vec<String>,
    /// `--target-ci` (at each point) and `--max-trials`.
    #[command(flatten)]
    pub precision: PrecisionOptions,
    /// Play only shard K of N (e.g. 2/8): K's share of the trials of every play, written
    /// as `shard-K-of-N.json` (to --out, default reports/shards/sweep-<job>/) for `charioteer
    /// merge`, which writes the report one machine would.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<ShardSpec>,
    /// Trials per point, seed, threads, report folder (default: reports/sweep--<slug>/), quiet.
    #[command(flatten)]
    pub play: PlayOptions,
    /// Continue an interrupted sweep: keep the points it finished (saved in the report
    /// folder's `sweep-state.json`) and play only the rest. The same command is required.
    #[arg(long)]
    pub resume: bool,
}

/// Options of `balance`.
#[derive(Args, Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct BalanceArgs {
    /// Scenario to price (TOML).
    pub file: PathBuf,
    /// The field holding its price: MESBG `chariot.points` (plus the Hero's points when one
    /// rides); BATTLESYSTEM `units[K].points` of the charging or routing unit (points per
    /// figure). Default: that field.
    #[arg(long)]
    pub price: Option<String>,
    /// Reference scenario whose efficiency the fair price matches, charging the same line as
    /// the priced piece (like for like); give several for the fair price against each and
    /// overall, or one with `--matchups` to price both against every line of a set.
    #[arg(long, num_args = 1.., conflicts_with = "target_efficiency", required_unless_present = "target_efficiency")]
    pub against: Vec<PathBuf>,
    /// What a trial is worth: `kills`, "points removed" (the enemy points destroyed), or
    /// `net`, "points traded" (less the piece's own points lost: a chariot's and its Hero's
    /// in proportion to Wounds lost, a unit's per figure, and friends a routing beast
    /// tramples). `points_removed` and `points_traded` name the same two.
    #[arg(long, value_enum, default_value_t)]
    pub value: crate::tools::balance::ValueModel,
    /// Weights of the references in the overall price, in `--against` order (default:
    /// equal), e.g. `--weights 2,1,1`.
    #[arg(long, value_delimiter = ',', requires = "against")]
    pub weights: Vec<f64>,
    /// Efficiency to match instead (enemy points destroyed per point spent).
    #[arg(long, value_parser = parse_efficiency)]
    pub target_efficiency: Option<f64>,
    /// A matchup set (TOML, e.g. scenarios/matchups/mesbg-lines.toml): the priced piece and
    /// its one `--against` reference each charge every line of it, like for like; the fair
    /// price against each line, the weighted overall with its sampling interval, and the
    /// spread across lines.
    #[arg(long, requires = "against", conflicts_with = "weights")]
    pub matchups: Option<PathBuf>,
    /// Change a field of the priced piece (the references stay as written), as `sweep`
    /// does: one value prices the changed piece; several values of one field (`1..4`,
    /// `1,2,D3,D3+1`) draw a cost curve, the fair price at each value with its intervals,
    /// every value on the same trials. Repeatable; at most one field may take several
    /// values.
    #[arg(long = "set", value_name = "PATH=VALUES")]
    pub sets: Vec<String>,
    /// Play only shard K of N (e.g. 2/8): K's share of the trials of every play, written
    /// as `shard-K-of-N.json` (to --out, default reports/shards/balance-<job>/) for `charioteer
    /// merge`, which writes the report one machine would.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<ShardSpec>,
    /// Trials, seed, threads, report folder (default: reports/balance--<slug>/), quiet.
    #[command(flatten)]
    pub play: PlayOptions,
}

/// The default cap of `--target-ci`.
pub use crate::tools::play::DEFAULT_MAX_TRIALS;

fn parse_efficiency(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x < 1e6 => Ok(x),
        _ => Err(format!(
            "--target-efficiency takes the enemy points a piece should destroy per point it costs, a positive number \
             such as 0.4, not {text:?}"
        )),
    }
}

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

/// A procedure's refusal or failure as the command line says it: bad input exits with 2,
/// Ctrl-C with 130, a shard's end of play is recognised by [`split::shard_played`].
fn tool_error(error: crate::tools::play::ToolError) -> anyhow::Error {
    use crate::tools::play::ToolError;
    match error {
        ToolError::Unsupported(message) => UnsupportedRequest(message).into(),
        ToolError::Failed(message) => anyhow::anyhow!(message),
        ToolError::Scenario(e) => e.into(),
        ToolError::Balance(e) => e.into(),
        ToolError::Sweep(e) => e.into(),
        ToolError::Play(e) => e.into(),
        ToolError::Interrupted { what, source } => anyhow::Error::from(source).context(what),
    }
}

/// The terminal's progress bar for a procedure: a fresh bar for each piece of work it
/// begins (hidden when quiet, printing JSON, or playing a shard).
struct Bar {
    hidden: bool,
    bar: std::sync::Mutex<ProgressBar>,
}

impl Bar {
    fn new(hidden: bool) -> Self {
        Bar { hidden, bar: std::sync::Mutex::new(trial_bar(0, hidden)) }
    }

    fn bar(&self) -> ProgressBar {
        self.bar.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

impl crate::tools::play::Progress for Bar {
    fn begin(&self, total: u64) {
        *self.bar.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = trial_bar(total, self.hidden);
    }
    fn expect(&self, total: u64) {
        self.bar().set_length(total);
    }
    fn advance(&self, trials: u64) {
        self.bar().inc(trials);
    }
    fn end(&self) {
        self.bar().finish_and_clear();
    }
}

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
    crate::report::charts::set_render_options(cli.charts.render_options());
    match cli.command {
        Command::Run(args) => run(args),
        Command::Validate { files, map, output } => validate(&files, map.as_deref(), &output),
        Command::Replay { file, trial, seed, output } => replay(file.as_deref(), trial, seed, &output),
        Command::Exact { file, output } => exact(file.as_deref(), &output),
        Command::Merge { paths, output } => merge(&paths, &output),
        Command::Compare(args) => split::play(split::Job::Compare(args)),
        Command::Balance(args) => split::play(split::Job::Balance(args)),
        Command::Sweep(args) => split::play(split::Job::Sweep(args)),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve::serve(args),
        Command::Profiles { word, json } => profiles(word.as_deref(), json),
        Command::New { kind } => new_file(&kind),
    }
}

/// The starting files of `charioteer new`, by kind: the files docs/scenario.md shows.
pub const STARTING_FILES: [(&str, &str); 6] = [
    ("charge", include_str!("../../docs/examples/charge.toml")),
    ("turn", include_str!("../../docs/examples/turn.toml")),
    ("line", include_str!("../../docs/examples/captain-banner-spears.toml")),
    ("battlesystem-charge", include_str!("../../docs/examples/battlesystem-charge.toml")),
    ("rout", include_str!("../../docs/examples/battlesystem-rout.toml")),
    ("matchups", include_str!("../../docs/examples/matchups.toml")),
];

/// `charioteer new [KIND]`: prints the starting file of that kind.
fn new_file(kind: &str) -> anyhow::Result<()> {
    let Some((_, text)) = STARTING_FILES.iter().find(|(k, _)| *k == kind) else {
        let kinds: Vec<&str> = STARTING_FILES.iter().map(|(k, _)| *k).collect();
        anyhow::bail!("no starting file is called \"{kind}\": choose one of {}", kinds.join(", "));
    };
    emit(format_args!("{text}"));
    Ok(())
}

/// `charioteer profiles [WORD]`: the library, one line each, or the nearest names when
/// nothing matches.
fn profiles(word: Option<&str>, json: bool) -> anyhow::Result<()> {
    let all = crate::mesbg::scenario::bundled_library_profiles();
    let shown: Vec<_> = all.iter().filter(|p| word.is_none_or(|w| p.matches(w))).collect();
    if json {
        out!("{}", serde_json::to_string_pretty(&shown)?);
        return Ok(());
    }
    if shown.is_empty() {
        let w = word.unwrap_or_default();
        let near = crate::input::nearest_names(w, all.iter().map(|p| p.name.as_str()));
        if near.is_empty() {
            anyhow::bail!("no profile matches \"{w}\"; run `charioteer profiles` for all {} of them", all.len());
        }
        anyhow::bail!(
            "no profile matches \"{w}\"; did you mean {}?",
            near.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(" or ")
        );
    }
    let mut text = String::new();
    let mut kind = "";
    for p in &shown {
        if p.kind != kind {
            kind = p.kind;
            text += match kind {
                "chariots" => "Chariots ([chariot] profile = ... or [[chariots]] profile = ...)\n",
                "heroes" => "Chariot riders ([chariot.hero] profile = ...)\n",
                _ => {
                    "Models ([[formations]] profile = ...; shield, spear, pike, banner and points may be set beside the name)\n"
                }
            };
        }
        text += &format!("  {}\n", crate::mesbg::scenario::profile_line(p));
    }
    text += &format!(
        "{} of {} profiles. Sources: scenarios/profiles/mesbg.toml; how to use them: docs/scenario.md.\n",
        shown.len(),
        all.len()
    );
    emit(format_args!("{text}"));
    Ok(())
}

/// A request this version cannot carry out for that scenario (an option its rule system
/// does not have yet): bad input, exit code 2, never a silent approximation.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UnsupportedRequest(pub String);

/// `validate` found invalid files (each printed with its problems): bad input, exit code 2.
#[derive(Debug, thiserror::Error)]
#[error(
    "{invalid} of {files} scenario file{} {} not valid (problems above)",
    if *files == 1 { "" } else { "s" },
    if *invalid == 1 { "is" } else { "are" }
)]
pub struct InvalidFiles {
    /// Files refused.
    pub invalid: usize,
    /// Files given.
    pub files: usize,
}

/// The exit code for an error: 2 for bad input (a scenario, a `--set`, a price field, an
/// option the scenario's rule system does not have), 130 for Ctrl-C, 1 for anything else.
pub fn exit_code(error: &anyhow::Error) -> u8 {
    if error.chain().any(|e| e.downcast_ref::<resolve::Interrupted>().is_some()) {
        return INTERRUPTED_EXIT;
    }
    let bad_input = |e: &(dyn std::error::Error + 'static)| {
        e.downcast_ref::<ScenarioError>().is_some()
            || e.downcast_ref::<crate::tools::sweep::SweepError>().is_some()
            || e.downcast_ref::<crate::tools::balance::BalanceError>().is_some()
            || e.downcast_ref::<UnsupportedRequest>().is_some()
            || e.downcast_ref::<InvalidFiles>().is_some()
    };
    if error.chain().any(bad_input) { 2 } else { 1 }
}

/// The folder name of a comparison: `compare-` and the scenarios' slugs, kept short.
fn comparison_slug(slugs: &[String]) -> String {
    joined_slug("compare", slugs)
}

/// A folder name of several scenarios: `prefix--slug1--slug2...`, whole (never cut); when
/// that would be too long for a file system (over 200 bytes), `prefix-N-scenarios-HASH`
/// instead, the scenarios being named inside the report.
fn joined_slug(prefix: &str, slugs: &[String]) -> String {
    let whole = std::iter::once(prefix.to_string()).chain(slugs.iter().cloned()).collect::<Vec<_>>().join("--");
    if whole.len() <= 200 {
        whole
    } else {
        format!("{prefix}-{}-scenarios-{:016x}", slugs.len(), crate::input::fnv1a(whole.as_bytes()))
    }
}

/// The text of a scenario file (the bundled default's text without a file).
fn scenario_text(file: Option<&Path>) -> Result<String> {
    match file {
        Some(path) => Ok(crate::input::read(path)?),
        None => Ok(scenario::DEFAULT_SCENARIO.to_string()),
    }
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

/// The rule options and policies in force on one line (`name=value`, a changed default
/// marked `*`); report.md and run.json give each one's meaning.
fn ruleset_line(ruleset: &[crate::mesbg::scenario::RuleOption]) -> String {
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
        "path: pivots [{}] deg, {:.1}\" driven, {} in reach in {} contact group{}{}{}",
        pivots.join(", "),
        record.plan.path_length,
        crate::report::document::counted(record.plan.models_on_path as u64, "model"),
        record.plan.contacts.len(),
        if record.plan.contacts.len() == 1 { "" } else { "s" },
        record.plan.obstacle.as_ref().map(|o| format!(", ends at obstacle \"{o}\"")).unwrap_or_default(),
        if record.plan.breakthrough_possible { ", breakthrough possible" } else { ", no breakthrough possible" }
    );
    out!("ruleset: {}", ruleset_line(&record.ruleset));
    let exact = record.exact.as_ref().ok();
    let rows: Vec<TableRow> = record
        .summary
        .iter()
        .map(|s| TableRow {
            name: s.metric.name(),
            flag: s.metric.is_flag(),
            estimate: Some((s.mean, s.ci95_lo, s.ci95_hi)),
            exact: exact.and_then(|rows| rows.iter().find(|a| a.metric == s.metric)).map(|a| (a.exact, a.z)),
            meaning: s.metric.describe().to_string(),
        })
        .collect();
    print_metric_table(&rows, 22, 22, exact.is_some());
    if let Err(reason) = &record.exact {
        out!("({reason})");
    }
    for (given, rates) in crate::mesbg::analysis::by_denominator(&record.conditional) {
        let listed: Vec<String> = rates
            .iter()
            .map(|c| {
                let fmt = |v: f64| if c.flag { format!("{:.2}%", 100.0 * v) } else { format!("{v:.4}") };
                let name = c.name.split("_given_").next().unwrap_or(&c.name);
                format!("{name} {} ({} - {})", fmt(c.mean), fmt(c.ci95_lo), fmt(c.ci95_hi))
            })
            .collect();
        let among = if given == "fight_fought" { "given a fight" } else { "given the first contact group broken" };
        if rates[0].trials == 0 {
            // A rate over no charges is no rate: say so instead of printing 0% (0% - 100%).
            out!("{among}: no charge came to that, so there is no rate among them");
            continue;
        }
        out!("{among} ({}): {}", crate::report::document::counted(rates[0].trials, "trial"), listed.join(", "));
    }
    let ends: Vec<String> = record.charge_ends.iter().map(|e| format!("{} {:.2}%", e.name, 100.0 * e.p)).collect();
    out!("how charges end: {}", ends.join(", "));
    if let Some(p) = &record.precision {
        out!("{}", precision_line(p, record.trials));
    }
}

/// A metric's line in the terminal's table: its name, the estimate and its 95% interval
/// (`None` for a categorical metric, whose named outcomes follow it as flags), the exact
/// value and z when there is one, and what it means.
struct TableRow<'a> {
    name: &'a str,
    flag: bool,
    estimate: Option<(f64, f64, f64)>,
    exact: Option<(f64, f64)>,
    meaning: String,
}

/// The terminal's metric table, the one layout of every run: a header, then a line per
/// metric, the name padded to `name_width` and the interval to `interval_width`, with the
/// exact and z columns when `exact_columns` (a metric without an exact value leaves them
/// out). A 0/1 metric is printed as a percentage, a count to four places.
fn print_metric_table(rows: &[TableRow], name_width: usize, interval_width: usize, exact_columns: bool) {
    let (w, iw) = (name_width, interval_width);
    if exact_columns {
        out!("{:<w$} {:>10}   {:<iw$} {:>10} {:>7}  meaning", "metric", "mean", "95% interval", "exact", "z");
    } else {
        out!("{:<w$} {:>10}   {:<iw$} meaning", "metric", "mean", "95% interval");
    }
    for r in rows {
        let fmt = |v: f64| if r.flag { format!("{:.2}%", 100.0 * v) } else { format!("{v:.4}") };
        let (mean, interval) = match r.estimate {
            Some((mean, lo, hi)) => (fmt(mean), format!("{} - {}", fmt(lo), fmt(hi))),
            None => ("-".to_string(), "-".to_string()),
        };
        match r.exact {
            Some((exact, z)) => {
                out!("{:<w$} {:>10}   {:<iw$} {:>10} {:>+7.2}  {}", r.name, mean, interval, fmt(exact), z, r.meaning)
            }
            None => out!("{:<w$} {:>10}   {:<iw$} {}", r.name, mean, interval, r.meaning),
        }
    }
}

/// Whether `dir` already holds a report (its `report.md`), checked before a new one is
/// written there, so the terminal can say it was replaced.
fn holds_report(dir: &Path) -> bool {
    dir.join("report.md").is_file()
}

/// The terminal's line naming a written report: `what: DIR/report.md (N files)`, and when
/// it replaced an earlier report in the same folder, says so (reports are replaced, never
/// merged, and never silently).
fn report_line(what: &str, dir: &Path, files: usize, replaced: bool) -> String {
    format!(
        "{what}: {} ({files} files){}",
        dir.join("report.md").display(),
        if replaced { "; it replaces the earlier report in that folder" } else { "" }
    )
}

/// The terminal's line on how `--target-ci` went.
fn precision_line(p: &report::Precision, trials: u64) -> String {
    format!(
        "--target-ci {}: {} after {} trials (widest: {} +/- {:.6}{})",
        p.target,
        if p.reached { "reached" } else { "NOT reached" },
        group_digits(trials),
        p.worst_metric,
        p.half_width,
        if p.reached {
            String::new()
        } else {
            format!("; capped at {} trials, raise --max-trials", group_digits(p.cap))
        }
    )
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
