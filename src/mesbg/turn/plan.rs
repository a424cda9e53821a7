//! The compiled turn: the tree of boards the Move phase can leave, the final boards'
//! fights, every chariot's Impact Hits tables, and the metrics.

use super::drawn::DrawnFights;
use super::drive::{DrawnDrive, TurnMove};
use super::final_board::FinalBoard;
use super::impact::{FlatImpact, ImpactStates};
use super::metrics::TurnMetrics;
use super::pool::ScratchPool;
use super::state::{ContactEffect, ImpactState};
use crate::engine::MetricSet;
use crate::mesbg::plan::Plan;
use crate::mesbg::scenario::Scenario;

/// The most boards a turn may compile (nodes and final boards together): past this the
/// turn is refused, with the fix named.
pub const MAX_TURN_BOARDS: usize = 20_000;

/// The most models a chariot may touch at the same instant in a turn (their survivors are
/// a bit mask of the board's key).
pub const MAX_SIMULTANEOUS_IN_TURN: usize = 12;

/// Trials each order is played to choose `[turn] order = "best"` (on streams of their own).
pub const BEST_ORDER_TRIALS: u64 = 20_000;

/// The compiled turn.
#[derive(Clone, Debug)]
pub struct TurnPlan {
    /// The scenario.
    pub scenario: Scenario,
    /// The order played (listed indices).
    pub order: Vec<usize>,
    /// For `order = "best"`: every order tried and its objective's estimate.
    pub orders_tried: Vec<(Vec<usize>, f64)>,
    /// Whether the orders were weighed by exact values (else by trials on common random
    /// numbers).
    pub orders_by_exact: bool,
    /// Per listed chariot: its single charge compiled on the starting board (its models'
    /// Impact Hits tables, its fight profile, the labels).
    pub plans: Vec<Plan>,
    /// Per listed chariot, per model: Impact Hits tables by the state the model is in.
    pub impact: Vec<Vec<std::sync::Arc<ImpactStates>>>,
    /// The same tables laid out flat for the Move phase's inner loop.
    pub flat_impact: FlatImpact,
    /// The drives: the first chariot's is `nodes[0]`; a node's children index the next
    /// level (nodes, or `finals` after the last chariot).
    pub nodes: Vec<TurnMove>,
    /// The boards after every move.
    pub finals: Vec<FinalBoard>,
    /// The metrics, in report order, and where each is.
    pub metrics: MetricSet,
    /// Where each metric is in `metrics`.
    pub at: TurnMetrics,
    /// Models in all.
    pub models: usize,
    /// The lines of the board ([`lines_of`]): formations touching one another, facing one
    /// way, are one line for `line_breached`.
    pub lines: Vec<Vec<usize>>,
    /// How wide a corridor through a line must be (`None`: one of the line's own bases;
    /// `[turn] corridor_width`).
    pub corridor_width: Option<f64>,
    /// Whether a fight of one chariot whose help is fixed ([`FinalBoard::fixed_support`])
    /// is drawn from its exact distribution (one draw, as a single charge's fight is)
    /// rather than die by die. Always on in a run; the check that both agree turns it off.
    pub fights_from_tables: bool,
    /// Whether a drive without difficult terrain or an obstacle, in a turn of several
    /// chariots, is drawn whole from its exact distribution ([`DrawnDrive`], one word)
    /// rather than contact by contact. Always on in a run; the check that both agree turns
    /// it off.
    pub drives_from_tables: bool,
    /// The fights drawn in one go, worked out as trials first meet them and shared by the
    /// threads (see [`DrawnFights`]).
    pub drawn: std::sync::Arc<DrawnFights>,
    /// What the resolver's threads compiled of this plan (a turn's chain of states) and
    /// left for the next run of the same plan: a sweep, a comparison or a benchmark runs
    /// one plan again and again. A clone starts with none of it.
    pub compiled: ScratchPool,
}

/// Why a turn cannot be compiled.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum TurnError {
    /// Too many boards.
    #[error(
        "the turn has more than {MAX_TURN_BOARDS} possible boards to plan (each chariot's outcomes multiply the next one's); \
         give fewer chariots, or paths that meet fewer models one at a time"
    )]
    TooManyBoards,
    /// A chariot touches too many models at once.
    #[error(
        "chariot {chariot} touches {models} models at the same instant; a turn follows at most {MAX_SIMULTANEOUS_IN_TURN}: \
         change its path"
    )]
    TooManyAtOnce {
        /// Listed chariot, 1-based.
        chariot: usize,
        /// Models touched at once.
        models: usize,
    },
}

impl TurnPlan {
    /// The exact distribution of drive `node`'s outcomes when the models it can reach are
    /// in `states` (one per model of its groups, in order); `None` when it is rolled
    /// contact by contact ([`TurnMove::distribution`]).
    pub fn drive_distribution(&self, node: usize, states: &[ImpactState]) -> Option<DrawnDrive> {
        let mv = &self.nodes[node];
        mv.distribution(&self.impact[mv.chariot], states)
    }

    /// The effects chariot `chariot`'s Impact Hits can have on `model` in state `s`, each
    /// with its exact chance ([`ImpactStates::effects`]).
    pub fn contact_effects(&self, chariot: usize, model: usize, s: ImpactState) -> Vec<(ContactEffect, f64)> {
        self.impact[chariot][model].effects(s)
    }
}
