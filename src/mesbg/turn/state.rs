//! What a trial of a turn knows at any moment, typed, with the one compact encoding each
//! memo keys it by.
//!
//! The board a trial stands on (who stands where, who was pushed, who touches whom, which
//! fights the pairing made) is compiled once per branch of the Move phase ([`super::plan`]):
//! it is named by the node or final board the trial reached. What changes from trial to
//! trial on one board is small and lives here: each model's [`ModelState`], each chariot's
//! [`ChariotTurn`] and the [`Stage`] the trial is at. The chain of states
//! ([`super::chain`]), the thread's memo of drives drawn whole and the memo of fights drawn
//! in one go key a trial by these encodings, written here once; the tests at the end
//! round-trip every state the bundled turns reach.

use crate::mesbg::plan::ContactOutcome;
use crate::mesbg::resolve::{ChariotState, Survivor};

/// What Impact Hits tell apart of a model: the state whose table its next contact draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ImpactState {
    /// Wounds the model (the rider of a cavalry model) has left.
    pub left: u8,
    /// Wounds its mount has left (0: none, or slain).
    pub mount_left: u8,
    /// Fate it has left (a Hero's).
    pub fate_left: u8,
}

impl ImpactState {
    /// The state as one word (8 bits each: Wounds, mount's Wounds, Fate): the key of a
    /// drive drawn whole.
    #[inline]
    pub fn word(self) -> u32 {
        u32::from(self.left) | u32::from(self.mount_left) << 8 | u32::from(self.fate_left) << 16
    }

    /// The state [`ImpactState::word`] wrote.
    #[inline]
    pub fn from_word(w: u32) -> Self {
        Self { left: w as u8, mount_left: (w >> 8) as u8, fate_left: (w >> 16) as u8 }
    }
}

/// A model's state inside a turn, as this trial's dice have left it: its Wounds, its
/// mount's and its Fate, whether it lies Prone and whether it may still Strike. A model no
/// chariot touched this trial is in its opening state
/// ([`super::impact::FlatImpact::opening`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ModelState {
    /// What its next contact's Impact Hits table is chosen by.
    pub hurt: ImpactState,
    /// It lies Prone (a rider Knocked Flying).
    pub prone: bool,
    /// It may Strike if its side wins: not Prone, and not a rider Rising from the Dust.
    pub strikes: bool,
}

impl ModelState {
    /// A model untouched this turn, in its opening state.
    #[inline]
    pub fn untouched(hurt: ImpactState) -> Self {
        Self { hurt, prone: false, strikes: true }
    }

    /// The state after a contact with `effect`.
    #[inline]
    pub fn after(mut self, effect: ContactEffect) -> Self {
        self.hurt.left = effect.left;
        self.hurt.mount_left = effect.mount_left;
        self.hurt.fate_left -= effect.fate_spent.min(self.hurt.fate_left);
        self.prone |= effect.prone;
        self.strikes &= !effect.strikes_lost;
        self
    }

    /// The state as one word: [`ImpactState::word`] with Prone at bit 24 and Strikes at
    /// bit 25. The chain of states keys a model by it.
    #[inline]
    pub fn word(self) -> u32 {
        self.hurt.word() | u32::from(self.prone) << 24 | u32::from(self.strikes) << 25
    }

    /// The state [`ModelState::word`] wrote.
    #[inline]
    pub fn from_word(w: u32) -> Self {
        Self { hurt: ImpactState::from_word(w & 0x00ff_ffff), prone: w >> 24 & 1 == 1, strikes: w >> 25 & 1 == 1 }
    }

    /// The model as it enters a fight: a [`Survivor`] of the Move phase, its Fate spent
    /// counted from `opening_fate`.
    #[inline]
    pub fn survivor(self, model: usize, opening_fate: u8) -> Survivor {
        Survivor {
            model,
            left: self.hurt.left,
            mount_left: self.hurt.mount_left,
            prone: self.prone,
            strikes: self.strikes,
            fate_spent: opening_fate - self.hurt.fate_left,
            // A turn with a shield wall that can brace is refused (TurnError::Shieldwall).
            braced: false,
        }
    }
}

/// A fight's enemies as the memo of fights drawn in one go keys them: 16 bits each (Wounds
/// and mount's Wounds 4 bits each, Prone, Strikes, Fate spent 3 bits, braced by its shield
/// wall), at most four.
/// `None` when they do not fit: the fight is fought die by die.
pub fn survivors_word(survivors: &[Survivor]) -> Option<u64> {
    if survivors.len() > 4 {
        return None;
    }
    let mut packed = 0u64;
    for (k, sv) in survivors.iter().enumerate() {
        if sv.left > 15 || sv.mount_left > 15 || sv.fate_spent > 7 {
            return None;
        }
        let bits = u64::from(sv.left)
            | u64::from(sv.mount_left) << 4
            | u64::from(sv.prone) << 8
            | u64::from(sv.strikes) << 9
            | u64::from(sv.fate_spent) << 10
            | u64::from(sv.braced) << 13;
        packed |= bits << (16 * k);
    }
    Some(packed)
}

/// What one contact's Impact Hits did to a model, as far as the rest of the turn can
/// tell: the outcomes of a model's table that agree on it are one effect for a drive drawn
/// whole ([`super::drive::DrawnDrive`]); which of them it was (how many hits, which
/// wounded) matters only to a replay, which draws it again given the effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContactEffect {
    /// Wounds the model (the rider) has left.
    pub left: u8,
    /// Wounds its mount has left.
    pub mount_left: u8,
    /// Fate it spent.
    pub fate_spent: u8,
    /// It lies Prone.
    pub prone: bool,
    /// It no longer Strikes (Prone, or a rider Rising from the Dust).
    pub strikes_lost: bool,
    /// It counts as a casualty.
    pub casualty: bool,
    /// The chariot drives on past it.
    pub passed: bool,
}

impl ContactEffect {
    /// The effect of a contact's outcome.
    pub fn of(o: &ContactOutcome) -> Self {
        Self {
            left: o.left,
            mount_left: o.mount_left,
            fate_spent: o.fate_spent,
            prone: o.prone,
            strikes_lost: o.prone || matches!(o.thrown, Some(2..=5)),
            casualty: o.casualty,
            passed: o.passed,
        }
    }
}

/// One chariot's part of a trial: what it and its Hero have left, whether it fought, won,
/// or was blocked by a friend, and its kills so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChariotTurn {
    /// Wounds left, and its Hero's Might and Fate left.
    pub state: ChariotState,
    /// It was in a fight of the Fight phase.
    pub fought: bool,
    /// It won its fight.
    pub won: bool,
    /// Its drive ended short of a friend.
    pub blocked: bool,
    /// Models it slew with Impact Hits.
    pub impact_kills: u16,
    /// Models it slew in the Fight phase.
    pub fight_kills: u16,
}

impl ChariotTurn {
    /// A chariot before the turn: `state` fresh, nothing done.
    pub fn fresh(state: ChariotState) -> Self {
        Self { state, fought: false, won: false, blocked: false, impact_kills: 0, fight_kills: 0 }
    }

    /// The chariot as two words: Wounds, Might and Fate 8 bits each with fought, won and
    /// blocked at bits 24-26; then Impact Hit kills and fight kills, 16 bits each.
    pub fn words(&self) -> [u32; 2] {
        let st = self.state;
        [
            u32::from(st.wounds_left)
                | u32::from(st.might_left) << 8
                | u32::from(st.fate_left) << 16
                | u32::from(self.fought) << 24
                | u32::from(self.won) << 25
                | u32::from(self.blocked) << 26,
            u32::from(self.impact_kills) | u32::from(self.fight_kills) << 16,
        ]
    }

    /// The chariot [`ChariotTurn::words`] wrote.
    pub fn from_words([a, b]: [u32; 2]) -> Self {
        Self {
            state: ChariotState { wounds_left: a as u8, might_left: (a >> 8) as u8, fate_left: (a >> 16) as u8 },
            fought: a >> 24 & 1 == 1,
            won: a >> 25 & 1 == 1,
            blocked: a >> 26 & 1 == 1,
            impact_kills: b as u16,
            fight_kills: (b >> 16) as u16,
        }
    }
}

/// Where a trial of a turn is: about to drive a node of the Move phase, about to fight
/// fight `fight` of final board `board`, or at the end of the turn on `board`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Before the drive of node `node`.
    Drive {
        /// The node.
        node: usize,
    },
    /// Before fight `fight` of final board `board`.
    Fight {
        /// The final board.
        board: usize,
        /// The fight, in the order fought.
        fight: usize,
    },
    /// The end of the turn on final board `board`.
    End {
        /// The final board.
        board: usize,
    },
}

impl Stage {
    /// The stage as three words: `[0, node, 0]`, `[1, board, fight]` or `[2, board, 0]`.
    pub fn words(self) -> [u32; 3] {
        match self {
            Stage::Drive { node } => [0, node as u32, 0],
            Stage::Fight { board, fight } => [1, board as u32, fight as u32],
            Stage::End { board } => [2, board as u32, 0],
        }
    }

    /// The stage [`Stage::words`] wrote.
    pub fn from_words([kind, a, b]: [u32; 3]) -> Self {
        match kind {
            0 => Stage::Drive { node: a as usize },
            1 => Stage::Fight { board: a as usize, fight: b as usize },
            _ => Stage::End { board: a as usize },
        }
    }

    /// The final board of a stage of the Fight phase or the end (`None` while driving).
    pub fn board(self) -> Option<usize> {
        match self {
            Stage::Drive { .. } => None,
            Stage::Fight { board, .. } | Stage::End { board } => Some(board),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_state_round_trips_through_its_word() {
        for left in [0u8, 1, 3, 255] {
            for mount_left in [0u8, 2, 255] {
                for fate_left in [0u8, 1, 3, 255] {
                    for prone in [false, true] {
                        for strikes in [false, true] {
                            let s = ModelState { hurt: ImpactState { left, mount_left, fate_left }, prone, strikes };
                            assert_eq!(ModelState::from_word(s.word()), s);
                            assert_eq!(ImpactState::from_word(s.hurt.word()), s.hurt);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_chariot_and_a_stage_round_trip_through_their_words() {
        for wounds_left in [0u8, 3, 255] {
            for (might_left, fate_left) in [(0u8, 0u8), (3, 1), (255, 255)] {
                for flags in 0..8u8 {
                    for (impact_kills, fight_kills) in [(0u16, 0u16), (7, 2), (u16::MAX, u16::MAX)] {
                        let c = ChariotTurn {
                            state: ChariotState { wounds_left, might_left, fate_left },
                            fought: flags & 1 != 0,
                            won: flags & 2 != 0,
                            blocked: flags & 4 != 0,
                            impact_kills,
                            fight_kills,
                        };
                        assert_eq!(ChariotTurn::from_words(c.words()), c);
                    }
                }
            }
        }
        for s in [
            Stage::Drive { node: 0 },
            Stage::Drive { node: 19_999 },
            Stage::Fight { board: 4, fight: 2 },
            Stage::End { board: 19_999 },
        ] {
            assert_eq!(Stage::from_words(s.words()), s);
        }
    }

    #[test]
    fn survivors_are_told_apart_by_their_word() {
        let sv = |left, mount_left, prone, strikes, fate_spent| Survivor {
            model: 0,
            left,
            mount_left,
            prone,
            strikes,
            fate_spent,
            braced: false,
        };
        let all: Vec<Survivor> = [0u8, 1, 15]
            .iter()
            .flat_map(|&l| {
                [0u8, 15].iter().flat_map(move |&m| {
                    [false, true].iter().flat_map(move |&p| {
                        [false, true].iter().flat_map(move |&s| [0u8, 7].map(|f| sv(l, m, p, s, f)))
                    })
                })
            })
            .collect();
        for a in &all {
            for b in &all {
                assert_eq!(survivors_word(&[*a]) == survivors_word(&[*b]), a == b);
            }
        }
        assert_eq!(survivors_word(&[sv(16, 0, false, true, 0)]), None, "too many Wounds for 4 bits");
        assert_eq!(survivors_word(&[sv(1, 0, false, true, 0); 5]), None, "five enemies");
    }
}
