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

    /// Counts `n` trials with the same outcome (`values[m]` for metric `m`).
    pub fn record_many(&mut self, values: &[u16], n: u64) {
        self.trials += n;
        for (hist, &v) in self.histograms.iter_mut().zip(values) {
            let v = usize::from(v);
            if v >= hist.len() {
                hist.resize(v + 1, 0);
            }
            hist[v] += n;
        }
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

/// Metrics an [`OutcomeCounter`] can key: a charge has fourteen.
pub const COUNTED_METRICS: usize = 16;

/// Counts whole outcomes of a block's trials before they reach a [`BattlesystemTally`]: a
/// charge's trials fall on a few hundred distinct rows of metric values, so a trial costs
/// one hash-table increment instead of one histogram increment per metric, and the rows are
/// added to the tally at the end ([`OutcomeCounter::drain_into`]). Integer counts either
/// way: the tally is the same.
#[derive(Clone, Debug)]
pub struct OutcomeCounter {
    /// The rows counted so far, packed four values to a word.
    rows: crate::engine::statistics::RowCounts<{ COUNTED_METRICS / 4 }>,
    /// Metrics per row.
    width: usize,
}

impl OutcomeCounter {
    /// A counter for rows of `width` metrics (at most [`COUNTED_METRICS`]).
    pub fn new(width: usize) -> Self {
        assert!(width <= COUNTED_METRICS, "an outcome counter keys at most {COUNTED_METRICS} metrics");
        Self { rows: Default::default(), width }
    }

    /// Counts one trial's row of values.
    #[inline]
    pub fn record(&mut self, values: &[u16], tally: &mut BattlesystemTally) {
        let mut key = [0u64; COUNTED_METRICS / 4];
        for (m, &v) in values.iter().enumerate().take(self.width) {
            key[m / 4] |= u64::from(v) << (16 * (m % 4));
        }
        if self.rows.add(key) {
            self.drain_into(tally);
        }
    }

    /// Adds every counted row to `tally` and empties the counter.
    pub fn drain_into(&mut self, tally: &mut BattlesystemTally) {
        let mut values = vec![0u16; self.width];
        self.rows.drain(|key, count| {
            for (m, v) in values.iter_mut().enumerate() {
                *v = (key[m / 4] >> (16 * (m % 4))) as u16;
            }
            tally.record_many(&values, count);
        });
    }
}

impl crate::engine::Tallied for BattlesystemTally {
    fn merge(&mut self, other: &Self) {
        BattlesystemTally::merge(self, other);
    }
    fn trials(&self) -> u64 {
        self.trials
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
        // Rows counted whole give the tally recorded one by one.
        let mut counted = BattlesystemTally::new(3, 1, 1);
        let mut one_by_one = BattlesystemTally::new(3, 1, 1);
        let mut counter = OutcomeCounter::new(3);
        for t in 0..5000u16 {
            let row = [t % 7, (t / 7) % 11, if t % 13 == 0 { 300 } else { t % 3 }];
            counter.record(&row, &mut counted);
            one_by_one.record(&row);
        }
        counter.drain_into(&mut counted);
        assert_eq!(counted, one_by_one);
        let mut set = MetricSet::default();
        assert_eq!(set.add("x", "an x", true), 0);
        assert_eq!(set.index("x"), Some(0));
        assert_eq!(set.len(), 1);
    }
}
