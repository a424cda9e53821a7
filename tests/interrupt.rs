//! Ctrl-C (SIGINT): a run stops within a second with exit code 130 and writes nothing; an
//! interrupted sweep keeps the points it finished and `--resume` completes it with the same
//! result as an uninterrupted sweep.

#![cfg(unix)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn spawn(args: &[&str], dir: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts")
}

fn interrupt(child: &Child) {
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
    assert!(status.success());
}

/// Waits for the child, returning its exit code, stderr and how long it took after the signal.
fn finish(child: Child, signalled: Instant) -> (Option<i32>, String, Duration) {
    let out = child.wait_with_output().expect("child ends");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), signalled.elapsed())
}

#[test]
fn ctrl_c_stops_a_run_within_a_second_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let child = spawn(&["run", "--trials", "100000000000", "--out", "rep", "--quiet"], dir.path());
    std::thread::sleep(Duration::from_millis(1500));
    let signalled = Instant::now();
    interrupt(&child);
    let (code, err, took) = finish(child, signalled);
    assert_eq!(code, Some(130), "{err}");
    assert!(took < Duration::from_secs(1), "took {took:?} to stop");
    assert!(err.contains("interrupted after") && err.contains("nothing was written"), "{err}");
    assert!(!dir.path().join("rep").exists(), "a report was written");
}

#[test]
fn an_interrupted_sweep_resumes_to_the_same_result() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = std::fs::canonicalize("tests/scenarios/column-of-six.toml").unwrap();
    let file = scenario.to_str().unwrap();
    let sweep = |out: &str, resume: bool| {
        let mut args = vec![
            "sweep",
            file,
            "--set",
            "chariot.impact.strength=3..6",
            "--trials",
            "12000000",
            "--out",
            out,
            "--quiet",
        ];
        if resume {
            args.push("--resume");
        }
        args.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let args = sweep("cut", false);
    let child = spawn(&args.iter().map(String::as_str).collect::<Vec<_>>(), dir.path());
    // Interrupt once the first point is checkpointed.
    let state = dir.path().join("cut/sweep-state.json");
    let started = Instant::now();
    while !state.exists() {
        assert!(started.elapsed() < Duration::from_secs(120), "no point finished");
        std::thread::sleep(Duration::from_millis(20));
    }
    let signalled = Instant::now();
    interrupt(&child);
    let (code, err, took) = finish(child, signalled);
    if code == Some(0) {
        // The machine was fast enough to finish every point before the signal landed;
        // nothing to resume, and the report is complete.
        assert!(dir.path().join("cut/report.md").exists());
        return;
    }
    assert_eq!(code, Some(130), "{err}");
    assert!(took < Duration::from_secs(1), "took {took:?} to stop");
    assert!(err.contains("run the same command with --resume"), "{err}");
    assert!(!dir.path().join("cut/report.md").exists(), "a partial sweep report was written");
    let resumed = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(sweep("cut", true))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(resumed.status.success(), "{}", String::from_utf8_lossy(&resumed.stderr));
    assert!(!state.exists(), "the checkpoint is removed once the report is written");
    let whole = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(sweep("whole", false))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(whole.status.success());
    let a = std::fs::read(dir.path().join("cut/sweep.csv")).unwrap();
    let b = std::fs::read(dir.path().join("whole/sweep.csv")).unwrap();
    assert_eq!(a, b, "a resumed sweep differs from an uninterrupted one");
    // A --resume of another sweep is refused.
    let other = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(sweep("whole", true))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!other.status.success());
}
