//! The duel roll when the enemy has Heroes in the fight: each Hero's own dice kept apart
//! from his warriors' (a Hero's Might raises only his own dice), a banner's re-roll, and
//! Might spent by both sides until the side behind cannot or will not answer; and an
//! enemy Hero's Fate against the Wounds he suffers.
//!
//! Like the rest of the fight, each rule is one function reading its dice from a source it
//! is given, so the dice-level trial and the exact engine follow one reading.

use super::might_to_win_duel;
use super::saves::{FatePolicy, Prevention, Saves, WoundOn, prevention_distribution};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The enemy's duel dice: `plain` unmodified and `minus_one` at -1 (the banner bearer's),
/// never below 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefenderDice {
    /// Dice without modifier.
    pub plain: u32,
    /// Dice at -1.
    pub minus_one: u32,
    /// One may be re-rolled (a banner in range).
    pub banner: bool,
}

/// Who wins when both sides' highest dice are equal (before any Might): the higher Fight,
/// else the roll-off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tie {
    /// The enemy's Fight is higher: a tie is the enemy's.
    Foe,
    /// The chariot's Fight is higher: a tie is the chariot's.
    Chariot,
    /// Equal Fight: a tie goes to the roll-off, won by either side with 1/2.
    RollOff,
}

impl Tie {
    /// The tie-break of a duel between Fight values.
    pub fn of(chariot_fight: u8, foe_fight: u8) -> Self {
        match foe_fight.cmp(&chariot_fight) {
            std::cmp::Ordering::Greater => Tie::Foe,
            std::cmp::Ordering::Less => Tie::Chariot,
            std::cmp::Ordering::Equal => Tie::RollOff,
        }
    }

    /// The enemy's chance to win a duel whose highest dice are `foe_high` and
    /// `chariot_high`.
    pub fn foe_wins(self, foe_high: u8, chariot_high: u8) -> f64 {
        match foe_high.cmp(&chariot_high) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Less => 0.0,
            std::cmp::Ordering::Equal => match self {
                Tie::Foe => 1.0,
                Tie::Chariot => 0.0,
                Tie::RollOff => 0.5,
            },
        }
    }
}

/// Whether a side with a banner re-rolls its lowest duel die: only when that raises its
/// chance to win the duel, as a player who sees both sides' dice (and no Might yet) would
/// decide. `side_high` is its highest die, `dice` how many it rolled, `low_plain` whether
/// the die it would re-roll is plain (else at -1). A lone die is replaced by the re-roll;
/// with more dice the highest stays and the re-roll can only add to it. So: always when
/// behind and a re-roll can catch up; on a tie its Fight already wins, never; on a tie
/// its Fight loses, yes; on a tie at equal Fight, when the re-roll's chance beats the
/// roll-off's 1/2 (a lone die of 3 or less; more dice below 6).
pub fn banner_rerolls(side_high: u8, chariot_high: u8, tie: Tie, dice: u32, low_plain: bool) -> bool {
    if dice == 0 {
        return false;
    }
    let now = tie.foe_wins(side_high, chariot_high);
    let after: f64 = (1..=6u8)
        .map(|face| {
            let again = if low_plain { face } else { face.saturating_sub(1).max(1) };
            let high = if dice >= 2 { side_high.max(again) } else { again };
            tie.foe_wins(high, chariot_high) / 6.0
        })
        .sum();
    after > now + 1e-12
}

/// Which Wounds an enemy Hero spends Fate on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FoeFatePolicy {
    /// Every Wound he suffers, Impact Hits included, while Fate is left.
    #[default]
    EveryWound,
    /// Only a Wound that would slay him.
    LethalOnly,
}

impl FoeFatePolicy {
    /// The riding Hero's policy that spends Fate on the same Wounds of a Hero.
    pub fn as_fate_policy(self) -> FatePolicy {
        match self {
            FoeFatePolicy::EveryWound => FatePolicy::ChariotThenHero,
            FoeFatePolicy::LethalOnly => FatePolicy::LethalOnly,
        }
    }
}

/// An enemy Hero in the fight: the Might and Fate he has left, when he spends Might, and
/// how he saves Wounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FoeHero {
    /// Might points left.
    pub might: u8,
    /// Fate points left.
    pub fate: u8,
    /// Might is spent to win the duel.
    pub might_on_duel: bool,
    /// Might is spent to turn his failed To Wound rolls against the chariot.
    pub might_on_wounds: bool,
    /// How his Wounds are saved (Fate rule and policy, Might on the Fate roll; never Might
    /// on Impact Hits).
    pub saves: Saves,
    /// He carries the banner: his own duel dice are at -1, like any bearer's.
    pub bearer: bool,
}

/// An enemy Hero's own duel dice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeroDice {
    /// Dice he rolls (his Attacks).
    pub dice: u32,
    /// He carries the banner: his own dice are at -1, like any bearer's (his Might can
    /// raise them).
    pub minus_one: bool,
}

/// A list with one entry per enemy Hero in a fight (or per owner of dice: the warriors, then
/// each Hero): a fight holds few, so they are kept inline and a duel allocates nothing.
pub type PerHero<T> = smallvec::SmallVec<[T; 4]>;

/// The enemy's duel dice by owner: the warriors' (plain, at -1, banner) and each Hero's own,
/// in the order the Heroes stand in the fight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoeDuelDice {
    /// Every die that is not a Hero's: models, mounts, supporters (the banner re-roll is
    /// the side's, flagged here).
    pub warriors: DefenderDice,
    /// Each Hero's own dice.
    pub heroes: PerHero<HeroDice>,
}

impl FoeDuelDice {
    /// Dice of warriors alone (no Heroes in the fight).
    pub fn warriors_only(warriors: DefenderDice) -> Self {
        Self { warriors, heroes: PerHero::new() }
    }

    fn total(&self) -> u32 {
        self.warriors.plain + self.warriors.minus_one + self.heroes.iter().map(|h| h.dice).sum::<u32>()
    }

    /// Dice rolled by `owner` (0 the warriors, then each Hero).
    fn owned_by(&self, owner: usize) -> u32 {
        match owner {
            0 => self.warriors.plain + self.warriors.minus_one,
            h => self.heroes.get(h - 1).map_or(0, |d| d.dice),
        }
    }

    /// Who rolls die `i` (in rolling order: warriors' plain, warriors' at -1, then each
    /// Hero's), and whether it is plain.
    fn die(&self, mut i: u32) -> (usize, bool) {
        if i < self.warriors.plain {
            return (0, true);
        }
        i -= self.warriors.plain;
        if i < self.warriors.minus_one {
            return (0, false);
        }
        i -= self.warriors.minus_one;
        for (h, d) in self.heroes.iter().enumerate() {
            if i < d.dice {
                return (h + 1, !d.minus_one);
            }
            i -= d.dice;
        }
        (0, true)
    }
}

/// The value a face shows on a die, plain or at -1 (never below 1).
fn shown(face: u8, plain: bool) -> u8 {
    if plain { face } else { face.saturating_sub(1).max(1) }
}

/// The enemy's duel roll: each owner's highest die, and the banner's re-roll if one was
/// taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoeRoll {
    /// The highest die of each owner (`[warriors, Hero 1, ...]`, 0 for no dice), after
    /// any re-roll.
    pub highs: PerHero<u8>,
    /// The banner's re-roll: the die given up and the die rolled (as shown, -1 applied).
    pub reroll: Option<(u8, u8)>,
}

impl FoeRoll {
    /// The side's highest die.
    pub fn high(&self) -> u8 {
        self.highs.iter().copied().max().unwrap_or(0)
    }
}

/// The enemy's duel roll, settled from dice read off `next`: every die in rolling order,
/// then, with a banner, the re-roll of the side's lowest die when [`banner_rerolls`] says it
/// raises the side's chance against the chariot's `chariot_high` (before any Might) under
/// the tie-break `tie`. Among equal lowest dice a plain one goes before one at -1, and the
/// first rolled (a warrior's before a Hero's) before later ones. The new die replaces the
/// old in its owner's hand.
pub fn settle_foe_highs(dice: &FoeDuelDice, chariot_high: u8, tie: Tie, mut next: impl FnMut() -> u8) -> FoeRoll {
    let mut highs: PerHero<u8> = smallvec::smallvec![0u8; dice.heroes.len() + 1];
    let (mut low, mut low_plain, mut low_owner) = (7u8, true, 0usize);
    let total = dice.total();
    for i in 0..total {
        let (owner, plain) = dice.die(i);
        let value = shown(next(), plain);
        highs[owner] = highs[owner].max(value);
        if value < low || (value == low && plain && !low_plain) {
            (low, low_plain, low_owner) = (value, plain, owner);
        }
    }
    let side_high = highs.iter().copied().max().unwrap_or(0);
    if !dice.warriors.banner || !banner_rerolls(side_high, chariot_high, tie, total, low_plain) {
        return FoeRoll { highs, reroll: None };
    }
    let again = shown(next(), low_plain);
    highs[low_owner] = if dice.owned_by(low_owner) >= 2 { highs[low_owner].max(again) } else { again };
    FoeRoll { highs, reroll: Some((low, again)) }
}

/// The exact distribution of [`settle_foe_highs`]'s highest dice given the chariot's
/// highest die: each owner's highest with its probability. The dice are folded one at a
/// time into (highs, lowest, lowest is plain, lowest's owner), so many dice cost few
/// states.
pub fn foe_highs_distribution(dice: &FoeDuelDice, chariot_high: u8, tie: Tie) -> Vec<(Vec<u8>, f64)> {
    type State = (Vec<u8>, u8, bool, usize);
    let owners = dice.heroes.len() + 1;
    let total = dice.total();
    let mut states: BTreeMap<State, f64> = BTreeMap::from([((vec![0u8; owners], 7, true, 0), 1.0)]);
    for i in 0..total {
        let (owner, plain) = dice.die(i);
        let mut next: BTreeMap<State, f64> = BTreeMap::new();
        for ((highs, low, low_plain, low_owner), p) in states {
            for face in 1..=6u8 {
                let value = shown(face, plain);
                let mut h = highs.clone();
                h[owner] = h[owner].max(value);
                let lowest = if value < low || (value == low && plain && !low_plain) {
                    (value, plain, owner)
                } else {
                    (low, low_plain, low_owner)
                };
                *next.entry((h, lowest.0, lowest.1, lowest.2)).or_default() += p / 6.0;
            }
        }
        states = next;
    }
    let mut out: BTreeMap<Vec<u8>, f64> = BTreeMap::new();
    for ((highs, _, low_plain, low_owner), p) in states {
        let side_high = highs.iter().copied().max().unwrap_or(0);
        if !dice.warriors.banner || !banner_rerolls(side_high, chariot_high, tie, total, low_plain) {
            *out.entry(highs).or_default() += p;
            continue;
        }
        for face in 1..=6u8 {
            let again = shown(face, low_plain);
            let mut h = highs.clone();
            h[low_owner] = if dice.owned_by(low_owner) >= 2 { h[low_owner].max(again) } else { again };
            *out.entry(h).or_default() += p / 6.0;
        }
    }
    out.into_iter().collect()
}

/// What Might did to a duel: the points each side spent and the highest dice after them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DuelMight {
    /// Points the chariot's Hero spent.
    pub chariot_spent: u8,
    /// Points each enemy Hero spent, in the order of [`FoeDuelDice::heroes`].
    pub foe_spent: PerHero<u8>,
    /// The chariot's highest die after Might.
    pub chariot_high: u8,
    /// The enemy side's highest die after Might.
    pub foe_high: u8,
}

/// Who leads a duel on its dice and Fight values: `Some(true)` the chariot outright,
/// `Some(false)` the enemy outright, `None` a roll-off.
fn leader(chariot_high: u8, chariot_fight: u8, foe_high: u8, foe_fight: u8) -> Option<bool> {
    if chariot_high != foe_high {
        Some(chariot_high > foe_high)
    } else if chariot_fight != foe_fight {
        Some(chariot_fight > foe_fight)
    } else {
        None
    }
}

/// Might in the duel, after every die (and any banner re-roll) is seen: the side that
/// does not lead spends the least that wins outright (or, when nothing wins outright and
/// it is losing, the least that reaches a roll-off), and the other may answer the same
/// way, until the side behind cannot or will not. At a roll-off the chariot, which
/// charged, spends first. The chariot's Hero raises the chariot's highest die; an enemy
/// Hero only his own, the cheapest of them spending. `chariot_might` and `foe_might` are
/// what each may spend on the duel (0 when the policy keeps Might for other rolls). A die
/// never goes above 6.
pub fn settle_duel_might(
    chariot_high: u8,
    chariot_fight: u8,
    chariot_might: u8,
    highs: &[u8],
    foe_might: &[u8],
    foe_fight: u8,
) -> DuelMight {
    let mut ch = chariot_high;
    let mut own: PerHero<u8> = highs.iter().skip(1).copied().collect();
    let warriors = highs.first().copied().unwrap_or(0);
    let mut chariot_left = chariot_might;
    let mut foe_left: PerHero<u8> = foe_might.iter().copied().collect();
    let foe_high = |own: &[u8]| own.iter().copied().fold(warriors, u8::max);
    loop {
        let fh = foe_high(&own);
        let lead = leader(ch, chariot_fight, fh, foe_fight);
        if lead != Some(true)
            && chariot_left > 0
            && let Some(k) = might_to_win_duel(ch, fh, chariot_fight, foe_fight, chariot_left)
        {
            ch += k;
            chariot_left -= k;
            continue;
        }
        if lead != Some(false) {
            // The cheapest Hero that wins outright; failing that, when losing outright, the
            // cheapest that reaches a roll-off.
            let mut best: Option<(bool, u8, usize)> = None; // (outright, cost, hero)
            for (h, (&high, &left)) in own.iter().zip(&foe_left).enumerate() {
                let tie = ch.saturating_sub(high);
                if high > ch {
                    continue; // he already leads on his own die: nothing to raise
                }
                let outright = if foe_fight > chariot_fight { tie } else { tie + 1 };
                let option = if high + outright <= 6 && outright <= left && outright > 0 {
                    Some((true, outright))
                } else if lead == Some(true) && foe_fight == chariot_fight && tie > 0 && tie <= left {
                    Some((false, tie))
                } else {
                    None
                };
                if let Some((out, cost)) = option {
                    let better = match best {
                        None => true,
                        Some((b_out, b_cost, _)) => (out && !b_out) || (out == b_out && cost < b_cost),
                    };
                    if better {
                        best = Some((out, cost, h));
                    }
                }
            }
            if let Some((_, cost, h)) = best {
                own[h] += cost;
                foe_left[h] -= cost;
                continue;
            }
        }
        break;
    }
    DuelMight {
        chariot_spent: chariot_might - chariot_left,
        foe_spent: foe_might.iter().zip(&foe_left).map(|(a, b)| a - b).collect(),
        chariot_high: ch,
        foe_high: foe_high(&own),
    }
}

/// An enemy Hero's standing after Wounds: (Wounds left, Fate left, Might left).
pub type HeroStanding = (u8, u8, u8);

/// The exact outcomes of `wounds` Wounds suffered one at a time by an enemy Hero with
/// `standing`: each may be prevented by his Fate (retried by the ruleset) and Might on the
/// Fate roll when his saves allow; none matter once he is slain.
pub fn wounds_on_foe_hero(saves: Saves, standing: HeroStanding, wounds: u8) -> Vec<(HeroStanding, f64)> {
    let mut states: BTreeMap<HeroStanding, f64> = BTreeMap::from([(standing, 1.0)]);
    for _ in 0..wounds {
        let mut next: BTreeMap<HeroStanding, f64> = BTreeMap::new();
        for ((left, fate, might), p) in states {
            if left == 0 {
                *next.entry((left, fate, might)).or_default() += p;
                continue;
            }
            for (pr, q) in prevention_distribution(saves, WoundOn::Hero { wounds_left: left }, fate, might) {
                let Prevention { prevented, fate_spent, might_spent } = pr;
                let l = if prevented { left } else { left - 1 };
                *next.entry((l, fate - fate_spent, might - might_spent)).or_default() += p * q;
            }
        }
        states = next;
    }
    states.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesbg::rules::saves::FateRule;

    fn plain(n: u32) -> DefenderDice {
        DefenderDice { plain: n, minus_one: 0, banner: false }
    }

    fn hero(dice: u32) -> HeroDice {
        HeroDice { dice, minus_one: false }
    }

    #[test]
    fn owners_keep_their_own_highest_die() {
        // One warrior die and a Hero's two: by hand, P(Hero's highest = 6) = 11/36 and
        // independent of the warrior's.
        let dice = FoeDuelDice { warriors: plain(1), heroes: smallvec::smallvec![hero(2)] };
        let d = foe_highs_distribution(&dice, 6, Tie::RollOff);
        let p: f64 = d.iter().filter(|(h, _)| h[1] == 6).map(|x| x.1).sum();
        assert!((p - 11.0 / 36.0).abs() < 1e-15);
        let p: f64 = d.iter().filter(|(h, _)| h[0] == 1 && h[1] == 1).map(|x| x.1).sum();
        assert!((p - 1.0 / 216.0).abs() < 1e-15);
        // The dice-level settle agrees face for face.
        let mut faces = [2u8, 5, 3].into_iter();
        assert_eq!(settle_foe_highs(&dice, 6, Tie::RollOff, || faces.next().unwrap()).highs.to_vec(), vec![2, 5]);
    }

    #[test]
    fn the_banner_re_rolls_the_lowest_die_into_its_owners_hand() {
        // Warrior rolls 1, Hero rolls 3 against the chariot's 4: the side would lose, so the
        // warrior's 1 is re-rolled (a 6).
        let dice = FoeDuelDice {
            warriors: DefenderDice { plain: 1, minus_one: 0, banner: true },
            heroes: smallvec::smallvec![hero(1)],
        };
        let mut faces = [1u8, 3, 6].into_iter();
        let roll = settle_foe_highs(&dice, 4, Tie::RollOff, || faces.next().unwrap());
        assert_eq!((roll.highs.to_vec(), roll.reroll), (vec![6, 3], Some((1, 6))));
        // Hero's die lowest: his is re-rolled.
        let mut faces = [5u8, 2, 4].into_iter();
        assert_eq!(settle_foe_highs(&dice, 5, Tie::RollOff, || faces.next().unwrap()).highs.to_vec(), vec![5, 4]);
        // By hand: a warrior and a Hero, one die each, banner, against the chariot's 6 with
        // the higher Fight: a 6 would only tie, and a tie is the chariot's, so no re-roll
        // can win and none is taken: the Hero's die is 6 with 1/6.
        let d = foe_highs_distribution(&dice, 6, Tie::Chariot);
        let p: f64 = d.iter().filter(|(h, _)| h[1] == 6).map(|x| x.1).sum();
        assert!((p - 1.0 / 6.0).abs() < 1e-15, "a 6 cannot win, so no re-roll is taken: {p}");
        // At equal Fight a 6 ties for the roll-off, which beats losing: every pair without
        // a 6 re-rolls its lower die. P(Hero ends on 6) = P(Hero first 6) + P(no 6, the
        // Hero's die the lower one (the warrior's strictly higher: 10 of the 25 pairs), and
        // its re-roll a 6).
        let d = foe_highs_distribution(&dice, 6, Tie::RollOff);
        let p: f64 = d.iter().filter(|(h, _)| h[1] == 6).map(|x| x.1).sum();
        assert!((p - (6.0 / 36.0 + 10.0 / 36.0 / 6.0)).abs() < 1e-15, "{p}");
        assert!((d.iter().map(|x| x.1).sum::<f64>() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn the_banner_is_never_re_rolled_on_a_tie_already_won() {
        // A lone F5 warrior's die against an F4 chariot's equal die: the tie is his on Fight,
        // so he keeps it. Chariot 2 dice F4, warrior 1 die F5 with a banner: by hand the
        // warrior wins when his die >= the chariot's highest, and re-rolls (his only die)
        // when it is lower. P(chariot wins) = sum over the chariot's highest c of P(c) *
        // P(warrior < c) * P(re-roll < c) = sum P(c) ((c-1)/6)^2.
        let lone = FoeDuelDice::warriors_only(DefenderDice { plain: 1, minus_one: 0, banner: true });
        let mut p_chariot = 0.0;
        for c in 1..=6u8 {
            let p_c = (f64::from(c) / 6.0).powi(2) - (f64::from(c - 1) / 6.0).powi(2);
            let d = foe_highs_distribution(&lone, c, Tie::Foe);
            let lose: f64 = d.iter().filter(|(h, _)| h[0] < c).map(|x| x.1).sum();
            p_chariot += p_c * lose;
            // Dice level: a tie is kept, no die read after the first.
            let mut read = 0;
            let roll = settle_foe_highs(&lone, c, Tie::Foe, || {
                read += 1;
                c
            });
            assert_eq!((roll.highs[0], roll.reroll, read), (c, None, 1));
        }
        let by_hand: f64 = (1..=6u8)
            .map(|c| {
                let p_c = (f64::from(c) / 6.0).powi(2) - (f64::from(c - 1) / 6.0).powi(2);
                p_c * (f64::from(c - 1) / 6.0).powi(2)
            })
            .sum();
        assert!((p_chariot - by_hand).abs() < 1e-15, "{p_chariot} vs {by_hand}");
        // = 505/1296; re-rolling the won tie too would give the chariot 630/1296.
        assert!((p_chariot - 505.0 / 1296.0).abs() < 1e-15, "{p_chariot}");
    }

    #[test]
    fn a_lone_die_at_a_roll_off_is_re_rolled_only_at_3_or_less() {
        // Equal Fight, one die against the chariot's equal die h: keeping it wins 1/2 (the
        // roll-off); re-rolling wins (6 - h)/6 + 1/12, better only for h <= 3.
        for h in 1..=6u8 {
            let by_hand = f64::from(6 - h) / 6.0 + 1.0 / 12.0;
            assert_eq!(banner_rerolls(h, h, Tie::RollOff, 1, true), by_hand > 0.5, "h = {h}");
        }
        // With two dice the highest stays, so any re-roll below 6 can only help.
        assert!(banner_rerolls(5, 5, Tie::RollOff, 2, true));
        assert!(!banner_rerolls(6, 6, Tie::RollOff, 2, true));
        // Behind, always (if a re-roll can reach); ahead, never.
        assert!(banner_rerolls(2, 5, Tie::Foe, 1, false));
        assert!(!banner_rerolls(5, 2, Tie::Chariot, 3, true));
        assert!(!banner_rerolls(5, 6, Tie::Chariot, 2, true), "a 6 would only tie, and ties are the chariot's");
    }

    #[test]
    fn a_hero_carrying_the_banner_rolls_his_own_dice_at_minus_one() {
        // His two dice at -1: never a 6 (6 - 1 = 5), and 5 only from a 6 rolled:
        // 1 - (5/6)^2 = 11/36.
        let dice = FoeDuelDice {
            warriors: DefenderDice { plain: 0, minus_one: 0, banner: false },
            heroes: smallvec::smallvec![HeroDice { dice: 2, minus_one: true }],
        };
        let d = foe_highs_distribution(&dice, 6, Tie::RollOff);
        let p5: f64 = d.iter().filter(|(h, _)| h[1] == 5).map(|x| x.1).sum();
        let p6: f64 = d.iter().filter(|(h, _)| h[1] == 6).map(|x| x.1).sum();
        assert!((p5 - 11.0 / 36.0).abs() < 1e-15 && p6 == 0.0, "{p5} {p6}");
    }

    #[test]
    fn might_goes_back_and_forth_until_the_side_behind_cannot_answer() {
        // Chariot 4 (F4, 2 Might) against a Hero's 5 (F5, 1 Might): the chariot spends 2
        // to reach 6 (a tie loses on Fight, so 6 it must be); the Hero answers with 1 (a
        // tie at 6 he wins on Fight), and the chariot has nothing left.
        let m = settle_duel_might(4, 4, 2, &[0, 5], &[1], 5);
        assert_eq!((m.chariot_spent, m.foe_spent.to_vec(), m.chariot_high, m.foe_high), (2, vec![1], 6, 6));
        // Without his Might point the Hero cannot answer.
        let m = settle_duel_might(4, 4, 2, &[0, 5], &[0], 5);
        assert_eq!((m.chariot_spent, m.foe_spent.to_vec(), m.chariot_high, m.foe_high), (2, vec![0], 6, 5));
        // Chariot 4 (F5, 1 Might) against the Hero's 4 (F5, 3 Might): a roll-off; the
        // chariot spends 1 (5), the Hero answers with 2 (6), the chariot cannot.
        let m = settle_duel_might(4, 5, 1, &[0, 4], &[3], 5);
        assert_eq!((m.chariot_spent, m.foe_spent.to_vec(), m.chariot_high, m.foe_high), (1, vec![2], 5, 6));
        // A warrior's 6 already wins: the Hero keeps his Might, the chariot cannot win.
        let m = settle_duel_might(5, 4, 0, &[6, 2], &[3], 4);
        assert_eq!(m.foe_spent.to_vec(), vec![0]);
        // The Hero raises only his own die: warrior 5, Hero 2 with 2 Might against the
        // chariot's 5 at higher Fight: the Hero cannot reach 6 (needs 4), so the duel is lost.
        let m = settle_duel_might(5, 5, 0, &[5, 2], &[2], 4);
        assert_eq!((m.foe_spent.to_vec(), m.foe_high), (vec![0], 5));
        // Of two Heroes the cheaper spends.
        let m = settle_duel_might(5, 5, 0, &[0, 3, 4], &[3, 3], 5);
        assert_eq!(m.foe_spent.to_vec(), vec![0, 2]);
    }

    #[test]
    fn fate_saves_a_hero_wound_by_wound() {
        let saves = Saves {
            fate_rule: FateRule::Retry,
            fate_policy: FatePolicy::ChariotThenHero,
            might_on_fate: false,
            might_on_terrain: false,
        };
        // Two Wounds on a 1-Wound Hero with 1 Fate: survives only if the first is saved
        // (1/2) and then... the second finds no Fate left: slain. So always slain; Fate
        // spent always 1.
        let d = wounds_on_foe_hero(saves, (1, 1, 0), 2);
        assert_eq!(d, vec![((0, 0, 0), 1.0)]);
        // One Wound, 2 Wounds left, 2 Fate retried: unhurt with 3/4.
        let d = wounds_on_foe_hero(saves, (2, 2, 0), 1);
        let unhurt: f64 = d.iter().filter(|((l, _, _), _)| *l == 2).map(|x| x.1).sum();
        assert!((unhurt - 0.75).abs() < 1e-15);
    }
}
