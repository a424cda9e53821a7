//! Playing BATTLESYSTEM trials: a battle platform's charge (missile volleys on the way in,
//! then a simultaneous melee and the target's morale check), or a unit of beasts routing in
//! a d12 direction, veering round units, trampling what it cannot avoid and rolling a new
//! direction when a struck unit does not clear its path.
//!
//! As for MESBG, trial `t` draws only from the stream keyed by `(seed, scenario hash, t)`
//! and trials are tallied in fixed blocks merged by integer addition: the tally does not
//! depend on the number of threads, and any trial can be replayed alone with its events.

use super::board::{self, Block};
use super::scenario::{
    Action, BattlesystemScenario, ChargeDoubles, DriverOnly, MeleeContact, PlatformHits, Role, StruckUnitMoves, Unit,
    Veer,
};
use super::tally::{BattlesystemTally, COUNTED_METRICS, MetricSet, OutcomeCounter};
use crate::battlesystem::rules::{AttackDie, MoraleResult, clock_heading, die};
use crate::dice::{Dice, Phase};
use crate::engine::statistics::count_value;
use crate::engine::{Interrupted, Streams, TrialRange};
use crate::geometry::Vec2;
use serde::Serialize;
use std::sync::atomic::AtomicBool;

mod rout;

use rout::{StepMemo, rout};
pub use rout::{cells_crossed, for_each_cell_crossed};

mod fight;
pub(crate) use fight::*;

mod tables;
use tables::{AttackTables, ChargeTables, Drawn, Made};
pub(crate) use tables::{melee_raw, platform_or_driver_pmf, power};

/// The most contacts one rout may make before it is stopped (a guard; the re-roll limit
/// normally ends a rout long before).
pub const MAX_CONTACTS: u32 = 64;

/// The metric indices of a charge.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChargeSlots {
    pub(crate) volley_hits: usize,
    pub(crate) volley_kills: usize,
    pub(crate) hits_on_target: usize,
    pub(crate) target_figures_lost: usize,
    pub(crate) hits_on_charger: usize,
    pub(crate) platform_figures_lost: usize,
    pub(crate) crew_lost: usize,
    pub(crate) target_morale: usize,
    pub(crate) target_held: usize,
    pub(crate) target_fell_back: usize,
    pub(crate) target_routed: usize,
    pub(crate) target_destroyed: usize,
    pub(crate) charger_destroyed: usize,
    pub(crate) platform_uncontrolled: usize,
    /// The charger's figures facing its target and the target's facing the charger, where
    /// their blocks touch: geometry only, and neither block moves during a charge, so it
    /// is worked out once for every trial.
    pub(crate) facing: (u32, u32),
}

/// The metric indices of a rout.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RoutSlots {
    heading: usize,
    rerolls: usize,
    contacts: usize,
    units_contacted: usize,
    beasts_figures_lost: usize,
    beasts_destroyed: usize,
    left_board: usize,
    stopped: usize,
    distance: usize,
    friendly_figures_lost: usize,
    enemy_figures_lost: usize,
    units_off_board: usize,
    /// Per unit (by index; `usize::MAX` for the routing unit): contacted, figures lost, displaced.
    per_unit: Vec<[usize; 3]>,
    /// The metrics that are no unit's (every trial counts them; see `RoutRecorder`).
    common: Vec<usize>,
}

/// Which metrics a plan fills.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Slots {
    /// A charge's.
    Charge(ChargeSlots),
    /// A rout's.
    Rout(RoutSlots),
}

/// A scenario compiled for play: the scenario and its metrics.
#[derive(Clone, Debug)]
pub struct BattlesystemPlan {
    /// The validated scenario.
    pub scenario: BattlesystemScenario,
    /// Its metrics, in report order.
    pub metrics: MetricSet,
    /// Where each metric sits.
    pub slots: Slots,
    /// Path map columns and rows (1" cells).
    pub grid: (usize, usize),
    /// Unique among the plans compiled by this process: a thread's remembered rout steps
    /// belong to one plan, and a plan compiled later (even at the same address) starts
    /// afresh.
    pub id: u64,
    /// The rout steps worked out so far for this plan, shared by every thread that plays
    /// it (each step's geometry is worked out once, whichever thread meets it first).
    pub(crate) steps: std::sync::Arc<rout::SharedSteps>,
    /// Every unit as a trial begins, worked out once (a trial copies them).
    fresh: Vec<UnitState>,
    /// A charge's attack tables, worked out with the plan (none for a rout, or a charge on
    /// a platform: those attacks are looked up by key in each thread's [`AttackTables`]).
    charge_tables: Option<ChargeTables>,
}

impl BattlesystemPlan {
    /// The range of a charge's volley `v`: the archers aboard shoot at the gap as the
    /// charge begins, then at half of it on the way in.
    pub(crate) fn volley_range(&self, v: u32) -> f64 {
        let gap = match self.scenario.action {
            Action::Charge { gap, .. } => gap,
            Action::Rout { .. } => 0.0,
        };
        if v == 0 { gap } else { gap / 2.0 }
    }
}

/// The next plan's [`BattlesystemPlan::id`].
static NEXT_PLAN_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Compiles a scenario into its plan.
pub fn compile(scenario: &BattlesystemScenario) -> BattlesystemPlan {
    let mut m = MetricSet::default();
    let slots = match &scenario.action {
        Action::Charge { unit, target, .. } => {
            let (c, t) = (&scenario.units[*unit].name, &scenario.units[*target].name);
            let (cu, tu) = (&scenario.units[*unit], &scenario.units[*target]);
            let facing =
                (fight::defenders_facing(cu, &cu.block, &tu.block), fight::defenders_facing(tu, &tu.block, &cu.block));
            Slots::Charge(ChargeSlots {
                facing,
                volley_hits: m.add("volley_hits", format!("missile hits on {t} that got through armour"), false),
                volley_kills: m.add("volley_kills", format!("{t} figures removed by missiles"), false),
                hits_on_target: m.add("hits_on_target", format!("melee hits on {t} that got through armour"), false),
                target_figures_lost: m.add(
                    "target_figures_lost",
                    format!("{t} figures removed in all (missiles and melee)"),
                    false,
                ),
                hits_on_charger: m.add("hits_on_charger", format!("melee hits on {c} that got through armour"), false),
                platform_figures_lost: m.add("platform_figures_lost", format!("{c} platform figures removed"), false),
                crew_lost: m.add("crew_lost", format!("crew figures of {c} removed"), false),
                target_morale: m.add_named("target_morale", format!("morale result of {t}"), &MoraleResult::NAMES),
                target_held: m.add("target_held", format!("{t} held"), true),
                target_fell_back: m.add("target_fell_back", format!("{t} fell back"), true),
                target_routed: m.add("target_routed", format!("{t} routed"), true),
                target_destroyed: m.add("target_destroyed", format!("{t} destroyed (no figure left)"), true),
                charger_destroyed: m.add("charger_destroyed", format!("every platform of {c} was removed"), true),
                platform_uncontrolled: m.add(
                    "platform_uncontrolled",
                    format!("{c} survived without a rider to control it"),
                    true,
                ),
            })
        }
        Action::Rout { unit, .. } => {
            let b = &scenario.units[*unit].name;
            let mut slots = RoutSlots {
                heading: m.add_circular("heading", format!("the first d12 clock direction {b} rolled (12 = +y)")),
                rerolls: m.add("rerolls", "new directions rolled after a struck unit stayed in the way", false),
                contacts: m.add("contacts", format!("contacts {b} made"), false),
                units_contacted: m.add("units_contacted", "distinct units contacted", false),
                beasts_figures_lost: m.add("beasts_figures_lost", format!("{b} figures removed"), false),
                beasts_destroyed: m.add("beasts_destroyed", format!("{b} were destroyed"), true),
                left_board: m.add("left_board", format!("{b} left the board (lost)"), true),
                stopped: m.add("stopped", format!("{b} stopped in contact, out of re-rolls"), true),
                distance: m.add("distance", format!("inches {b} moved (whole inches)"), false),
                friendly_figures_lost: m.add(
                    "friendly_figures_lost",
                    format!("figures trampled on the routing side (not counting {b})"),
                    false,
                ),
                enemy_figures_lost: m.add("enemy_figures_lost", "enemy figures trampled", false),
                units_off_board: m.add("units_off_board", "struck units displaced off the board", false),
                per_unit: Vec::new(),
                common: Vec::new(),
            };
            for (i, u) in scenario.units.iter().enumerate() {
                if i == *unit {
                    slots.per_unit.push([usize::MAX; 3]);
                    continue;
                }
                slots.per_unit.push([
                    m.add(format!("contacted.{}", u.key), format!("{} contacted", u.name), true),
                    m.add(format!("figures_lost.{}", u.key), format!("{} figures removed", u.name), false),
                    m.add(format!("displaced.{}", u.key), format!("{} fell back or routed", u.name), true),
                ]);
            }
            let per_unit = &slots.per_unit;
            slots.common = (0..m.len()).filter(|i| !per_unit.iter().any(|unit| unit.contains(i))).collect();
            Slots::Rout(slots)
        }
    };
    let grid = (scenario.board[0].ceil() as usize, scenario.board[1].ceil() as usize);
    let id = NEXT_PLAN_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let fresh = scenario.units.iter().map(UnitState::fresh).collect();
    let mut plan = BattlesystemPlan {
        scenario: scenario.clone(),
        metrics: m,
        slots,
        grid,
        id,
        steps: Default::default(),
        fresh,
        charge_tables: None,
    };
    if let (Slots::Charge(s), Action::Charge { unit, target, volleys, .. }) = (&plan.slots, &scenario.action) {
        let charger_contact = fight::melee_contacts(&plan, &plan.fresh, *unit, *target, Some(s.facing)).0;
        plan.charge_tables = ChargeTables::new(&plan, (*unit, *target, *volleys), charger_contact, s.facing.1);
    }
    plan
}

/// Something that happened in a trial, for replays.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum BattlesystemEvent {
    /// A missile volley.
    Volley {
        /// Range (gap between the blocks), inches.
        range: f64,
        /// Dice rolled.
        dice: u32,
        /// Hits through armour.
        hits: u32,
        /// Figures removed.
        removed: u32,
    },
    /// A melee exchange, both sides at once.
    Melee {
        /// The unit that moved into contact.
        attacker: usize,
        /// The unit struck.
        defender: usize,
        /// Attacker's figures (platforms) in contact.
        attacker_figures: u32,
        /// Defender's figures in contact.
        defender_figures: u32,
        /// Hits through armour on the defender.
        hits_on_defender: u32,
        /// Hits through armour on the attacker.
        hits_on_attacker: u32,
        /// Figures the defender lost.
        defender_lost: u32,
        /// Figures the attacker lost.
        attacker_lost: u32,
    },
    /// A morale check.
    Morale {
        /// The unit.
        unit: usize,
        /// Its 2d10.
        roll: u32,
        /// Its result.
        result: MoraleResult,
    },
    /// The routing unit's d12.
    Heading {
        /// The clock hour.
        hour: u32,
        /// Whether it is a re-roll.
        reroll: bool,
    },
    /// The routing unit moved.
    Move {
        /// Heading, degrees clockwise from +y.
        heading: f64,
        /// Degrees off the rolled line (veering).
        veer: f64,
        /// Inches.
        distance: f64,
        /// Where its centre ended.
        to: [f64; 2],
    },
    /// It touched a unit.
    Contact {
        /// The unit.
        unit: usize,
        /// How squarely the move went into it: the cosine between the heading and the
        /// normal of the face where they touch (above 0: into it; a turn in place, or a
        /// move away or alongside, never makes a contact).
        into: f64,
    },
    /// A struck unit was pushed back.
    Displaced {
        /// The unit.
        unit: usize,
        /// Inches moved.
        distance: f64,
        /// Whether that took it off the board.
        off_board: bool,
        /// Whether it still blocks the routing unit's path.
        still_blocking: bool,
        /// The gap between the beasts and it before the push (0 when touching).
        gap_before: f64,
        /// The gap after (a push away never shrinks it; none when off the board).
        gap_after: Option<f64>,
    },
    /// Where every unit stands when the rout ends (`None`: off the board or destroyed).
    Finished {
        /// Each unit's block, in scenario order.
        blocks: Vec<Option<Block>>,
    },
    /// The routing unit left the board.
    LeftBoard,
    /// The rout ended in contact with no re-rolls left.
    Stopped,
}

/// Crew groups a platform may carry (the scenario allows at most this many).
pub(crate) const MAX_CREW_GROUPS: usize = super::scenario::MAX_CREW_GROUPS;

/// A unit during a trial (fixed size, so a trial allocates nothing).
#[derive(Clone, Copy, Debug, Default)]
struct UnitState {
    figures: u32,
    carried: u32,
    crew_alive: [u32; MAX_CREW_GROUPS],
    crew_carried: [u32; MAX_CREW_GROUPS],
    block: Option<Block>,
    contacted: bool,
    displaced: bool,
    lost: u32,
}

impl UnitState {
    fn fresh(unit: &Unit) -> Self {
        let mut crew_alive = [0; MAX_CREW_GROUPS];
        for (alive, c) in crew_alive.iter_mut().zip(&unit.crew) {
            *alive = c.count * unit.figures;
        }
        Self { figures: unit.figures, crew_alive, block: Some(unit.block), ..Self::default() }
    }
}

/// What a unit lost to one attack.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Losses {
    through: u32,
    figures: u32,
    crew: u32,
}

/// Reusable per-thread buffers.
#[derive(Clone, Debug)]
pub struct Scratch {
    states: Vec<UnitState>,
    values: Vec<u16>,
    stamp: Vec<u64>,
    generation: u64,
    cells: Vec<usize>,
    steps: StepMemo,
    attacks: AttackTables,
    /// Whether a rout notes its walk through the memo's nodes (`walk`) instead of marking
    /// its cells: set while [`tally_trials`] counts trials by their walks.
    count_walks: bool,
    /// The memo's nodes the last rout walked, in order, when `count_walks`.
    walk: Vec<u32>,
    /// The plan whose units `states` holds ([`BattlesystemPlan::id`]; 0: none yet).
    states_of: u64,
    /// The units the last trial may have changed, a bit each (all bits: any of them): the
    /// next trial of the same plan resets only those, as a rout touches only the beasts
    /// and the units they meet.
    touched: u64,
}

thread_local! {
    /// The remembered rout steps of this thread's last scratch: a run makes a fresh scratch
    /// for each share of its blocks, and each would otherwise look its steps up again in the
    /// plan's shared store and link them anew.
    static SPARE_STEPS: std::cell::RefCell<Option<StepMemo>> = const { std::cell::RefCell::new(None) };
    /// The attack tables of this thread's last scratch, kept for the next share of blocks
    /// likewise.
    static SPARE_ATTACKS: std::cell::RefCell<Option<AttackTables>> = const { std::cell::RefCell::new(None) };
}

impl Default for Scratch {
    fn default() -> Self {
        Self {
            states: Vec::new(),
            values: Vec::new(),
            stamp: Vec::new(),
            generation: 0,
            cells: Vec::new(),
            count_walks: false,
            walk: Vec::new(),
            states_of: 0,
            touched: u64::MAX,
            attacks: SPARE_ATTACKS.with(|spare| spare.borrow_mut().take()).unwrap_or_default(),
            steps: SPARE_STEPS.with(|spare| spare.borrow_mut().take()).unwrap_or_default(),
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let attacks = std::mem::take(&mut self.attacks);
        let _ = SPARE_ATTACKS.try_with(|spare| *spare.borrow_mut() = Some(attacks));
        if self.steps.remember {
            let steps = std::mem::take(&mut self.steps);
            // A thread being torn down has no spare to keep: then the steps just go.
            let _ = SPARE_STEPS.try_with(|spare| *spare.borrow_mut() = Some(steps));
        }
    }
}

impl Scratch {
    /// A scratch that works out every rout step afresh instead of remembering it: slower,
    /// and for tests that prove remembering changes nothing.
    pub fn uncompiled() -> Self {
        let mut scratch = Self::default();
        scratch.steps.remember = false;
        scratch
    }

    /// The path map cells (row-major 1" cells) the last trial's routing unit crossed, each
    /// once, in the order first crossed.
    pub fn cells_crossed(&self) -> &[usize] {
        &self.cells
    }
}

/// Plays one trial, writing its metric values into `scratch.values` and the path cells it
/// crossed (each once) into `scratch.cells`.
fn play(
    plan: &BattlesystemPlan,
    streams: Streams,
    trial: u64,
    scratch: &mut Scratch,
    trace: &mut Option<Vec<BattlesystemEvent>>,
) {
    let mut dice = streams_dice(streams, trial);
    scratch.values.clear();
    scratch.values.resize(plan.metrics.len(), 0);
    scratch.cells.clear();
    reset_states(plan, scratch);
    match (&plan.slots, &plan.scenario.action) {
        (Slots::Charge(slots), Action::Charge { unit, target, volleys, gap }) => {
            charge(plan, slots, (*unit, *target, *volleys, *gap), scratch, &mut dice, trace);
        }
        (Slots::Rout(slots), Action::Rout { unit, first_hour }) => {
            rout(plan, slots, *unit, *first_hour, scratch, &mut dice, trace);
        }
        _ => unreachable!("a plan's slots are compiled from its own action"),
    }
}

/// Gives every unit its state as a trial begins: a copy of the plan's fresh units, or, when
/// the last trial was of the same plan, of only those it touched.
fn reset_states(plan: &BattlesystemPlan, scratch: &mut Scratch) {
    let units = plan.fresh.len();
    if scratch.states_of == plan.id && scratch.states.len() == units && units <= 64 {
        for i in rout::units_of(scratch.touched).take_while(|&i| i < units) {
            scratch.states[i] = plan.fresh[i];
        }
    } else {
        scratch.states.clear();
        scratch.states.extend_from_slice(&plan.fresh);
        scratch.states_of = plan.id;
    }
    // Until the trial says which units it touches, any may change.
    scratch.touched = u64::MAX;
}

fn streams_dice(streams: Streams, trial: u64) -> Dice {
    streams.trial_key(trial).dice(Phase::Charge)
}

fn to_u16(x: u32) -> u16 {
    x.min(u32::from(u16::MAX)) as u16
}

/// A new, empty tally for `plan`.
pub fn new_tally(plan: &BattlesystemPlan) -> BattlesystemTally {
    BattlesystemTally::new(plan.metrics.len(), plan.grid.0, plan.grid.1)
}

/// Tallies a rout's trials without the units each never met: most trials meet one or two
/// of the battle's units, and the others' three metrics are zero, so counting those zeros
/// trial by trial was most of a rout's tallying. A unit's metrics are counted in the trials
/// that touched it ([`Scratch::touched`]), and its zeros from the others once, at the end.
struct RoutRecorder<'a> {
    /// The metrics every trial counts (the rout's own, not a unit's).
    common: &'a [usize],
    /// Each unit's metrics (none for the beasts).
    per_unit: &'a [[usize; 3]],
    /// The beasts' bit: not a unit met.
    beasts: u64,
    /// Trials counted.
    trials: u64,
    /// Trials that touched each unit.
    touched: Vec<u64>,
}

impl<'a> RoutRecorder<'a> {
    fn new(slots: &'a RoutSlots, beasts: usize) -> Self {
        let touched = vec![0; slots.per_unit.len()];
        Self { common: &slots.common, per_unit: &slots.per_unit, beasts: rout::unit_bit(beasts), trials: 0, touched }
    }

    /// Counts one trial's values, `touched` the units it may have changed.
    #[inline]
    fn record(&mut self, tally: &mut BattlesystemTally, values: &[u16], touched: u64) {
        self.trials += 1;
        tally.trials += 1;
        for &m in self.common {
            count_value(&mut tally.histograms[m], values[m]);
        }
        for unit in rout::units_of(touched & !self.beasts) {
            let Some(metrics) = self.per_unit.get(unit) else { continue };
            self.touched[unit] += 1;
            for &m in metrics {
                count_value(&mut tally.histograms[m], values[m]);
            }
        }
    }

    /// Counts the zeros of every unit in the trials that did not touch it.
    fn finish(&self, tally: &mut BattlesystemTally) {
        for (metrics, &touched) in self.per_unit.iter().zip(&self.touched) {
            for &m in metrics.iter().filter(|&&m| m != usize::MAX) {
                tally.histograms[m][0] += self.trials - touched;
            }
        }
    }
}

/// Plays and tallies trials `trials` on this thread.
pub fn tally_trials(
    plan: &BattlesystemPlan,
    streams: Streams,
    trials: std::ops::Range<u64>,
    scratch: &mut Scratch,
) -> BattlesystemTally {
    let mut tally = new_tally(plan);
    let mut none = None;
    if matches!(plan.slots, Slots::Charge(_)) && plan.metrics.len() <= COUNTED_METRICS {
        // A charge crosses no path cells, and its rows repeat: counted whole.
        let mut counter = OutcomeCounter::new(plan.metrics.len());
        for t in trials {
            play(plan, streams, t, scratch, &mut none);
            counter.record(&scratch.values, &mut tally);
        }
        counter.drain_into(&mut tally);
        return tally;
    }
    if let (Action::Rout { unit, .. }, true) = (&plan.scenario.action, scratch.steps.remember) {
        // A rout's path map counted by the walks its trials take (see `WalkCounter`).
        let beasts = *unit;
        scratch.count_walks = true;
        let Slots::Rout(slots) = &plan.slots else { unreachable!("a rout's plan has a rout's slots") };
        let mut recorder = RoutRecorder::new(slots, beasts);
        for t in trials {
            if scratch.steps.will_forget(plan) {
                scratch.steps.drain_walks_into(
                    &mut tally.path,
                    plan,
                    beasts,
                    &mut scratch.stamp,
                    &mut scratch.generation,
                );
            }
            play(plan, streams, t, scratch, &mut none);
            recorder.record(&mut tally, &scratch.values, scratch.touched);
            scratch.steps.walks.count(&scratch.walk);
        }
        recorder.finish(&mut tally);
        scratch.steps.drain_walks_into(&mut tally.path, plan, beasts, &mut scratch.stamp, &mut scratch.generation);
        scratch.count_walks = false;
        return tally;
    }
    for t in trials {
        play(plan, streams, t, scratch, &mut none);
        tally.record(&scratch.values);
        for &cell in &scratch.cells {
            tally.path[cell] += 1;
        }
    }
    tally
}

/// Plays the trials of `range` on the current rayon pool and tallies them, in the engine's
/// fixed blocks (so the tally does not depend on the thread count).
pub fn run(
    plan: &BattlesystemPlan,
    streams: Streams,
    range: TrialRange,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> Result<BattlesystemTally, Interrupted> {
    crate::engine::run(plan, streams, range, progress, cancel)
}

impl crate::engine::RuleSystem for BattlesystemPlan {
    type Metric = crate::engine::MetricDef;
    type Tally = BattlesystemTally;
    type Scratch = Scratch;
    const SYSTEM: &'static str = "battlesystem";

    fn metrics(&self) -> Vec<crate::engine::MetricDef> {
        self.metrics.defs.clone()
    }
    fn empty_tally(&self) -> BattlesystemTally {
        new_tally(self)
    }
    fn tally_block(&self, streams: Streams, trials: std::ops::Range<u64>, scratch: &mut Scratch) -> BattlesystemTally {
        tally_trials(self, streams, trials, scratch)
    }
    fn histogram<'t>(&self, tally: &'t BattlesystemTally, index: usize) -> &'t [u64] {
        tally.histogram(index)
    }
    fn play_values(&self, streams: Streams, trial: u64, scratch: &mut Scratch, values: &mut Vec<u16>) {
        play(self, streams, trial, scratch, &mut None);
        values.clear();
        values.extend_from_slice(&scratch.values);
    }
}

/// Replays one trial: its metric values (in plan order) and its events.
pub fn replay(plan: &BattlesystemPlan, streams: Streams, trial: u64) -> (Vec<u16>, Vec<BattlesystemEvent>) {
    let mut scratch = Scratch::default();
    let mut trace = Some(Vec::new());
    play(plan, streams, trial, &mut scratch, &mut trace);
    (std::mem::take(&mut scratch.values), trace.unwrap_or_default())
}

#[cfg(test)]
mod tests;
