//! Playing BATTLESYSTEM trials: a battle platform's charge (missile volleys on the way in,
//! then a simultaneous melee and the target's morale check), or a unit of beasts routing in
//! a d12 direction, veering round units, trampling what it cannot avoid and rolling a new
//! direction when a struck unit does not clear its path.
//!
//! As for MESBG, trial `t` draws only from the stream keyed by `(seed, scenario hash, t)`
//! and trials are tallied in fixed blocks merged by integer addition: the tally does not
//! depend on the number of threads, and any trial can be replayed alone with its events.

use super::board::{self, Block};
use super::scenario::{Action, BattleScenario, ChargeDoubles, PlatformHits, Role, StruckUnitMoves, Unit, Veer};
use super::tally::{BattleTally, MetricSet};
use crate::battlesystem::rules::{
    Attack, AttackDie, MoraleResult, PlatformRoll, attack_hits, clock_heading, die, platform_crew_hits,
};
use crate::dice::{Dice, Phase};
use crate::engine::{Interrupted, Streams, TrialRange};
use crate::geometry::Vec2;
use serde::Serialize;
use std::sync::atomic::AtomicBool;

mod rout;

use rout::{StepMemo, rout};
pub use rout::{cells_crossed, for_each_cell_crossed};

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
pub struct BattlePlan {
    /// The validated scenario.
    pub scenario: BattleScenario,
    /// Its metrics, in report order.
    pub metrics: MetricSet,
    /// Where each metric sits.
    pub slots: Slots,
    /// Path map columns and rows (1" cells).
    pub grid: (usize, usize),
}

/// Compiles a scenario into its plan.
pub fn compile(scenario: &BattleScenario) -> BattlePlan {
    let mut m = MetricSet::default();
    let slots = match &scenario.action {
        Action::Charge { unit, target, .. } => {
            let (c, t) = (&scenario.units[*unit].name, &scenario.units[*target].name);
            Slots::Charge(ChargeSlots {
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
                heading: m.add("heading", format!("the first d12 clock direction {b} rolled (12 = +y)"), false),
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
            Slots::Rout(slots)
        }
    };
    let grid = (scenario.board[0].ceil() as usize, scenario.board[1].ceil() as usize);
    BattlePlan { scenario: scenario.clone(), metrics: m, slots, grid }
}

/// Something that happened in a trial, for replays.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum BattleEvent {
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

/// Rolls the armour d10 for each of `hits` and removes figures (platform or crew, by the
/// option in force) as hits accumulate.
fn take_hits(plan: &BattlePlan, unit: &Unit, state: &mut UnitState, hits: u32, dice: &mut Dice) -> Losses {
    let armour = plan.scenario.rules.attack.armour;
    let mut losses = Losses::default();
    let crew_first = unit.is_platform() && plan.scenario.rules.platform_hits == PlatformHits::CrewFirst;
    for _ in 0..hits {
        // Crew first: fighters and archers in order, riders last, then the platforms.
        let crew_target = if crew_first {
            let fighting = unit.crew.iter().enumerate().filter(|(_, c)| c.role != Role::Rider);
            let riders = unit.crew.iter().enumerate().filter(|(_, c)| c.role == Role::Rider);
            fighting.chain(riders).map(|(g, _)| g).find(|&g| state.crew_alive[g] > 0)
        } else {
            None
        };
        let ar = crew_target.map_or(unit.stats.ar, |g| unit.crew[g].ar);
        if armour.cancels(die(10, dice), ar) {
            continue;
        }
        losses.through += 1;
        match crew_target {
            Some(g) => {
                state.crew_carried[g] += 1;
                if state.crew_carried[g] >= unit.crew[g].hits {
                    state.crew_carried[g] = 0;
                    state.crew_alive[g] -= 1;
                    losses.crew += 1;
                }
            }
            None if state.figures > 0 => {
                state.carried += 1;
                if state.carried >= unit.stats.hits {
                    state.carried = 0;
                    state.figures -= 1;
                    losses.figures += 1;
                    // The crew of a removed platform fall with it: no more stay aboard
                    // than the surviving platforms carry.
                    for (g, c) in unit.crew.iter().enumerate() {
                        let removed = state.crew_alive[g].saturating_sub(c.count * state.figures);
                        state.crew_alive[g] -= removed;
                        losses.crew += removed;
                    }
                }
            }
            None => {}
        }
    }
    losses
}

/// The crew fighting on the next platform: takes up to each group's `count` from `left`
/// (the crew not yet placed on a platform), spares the one rider a platform needs, and
/// writes the fighting groups as (figures, die) into `groups`. Returns how many it wrote.
pub(crate) fn fighting_crew(
    unit: &Unit,
    left: &mut [u32; MAX_CREW_GROUPS],
    groups: &mut [(u32, AttackDie); MAX_CREW_GROUPS],
) -> usize {
    let mut n = 0;
    let mut rider_spared = false;
    for (g, c) in unit.crew.iter().enumerate() {
        let mut aboard = c.count.min(left[g]);
        left[g] -= aboard;
        if c.role == Role::Rider && !rider_spared && aboard > 0 {
            rider_spared = true;
            aboard -= 1;
        }
        if aboard > 0 {
            groups[n] = (aboard, c.ad);
            n += 1;
        }
    }
    n
}

/// The hits (before armour) a unit scores in melee with `in_contact` figures, under the
/// charge multipliers when it is charging.
fn melee_hits(
    plan: &BattlePlan,
    unit: &Unit,
    state: &UnitState,
    in_contact: u32,
    charging: bool,
    dice: &mut Dice,
) -> u32 {
    let rules = &plan.scenario.rules;
    let doubled = |which: ChargeDoubles| {
        charging && (rules.charge_doubles == which || rules.charge_doubles == ChargeDoubles::Both)
    };
    let crew_mult = if doubled(ChargeDoubles::Crew) { (2, 1) } else { (1, 1) };
    let own_mult = if !unit.is_platform() {
        crew_mult
    } else if doubled(ChargeDoubles::Platform) {
        (2, 1)
    } else {
        (1, 1)
    };
    let table = &rules.attack.hits_table;
    if !unit.is_platform() {
        let a = Attack {
            figures: in_contact,
            die: unit.stats.ad,
            multiplier: own_mult,
            platform: None,
            platform_roll: PlatformRoll::Shared,
            defender_ar: 0,
        };
        return attack_hits(&a, table, dice);
    }
    let mut hits = 0;
    // Each platform in contact adds its roll to its own crew's dice. Crew are spread over
    // the surviving platforms; the one rider a platform needs does not fight.
    let mut left = state.crew_alive;
    let mut groups = [(0, AttackDie::D4); MAX_CREW_GROUPS];
    for _ in 0..in_contact {
        let n = fighting_crew(unit, &mut left, &mut groups);
        hits += platform_crew_hits(unit.stats.ad, &groups[..n], crew_mult, rules.platform_roll, table, dice);
    }
    if rules.platform_attacks_alone {
        let a = Attack {
            figures: in_contact,
            die: unit.stats.ad,
            multiplier: own_mult,
            platform: None,
            platform_roll: PlatformRoll::Shared,
            defender_ar: 0,
        };
        hits += attack_hits(&a, table, dice);
    }
    hits
}

/// Figures of `defender` that strike back at `attacker`: those whose bases lie along the
/// stretch where the two blocks touch. The contact face is the separating axis with the
/// smallest gap; the stretch is the overlap of the two blocks across it; each figure takes
/// its base's extent along the stretch, and no more figures fit than stand along that face
/// of the defender (a rank across its front or back, its ranks along a flank), nor more than
/// it has left. A column two figures wide meets a 4"-wide dragon with two figures.
fn defenders_in_contact(defender: &Unit, state: &UnitState, attacker: &Block) -> u32 {
    let Some(d) = state.block else { return 0 };
    if state.figures == 0 {
        return 0;
    }
    let contact_face = board::contact_face(attacker, &d);
    let along = contact_face.right();
    let overlap = board::overlap_along(attacker, &d, along);
    let d_forward = Vec2::heading(d.facing);
    let across_front = along.dot(d_forward.right()).abs() >= along.dot(d_forward).abs();
    let (base_along, on_face) = if across_front {
        (defender.base[0], defender.frontage)
    } else {
        (defender.base[1], defender.figures.div_ceil(defender.frontage.max(1)))
    };
    let fit = ((overlap / base_along) - 1e-9).ceil().max(1.0) as u32;
    fit.min(on_face).min(state.figures)
}

/// Figures of a charge's target that strike back while it has every figure (with fewer
/// left, the fewer of this and those left): the exact engine's view of
/// [`defenders_in_contact`], whose stretch of contact does not change during a charge.
pub(crate) fn charge_target_in_contact(plan: &BattlePlan, charger: usize, target: usize) -> u32 {
    let units = &plan.scenario.units;
    defenders_in_contact(&units[target], &UnitState::fresh(&units[target]), &units[charger].block)
}

/// A simultaneous melee between the unit that moved into contact and the unit it struck.
/// Returns (attacker's losses, defender's losses).
fn melee(
    plan: &BattlePlan,
    states: &mut [UnitState],
    attacker: usize,
    defender: usize,
    charging: bool,
    dice: &mut Dice,
    trace: &mut Option<Vec<BattleEvent>>,
) -> (Losses, Losses) {
    let units = &plan.scenario.units;
    let (a, d) = (&units[attacker], &units[defender]);
    let a_block = states[attacker].block.unwrap_or(a.block);
    let a_contact = states[attacker].figures.min(a.frontage);
    let d_contact = defenders_in_contact(d, &states[defender], &a_block);
    // Both roll before either removes a figure.
    let on_defender = melee_hits(plan, a, &states[attacker], a_contact, charging, dice);
    let on_attacker = melee_hits(plan, d, &states[defender], d_contact, false, dice);
    let d_losses = take_hits(plan, d, &mut states[defender], on_defender, dice);
    let a_losses = take_hits(plan, a, &mut states[attacker], on_attacker, dice);
    if let Some(t) = trace {
        t.push(BattleEvent::Melee {
            attacker,
            defender,
            attacker_figures: a_contact,
            defender_figures: d_contact,
            hits_on_defender: d_losses.through,
            hits_on_attacker: a_losses.through,
            defender_lost: d_losses.figures,
            attacker_lost: a_losses.figures,
        });
    }
    (a_losses, d_losses)
}

fn morale(plan: &BattlePlan, unit: usize, dice: &mut Dice, trace: &mut Option<Vec<BattleEvent>>) -> MoraleResult {
    let roll = die(10, dice) + die(10, dice);
    let result = plan.scenario.rules.morale.result(roll, plan.scenario.units[unit].stats.ml);
    if let Some(t) = trace {
        t.push(BattleEvent::Morale { unit, roll, result });
    }
    result
}

/// Reusable per-thread buffers.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    states: Vec<UnitState>,
    values: Vec<u16>,
    stamp: Vec<u64>,
    generation: u64,
    cells: Vec<usize>,
    steps: StepMemo,
}

/// Plays one trial, writing its metric values into `scratch.values` and the path cells it
/// crossed (each once) into `scratch.cells`.
fn play(plan: &BattlePlan, streams: Streams, trial: u64, scratch: &mut Scratch, trace: &mut Option<Vec<BattleEvent>>) {
    let mut dice = streams_dice(streams, trial);
    scratch.values.clear();
    scratch.values.resize(plan.metrics.len(), 0);
    scratch.cells.clear();
    scratch.states.clear();
    scratch.states.extend(plan.scenario.units.iter().map(UnitState::fresh));
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

fn streams_dice(streams: Streams, trial: u64) -> Dice {
    crate::dice::trial_dice(streams.seed, streams.key, trial, Phase::Charge)
}

fn to_u16(x: u32) -> u16 {
    x.min(u32::from(u16::MAX)) as u16
}

fn charge(
    plan: &BattlePlan,
    s: &ChargeSlots,
    (unit, target, volleys, gap): (usize, usize, u32, f64),
    scratch: &mut Scratch,
    dice: &mut Dice,
    trace: &mut Option<Vec<BattleEvent>>,
) {
    let units = &plan.scenario.units;
    let (c, t) = (&units[unit], &units[target]);
    let table = &plan.scenario.rules.attack.hits_table;
    let states = &mut scratch.states;
    let out = &mut scratch.values;
    let (mut volley_hits, mut volley_kills) = (0, 0);
    // Volleys at the start of the charge and halfway in: archers aboard shoot as if
    // stationary, with the range band's multiplier on their dice.
    for v in 0..volleys {
        let range = if v == 0 { gap } else { gap / 2.0 };
        let mut raw = 0;
        let mut rolled = 0;
        for (g, crew) in c.crew.iter().enumerate().filter(|(_, cr)| cr.role == Role::Archer) {
            if let Some(band) = crew.bands.iter().find(|b| range >= b.from && range < b.to) {
                let a = Attack {
                    figures: states[unit].crew_alive[g],
                    die: crew.ad,
                    multiplier: (band.hundredths, 100),
                    platform: None,
                    platform_roll: PlatformRoll::Shared,
                    defender_ar: 0,
                };
                rolled += crate::battlesystem::rules::dice_count(a.figures, band.hundredths, 100);
                raw += attack_hits(&a, table, dice);
            }
        }
        let losses = take_hits(plan, t, &mut states[target], raw, dice);
        volley_hits += losses.through;
        volley_kills += losses.figures;
        if let Some(tr) = trace {
            tr.push(BattleEvent::Volley { range, dice: rolled, hits: losses.through, removed: losses.figures });
        }
        if states[target].figures == 0 {
            break;
        }
    }
    out[s.volley_hits] = to_u16(volley_hits);
    out[s.volley_kills] = to_u16(volley_kills);
    let (mut on_target, mut on_charger) = (Losses::default(), Losses::default());
    if states[target].figures > 0 {
        (on_charger, on_target) = melee(plan, states, unit, target, true, dice, trace);
    }
    out[s.hits_on_target] = to_u16(on_target.through);
    out[s.target_figures_lost] = to_u16(volley_kills + on_target.figures);
    out[s.hits_on_charger] = to_u16(on_charger.through);
    out[s.platform_figures_lost] = to_u16(on_charger.figures);
    out[s.crew_lost] = to_u16(on_charger.crew);
    let result = if states[target].figures == 0 { 3 } else { morale(plan, target, dice, trace) as u16 };
    out[s.target_morale] = result;
    out[[s.target_held, s.target_fell_back, s.target_routed, s.target_destroyed][usize::from(result)]] = 1;
    let charger = &states[unit];
    out[s.charger_destroyed] = u16::from(charger.figures == 0);
    let riders: u32 =
        c.crew.iter().zip(&charger.crew_alive).filter(|(cr, _)| cr.role == Role::Rider).map(|(_, n)| n).sum();
    out[s.platform_uncontrolled] = u16::from(charger.figures > 0 && riders == 0);
}

/// A new, empty tally for `plan`.
pub fn new_tally(plan: &BattlePlan) -> BattleTally {
    BattleTally::new(plan.metrics.len(), plan.grid.0, plan.grid.1)
}

/// Plays and tallies trials `trials` on this thread.
pub fn tally_trials(
    plan: &BattlePlan,
    streams: Streams,
    trials: std::ops::Range<u64>,
    scratch: &mut Scratch,
) -> BattleTally {
    let mut tally = new_tally(plan);
    let mut none = None;
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
    plan: &BattlePlan,
    streams: Streams,
    range: TrialRange,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> Result<BattleTally, Interrupted> {
    crate::engine::run(plan, streams, range, progress, cancel)
}

impl crate::engine::RuleSystem for BattlePlan {
    type Metric = crate::engine::MetricDef;
    type Tally = BattleTally;
    type Scratch = Scratch;
    const SYSTEM: &'static str = "battlesystem";

    fn metrics(&self) -> Vec<crate::engine::MetricDef> {
        self.metrics.defs.clone()
    }
    fn empty_tally(&self) -> BattleTally {
        new_tally(self)
    }
    fn tally_block(&self, streams: Streams, trials: std::ops::Range<u64>, scratch: &mut Scratch) -> BattleTally {
        tally_trials(self, streams, trials, scratch)
    }
    fn merge_tally(into: &mut BattleTally, other: &BattleTally) {
        into.merge(other);
    }
    fn trials_in(tally: &BattleTally) -> u64 {
        tally.trials
    }
    fn histogram<'t>(&self, tally: &'t BattleTally, index: usize) -> &'t [u64] {
        tally.histogram(index)
    }
    fn play_values(&self, streams: Streams, trial: u64, scratch: &mut Scratch, values: &mut Vec<u16>) {
        play(self, streams, trial, scratch, &mut None);
        values.clear();
        values.extend_from_slice(&scratch.values);
    }
}

/// Replays one trial: its metric values (in plan order) and its events.
pub fn replay(plan: &BattlePlan, streams: Streams, trial: u64) -> (Vec<u16>, Vec<BattleEvent>) {
    let mut scratch = Scratch::default();
    let mut trace = Some(Vec::new());
    play(plan, streams, trial, &mut scratch, &mut trace);
    (scratch.values, trace.unwrap_or_default())
}

#[cfg(test)]
mod tests;
