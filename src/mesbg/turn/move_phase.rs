//! The Move phase of a trial: each chariot's Chariot Charge down its drive of the tree,
//! drawn whole where it can be, else contact by contact from the tables of the state each
//! model is in.

use super::drive::{DrawnDrive, DriveOutcome, MoveKey};
use super::plan::TurnPlan;
use super::scratch::{DriveMemo, MAX_DRAWN_DRIVES, TurnTrial};
use super::state::{ContactEffect, ImpactState};
use crate::dice::{Dice, Phase, TrialKey};
use crate::mesbg::resolve::{Event, Observer, obstacle_hits};
use crate::mesbg::tally::Outcome;

/// Drive `node` as an exact distribution, for the states its models are in now: from this
/// thread's memo, else worked out by the plan. `None` when it is rolled contact by contact
/// ([`TurnPlan::drive_distribution`]), or the tables are off.
pub fn drawn_drive<'m>(plan: &TurnPlan, node: usize, s: &TurnTrial, memo: &'m mut DriveMemo) -> Option<&'m DrawnDrive> {
    let mv = &plan.nodes[node];
    if !drives_drawn_whole(plan) || mv.groups.is_empty() || mv.difficult_from.is_some() || mv.obstacle.is_some() {
        return None;
    }
    memo.key.clear();
    for group in &mv.groups {
        for &m in &group.models {
            memo.key.push(s.state(plan, m).hurt.word());
        }
    }
    if memo.nodes.len() <= node {
        memo.nodes.resize_with(node + 1, Vec::new);
    }
    let at = match memo.nodes[node].iter().position(|(k, _)| **k == *memo.key) {
        Some(at) => at,
        None => {
            if memo.held >= MAX_DRAWN_DRIVES {
                memo.nodes.iter_mut().for_each(Vec::clear);
                memo.held = 0;
            }
            memo.held += 1;
            let states: Vec<ImpactState> = memo.key.iter().map(|&w| ImpactState::from_word(w)).collect();
            let drive = plan.drive_distribution(node, &states);
            let key = memo.key.clone().into_boxed_slice();
            memo.nodes[node].push((key, drive));
            memo.nodes[node].len() - 1
        }
    };
    memo.nodes[node][at].1.as_ref()
}

/// Whether `plan`'s drives are drawn whole: the tables are on and the turn has several
/// chariots. A turn of one chariot (a piece placed in front of a line by `balance
/// --matchups`) rolls contact by contact, as it always has, so that its draws and the
/// prices quoted from them stay what they were.
pub fn drives_drawn_whole(plan: &TurnPlan) -> bool {
    plan.drives_from_tables && plan.order.len() > 1
}

/// One chariot's Chariot Charge down drive `node`: drawn whole where it can be
/// ([`drawn_drive`]), else the difficult-terrain test on entering, each contact's Impact
/// Hits from the state the model is in, stopping at a survivor, the obstacle at the end.
/// Returns what it came to.
pub fn charge<O: Observer>(
    plan: &TurnPlan,
    node: usize,
    dice: &mut Dice,
    trace: (TrialKey, &mut Option<Dice>),
    s: &mut TurnTrial,
    obs: &mut O,
) -> MoveKey {
    let mv = &plan.nodes[node];
    obs.note(|| Event::TurnCharge { chariot: mv.chariot + 1, order: mv.depth + 1 });
    let mut memo = std::mem::take(&mut s.drives);
    let drawn = drawn_drive(plan, node, s, &mut memo).map(|d| d.draw(dice));
    let key = match drawn {
        Some(outcome) => apply_drive(plan, node, outcome, trace, s, obs),
        None => charge_by_dice(plan, node, dice, s, obs),
    };
    s.drives = memo;
    key
}

/// Applies a drive drawn whole: each model's contact, where it stopped or that it drove on.
pub fn apply_drive<O: Observer>(
    plan: &TurnPlan,
    node: usize,
    outcome: &DriveOutcome,
    (key, trace): (TrialKey, &mut Option<Dice>),
    s: &mut TurnTrial,
    obs: &mut O,
) -> MoveKey {
    let mv = &plan.nodes[node];
    let c = mv.chariot;
    let mut effects = outcome.effects.iter();
    for group in &mv.groups {
        let Some(&(first, _)) = effects.as_slice().first() else {
            break;
        };
        debug_assert_eq!(first, group.models[0], "a drive's effects follow its groups");
        for &t in &group.tables {
            let Some(&(m, effect)) = effects.next() else {
                break;
            };
            let before = s.state(plan, m);
            s.set(m, before.after(effect));
            if effect.casualty {
                s.chariots[c].impact_kills += 1;
                if plan.flat_impact.is_hero(m) {
                    s.foe_heroes_slain += 1;
                }
            }
            if O::ENABLED {
                let trace = trace.get_or_insert_with(|| key.dice(Phase::Trace));
                let outcome = plan.impact[c][t].outcome_given(before.hurt, effect, trace);
                obs.note(|| Event::Contact { distance: group.distance, model: m, outcome });
            }
        }
    }
    let k = outcome.key;
    if k.survivors != 0 {
        if O::ENABLED {
            let group = &mv.groups[usize::from(k.passed)];
            let by = group.models.iter().enumerate().filter(|(i, _)| k.survivors & (1 << i) != 0).map(|(_, &m)| m);
            let by = by.collect();
            obs.note(|| Event::Stopped { distance: group.distance, by });
        }
        return k;
    }
    if let Some((by, distance)) = mv.blocked_by {
        s.chariots[c].blocked = true;
        obs.note(|| Event::Blocked { by: by + 1, distance });
    }
    obs.note(|| Event::DroveOn { breakthrough: mv.breakthrough_possible });
    k
}

/// A drive rolled contact by contact (see [`charge`]).
fn charge_by_dice<O: Observer>(
    plan: &TurnPlan,
    node: usize,
    dice: &mut Dice,
    s: &mut TurnTrial,
    obs: &mut O,
) -> MoveKey {
    let mv = &plan.nodes[node];
    let c = mv.chariot;
    let cp = &plan.plans[c];
    let mut out = Outcome::default();
    let mut state = s.chariots[c].state;
    let terrain = |g: usize| mv.difficult_from.is_some() && g == mv.terrain_group;
    for (g, group) in mv.groups.iter().enumerate() {
        if terrain(g) {
            state.terrain_test(cp, dice, &mut out, obs);
            if state.wounds_left == 0 {
                obs.note(|| Event::SlainByTerrain { distance: mv.difficult_from.unwrap_or_default() });
                s.chariots[c].state = state;
                return MoveKey { passed: g as u16, survivors: 0, gone: true };
            }
        }
        let mut survivors = 0u32;
        for (i, (&m, &table)) in group.models.iter().zip(&group.tables).enumerate() {
            let t = s.state(plan, m);
            let (outcome, hero) = plan.flat_impact.sample((c, table), t.hurt, dice);
            s.set(m, t.after(ContactEffect::of(&outcome)));
            if outcome.casualty {
                s.chariots[c].impact_kills += 1;
                if hero {
                    s.foe_heroes_slain += 1;
                }
            }
            if !outcome.passed {
                survivors |= 1 << i;
            }
            obs.note(|| Event::Contact { distance: group.distance, model: m, outcome });
        }
        if survivors != 0 {
            if O::ENABLED {
                let by = group.models.iter().enumerate().filter(|(i, _)| survivors & (1 << i) != 0).map(|(_, &m)| m);
                let by = by.collect();
                obs.note(|| Event::Stopped { distance: group.distance, by });
            }
            s.chariots[c].state = state;
            return MoveKey { passed: g as u16, survivors, gone: false };
        }
    }
    let all = mv.groups.len() as u16;
    if terrain(mv.groups.len()) {
        state.terrain_test(cp, dice, &mut out, obs);
        if state.wounds_left == 0 {
            obs.note(|| Event::SlainByTerrain { distance: mv.difficult_from.unwrap_or_default() });
            s.chariots[c].state = state;
            return MoveKey { passed: all, survivors: 0, gone: true };
        }
    }
    if let Some((by, distance)) = mv.blocked_by {
        s.chariots[c].blocked = true;
        obs.note(|| Event::Blocked { by: by + 1, distance });
    }
    if mv.obstacle.is_some() {
        obstacle_hits(cp, &mut state, dice, obs);
    }
    s.chariots[c].state = state;
    let gone = state.wounds_left == 0;
    if !gone {
        obs.note(|| Event::DroveOn { breakthrough: mv.breakthrough_possible });
    }
    MoveKey { passed: all, survivors: 0, gone }
}
