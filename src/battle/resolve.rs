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
use crate::dice::{Dice, Phase};
use crate::engine::{Interrupted, Streams, TrialRange};
use crate::geometry::Vec2;
use crate::rules::battlesystem::{
    Attack, AttackDie, MoraleResult, PlatformRoll, attack_hits, clock_heading, die, platform_crew_hits,
};
use serde::Serialize;
use std::sync::atomic::AtomicBool;

/// The most contacts one rout may make before it is stopped (a guard; the re-roll limit
/// normally ends a rout long before).
pub const MAX_CONTACTS: u32 = 64;

/// The metric indices of a charge.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChargeSlots {
    volley_hits: usize,
    volley_kills: usize,
    hits_on_target: usize,
    target_figures_lost: usize,
    hits_on_charger: usize,
    platform_figures_lost: usize,
    crew_lost: usize,
    target_morale: usize,
    target_held: usize,
    target_fell_back: usize,
    target_routed: usize,
    target_destroyed: usize,
    charger_destroyed: usize,
    platform_uncontrolled: usize,
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
                rolled += crate::rules::battlesystem::dice_count(a.figures, band.hundredths, 100);
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

/// The beasts' block for a move along `heading`: turned to face it about its centre when
/// the turn has room, else as it stands. A turn is free, but never through another unit,
/// so turning in place can never put the beasts into (or count as trampling) a unit they
/// already touch: only a move that goes into a unit makes contact.
///
/// `near` is the set of units (a bit each) that could overlap any turn of `here` (see
/// [`within_turning_reach`]): usually none, so most candidate headings cost no test.
fn facing_for(states: &[UnitState], near: u32, here: &Block, heading: f64, dir: Vec2) -> Block {
    let turned = here.turned_along(heading, dir);
    let crowded = near != 0
        && states
            .iter()
            .enumerate()
            .any(|(i, st)| near & (1 << i) != 0 && st.block.as_ref().is_some_and(|other| turned.overlaps(other)));
    if crowded { *here } else { turned }
}

/// The units (a bit each) that the beasts at `here` could touch on a move of `length`
/// inches in any direction (turned any way): their bounding circles come within the move's
/// reach. A unit outside it fails every contact test's broad phase, so leaving it out of
/// the step's tests changes nothing but the time they take.
fn within_move_reach(states: &[UnitState], beasts: usize, here: &Block, length: f64) -> u32 {
    let reach = board::circumradius(here) + length.max(0.0) + 1e-9;
    let mut among = 0u32;
    for (i, st) in states.iter().enumerate().take(32) {
        if i == beasts || st.figures == 0 {
            continue;
        }
        if let Some(other) = &st.block {
            let limit = reach + board::circumradius(other);
            let offset = other.centre - here.centre;
            if offset.dot(offset) <= limit * limit {
                among |= 1 << i;
            }
        }
    }
    among
}

/// The units (a bit each; the scenario allows at most 16) whose blocks come within reach
/// of `here` turned any way about its centre: their bounding circles meet its own.
fn within_turning_reach(states: &[UnitState], beasts: usize, here: &Block) -> u32 {
    let reach = board::circumradius(here);
    let mut near = 0u32;
    for (i, st) in states.iter().enumerate().take(32) {
        if i == beasts || st.figures == 0 {
            continue;
        }
        if let Some(other) = &st.block {
            let d = (other.centre - here.centre).length();
            if d <= reach + board::circumradius(other) + 1e-9 {
                near |= 1 << i;
            }
        }
    }
    near
}

/// With `struck_unit_moves = "aside"`: the sideways way out of the beasts' path for the
/// rest of their move (across their heading `dir`), the shorter side first, when it is
/// no longer than the displacement and meets no other unit: (direction, distance).
fn step_aside(
    states: &[UnitState],
    beasts: usize,
    struck: usize,
    beast_block: &Block,
    block: &Block,
    dir: Vec2,
    push: f64,
) -> Option<(Vec2, f64)> {
    let across = dir.right();
    let (cb, rb) = (beast_block.centre.dot(across), board::half_extent(beast_block, across));
    let (cu, ru) = (block.centre.dot(across), board::half_extent(block, across));
    let right = (cb + rb) - (cu - ru) + 1e-6;
    let left = (cu + ru) - (cb - rb) + 1e-6;
    let mut ways = [(across, right), (across.scale(-1.0), left)];
    ways.sort_by(|a, b| a.1.total_cmp(&b.1));
    ways.into_iter()
        .find(|&(way, d)| d < push && first_hit(states, u32::MAX, [struck, beasts], block, way, d).is_none())
}

/// The first unit among `among` (a bit each), other than those in `skip` and units gone,
/// that a block sliding along `dir` for `length` inches touches: (distance, unit).
fn first_hit(
    states: &[UnitState],
    among: u32,
    skip: [usize; 2],
    block: &Block,
    dir: Vec2,
    length: f64,
) -> Option<(f64, usize)> {
    let mut best: Option<(f64, usize)> = None;
    for (i, st) in states.iter().enumerate() {
        if among & (1 << (i & 31)) == 0 || skip.contains(&i) || st.figures == 0 {
            continue;
        }
        let Some(other) = &st.block else { continue };
        if let Some(d) = board::first_contact(block, dir, length, other)
            && best.is_none_or(|(b, _)| d < b)
        {
            best = Some((d, i));
        }
    }
    best
}

/// Whether a block sliding along `dir` for `length` inches touches any unit among `among`
/// (a bit each; units gone never count). Tries the unit that blocked last time first:
/// neighbouring veer angles are usually blocked by the same unit.
fn any_hit(states: &[UnitState], among: u32, block: &Block, dir: Vec2, length: f64, hint: &mut usize) -> bool {
    let blocks = |i: usize| {
        let st = &states[i];
        st.figures > 0
            && st.block.as_ref().is_some_and(|other| board::first_contact(block, dir, length, other).is_some())
    };
    if *hint < states.len() && among & (1 << (*hint & 31)) != 0 && blocks(*hint) {
        return true;
    }
    let mut rest = among & !(1u32.checked_shl(*hint as u32).unwrap_or(0));
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if i < states.len() && blocks(i) {
            *hint = i;
            return true;
        }
    }
    false
}

/// Marks every 1" cell of the path map that the segment `from`-`to` crosses (an exact grid
/// traversal: each cell whose interior or boundary the segment passes through, once per trial).
fn mark_path(scratch: &mut Scratch, grid: (usize, usize), from: Vec2, to: Vec2) {
    for_each_cell_crossed(from, to, |col, row| {
        if col < 0 || row < 0 || col as usize >= grid.0 || row as usize >= grid.1 {
            return;
        }
        let cell = row as usize * grid.0 + col as usize;
        if scratch.stamp[cell] != scratch.generation {
            scratch.stamp[cell] = scratch.generation;
            scratch.cells.push(cell);
        }
    });
}

/// Visits the unit grid cells (column, row) whose interior a segment passes through, in order
/// (Amanatides and Woo's traversal): from the cell of `from`, stepping to whichever cell
/// boundary the segment meets next, to the cell of `to`. A cell the segment only grazes at
/// a corner, or only reaches at its end point on a boundary, is not crossed.
pub fn for_each_cell_crossed(from: Vec2, to: Vec2, mut visit: impl FnMut(i64, i64)) {
    let d = to - from;
    let length = d.length();
    if length < 1e-12 {
        visit(from.x.floor() as i64, from.y.floor() as i64);
        return;
    }
    // The cells the segment is inside just after it starts and just before it ends.
    let nudge = d.scale(1e-9 / length);
    let (start, end) = (from + nudge, to - nudge);
    let (mut col, mut row) = (start.x.floor() as i64, start.y.floor() as i64);
    let (end_col, end_row) = (end.x.floor() as i64, end.y.floor() as i64);
    let step = |v: f64| {
        if v > 0.0 {
            1
        } else if v < 0.0 {
            -1
        } else {
            0
        }
    };
    let (sx, sy) = (step(d.x), step(d.y));
    // The fraction of the segment at which it meets the next vertical / horizontal boundary.
    let next = |p: f64, c: i64, s: i64, dv: f64| match s {
        0 => f64::INFINITY,
        1 => ((c + 1) as f64 - p) / dv,
        _ => (c as f64 - p) / dv,
    };
    let (mut tx, mut ty) = (next(from.x, col, sx, d.x), next(from.y, row, sy, d.y));
    let (dtx, dty) = (1.0 / d.x.abs(), 1.0 / d.y.abs());
    visit(col, row);
    let steps = (end_col - col).unsigned_abs() + (end_row - row).unsigned_abs();
    for _ in 0..steps {
        if (col, row) == (end_col, end_row) {
            break;
        }
        if (tx - ty).abs() < 1e-12 {
            // Through a corner: straight into the diagonal cell.
            col += sx;
            row += sy;
            tx += dtx;
            ty += dty;
        } else if tx < ty {
            col += sx;
            tx += dtx;
        } else {
            row += sy;
            ty += dty;
        }
        visit(col, row);
    }
}

/// [`for_each_cell_crossed`] as a list, in order.
pub fn cells_crossed(from: Vec2, to: Vec2) -> Vec<(i64, i64)> {
    let mut cells = Vec::new();
    for_each_cell_crossed(from, to, |c, r| cells.push((c, r)));
    cells
}

/// Where the beasts go next, which depends on the board alone (no dice): the heading
/// taken after veering, its unit vector, the beasts' block turned to it, where the move
/// leaves the board and the first unit it meets (distance, unit).
#[derive(Clone, Copy, Debug)]
struct RoutStep {
    heading: f64,
    veer: f64,
    dir: Vec2,
    turned: Block,
    exit: Option<f64>,
    hit: Option<(f64, usize)>,
}

/// The beasts' next move from `here` along the clock `line` with `remaining` inches to go,
/// the other units standing as in `states`: the smallest veer (clockwise first, within the
/// allowance) whose whole move is clear, or with `veer = "avoid_what_it_can"` the one that
/// meets only the unit it cannot avoid; then the turn (if it has room), the move and what it
/// meets.
fn rout_step(
    plan: &BattlePlan,
    states: &[UnitState],
    beasts: usize,
    here: Block,
    line: f64,
    remaining: f64,
) -> RoutStep {
    let rules = &plan.scenario.rules;
    let [width, depth] = plan.scenario.board;
    let near = within_turning_reach(states, beasts, &here);
    let among = within_move_reach(states, beasts, &here, remaining);
    // Veer: the smallest turn off the line (clockwise first) whose whole move is clear.
    let mut hint = usize::MAX;
    let mut clear_within = |heading: f64| {
        let dir = board::heading_vector(heading);
        let turned = facing_for(states, near, &here, heading, dir);
        let reach = board::leaves_board(turned.centre, dir, remaining, width, depth).unwrap_or(remaining);
        !any_hit(states, among, &turned, dir, reach, &mut hint)
    };
    let mut chosen = (line, 0.0);
    let mut clear = true;
    let steps = (rules.veer_degrees / rules.veer_step_degrees + 1e-9).floor() as i32;
    let offsets = || (1..=steps).flat_map(|k| [1.0, -1.0].map(|sign| sign * f64::from(k) * rules.veer_step_degrees));
    if !clear_within(line) {
        match offsets().find(|&off| clear_within(line + off)) {
            Some(off) => chosen = (line + off, off),
            None => {
                clear = false;
                if rules.veer == Veer::AvoidWhatItCan {
                    // Nothing clears the whole move. The unit met farthest away, over every
                    // heading within the allowance, is the one it cannot avoid; take the
                    // smallest turn (clockwise first) whose first contact is that unit,
                    // veering round every nearer one it can.
                    let first_met = |heading: f64| {
                        let dir = board::heading_vector(heading);
                        let turned = facing_for(states, near, &here, heading, dir);
                        first_hit(states, among, [beasts, beasts], &turned, dir, remaining)
                    };
                    let candidates: Vec<(f64, Option<(f64, usize)>)> =
                        std::iter::once(0.0).chain(offsets()).map(|off| (off, first_met(line + off))).collect();
                    let unavoidable = candidates
                        .iter()
                        .filter_map(|c| c.1)
                        .fold(
                            None,
                            |best: Option<(f64, usize)>, h| {
                                if best.is_none_or(|b| h.0 > b.0 + 1e-9) { Some(h) } else { best }
                            },
                        )
                        .map(|h| h.1);
                    if let Some(off) = candidates.iter().find(|c| c.1.map(|h| h.1) == unavoidable).map(|c| c.0) {
                        chosen = (line + off, off);
                    }
                }
            }
        }
    }
    let (heading, veer) = chosen;
    let heading = heading.rem_euclid(360.0);
    let dir = board::heading_vector(heading);
    let turned = facing_for(states, near, &here, heading, dir);
    let exit = board::leaves_board(turned.centre, dir, remaining, width, depth);
    // A heading found clear meets nothing: no need to look again.
    let hit =
        if clear { None } else { first_hit(states, among, [beasts, beasts], &turned, dir, exit.unwrap_or(remaining)) };
    RoutStep { heading, veer, dir, turned, exit, hit }
}

/// Rout steps already worked out in this thread, keyed by everything [`rout_step`] reads
/// that changes between trials: the beasts' block and line, the distance left and where
/// every other unit stands (or that it is gone). Trials retrace the same few boards over
/// and over (twelve first headings, a handful of morale results), so most steps are found
/// here instead of being recomputed; a step found is exactly the step computed.
#[derive(Clone, Debug, Default)]
struct StepMemo {
    steps: std::collections::HashMap<Box<[u64]>, RoutStep, std::hash::BuildHasherDefault<WordHasher>>,
    key: Vec<u64>,
}

/// The most steps a thread remembers (about 300 bytes each for the largest boards); when
/// full the memo starts again.
const MAX_REMEMBERED_STEPS: usize = 1 << 15;

impl StepMemo {
    fn step(
        &mut self,
        plan: &BattlePlan,
        states: &[UnitState],
        beasts: usize,
        here: Block,
        line: f64,
        remaining: f64,
    ) -> RoutStep {
        self.key.clear();
        self.key.extend([here.centre.x, here.centre.y, here.facing, line, remaining].map(f64::to_bits));
        for (i, st) in states.iter().enumerate() {
            match st.block.filter(|_| i != beasts && st.figures > 0) {
                Some(b) => self.key.extend([b.centre.x.to_bits(), b.centre.y.to_bits()]),
                None => self.key.extend([u64::MAX, u64::MAX]),
            }
        }
        if let Some(step) = self.steps.get(&self.key[..]) {
            return *step;
        }
        let step = rout_step(plan, states, beasts, here, line, remaining);
        if self.steps.len() >= MAX_REMEMBERED_STEPS {
            self.steps.clear();
        }
        self.steps.insert(self.key.clone().into_boxed_slice(), step);
        step
    }
}

/// A fast hasher for the memo's keys (words of float bits, not attacker-controlled).
#[derive(Default)]
struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

fn rout(
    plan: &BattlePlan,
    s: &RoutSlots,
    beasts: usize,
    first_hour: Option<u32>,
    scratch: &mut Scratch,
    dice: &mut Dice,
    trace: &mut Option<Vec<BattleEvent>>,
) {
    let sc = &plan.scenario;
    let rules = &sc.rules;
    let [width, depth] = sc.board;
    if scratch.stamp.len() != plan.grid.0 * plan.grid.1 {
        scratch.stamp = vec![0; plan.grid.0 * plan.grid.1];
        scratch.generation = 0;
    }
    scratch.generation += 1;
    let hour = first_hour.unwrap_or_else(|| die(12, dice));
    if let Some(t) = trace {
        t.push(BattleEvent::Heading { hour, reroll: false });
    }
    let mut values = std::mem::take(&mut scratch.values);
    values[s.heading] = hour as u16;
    let mut line = clock_heading(hour);
    let mut remaining = sc.rout_distance(beasts);
    let (mut moved, mut rerolls, mut contacts) = (0.0, 0u32, 0u32);
    let mut off_board_units = 0u32;
    let start = scratch.states[beasts].block.map_or(sc.units[beasts].block.centre, |b| b.centre);
    mark_path(scratch, plan.grid, start, start);
    loop {
        if remaining <= 1e-9 || scratch.states[beasts].figures == 0 {
            break;
        }
        let here = scratch.states[beasts].block.unwrap_or(sc.units[beasts].block);
        let RoutStep { heading, veer, dir, turned, exit, hit } =
            scratch.steps.step(plan, &scratch.states, beasts, here, line, remaining);
        let go = match (hit, exit) {
            (Some((d, _)), _) => d,
            (None, Some(e)) => e,
            (None, None) => remaining,
        };
        let moved_block = turned.moved(dir.scale(go));
        mark_path(scratch, plan.grid, turned.centre, moved_block.centre);
        scratch.states[beasts].block = Some(moved_block);
        moved += go;
        remaining -= go;
        if let Some(t) = trace {
            t.push(BattleEvent::Move { heading, veer, distance: go, to: [moved_block.centre.x, moved_block.centre.y] });
        }
        let Some((_, struck)) = hit else {
            if exit.is_some() {
                values[s.left_board] = 1;
                scratch.states[beasts].block = None;
                if let Some(t) = trace {
                    t.push(BattleEvent::LeftBoard);
                }
            }
            break;
        };
        contacts += 1;
        scratch.states[struck].contacted = true;
        if let Some(t) = trace {
            let into = scratch.states[struck].block.map_or(0.0, |b| dir.dot(board::contact_face(&moved_block, &b)));
            t.push(BattleEvent::Contact { unit: struck, into });
        }
        let (beast_losses, struck_losses) = melee(plan, &mut scratch.states, beasts, struck, false, dice, trace);
        scratch.states[beasts].lost += beast_losses.figures;
        scratch.states[struck].lost += struck_losses.figures;
        if scratch.states[beasts].figures == 0 {
            break;
        }
        let mut blocking = false;
        if scratch.states[struck].figures > 0 {
            let push = match morale(plan, struck, dice, trace) {
                MoraleResult::Held => 0.0,
                MoraleResult::FellBack => f64::from(rules.morale.fall_back_inches),
                MoraleResult::Routed => sc.rout_distance(struck),
            };
            let mut off_board = false;
            let mut pushed = 0.0;
            let mut gap_before = 0.0;
            if push > 0.0 {
                scratch.states[struck].displaced = true;
                // Pushed away from the beasts: along the heading of the move that struck it
                // (which went into it, so the gap between them can only grow), stopping
                // short of other units; or, with struck_unit_moves = "aside", sideways out of
                // their path when that is shorter and clear.
                let block = scratch.states[struck].block.unwrap_or(sc.units[struck].block);
                gap_before = board::separation(&moved_block, &block);
                let aside = (rules.struck_unit_moves == StruckUnitMoves::Aside)
                    .then(|| step_aside(&scratch.states, beasts, struck, &moved_block, &block, dir, push))
                    .flatten();
                let (way, mut room) = match aside {
                    Some(a) => a,
                    None => (
                        dir,
                        first_hit(&scratch.states, u32::MAX, [struck, beasts], &block, dir, push)
                            .map_or(push, |(d, _)| d),
                    ),
                };
                if let Some(e) = board::leaves_board(block.centre, way, room, width, depth) {
                    room = e;
                    off_board = true;
                }
                pushed = room;
                scratch.states[struck].block = if off_board { None } else { Some(block.moved(way.scale(room))) };
                if off_board {
                    // A unit that leaves the board is lost: its figures count as lost.
                    off_board_units += 1;
                    let st = &mut scratch.states[struck];
                    st.lost += st.figures;
                    st.figures = 0;
                }
            }
            blocking = scratch.states[struck]
                .block
                .is_some_and(|b| board::first_contact(&moved_block, dir, remaining.max(1e-6), &b).is_some());
            if let Some(t) = trace
                && push > 0.0
            {
                let gap_after = scratch.states[struck].block.map(|b| board::separation(&moved_block, &b));
                t.push(BattleEvent::Displaced {
                    unit: struck,
                    distance: pushed,
                    off_board,
                    still_blocking: blocking,
                    gap_before,
                    gap_after,
                });
            }
        }
        if contacts >= MAX_CONTACTS {
            values[s.stopped] = 1;
            break;
        }
        if blocking {
            if rerolls >= rules.max_rerolls {
                values[s.stopped] = 1;
                if let Some(t) = trace {
                    t.push(BattleEvent::Stopped);
                }
                break;
            }
            rerolls += 1;
            let hour = die(12, dice);
            if let Some(t) = trace {
                t.push(BattleEvent::Heading { hour, reroll: true });
            }
            line = clock_heading(hour);
        } else {
            line = heading;
        }
    }
    if let Some(t) = trace {
        t.push(BattleEvent::Finished {
            blocks: scratch.states.iter().map(|st| st.block.filter(|_| st.figures > 0)).collect(),
        });
    }
    values[s.rerolls] = to_u16(rerolls);
    values[s.contacts] = to_u16(contacts);
    let states = &scratch.states;
    values[s.units_contacted] = to_u16(states.iter().filter(|u| u.contacted).count() as u32);
    values[s.beasts_figures_lost] = to_u16(states[beasts].lost);
    values[s.beasts_destroyed] = u16::from(states[beasts].figures == 0);
    values[s.distance] = to_u16(moved.floor() as u32);
    values[s.units_off_board] = to_u16(off_board_units);
    let side = sc.units[beasts].side;
    let (mut friendly, mut enemy) = (0, 0);
    for (i, u) in sc.units.iter().enumerate().filter(|(i, _)| *i != beasts) {
        let st = &states[i];
        if u.side == side {
            friendly += st.lost;
        } else {
            enemy += st.lost;
        }
        let [c, l, d] = s.per_unit[i];
        values[c] = u16::from(st.contacted);
        values[l] = to_u16(st.lost);
        values[d] = u16::from(st.displaced);
    }
    values[s.friendly_figures_lost] = to_u16(friendly);
    values[s.enemy_figures_lost] = to_u16(enemy);
    scratch.values = values;
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

/// Plays the trials of `range` on the current rayon pool and tallies them, in the same
/// fixed blocks as MESBG runs (so the tally does not depend on the thread count).
pub fn run(
    plan: &BattlePlan,
    streams: Streams,
    range: TrialRange,
    progress: &(dyn Fn(u64) + Sync),
    cancel: &AtomicBool,
) -> Result<BattleTally, Interrupted> {
    crate::engine::run_in_blocks(
        range,
        progress,
        cancel,
        || new_tally(plan),
        |scratch: &mut Scratch, trials| tally_trials(plan, streams, trials, scratch),
        |a, b| a.merge(b),
        |t| t.trials,
    )
}

/// Replays one trial: its metric values (in plan order) and its events.
pub fn replay(plan: &BattlePlan, streams: Streams, trial: u64) -> (Vec<u16>, Vec<BattleEvent>) {
    let mut scratch = Scratch::default();
    let mut trace = Some(Vec::new());
    play(plan, streams, trial, &mut scratch, &mut trace);
    (scratch.values, trace.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::battle::scenario::parse;

    fn plan_of(text: &str) -> BattlePlan {
        compile(&parse(text, "test.toml").expect("valid scenario"))
    }

    fn tally(plan: &BattlePlan, trials: u64) -> BattleTally {
        let streams = Streams::new(plan.scenario.seed, plan.scenario.hash());
        tally_trials(plan, streams, 0..trials, &mut Scratch::default())
    }

    fn mean(t: &BattleTally, plan: &BattlePlan, name: &str) -> f64 {
        let m = plan.metrics.index(name).unwrap_or_else(|| panic!("no metric {name}"));
        let h = t.histogram(m);
        h.iter().enumerate().map(|(v, c)| v as f64 * *c as f64).sum::<f64>() / t.trials as f64
    }

    const HEADER: &str = "title = \"t\"\nsystem = \"battlesystem\"\nseed = 5\n[board]\nwidth = 48\ndepth = 48\n";

    fn beast(at: [f64; 2], extra: &str) -> String {
        format!(
            "[[units]]\nname = \"Beast\"\nside = \"a\"\nfigures = 1\nbeast = true\nat = [{}, {}]\nbase = [2.0, 2.0]\nstats = {{ ad = \"d10\", ar = 10, hits = 50, ml = 14, mv = 12 }}\n{extra}",
            at[0], at[1]
        )
    }

    fn block_unit(name: &str, side: &str, at: [f64; 2], figures: u32, frontage: u32, ml: u32) -> String {
        format!(
            "[[units]]\nname = \"{name}\"\nside = \"{side}\"\nfigures = {figures}\nfrontage = {frontage}\nat = [{}, {}]\nstats = {{ ad = \"d4\", ar = 10, hits = 50, ml = {ml}, mv = 30 }}\n",
            at[0], at[1]
        )
    }

    /// A unit block with an explicit base, facing, and stats line.
    #[allow(clippy::too_many_arguments)]
    fn unit_at(
        name: &str,
        side: &str,
        figures: u32,
        frontage: u32,
        at: [f64; 2],
        facing: f64,
        base: [f64; 2],
        ml: u32,
    ) -> String {
        format!(
            "[[units]]\nname = \"{name}\"\nside = \"{side}\"\nfigures = {figures}\nfrontage = {frontage}\nfacing = {facing}\n\
             at = [{}, {}]\nbase = [{}, {}]\nstats = {{ ad = \"d4\", ar = 10, hits = 50, ml = {ml}, mv = 6 }}\n",
            at[0], at[1], base[0], base[1]
        )
    }

    /// The defender figures of the first melee of trial 0.
    fn first_melee_defenders(text: &str) -> u32 {
        let plan = plan_of(text);
        let (_, events) = replay(&plan, Streams::new(1, plan.scenario.hash()), 0);
        events
            .iter()
            .find_map(|e| match e {
                BattleEvent::Melee { defender_figures, .. } => Some(*defender_figures),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no melee: {events:?}"))
    }

    #[test]
    fn only_the_figures_along_the_contact_fight_back() {
        let dragon = |base: [f64; 2]| {
            format!(
                "[[units]]\nname = \"Dragon\"\nside = \"a\"\nfigures = 1\nbeast = true\nat = [24.0, 10.0]\nbase = [{}, {}]\n\
                 stats = {{ ad = \"d12\", ar = 10, hits = 50, ml = 14, mv = 12 }}\n",
                base[0], base[1]
            )
        };
        let go_north = "[rout]\nunit = \"Dragon\"\nfirst_hour = 12\n[rules]\nveer_degrees = 0\n";
        // A column two figures wide (1" bases) meets a 4"-wide dragon along 2": 2 figures.
        let column = unit_at("Column", "b", 20, 2, [24.0, 20.0], 180.0, [1.0, 1.0], 20);
        assert_eq!(first_melee_defenders(&format!("{HEADER}{}{column}{go_north}", dragon([4.0, 3.0]))), 2);
        // A line ten wide meets a 2"-wide beast along 2": 2 figures; a 4"-wide one, 4.
        let line = unit_at("Line", "b", 20, 10, [24.0, 20.0], 180.0, [1.0, 1.0], 20);
        assert_eq!(first_melee_defenders(&format!("{HEADER}{}{line}{go_north}", dragon([2.0, 3.0]))), 2);
        assert_eq!(first_melee_defenders(&format!("{HEADER}{}{line}{go_north}", dragon([4.0, 3.0]))), 4);
        // The line's flank (it faces east; two ranks deep, 2") meets a 4"-wide dragon
        // along 2": only its 2 ranks' end figures.
        let flank = unit_at("Flank", "b", 20, 10, [24.0, 20.0], 90.0, [1.0, 1.0], 20);
        assert_eq!(first_melee_defenders(&format!("{HEADER}{}{flank}{go_north}", dragon([4.0, 3.0]))), 2);
        // Offset half off the column: the 4" dragon centred 1.5" east of a 2"-wide column
        // overlaps it by 1.5": 2 figures (a part of a base fights).
        let side = unit_at("Column", "b", 20, 2, [22.5, 20.0], 180.0, [1.0, 1.0], 20);
        assert_eq!(first_melee_defenders(&format!("{HEADER}{}{side}{go_north}", dragon([4.0, 3.0]))), 2);
    }

    #[test]
    fn a_turn_in_place_is_not_a_contact() {
        // The beast (2" x 2") starts 4" south of a line that never breaks (ML 20), drives
        // north into it, and re-rolls. A southward re-roll (4 to 8 o'clock) leads away from
        // the line: it must move off (a move of more than 1") with no new contact with it.
        let text = format!(
            "{HEADER}{}{}[rout]\nunit = \"Beast\"\nfirst_hour = 12\n[rules]\nveer_degrees = 0\nmax_rerolls = 1\n",
            beast([24.0, 10.0], ""),
            block_unit("Wall", "b", [24.0, 15.5], 20, 10, 20)
        );
        let plan = plan_of(&text);
        let streams = Streams::new(1, plan.scenario.hash());
        let mut away = 0;
        for trial in 0..200 {
            let (_, events) = replay(&plan, streams, trial);
            let Some(k) = events.iter().position(|e| matches!(e, BattleEvent::Heading { reroll: true, .. })) else {
                continue;
            };
            let BattleEvent::Heading { hour, .. } = events[k] else { unreachable!() };
            if (4..=8).contains(&hour) {
                away += 1;
                match &events[k + 1] {
                    BattleEvent::Move { distance, .. } => assert!(*distance > 1.0, "{events:?}"),
                    other => panic!("expected a move away, got {other:?}"),
                }
                assert!(!matches!(events.get(k + 2), Some(BattleEvent::Contact { unit: 1, .. })), "{events:?}");
            }
            for e in &events {
                if let BattleEvent::Contact { into, .. } = e {
                    assert!(*into > 1e-9, "a contact not going into its unit: {events:?}");
                }
            }
        }
        assert!(away > 20, "{away} southward re-rolls");
    }

    #[test]
    fn a_pushed_unit_moves_straight_away_or_aside() {
        // The beast (2" wide, x 23 to 25) drives north into a small unit 2" wide at x = 24.5
        // (x 23.5 to 25.5) that always fails (ML 2: 99 in 100). Straight: it is pushed north
        // and the gap grows by exactly the push. Aside: stepping east 1.5" clears the
        // beast's path (west would take 2.5"), shorter than any push.
        let small = unit_at("Small", "b", 2, 2, [24.5, 14.0], 180.0, [1.0, 1.0], 2);
        for (moves, expect_aside) in [("straight", false), ("aside", true)] {
            let text = format!(
                "{HEADER}{}{small}[rout]\nunit = \"Beast\"\nfirst_hour = 12\n[rules]\nveer_degrees = 0\nstruck_unit_moves = \"{moves}\"\n",
                beast([24.0, 10.0], "")
            );
            let plan = plan_of(&text);
            let streams = Streams::new(1, plan.scenario.hash());
            let mut seen = 0;
            for trial in 0..100 {
                let (_, events) = replay(&plan, streams, trial);
                let Some(BattleEvent::Displaced { distance, gap_before, gap_after, still_blocking, .. }) =
                    events.iter().find(|e| matches!(e, BattleEvent::Displaced { .. }))
                else {
                    continue;
                };
                seen += 1;
                assert!(gap_before.abs() < 1e-6, "touching when pushed: {gap_before}");
                if expect_aside {
                    assert!((distance - 1.5).abs() < 1e-5, "{events:?}");
                    assert!(!still_blocking);
                } else if let Some(after) = gap_after {
                    assert!((after - gap_before - distance).abs() < 1e-6, "{events:?}");
                }
            }
            assert!(seen > 80, "{moves}: {seen}");
        }
    }

    #[test]
    fn veering_round_what_it_can_avoid() {
        // A small unit A 3" ahead (x 23 to 25, y 13.5 to 14.5) and a long line B across the
        // board 20" ahead. No veer within 45 degrees clears the whole 30" move (B spans the
        // board). whole_move keeps the line and meets A; avoid_what_it_can veers round A
        // (the smallest turn that does, clockwise first) and meets only B.
        let a = unit_at("A", "b", 2, 2, [24.0, 14.0], 180.0, [1.0, 1.0], 20);
        let b = unit_at("B", "b", 44, 44, [24.0, 30.0], 180.0, [1.0, 1.0], 20);
        let first_contact = |veer: &str| {
            let text = format!(
                "{HEADER}{}{a}{b}[rout]\nunit = \"Beast\"\nfirst_hour = 12\n[rules]\nveer = \"{veer}\"\nrout_distance = 30\n",
                beast([24.0, 10.0], "")
            );
            let plan = plan_of(&text);
            let (_, events) = replay(&plan, Streams::new(1, plan.scenario.hash()), 0);
            let contact = events.iter().find_map(|e| match e {
                BattleEvent::Contact { unit, .. } => Some(*unit),
                _ => None,
            });
            let veer = events.iter().find_map(|e| match e {
                BattleEvent::Move { veer, .. } => Some(*veer),
                _ => None,
            });
            (contact, veer)
        };
        assert_eq!(first_contact("whole_move"), (Some(1), Some(0.0)));
        let (unit, veer) = first_contact("avoid_what_it_can");
        assert_eq!(unit, Some(2));
        // The beast's corner must pass A's corner: at 35 degrees its path (2" wide) clears
        // x = 25 by y = 13.5; at 30 it does not. Clockwise first: +35.
        let veer = veer.unwrap();
        assert!(veer > 0.0 && veer <= 45.0, "veer {veer}");
    }

    #[test]
    fn cells_crossed_follow_the_segment_exactly() {
        // By hand: from (0.5, 0.5) to (2.5, 1.5), the line y = x / 2 + 0.25 crosses x = 1 at
        // y = 0.75, y = 1 at x = 1.5, x = 2 at y = 1.25.
        assert_eq!(cells_crossed(Vec2::new(0.5, 0.5), Vec2::new(2.5, 1.5)), vec![(0, 0), (1, 0), (1, 1), (2, 1)]);
        // Through a corner exactly: straight into the diagonal cell.
        assert_eq!(cells_crossed(Vec2::new(0.5, 0.5), Vec2::new(1.5, 1.5)), vec![(0, 0), (1, 1)]);
        // Ending on a boundary does not enter the next cell; going west and south works.
        assert_eq!(cells_crossed(Vec2::new(0.5, 0.5), Vec2::new(2.0, 0.5)), vec![(0, 0), (1, 0)]);
        assert_eq!(cells_crossed(Vec2::new(3.2, 2.7), Vec2::new(0.6, 0.1)).last(), Some(&(0, 0)));
        // Against dense sampling of random segments: the same cells (sampling can only miss
        // a sliver, never add a cell).
        let mut dice = crate::dice::trial_dice(4, 4, 4, Phase::Charge);
        for _ in 0..500 {
            let mut r = || f64::from(dice.d6()) * 1.37 + f64::from(dice.d6()) * 0.291;
            let (a, b) = (Vec2::new(r(), r()), Vec2::new(r(), r()));
            let exact = cells_crossed(a, b);
            let n = 20_000;
            let mut sampled: Vec<(i64, i64)> = Vec::new();
            for k in 1..n {
                let p = a + (b - a).scale(k as f64 / n as f64);
                let c = (p.x.floor() as i64, p.y.floor() as i64);
                if !sampled.contains(&c) {
                    sampled.push(c);
                }
            }
            for c in &sampled {
                assert!(exact.contains(c), "{a:?} -> {b:?}: {c:?} sampled, not in {exact:?}");
            }
            assert!(exact.len() <= sampled.len() + 2, "{a:?} -> {b:?}: {exact:?} vs {sampled:?}");
        }
    }

    #[test]
    fn veering_round_a_small_unit_and_not_round_a_long_line() {
        // Heading north from (24, 10); a 2"-wide unit ahead at (24, 18). Turning 15 degrees
        // clears it; a 20"-wide line cannot be avoided within 45 degrees.
        let small = format!(
            "{HEADER}{}{}[rout]\nunit = \"Beast\"\nfirst_hour = 12\n",
            beast([24.0, 10.0], ""),
            block_unit("Scouts", "b", [24.0, 18.0], 2, 2, 20)
        );
        let plan = plan_of(&small);
        let streams = Streams::new(1, plan.scenario.hash());
        let (values, events) = replay(&plan, streams, 0);
        let veer = events.iter().find_map(|e| match e {
            BattleEvent::Move { veer, .. } => Some(*veer),
            _ => None,
        });
        // Clockwise first, in 5-degree steps, the smallest turn that clears it.
        let veer = veer.expect("moved");
        assert!(veer > 0.0 && veer <= 45.0 && (veer / 5.0).fract() == 0.0, "{events:?}");
        assert_eq!(values[plan.metrics.index("contacts").unwrap()], 0);
        assert_eq!(values[plan.metrics.index("distance").unwrap()], 12);
        // Allowed less than that turn, it strikes them.
        let tight =
            small.replace("first_hour = 12\n", &format!("first_hour = 12\n[rules]\nveer_degrees = {}\n", veer - 5.0));
        let plan_tight = plan_of(&tight);
        let (values, _) = replay(&plan_tight, streams, 0);
        assert_eq!(values[plan_tight.metrics.index("contacted.scouts").unwrap()], 1);
        let long = small.replace("figures = 2\nfrontage = 2", "figures = 20\nfrontage = 20");
        let plan = plan_of(&long);
        let (values, events) = replay(&plan, streams, 0);
        assert!(events.iter().any(|e| matches!(e, BattleEvent::Contact { unit: 1, .. })), "{events:?}");
        // Contact after 6.5": the beast's front at 11, the line's near edge at 17.5.
        let first_move = events.iter().find_map(|e| match e {
            BattleEvent::Move { distance, veer, .. } => Some((*distance, *veer)),
            _ => None,
        });
        let (distance, veer) = first_move.expect("moved");
        assert!((distance - 6.5).abs() < 1e-6 && veer == 0.0, "{events:?}");
        assert_eq!(values[plan.metrics.index("contacted.scouts").unwrap()], 1);
    }

    #[test]
    fn a_unit_that_holds_forces_a_reroll_and_a_ring_stops_the_beast() {
        // Boxed in on all four sides by units that never fail morale (ML 20) and never
        // lose a figure: every direction is blocked, so every rout uses all three re-rolls
        // and stops.
        // The corner gaps (1") are narrower than the beast (2"); the rout distance (96")
        // always reaches the next unit.
        let ring = format!(
            "{HEADER}{}{}{}{}{}[rout]\nunit = \"Beast\"\n[rules]\nrout_distance = 96\n",
            beast([24.0, 24.0], ""),
            block_unit("North", "b", [24.0, 29.0], 16, 16, 20),
            block_unit("South", "b", [24.0, 19.0], 16, 16, 20),
            block_unit("East", "b", [33.5, 24.0], 16, 1, 20),
            block_unit("West", "b", [14.5, 24.0], 16, 1, 20),
        );
        let plan = plan_of(&ring);
        let t = tally(&plan, 2000);
        assert_eq!(mean(&t, &plan, "rerolls"), 3.0);
        assert_eq!(mean(&t, &plan, "stopped"), 1.0);
        assert_eq!(mean(&t, &plan, "contacts"), 4.0);
        assert_eq!(mean(&t, &plan, "left_board"), 0.0);
        assert_eq!(mean(&t, &plan, "displaced.north"), 0.0);
    }

    #[test]
    fn a_displaced_unit_clears_the_path() {
        // A line ahead with ML 2 (2d10 of 7 or more fails by 5+: it routs, 86 times in 100)
        // that runs 30" away from the beast when it routs at the first contact: the beast
        // goes on with the distance left, no re-roll, and the Levy's figures are lost off
        // the board.
        let text = format!(
            "{HEADER}{}{}[rout]\nunit = \"Beast\"\nfirst_hour = 12\n[rules]\nveer_degrees = 0\n",
            beast([24.0, 10.0], ""),
            block_unit("Levy", "b", [24.0, 18.0], 20, 20, 2).replace("mv = 30", "mv = 40")
        );
        let plan = plan_of(&text);
        let streams = Streams::new(1, plan.scenario.hash());
        let mut routed_and_cleared = 0;
        for trial in 0..50 {
            let (values, events) = replay(&plan, streams, trial);
            let displaced = events.iter().find_map(|e| match e {
                BattleEvent::Displaced { distance, still_blocking, .. } => Some((*distance, *still_blocking)),
                _ => None,
            });
            let first_morale = events.iter().find_map(|e| match e {
                BattleEvent::Morale { result, .. } => Some(*result),
                _ => None,
            });
            if first_morale == Some(MoraleResult::Routed) {
                // Pushed 40" north from y = 18, it leaves the 48" board after 30".
                let (distance, blocking) = displaced.expect("displaced");
                assert!(!blocking && (distance - 30.0).abs() < 1e-9, "{events:?}");
                assert_eq!(values[plan.metrics.index("rerolls").unwrap()], 0);
                assert_eq!(values[plan.metrics.index("distance").unwrap()], 12, "{events:?}");
                assert_eq!(values[plan.metrics.index("units_off_board").unwrap()], 1);
                assert_eq!(values[plan.metrics.index("figures_lost.levy").unwrap()], 20, "all 20 lost");
                assert_eq!(values[plan.metrics.index("enemy_figures_lost").unwrap()], 20);
                routed_and_cleared += 1;
            }
        }
        assert!(routed_and_cleared > 30, "{routed_and_cleared}");
    }

    #[test]
    fn leaving_the_board_is_lost_and_headings_are_uniform() {
        // Alone near the east edge: hours 1 to 5 take it off within its 12" move.
        let text = format!("{HEADER}{}[rout]\nunit = \"Beast\"\n", beast([40.0, 24.0], ""));
        let plan = plan_of(&text);
        let n = 120_000;
        let t = tally(&plan, n);
        let heading = t.histogram(plan.metrics.index("heading").unwrap());
        let expected = n as f64 / 12.0;
        let chi2: f64 = (1..=12).map(|h| (heading[h] as f64 - expected).powi(2) / expected).sum();
        assert!(chi2 < 45.0, "chi-square {chi2} with 11 df");
        assert_eq!(heading[0], 0);
        // The centre is 8" from the east edge: hour 3 leaves after 8", hours 2 and 4 after
        // 8 / sin(60) = 9.2", hours 1 and 5 would need 8 / sin(30) = 16" (more than 12").
        let p = mean(&t, &plan, "left_board");
        let se = (3.0 / 12.0 * 9.0 / 12.0 / n as f64).sqrt();
        assert!((p - 3.0 / 12.0).abs() < 5.0 * se, "{p}");
        // The path map: the start cell in every trial.
        assert_eq!(t.path[24 * 48 + 40], n);
    }

    /// The step memo only saves time: trials played each with a fresh scratch (nothing
    /// remembered) tally exactly as trials played with one scratch that remembers steps,
    /// under both veer readings.
    #[test]
    fn remembered_rout_steps_are_the_steps_computed() {
        for veer in ["whole_move", "avoid_what_it_can"] {
            let path = "scenarios/battlesystem/routing-elephants-in-battle-line.toml";
            let text = std::fs::read_to_string(path)
                .expect("bundled example")
                .replace("[rules]\n", &format!("[rules]\nveer = \"{veer}\"\n"));
            let plan = plan_of(&text);
            let streams = Streams::new(3, plan.scenario.hash());
            let mut remembering = Scratch::default();
            let together = tally_trials(&plan, streams, 0..4_000, &mut remembering);
            assert!(remembering.steps.steps.len() > 10, "the memo is used");
            let mut apart = new_tally(&plan);
            for t in 0..4_000 {
                apart.merge(&tally_trials(&plan, streams, t..t + 1, &mut Scratch::default()));
            }
            assert_eq!(together, apart, "veer = {veer}");
        }
    }
}
