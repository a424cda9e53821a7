//! BATTLESYSTEM scenario files (`system = "battlesystem"`): the TOML schema, its defaults
//! (those of `../shared/rules/battlesystem.md`, never presented as the book's), and
//! validation with the same messages as MESBG scenarios: file, line, field and fix.
//!
//! A [`BattlesystemScenario`] that leaves [`parse`] has every unit on the board, no two units
//! overlapping, a platform with a rider, and a charge target the charger can reach, so the
//! resolver never meets bad input.

use super::board::{self, Block};
use crate::battlesystem::rules::{ArmourRoll, AttackDie, AttackRules, HitsTable, MoraleRule, PlatformRoll};
use crate::geometry::Vec2;
use crate::input::{Problem, RuleOption, ScenarioError, fnv1a, slug_of};

mod raw;
use raw::*;

/// Version of the BATTLESYSTEM rules code; part of the scenario hash, so a rules change
/// changes streams (each rule system keeps its own, so a change to one leaves the other's
/// results as they were).
pub const RULES_VERSION: u32 = 1;
use serde::{Deserialize, Serialize};
use std::fmt;

mod check;
mod rule_options;
use rule_options::RawRules;

/// The most units a scenario may hold (each adds three per-unit metrics).
pub const MAX_UNITS: usize = 16;
/// The most figures in one unit (the rules' largest unit is 48).
pub const MAX_FIGURES: i64 = 48;
/// The most crew groups a platform may carry.
pub const MAX_CREW_GROUPS: usize = 8;
/// The largest board side, inches (1" cells of the path map: at most 200 x 200).
pub const MAX_BOARD_INCHES: f64 = 200.0;

/// Which side a unit fights for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Army {
    /// Side A.
    A,
    /// Side B.
    B,
}

impl Army {
    /// The side's letter.
    pub fn name(self) -> &'static str {
        match self {
            Army::A => "a",
            Army::B => "b",
        }
    }
}

/// A figure's statistics.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Stats {
    /// Attack die.
    pub ad: AttackDie,
    /// Armour rating (a d10 above it cancels a hit, by default).
    pub ar: u32,
    /// Hits one figure absorbs.
    pub hits: u32,
    /// Morale rating (a 2d10 at or below it passes).
    pub ml: u32,
    /// Movement, inches per turn.
    pub mv: f64,
}

/// What a crew figure does aboard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Controls the platform; the one rider a platform needs does not fight.
    Rider,
    /// Fights in melee.
    Fighter,
    /// Shoots (and fights in melee).
    Archer,
}

/// One range band of a missile crew: targets from `from` to `to` inches (gap between the
/// blocks) are shot at with the dice multiplied by `multiplier`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RangeBand {
    /// Nearest range, inches (inclusive).
    pub from: f64,
    /// Farthest range, inches (exclusive).
    pub to: f64,
    /// Dice multiplier in hundredths (100 = x1): exact rounding up of the dice count.
    pub hundredths: u32,
}

/// A group of figures carried on each platform figure.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Crew {
    /// Name in reports.
    pub name: String,
    /// What they do.
    pub role: Role,
    /// Figures of this group on each platform figure.
    pub count: u32,
    /// Attack die.
    pub ad: AttackDie,
    /// Armour rating.
    pub ar: u32,
    /// Hits one figure absorbs.
    pub hits: u32,
    /// Range bands when they shoot (archers only).
    pub bands: Vec<RangeBand>,
}

/// A unit on the board.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unit {
    /// Unique name.
    pub name: String,
    /// A name-safe form of it for metric names.
    pub key: String,
    /// Side.
    pub side: Army,
    /// Figures at the start.
    pub figures: u32,
    /// Figures across the front rank.
    pub frontage: u32,
    /// One figure's base: width, depth (inches).
    pub base: [f64; 2],
    /// Where it stands.
    pub block: Block,
    /// Figure statistics (of the beast or platform, for a platform unit).
    pub stats: Stats,
    /// The crew carried on each figure, if it is a battle platform.
    pub crew: Vec<Crew>,
    /// Elephants or other large beasts: they rout in a d12 clock direction (the seed).
    pub beast: bool,
    /// Points per figure (a platform with its crew), for `balance`; 0 when not given.
    /// Points change no roll, so a unit without them hashes as before.
    #[serde(skip_serializing_if = "is_zero")]
    pub points: u32,
}

fn is_zero(x: &u32) -> bool {
    *x == 0
}

impl Unit {
    /// Whether the unit's figures are battle platforms.
    pub fn is_platform(&self) -> bool {
        !self.crew.is_empty()
    }

    /// Crew figures aboard each platform who fight: all of them but the one rider a
    /// platform needs to be controlled (0 for a chariot with only its driver).
    pub fn fighting_crew_per_platform(&self) -> u32 {
        let aboard: u32 = self.crew.iter().map(|c| c.count).sum();
        let driver = u32::from(self.crew.iter().any(|c| c.role == Role::Rider && c.count > 0));
        aboard - driver
    }
}

/// Which attack dice a charge doubles [configurable].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChargeDoubles {
    /// The carried figures' dice.
    Crew,
    /// The platform's own dice (when it attacks on its own).
    Platform,
    /// Both (default).
    #[default]
    Both,
    /// Neither: the charge is not doubled (a what-if, or a platform that does not count as
    /// charging cavalry).
    None,
}

/// Where hits on a battle platform unit fall [configurable].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlatformHits {
    /// On the platform figure (the beast or vehicle); its crew fall with it (default).
    #[default]
    PlatformFirst,
    /// On the crew first (fighters and archers, riders last), then the platform.
    CrewFirst,
}

/// How far a routing unit moves [configurable].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RoutDistance {
    /// Its full MV (default).
    #[default]
    Mv,
    /// A fixed distance, inches.
    Inches(f64),
}

/// Which figures of a unit attack in a melee.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MeleeContact {
    /// Only the figures in contact, on both sides: each side's figures whose bases lie
    /// along the stretch where the two blocks touch (the reference: "figures in contact").
    #[default]
    FiguresInContact,
    /// The unit that moves attacks with its whole front rank, in contact or not (the earlier
    /// reading); the unit it meets still strikes back with the figures in contact.
    WholeFrontRank,
}

impl MeleeContact {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// What a platform whose crew aboard is only its driver does in a melee.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DriverOnly {
    /// It attacks with the platform's own AD, one die per platform in contact, doubled when
    /// it charges (unless `charge_doubles = "none"`).
    #[default]
    PlatformAd,
    /// Such a charge is refused: it would have nobody to fight.
    Refused,
}

impl DriverOnly {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// How a routing unit veers when the whole move along its line is not clear.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Veer {
    /// Take a veer only if the whole remaining move along it is clear; otherwise keep the
    /// line and meet what is on it.
    #[default]
    WholeMove,
    /// When no veer clears the whole move, take the one within the allowance that goes
    /// farthest before its first contact (veering round what it can avoid) and meet only
    /// that unit.
    AvoidWhatItCan,
}

/// How a unit struck by routing beasts moves when its morale displaces it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StruckUnitMoves {
    /// Straight along the beasts' heading, the full displacement (stopping against other
    /// units and lost off the board).
    #[default]
    Straight,
    /// Sideways out of the beasts' path, when that is shorter than the displacement and
    /// not blocked; otherwise straight.
    Aside,
}

/// The BATTLESYSTEM ruleset values in force; reports print every one.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BattlesystemRules {
    /// The hits table and the armour roll.
    #[serde(skip)]
    pub attack: AttackRules,
    /// Shared or per-die platform roll.
    pub platform_roll: PlatformRoll,
    /// Whether the platform also attacks with its own dice.
    pub platform_attacks_alone: bool,
    /// Which dice a charge doubles.
    pub charge_doubles: ChargeDoubles,
    /// Where hits on a platform unit fall.
    pub platform_hits: PlatformHits,
    /// Morale failure margins and the fall-back distance.
    pub morale: MoraleRule,
    /// How far routing units move.
    pub rout_distance: RoutDistance,
    /// Largest veer off the rolled line, degrees.
    pub veer_degrees: f64,
    /// Veer angles are tried in steps of this many degrees.
    pub veer_step_degrees: f64,
    /// New d12 directions a routing unit may roll when a struck unit does not clear its path.
    pub max_rerolls: u32,
    /// How a routing unit veers when the whole move is not clear.
    pub veer: Veer,
    /// How a struck unit that is displaced moves.
    pub struck_unit_moves: StruckUnitMoves,
    /// Which figures attack in a melee (not serialised at its default, so older scenario
    /// hashes stand).
    #[serde(skip_serializing_if = "MeleeContact::is_default")]
    pub melee_contact: MeleeContact,
    /// What a platform with only its driver aboard does when it charges (not serialised at
    /// its default).
    #[serde(skip_serializing_if = "DriverOnly::is_default")]
    pub driver_only: DriverOnly,
}

impl Default for BattlesystemRules {
    fn default() -> Self {
        Self {
            attack: AttackRules::default(),
            platform_roll: PlatformRoll::Shared,
            platform_attacks_alone: false,
            charge_doubles: ChargeDoubles::Both,
            platform_hits: PlatformHits::PlatformFirst,
            morale: MoraleRule::default(),
            rout_distance: RoutDistance::Mv,
            veer_degrees: 45.0,
            veer_step_degrees: 5.0,
            max_rerolls: 3,
            veer: Veer::WholeMove,
            struck_unit_moves: StruckUnitMoves::Straight,
            melee_contact: MeleeContact::default(),
            driver_only: DriverOnly::default(),
        }
    }
}

/// What the scenario asks.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// A battle platform charges a unit, its missile crew shooting on the way in.
    Charge {
        /// Index of the charging unit.
        unit: usize,
        /// Index of the target.
        target: usize,
        /// Volleys the missile crew shoot (at the start of the charge and halfway in).
        volleys: u32,
        /// The gap between the blocks at the start, inches.
        gap: f64,
    },
    /// A unit of beasts routs in a d12 direction.
    Rout {
        /// Index of the routing unit.
        unit: usize,
        /// Only for tests and what-ifs: the first d12 roll is this hour instead of random.
        first_hour: Option<u32>,
    },
}

/// A validated BATTLESYSTEM scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BattlesystemScenario {
    /// The file it came from.
    #[serde(skip)]
    pub file: String,
    /// Title for reports.
    pub title: String,
    /// The question it answers.
    pub question: Option<String>,
    /// Trials asked for.
    pub trials: u64,
    /// Seed.
    pub seed: u64,
    /// Board width (x) and depth (y), inches; the origin is the south-west corner.
    pub board: [f64; 2],
    /// The units.
    pub units: Vec<Unit>,
    /// The ruleset values.
    pub rules: BattlesystemRules,
    /// The hits table, as written (part of the hash).
    pub hits_table: HitsTable,
    /// The armour roll (part of the hash).
    pub armour_roll: ArmourRoll,
    /// What happens.
    pub action: Action,
}

impl BattlesystemScenario {
    /// A stable hash of everything that changes the answer (not title, trials or seed): it
    /// keys the random streams and stamps reports.
    pub fn hash(&self) -> u64 {
        #[derive(Serialize)]
        struct Keyed<'a> {
            rules_version: u32,
            system: &'static str,
            board: [f64; 2],
            units: &'a [Unit],
            rules: &'a BattlesystemRules,
            hits_table: &'a HitsTable,
            armour_roll: ArmourRoll,
            action: &'a Action,
        }
        let keyed = Keyed {
            rules_version: RULES_VERSION,
            system: "battlesystem",
            board: self.board,
            units: &self.units,
            rules: &self.rules,
            hits_table: &self.hits_table,
            armour_roll: self.armour_roll,
            action: &self.action,
        };
        fnv1a(serde_json::to_string(&keyed).unwrap_or_default().as_bytes())
    }

    /// A file-name-safe slug of the title, for the default report folder.
    pub fn slug(&self) -> String {
        slug_of(&self.title, "scenario")
    }

    /// The rout distance of a unit under the rules in force.
    pub fn rout_distance(&self, unit: usize) -> f64 {
        match self.rules.rout_distance {
            RoutDistance::Mv => self.units[unit].stats.mv,
            RoutDistance::Inches(d) => d,
        }
    }
}

/// What a scenario text says in its `system` field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SystemField {
    /// `"mesbg"`, or no `system` field (the MESBG validator then names it as missing).
    Mesbg,
    /// `"battlesystem"`.
    Battlesystem,
    /// Anything else, as written.
    Other(String),
    /// The text is not TOML (the MESBG validator names the syntax error).
    Unreadable,
}

/// The `system` a scenario text declares.
pub fn system_of(text: &str) -> SystemField {
    let Ok(table) = toml::from_str::<toml::Table>(text) else { return SystemField::Unreadable };
    match table.get("system") {
        None => SystemField::Mesbg,
        Some(toml::Value::String(s)) if s == "mesbg" => SystemField::Mesbg,
        Some(toml::Value::String(s)) if s == "battlesystem" => SystemField::Battlesystem,
        Some(other) => SystemField::Other(other.to_string().chars().take(60).collect()),
    }
}

// ----- the file format, as written -------------------------------------------------

/// Validates BATTLESYSTEM scenario text; `file` names it in messages.
pub fn parse(text: &str, file: &str) -> Result<BattlesystemScenario, ScenarioError> {
    let invalid = |problems| ScenarioError::Invalid { file: file.to_string(), problems };
    let reading = crate::input::read_all_problems::<RawBattlesystem>(text);
    let mut problems = reading.problems.clone();
    if let Some(raw) = reading.raw {
        let mut check = Checker { text, problems: Vec::new() };
        let scenario = check.scenario(raw, file);
        if let Some(s) = scenario.filter(|_| problems.is_empty() && check.problems.is_empty()) {
            return Ok(s);
        }
        // The checks' problems too, but for those that only follow from an item taken out.
        problems
            .extend(check.problems.into_iter().filter(|p| !crate::input::follows_removal(&reading.removed, &p.field)));
    }
    problems.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
    Err(invalid(problems))
}

struct Checker<'a> {
    text: &'a str,
    problems: Vec<Problem>,
}

#[cfg(test)]
mod tests;
