//! The BATTLESYSTEM `[rules]` options, each declared once: its key in the file, the type
//! the file writes, where its value lives in [`BattlesystemRules`], how it is read and
//! checked, what reports show of it and what each value means. The file's `[rules]` table,
//! its reading and [`BattlesystemRules::ruleset`] (every report's ruleset table) are
//! generated from the table, in the order the reports list the options.
//!
//! [`BattlesystemRules`] itself is written out (its nested `attack` and `morale` rules are
//! what the resolver takes whole) and is the scenario hash's form: an option added later
//! is a field with `skip_serializing_if` its default, so every scenario that does not set
//! it keeps its hash (`examples::the_bundled_examples_keep_their_scenario_hashes`), and a
//! row here. `every_rules_field_has_a_row` (in `tests.rs`) fails on a field without a row.

use super::*;

/// Generates the `[rules]` table, its reading and the ruleset from one row per option.
///
/// First `also { key: RawType, }`: keys of `[rules]` that are not rule options (read
/// elsewhere). Then a row per option: `key: RawType => place.in.rules by READING, shown |r| VALUE, |r| MEANING;` where
/// READING is `choice` (an enum or a bool, taken as written), `whole(lo, hi, "what")` or
/// `float(lo, hi, "what")` (a number checked against its range), or `custom(function)`
/// (a function of the checker, the value as written and the rules); `shown` is what the
/// reports print as the value (left out: the value in the rules).
macro_rules! battlesystem_rules {
    (
        also { $( $(#[doc = $xdoc:literal])* $extra:ident: $xty:ty, )* }
        $(
            $(#[doc = $doc:literal])*
            $key:ident: $raw:ty => $($place:ident).+ by $reading:ident $(($($arg:expr),*))?
                $(, shown |$s:ident| $shown:expr)?, |$r:ident| $meaning:expr;
        )*
    ) => {
        /// The `[rules]` table as the file writes it: any option may be left out.
        #[derive(Deserialize, Default)]
        #[serde(deny_unknown_fields)]
        pub(super) struct RawRules {
            $( $(#[doc = $doc])* pub(super) $key: Option<$raw>, )*
            $( $(#[doc = $xdoc])* pub(super) $extra: Option<$xty>, )*
        }

        impl Checker<'_> {
            /// The options a file's `[rules]` sets, each checked (a problem recorded for a
            /// value out of range), every other one at its default.
            pub(super) fn rule_options(&mut self, raw: &RawRules) -> BattlesystemRules {
                let mut rules = BattlesystemRules::default();
                $(
                    if let Some(value) = &raw.$key {
                        battlesystem_rules!(@read self, rules, value, concat!("rules.", stringify!($key)),
                            $($place).+, $reading $(($($arg),*))?);
                    }
                )*
                rules
            }
        }

        impl BattlesystemRules {
            /// Every `[rules]` option with its value, the simulator's reference default and
            /// what the value means, for reports (the same layout as MESBG's).
            pub fn ruleset(&self) -> Vec<RuleOption> {
                let d = BattlesystemRules::default();
                vec![
                    $(
                        RuleOption::of(
                            stringify!($key),
                            &battlesystem_rules!(@shown self, $($place).+ $(, |$s| $shown)?),
                            &battlesystem_rules!(@shown &d, $($place).+ $(, |$s| $shown)?),
                            { let $r = self; $meaning },
                        ),
                    )*
                ]
            }

            /// The `[rules]` keys of the options, in the reports' order.
            pub const KEYS: &[&str] = &[$( stringify!($key), )*];
        }
    };
    (@read $c:ident, $rules:ident, $value:ident, $field:expr, $($place:ident).+, choice) => {
        $rules.$($place).+ = $value.clone();
    };
    (@read $c:ident, $rules:ident, $value:ident, $field:expr, $($place:ident).+, whole($lo:expr, $hi:expr, $what:expr)) => {
        $rules.$($place).+ = $c.whole($field, *$value, $lo, $hi, $what);
    };
    (@read $c:ident, $rules:ident, $value:ident, $field:expr, $($place:ident).+, float($lo:expr, $hi:expr, $what:expr)) => {
        $rules.$($place).+ = $c.float($field, *$value, $lo, $hi, $what);
    };
    (@read $c:ident, $rules:ident, $value:ident, $field:expr, $($place:ident).+, custom($read:expr)) => {
        $rules.$($place).+ = ($read)($c, $field, $value);
    };
    (@shown $rules:expr, $($place:ident).+) => {
        ($rules).$($place).+.clone()
    };
    (@shown $rules:expr, $($place:ident).+, |$s:ident| $shown:expr) => {{
        let $s = $rules;
        $shown
    }};
}

battlesystem_rules! {
    also {
        /// Every figure's base unless a unit gives its own, [width, depth] inches (not a
        /// rule: a default of the units').
        figure_base: [f64; 2],
    }
    /// Bands of [lowest roll, hits] turning an attack die's total into hits.
    hits_table: Vec<[i64; 2]> => attack.hits_table by custom(hits_table),
        shown |r| r.attack.hits_table.bands.clone(),
        |_r| "each [lowest roll, hits] band turns an attack die's total into hits";
    /// Whether a d10 equal to the AR cancels a hit.
    armour_roll: ArmourRoll => attack.armour by choice, |r| match r.attack.armour {
        ArmourRoll::Greater => "a hit is cancelled by a d10 greater than the figure's AR",
        ArmourRoll::GreaterOrEqual => "a hit is cancelled by a d10 equal to or greater than the figure's AR",
    };
    /// One platform roll per melee, or one per die of its crew.
    platform_roll: PlatformRoll => platform_roll by choice, |r| match r.platform_roll {
        PlatformRoll::Shared => "one platform attack roll per melee, added to every carried figure's die",
        PlatformRoll::PerDie => "a platform attack roll of its own for each die its crew rolls",
    };
    /// Whether the platform also attacks with its own dice.
    platform_attacks_alone: bool => platform_attacks_alone by choice, |r| if r.platform_attacks_alone {
        "the platform also attacks with its own dice"
    } else {
        "the platform's roll is only added to its crew's dice"
    };
    /// Which dice a charge doubles.
    charge_doubles: ChargeDoubles => charge_doubles by choice, |r| match r.charge_doubles {
        ChargeDoubles::Both => "a charge doubles the crew's dice and the platform's own",
        ChargeDoubles::Crew => "a charge doubles the crew's dice",
        ChargeDoubles::Platform => "a charge doubles the platform's own dice",
        ChargeDoubles::None => "a charge doubles no dice",
    };
    /// Where hits on a platform unit fall.
    platform_hits: PlatformHits => platform_hits by choice, |r| match r.platform_hits {
        PlatformHits::PlatformFirst => "hits on a platform unit fall on the platform, its crew falling with it",
        PlatformHits::CrewFirst => "hits fall on fighters and archers first, riders last, then the platform",
    };
    /// A morale check failed by this much or more routs.
    morale_rout_margin: i64 => morale.rout_margin by whole(1, 20, "the rout margin"), |r| format!(
        "a morale check failed by {} or more routs; by less, the unit falls back",
        r.morale.rout_margin
    );
    /// How far a unit that fails by less falls back, inches.
    fall_back_inches: i64 => morale.fall_back_inches by whole(0, 24, "the fall-back distance"),
        |r| format!("a unit that falls back moves {}\"", r.morale.fall_back_inches);
    /// How far a routing unit moves: "mv" or inches.
    rout_distance: RawDistance => rout_distance by custom(rout_distance),
        shown |r| match r.rout_distance {
            RoutDistance::Mv => serde_json::Value::String("mv".into()),
            RoutDistance::Inches(x) => serde_json::json!(x),
        },
        |r| match r.rout_distance {
            RoutDistance::Mv => "a routing unit moves its MV".to_string(),
            RoutDistance::Inches(x) => format!("a routing unit moves {x}\""),
        };
    /// The largest veer off the rolled line, degrees.
    veer_degrees: f64 => veer_degrees by float(0.0, 90.0, "the veer allowance (degrees)"),
        |r| format!("routing beasts veer up to {} degrees off their rolled line", r.veer_degrees);
    /// Veers are tried this many degrees apart.
    veer_step_degrees: f64 => veer_step_degrees by float(0.5, 45.0, "the veer step (degrees)"),
        |r| format!("veers are tried {} degrees apart, clockwise first", r.veer_step_degrees);
    /// New d12 directions a routing unit may roll.
    max_rerolls: i64 => max_rerolls by whole(0, 12, "the number of re-rolls"),
        |r| format!("after {} new directions the beasts stop", r.max_rerolls);
    /// How a routing unit veers when the whole move is not clear.
    veer: Veer => veer by choice, |r| match r.veer {
        Veer::WholeMove => "a veer is taken only if the whole remaining move is clear",
        Veer::AvoidWhatItCan => "the beasts veer round what they can and meet only the unit they cannot avoid",
    };
    /// How a displaced unit moves.
    struck_unit_moves: StruckUnitMoves => struck_unit_moves by choice, |r| match r.struck_unit_moves {
        StruckUnitMoves::Straight => "a displaced unit is pushed along the beasts' heading",
        StruckUnitMoves::Aside => "a displaced unit steps aside out of the beasts' path when that is shorter",
    };
    /// Which figures attack in a melee.
    melee_contact: MeleeContact => melee_contact by choice, |r| match r.melee_contact {
        MeleeContact::FiguresInContact => {
            "in a melee only the figures in contact attack, on both sides (those along the stretch where the blocks touch)"
        }
        MeleeContact::WholeFrontRank => {
            "the unit that moves attacks with its whole front rank; the unit it meets with its figures in contact"
        }
    };
    /// What a platform with only its driver aboard does when it charges.
    driver_only: DriverOnly => driver_only by choice, |r| match r.driver_only {
        DriverOnly::PlatformAd => {
            "a platform with only its driver aboard attacks in melee with its own AD, one die per platform in contact, doubled when it charges"
        }
        DriverOnly::Refused => "a charge by platforms with only their drivers aboard is refused",
    };
}

/// `rules.hits_table`: 1 to 64 bands going up (each lowest roll above the last, hits never
/// fewer); the default table when the bands are unusable.
fn hits_table(c: &mut Checker, field: &str, table: &[[i64; 2]]) -> HitsTable {
    if table.is_empty() || table.len() > 64 {
        c.fail(field, "give 1 to 64 bands [lowest roll, hits], lowest rolls ascending");
        return HitsTable::default();
    }
    let mut bands = Vec::with_capacity(table.len());
    for (i, [roll, hits]) in table.iter().copied().enumerate() {
        let band = format!("{field}[{i}]");
        let roll = c.whole(&band, roll, 1, 200, "the lowest roll of a band");
        let hits = c.whole(&band, hits, 0, 50, "the hits of a band");
        if let Some(&(prev_roll, prev_hits)) = bands.last()
            && (roll <= prev_roll || hits < prev_hits)
        {
            c.fail(&band, "bands must go up: each lowest roll above the last, hits never fewer");
        }
        bands.push((roll, hits));
    }
    HitsTable::new(bands)
}

/// `rules.rout_distance`: "mv" or inches.
fn rout_distance(c: &mut Checker, field: &str, distance: &RawDistance) -> RoutDistance {
    match distance {
        RawDistance::Word(w) if w == "mv" => RoutDistance::Mv,
        RawDistance::Word(w) => {
            c.fail(field, format!("`{w}` is not a distance; write \"mv\" or a number of inches"));
            RoutDistance::Mv
        }
        RawDistance::Inches(d) => RoutDistance::Inches(c.float(field, *d, 0.5, 96.0, "the rout distance (inches)")),
    }
}
