//! The MESBG `[rules]` options, each declared once: its field, type and default, whether
//! the scenario hash holds it always or only when it is not the default, where the reports
//! list it, and what each value means. [`MesbgRules`] (the options in force), its
//! `Default`, its scenario-hash form, the `[rules]` table as the file writes it and
//! [`MesbgRules::options`] (every report's ruleset table) are generated from the table.
//!
//! An option added after release is hashed `unless_default`: every scenario that does not
//! set it keeps its hash, so every number quoted from it stands
//! (`examples::the_bundled_examples_keep_their_scenario_hashes` checks the bundled ones).

use super::*;

/// Generates the rule options from their table (one row per option, in the order the
/// scenario hash serialises them).
macro_rules! mesbg_rules {
    ($(
        $(#[doc = $doc:literal])*
        $field:ident: $ty:ty = $default:expr, hash $hash:ident, shown $rank:literal, |$r:ident| $meaning:expr;
    )*) => {
        /// Ruleset options whose reading is uncertain or a matter of choice. Reports print them.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct MesbgRules {
            $( $(#[doc = $doc])* pub $field: $ty, )*
        }

        impl Default for MesbgRules {
            fn default() -> Self {
                Self { $( $field: $default, )* }
            }
        }

        /// The scenario hash's form: every option hashed `always`, and an `unless_default`
        /// one only when it is not its default.
        impl Serialize for MesbgRules {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let d = Self::default();
                let mut map = serializer.serialize_map(None)?;
                $(
                    if mesbg_rules!(@always $hash) || self.$field != d.$field {
                        map.serialize_entry(stringify!($field), &self.$field)?;
                    }
                )*
                map.end()
            }
        }

        /// The `[rules]` table as the file writes it: any option may be left out.
        #[derive(Deserialize, Default)]
        #[serde(deny_unknown_fields)]
        pub(super) struct RawRules {
            $( #[serde(default)] pub(super) $field: Option<$ty>, )*
        }

        impl MesbgRules {
            /// The options a file's `[rules]` sets, each other one at its default.
            pub(super) fn from_raw(raw: &RawRules) -> Self {
                let d = Self::default();
                Self { $( $field: raw.$field.unwrap_or(d.$field), )* }
            }

            /// Every `[rules]` option with its value, default and meaning, for reports (in
            /// the order they are shown).
            pub fn options(&self) -> Vec<RuleOption> {
                let d = Self::default();
                let mut shown = vec![
                    $( ($rank, RuleOption::of(stringify!($field), &self.$field, &d.$field, { let $r = self; $meaning })), )*
                ];
                shown.sort_by_key(|(rank, _)| *rank);
                shown.into_iter().map(|(_, option)| option).collect()
            }
        }
    };
    (@always always) => {
        true
    };
    (@always unless_default) => {
        false
    };
}

mesbg_rules! {
    /// Models knocked Prone by a winning chariot count as Trapped for its Strikes.
    prone_counts_as_trapped: bool = true, hash always, shown 4, |r| if r.prone_counts_as_trapped {
            "models knocked Prone by the winning chariot are Trapped for its Strikes: two To Wound rolls per Strike"
        } else {
            "models knocked Prone by the winning chariot take one To Wound roll per Strike (a model already Prone is still Trapped)"
        };
    /// Strikes declared before rolling, or aimed one at a time.
    strike_split: StrikeSplit = StrikeSplit::default(), hash always, shown 2, |r| match r.strike_split {
            StrikeSplit::Declared => {
                "a winner fighting several models (or rider and mount) declares which Strikes go against which model before rolling To Wound, the split that maximises expected kills"
            }
            StrikeSplit::OneAtATime => {
                "each Strike is aimed after the previous one is rolled, by strike_allocation"
            }
        };
    /// How Strikes aimed one at a time are spread over several beaten models.
    strike_allocation: StrikeAllocation = StrikeAllocation::MostWoundedFirst, hash always, shown 3, |r| match (r.strike_split, r.strike_allocation) {
            (StrikeSplit::Declared, _) => "not used: Strikes are declared before rolling",
            (_, StrikeAllocation::MostWoundedFirst) => {
                "each Strike at the standing model with the fewest Wounds left"
            }
            (_, StrikeAllocation::EasiestFirst) => "each Strike at the standing model with the lowest Defence",
        };
    /// When the chariot drives on past a cavalry model.
    cavalry_passed_when: CavalryPassed = CavalryPassed::default(), hash always, shown 5, |r| match r.cavalry_passed_when {
            CavalryPassed::RiderSlain => {
                "a cavalry model is a casualty when its rider dies (2024): the chariot drives on"
            }
            CavalryPassed::RiderSlainAndMountGone => {
                "the chariot drives on past cavalry only when the rider is slain and the mount slain or fled"
            }
        };
    /// Fate retried on the same Wound, or once.
    fate: FateRule = FateRule::default(), hash always, shown 0, |r| match r.fate {
            FateRule::Retry => {
                "a failed Fate roll may be followed by another Fate point on the same Wound until it is prevented or Fate runs out"
            }
            FateRule::Once => "one Fate point (one D6, 4+) per Wound",
        };
    /// Might may raise a Fate roll.
    might_on_fate: bool = true, hash always, shown 1, |r| if r.might_on_fate {
            "Might can raise a Fate roll, +1 a point"
        } else {
            "Might never modifies a Fate roll"
        };
    /// When the army charged is Broken.
    break_point: BreakPoint = BreakPoint::default(), hash always, shown 6, |r| match r.break_point {
            BreakPoint::HalfOrMore => "an army that has lost half or more of its starting models is Broken",
            BreakPoint::MoreThanHalf => "an army that has lost more than half of its starting models is Broken",
        };
    /// What "within difficult terrain" measures.
    difficult_terrain_measure: TerrainMeasure = TerrainMeasure::default(), hash always, shown 7, |r| match r.difficult_terrain_measure {
            TerrainMeasure::AnyPart => {
                "within difficult terrain means any part of the chariot's base inside it (Move halved, D6 test)"
            }
            TerrainMeasure::Centre => {
                "within difficult terrain means the centre of the chariot's base inside it (Move halved, D6 test)"
            }
        };
    /// Whether a supporting spear's or pike's Fight counts for its side's highest Fight in a
    /// tied duel (not serialised at its default, so older scenario hashes stand).
    supporter_fight_counts: bool = true, hash unless_default, shown 8, |r| if r.supporter_fight_counts {
            "a supporting spear or pike rolls its die at its own Fight: its Fight counts for its side's highest in a tied duel"
        } else {
            "a supporting spear or pike adds a die only; ties go by the Fight of the models in the fight"
        };
    /// When a banner's re-roll is taken (not serialised at its default, so older scenario
    /// hashes stand).
    banner_reroll: BannerReroll = BannerReroll::default(), hash unless_default, shown 9, |r| match r.banner_reroll {
            BannerReroll::LowestWhenLosingOrTied => {
                "a side with a standing banner within 3\" re-rolls its lowest duel die, before any Might, only when that raises its chance to win the duel: when behind, or tied while the other side's Fight is higher, or tied at equal Fight when a re-roll beats the roll-off's 1/2; never on a tie its Fight already wins"
            }
            BannerReroll::Never => "banners give no re-roll (their bearers still roll at -1)",
        };
    /// Whether a dice expression of Impact Hits on cavalry is rolled once for the model
    /// (rider and mount take the same number) or once for each (not serialised at its
    /// default, so older scenario hashes stand).
    cavalry_impact_hits: CavalryImpactHits = CavalryImpactHits::default(), hash unless_default, shown 12, |r| match r.cavalry_impact_hits {
            CavalryImpactHits::OneRoll => {
                "a dice number of Impact Hits (D3) is rolled once for a cavalry model: rider and mount each take that many"
            }
            CavalryImpactHits::RollEach => {
                "a dice number of Impact Hits (D3) is rolled once for the rider and once for the mount"
            }
        };
    /// Whether the 2024 Shieldwall rule is played: a shielded model with the rule gets +1
    /// Defence while it touches two or more standing shielded friends with it (not
    /// serialised when played, the default, so older scenario hashes stand).
    shieldwall: bool = true, hash unless_default, shown 10, |r| if r.shieldwall {
            "Shieldwall is played: a shielded model with the rule has +1 Defence while it touches two or more standing shielded friends with it, against Impact Hits (as the wall stands when it is touched) and in the fight (as it stands before Backing Away)"
        } else {
            "Shieldwall is not played: shielded models with the rule keep their profile's Defence"
        };
    /// How a chariot's hand-and-a-half weapon is held in each fight (not serialised at its
    /// default, so older scenario hashes stand).
    grip: GripPolicy = GripPolicy::default(), hash unless_default, shown 11, |r| match r.grip {
            GripPolicy::Best => {
                "a chariot with a hand-and-a-half weapon holds it, fight by fight before the Duel Roll, the way that expects more kills in that fight (then fewer Wounds lost); two-handed: duel dice 1 lower unless a 6, To Wound rolls 1 higher"
            }
            GripPolicy::OneHanded => "a chariot with a hand-and-a-half weapon always holds it one-handed",
            GripPolicy::TwoHanded => {
                "a chariot with a hand-and-a-half weapon always holds it two-handed: duel dice 1 lower unless a 6, To Wound rolls 1 higher"
            }
        };
}
