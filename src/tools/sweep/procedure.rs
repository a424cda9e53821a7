//! The sweep procedure: every point of the grid validated, compiled and played on the base
//! scenario's streams, to a fixed count or a precision, resumable from the points an
//! interrupted sweep finished. The command line (`charioteer sweep`) and anything else that
//! sweeps call [`sweep`] with a [`SweepRequest`], a [`Player`] and [`SweepHooks`], and only
//! write and print what it returns.

use super::{Assignment, SweepRow, SweepRun};
use crate::engine::statistics::MetricSummary;
use crate::engine::{MetricKind, RuleSystem, Streams, TrialRange};
use crate::input::Problem;
use crate::tools::play::{DEFAULT_MAX_TRIALS, Player, ToolError};
use crate::tools::system::{Facts, Game, load_file, on_system, shell_quote};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// What to sweep and how, as `charioteer sweep` takes it.
#[derive(Clone, Debug, Default)]
pub struct SweepRequest {
    /// The base scenario.
    pub file: PathBuf,
    /// The fields and their values, as `PATH=VALUES` (the first varies slowest).
    pub sets: Vec<String>,
    /// The seed (default: the scenario's).
    pub seed: Option<u64>,
    /// Trials per point (default: the scenario's).
    pub trials: Option<u64>,
    /// Play each point on until every metric's 95% half-width is below this.
    pub target_ci: Option<f64>,
    /// The most trials a point may play under `target_ci` (default [`DEFAULT_MAX_TRIALS`]).
    pub max_trials: Option<u64>,
}

/// Where a sweep keeps the points it has finished, so that an interrupted sweep can be
/// resumed (the command line keeps them in the report folder).
pub trait Checkpoint {
    /// Where the checkpoint is, in messages (a sweep in report folder `folder`).
    fn name(&self, folder: &str) -> String;
    /// The checkpoint an earlier sweep kept, when resuming one (`None`: start afresh).
    fn kept(&self, folder: &str) -> Result<Option<String>, ToolError>;
    /// Keeps `state` for a later resume, replacing what was kept.
    fn keep(&self, folder: &str, state: &str) -> Result<(), ToolError>;
}

/// What a sweep tells its caller on the way.
pub struct SweepHooks<'a> {
    /// Called with each point's name and its warnings (what runs but is probably not
    /// meant), once every point is compiled and before any is played.
    pub warnings: &'a dyn Fn(&str, &[Problem]),
    /// Where finished points are kept (`None`: nowhere, no resume).
    pub checkpoint: Option<&'a dyn Checkpoint>,
}

/// A finished sweep, with the name of its report folder under reports/.
pub struct Swept {
    /// Every point's results.
    pub run: SweepRun,
    /// Its folder name, `sweep--<slug>`.
    pub folder: String,
}

/// What a checkpoint holds (`T`: the rule system's tally).
#[derive(serde::Serialize, serde::Deserialize)]
struct SweepState<T> {
    /// The sweep it belongs to (scenario hash, seed, trials, sets, precision).
    key: String,
    /// (point index, its tally) for every finished point.
    finished: Vec<(usize, T)>,
}

/// Sweeps the request's grid.
pub fn sweep(req: &SweepRequest, player: &Player, hooks: &SweepHooks) -> Result<Swept, ToolError> {
    on_system!(load_file(Some(&req.file))?, sweep_of(req, player, hooks))
}

/// The grid of a scenario of system `S`, each point validated and compiled, then played.
fn sweep_of<S: Game>(
    base: S::Scenario,
    req: &SweepRequest,
    player: &Player,
    hooks: &SweepHooks,
) -> Result<Swept, ToolError> {
    let text = crate::input::read(&req.file)?;
    let sets = req.sets.iter().map(|s| super::parse_set(s)).collect::<Result<Vec<_>, _>>()?;
    let facts = S::facts(&base);
    let points = super::points_of(&text, &facts.name, &sets, &S::profile_library(), S::parse)?;
    let plans: Vec<(Vec<String>, S::Plan)> = points
        .into_iter()
        .map(|p| {
            let plan = S::compile(&p.scenario);
            (hooks.warnings)(&S::facts(&p.scenario).name, &S::warnings(&p.scenario, &plan));
            (p.values, plan)
        })
        .collect();
    play_points(req, player, hooks, &sets, &facts, plans)
}

/// Plays every point of a sweep (each a compiled plan with its values as text) on the base
/// scenario's streams, keeping each finished point in the checkpoint.
fn play_points<S: RuleSystem>(
    req: &SweepRequest,
    player: &Player,
    hooks: &SweepHooks,
    sets: &[Assignment],
    base: &Facts,
    points: Vec<(Vec<String>, S)>,
) -> Result<Swept, ToolError> {
    let trials = req.trials.unwrap_or(base.trials);
    let seed = req.seed.unwrap_or(base.seed);
    let folder = format!("sweep--{}", base.slug);
    // Common random numbers: every point plays the base scenario's streams.
    let streams = Streams::new(seed, base.hash);
    let sets_text: String = req.sets.iter().map(|s| format!(" --set {}", shell_quote(s))).collect();
    let key = format!(
        "{:016x} seed {seed} trials {trials}{sets_text} target {:?} cap {:?}",
        base.hash, req.target_ci, req.max_trials
    );
    // A shard's or a merge's progress is its shard files, not a checkpoint of its own.
    let checkpoint = hooks.checkpoint.filter(|_| player.plays.is_whole());
    let mut finished: Vec<Option<S::Tally>> = vec![None; points.len()];
    if let Some(kept) = checkpoint.map(|c| c.kept(&folder)).transpose()?.flatten() {
        let name = checkpoint.map(|c| c.name(&folder)).unwrap_or_default();
        let state: SweepState<S::Tally> = serde_json::from_str(&kept)
            .map_err(|e| ToolError::Failed(format!("{name} is not a sweep checkpoint: {e}")))?;
        if state.key != key {
            return Err(ToolError::Failed(format!(
                "{name} was written by a different sweep ({}); run the same command with --resume, or drop --resume to start again",
                state.key
            )));
        }
        for (index, tally) in state.finished {
            if let Some(slot) = finished.get_mut(index) {
                *slot = Some(tally);
            }
        }
    }
    let expected = AtomicU64::new(trials.saturating_mul(points.len() as u64));
    player.progress.begin(expected.load(Ordering::Relaxed));
    player.progress.advance(finished.iter().flatten().map(S::trials_in).sum());
    let mut rows = Vec::with_capacity(points.len());
    for (index, (values, plan)) in points.iter().enumerate() {
        if let Some(tally) = &finished[index] {
            rows.push(row(values, plan, tally));
            continue;
        }
        let done = finished.iter().filter(|f| f.is_some()).count();
        let interrupted = |error: ToolError| match error {
            ToolError::Interrupted { source, .. } => ToolError::Interrupted {
                what: match checkpoint {
                    Some(c) => format!(
                        "{done} of {} points were finished and kept in {}; run the same command with --resume to play the rest",
                        points.len(),
                        c.name(&folder)
                    ),
                    None => format!("{done} of {} points were finished; the sweep was interrupted", points.len()),
                },
                source,
            },
            other => other,
        };
        let label = format!("point {} ({})", index + 1, values.join(", "));
        let mut tally = player
            .play(
                &label,
                "the sweep was interrupted",
                TrialRange { first: 0, count: trials },
                |range, progress, cancel| crate::engine::run(plan, streams, range, progress, cancel).ok(),
                S::merge_tally,
            )
            .map_err(interrupted)?;
        if let Some(target) = req.target_ci {
            let cap = req.max_trials.unwrap_or(DEFAULT_MAX_TRIALS).max(trials);
            let grown = |from: u64, to: u64| {
                let total = expected.fetch_add(to - from, Ordering::Relaxed) + (to - from);
                player.progress.expect(total);
            };
            player
                .install(|| {
                    crate::engine::run_to_precision(
                        plan,
                        streams,
                        &mut tally,
                        target,
                        cap,
                        &grown,
                        &|n| player.progress.advance(n),
                        player.cancel,
                    )
                })
                .map_err(|source| interrupted(ToolError::Interrupted { what: String::new(), source }))?;
        }
        finished[index] = Some(tally.clone());
        if let Some(c) = checkpoint {
            let state = SweepState {
                key: key.clone(),
                finished: finished.iter().enumerate().filter_map(|(i, t)| t.clone().map(|t| (i, t))).collect(),
            };
            let text = serde_json::to_string(&state).map_err(|e| ToolError::Failed(e.to_string()))?;
            c.keep(&folder, &text)?;
        }
        rows.push(row(values, plan, &tally));
    }
    player.checkpoint()?;
    player.progress.end();
    let precision_text = req
        .target_ci
        .map(|x| {
            format!(" --target-ci {x}{}", req.max_trials.map(|m| format!(" --max-trials {m}")).unwrap_or_default())
        })
        .unwrap_or_default();
    let run = SweepRun {
        ruleset: base.ruleset.clone(),
        trial_word: base.trial_word.to_string(),
        title: base.title.clone(),
        paths: sets.iter().map(|a| a.path.clone()).collect(),
        axes: sets.iter().map(|a| a.values.iter().map(super::value_text).collect()).collect(),
        rows,
        trials,
        seed,
        command: format!(
            "charioteer sweep {}{sets_text} --seed {seed} --trials {trials}{precision_text}",
            shell_quote(&req.file.display().to_string()),
        ),
    };
    Ok(Swept { run, folder })
}

/// A finished point: its values, trials and every metric's summary.
fn row<S: RuleSystem>(values: &[String], plan: &S, tally: &S::Tally) -> SweepRow {
    SweepRow {
        values: values.to_vec(),
        trials: S::trials_in(tally),
        summary: crate::engine::summaries(plan, tally)
            .into_iter()
            .map(|s| MetricSummary {
                metric: s.metric.def(),
                mean: s.mean,
                sd: s.sd,
                se: s.se,
                ci95_lo: s.ci95_lo,
                ci95_hi: s.ci95_hi,
            })
            .collect(),
    }
}
