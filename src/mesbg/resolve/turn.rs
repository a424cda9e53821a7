//! One turn of several chariots, played: the Move phase chariot by chariot down the
//! compiled tree of boards ([`crate::mesbg::plan::TurnPlan`]), each model's Impact Hits
//! rolled from the tables of the state earlier chariots left it in, then the Fight phase,
//! fight by fight, then what broke.
//!
//! Trial `t` draws the Move phase from its `Charge` stream and the Fight phase from its
//! `Fight` stream, so any trial replays alone and a run's tally never depends on the
//! thread count.

use super::fight::{FightBoard, fight_by_dice, pooled_fight};
use super::*;
use crate::dice::{CumulativeTable, TrialKey};
use crate::mesbg::plan::{
    ContactEffect, DrawnDrive, DrawnFight, DriveOutcome, FightKey, MoveKey, TurnPlan, corridor_through,
};
use crate::mesbg::rules::fight::{ChariotFighter, Combatant};

/// What Impact Hits have done so far to a model touched in this turn.
#[derive(Clone, Copy, Debug)]
struct Touched {
    model: usize,
    left: u8,
    mount_left: u8,
    fate_left: u8,
    prone: bool,
    strikes: bool,
}

/// The models slain in a board's fights, as a memo key: a bit per model while they are
/// few (no allocation per trial), else the sorted list.
#[derive(Clone, Debug, PartialEq, Eq)]
enum SlainKey {
    Bits(u128),
    List(Vec<usize>),
}

impl SlainKey {
    fn of(sorted: &[usize]) -> Self {
        if sorted.iter().all(|&m| m < 128) {
            SlainKey::Bits(sorted.iter().fold(0u128, |b, &m| b | 1 << m))
        } else {
            SlainKey::List(sorted.to_vec())
        }
    }
}

/// Buffers a turn reuses from trial to trial.
#[derive(Default)]
pub struct TurnScratch {
    /// Per model: the trial (its `generation`) that last touched it, and the state that
    /// left it in. An entry of an earlier trial means untouched: the model is as the turn
    /// began ([`crate::mesbg::plan::FlatImpact::opening`]), whatever plan set it.
    now: Vec<(u32, Touched)>,
    /// This trial's number among those the scratch has played (never 0).
    generation: u32,
    states: Vec<ChariotState>,
    values: Vec<u16>,
    used: Vec<usize>,
    fight_slain: Vec<usize>,
    impact_kills: Vec<u16>,
    fight_kills: Vec<u16>,
    fought: Vec<bool>,
    won: Vec<bool>,
    /// The board the last trial's Move phase ended on.
    pub(super) last: usize,
    /// The drives the last trial walked, in the order of the turn.
    walked: Vec<usize>,
    /// Whether a line is breached, by final board and the models slain in its fights
    /// (sorted): the same few recur in every trial, and the corridor is a sort and a sweep.
    breached: BoardMemo<SlainKey, bool, MAX_CORRIDORS>,
    blocked: Vec<bool>,
    /// Fights drawn in one go (see [`drawn_fight`]).
    drawn: LocalFights,
    /// Drives drawn whole (see [`drawn_drive`]).
    pub(super) drives: DriveMemo,
    /// Enemy Heroes slain so far this trial.
    pub(super) foe_heroes_slain: u16,
    /// The turn compiled into a chain of states as trials meet them (see
    /// [`super::turn_chain`]).
    pub(super) chain: super::turn_chain::Chain,
    inner: Scratch,
}

/// A thread's drives drawn whole: per node, the states its models were met in (packed by
/// [`pack_impact_state`], in the order of its groups) with the drive's distribution there
/// (`None`: rolled contact by contact).
#[derive(Default)]
pub(super) struct DriveMemo {
    nodes: Vec<Vec<DriveMet>>,
    held: usize,
    /// The key being looked up.
    key: Vec<u32>,
}

/// A drive met: its models' states (packed) and its distribution there.
type DriveMet = (Box<[u32]>, Option<DrawnDrive>);

/// The most drives (node and states) a thread keeps at hand.
const MAX_DRAWN_DRIVES: usize = 50_000;

/// A model's state as far as Impact Hits tables tell it apart, in one word.
#[inline]
fn pack_impact_state(t: &Touched) -> u32 {
    u32::from(t.left) | u32::from(t.mount_left) << 8 | u32::from(t.fate_left) << 16
}

/// Drive `node` as an exact distribution, for the states its models are in now: from this
/// thread's memo, else worked out by the plan. `None` when it is rolled contact by contact
/// ([`TurnPlan::drive_distribution`]), or the tables are off.
pub(super) fn drawn_drive<'m>(
    plan: &TurnPlan,
    node: usize,
    s: &TurnScratch,
    memo: &'m mut DriveMemo,
) -> Option<&'m DrawnDrive> {
    let mv = &plan.nodes[node];
    if !drives_drawn_whole(plan) || mv.groups.is_empty() || mv.difficult_from.is_some() || mv.obstacle.is_some() {
        return None;
    }
    memo.key.clear();
    for group in &mv.groups {
        for &m in &group.models {
            memo.key.push(pack_impact_state(&s.state(plan, m)));
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
            let states: Vec<(u8, u8, u8)> =
                memo.key.iter().map(|&w| (w as u8, (w >> 8) as u8, (w >> 16) as u8)).collect();
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
pub(super) fn drives_drawn_whole(plan: &TurnPlan) -> bool {
    plan.drives_from_tables && plan.order.len() > 1
}

/// A model's state after a contact with `effect`.
#[inline]
fn touched_after(mut t: Touched, effect: ContactEffect) -> Touched {
    t.left = effect.left;
    t.mount_left = effect.mount_left;
    t.fate_left -= effect.fate_spent.min(t.fate_left);
    t.prone |= effect.prone;
    t.strikes &= !effect.strikes_lost;
    t
}

/// For a replay: one outcome of chariot `c`'s Impact Hits on model `m` (in state `before`)
/// that has `effect`, drawn from the outcomes that do in proportion to their chances (the
/// hits and wounds a drive drawn whole did not need to know).
fn contact_given(
    plan: &TurnPlan,
    c: usize,
    m: usize,
    before: &Touched,
    effect: ContactEffect,
    trace: &mut Dice,
) -> ContactOutcome {
    let table = plan.impact[c][m].table(before.left, before.mount_left, before.fate_left);
    let matching: Vec<(ContactOutcome, f64)> = table
        .outcomes
        .iter()
        .zip(&table.probabilities)
        .filter(|(o, _)| ContactEffect::of(o) == effect)
        .map(|(o, &p)| (*o, p))
        .collect();
    let total: f64 = matching.iter().map(|o| o.1).sum();
    let pmf: Vec<f64> = matching.iter().map(|o| o.1 / total).collect();
    match matching.get(CumulativeTable::new(&pmf).sample(trace)) {
        Some(o) => o.0,
        None => table.outcomes[0],
    }
}

/// The most fights a thread keeps at hand (past this, its memo starts again).
const MAX_DRAWN_FIGHTS: usize = 20_000;

/// The most corridors (final board and models slain in its fights) a thread keeps at hand.
const MAX_CORRIDORS: usize = 100_000;

/// A thread's memo of what a final board's trials keep asking, kept by board and then by
/// a slot within it (a board's fight, or how many its fights slew): each slot holds the
/// few keys its trials met, searched in turn. A trial finds its answer among two or three
/// keys of its own board instead of probing a table of thousands (that probe, a cache miss
/// more often than not, was a fifth of a turn's time). Bounded: past `MAX` keys in all, it
/// starts again.
struct BoardMemo<K, V, const MAX: usize> {
    /// `slots[board][slot]`: the keys met there, with their answers.
    slots: Vec<Vec<Vec<(K, V)>>>,
    /// Keys held in all.
    held: usize,
}

impl<K: PartialEq, V, const MAX: usize> BoardMemo<K, V, MAX> {
    /// The answer to `key` at `(board, slot)`, worked out by `work_out` the first time.
    #[inline]
    fn get_or_insert_with(&mut self, (board, slot): (usize, usize), key: K, work_out: impl FnOnce() -> V) -> &V {
        if self.slots.len() <= board {
            self.slots.resize_with(board + 1, Vec::new);
        }
        if self.slots[board].len() <= slot {
            self.slots[board].resize_with(slot + 1, Vec::new);
        }
        let at = self.slots[board][slot].iter().position(|(k, _)| *k == key);
        let at = match at {
            Some(at) => at,
            None => {
                if self.held >= MAX {
                    self.slots.iter_mut().flatten().for_each(Vec::clear);
                    self.held = 0;
                }
                self.held += 1;
                let keys = &mut self.slots[board][slot];
                keys.push((key, work_out()));
                keys.len() - 1
            }
        };
        &self.slots[board][slot][at].1
    }
}

impl<K, V, const MAX: usize> Default for BoardMemo<K, V, MAX> {
    fn default() -> Self {
        Self { slots: Vec::new(), held: 0 }
    }
}

/// The fights a thread has drawn in one go, by what decides them (taken from the plan's
/// [`crate::mesbg::plan::DrawnFights`], shared by the threads, the first time a thread
/// meets them): `None` for a fight fought die by die. Kept by final board and fight, so
/// within a slot a [`FightKey`] is told apart by the rest of it ([`LocalFightKey`]).
type LocalFights = BoardMemo<LocalFightKey, Option<DrawnFight>, MAX_DRAWN_FIGHTS>;

/// What tells apart the [`FightKey`]s of one slot of [`LocalFights`] (the same final
/// board and fight), in two words compared at once: the enemies' packed states, and the
/// chariot's Wounds with whether the bearer was slain earlier (`wounds << 1 | slain`).
type LocalFightKey = (u64, u16);

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
    let mut packed = 0u64;
    for (k, sv) in survivors.iter().enumerate() {
        if sv.left > 15 || sv.mount_left > 15 || sv.fate_spent > 7 {
            return None;
        }
        let bits = u64::from(sv.left)
            | u64::from(sv.mount_left) << 4
            | u64::from(sv.prone) << 8
            | u64::from(sv.strikes) << 9
            | u64::from(sv.fate_spent) << 10;
        packed |= bits << (16 * k);
    }
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
    cp: &crate::mesbg::plan::Plan,
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
            ..cp.models[sv.model].combatant_standing(sv.left, sv.mount_left, sv.prone, sv.strikes, sv.fate_spent)
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

impl TurnScratch {
    /// The drives (node indices) the last trial walked, in the order of the turn.
    pub fn walked(&self) -> &[usize] {
        &self.walked
    }

    /// The models the last turn's fights slew, in the order they fell.
    pub(super) fn fight_slain(&self) -> &[usize] {
        &self.fight_slain
    }

    /// The metric values the last turn (or [`TurnScratch::fill`]) came to.
    pub(super) fn values(&self) -> &[u16] {
        &self.values
    }

    /// Sets what each chariot came to, as a played turn would leave it (the exact engine
    /// writes its branches' metrics through the same [`write_values`]): Wounds left, kills,
    /// fights, drives blocked, and the models slain in fights.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fill(
        &mut self,
        at: usize,
        wounds: &[u8],
        impact_kills: &[u16],
        fight_kills: &[u16],
        fought: &[bool],
        won: &[bool],
        blocked: &[bool],
        fight_slain: &[usize],
    ) {
        self.last = at;
        self.states.clear();
        self.states.extend(wounds.iter().map(|&w| ChariotState { wounds_left: w, might_left: 0, fate_left: 0 }));
        for (to, from) in [(&mut self.impact_kills, impact_kills), (&mut self.fight_kills, fight_kills)] {
            to.clear();
            to.extend_from_slice(from);
        }
        for (to, from) in [(&mut self.fought, fought), (&mut self.won, won), (&mut self.blocked, blocked)] {
            to.clear();
            to.extend_from_slice(from);
        }
        self.fight_slain.clear();
        self.fight_slain.extend_from_slice(fight_slain);
    }

    /// The state model `m` is in.
    #[inline]
    fn state(&self, plan: &TurnPlan, m: usize) -> Touched {
        match self.now[m] {
            (touched_in, t) if touched_in == self.generation => t,
            _ => {
                let (left, mount_left, fate_left) = plan.flat_impact.opening(m);
                Touched { model: m, left, mount_left, fate_left, prone: false, strikes: true }
            }
        }
    }

    /// Sets the state of model `t.model` for the rest of this trial.
    #[inline]
    fn set(&mut self, t: Touched) {
        self.now[t.model] = (self.generation, t);
    }

    /// Writes everything the rest of a trial can read of it (after the stage words
    /// `stage`) into `out`, as words: the enemy Heroes slain, each chariot's state and
    /// tallies, each model touched that a later drive or fight can meet and its state, the
    /// models slain in fights (sorted). Two trials with the same words play on alike and
    /// come to the same values.
    pub(super) fn snapshot(&self, plan: &TurnPlan, stage: [u32; 3], out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(&stage);
        out.push(u32::from(self.foe_heroes_slain));
        for c in 0..plan.plans.len() {
            let st = self.states[c];
            out.push(
                u32::from(st.wounds_left)
                    | u32::from(st.might_left) << 8
                    | u32::from(st.fate_left) << 16
                    | u32::from(self.fought[c]) << 24
                    | u32::from(self.won[c]) << 25
                    | u32::from(self.blocked[c]) << 26,
            );
            out.push(u32::from(self.impact_kills[c]) | u32::from(self.fight_kills[c]) << 16);
        }
        // After the Move phase only the models of the fights still to come can matter.
        let still_to_fight = |m: usize| match stage {
            [super::turn_chain::DRIVE, ..] => true,
            [super::turn_chain::FIGHT, last, i] => {
                plan.finals[last as usize].fights[i as usize..].iter().any(|f| f.models.contains(&m))
            }
            _ => false,
        };
        for (m, &(touched_in, t)) in self.now.iter().enumerate().take(plan.models) {
            if touched_in == self.generation && still_to_fight(m) {
                out.push(m as u32);
                out.push(pack_impact_state(&t) | u32::from(t.prone) << 24 | u32::from(t.strikes) << 25);
            }
        }
        out.push(u32::MAX);
        // As a set: what fights and values read of them is whether a model is among them.
        let first = out.len();
        out.extend(self.fight_slain.iter().map(|&m| m as u32));
        out[first..].sort_unstable();
    }

    /// Sets the scratch to the trial [`TurnScratch::snapshot`] wrote into `words`; returns
    /// its stage words.
    pub(super) fn restore(&mut self, plan: &TurnPlan, words: &[u32]) -> [u32; 3] {
        start_turn(plan, self);
        let stage = [words[0], words[1], words[2]];
        self.foe_heroes_slain = words[3] as u16;
        let mut at = 4;
        for c in 0..plan.plans.len() {
            let (a, b) = (words[at], words[at + 1]);
            at += 2;
            self.states[c] =
                ChariotState { wounds_left: a as u8, might_left: (a >> 8) as u8, fate_left: (a >> 16) as u8 };
            self.fought[c] = a >> 24 & 1 == 1;
            self.won[c] = a >> 25 & 1 == 1;
            self.blocked[c] = a >> 26 & 1 == 1;
            self.impact_kills[c] = b as u16;
            self.fight_kills[c] = (b >> 16) as u16;
        }
        while words[at] != u32::MAX {
            let (m, t) = (words[at] as usize, words[at + 1]);
            at += 2;
            self.set(Touched {
                model: m,
                left: t as u8,
                mount_left: (t >> 8) as u8,
                fate_left: (t >> 16) as u8,
                prone: t >> 24 & 1 == 1,
                strikes: t >> 25 & 1 == 1,
            });
        }
        self.fight_slain.extend(words[at + 1..].iter().map(|&m| m as usize));
        stage
    }

    /// Starts a trial: every model untouched.
    fn begin(&mut self, plan: &TurnPlan) {
        if self.generation == u32::MAX {
            // Numbers would come round again: forget every entry instead.
            self.now.clear();
            self.generation = 0;
        }
        self.generation += 1;
        if self.now.len() < plan.models {
            let untouched = Touched { model: 0, left: 0, mount_left: 0, fate_left: 0, prone: false, strikes: true };
            self.now.resize(plan.models, (0, untouched));
        }
    }
}

/// Plays trial `trial` of a turn and writes its metric values, in the plan's order, into
/// the scratch's `values` (returned).
pub fn play_turn<'s, O: Observer>(
    plan: &TurnPlan,
    streams: Streams,
    trial: u64,
    s: &'s mut TurnScratch,
    obs: &mut O,
) -> &'s [u16] {
    let key = streams.trial_key(trial);
    let mut dice = key.dice(Phase::Charge);
    let mut trace: Option<Dice> = None;
    start_turn(plan, s);
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

/// Starts a trial: every model untouched, every chariot fresh, nothing slain.
pub(super) fn start_turn(plan: &TurnPlan, s: &mut TurnScratch) {
    let n = plan.plans.len();
    s.begin(plan);
    s.states.clear();
    s.states.extend(plan.plans.iter().map(ChariotState::fresh));
    for v in [&mut s.impact_kills, &mut s.fight_kills] {
        v.clear();
        v.resize(n, 0);
    }
    for v in [&mut s.fought, &mut s.won, &mut s.blocked] {
        v.clear();
        v.resize(n, false);
    }
    s.foe_heroes_slain = 0;
    s.used.clear();
    s.fight_slain.clear();
    s.last = 0;
}

/// Sets up fight `i` of final board `last`: the survivors in it, as the moves left them, and
/// its chariots marked as having fought.
pub(super) fn begin_fight<O: Observer>(plan: &TurnPlan, last: usize, i: usize, s: &mut TurnScratch, obs: &mut O) {
    let fight = &plan.finals[last].fights[i];
    if O::ENABLED {
        let chariots = fight.chariots.iter().map(|c| c + 1).collect();
        let models = fight.models.clone();
        obs.note(|| Event::TurnFight { chariots, models });
    }
    s.inner.survivors.clear();
    for &m in &fight.models {
        let t = s.state(plan, m);
        let full_fate = plan.flat_impact.opening(m).2;
        s.inner.survivors.push(Survivor {
            model: m,
            left: t.left,
            mount_left: t.mount_left,
            prone: t.prone,
            strikes: t.strikes,
            fate_spent: full_fate - t.fate_left,
        });
    }
    for &c in &fight.chariots {
        s.fought[c] = true;
    }
}

/// Fight `i` of final board `last` drawn in one go (with the help it has), when it is: one
/// chariot, its help fixed by the plan, its table at hand ([`drawn_fight`]). Reads the
/// survivors [`begin_fight`] set up.
pub(super) fn fight_table<'p, 's>(
    plan: &'p TurnPlan,
    last: usize,
    i: usize,
    s: &'s mut TurnScratch,
) -> Option<(&'s DrawnFight, &'p FoeSupport)> {
    let board = &plan.finals[last];
    let fight = &board.fights[i];
    let [c] = fight.chariots[..] else {
        return None;
    };
    let fixed = board.fixed_support.get(i).and_then(Option::as_ref)?;
    let help = fixed.given(&s.fight_slain);
    let bearer_slain = !std::ptr::eq(help, &fixed.help);
    let at = (s.inner.survivors.as_slice(), s.states[c]);
    drawn_fight(plan, last, i, c, bearer_slain, help, &fight.cannot_back_away, at, &mut s.drawn).map(|d| (d, help))
}

/// What a fight of one chariot `c` drawn in one go came to, applied: the chariot's
/// Wounds, Might and Fate, the fight's tallies and the models it slew.
pub(super) fn apply_drawn_fight<O: Observer>(
    c: usize,
    (result, slew): (FightOutcome, u32),
    help: &FoeSupport,
    s: &mut TurnScratch,
    obs: &mut O,
) {
    let st = &mut s.states[c];
    st.wounds_left -= result.wounds_lost;
    st.might_left -= result.might_spent;
    st.fate_left -= result.fate_spent;
    s.inner.supporters_used.clear();
    s.inner.supporters_used.extend(help.supporters.iter().map(|sp| sp.model));
    end_fight_of_one(c, (result, slew), s, obs);
}

/// The tallies of a fight of one chariot `c`, however it was fought.
fn end_fight_of_one<O: Observer>(c: usize, (result, slew): (FightOutcome, u32), s: &mut TurnScratch, obs: &mut O) {
    obs.note(|| Event::Fight { chariot_won: result.won, kills: result.kills, wounds_lost: result.wounds_lost });
    s.won[c] = result.won;
    s.fight_kills[c] += u16::from(result.kills);
    s.foe_heroes_slain += u16::from(result.foe_heroes_slain);
    push_slain(&s.inner.survivors, slew, &mut s.fight_slain);
    s.used.extend_from_slice(&s.inner.supporters_used);
}

/// Fight `i` of final board `last`: drawn in one go where it can be, else die by die.
fn fight<O: Observer>(
    plan: &TurnPlan,
    last: usize,
    i: usize,
    fight_dice: &mut Dice,
    (key, trace_dice): (TrialKey, &mut Option<Dice>),
    s: &mut TurnScratch,
    obs: &mut O,
) {
    begin_fight(plan, last, i, s, obs);
    let board = &plan.finals[last];
    let fight = &board.fights[i];
    if let [c] = fight.chariots[..] {
        let drawn = fight_table(plan, last, i, s).map(|(d, help)| (d.draw(fight_dice), help));
        if let Some((drawn, help)) = drawn {
            if O::ENABLED {
                let fb = fight_board(plan, last, i, &s.used, &s.fight_slain);
                let trace_dice = trace_dice.get_or_insert_with(|| key.dice(Phase::TraceFight));
                let matches = |inner: &Scratch, r: FightOutcome| (r, slain_targets(inner, r.won)) == drawn;
                let before = s.states[c];
                reconstruct_fight(&plan.plans[c], &fb, &mut s.inner, trace_dice, before, matches, obs);
            }
            apply_drawn_fight(c, drawn, help, s, obs);
            return;
        }
        let fb = fight_board(plan, last, i, &s.used, &s.fight_slain);
        let result = fight_by_dice(&plan.plans[c], &fb, &mut s.inner, &mut s.states[c], fight_dice, obs);
        let slew = slain_targets(&s.inner, result.won);
        end_fight_of_one(c, (result, slew), s, obs);
        return;
    }
    let fb = fight_board(plan, last, i, &s.used, &s.fight_slain);
    let plans: PerChariot<&crate::mesbg::plan::Plan> = fight.chariots.iter().map(|&c| &plan.plans[c]).collect();
    let numbers: PerChariot<usize> = fight.chariots.iter().map(|c| c + 1).collect();
    let mut states: PerChariot<ChariotState> = fight.chariots.iter().map(|&c| s.states[c]).collect();
    let result = pooled_fight(&plans, &fb, &mut s.inner, &mut states, &numbers, fight_dice, obs);
    for (k, &c) in fight.chariots.iter().enumerate() {
        s.states[c] = states[k];
        s.won[c] = result.won;
        s.fight_kills[c] += u16::from(result.slew[k]);
    }
    if result.slain {
        s.fight_slain.push(fight.models[0]);
        if plan.plans[0].models[fight.models[0]].hero.is_some() {
            s.foe_heroes_slain += 1;
        }
    }
    obs.note(|| Event::Fight { chariot_won: result.won, kills: u8::from(result.slain), wounds_lost: 0 });
    s.used.extend_from_slice(&s.inner.supporters_used);
}

/// Where fight `i` of final board `last` is fought, given the supporters used and the
/// models slain in the fights before it.
fn fight_board<'a>(plan: &'a TurnPlan, last: usize, i: usize, used: &'a [usize], slain: &'a [usize]) -> FightBoard<'a> {
    let board = &plan.finals[last];
    let fight = &board.fights[i];
    let fixed = board.fixed_support.get(i).and_then(Option::as_ref);
    FightBoard {
        support: &board.support,
        group: &fight.models,
        g: 1,
        earlier: crate::mesbg::plan::support::EarlierFights { supporters: used, slain },
        cannot_back_away: Some(&fight.cannot_back_away),
        foe_heroes: fight.models.iter().any(|&m| plan.plans[0].models[m].hero.is_some()),
        fixed: fixed.map(|f| f.given(slain)),
    }
}

/// The end of the turn: a chariot slain throws its Hero (a Strength 3 hit; his Fate may
/// prevent it); then the metric values are written.
pub(super) fn end_turn<O: Observer>(
    plan: &TurnPlan,
    last: usize,
    fight_dice: &mut Dice,
    s: &mut TurnScratch,
    obs: &mut O,
) {
    for c in 0..plan.plans.len() {
        let cp = &plan.plans[c];
        if let Some(hero) = cp.chariot.hero
            && s.states[c].wounds_left == 0
        {
            let mut hero_lost = 0;
            if hero.thrown_hit.roll(fight_dice) {
                let on = WoundOn::Hero { wounds_left: hero.wounds };
                hero_lost = u8::from(!s.states[c].prevent(cp, on, fight_dice, obs));
            }
            obs.note(|| Event::Thrown { wounds: hero_lost, slain: hero_lost >= hero.wounds });
        }
    }
    let board = &plan.finals[last];
    write_values(plan, board, board.fights.len() as u16, s.foe_heroes_slain, s);
}

/// Whether the end of the turn rolls dice (a slain chariot throws its Hero).
pub(super) fn end_rolls(plan: &TurnPlan, s: &TurnScratch) -> bool {
    plan.plans.iter().zip(&s.states).any(|(cp, st)| cp.chariot.hero.is_some() && st.wounds_left == 0)
}

/// One chariot's Chariot Charge down drive `node`: drawn whole where it can be
/// ([`drawn_drive`]), else the difficult-terrain test on entering, each contact's Impact
/// Hits from the state the model is in, stopping at a survivor, the obstacle at the end.
/// Returns what it came to.
pub(super) fn charge<O: Observer>(
    plan: &TurnPlan,
    node: usize,
    dice: &mut Dice,
    trace: (TrialKey, &mut Option<Dice>),
    s: &mut TurnScratch,
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
pub(super) fn apply_drive<O: Observer>(
    plan: &TurnPlan,
    node: usize,
    outcome: &DriveOutcome,
    (key, trace): (TrialKey, &mut Option<Dice>),
    s: &mut TurnScratch,
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
        for _ in &group.models {
            let Some(&(m, effect)) = effects.next() else {
                break;
            };
            let before = s.state(plan, m);
            s.set(touched_after(before, effect));
            if effect.casualty {
                s.impact_kills[c] += 1;
                if plan.flat_impact.is_hero(m) {
                    s.foe_heroes_slain += 1;
                }
            }
            if O::ENABLED {
                let trace = trace.get_or_insert_with(|| key.dice(Phase::Trace));
                let outcome = contact_given(plan, c, m, &before, effect, trace);
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
        s.blocked[c] = true;
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
    s: &mut TurnScratch,
    obs: &mut O,
) -> MoveKey {
    let mv = &plan.nodes[node];
    let c = mv.chariot;
    let cp = &plan.plans[c];
    let mut out = Outcome::default();
    let mut state = s.states[c];
    let terrain = |g: usize| mv.difficult_from.is_some() && g == mv.terrain_group;
    for (g, group) in mv.groups.iter().enumerate() {
        if terrain(g) {
            state.terrain_test(cp, dice, &mut out, obs);
            if state.wounds_left == 0 {
                obs.note(|| Event::SlainByTerrain { distance: mv.difficult_from.unwrap_or_default() });
                s.states[c] = state;
                return MoveKey { passed: g as u16, survivors: 0, gone: true };
            }
        }
        let mut survivors = 0u32;
        for (i, &m) in group.models.iter().enumerate() {
            let t = s.state(plan, m);
            let (outcome, hero) = plan.flat_impact.sample((c, m), (t.left, t.mount_left, t.fate_left), dice);
            s.set(touched_after(t, ContactEffect::of(&outcome)));
            if outcome.casualty {
                s.impact_kills[c] += 1;
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
            s.states[c] = state;
            return MoveKey { passed: g as u16, survivors, gone: false };
        }
    }
    let all = mv.groups.len() as u16;
    if terrain(mv.groups.len()) {
        state.terrain_test(cp, dice, &mut out, obs);
        if state.wounds_left == 0 {
            obs.note(|| Event::SlainByTerrain { distance: mv.difficult_from.unwrap_or_default() });
            s.states[c] = state;
            return MoveKey { passed: all, survivors: 0, gone: true };
        }
    }
    if let Some((by, distance)) = mv.blocked_by {
        s.blocked[c] = true;
        obs.note(|| Event::Blocked { by: by + 1, distance });
    }
    if mv.obstacle.is_some() {
        let mut wounding_hits = 0;
        for _ in 0..crate::mesbg::plan::OBSTACLE_HITS {
            if state.wounds_left == 0 {
                break;
            }
            if cp.obstacle_hit.roll(dice) {
                wounding_hits += 1;
                state.suffer_wound(cp, dice, obs);
            }
        }
        obs.note(|| Event::Obstacle { wounding_hits });
    }
    s.states[c] = state;
    let gone = state.wounds_left == 0;
    if !gone {
        obs.note(|| Event::DroveOn { breakthrough: mv.breakthrough_possible });
    }
    MoveKey { passed: all, survivors: 0, gone }
}

/// The turn's metric values: what broke, the totals, each chariot's own.
pub(super) fn write_values(
    plan: &TurnPlan,
    board: &crate::mesbg::plan::FinalBoard,
    fights: u16,
    foe_heroes_slain: u16,
    s: &mut TurnScratch,
) {
    let at = &plan.at;
    s.values.clear();
    s.values.resize(plan.metrics.len(), 0);
    let models = &plan.plans[0].models;
    let impact_kills: u16 = s.impact_kills.iter().sum();
    let fight_kills = s.fight_slain.len() as u16;
    // Per formation: lost, and whether a corridor runs through it.
    let formations = &plan.scenario.formations;
    let mut halved = false;
    let mut first = 0;
    for (f, lost_in_moves) in formations.iter().zip(&board.lost_in_moves) {
        let range = first..first + f.centres.len();
        first += f.centres.len();
        let lost = *lost_in_moves as usize + s.fight_slain.iter().filter(|m| range.contains(m)).count();
        halved |= 2 * lost >= f.centres.len();
    }
    let breached = if s.fight_slain.is_empty() {
        board.breached.iter().any(|&b| b)
    } else {
        s.fight_slain.sort_unstable();
        // Kept by how many the fights slew, so that each slot holds few sets.
        let slot = s.fight_slain.len().min(15);
        *s.breached.get_or_insert_with((s.last, slot), SlainKey::of(&s.fight_slain), || {
            let standing: Vec<crate::geometry::Disc> = (0..board.present.len())
                .filter(|m| board.present[*m] && s.fight_slain.binary_search(m).is_err())
                .map(|m| formations[models[m].formation].disc_at(board.centres[m]))
                .collect();
            plan.lines.iter().any(|line| {
                let line: Vec<&crate::mesbg::scenario::Formation> = line.iter().map(|&f| &formations[f]).collect();
                corridor_through(&line, &standing)
            })
        })
    };
    let v = &mut s.values;
    v[at.line_breached] = u16::from(breached);
    v[at.line_halved] = u16::from(halved);
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
    v[at.chariots_slain] = s.states.iter().filter(|st| st.wounds_left == 0).count() as u16;
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
        let st = s.states[c];
        v[m.impact_kills] = s.impact_kills[c];
        v[m.fight_fought] = u16::from(s.fought[c]);
        v[m.fight_won] = u16::from(s.won[c]);
        v[m.fight_kills] = s.fight_kills[c];
        v[m.wounds_lost] = u16::from(cp.chariot.wounds - st.wounds_left);
        v[m.slain] = u16::from(st.wounds_left == 0);
        v[m.breakthrough] = u16::from(board.through[c]);
        if let Some(i) = m.blocked {
            v[i] = u16::from(s.blocked[c]);
        }
        if let (Some((might, fate)), Some(hero)) = (m.hero, cp.chariot.hero) {
            v[might] = u16::from(hero.might - st.might_left);
            v[fate] = u16::from(hero.fate - st.fate_left);
        }
    }
}

/// A turn's tally: one histogram per metric, and per model the trials it was slain in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TurnTally {
    /// Trials counted.
    pub trials: u64,
    /// `histograms[m][v]`: trials in which metric `m` took value `v`.
    pub histograms: Vec<Vec<u64>>,
    /// Per model: trials in which it was slain.
    pub slain: Vec<u64>,
}

impl TurnTally {
    /// An empty tally of `plan`.
    pub fn new(plan: &TurnPlan) -> Self {
        Self { trials: 0, histograms: vec![vec![0; 2]; plan.metrics.len()], slain: vec![0; plan.models] }
    }

    pub(super) fn record(&mut self, values: &[u16]) {
        self.trials += 1;
        crate::engine::statistics::count_values(&mut self.histograms, values);
    }

    /// Adds another tally of the same plan.
    pub fn merge(&mut self, other: &TurnTally) {
        self.trials += other.trials;
        crate::engine::statistics::add_histograms(&mut self.histograms, &other.histograms);
        self.slain.iter_mut().zip(&other.slain).for_each(|(a, b)| *a += b);
    }
}

/// Plays and tallies `trials` of a turn on this thread: down the chain of states the
/// thread has compiled ([`super::turn_chain`]), which draws every trial as
/// [`play_turn`] does, word for word; a trial that reaches a stage rolled die by die is
/// played by [`play_turn`] itself.
pub fn tally_turns(plan: &TurnPlan, streams: Streams, trials: std::ops::Range<u64>, s: &mut TurnScratch) -> TurnTally {
    let mut tally = TurnTally::new(plan);
    let mut chain = std::mem::take(&mut s.chain);
    let chained = chain.prepare(plan, s);
    for t in trials {
        if chained && chain.walk(plan, streams.trial_key(t), s) {
            continue;
        }
        play_turn(plan, streams, t, s, &mut Silent);
        tally.record(&s.values);
        for &m in plan.finals[s.last].slain_in_moves.iter().chain(&s.fight_slain) {
            tally.slain[m] += 1;
        }
    }
    chain.flush(plan, s, &mut tally);
    s.chain = chain;
    tally
}

impl crate::engine::RuleSystem for TurnPlan {
    type Metric = crate::engine::MetricDef;
    type Tally = TurnTally;
    type Scratch = TurnScratch;
    /// A turn's tallies are not a single charge's: shards say so, and merge accordingly.
    const SYSTEM: &'static str = "mesbg_turn";

    fn metrics(&self) -> Vec<crate::engine::MetricDef> {
        self.metrics.defs.clone()
    }
    fn empty_tally(&self) -> TurnTally {
        TurnTally::new(self)
    }
    fn tally_block(&self, streams: Streams, trials: std::ops::Range<u64>, scratch: &mut TurnScratch) -> TurnTally {
        tally_turns(self, streams, trials, scratch)
    }
    fn merge_tally(into: &mut TurnTally, other: &TurnTally) {
        into.merge(other);
    }
    fn trials_in(tally: &TurnTally) -> u64 {
        tally.trials
    }
    fn histogram<'t>(&self, tally: &'t TurnTally, index: usize) -> &'t [u64] {
        &tally.histograms[index]
    }
    fn play_values(&self, streams: Streams, trial: u64, scratch: &mut TurnScratch, values: &mut Vec<u16>) {
        play_turn(self, streams, trial, scratch, &mut Silent);
        values.clear();
        values.extend_from_slice(&scratch.values);
    }
}

/// Replays one trial of a turn: its metric values and events.
pub fn replay_turn(plan: &TurnPlan, streams: Streams, trial: u64) -> (Vec<u16>, Vec<Event>) {
    let mut s = TurnScratch::default();
    let mut trace = Trace::default();
    let values = play_turn(plan, streams, trial, &mut s, &mut trace).to_vec();
    (values, trace.0)
}

#[cfg(test)]
mod memo_tests {
    use super::BoardMemo;

    #[test]
    fn a_board_memo_answers_each_key_once_per_slot_and_starts_again_past_its_bound() {
        let mut memo: BoardMemo<u32, u32, 3> = BoardMemo::default();
        let mut worked = 0;
        let mut ask = |memo: &mut BoardMemo<u32, u32, 3>, at, key| {
            *memo.get_or_insert_with(at, key, || {
                worked += 1;
                key * 10
            })
        };
        assert_eq!(ask(&mut memo, (2, 1), 7), 70);
        assert_eq!(ask(&mut memo, (2, 1), 7), 70, "met again: not worked out again");
        assert_eq!(ask(&mut memo, (0, 0), 7), 70, "another slot keeps its own");
        assert_eq!(ask(&mut memo, (2, 1), 8), 80, "a second key in the same slot");
        assert_eq!(memo.held, 3);
        assert_eq!(ask(&mut memo, (2, 1), 8), 80);
        // A fourth key passes the bound: everything is forgotten, then the key kept.
        assert_eq!(ask(&mut memo, (1, 4), 9), 90);
        assert_eq!(memo.held, 1);
        assert_eq!(ask(&mut memo, (2, 1), 7), 70, "worked out again after the reset");
        assert_eq!(worked, 5);
    }
}
