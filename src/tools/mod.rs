//! The tools written once against [`crate::engine::RuleSystem`], for both rule systems:
//! paired comparisons on common random numbers, sweeps over scenario fields, points
//! balance, and shards split across machines.

pub mod balance;
pub mod matchups;
pub mod paired;
pub mod play;
pub mod shard;
pub mod sweep;
pub mod system;
