//! The sweep procedure called as a library, as the page or a script would: it answers as
//! `charioteer sweep --json` does, counts every trial it plays, tells each point's
//! warnings, keeps each finished point in the caller's checkpoint, and resumes from it to
//! the same answer (refusing a checkpoint of another sweep).

use charioteer::input::Problem;
use charioteer::tools::play::{Player, ToolError};
use charioteer::tools::sweep::{Checkpoint, SweepHooks, SweepRequest, sweep};
use std::cell::RefCell;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// A checkpoint held in memory: what was kept last, and how often.
#[derive(Default)]
struct Memory {
    resume_from: Option<String>,
    kept: RefCell<Vec<String>>,
}

impl Checkpoint for Memory {
    fn name(&self, folder: &str) -> String {
        format!("memory of {folder}")
    }
    fn kept(&self, _: &str) -> Result<Option<String>, ToolError> {
        Ok(self.resume_from.clone())
    }
    fn keep(&self, _: &str, state: &str) -> Result<(), ToolError> {
        self.kept.borrow_mut().push(state.to_string());
        Ok(())
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_sweep_procedure_answers_as_the_command_does_and_resumes_from_its_checkpoint() {
    let file = root().join("scenarios/mesbg/khandish-vs-minas-tirith.toml");
    let request = SweepRequest {
        file: file.clone(),
        sets: vec!["chariot.move=2,8,10".into()],
        trials: Some(2000),
        target_ci: Some(0.02),
        max_trials: Some(8000),
        ..SweepRequest::default()
    };
    let counted = AtomicU64::new(0);
    let progress = |n: u64| {
        counted.fetch_add(n, Ordering::Relaxed);
    };
    let cancel = AtomicBool::new(false);
    let player = Player { pool: None, progress: &progress, cancel: &cancel, plays: Default::default() };
    let warned = RefCell::new(Vec::<(String, usize)>::new());
    let warn = |name: &str, w: &[Problem]| warned.borrow_mut().push((name.to_string(), w.len()));
    let memory = Memory::default();
    let hooks = SweepHooks { warnings: &warn, checkpoint: Some(&memory) };
    let swept = sweep(&request, &player, &hooks).expect("the procedure sweeps");
    assert_eq!(swept.folder, "sweep--khandish-charioteer-charges-a-minas-tirith-shield-wall");
    let rows = &swept.run.rows;
    assert_eq!(rows.len(), 3);
    assert!(rows.iter().any(|r| r.trials > 2000), "a point played on towards the target");
    assert!(rows.iter().all(|r| r.trials <= 8000), "and no point past the cap");
    assert_eq!(counted.load(Ordering::Relaxed), rows.iter().map(|r| r.trials).sum::<u64>(), "every trial counted");
    // A 2" move reaches nothing: that point is warned about, the others are not.
    let warned = warned.into_inner();
    assert_eq!(warned.len(), 3, "{warned:?}");
    assert!(warned[0].0.ends_with("with chariot.move=2") && warned[0].1 > 0, "{warned:?}");
    assert!(warned[1..].iter().all(|(_, n)| *n == 0), "{warned:?}");
    assert_eq!(memory.kept.borrow().len(), 3, "each finished point kept");

    // The command prints the same object.
    let out = tempfile::tempdir().expect("temp dir");
    let printed = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args([
            "sweep",
            &file.display().to_string(),
            "--set",
            "chariot.move=2,8,10",
            "--trials",
            "2000",
            "--target-ci",
            "0.02",
            "--max-trials",
            "8000",
            "--json",
            "--quiet",
            "--out",
            &out.path().display().to_string(),
        ])
        .current_dir(root())
        .output()
        .expect("runs");
    assert!(printed.status.success(), "{}", String::from_utf8_lossy(&printed.stderr));
    let cli: serde_json::Value = serde_json::from_slice(&printed.stdout).expect("sweep --json prints JSON");
    let library: serde_json::Value = serde_json::from_str(&swept.run.to_json().to_string()).expect("reads back");
    assert_eq!(cli, library, "the command prints what the procedure returns");

    // Resumed from the state kept after the first point: the other two are played, the
    // answer is the same, and the progress counts the kept point as done.
    let after_one = memory.kept.borrow()[0].clone();
    let resumed = Memory { resume_from: Some(after_one), ..Memory::default() };
    counted.store(0, Ordering::Relaxed);
    let quiet = |_: &str, _: &[Problem]| {};
    let again =
        sweep(&request, &player, &SweepHooks { warnings: &quiet, checkpoint: Some(&resumed) }).expect("resumes");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&again.run.to_json().to_string()).unwrap(),
        library,
        "a resumed sweep answers as the whole one"
    );
    assert_eq!(resumed.kept.borrow().len(), 2, "only the two points left were played");
    assert_eq!(counted.load(Ordering::Relaxed), rows[0].trials + rows[1].trials + rows[2].trials);

    // A checkpoint of another sweep (other trials) is refused, naming it.
    let other = SweepRequest { trials: Some(1000), ..request.clone() };
    let stale = Memory { resume_from: Some(memory.kept.borrow()[0].clone()), ..Memory::default() };
    let refused = sweep(&other, &player, &SweepHooks { warnings: &quiet, checkpoint: Some(&stale) });
    let message = refused.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(message.contains("memory of sweep--") && message.contains("different sweep"), "{message}");
}
