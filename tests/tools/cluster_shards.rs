//! `sweep`, `balance` and `compare` split with `--shard K/N` and put together with `merge`
//! (no Slurm needed): the merged report folder is the one machine's, byte for byte, whatever
//! order the shards are given in; a missing, repeated, edited or foreign shard is refused;
//! what cannot be split is refused with the way to the same answer.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn charioteer(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_charioteer")).args(args).current_dir(dir).output().expect("binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path).display().to_string()
}

/// Every file of a report folder, by name, with its bytes.
fn folder(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files
}

/// Plays `args` once into `single/`, then as `n` shards into `parts/`, merges them listed in
/// `order` into `merged/`, and checks every file of the two folders is the same, byte for
/// byte. Returns the shard files.
fn shards_merge_to_one_machines_report(dir: &Path, args: &[&str], n: usize, order: &[usize]) -> Vec<PathBuf> {
    let mut single: Vec<&str> = args.to_vec();
    single.extend(["--out", "single", "--quiet"]);
    let one = charioteer(&single, dir);
    assert!(one.status.success(), "{}", stderr(&one));
    let mut files = Vec::new();
    for k in 1..=n {
        let shard = format!("{k}/{n}");
        let mut part: Vec<&str> = args.to_vec();
        part.extend(["--shard", &shard, "--out", "parts", "--threads", if k % 2 == 0 { "1" } else { "2" }]);
        let out = charioteer(&part, dir);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stdout(&out).contains(&format!("shard {k}/{n} of the {}", args[0])), "{}", stdout(&out));
        assert!(!dir.join("parts/report.md").exists(), "a shard writes no report");
        files.push(dir.join(format!("parts/shard-{k}-of-{n}.json")));
    }
    let mut merge = vec!["merge".to_string()];
    merge.extend(order.iter().map(|&k| files[k - 1].display().to_string()));
    merge.extend(["--out".into(), "merged".into()]);
    let merge: Vec<&str> = merge.iter().map(String::as_str).collect();
    let merged = charioteer(&merge, dir);
    assert!(merged.status.success(), "{}", stderr(&merged));
    assert!(stdout(&merged).contains(&format!("merged {n} shards of a {}", args[0])), "{}", stdout(&merged));
    let (a, b) = (folder(&dir.join("single")), folder(&dir.join("merged")));
    assert_eq!(a.iter().map(|f| &f.0).collect::<Vec<_>>(), b.iter().map(|f| &f.0).collect::<Vec<_>>());
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{name} differs between one machine's report and the merged shards'");
    }
    assert!(a.len() >= 3, "a report of several files: {:?}", a.iter().map(|f| &f.0).collect::<Vec<_>>());
    files
}

fn merge_fails(dir: &Path, files: &[&Path]) -> String {
    let mut args = vec!["merge".to_string()];
    args.extend(files.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = charioteer(&args, dir);
    assert!(!out.status.success(), "merge should refuse: {}", stdout(&out));
    stderr(&out)
}

#[test]
fn a_sweep_in_shards_merges_to_one_machines_report_and_refuses_bad_shards() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = repo("scenarios/mesbg/khandish-vs-minas-tirith.toml");
    let args = ["sweep", &scenario, "--set", "chariot.impact.strength=3..5", "--trials", "40001"];
    let files = shards_merge_to_one_machines_report(dir.path(), &args, 3, &[3, 1, 2]);
    let csv = std::fs::read_to_string(dir.path().join("merged/sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 4, "a row per point: {csv}");

    // Missing, repeated, edited.
    let missing = merge_fails(dir.path(), &[&files[0], &files[2]]);
    assert!(missing.contains("missing 2"), "{missing}");
    let repeated = merge_fails(dir.path(), &[&files[0], &files[1], &files[1], &files[2]]);
    assert!(repeated.contains("given more than once 2"), "{repeated}");
    let text = std::fs::read_to_string(&files[1]).unwrap();
    let edited = dir.path().join("edited.json");
    // One count of the second shard's first histogram made larger.
    let at = text.find("\"result\"").unwrap();
    let digit = at + text[at..].find(|c: char| c.is_ascii_digit() && c != '0').unwrap();
    let mut bytes = text.into_bytes();
    bytes[digit] = if bytes[digit] == b'9' { b'8' } else { bytes[digit] + 1 };
    std::fs::write(&edited, bytes).unwrap();
    let refused = merge_fails(dir.path(), &[&files[0], &edited, &files[2]]);
    assert!(refused.contains("do not match its checksum"), "{refused}");

    // A shard of another job (other trials) is not mixed in.
    let other = charioteer(
        &[
            "sweep",
            &scenario,
            "--set",
            "chariot.impact.strength=3..5",
            "--trials",
            "40000",
            "--shard",
            "2/3",
            "--out",
            "other",
            "--quiet",
        ],
        dir.path(),
    );
    assert!(other.status.success(), "{}", stderr(&other));
    let foreign = dir.path().join("other/shard-2-of-3.json");
    let refused = merge_fails(dir.path(), &[&files[0], &foreign, &files[2]]);
    assert!(refused.contains("different run") && refused.contains("job"), "{refused}");
    // A run's shard is not a sweep's.
    let run = charioteer(&["run", &scenario, "--trials", "1000", "--shard", "2/3", "--out", "run"], dir.path());
    assert!(run.status.success(), "{}", stderr(&run));
    let refused = merge_fails(dir.path(), &[&files[0], &dir.path().join("run/shard-2-of-3.json"), &files[2]]);
    assert!(refused.contains("not a shard of a sweep, balance or compare"), "{refused}");
}

#[test]
fn a_balance_over_a_matchup_set_with_a_cost_curve_in_shards_merges_to_one_machines_report() {
    let dir = tempfile::tempdir().unwrap();
    // The inputs are read from a folder that is gone when the shards are merged: a shard
    // carries every file the command read.
    let inputs = dir.path().join("inputs");
    std::fs::create_dir(&inputs).unwrap();
    for file in [
        "scenarios/mesbg/khandish-vs-minas-tirith.toml",
        "scenarios/mesbg/iron-hills-into-pike-block.toml",
        "scenarios/matchups/mesbg-lines.toml",
    ] {
        std::fs::copy(repo(file), inputs.join(Path::new(file).file_name().unwrap())).unwrap();
    }
    let args = [
        "balance",
        "inputs/khandish-vs-minas-tirith.toml",
        "--against",
        "inputs/iron-hills-into-pike-block.toml",
        "--matchups",
        "inputs/mesbg-lines.toml",
        "--set",
        "chariot.impact.hits=1,2",
        "--trials",
        "6001",
    ];
    let mut single: Vec<&str> = args.to_vec();
    single.extend(["--out", "single", "--quiet"]);
    let one = charioteer(&single, dir.path());
    assert!(one.status.success(), "{}", stderr(&one));
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let mut part: Vec<&str> = args.to_vec();
        part.extend(["--shard", &shard, "--out", "parts"]);
        let out = charioteer(&part, dir.path());
        assert!(out.status.success(), "{}", stderr(&out));
        // Two values, seven lines each.
        assert!(stdout(&out).contains("14 plays"), "{}", stdout(&out));
    }
    std::fs::remove_dir_all(&inputs).unwrap();
    let merged = charioteer(&["merge", "parts", "--out", "merged"], dir.path());
    assert!(merged.status.success(), "{}", stderr(&merged));
    let (a, b) = (folder(&dir.path().join("single")), folder(&dir.path().join("merged")));
    assert!(a.iter().any(|f| f.0 == "cost-curve.csv"), "{:?}", a.iter().map(|f| &f.0).collect::<Vec<_>>());
    assert_eq!(a, b, "the merged cost curve's folder is one machine's");
}

#[test]
fn a_balance_with_a_riding_hero_and_a_battlesystem_balance_merge_to_one_machines_report() {
    let dir = tempfile::tempdir().unwrap();
    // The Hero's split is a play of its own (the chariot without him).
    let king = repo("scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml");
    let args = ["balance", &king, "--target-efficiency", "0.5", "--trials", "9001"];
    shards_merge_to_one_machines_report(dir.path(), &args, 3, &[2, 3, 1]);
    let report = std::fs::read_to_string(dir.path().join("merged/report.md")).unwrap();
    assert!(report.contains("Chariot and Hero apart"), "the Hero's split is in the merged report: {report}");

    let dir = tempfile::tempdir().unwrap();
    let howdah = repo("scenarios/battlesystem/elephant-howdah-vs-pikemen.toml");
    let dragon = repo("scenarios/battlesystem/dragon-with-crew.toml");
    let set = repo("scenarios/matchups/battlesystem-units.toml");
    let args = ["balance", &howdah, "--against", &dragon, "--matchups", &set, "--trials", "8001"];
    shards_merge_to_one_machines_report(dir.path(), &args, 2, &[2, 1]);
}

#[test]
fn a_compare_in_shards_merges_to_one_machines_report_and_target_ci_is_refused_with_the_way_round() {
    let dir = tempfile::tempdir().unwrap();
    let a = repo("scenarios/mesbg/khandish-vs-minas-tirith.toml");
    let args = ["compare", &a, "--set", "chariot.impact.strength=5", "--trials", "50001"];
    shards_merge_to_one_machines_report(dir.path(), &args, 4, &[4, 2, 3, 1]);
    // More shards than trials: a shard with no trial of a play still holds its (empty) part.
    let dir = tempfile::tempdir().unwrap();
    let args = ["sweep", &a, "--set", "chariot.move=8,10", "--trials", "2"];
    shards_merge_to_one_machines_report(dir.path(), &args, 3, &[1, 3, 2]);

    let dir = tempfile::tempdir().unwrap();
    let out = charioteer(
        &["compare", &a, "--set", "chariot.impact.strength=5", "--target-ci", "0.01", "--shard", "1/2"],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // 1.96^2 / 4 / 0.01^2 = 9,604 trials hold every probability's half-width under 0.01.
    assert!(stderr(&out).contains("--target-ci cannot be split") && stderr(&out).contains("9,604"), "{}", stderr(&out));
    let out = charioteer(&["sweep", &a, "--set", "chariot.move=8,10", "--resume", "--shard", "1/2"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--resume"), "{}", stderr(&out));
}

#[test]
fn a_turn_compare_in_shards_merges_to_one_machines_report() {
    let dir = tempfile::tempdir().unwrap();
    let two = repo("scenarios/mesbg/turn-two-iron-hills-into-pike-block.toml");
    let args = ["compare", &two, "--set", "chariots[1].move=8", "--trials", "3001"];
    shards_merge_to_one_machines_report(dir.path(), &args, 2, &[2, 1]);
}

/// `run --shard K/N --json` prints one JSON object a script can read: the shard, the
/// trials it played and the file it wrote (not the sentence printed without `--json`).
#[test]
fn a_run_shard_with_json_prints_what_it_played_and_where_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = repo("scenarios/mesbg/khandish-vs-minas-tirith.toml");
    let out =
        charioteer(&["run", &scenario, "--trials", "30001", "--shard", "2/3", "--json", "--out", "parts"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let printed = stdout(&out);
    let value: serde_json::Value =
        serde_json::from_str(printed.trim()).unwrap_or_else(|e| panic!("not one JSON object ({e}): {printed}"));
    assert_eq!(value["shard"]["index"], 2);
    assert_eq!(value["shard"]["count"], 3);
    assert_eq!(value["trials"], 30001);
    // Shards of 30,001 trials: 10,001, 10,000, 10,000, the second from trial 10,001.
    let (first, count) = (value["first"].as_u64().unwrap(), value["count"].as_u64().unwrap());
    assert!(first + count <= 30001 && (10000..=10001).contains(&count) && first >= 10000, "{value}");
    let file = value["file"].as_str().unwrap();
    assert!(dir.path().join(file).exists() || Path::new(file).exists(), "{file}");
    assert!(file.ends_with("shard-2-of-3.json"), "{file}");
}
