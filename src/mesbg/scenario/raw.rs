//! The scenario file as written: serde's view of the TOML (every field optional where the
//! schema has a default or a library profile may fill it in), and the bundled profile
//! library. [`super::check`] turns it into a [`super::Scenario`].

use super::rule_options::RawRules;
use super::*;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawScenario {
    pub(super) title: String,
    #[serde(default)]
    pub(super) question: Option<String>,
    /// The metrics that answer the question, led with in the report.
    #[serde(default)]
    pub(super) answer: Vec<String>,
    pub(super) system: String,
    #[serde(default)]
    pub(super) trials: Option<i64>,
    #[serde(default)]
    pub(super) seed: Option<i64>,
    #[serde(default)]
    pub(super) chariot: Option<RawChariot>,
    #[serde(default)]
    pub(super) charge: Option<RawCharge>,
    /// A turn of several chariots, each with its own charge.
    #[serde(default)]
    pub(super) chariots: Vec<RawChariotEntry>,
    #[serde(default)]
    pub(super) turn: Option<RawTurn>,
    #[serde(default)]
    pub(super) formations: Vec<RawFormation>,
    #[serde(default)]
    pub(super) rules: RawRules,
    #[serde(default)]
    pub(super) terrain: Vec<RawTerrain>,
    #[serde(default)]
    pub(super) army: Option<RawArmy>,
}

/// One chariot of a turn: the chariot's fields and its charge's, in one table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawChariotEntry {
    #[serde(default)]
    pub(super) profile: Option<String>,
    #[serde(default)]
    pub(super) name: Option<String>,
    pub(super) side: Side,
    #[serde(default, rename = "move")]
    pub(super) move_inches: Option<f64>,
    #[serde(default)]
    pub(super) fight: Option<i64>,
    #[serde(default)]
    pub(super) strength: Option<i64>,
    #[serde(default)]
    pub(super) defence: Option<i64>,
    #[serde(default)]
    pub(super) attacks: Option<i64>,
    #[serde(default)]
    pub(super) wounds: Option<i64>,
    #[serde(default)]
    pub(super) courage: Option<String>,
    #[serde(default)]
    pub(super) impact: Option<RawImpact>,
    #[serde(default)]
    pub(super) base: Option<RawBase>,
    pub(super) at: [f64; 2],
    #[serde(default)]
    pub(super) facing: Option<f64>,
    #[serde(default)]
    pub(super) points: Option<i64>,
    #[serde(default)]
    pub(super) hand_and_a_half: Option<bool>,
    #[serde(default)]
    pub(super) hero: Option<RawHero>,
    #[serde(default)]
    pub(super) pivots: Option<Vec<f64>>,
    #[serde(default)]
    pub(super) aim: Option<toml::Value>,
    #[serde(default)]
    pub(super) plan: Option<String>,
    #[serde(default)]
    pub(super) objective: Option<Objective>,
    #[serde(default)]
    pub(super) distance: Option<f64>,
}

impl RawChariotEntry {
    /// The entry as a `[chariot]` table and a `[charge]` table.
    pub(super) fn split(&self) -> (RawChariot, RawCharge) {
        (
            RawChariot {
                profile: self.profile.clone(),
                name: self.name.clone(),
                side: self.side,
                move_inches: self.move_inches,
                fight: self.fight,
                strength: self.strength,
                defence: self.defence,
                attacks: self.attacks,
                wounds: self.wounds,
                courage: self.courage.clone(),
                impact: self.impact.clone(),
                base: self.base.clone(),
                at: self.at,
                facing: self.facing,
                points: self.points,
                hand_and_a_half: self.hand_and_a_half,
                hero: self.hero.clone(),
            },
            RawCharge {
                pivots: self.pivots.clone(),
                aim: self.aim.clone(),
                plan: self.plan.clone(),
                objective: self.objective,
                distance: self.distance,
            },
        )
    }
}

/// `[turn]`: the order the chariots charge in.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTurn {
    #[serde(default)]
    pub(super) order: Option<toml::Value>,
    #[serde(default)]
    pub(super) objective: Option<String>,
    #[serde(default)]
    pub(super) corridor_width: Option<super::CorridorWidth>,
    #[serde(default)]
    pub(super) fight_order: Option<super::FightOrder>,
    #[serde(default)]
    pub(super) strike_order: Option<super::StrikeOrder>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTerrain {
    pub(super) name: String,
    pub(super) kind: String,
    #[serde(default)]
    pub(super) polygon: Option<Vec<[f64; 2]>>,
    #[serde(default)]
    pub(super) from: Option<[f64; 2]>,
    #[serde(default)]
    pub(super) to: Option<[f64; 2]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawArmy {
    pub(super) models: i64,
    #[serde(default)]
    pub(super) casualties: i64,
}

/// A chariot's statistics, as written in a scenario or in the profile library.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawChariotStats {
    #[serde(rename = "move")]
    pub(super) move_inches: Option<f64>,
    pub(super) fight: Option<i64>,
    pub(super) strength: Option<i64>,
    pub(super) defence: Option<i64>,
    pub(super) attacks: Option<i64>,
    pub(super) wounds: Option<i64>,
    pub(super) courage: Option<String>,
    pub(super) impact: Option<RawImpact>,
    pub(super) base: Option<RawBase>,
    pub(super) points: Option<i64>,
    /// A hand-and-a-half weapon: the chariot may hold it two-handed in a fight.
    #[serde(default)]
    pub(super) hand_and_a_half: Option<bool>,
    /// Library bookkeeping: the standard wargear, the list's options with their points,
    /// the special rules by name, the army list, a Legacies mark and where the numbers come
    /// from. Shown by `charioteer profiles`; `options` prices the wargear chosen beside a
    /// library name.
    #[serde(default)]
    pub(super) wargear: Vec<String>,
    #[serde(default)]
    pub(super) options: std::collections::BTreeMap<String, i64>,
    #[serde(default)]
    pub(super) rules: Vec<String>,
    #[serde(default)]
    pub(super) army: Option<String>,
    #[serde(default)]
    pub(super) legacy: Option<bool>,
    #[serde(default)]
    pub(super) source: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawChariot {
    #[serde(default)]
    pub(super) profile: Option<String>,
    #[serde(default)]
    pub(super) name: Option<String>,
    pub(super) side: Side,
    #[serde(default, rename = "move")]
    pub(super) move_inches: Option<f64>,
    #[serde(default)]
    pub(super) fight: Option<i64>,
    #[serde(default)]
    pub(super) strength: Option<i64>,
    #[serde(default)]
    pub(super) defence: Option<i64>,
    #[serde(default)]
    pub(super) attacks: Option<i64>,
    #[serde(default)]
    pub(super) wounds: Option<i64>,
    #[serde(default)]
    pub(super) courage: Option<String>,
    #[serde(default)]
    pub(super) impact: Option<RawImpact>,
    #[serde(default)]
    pub(super) base: Option<RawBase>,
    pub(super) at: [f64; 2],
    #[serde(default)]
    pub(super) facing: Option<f64>,
    #[serde(default)]
    pub(super) points: Option<i64>,
    #[serde(default)]
    pub(super) hand_and_a_half: Option<bool>,
    #[serde(default)]
    pub(super) hero: Option<RawHero>,
}

impl RawChariot {
    /// The statistics written here, each falling back to the named profile's.
    pub(super) fn stats_over(&self, base: RawChariotStats) -> RawChariotStats {
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
            hand_and_a_half: self.hand_and_a_half.or(base.hand_and_a_half),
            ..base
        }
    }
}

/// A Hero's statistics, as written in a scenario or in the profile library.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawHero {
    #[serde(default)]
    pub(super) profile: Option<String>,
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) fight: Option<i64>,
    #[serde(default)]
    pub(super) strength: Option<i64>,
    #[serde(default)]
    pub(super) defence: Option<i64>,
    #[serde(default)]
    pub(super) attacks: Option<i64>,
    #[serde(default)]
    pub(super) wounds: Option<i64>,
    #[serde(default)]
    pub(super) courage: Option<String>,
    #[serde(default)]
    pub(super) might: Option<i64>,
    #[serde(default)]
    pub(super) will: Option<i64>,
    #[serde(default)]
    pub(super) fate: Option<i64>,
    #[serde(default)]
    pub(super) might_policy: Option<MightPolicy>,
    #[serde(default)]
    pub(super) fate_policy: Option<FatePolicy>,
    #[serde(default)]
    pub(super) might_on_saves: Option<bool>,
    #[serde(default)]
    pub(super) points: Option<i64>,
    /// A hand-and-a-half weapon (the chariot he rides may hold it two-handed).
    #[serde(default)]
    pub(super) hand_and_a_half: Option<bool>,
    /// Library bookkeeping: the standard wargear, the list's options with their points,
    /// the special rules by name, the army list, a Legacies mark and where the numbers come
    /// from. Shown by `charioteer profiles`; `options` prices the wargear chosen beside a
    /// library name.
    #[serde(default)]
    pub(super) wargear: Vec<String>,
    #[serde(default)]
    pub(super) options: std::collections::BTreeMap<String, i64>,
    #[serde(default)]
    pub(super) rules: Vec<String>,
    #[serde(default)]
    pub(super) army: Option<String>,
    #[serde(default)]
    pub(super) legacy: Option<bool>,
    #[serde(default)]
    pub(super) source: Option<String>,
}

impl RawHero {
    pub(super) fn over(&self, base: RawHero) -> RawHero {
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
            hand_and_a_half: self.hand_and_a_half.or(base.hand_and_a_half),
            wargear: base.wargear,
            options: base.options,
            rules: base.rules,
            army: base.army,
            legacy: base.legacy,
            source: base.source,
        }
    }
}

/// `impact = { hits = "D3", strength = 4 }`: read only from a table (serde would also
/// read a struct from an array, so `impact = [1, 2]` would pass as hits 1, strength 2).
#[derive(Clone)]
pub(super) struct RawImpact {
    pub(super) hits: String,
    pub(super) strength: i64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ImpactTable {
    #[serde(deserialize_with = "number_or_dice")]
    hits: String,
    strength: i64,
}

impl<'de> Deserialize<'de> for RawImpact {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = RawImpact;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a table like { hits = \"D3\", strength = 4 }")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<RawImpact, A::Error> {
                let t = ImpactTable::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(RawImpact { hits: t.hits, strength: t.strength })
            }
        }
        d.deserialize_any(Visitor)
    }
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBase {
    #[serde(default)]
    pub(super) round_mm: Option<f64>,
    #[serde(default)]
    pub(super) rect_mm: Option<[f64; 2]>,
    #[serde(default)]
    pub(super) oval_mm: Option<[f64; 2]>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCharge {
    #[serde(default)]
    pub(super) pivots: Option<Vec<f64>>,
    #[serde(default)]
    pub(super) aim: Option<toml::Value>,
    #[serde(default)]
    pub(super) plan: Option<String>,
    #[serde(default)]
    pub(super) objective: Option<Objective>,
    #[serde(default)]
    pub(super) distance: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFormation {
    pub(super) name: String,
    #[serde(default)]
    pub(super) side: Option<Side>,
    pub(super) count: i64,
    #[serde(default = "one")]
    pub(super) ranks: i64,
    #[serde(default)]
    pub(super) base: Option<RawBase>,
    #[serde(default)]
    pub(super) gap_mm: f64,
    pub(super) front_centre: [f64; 2],
    #[serde(default)]
    pub(super) facing: Option<f64>,
    /// A profile name (a string) or the statistics (a table).
    pub(super) profile: toml::Value,
    #[serde(default)]
    pub(super) banner: Option<bool>,
    /// Where the banner bearer stands: [rank, file], 1-based, files from the formation's left.
    #[serde(default)]
    pub(super) banner_at: Option<[i64; 2]>,
    /// A Hero standing among the warriors.
    #[serde(default)]
    pub(super) hero: Option<RawPlacedHero>,
    /// Points per model, over the profile's (a library profile has none).
    #[serde(default)]
    pub(super) points: Option<i64>,
    /// Spears or pikes, over the profile's wargear.
    #[serde(default)]
    pub(super) spear: Option<bool>,
    #[serde(default)]
    pub(super) pike: Option<bool>,
    /// A shield, over the profile's wargear: +1 Defence (not with a pike) and the list's
    /// points for it.
    #[serde(default)]
    pub(super) shield: Option<bool>,
}

/// A Hero placed in a formation, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPlacedHero {
    /// A model profile name or table, with Might, Will and Fate.
    pub(super) profile: toml::Value,
    /// [rank, file], 1-based, files from the formation's left; by default the middle of the
    /// front rank.
    #[serde(default)]
    pub(super) at: Option<[i64; 2]>,
    #[serde(default)]
    pub(super) name: Option<String>,
}

pub(super) fn one() -> i64 {
    1
}

/// A model's statistics, as written in a scenario or in the profile library.
#[derive(Deserialize, Clone, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawProfile {
    pub(super) fight: Option<i64>,
    pub(super) strength: Option<i64>,
    pub(super) defence: Option<i64>,
    pub(super) attacks: Option<i64>,
    pub(super) wounds: Option<i64>,
    pub(super) courage: Option<String>,
    #[serde(default)]
    pub(super) points: Option<i64>,
    #[serde(default)]
    pub(super) base_mm: Option<f64>,
    #[serde(default)]
    pub(super) monster: Option<bool>,
    #[serde(default)]
    pub(super) chariot: Option<bool>,
    #[serde(default)]
    pub(super) mount: Option<toml::Value>,
    #[serde(default)]
    pub(super) spear: Option<bool>,
    #[serde(default)]
    pub(super) pike: Option<bool>,
    #[serde(default)]
    pub(super) shield: Option<bool>,
    /// Has the Shieldwall special rule (a library profile has it when its `rules` list it).
    #[serde(default)]
    pub(super) shieldwall: Option<bool>,
    #[serde(default)]
    pub(super) might: Option<i64>,
    #[serde(default)]
    pub(super) will: Option<i64>,
    #[serde(default)]
    pub(super) fate: Option<i64>,
    #[serde(default)]
    pub(super) might_policy: Option<MightPolicy>,
    #[serde(default)]
    pub(super) fate_policy: Option<FoeFatePolicy>,
    #[serde(default)]
    pub(super) might_on_saves: Option<bool>,
    /// Move in inches (shown by `charioteer profiles`; a formation does not move).
    #[serde(default, rename = "move")]
    pub(super) move_inches: Option<f64>,
    /// Weapons the profile carries as standard (shown, not modelled yet).
    #[serde(default)]
    pub(super) two_handed: Option<bool>,
    #[serde(default)]
    pub(super) hand_and_a_half: Option<bool>,
    /// Library bookkeeping: the standard wargear, the list's options with their points,
    /// the special rules by name, the army list, a Legacies mark and where the numbers come
    /// from. Shown by `charioteer profiles`; `options` prices the wargear chosen beside a
    /// library name.
    #[serde(default)]
    pub(super) wargear: Vec<String>,
    #[serde(default)]
    pub(super) options: std::collections::BTreeMap<String, i64>,
    #[serde(default)]
    pub(super) rules: Vec<String>,
    #[serde(default)]
    pub(super) army: Option<String>,
    #[serde(default)]
    pub(super) legacy: Option<bool>,
    #[serde(default)]
    pub(super) source: Option<String>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct RawMount {
    pub(super) defence: i64,
    pub(super) wounds: i64,
    #[serde(default)]
    pub(super) attacks: i64,
    #[serde(default)]
    pub(super) fight: i64,
    #[serde(default = "one")]
    pub(super) strength: i64,
}

/// The profile library: named chariots, heroes and models.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLibrary {
    #[serde(default)]
    pub(super) chariots: std::collections::BTreeMap<String, RawChariotStats>,
    #[serde(default)]
    pub(super) heroes: std::collections::BTreeMap<String, RawHero>,
    #[serde(default)]
    pub(super) models: std::collections::BTreeMap<String, RawProfile>,
}

/// The bundled profile library (`scenarios/profiles/mesbg.toml`).
pub const BUNDLED_PROFILES: &str = include_str!("../../../scenarios/profiles/mesbg.toml");

pub(super) fn bundled_library() -> RawLibrary {
    // The bundled file is tested to parse; an error here is a build defect, so fall back
    // to an empty library (every profile name is then reported unknown) rather than panic.
    toml::from_str(BUNDLED_PROFILES).unwrap_or_default()
}

/// Whether a special rule's name is Shieldwall (as the library writes it, any case).
pub fn is_shieldwall(rule: &str) -> bool {
    rule.trim().eq_ignore_ascii_case("shieldwall")
}

/// Keys of the library file that only `charioteer profiles` reads: a scenario's own tables
/// refuse them, so they are taken out of a profile copied into a scenario.
pub const LIBRARY_ONLY_KEYS: [&str; 9] =
    ["wargear", "options", "rules", "army", "legacy", "source", "move", "two_handed", "hand_and_a_half"];

/// The bundled library as TOML tables (`chariots`, `heroes`, `models`), each profile as a
/// scenario may hold it inline: without the library's own bookkeeping ([`LIBRARY_ONLY_KEYS`];
/// a chariot keeps its `move`).
pub fn bundled_profile_tables() -> toml::Table {
    let mut lib: toml::Table = BUNDLED_PROFILES.parse().unwrap_or_default();
    for (kind, profiles) in lib.iter_mut() {
        let Some(profiles) = profiles.as_table_mut() else { continue };
        for (_, profile) in profiles.iter_mut() {
            let Some(profile) = profile.as_table_mut() else { continue };
            // The one special rule the engine reads by name travels as its own key.
            let shieldwall = profile
                .get("rules")
                .and_then(toml::Value::as_array)
                .is_some_and(|rules| rules.iter().any(|r| r.as_str().is_some_and(is_shieldwall)));
            if shieldwall {
                profile.insert("shieldwall".into(), toml::Value::Boolean(true));
            }
            for key in LIBRARY_ONLY_KEYS {
                // A chariot keeps its Move, and a chariot or a Hero its hand-and-a-half
                // weapon (played for them; an enemy model's is not played yet).
                let kept = (key == "move" && kind == "chariots") || (key == "hand_and_a_half" && kind != "models");
                if !kept {
                    profile.remove(key);
                }
            }
        }
    }
    lib
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

/// A dice expression written as text (`"D3+1"`) or, for a constant, as a bare whole number
/// (`2`): both read the same, so a file (or a `--set`) may write either.
fn number_or_dice<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    struct Visitor;
    impl serde::de::Visitor<'_> for Visitor {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a whole number like 2 or a dice expression in quotes like \"D3+1\"")
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<String, E> {
            Ok(v.to_string())
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<String, E> {
            Ok(v.to_string())
        }
    }
    d.deserialize_any(Visitor)
}
