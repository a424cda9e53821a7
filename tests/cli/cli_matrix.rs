//! The promises of the README's *Commands* section, over both rule systems as far as each
//! command supports them: a seed on the command line is the seed in the file, the thread
//! count never changes a file, `replay` shows exactly the row `--trials-out` wrote, each
//! exit code is reached, `merge` refuses every kind of wrong shard set, an earlier report
//! survives a failed run, and a reader that goes away is not an error. (Exit code 130 and
//! the report that survives Ctrl-C are in `tests/cli/interrupt.rs`.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const MESBG: &str = "scenarios/mesbg/khandish-vs-minas-tirith.toml";
const MESBG_HERO: &str = "scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml";
const BATTLE_CHARGE: &str = "scenarios/battlesystem/elephant-howdah-vs-pikemen.toml";
const BATTLE_ROUT: &str = "scenarios/battlesystem/routing-elephants-in-battle-line.toml";
const ALL: [&str; 4] = [MESBG, MESBG_HERO, BATTLE_CHARGE, BATTLE_ROUT];

/// The bundled example's absolute path (tests run in temporary folders).
fn example(relative: &str) -> String {
    std::fs::canonicalize(relative).unwrap().to_string_lossy().into_owned()
}

fn charioteer(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_charioteer")).args(args).current_dir(dir).output().expect("binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs and asserts success, returning the output.
fn ok(args: &[&str], dir: &Path) -> Output {
    let out = charioteer(args, dir);
    assert!(out.status.success(), "{args:?} failed: {}", stderr(&out));
    out
}

/// The names of the files that differ between two folders (missing on either side included).
fn changed(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    a.keys().chain(b.keys()).filter(|k| a.get(*k) != b.get(*k)).cloned().collect()
}

/// Every file of a report folder, by name, with its bytes.
fn folder(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// `run.json` without the fields that say how (not what) the run was played.
fn run_json_without_timing(bytes: &[u8]) -> serde_json::Value {
    let mut json: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    let object = json.as_object_mut().unwrap();
    for key in ["elapsed_s", "trials_per_second", "threads", "command"] {
        object.remove(key);
    }
    json
}

/// `report.md` without the lines that say how fast or on how many threads it ran.
fn report_without_timing(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| !(l.contains("trials/s") || l.contains("thread") || l.contains("--threads")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts two report folders hold the same files with the same contents (timing aside).
fn assert_same_report(a: &Path, b: &Path, what: &str) {
    let (a, b) = (folder(a), folder(b));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>(), "{what}: different files");
    assert!(a.len() >= 5, "{what}: a report has its files ({:?})", a.keys());
    for (name, bytes) in &a {
        let other = &b[name];
        match name.as_str() {
            "run.json" => assert_eq!(run_json_without_timing(bytes), run_json_without_timing(other), "{what}: {name}"),
            "report.md" => assert_eq!(report_without_timing(bytes), report_without_timing(other), "{what}: {name}"),
            _ => assert!(bytes == other, "{what}: {name} differs"),
        }
    }
}

#[test]
fn a_seed_on_the_command_line_is_the_seed_in_the_file() {
    let dir = tempfile::tempdir().unwrap();
    for (i, file) in ALL.iter().enumerate() {
        let text = std::fs::read_to_string(file).unwrap();
        let edited: String = text
            .lines()
            .map(|l| if l.starts_with("seed = ") { "seed = 4242".to_string() } else { l.to_string() })
            .collect::<Vec<_>>()
            .join("\n");
        assert_ne!(edited, text, "{file} has a seed line");
        let copy = dir.path().join(format!("copy-{i}.toml"));
        std::fs::write(&copy, edited).unwrap();
        let (from_file, from_flag) = (format!("file-{i}"), format!("flag-{i}"));
        ok(&["run", copy.to_str().unwrap(), "--trials", "20000", "--out", &from_file, "-q"], dir.path());
        ok(&["run", &example(file), "--seed", "4242", "--trials", "20000", "--out", &from_flag, "-q"], dir.path());
        let (a, b) = (folder(&dir.path().join(&from_file)), folder(&dir.path().join(&from_flag)));
        let csvs: Vec<&String> = a.keys().filter(|n| n.ends_with(".csv")).collect();
        assert!(csvs.len() >= 2, "{file}: {csvs:?}");
        for name in csvs {
            assert!(a[name] == b[name], "{file}: {name} differs between --seed 4242 and seed = 4242");
        }
        // And a different seed gives a different sample.
        let other = format!("other-{i}");
        ok(&["run", &example(file), "--seed", "4243", "--trials", "20000", "--out", &other, "-q"], dir.path());
        assert!(folder(&dir.path().join(&other))["distribution.csv"] != a["distribution.csv"], "{file}");
    }
}

#[test]
fn one_and_two_threads_write_identical_reports() {
    let dir = tempfile::tempdir().unwrap();
    for (i, file) in ALL.iter().enumerate() {
        let (one, two) = (format!("one-{i}"), format!("two-{i}"));
        ok(&["run", &example(file), "--trials", "100000", "--threads", "1", "--out", &one, "-q"], dir.path());
        ok(&["run", &example(file), "--trials", "100000", "--threads", "2", "--out", &two, "-q"], dir.path());
        assert_same_report(&dir.path().join(&one), &dir.path().join(&two), file);
    }
}

#[test]
fn replay_shows_exactly_the_row_trials_out_wrote() {
    use polars::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    for file in ALL {
        let parquet = dir.path().join("trials.parquet");
        ok(
            &["run", &example(file), "--trials", "3000", "--trials-out", parquet.to_str().unwrap(), "--out", "r", "-q"],
            dir.path(),
        );
        let frame = ParquetReader::new(std::fs::File::open(&parquet).unwrap()).finish().unwrap();
        assert_eq!(frame.height(), 3000, "{file}: one row per trial");
        let trial = frame.column("trial").unwrap().u64().unwrap().clone();
        for n in [0u64, 1, 1234, 2999] {
            let out = ok(&["replay", &example(file), "--trial", &n.to_string(), "--json"], dir.path());
            let replayed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(trial.get(n as usize), Some(n), "{file}: rows in trial order");
            let metrics = replayed["metrics"].as_object().unwrap();
            let mut compared = 0;
            for column in frame.columns().iter().filter(|c| c.name().as_str() != "trial") {
                let value = column.u32().unwrap().get(n as usize).unwrap();
                let shown = &metrics[column.name().as_str()];
                assert_eq!(shown.as_u64(), Some(u64::from(value)), "{file}: trial {n}, {}", column.name());
                compared += 1;
            }
            assert!(compared >= 9, "{file}: every reported metric is a column");
        }
    }
}

#[test]
fn each_exit_code_is_reached() {
    let dir = tempfile::tempdir().unwrap();
    for file in ALL {
        // 0: a run that works.
        assert_eq!(
            charioteer(&["run", &example(file), "--trials", "1000", "--out", "fine", "-q"], dir.path()).status.code(),
            Some(0)
        );
        // 2: bad input, named by file, line and field.
        let broken = std::fs::read_to_string(file).unwrap().replacen("trials = ", "trials = -", 1);
        std::fs::write(dir.path().join("broken.toml"), broken).unwrap();
        let out = charioteer(&["run", "broken.toml"], dir.path());
        assert_eq!(out.status.code(), Some(2), "{file}: {}", stderr(&out));
        assert!(stderr(&out).contains("broken.toml:") && stderr(&out).contains("trials"), "{file}: {}", stderr(&out));
        // 1: anything else, e.g. a report folder that cannot be made (a file is in the way).
        std::fs::write(dir.path().join("in-the-way"), "a file").unwrap();
        let out = charioteer(&["run", &example(file), "--trials", "1000", "--out", "in-the-way", "-q"], dir.path());
        assert_eq!(out.status.code(), Some(1), "{file}: {}", stderr(&out));
        assert!(stderr(&out).contains("in-the-way"), "{file}: {}", stderr(&out));
    }
    // 2 also for a request the scenarios cannot carry (a paired comparison across rule
    // systems), and for a bad flag.
    let out = charioteer(&["compare", &example(MESBG), &example(BATTLE_CHARGE)], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("pairs two scenarios of one kind") && stderr(&out).contains("is a BATTLESYSTEM scenario"),
        "{}",
        stderr(&out)
    );
    let out = charioteer(&["run", "--shard", "3/2"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// Plays the three shards of a run into `parts`.
fn three_shards(dir: &Path, parts: &str, seed: &str) -> Vec<PathBuf> {
    (1..=3)
        .map(|k| {
            let shard = format!("{k}/3");
            ok(
                &["run", &example(MESBG), "--trials", "30001", "--seed", seed, "--shard", &shard, "--out", parts, "-q"],
                dir,
            );
            dir.join(parts).join(format!("shard-{k}-of-3.json"))
        })
        .collect()
}

#[test]
fn merge_refuses_mismatched_duplicated_missing_and_tampered_shards() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = three_shards(d, "good", "5");
    let other = three_shards(d, "other", "6");
    let merge = |files: &[&PathBuf]| {
        let mut args = vec!["merge".to_string()];
        args.extend(files.iter().map(|p| p.to_string_lossy().into_owned()));
        args.extend(["--out".into(), "merged".into()]);
        charioteer(&args.iter().map(String::as_str).collect::<Vec<_>>(), d)
    };
    let refused = |out: Output, expected: &[&str]| {
        assert!(!out.status.success(), "merged: {}", String::from_utf8_lossy(&out.stdout));
        let err = stderr(&out);
        assert!(expected.iter().all(|e| err.contains(e)), "expected {expected:?} in: {err}");
        assert!(!d.join("merged").exists(), "a refused merge wrote a report");
    };
    // The good set merges.
    assert!(merge(&[&good[0], &good[1], &good[2]]).status.success());
    std::fs::remove_dir_all(d.join("merged")).unwrap();
    // Mismatched: a shard of another seed.
    refused(merge(&[&good[0], &other[1], &good[2]]), &["belongs to a different run", "seed", "5", "6"]);
    // Duplicated: shard 1 twice (once under another name), shard 2 missing.
    let copy = d.join("good/shard-1-copy.json");
    std::fs::copy(&good[0], &copy).unwrap();
    refused(merge(&[&good[0], &copy, &good[2]]), &["given more than once 1", "missing 2"]);
    // Missing: only two of three.
    refused(merge(&[&good[0], &good[2]]), &["missing 2", "merge needs each of 1..=3 exactly once"]);
    // Tampered: one count in the tally changed by hand.
    let text = std::fs::read_to_string(&good[1]).unwrap();
    let at = text.find("\"counts\":[").expect("a tally's counts") + "\"counts\":[".len();
    let digits = text[at..].find(|c: char| !c.is_ascii_digit()).unwrap();
    let number: u64 = text[at..at + digits].parse().unwrap();
    let tampered = format!("{}{}{}", &text[..at], number + 1, &text[at + digits..]);
    let edited = d.join("good/shard-2-edited.json");
    std::fs::write(&edited, tampered).unwrap();
    refused(
        merge(&[&good[0], &edited, &good[2]]),
        &["shard-2-edited.json", "edited or damaged", "play that shard again"],
    );
    // Not a shard at all.
    let junk = d.join("junk.json");
    std::fs::write(&junk, "{\"hello\": 1}").unwrap();
    refused(merge(&[&good[0], &junk, &good[2]]), &["junk.json", "is not a charioteer shard file"]);
}

#[test]
fn an_earlier_report_survives_a_failed_run_in_the_same_folder() {
    let dir = tempfile::tempdir().unwrap();
    for file in ALL {
        ok(&["run", &example(file), "--trials", "5000", "--out", "kept", "-q"], dir.path());
        let before = folder(&dir.path().join("kept"));
        // A scenario that is refused.
        let broken = std::fs::read_to_string(file).unwrap().replacen("seed = ", "seed = -", 1);
        std::fs::write(dir.path().join("broken.toml"), broken).unwrap();
        let out = charioteer(&["run", "broken.toml", "--out", "kept"], dir.path());
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let after = folder(&dir.path().join("kept"));
        assert!(
            changed(&before, &after).is_empty(),
            "{file}: a refused scenario changed {:?}",
            changed(&before, &after)
        );
        // A run that fails after it played: its per-trial file cannot be written.
        let out = charioteer(
            &["run", &example(file), "--trials", "5000", "--trials-out", "no/such/dir/t.parquet", "--out", "kept"],
            dir.path(),
        );
        assert!(!out.status.success(), "{file}");
        let after = folder(&dir.path().join("kept"));
        assert!(changed(&before, &after).is_empty(), "{file}: a failed run changed {:?}", changed(&before, &after));
        std::fs::remove_dir_all(dir.path().join("kept")).unwrap();
    }
}

#[test]
fn a_reader_that_goes_away_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (mesbg, charge, rout) = (example(MESBG), example(BATTLE_CHARGE), example(BATTLE_ROUT));
    let commands: Vec<Vec<&str>> = vec![
        vec!["run", &mesbg, "--trials", "20000", "--out", "m"],
        vec!["run", &mesbg, "--trials", "20000", "--json", "--out", "mj"],
        vec!["run", &rout, "--trials", "20000", "--out", "r"],
        vec!["run", &charge, "--trials", "20000", "--json", "--out", "cj"],
        vec!["replay", &mesbg, "--trial", "5"],
        vec!["replay", &mesbg, "--trial", "5", "--json"],
        vec!["replay", &rout, "--trial", "5"],
        vec!["replay", &rout, "--trial", "5", "--json"],
        vec!["validate", &mesbg, &charge, &rout],
        vec!["exact", &mesbg, "--out", "e"],
    ];
    for args in commands {
        // The reader closes its end before the command writes a byte.
        let mut child = Command::new(env!("CARGO_BIN_EXE_charioteer"))
            .args(&args)
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
    // The runs still wrote their reports.
    for report in ["m", "mj", "r", "cj"] {
        assert!(dir.path().join(report).join("report.md").exists(), "{report}");
    }
}
