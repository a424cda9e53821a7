//! The fights of a turn drawn in one go: each fight's exact outcomes by what decides them,
//! worked out once and shared by the threads.

use crate::dice::{CumulativeTable, Dice};
use crate::mesbg::rules::FightOutcome;

/// Everything a turn's fight of one chariot depends on once its board and its help are
/// fixed: the final board and the fight, whether an earlier fight slew the banner bearer,
/// the chariot's Wounds, and each enemy's state after the Impact Hits (16 bits each:
/// Wounds, mount's Wounds, Prone, Strikes, Fate spent).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FightKey {
    /// The final board.
    pub last: u32,
    /// The fight, in the order fought.
    pub fight: u32,
    /// An earlier fight slew the banner bearer whose help this fight would have had.
    pub bearer_slain: bool,
    /// The chariot's Wounds when the fight begins.
    pub wounds_left: u8,
    /// The enemies' states, packed.
    pub survivors: u64,
}

impl std::hash::Hash for FightKey {
    /// Two words (a fight is looked up every trial; a collision only costs a comparison).
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let board = u64::from(self.last)
            ^ u64::from(self.fight) << 32
            ^ u64::from(self.wounds_left) << 52
            ^ u64::from(self.bearer_slain) << 63;
        state.write_u64(board);
        state.write_u64(self.survivors);
    }
}

/// A fight of a turn drawn in one go, as a single charge's fight is: its exact outcomes,
/// each with the targets it slew (bit `i`: target `i`), the likeliest first, each beside
/// its cumulative threshold.
#[derive(Clone, Debug)]
pub struct DrawnFight {
    /// Per outcome, likeliest first: P(an outcome up to this one) scaled to 2^64 (as a
    /// [`CumulativeTable`] holds it; the last one's is not read), the outcome, and the
    /// targets it slew. Side by side, so that a draw, which mostly ends at the first
    /// entries, reads the first cache line of the fight rather than all of a table and
    /// then a list: a turn meets a thousand fights and more, too many to stay in cache.
    /// Shared (a clone is a pointer), and held in the same allocation as its count, so a
    /// thread's memo reaches the entries in one step.
    entries: std::sync::Arc<[(u64, (FightOutcome, u32))]>,
}

impl DrawnFight {
    /// Compiles an exact distribution (the likeliest outcomes first, so a draw's scan is
    /// short).
    pub fn new(mut outcomes: Vec<((FightOutcome, u32), f64)>) -> Self {
        outcomes.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let probabilities: Vec<f64> = outcomes.iter().map(|o| o.1).collect();
        let table = CumulativeTable::new(&probabilities);
        let thresholds = table.thresholds().iter().copied().chain(std::iter::once(u64::MAX));
        Self { entries: thresholds.zip(outcomes.into_iter().map(|o| o.0)).collect() }
    }

    /// Draws an outcome with one word of `dice`: the one a [`CumulativeTable`] of the
    /// same probabilities draws from the same word (the first whose threshold is above
    /// it), found by scanning from the likeliest and stopping there.
    #[inline]
    pub fn draw(&self, dice: &mut Dice) -> (FightOutcome, u32) {
        let u = dice.word();
        let last = self.entries.len().saturating_sub(1);
        let at = self.entries[..last].iter().position(|e| u < e.0).unwrap_or(last);
        self.entries[at].1
    }

    /// Every outcome (and the targets it slew) with its cumulative threshold, in the order
    /// drawn: what a compiled turn follows branch by branch.
    pub fn entries(&self) -> &[(u64, (FightOutcome, u32))] {
        &self.entries
    }
}

/// The fights of a turn's plan worked out so far to be drawn in one go (`None`: fought
/// die by die), shared by the threads: each is worked out once, whatever the thread count
/// (the values are the same whoever works them out, so the store changes no result).
#[derive(Debug, Default)]
pub struct DrawnFights {
    fights: std::sync::RwLock<
        std::collections::HashMap<FightKey, Option<DrawnFight>, std::hash::BuildHasherDefault<crate::dice::MixHasher>>,
    >,
}

/// The most fights a plan's store keeps (later ones each thread works out for itself).
const MAX_SHARED_FIGHTS: usize = 100_000;

impl DrawnFights {
    /// The fight of `key`, if some thread worked it out (`Some(None)`: fought die by die).
    pub fn get(&self, key: &FightKey) -> Option<Option<DrawnFight>> {
        // A poisoned lock (a thread panicked while holding it) only costs the sharing.
        self.fights.read().ok()?.get(key).cloned()
    }

    /// How many fights the store holds (drawn in one go or not): the check that a turn's
    /// fights are drawn in one go at all.
    pub fn len(&self) -> usize {
        self.fights.read().map_or(0, |f| f.values().filter(|d| d.is_some()).count())
    }

    /// Whether no fight is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Leaves a fight just worked out for the other threads.
    pub fn leave(&self, key: FightKey, fight: Option<DrawnFight>) {
        if let Ok(mut fights) = self.fights.write()
            && fights.len() < MAX_SHARED_FIGHTS
        {
            fights.entry(key).or_insert(fight);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{Phase, sampled_index, trial_dice};

    #[test]
    fn a_drawn_fight_draws_what_its_cumulative_table_draws_from_the_same_word() {
        let outcome = |kills: u8| FightOutcome { won: kills > 0, kills, ..FightOutcome::default() };
        // Ties in probability, a zero one, and one far likelier than the rest.
        let probabilities = [0.05, 0.6, 0.0, 0.05, 0.2, 0.1];
        let outcomes: Vec<((FightOutcome, u32), f64)> =
            probabilities.iter().enumerate().map(|(k, &p)| ((outcome(k as u8), k as u32), p)).collect();
        let fight = DrawnFight::new(outcomes.clone());
        let mut sorted = outcomes;
        sorted.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let table = CumulativeTable::new(&sorted.iter().map(|o| o.1).collect::<Vec<f64>>());
        let (mut a, mut b) = (trial_dice(3, 9, 0, Phase::Fight), trial_dice(3, 9, 0, Phase::Fight));
        let mut drawn = [0u32; 6];
        for _ in 0..20_000 {
            let got = fight.draw(&mut a);
            assert_eq!(got, sorted[sampled_index(table.thresholds(), b.word())].0);
            drawn[got.1 as usize] += 1;
        }
        assert_eq!(drawn[2], 0, "an outcome of chance 0 is never drawn");
        assert!(drawn[1] > 11_000 && drawn[1] < 13_000, "the likeliest near 60%: {drawn:?}");
        // Words on and around each threshold.
        for &t in table.thresholds() {
            for u in [t.saturating_sub(1), t, t.saturating_add(1)] {
                let at = fight.entries[..5].iter().position(|e| u < e.0).unwrap_or(5);
                assert_eq!(at, sampled_index(table.thresholds(), u), "word {u}");
            }
        }
    }
}
