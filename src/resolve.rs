//! Running trials over a plan: one trial walks the contact list rolling dice, then fights;
//! many trials run in parallel into integer tallies.
//!
//! Trial `t` draws only from streams keyed by `(seed, stream key, t, phase)`, and trials are
//! tallied in fixed blocks merged by exact integer addition, so a run gives the same tally
//! for any number of threads, and any single trial can be replayed alone with a trace.

use crate::dice::{Dice, Phase};
pub use crate::engine::{BLOCK, Interrupted, Streams, TrialRange, run_in_blocks};
use crate::plan::Plan;
use crate::plan::support::Presence;
use crate::plan::{ContactOutcome, fight_rules};
use crate::rules::mesbg::{self, DuelSide, DuelWinner, FightOutcome, StrikeTarget};
use crate::rules::mesbg_duel::{self, FoeDuelDice, FoeHero};
use crate::rules::mesbg_fight::{self, FoeSupport, SplitTarget, StrikeSplit, WoundOn};
use crate::tally::{Metric, Outcome, OutcomeCounter, Tally};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};

/// Something that happened in a trial, for replays.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The chariot touched a model and rolled its Impact Hits.
    Contact {
        /// Distance driven, inches.
        distance: f64,
        /// Model index in the plan.
        model: usize,
        /// What the hits did.
        outcome: ContactOutcome,
    },
    /// A cavalry model beaten by the chariot is Knocked Flying: its rider takes a
    /// Strength 3 hit and is Prone.
    KnockedFlying {
        /// The model.
        model: usize,
        /// Whether the hit wounded the rider.
        wounded: bool,
    },
    /// A survivor stopped the chariot in base contact.
    Stopped {
        /// Distance driven, inches.
        distance: f64,
        /// The surviving models in contact.
        by: Vec<usize>,
    },
    /// Nothing stopped the chariot; it drove its full Move.
    DroveOn {
        /// Whether that carried it through every formation on its path.
        breakthrough: bool,
    },
    /// Spears and pikes supporting the models in the fight (each a die, and a Strike if
    /// their side wins), and whether a banner lets that side re-roll a duel die.
    Support {
        /// The supporting models.
        supporters: Vec<usize>,
        /// A standing banner bearer is within 3" of the fight.
        banner: bool,
    },
    /// The duel of the fight.
    Duel {
        /// Dice the chariot rolled.
        chariot_dice: u32,
        /// Dice the enemy rolled.
        enemy_dice: u32,
        /// The chariot's highest die.
        chariot_high: u8,
        /// The enemy's highest die.
        enemy_high: u8,
        /// The roll-off die, when tied on dice and Fight.
        roll_off: Option<u8>,
        /// Whether the chariot won.
        chariot_won: bool,
    },
    /// The fight's result (as counted in the metrics).
    Fight {
        /// The chariot won the duel.
        chariot_won: bool,
        /// Models its Strikes slew.
        kills: u8,
        /// Wounds it lost.
        wounds_lost: u8,
    },
    /// The Hero spent Might on a roll of the chariot.
    Might {
        /// Points spent.
        points: u8,
        /// On what: "duel" or "wound".
        on: &'static str,
    },
    /// The Hero spent Fate to prevent a Wound on the chariot (or on himself).
    Fate {
        /// The Fate rolls, one per point spent.
        rolls: Vec<u8>,
        /// Might added to the last roll.
        might: u8,
        /// Whether the Wound was prevented.
        saved: bool,
    },
    /// The difficult-terrain test slew the chariot on entering: it stops there.
    SlainByTerrain {
        /// Distance driven, inches.
        distance: f64,
    },
    /// The winner declared how its Strikes go, before rolling.
    StrikesDeclared {
        /// Strikes per model, in contact order.
        split: Vec<(usize, u8)>,
    },
    /// The chariot was slain and the Hero thrown (Knocked Flying: a Strength 3 hit, then Prone).
    Thrown {
        /// Wounds the hit caused him (after Fate).
        wounds: u8,
        /// Whether it slew him.
        slain: bool,
    },
    /// The difficult-terrain test on entering difficult terrain.
    TerrainTest {
        /// The D6 (a 1 costs the chariot a Wound unless Might turns it).
        roll: u8,
        /// Might spent to turn a 1 into a 2.
        might: u8,
    },
    /// The chariot drove into an obstacle: three Strength 6 hits on it.
    Obstacle {
        /// Hits that wounded (before Fate).
        wounding_hits: u8,
    },
    /// Two chariots fought: the smaller Backs Away (a D6 for two the same size).
    BacksAway {
        /// Whether it is our chariot that Backs Away.
        ours: bool,
        /// The D6 for chariots of one size.
        roll: Option<u8>,
    },
    /// An enemy Hero spent Might.
    FoeMight {
        /// The Hero.
        model: usize,
        /// Points spent.
        points: u8,
        /// On what: "duel", "wound" or "Fate".
        on: &'static str,
    },
    /// An enemy Hero spent Fate against a Wound from the chariot's Strikes.
    FoeFate {
        /// The Hero.
        model: usize,
        /// Fate points spent on the Wound.
        points: u8,
        /// Whether the Wound was prevented.
        saved: bool,
    },
    /// A remark about the trace itself.
    Note {
        /// The remark.
        text: String,
    },
    /// A Strike by the chariot on a model (the model is in `target`), or on the chariot
    /// by a model (`target` is `None`, `by` the striker).
    Strike {
        /// The striking model, when the chariot is struck.
        by: Option<usize>,
        /// The model struck, when the chariot strikes.
        target: Option<usize>,
        /// Rolls made (2 against a Trapped model).
        rolls: u8,
        /// Wounds caused.
        wounds: u8,
        /// Whether the target was slain by it.
        slain: bool,
    },
}

/// Receives the events of a trial. The silent observer compiles away entirely.
pub trait Observer {
    /// Whether anyone listens (lets a trial skip work that only feeds the trace).
    const ENABLED: bool;

    /// Records an event (built only when someone listens).
    fn note(&mut self, event: impl FnOnce() -> Event);
}

/// Listens to nothing: the fast path.
pub struct Silent;

impl Observer for Silent {
    const ENABLED: bool = false;
    #[inline(always)]
    fn note(&mut self, _event: impl FnOnce() -> Event) {}
}

/// Keeps every event.
#[derive(Default)]
pub struct Trace(pub Vec<Event>);

impl Observer for Trace {
    const ENABLED: bool = true;
    fn note(&mut self, event: impl FnOnce() -> Event) {
        self.0.push(event());
    }
}

/// The most declared splits a thread keeps (a scenario meets a handful; past this many,
/// the list starts again rather than grow or slow its search).
const MAX_CACHED_SPLITS: usize = 64;

/// Buffers a trial reuses, so the hot loop does not allocate.
#[derive(Default)]
pub struct Scratch {
    survivors: Vec<Survivor>,
    targets: Vec<StrikeTarget>,
    target_is_rider: Vec<bool>,
    at_start: Vec<u8>,
    order: Vec<usize>,
    /// Declared splits already worked out on this thread, by what decides them (the
    /// Strikes, and each target's roll, Trapped flag, Wounds left and kill flag): the split
    /// depends on nothing else, and the same few fights recur in every trial, so a short
    /// list searched from the last hit beats hashing.
    splits: Vec<(Vec<u32>, Vec<usize>)>,
    last_split: usize,
    split_key: Vec<u32>,
    /// The contact group the chariot stopped at (for the fight's supporters).
    group: usize,
}

impl Scratch {
    /// The declared order of `strikes` Strikes over the current targets.
    fn declared_order(&mut self, strikes: u8) -> &[usize] {
        let code = |r: mesbg::WoundRoll| match r {
            mesbg::WoundRoll::Needs(n) => u32::from(n),
            mesbg::WoundRoll::SixThen(n) => 8 + u32::from(n),
            mesbg::WoundRoll::Impossible => 0,
        };
        self.split_key.clear();
        self.split_key.push(u32::from(strikes));
        for (t, &rider) in self.targets.iter().zip(&self.target_is_rider) {
            self.split_key
                .push(code(t.roll) | u32::from(t.trapped) << 5 | u32::from(rider) << 6 | u32::from(t.wounds_left) << 8);
        }
        let found = (self.last_split < self.splits.len() && self.splits[self.last_split].0 == self.split_key)
            .then_some(self.last_split)
            .or_else(|| self.splits.iter().position(|(k, _)| *k == self.split_key));
        if let Some(i) = found {
            self.last_split = i;
            return &self.splits[i].1;
        }
        {
            let weighed: Vec<SplitTarget> = self
                .targets
                .iter()
                .zip(&self.target_is_rider)
                .map(|(t, &rider)| SplitTarget {
                    roll: t.roll,
                    trapped: t.trapped,
                    wounds_left: t.wounds_left,
                    counts_as_kill: rider,
                })
                .collect();
            let order = mesbg_fight::declared_order(&mesbg_fight::declared_split(strikes, &weighed));
            if self.splits.len() >= MAX_CACHED_SPLITS {
                self.splits.clear();
            }
            self.splits.push((self.split_key.clone(), order));
            self.last_split = self.splits.len() - 1;
        }
        &self.splits[self.last_split].1
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
        }
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
            scratch.survivors.push(Survivor::after(m, &outcome));
            config += group.config_part(i, outcome.left, outcome.fate_spent, &plan.models);
        }
        obs.note(|| Event::Contact { distance: group.distance, model: m, outcome });
    }
    out.set(Metric::ImpactKills, impact_kills);
    out.set(Metric::Contacts, (group.models_before + group.models.len()) as u16);
    obs.note(|| Event::Stopped { distance: group.distance, by: scratch.survivors.iter().map(|s| s.model).collect() });
    let mut fight_dice = key.dice(Phase::Fight);
    let table = group.fights.get(config).and_then(Option::as_ref).filter(|_| state.is_fresh(plan));
    let result = match table {
        Some(table) => {
            let result = table.sample(&mut fight_dice);
            if O::ENABLED {
                reconstruct_fight(plan, scratch, &mut key.dice(Phase::TraceFight), result, obs);
            }
            state.wounds_left -= result.wounds_lost;
            state.might_left -= result.might_spent;
            state.fate_left -= result.fate_spent;
            result
        }
        None => fight_by_dice(plan, scratch, &mut state, &mut fight_dice, obs),
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
    let mut wounding_hits = 0;
    for _ in 0..crate::plan::OBSTACLE_HITS {
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

/// What the chariot and its Hero have left during a trial.
#[derive(Clone, Copy, Debug)]
struct ChariotState {
    wounds_left: u8,
    might_left: u8,
    fate_left: u8,
}

impl ChariotState {
    fn fresh(plan: &Plan) -> Self {
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
    fn terrain_test<O: Observer>(&mut self, plan: &Plan, dice: &mut Dice, out: &mut Outcome, obs: &mut O) {
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
    fn suffer_wound<O: Observer>(&mut self, plan: &Plan, dice: &mut Dice, obs: &mut O) -> bool {
        let on = WoundOn::Chariot { wounds_left: self.wounds_left };
        if self.prevent(plan, on, dice, obs) {
            return false;
        }
        self.wounds_left = self.wounds_left.saturating_sub(1);
        true
    }

    /// Spends the Hero's Fate (and Might on the Fate roll) on one Wound by his policy.
    /// Returns whether it was prevented.
    fn prevent<O: Observer>(&mut self, plan: &Plan, on: WoundOn, dice: &mut Dice, obs: &mut O) -> bool {
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

/// Finds dice for a replayed fight that give `result`, the outcome its trial drew from the
/// exact table: dice-level fights on a stream of their own until one matches (rejection
/// sampling, so the dice shown follow their exact distribution given the outcome).
fn reconstruct_fight<O: Observer>(
    plan: &Plan,
    scratch: &mut Scratch,
    dice: &mut Dice,
    result: FightOutcome,
    obs: &mut O,
) {
    for _ in 0..MAX_RECONSTRUCTION_TRIES {
        let mut trace = Trace::default();
        if fight_by_dice(plan, scratch, &mut ChariotState::fresh(plan), dice, &mut trace) == result {
            for event in trace.0 {
                obs.note(|| event);
            }
            return;
        }
    }
    obs.note(|| Event::Note {
        text: format!("no dice found for this rare fight outcome in {MAX_RECONSTRUCTION_TRIES} tries"),
    });
}

/// The spears, pikes and banner helping the models in `scratch`'s fight: their dice (and,
/// by the ruleset, their Fight) join the enemy's side of the duel, and replays name them.
#[inline(never)]
fn support_in_fight<O: Observer>(plan: &Plan, scratch: &Scratch, enemy: &mut DuelSide, obs: &mut O) -> FoeSupport {
    let presence: Vec<Presence> = plan.groups[scratch.group]
        .models
        .iter()
        .map(|&m| match scratch.survivors.iter().find(|s| s.model == m) {
            Some(s) => Presence { in_fight: true, rider: s.left > 0, prone: s.prone },
            None => Presence { in_fight: false, rider: false, prone: false },
        })
        .collect();
    let support = plan.foe_support(scratch.group, &presence);
    support.join(enemy);
    if !support.supporters.is_empty() || support.banner {
        obs.note(|| Event::Support {
            supporters: support.supporters.iter().map(|s| s.model).collect(),
            banner: support.banner,
        });
    }
    support
}

/// Each supporter's one Strike at the chariot after the enemy won the duel (until it is
/// slain).
#[inline(never)]
fn supporters_strike<O: Observer>(
    plan: &Plan,
    support: &FoeSupport,
    state: &mut ChariotState,
    dice: &mut Dice,
    obs: &mut O,
) {
    for supporter in &support.supporters {
        if state.wounds_left == 0 {
            break;
        }
        let hit = supporter.strikes_chariot.roll(dice);
        let wounds = u8::from(hit && state.suffer_wound(plan, dice, obs));
        obs.note(|| Event::Strike {
            by: Some(supporter.model),
            target: None,
            rolls: 1,
            wounds,
            slain: state.wounds_left == 0,
        });
    }
}

/// One enemy Hero in a die-by-die fight and what he has left.
#[derive(Clone, Copy, Debug)]
struct FoeInFight {
    /// His index among the fight's survivors (and targets).
    survivor: usize,
    /// His model.
    model: usize,
    /// His duel dice (Attacks).
    attacks: u8,
    /// His Might and Fate when the fight began, and his policies.
    hero: FoeHero,
    might_left: u8,
    fate_left: u8,
}

/// The standing enemy Heroes of a die-by-die fight, in the order they stand in it.
#[derive(Default)]
struct FoeHeroes {
    heroes: Vec<FoeInFight>,
}

impl FoeHeroes {
    /// The standing Heroes among `scratch`'s survivors, with the Fate the Impact Hits left.
    fn of(plan: &Plan, scratch: &Scratch) -> Self {
        let heroes = scratch
            .survivors
            .iter()
            .enumerate()
            .filter(|(_, s)| s.left > 0)
            .filter_map(|(i, s)| {
                let m = &plan.models[s.model];
                m.hero.map(|h| {
                    let hero = FoeHero { fate: h.fate - s.fate_spent, ..h };
                    FoeInFight {
                        survivor: i,
                        model: s.model,
                        attacks: m.attacks,
                        hero,
                        might_left: hero.might,
                        fate_left: hero.fate,
                    }
                })
            })
            .collect();
        Self { heroes }
    }

    /// The Hero who is target (survivor) `i`, by his place in the list.
    fn at(&self, i: usize) -> Option<usize> {
        self.heroes.iter().position(|f| f.survivor == i)
    }

    fn might_spent(&self) -> u8 {
        self.heroes.iter().map(|f| f.hero.might - f.might_left).sum()
    }

    fn fate_spent(&self) -> u8 {
        self.heroes.iter().map(|f| f.hero.fate - f.fate_left).sum()
    }

    /// The enemy's duel roll with Heroes in it: each Hero's dice kept apart from the
    /// warriors', the banner's re-roll, then Might both ways
    /// ([`mesbg_duel::settle_duel_might`]). Raises `chariot_high` by the chariot's Might and
    /// returns the enemy's highest.
    #[allow(clippy::too_many_arguments)]
    fn duel<O: Observer>(
        &mut self,
        attacker: &DuelSide,
        enemy: &DuelSide,
        support: &FoeSupport,
        chariot_high: &mut u8,
        (policy, state): (crate::scenario::MightPolicy, &mut ChariotState),
        dice: &mut Dice,
        obs: &mut O,
    ) -> u8 {
        let heroes: Vec<u32> = self.heroes.iter().map(|f| u32::from(f.attacks)).collect();
        let hero_dice: u32 = heroes.iter().sum();
        let warriors = mesbg_fight::defender_dice(&DuelSide { dice: enemy.dice - hero_dice, ..*enemy }, support);
        let highs = mesbg_duel::settle_foe_highs(&FoeDuelDice { warriors, heroes }, *chariot_high, || dice.d6());
        let chariot_might = if policy.on_duel() { state.might_left } else { 0 };
        let foe_might: Vec<u8> =
            self.heroes.iter().map(|f| if f.hero.might_on_duel { f.might_left } else { 0 }).collect();
        let m = mesbg_duel::settle_duel_might(
            *chariot_high,
            attacker.fight,
            chariot_might,
            &highs,
            &foe_might,
            enemy.fight,
        );
        if m.chariot_spent > 0 {
            state.might_left -= m.chariot_spent;
            obs.note(|| Event::Might { points: m.chariot_spent, on: "duel" });
        }
        for (f, &points) in self.heroes.iter_mut().zip(&m.foe_spent) {
            if points > 0 {
                f.might_left -= points;
                let model = f.model;
                obs.note(|| Event::FoeMight { model, points, on: "duel" });
            }
        }
        *chariot_high = m.chariot_high;
        m.foe_high
    }

    /// Hero `k` suffers `wounds` Wounds one at a time, each perhaps prevented by his Fate
    /// (and Might on the Fate roll); returns the Wounds he lost.
    fn suffer<O: Observer>(&mut self, k: usize, wounds_left: &mut u8, wounds: u8, dice: &mut Dice, obs: &mut O) -> u8 {
        let f = &mut self.heroes[k];
        let mut lost = 0;
        for _ in 0..wounds {
            if *wounds_left == 0 {
                break;
            }
            let on = WoundOn::Hero { wounds_left: *wounds_left };
            let p = mesbg_fight::settle_prevention(f.hero.saves, on, f.fate_left, f.might_left, || dice.d6());
            f.fate_left -= p.fate_spent;
            f.might_left -= p.might_spent;
            let model = f.model;
            if p.might_spent > 0 {
                obs.note(|| Event::FoeMight { model, points: p.might_spent, on: "Fate" });
            }
            if p.fate_spent > 0 {
                obs.note(|| Event::FoeFate { model, points: p.fate_spent, saved: p.prevented });
            }
            if !p.prevented {
                *wounds_left -= 1;
                lost += 1;
            }
        }
        lost
    }
}

/// The fight after the charge against the survivors in `scratch`, die by die, with the
/// Hero's Might (by his policy) and Fate, and cavalry (rider and mount).
fn fight_by_dice<O: Observer>(
    plan: &Plan,
    scratch: &mut Scratch,
    state: &mut ChariotState,
    dice: &mut Dice,
    obs: &mut O,
) -> FightOutcome {
    let chariot = plan.chariot.fighter();
    let policy = plan.chariot.hero.map_or(crate::scenario::MightPolicy::None, |h| h.might_policy);
    let rules = fight_rules(&plan.rules);
    let wounds_at_start = state.wounds_left;
    let (might_at_start, fate_at_start) = (state.might_left, state.fate_left);
    let attacker = DuelSide { dice: u32::from(chariot.attacks), fight: chariot.fight, side: chariot.side };
    let mut enemy = DuelSide { dice: 0, fight: 0, side: chariot.side.opponent() };
    for s in &scratch.survivors {
        let m = &plan.models[s.model];
        if s.left > 0 {
            enemy.dice += u32::from(m.attacks);
            enemy.fight = enemy.fight.max(m.fight);
        }
        if let Some(mount) = m.mount.filter(|_| s.mount_left > 0) {
            enemy.dice += u32::from(mount.attacks);
            enemy.fight = enemy.fight.max(mount.fight);
        }
    }
    // Spears, pikes and banners helping the models in the fight (worked out of line: most
    // scenarios have none).
    let support = if plan.support.any() { support_in_fight(plan, scratch, &mut enemy, obs) } else { FoeSupport::NONE };
    let mut foes = if plan.foe_heroes.is_empty() { FoeHeroes::default() } else { FoeHeroes::of(plan, scratch) };
    let mut chariot_high = dice.highest_d6(attacker.dice);
    let enemy_high = if !foes.heroes.is_empty() {
        foes.duel(&attacker, &enemy, &support, &mut chariot_high, (policy, state), dice, obs)
    } else if support.plain_dice() {
        dice.highest_d6(enemy.dice)
    } else {
        mesbg_fight::settle_defender_high(mesbg_fight::defender_dice(&enemy, &support), chariot_high, || dice.d6())
    };
    if foes.heroes.is_empty()
        && policy.on_duel()
        && let Some(points) =
            mesbg::might_to_win_duel(chariot_high, enemy_high, attacker.fight, enemy.fight, state.might_left)
    {
        state.might_left -= points;
        chariot_high += points;
        obs.note(|| Event::Might { points, on: "duel" });
    }
    let duel = mesbg::settle_duel(attacker, enemy, chariot_high, enemy_high, dice);
    let won = duel.winner == DuelWinner::Attacker;
    obs.note(|| Event::Duel {
        chariot_dice: attacker.dice,
        enemy_dice: enemy.dice,
        chariot_high: duel.attacker_high,
        enemy_high: duel.defender_high,
        roll_off: duel.roll_off,
        chariot_won: won,
    });
    if won {
        // The beaten Infantry are knocked Prone, beaten Cavalry Knocked Flying (the rider
        // takes a Strength 3 hit and is Prone); never Monsters or chariots. Models knocked
        // down count as Trapped when the ruleset says so; a model already Prone when it
        // loses is always Trapped. Strikes go to riders (and infantry); a mount only when
        // its rider is already gone.
        let mut kills = 0;
        scratch.targets.clear();
        scratch.target_is_rider.clear();
        for s in &scratch.survivors {
            let m = &plan.models[s.model];
            let never_prone = m.monster || m.chariot.is_some();
            if s.left > 0 {
                let mut left = s.left;
                let mounted = m.mount.is_some() && s.mount_left > 0;
                let trapped = if s.prone {
                    true
                } else if mounted {
                    let wounded = m.thrown_hit.roll(dice);
                    left -= u8::from(wounded);
                    kills += u8::from(left == 0);
                    obs.note(|| Event::KnockedFlying { model: s.model, wounded });
                    rules.trapped
                } else {
                    rules.trapped && !never_prone
                };
                scratch.targets.push(StrikeTarget {
                    roll: m.struck_by_chariot,
                    trapped,
                    wounds_left: left,
                    defence: m.defence,
                });
                scratch.target_is_rider.push(true);
            } else if let Some(mount) = m.mount.filter(|_| s.mount_left > 0) {
                scratch.targets.push(StrikeTarget {
                    roll: mount.struck_by_chariot,
                    trapped: false,
                    wounds_left: s.mount_left,
                    defence: mount.defence,
                });
                scratch.target_is_rider.push(false);
            }
        }
        let declared = rules.split == StrikeSplit::Declared;
        let mut order = std::mem::take(&mut scratch.order);
        order.clear();
        if declared {
            order.extend_from_slice(scratch.declared_order(chariot.attacks));
            if O::ENABLED {
                let split: Vec<(usize, u8)> = (0..scratch.targets.len())
                    .map(|i| (scratch.survivors[i].model, order.iter().filter(|&&k| k == i).count() as u8))
                    .collect();
                obs.note(|| Event::StrikesDeclared { split });
            }
        }
        let mut at_start = std::mem::take(&mut scratch.at_start);
        at_start.clear();
        at_start.extend(scratch.targets.iter().map(|t| t.wounds_left));
        let might_on_wounds = policy.on_wounds();
        for j in 0..usize::from(chariot.attacks) {
            let pick = if declared {
                order.get(j).copied().filter(|&i| scratch.targets[i].wounds_left > 0)
            } else {
                mesbg::pick_target(&scratch.targets, rules.allocation)
            };
            let Some(i) = pick else {
                continue; // declared at a model already slain, or nobody stands
            };
            let target = scratch.targets[i];
            let might = if might_on_wounds { state.might_left } else { 0 };
            // Against a Hero with Fate left every Wound of the Strike may matter.
            let foe = foes.at(i).filter(|&k| foes.heroes[k].fate_left > 0);
            let counted = if foe.is_some() { target.wounds_left.max(2) } else { target.wounds_left };
            let (wounds, spent) = mesbg_fight::settle_strike(target.roll, target.trapped, counted, might, || dice.d6());
            if spent > 0 {
                state.might_left -= spent;
                obs.note(|| Event::Might { points: spent, on: "wound" });
            }
            let wounds = match foe {
                Some(k) => foes.suffer(k, &mut scratch.targets[i].wounds_left, wounds, dice, obs),
                None => {
                    scratch.targets[i].wounds_left -= wounds;
                    wounds
                }
            };
            let slain = scratch.targets[i].wounds_left == 0;
            kills += u8::from(slain && scratch.target_is_rider[i]);
            let model = scratch.survivors[i].model;
            let rolls = 1 + u8::from(target.trapped);
            obs.note(|| Event::Strike { by: None, target: Some(model), rolls, wounds, slain });
        }
        let foe_chariot_slain = scratch.targets.iter().zip(&at_start).enumerate().any(|(i, (t, &start))| {
            start > 0 && t.wounds_left == 0 && plan.models[scratch.survivors[i].model].chariot.is_some()
        });
        let foe_heroes_slain =
            foes.heroes.iter().filter(|f| scratch.targets[f.survivor].wounds_left == 0).count() as u8;
        scratch.order = order;
        scratch.at_start = at_start;
        FightOutcome {
            won: true,
            kills,
            wounds_lost: 0,
            might_spent: might_at_start - state.might_left,
            fate_spent: 0,
            foe_chariot_slain,
            foe_might_spent: foes.might_spent(),
            foe_fate_spent: foes.fate_spent(),
            foe_heroes_slain,
        }
    } else {
        // A chariot is never Trapped: each enemy Strike is one roll; the Hero's Fate (and
        // Might on the Fate roll) may prevent each Wound. Prone models and riders thrown
        // this turn make no Strikes.
        'strikes: for s in &scratch.survivors {
            let m = &plan.models[s.model];
            let rider = (s.left > 0 && s.strikes).then_some((m.attacks, m.strikes_chariot));
            let mount = m.mount.filter(|_| s.mount_left > 0).map(|mt| (mt.attacks, mt.strikes_chariot));
            let foe = foes.heroes.iter().position(|f| f.model == s.model && f.hero.might_on_wounds);
            for (attacks, roll) in rider.into_iter().chain(mount) {
                for _ in 0..attacks {
                    // An enemy Hero may spend Might to turn his failed To Wound roll.
                    let hit = match foe.filter(|&k| foes.heroes[k].might_left > 0) {
                        Some(k) => {
                            let f = &mut foes.heroes[k];
                            let (wounded, spent) =
                                mesbg_fight::settle_strike(roll, false, 1, f.might_left, || dice.d6());
                            f.might_left -= spent;
                            let model = f.model;
                            if spent > 0 {
                                obs.note(|| Event::FoeMight { model, points: spent, on: "wound" });
                            }
                            wounded > 0
                        }
                        None => roll.roll(dice),
                    };
                    let wounds = u8::from(hit && state.suffer_wound(plan, dice, obs));
                    obs.note(|| Event::Strike {
                        by: Some(s.model),
                        target: None,
                        rolls: 1,
                        wounds,
                        slain: state.wounds_left == 0,
                    });
                    if state.wounds_left == 0 {
                        break 'strikes;
                    }
                }
            }
        }
        // Then each supporter's one Strike.
        if !support.supporters.is_empty() {
            supporters_strike(plan, &support, state, dice, obs);
        }
        FightOutcome {
            won: false,
            kills: 0,
            wounds_lost: wounds_at_start - state.wounds_left,
            might_spent: might_at_start - state.might_left,
            fate_spent: fate_at_start - state.fate_left,
            foe_chariot_slain: false,
            foe_might_spent: foes.might_spent(),
            foe_fate_spent: 0,
            foe_heroes_slain: 0,
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
    let mut out = Outcome::default();
    match OutcomeCounter::for_tally(&tally) {
        Some(mut counter) => {
            for t in trials {
                play(plan, streams, t, scratch, &mut Silent, &mut out);
                counter.record(&out, &mut tally);
            }
            counter.drain_into(&mut tally);
        }
        None => {
            for t in trials {
                play(plan, streams, t, scratch, &mut Silent, &mut out);
                tally.record(&out);
            }
        }
    }
    tally
}

/// Receives the outcomes of consecutive trials, in order, with the index of the first.
pub type OutcomeSink<'a, E> = dyn FnMut(u64, &[Outcome]) -> Result<(), E> + 'a;

/// Trials per chunk of [`for_each_chunk`].
pub const OUTCOME_CHUNK: u64 = 1 << 20;

/// Plays the trials of `range` again, [`OUTCOME_CHUNK`] at a time (in parallel within a
/// chunk), and hands each chunk's outcomes to `sink` in trial order with the index of its
/// first trial: per-trial exports stay flat in memory whatever the trial count. Stops at
/// the first error of `sink`, or with `Ok(false)` when `cancel` is set.
pub fn for_each_chunk<E>(
    plan: &Plan,
    streams: Streams,
    range: TrialRange,
    cancel: &AtomicBool,
    sink: &mut OutcomeSink<'_, E>,
) -> Result<bool, E> {
    let end = range.first + range.count;
    let mut first = range.first;
    while first < end {
        if cancel.load(Ordering::Relaxed) {
            return Ok(false);
        }
        let last = (first + OUTCOME_CHUNK).min(end);
        let outcomes: Vec<Outcome> = (first..last)
            .into_par_iter()
            .map_init(Scratch::default, |scratch, t| trial(plan, streams, t, scratch, &mut Silent))
            .collect();
        sink(first, &outcomes)?;
        first = last;
    }
    Ok(true)
}

/// Replays one trial with its full event trace.
pub fn replay(plan: &Plan, streams: Streams, trial_index: u64) -> (Outcome, Vec<Event>) {
    let mut trace = Trace::default();
    let outcome = trial(plan, streams, trial_index, &mut Scratch::default(), &mut trace);
    (outcome, trace.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::compile;
    use crate::scenario::{DEFAULT_SCENARIO, parse};

    #[test]
    fn replay_matches_the_fast_path() {
        let scenario = parse(DEFAULT_SCENARIO, "t").unwrap();
        let plan = compile(&scenario);
        let streams = Streams::new(3, scenario.hash());
        let mut scratch = Scratch::default();
        for t in 0..2000 {
            let fast = trial(&plan, streams, t, &mut scratch, &mut Silent);
            let (slow, events) = replay(&plan, streams, t);
            assert_eq!(fast, slow, "trial {t}");
            let contacts = events.iter().filter(|e| matches!(e, Event::Contact { .. })).count();
            assert_eq!(contacts as u16, fast.get(Metric::Contacts));
        }
    }

    /// Plays every tabulated fight of the plan's first contact group die by die and checks
    /// each outcome's frequency against its exact probability (5 standard errors). Both
    /// sides call the same settle functions, so this checks the dice-level sampling and
    /// the table compilation, not the rules (the oracle in `tests/oracle/` does that).
    fn check_first_group_against_dice(plan: &Plan, fights_per_config: u32) {
        let group = &plan.groups[0];
        let mut dice = crate::dice::trial_dice(1, 2, 3, Phase::Fight);
        let mut scratch = Scratch::default();
        let mut checked = 0;
        for (config, table) in group.fights.iter().enumerate() {
            let Some(table) = table else { continue };
            scratch.survivors = group
                .models
                .iter()
                .zip(group.decode(config, &plan.models))
                .map(|(&m, (left, fate_left))| Survivor {
                    model: m,
                    left,
                    mount_left: 0,
                    prone: false,
                    strikes: true,
                    fate_spent: plan.models[m].hero.map_or(0, |h| h.fate - fate_left),
                })
                .filter(|s| s.left > 0)
                .collect();
            let mut counts = vec![0u32; table.outcomes.len()];
            for _ in 0..fights_per_config {
                let o = fight_by_dice(plan, &mut scratch, &mut ChariotState::fresh(plan), &mut dice, &mut Silent);
                let i = table.outcomes.iter().position(|x| *x == o).unwrap_or_else(|| panic!("{o:?} not in table"));
                counts[i] += 1;
            }
            let n = f64::from(fights_per_config);
            for (c, p) in counts.iter().zip(&table.probabilities) {
                let se = (p * (1.0 - p) / n).sqrt();
                assert!(
                    (f64::from(*c) / n - p).abs() < 5.0 * se + 1e-9,
                    "{config}: {counts:?} vs {:?}",
                    table.probabilities
                );
            }
            checked += 1;
        }
        assert!(checked > 0, "no fight tables to check");
    }

    #[test]
    fn dice_level_fights_follow_the_exact_tables() {
        // Every survivor configuration of the default scenario's first pair, with both
        // allocation policies and with and without Trapped.
        for (trapped, policy) in [(true, "most_wounded_first"), (false, "easiest_first")] {
            let text = format!(
                "{DEFAULT_SCENARIO}\n[rules]\nprone_counts_as_trapped = {trapped}\nstrike_allocation = \"{policy}\"\n"
            );
            check_first_group_against_dice(&compile(&parse(&text, "t").unwrap()), 200_000);
        }
    }

    #[test]
    fn supported_fights_follow_the_exact_tables() {
        // Spears (or pikes three deep) behind the line and a banner in it (at the front or
        // in the second rank): the die-by-die fight and the exact tables agree for every
        // survivor configuration of the first pair.
        for (weapon, ranks, banner_at) in [("spear", 2, "[1, 3]"), ("pike", 3, "[2, 3]"), ("spear", 3, "[1, 4]")] {
            let text = DEFAULT_SCENARIO
                .replace("count = 12", "count = 18")
                .replace("ranks = 2", &format!("ranks = {ranks}\nbanner = true\nbanner_at = {banner_at}"))
                .replace("points = 8 }", &format!("points = 8, {weapon} = true }}"));
            let plan = compile(&parse(&text, "t").unwrap_or_else(|e| panic!("{e}")));
            let all = vec![Presence { in_fight: true, rider: true, prone: false }; plan.groups[0].models.len()];
            let support = plan.foe_support(0, &all);
            // Each model in the fight has one supporter touching it (beside or behind), and a
            // pike one more through that one.
            let per_model = if weapon == "pike" { 2 } else { 1 };
            assert_eq!(support.supporters.len(), all.len() * per_model, "{weapon}: {support:?}");
            assert!(support.banner, "{weapon}: the bearer is within 3\"");
            check_first_group_against_dice(&plan, 150_000);
        }
    }

    #[test]
    fn enemy_hero_fights_follow_the_exact_tables() {
        // A Captain (2 Wounds, 2 Might, 1 Fate) beside a warrior in the first pair, under
        // each of his Might policies and with a King's Might answering his: every survivor
        // configuration, his Fate left after the Impact Hits included, fought die by die
        // agrees with its exact table.
        for (policy, king) in [("win_duel_then_wound", false), ("wound", false), ("win_duel", true)] {
            let hero = format!(
                "ranks = 2\nhero = {{ profile = {{ fight = 5, strength = 4, defence = 6, attacks = 2, wounds = 2, courage = \"6+\", might = 2, will = 1, fate = 1, might_policy = \"{policy}\" }}, at = [1, 3] }}"
            );
            let mut text = DEFAULT_SCENARIO.replace("ranks = 2", &hero);
            if king {
                text = text.replace(
                    "points = 40\n",
                    "points = 40\n[chariot.hero]\nprofile = \"Khandish King\"\nmight_policy = \"win_duel\"\n",
                );
                assert!(text.contains("[chariot.hero]"));
            }
            let plan = compile(&parse(&text, "t").unwrap_or_else(|e| panic!("{e}")));
            let group = &plan.groups[0];
            assert!(
                group.models.iter().any(|&m| plan.models[m].hero.is_some()),
                "{policy}: the Captain is in the pair"
            );
            assert!(group.fate_strides.iter().any(|&s| s > 0));
            check_first_group_against_dice(&plan, 100_000);
        }
    }

    #[test]
    fn hero_fights_follow_the_exact_tables() {
        // A Hero with Might 3 and Fate 2 under every Might policy, against a pair of
        // two-Wound Uruk-hai (so Might on wounds and Fate both matter, and a Strike can
        // leave a target wounded).
        for policy in ["none", "win_duel", "wound", "win_duel_then_wound"] {
            let text = format!(
                r#"title = "t"
system = "mesbg"
[chariot]
profile = "Khandish Chariot upgrade for a King"
side = "evil"
at = [0.0, 0.0]
facing = 0
[chariot.hero]
profile = "Khandish King"
might = 3
fate = 2
might_policy = "{policy}"
[charge]
pivots = []
[[formations]]
name = "line"
count = 2
profile = {{ fight = 4, strength = 4, defence = 5, attacks = 1, wounds = 2, courage = "7+", base_mm = 25.0 }}
front_centre = [0.0, 6.0]
facing = 180
"#
            );
            let plan = compile(&parse(&text, "t").unwrap());
            assert!(plan.groups[0].fights.iter().flatten().any(|t| t.outcomes.iter().any(|o| o.fate_spent > 0)));
            if policy != "none" {
                assert!(plan.groups[0].fights.iter().flatten().any(|t| t.outcomes.iter().any(|o| o.might_spent > 0)));
            }
            check_first_group_against_dice(&plan, 150_000);
        }
    }

    #[test]
    fn replayed_fights_are_consistent_with_their_outcome() {
        let scenario = parse(DEFAULT_SCENARIO, "t").unwrap();
        let plan = compile(&scenario);
        let streams = Streams::new(9, scenario.hash());
        for t in 0..300 {
            let (outcome, events) = replay(&plan, streams, t);
            let strikes_slaying =
                events.iter().filter(|e| matches!(e, Event::Strike { target: Some(_), slain: true, .. })).count();
            let chariot_wounds: u32 = events
                .iter()
                .map(|e| match e {
                    Event::Strike { target: None, wounds, .. } => u32::from(*wounds),
                    _ => 0,
                })
                .sum();
            if outcome.get(Metric::FightFought) == 1 {
                assert_eq!(strikes_slaying as u16, outcome.get(Metric::FightKills), "trial {t}: {events:?}");
                assert_eq!(chariot_wounds as u16, outcome.get(Metric::ChariotWoundsLost), "trial {t}");
                let won = events.iter().any(|e| matches!(e, Event::Duel { chariot_won: true, .. }));
                assert_eq!(u16::from(won), outcome.get(Metric::FightWon), "trial {t}");
            }
        }
    }

    #[test]
    fn block_split_does_not_change_the_tally() {
        let scenario = parse(DEFAULT_SCENARIO, "t").unwrap();
        let plan = compile(&scenario);
        let streams = Streams::new(3, scenario.hash());
        let never = AtomicBool::new(false);
        let whole = run(&plan, streams, TrialRange { first: 0, count: 100_000 }, &|_| {}, &never).unwrap();
        let mut parts = run(&plan, streams, TrialRange { first: 0, count: 41_234 }, &|_| {}, &never).unwrap();
        let rest = run(&plan, streams, TrialRange { first: 41_234, count: 58_766 }, &|_| {}, &never).unwrap();
        parts.merge(&rest);
        assert_eq!(whole, parts);
    }

    #[test]
    fn cancel_stops_the_run() {
        let scenario = parse(DEFAULT_SCENARIO, "t").unwrap();
        let plan = compile(&scenario);
        let streams = Streams::new(3, 1);
        let cancel = AtomicBool::new(true);
        let err = run(&plan, streams, TrialRange { first: 0, count: 10 * BLOCK }, &|_| {}, &cancel).unwrap_err();
        assert_eq!(err.asked, 10 * BLOCK);
    }
}
