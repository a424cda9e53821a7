//! A turn of several chariots (`[[chariots]]`): each makes its Chariot Charge in the Move
//! phase, in order, into the board as the earlier ones left it; then every fight is fought.
//!
//! The files, bottom up (each uses only those above it in this list):
//! - [`state`]: what a trial knows at any moment, typed, with each memo's encoding;
//! - [`impact`]: each chariot's Impact Hits tables on each model, by the model's state;
//! - [`drive`]: one chariot's drive on one board, and a drive drawn whole;
//! - [`measure`]: lines of formations and corridors through them (the project's measures);
//! - [`pairing`]: the fights the models in contact are split into;
//! - [`drawn`]: fights drawn in one go, shared by the threads; [`pool`]: what a run leaves
//!   in a plan for the next;
//! - [`final_board`]: the board after every move: fights, their help, the line before them;
//! - [`metrics`]: the turn's metrics; [`plan`]: the compiled turn; [`compile`]: the tree of
//!   boards of the Move phase;
//! - [`scratch`]: one trial's state and a thread's memos; [`values`]: a trial's metric
//!   values; [`move_phase`] and [`fight_phase`]: the two phases of a trial; [`play`]: a
//!   trial; [`tally`]: a turn's tally; [`chain`]: the turn as a chain of states;
//! - [`exact`]: the exact distribution of a small turn; [`run`]: compiling as the
//!   scenario asks, the engine's `RuleSystem`, replays.
//!
//! The turn calls the single charge's rule functions (the Impact Hits tables' chooser,
//! the path and its pushes, support, Back Away, the obstacle's hits, the fight); it never
//! copies them.

pub mod chain;
pub mod compile;
pub mod drawn;
pub mod drive;
pub mod exact;
pub mod fight_phase;
pub mod final_board;
pub mod impact;
pub mod measure;
pub mod metrics;
pub mod move_phase;
pub mod pairing;
pub mod plan;
pub mod play;
pub mod pool;
pub mod run;
pub mod scratch;
pub mod state;
pub mod tally;
pub mod values;

pub use compile::{compile_order, compile_turn, permutations, pose_on_legs};
pub use drawn::{DrawnFight, DrawnFights, FightKey};
pub use drive::{DrawnDrive, DriveOutcome, MAX_DRIVE_OUTCOMES, MoveKey, TurnGroup, TurnMove};
pub use exact::{MAX_TURN_BRANCHES, NotExactTurn, TurnExact, check_exact_turn, exact_turn};
pub use final_board::{FinalBoard, FixedSupport};
pub use impact::{FlatImpact, ImpactStates};
pub use measure::{corridor, corridor_through, line_corridors, lines_of};
pub use metrics::{ChariotMetrics, TurnMetrics};
pub use pairing::{
    FightWorth, MAX_EXHAUSTIVE_CONTACTS, SplitChoice, SplitSearch, TurnFight, best_split, duel_win,
    expected_fight_kills, fight_worth, legal_splits,
};
pub use plan::{BEST_ORDER_TRIALS, MAX_SIMULTANEOUS_IN_TURN, MAX_TURN_BOARDS, TurnError, TurnPlan};
pub use play::play;
pub use pool::{MAX_POOLED, ScratchPool};
pub use run::{TurnScratch, check, compile, replay_turn, tally_turns};
pub use scratch::TurnTrial;
pub use state::{ChariotTurn, ContactEffect, ImpactState, ModelState, Stage};
pub use tally::TurnTally;
