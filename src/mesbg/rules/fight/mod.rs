//! The fight after a Chariot Charge, and the rolls that save a chariot's Wounds: the duel
//! with the riding Hero's Might, the winner's Strikes (declared before rolling, or one at a
//! time), the loser's Wounds with Fate (retried) and Might on the Fate roll.
//!
//! Each rule is settled by one function that reads its dice from a source it is given
//! ([`settle_prevention`], [`settle_strike`]): the dice-level trial hands it real dice, and
//! the exact engine hands it every sequence of faces through [`enumerate_d6`], so both
//! follow one reading by construction. Whether that reading is the game's is checked
//! elsewhere, by an oracle that shares none of this code (`tests/oracle/`).

pub use super::duel::{DefenderDice, Tie, banner_rerolls};
use super::duel::{
    FoeDuelDice, FoeHero, HeroDice, HeroStanding, foe_highs_distribution, settle_duel_might, wounds_on_foe_hero,
};
use super::{
    DuelSide, FightOutcome, Side, StrikeAllocation, StrikeTarget, WoundRoll, binomial_pmf, pick_target,
    settle_wound_with_might,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

mod distribution;

pub use distribution::{
    FightTarget, chosen_grip, fight_distribution, fight_distribution_by_target, foe_duel_dice, heroes_in_duel,
    split_duel_dice, split_for, target_of_strike, targets_after_knock_down,
};

mod duel_dice;
pub use super::saves::*;
pub use crate::dice::{enumerate_d6, merge_equal};
pub use duel_dice::*;

/// How a winner facing several models (or rider and mount) aims its Strikes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StrikeSplit {
    /// All Strikes are assigned before any To Wound roll, by [`declared_split`] (the rules
    /// reference, corrected 2026-12-01); a Strike at a model already slain is lost.
    #[default]
    Declared,
    /// Each Strike is aimed after the previous one is rolled, by the allocation policy
    /// (the earlier reading).
    OneAtATime,
}

thread_local! {
    static STRIKES: std::cell::RefCell<HashMap<(WoundRoll, bool, u8, u8), StrikeOutcomes>> =
        std::cell::RefCell::new(HashMap::new());
}

/// Settles one Strike of the chariot from the dice `d6` gives: one To Wound roll, two
/// against a Trapped model. Every die of the Strike is seen before Might is decided, and
/// Might (up to `might`) turns failures into Wounds only while a Wound can still matter
/// (never past the target's `wounds_left`), cheapest first. On a "6 then n" roll the first
/// dice of both rolls are seen, the cheaper is settled first, and Might put on a first die
/// carries over to its second (rolled after that Might is committed, as the game plays it).
/// Returns (Wounds caused, Might spent).
pub fn settle_strike(
    roll: WoundRoll,
    trapped: bool,
    wounds_left: u8,
    might: u8,
    mut d6: impl FnMut() -> u8,
) -> (u8, u8) {
    let rolls = 1 + usize::from(trapped);
    if might == 0 {
        // Nothing to decide: each roll wounds or not (the same dice as below, read in turn).
        let mut wounds = 0u8;
        for _ in 0..rolls {
            wounds += u8::from(match roll {
                WoundRoll::Needs(n) => d6() >= n,
                WoundRoll::SixThen(n) => d6() == 6 && d6() >= n,
                WoundRoll::FiveThen(n) => d6() >= 5 && d6() >= n,
                WoundRoll::Impossible => false,
            });
        }
        return (wounds.min(wounds_left), 0);
    }
    match roll {
        WoundRoll::Impossible => (0, 0),
        WoundRoll::Needs(n) => {
            let mut faces = [0u8; 2];
            for face in faces.iter_mut().take(rolls) {
                *face = d6();
            }
            let faces = &mut faces[..rolls];
            let mut wounds = faces.iter().filter(|&&f| f >= n).count() as u8;
            let useful = wounds_left.min(rolls as u8);
            let mut spent = 0;
            // Cheapest failure first: the highest failed face.
            faces.sort_unstable_by(|a, b| b.cmp(a));
            for &face in faces.iter().filter(|&&f| f < n) {
                let cost = n - face;
                if wounds >= useful || spent + cost > might {
                    break;
                }
                spent += cost;
                wounds += 1;
            }
            (wounds.min(wounds_left), spent)
        }
        WoundRoll::SixThen(_) | WoundRoll::FiveThen(_) => {
            let mut firsts = [0u8; 2];
            for face in firsts.iter_mut().take(rolls) {
                *face = d6();
            }
            let firsts = &mut firsts[..rolls];
            firsts.sort_unstable_by(|a, b| b.cmp(a));
            let (mut wounds, mut spent) = (0u8, 0u8);
            for &first in firsts.iter() {
                if wounds >= wounds_left {
                    break;
                }
                let (hit, cost) = settle_wound_with_might(roll, might - spent, first, &mut d6);
                wounds += u8::from(hit);
                spent += cost;
            }
            (wounds.min(wounds_left), spent)
        }
    }
}

/// A Strike's settlement: (Wounds caused, Might spent) with its probability.
pub type StrikeOutcomes = Vec<((u8, u8), f64)>;

/// The exact distribution of one Strike: ((Wounds, Might spent), probability).
pub fn strike_distribution(roll: WoundRoll, trapped: bool, wounds_left: u8, might: u8) -> StrikeOutcomes {
    STRIKES.with(|cache| {
        cache
            .borrow_mut()
            .entry((roll, trapped, wounds_left, might))
            .or_insert_with(|| merge_equal(enumerate_d6(|d6| settle_strike(roll, trapped, wounds_left, might, d6))))
            .clone()
    })
}

/// A model the winner may aim Strikes at, as [`declared_split`] weighs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SplitTarget {
    /// What each To Wound roll needs.
    pub roll: WoundRoll,
    /// Two rolls per Strike.
    pub trapped: bool,
    /// Wounds left (more than 0).
    pub wounds_left: u8,
    /// Slaying it is a kill (false for a riderless mount).
    pub counts_as_kill: bool,
    /// An enemy Hero's saves: his Fate and Might left when the Strikes are declared, and
    /// how he spends them on each Wound (Fate retried, Might on the Fate roll). `None` for a
    /// model without Fate.
    pub saves: Option<TargetSaves>,
}

/// What an enemy Hero has left to save Wounds with when Strikes are declared at him.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TargetSaves {
    /// Fate points left.
    pub fate: u8,
    /// Might points left (raising a failed Fate roll, when his saves allow).
    pub might: u8,
    /// The Fate rule and his policy.
    pub saves: Saves,
}

impl SplitTarget {
    /// A target without Fate.
    pub fn plain(roll: WoundRoll, trapped: bool, wounds_left: u8, counts_as_kill: bool) -> Self {
        Self { roll, trapped, wounds_left, counts_as_kill, saves: None }
    }
}

/// Probabilities closer than this are a tie when comparing splits.
const SPLIT_TIE: f64 = 1e-12;

/// What `k` Strikes at `t` are worth: (P(slain), expected Wounds it loses). Every save
/// counts: the Wounds the dice cause go one at a time through its Fate (and Might on the
/// Fate roll) while it stands, as the fight plays them.
fn split_value(t: &SplitTarget, k: u8) -> (f64, f64) {
    let rolls = usize::from(k) * (1 + usize::from(t.trapped));
    let pmf = binomial_pmf(rolls, t.roll.probability());
    let w = usize::from(t.wounds_left);
    let (slain, wounds) = match t.saves.filter(|s| s.fate > 0) {
        None => {
            let slain: f64 = pmf.iter().skip(w).sum();
            let wounds: f64 = pmf.iter().enumerate().map(|(x, p)| x.min(w) as f64 * p).sum();
            (slain, wounds)
        }
        Some(s) => {
            let (mut slain, mut wounds) = (0.0, 0.0);
            for (x, p) in pmf.iter().enumerate() {
                if *p == 0.0 {
                    continue;
                }
                let dealt = u8::try_from(x).unwrap_or(u8::MAX);
                for ((left, _, _), q) in
                    super::duel::wounds_on_foe_hero(s.saves, (t.wounds_left, s.fate, s.might), dealt)
                {
                    wounds += p * q * f64::from(t.wounds_left - left);
                    if left == 0 {
                        slain += p * q;
                    }
                }
            }
            (slain, wounds)
        }
    };
    (if t.counts_as_kill { slain } else { 0.0 }, wounds)
}

fn better(a: (f64, f64), b: (f64, f64)) -> bool {
    a.0 > b.0 + SPLIT_TIE || ((a.0 - b.0).abs() <= SPLIT_TIE && a.1 > b.1 + SPLIT_TIE)
}

/// The declared split of `strikes` Strikes over `targets` (in contact order): the one that
/// maximises the expected number of models slain, counting every save a target has (its
/// Wounds left, an enemy Hero's Fate and his Might on the Fate roll), then the expected
/// Wounds they lose, then gives more Strikes to the earlier target. The chariot's own
/// Might is not counted when choosing (it is spent as the dice fall). A target already
/// slain gets none. Returns the Strikes per target.
pub fn declared_split(strikes: u8, targets: &[SplitTarget]) -> Vec<u8> {
    let living: Vec<usize> = (0..targets.len()).filter(|&i| targets[i].wounds_left > 0).collect();
    let mut split = vec![0; targets.len()];
    if living.len() < targets.len() {
        let weighed: Vec<SplitTarget> = living.iter().map(|&i| targets[i]).collect();
        for (&i, k) in living.iter().zip(declared_split(strikes, &weighed)) {
            split[i] = k;
        }
        return split;
    }
    let n = targets.len();
    let s = usize::from(strikes);
    if n == 0 {
        return Vec::new();
    }
    let values: Vec<Vec<(f64, f64)>> =
        targets.iter().map(|t| (0..=strikes).map(|k| split_value(t, k)).collect()).collect();
    // best[i][r]: the best value of giving r Strikes to targets i.. (all of them used).
    let impossible = (f64::NEG_INFINITY, f64::NEG_INFINITY);
    let mut best = vec![vec![impossible; s + 1]; n + 1];
    best[n][0] = (0.0, 0.0);
    for i in (0..n).rev() {
        for r in 0..=s {
            for k in 0..=r {
                let rest = best[i + 1][r - k];
                if rest.0 == f64::NEG_INFINITY {
                    continue;
                }
                let v = (values[i][k].0 + rest.0, values[i][k].1 + rest.1);
                if better(v, best[i][r]) || best[i][r].0 == f64::NEG_INFINITY {
                    best[i][r] = v;
                }
            }
        }
    }
    split.clear();
    let mut r = s;
    for i in 0..n {
        let take = (0..=r)
            .rev()
            .find(|&k| {
                let rest = best[i + 1][r - k];
                rest.0 != f64::NEG_INFINITY && !better(best[i][r], (values[i][k].0 + rest.0, values[i][k].1 + rest.1))
            })
            .unwrap_or(r);
        split.push(take as u8);
        r -= take;
    }
    split
}

/// The order in which a declared split's Strikes are rolled: target by target in contact
/// order.
pub fn declared_order(split: &[u8]) -> Vec<usize> {
    split.iter().enumerate().flat_map(|(i, &k)| std::iter::repeat_n(i, usize::from(k))).collect()
}

/// What the Hero riding the chariot brings to a fight: the Might and Fate he has left, when
/// his Might policy spends Might, and how he saves Wounds. [`HeroInFight::NONE`] is a
/// chariot without a Hero.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct HeroInFight {
    /// Might points left.
    pub might: u8,
    /// Fate points left.
    pub fate: u8,
    /// Might is spent to win the duel.
    pub might_on_duel: bool,
    /// Might is spent to turn failed To Wound rolls.
    pub might_on_wounds: bool,
    /// How Wounds on the chariot are saved.
    pub saves: Saves,
}

impl HeroInFight {
    /// No Hero: no Might, no Fate.
    pub const NONE: Self = Self {
        might: 0,
        fate: 0,
        might_on_duel: false,
        might_on_wounds: false,
        saves: Saves {
            fate_rule: FateRule::Retry,
            fate_policy: FatePolicy::ChariotThenHero,
            might_on_fate: false,
            might_on_terrain: false,
        },
    };
}

/// A model fighting the chariot, as the fight needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Combatant {
    /// Fight value.
    pub fight: u8,
    /// Attacks (dice in the duel, Strikes if it wins).
    pub attacks: u8,
    /// Defence (for allocation policies).
    pub defence: u8,
    /// Wounds it has left.
    pub wounds_left: u8,
    /// What the chariot's Strikes need against it.
    pub struck_by_chariot: WoundRoll,
    /// What its Strikes need against the chariot.
    pub strikes_chariot: WoundRoll,
    /// A Monster or a chariot: never knocked Prone, so never Trapped by the chariot's win.
    pub never_prone: bool,
    /// An enemy chariot (its slaying ends the question of who Backs Away).
    pub chariot: bool,
    /// Its mount, while the mount stands (cavalry). With it, `wounds_left` is the rider's
    /// and may be 0 (a riderless mount that stays).
    pub mount: Option<MountCombatant>,
    /// Already Prone (a rider Knocked Flying by the Impact Hits): Trapped if beaten.
    pub prone: bool,
    /// Makes its Strikes if its side wins: not Prone, and not a rider thrown this turn.
    pub strikes: bool,
    /// What the Strength 3 hit of being Knocked Flying needs against the rider (when the
    /// chariot beats him while he is still mounted).
    pub knocked_flying: WoundRoll,
    /// An enemy Hero: his Might and Fate left, and how he spends them.
    pub hero: Option<FoeHero>,
    /// It cannot Back Away if beaten (blocked 1" directly behind): a model that is not
    /// knocked Prone (a Monster; never a chariot) is then Trapped.
    pub cannot_back_away: bool,
}

impl Combatant {
    /// The model as a chariot holding its weapon two-handed strikes it: every To Wound die
    /// 1 higher, on the rider and on the mount.
    pub fn struck_two_handed(&self) -> Self {
        Self {
            struck_by_chariot: self.struck_by_chariot.plus_one(),
            mount: self.mount.map(|m| MountCombatant { struck_by_chariot: m.struck_by_chariot.plus_one(), ..m }),
            ..*self
        }
    }

    /// Whether the chariot's Strikes against it, beaten and standing (not already Prone),
    /// are Trapped: a model knocked Prone by the win when the ruleset counts that (cavalry
    /// are Knocked Flying), a Monster only when it cannot Back Away, a chariot never.
    pub fn trapped_when_beaten(&self, rules: FightRules) -> bool {
        if self.chariot {
            false
        } else if self.never_prone {
            self.cannot_back_away
        } else {
            rules.trapped
        }
    }
}

/// A cavalry model's mount in a fight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MountCombatant {
    /// Fight value.
    pub fight: u8,
    /// Attacks (dice in the duel, Strikes if its side wins).
    pub attacks: u8,
    /// Defence.
    pub defence: u8,
    /// Wounds it has left (more than 0).
    pub wounds_left: u8,
    /// What the chariot's Strikes need against it.
    pub struck_by_chariot: WoundRoll,
    /// What its Strikes need against the chariot.
    pub strikes_chariot: WoundRoll,
}

/// How the chariot holds its weapon in a fight. A hand-and-a-half weapon is held one way
/// or the other, chosen by its player before each Duel Roll (reference, 2026-12-07).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Grip {
    /// As a hand weapon: the dice as rolled (every chariot without a hand-and-a-half
    /// weapon, and one whose player always holds it so).
    #[default]
    OneHanded,
    /// Two-handed: every duel die 1 lower unless a natural 6
    /// ([`super::two_handed_duel_die`]), every To Wound die 1 higher
    /// ([`WoundRoll::plus_one`]).
    TwoHanded,
    /// A hand-and-a-half weapon whose player picks the grip for each fight as a sensible
    /// player does ([`chosen_grip`]).
    Choose,
}

/// The chariot in a fight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChariotFighter {
    /// Fight value.
    pub fight: u8,
    /// Attacks, charge bonus included.
    pub attacks: u8,
    /// Wounds it has left.
    pub wounds_left: u8,
    /// Allegiance (for the roll-off).
    pub side: Side,
    /// How it holds its weapon.
    pub grip: Grip,
}

/// The ruleset options that shape a fight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FightRules {
    /// Beaten models (knocked Prone) are Trapped for the chariot's Strikes.
    pub trapped: bool,
    /// How the chariot aims Strikes one at a time ([`StrikeSplit::OneAtATime`]).
    pub allocation: StrikeAllocation,
    /// Declared before rolling, or one at a time.
    pub split: StrikeSplit,
}

/// A spear or pike model supporting a model in the fight: not part of the fight (never
/// struck, never knocked Prone), it adds one die to its side's duel at its own Fight, and
/// one Strike at its own Strength if its side wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Supporter {
    /// Which model it is (an index the caller understands; for replays).
    pub model: usize,
    /// Fight value (for ties, when `[rules] supporter_fight_counts`).
    pub fight: u8,
    /// What its Strike needs against the chariot.
    pub strikes_chariot: WoundRoll,
    /// -1 on its die: the banner bearer itself, or a pike with a shield.
    pub minus_one: bool,
}

/// What the enemy side has in a fight beyond its fighting models: spear and pike
/// supporters, a standing banner within 3" of the fight, and the bearer's own -1.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FoeSupport {
    /// The supporting models, one die and (if their side wins) one Strike each.
    pub supporters: Vec<Supporter>,
    /// A standing banner bearer is within 3" of a model in the fight: the side may re-roll
    /// one duel die ([`defender_high`] says which and when).
    pub banner: bool,
    /// Duel dice rolled at -1 by models in the fight itself: the banner bearer's and those
    /// of pikes with shields (their Attacks).
    pub minus_one_dice: u32,
    /// Whether supporters' Fight counts for the side's highest Fight in a tie.
    pub supporter_fight_counts: bool,
}

impl FoeSupport {
    /// No help at all: the fight is the fighting models' alone.
    pub const NONE: FoeSupport =
        FoeSupport { supporters: Vec::new(), banner: false, minus_one_dice: 0, supporter_fight_counts: true };

    /// Adds the supporters to the enemy's side of the duel: a die each, and their Fight for
    /// ties when `supporter_fight_counts`.
    pub fn join(&self, side: &mut DuelSide) {
        for s in &self.supporters {
            side.dice += 1;
            if self.supporter_fight_counts {
                side.fight = side.fight.max(s.fight);
            }
        }
    }

    /// Whether the enemy's duel dice are all plain (no -1, no re-roll): then the highest is
    /// rolled as before, die for die.
    pub fn plain_dice(&self) -> bool {
        !self.banner && self.minus_one_dice == 0 && self.supporters.iter().all(|s| !s.minus_one)
    }
}

#[cfg(test)]
mod tests;
