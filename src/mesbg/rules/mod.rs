//! Middle-earth Strategy Battle Game rules used by the Chariot Charge: the To Wound
//! chart, Impact Hits, the duel and the Strikes after it.
//!
//! Every rule is a small pure function; randomness comes in through an explicit
//! [`Dice`]. Exact probabilities live beside the rolls so that the resolver and the exact
//! engine share one source of truth.

pub mod duel;
pub mod fight;
pub mod saves;

use crate::dice::{Dice, DiceExpr};
use fight::highest_d6_probability;
use serde::{Deserialize, Serialize};

/// Which side of the table a model fights for. Roll-offs favour a side by its allegiance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The Good player's models.
    Good,
    /// The Evil player's models.
    Evil,
}

impl Side {
    /// The other side.
    pub fn opponent(self) -> Self {
        match self {
            Side::Good => Side::Evil,
            Side::Evil => Side::Good,
        }
    }
}

/// What a single To Wound attempt needs on the chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum WoundRoll {
    /// One D6 needing this score or more (3 to 6).
    Needs(u8),
    /// A 6, then a second D6 needing this score or more (4 to 6).
    SixThen(u8),
    /// A 5 or 6, then a second D6 needing this score or more (3 to 5): a "6 then n" roll
    /// made at +1 (a weapon used two-handed), both dice read as natural faces.
    FiveThen(u8),
    /// The Strength cannot wound this Defence.
    Impossible,
}

/// The To Wound chart: Strength against Defence.
pub fn to_wound(strength: u8, defence: u8) -> WoundRoll {
    match i16::from(defence) - i16::from(strength) {
        d if d <= -2 => WoundRoll::Needs(3),
        -1 | 0 => WoundRoll::Needs(4),
        1 | 2 => WoundRoll::Needs(5),
        3 | 4 => WoundRoll::Needs(6),
        5 => WoundRoll::SixThen(4),
        6 => WoundRoll::SixThen(5),
        7 => WoundRoll::SixThen(6),
        _ => WoundRoll::Impossible,
    }
}

impl WoundRoll {
    /// The exact chance that one attempt wounds.
    pub fn probability(self) -> f64 {
        let at_least = |n: u8| f64::from(7 - n) / 6.0;
        match self {
            WoundRoll::Needs(n) => at_least(n),
            WoundRoll::SixThen(n) => at_least(6) * at_least(n),
            WoundRoll::FiveThen(n) => at_least(5) * at_least(n),
            WoundRoll::Impossible => 0.0,
        }
    }

    /// The same roll made at +1 (a weapon used two-handed adds 1 to every To Wound die,
    /// both dice of a "6 then n"): each die needs one less on its natural face. A roll the
    /// chart forbids stays forbidden: the modifier changes the dice, not the chart.
    pub fn plus_one(self) -> Self {
        match self {
            WoundRoll::Needs(n) => WoundRoll::Needs(n.saturating_sub(1).max(1)),
            WoundRoll::SixThen(n) => WoundRoll::FiveThen(n - 1),
            WoundRoll::FiveThen(n) => WoundRoll::FiveThen(n.saturating_sub(1).max(1)),
            WoundRoll::Impossible => WoundRoll::Impossible,
        }
    }

    /// The natural face the first die needs (the only die of a one-die roll); `None` when
    /// the roll cannot wound.
    pub fn first_needs(self) -> Option<u8> {
        match self {
            WoundRoll::Needs(n) => Some(n),
            WoundRoll::SixThen(_) => Some(6),
            WoundRoll::FiveThen(_) => Some(5),
            WoundRoll::Impossible => None,
        }
    }

    /// Rolls one attempt.
    #[inline]
    pub fn roll(self, dice: &mut Dice) -> bool {
        match self {
            WoundRoll::Needs(n) => dice.d6() >= n,
            WoundRoll::SixThen(n) => dice.d6() == 6 && dice.d6() >= n,
            WoundRoll::FiveThen(n) => dice.d6() >= 5 && dice.d6() >= n,
            WoundRoll::Impossible => false,
        }
    }
}

/// A duel die of a model fighting with a weapon used two-handed: 1 lower, never below 1,
/// except a natural 6, which stays 6. It never lowers a higher die below a lower one, so
/// the highest die of a roll made this way is this of the highest natural die.
/// A side without dice (0) keeps 0.
pub fn two_handed_duel_die(natural: u8) -> u8 {
    match natural {
        0 => 0,
        6.. => natural,
        n => (n - 1).max(1),
    }
}

pub use crate::dice::binomial_pmf;

/// Exact joint distribution of Impact Hits on one model: `((hits, wounds), probability)`
/// for every possible outcome, wounds capped at the model's `wounds` (slain). The number of
/// hits is the profile's dice expression; each hit rolls Strength against Defence on the
/// chart. Might and Fate never touch Impact Hits.
pub fn impact_outcomes(hits: DiceExpr, strength: u8, defence: u8, wounds: u8) -> Vec<((u8, u8), f64)> {
    let p = to_wound(strength, defence).probability();
    let cap = usize::from(wounds);
    let mut outcomes = Vec::new();
    for (h, p_hits) in hits.pmf().into_iter().enumerate() {
        if p_hits == 0.0 {
            continue;
        }
        let mut capped = vec![0.0; cap + 1];
        for (w, p_w) in binomial_pmf(h, p).into_iter().enumerate() {
            capped[w.min(cap)] += p_w;
        }
        for (w, p_w) in capped.into_iter().enumerate() {
            if p_w > 0.0 {
                outcomes.push(((h as u8, w as u8), p_hits * p_w));
            }
        }
    }
    outcomes
}

/// Exact distribution of the Wounds that Impact Hits remove from one model: index `w` is
/// the chance of losing `w` Wounds, with the last index (`wounds`) meaning slain.
pub fn impact_wounds_pmf(hits: DiceExpr, strength: u8, defence: u8, wounds: u8) -> Vec<f64> {
    let mut pmf = vec![0.0; usize::from(wounds) + 1];
    for ((_, w), p) in impact_outcomes(hits, strength, defence, wounds) {
        pmf[usize::from(w)] += p;
    }
    pmf
}

/// Who wins a duel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DuelWinner {
    /// The side that charged (here: the chariot).
    Attacker,
    /// The side that was charged.
    Defender,
}

/// How a duel was decided, for traces and tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DuelResult {
    /// The winner.
    pub winner: DuelWinner,
    /// Highest die of the attacker.
    pub attacker_high: u8,
    /// Highest die of the defender.
    pub defender_high: u8,
    /// The roll-off die, when dice and Fight were both tied.
    pub roll_off: Option<u8>,
}

/// One side of a duel: how many dice it rolls, its best Fight value, and its allegiance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DuelSide {
    /// Dice rolled (one per Attack of each model on the side).
    pub dice: u32,
    /// Highest Fight value on the side.
    pub fight: u8,
    /// Allegiance, for the roll-off.
    pub side: Side,
}

/// The roll-off that settles a duel tied on dice and Fight: D6 1-3 the Evil side wins,
/// 4-6 the Good side.
#[inline]
pub fn roll_off_winner(die: u8) -> Side {
    if die <= 3 { Side::Evil } else { Side::Good }
}

/// Rolls a duel: highest single die wins; a tie goes to the higher Fight value, then to
/// the roll-off.
#[inline]
pub fn duel(attacker: DuelSide, defender: DuelSide, dice: &mut Dice) -> DuelResult {
    let attacker_high = dice.highest_d6(attacker.dice);
    let defender_high = dice.highest_d6(defender.dice);
    settle_duel(attacker, defender, attacker_high, defender_high, dice)
}

/// Settles a duel from each side's highest die (after any Might): the higher die wins, a
/// tie goes to the higher Fight, and a tie on both to the roll-off, rolled here.
#[inline]
pub fn settle_duel(
    attacker: DuelSide,
    defender: DuelSide,
    attacker_high: u8,
    defender_high: u8,
    dice: &mut Dice,
) -> DuelResult {
    let mut roll_off = None;
    let winner = if attacker_high != defender_high {
        if attacker_high > defender_high { DuelWinner::Attacker } else { DuelWinner::Defender }
    } else if attacker.fight != defender.fight {
        if attacker.fight > defender.fight { DuelWinner::Attacker } else { DuelWinner::Defender }
    } else {
        let die = dice.d6();
        roll_off = Some(die);
        if roll_off_winner(die) == attacker.side { DuelWinner::Attacker } else { DuelWinner::Defender }
    };
    DuelResult { winner, attacker_high, defender_high, roll_off }
}

/// The exact chance that the attacker wins a duel.
pub fn duel_win_probability(attacker: DuelSide, defender: DuelSide) -> f64 {
    let tie_win = if attacker.fight != defender.fight {
        if attacker.fight > defender.fight { 1.0 } else { 0.0 }
    } else {
        0.5 // the roll-off: a D6 split 3-3 between Evil and Good
    };
    let mut win = 0.0;
    for a in 0..=6u8 {
        for d in 0..=6u8 {
            let p = highest_d6_probability(attacker.dice, a) * highest_d6_probability(defender.dice, d);
            if a > d {
                win += p;
            } else if a == d {
                win += p * tie_win;
            }
        }
    }
    win
}

/// How a winner spreads its Strikes over several beaten models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StrikeAllocation {
    /// Each Strike goes to the living target with the fewest Wounds left (the first in
    /// contact order among equals): finish the most wounded target first.
    #[default]
    MostWoundedFirst,
    /// Each Strike goes to the living target most easily wounded (lowest Defence), then
    /// the most wounded.
    EasiestFirst,
}

impl StrikeAllocation {
    /// The policy's name as written in scenario files and reports.
    pub fn name(self) -> &'static str {
        match self {
            StrikeAllocation::MostWoundedFirst => "most_wounded_first",
            StrikeAllocation::EasiestFirst => "easiest_first",
        }
    }
}

/// A model being struck: what the Strikes need and how many Wounds it has left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrikeTarget {
    /// The roll each Strike needs against this model.
    pub roll: WoundRoll,
    /// Two To Wound rolls per Strike.
    pub trapped: bool,
    /// Wounds left; 0 means slain.
    pub wounds_left: u8,
    /// Defence, for [`StrikeAllocation::EasiestFirst`].
    pub defence: u8,
}

/// Picks the target of the next Strike under `policy`, or `None` when all are slain.
pub fn pick_target(targets: &[StrikeTarget], policy: StrikeAllocation) -> Option<usize> {
    let alive = targets.iter().enumerate().filter(|(_, t)| t.wounds_left > 0);
    match policy {
        StrikeAllocation::MostWoundedFirst => alive.min_by_key(|(i, t)| (t.wounds_left, *i)).map(|(i, _)| i),
        StrikeAllocation::EasiestFirst => alive.min_by_key(|(i, t)| (t.defence, t.wounds_left, *i)).map(|(i, _)| i),
    }
}

/// Settles a To Wound attempt with Might from its dice: `first` is the first die, and
/// `second` rolls the second die of a "6 then n" roll only when the rules need it. Shared
/// by the dice-level fight and the exact one, which enumerates the dice. Returns (success,
/// Might spent).
pub fn settle_wound_with_might(roll: WoundRoll, might: u8, first: u8, second: impl FnOnce() -> u8) -> (bool, u8) {
    match roll {
        WoundRoll::Impossible => (false, 0),
        WoundRoll::Needs(n) => {
            if first >= n {
                (true, 0)
            } else if n - first <= might {
                (true, n - first)
            } else {
                (false, 0)
            }
        }
        WoundRoll::SixThen(n) | WoundRoll::FiveThen(n) => {
            // The first die is settled (Might committed) before the second is rolled; the
            // Might put on it carries over to the second.
            let first_needs: u8 = if matches!(roll, WoundRoll::SixThen(_)) { 6 } else { 5 };
            let to_six = first_needs.saturating_sub(first);
            if to_six > might {
                return (false, 0);
            }
            let second = (second() + to_six).min(6);
            if second >= n {
                (true, to_six)
            } else if to_six + (n - second) <= might {
                (true, to_six + n - second)
            } else {
                (false, to_six) // what was spent on the first die is gone
            }
        }
    }
}

/// How much Might the chariot's side spends on its highest duel die before any roll-off:
/// the least that wins outright (a tie goes to the higher Fight), or, when nothing can win
/// outright, the least that reaches a roll-off. `None` when the duel is already won
/// outright or Might cannot help. A tie at equal Fight is not yet won: it spends to avoid
/// the roll-off when it can.
pub fn might_to_win_duel(
    attacker_high: u8,
    defender_high: u8,
    attacker_fight: u8,
    defender_fight: u8,
    might: u8,
) -> Option<u8> {
    if attacker_high > defender_high || (attacker_high == defender_high && attacker_fight > defender_fight) {
        return None; // already won
    }
    let tie = defender_high.saturating_sub(attacker_high);
    let outright = if attacker_fight > defender_fight { tie } else { tie + 1 };
    if attacker_high + outright <= 6 && outright <= might {
        return Some(outright);
    }
    if attacker_fight == defender_fight && tie > 0 && tie <= might {
        return Some(tie); // to a roll-off
    }
    None
}

/// Which of two chariots in a fight Backs Away (Immovable Object): the smaller; of two the
/// same size, a D6 decides: 1-3 the Evil one, 4-6 the Good one. `ours_larger` compares base
/// areas (`None` when equal); returns true when ours Backs Away.
pub fn our_chariot_backs_away(ours_larger: Option<bool>, our_side: Side, dice: &mut Dice) -> (bool, Option<u8>) {
    match ours_larger {
        Some(larger) => (!larger, None),
        None => {
            let die = dice.d6();
            let evil_backs = die <= 3;
            ((our_side == Side::Evil) == evil_backs, Some(die))
        }
    }
}

/// What a fight after the charge came to, from the chariot's side (the default: lost,
/// nothing slain, nothing spent, no Wound lost).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FightOutcome {
    /// The chariot won the duel.
    pub won: bool,
    /// Models the chariot's Strikes slew.
    pub kills: u8,
    /// Wounds the chariot lost.
    pub wounds_lost: u8,
    /// Might points the Hero spent (0 without a Hero).
    pub might_spent: u8,
    /// Fate points the Hero spent (0 without a Hero).
    pub fate_spent: u8,
    /// An enemy chariot in the fight was slain by its Strikes (so nobody Backs Away).
    pub foe_chariot_slain: bool,
    /// Might points enemy Heroes spent (duel and To Wound rolls, and on Fate rolls).
    pub foe_might_spent: u8,
    /// Fate points enemy Heroes spent against the chariot's Strikes.
    pub foe_fate_spent: u8,
    /// Enemy Heroes the chariot's Strikes slew (counted in `kills` too).
    pub foe_heroes_slain: u8,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{Phase, trial_dice};

    #[test]
    fn might_turns_failed_wounds() {
        // Needs 5+ with 1 Might: succeeds on 4, 5, 6 (spending 1 on a 4).
        let mut dice = trial_dice(8, 8, 8, Phase::Fight);
        let n = 600_000u32;
        let (mut ok, mut spent) = (0u32, 0u32);
        for _ in 0..n {
            let first = dice.d6();
            let (s, m) = settle_wound_with_might(WoundRoll::Needs(5), 1, first, || dice.d6());
            ok += u32::from(s);
            spent += u32::from(m);
        }
        let p = 0.5;
        let se = (p * (1.0 - p) / f64::from(n)).sqrt();
        assert!((f64::from(ok) / f64::from(n) - p).abs() < 5.0 * se);
        assert!((f64::from(spent) / f64::from(n) - 1.0 / 6.0).abs() < 5.0 * (5.0f64 / 36.0 / f64::from(n)).sqrt());
        // 6 then 4+ with 2 Might: first die 4+ (spending up to 2), and the carried Might
        // helps the second: P = sum over first in {4,5,6} of P(second + (6 - first) + what
        // is left >= 4) = (1/6)(1) + (1/6)(5/6... computed exactly below.
        let mut exact = 0.0;
        for first in 1..=6u8 {
            for second in 1..=6u8 {
                let to_six = 6 - first;
                if to_six > 2 {
                    continue;
                }
                let s = (second + to_six).min(6);
                if s >= 4 || to_six + (4 - s) <= 2 {
                    exact += 1.0 / 36.0;
                }
            }
        }
        let mut attempt = |roll, might| {
            let first = dice.d6();
            settle_wound_with_might(roll, might, first, || dice.d6())
        };
        let hits = (0..n).filter(|_| attempt(WoundRoll::SixThen(4), 2).0).count() as f64;
        let se = (exact * (1.0 - exact) / f64::from(n)).sqrt();
        assert!((hits / f64::from(n) - exact).abs() < 5.0 * se, "{exact}");
        assert_eq!(attempt(WoundRoll::Impossible, 6), (false, 0));
    }

    #[test]
    fn might_in_the_duel() {
        // Lost 4 against 5, equal Fight: 2 Might wins outright (6 > 5).
        assert_eq!(might_to_win_duel(4, 5, 4, 4, 2), Some(2));
        // Better Fight: a tie is enough.
        assert_eq!(might_to_win_duel(4, 5, 5, 4, 2), Some(1));
        // Against a 6 at equal Fight: reach the roll-off.
        assert_eq!(might_to_win_duel(5, 6, 4, 4, 3), Some(1));
        // Not enough Might, or already won.
        assert_eq!(might_to_win_duel(2, 6, 4, 4, 3), None);
        assert_eq!(might_to_win_duel(6, 5, 4, 4, 3), None);
        assert_eq!(might_to_win_duel(5, 5, 5, 4, 3), None);
    }

    #[test]
    fn every_cell_of_the_wound_chart() {
        // The chart written out in full, rows Strength 1-10, columns Defence 1-10, in
        // the notation of the rules ("6/4" is a 6 then a 4+, "-" cannot wound).
        let chart = [
            ["4", "5", "5", "6", "6", "6/4", "6/5", "6/6", "-", "-"],
            ["4", "4", "5", "5", "6", "6", "6/4", "6/5", "6/6", "-"],
            ["3", "4", "4", "5", "5", "6", "6", "6/4", "6/5", "6/6"],
            ["3", "3", "4", "4", "5", "5", "6", "6", "6/4", "6/5"],
            ["3", "3", "3", "4", "4", "5", "5", "6", "6", "6/4"],
            ["3", "3", "3", "3", "4", "4", "5", "5", "6", "6"],
            ["3", "3", "3", "3", "3", "4", "4", "5", "5", "6"],
            ["3", "3", "3", "3", "3", "3", "4", "4", "5", "5"],
            ["3", "3", "3", "3", "3", "3", "3", "4", "4", "5"],
            ["3", "3", "3", "3", "3", "3", "3", "3", "4", "4"],
        ];
        for s in 1..=10u8 {
            for d in 1..=10u8 {
                let expected = match chart[usize::from(s - 1)][usize::from(d - 1)] {
                    "-" => WoundRoll::Impossible,
                    cell if cell.starts_with("6/") => WoundRoll::SixThen(cell[2..].parse().unwrap()),
                    cell => WoundRoll::Needs(cell.parse().unwrap()),
                };
                assert_eq!(to_wound(s, d), expected, "S{s} vs D{d}");
            }
        }
    }

    #[test]
    fn chart_probabilities() {
        let p = |s, d| to_wound(s, d).probability();
        assert_eq!(p(5, 3), 2.0 / 3.0);
        assert_eq!(p(4, 4), 0.5);
        assert_eq!(p(4, 5), 1.0 / 3.0);
        assert_eq!(p(3, 5), 1.0 / 3.0);
        assert_eq!(p(3, 6), 1.0 / 6.0);
        assert_eq!(p(1, 6), 1.0 / 12.0);
        assert_eq!(p(1, 7), 1.0 / 18.0);
        assert_eq!(p(1, 8), 1.0 / 36.0);
        assert_eq!(p(1, 9), 0.0);
    }

    #[test]
    fn compound_rolls_match_their_probability() {
        let mut dice = trial_dice(3, 3, 3, Phase::Charge);
        let n = 720_000u32;
        for roll in [WoundRoll::SixThen(4), WoundRoll::SixThen(6), WoundRoll::Needs(5)] {
            let hits = (0..n).filter(|_| roll.roll(&mut dice)).count() as f64;
            let p = roll.probability();
            let se = (p * (1.0 - p) / f64::from(n)).sqrt();
            assert!((hits / f64::from(n) - p).abs() < 5.0 * se, "{roll:?}");
        }
    }

    #[test]
    fn impact_hits_worked_checks() {
        // 2 hits at S4 vs D5 (5+) on a one-Wound model: P(slain) = 1 - (2/3)^2 = 5/9.
        let pmf = impact_wounds_pmf("2".parse().unwrap(), 4, 5, 1);
        assert!((pmf[1] - 5.0 / 9.0).abs() < 1e-12);
        // 3 hits at S6 vs D5 (4+): 1 - (1/2)^3 = 7/8.
        let pmf = impact_wounds_pmf("3".parse().unwrap(), 6, 5, 1);
        assert!((pmf[1] - 7.0 / 8.0).abs() < 1e-12);
        // D3 hits at S4 vs D4 (4+) on a 2-Wound model.
        let pmf = impact_wounds_pmf("D3".parse().unwrap(), 4, 4, 2);
        let third = 1.0 / 3.0;
        // One hit never slays; two need both (1/4); three need two of three (1/2).
        let slain = third * 0.25 + third * 0.5;
        assert!((pmf[2] - slain).abs() < 1e-12, "{pmf:?}");
        assert!((pmf.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn duel_exact_values() {
        let chariot = DuelSide { dice: 2, fight: 4, side: Side::Evil };
        let warrior = DuelSide { dice: 1, fight: 4, side: Side::Good };
        assert!((duel_win_probability(chariot, warrior) - 143.0 / 216.0).abs() < 1e-12);
        let better = DuelSide { fight: 5, ..chariot };
        assert!((duel_win_probability(better, warrior) - 161.0 / 216.0).abs() < 1e-12);
        let worse = DuelSide { fight: 3, ..chariot };
        assert!((duel_win_probability(worse, warrior) - 125.0 / 216.0).abs() < 1e-12);
    }

    #[test]
    fn duel_roll_off_follows_allegiance() {
        assert_eq!(roll_off_winner(1), Side::Evil);
        assert_eq!(roll_off_winner(3), Side::Evil);
        assert_eq!(roll_off_winner(4), Side::Good);
        assert_eq!(roll_off_winner(6), Side::Good);
    }

    #[test]
    fn duel_sampling_matches_exact() {
        let chariot = DuelSide { dice: 2, fight: 4, side: Side::Evil };
        let line = DuelSide { dice: 3, fight: 4, side: Side::Good };
        let mut dice = trial_dice(11, 0, 0, Phase::Fight);
        let n = 400_000u32;
        let wins = (0..n).filter(|_| duel(chariot, line, &mut dice).winner == DuelWinner::Attacker).count();
        let p = duel_win_probability(chariot, line);
        let se = (p * (1.0 - p) / f64::from(n)).sqrt();
        assert!((wins as f64 / f64::from(n) - p).abs() < 5.0 * se, "{wins} vs {p}");
    }

    #[test]
    fn strike_allocation_policies() {
        let t = |w, d| StrikeTarget { roll: WoundRoll::Needs(4), trapped: false, wounds_left: w, defence: d };
        let targets = [t(2, 4), t(1, 6), t(0, 3), t(1, 5)];
        assert_eq!(pick_target(&targets, StrikeAllocation::MostWoundedFirst), Some(1));
        assert_eq!(pick_target(&targets, StrikeAllocation::EasiestFirst), Some(0));
        assert_eq!(pick_target(&[t(0, 4)], StrikeAllocation::MostWoundedFirst), None);
    }

    #[test]
    fn trapped_strikes_roll_twice() {
        let mut dice = trial_dice(5, 5, 5, Phase::Fight);
        let n = 300_000u32;
        let total: u32 = (0..n)
            .map(|_| u32::from(super::fight::settle_strike(WoundRoll::Needs(4), true, 2, 0, || dice.d6()).0))
            .sum();
        let mean = f64::from(total) / f64::from(n);
        // Mean 1.0, variance 2 * 1/4 = 0.5.
        assert!((mean - 1.0).abs() < 5.0 * (0.5 / f64::from(n)).sqrt(), "{mean}");
    }
}
