//! What a finished MESBG run is, for every output to read: the stamp, the statistics, the
//! exact agreement, the ruleset and the facts of the compiled path. Reports, Markdown and
//! the command line all read a [`RunRecord`]; it knows none of them.

use crate::mesbg::analysis::{self, ChainStep, DistributionRow, MetricSummary, SplitCell};
use crate::mesbg::exact::{self, Agreement};
use crate::mesbg::plan::Plan;
use crate::mesbg::scenario::{RuleOption, Scenario};
use crate::mesbg::tally::Metric;
use crate::mesbg::tally::Tally;
use serde::Serialize;
use serde_json::{Map, Value, json};

/// The version of the `run.json` layout; bumped on any incompatible change.
pub const RUN_SCHEMA: &str = "charioteer.run/2";

/// The `ruleset` object of `run.json` and `exact.json`: each option or policy by name, with
/// its value, default and meaning.
pub fn ruleset_json(ruleset: &[RuleOption]) -> Value {
    let mut map = serde_json::Map::new();
    for o in ruleset {
        // Booleans stay booleans; names stay strings.
        let typed = |v: &str| serde_json::from_str::<Value>(v).unwrap_or_else(|_| Value::String(v.to_string()));
        map.insert(
            o.name.to_string(),
            json!({"value": typed(&o.value), "default": typed(&o.default), "reads": o.reads}),
        );
    }
    Value::Object(map)
}

/// Everything known about a finished run: the stamp, the statistics, and the options.
#[derive(Clone, Debug)]
pub struct RunRecord {
    /// The scenario's title.
    pub title: String,
    /// Its question, if given.
    pub question: Option<String>,
    /// The metrics that answer it, which the headline leads with.
    pub answer: Vec<Metric>,
    /// The scenario file.
    pub scenario_file: String,
    /// The scenario hash (stream key).
    pub scenario_hash: u64,
    /// Seed used.
    pub seed: u64,
    /// Trials played.
    pub trials: u64,
    /// Threads used.
    pub threads: usize,
    /// Wall-clock seconds of the trials.
    pub elapsed_s: f64,
    /// Every rule option and policy in force, with its meaning.
    pub ruleset: Vec<RuleOption>,
    /// Headline statistics per metric.
    pub summary: Vec<MetricSummary>,
    /// Distribution rows per metric.
    pub distribution: Vec<DistributionRow>,
    /// The joint distribution of chariot and Hero Wounds lost (when a Hero rides).
    pub wound_split: Option<Vec<SplitCell>>,
    /// The impact chain, contact group by contact group.
    pub chain: Vec<ChainStep>,
    /// Each metric's estimate against its exact value, when the exact engine covers the
    /// scenario; otherwise why it does not.
    pub exact: Result<Vec<Agreement>, String>,
    /// What `--target-ci` asked for and reached, when it was given.
    pub precision: Option<Precision>,
    /// With difficult terrain in the scenario: the charge under each way of measuring
    /// "within" (`difficult_terrain_measure`), so a reader sees what the choice changes.
    pub terrain_readings: Vec<TerrainReading>,
    /// Rates among the charges that ended in a fight (denominators named).
    pub conditional: Vec<crate::mesbg::analysis::ConditionalRate>,
    /// How the charges ended, in four classes that split every trial.
    pub charge_ends: Vec<crate::mesbg::analysis::ChargeEnd>,
    /// How the charges ended as a player tells it (broke through, won, did not win, chariot
    /// slain, otherwise), for the chart; and whether "chariot slain" is a class of its own.
    pub outcomes: (Vec<crate::mesbg::analysis::ChargeEnd>, bool),
    /// Facts of the compiled path.
    pub plan: PlanFacts,
    /// The board as its picture shows it (bases with their chance to be slain, terrain,
    /// path, stops), when the run counted it.
    pub board: Option<crate::mesbg::board::BoardPicture>,
    /// What the scenario allows but probably does not mean (printed before the run).
    pub warnings: Vec<crate::input::Problem>,
    /// The command that reproduces the run.
    pub command: String,
}

/// The charge under one way of measuring "within difficult terrain".
#[derive(Clone, Debug, Serialize)]
pub struct TerrainReading {
    /// The `difficult_terrain_measure` value.
    pub measure: String,
    /// Whether this is the measure the run used.
    pub in_force: bool,
    /// Distance driven when the chariot enters difficult terrain (the test), if it does.
    pub entered_at: Option<f64>,
    /// Distance driven on the full path, inches.
    pub path_length: f64,
    /// Move spent on it (difficult terrain costs double).
    pub move_spent: f64,
    /// Models on the full path.
    pub models_on_path: usize,
    /// Exact means of the headline metrics under this measure, when the exact engine covers
    /// the scenario (empty otherwise).
    pub exact: Vec<(String, f64)>,
}

/// The metrics a terrain comparison shows.
const TERRAIN_METRICS: [Metric; 5] =
    [Metric::Breakthrough, Metric::Kills, Metric::TerrainWound, Metric::ChariotWoundsLost, Metric::ChariotSlain];

/// The charge compiled under each `difficult_terrain_measure` (empty when the scenario has
/// no difficult terrain), with exact headline values where the exact engine covers it.
pub fn terrain_readings(scenario: &Scenario) -> Vec<TerrainReading> {
    use crate::mesbg::scenario::{Terrain, TerrainMeasure};
    if !scenario.terrain.iter().any(|t| matches!(t, Terrain::Difficult { .. })) {
        return Vec::new();
    }
    [TerrainMeasure::AnyPart, TerrainMeasure::Centre]
        .into_iter()
        .map(|measure| {
            let mut s = scenario.clone();
            s.rules.difficult_terrain_measure = measure;
            let plan = crate::mesbg::plan::compile(&s);
            let exact = exact::exact(&plan)
                .map(|d| TERRAIN_METRICS.iter().map(|&m| (m.name().to_string(), d.summary(m).mean)).collect())
                .unwrap_or_default();
            TerrainReading {
                measure: serde_json::to_value(measure)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                in_force: measure == scenario.rules.difficult_terrain_measure,
                entered_at: plan.difficult_from,
                path_length: plan.path_length,
                move_spent: plan.move_spent,
                models_on_path: plan.models_on_path(),
                exact,
            }
        })
        .collect()
}

pub use crate::engine::Precision;

/// What the compiled path looks like, for reports.
#[derive(Clone, Debug, Serialize)]
pub struct PlanFacts {
    /// Models on the full path.
    pub models_on_path: usize,
    /// Contact distances (inches) with the number of models touched at each.
    pub contacts: Vec<(f64, usize)>,
    /// Models pushed aside by pivots.
    pub models_pushed: usize,
    /// Formations on the path.
    pub formations_on_path: Vec<String>,
    /// Whether driving the full Move carries the chariot through them all.
    pub breakthrough_possible: bool,
    /// The pivot made at each chance (degrees, clockwise), as chosen by the path policy.
    pub pivots: Vec<f64>,
    /// Distance driven on the full path, inches.
    pub path_length: f64,
    /// The obstacle the path ends at, if any (it takes 3 hits at Strength 6).
    pub obstacle: Option<String>,
}

impl PlanFacts {
    /// Facts of a plan.
    pub fn of(plan: &Plan) -> Self {
        Self {
            models_on_path: plan.models_on_path(),
            contacts: plan.groups.iter().map(|g| (g.distance, g.models.len())).collect(),
            models_pushed: plan.pushes.len(),
            formations_on_path: plan.formations_on_path.clone(),
            breakthrough_possible: plan.breakthrough_possible,
            pivots: plan.pivots.clone(),
            path_length: plan.path_length,
            obstacle: plan.obstacle.as_ref().map(|o| o.name.clone()),
        }
    }
}

impl RunRecord {
    /// Builds the record of a finished run.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        scenario: &Scenario,
        plan: &Plan,
        tally: &Tally,
        seed: u64,
        threads: usize,
        elapsed_s: f64,
        command: String,
    ) -> Self {
        Self::with_exact(scenario, plan, tally, (seed, threads, elapsed_s), command, true)
    }

    /// Builds the record of a finished run, checked against exact values only when `exact`
    /// (`run --no-exact` skips them).
    pub fn with_exact(
        scenario: &Scenario,
        plan: &Plan,
        tally: &Tally,
        (seed, threads, elapsed_s): (u64, usize, f64),
        command: String,
        exact: bool,
    ) -> Self {
        let distribution = if exact { exact::exact(plan) } else { Err(exact::NotExact::Skipped) };
        let exact_mean = |m: Metric| distribution.as_ref().ok().map(|d| d.summary(m).mean);
        let exact_ends = distribution.as_ref().ok().map(|d| {
            let nothing = d.distribution(Metric::Contacts).first().map_or(0.0, |r| r.p);
            [d.summary(Metric::Breakthrough).mean, d.summary(Metric::FightFought).mean, nothing]
        });
        let summary = analysis::summarize(tally, &plan.metrics);
        let breakthrough_steps: Vec<(f64, usize)> = if plan.breakthrough_possible {
            plan.groups.iter().map(|g| (g.distance, g.models.len())).collect()
        } else {
            Vec::new()
        };
        // P(the first contact group broken): a model beyond it touched, or with one
        // group, every model slain by the Impact Hits.
        let exact_first_broken = distribution.as_ref().ok().zip(breakthrough_steps.first()).map(|(d, &(_, first))| {
            if breakthrough_steps.len() > 1 {
                d.distribution(Metric::Contacts).iter().filter(|r| r.value as usize > first).map(|r| r.p).sum()
            } else {
                d.distribution(Metric::ImpactKills).iter().filter(|r| r.value as usize == first).map(|r| r.p).sum()
            }
        });
        Self {
            conditional: analysis::conditional_rates(tally, &exact_mean, &breakthrough_steps, exact_first_broken),
            charge_ends: analysis::charge_ends(tally, exact_ends),
            outcomes: analysis::charge_outcomes(tally, &exact_mean),
            title: scenario.title.clone(),
            question: scenario.question.clone(),
            answer: scenario.answer.clone(),
            scenario_file: scenario.file.clone(),
            scenario_hash: scenario.hash(),
            seed,
            trials: tally.trials,
            threads,
            elapsed_s,
            ruleset: scenario.ruleset(),
            exact: match &distribution {
                Ok(d) => Ok(exact::agreement(&summary, d, tally.trials)),
                Err(e) => Err(e.to_string()),
            },
            summary,
            distribution: analysis::distributions(tally, &plan.metrics),
            wound_split: plan.chariot.hero.map(|_| analysis::wound_split(tally)),
            chain: analysis::impact_chain(tally, &PlanFacts::of(plan).contacts, &plan.chain.stop_probabilities),
            plan: PlanFacts::of(plan),
            board: None,
            warnings: Vec::new(),
            command,
            precision: None,
            terrain_readings: Vec::new(),
        }
    }

    /// The metrics whose estimate disagrees with the exact value (|z| above
    /// [`exact::DISAGREEMENT_Z`], over enough trials to read z: [`exact::z_readable`]).
    pub fn disagreements(&self) -> Vec<&Agreement> {
        self.exact
            .as_ref()
            .map(|rows| rows.iter().filter(|a| a.readable && a.z.abs() > exact::DISAGREEMENT_Z).collect())
            .unwrap_or_default()
    }

    /// Where the trials ran, in words: "2 threads", or "merged shards" for a merge
    /// (`threads` 0).
    pub fn played_on(&self) -> String {
        crate::report::words::played_on(self.threads)
    }

    /// Trials per second of wall-clock time.
    pub fn trials_per_second(&self) -> f64 {
        crate::report::stamp::trials_per_second(self.trials, self.elapsed_s)
    }

    /// The run as one JSON object (the `run.json` file and `--json` output).
    pub fn to_json(&self) -> Value {
        let mut metrics = Map::new();
        for s in &self.summary {
            metrics.insert(s.metric.name().to_string(), serde_json::to_value(s).unwrap_or(Value::Null));
        }
        let mut distributions = Map::new();
        for m in self.summary.iter().map(|s| s.metric) {
            let rows: Vec<Value> = self
                .distribution
                .iter()
                .filter(|r| r.metric == m)
                .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
                .collect();
            distributions.insert(m.name().to_string(), Value::Array(rows));
        }
        let stamp = crate::report::stamp::RunStamp {
            schema: RUN_SCHEMA,
            system: None,
            version: env!("CARGO_PKG_VERSION"),
            title: &self.title,
            question: &self.question,
            answer: Some(self.answer.iter().map(|m| m.name()).collect()),
            scenario_file: &self.scenario_file,
            scenario_hash: format!("{:016x}", self.scenario_hash),
            seed: self.seed,
            trials: self.trials,
            threads: self.threads,
            elapsed_s: self.elapsed_s,
            trials_per_second: self.trials_per_second(),
            ruleset: ruleset_json(&self.ruleset),
        };
        stamp.with(json!({
            "plan": self.plan,
            "command": self.command,
            "metrics": metrics,
            "distributions": distributions,
            "wound_split": self.wound_split,
            "impact_chain": self.chain,
            "precision": self.precision,
            "terrain_readings": self.terrain_readings,
            // A rate among no trials has no value: null, not a mean of 0.
            "conditional": self.conditional.iter().map(|c| {
                let mut v = serde_json::to_value(c).unwrap_or(Value::Null);
                if c.trials == 0 && let Some(o) = v.as_object_mut() {
                    for key in ["mean", "ci95_lo", "ci95_hi"] {
                        o.insert(key.into(), Value::Null);
                    }
                }
                v
            }).collect::<Vec<_>>(),
            "charge_ends": self.charge_ends,
            "exact": match &self.exact {
                Ok(rows) => {
                    let per_metric: Map<String, Value> = rows
                        .iter()
                        .map(|a| (a.metric.name().to_string(), json!({"exact": a.exact, "z": finite_or_null(a.z)})))
                        .collect();
                    Value::Object(per_metric)
                }
                Err(reason) => json!({ "unavailable": reason }),
            },
        }))
    }
}

fn finite_or_null(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}
