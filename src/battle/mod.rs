//! AD&D BATTLESYSTEM battle platforms and routing battle beasts: scenarios, the board,
//! the resolver and its tallies. The rules themselves are in [`crate::rules::battlesystem`];
//! reports reuse the MESBG statistics, frames and charts.

pub mod board;
pub mod exact;
pub mod report;
pub mod resolve;
pub mod scenario;
pub mod tally;
