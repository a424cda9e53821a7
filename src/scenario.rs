//! Scenario files: the TOML schema, its defaults, and validation.
//!
//! Every user error stops here, with a message naming the file, the line, the field and
//! what is allowed. A [`Scenario`] that leaves [`load`] is geometrically possible and in
//! range, so later stages never fail because of user input.

use crate::dice::DiceExpr;
use crate::geometry::{self, Disc, Footprint, Polygon, Pose, Vec2};
use crate::rules::mesbg::{Side, StrikeAllocation};
use crate::rules::mesbg_duel::FoeFatePolicy;
use crate::rules::mesbg_fight::{FatePolicy, FateRule, StrikeSplit};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::Path;

/// The largest number of trials a scenario may ask for (about nine hours at 30 M/s).
pub const MAX_TRIALS: u64 = 1_000_000_000_000;
/// The largest number of models all formations together may hold.
pub const MAX_MODELS: usize = 2_000;
/// The largest scenario file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 1 << 20;
/// Version of the MESBG rules code; part of the scenario hash, so a rules change changes
/// streams. 2: Fate retried, declared Strikes, Might on saves, the immediate terrain Wound
/// (2026-12-01).
pub const RULES_VERSION: u32 = 2;

/// One thing wrong with a scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Dotted path of the field, e.g. `formations[0].profile.wounds` (empty for syntax).
    pub field: String,
    /// 1-based line in the file, when known.
    pub line: Option<usize>,
    /// What is wrong and what is allowed.
    pub message: String,
}

/// Why a scenario could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("cannot read scenario file {file}: {source}")]
    Read {
        /// The path as given.
        file: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file was read but is not a valid scenario.
    #[error("{}", render_problems(file, problems))]
    Invalid {
        /// The path as given.
        file: String,
        /// Everything found wrong, in file order where lines are known.
        problems: Vec<Problem>,
    },
}

fn render_problems(file: &str, problems: &[Problem]) -> String {
    let mut out = format!("{file} is not a valid scenario ({} problem{}):", problems.len(), plural(problems.len()));
    for p in problems {
        out.push_str("\n  ");
        match p.line {
            Some(line) => out.push_str(&format!("{file}:{line}: ")),
            None => out.push_str(&format!("{file}: ")),
        }
        if !p.field.is_empty() {
            out.push_str(&format!("field `{}`: ", p.field));
        }
        out.push_str(&p.message);
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

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

/// A model profile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Profile {
    /// Fight value.
    pub fight: u8,
    /// Strength.
    pub strength: u8,
    /// Defence.
    pub defence: u8,
    /// Attacks.
    pub attacks: u8,
    /// Wounds.
    pub wounds: u8,
    /// Courage target.
    pub courage: Target,
    /// Points cost per model.
    pub points: u32,
    /// A Monster: never knocked Prone.
    pub monster: bool,
    /// A chariot (Immovable Object): never Prone, never Trapped; against our chariot the
    /// smaller Backs Away.
    pub chariot: bool,
    /// For cavalry: the mount.
    pub mount: Option<Mount>,
    /// Carries a spear: supports a friendly model it touches in a fight (one die, one
    /// Strike if its side wins). Not serialised when false, so scenario hashes without
    /// spears are unchanged.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub spear: bool,
    /// Carries a pike: supports as a spear does, and also through a pike already supporting
    /// (a line three deep).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pike: bool,
    /// A pike carried with a shield: -1 on the model's own duel dice (meaningful with a
    /// pike only).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shield: bool,
    /// An enemy Hero: his Might, Will and Fate and how he spends them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hero: Option<Heroism>,
}

impl Profile {
    /// A spear or a pike: the model can support a friend in a fight.
    pub fn supports(&self) -> bool {
        self.spear || self.pike
    }
}

/// What makes an enemy model a Hero: Might, Will and Fate, and when he spends them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Heroism {
    /// Might points: to win the duel or turn his failed To Wound rolls (by `might_policy`),
    /// and on his Fate rolls (by `might_on_saves`), never against Impact Hits.
    pub might: u8,
    /// Will points (kept for completeness: no test in a charge spends them).
    pub will: u8,
    /// Fate points, against any Wound he suffers, Impact Hits included.
    pub fate: u8,
    /// When he spends Might in the fight.
    pub might_policy: MightPolicy,
    /// Which Wounds get Fate.
    pub fate_policy: FoeFatePolicy,
    /// Might raises a failed Fate roll to a 4 (when the rules allow Might on Fate) against
    /// the chariot's Strikes.
    pub might_on_saves: bool,
}

impl Heroism {
    /// The enemy Hero's policies with what they mean, named by the profile path `at`, for
    /// reports.
    pub fn policies(&self, at: &str, rules: &MesbgRules) -> Vec<RuleOption> {
        vec![
            RuleOption::of(
                format!("{at}.might_policy"),
                &self.might_policy,
                &MightPolicy::default(),
                match self.might_policy {
                    MightPolicy::None => "the enemy Hero spends no Might in the fight",
                    MightPolicy::WinDuel => {
                        "the enemy Hero raises his own highest duel die by the least that wins (or reaches a roll-off), answering the chariot's Might"
                    }
                    MightPolicy::Wound => "the enemy Hero's Might turns his failed To Wound rolls against the chariot",
                    MightPolicy::WinDuelThenWound => {
                        "the enemy Hero's Might first wins the duel (the least that wins or reaches a roll-off), then turns his failed To Wound rolls"
                    }
                },
            ),
            RuleOption::of(
                format!("{at}.might_on_saves"),
                &self.might_on_saves,
                &true,
                match (self.might_on_saves, rules.might_on_fate) {
                    (true, true) => {
                        "the enemy Hero's Might raises a failed Fate roll against a Strike to a 4 whenever it is enough (never against Impact Hits)"
                    }
                    _ => "the enemy Hero never spends Might on a Fate roll",
                },
            ),
            RuleOption::of(
                format!("{at}.fate_policy"),
                &self.fate_policy,
                &FoeFatePolicy::default(),
                match self.fate_policy {
                    FoeFatePolicy::EveryWound => {
                        "the enemy Hero spends Fate on every Wound he suffers, Impact Hits included"
                    }
                    FoeFatePolicy::LethalOnly => "the enemy Hero spends Fate only on a Wound that would slay him",
                },
            ),
        ]
    }
}

/// One Hero standing among a formation's warriors, at a named place.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlacedHero {
    /// Display name (the profile's name when it is named).
    pub name: String,
    /// His index among the formation's models (rank by rank, files from its left).
    pub index: usize,
    /// His profile (with `hero` set).
    pub profile: Profile,
}

/// A cavalry model's mount.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Mount {
    /// Defence.
    pub defence: u8,
    /// Wounds.
    pub wounds: u8,
    /// Attacks (a mount with none flees when its rider is slain).
    pub attacks: u8,
    /// Fight value.
    pub fight: u8,
    /// Strength.
    pub strength: u8,
}

/// When the chariot drives on past a cavalry model it hit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CavalryPassed {
    /// The rider is slain and the mount slain or fled (the earlier reading).
    RiderSlainAndMountGone,
    /// The rider is slain: a cavalry model is a casualty when its rider dies (2024), so
    /// the chariot drives on even past a riderless mount with Attacks.
    #[default]
    RiderSlain,
}

/// When the army charged is Broken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakPoint {
    /// Half or more of its starting models lost (the rules reference, corrected 2026-12-01).
    #[default]
    HalfOrMore,
    /// More than half lost (the earlier reading).
    MoreThanHalf,
}

impl BreakPoint {
    /// Whether an army of `models` with `casualties` is Broken.
    pub fn broken(self, casualties: u64, models: u64) -> bool {
        match self {
            BreakPoint::HalfOrMore => 2 * casualties >= models,
            BreakPoint::MoreThanHalf => 2 * casualties > models,
        }
    }
}

/// What "within difficult terrain" measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TerrainMeasure {
    /// Any part of the chariot's base inside the area.
    #[default]
    AnyPart,
    /// The centre of the chariot's base inside the area.
    Centre,
}

/// A block of identical infantry models.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Formation {
    /// Display name.
    pub name: String,
    /// Allegiance (by default the chariot's enemy).
    pub side: Side,
    /// Base diameter, mm (an oval base's width).
    pub base_mm: f64,
    /// An oval base: [width, length] in mm, its length along the formation's facing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oval_mm: Option<[f64; 2]>,
    /// Base centres, rank by rank.
    pub centres: Vec<Vec2>,
    /// Number of ranks.
    pub ranks: usize,
    /// Heading the formation faces.
    pub facing: f64,
    /// Front rank's centre.
    pub front_centre: Vec2,
    /// Gap between neighbouring bases, mm.
    pub gap_mm: f64,
    /// Every model's profile.
    pub profile: Profile,
    /// The banner bearer, if the formation has one: its index in `centres`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub banner: Option<usize>,
    /// A Hero standing among the warriors, if the formation has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hero: Option<PlacedHero>,
}

impl Formation {
    /// The base of a model of the formation standing at `centre`.
    pub fn disc_at(&self, centre: Vec2) -> Disc {
        match self.oval_mm {
            Some([w, l]) => Disc::oval(centre, w / geometry::MM_PER_INCH, l / geometry::MM_PER_INCH, self.facing),
            None => Disc::round(centre, self.radius()),
        }
    }

    /// How far a model's base reaches from its centre along the formation's facing, inches
    /// (half an oval's length; a round base's radius).
    pub fn depth(&self) -> f64 {
        self.oval_mm.map_or(self.radius(), |[_, l]| l / geometry::MM_PER_INCH / 2.0)
    }

    /// The profile of the formation's model `index` (the placed Hero's or the warriors').
    pub fn profile_of(&self, index: usize) -> &Profile {
        match &self.hero {
            Some(h) if h.index == index => &h.profile,
            _ => &self.profile,
        }
    }

    /// Whether any model of the formation is a Hero.
    pub fn has_heroes(&self) -> bool {
        self.profile.hero.is_some() || self.hero.is_some()
    }

    /// Base radius in inches.
    pub fn radius(&self) -> f64 {
        self.base_mm / geometry::MM_PER_INCH / 2.0
    }

    /// Distance between the centres of neighbouring ranks, inches.
    pub fn spacing(&self) -> f64 {
        (self.oval_mm.map_or(self.base_mm, |[_, l]| l) + self.gap_mm) / geometry::MM_PER_INCH
    }
}

/// Ruleset options whose reading is uncertain or a matter of choice. Reports print them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MesbgRules {
    /// Models knocked Prone by a winning chariot count as Trapped for its Strikes.
    pub prone_counts_as_trapped: bool,
    /// Strikes declared before rolling, or aimed one at a time.
    pub strike_split: StrikeSplit,
    /// How Strikes aimed one at a time are spread over several beaten models.
    pub strike_allocation: StrikeAllocation,
    /// When the chariot drives on past a cavalry model.
    pub cavalry_passed_when: CavalryPassed,
    /// Fate retried on the same Wound, or once.
    pub fate: FateRule,
    /// Might may raise a Fate roll.
    pub might_on_fate: bool,
    /// When the army charged is Broken.
    pub break_point: BreakPoint,
    /// What "within difficult terrain" measures.
    pub difficult_terrain_measure: TerrainMeasure,
    /// Whether a supporting spear's or pike's Fight counts for its side's highest Fight in a
    /// tied duel (not serialised at its default, so older scenario hashes stand).
    #[serde(skip_serializing_if = "is_true")]
    pub supporter_fight_counts: bool,
    /// When a banner's re-roll is taken (not serialised at its default, so older scenario
    /// hashes stand).
    #[serde(skip_serializing_if = "BannerReroll::is_default")]
    pub banner_reroll: BannerReroll,
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

impl BannerReroll {
    fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

fn is_true(b: &bool) -> bool {
    *b
}

/// One rule option or policy in force, as every report prints it: its name as a scenario
/// writes it, its value and default, and what that value means in the rules reference's
/// terms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleOption {
    /// Where it is written: a `[rules]` key, `chariot.hero.<field>` for the riding Hero's
    /// policy, or the path of an enemy Hero's profile field.
    pub name: std::borrow::Cow<'static, str>,
    /// The value in force, as written.
    pub value: String,
    /// The reference's default, as written.
    pub default: String,
    /// What the value in force means.
    pub reads: std::borrow::Cow<'static, str>,
}

impl RuleOption {
    /// An option from its value and default (written as a scenario writes them) and what
    /// the value means.
    pub fn of<T: Serialize>(
        name: impl Into<std::borrow::Cow<'static, str>>,
        value: &T,
        default: &T,
        reads: impl Into<std::borrow::Cow<'static, str>>,
    ) -> Self {
        Self { name: name.into(), value: as_written(value), default: as_written(default), reads: reads.into() }
    }
}

impl MesbgRules {
    /// Every `[rules]` option with its value, default and meaning, for reports.
    pub fn options(&self) -> Vec<RuleOption> {
        let d = MesbgRules::default();
        vec![
            RuleOption::of(
                "fate",
                &self.fate,
                &d.fate,
                match self.fate {
                    FateRule::Retry => {
                        "a failed Fate roll may be followed by another Fate point on the same Wound until it is prevented or Fate runs out"
                    }
                    FateRule::Once => "one Fate point (one D6, 4+) per Wound",
                },
            ),
            RuleOption::of(
                "might_on_fate",
                &self.might_on_fate,
                &d.might_on_fate,
                if self.might_on_fate {
                    "Might can raise a Fate roll, +1 a point"
                } else {
                    "Might never modifies a Fate roll"
                },
            ),
            RuleOption::of(
                "strike_split",
                &self.strike_split,
                &d.strike_split,
                match self.strike_split {
                    StrikeSplit::Declared => {
                        "a winner fighting several models (or rider and mount) declares which Strikes go against which model before rolling To Wound, the split that maximises expected kills"
                    }
                    StrikeSplit::OneAtATime => {
                        "each Strike is aimed after the previous one is rolled, by strike_allocation"
                    }
                },
            ),
            RuleOption::of(
                "strike_allocation",
                &self.strike_allocation,
                &d.strike_allocation,
                match (self.strike_split, self.strike_allocation) {
                    (StrikeSplit::Declared, _) => "not used: Strikes are declared before rolling",
                    (_, StrikeAllocation::MostWoundedFirst) => {
                        "each Strike at the standing model with the fewest Wounds left"
                    }
                    (_, StrikeAllocation::EasiestFirst) => "each Strike at the standing model with the lowest Defence",
                },
            ),
            RuleOption::of(
                "prone_counts_as_trapped",
                &self.prone_counts_as_trapped,
                &d.prone_counts_as_trapped,
                if self.prone_counts_as_trapped {
                    "models knocked Prone by the winning chariot are Trapped for its Strikes: two To Wound rolls per Strike"
                } else {
                    "models knocked Prone by the winning chariot take one To Wound roll per Strike (a model already Prone is still Trapped)"
                },
            ),
            RuleOption::of(
                "cavalry_passed_when",
                &self.cavalry_passed_when,
                &d.cavalry_passed_when,
                match self.cavalry_passed_when {
                    CavalryPassed::RiderSlain => {
                        "a cavalry model is a casualty when its rider dies (2024): the chariot drives on"
                    }
                    CavalryPassed::RiderSlainAndMountGone => {
                        "the chariot drives on past cavalry only when the rider is slain and the mount slain or fled"
                    }
                },
            ),
            RuleOption::of(
                "break_point",
                &self.break_point,
                &d.break_point,
                match self.break_point {
                    BreakPoint::HalfOrMore => "an army that has lost half or more of its starting models is Broken",
                    BreakPoint::MoreThanHalf => "an army that has lost more than half of its starting models is Broken",
                },
            ),
            RuleOption::of(
                "difficult_terrain_measure",
                &self.difficult_terrain_measure,
                &d.difficult_terrain_measure,
                match self.difficult_terrain_measure {
                    TerrainMeasure::AnyPart => {
                        "within difficult terrain means any part of the chariot's base inside it (Move halved, D6 test)"
                    }
                    TerrainMeasure::Centre => {
                        "within difficult terrain means the centre of the chariot's base inside it (Move halved, D6 test)"
                    }
                },
            ),
            RuleOption::of(
                "supporter_fight_counts",
                &self.supporter_fight_counts,
                &d.supporter_fight_counts,
                if self.supporter_fight_counts {
                    "a supporting spear or pike rolls its die at its own Fight: its Fight counts for its side's highest in a tied duel"
                } else {
                    "a supporting spear or pike adds a die only; ties go by the Fight of the models in the fight"
                },
            ),
            RuleOption::of(
                "banner_reroll",
                &self.banner_reroll,
                &d.banner_reroll,
                match self.banner_reroll {
                    BannerReroll::LowestWhenLosingOrTied => {
                        "a side with a standing banner within 3\" re-rolls its lowest duel die when it would otherwise lose or tie, before any Might"
                    }
                    BannerReroll::Never => "banners give no re-roll (their bearers still roll at -1)",
                },
            ),
        ]
    }
}

impl Hero {
    /// The Hero's policies with their values, defaults and meanings, for reports.
    pub fn policies(&self, rules: &MesbgRules) -> Vec<RuleOption> {
        vec![
            RuleOption::of(
                "chariot.hero.might_policy",
                &self.might_policy,
                &MightPolicy::default(),
                match self.might_policy {
                    MightPolicy::None => "no Might in the fight",
                    MightPolicy::WinDuel => {
                        "Might on the chariot's highest duel die, the least that wins (or reaches a roll-off)"
                    }
                    MightPolicy::Wound => {
                        "Might turns failed To Wound rolls of the chariot's Strikes into Wounds that matter, cheapest first"
                    }
                    MightPolicy::WinDuelThenWound => {
                        "Might first to win the duel (the least that wins, or reaches a roll-off), then on To Wound rolls that matter, cheapest first"
                    }
                },
            ),
            RuleOption::of(
                "chariot.hero.might_on_saves",
                &self.might_on_saves,
                &true,
                match (self.might_on_saves, rules.might_on_fate) {
                    (true, true) => {
                        "Might turns a 1 on the difficult-terrain D6 into a 2 and raises the last failed Fate roll of a Wound to a 4, whenever it is enough"
                    }
                    (true, false) => {
                        "Might turns a 1 on the difficult-terrain D6 into a 2 (the rules here keep it off Fate rolls)"
                    }
                    (false, _) => "Might is never spent to save a Wound",
                },
            ),
            RuleOption::of(
                "chariot.hero.fate_policy",
                &self.fate_policy,
                &FatePolicy::default(),
                match self.fate_policy {
                    FatePolicy::ChariotThenHero => {
                        "Fate on every Wound on the chariot as it comes, then what is left on his own hit when thrown"
                    }
                    FatePolicy::LethalOnly => {
                        "Fate only on a Wound that would slay the chariot (its last) or the Hero (his last)"
                    }
                    FatePolicy::HeroOnly => "Fate never on the chariot, all of it kept for his own hit when thrown",
                },
            ),
        ]
    }
}

/// A value as a scenario file writes it (a unit enum's snake_case name, unquoted).
fn as_written<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value).map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)).unwrap_or_default()
}

impl Default for MesbgRules {
    fn default() -> Self {
        Self {
            prone_counts_as_trapped: true,
            strike_split: StrikeSplit::default(),
            strike_allocation: StrikeAllocation::MostWoundedFirst,
            cavalry_passed_when: CavalryPassed::default(),
            fate: FateRule::default(),
            might_on_fate: true,
            break_point: BreakPoint::default(),
            difficult_terrain_measure: TerrainMeasure::default(),
            supporter_fight_counts: true,
            banner_reroll: BannerReroll::default(),
        }
    }
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
    /// Rule system.
    pub system: System,
    /// Trials asked for.
    pub trials: u64,
    /// Seed.
    pub seed: u64,
    /// The chariot.
    pub chariot: Chariot,
    /// Its path.
    pub charge: Charge,
    /// The models on the board.
    pub formations: Vec<Formation>,
    /// Ruleset options.
    pub rules: MesbgRules,
    /// The Break Point of the army charged, if given.
    pub army: Option<Army>,
    /// Terrain on the board.
    pub terrain: Vec<Terrain>,
}

impl Scenario {
    /// Every rule option and policy in force (the `[rules]` options, then the riding
    /// Hero's policies when one rides), as every report prints them.
    pub fn ruleset(&self) -> Vec<RuleOption> {
        let mut all = self.rules.options();
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
            formations: &self.formations,
            rules: &self.rules,
            army: &self.army,
            terrain: &self.terrain,
        };
        let text = serde_json::to_string(&keyed).unwrap_or_default();
        fnv1a(text.as_bytes())
    }

    /// A file-name-safe slug of the title, for the default report folder.
    pub fn slug(&self) -> String {
        let mut slug = String::new();
        for c in self.title.chars() {
            if c.is_ascii_alphanumeric() {
                slug.push(c.to_ascii_lowercase());
            } else if !slug.ends_with('-') && !slug.is_empty() {
                slug.push('-');
            }
            if slug.len() >= 60 {
                break;
            }
        }
        let slug = slug.trim_end_matches('-').to_string();
        if slug.is_empty() { "scenario".to_string() } else { slug }
    }
}

/// FNV-1a, 64 bit: tiny, stable across Rust versions and platforms.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// The bundled default scenario: a Khandish charioteer into a Minas Tirith shield wall.
pub const DEFAULT_SCENARIO: &str = include_str!("../scenarios/mesbg/khandish-vs-minas-tirith.toml");
/// The name shown for the bundled default scenario.
pub const DEFAULT_SCENARIO_NAME: &str = "scenarios/mesbg/khandish-vs-minas-tirith.toml";

/// Reads and validates a scenario file.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = read(path)?;
    parse(&text, &path.display().to_string())
}

/// Reads a scenario file's text, refusing files too large or not UTF-8.
pub fn read(path: &Path) -> Result<String, ScenarioError> {
    let file = path.display().to_string();
    let read_error = |source| ScenarioError::Read { file: file.clone(), source };
    let size = std::fs::metadata(path).map_err(read_error)?.len();
    if size > MAX_FILE_BYTES {
        return Err(ScenarioError::Invalid {
            file: file.clone(),
            problems: vec![Problem {
                field: String::new(),
                line: None,
                message: format!("the file is {size} bytes; a scenario may be at most {MAX_FILE_BYTES} bytes"),
            }],
        });
    }
    let bytes = std::fs::read(path).map_err(read_error)?;
    let text = String::from_utf8(bytes).map_err(|e| ScenarioError::Invalid {
        file: file.clone(),
        problems: vec![Problem {
            field: String::new(),
            line: None,
            message: format!("the file is not UTF-8 text (bad byte at offset {})", e.utf8_error().valid_up_to()),
        }],
    })?;
    Ok(text)
}

/// Validates scenario text; `file` names it in messages.
pub fn parse(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
    let invalid = |problems| ScenarioError::Invalid { file: file.to_string(), problems };
    let raw: RawScenario = match toml::from_str(text) {
        Ok(raw) => raw,
        Err(e) => {
            let span = e.span();
            let line = span.as_ref().map(|s| line_of(text, s.start));
            let field = span.map(|s| field_at(text, s.start)).unwrap_or_default();
            let message = plain_words(e.message());
            return Err(invalid(vec![Problem { field, line, message }]));
        }
    };
    let mut check = Checker { text, problems: Vec::new(), library: bundled_library() };
    let scenario = check.scenario(raw, file);
    if check.problems.is_empty()
        && let Some(scenario) = scenario
    {
        return Ok(scenario);
    }
    let mut problems = check.problems;
    problems.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
    Err(invalid(problems))
}

/// Serde's messages speak of Rust types; users write TOML.
pub(crate) fn plain_words(message: &str) -> String {
    let mut text = message.trim().replace('\n', " ");
    for (rust, toml) in [
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
        ("expected a sequence", "expected an array like [1, 2]"),
        ("expected an array of length 2", "expected an array of two numbers like [0.0, 6.0]"),
        ("expected struct Raw", "expected a table "),
        ("expected a string", "expected a string in quotes"),
    ] {
        text = text.replace(rust, toml);
    }
    text
}

// ----- the file format, as written -------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    title: String,
    #[serde(default)]
    question: Option<String>,
    system: String,
    #[serde(default)]
    trials: Option<i64>,
    #[serde(default)]
    seed: Option<i64>,
    chariot: RawChariot,
    #[serde(default)]
    charge: RawCharge,
    #[serde(default)]
    formations: Vec<RawFormation>,
    #[serde(default)]
    rules: RawRules,
    #[serde(default)]
    terrain: Vec<RawTerrain>,
    #[serde(default)]
    army: Option<RawArmy>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTerrain {
    name: String,
    kind: String,
    #[serde(default)]
    polygon: Option<Vec<[f64; 2]>>,
    #[serde(default)]
    from: Option<[f64; 2]>,
    #[serde(default)]
    to: Option<[f64; 2]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArmy {
    models: i64,
    #[serde(default)]
    casualties: i64,
}

/// A chariot's statistics, as written in a scenario or in the profile library.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawChariotStats {
    #[serde(rename = "move")]
    move_inches: Option<f64>,
    fight: Option<i64>,
    strength: Option<i64>,
    defence: Option<i64>,
    attacks: Option<i64>,
    wounds: Option<i64>,
    courage: Option<String>,
    impact: Option<RawImpact>,
    base: Option<RawBase>,
    points: Option<i64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChariot {
    #[serde(default)]
    profile: Option<String>,
    #[serde(default)]
    name: Option<String>,
    side: Side,
    #[serde(default, rename = "move")]
    move_inches: Option<f64>,
    #[serde(default)]
    fight: Option<i64>,
    #[serde(default)]
    strength: Option<i64>,
    #[serde(default)]
    defence: Option<i64>,
    #[serde(default)]
    attacks: Option<i64>,
    #[serde(default)]
    wounds: Option<i64>,
    #[serde(default)]
    courage: Option<String>,
    #[serde(default)]
    impact: Option<RawImpact>,
    #[serde(default)]
    base: Option<RawBase>,
    at: [f64; 2],
    #[serde(default)]
    facing: f64,
    #[serde(default)]
    points: Option<i64>,
    #[serde(default)]
    hero: Option<RawHero>,
}

impl RawChariot {
    /// The statistics written here, each falling back to the named profile's.
    fn stats_over(&self, base: RawChariotStats) -> RawChariotStats {
        RawChariotStats {
            move_inches: self.move_inches.or(base.move_inches),
            fight: self.fight.or(base.fight),
            strength: self.strength.or(base.strength),
            defence: self.defence.or(base.defence),
            attacks: self.attacks.or(base.attacks),
            wounds: self.wounds.or(base.wounds),
            courage: self.courage.clone().or(base.courage),
            impact: self.impact.clone().or(base.impact),
            base: self.base.clone().or(base.base),
            points: self.points.or(base.points),
        }
    }
}

/// A Hero's statistics, as written in a scenario or in the profile library.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawHero {
    #[serde(default)]
    profile: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    fight: Option<i64>,
    #[serde(default)]
    strength: Option<i64>,
    #[serde(default)]
    defence: Option<i64>,
    #[serde(default)]
    attacks: Option<i64>,
    #[serde(default)]
    wounds: Option<i64>,
    #[serde(default)]
    courage: Option<String>,
    #[serde(default)]
    might: Option<i64>,
    #[serde(default)]
    will: Option<i64>,
    #[serde(default)]
    fate: Option<i64>,
    #[serde(default)]
    might_policy: Option<MightPolicy>,
    #[serde(default)]
    fate_policy: Option<FatePolicy>,
    #[serde(default)]
    might_on_saves: Option<bool>,
    #[serde(default)]
    points: Option<i64>,
}

impl RawHero {
    fn over(&self, base: RawHero) -> RawHero {
        RawHero {
            profile: self.profile.clone(),
            name: self.name.clone().or(base.name),
            fight: self.fight.or(base.fight),
            strength: self.strength.or(base.strength),
            defence: self.defence.or(base.defence),
            attacks: self.attacks.or(base.attacks),
            wounds: self.wounds.or(base.wounds),
            courage: self.courage.clone().or(base.courage),
            might: self.might.or(base.might),
            will: self.will.or(base.will),
            fate: self.fate.or(base.fate),
            might_policy: self.might_policy.or(base.might_policy),
            fate_policy: self.fate_policy.or(base.fate_policy),
            might_on_saves: self.might_on_saves.or(base.might_on_saves),
            points: self.points.or(base.points),
        }
    }
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RawImpact {
    hits: String,
    strength: i64,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RawBase {
    #[serde(default)]
    round_mm: Option<f64>,
    #[serde(default)]
    rect_mm: Option<[f64; 2]>,
    #[serde(default)]
    oval_mm: Option<[f64; 2]>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawCharge {
    #[serde(default)]
    pivots: Option<Vec<f64>>,
    #[serde(default)]
    aim: Option<toml::Value>,
    #[serde(default)]
    plan: Option<String>,
    #[serde(default)]
    objective: Option<Objective>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFormation {
    name: String,
    #[serde(default)]
    side: Option<Side>,
    count: i64,
    #[serde(default = "one")]
    ranks: i64,
    #[serde(default)]
    base: Option<RawBase>,
    #[serde(default)]
    gap_mm: f64,
    front_centre: [f64; 2],
    #[serde(default)]
    facing: f64,
    /// A profile name (a string) or the statistics (a table).
    profile: toml::Value,
    #[serde(default)]
    banner: Option<bool>,
    /// Where the banner bearer stands: [rank, file], 1-based, files from the formation's left.
    #[serde(default)]
    banner_at: Option<[i64; 2]>,
    /// A Hero standing among the warriors.
    #[serde(default)]
    hero: Option<RawPlacedHero>,
}

/// A Hero placed in a formation, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlacedHero {
    /// A model profile name or table, with Might, Will and Fate.
    profile: toml::Value,
    /// [rank, file], 1-based, files from the formation's left; by default the middle of the
    /// front rank.
    #[serde(default)]
    at: Option<[i64; 2]>,
    #[serde(default)]
    name: Option<String>,
}

fn one() -> i64 {
    1
}

/// A model's statistics, as written in a scenario or in the profile library.
#[derive(Deserialize, Clone, Default)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    fight: Option<i64>,
    strength: Option<i64>,
    defence: Option<i64>,
    attacks: Option<i64>,
    wounds: Option<i64>,
    courage: Option<String>,
    #[serde(default)]
    points: Option<i64>,
    #[serde(default)]
    base_mm: Option<f64>,
    #[serde(default)]
    monster: Option<bool>,
    #[serde(default)]
    chariot: Option<bool>,
    #[serde(default)]
    mount: Option<toml::Value>,
    #[serde(default)]
    spear: Option<bool>,
    #[serde(default)]
    pike: Option<bool>,
    #[serde(default)]
    shield: Option<bool>,
    #[serde(default)]
    might: Option<i64>,
    #[serde(default)]
    will: Option<i64>,
    #[serde(default)]
    fate: Option<i64>,
    #[serde(default)]
    might_policy: Option<MightPolicy>,
    #[serde(default)]
    fate_policy: Option<FoeFatePolicy>,
    #[serde(default)]
    might_on_saves: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawRules {
    #[serde(default)]
    prone_counts_as_trapped: Option<bool>,
    #[serde(default)]
    strike_allocation: Option<StrikeAllocation>,
    #[serde(default)]
    cavalry_passed_when: Option<CavalryPassed>,
    #[serde(default)]
    strike_split: Option<StrikeSplit>,
    #[serde(default)]
    fate: Option<FateRule>,
    #[serde(default)]
    might_on_fate: Option<bool>,
    #[serde(default)]
    break_point: Option<BreakPoint>,
    #[serde(default)]
    difficult_terrain_measure: Option<TerrainMeasure>,
    #[serde(default)]
    supporter_fight_counts: Option<bool>,
    #[serde(default)]
    banner_reroll: Option<BannerReroll>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct RawMount {
    defence: i64,
    wounds: i64,
    #[serde(default)]
    attacks: i64,
    #[serde(default)]
    fight: i64,
    #[serde(default = "one")]
    strength: i64,
}

/// The profile library: named chariots, heroes and models.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawLibrary {
    #[serde(default)]
    chariots: std::collections::BTreeMap<String, RawChariotStats>,
    #[serde(default)]
    heroes: std::collections::BTreeMap<String, RawHero>,
    #[serde(default)]
    models: std::collections::BTreeMap<String, RawProfile>,
}

/// The bundled profile library (`scenarios/profiles/mesbg.toml`).
pub const BUNDLED_PROFILES: &str = include_str!("../scenarios/profiles/mesbg.toml");

fn bundled_library() -> RawLibrary {
    // The bundled file is tested to parse; an error here is a build defect, so fall back
    // to an empty library (every profile name is then reported unknown) rather than panic.
    toml::from_str(BUNDLED_PROFILES).unwrap_or_default()
}

/// Names of the bundled profiles, by kind (`chariots`, `heroes`, `models`).
pub fn bundled_profile_names() -> Vec<(&'static str, String)> {
    let lib = bundled_library();
    let mut names: Vec<(&'static str, String)> = Vec::new();
    names.extend(lib.chariots.keys().map(|k| ("chariots", k.clone())));
    names.extend(lib.heroes.keys().map(|k| ("heroes", k.clone())));
    names.extend(lib.models.keys().map(|k| ("models", k.clone())));
    names
}

// ----- validation -------------------------------------------------------------------

struct Checker<'a> {
    text: &'a str,
    problems: Vec<Problem>,
    library: RawLibrary,
}

/// What a BATTLESYSTEM scenario can be used with, for commands that cover MESBG only.
pub const BATTLESYSTEM_COMMANDS: &str = "a \"battlesystem\" scenario works with `charioteer run`, `validate` and `replay`; \
     this command (exact, compare, sweep, balance, merge, run --shard/--trials-out/--target-ci) covers MESBG scenarios only so far";

const NOT_YET: &str = "is not supported yet in this version of charioteer; remove it (the scenario is refused rather than simulated without it)";

/// Records a problem with `field`, located on its line in `text`.
pub(crate) fn record(text: &str, problems: &mut Vec<Problem>, field: &str, message: impl fmt::Display) {
    problems.push(Problem { field: field.to_string(), line: locate(text, field), message: message.to_string() });
}

/// `value` if it is finite and within `lo..=hi`; otherwise records why (naming it `what`)
/// and returns `lo`, so validation goes on to report every problem at once.
pub(crate) fn checked_float(
    text: &str,
    problems: &mut Vec<Problem>,
    field: &str,
    value: f64,
    (lo, hi): (f64, f64),
    what: &str,
) -> f64 {
    if !value.is_finite() {
        record(text, problems, field, format!("{what} must be a finite number, not {value}"));
        lo
    } else if value < lo || value > hi {
        record(text, problems, field, format!("{what} {value} is out of range; allowed {lo} to {hi}"));
        lo
    } else {
        value
    }
}

/// Checks the fields every scenario starts with (title, question, trials, seed) and
/// returns the trials and seed, defaults filled in; problems go to `problems`.
pub(crate) fn header_fields(
    text: &str,
    problems: &mut Vec<Problem>,
    title: &str,
    question: Option<&str>,
    trials: Option<i64>,
    seed: Option<i64>,
) -> (u64, u64) {
    let mut fail = |field: &str, message: String| record(text, problems, field, message);
    if title.trim().is_empty() || title.len() > 200 {
        fail("title", "the title must be 1 to 200 characters".into());
    }
    if question.is_some_and(|q| q.len() > 1000) {
        fail("question", "the question must be at most 1000 characters".into());
    }
    let trials = match trials {
        None => 100_000,
        Some(t) if t >= 1 && (t as u64) <= MAX_TRIALS => t as u64,
        Some(t) => {
            fail("trials", format!("trials = {t} is out of range; allowed 1 to {MAX_TRIALS}"));
            1
        }
    };
    let seed = match seed {
        None => 1,
        Some(s) if s >= 0 => s as u64,
        Some(s) => {
            fail("seed", format!("seed = {s} is negative; use a whole number from 0 to {}", i64::MAX));
            0
        }
    };
    (trials, seed)
}

impl Checker<'_> {
    fn fail(&mut self, field: &str, message: impl fmt::Display) {
        record(self.text, &mut self.problems, field, message);
    }

    fn int(&mut self, field: &str, value: i64, lo: i64, hi: i64, what: &str) -> u8 {
        if (lo..=hi).contains(&value) {
            value as u8
        } else {
            self.fail(field, format!("{what} {value} is out of range; allowed {lo} to {hi}"));
            lo as u8
        }
    }

    fn missing(&mut self, field: &str, hint: &str) {
        self.fail(field, format!("this field is missing; give it{hint}"));
    }

    fn req_int(&mut self, field: &str, value: Option<i64>, lo: i64, hi: i64, what: &str, hint: &str) -> u8 {
        match value {
            Some(v) => self.int(field, v, lo, hi, what),
            None => {
                self.missing(field, hint);
                lo as u8
            }
        }
    }

    fn req_target(&mut self, field: &str, value: Option<&String>, hint: &str) -> Target {
        match value {
            Some(v) => self.target(field, v),
            None => {
                self.missing(field, hint);
                Target(7)
            }
        }
    }

    /// Looks a name up in one kind of the library, reporting unknown names with the choice.
    fn lookup<T: Clone>(
        &mut self,
        field: &str,
        kind: &str,
        name: &str,
        table: &std::collections::BTreeMap<String, T>,
    ) -> Option<T> {
        match table.get(name) {
            Some(found) => Some(found.clone()),
            None => {
                let known: Vec<String> = table.keys().map(|k| format!("\"{k}\"")).collect();
                self.fail(field, format!("no {kind} profile is named \"{name}\"; known: {}", known.join(", ")));
                None
            }
        }
    }

    fn float(&mut self, field: &str, value: f64, lo: f64, hi: f64, what: &str) -> f64 {
        checked_float(self.text, &mut self.problems, field, value, (lo, hi), what)
    }

    fn point(&mut self, field: &str, value: [f64; 2]) -> Vec2 {
        let x = self.float(field, value[0], -1000.0, 1000.0, "the x coordinate (inches)");
        let y = self.float(field, value[1], -1000.0, 1000.0, "the y coordinate (inches)");
        Vec2::new(x, y)
    }

    fn target(&mut self, field: &str, text: &str) -> Target {
        let parsed = text.trim().strip_suffix('+').and_then(|n| n.trim().parse::<u8>().ok());
        match parsed {
            Some(n) if (2..=12).contains(&n) => Target(n),
            _ => {
                self.fail(field, format!("`{text}` is not a target number; write one like \"7+\" (2+ to 12+)"));
                Target(7)
            }
        }
    }

    fn points(&mut self, field: &str, value: i64) -> u32 {
        if (0..=100_000).contains(&value) {
            value as u32
        } else {
            self.fail(field, format!("points {value} is out of range; allowed 0 to 100000"));
            0
        }
    }

    fn base(&mut self, field: &str, raw: &RawBase, round_only: bool) -> Option<Base> {
        let given = [raw.round_mm.is_some(), raw.rect_mm.is_some(), raw.oval_mm.is_some()];
        if given.iter().filter(|g| **g).count() != 1 {
            self.fail(
                field,
                "give exactly one of round_mm = D, rect_mm = [width, length] or oval_mm = [width, length]",
            );
            return None;
        }
        if let Some(d) = raw.round_mm {
            let d = self.float(&format!("{field}.round_mm"), d, 10.0, 300.0, "the base diameter (mm)");
            return Some(Base::Round { diameter_mm: d });
        }
        if round_only && raw.rect_mm.is_some() {
            self.fail(
                &format!("{field}.rect_mm"),
                "models in a formation stand on round or oval bases; use round_mm or oval_mm = [width, length]",
            );
            return None;
        }
        if let Some([w, l]) = raw.oval_mm {
            let w = self.float(&format!("{field}.oval_mm"), w, 10.0, 300.0, "the oval's width (mm)");
            let l = self.float(&format!("{field}.oval_mm"), l, 10.0, 300.0, "the oval's length (mm)");
            return Some(Base::Oval { width_mm: w, length_mm: l });
        }
        let [w, l] = raw.rect_mm.unwrap_or([0.0, 0.0]);
        let w = self.float(&format!("{field}.rect_mm"), w, 10.0, 300.0, "the base width (mm)");
        let l = self.float(&format!("{field}.rect_mm"), l, 10.0, 300.0, "the base length (mm)");
        Some(Base::Rect { width_mm: w, length_mm: l })
    }

    fn scenario(&mut self, raw: RawScenario, file: &str) -> Option<Scenario> {
        let system = match raw.system.as_str() {
            "mesbg" => Some(System::Mesbg),
            "battlesystem" => {
                self.fail("system", BATTLESYSTEM_COMMANDS);
                None
            }
            other => {
                self.fail("system", format!("unknown system \"{other}\"; allowed: \"mesbg\", \"battlesystem\""));
                None
            }
        };
        let (trials, seed) =
            header_fields(self.text, &mut self.problems, &raw.title, raw.question.as_deref(), raw.trials, raw.seed);
        let terrain: Vec<Terrain> = raw.terrain.iter().enumerate().filter_map(|(i, t)| self.terrain(i, t)).collect();
        let army = raw.army.as_ref().map(|a| self.army(a));
        let chariot = self.chariot(&raw.chariot);
        let move_ok = !self.problems.iter().any(|p| p.field == "chariot.move");
        let charge =
            self.charge(&raw.charge, chariot.as_ref().filter(|_| move_ok).map(|c| c.move_inches), &raw.formations);
        let side = chariot.as_ref().map_or(Side::Good, |c| c.side.opponent());
        let formations: Vec<Formation> =
            raw.formations.iter().enumerate().filter_map(|(i, f)| self.formation(i, f, side)).collect();
        let total: usize = formations.iter().map(|f| f.centres.len()).sum();
        if total > MAX_MODELS {
            self.fail("formations", format!("{total} models in all; at most {MAX_MODELS} are allowed"));
        }
        let d = MesbgRules::default();
        let r = &raw.rules;
        let rules = MesbgRules {
            prone_counts_as_trapped: r.prone_counts_as_trapped.unwrap_or(d.prone_counts_as_trapped),
            strike_split: r.strike_split.unwrap_or(d.strike_split),
            strike_allocation: r.strike_allocation.unwrap_or(d.strike_allocation),
            cavalry_passed_when: r.cavalry_passed_when.unwrap_or(d.cavalry_passed_when),
            fate: r.fate.unwrap_or(d.fate),
            might_on_fate: r.might_on_fate.unwrap_or(d.might_on_fate),
            break_point: r.break_point.unwrap_or(d.break_point),
            difficult_terrain_measure: r.difficult_terrain_measure.unwrap_or(d.difficult_terrain_measure),
            supporter_fight_counts: r.supporter_fight_counts.unwrap_or(d.supporter_fight_counts),
            banner_reroll: r.banner_reroll.unwrap_or(d.banner_reroll),
        };
        let scenario = Scenario {
            file: file.to_string(),
            title: raw.title,
            question: raw.question,
            system: system?,
            trials,
            seed,
            chariot: chariot?,
            charge: charge?,
            formations,
            rules,
            army,
            terrain,
        };
        if raw.formations.len() == scenario.formations.len() && total <= MAX_MODELS {
            self.overlaps(&scenario);
            self.supporters_touch(&scenario);
        }
        Some(scenario)
    }

    fn terrain(&mut self, i: usize, raw: &RawTerrain) -> Option<Terrain> {
        let at = |name: &str| format!("terrain[{i}].{name}");
        if raw.name.trim().is_empty() || raw.name.len() > 100 {
            self.fail(&at("name"), "the name must be 1 to 100 characters");
        }
        match raw.kind.as_str() {
            "difficult" => {
                if raw.from.is_some() || raw.to.is_some() {
                    self.fail(&at("kind"), "difficult terrain is an area: give polygon = [[x, y], ...], not from/to");
                }
                let Some(points) = &raw.polygon else {
                    self.missing(&at("polygon"), " as polygon = [[x, y], [x, y], [x, y], ...] (inches)");
                    return None;
                };
                if !(3..=1000).contains(&points.len()) {
                    self.fail(&at("polygon"), format!("{} corners given; an area needs 3 to 1000", points.len()));
                    return None;
                }
                let vertices: Vec<Vec2> = points.iter().map(|p| self.point(&at("polygon"), *p)).collect();
                let doubled_area: f64 = (0..vertices.len())
                    .map(|k| {
                        let (a, b) = (vertices[k], vertices[(k + 1) % vertices.len()]);
                        a.x * b.y - b.x * a.y
                    })
                    .sum();
                if doubled_area.abs() < 1e-6 {
                    self.fail(&at("polygon"), "the corners enclose no area; list them around the outline");
                    return None;
                }
                Some(Terrain::Difficult { name: raw.name.clone(), area: Polygon { vertices } })
            }
            "obstacle" => {
                if raw.polygon.is_some() {
                    self.fail(&at("kind"), "an obstacle is a line: give from = [x, y] and to = [x, y], not a polygon");
                }
                let (Some(from), Some(to)) = (raw.from, raw.to) else {
                    self.missing(&at("from"), " and to, as from = [x, y], to = [x, y] (inches)");
                    return None;
                };
                let (from, to) = (self.point(&at("from"), from), self.point(&at("to"), to));
                if (to - from).length() < 1e-6 {
                    self.fail(&at("to"), "an obstacle needs two different ends");
                    return None;
                }
                Some(Terrain::Obstacle { name: raw.name.clone(), from, to })
            }
            other => {
                self.fail(&at("kind"), format!("unknown kind \"{other}\"; allowed: \"difficult\", \"obstacle\""));
                None
            }
        }
    }

    fn army(&mut self, raw: &RawArmy) -> Army {
        let models = self.whole("army.models", raw.models, 1, 100_000, "models") as u32;
        let casualties = self.whole("army.casualties", raw.casualties, 0, i64::from(models), "casualties") as u32;
        Army { models, casualties }
    }

    fn chariot(&mut self, raw: &RawChariot) -> Option<Chariot> {
        let f = |name: &str| format!("chariot.{name}");
        let library = std::mem::take(&mut self.library.chariots);
        let base_stats = match &raw.profile {
            Some(name) => self.lookup("chariot.profile", "chariot", name, &library),
            None => Some(RawChariotStats::default()),
        };
        self.library.chariots = library;
        let named = raw.profile.is_some();
        let stats = raw.stats_over(base_stats?);
        let hint = if named { "" } else { ", or name a chariot with profile = \"...\"" };
        let name = raw.name.clone().or_else(|| raw.profile.clone()).unwrap_or_default();
        if name.trim().is_empty() || name.len() > 100 {
            self.fail("chariot.name", "the name must be 1 to 100 characters");
        }
        let move_inches = match stats.move_inches {
            Some(m) => self.float(&f("move"), m, 1.0, 24.0, "move (inches)"),
            None => {
                self.missing(&f("move"), hint);
                1.0
            }
        };
        let impact = match &stats.impact {
            Some(i) => {
                let hits = i.hits.parse::<DiceExpr>().map_err(|e| self.fail("chariot.impact.hits", e)).ok();
                let strength = self.int("chariot.impact.strength", i.strength, 1, 10, "strength");
                hits.map(|hits| Impact { hits, strength })
            }
            None => {
                self.missing("chariot.impact", hint);
                None
            }
        };
        let base = match &stats.base {
            Some(b) => self.base("chariot.base", b, false),
            None => {
                self.missing("chariot.base", hint);
                None
            }
        };
        let start = Pose {
            centre: self.point("chariot.at", raw.at),
            facing: self.float("chariot.facing", raw.facing, -360.0, 360.0, "the facing (degrees)"),
        };
        let hero = raw.hero.as_ref().and_then(|h| self.hero(h));
        Some(Chariot {
            name,
            side: raw.side,
            move_inches,
            fight: self.req_int(&f("fight"), stats.fight, 1, 10, "fight", hint),
            strength: self.req_int(&f("strength"), stats.strength, 1, 10, "strength", hint),
            defence: self.req_int(&f("defence"), stats.defence, 1, 10, "defence", hint),
            attacks: self.req_int(&f("attacks"), stats.attacks, 1, 10, "attacks", hint),
            wounds: self.req_int(&f("wounds"), stats.wounds, 1, 20, "wounds", hint),
            courage: self.req_target(&f("courage"), stats.courage.as_ref(), hint),
            impact: impact?,
            base: base?,
            start,
            points: self.points(&f("points"), stats.points.unwrap_or(0)),
            hero,
        })
    }

    fn hero(&mut self, raw: &RawHero) -> Option<Hero> {
        let f = |name: &str| format!("chariot.hero.{name}");
        let library = std::mem::take(&mut self.library.heroes);
        let base = match &raw.profile {
            Some(name) => self.lookup(&f("profile"), "hero", name, &library),
            None => Some(RawHero::default()),
        };
        self.library.heroes = library;
        let hint = if raw.profile.is_some() { "" } else { ", or name a hero with profile = \"...\"" };
        let h = raw.over(base?);
        let name = h.name.clone().or_else(|| raw.profile.clone()).unwrap_or_else(|| "Hero".to_string());
        Some(Hero {
            name,
            fight: self.req_int(&f("fight"), h.fight, 1, 10, "fight", hint),
            strength: self.req_int(&f("strength"), h.strength, 1, 10, "strength", hint),
            defence: self.req_int(&f("defence"), h.defence, 1, 10, "defence", hint),
            attacks: self.req_int(&f("attacks"), h.attacks, 0, 10, "attacks", hint),
            wounds: self.req_int(&f("wounds"), h.wounds, 1, 20, "wounds", hint),
            courage: self.req_target(&f("courage"), h.courage.as_ref(), hint),
            might: self.int(&f("might"), h.might.unwrap_or(0), 0, 6, "might"),
            will: self.int(&f("will"), h.will.unwrap_or(0), 0, 6, "will"),
            fate: self.int(&f("fate"), h.fate.unwrap_or(0), 0, 6, "fate"),
            might_policy: h.might_policy.unwrap_or_default(),
            fate_policy: h.fate_policy.unwrap_or_default(),
            might_on_saves: h.might_on_saves.unwrap_or(true),
            points: self.points(&f("points"), h.points.unwrap_or(0)),
        })
    }

    fn charge(&mut self, raw: &RawCharge, move_inches: Option<f64>, formations: &[RawFormation]) -> Option<Charge> {
        let given = [raw.pivots.is_some(), raw.aim.is_some(), raw.plan.is_some()].iter().filter(|g| **g).count();
        if given > 1 {
            self.fail("charge", "give only one of pivots, aim or plan: they are different ways of choosing the pivots");
            return None;
        }
        if raw.objective.is_some() && raw.plan.is_none() {
            self.fail("charge.objective", "an objective goes with plan = \"best\"");
        }
        if let Some(plan) = &raw.plan {
            if plan != "best" {
                self.fail(
                    "charge.plan",
                    format!("unknown plan \"{plan}\"; allowed: \"best\" (or give pivots or aim instead)"),
                );
                return None;
            }
            return Some(Charge { path: PathChoice::Best(raw.objective.unwrap_or_default()) });
        }
        if let Some(aim) = &raw.aim {
            let path = match aim {
                toml::Value::String(name) => match formations.iter().position(|f| &f.name == name) {
                    Some(i) => PathChoice::AimAtFormation(i),
                    None => {
                        let names: Vec<String> = formations.iter().map(|f| format!("\"{}\"", f.name)).collect();
                        self.fail(
                            "charge.aim",
                            format!("no formation is named \"{name}\"; formations: {}", names.join(", ")),
                        );
                        return None;
                    }
                },
                toml::Value::Array(xy) if xy.len() == 2 => {
                    let coord = |v: &toml::Value| v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
                    match (coord(&xy[0]), coord(&xy[1])) {
                        (Some(x), Some(y)) => PathChoice::AimAt(self.point("charge.aim", [x, y])),
                        _ => {
                            self.fail("charge.aim", "aim at a point [x, y] in inches, or a formation by name");
                            return None;
                        }
                    }
                }
                _ => {
                    self.fail("charge.aim", "aim at a point [x, y] in inches, or a formation by name");
                    return None;
                }
            };
            return Some(Charge { path });
        }
        let raw_pivots = raw.pivots.clone().unwrap_or_default();
        let mut pivots = Vec::with_capacity(raw_pivots.len());
        for (i, p) in raw_pivots.iter().enumerate() {
            pivots.push(self.float(&format!("charge.pivots[{i}]"), *p, -45.0, 45.0, "a pivot (degrees)"));
        }
        if let Some(m) = move_inches {
            let chances = 1 + (m / 4.0 + 1e-9).floor() as usize;
            if pivots.len() > chances {
                self.fail(
                    "charge.pivots",
                    format!(
                        "{} pivots given, but a Move of {m}\" allows {chances}: one at the start and one after each full 4\" driven",
                        pivots.len()
                    ),
                );
            }
        }
        Some(Charge { path: PathChoice::Pivots(pivots) })
    }

    fn formation(&mut self, i: usize, raw: &RawFormation, enemy: Side) -> Option<Formation> {
        let at = |name: &str| format!("formations[{i}].{name}");
        if raw.name.trim().is_empty() || raw.name.len() > 100 {
            self.fail(&at("name"), "the name must be 1 to 100 characters");
        }
        let count = self.whole(&at("count"), raw.count, 1, MAX_MODELS as i64, "count");
        let ranks = self.whole(&at("ranks"), raw.ranks, 1, count.max(1) as i64, "ranks");
        let gap_mm = self.float(&at("gap_mm"), raw.gap_mm, 0.0, 200.0, "gap_mm");
        let front_centre = self.point(&at("front_centre"), raw.front_centre);
        let facing = self.float(&at("facing"), raw.facing, -360.0, 360.0, "the facing (degrees)");
        let (profile, base_mm) = self.model_profile(&at("profile"), &raw.profile)?;
        let side = raw.side.unwrap_or(enemy);
        if side != enemy {
            self.fail(&at("side"), "friendly formations in the chariot's path are not supported yet; only the chariot's enemies may stand on the board");
        }
        let base = match (&raw.base, base_mm) {
            (Some(b), _) => self.base(&at("base"), b, true),
            (None, Some(d)) => Some(Base::Round { diameter_mm: d }),
            (None, None) => {
                self.missing(&at("base"), " as base = { round_mm = 25 } or base = { oval_mm = [width, length] }");
                None
            }
        };
        let (diameter_mm, oval_mm) = match base? {
            Base::Round { diameter_mm } => (diameter_mm, None),
            Base::Oval { width_mm, length_mm } => (width_mm, Some([width_mm, length_mm])),
            Base::Rect { .. } => return None,
        };
        let [width, length] = oval_mm.unwrap_or([diameter_mm, diameter_mm]);
        let centres = geometry::formation_centres(
            count,
            ranks,
            [width / geometry::MM_PER_INCH, length / geometry::MM_PER_INCH],
            gap_mm / geometry::MM_PER_INCH,
            front_centre,
            facing,
        );
        if oval_mm.is_some() && profile.chariot {
            self.fail(
                &at("base.oval_mm"),
                format!("an enemy chariot on an oval base {NOT_YET} (Immovable Object compares round bases): give it round_mm"),
            );
        }
        let banner = self.banner(i, raw, count, ranks);
        let hero = self.placed_hero(i, raw, count, ranks, oval_mm.map_or(diameter_mm, |_| f64::NAN), &profile, banner);
        if banner.is_some() && profile.shield && profile.pike {
            self.fail(
                &at("banner"),
                format!("a pike with a shield carrying the banner would roll at -2, which {NOT_YET}: give the formation no shields, or no banner"),
            );
        }
        Some(Formation {
            name: raw.name.clone(),
            side,
            base_mm: diameter_mm,
            oval_mm,
            centres,
            ranks,
            facing,
            front_centre,
            gap_mm,
            profile,
            banner,
            hero,
        })
    }

    /// A model profile from a library name or an inline table at `field` (e.g.
    /// `formations[0].profile`), with its base diameter when it gives one.
    fn model_profile(&mut self, field: &str, value: &toml::Value) -> Option<(Profile, Option<f64>)> {
        let pf = |name: &str| format!("{field}.{name}");
        let (p, named) = match value {
            toml::Value::String(name) => {
                let library = std::mem::take(&mut self.library.models);
                let found = self.lookup(field, "model", name, &library);
                self.library.models = library;
                (found?, true)
            }
            toml::Value::Table(table) => match RawProfile::deserialize(toml::Value::Table(table.clone())) {
                Ok(p) => (p, false),
                Err(e) => {
                    self.fail(field, plain_words(e.message()));
                    return None;
                }
            },
            _ => {
                self.fail(
                    field,
                    "give a profile name like \"Warrior of Minas Tirith\" or a table like { fight = 4, ... }",
                );
                return None;
            }
        };
        let hint = if named { "" } else { ", or name a profile like profile = \"Warrior of Minas Tirith\"" };
        let mount = match &p.mount {
            None => None,
            Some(value) => match RawMount::deserialize(value.clone()) {
                Ok(m) => Some(Mount {
                    defence: self.int(&pf("mount.defence"), m.defence, 1, 10, "defence"),
                    wounds: self.int(&pf("mount.wounds"), m.wounds, 1, 20, "wounds"),
                    attacks: self.int(&pf("mount.attacks"), m.attacks, 0, 10, "attacks"),
                    fight: self.int(&pf("mount.fight"), m.fight, 0, 10, "fight"),
                    strength: self.int(&pf("mount.strength"), m.strength, 1, 10, "strength"),
                }),
                Err(e) => {
                    self.fail(&pf("mount"), plain_words(e.message()));
                    None
                }
            },
        };
        let profile = Profile {
            fight: self.req_int(&pf("fight"), p.fight, 1, 10, "fight", hint),
            strength: self.req_int(&pf("strength"), p.strength, 1, 10, "strength", hint),
            defence: self.req_int(&pf("defence"), p.defence, 1, 10, "defence", hint),
            attacks: self.req_int(&pf("attacks"), p.attacks, 0, 10, "attacks", hint),
            wounds: self.req_int(&pf("wounds"), p.wounds, 1, 20, "wounds", hint),
            courage: self.req_target(&pf("courage"), p.courage.as_ref(), hint),
            points: self.points(&pf("points"), p.points.unwrap_or(0)),
            monster: p.monster.unwrap_or(false),
            chariot: p.chariot.unwrap_or(false),
            mount,
            spear: p.spear.unwrap_or(false),
            pike: p.pike.unwrap_or(false),
            shield: p.shield.unwrap_or(false),
            hero: None,
        };
        if profile.shield && !profile.pike {
            self.fail(&pf("shield"), "shield = true only changes a pike's duel dice (-1); a shield's Defence is already in the profile: remove shield, or add pike = true");
        }
        if profile.mount.is_some() && (profile.monster || profile.chariot) {
            self.fail(&pf("mount"), "a cavalry model cannot also be a monster or a chariot here");
        }
        if profile.spear && profile.pike {
            self.fail(&pf("pike"), "a model carries a spear or a pike, not both; keep one");
        }
        if profile.supports() && (profile.mount.is_some() || profile.monster || profile.chariot) {
            let which = if profile.pike { "pike" } else { "spear" };
            self.fail(
                &pf(which),
                format!("only Infantry support with a {which}; a cavalry model, Monster or chariot cannot: remove {which} = true"),
            );
        }
        let hero = self.heroism(field, &p, &profile);
        let profile = Profile { hero, ..profile };
        let base_mm = p.base_mm.map(|d| self.float(&pf("base_mm"), d, 10.0, 300.0, "the base diameter (mm)"));
        Some((profile, base_mm))
    }

    /// Might, Will and Fate of a profile: all three make it a Hero; the policies need them.
    fn heroism(&mut self, field: &str, p: &RawProfile, profile: &Profile) -> Option<Heroism> {
        let pf = |name: &str| format!("{field}.{name}");
        let given = [p.might.is_some(), p.will.is_some(), p.fate.is_some()];
        if given.iter().all(|g| !g) {
            for (name, set) in [
                ("might_policy", p.might_policy.is_some()),
                ("fate_policy", p.fate_policy.is_some()),
                ("might_on_saves", p.might_on_saves.is_some()),
            ] {
                if set {
                    self.fail(
                        &pf(name),
                        format!("{name} is for a Hero: give the profile might, will and fate, or remove {name}"),
                    );
                }
            }
            return None;
        }
        for (name, value) in [("might", p.might), ("will", p.will), ("fate", p.fate)] {
            if value.is_none() {
                self.missing(&pf(name), " (a Hero has Might, Will and Fate: give all three, 0 where he has none)");
            }
        }
        if profile.mount.is_some() {
            self.fail(
                &pf("might"),
                format!(
                    "a mounted enemy Hero {NOT_YET}: fight him on foot (remove mount) or remove might, will and fate"
                ),
            );
        }
        if profile.chariot {
            self.fail(&pf("might"), format!("an enemy chariot's Hero {NOT_YET}: remove might, will and fate"));
        }
        if profile.supports() {
            let which = if profile.pike { "pike" } else { "spear" };
            self.fail(
                &pf(which),
                format!(
                    "a Hero supporting with a {which} {NOT_YET} (his Might on a supporting die): remove {which} = true"
                ),
            );
        }
        Some(Heroism {
            might: self.int(&pf("might"), p.might.unwrap_or(0), 0, 6, "might"),
            will: self.int(&pf("will"), p.will.unwrap_or(0), 0, 6, "will"),
            fate: self.int(&pf("fate"), p.fate.unwrap_or(0), 0, 6, "fate"),
            might_policy: p.might_policy.unwrap_or_default(),
            fate_policy: p.fate_policy.unwrap_or_default(),
            might_on_saves: p.might_on_saves.unwrap_or(true),
        })
    }

    /// The Hero placed among a formation's warriors: `hero = { profile = ..., at = [rank,
    /// file] }`, by default the middle of the front rank; his profile must make him a Hero,
    /// stand on the formation's base (`diameter_mm`, NaN for an oval base) and not take the
    /// banner bearer's place.
    #[allow(clippy::too_many_arguments)]
    fn placed_hero(
        &mut self,
        i: usize,
        raw: &RawFormation,
        count: usize,
        ranks: usize,
        diameter_mm: f64,
        warriors: &Profile,
        banner: Option<usize>,
    ) -> Option<PlacedHero> {
        let h = raw.hero.as_ref()?;
        let at = |name: &str| format!("formations[{i}].hero.{name}");
        if warriors.hero.is_some() {
            self.fail(&at("profile"), "every model of this formation is already a Hero (its profile has might, will and fate): place a Hero among warriors only");
        }
        let (profile, base_mm) = self.model_profile(&at("profile"), &h.profile)?;
        if profile.hero.is_none() {
            self.fail(
                &at("profile.might"),
                "the placed Hero's profile needs might, will and fate (0 where he has none)",
            );
        }
        if let Some(d) = base_mm
            && (diameter_mm.is_nan() || (d - diameter_mm).abs() > 1e-9)
        {
            let theirs = if diameter_mm.is_nan() { "oval".to_string() } else { format!("{diameter_mm} mm") };
            self.fail(
                &at("profile.base_mm"),
                format!("the Hero stands in the formation's ranks on its {theirs} bases; a {d} mm base would need its own formation"),
            );
        }
        let index = self.place(&at("at"), h.at, count, ranks, "the Hero")?;
        if banner == Some(index) {
            self.fail(&at("at"), "the banner bearer stands there: place the Hero elsewhere (at = [rank, file]) or move the banner (banner_at)");
        }
        let name = h.name.clone().unwrap_or_else(|| match &h.profile {
            toml::Value::String(n) => n.clone(),
            _ => "Hero".to_string(),
        });
        Some(PlacedHero { name, index, profile })
    }

    /// The banner bearer's index among the formation's models (rank by rank, files from its
    /// left): `banner_at` = [rank, file], by default the middle of the front rank (the left
    /// of the two middle files when the rank is even).
    fn banner(&mut self, i: usize, raw: &RawFormation, count: usize, ranks: usize) -> Option<usize> {
        let at = |name: &str| format!("formations[{i}].{name}");
        if !raw.banner.unwrap_or(false) {
            if raw.banner_at.is_some() {
                self.fail(&at("banner_at"), "banner_at places a banner bearer: add banner = true, or remove banner_at");
            }
            return None;
        }
        self.place(&at("banner_at"), raw.banner_at, count, ranks, "the bearer")
    }

    /// A model's index among a formation's (rank by rank, files from its left) from `at` =
    /// [rank, file], by default the middle of the front rank (the left of the two middle
    /// files when the rank is even).
    fn place(&mut self, field: &str, at: Option<[i64; 2]>, count: usize, ranks: usize, who: &str) -> Option<usize> {
        let per_rank = count.div_ceil(ranks.max(1));
        let in_rank = |rank: usize| per_rank.min(count.saturating_sub(per_rank * (rank - 1)));
        let [rank, file] = at.unwrap_or([1, in_rank(1).div_ceil(2) as i64]);
        if rank < 1 || rank as usize > ranks {
            self.fail(field, format!("rank {rank} is outside the formation (ranks 1 to {ranks}); {who} stands in it"));
            return None;
        }
        let files = in_rank(rank as usize);
        if file < 1 || file as usize > files {
            self.fail(
                field,
                format!("file {file} is outside rank {rank} (files 1 to {files}, from the formation's left); {who} stands in it"),
            );
            return None;
        }
        Some(per_rank * (rank as usize - 1) + file as usize - 1)
    }

    fn whole(&mut self, field: &str, value: i64, lo: i64, hi: i64, what: &str) -> usize {
        if (lo..=hi).contains(&value) {
            value as usize
        } else {
            self.fail(field, format!("{what} {value} is out of range; allowed {lo} to {hi}"));
            lo as usize
        }
    }

    /// A spear or pike supports only a friend it touches: a formation given spears or pikes
    /// in which no model touches another model is refused (it would never support).
    fn supporters_touch(&mut self, scenario: &Scenario) {
        let tolerance = crate::plan::support::BASE_CONTACT_MM / geometry::MM_PER_INCH;
        for (fi, f) in scenario.formations.iter().enumerate() {
            if !f.profile.supports() {
                continue;
            }
            let touches_someone = f.centres.iter().enumerate().any(|(mi, c)| {
                scenario.formations.iter().enumerate().any(|(gi, g)| {
                    g.centres.iter().enumerate().any(|(ni, d)| {
                        (gi, ni) != (fi, mi)
                            && (*c - *d).length() <= f.disc_at(*c).radius + g.disc_at(*d).radius + tolerance
                            && f.disc_at(*c).distance_to(&g.disc_at(*d)) <= tolerance
                    })
                })
            });
            if !touches_someone {
                let which = if f.profile.pike { "pike" } else { "spear" };
                self.fail(
                    &format!("formations[{fi}].profile.{which}"),
                    format!(
                        "no model of \"{}\" touches another model, so its {which}s can never support anyone (gap_mm {}): close the gap to 0, or remove {which} = true",
                        f.name, f.gap_mm
                    ),
                );
            }
        }
    }

    /// Models may touch but not overlap the chariot or each other; the chariot may not
    /// start touching an obstacle.
    fn overlaps(&mut self, scenario: &Scenario) {
        let footprint = scenario.chariot.base.footprint();
        let pose = scenario.chariot.start;
        for (i, t) in scenario.terrain.iter().enumerate() {
            if let Terrain::Obstacle { name, from, to } = t
                && geometry::footprint_segment_distance(&footprint, &pose, *from, *to) <= geometry::EPSILON
            {
                self.fail(
                    &format!("terrain[{i}].from"),
                    format!("the chariot starts touching the obstacle \"{name}\"; move one of them"),
                );
            }
        }
        let tolerance = 1e-6;
        let mut discs: Vec<(usize, usize, Disc)> = Vec::new();
        for (fi, f) in scenario.formations.iter().enumerate() {
            for (mi, c) in f.centres.iter().enumerate() {
                let disc = f.disc_at(*c);
                let depth = -disc.distance_from(&footprint, &pose);
                if depth > tolerance {
                    self.fail(
                        &format!("formations[{fi}].front_centre"),
                        format!(
                            "model {} of \"{}\" at ({:.2}, {:.2}) overlaps the chariot's starting base by {:.2}\"; move the formation or the chariot apart",
                            mi + 1,
                            f.name,
                            c.x,
                            c.y,
                            depth
                        ),
                    );
                    break;
                }
                discs.push((fi, mi, disc));
            }
        }
        // Sort by x so that only neighbours in x are compared.
        discs.sort_by(|a, b| a.2.centre.x.total_cmp(&b.2.centre.x));
        let max_r = discs.iter().map(|d| d.2.radius).fold(0.0, f64::max);
        let mut reported = std::collections::BTreeSet::new();
        for (k, (fa, ma, a)) in discs.iter().enumerate() {
            for (fb, mb, b) in discs[k + 1..].iter() {
                if b.centre.x - a.centre.x > 2.0 * max_r {
                    break;
                }
                if a.radius + b.radius - (a.centre - b.centre).length() <= tolerance {
                    continue;
                }
                let depth = -a.distance_to(b);
                if depth > tolerance && reported.insert((*fa.min(fb), *fa.max(fb))) {
                    let (fi, other) = if fa >= fb { (*fa, *fb) } else { (*fb, *fa) };
                    let fa_name = &scenario.formations[*fa].name;
                    let fb_name = &scenario.formations[*fb].name;
                    self.fail(
                        &format!("formations[{fi}].front_centre"),
                        format!(
                            "model {} of \"{fa_name}\" overlaps model {} of \"{fb_name}\" by {depth:.2}\"{}; models may touch but not overlap",
                            ma + 1,
                            mb + 1,
                            if fi == other { " (check gap_mm and the base size)" } else { "" }
                        ),
                    );
                }
            }
        }
    }
}

// ----- locating fields in the source --------------------------------------------------

/// The 1-based line holding byte `offset`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|b| **b == b'\n').count() + 1
}

enum Step<'p> {
    Key(&'p str),
    Index(usize),
}

fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, rest) = part.split_once('[').unwrap_or((part, ""));
        if !key.is_empty() {
            out.push(Step::Key(key));
        }
        for idx in rest.split('[') {
            if let Ok(i) = idx.trim_end_matches(']').parse() {
                out.push(Step::Index(i));
            }
        }
    }
    out
}

/// The line of a field given by its dotted path (the deepest part of it found).
pub fn locate(text: &str, field: &str) -> Option<usize> {
    use toml::de::{DeTable, DeValue};
    let doc = DeTable::parse(text).ok()?;
    let mut span = None;
    let mut table = Some(doc.get_ref());
    let mut array: Option<&toml::de::DeArray<'_>> = None;
    for step in steps(field) {
        let found = match (step, table, array) {
            (Step::Key(k), Some(t), _) => t.get(k).map(|v| {
                let key_span = t.get_key_value(k).map(|(key, _)| key.span());
                (v, key_span)
            }),
            (Step::Index(i), _, Some(a)) => a.get(i).map(|v| (v, None)),
            _ => None,
        };
        let Some((value, key_span)) = found else { break };
        span = key_span.or(Some(value.span())).or(span);
        table = None;
        array = None;
        match value.get_ref() {
            DeValue::Table(t) => table = Some(t),
            DeValue::Array(a) => array = Some(a),
            _ => {}
        }
    }
    span.map(|s| line_of(text, s.start))
}

/// The dotted path of the innermost field whose key or value covers byte `offset`.
///
/// Table spans cover only their headers, so the whole tree is searched, not just the
/// branch that seems to contain the offset.
pub(crate) fn field_at(text: &str, offset: usize) -> String {
    use toml::de::{DeTable, DeValue};
    fn walk(value: &DeValue<'_>, offset: usize, path: &str, best: &mut Option<String>) {
        let mut visit = |child: String, covers: bool, v: &DeValue<'_>| {
            if covers && best.as_ref().is_none_or(|b| child.len() > b.len()) {
                *best = Some(child.clone());
            }
            walk(v, offset, &child, best);
        };
        match value {
            DeValue::Table(t) => {
                for (k, v) in t.iter() {
                    let child =
                        if path.is_empty() { k.get_ref().to_string() } else { format!("{path}.{}", k.get_ref()) };
                    let covers = k.span().contains(&offset) || v.span().contains(&offset);
                    visit(child, covers, v.get_ref());
                }
            }
            DeValue::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    visit(format!("{path}[{i}]"), v.span().contains(&offset), v.get_ref());
                }
            }
            _ => {}
        }
    }
    let Ok(doc) = DeTable::parse(text) else { return String::new() };
    let mut best = None;
    walk(&DeValue::Table(doc.into_inner()), offset, "", &mut best);
    best.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_default_is_valid() {
        let s = parse(DEFAULT_SCENARIO, DEFAULT_SCENARIO_NAME).unwrap();
        assert_eq!(s.formations[0].centres.len(), 12);
        assert_eq!(s.chariot.impact.hits.to_string(), "2");
        assert_eq!(s.slug(), "khandish-charioteer-charges-a-minas-tirith-shield-wall");
    }

    #[test]
    fn hash_ignores_title_trials_and_seed_only() {
        let a = parse(DEFAULT_SCENARIO, "a").unwrap();
        let mut b = a.clone();
        b.title = "other".into();
        b.trials = 5;
        b.seed = 99;
        assert_eq!(a.hash(), b.hash());
        b.chariot.impact.strength = 5;
        assert_ne!(a.hash(), b.hash());
    }

    #[test]
    fn the_bundled_profile_library_parses() {
        let lib: RawLibrary = toml::from_str(BUNDLED_PROFILES).expect("bundled profiles parse");
        assert!(lib.chariots.contains_key("Khandish Charioteer"));
        assert!(lib.heroes.contains_key("Khandish King"));
        assert!(lib.models.contains_key("Warrior of Minas Tirith"));
        assert!(bundled_profile_names().len() >= 10);
    }

    #[test]
    fn named_profiles_fill_in_and_fields_override() {
        let text = r#"
title = "t"
system = "mesbg"
[chariot]
profile = "Khandish Chariot upgrade for a King"
side = "evil"
at = [0.0, 0.0]
defence = 8
[chariot.hero]
profile = "Khandish King"
might_policy = "win_duel"
[[formations]]
name = "Warriors"
count = 4
front_centre = [0.0, 5.0]
facing = 180
profile = "Warrior of Minas Tirith"
"#;
        let s = parse(text, "t").unwrap();
        assert_eq!(s.chariot.fight, 2);
        assert_eq!(s.chariot.defence, 8, "overridden");
        let hero = s.chariot.hero.as_ref().unwrap();
        assert_eq!((hero.fight, hero.attacks, hero.might, hero.fate), (5, 3, 2, 1));
        assert_eq!(hero.might_policy, MightPolicy::WinDuel);
        assert_eq!(s.formations[0].profile.defence, 5);
        assert_eq!(s.formations[0].base_mm, 25.0);
        let err = parse(&text.replace("\"Khandish King\"", "\"Khandish Kong\""), "t").unwrap_err().to_string();
        assert!(
            err.contains("chariot.hero.profile")
                && err.contains("no hero profile is named")
                && err.contains("Khandish King"),
            "{err}"
        );
        let err = parse(&text.replace("profile = \"Warrior of Minas Tirith\"", "profile = { fight = 4 }"), "t")
            .unwrap_err()
            .to_string();
        assert!(err.contains("formations[0].profile.strength") && err.contains("missing"), "{err}");
    }

    #[test]
    fn paths_are_located() {
        let text = "title = \"t\"\n[chariot]\nname = \"x\"\n\n[[formations]]\nname = \"a\"\n[[formations]]\nname = \"b\"\n[formations.profile]\nwounds = 0\n";
        assert_eq!(locate(text, "chariot.name"), Some(3));
        assert_eq!(locate(text, "formations[1].name"), Some(8));
        assert_eq!(locate(text, "formations[1].profile.wounds"), Some(10));
        assert_eq!(field_at(text, text.find("wounds").unwrap()), "formations[1].profile.wounds");
    }
}
