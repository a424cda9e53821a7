//! One chariot's drive on one board of the turn, and a drive drawn whole: the exact
//! distribution of what its contacts do, drawn with one word.

use super::impact::ImpactStates;
use super::state::{ContactEffect, ImpactState};
use crate::dice::{CumulativeTable, Dice};
use crate::geometry::{Pose, Vec2};
use crate::mesbg::plan::{Leg, ObstacleContact, Push, pose_at};
use serde::Serialize;
use std::sync::Arc;

/// What one chariot's move came to, as far as the board is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MoveKey {
    /// Contact groups driven past (their models slain).
    pub passed: u16,
    /// Survivors of the group it stopped at (bit i: the group's model i); 0 when it did not
    /// stop at a group.
    pub survivors: u32,
    /// Slain during its move (by difficult terrain or an obstacle): removed from the board.
    pub gone: bool,
}

/// Models a chariot of the turn touches at the same instant.
#[derive(Clone, Debug, Serialize)]
pub struct TurnGroup {
    /// Distance driven when it touches them, inches.
    pub distance: f64,
    /// Model indices.
    pub models: Vec<usize>,
    /// Per model: the index of its Impact Hits tables in [`super::plan::TurnPlan::impact`]
    /// (the model's own, or `models + m` when its shield wall braces it when touched).
    pub tables: Vec<usize>,
}

/// One chariot's drive on one board of the turn.
#[derive(Clone, Debug)]
pub struct TurnMove {
    /// Its place in the list of chariots (0-based).
    pub chariot: usize,
    /// Its place in the order of the turn (0-based).
    pub depth: usize,
    /// Where the models stood before it moved.
    pub centres: Vec<Vec2>,
    /// Which models stood before it moved.
    pub present: Vec<bool>,
    /// The chariots standing before it moved: (listed index, pose).
    pub standing: Vec<(usize, Pose)>,
    /// Its contacts, in order.
    pub groups: Vec<TurnGroup>,
    /// Its path, stretch by stretch.
    pub legs: Vec<Leg>,
    /// Where it ends if nothing stops it.
    pub end: Pose,
    /// Models its pivots pushed aside.
    pub pushes: Vec<Push>,
    /// The obstacle it drives into, if it does.
    pub obstacle: Option<ObstacleContact>,
    /// Where it enters difficult terrain (the test is rolled there).
    pub difficult_from: Option<f64>,
    /// The first group reached only after the difficult-terrain test.
    pub terrain_group: usize,
    /// The friendly chariot (listed index) its drive ended short of, and where.
    pub blocked_by: Option<(usize, f64)>,
    /// Driving on past every model ends wholly beyond every formation it touched.
    pub breakthrough_possible: bool,
    /// Where each outcome leads: the next chariot's node, or a final board after the last.
    pub children: Vec<(MoveKey, usize)>,
    /// `children`'s keys as words ([`MoveKey::word`]), in the same order: a trial finds
    /// its outcome among them with one comparison of a word each, where a search of
    /// `children` compares three fields at every step.
    pub(super) child_words: Vec<u64>,
}

impl MoveKey {
    /// The key as one word, equal for equal keys and only for them.
    #[inline]
    pub fn word(self) -> u64 {
        u64::from(self.passed) << 33 | u64::from(self.survivors) << 1 | u64::from(self.gone)
    }
}

impl TurnMove {
    /// Sets where each outcome leads (sorted by key, each key's word beside it).
    pub fn set_children(&mut self, mut children: Vec<(MoveKey, usize)>) {
        children.sort_by_key(|(k, _)| *k);
        self.child_words = children.iter().map(|(k, _)| k.word()).collect();
        self.children = children;
    }

    /// Where the outcome `key` leads (an index into the next level's list).
    #[inline]
    pub fn child(&self, key: MoveKey) -> Option<usize> {
        let word = key.word();
        self.child_words.iter().position(|&w| w == word).map(|i| self.children[i].1)
    }

    /// Where the chariot stands after the outcome `key` (`None`: slain in the move).
    pub fn pose_after(&self, key: MoveKey) -> Option<Pose> {
        if key.gone {
            return None;
        }
        match self.groups.get(usize::from(key.passed)) {
            Some(g) if key.survivors != 0 => pose_at(&self.legs, g.distance),
            _ => Some(self.end),
        }
    }

    /// The distance driven by the outcome `key`.
    pub fn reached(&self, key: MoveKey) -> f64 {
        if key.gone && usize::from(key.passed) == self.terrain_group {
            return self.difficult_from.unwrap_or(f64::INFINITY);
        }
        match self.groups.get(usize::from(key.passed)) {
            Some(g) if key.survivors != 0 => g.distance,
            _ => f64::INFINITY,
        }
    }

    /// The exact distribution of this drive's outcomes when the models it can reach are in
    /// `states` (one per model of its groups, in order), its chariot's Impact Hits on each
    /// model being `impact` (per model). `None` when it must be rolled contact by contact:
    /// difficult terrain or an obstacle on it (the chariot's own dice, and its Hero's
    /// choices, come into it), a model met twice, or more than [`MAX_DRIVE_OUTCOMES`]
    /// outcomes.
    pub fn distribution(&self, impact: &[Arc<ImpactStates>], states: &[ImpactState]) -> Option<DrawnDrive> {
        let mv = self;
        if mv.difficult_from.is_some() || mv.obstacle.is_some() || mv.groups.is_empty() {
            return None;
        }
        let mut met: Vec<usize> = mv.groups.iter().flat_map(|g| g.models.iter().copied()).collect();
        if met.len() != states.len() {
            return None;
        }
        met.sort_unstable();
        if met.windows(2).any(|w| w[0] == w[1]) {
            return None;
        }
        let mut done: Vec<(DriveOutcome, f64)> = Vec::new();
        // Branches that drove past every group so far.
        let mut going: Vec<(Effects, f64)> = vec![(Vec::new(), 1.0)];
        let mut at = 0;
        for (g, group) in mv.groups.iter().enumerate() {
            // Per branch: the effects so far, its chance, the group's survivors.
            let mut reached: Vec<(Effects, f64, u32)> = going.drain(..).map(|(e, p)| (e, p, 0)).collect();
            for (i, (&m, &t)) in group.models.iter().zip(&group.tables).enumerate() {
                let effects = impact[t].effects(states[at]);
                at += 1;
                let mut next = Vec::with_capacity(reached.len() * effects.len());
                for (seq, p, survivors) in &reached {
                    for &(effect, q) in &effects {
                        let mut seq = seq.clone();
                        seq.push((m, effect));
                        next.push((seq, p * q, survivors | u32::from(!effect.passed) << i));
                    }
                }
                if next.len() + done.len() > MAX_DRIVE_OUTCOMES {
                    return None;
                }
                reached = next;
            }
            for (seq, p, survivors) in reached {
                if survivors != 0 {
                    let key = MoveKey { passed: g as u16, survivors, gone: false };
                    done.push((DriveOutcome { effects: seq, key }, p));
                } else {
                    going.push((seq, p));
                }
            }
        }
        let all = MoveKey { passed: mv.groups.len() as u16, survivors: 0, gone: false };
        done.extend(going.into_iter().map(|(effects, p)| (DriveOutcome { effects, key: all }, p)));
        Some(DrawnDrive::new(done))
    }
}

/// The effects of a drive's contacts so far, model by model.
type Effects = Vec<(usize, ContactEffect)>;

/// The most outcomes a drive drawn whole may have (past this it is rolled contact by
/// contact).
pub const MAX_DRIVE_OUTCOMES: usize = 4096;

/// One way a chariot's drive can end, drawn whole: the effect on each model it reached, in
/// the order it reached them (group by group, each group's models in order), and what the
/// drive came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriveOutcome {
    /// Per model reached, in order: the model and what its contact did.
    pub effects: Vec<(usize, ContactEffect)>,
    /// What the drive came to.
    pub key: MoveKey,
}

/// A drive of a turn without difficult terrain or an obstacle, as an exact distribution
/// drawn with one word: every model it can reach, from the state it is in, and where the
/// drive stops. A drive's contacts are independent given the models' states, so the
/// product of their tables (each merged by [`ContactEffect`]) is the drive's law; drawn in
/// one go it costs a turn one word and one scan where contact by contact it cost a word,
/// a table and a branch per model.
#[derive(Clone, Debug)]
pub struct DrawnDrive {
    /// Per outcome, likeliest first: P(an outcome up to this one) scaled to 2^64 (the last
    /// one's is not read) and the outcome.
    entries: Arc<[(u64, DriveOutcome)]>,
}

impl DrawnDrive {
    /// Compiles an exact distribution of drive outcomes (the likeliest first, so a draw's
    /// scan is short; equally likely ones keep their order).
    pub fn new(mut outcomes: Vec<(DriveOutcome, f64)>) -> Self {
        outcomes.sort_by(|a, b| b.1.total_cmp(&a.1));
        let probabilities: Vec<f64> = outcomes.iter().map(|o| o.1).collect();
        let table = CumulativeTable::new(&probabilities);
        let thresholds = table.thresholds().iter().copied().chain(std::iter::once(u64::MAX));
        Self { entries: thresholds.zip(outcomes.into_iter().map(|o| o.0)).collect() }
    }

    /// Draws an outcome with one word of `dice` (the first whose threshold is above it).
    #[inline]
    pub fn draw(&self, dice: &mut Dice) -> &DriveOutcome {
        let u = dice.word();
        &self.entries[self.index_of(u)].1
    }

    /// The index of the outcome the word `u` draws.
    #[inline]
    pub fn index_of(&self, u: u64) -> usize {
        let last = self.entries.len().saturating_sub(1);
        self.entries[..last].iter().position(|e| u < e.0).unwrap_or(last)
    }

    /// Every outcome with its cumulative threshold, in the order drawn.
    pub fn entries(&self) -> &[(u64, DriveOutcome)] {
        &self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_keys_word_tells_keys_apart() {
        let keys = [
            MoveKey { passed: 0, survivors: 0, gone: false },
            MoveKey { passed: 0, survivors: 0, gone: true },
            MoveKey { passed: 0, survivors: 1, gone: false },
            MoveKey { passed: 1, survivors: 0, gone: false },
            MoveKey { passed: u16::MAX, survivors: u32::MAX, gone: true },
            MoveKey { passed: u16::MAX, survivors: u32::MAX, gone: false },
            MoveKey { passed: 1, survivors: u32::MAX, gone: true },
        ];
        for a in keys {
            for b in keys {
                assert_eq!(a.word() == b.word(), a == b, "{a:?} {b:?}");
            }
        }
    }
}
