//! A turn's tally: one histogram per metric, and per model the trials it was slain in.

use super::plan::TurnPlan;
use super::scratch::TurnTrial;
use serde::{Deserialize, Serialize};

/// A turn's tally: one histogram per metric, and per model the trials it was slain in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

    /// Counts the trial `s` played: its values and the models it slew.
    pub fn record(&mut self, plan: &TurnPlan, s: &TurnTrial) {
        self.trials += 1;
        crate::engine::statistics::count_values(&mut self.histograms, s.values());
        for &m in plan.finals[s.last].slain_in_moves.iter().chain(s.fight_slain()) {
            self.slain[m] += 1;
        }
    }

    /// Adds another tally of the same plan.
    pub fn merge(&mut self, other: &TurnTally) {
        self.trials += other.trials;
        crate::engine::statistics::add_histograms(&mut self.histograms, &other.histograms);
        self.slain.iter_mut().zip(&other.slain).for_each(|(a, b)| *a += b);
    }
}

impl crate::engine::Tallied for TurnTally {
    fn merge(&mut self, other: &Self) {
        TurnTally::merge(self, other);
    }
    fn trials(&self) -> u64 {
        self.trials
    }
}
