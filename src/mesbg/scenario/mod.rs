//! Scenario files: the TOML schema, its defaults, and validation.
//!
//! Every user error stops here, with a message naming the file, the line, the field and
//! what is allowed. A [`Scenario`] that leaves [`load`] is geometrically possible and in
//! range, so later stages never fail because of user input.

use crate::dice::DiceExpr;
use crate::geometry::{self, Disc, Footprint, Polygon, Pose, Vec2};
use crate::mesbg::rules::duel::FoeFatePolicy;
use crate::mesbg::rules::fight::{FatePolicy, FateRule, StrikeSplit};
use crate::mesbg::rules::{Side, StrikeAllocation};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

mod check;
mod library;
mod options;
mod raw;
mod rule_options;

mod formation;
pub use formation::*;
pub use rule_options::MesbgRules;
#[cfg(test)]
mod tests;

pub use crate::input::{MAX_FILE_BYTES, MAX_TRIALS, Problem, RuleOption, ScenarioError, fnv1a, locate, read};
pub(crate) use crate::input::{checked_float, header_fields, plain_words, record};
pub use library::{LibraryProfile, bundled_library_profiles, profile_line};
use raw::*;
pub use raw::{BUNDLED_PROFILES, LIBRARY_ONLY_KEYS, bundled_profile_names, bundled_profile_tables};

/// The largest number of models all formations together may hold.
pub const MAX_MODELS: usize = 2_000;
/// Version of the MESBG rules code; part of the scenario hash, so a rules change changes
/// streams. 2: Fate retried, declared Strikes, Might on saves, the immediate terrain Wound
/// (2026-12-01).
pub const RULES_VERSION: u32 = 2;

/// Which rule system a scenario plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum System {
    /// Middle-earth Strategy Battle Game.
    Mesbg,
}

/// A Courage (or Intelligence) target number: pass on 2D6 >= target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(into = "String")]
pub struct Target(pub u8);

impl From<Target> for String {
    fn from(t: Target) -> String {
        format!("{}+", t.0)
    }
}

/// A chariot's base.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Base {
    /// A round base of this diameter (mm).
    Round {
        /// Diameter in millimetres.
        diameter_mm: f64,
    },
    /// A rectangular base (mm), width across and length along the heading.
    Rect {
        /// Width in millimetres.
        width_mm: f64,
        /// Length in millimetres.
        length_mm: f64,
    },
    /// An oval base (mm), width across and length along the heading.
    Oval {
        /// Width in millimetres.
        width_mm: f64,
        /// Length in millimetres.
        length_mm: f64,
    },
}

impl Base {
    /// The footprint in inches.
    pub fn footprint(&self) -> Footprint {
        match *self {
            Base::Round { diameter_mm } => Footprint::round_mm(diameter_mm),
            Base::Rect { width_mm, length_mm } => Footprint::rect_mm(width_mm, length_mm),
            Base::Oval { width_mm, length_mm } => Footprint::oval_mm(width_mm, length_mm),
        }
    }
}

/// The chariot's Impact Hits: how many, and at what Strength.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Impact {
    /// Number of hits per model contacted.
    pub hits: DiceExpr,
    /// Strength of each hit.
    pub strength: u8,
}

/// The charging chariot.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Chariot {
    /// Display name.
    pub name: String,
    /// Allegiance.
    pub side: Side,
    /// Move value, inches.
    pub move_inches: f64,
    /// Fight value.
    pub fight: u8,
    /// Strength.
    pub strength: u8,
    /// Defence.
    pub defence: u8,
    /// Attacks (before the +1 for charging).
    pub attacks: u8,
    /// Wounds.
    pub wounds: u8,
    /// Courage target.
    pub courage: Target,
    /// Impact Hits.
    pub impact: Impact,
    /// Base.
    pub base: Base,
    /// Where it starts and which way it faces.
    pub start: Pose,
    /// Points cost.
    pub points: u32,
    /// A Hero riding the chariot, if any.
    pub hero: Option<Hero>,
    /// It carries a hand-and-a-half weapon, held one- or two-handed fight by fight (not
    /// serialised when it carries none, so older scenario hashes stand).
    #[serde(skip_serializing_if = "is_false")]
    pub hand_and_a_half: bool,
}

impl Chariot {
    /// Whether the chariot fights with a hand-and-a-half weapon: its own, or its riding
    /// Hero's (chariot and Hero fight as one model, with one Duel Roll and one set of
    /// Strikes, so one grip).
    pub fn has_hand_and_a_half(&self) -> bool {
        self.hand_and_a_half || self.hero.as_ref().is_some_and(|h| h.hand_and_a_half)
    }
}

/// When a Hero riding a chariot spends Might (never on Impact Hits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MightPolicy {
    /// Never.
    None,
    /// Only to win a duel the chariot would lose.
    WinDuel,
    /// Only to turn a failed To Wound roll of the chariot's Strikes into a success.
    Wound,
    /// To win the duel first, then with what is left on To Wound rolls.
    #[default]
    WinDuelThenWound,
}

impl MightPolicy {
    /// Whether Might may be spent on the duel.
    pub fn on_duel(self) -> bool {
        matches!(self, MightPolicy::WinDuel | MightPolicy::WinDuelThenWound)
    }

    /// Whether Might may be spent on To Wound rolls.
    pub fn on_wounds(self) -> bool {
        matches!(self, MightPolicy::Wound | MightPolicy::WinDuelThenWound)
    }
}

/// A Hero riding the chariot.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hero {
    /// Name.
    pub name: String,
    /// Fight value.
    pub fight: u8,
    /// Strength.
    pub strength: u8,
    /// Defence (against the hit of being dismounted).
    pub defence: u8,
    /// Attacks, added to the chariot's.
    pub attacks: u8,
    /// The Hero's own Wounds.
    pub wounds: u8,
    /// Courage target.
    pub courage: Target,
    /// Might points.
    pub might: u8,
    /// Will points.
    pub will: u8,
    /// Fate points.
    pub fate: u8,
    /// When Might is spent in the fight.
    pub might_policy: MightPolicy,
    /// Which Wounds get Fate.
    pub fate_policy: FatePolicy,
    /// Might also saves Wounds: it turns a 1 on the difficult-terrain D6 into a 2 and
    /// raises a failed Fate roll to a 4 (when the rules allow it) whenever it is enough.
    pub might_on_saves: bool,
    /// Points cost.
    pub points: u32,
    /// He carries a hand-and-a-half weapon (not serialised when he carries none, so older
    /// scenario hashes stand).
    #[serde(skip_serializing_if = "is_false")]
    pub hand_and_a_half: bool,
}

/// A piece of terrain.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Terrain {
    /// Difficult terrain: Move is halved within it, and a charge that spent any of its
    /// drive within it rolls a D6, a 1 costing the chariot a Wound.
    Difficult {
        /// Name for reports.
        name: String,
        /// Its outline.
        area: Polygon,
    },
    /// An obstacle (a wall, a fence): a chariot that touches it stops, inflicting three
    /// Strength 6 hits on it and suffering three in return.
    Obstacle {
        /// Name for reports.
        name: String,
        /// One end, inches.
        from: Vec2,
        /// The other end, inches.
        to: Vec2,
    },
}

/// The army of the models charged, for its Break Point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Army {
    /// Models the army started the game with.
    pub models: u32,
    /// Casualties it had before the charge.
    pub casualties: u32,
}

/// How the chariot drives: the pivot at the start and after each full 4" of Move.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Charge {
    /// How the pivots are chosen.
    pub path: PathChoice,
    /// How far the chariot drives, inches (the seed: it charges "up to its Move Value"):
    /// `None` for its full Move (not serialised then, so older scenario hashes stand). With
    /// `plan = "best"` the search may also stop short.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<f64>,
}

impl Charge {
    /// `[charge] distance` as every report prints it: how far the chariot drives, and why.
    pub fn distance_option(&self) -> RuleOption {
        let best = matches!(self.path, PathChoice::Best(_));
        let (value, reads) = match (self.distance, best) {
            (Some(d), _) => (format!("{d}"), format!("the chariot drives {d}\" and stops there (a charge is \"up to its Move\")")),
            (None, true) => (
                "full Move".to_string(),
                "the full Move, unless the best path stops just short of an obstacle or of difficult terrain where that costs nothing of its objective".to_string(),
            ),
            (None, false) => ("full Move".to_string(), "the chariot drives its full Move unless something stops it".to_string()),
        };
        RuleOption { name: "charge.distance".into(), value, default: "full Move".to_string(), reads: reads.into() }
    }
}

/// How the pivots of a Chariot Charge are chosen.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathChoice {
    /// Listed, in degrees, clockwise positive, each within 45 (missing ones are 0).
    Pivots(Vec<f64>),
    /// Towards a point (inches), by up to 45 degrees at each chance while it lies ahead
    /// (once passed, the chariot drives on straight).
    AimAt(Vec2),
    /// Towards the centre of a formation (by index), by up to 45 degrees at each chance.
    AimAtFormation(usize),
    /// Whatever pivots maximise the objective, searched when the plan is compiled.
    Best(Objective),
}

/// What `plan = "best"` maximises.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Objective {
    /// The expected number of models slain by Impact Hits.
    #[default]
    ExpectedImpactKills,
    /// The chance of driving through every formation on the path.
    Breakthrough,
}

/// The most chariots one turn may hold (`[[chariots]]`).
pub const MAX_TURN_CHARIOTS: usize = 6;

/// The most chariots `[turn] order = "best"` tries every order of (4! = 24 orders).
pub const MAX_BEST_ORDER_CHARIOTS: usize = 4;

/// One more chariot of a turn (`[[chariots]]` after the first): the chariot and how it
/// drives.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TurnEntry {
    /// The chariot.
    pub chariot: Chariot,
    /// Its charge.
    pub charge: Charge,
}

/// The order in which the chariots of a turn charge (`[turn] order`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnOrder {
    /// As listed in the file (the default).
    #[default]
    Listed,
    /// The order given, as indices into the list (0-based here; 1-based in the file).
    Given(Vec<usize>),
    /// Every order tried for the objective; the best is played.
    Best(TurnObjective),
}

impl TurnOrder {
    fn is_default(&self) -> bool {
        *self == TurnOrder::Listed
    }
}

/// How a turn reads what the rules leave open, and measures what they do not define
/// (`[turn]`). Each field at its default is left out of the scenario hash, so files written
/// before it stand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TurnRules {
    /// How wide a gap through a line must be to count as a corridor (`line_breached`).
    #[serde(skip_serializing_if = "CorridorWidth::is_default")]
    pub corridor_width: CorridorWidth,
    /// The order the charging player fights the Fight phase's fights in.
    #[serde(skip_serializing_if = "FightOrder::is_default")]
    pub fight_order: FightOrder,
    /// The order the chariots of one fight roll their Strikes in (and so spend Might).
    #[serde(skip_serializing_if = "StrikeOrder::is_default")]
    pub strike_order: StrikeOrder,
}

/// The order the chariots that won one fight together roll their Strikes in (`[turn]
/// strike_order`): the charging player's choice, which decides whose Might is spent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StrikeOrder {
    /// As a sensible player rolls them: first the chariots whose Strikes cost nothing (no
    /// Hero who would spend Might on them), then those whose Hero would, so Might is spent
    /// only when the free Strikes have not already slain the model; otherwise as charged.
    #[default]
    FreeFirst,
    /// In the order the chariots charged, each spending Might as its Strikes come.
    AsCharged,
}

impl StrikeOrder {
    fn is_default(&self) -> bool {
        *self == StrikeOrder::default()
    }
}

/// The order the Fight phase's fights are fought in (`[turn] fight_order`): the player with
/// Priority chooses it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FightOrder {
    /// As a sensible charging player picks it: first the fights that hold a banner bearer
    /// whose banner reaches a model of another fight (winning there knocks him Prone or
    /// slays him, so the later fight has no re-roll); otherwise as the chariots charged.
    #[default]
    HelpersFirst,
    /// In the order the chariots charged (the first chariot of each fight).
    AsCharged,
}

impl FightOrder {
    fn is_default(&self) -> bool {
        *self == FightOrder::default()
    }
}

impl TurnRules {
    fn is_default(&self) -> bool {
        *self == TurnRules::default()
    }
}

/// How wide a corridor through a line must be (`[turn] corridor_width`): the project's
/// measure, not a rule of the game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CorridorWidth {
    /// One of the line's own bases (its widest): a model could walk through.
    #[default]
    LineBase,
    /// The narrowest chariot of the turn, across its facing: a chariot could drive through.
    NarrowestChariot,
}

impl CorridorWidth {
    fn is_default(&self) -> bool {
        *self == CorridorWidth::default()
    }
}

/// What `[turn] order = "best"` maximises: a turn metric's mean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnObjective {
    /// The chance that a corridor opens through a formation (`line_breached`).
    #[default]
    LineBreached,
    /// The chance that a formation loses half or more of its models (`line_halved`).
    LineHalved,
    /// The chance that the army charged is Broken (`army_broken`; needs `[army]`).
    ArmyBroken,
    /// The expected models slain in the turn (`kills`).
    Kills,
}

impl TurnObjective {
    /// Every objective, in the order the file's names list them.
    pub const ALL: [TurnObjective; 4] =
        [TurnObjective::LineBreached, TurnObjective::LineHalved, TurnObjective::ArmyBroken, TurnObjective::Kills];

    /// The metric it maximises (and its name in files).
    pub fn metric(self) -> &'static str {
        match self {
            TurnObjective::LineBreached => "line_breached",
            TurnObjective::LineHalved => "line_halved",
            TurnObjective::ArmyBroken => "army_broken",
            TurnObjective::Kills => "kills",
        }
    }
}

/// How the player of a chariot with a hand-and-a-half weapon holds it, chosen before each
/// fight's Duel Roll.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GripPolicy {
    /// As a sensible player does: the grip with the more expected kills in that fight, then
    /// the fewer expected Wounds lost ([`crate::mesbg::rules::fight::chosen_grip`]).
    #[default]
    Best,
    /// Always one-handed (as a hand weapon).
    OneHanded,
    /// Always two-handed.
    TwoHanded,
}

impl GripPolicy {
    /// The grip a chariot holds in a fight: one-handed without a hand-and-a-half weapon,
    /// else as this policy says.
    pub fn grip(self, hand_and_a_half: bool) -> crate::mesbg::rules::fight::Grip {
        use crate::mesbg::rules::fight::Grip;
        match (hand_and_a_half, self) {
            (false, _) | (true, GripPolicy::OneHanded) => Grip::OneHanded,
            (true, GripPolicy::TwoHanded) => Grip::TwoHanded,
            (true, GripPolicy::Best) => Grip::Choose,
        }
    }
}

/// How many Impact Hits a cavalry model's rider and mount take, when the profile's number is
/// a dice expression (`D3`): the seed's "these Impact Hits on both the rider and Mount".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CavalryImpactHits {
    /// One roll for the model: rider and mount each take that many hits.
    #[default]
    OneRoll,
    /// A roll for the rider and another for the mount.
    RollEach,
}

/// When the side with a banner in range re-rolls one of its duel dice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BannerReroll {
    /// The reference's policy: its lowest die, when it would otherwise lose or tie.
    #[default]
    LowestWhenLosingOrTied,
    /// Never: banners give nothing (their bearers still roll at -1).
    Never,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A validated scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    /// The file it came from (or `<bundled default>`).
    #[serde(skip)]
    pub file: String,
    /// Title for reports.
    pub title: String,
    /// The question the scenario answers, in one sentence.
    pub question: Option<String>,
    /// The metrics that answer it (`answer = ["thrown_rider_stopped", ...]`), which the
    /// report's headline leads with, in this order; empty: the usual headline order.
    pub answer: Vec<crate::mesbg::tally::Metric>,
    /// Rule system.
    pub system: System,
    /// Trials asked for.
    pub trials: u64,
    /// Seed.
    pub seed: u64,
    /// The chariot (the first listed, in a turn of several).
    pub chariot: Chariot,
    /// Its path.
    pub charge: Charge,
    /// The other chariots of a turn, as listed after the first (empty for one chariot).
    pub more: Vec<TurnEntry>,
    /// The order a turn's chariots charge in.
    pub turn: TurnOrder,
    /// How a turn reads what the rules leave open (`[turn]`).
    pub turn_rules: TurnRules,
    /// The models on the board.
    pub formations: Vec<Formation>,
    /// Ruleset options.
    pub rules: MesbgRules,
    /// The Break Point of the army charged, if given.
    pub army: Option<Army>,
    /// Terrain on the board.
    pub terrain: Vec<Terrain>,
    /// What is allowed but probably not meant (pivots the Move never reaches, ...): the
    /// run still happens, and `validate` and `run` print each one.
    #[serde(skip)]
    pub warnings: Vec<Problem>,
}

impl Scenario {
    /// Every rule option and policy in force (the `[rules]` options, then the riding
    /// Hero's policies when one rides), as every report prints them.
    pub fn ruleset(&self) -> Vec<RuleOption> {
        let mut all = self.rules.options();
        all.push(self.charge.distance_option());
        if let Some(hero) = &self.chariot.hero {
            all.extend(hero.policies(&self.rules));
        }
        for (i, f) in self.formations.iter().enumerate() {
            if let Some(h) = f.profile.hero {
                all.extend(h.policies(&format!("formations[{i}].profile"), &self.rules));
            }
            if let Some(h) = f.hero.as_ref().and_then(|h| h.profile.hero) {
                all.extend(h.policies(&format!("formations[{i}].hero.profile"), &self.rules));
            }
        }
        all
    }

    /// A stable 64-bit hash of everything that changes the answer (not the title, trials or
    /// seed): it keys the random streams and stamps reports.
    pub fn hash(&self) -> u64 {
        #[derive(Serialize)]
        struct Keyed<'a> {
            rules_version: u32,
            system: System,
            chariot: &'a Chariot,
            charge: &'a Charge,
            // A turn of one chariot hashes as the single charge it is.
            #[serde(skip_serializing_if = "<[TurnEntry]>::is_empty")]
            more: &'a [TurnEntry],
            #[serde(skip_serializing_if = "TurnOrder::is_default")]
            turn: &'a TurnOrder,
            #[serde(skip_serializing_if = "TurnRules::is_default")]
            turn_rules: &'a TurnRules,
            formations: &'a [Formation],
            rules: &'a MesbgRules,
            army: &'a Option<Army>,
            terrain: &'a [Terrain],
        }
        let keyed = Keyed {
            rules_version: RULES_VERSION,
            system: self.system,
            chariot: &self.chariot,
            charge: &self.charge,
            more: &self.more,
            turn: &self.turn,
            turn_rules: &self.turn_rules,
            formations: &self.formations,
            rules: &self.rules,
            army: &self.army,
            terrain: &self.terrain,
        };
        let text = serde_json::to_string(&keyed).unwrap_or_default();
        fnv1a(text.as_bytes())
    }

    /// Whether the scenario is a turn of several chariots (`[[chariots]]` with two or more).
    pub fn is_turn(&self) -> bool {
        !self.more.is_empty()
    }

    /// Every chariot with its charge, as listed in the file.
    pub fn entries(&self) -> Vec<TurnEntry> {
        let mut all = vec![TurnEntry { chariot: self.chariot.clone(), charge: self.charge.clone() }];
        all.extend(self.more.iter().cloned());
        all
    }

    /// The scenario as the single charge of listed chariot `i` on the starting board (the
    /// other chariots left out): what its plan is compiled from.
    pub fn view(&self, i: usize) -> Scenario {
        let entry = self.entries().swap_remove(i.min(self.more.len()));
        Scenario {
            chariot: entry.chariot,
            charge: entry.charge,
            more: Vec::new(),
            turn: TurnOrder::Listed,
            warnings: Vec::new(),
            ..self.clone()
        }
    }

    /// A file-name-safe slug of the title, for the default report folder.
    pub fn slug(&self) -> String {
        crate::input::slug_of(&self.title, "scenario")
    }
}

/// The bundled default scenario: a Khandish charioteer into a Minas Tirith shield wall.
pub const DEFAULT_SCENARIO: &str = include_str!("../../../scenarios/mesbg/khandish-vs-minas-tirith.toml");
/// The name shown for the bundled default scenario.
pub const DEFAULT_SCENARIO_NAME: &str = "scenarios/mesbg/khandish-vs-minas-tirith.toml";

/// Reads and validates a scenario file.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = read(path)?;
    parse(&text, &path.display().to_string())
}

/// Validates scenario text; `file` names it in messages.
pub fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
    let invalid = |problems| ScenarioError::Invalid { file: file.to_string(), problems };
    let reading = crate::input::read_all_problems::<RawScenario>(text);
    let mut problems = reading.problems.clone();
    if let Some(raw) = reading.raw {
        let mut check = Checker {
            text,
            entry: None,
            problems: Vec::new(),
            warnings: Vec::new(),
            library: bundled_library(),
            chariot_starts: Vec::new(),
            formation_fronts: Vec::new(),
            rules_shieldwall: raw.rules.shieldwall.unwrap_or(true),
        };
        let scenario = check.scenario(raw, file);
        if problems.is_empty()
            && check.problems.is_empty()
            && let Some(mut scenario) = scenario
        {
            scenario.warnings = check.warnings;
            return Ok(scenario);
        }
        // The checks' problems too, but for those that only follow from an item taken out.
        problems
            .extend(check.problems.into_iter().filter(|p| !crate::input::follows_removal(&reading.removed, &p.field)));
    }
    problems.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
    Err(invalid(problems))
}

// ----- validation -------------------------------------------------------------------

struct Checker<'a> {
    text: &'a str,
    /// The `[[chariots]]` entry being read, if any (its fields are renamed).
    entry: Option<usize>,
    problems: Vec<Problem>,
    warnings: Vec<Problem>,
    library: RawLibrary,
    /// Where the chariots start and where the formations' fronts stand, as written: what a
    /// facing left out turns towards.
    chariot_starts: Vec<[f64; 2]>,
    formation_fronts: Vec<[f64; 2]>,
    /// Whether the scenario plays Shieldwall (`[rules] shieldwall`), for the warnings that
    /// only matter when it does.
    rules_shieldwall: bool,
}

/// Why the MESBG reader refuses a BATTLESYSTEM scenario (the library's callers may mix them up).
pub const BATTLESYSTEM_COMMANDS: &str = "a \"battlesystem\" scenario is read by `charioteer::battlesystem::scenario::parse`, \
     not the MESBG reader; every `charioteer` command reads either system";

const NOT_YET: &str = "is not supported yet in this version of charioteer; remove it (the scenario is refused rather than simulated without it)";
