//! Formations of enemy models: their profiles, Heroes and mounts, and where each model stands.

use super::*;

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
    /// Carries a shield (its Defence already counted, except with a pike): with a pike, -1
    /// on the model's own duel dice.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shield: bool,
    /// Has the Shieldwall special rule: with a shield (not with a pike), +1 Defence while
    /// it touches two or more standing friends that also have it and carry shields.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub shieldwall: bool,
    /// An enemy Hero: his Might, Will and Fate and how he spends them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hero: Option<Heroism>,
}

impl Profile {
    /// A spear or a pike: the model can support a friend in a fight.
    pub fn supports(&self) -> bool {
        self.spear || self.pike
    }

    /// Whether the model stands in a shield wall: it has Shieldwall and uses a shield (not
    /// with a pike, which takes the shield's use away), on foot (Cavalry neither get nor
    /// give the bonus) and not a chariot.
    pub fn in_shieldwall(&self) -> bool {
        self.shieldwall && self.shield && !self.pike && self.mount.is_none() && !self.chariot
    }

    /// The profile as its shield wall braces it: Defence 1 higher (at most 10).
    pub fn braced(&self) -> Profile {
        Profile { defence: self.defence.saturating_add(1).min(10), ..self.clone() }
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
    /// What the banner costs on top of its bearer's points (the list's banner option when
    /// the profile is a library name; 0 otherwise). Not serialised when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bearer_points: u32,
    /// A Hero standing among the warriors, if the formation has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hero: Option<PlacedHero>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
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

    /// Base radius in inches.
    pub fn radius(&self) -> f64 {
        self.base_mm / geometry::MM_PER_INCH / 2.0
    }

    /// Distance between the centres of neighbouring ranks, inches.
    pub fn spacing(&self) -> f64 {
        (self.oval_mm.map_or(self.base_mm, |[_, l]| l) + self.gap_mm) / geometry::MM_PER_INCH
    }
}
