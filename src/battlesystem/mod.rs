//! AD&D BATTLESYSTEM battle platforms and routing battle beasts: the rules, scenarios, the
//! board, the resolver and its tallies, and the exact engine of a charge. BATTLESYSTEM
//! implements [`crate::engine::RuleSystem`] for its [`resolve::BattlesystemPlan`]; every tool
//! reaches it only through that trait. Its report is in [`crate::report::battlesystem`].

pub mod board;
pub mod exact;
pub mod resolve;
pub mod rules;
pub mod scenario;
pub mod tally;
