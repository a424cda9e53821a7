//! The tools' tests: paired comparisons, prices, sweeps, shards and merges, one engine for both
//! rule systems, each file a module (one test binary links the crate once).

mod cluster_shards;
mod one_engine;
mod paired;
mod price;
mod sweep;
