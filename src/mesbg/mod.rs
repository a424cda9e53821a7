//! Middle-earth Strategy Battle Game chariots: the scenario and its profiles, the plan
//! (geometry resolved once: the drive, pivots, contacts, support), the rules, one trial,
//! and the exact engine. MESBG implements [`crate::engine::RuleSystem`] for its
//! [`plan::Plan`]; every tool reaches it only through that trait.

pub mod analysis;
pub mod board;
pub mod exact;
pub mod plan;
pub mod resolve;
pub mod rules;
pub mod scenario;
pub mod tally;
pub mod turn;
