//! Mergeable integer histograms of trial outcomes.
//!
//! Outcomes are small integers, so a tally is one histogram per metric. Merging adds
//! counts, which is exact, associative and commutative: any split of the trials over
//! threads or machines gives the same tally.

use serde::{Deserialize, Serialize};

/// The outcome metrics of a MESBG chariot charge, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Models slain by Impact Hits.
    ImpactKills,
    /// Models the chariot touched while driving (each took Impact Hits).
    Contacts,
    /// 1 when the chariot drove past the last rank of every formation on its path.
    Breakthrough,
    /// 1 when a fight followed the charge.
    FightFought,
    /// 1 when the chariot won that fight.
    FightWon,
    /// Models slain by the chariot's Strikes in the fight.
    FightKills,
    /// Models slain in all (Impact Hits and fight).
    Kills,
    /// Wounds the chariot lost.
    ChariotWoundsLost,
    /// 1 when the chariot was slain.
    ChariotSlain,
}

impl Metric {
    /// Every metric, in report order.
    pub const ALL: [Metric; 9] = [
        Metric::ImpactKills,
        Metric::Contacts,
        Metric::Breakthrough,
        Metric::FightFought,
        Metric::FightWon,
        Metric::FightKills,
        Metric::Kills,
        Metric::ChariotWoundsLost,
        Metric::ChariotSlain,
    ];

    /// The metric's name in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Metric::ImpactKills => "impact_kills",
            Metric::Contacts => "contacts",
            Metric::Breakthrough => "breakthrough",
            Metric::FightFought => "fight_fought",
            Metric::FightWon => "fight_won",
            Metric::FightKills => "fight_kills",
            Metric::Kills => "kills",
            Metric::ChariotWoundsLost => "chariot_wounds_lost",
            Metric::ChariotSlain => "chariot_slain",
        }
    }

    /// True for 0/1 metrics, whose mean is a probability.
    pub fn is_flag(self) -> bool {
        matches!(self, Metric::Breakthrough | Metric::FightFought | Metric::FightWon | Metric::ChariotSlain)
    }

    /// What the metric means, in words, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            Metric::ImpactKills => "models slain by Impact Hits",
            Metric::Contacts => "models touched by the charge",
            Metric::Breakthrough => "the chariot drove through every formation on its path",
            Metric::FightFought => "a fight followed the charge",
            Metric::FightWon => "the chariot won the fight",
            Metric::FightKills => "models slain in the fight",
            Metric::Kills => "models slain in all",
            Metric::ChariotWoundsLost => "Wounds the chariot lost",
            Metric::ChariotSlain => "the chariot was slain",
        }
    }
}

/// What one trial produced, one small integer per metric (indexed like [`Metric::ALL`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// Values in [`Metric::ALL`] order.
    pub values: [u16; Metric::ALL.len()],
}

impl Outcome {
    /// The value of one metric.
    pub fn get(&self, metric: Metric) -> u16 {
        self.values[metric as usize]
    }

    /// Sets the value of one metric.
    pub fn set(&mut self, metric: Metric, value: u16) {
        self.values[metric as usize] = value;
    }
}

/// Histograms of every metric over a set of trials.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Trials counted.
    pub trials: u64,
    /// `counts[m][v]`: trials in which metric `m` took value `v`.
    pub counts: Vec<Vec<u64>>,
}

impl Tally {
    /// An empty tally able to hold values up to `max[m]` for each metric.
    pub fn new(max: &[u16; Metric::ALL.len()]) -> Self {
        Self { trials: 0, counts: max.iter().map(|&m| vec![0; usize::from(m) + 1]).collect() }
    }

    /// Counts one trial. Values above the declared maximum grow the histogram.
    #[inline]
    pub fn record(&mut self, outcome: &Outcome) {
        self.trials += 1;
        for (hist, &v) in self.counts.iter_mut().zip(&outcome.values) {
            let v = usize::from(v);
            if v >= hist.len() {
                hist.resize(v + 1, 0);
            }
            hist[v] += 1;
        }
    }

    /// Adds another tally's counts to this one.
    pub fn merge(&mut self, other: &Tally) {
        self.trials += other.trials;
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), Vec::new());
        }
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), 0);
            }
            for (a, b) in mine.iter_mut().zip(theirs) {
                *a += b;
            }
        }
    }

    /// The histogram of one metric.
    pub fn histogram(&self, metric: Metric) -> &[u64] {
        &self.counts[metric as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(seed: u16) -> Outcome {
        let mut o = Outcome::default();
        for (i, v) in o.values.iter_mut().enumerate() {
            *v = (seed.wrapping_mul(7) + i as u16) % 5;
        }
        o
    }

    #[test]
    fn merge_equals_a_single_pass() {
        let max = [2; Metric::ALL.len()];
        let mut single = Tally::new(&max);
        let mut left = Tally::new(&max);
        let mut right = Tally::new(&max);
        for s in 0..1000u16 {
            single.record(&outcome(s));
            if s % 3 == 0 { left.record(&outcome(s)) } else { right.record(&outcome(s)) }
        }
        let mut merged = right.clone();
        merged.merge(&left);
        assert_eq!(merged, single);
        let mut other_order = left;
        other_order.merge(&right);
        assert_eq!(other_order, single);
        assert_eq!(single.histogram(Metric::Contacts).iter().sum::<u64>(), 1000);
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = Metric::ALL.iter().map(|m| m.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Metric::ALL.len());
        for (i, m) in Metric::ALL.iter().enumerate() {
            assert_eq!(*m as usize, i);
        }
    }
}
