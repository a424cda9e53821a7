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
