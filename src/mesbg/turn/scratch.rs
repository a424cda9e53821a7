//! What one trial of a turn has done so far, typed ([`TurnTrial`]), and the thread's memos
//! of what trials keep meeting: drives drawn whole, fights drawn in one go, corridors.

use super::drawn::DrawnFight;
use super::drive::DrawnDrive;
use super::plan::TurnPlan;
use super::state::{ChariotTurn, ImpactState, ModelState, Stage};
use crate::mesbg::resolve::{ChariotState, Scratch};

/// The models slain in a board's fights, as a memo key: a bit per model while they are
/// few (no allocation per trial), else the sorted list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SlainKey {
    /// Bit `m`: model `m` was slain (every model below 128).
    Bits(u128),
    /// The models, sorted.
    List(Vec<usize>),
}

impl SlainKey {
    /// The key of the models `sorted`.
    pub fn of(sorted: &[usize]) -> Self {
        if sorted.iter().all(|&m| m < 128) {
            SlainKey::Bits(sorted.iter().fold(0u128, |b, &m| b | 1 << m))
        } else {
            SlainKey::List(sorted.to_vec())
        }
    }
}

/// The most fights a thread keeps at hand (past this, its memo starts again).
const MAX_DRAWN_FIGHTS: usize = 20_000;

/// The most corridors (final board and models slain in its fights) a thread keeps at hand.
pub const MAX_CORRIDORS: usize = 100_000;

/// The most drives (node and states) a thread keeps at hand.
pub const MAX_DRAWN_DRIVES: usize = 50_000;

/// A thread's memo of what a final board's trials keep asking, kept by board and then by
/// a slot within it (a board's fight, or how many its fights slew): each slot holds the
/// few keys its trials met, searched in turn. A trial finds its answer among two or three
/// keys of its own board instead of probing a table of thousands (that probe, a cache miss
/// more often than not, was a fifth of a turn's time). Bounded: past `MAX` keys in all, it
/// starts again.
pub struct BoardMemo<K, V, const MAX: usize> {
    /// `slots[board][slot]`: the keys met there, with their answers.
    slots: Vec<Vec<Vec<(K, V)>>>,
    /// Keys held in all.
    held: usize,
}

impl<K: PartialEq, V, const MAX: usize> BoardMemo<K, V, MAX> {
    /// The answer to `key` at `(board, slot)`, worked out by `work_out` the first time.
    #[inline]
    pub fn get_or_insert_with(&mut self, (board, slot): (usize, usize), key: K, work_out: impl FnOnce() -> V) -> &V {
        if self.slots.len() <= board {
            self.slots.resize_with(board + 1, Vec::new);
        }
        if self.slots[board].len() <= slot {
            self.slots[board].resize_with(slot + 1, Vec::new);
        }
        let at = self.slots[board][slot].iter().position(|(k, _)| *k == key);
        let at = match at {
            Some(at) => at,
            None => {
                if self.held >= MAX {
                    self.slots.iter_mut().flatten().for_each(Vec::clear);
                    self.held = 0;
                }
                self.held += 1;
                let keys = &mut self.slots[board][slot];
                keys.push((key, work_out()));
                keys.len() - 1
            }
        };
        &self.slots[board][slot][at].1
    }
}

impl<K, V, const MAX: usize> Default for BoardMemo<K, V, MAX> {
    fn default() -> Self {
        Self { slots: Vec::new(), held: 0 }
    }
}

/// The fights a thread has drawn in one go, by what decides them (taken from the plan's
/// [`super::drawn::DrawnFights`], shared by the threads, the first time a thread meets
/// them): `None` for a fight fought die by die. Kept by final board and fight, so within a
/// slot a [`super::drawn::FightKey`] is told apart by the rest of it ([`LocalFightKey`]).
pub type LocalFights = BoardMemo<LocalFightKey, Option<DrawnFight>, MAX_DRAWN_FIGHTS>;

/// What tells apart the fight keys of one slot of [`LocalFights`] (the same final board and
/// fight), in two words compared at once: the enemies' packed states, and the chariot's
/// Wounds with whether the bearer was slain earlier (`wounds << 1 | slain`).
pub type LocalFightKey = (u64, u16);

/// A thread's drives drawn whole: per node, the states its models were met in (each an
/// [`ImpactState::word`], in the order of its groups) with the drive's distribution there
/// (`None`: rolled contact by contact).
#[derive(Default)]
pub struct DriveMemo {
    /// Per node: the drives met there.
    pub nodes: Vec<Vec<DriveMet>>,
    /// Drives held in all.
    pub held: usize,
    /// The key being looked up.
    pub key: Vec<u32>,
}

/// A drive met: its models' states (packed) and its distribution there.
pub type DriveMet = (Box<[u32]>, Option<DrawnDrive>);

/// One trial of a turn as far as it has been played: each model's state, each chariot's,
/// what the fights slew, where the trial walked; and the thread's memos, which outlive the
/// trial.
#[derive(Default)]
pub struct TurnTrial {
    /// Per model: the trial (its `generation`) that last touched it, and the state that
    /// left it in. An entry of an earlier trial means untouched: the model is as the turn
    /// began ([`super::impact::FlatImpact::opening`]), whatever plan set it.
    now: Vec<(u32, ModelState)>,
    /// This trial's number among those the scratch has played (never 0).
    generation: u32,
    /// Per listed chariot: its state and tallies.
    pub chariots: Vec<ChariotTurn>,
    /// The metric values the trial came to.
    pub values: Vec<u16>,
    /// Supporters used in the fights so far (a supporter helps one fight).
    pub used: Vec<usize>,
    /// The models the fights slew, in the order they fell.
    pub fight_slain: Vec<usize>,
    /// The banner bearers fights knocked Prone (and did not slay), in the order they fell.
    pub fight_prone: Vec<usize>,
    /// The final board the Move phase ended on.
    pub last: usize,
    /// The drives the trial walked, in the order of the turn.
    pub walked: Vec<usize>,
    /// Whether a line is breached, by final board and the models slain in its fights
    /// (sorted): the same few recur in every trial, and the corridor is a sort and a sweep.
    pub breached: BoardMemo<SlainKey, Vec<bool>, MAX_CORRIDORS>,
    /// Fights drawn in one go.
    pub drawn: LocalFights,
    /// Drives drawn whole.
    pub drives: DriveMemo,
    /// Enemy Heroes slain so far this trial.
    pub foe_heroes_slain: u16,
    /// The single charge's buffers, for the fights.
    pub inner: Scratch,
}

impl TurnTrial {
    /// The drives (node indices) the trial walked, in the order of the turn.
    pub fn walked(&self) -> &[usize] {
        &self.walked
    }

    /// The models the fights slew, in the order they fell.
    pub fn fight_slain(&self) -> &[usize] {
        &self.fight_slain
    }

    /// The metric values the trial (or [`TurnTrial::fill`]) came to.
    pub fn values(&self) -> &[u16] {
        &self.values
    }

    /// The state model `m` is in.
    #[inline]
    pub fn state(&self, plan: &TurnPlan, m: usize) -> ModelState {
        match self.now[m] {
            (touched_in, t) if touched_in == self.generation => t,
            _ => ModelState::untouched(plan.flat_impact.opening(m)),
        }
    }

    /// Sets the state of model `m` for the rest of this trial.
    #[inline]
    pub fn set(&mut self, m: usize, t: ModelState) {
        self.now[m] = (self.generation, t);
    }

    /// Starts a trial: every model untouched, every chariot fresh, nothing slain.
    pub fn start(&mut self, plan: &TurnPlan) {
        if self.generation == u32::MAX {
            // Numbers would come round again: forget every entry instead.
            self.now.clear();
            self.generation = 0;
        }
        self.generation += 1;
        if self.now.len() < plan.models {
            let untouched = ModelState::untouched(ImpactState { left: 0, mount_left: 0, fate_left: 0 });
            self.now.resize(plan.models, (0, untouched));
        }
        self.chariots.clear();
        self.chariots.extend(plan.plans.iter().map(|p| ChariotTurn::fresh(ChariotState::fresh(p))));
        self.foe_heroes_slain = 0;
        self.used.clear();
        self.fight_slain.clear();
        self.fight_prone.clear();
        self.last = 0;
    }

    /// Sets what each chariot came to, as a played turn would leave it (the exact engine
    /// writes its branches' metrics through the same [`super::values::write_values`]),
    /// and the models slain in fights.
    pub fn fill(&mut self, at: usize, chariots: impl Iterator<Item = ChariotTurn>, fight_slain: &[usize]) {
        self.last = at;
        self.chariots.clear();
        self.chariots.extend(chariots);
        self.fight_slain.clear();
        self.fight_slain.extend_from_slice(fight_slain);
    }

    /// Writes everything the rest of a trial can read of it at `stage` into `out`, as
    /// words: the stage, the enemy Heroes slain, each chariot ([`ChariotTurn::words`]),
    /// each model touched that a later drive or fight can meet with its state
    /// ([`ModelState::word`]), the bearers knocked Prone in fights and the models slain in
    /// fights (each sorted). Two trials with the same words play on alike and come to the
    /// same values.
    pub fn snapshot(&self, plan: &TurnPlan, stage: Stage, out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(&stage.words());
        out.push(u32::from(self.foe_heroes_slain));
        for chariot in &self.chariots {
            out.extend_from_slice(&chariot.words());
        }
        // After the Move phase only the models of the fights still to come can matter.
        let still_to_fight = |m: usize| match stage {
            Stage::Drive { .. } => true,
            Stage::Fight { board, fight } => plan.finals[board].fights[fight..].iter().any(|f| f.models.contains(&m)),
            Stage::End { .. } => false,
        };
        for (m, &(touched_in, t)) in self.now.iter().enumerate().take(plan.models) {
            if touched_in == self.generation && still_to_fight(m) {
                out.push(m as u32);
                out.push(t.word());
            }
        }
        out.push(u32::MAX);
        // As sets: what fights and values read of them is whether a model is among them.
        let first = out.len();
        out.extend(self.fight_prone.iter().map(|&m| m as u32));
        out[first..].sort_unstable();
        out.push(u32::MAX);
        let first = out.len();
        out.extend(self.fight_slain.iter().map(|&m| m as u32));
        out[first..].sort_unstable();
    }

    /// Sets the trial to the one [`TurnTrial::snapshot`] wrote into `words`; returns its
    /// stage.
    pub fn restore(&mut self, plan: &TurnPlan, words: &[u32]) -> Stage {
        self.start(plan);
        let stage = Stage::from_words([words[0], words[1], words[2]]);
        self.foe_heroes_slain = words[3] as u16;
        let mut at = 4;
        for c in 0..plan.plans.len() {
            self.chariots[c] = ChariotTurn::from_words([words[at], words[at + 1]]);
            at += 2;
        }
        while words[at] != u32::MAX {
            self.set(words[at] as usize, ModelState::from_word(words[at + 1]));
            at += 2;
        }
        at += 1;
        while words[at] != u32::MAX {
            self.fight_prone.push(words[at] as usize);
            at += 1;
        }
        self.fight_slain.extend(words[at + 1..].iter().map(|&m| m as usize));
        if let Some(board) = stage.board() {
            self.last = board;
        }
        stage
    }
}

#[cfg(test)]
mod tests {
    use super::BoardMemo;

    #[test]
    fn a_board_memo_answers_each_key_once_per_slot_and_starts_again_past_its_bound() {
        let mut memo: BoardMemo<u32, u32, 3> = BoardMemo::default();
        let mut worked = 0;
        let mut ask = |memo: &mut BoardMemo<u32, u32, 3>, at, key| {
            *memo.get_or_insert_with(at, key, || {
                worked += 1;
                key * 10
            })
        };
        assert_eq!(ask(&mut memo, (2, 1), 7), 70);
        assert_eq!(ask(&mut memo, (2, 1), 7), 70, "met again: not worked out again");
        assert_eq!(ask(&mut memo, (0, 0), 7), 70, "another slot keeps its own");
        assert_eq!(ask(&mut memo, (2, 1), 8), 80, "a second key in the same slot");
        assert_eq!(memo.held, 3);
        assert_eq!(ask(&mut memo, (2, 1), 8), 80);
        // A fourth key passes the bound: everything is forgotten, then the key kept.
        assert_eq!(ask(&mut memo, (1, 4), 9), 90);
        assert_eq!(memo.held, 1);
        assert_eq!(ask(&mut memo, (2, 1), 7), 70, "worked out again after the reset");
        assert_eq!(worked, 5);
    }
}
