//! The metrics of a BATTLESYSTEM plan and their tallies.
//!
//! Unlike MESBG's fixed metric list, a battle's metrics depend on its units (P(contacted)
//! and figures lost per unit), so each plan builds its [`MetricSet`]. A tally is one integer
//! histogram per metric plus the count of trials whose beasts' centre crossed each 1" cell
//! of the board; merging adds counts, so any split of trials over threads or machines
//! gives the same tally.

use serde::{Deserialize, Serialize};

pub use crate::engine::{MetricDef, MetricSet};

/// Histograms of every metric over a set of trials, and the path map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BattlesystemTally {
    /// Trials counted.
    pub trials: u64,
    /// `histograms[m][v]`: trials in which metric `m` took value `v`.
    pub histograms: Vec<Vec<u64>>,
    /// Columns (x) of the path map: one per inch of board width.
    pub cols: usize,
    /// Rows (y) of the path map.
    pub rows: usize,
    /// `path[row * cols + col]`: trials whose moving unit's centre crossed that cell.
    pub path: Vec<u64>,
}

impl BattlesystemTally {
    /// An empty tally for `metrics` metrics and a `cols` x `rows` path map.
    pub fn new(metrics: usize, cols: usize, rows: usize) -> Self {
        Self { trials: 0, histograms: vec![vec![0; 2]; metrics], cols, rows, path: vec![0; cols * rows] }
    }

    /// Counts one trial's outcome (`values[m]` for metric `m`).
    pub fn record(&mut self, values: &[u16]) {
        self.trials += 1;
        crate::engine::statistics::count_values(&mut self.histograms, values);
    }

    /// Adds another tally of the same plan.
    pub fn merge(&mut self, other: &BattlesystemTally) {
        self.trials += other.trials;
        crate::engine::statistics::add_histograms(&mut self.histograms, &other.histograms);
        self.path.iter_mut().zip(&other.path).for_each(|(a, b)| *a += b);
    }

    /// The histogram of metric `m`.
    pub fn histogram(&self, m: usize) -> &[u64] {
        &self.histograms[m]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_grow_and_merges_add() {
        let mut a = BattlesystemTally::new(2, 2, 1);
        a.record(&[1, 5]);
        a.record(&[0, 0]);
        a.path[1] += 1;
        let mut b = BattlesystemTally::new(2, 2, 1);
        b.record(&[1, 2]);
        b.path[1] += 2;
        let mut ab = a.clone();
        ab.merge(&b);
        let mut ba = b.clone();
        ba.merge(&a);
        assert_eq!(ab, ba, "merging is order-free once both histograms reach the same length");
        assert_eq!(ab.trials, 3);
        assert_eq!(ab.histogram(0), &[1, 2]);
        assert_eq!(ab.histogram(1), &[1, 0, 1, 0, 0, 1]);
        assert_eq!(ab.path, vec![0, 3]);
        let mut set = MetricSet::default();
        assert_eq!(set.add("x", "an x", true), 0);
        assert_eq!(set.index("x"), Some(0));
        assert_eq!(set.len(), 1);
    }
}
