//! The bundled profile library as rows a player reads: each profile's characteristics,
//! points, options, which of its wargear and rules the engine models, and its source.
//! `charioteer profiles` prints them; tests check every row against the wargear rules.

use super::raw::{RawLibrary, bundled_library};
use serde::Serialize;

/// Wargear and rules the engine plays (everything else a profile lists is named as not
/// modelled). A shield counts in Defence; Shieldwall braces a shielded wall; spears and
/// pikes support; a banner re-rolls; a chariot's charge is the whole point of the tool.
const MODELLED: &[&str] = &[
    "shield",
    "shieldwall",
    "spear",
    "elven spear",
    "pike",
    "elven pike",
    "banner",
    "chariot charge",
    "horse",
    "armoured horse",
    "warg",
    "war goat",
    "galadhrim steed",
    "spectral steed",
    "feralof",
    "khandish chariot",
];

/// The wargear name of a hand-and-a-half weapon in the library.
const HAND_AND_A_HALF: &str = "hand-and-a-half weapon";

/// Wargear words that are only kit (armour is already in Defence, a hand weapon is the
/// default), never a rule to model.
const PLAIN_KIT: &[&str] = &["armour", "heavy armour", "light armour", "hand weapon", "hand weapons", "dwarf armour"];

/// One library profile as `charioteer profiles` shows it.
#[derive(Clone, Debug, Serialize)]
pub struct LibraryProfile {
    /// `chariots`, `heroes` (a chariot's rider) or `models` (anything that stands in a
    /// formation).
    pub kind: &'static str,
    /// The name a scenario writes.
    pub name: String,
    /// Move in inches, where the library gives it.
    pub move_inches: Option<f64>,
    /// Fight, Strength, Defence, Attacks, Wounds.
    pub fsdaw: [i64; 5],
    /// Standard weapons the engine does not play yet: "two-handed", "hand-and-a-half".
    pub weapons: Vec<&'static str>,
    /// Courage target ("7+").
    pub courage: String,
    /// Might, Will, Fate for a Hero.
    pub mwf: Option<[i64; 3]>,
    /// Base: "25 mm", "oval 105x170 mm".
    pub base: String,
    /// Points for the profile with its standard wargear.
    pub points: Option<i64>,
    /// The list's options with their points.
    pub options: Vec<(String, i64)>,
    /// Standard wargear and special rules the engine plays.
    pub modelled: Vec<String>,
    /// Standard wargear, options and special rules it does not play (yet).
    pub not_modelled: Vec<String>,
    /// The army list the points come from.
    pub army: String,
    /// A Legacies of Middle-earth profile.
    pub legacy: bool,
    /// Where the numbers come from.
    pub source: String,
    /// Impact Hits of a chariot ("2 x S4").
    pub impact: Option<String>,
    /// Extra words: a mount, a Monster.
    pub notes: Vec<String>,
}

impl LibraryProfile {
    /// Whether the profile matches a search word (case-insensitive, in its name, army,
    /// rules or wargear).
    pub fn matches(&self, word: &str) -> bool {
        let w = word.to_lowercase();
        [&self.name, &self.army].iter().any(|t| t.to_lowercase().contains(&w))
            || self.modelled.iter().chain(&self.not_modelled).any(|t| t.to_lowercase().contains(&w))
    }
}

fn modelled(word: &str) -> bool {
    MODELLED.contains(&word.to_lowercase().as_str())
}

/// Splits wargear, option and rule names into the modelled and the not modelled.
/// A chariot's hand-and-a-half weapon, or its rider's, is played (the grip chosen fight by
/// fight); an enemy model's is not yet.
fn sort_out(
    wargear: &[String],
    options: &[(String, i64)],
    rules: &[String],
    hero: bool,
    charging: bool,
) -> (Vec<String>, Vec<String>) {
    let (mut yes, mut no) = (Vec::new(), Vec::new());
    let kit = wargear.iter().filter(|g| !PLAIN_KIT.contains(&g.to_lowercase().as_str()));
    for name in kit.chain(rules) {
        let polearm = ["spear", "elven spear", "pike", "elven pike"].contains(&name.to_lowercase().as_str());
        if charging && name.eq_ignore_ascii_case(HAND_AND_A_HALF) {
            yes.push(name.clone());
        } else if hero && polearm {
            no.push(format!("{name} (a Hero's support)"));
        } else if modelled(name) {
            yes.push(name.clone())
        } else {
            no.push(name.clone())
        }
    }
    // A combination the list sells ("shield and spear") is chosen as its parts.
    let combination = |name: &str| name.split(" and ").all(modelled);
    for (name, _) in options {
        if !modelled(name) && !combination(name) && !no.contains(name) {
            no.push(format!("{name} (option)"));
        }
    }
    (yes, no)
}

/// Every bundled profile, chariots first, then riders, then models, each by name.
pub fn bundled_library_profiles() -> Vec<LibraryProfile> {
    rows(&bundled_library())
}

/// The library bookkeeping every kind of profile carries, borrowed.
struct Book<'a> {
    wargear: &'a [String],
    options: &'a std::collections::BTreeMap<String, i64>,
    rules: &'a [String],
    army: &'a Option<String>,
    legacy: Option<bool>,
    source: &'a Option<String>,
}

/// The bookkeeping of a raw chariot, hero or model (their fields share these names).
macro_rules! book {
    ($p:expr) => {
        Book {
            wargear: &$p.wargear,
            options: &$p.options,
            rules: &$p.rules,
            army: &$p.army,
            legacy: $p.legacy,
            source: &$p.source,
        }
    };
}

/// A row with its bookkeeping filled in (options, what is modelled, army, source); the
/// caller fills in the characteristics.
fn listed(kind: &'static str, name: &str, book: Book, hero: bool) -> LibraryProfile {
    let options: Vec<(String, i64)> = book.options.iter().map(|(k, v)| (k.clone(), *v)).collect();
    let (modelled, not_modelled) = sort_out(book.wargear, &options, book.rules, hero, kind != "models");
    LibraryProfile {
        kind,
        name: name.to_string(),
        move_inches: None,
        fsdaw: [0; 5],
        weapons: Vec::new(),
        courage: String::new(),
        mwf: None,
        base: String::new(),
        points: None,
        options,
        modelled,
        not_modelled,
        army: book.army.clone().unwrap_or_default(),
        legacy: book.legacy.unwrap_or(false),
        source: book.source.clone().unwrap_or_default(),
        impact: None,
        notes: Vec::new(),
    }
}

fn rows(lib: &RawLibrary) -> Vec<LibraryProfile> {
    let mut out = Vec::new();
    for (name, c) in &lib.chariots {
        let base = match &c.base {
            Some(b) => match (b.round_mm, b.oval_mm, b.rect_mm) {
                (Some(d), _, _) => format!("{d} mm"),
                (_, Some([w, l]), _) => format!("oval {w}x{l} mm"),
                (_, _, Some([w, l])) => format!("{w}x{l} mm"),
                _ => String::new(),
            },
            None => String::new(),
        };
        out.push(LibraryProfile {
            move_inches: c.move_inches,
            fsdaw: [c.fight, c.strength, c.defence, c.attacks, c.wounds].map(|v| v.unwrap_or(0)),
            courage: c.courage.clone().unwrap_or_default(),
            base,
            points: c.points,
            impact: c.impact.as_ref().map(|i| format!("{} x S{}", i.hits, i.strength)),
            ..listed("chariots", name, book!(c), false)
        });
    }
    for (name, h) in &lib.heroes {
        out.push(LibraryProfile {
            fsdaw: [h.fight, h.strength, h.defence, h.attacks, h.wounds].map(|v| v.unwrap_or(0)),
            courage: h.courage.clone().unwrap_or_default(),
            mwf: Some([h.might, h.will, h.fate].map(|v| v.unwrap_or(0))),
            points: h.points,
            notes: vec!["rides a chariot ([chariot.hero] or [[chariots]].hero)".into()],
            ..listed("heroes", name, book!(h), false)
        });
    }
    for (name, m) in &lib.models {
        let mut notes = Vec::new();
        if m.mount.is_some() {
            notes.push("cavalry".to_string());
        }
        if m.monster.unwrap_or(false) {
            notes.push("Monster".to_string());
        }
        let mwf = match (m.might, m.will, m.fate) {
            (Some(a), Some(b), Some(c)) => Some([a, b, c]),
            _ => None,
        };
        out.push(LibraryProfile {
            move_inches: m.move_inches,
            weapons: [(m.two_handed, "two-handed"), (m.hand_and_a_half, "hand-and-a-half")]
                .into_iter()
                .filter_map(|(carried, w)| carried.unwrap_or(false).then_some(w))
                .collect(),
            fsdaw: [m.fight, m.strength, m.defence, m.attacks, m.wounds].map(|v| v.unwrap_or(0)),
            courage: m.courage.clone().unwrap_or_default(),
            mwf,
            base: m.base_mm.map(|d| format!("{d} mm")).unwrap_or_default(),
            points: m.points,
            notes,
            ..listed("models", name, book!(m), m.might.is_some())
        });
    }
    out
}

/// One line of `charioteer profiles`: name, characteristics, base, points, options and what
/// is modelled.
pub fn profile_line(p: &LibraryProfile) -> String {
    let [f, s, d, a, w] = p.fsdaw;
    let mv = p.move_inches.map(|m| format!("Mv{m} ")).unwrap_or_default();
    let mut line = format!("{}  {mv}F{f} S{s} D{d} A{a} W{w} C{}", p.name, p.courage);
    if let Some([m, wi, fa]) = p.mwf {
        line += &format!(" M/W/F {m}/{wi}/{fa}");
    }
    if let Some(i) = &p.impact {
        line += &format!(", Impact Hits {i}");
    }
    if !p.base.is_empty() {
        line += &format!(", base {}", p.base);
    }
    match p.points {
        Some(pts) => line += &format!(", {pts} pts"),
        None => line += ", no points",
    }
    if !p.options.is_empty() {
        let opts: Vec<String> = p.options.iter().map(|(k, v)| format!("{k} +{v}")).collect();
        line += &format!(" (options: {})", opts.join(", "));
    }
    if !p.notes.is_empty() {
        line += &format!("; {}", p.notes.join(", "));
    }
    if !p.modelled.is_empty() {
        line += &format!("; modelled: {}", p.modelled.join(", "));
    }
    if !p.not_modelled.is_empty() {
        line += &format!("; not modelled: {}", p.not_modelled.join(", "));
    }
    if p.legacy {
        line += "; Legacies";
    }
    line += &format!(" [{}]", p.army);
    line
}
