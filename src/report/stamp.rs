//! The stamp every run's JSON object opens with (`run.json`, `run --json`): which layout,
//! which version, what was asked of which file, and how it was played. Each kind of run (a
//! MESBG charge, a turn, BATTLESYSTEM) fills one [`RunStamp`] and adds its own fields after
//! it, so the common head is written once and a new field of it reaches every kind.

use serde::Serialize;
use serde_json::{Map, Value};

/// The head of a run's JSON object, in the order readers see it.
#[derive(Clone, Debug, Serialize)]
pub struct RunStamp<'a> {
    /// The layout's name and version (`charioteer.run/N`).
    pub schema: &'static str,
    /// The rule system, where the layout names it (a turn's and BATTLESYSTEM's; a MESBG
    /// charge's layout predates the field and leaves it out).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<&'static str>,
    /// charioteer's version.
    pub version: &'static str,
    /// The scenario's title.
    pub title: &'a str,
    /// The question the scenario asks, when it says one.
    pub question: &'a Option<String>,
    /// The metrics that answer it, first in the report (a MESBG charge's layout only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<Vec<&'a str>>,
    /// The scenario file as given.
    pub scenario_file: &'a str,
    /// The scenario hash (the key of its streams), 16 hex digits.
    pub scenario_hash: String,
    /// The seed.
    pub seed: u64,
    /// Trials played.
    pub trials: u64,
    /// Threads played on (0: merged shards).
    pub threads: usize,
    /// Wall-clock seconds.
    pub elapsed_s: f64,
    /// Trials a second of wall-clock time.
    pub trials_per_second: f64,
    /// Every rule option and policy in force, with its default and meaning.
    pub ruleset: Value,
}

impl RunStamp<'_> {
    /// The run's JSON object: the stamp's fields, then those of `rest` (an object) in
    /// their order.
    pub fn with(&self, rest: Value) -> Value {
        let mut object = match serde_json::to_value(self) {
            Ok(Value::Object(head)) => head,
            _ => Map::new(),
        };
        if let Value::Object(rest) = rest {
            object.extend(rest);
        }
        Value::Object(object)
    }
}

/// Trials a second of `elapsed_s` wall-clock seconds (0 when no time was measured).
pub fn trials_per_second(trials: u64, elapsed_s: f64) -> f64 {
    if elapsed_s > 0.0 { trials as f64 / elapsed_s } else { 0.0 }
}
