//! A trial's metric values at the end of the turn: what broke, the totals, each chariot's
//! own.

use super::final_board::FinalBoard;
use super::measure::{breached_lines, halved_lines};
use super::plan::TurnPlan;
use super::scratch::{SlainKey, TurnTrial};

/// The turn's metric values: what broke, the totals, each chariot's own.
pub fn write_values(plan: &TurnPlan, board: &FinalBoard, fights: u16, foe_heroes_slain: u16, s: &mut TurnTrial) {
    let at = &plan.at;
    s.values.clear();
    s.values.resize(plan.metrics.len(), 0);
    let models = &plan.plans[0].models;
    let impact_kills: u16 = s.chariots.iter().map(|c| c.impact_kills).sum();
    let fight_kills = s.fight_slain.len() as u16;
    // Per line: whether it lost half its models, and whether a corridor runs through it.
    let formations = &plan.scenario.formations;
    let mut lost: Vec<usize> = board.lost_in_moves.iter().map(|&l| l as usize).collect();
    for &m in &s.fight_slain {
        lost[models[m].formation] += 1;
    }
    let halved = halved_lines(formations, &plan.lines, &lost);
    let breached: Vec<bool> = if s.fight_slain.is_empty() {
        board.breached.clone()
    } else {
        s.fight_slain.sort_unstable();
        // Kept by how many the fights slew, so that each slot holds few sets.
        let slot = s.fight_slain.len().min(15);
        let slain = &s.fight_slain;
        s.breached
            .get_or_insert_with((s.last, slot), SlainKey::of(slain), || {
                let standing = |m: usize| board.present[m] && slain.binary_search(&m).is_err();
                breached_lines(formations, &plan.lines, &board.centres, standing, plan.corridor_width)
            })
            .clone()
    };
    let v = &mut s.values;
    v[at.line_breached] = u16::from(breached.iter().any(|&b| b));
    v[at.line_halved] = u16::from(halved.iter().any(|&h| h));
    for (l, &(b, h)) in at.lines.iter().enumerate() {
        v[b] = u16::from(breached[l]);
        v[h] = u16::from(halved[l]);
    }
    let kills = impact_kills + fight_kills;
    if let (Some(i), Some(army)) = (at.army_broken, plan.scenario.army) {
        let casualties = u64::from(army.casualties) + u64::from(kills);
        v[i] = u16::from(plan.scenario.rules.break_point.broken(casualties, u64::from(army.models)));
    }
    v[at.breakthrough_any] = u16::from(board.through.iter().any(|&t| t));
    v[at.kills] = kills;
    v[at.impact_kills] = impact_kills;
    v[at.fight_kills] = fight_kills;
    v[at.fights] = fights;
    v[at.chariots_slain] = s.chariots.iter().filter(|c| c.state.wounds_left == 0).count() as u16;
    if let Some(i) = at.foe_heroes_slain {
        v[i] = foe_heroes_slain;
    }
    if let Some(i) = at.points_slain {
        // At most every model's points, which the plan checked fit.
        let points: u32 = board.slain_in_moves.iter().chain(&s.fight_slain).map(|&m| models[m].points).sum();
        v[i] = u16::try_from(points).unwrap_or(u16::MAX);
    }
    for (c, m) in at.chariot.iter().enumerate() {
        let cp = &plan.plans[c];
        let ch = s.chariots[c];
        let st = ch.state;
        v[m.impact_kills] = ch.impact_kills;
        v[m.fight_fought] = u16::from(ch.fought);
        v[m.fight_won] = u16::from(ch.won);
        v[m.fight_kills] = ch.fight_kills;
        v[m.wounds_lost] = u16::from(cp.chariot.wounds - st.wounds_left);
        v[m.slain] = u16::from(st.wounds_left == 0);
        v[m.breakthrough] = u16::from(board.through[c]);
        v[m.blocked] = u16::from(ch.blocked);
        if let (Some((might, fate)), Some(hero)) = (m.hero, cp.chariot.hero) {
            v[might] = u16::from(hero.might - st.might_left);
            v[fate] = u16::from(hero.fate - st.fate_left);
        }
    }
}
