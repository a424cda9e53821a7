//! Running a turn: its compiling (the best order played out where the scenario asks for
//! it), the scratch a thread keeps, trials tallied down the chain of states, and the
//! engine's [`RuleSystem`](crate::engine::RuleSystem) for [`TurnPlan`].

use super::chain::Chain;
use super::compile::{compile_order, compile_turn, permutations};
use super::plan::{BEST_ORDER_TRIALS, TurnError, TurnPlan};
use super::play::play;
use super::scratch::TurnTrial;
use super::tally::TurnTally;
use crate::engine::{RuleSystem, Streams, TrialRange};
use crate::mesbg::resolve::{Event, Silent, Trace};
use crate::mesbg::scenario::{Scenario, TurnOrder};
use std::sync::atomic::AtomicBool;

/// What a thread keeps from trial to trial of a turn: the trial's state and memos, and the
/// chain of states it has compiled.
#[derive(Default)]
pub struct TurnScratch {
    /// The trial being played, with the thread's memos.
    pub trial: TurnTrial,
    /// The turn compiled into a chain of states as trials meet them ([`super::chain`]).
    pub chain: Chain,
}

/// Compiles a turn as the scenario asks: in the order listed or given, or, for `[turn]
/// order = "best"`, each order weighed by the objective's exact mean where the exact engine
/// answers every order, else by its mean over [`BEST_ORDER_TRIALS`] trials played on the
/// same streams for every order (common random numbers: the differences between orders are
/// not drowned in the noise of separate streams), and the best kept.
pub fn compile(scenario: &Scenario) -> Result<TurnPlan, TurnError> {
    let exact_mean = |plan: &TurnPlan, metric: &str| {
        let index = plan.metrics.index(metric)?;
        super::exact::exact_turn(plan).ok().map(|e| e.joint.mean_sd(index).0)
    };
    let play_mean = |plan: &TurnPlan, metric: &str| {
        let streams = Streams::new(scenario.seed ^ 0xc0ffee, scenario.hash());
        let range = TrialRange { first: 0, count: BEST_ORDER_TRIALS };
        let never = AtomicBool::new(false);
        let Ok(tally) = crate::engine::run(plan, streams, range, &|_| {}, &never) else { return 0.0 };
        let Some(index) = plan.metrics.index(metric) else { return 0.0 };
        let hist = plan.histogram(&tally, index);
        let n = tally.trials.max(1) as f64;
        hist.iter().enumerate().map(|(v, &c)| v as f64 * c as f64).sum::<f64>() / n
    };
    compile_turn(scenario, &exact_mean, &play_mean)
}

/// Whether every order the scenario's turn may be played in can be compiled: the first
/// reason one cannot.
pub fn check(scenario: &Scenario) -> Result<(), TurnError> {
    let orders = match &scenario.turn {
        TurnOrder::Best(_) => permutations(scenario.more.len() + 1),
        TurnOrder::Given(order) => vec![order.clone()],
        TurnOrder::Listed => vec![(0..=scenario.more.len()).collect()],
    };
    for order in orders {
        compile_order(scenario, order)?;
    }
    Ok(())
}

/// Plays and tallies `trials` of a turn on this thread: down the chain of states the
/// thread has compiled ([`super::chain`]), which draws every trial as [`play`] does, word
/// for word; a trial that reaches a stage rolled die by die is played by [`play`] itself.
pub fn tally_turns(plan: &TurnPlan, streams: Streams, trials: std::ops::Range<u64>, s: &mut TurnScratch) -> TurnTally {
    let mut tally = TurnTally::new(plan);
    let chain = &mut s.chain;
    let trial = &mut s.trial;
    let chained = chain.prepare(plan, trial);
    for t in trials {
        if chained && chain.walk(plan, streams.trial_key(t), trial) {
            continue;
        }
        play(plan, streams, t, trial, &mut Silent);
        tally.record(plan, trial);
    }
    chain.flush(plan, trial, &mut tally);
    tally
}

impl RuleSystem for TurnPlan {
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
    fn histogram<'t>(&self, tally: &'t TurnTally, index: usize) -> &'t [u64] {
        &tally.histograms[index]
    }
    fn play_values(&self, streams: Streams, trial: u64, scratch: &mut TurnScratch, values: &mut Vec<u16>) {
        let played = play(self, streams, trial, &mut scratch.trial, &mut Silent);
        values.clear();
        values.extend_from_slice(played);
    }
}

/// Replays one trial of a turn: its metric values and events.
pub fn replay_turn(plan: &TurnPlan, streams: Streams, trial: u64) -> (Vec<u16>, Vec<Event>) {
    let mut s = TurnTrial::default();
    let mut trace = Trace::default();
    let values = play(plan, streams, trial, &mut s, &mut trace).to_vec();
    (values, trace.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_of(file: &str) -> TurnPlan {
        let scenario = crate::mesbg::scenario::load(std::path::Path::new(file)).expect("the example loads");
        let order = (0..=scenario.more.len()).collect();
        compile_order(&scenario, order).expect("the example compiles")
    }

    /// The tally of `trials` as `play` plays them one by one, without the chain.
    fn played(plan: &TurnPlan, streams: Streams, trials: std::ops::Range<u64>) -> TurnTally {
        let mut s = TurnTrial::default();
        let mut tally = TurnTally::new(plan);
        for t in trials {
            play(plan, streams, t, &mut s, &mut Silent);
            tally.record(plan, &s);
        }
        tally
    }

    #[test]
    fn the_chain_tallies_every_trial_as_play_turn_plays_it() {
        for file in [
            "scenarios/mesbg/turn-three-khandish-into-shield-wall.toml",
            "scenarios/mesbg/turn-two-iron-hills-into-pike-block.toml",
        ] {
            let plan = plan_of(file);
            let streams = Streams::new(7, plan.scenario.hash());
            let mut s = TurnScratch::default();
            // Two blocks on one scratch: the second starts from the chain the first left.
            let mut chained = tally_turns(&plan, streams, 0..30_000, &mut s);
            chained.merge(&tally_turns(&plan, streams, 30_000..60_000, &mut s));
            assert!(s.chain.len() > 1, "{file}: the chain was followed");
            println!("{file}: {} states in the chain after 60,000 turns", s.chain.len());
            let by_play = played(&plan, streams, 0..60_000);
            assert_eq!(chained, by_play, "{file}: the chain and play tally alike");
            // The scratch gone, its chain waits in the plan for the next run; a clone of
            // the plan (which may be changed) has none.
            let states = s.chain.len();
            drop(s);
            assert!(plan.clone().compiled.take::<Chain>().is_none(), "{file}: a clone starts empty");
            let kept = plan.compiled.take::<Chain>().expect("the chain was left in the plan");
            assert_eq!(kept.len(), states);
            assert!(!kept.has_home(), "a pooled chain holds no handle to its pool");
        }
    }
}
