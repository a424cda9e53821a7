//! charioteer: odds for tabletop-wargame chariots by seeded Monte Carlo simulation and
//! exact probability.
//!
//! Data flows one way (see `docs/architecture.md`):
//! scenario file -> [`scenario::load`] -> [`plan::compile`] -> [`resolve::run`] ->
//! [`analysis`] -> [`report`].
//!
//! ```no_run
//! use charioteer::{plan, resolve, scenario, analysis};
//! use std::sync::atomic::AtomicBool;
//! let s = scenario::load(std::path::Path::new("scenarios/mesbg/khandish-vs-minas-tirith.toml")).unwrap();
//! let plan = plan::compile(&s);
//! let streams = resolve::Streams::new(s.seed, s.hash());
//! let range = resolve::TrialRange { first: 0, count: 100_000 };
//! let tally = resolve::run(&plan, streams, range, &|_| {}, &AtomicBool::new(false)).unwrap();
//! for m in analysis::summarize(&tally, &plan.metrics) {
//!     println!("{}: {:.3} +/- {:.3}", m.metric.name(), m.mean, m.se);
//! }
//! ```

#![warn(missing_docs)]

pub mod analysis;
pub mod balance;
pub mod battle;
pub mod chart;
pub mod cli;
pub mod dice;
pub mod document;
pub mod engine;
pub mod exact;
pub mod geometry;
pub mod paired;
pub mod plan;
pub mod record;
pub mod report;
pub mod resolve;
pub mod rules;
pub mod scenario;
pub mod shard;
pub mod sweep;
pub mod tally;
