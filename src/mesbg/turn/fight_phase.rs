//! The Fight phase of a trial: each fight of the final board in the order fought, drawn in
//! one go from its exact table where its help is fixed, else die by die by the single
//! charge's fight (one chariot) or the pooled fight (several chariots against one model).

use super::drawn::{DrawnFight, FightKey};
use super::plan::TurnPlan;
use super::scratch::{LocalFights, TurnTrial};
use super::state::survivors_word;
use crate::dice::{Dice, Phase, TrialKey};
use crate::mesbg::plan::shieldwall::BRACING_NEIGHBOURS;
use crate::mesbg::plan::{Plan, fight_rules, support};
use crate::mesbg::resolve::{
    ChariotState, Event, FightBoard, Observer, PerChariot, Scratch, Survivor, fight_by_dice, pooled_fight,
    reconstruct_fight,
};
use crate::mesbg::rules::FightOutcome;
use crate::mesbg::rules::fight::{self as mesbg_fight, ChariotFighter, Combatant, FoeSupport};

/// Fight `i` of final board `last`, fought by chariot `c` (in `state`) against
/// `survivors` with the fixed help `support`, as an exact distribution to draw from:
/// from this thread's memo, else the plan's store, else worked out (once, whatever the
/// thread) and left there. `None` when the fight is fought die by die: the plan says
/// so, the chariot's Hero spent Might or Fate before it (a table holds all of them), or
/// the enemies' states do not fit the key.
#[allow(clippy::too_many_arguments)]
fn drawn_fight<'a>(
    plan: &TurnPlan,
    last: usize,
    i: usize,
    c: usize,
    bearer_slain: bool,
    support: &FoeSupport,
    cannot_back_away: &[usize],
    (survivors, state): (&[Survivor], ChariotState),
    local: &'a mut LocalFights,
) -> Option<&'a DrawnFight> {
    let cp = &plan.plans[c];
    if !plan.fights_from_tables
        || state.wounds_left == 0
        || cp.chariot.hero.is_some_and(|h| state.might_left != h.might || state.fate_left != h.fate)
        || survivors.len() > 4
    {
        return None;
    }
    let packed = survivors_word(survivors)?;
    let key = FightKey {
        last: last as u32,
        fight: i as u32,
        bearer_slain,
        wounds_left: state.wounds_left,
        survivors: packed,
    };
    let local_key = (packed, u16::from(state.wounds_left) << 1 | u16::from(bearer_slain));
    local
        .get_or_insert_with((last, i), local_key, || {
            plan.drawn.get(&key).unwrap_or_else(|| {
                let worked_out = work_out_fight(cp, support, cannot_back_away, survivors, state);
                plan.drawn.leave(key, worked_out.clone());
                worked_out
            })
        })
        .as_ref()
}

/// The exact distribution of a turn's fight of one chariot (see [`drawn_fight`]).
fn work_out_fight(
    cp: &Plan,
    support: &FoeSupport,
    cannot_back_away: &[usize],
    survivors: &[Survivor],
    state: ChariotState,
) -> Option<DrawnFight> {
    let enemies: Vec<Combatant> = survivors
        .iter()
        .filter(|sv| sv.left > 0 || sv.mount_left > 0)
        .map(|sv| Combatant {
            cannot_back_away: cannot_back_away.contains(&sv.model),
            ..cp.models[sv.model].combatant_standing(
                sv.left,
                sv.mount_left,
                sv.prone,
                sv.strikes,
                sv.fate_spent,
                sv.braced,
            )
        })
        .collect();
    if enemies.is_empty() {
        return None;
    }
    let chariot = ChariotFighter { wounds_left: state.wounds_left, ..cp.chariot.fighter() };
    let rules = fight_rules(&cp.rules);
    let outcomes =
        mesbg_fight::fight_distribution_by_target(&chariot, &enemies, rules, cp.chariot.hero_in_fight(), support);
    Some(DrawnFight::new(outcomes))
}

/// The models a won fight's Strikes slew, from the bits of its targets (the survivors
/// with a rider or a mount standing, in order), pushed onto `slain`.
fn push_slain(survivors: &[Survivor], slew: u32, slain: &mut Vec<usize>) {
    let standing = survivors.iter().filter(|sv| sv.left > 0 || sv.mount_left > 0);
    for (j, sv) in standing.enumerate() {
        if slew & (1 << j) != 0 {
            slain.push(sv.model);
        }
    }
}

/// The targets the last die-by-die fight in `inner` slew, as bits (see [`push_slain`]).
fn slain_targets(inner: &Scratch, won: bool) -> u32 {
    if !won {
        return 0;
    }
    (0..inner.targets.len())
        .filter(|&j| inner.target_is_rider[j] && inner.targets[j].wounds_left == 0)
        .fold(0, |m, j| m | 1 << j)
}

/// Sets up fight `i` of final board `last`: the survivors in it, as the moves left them, and
/// its chariots marked as having fought.
pub fn begin_fight<O: Observer>(plan: &TurnPlan, last: usize, i: usize, s: &mut TurnTrial, obs: &mut O) {
    let fight = &plan.finals[last].fights[i];
    if O::ENABLED {
        let chariots = fight.chariots.iter().map(|c| c + 1).collect();
        let models = fight.models.clone();
        obs.note(|| Event::TurnFight { chariots, models });
    }
    s.inner.survivors.clear();
    let wall = &plan.finals[last].wall;
    for &m in &fight.models {
        let opening_fate = plan.flat_impact.opening(m).fate_left;
        let mut survivor = s.state(plan, m).survivor(m, opening_fate);
        // Braced as the wall stands when the fight begins: neighbours slain or knocked
        // Prone in an earlier fight no longer count.
        survivor.braced = wall.get(m).is_some_and(|neighbours| {
            neighbours.iter().filter(|n| !s.fight_slain.contains(n) && !s.fight_prone.contains(n)).count()
                >= BRACING_NEIGHBOURS
        });
        s.inner.survivors.push(survivor);
    }
    for &c in &fight.chariots {
        s.chariots[c].fought = true;
    }
}

/// Fight `i` of final board `last` drawn in one go (with the help it has), when it is: one
/// chariot, its help fixed by the plan, its table at hand ([`drawn_fight`]). Reads the
/// survivors [`begin_fight`] set up.
pub fn fight_table<'p, 's>(
    plan: &'p TurnPlan,
    last: usize,
    i: usize,
    s: &'s mut TurnTrial,
) -> Option<(&'s DrawnFight, &'p FoeSupport)> {
    let board = &plan.finals[last];
    let fight = &board.fights[i];
    let [c] = fight.chariots[..] else {
        return None;
    };
    let fixed = board.fixed_support.get(i).and_then(Option::as_ref)?;
    let help = fixed.given(&s.fight_slain, &s.fight_prone);
    let bearer_slain = !std::ptr::eq(help, &fixed.help);
    let at = (s.inner.survivors.as_slice(), s.chariots[c].state);
    drawn_fight(plan, last, i, c, bearer_slain, help, &fight.cannot_back_away, at, &mut s.drawn).map(|d| (d, help))
}

/// What fight `i` of final board `last`, of one chariot `c`, drawn in one go came to,
/// applied: the chariot's Wounds, Might and Fate, the fight's tallies and the models it
/// slew or knocked down.
#[allow(clippy::too_many_arguments)]
pub fn apply_drawn_fight<O: Observer>(
    plan: &TurnPlan,
    (last, i): (usize, usize),
    c: usize,
    (result, slew): (FightOutcome, u32),
    help: &FoeSupport,
    s: &mut TurnTrial,
    obs: &mut O,
) {
    let st = &mut s.chariots[c].state;
    st.wounds_left -= result.wounds_lost;
    st.might_left -= result.might_spent;
    st.fate_left -= result.fate_spent;
    s.inner.supporters_used.clear();
    s.inner.supporters_used.extend(help.supporters.iter().map(|sp| sp.model));
    end_fight_of_one(plan, (last, i), c, (result, slew), s, obs);
}

/// The tallies of fight `i` of final board `last`, of one chariot `c`, however it was
/// fought.
fn end_fight_of_one<O: Observer>(
    plan: &TurnPlan,
    (last, i): (usize, usize),
    c: usize,
    (result, slew): (FightOutcome, u32),
    s: &mut TurnTrial,
    obs: &mut O,
) {
    obs.note(|| Event::Fight { chariot_won: result.won, kills: result.kills, wounds_lost: result.wounds_lost });
    s.chariots[c].won = result.won;
    s.chariots[c].fight_kills += u16::from(result.kills);
    s.foe_heroes_slain += u16::from(result.foe_heroes_slain);
    push_slain(&s.inner.survivors, slew, &mut s.fight_slain);
    s.used.extend_from_slice(&s.inner.supporters_used);
    knock_down_bearers(plan, (last, i), result.won, s);
}

/// A chariot that wins knocks every Infantry or Cavalry model of the fight that is not a
/// Monster Prone: a banner bearer among them, not slain, is down for the fights after this
/// one (a Prone bearer gives no banner), and so is a model of a shield wall (a Prone model
/// braces nobody). Only those are kept: nothing else of a Prone model matters to a later
/// fight.
fn knock_down_bearers(plan: &TurnPlan, (last, i): (usize, usize), won: bool, s: &mut TurnTrial) {
    if !won {
        return;
    }
    let board = &plan.finals[last];
    for &m in &board.fights[i].models {
        let model = &plan.plans[0].models[m];
        let matters = board.support.bearers.contains(&m) || model.braced.is_some();
        if matters && !model.monster && model.chariot.is_none() && !s.fight_slain.contains(&m) {
            s.fight_prone.push(m);
        }
    }
}

/// Fight `i` of final board `last`: drawn in one go where it can be, else die by die.
pub fn fight<O: Observer>(
    plan: &TurnPlan,
    last: usize,
    i: usize,
    fight_dice: &mut Dice,
    (key, trace_dice): (TrialKey, &mut Option<Dice>),
    s: &mut TurnTrial,
    obs: &mut O,
) {
    begin_fight(plan, last, i, s, obs);
    let board = &plan.finals[last];
    let fight = &board.fights[i];
    if let [c] = fight.chariots[..] {
        let drawn = fight_table(plan, last, i, s).map(|(d, help)| (d.draw(fight_dice), help));
        if let Some((drawn, help)) = drawn {
            if O::ENABLED {
                let fb = fight_board(plan, last, i, &s.used, (&s.fight_slain, &s.fight_prone));
                let trace_dice = trace_dice.get_or_insert_with(|| key.dice(Phase::TraceFight));
                let matches = |inner: &Scratch, r: FightOutcome| (r, slain_targets(inner, r.won)) == drawn;
                let before = s.chariots[c].state;
                reconstruct_fight(&plan.plans[c], &fb, &mut s.inner, trace_dice, before, matches, obs);
            }
            apply_drawn_fight(plan, (last, i), c, drawn, help, s, obs);
            return;
        }
        let fb = fight_board(plan, last, i, &s.used, (&s.fight_slain, &s.fight_prone));
        let result = fight_by_dice(&plan.plans[c], &fb, &mut s.inner, &mut s.chariots[c].state, fight_dice, obs);
        let slew = slain_targets(&s.inner, result.won);
        end_fight_of_one(plan, (last, i), c, (result, slew), s, obs);
        return;
    }
    let fb = fight_board(plan, last, i, &s.used, (&s.fight_slain, &s.fight_prone));
    let plans: PerChariot<&Plan> = fight.chariots.iter().map(|&c| &plan.plans[c]).collect();
    let numbers: PerChariot<usize> = fight.chariots.iter().map(|c| c + 1).collect();
    let mut states: PerChariot<ChariotState> = fight.chariots.iter().map(|&c| s.chariots[c].state).collect();
    let result = pooled_fight(&plans, &fb, &mut s.inner, &mut states, &numbers, fight_dice, obs);
    for (k, &c) in fight.chariots.iter().enumerate() {
        s.chariots[c].state = states[k];
        s.chariots[c].won = result.won;
        s.chariots[c].fight_kills += u16::from(result.slew[k]);
    }
    if result.slain {
        s.fight_slain.push(fight.models[0]);
        if plan.plans[0].models[fight.models[0]].hero.is_some() {
            s.foe_heroes_slain += 1;
        }
    }
    obs.note(|| Event::Fight { chariot_won: result.won, kills: u8::from(result.slain), wounds_lost: 0 });
    s.used.extend_from_slice(&s.inner.supporters_used);
    knock_down_bearers(plan, (last, i), result.won, s);
}

/// Where fight `i` of final board `last` is fought, given the supporters used and the
/// models slain and knocked Prone in the fights before it.
fn fight_board<'a>(
    plan: &'a TurnPlan,
    last: usize,
    i: usize,
    used: &'a [usize],
    (slain, prone): (&'a [usize], &'a [usize]),
) -> FightBoard<'a> {
    let board = &plan.finals[last];
    let fight = &board.fights[i];
    let fixed = board.fixed_support.get(i).and_then(Option::as_ref);
    FightBoard {
        support: &board.support,
        group: &fight.models,
        g: 1,
        earlier: support::EarlierFights { supporters: used, slain, prone },
        cannot_back_away: Some(&fight.cannot_back_away),
        foe_heroes: fight.models.iter().any(|&m| plan.plans[0].models[m].hero.is_some()),
        fixed: fixed.map(|f| f.given(slain, prone)),
        strike_order: plan.scenario.turn_rules.strike_order,
    }
}
