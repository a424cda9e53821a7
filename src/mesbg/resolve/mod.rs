//! Running trials over a plan: one trial walks the contact list rolling dice, then fights;
//! many trials run in parallel into integer tallies.
//!
//! Trial `t` draws only from streams keyed by `(seed, stream key, t, phase)`, and trials are
//! tallied in fixed blocks merged by exact integer addition, so a run gives the same tally
//! for any number of threads, and any single trial can be replayed alone with a trace.

use crate::dice::{Dice, Phase};
pub use crate::engine::{BLOCK, Interrupted, Streams, TrialRange, run_in_blocks};
use crate::mesbg::plan::Plan;
use crate::mesbg::plan::support::Presence;
use crate::mesbg::plan::{ContactOutcome, fight_rules};
use crate::mesbg::rules::duel::{self as mesbg_duel, FoeHero};
use crate::mesbg::rules::fight::{self as mesbg_fight, FoeSupport, SplitTarget, StrikeSplit, TargetSaves, WoundOn};
use crate::mesbg::rules::{self as mesbg, DuelSide, DuelWinner, FightOutcome, StrikeTarget};
use crate::mesbg::tally::{Metric, Outcome, OutcomeCounter, Packed, Tally};
use serde::Serialize;
use std::sync::atomic::AtomicBool;

mod event;
mod fast;
mod fight;
#[cfg(test)]
mod tests;

pub use event::{Event, Observer, Silent, Trace};
pub(crate) use fight::{FightBoard, fight_by_dice, pooled_fight, reconstruct_fight, strike_order};

/// The most declared splits a thread keeps (a scenario meets a handful; past this many,
/// the list starts again rather than grow or slow its search).
const MAX_CACHED_SPLITS: usize = 64;

/// Buffers a trial reuses, so the hot loop does not allocate.
#[derive(Default)]
pub struct Scratch {
    pub(crate) survivors: Vec<Survivor>,
    pub(crate) targets: Vec<StrikeTarget>,
    pub(crate) target_is_rider: Vec<bool>,
    at_start: Vec<u8>,
    order: Vec<usize>,
    /// Declared splits already worked out on this thread, by what decides them (the
    /// Strikes, and each target as the split weighs it): the split depends on nothing
    /// else, and the same few fights recur in every trial, so a short list searched from
    /// the last hit beats hashing.
    splits: Vec<(u8, Vec<SplitTarget>, Vec<usize>)>,
    last_split: usize,
    split_key: Vec<SplitTarget>,
    /// The contact group the chariot stopped at (for the fight's supporters).
    group: usize,
    /// The supporters of the last fight of a turn (a supporter helps one fight).
    pub(crate) supporters_used: Vec<usize>,
}

impl Scratch {
    /// The declared order of `strikes` Strikes over the current targets, target `i`
    /// saving Wounds as `saves(i)` says (an enemy Hero's Fate and Might left).
    fn declared_order(&mut self, strikes: u8, saves: impl Fn(usize) -> Option<TargetSaves>) -> &[usize] {
        self.split_key.clear();
        for (i, (t, &rider)) in self.targets.iter().zip(&self.target_is_rider).enumerate() {
            self.split_key.push(SplitTarget {
                roll: t.roll,
                trapped: t.trapped,
                wounds_left: t.wounds_left,
                counts_as_kill: rider,
                saves: saves(i),
            });
        }
        let matches = |(k, key, _): &(u8, Vec<SplitTarget>, Vec<usize>)| *k == strikes && *key == self.split_key;
        let found = (self.last_split < self.splits.len() && matches(&self.splits[self.last_split]))
            .then_some(self.last_split)
            .or_else(|| self.splits.iter().position(matches));
        if let Some(i) = found {
            self.last_split = i;
            return &self.splits[i].2;
        }
        let order = mesbg_fight::declared_order(&mesbg_fight::declared_split(strikes, &self.split_key));
        if self.splits.len() >= MAX_CACHED_SPLITS {
            self.splits.clear();
        }
        self.splits.push((strikes, self.split_key.clone(), order));
        self.last_split = self.splits.len() - 1;
        &self.splits[self.last_split].2
    }
}

/// A model still standing in base contact when the chariot stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Survivor {
    /// Model index in the plan.
    pub model: usize,
    /// Wounds the model (the rider) has left; 0 for a riderless mount.
    pub left: u8,
    /// Wounds its mount has left (0: none).
    pub mount_left: u8,
    /// Prone (a rider Knocked Flying by the Impact Hits).
    pub prone: bool,
    /// It may Strike if its side wins: not Prone, and not a rider thrown this turn (Rises
    /// from the Dust makes no Strikes).
    pub strikes: bool,
    /// Fate an enemy Hero spent against the Impact Hits.
    pub fate_spent: u8,
    /// Braced by its shield wall in this fight (+1 Defence against the Strikes).
    pub braced: bool,
}

impl Survivor {
    /// A model left standing (or Prone) by its Impact Hits.
    pub fn after(model: usize, outcome: &ContactOutcome) -> Self {
        Self {
            model,
            left: outcome.left,
            mount_left: outcome.mount_left,
            prone: outcome.prone,
            strikes: !outcome.prone && !matches!(outcome.thrown, Some(2..=5)),
            fate_spent: outcome.fate_spent,
            braced: false,
        }
    }
}

/// Marks which of group `group`'s survivors their shield wall braces in the fight.
pub(crate) fn brace_survivors(group: &crate::mesbg::plan::ContactGroup, survivors: &mut [Survivor]) {
    if !group.has_wall() {
        return;
    }
    for k in 0..survivors.len() {
        let Some(i) = group.models.iter().position(|&m| m == survivors[k].model) else { continue };
        survivors[k].braced = group.braced_in_fight(i, |n| survivors.iter().any(|s| s.model == n));
    }
}

/// How many dice-level fights a replay tries to find dice consistent with the outcome its
/// trial drew from the exact table.
pub const MAX_RECONSTRUCTION_TRIES: u32 = 10_000_000;

/// Largest value each metric can take under this plan (sizes the tallies).
pub fn metric_bounds(plan: &Plan) -> [u16; Metric::ALL.len()] {
    let on_path = plan.models_on_path().min(usize::from(u16::MAX)) as u16;
    let group = plan.largest_group().min(usize::from(u16::MAX)) as u16;
    let mut max = [1u16; Metric::ALL.len()];
    max[Metric::ImpactKills as usize] = on_path;
    max[Metric::Contacts as usize] = on_path;
    max[Metric::FightKills as usize] = group;
    max[Metric::Kills as usize] = on_path;
    max[Metric::ChariotWoundsLost as usize] = u16::from(plan.chariot.wounds);
    max[Metric::HeroKills as usize] = group;
    if let Some(hero) = plan.chariot.hero {
        max[Metric::HeroWoundsLost as usize] = u16::from(hero.wounds);
        max[Metric::MightSpent as usize] = u16::from(hero.might);
        max[Metric::FateSpent as usize] = u16::from(hero.fate);
    } else {
        max[Metric::HeroWoundsLost as usize] = 0;
    }
    let heroes = plan.foe_heroes_on_path();
    max[Metric::FoeHeroesSlain as usize] = heroes.len().min(usize::from(u16::MAX)) as u16;
    max[Metric::FoeMightSpent as usize] =
        heroes.iter().map(|&m| plan.models[m].hero.map_or(0, |h| u16::from(h.might))).sum();
    max[Metric::FoeFateSpent as usize] =
        heroes.iter().map(|&m| plan.models[m].hero.map_or(0, |h| u16::from(h.fate))).sum();
    max
}

/// An empty tally of the metrics this plan reports.
pub fn new_tally(plan: &Plan) -> Tally {
    Tally::for_metrics(&metric_bounds(plan), &plan.metrics, plan.chariot.hero.is_some())
}

/// Plays trial `trial` of a run.
///
/// One draw from the compiled chain says where the chariot stops (every model before that
/// group was slain); only the stopping group's models are then rolled, conditioned
/// exactly on not all being slain.
#[inline]
pub fn trial<O: Observer>(plan: &Plan, streams: Streams, trial: u64, scratch: &mut Scratch, obs: &mut O) -> Outcome {
    let mut out = Outcome::default();
    play(plan, streams, trial, scratch, obs, &mut out);
    out
}

/// Plays trial `trial` as sums over the plan's compiled charge ([`Plan::fast`]), or
/// `None` when it needs the full resolver (or the plan has no compiled charge). Runs use
/// it for every trial it can play; it must give exactly what [`trial`] gives.
pub fn trial_as_sums(plan: &Plan, streams: Streams, trial: u64) -> Option<Outcome> {
    let mut packed = [0; _];
    let played = plan.fast.as_ref().is_some_and(|fast| fast::play_fast(fast, streams, trial, &mut packed));
    played.then(|| Outcome::unpacked(&packed))
}

/// Plays trial `trial` into `out` (reset first). The run's loop reuses one `out` and
/// tallies it in place: returning the outcome by value made every trial store it in
/// narrow pieces and reload it wide, a store-forwarding stall on the hottest path.
#[inline]
fn play<O: Observer>(plan: &Plan, streams: Streams, trial: u64, scratch: &mut Scratch, obs: &mut O, out: &mut Outcome) {
    *out = Outcome::default();
    let key = streams.trial_key(trial);
    let mut dice = key.dice(Phase::Charge);
    let stop = plan.chain.stop.sample(&mut dice);
    let mut state = ChariotState::fresh(plan);
    // The difficult-terrain test is rolled on entering, when every model before the point
    // of entry was slain; a Wound from it is immediate, and a chariot slain by it stops
    // there. Its D6 does not depend on the Impact Hits, so drawing the stop first is exact.
    if plan.difficult_from.is_some()
        && stop >= plan.terrain_group
        && slain_on_entering(plan, key, &mut state, &mut dice, out, obs)
    {
        return;
    }
    if O::ENABLED {
        note_models_driven_past(plan, key, stop, obs);
    }
    if !plan.foe_heroes.is_empty() {
        heroes_driven_past(plan, key, stop, out);
    }
    let Some(group) = plan.groups.get(stop) else {
        let passed = plan.models_on_path() as u16;
        out.set(Metric::ImpactKills, passed);
        out.set(Metric::Contacts, passed);
        out.set(Metric::Kills, passed);
        out.set(Metric::Breakthrough, u16::from(plan.breakthrough_possible));
        obs.note(|| Event::DroveOn { breakthrough: plan.breakthrough_possible });
        obstacle(plan, &mut state, &mut dice, out, obs);
        if plan.chariot.hero.is_some() || plan.army.is_some() || plan.has_hazards {
            state.finish(plan, &mut key.dice(Phase::Fight), out, obs);
        }
        return;
    };
    scratch.survivors.clear();
    scratch.group = stop;
    let mut impact_kills = group.models_before as u16;
    let mut config = 0;
    debug_assert_eq!(group.models.len(), group.config_strides.len());
    debug_assert_eq!(group.models.len(), group.passed_given_stop.len());
    for (i, (&m, chance)) in group.models.iter().zip(&group.passed_given_stop).enumerate() {
        let impact = &plan.models[m].impact;
        let outcome = if scratch.survivors.is_empty() {
            let passed = chance.happens(&mut dice);
            impact.sample_given(passed, &mut dice)
        } else {
            impact.sample(&mut dice)
        };
        impact_kills += u16::from(outcome.casualty);
        if plan.models[m].hero.is_some() {
            out.add(Metric::FoeFateSpent, u16::from(outcome.fate_spent));
            out.add(Metric::FoeHeroesSlain, u16::from(outcome.casualty));
        }
        if !outcome.passed {
            if outcome.thrown.is_some() {
                out.set(Metric::ThrownRiderStopped, 1);
            }
            scratch.survivors.push(Survivor::after(m, &outcome));
            config += group.config_part(i, &outcome, &plan.models);
        }
        obs.note(|| Event::Contact { distance: group.distance, model: m, outcome });
    }
    brace_survivors(group, &mut scratch.survivors);
    out.set(Metric::ImpactKills, impact_kills);
    out.set(Metric::Contacts, (group.models_before + group.models.len()) as u16);
    obs.note(|| Event::Stopped { distance: group.distance, by: scratch.survivors.iter().map(|s| s.model).collect() });
    let mut fight_dice = key.dice(Phase::Fight);
    let tables: &[Option<crate::mesbg::plan::FightTable>] = if state.is_fresh(plan) {
        &group.fights
    } else if state.wounds_left + 1 == plan.chariot.wounds && plan.chariot.fights_wounded_from_tables() {
        // The difficult-terrain test took a Wound: the fight is tabulated for that too.
        &group.wounded_fights
    } else {
        &[]
    };
    let result = match tables.get(config).and_then(Option::as_ref) {
        Some(table) => {
            let result = table.sample(&mut fight_dice);
            if O::ENABLED {
                let board = FightBoard::of(plan, stop);
                let trace_dice = &mut key.dice(Phase::TraceFight);
                reconstruct_fight(plan, &board, scratch, trace_dice, state, |_, r| r == result, obs);
            }
            state.wounds_left -= result.wounds_lost;
            state.might_left -= result.might_spent;
            state.fate_left -= result.fate_spent;
            result
        }
        None => fight_by_dice(plan, &FightBoard::of(plan, stop), scratch, &mut state, &mut fight_dice, obs),
    };
    obs.note(|| Event::Fight { chariot_won: result.won, kills: result.kills, wounds_lost: result.wounds_lost });
    // Immovable Object: against an enemy chariot the smaller Backs Away, whoever won;
    // nobody Backs Away once either chariot is slain.
    if plan.has_enemy_chariot
        && !result.foe_chariot_slain
        && state.wounds_left > 0
        && let Some(size) = scratch.survivors.iter().find_map(|s| plan.models[s.model].chariot)
    {
        let (backs, roll) = mesbg::our_chariot_backs_away(size, plan.chariot.side, &mut fight_dice);
        out.set(Metric::ChariotBackedAway, u16::from(backs));
        out.set(Metric::FoeChariotBackedAway, u16::from(!backs));
        obs.note(|| Event::BacksAway { ours: backs, roll });
    }
    if !plan.foe_heroes.is_empty() {
        out.add(Metric::FoeMightSpent, u16::from(result.foe_might_spent));
        out.add(Metric::FoeFateSpent, u16::from(result.foe_fate_spent));
        out.add(Metric::FoeHeroesSlain, u16::from(result.foe_heroes_slain));
    }
    let kills = u16::from(result.kills);
    out.set(Metric::FightFought, 1);
    out.set(Metric::FightWon, u16::from(result.won));
    out.set(Metric::FightKills, kills);
    out.set(Metric::Kills, impact_kills + kills);
    state.finish(plan, &mut fight_dice, out, obs);
}

/// The hits that slew the models driven past change no metric, except the Fate enemy
/// Heroes spent first; a replay draws them from their conditional distribution on a stream
/// of their own (the Heroes' from the stream [`heroes_driven_past`] counts them from, in
/// the same order, so the replay shows what the metrics counted).
fn note_models_driven_past<O: Observer>(plan: &Plan, key: crate::dice::TrialKey, reached: usize, obs: &mut O) {
    let mut detail = key.dice(Phase::Trace);
    let mut heroes = key.dice(Phase::DrivenPast);
    for group in &plan.groups[..reached] {
        for &m in &group.models {
            let dice = if plan.models[m].hero.is_some() { &mut heroes } else { &mut detail };
            let outcome = plan.models[m].impact.sample_given(true, dice);
            obs.note(|| Event::Contact { distance: group.distance, model: m, outcome });
        }
    }
}

/// The enemy Heroes the chariot drove past before group `reached`: each was slain by the
/// Impact Hits, perhaps after spending Fate; drawn, given that, on a stream of their own.
#[inline(never)]
fn heroes_driven_past(plan: &Plan, key: crate::dice::TrialKey, reached: usize, out: &mut Outcome) {
    let mut dice = key.dice(Phase::DrivenPast);
    for m in plan.foe_heroes_before(reached) {
        let outcome = plan.models[m].impact.sample_given(true, &mut dice);
        out.add(Metric::FoeHeroesSlain, 1);
        out.add(Metric::FoeFateSpent, u16::from(outcome.fate_spent));
    }
}

/// The difficult-terrain test on entering; when it slays the chariot, the charge ends there
/// (past only the models before that point) and this writes the trial's metrics and
/// returns true. Out of line: most charges meet no terrain.
#[inline(never)]
fn slain_on_entering<O: Observer>(
    plan: &Plan,
    key: crate::dice::TrialKey,
    state: &mut ChariotState,
    dice: &mut Dice,
    out: &mut Outcome,
    obs: &mut O,
) -> bool {
    state.terrain_test(plan, dice, out, obs);
    if state.wounds_left > 0 {
        return false;
    }
    if O::ENABLED {
        note_models_driven_past(plan, key, plan.terrain_group, obs);
    }
    if !plan.foe_heroes.is_empty() {
        heroes_driven_past(plan, key, plan.terrain_group, out);
    }
    let passed = plan.groups[..plan.terrain_group].iter().map(|g| g.models.len()).sum::<usize>() as u16;
    out.set(Metric::ImpactKills, passed);
    out.set(Metric::Contacts, passed);
    out.set(Metric::Kills, passed);
    obs.note(|| Event::SlainByTerrain { distance: plan.difficult_from.unwrap_or_default() });
    state.finish(plan, &mut key.dice(Phase::Fight), out, obs);
    true
}

/// A chariot that drove its full Move into an obstacle suffers its three Strength 6 hits.
fn obstacle<O: Observer>(plan: &Plan, state: &mut ChariotState, dice: &mut Dice, out: &mut Outcome, obs: &mut O) {
    if plan.obstacle.is_none() {
        return;
    }
    out.set(Metric::ObstacleStruck, 1);
    obstacle_hits(plan, state, dice, obs);
}

/// The obstacle's three Strength 6 hits on the chariot of `plan` (its Hero's Fate may
/// prevent each Wound; a chariot slain takes no more): the rule of a single charge and of
/// every drive of a turn that ends at an obstacle.
pub(crate) fn obstacle_hits<O: Observer>(plan: &Plan, state: &mut ChariotState, dice: &mut Dice, obs: &mut O) {
    let mut wounding_hits = 0;
    for _ in 0..crate::mesbg::plan::OBSTACLE_HITS {
        if state.wounds_left == 0 {
            break;
        }
        if plan.obstacle_hit.roll(dice) {
            wounding_hits += 1;
            state.suffer_wound(plan, dice, obs);
        }
    }
    obs.note(|| Event::Obstacle { wounding_hits });
}

/// A list with one entry per chariot in a fight of a turn (a few), kept inline: a fight
/// allocates nothing.
pub(crate) type PerChariot<T> = smallvec::SmallVec<[T; 4]>;

/// What the chariot and its Hero have left during a trial.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChariotState {
    /// The chariot's Wounds left.
    pub wounds_left: u8,
    /// Its Hero's Might left.
    pub might_left: u8,
    /// Its Hero's Fate left.
    pub fate_left: u8,
}

impl ChariotState {
    /// The chariot of `plan` before its charge: every Wound, Might and Fate.
    pub fn fresh(plan: &Plan) -> Self {
        let hero = plan.chariot.hero;
        Self {
            wounds_left: plan.chariot.wounds,
            might_left: hero.map_or(0, |h| h.might),
            fate_left: hero.map_or(0, |h| h.fate),
        }
    }

    /// Whether nothing has yet been lost or spent (the state the exact fight tables assume).
    #[inline]
    fn is_fresh(&self, plan: &Plan) -> bool {
        let hero = plan.chariot.hero;
        self.wounds_left == plan.chariot.wounds
            && self.might_left == hero.map_or(0, |h| h.might)
            && self.fate_left == hero.map_or(0, |h| h.fate)
    }

    /// The difficult-terrain test: a D6, a 1 costing the chariot a Wound at once, unless the
    /// Hero's Might turns it into a 2.
    pub(crate) fn terrain_test<O: Observer>(&mut self, plan: &Plan, dice: &mut Dice, out: &mut Outcome, obs: &mut O) {
        let roll = dice.d6();
        let might = u8::from(roll == 1 && plan.chariot.saves.might_on_terrain && self.might_left > 0);
        obs.note(|| Event::TerrainTest { roll, might });
        self.might_left -= might;
        if roll == 1 && might == 0 {
            out.set(Metric::TerrainWound, 1);
            self.suffer_wound(plan, dice, obs);
        }
    }

    /// The chariot suffers one Wound, unless the Hero's Fate (with Might on the Fate roll)
    /// prevents it. Returns whether the Wound was suffered.
    pub(crate) fn suffer_wound<O: Observer>(&mut self, plan: &Plan, dice: &mut Dice, obs: &mut O) -> bool {
        let on = WoundOn::Chariot { wounds_left: self.wounds_left };
        if self.prevent(plan, on, dice, obs) {
            return false;
        }
        self.wounds_left = self.wounds_left.saturating_sub(1);
        true
    }

    /// Spends the Hero's Fate (and Might on the Fate roll) on one Wound by his policy.
    /// Returns whether it was prevented.
    pub(crate) fn prevent<O: Observer>(&mut self, plan: &Plan, on: WoundOn, dice: &mut Dice, obs: &mut O) -> bool {
        if self.fate_left == 0 {
            return false;
        }
        let mut rolls = Vec::new();
        let p = mesbg_fight::settle_prevention(plan.chariot.saves, on, self.fate_left, self.might_left, || {
            let d = dice.d6();
            if O::ENABLED {
                rolls.push(d);
            }
            d
        });
        self.fate_left -= p.fate_spent;
        self.might_left -= p.might_spent;
        if p.fate_spent > 0 {
            obs.note(|| Event::Fate { rolls, might: p.might_spent, saved: p.prevented });
        }
        p.prevented
    }

    /// Writes the chariot's and the Hero's metrics; a slain chariot throws its Hero
    /// (Knocked Flying: one Strength 3 hit, Fate may prevent it).
    #[inline]
    fn finish<O: Observer>(self, plan: &Plan, dice: &mut Dice, out: &mut Outcome, obs: &mut O) {
        let lost = plan.chariot.wounds - self.wounds_left;
        out.set(Metric::ChariotWoundsLost, u16::from(lost));
        out.set(Metric::ChariotSlain, u16::from(self.wounds_left == 0));
        if plan.chariot.hero.is_some() || plan.army.is_some() {
            self.finish_hero_and_army(plan, dice, out, obs);
        }
    }

    /// The Hero's metrics and the Break Point (kept out of line: the common charge has
    /// neither, and the fast path stays small).
    #[inline(never)]
    fn finish_hero_and_army<O: Observer>(mut self, plan: &Plan, dice: &mut Dice, out: &mut Outcome, obs: &mut O) {
        let slain = self.wounds_left == 0;
        if let Some(hero) = plan.chariot.hero {
            let mut hero_lost = 0;
            if slain {
                if hero.thrown_hit.roll(dice) {
                    let on = WoundOn::Hero { wounds_left: hero.wounds };
                    hero_lost = u8::from(!self.prevent(plan, on, dice, obs));
                }
                obs.note(|| Event::Thrown { wounds: hero_lost, slain: hero_lost >= hero.wounds });
            }
            out.set(Metric::HeroWoundsLost, u16::from(hero_lost));
            out.set(Metric::HeroDismounted, u16::from(slain));
            out.set(Metric::HeroSlain, u16::from(hero_lost >= hero.wounds));
            out.set(Metric::MightSpent, u16::from(hero.might - self.might_left));
            out.set(Metric::FateSpent, u16::from(hero.fate - self.fate_left));
            // The chariot's kills in combat (not by Impact Hits) are the Hero's.
            out.set(Metric::HeroKills, out.get(Metric::FightKills));
        }
        if let Some(army) = plan.army {
            let casualties = u64::from(army.casualties) + u64::from(out.get(Metric::Kills));
            out.set(Metric::ArmyBroken, u16::from(plan.rules.break_point.broken(casualties, u64::from(army.models))));
        }
    }
}

/// Plays the trials of `range` on the current rayon pool and tallies them.
///
/// `progress` is called with the number of trials just finished (from any thread);
/// setting `cancel` stops the run at the next block boundary.
pub fn run(
    plan: &Plan,
    streams: Streams,
    range: TrialRange,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> Result<Tally, Interrupted> {
    run_in_blocks(
        range,
        progress,
        cancel,
        || new_tally(plan),
        |scratch: &mut Scratch, trials| tally_trials(plan, streams, trials, scratch),
        |a, b| a.merge(b),
        |t| t.trials,
    )
}

/// Plays and tallies the trials `trials` on this thread, as one block of a run does.
pub fn tally_trials(plan: &Plan, streams: Streams, trials: std::ops::Range<u64>, scratch: &mut Scratch) -> Tally {
    let mut tally = new_tally(plan);
    let mut counter = OutcomeCounter::for_tally(&tally);
    match &plan.fast {
        Some(fast) => count_as_sums(plan, fast, streams, trials, scratch, &mut counter, &mut tally),
        None => count_in_full(plan, streams, trials, scratch, &mut counter, &mut tally),
    }
    counter.drain_into(&mut tally);
    tally
}

/// Plays `trials` as sums, [`fast::BATCH`] at a time (handing back to the resolver what
/// sums cannot play), into `counter`.
///
/// A batch is counted after the next is played: its outcomes, written a word at a time,
/// have then left the store buffer, and the counter's wide reads of them do not wait on a
/// failed store-to-load forward.
fn count_as_sums(
    plan: &Plan,
    fast: &crate::mesbg::plan::FastCharge,
    streams: Streams,
    trials: std::ops::Range<u64>,
    scratch: &mut Scratch,
    counter: &mut OutcomeCounter,
    tally: &mut Tally,
) {
    let mut batches: [[Packed; fast::BATCH]; 2] = [[[0; _]; fast::BATCH]; 2];
    let mut played: Option<usize> = None;
    let mut t = trials.start;
    let mut this = 0;
    while trials.end - t >= fast::BATCH as u64 {
        let handed_back = fast::play_fast_batch(fast, streams, t, &mut batches[this]);
        if handed_back != 0 {
            for (i, packed) in batches[this].iter_mut().enumerate() {
                if handed_back & 1 << i != 0 {
                    *packed = played_in_full(plan, streams, t + i as u64, scratch);
                }
            }
        }
        if let Some(last) = played {
            batches[last].iter().for_each(|packed| counter.record_packed(packed, tally));
        }
        played = Some(this);
        this = 1 - this;
        t += fast::BATCH as u64;
    }
    if let Some(last) = played {
        batches[last].iter().for_each(|packed| counter.record_packed(packed, tally));
    }
    for t in t..trials.end {
        let mut packed = [0; _];
        if !fast::play_fast(fast, streams, t, &mut packed) {
            packed = played_in_full(plan, streams, t, scratch);
        }
        counter.record_packed(&packed, tally);
    }
}

/// Plays `trials` by the resolver into `counter`, trial t counted after trial t + 1 is
/// played (see [`count_as_sums`]).
fn count_in_full(
    plan: &Plan,
    streams: Streams,
    trials: std::ops::Range<u64>,
    scratch: &mut Scratch,
    counter: &mut OutcomeCounter,
    tally: &mut Tally,
) {
    let mut outs = [Outcome::default(); 2];
    let mut played: Option<usize> = None;
    for (i, t) in trials.enumerate() {
        let this = i % 2;
        play(plan, streams, t, scratch, &mut Silent, &mut outs[this]);
        if let Some(last) = played {
            counter.record(&outs[last], tally);
        }
        played = Some(this);
    }
    if let Some(last) = played {
        counter.record(&outs[last], tally);
    }
}

/// Trial `trial` played by the full resolver, packed.
fn played_in_full(plan: &Plan, streams: Streams, trial: u64, scratch: &mut Scratch) -> Packed {
    let mut out = Outcome::default();
    play(plan, streams, trial, scratch, &mut Silent, &mut out);
    out.packed()
}

impl crate::engine::RuleSystem for Plan {
    type Metric = Metric;
    type Tally = Tally;
    type Scratch = Scratch;
    const SYSTEM: &'static str = "mesbg";

    fn metrics(&self) -> Vec<Metric> {
        self.metrics.clone()
    }
    fn empty_tally(&self) -> Tally {
        new_tally(self)
    }
    fn tally_block(&self, streams: Streams, trials: std::ops::Range<u64>, scratch: &mut Scratch) -> Tally {
        tally_trials(self, streams, trials, scratch)
    }
    fn histogram<'t>(&self, tally: &'t Tally, index: usize) -> &'t [u64] {
        tally.histogram(self.metrics[index])
    }
    fn play_values(&self, streams: Streams, trial: u64, scratch: &mut Scratch, values: &mut Vec<u16>) {
        let mut out = Outcome::default();
        play(self, streams, trial, scratch, &mut Silent, &mut out);
        values.clear();
        values.extend(self.metrics.iter().map(|&m| out.get(m)));
    }
}

/// Replays one trial with its full event trace.
pub fn replay(plan: &Plan, streams: Streams, trial_index: u64) -> (Outcome, Vec<Event>) {
    let mut trace = Trace::default();
    let outcome = trial(plan, streams, trial_index, &mut Scratch::default(), &mut trace);
    (outcome, trace.0)
}
