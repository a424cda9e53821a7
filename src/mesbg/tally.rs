//! Mergeable integer histograms of trial outcomes.
//!
//! Outcomes are small integers, so a tally is one histogram per metric. Merging adds
//! counts, which is exact, associative and commutative: any split of the trials over
//! threads or machines gives the same tally.

use serde::{Deserialize, Serialize};

/// Declares the metrics of a MESBG charge once each, in report order: the variant with its
/// doc comment, its name in files and on the command line, `flag` (0/1, its mean a
/// probability) or `count`, its place in the headline (`headline N`, when a reader looks
/// at it first), and what it means in words. A new metric is one row here
/// (and the code that sets it: the resolver, its fast path and the exact engine).
macro_rules! metrics {
    ($( $(#[doc = $doc:literal])* $variant:ident = $name:literal, $kind:ident, $(headline $rank:literal,)? $meaning:literal; )*) => {
        /// The outcome metrics of a MESBG chariot charge, in report order.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum Metric {
            $( $(#[doc = $doc])* #[serde(rename = $name)] $variant, )*
        }

        impl Metric {
            /// Every metric, in report order.
            pub const ALL: [Metric; [$($name),*].len()] = [$(Metric::$variant),*];

            /// The metric's name in files and on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $(Metric::$variant => $name,)*
                }
            }

            /// True for 0/1 metrics, whose mean is a probability.
            pub fn is_flag(self) -> bool {
                match self {
                    $(Metric::$variant => metrics!(@flag $kind),)*
                }
            }

            /// What the metric means, in words, for reports.
            pub fn describe(self) -> &'static str {
                match self {
                    $(Metric::$variant => $meaning,)*
                }
            }

            /// The metrics a reader looks at first, in this order (the rows tagged
            /// `headline N`): report.md's headline after the scenario's own answer, and
            /// what a sweep shows.
            pub fn headline() -> Vec<Metric> {
                let mut tagged: Vec<(u32, Metric)> = [$( (metrics!(@rank $($rank)?), Metric::$variant) ),*]
                    .into_iter()
                    .filter_map(|(rank, metric)| rank.map(|rank: u32| (rank, metric)))
                    .collect();
                tagged.sort_by_key(|(rank, _)| *rank);
                tagged.into_iter().map(|(_, metric)| metric).collect()
            }
        }
    };
    (@flag flag) => {
        true
    };
    (@flag count) => {
        false
    };
    (@rank $rank:literal) => {
        Some($rank)
    };
    (@rank) => {
        None
    };
}

metrics! {
    /// Models slain by Impact Hits.
    ImpactKills = "impact_kills", count, headline 3, "models slain by Impact Hits";
    /// Models the chariot touched while driving (each took Impact Hits).
    Contacts = "contacts", count, "models touched by the charge";
    /// 1 when the chariot drove past the last rank of every formation on its path.
    Breakthrough = "breakthrough", flag, headline 1, "the chariot drove through every formation on its path";
    /// 1 when a fight followed the charge.
    FightFought = "fight_fought", flag, "a fight followed the charge";
    /// 1 when the chariot won that fight.
    FightWon = "fight_won", flag, headline 4, "the chariot won the fight";
    /// Models slain by the chariot's Strikes in the fight.
    FightKills = "fight_kills", count, "models slain in the fight";
    /// Models slain in all (Impact Hits and fight).
    Kills = "kills", count, headline 2, "models slain in all";
    /// Wounds the chariot lost.
    ChariotWoundsLost = "chariot_wounds_lost", count, headline 8, "Wounds the chariot lost";
    /// 1 when the chariot was slain.
    ChariotSlain = "chariot_slain", flag, headline 5, "the chariot was slain";
    /// Wounds the Hero riding the chariot lost.
    HeroWoundsLost = "hero_wounds_lost", count, "Wounds the Hero lost";
    /// 1 when the Hero was dismounted (the chariot slain under him).
    HeroDismounted = "hero_dismounted", flag, "the Hero was thrown from the slain chariot";
    /// 1 when the Hero was slain.
    HeroSlain = "hero_slain", flag, headline 6, "the Hero was slain";
    /// Might points the Hero spent.
    MightSpent = "might_spent", count, "Might points spent";
    /// Fate points the Hero spent.
    FateSpent = "fate_spent", count, "Fate points spent";
    /// Models slain in the fight, credited to the Hero riding the chariot.
    HeroKills = "hero_kills", count, "models slain in the fight, credited to the Hero";
    /// 1 when the army charged has more casualties than half its models after the charge.
    ArmyBroken = "army_broken", flag, headline 7, "the army charged is Broken after the charge";
    /// 1 when the difficult-terrain test (a D6 after driving through difficult terrain)
    /// rolled a 1, costing the chariot a Wound unless Fate prevented it.
    TerrainWound = "terrain_wound", flag, "the difficult-terrain test rolled a 1 (no Might turned it)";
    /// 1 when the chariot drove into an obstacle (three S6 hits each way).
    ObstacleStruck = "obstacle_struck", flag, "the chariot drove into an obstacle";
    /// 1 when the chariot fought an enemy chariot and had to Back Away (the smaller does).
    ChariotBackedAway = "chariot_backed_away", flag, "the chariot Backed Away from a larger (or luckier) chariot";
    /// Enemy Heroes slain (by Impact Hits or in the fight; counted in `kills` too).
    FoeHeroesSlain = "foe_heroes_slain", count, "enemy Heroes slain";
    /// Might points enemy Heroes spent (duel, To Wound and Fate rolls).
    FoeMightSpent = "foe_might_spent", count, "Might points enemy Heroes spent";
    /// Fate points enemy Heroes spent (against Impact Hits and Strikes).
    FoeFateSpent = "foe_fate_spent", count, "Fate points enemy Heroes spent";
    /// 1 when a thrown rider (mount slain, rider standing) was among the models that stopped
    /// the chariot: the cavalry screen's own question.
    ThrownRiderStopped = "thrown_rider_stopped", flag, "a thrown rider (mount slain, rider standing) stopped the chariot";
    /// 1 when the enemy chariot Backed Away from the chariot (the other half of who Backs
    /// Away: neither does once either chariot is slain).
    FoeChariotBackedAway = "foe_chariot_backed_away", flag, "the enemy chariot Backed Away from the chariot";
}

impl Metric {
    /// The metrics of enemy Heroes in the chariot's path.
    pub const FOE_HEROES: [Metric; 3] = [Metric::FoeHeroesSlain, Metric::FoeMightSpent, Metric::FoeFateSpent];

    /// The metrics every MESBG charge has.
    pub const CHARGE: [Metric; 9] = [
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

    /// The metrics of a Hero riding the chariot.
    pub const HERO: [Metric; 6] = [
        Metric::HeroWoundsLost,
        Metric::HeroDismounted,
        Metric::HeroSlain,
        Metric::MightSpent,
        Metric::FateSpent,
        Metric::HeroKills,
    ];

    /// The metric of a name, as [`Metric::name`] writes it.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|m| m.name() == name)
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

    /// Adds to the value of one metric.
    pub fn add(&mut self, metric: Metric, value: u16) {
        self.values[metric as usize] = self.values[metric as usize].saturating_add(value);
    }

    /// The values packed four to a word, metric `m` in bits `16 * (m % 4)` of word `m / 4`
    /// (the last word padded with zeros): how [`OutcomeCounter`] keys an outcome, and how
    /// the compiled charge adds up a trial's metrics.
    #[inline]
    pub fn packed(&self) -> Packed {
        let mut padded = [0u16; OUTCOME_WORDS * 4];
        padded[..Metric::ALL.len()].copy_from_slice(&self.values);
        std::array::from_fn(|w| {
            let v = &padded[4 * w..4 * w + 4];
            u64::from(v[0]) | u64::from(v[1]) << 16 | u64::from(v[2]) << 32 | u64::from(v[3]) << 48
        })
    }

    /// The outcome `packed` stands for.
    pub fn unpacked(packed: &Packed) -> Self {
        Self {
            values: std::array::from_fn(|m| {
                let (word, shift) = lane(m);
                (packed[word] >> shift) as u16
            }),
        }
    }
}

/// Words of a packed [`Outcome`].
pub const OUTCOME_WORDS: usize = Metric::ALL.len().div_ceil(4);

/// An [`Outcome`] packed four values to a word (see [`Outcome::packed`]). Two packed
/// outcomes whose values stay below 2^16 add value by value.
pub type Packed = [u64; OUTCOME_WORDS];

/// Where metric index `m` lies in a packed outcome: its word and the bit it starts at.
#[inline]
const fn lane(m: usize) -> (usize, usize) {
    (m / 4, 16 * (m % 4))
}

/// The value of metric `metric` in a packed outcome.
#[inline]
pub fn packed_value(packed: &Packed, metric: Metric) -> u16 {
    let (word, shift) = lane(metric as usize);
    (packed[word] >> shift) as u16
}

/// Adds `value` to metric `metric` of a packed outcome (the sum must stay below 2^16).
#[inline]
pub fn add_to_packed(packed: &mut Packed, metric: Metric, value: u16) {
    let (word, shift) = lane(metric as usize);
    packed[word] += u64::from(value) << shift;
}

/// Histograms of every metric over a set of trials.
///
/// Stored flat (metric after metric in one vector) so that recording a trial touches one
/// allocation; the layout grows if a value ever exceeds the declared maximum.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Trials counted.
    pub trials: u64,
    /// Histogram lengths per metric (largest value + 1).
    lengths: [usize; Metric::ALL.len()],
    /// Where each metric's histogram starts in `counts`.
    offsets: [usize; Metric::ALL.len()],
    /// All histograms, metric after metric.
    counts: Vec<u64>,
    /// The wound split: `split[c * split_cols + h]` trials in which the chariot lost `c`
    /// Wounds and the Hero riding it `h`.
    split: Vec<u64>,
    /// Columns of `split` (Hero Wounds + 1).
    split_cols: usize,
    /// The metrics recorded (indices into [`Metric::ALL`]); the others stay empty.
    active: Vec<usize>,
    /// Whether the wound split is recorded.
    record_split: bool,
}

impl Tally {
    /// An empty tally of every metric (and the wound split), able to hold values up to
    /// `max[m]` for each metric.
    pub fn new(max: &[u16; Metric::ALL.len()]) -> Self {
        Self::from_lengths(0, max.map(|m| usize::from(m) + 1))
    }

    /// An empty tally of the given metrics only (and the wound split when asked): a trial
    /// then costs only what its scenario reports.
    pub fn for_metrics(max: &[u16; Metric::ALL.len()], metrics: &[Metric], wound_split: bool) -> Self {
        let mut tally = Self::new(max);
        tally.active = metrics.iter().map(|&m| m as usize).collect();
        tally.record_split = wound_split;
        tally
    }

    fn from_lengths(trials: u64, lengths: [usize; Metric::ALL.len()]) -> Self {
        let mut offsets = [0; Metric::ALL.len()];
        let mut at = 0;
        for (offset, len) in offsets.iter_mut().zip(&lengths) {
            *offset = at;
            at += len;
        }
        let rows = lengths[Metric::ChariotWoundsLost as usize];
        let cols = lengths[Metric::HeroWoundsLost as usize];
        Self {
            trials,
            lengths,
            offsets,
            counts: vec![0; at],
            split: vec![0; rows * cols],
            split_cols: cols,
            active: (0..Metric::ALL.len()).collect(),
            record_split: true,
        }
    }

    /// Counts one trial in the recorded metrics (and the wound split). Values above the
    /// declared maximum grow the histogram.
    #[inline]
    pub fn record(&mut self, outcome: &Outcome) {
        self.trials += 1;
        for i in 0..self.active.len() {
            let m = self.active[i];
            let v = usize::from(outcome.values[m]);
            if v >= self.lengths[m] {
                self.grow(m, v + 1);
            }
            self.counts[self.offsets[m] + v] += 1;
        }
        if self.record_split {
            let split = usize::from(outcome.get(Metric::ChariotWoundsLost)) * self.split_cols
                + usize::from(outcome.get(Metric::HeroWoundsLost));
            self.split[split] += 1;
        }
    }

    /// Counts `n` identical trials at once (see [`OutcomeCounter`]).
    pub fn record_many(&mut self, outcome: &Outcome, n: u64) {
        self.trials += n;
        for i in 0..self.active.len() {
            let m = self.active[i];
            let v = usize::from(outcome.values[m]);
            if v >= self.lengths[m] {
                self.grow(m, v + 1);
            }
            self.counts[self.offsets[m] + v] += n;
        }
        if self.record_split {
            let split = usize::from(outcome.get(Metric::ChariotWoundsLost)) * self.split_cols
                + usize::from(outcome.get(Metric::HeroWoundsLost));
            self.split[split] += n;
        }
    }

    #[cold]
    fn grow(&mut self, metric: usize, length: usize) {
        let mut lengths = self.lengths;
        lengths[metric] = lengths[metric].max(length);
        self.relayout(lengths);
    }

    fn relayout(&mut self, lengths: [usize; Metric::ALL.len()]) {
        let mut grown = Self::from_lengths(self.trials, lengths);
        grown.active = std::mem::take(&mut self.active);
        grown.record_split = self.record_split;
        for m in 0..self.lengths.len() {
            let old = &self.counts[self.offsets[m]..self.offsets[m] + self.lengths[m]];
            grown.counts[grown.offsets[m]..grown.offsets[m] + old.len()].copy_from_slice(old);
        }
        for (i, &c) in self.split.iter().enumerate() {
            grown.split[(i / self.split_cols) * grown.split_cols + i % self.split_cols] = c;
        }
        *self = grown;
    }

    /// Adds another tally's counts to this one.
    pub fn merge(&mut self, other: &Tally) {
        if self.lengths != other.lengths {
            let lengths = std::array::from_fn(|m| self.lengths[m].max(other.lengths[m]));
            self.relayout(lengths);
            for m in 0..other.lengths.len() {
                let theirs = other.histogram_at(m);
                let start = self.offsets[m];
                for (a, b) in self.counts[start..start + theirs.len()].iter_mut().zip(theirs) {
                    *a += b;
                }
            }
            for (i, &c) in other.split.iter().enumerate() {
                self.split[(i / other.split_cols) * self.split_cols + i % other.split_cols] += c;
            }
        } else {
            for (a, b) in self.counts.iter_mut().zip(&other.counts) {
                *a += b;
            }
            for (a, b) in self.split.iter_mut().zip(&other.split) {
                *a += b;
            }
        }
        self.trials += other.trials;
    }

    fn histogram_at(&self, m: usize) -> &[u64] {
        &self.counts[self.offsets[m]..self.offsets[m] + self.lengths[m]]
    }

    /// The wound split: `(c, h, count)` for every pair of chariot and Hero Wounds lost.
    pub fn wound_split(&self) -> Vec<(usize, usize, u64)> {
        self.split.iter().enumerate().map(|(i, &c)| (i / self.split_cols, i % self.split_cols, c)).collect()
    }

    /// The histogram of one metric: `histogram(m)[v]` trials gave value `v`.
    pub fn histogram(&self, metric: Metric) -> &[u64] {
        self.histogram_at(metric as usize)
    }
}

/// Counts whole outcomes before they reach a [`Tally`]: a trial costs one hash-table
/// increment instead of one histogram increment per metric, and the few distinct outcomes
/// of a block are added to the tally at the end ([`OutcomeCounter::drain_into`]).
///
/// An outcome is keyed by its own packed words, with the metrics the tally does not record
/// masked out: building the key is a handful of loads, and no value can fall outside it,
/// so the result never depends on the keying.
#[derive(Clone, Debug)]
pub struct OutcomeCounter {
    /// Which bits of a packed outcome the tally reads (its recorded metrics and the wound
    /// split's two).
    mask: [u64; OUTCOME_WORDS],
    /// The rows counted so far.
    rows: crate::engine::statistics::RowCounts<OUTCOME_WORDS>,
}

impl OutcomeCounter {
    /// A counter for outcomes bound for `tally`.
    pub fn for_tally(tally: &Tally) -> Self {
        let mut read = Outcome::default();
        for &m in &tally.active {
            read.values[m] = u16::MAX;
        }
        if tally.record_split {
            read.set(Metric::ChariotWoundsLost, u16::MAX);
            read.set(Metric::HeroWoundsLost, u16::MAX);
        }
        Self { mask: read.packed(), rows: Default::default() }
    }

    /// Counts one trial.
    #[inline]
    pub fn record(&mut self, outcome: &Outcome, tally: &mut Tally) {
        self.record_packed(&outcome.packed(), tally);
    }

    /// Counts one trial given as its packed outcome.
    #[inline]
    pub fn record_packed(&mut self, packed: &Packed, tally: &mut Tally) {
        let key: [u64; OUTCOME_WORDS] = std::array::from_fn(|w| packed[w] & self.mask[w]);
        if self.rows.add(key) {
            self.drain_into(tally);
        }
    }

    /// Adds every counted outcome to `tally` and empties the counter.
    pub fn drain_into(&mut self, tally: &mut Tally) {
        self.rows.drain(|key, count| tally.record_many(&Outcome::unpacked(key), count));
    }
}

impl crate::engine::MetricKind for Metric {
    fn meaning(&self) -> String {
        self.describe().to_string()
    }
    fn is_flag(&self) -> bool {
        Metric::is_flag(*self)
    }
}

impl crate::engine::Tallied for Tally {
    fn merge(&mut self, other: &Self) {
        Tally::merge(self, other);
    }
    fn trials(&self) -> u64 {
        self.trials
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(seed: u16) -> Outcome {
        Outcome { values: std::array::from_fn(|i| seed.wrapping_mul(7).wrapping_add(i as u16) % 5) }
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
    fn values_above_the_bound_grow_the_histogram_and_still_merge() {
        let mut small = Tally::new(&[1; Metric::ALL.len()]);
        let mut o = Outcome::default();
        o.set(Metric::Kills, 7);
        small.record(&o);
        assert_eq!(small.histogram(Metric::Kills)[7], 1);
        assert_eq!(small.histogram(Metric::Contacts), &[1, 0]);
        let mut other = Tally::new(&[1; Metric::ALL.len()]);
        other.record(&Outcome::default());
        other.merge(&small);
        assert_eq!(other.trials, 2);
        assert_eq!(other.histogram(Metric::Kills), &[1, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(other.histogram(Metric::Contacts), &[2, 0]);
    }

    #[test]
    fn the_wound_split_is_a_joint_histogram() {
        let mut t = Tally::new(&[2; Metric::ALL.len()]);
        let mut o = Outcome::default();
        o.set(Metric::ChariotWoundsLost, 2);
        o.set(Metric::HeroWoundsLost, 1);
        t.record(&o);
        t.record(&Outcome::default());
        let split = t.wound_split();
        assert_eq!(split.len(), 9);
        assert!(split.contains(&(2, 1, 1)) && split.contains(&(0, 0, 1)));
        let mut grown = Tally::new(&[1; Metric::ALL.len()]);
        grown.merge(&t);
        assert!(grown.wound_split().contains(&(2, 1, 1)));
        assert_eq!(grown.wound_split().iter().map(|x| x.2).sum::<u64>(), 2);
    }

    #[test]
    fn counting_outcomes_first_gives_the_same_tally() {
        let mut max = [3; Metric::ALL.len()];
        max[Metric::ChariotWoundsLost as usize] = 4;
        let metrics = [Metric::Kills, Metric::Contacts, Metric::ChariotWoundsLost];
        let mut direct = Tally::for_metrics(&max, &metrics, true);
        let mut counted = direct.clone();
        let mut counter = OutcomeCounter::for_tally(&counted);
        for s in 0..20_000u16 {
            let mut o = outcome(s);
            if s % 997 == 0 {
                o.set(Metric::Kills, 9); // beyond the declared bound
            }
            direct.record(&o);
            counter.record(&o, &mut counted);
        }
        counter.drain_into(&mut counted);
        assert_eq!(counted, direct);
        // Every metric recorded, with far more distinct outcomes than the counter holds
        // (it empties itself into the tally as it fills).
        let mut direct = Tally::new(&[255; Metric::ALL.len()]);
        let mut counted = direct.clone();
        let mut counter = OutcomeCounter::for_tally(&counted);
        for s in 0..20_000u64 {
            let o = Outcome {
                values: std::array::from_fn(|m| (crate::dice::mix64(s % 3_000 + 100 * m as u64) % 300) as u16),
            };
            direct.record(&o);
            counter.record(&o, &mut counted);
        }
        counter.drain_into(&mut counted);
        assert_eq!(counted, direct);
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
