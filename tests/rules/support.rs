//! What the property-test suites share: one way to configure proptest so CI is
//! deterministic and a long fuzzing session is one environment variable away.

use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};

/// proptest's configuration for a suite: `cases` cases from the pinned seed `seed`, so every
/// run (CI included) draws the same cases, and failures found are saved beside the test
/// file (`tests/<suite>.proptest-regressions`, checked in) and re-run first.
///
/// For a long session with new cases set `CHARIOTEER_FRESH_SEEDS=1` (a random seed each
/// run, printed by proptest on failure) and raise `PROPTEST_CASES`.
pub fn proptest_config(cases: u32, seed: u64) -> Config {
    let fresh = std::env::var_os("CHARIOTEER_FRESH_SEEDS").is_some();
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(cases);
    Config {
        cases,
        rng_seed: if fresh { RngSeed::Random } else { RngSeed::Fixed(seed) },
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..Config::default()
    }
}
