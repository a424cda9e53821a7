//! The rolls that save a Wound: a Hero's Fate (and his Might on the Fate roll), by the
//! rule and the policy in force. The fight, the duel and the Move phase share them.

use crate::dice::{Dice, enumerate_d6, merge_equal};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Whether a failed Fate roll may be followed by another Fate point on the same Wound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FateRule {
    /// Spend Fate on the same Wound until it is prevented or Fate runs out (the rules
    /// reference, corrected 2026-12-01).
    #[default]
    Retry,
    /// One Fate point per Wound (the earlier reading).
    Once,
}

/// Which Wounds the riding Hero spends Fate on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FatePolicy {
    /// Every Wound on the chariot as it comes, then what is left on his own hit when thrown.
    #[default]
    ChariotThenHero,
    /// Only a Wound that would slay the chariot (its last) or the Hero (his last).
    LethalOnly,
    /// Never on the chariot: all of it kept for his own hit when thrown.
    HeroOnly,
}

/// What the riding Hero may spend to prevent a Wound, and when.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Saves {
    /// Fate retried or once per Wound.
    pub fate_rule: FateRule,
    /// Which Wounds get Fate.
    pub fate_policy: FatePolicy,
    /// Might may raise the last failed Fate roll of a Wound to a 4 (the rules allow it and
    /// the Hero's policy spends it).
    pub might_on_fate: bool,
    /// Might may turn a 1 on the difficult-terrain D6 into a 2.
    pub might_on_terrain: bool,
}

/// Whose Wound is being prevented, with the Wounds they have left before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WoundOn {
    /// The chariot.
    Chariot {
        /// Its Wounds left before this one.
        wounds_left: u8,
    },
    /// The Hero himself (his hit when thrown).
    Hero {
        /// His Wounds left before this one.
        wounds_left: u8,
    },
}

/// What an attempt to prevent one Wound came to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Prevention {
    /// The Wound was prevented.
    pub prevented: bool,
    /// Fate points spent on it.
    pub fate_spent: u8,
    /// Might points spent on its Fate roll.
    pub might_spent: u8,
}

/// Whether the Fate policy spends Fate on this Wound.
pub fn fate_allowed(policy: FatePolicy, on: WoundOn) -> bool {
    match (policy, on) {
        (FatePolicy::ChariotThenHero, _) => true,
        (FatePolicy::LethalOnly, WoundOn::Chariot { wounds_left } | WoundOn::Hero { wounds_left }) => wounds_left <= 1,
        (FatePolicy::HeroOnly, WoundOn::Hero { .. }) => true,
        (FatePolicy::HeroOnly, WoundOn::Chariot { .. }) => false,
    }
}

/// The score a Fate roll needs to prevent the Wound.
pub const FATE_NEEDS: u8 = 4;

/// Settles one Wound's prevention from the Fate rolls `d6` gives: a Fate point and a D6 at
/// a time, 4+ preventing it; after a failure another point ([`FateRule::Retry`]) while any
/// are left; Might raises the last failed roll to a 4 when it is enough (Fate first, Might
/// last: Might is also the duel's and the Strikes' resource, Fate is not).
pub fn settle_prevention(saves: Saves, on: WoundOn, fate: u8, might: u8, mut d6: impl FnMut() -> u8) -> Prevention {
    if fate == 0 || !fate_allowed(saves.fate_policy, on) {
        return Prevention::default();
    }
    let mut spent = 0;
    let mut last = 0;
    while spent < fate {
        spent += 1;
        last = d6();
        if last >= FATE_NEEDS {
            return Prevention { prevented: true, fate_spent: spent, might_spent: 0 };
        }
        if saves.fate_rule == FateRule::Once {
            break;
        }
    }
    let short = FATE_NEEDS - last;
    if saves.might_on_fate && short <= might {
        return Prevention { prevented: true, fate_spent: spent, might_spent: short };
    }
    Prevention { prevented: false, fate_spent: spent, might_spent: 0 }
}

/// Rolls the prevention of one Wound.
pub fn prevent_wound(saves: Saves, on: WoundOn, fate: u8, might: u8, dice: &mut Dice) -> Prevention {
    settle_prevention(saves, on, fate, might, || dice.d6())
}

/// A Wound's prevention: (whether it was prevented, Fate spent, Might spent) by chance.
type PreventionOutcomes = Vec<(Prevention, f64)>;

/// Prevention distributions by (saves, whose Wound, their Wounds left, Fate, Might).
type PreventionCache = HashMap<(Saves, u8, u8, u8, u8), PreventionOutcomes>;

thread_local! {
    static PREVENTIONS: std::cell::RefCell<PreventionCache> = std::cell::RefCell::new(HashMap::new());
}

/// The exact distribution of one Wound's prevention (enumerated once per thread for each
/// set of arguments: it is a pure function of them).
pub fn prevention_distribution(saves: Saves, on: WoundOn, fate: u8, might: u8) -> PreventionOutcomes {
    let (whose, left) = match on {
        WoundOn::Chariot { wounds_left } => (0, wounds_left),
        WoundOn::Hero { wounds_left } => (1, wounds_left),
    };
    PREVENTIONS.with(|cache| {
        cache
            .borrow_mut()
            .entry((saves, whose, left, fate, might))
            .or_insert_with(|| merge_equal(enumerate_d6(|d6| settle_prevention(saves, on, fate, might, d6))))
            .clone()
    })
}
