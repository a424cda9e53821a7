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
use crate::mesbg::plan::{DrawnFight, FightKey, MoveKey, TurnPlan, corridor_through};
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
    last: usize,
    /// The drives the last trial walked, in the order of the turn.
    walked: Vec<usize>,
    /// Whether a line is breached, by final board and the models slain in its fights
    /// (sorted): the same few recur in every trial, and the corridor is a sort and a sweep.
    breached: BoardMemo<SlainKey, bool, MAX_CORRIDORS>,
    blocked: Vec<bool>,
    /// Fights drawn in one go (see [`drawn_fight`]).
    drawn: LocalFights,
    inner: Scratch,
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
    let n = plan.plans.len();
    let key = streams.trial_key(trial);
    let mut dice = key.dice(Phase::Charge);
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
    let mut foe_heroes_slain = 0u16;
    // The Move phase.
    let mut node = 0;
    let mut last = 0;
    s.walked.clear();
    for depth in 0..plan.order.len() {
        s.walked.push(node);
        let key = charge(plan, node, &mut dice, s, &mut foe_heroes_slain, obs);
        let mv = &plan.nodes[node];
        let Some(next) = mv.child(key) else {
            debug_assert!(false, "a drive's outcome {key:?} has no board");
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
    let board = &plan.finals[last];
    let mut fight_dice = key.dice(Phase::Fight);
    let mut trace_dice: Option<Dice> = None;
    s.used.clear();
    s.fight_slain.clear();
    let mut fights = 0u16;
    for (i, fight) in board.fights.iter().enumerate() {
        fights += 1;
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
        let fixed = board.fixed_support.get(i).and_then(Option::as_ref);
        let fb = FightBoard {
            support: &board.support,
            group: &fight.models,
            g: 1,
            earlier: crate::mesbg::plan::support::EarlierFights { supporters: &s.used, slain: &s.fight_slain },
            cannot_back_away: Some(&fight.cannot_back_away),
            foe_heroes: fight.models.iter().any(|&m| plan.plans[0].models[m].hero.is_some()),
            fixed: fixed.map(|f| f.given(&s.fight_slain)),
        };
        for &c in &fight.chariots {
            s.fought[c] = true;
        }
        if let [c] = fight.chariots[..] {
            let cp = &plan.plans[c];
            let drawn = match (fb.fixed, fixed) {
                (Some(help), Some(fixed)) => {
                    let bearer_slain = !std::ptr::eq(help, &fixed.help);
                    let at = (s.inner.survivors.as_slice(), s.states[c]);
                    drawn_fight(plan, last, i, c, bearer_slain, help, &fight.cannot_back_away, at, &mut s.drawn)
                        .map(|d| (d.draw(&mut fight_dice), help))
                }
                _ => None,
            };
            let (result, slew) = match drawn {
                Some(((result, slew), help)) => {
                    let before = s.states[c];
                    if O::ENABLED {
                        let trace_dice = trace_dice.get_or_insert_with(|| key.dice(Phase::TraceFight));
                        let matches =
                            |inner: &Scratch, r: FightOutcome| (r, slain_targets(inner, r.won)) == (result, slew);
                        reconstruct_fight(cp, &fb, &mut s.inner, trace_dice, before, matches, obs);
                    }
                    let st = &mut s.states[c];
                    st.wounds_left -= result.wounds_lost;
                    st.might_left -= result.might_spent;
                    st.fate_left -= result.fate_spent;
                    s.inner.supporters_used.clear();
                    s.inner.supporters_used.extend(help.supporters.iter().map(|sp| sp.model));
                    (result, slew)
                }
                None => {
                    let result = fight_by_dice(cp, &fb, &mut s.inner, &mut s.states[c], &mut fight_dice, obs);
                    (result, slain_targets(&s.inner, result.won))
                }
            };
            obs.note(|| Event::Fight { chariot_won: result.won, kills: result.kills, wounds_lost: result.wounds_lost });
            s.won[c] = result.won;
            s.fight_kills[c] += u16::from(result.kills);
            foe_heroes_slain += u16::from(result.foe_heroes_slain);
            push_slain(&s.inner.survivors, slew, &mut s.fight_slain);
        } else {
            let plans: PerChariot<&crate::mesbg::plan::Plan> = fight.chariots.iter().map(|&c| &plan.plans[c]).collect();
            let numbers: PerChariot<usize> = fight.chariots.iter().map(|c| c + 1).collect();
            let mut states: PerChariot<ChariotState> = fight.chariots.iter().map(|&c| s.states[c]).collect();
            let result = pooled_fight(&plans, &fb, &mut s.inner, &mut states, &numbers, &mut fight_dice, obs);
            for (k, &c) in fight.chariots.iter().enumerate() {
                s.states[c] = states[k];
                s.won[c] = result.won;
                s.fight_kills[c] += u16::from(result.slew[k]);
            }
            if result.slain {
                s.fight_slain.push(fight.models[0]);
                if plan.plans[0].models[fight.models[0]].hero.is_some() {
                    foe_heroes_slain += 1;
                }
            }
            obs.note(|| Event::Fight { chariot_won: result.won, kills: u8::from(result.slain), wounds_lost: 0 });
        }
        s.used.extend_from_slice(&s.inner.supporters_used);
    }
    // A chariot slain throws its Hero (a Strength 3 hit; his Fate may prevent it).
    for c in 0..n {
        let cp = &plan.plans[c];
        if let Some(hero) = cp.chariot.hero
            && s.states[c].wounds_left == 0
        {
            let mut hero_lost = 0;
            if hero.thrown_hit.roll(&mut fight_dice) {
                let on = WoundOn::Hero { wounds_left: hero.wounds };
                hero_lost = u8::from(!s.states[c].prevent(cp, on, &mut fight_dice, obs));
            }
            obs.note(|| Event::Thrown { wounds: hero_lost, slain: hero_lost >= hero.wounds });
        }
    }
    write_values(plan, board, fights, foe_heroes_slain, s);
    &s.values
}

/// One chariot's Chariot Charge down drive `node`: the difficult-terrain test on entering,
/// each contact's Impact Hits from the state the model is in, stopping at a survivor, the
/// obstacle at the end. Returns what it came to.
fn charge<O: Observer>(
    plan: &TurnPlan,
    node: usize,
    dice: &mut Dice,
    s: &mut TurnScratch,
    foe_heroes_slain: &mut u16,
    obs: &mut O,
) -> MoveKey {
    let mv = &plan.nodes[node];
    let c = mv.chariot;
    let cp = &plan.plans[c];
    obs.note(|| Event::TurnCharge { chariot: c + 1, order: mv.depth + 1 });
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
            let mut t = s.state(plan, m);
            let (outcome, hero) = plan.flat_impact.sample((c, m), (t.left, t.mount_left, t.fate_left), dice);
            t.left = outcome.left;
            t.mount_left = outcome.mount_left;
            t.fate_left -= outcome.fate_spent.min(t.fate_left);
            t.prone |= outcome.prone;
            t.strikes &= !outcome.prone && !matches!(outcome.thrown, Some(2..=5));
            s.set(t);
            if outcome.casualty {
                s.impact_kills[c] += 1;
                if hero {
                    *foe_heroes_slain += 1;
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

    fn record(&mut self, values: &[u16]) {
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

/// Plays and tallies `trials` of a turn on this thread.
pub fn tally_turns(plan: &TurnPlan, streams: Streams, trials: std::ops::Range<u64>, s: &mut TurnScratch) -> TurnTally {
    let mut tally = TurnTally::new(plan);
    for t in trials {
        play_turn(plan, streams, t, s, &mut Silent);
        tally.record(&s.values);
        for &m in plan.finals[s.last].slain_in_moves.iter().chain(&s.fight_slain) {
            tally.slain[m] += 1;
        }
    }
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
