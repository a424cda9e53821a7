//! The BATTLESYSTEM scenario file as written, before validation.

use super::*;
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBattlesystem {
    pub(super) title: String,
    #[serde(default)]
    pub(super) question: Option<String>,
    #[allow(dead_code)]
    pub(super) system: String,
    #[serde(default)]
    pub(super) trials: Option<i64>,
    #[serde(default)]
    pub(super) seed: Option<i64>,
    #[serde(default)]
    pub(super) board: Option<RawBoard>,
    #[serde(default)]
    pub(super) rules: RawRules,
    #[serde(default)]
    pub(super) units: Vec<RawUnit>,
    #[serde(default)]
    pub(super) charge: Option<RawCharge>,
    #[serde(default)]
    pub(super) rout: Option<RawRout>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBoard {
    pub(super) width: f64,
    pub(super) depth: f64,
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum RawDistance {
    Inches(f64),
    Word(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawStats {
    pub(super) ad: String,
    pub(super) ar: i64,
    pub(super) hits: i64,
    pub(super) ml: i64,
    pub(super) mv: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawUnit {
    pub(super) name: String,
    pub(super) side: Army,
    pub(super) figures: i64,
    #[serde(default)]
    pub(super) frontage: Option<i64>,
    pub(super) at: [f64; 2],
    #[serde(default)]
    pub(super) facing: f64,
    #[serde(default)]
    pub(super) base: Option<[f64; 2]>,
    pub(super) stats: RawStats,
    #[serde(default)]
    pub(super) crew: Vec<RawCrew>,
    #[serde(default)]
    pub(super) beast: bool,
    #[serde(default)]
    pub(super) points: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCrew {
    pub(super) name: String,
    pub(super) role: Role,
    #[serde(default = "one")]
    pub(super) count: i64,
    pub(super) ad: String,
    #[serde(default)]
    pub(super) ar: Option<i64>,
    #[serde(default = "one")]
    pub(super) hits: i64,
    #[serde(default)]
    pub(super) range_bands: Vec<[f64; 3]>,
}

pub(super) fn one() -> i64 {
    1
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCharge {
    pub(super) unit: String,
    pub(super) target: String,
    #[serde(default)]
    pub(super) volleys: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRout {
    pub(super) unit: String,
    #[serde(default)]
    pub(super) first_hour: Option<i64>,
}

// ----- validation -------------------------------------------------------------------
