//! Every example scenario users copy from `scenarios/` loads, plans and runs, and every
//! trial replays exactly as it counted in the run.

use charioteer::mesbg::plan::compile;
use charioteer::mesbg::resolve::{Streams, TrialRange, replay, run};
use charioteer::mesbg::scenario::load;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// Every example scenario file, both systems.
fn all_examples() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![PathBuf::from("scenarios")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.ends_with("profiles") {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "toml") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 8, "examples found: {files:?}");
    files
}

/// The MESBG examples (BATTLESYSTEM ones are checked in `tests/battlesystem.rs`).
fn examples() -> Vec<PathBuf> {
    all_examples().into_iter().filter(|f| !f.components().any(|c| c.as_os_str() == "battlesystem")).collect()
}

#[test]
fn every_example_runs_and_replays_exactly() {
    for file in examples() {
        let scenario = load(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let plan = compile(&scenario);
        let streams = Streams::new(scenario.seed, scenario.hash());
        let n = 3_000;
        let tally = run(&plan, streams, TrialRange { first: 0, count: n }, &|_| {}, &AtomicBool::new(false)).unwrap();
        let mut replayed = charioteer::mesbg::resolve::new_tally(&plan);
        for t in 0..n {
            let (outcome, events) = replay(&plan, streams, t);
            assert!(!events.is_empty(), "{}: trial {t} has no events", file.display());
            replayed.record(&outcome);
        }
        assert_eq!(tally, replayed, "{}: replays differ from the run", file.display());
        for m in &plan.metrics {
            let total: u64 = tally.histogram(*m).iter().sum();
            assert_eq!(total, n, "{}: {}", file.display(), m.name());
        }
    }
}

#[test]
fn every_example_validates_on_the_command_line() {
    for file in all_examples() {
        let out =
            std::process::Command::new(env!("CARGO_BIN_EXE_charioteer")).arg("validate").arg(&file).output().unwrap();
        assert!(out.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    }
}
