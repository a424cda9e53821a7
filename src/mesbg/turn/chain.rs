//! A turn compiled, as trials meet it, into a chain of states: what a trial's dice have
//! done so far ([`TurnTrial::snapshot`]) and the stage it is at (a chariot's drive, a
//! fight, the end). From each state, the drive or fight drawn in one go leads, entry by
//! entry of its table, to the state that entry leaves; so a trial is one word and one
//! scan per stage, and its end state is counted. At the end of a block each end state's
//! metric values, worked out once, are added as many times as trials ended there.
//!
//! Each table is the one [`play`](super::play::play) draws from, with the same
//! thresholds in the same order, and each stage takes its word from the stream
//! `play` takes it from; so the chain plays every trial as `play` does, word for
//! word, and a replay shows the trial a run counted. A stage `play` rolls die by die
//! (difficult terrain, an obstacle, a fight of two chariots or with help that depends on
//! who stands, a thrown Hero) is not followed: the trial is handed to `play`.
//!
//! The chain is a thread's own and depends on nothing but the plan, so it changes no
//! result: its states are the trial's facts and its tables the plan's.

use super::fight_phase::{apply_drawn_fight, begin_fight, fight_table};
use super::move_phase::{apply_drive, charge, drawn_drive, drives_drawn_whole};
use super::plan::TurnPlan;
use super::play::{end_rolls, end_turn};
use super::pool::ScratchPool;
use super::scratch::TurnTrial;
use super::state::Stage;
use super::tally::TurnTally;
use crate::dice::{Dice, Phase, TrialKey};
use crate::mesbg::resolve::Silent;
use std::collections::HashMap;

/// The most states a thread's chain holds before it starts again (between blocks).
const MAX_CHAIN_STATES: usize = 1 << 18;

/// What a state leads to.
#[derive(Clone, Debug)]
enum Step {
    /// Not worked out yet.
    Unknown,
    /// Rolled die by die: the trial is played by `play`.
    Rolled,
    /// No dice: the next state.
    Go(u32),
    /// A drive drawn whole (a word of the Charge stream): per entry, its threshold and
    /// the state it leaves.
    Drive(Box<[(u64, u32)]>),
    /// A fight drawn in one go (a word of the Fight stream), likewise.
    Fight(Box<[(u64, u32)]>),
    /// The end of the turn, without dice.
    End,
}

/// An end state's contribution to a tally: its metric values and the models slain.
#[derive(Clone, Debug)]
struct EndRow {
    values: Box<[u16]>,
    slain: Box<[usize]>,
}

/// A thread's chain of a turn's states (see the module's documentation).
#[derive(Default)]
pub struct Chain {
    /// The pool of the plan it was compiled for, where it goes when dropped (`None`: a
    /// chain held in a pool, or none yet).
    home: Option<ScratchPool>,
    /// Each state's words, and the index of each.
    words: Vec<Box<[u32]>>,
    index: HashMap<Box<[u32]>, u32>,
    steps: Vec<Step>,
    /// Per end state: its row, once worked out.
    ends: Vec<Option<EndRow>>,
    /// Per state: trials of this block that ended there.
    counts: Vec<u64>,
    /// End states counted in this block.
    met: Vec<u32>,
    /// A buffer for a state's words.
    buffer: Vec<u32>,
}

impl Drop for Chain {
    /// A plan's chain goes back to the plan's pool for its next run.
    fn drop(&mut self) {
        if let Some(home) = self.home.take()
            && !self.words.is_empty()
        {
            home.leave(std::mem::take(self));
        }
    }
}

/// The entry of `entries` a word draws: the first whose threshold is above it (the last
/// one's is not read).
#[inline]
fn drawn(entries: &[(u64, u32)], u: u64) -> u32 {
    let last = entries.len().saturating_sub(1);
    let at = entries[..last].iter().position(|e| u < e.0).unwrap_or(last);
    entries[at].1
}

impl Chain {
    /// Gets ready to play `plan`'s trials: whether the chain can follow them (the tables
    /// are on, drives drawn whole among them). A chain of another plan goes back to that plan's pool, and this plan's
    /// is taken from its own (compiled by an earlier run) or started; one grown past its
    /// bound starts again.
    pub fn prepare(&mut self, plan: &TurnPlan, s: &mut TurnTrial) -> bool {
        if !plan.fights_from_tables || !drives_drawn_whole(plan) {
            return false;
        }
        if !self.home.as_ref().is_some_and(|home| home.is(&plan.compiled)) {
            *self = plan.compiled.take::<Chain>().unwrap_or_default();
            self.home = Some(plan.compiled.handle());
        }
        if self.words.len() > MAX_CHAIN_STATES || self.words.is_empty() {
            let home = self.home.take();
            *self = Chain::default();
            self.home = home;
            s.start(plan);
            self.state_now(plan, s, Stage::Drive { node: 0 });
        }
        true
    }

    /// The state the scratch is in at `stage`, interned.
    fn state_now(&mut self, plan: &TurnPlan, s: &TurnTrial, stage: Stage) -> u32 {
        let mut words = std::mem::take(&mut self.buffer);
        s.snapshot(plan, stage, &mut words);
        let id = match self.index.get(words.as_slice()) {
            Some(&id) => id,
            None => {
                let id = self.words.len() as u32;
                let key: Box<[u32]> = words.as_slice().into();
                self.index.insert(key.clone(), id);
                self.words.push(key);
                self.steps.push(Step::Unknown);
                self.ends.push(None);
                self.counts.push(0);
                id
            }
        };
        self.buffer = words;
        id
    }

    /// Plays the trial of `key` down the chain and counts its end state; `false` (nothing
    /// counted) when it reaches a stage rolled die by die.
    #[inline]
    pub fn walk(&mut self, plan: &TurnPlan, key: TrialKey, s: &mut TurnTrial) -> bool {
        let mut charge_dice = key.dice(Phase::Charge);
        let mut fight_dice: Option<Dice> = None;
        let mut id = 0u32;
        loop {
            let i = id as usize;
            if let Step::Unknown = self.steps[i] {
                self.steps[i] = self.work_out(plan, id, s);
            }
            id = match &self.steps[i] {
                Step::Drive(entries) => drawn(entries, charge_dice.word()),
                Step::Fight(entries) => drawn(entries, fight_dice.get_or_insert_with(|| key.dice(Phase::Fight)).word()),
                Step::Go(next) => *next,
                Step::End => {
                    if self.counts[i] == 0 {
                        self.met.push(id);
                    }
                    self.counts[i] += 1;
                    return true;
                }
                Step::Rolled | Step::Unknown => return false,
            };
        }
    }

    /// The stage after `stage` once it is played: the next drive, the first fight of the
    /// final board the drive's outcome `child` names, the next fight, or the end.
    fn next_stage(plan: &TurnPlan, stage: Stage, child: Option<usize>) -> Stage {
        match (stage, child) {
            (Stage::Drive { node }, Some(child)) => {
                if plan.nodes[node].depth + 1 < plan.order.len() {
                    Stage::Drive { node: child }
                } else if plan.finals[child].fights.is_empty() {
                    Stage::End { board: child }
                } else {
                    Stage::Fight { board: child, fight: 0 }
                }
            }
            (Stage::Fight { board, fight }, _) if fight + 1 < plan.finals[board].fights.len() => {
                Stage::Fight { board, fight: fight + 1 }
            }
            (Stage::Fight { board, .. } | Stage::End { board }, _) => Stage::End { board },
            // A drive with no board after it (never compiled so): the end of the first board.
            (Stage::Drive { .. }, None) => Stage::End { board: 0 },
        }
    }

    /// What state `id` leads to, worked out with the functions `play` plays it with.
    fn work_out(&mut self, plan: &TurnPlan, id: u32, s: &mut TurnTrial) -> Step {
        let words = self.words[id as usize].clone();
        let stage = s.restore(plan, &words);
        match stage {
            Stage::Drive { node } => {
                let mv = &plan.nodes[node];
                let mut memo = std::mem::take(&mut s.drives);
                let drive = drawn_drive(plan, node, s, &mut memo).cloned();
                s.drives = memo;
                match drive {
                    Some(drive) => {
                        let mut entries = Vec::with_capacity(drive.entries().len());
                        for (threshold, outcome) in drive.entries() {
                            s.restore(plan, &words);
                            let key = apply_drive(plan, node, outcome, (unseen(), &mut None), s, &mut Silent);
                            let next = Self::next_stage(plan, stage, mv.child(key));
                            entries.push((*threshold, self.at(plan, s, next)));
                        }
                        Step::Drive(entries.into())
                    }
                    None if mv.groups.is_empty() && mv.difficult_from.is_none() && mv.obstacle.is_none() => {
                        // Nothing to roll: the drive only drives on.
                        let mut no_dice = unseen().dice(Phase::Charge);
                        let key = charge(plan, node, &mut no_dice, (unseen(), &mut None), s, &mut Silent);
                        let next = Self::next_stage(plan, stage, mv.child(key));
                        Step::Go(self.at(plan, s, next))
                    }
                    None => Step::Rolled,
                }
            }
            Stage::Fight { board: last, fight: i } => {
                s.last = last;
                begin_fight(plan, last, i, s, &mut Silent);
                let Some((table, help)) = fight_table(plan, last, i, s).map(|(d, h)| (d.clone(), h)) else {
                    return Step::Rolled;
                };
                let [c] = plan.finals[last].fights[i].chariots[..] else {
                    return Step::Rolled;
                };
                let next = Self::next_stage(plan, stage, None);
                let mut entries = Vec::with_capacity(table.entries().len());
                for &(threshold, result) in table.entries() {
                    s.restore(plan, &words);
                    begin_fight(plan, last, i, s, &mut Silent);
                    apply_drawn_fight(plan, (last, i), c, result, help, s, &mut Silent);
                    entries.push((threshold, self.at(plan, s, next)));
                }
                Step::Fight(entries.into())
            }
            Stage::End { .. } => {
                if end_rolls(plan, s) {
                    Step::Rolled
                } else {
                    Step::End
                }
            }
        }
    }

    /// The state the scratch is in at `stage` (a final board's stage sets its board).
    fn at(&mut self, plan: &TurnPlan, s: &mut TurnTrial, stage: Stage) -> u32 {
        if let Some(board) = stage.board() {
            s.last = board;
        }
        self.state_now(plan, s, stage)
    }

    /// Adds the trials counted in this block to `tally`, each end state's values once per
    /// trial that ended there, and clears the counts.
    pub fn flush(&mut self, plan: &TurnPlan, s: &mut TurnTrial, tally: &mut TurnTally) {
        for id in std::mem::take(&mut self.met) {
            let i = id as usize;
            let count = std::mem::take(&mut self.counts[i]);
            if self.ends[i].is_none() {
                let words = self.words[i].clone();
                let stage = s.restore(plan, &words);
                let last = stage.board().unwrap_or(0);
                s.last = last;
                let mut no_dice = unseen().dice(Phase::Fight);
                end_turn(plan, last, &mut no_dice, s, &mut Silent);
                let slain = plan.finals[last].slain_in_moves.iter().chain(s.fight_slain()).copied().collect();
                self.ends[i] = Some(EndRow { values: s.values().into(), slain });
            }
            let Some(row) = &self.ends[i] else { continue };
            tally.trials += count;
            for (hist, &v) in tally.histograms.iter_mut().zip(row.values.iter()) {
                let v = usize::from(v);
                if v >= hist.len() {
                    hist.resize(v + 1, 0);
                }
                hist[v] += count;
            }
            for &m in row.slain.iter() {
                tally.slain[m] += count;
            }
        }
    }
}

impl Chain {
    /// How many states the chain holds.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the chain holds no state.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether the chain knows the pool it goes back to (a chain held in a pool does not).
    pub fn has_home(&self) -> bool {
        self.home.is_some()
    }
}

/// A trial key for stages that roll no dice (and trace nothing: the chain is silent).
fn unseen() -> TrialKey {
    crate::dice::RunKey::new(0, 0).trial(0)
}
