//! One trial of a turn, played: the Move phase chariot by chariot down the compiled tree of
//! boards, then the Fight phase fight by fight, then the end of the turn.
//!
//! Trial `t` draws the Move phase from its `Charge` stream and the Fight phase from its
//! `Fight` stream, so any trial replays alone and a run's tally never depends on the
//! thread count.

use super::fight_phase::fight;
use super::move_phase::charge;
use super::plan::TurnPlan;
use super::scratch::TurnTrial;
use super::values::write_values;
use crate::dice::{Dice, Phase};
use crate::engine::Streams;
use crate::mesbg::resolve::{Event, Observer};
use crate::mesbg::rules::fight::WoundOn;

/// Plays trial `trial` of a turn and writes its metric values, in the plan's order, into
/// the trial's `values` (returned).
pub fn play<'s, O: Observer>(
    plan: &TurnPlan,
    streams: Streams,
    trial: u64,
    s: &'s mut TurnTrial,
    obs: &mut O,
) -> &'s [u16] {
    let key = streams.trial_key(trial);
    let mut dice = key.dice(Phase::Charge);
    let mut trace: Option<Dice> = None;
    s.start(plan);
    // The Move phase.
    let mut node = 0;
    let mut last = 0;
    s.walked.clear();
    for depth in 0..plan.order.len() {
        s.walked.push(node);
        let outcome = charge(plan, node, &mut dice, (key, &mut trace), s, obs);
        let Some(next) = plan.nodes[node].child(outcome) else {
            debug_assert!(false, "a drive's outcome {outcome:?} has no board");
            break;
        };
        if depth + 1 < plan.order.len() {
            node = next;
        } else {
            last = next;
        }
    }
    // The Fight phase.
    s.last = last;
    let mut fight_dice = key.dice(Phase::Fight);
    let mut trace_dice: Option<Dice> = None;
    for i in 0..plan.finals[last].fights.len() {
        fight(plan, last, i, &mut fight_dice, (key, &mut trace_dice), s, obs);
    }
    end_turn(plan, last, &mut fight_dice, s, obs);
    &s.values
}

/// The end of the turn: a chariot slain throws its Hero (a Strength 3 hit; his Fate may
/// prevent it); then the metric values are written.
pub fn end_turn<O: Observer>(plan: &TurnPlan, last: usize, fight_dice: &mut Dice, s: &mut TurnTrial, obs: &mut O) {
    for c in 0..plan.plans.len() {
        let cp = &plan.plans[c];
        if let Some(hero) = cp.chariot.hero
            && s.chariots[c].state.wounds_left == 0
        {
            let mut hero_lost = 0;
            if hero.thrown_hit.roll(fight_dice) {
                let on = WoundOn::Hero { wounds_left: hero.wounds };
                hero_lost = u8::from(!s.chariots[c].state.prevent(cp, on, fight_dice, obs));
            }
            obs.note(|| Event::Thrown { wounds: hero_lost, slain: hero_lost >= hero.wounds });
        }
    }
    let board = &plan.finals[last];
    write_values(plan, board, board.fights.len() as u16, s.foe_heroes_slain, s);
}

/// Whether the end of the turn rolls dice (a slain chariot throws its Hero).
pub fn end_rolls(plan: &TurnPlan, s: &TurnTrial) -> bool {
    plan.plans.iter().zip(&s.chariots).any(|(cp, ch)| cp.chariot.hero.is_some() && ch.state.wounds_left == 0)
}
