//! The duel's dice in a fight: the highest die each side rolls (an owner's die kept apart), with supporters and the banner.

use super::*;

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
