//! The duel's dice in a fight: the highest die each side rolls (an owner's die kept apart), with supporters and the banner.

use super::*;

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

/// The enemy side's highest duel die, settled from dice read off `next`: all dice first
/// (plain, then those at -1), then, with a banner, the re-roll by the reference's policy:
/// when the side would otherwise lose or tie (its highest no better than the chariot's
/// `chariot_high`, before any Might), it re-rolls its lowest die (a plain one before one
/// at -1 of the same value). Re-rolling happens before Might, so the chariot's Hero sees
/// the result. 0 with no dice.
pub fn settle_defender_high(dice: DefenderDice, chariot_high: u8, mut next: impl FnMut() -> u8) -> u8 {
    let total = dice.plain + dice.minus_one;
    if total == 0 {
        return 0;
    }
    let (mut high, mut low, mut low_plain) = (0u8, 7u8, true);
    for i in 0..total {
        let plain = i < dice.plain;
        let value = if plain { next() } else { next().saturating_sub(1).max(1) };
        high = high.max(value);
        if value < low || (value == low && plain && !low_plain) {
            (low, low_plain) = (value, plain);
        }
    }
    if !dice.banner || high > chariot_high {
        return high;
    }
    let roll = next();
    let again = if low_plain { roll } else { roll.saturating_sub(1).max(1) };
    if total >= 2 { high.max(again) } else { again }
}

/// The exact distribution of [`settle_defender_high`]: `p[d]` for d in 0..=6, given the
/// chariot's highest die. The dice are folded one at a time into (highest, lowest, lowest
/// is plain), so any number of dice costs the same few states.
pub fn defender_high(dice: DefenderDice, chariot_high: u8) -> [f64; 7] {
    let mut out = [0.0; 7];
    let total = dice.plain + dice.minus_one;
    if total == 0 {
        out[0] = 1.0;
        return out;
    }
    // (high, low, low_plain) -> probability
    let mut states: BTreeMap<(u8, u8, bool), f64> = BTreeMap::from([((0, 7, true), 1.0)]);
    for i in 0..total {
        let plain = i < dice.plain;
        let mut next: BTreeMap<(u8, u8, bool), f64> = BTreeMap::new();
        for (&(high, low, low_plain), &p) in &states {
            for face in 1..=6u8 {
                let value = if plain { face } else { face.saturating_sub(1).max(1) };
                let (l, lp) = if value < low || (value == low && plain && !low_plain) {
                    (value, plain)
                } else {
                    (low, low_plain)
                };
                *next.entry((high.max(value), l, lp)).or_default() += p / 6.0;
            }
        }
        states = next;
    }
    for ((high, _, low_plain), p) in states {
        if !dice.banner || high > chariot_high {
            out[usize::from(high)] += p;
            continue;
        }
        for face in 1..=6u8 {
            let again = if low_plain { face } else { face.saturating_sub(1).max(1) };
            let d = if total >= 2 { high.max(again) } else { again };
            out[usize::from(d)] += p / 6.0;
        }
    }
    out
}

/// The two sides of the duel of a fight: every standing rider or model rolls its Attacks
/// (Prone ones too), every standing mount its own.
pub fn duel_sides(chariot: &ChariotFighter, enemies: &[Combatant], support: &FoeSupport) -> (DuelSide, DuelSide) {
    let attacker = DuelSide { dice: u32::from(chariot.attacks), fight: chariot.fight, side: chariot.side };
    let mut defender = DuelSide { dice: 0, fight: 0, side: chariot.side.opponent() };
    for e in enemies {
        if e.wounds_left > 0 {
            defender.dice += u32::from(e.attacks);
            defender.fight = defender.fight.max(e.fight);
        }
        if let Some(m) = e.mount {
            defender.dice += u32::from(m.attacks);
            defender.fight = defender.fight.max(m.fight);
        }
    }
    support.join(&mut defender);
    (attacker, defender)
}

/// The enemy's duel dice in a fight: every die of the side, the bearer's (in the fight or
/// supporting) at -1, and whether a banner lets it re-roll one.
pub fn defender_dice(defender: &DuelSide, support: &FoeSupport) -> DefenderDice {
    let minus = support.minus_one_dice + support.supporters.iter().filter(|s| s.minus_one).count() as u32;
    let minus_one = minus.min(defender.dice);
    DefenderDice { plain: defender.dice - minus_one, minus_one, banner: support.banner }
}

/// P(the highest of `n` D6 is `k`), with `k = 0` for no dice at all.
pub fn highest_d6_probability(n: u32, k: u8) -> f64 {
    if n == 0 {
        return if k == 0 { 1.0 } else { 0.0 };
    }
    if k == 0 {
        return 0.0;
    }
    (f64::from(k) / 6.0).powi(n as i32) - (f64::from(k - 1) / 6.0).powi(n as i32)
}
