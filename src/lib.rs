//! charioteer: odds for tabletop-wargame chariots by seeded Monte Carlo simulation and
//! exact probability.
//!
//! One engine, two rule systems (see `docs/architecture.md`): [`engine`] runs trials of
//! any [`engine::RuleSystem`] in seeded, thread-count-independent blocks; [`mesbg`] and
//! [`battlesystem`] each implement it; [`tools`] (compare, sweep, balance, shards) and
//! [`report`] are written once against it; [`cli`] is the command line. [`dice`] and
//! [`geometry`] are shared by both systems.
//!
//! ```no_run
//! use charioteer::mesbg::analysis;
//! use charioteer::mesbg::{plan, resolve, scenario};
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

pub mod battlesystem;
pub mod cli;
pub mod dice;
pub mod engine;
pub mod geometry;
pub mod input;
pub mod mesbg;
pub mod report;
pub mod tools;
