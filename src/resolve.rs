//! Running trials over a plan: one trial walks the contact list rolling dice, then fights;
//! many trials run in parallel into integer tallies.
//!
//! Trial `t` draws only from streams keyed by `(seed, stream key, t, phase)`, and trials are
//! tallied in fixed blocks merged by exact integer addition, so a run gives the same tally
//! for any number of threads, and any single trial can be replayed alone with a trace.

use crate::dice::{Dice, Phase, trial_dice};
use crate::plan::Plan;
use crate::rules::mesbg::{self, DuelSide, DuelWinner, StrikeTarget};
use crate::tally::{Metric, Outcome, Tally};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};

/// Trials per block: the unit of parallel work, progress and cancellation.
pub const BLOCK: u64 = 1 << 15;

/// What keys every random stream of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Streams {
    /// The user's seed.
    pub seed: u64,
    /// Normally the scenario hash; a paired comparison gives both sides the same key.
    pub key: u64,
}

impl Streams {
    fn dice(&self, trial: u64, phase: Phase) -> Dice {
        trial_dice(self.seed, self.key, trial, phase)
    }
}

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
        /// Impact Hits it took.
        hits: u8,
        /// Wounds they caused (capped at its Wounds).
        wounds: u8,
        /// Whether it was slain.
        slain: bool,
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
    /// Records an event (built only when someone listens).
    fn note(&mut self, event: impl FnOnce() -> Event);
}

/// Listens to nothing: the fast path.
pub struct Silent;

impl Observer for Silent {
    #[inline(always)]
    fn note(&mut self, _event: impl FnOnce() -> Event) {}
}

/// Keeps every event.
#[derive(Default)]
pub struct Trace(pub Vec<Event>);

impl Observer for Trace {
    fn note(&mut self, event: impl FnOnce() -> Event) {
        self.0.push(event());
    }
}

/// Buffers a trial reuses, so the hot loop does not allocate.
#[derive(Default)]
pub struct Scratch {
    survivors: Vec<(usize, u8)>,
    targets: Vec<StrikeTarget>,
}

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
    max
}

/// Plays trial `trial` of a run.
#[inline]
pub fn trial<O: Observer>(plan: &Plan, streams: Streams, trial: u64, scratch: &mut Scratch, obs: &mut O) -> Outcome {
    let mut dice = streams.dice(trial, Phase::Charge);
    let mut out = Outcome::default();
    let mut impact_kills = 0u16;
    let mut contacts = 0u16;
    scratch.survivors.clear();
    let mut stopped_at = None;
    for group in &plan.groups {
        for &m in &group.models {
            let model = &plan.models[m];
            let (hits, wounds) = model.impact_outcomes[model.impact_table.sample(&mut dice)];
            let slain = wounds >= model.wounds;
            contacts += 1;
            if slain {
                impact_kills += 1;
            } else {
                scratch.survivors.push((m, model.wounds - wounds));
            }
            obs.note(|| Event::Contact { distance: group.distance, model: m, hits, wounds, slain });
        }
        if !scratch.survivors.is_empty() {
            stopped_at = Some(group.distance);
            break;
        }
    }
    out.set(Metric::ImpactKills, impact_kills);
    out.set(Metric::Contacts, contacts);
    let Some(distance) = stopped_at else {
        out.set(Metric::Breakthrough, u16::from(plan.breakthrough_possible));
        out.set(Metric::Kills, impact_kills);
        obs.note(|| Event::DroveOn { breakthrough: plan.breakthrough_possible });
        return out;
    };
    obs.note(|| Event::Stopped { distance, by: scratch.survivors.iter().map(|s| s.0).collect() });
    let mut fight_dice = streams.dice(trial, Phase::Fight);
    let (fight_kills, wounds_lost, won) = fight(plan, scratch, &mut fight_dice, obs);
    out.set(Metric::FightFought, 1);
    out.set(Metric::FightWon, u16::from(won));
    out.set(Metric::FightKills, fight_kills);
    out.set(Metric::Kills, impact_kills + fight_kills);
    out.set(Metric::ChariotWoundsLost, u16::from(wounds_lost));
    out.set(Metric::ChariotSlain, u16::from(wounds_lost >= plan.chariot.wounds));
    out
}

/// The fight after the charge against the survivors in `scratch`. Returns
/// (models slain, chariot Wounds lost, chariot won).
fn fight<O: Observer>(plan: &Plan, scratch: &mut Scratch, dice: &mut Dice, obs: &mut O) -> (u16, u8, bool) {
    let chariot = plan.chariot;
    let enemy = DuelSide {
        dice: scratch.survivors.iter().map(|&(m, _)| u32::from(plan.models[m].attacks)).sum(),
        fight: scratch.survivors.iter().map(|&(m, _)| plan.models[m].fight).max().unwrap_or(0),
        side: chariot.side.opponent(),
    };
    let attacker = DuelSide { dice: u32::from(chariot.attacks), fight: chariot.fight, side: chariot.side };
    let duel = mesbg::duel(attacker, enemy, dice);
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
        // The beaten infantry are knocked Prone; Prone models count as Trapped for the
        // chariot's Strikes when the ruleset says so.
        let trapped = plan.rules.prone_counts_as_trapped;
        scratch.targets.clear();
        scratch.targets.extend(scratch.survivors.iter().map(|&(m, left)| StrikeTarget {
            roll: plan.models[m].struck_by_chariot,
            trapped,
            wounds_left: left,
            defence: plan.models[m].defence,
        }));
        let mut kills = 0;
        for _ in 0..chariot.attacks {
            let Some(i) = mesbg::pick_target(&scratch.targets, plan.rules.strike_allocation) else { break };
            let target = &mut scratch.targets[i];
            let wounds = mesbg::strike(target.roll, target.trapped, dice).min(target.wounds_left);
            target.wounds_left -= wounds;
            let slain = target.wounds_left == 0;
            kills += u16::from(slain);
            let model = scratch.survivors[i].0;
            obs.note(|| Event::Strike { by: None, target: Some(model), rolls: 1 + u8::from(trapped), wounds, slain });
        }
        (kills, 0, true)
    } else {
        // A chariot is never Trapped: each enemy Strike is one roll.
        let mut left = chariot.wounds;
        'strikes: for &(m, _) in &scratch.survivors {
            let model = &plan.models[m];
            for _ in 0..model.attacks {
                let wounds = mesbg::strike(model.strikes_chariot, false, dice).min(left);
                left -= wounds;
                obs.note(|| Event::Strike { by: Some(m), target: None, rolls: 1, wounds, slain: left == 0 });
                if left == 0 {
                    break 'strikes;
                }
            }
        }
        (0, chariot.wounds - left, false)
    }
}

/// Which trials a run plays: `first..first + count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TrialRange {
    /// First trial index.
    pub first: u64,
    /// Number of trials.
    pub count: u64,
}

/// The run was interrupted before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the run was interrupted after {done} of {asked} trials")]
pub struct Interrupted {
    /// Trials finished.
    pub done: u64,
    /// Trials asked for.
    pub asked: u64,
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
    let bounds = metric_bounds(plan);
    let blocks = range.count.div_ceil(BLOCK);
    let tally = (0..blocks)
        .into_par_iter()
        .map_init(Scratch::default, |scratch, b| {
            if cancel.load(Ordering::Relaxed) {
                return None;
            }
            let start = range.first + b * BLOCK;
            let end = (start + BLOCK).min(range.first + range.count);
            let mut tally = Tally::new(&bounds);
            for t in start..end {
                tally.record(&trial(plan, streams, t, scratch, &mut Silent));
            }
            progress(end - start);
            Some(tally)
        })
        .reduce(
            || Some(Tally::new(&bounds)),
            |a, b| match (a, b) {
                (Some(mut a), Some(b)) => {
                    a.merge(&b);
                    Some(a)
                }
                _ => None,
            },
        );
    match tally {
        Some(t) if !cancel.load(Ordering::Relaxed) || t.trials == range.count => Ok(t),
        other => Err(Interrupted { done: other.map_or(0, |t| t.trials), asked: range.count }),
    }
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
        let streams = Streams { seed: 3, key: scenario.hash() };
        let mut scratch = Scratch::default();
        for t in 0..2000 {
            let fast = trial(&plan, streams, t, &mut scratch, &mut Silent);
            let (slow, events) = replay(&plan, streams, t);
            assert_eq!(fast, slow, "trial {t}");
            let contacts = events.iter().filter(|e| matches!(e, Event::Contact { .. })).count();
            assert_eq!(contacts as u16, fast.get(Metric::Contacts));
        }
    }

    #[test]
    fn block_split_does_not_change_the_tally() {
        let scenario = parse(DEFAULT_SCENARIO, "t").unwrap();
        let plan = compile(&scenario);
        let streams = Streams { seed: 3, key: scenario.hash() };
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
        let streams = Streams { seed: 3, key: 1 };
        let cancel = AtomicBool::new(true);
        let err = run(&plan, streams, TrialRange { first: 0, count: 10 * BLOCK }, &|_| {}, &cancel).unwrap_err();
        assert_eq!(err.asked, 10 * BLOCK);
    }
}
