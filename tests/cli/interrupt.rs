//! Ctrl-C (SIGINT): a run stops promptly with exit code 130 and writes nothing; an
//! interrupted sweep keeps the points it finished and `--resume` completes it with the same
//! result as an uninterrupted sweep.
//!
//! "Promptly" is printed, not asserted to the millisecond: a busy 2-core machine may take a
//! while to schedule the process, so the only limit asserted is one that catches a run
//! ignoring the signal (it would go on for minutes).

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

/// Longer than any machine takes to stop after Ctrl-C, far shorter than the runs would last.
const IGNORED_SIGNAL: Duration = Duration::from_secs(20);

/// Waits for the child, returning its exit code, stderr and how long it took after the signal.
fn finish(child: Child, signalled: Instant) -> (Option<i32>, String, Duration) {
    let out = child.wait_with_output().expect("child ends");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), signalled.elapsed())
}

/// Every file of a report folder, by name, with its bytes.
fn folder(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

#[test]
fn ctrl_c_stops_a_run_and_writes_nothing_and_an_earlier_report_survives() {
    let dir = tempfile::tempdir().unwrap();
    let child = spawn(&["run", "--trials", "100000000000", "--out", "rep", "--quiet"], dir.path());
    std::thread::sleep(Duration::from_millis(1500));
    let signalled = Instant::now();
    interrupt(&child);
    let (code, err, took) = finish(child, signalled);
    assert_eq!(code, Some(130), "{err}");
    eprintln!("the run stopped {took:?} after Ctrl-C");
    assert!(took < IGNORED_SIGNAL, "took {took:?} to stop: the signal was not heard");
    assert!(err.contains("interrupted after") && err.contains("nothing was written"), "{err}");
    assert!(!dir.path().join("rep").exists(), "a report was written");

    // A finished report, then an interrupted run into the same folder: the report is
    // untouched, file for file and byte for byte.
    for system in [
        "scenarios/mesbg/khandish-vs-minas-tirith.toml",
        "scenarios/battlesystem/routing-elephants-in-battle-line.toml",
    ] {
        let file = std::fs::canonicalize(system).unwrap();
        let file = file.to_str().unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_charioteer"))
            .args(["run", file, "--trials", "20000", "--out", "kept", "--quiet"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let before = folder(&dir.path().join("kept"));
        assert!(before.contains_key("report.md") && before.contains_key("run.json"));
        let child = spawn(&["run", file, "--trials", "100000000000", "--out", "kept", "--quiet"], dir.path());
        std::thread::sleep(Duration::from_millis(1500));
        interrupt(&child);
        let (code, err, _) = finish(child, Instant::now());
        assert_eq!(code, Some(130), "{system}: {err}");
        assert_eq!(folder(&dir.path().join("kept")), before, "{system}: the earlier report changed");
    }
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
            "4000000",
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
    // The signal lands within milliseconds of the first checkpoint, with three points of
    // 4 M trials still to play: the sweep cannot have finished.
    assert_eq!(code, Some(130), "the sweep was not interrupted: {err}");
    eprintln!("the sweep stopped {took:?} after Ctrl-C");
    assert!(took < IGNORED_SIGNAL, "took {took:?} to stop: the signal was not heard");
    assert!(err.contains("run the same command with --resume"), "{err}");
    assert!(!dir.path().join("cut/report.md").exists(), "a partial sweep report was written");
    // A --resume of another sweep (other points) against this checkpoint is refused, and the
    // checkpoint is left for the right command.
    let checkpoint = std::fs::read(&state).unwrap();
    let mut other = sweep("cut", true);
    other[3] = "chariot.impact.strength=3..5".into();
    let refused = Command::new(env!("CARGO_BIN_EXE_charioteer")).args(&other).current_dir(dir.path()).output().unwrap();
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "another sweep resumed this one's checkpoint");
    assert!(err.contains("was written by a different sweep") && err.contains("chariot.impact.strength=3..6"), "{err}");
    assert_eq!(std::fs::read(&state).unwrap(), checkpoint, "the refused resume changed the checkpoint");
    assert!(!dir.path().join("cut/report.md").exists());
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
    // --resume where no sweep was interrupted says what it needs.
    let none = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(sweep("whole", true))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(!none.status.success());
    assert!(
        String::from_utf8_lossy(&none.stderr).contains("--resume needs"),
        "{}",
        String::from_utf8_lossy(&none.stderr)
    );
}

/// `compare` and `balance` stop on Ctrl-C as `run` does: exit 130, nothing written.
#[test]
fn ctrl_c_stops_compare_and_balance_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let example = std::fs::canonicalize("scenarios/mesbg/khandish-vs-minas-tirith.toml").unwrap();
    let example = example.to_str().unwrap();
    let commands: [&[&str]; 2] = [
        &[
            "compare",
            example,
            "--set",
            "chariot.impact.strength=5",
            "--trials",
            "100000000000",
            "--out",
            "cmp",
            "--quiet",
        ],
        &["balance", example, "--target-efficiency", "0.25", "--trials", "100000000000", "--out", "bal", "--quiet"],
    ];
    for args in commands {
        let child = spawn(args, dir.path());
        std::thread::sleep(Duration::from_millis(1500));
        let signalled = Instant::now();
        interrupt(&child);
        let (code, err, took) = finish(child, signalled);
        assert_eq!(code, Some(130), "{}: {err}", args[0]);
        eprintln!("{} stopped {took:?} after Ctrl-C", args[0]);
        assert!(took < IGNORED_SIGNAL, "{}: took {took:?} to stop", args[0]);
        assert!(err.contains("interrupted"), "{}: {err}", args[0]);
        assert!(!dir.path().join(args[7]).exists(), "{}: something was written", args[0]);
    }
}

/// A second Ctrl-C ends the process at once, still with 130 and nothing written.
#[test]
fn a_second_ctrl_c_quits_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let child = spawn(&["run", "--trials", "100000000000", "--out", "rep", "--quiet"], dir.path());
    std::thread::sleep(Duration::from_millis(1500));
    let signalled = Instant::now();
    interrupt(&child);
    interrupt(&child);
    let (code, err, took) = finish(child, signalled);
    assert_eq!(code, Some(130), "{err}");
    assert!(took < IGNORED_SIGNAL, "took {took:?} to stop");
    assert!(err.contains("Ctrl-C again to quit at once"), "the first Ctrl-C was not heard: {err}");
    assert!(!dir.path().join("rep").exists(), "a report was written");
}
