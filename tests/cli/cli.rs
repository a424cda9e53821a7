//! The `charioteer` binary as a user meets it: reports, JSON, thread independence, and a
//! precise message with exit code 2 for every class of bad input.

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

/// The example of the foundation issue, exactly as written there.
const ISSUE_EXAMPLE: &str = r#"title = "Khandish charioteer charges a Minas Tirith shield wall"
system = "mesbg"
trials = 1_000_000
seed = 7

[chariot]
name = "Khandish Charioteer"
side = "evil"
move = 10            # inches
fight = 4
strength = 3
defence = 7
attacks = 1
wounds = 3
courage = "7+"
impact = { hits = "2", strength = 4 }   # hits is a dice expression: "2", "D3", "D3+1", "2D6"
base = { round_mm = 60 }
at = [0.0, 0.0]      # base centre, inches
facing = 0           # degrees; 0 points along +y, clockwise positive
points = 40

[charge]
pivots = [0, 0]      # pivot in degrees (|p| <= 45) at the start and after each full 4" driven

[[formations]]
name = "Warriors of Minas Tirith"
count = 12
ranks = 2
base = { round_mm = 25 }
front_centre = [0.0, 6.0]   # centre of the front rank's base centres, inches
facing = 180
profile = { fight = 4, strength = 3, defence = 5, attacks = 1, wounds = 1, courage = "7+", points = 8 }
"#;

fn scratch_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_issue_example_is_accepted_as_written() {
    let dir = scratch_dir();
    write(dir.path(), "example.toml", ISSUE_EXAMPLE);
    let out = charioteer(&["validate", "example.toml"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("example.toml: ok (12 models, 8 on the chariot's path"), "{}", stdout(&out));
}

#[test]
fn run_writes_a_report_and_prints_a_table() {
    let dir = scratch_dir();
    write(dir.path(), "example.toml", ISSUE_EXAMPLE);
    let out = charioteer(&["run", "example.toml", "--trials", "20000", "--out", "rep"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("trials/s") && text.contains("breakthrough") && text.contains("report: rep/report.md"),
        "{text}"
    );
    for f in ["summary.csv", "distribution.csv", "run.json"] {
        assert!(dir.path().join("rep").join(f).is_file(), "{f} written");
    }
    let summary = std::fs::read_to_string(dir.path().join("rep/summary.csv")).unwrap();
    assert!(summary.starts_with("metric,mean,sd,se,ci95_lo,ci95_hi,exact_mean,z\n"), "{summary}");
    let dist = std::fs::read_to_string(dir.path().join("rep/distribution.csv")).unwrap();
    assert!(dist.starts_with("metric,value,count,p,p_lo,p_hi,p_at_least,p_at_least_lo,p_at_least_hi\n"), "{dist}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("rep/run.json")).unwrap()).unwrap();
    assert_eq!(json["trials"], 20000);
    assert_eq!(json["seed"], 7);
    assert_eq!(json["ruleset"]["prone_counts_as_trapped"]["value"], true);
    assert_eq!(json["ruleset"]["strike_split"]["value"], "declared");
    assert_eq!(json["ruleset"]["fate"]["default"], "retry");
    assert!(json["ruleset"]["break_point"]["reads"].as_str().unwrap().contains("half or more"));
    assert!(text.contains("ruleset: fate=retry"), "{text}");
    assert_eq!(json["command"], "charioteer run example.toml --seed 7 --trials 20000");
    assert!(json["scenario_hash"].as_str().unwrap().len() == 16);
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("rep"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn json_output_has_the_promised_shape() {
    let dir = scratch_dir();
    let out = charioteer(&["run", "--trials", "10000", "--json", "--out", "rep"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).expect("one JSON object");
    for key in ["trials", "seed", "elapsed_s", "trials_per_second", "metrics", "distributions"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    for metric in [
        "impact_kills",
        "contacts",
        "breakthrough",
        "fight_fought",
        "fight_won",
        "fight_kills",
        "chariot_wounds_lost",
        "chariot_slain",
    ] {
        let m = &v["metrics"][metric];
        for key in ["mean", "se", "ci95_lo", "ci95_hi"] {
            assert!(m[key].is_number(), "{metric}.{key}");
        }
        let rows = v["distributions"][metric].as_array().expect(metric);
        assert!(rows.iter().all(|r| r["value"].is_number() && r["p"].is_number() && r["p_at_least"].is_number()));
    }
}

#[test]
fn summary_is_byte_identical_for_one_and_two_threads() {
    let dir = scratch_dir();
    let one = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(["run", "--trials", "300000", "--quiet", "--out", "one"])
        .env("RAYON_NUM_THREADS", "1")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let two = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(["run", "--trials", "300000", "--quiet", "--out", "two"])
        .env("RAYON_NUM_THREADS", "2")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(one.status.success() && two.status.success());
    assert!(one.stdout.is_empty(), "--quiet prints nothing");
    for f in ["summary.csv", "distribution.csv"] {
        let a = std::fs::read(dir.path().join("one").join(f)).unwrap();
        let b = std::fs::read(dir.path().join("two").join(f)).unwrap();
        assert_eq!(a, b, "{f} differs between 1 and 2 threads");
    }
    let json = |d: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(d).join("run.json")).unwrap()).unwrap()
    };
    assert_eq!(json("one")["threads"], 1);
    assert_eq!(json("two")["threads"], 2);
}

#[test]
fn replay_prints_the_events_of_one_trial() {
    let dir = scratch_dir();
    let out = charioteer(&["replay", "--trial", "3"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("trial 3, seed 7") && text.contains("Impact Hits") && text.contains("impact_kills"),
        "{text}"
    );
}

/// One malformed scenario per class of error, with what the message must name.
struct Bad {
    replace: &'static str,
    with: &'static str,
    expect: &'static [&'static str],
}

const BAD: &[Bad] = &[
    Bad {
        replace: "pivots = [0, 0]",
        with: "pivots = [60, 0]",
        expect: &["example.toml:23:", "charge.pivots[0]", "allowed -45 to 45"],
    },
    Bad {
        replace: "impact = { hits = \"2\", strength = 4 }",
        with: "impact = { hits = \"2\", strength = 11 }",
        expect: &["example.toml:16:", "chariot.impact.strength", "allowed 1 to 10"],
    },
    Bad {
        replace: "wounds = 1, courage",
        with: "wounds = 0, courage",
        expect: &["example.toml:32:", "formations[0].profile.wounds", "allowed 1 to 20"],
    },
    Bad {
        replace: "hits = \"2\"",
        with: "hits = \"2D7\"",
        expect: &["example.toml:16:", "chariot.impact.hits", "only D3 and D6"],
    },
    Bad {
        replace: "front_centre = [0.0, 6.0]",
        with: "front_centre = [0.0, 1.0]",
        expect: &["example.toml:30:", "formations[0].front_centre", "overlaps the chariot"],
    },
    Bad { replace: "trials = 1_000_000", with: "trials = 0", expect: &["example.toml:3:", "trials", "allowed 1 to"] },
    Bad {
        replace: "defence = 5,",
        with: "defense = 5,",
        expect: &["example.toml:32:", "unknown field `defense`", "defence"],
    },
    Bad { replace: "defence = 7", with: "defense = 7", expect: &["example.toml:12:", "unknown field `defense`"] },
    Bad { replace: "move = 10 ", with: "move = nan ", expect: &["example.toml:9:", "chariot.move", "finite"] },
    Bad { replace: "move = 10 ", with: "move = 100 ", expect: &["chariot.move", "allowed 1 to 24"] },
    Bad {
        replace: "courage = \"7+\"\nimpact",
        with: "courage = \"seven\"\nimpact",
        expect: &["chariot.courage", "\"7+\""],
    },
    Bad {
        replace: "side = \"evil\"",
        with: "side = \"neutral\"",
        expect: &["example.toml:8:", "chariot.side", "good", "evil"],
    },
    Bad {
        replace: "fight = 4\n",
        with: "fight = \"four\"\n",
        expect: &["example.toml:10:", "chariot.fight", "expected a whole number"],
    },
    Bad {
        replace: "system = \"mesbg\"",
        with: "system = \"battlesystem\"",
        // Read as a BATTLESYSTEM scenario, the MESBG tables are unknown fields.
        expect: &["example.toml:", "unknown field", "expected one of"],
    },
    Bad { replace: "system = \"mesbg\"", with: "system = \"40k\"", expect: &["system", "allowed: \"mesbg\""] },
    Bad { replace: "count = 12", with: "count = 1000000000000", expect: &["formations[0].count", "allowed 1 to 2000"] },
    Bad {
        replace: "count = 12\nranks = 2",
        with: "count = 12\nranks = 13",
        expect: &["formations[0].ranks", "allowed 1 to 12"],
    },
    Bad {
        replace: "base = { round_mm = 25 }",
        with: "base = { rect_mm = [25, 40] }",
        expect: &["formations[0].base.rect_mm", "round or oval bases"],
    },
    Bad {
        replace: "base = { round_mm = 60 }",
        with: "base = { oval_mm = [105, 0] }",
        expect: &["chariot.base.oval_mm", "out of range"],
    },
    Bad {
        replace: "[[formations]]",
        with: "[army]\nmodels = 20\ncasualties = 30\n\n[[formations]]",
        expect: &["example.toml:27:", "army.casualties", "allowed 0 to 20"],
    },
    Bad {
        replace: "profile = { fight = 4,",
        with: "profile = { fihgt = 4,",
        expect: &["formations[0].profile", "unknown field `fihgt`"],
    },
    Bad {
        replace: "name = \"Khandish Charioteer\"",
        with: "profile = \"Khandish Chariot\"",
        expect: &["example.toml:7:", "chariot.profile", "no chariot profile is named", "\"Khandish Charioteer\""],
    },
    Bad { replace: "seed = 7", with: "seed = 7\nseed = 8", expect: &["example.toml:5:", "duplicate key"] },
    Bad { replace: "[charge]", with: "[charge", expect: &["example.toml:22:"] },
];

#[test]
fn bad_input_is_refused_with_the_field_line_and_exit_code_2() {
    let dir = scratch_dir();
    for (i, bad) in BAD.iter().enumerate() {
        assert!(ISSUE_EXAMPLE.contains(bad.replace), "case {i}: `{}` not in the example", bad.replace);
        write(dir.path(), "example.toml", &ISSUE_EXAMPLE.replacen(bad.replace, bad.with, 1));
        for cmd in ["validate", "run"] {
            let out =
                charioteer(&[cmd, "example.toml", "--out", "rep"][..if cmd == "run" { 4 } else { 2 }], dir.path());
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "case {i} ({}): {cmd} exit code; {err}", bad.with);
            assert!(!err.contains("panicked"), "case {i}: {err}");
            for needle in bad.expect {
                assert!(err.contains(needle), "case {i} ({}): `{needle}` missing from:\n{err}", bad.with);
            }
        }
        assert!(!dir.path().join("rep").exists(), "case {i}: no partial report");
    }
}

#[test]
fn all_problems_are_reported_at_once() {
    let dir = scratch_dir();
    let text = ISSUE_EXAMPLE.replace("fight = 4\n", "fight = 0\n").replace("wounds = 3", "wounds = 0");
    write(dir.path(), "example.toml", &text);
    let out = charioteer(&["validate", "example.toml"], dir.path());
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("2 problems") && err.contains("chariot.fight") && err.contains("chariot.wounds"), "{err}");
    // A bad Move is reported once, without a follow-on complaint about the pivots it allows.
    write(dir.path(), "example.toml", &ISSUE_EXAMPLE.replace("move = 10 ", "move = -3 "));
    let err = stderr(&charioteer(&["validate", "example.toml"], dir.path()));
    assert!(err.contains("(1 problem)") && err.contains("chariot.move"), "{err}");
}

#[test]
fn missing_file_and_bad_options() {
    let dir = scratch_dir();
    let out = charioteer(&["run", "nowhere.toml"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nowhere.toml"));
    let out = charioteer(&["run", "--trials", "0"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--trials"));
    let out = charioteer(&["run", "--threads", "0"], dir.path());
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn exact_prints_and_writes_the_exact_distribution() {
    let dir = scratch_dir();
    write(dir.path(), "example.toml", ISSUE_EXAMPLE);
    let out = charioteer(&["exact", "example.toml", "--out", "ex"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("exact distribution of every metric") && text.contains("breakthrough"), "{text}");
    for f in ["exact_summary.csv", "exact_distribution.csv", "exact.json"] {
        assert!(dir.path().join("ex").join(f).is_file(), "{f}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("ex/exact.json")).unwrap()).unwrap();
    assert_eq!(json["schema"], "charioteer.exact/2");
    let p = json["metrics"]["breakthrough"]["mean"].as_f64().unwrap();
    assert!((p - (5.0f64 / 9.0).powi(8)).abs() < 1e-12, "{p}");
    // A run of the same file reports each estimate against the exact value.
    let run = charioteer(&["run", "example.toml", "--trials", "20000", "--out", "rep", "--json"], dir.path());
    let json: serde_json::Value = serde_json::from_str(stdout(&run).trim()).unwrap();
    assert!((json["exact"]["breakthrough"]["exact"].as_f64().unwrap() - p).abs() < 1e-15);
    assert!(json["exact"]["kills"]["z"].as_f64().unwrap().abs() < 5.0);
    // Cavalry are exact too.
    let root = env!("CARGO_MANIFEST_DIR");
    let cavalry = format!("{root}/scenarios/mesbg/chariot-into-cavalry-screen.toml");
    let out = charioteer(&["exact", &cavalry], dir.path());
    assert!(out.status.success() && !stdout(&out).contains("no exact values"), "{}", stdout(&out));
    // A wide chariot with 2D6 Impact Hits meets six warriors at once: too many outcome
    // combinations to enumerate, said plainly, with the metrics not computed.
    write(
        dir.path(),
        "wide.toml",
        "title = \"wide\"\nsystem = \"mesbg\"\n[chariot]\nprofile = \"Khandish Charioteer\"\nside = \"evil\"\n\
         at = [0.0, 0.0]\nbase = { rect_mm = [150, 60] }\nimpact = { hits = \"2D6\", strength = 4 }\n[charge]\npivots = [0]\n\
         [[formations]]\nname = \"Line\"\ncount = 6\nprofile = \"Warrior of Minas Tirith\"\nfront_centre = [0.0, 4.0]\nfacing = 180\n",
    );
    let out = charioteer(&["exact", "wide.toml"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("no exact values") && stdout(&out).contains("not computed exactly: impact_kills"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn shards_merged_equal_one_run_byte_for_byte() {
    let dir = scratch_dir();
    write(dir.path(), "example.toml", ISSUE_EXAMPLE);
    let one = charioteer(&["run", "example.toml", "--trials", "100001", "--out", "single", "--quiet"], dir.path());
    assert!(one.status.success(), "{}", stderr(&one));
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let out =
            charioteer(&["run", "example.toml", "--trials", "100001", "--shard", &shard, "--out", "parts"], dir.path());
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stdout(&out).contains(&format!("shard {k}/3")), "{}", stdout(&out));
    }
    let merged = charioteer(&["merge", "parts", "--out", "merged"], dir.path());
    assert!(merged.status.success(), "{}", stderr(&merged));
    assert!(stdout(&merged).contains("merged 3 shards"));
    for f in ["summary.csv", "distribution.csv", "impact_chain.csv"] {
        let a = std::fs::read(dir.path().join("single").join(f)).unwrap();
        let b = std::fs::read(dir.path().join("merged").join(f)).unwrap();
        assert!(a == b, "{f} differs between one run and merged shards");
    }
    // A missing shard is refused with a message saying which.
    std::fs::remove_file(dir.path().join("parts/shard-2-of-3.json")).unwrap();
    let out = charioteer(&["merge", "parts"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("missing 2"), "{}", stderr(&out));
    let bad = charioteer(&["run", "example.toml", "--shard", "4/3"], dir.path());
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("--shard takes K/N"), "{}", stderr(&bad));
}

#[test]
fn target_ci_stops_at_the_promised_precision() {
    let dir = scratch_dir();
    write(dir.path(), "example.toml", ISSUE_EXAMPLE);
    let out =
        charioteer(&["run", "example.toml", "--trials", "1000", "--target-ci", "0.01", "--out", "rep"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("--target-ci 0.01: reached after"), "{}", stdout(&out));
    let half_widths = |folder: &str| -> Vec<f64> {
        let summary = std::fs::read_to_string(dir.path().join(folder).join("summary.csv")).unwrap();
        summary
            .lines()
            .skip(1)
            .map(|l| {
                let c: Vec<f64> = l.split(',').skip(1).take(5).map(|x| x.parse().unwrap()).collect();
                (c[4] - c[3]) / 2.0
            })
            .collect()
    };
    assert!(half_widths("rep").iter().all(|&h| h < 0.01), "{:?}", half_widths("rep"));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("rep/run.json")).unwrap()).unwrap();
    let trials = json["trials"].as_u64().unwrap();
    assert!(trials > 1000 && (trials / 1000).is_power_of_two(), "{trials}");
    assert_eq!(json["precision"]["reached"], true);
    // It stopped at the first batch that got there: half as many trials did not.
    let half = (trials / 2).to_string();
    let out = charioteer(&["run", "example.toml", "--trials", &half, "--out", "half", "--quiet"], dir.path());
    assert!(out.status.success());
    assert!(half_widths("half").iter().any(|&h| h >= 0.01));
    // A cap below the need is reported as not reached.
    let out = charioteer(
        &["run", "example.toml", "--trials", "1000", "--target-ci", "0.0001", "--max-trials", "4000", "--out", "cap"],
        dir.path(),
    );
    assert!(out.status.success());
    assert!(stdout(&out).contains("NOT reached") && stdout(&out).contains("4,000 trials"), "{}", stdout(&out));
}

#[test]
fn compare_writes_a_paired_report() {
    let dir = scratch_dir();
    write(dir.path(), "a.toml", ISSUE_EXAMPLE);
    write(dir.path(), "b.toml", &ISSUE_EXAMPLE.replacen("strength = 4 }", "strength = 5 }", 1));
    let out = charioteer(&["compare", "b.toml", "a.toml", "--trials", "50000", "--out", "cmp"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("paired trials") && text.contains("impact_kills") && text.contains("p < 0.001"), "{text}");
    let report = std::fs::read_to_string(dir.path().join("cmp/report.md")).unwrap();
    assert!(
        report.contains("Paired comparison")
            && report.contains("charioteer compare b.toml a.toml --seed 7 --trials 50000")
    );
    for f in
        ["paired.csv", "paired.parquet", "difference-chances.png", "difference-chances.svg", "difference-counts.svg"]
    {
        assert!(dir.path().join("cmp").join(f).is_file(), "{f}");
    }
    let csv = std::fs::read_to_string(dir.path().join("cmp/paired.csv")).unwrap();
    assert!(csv.starts_with("metric,mean_a,mean_b,diff,se,ci95_lo,ci95_hi,p_value,se_unpaired\n"), "{csv}");
}

#[test]
fn balance_prices_a_chariot_against_a_reference() {
    let dir = scratch_dir();
    write(dir.path(), "a.toml", ISSUE_EXAMPLE);
    let out = charioteer(
        &["balance", "a.toml", "--price", "chariot.points", "--against", "a.toml", "--trials", "20000", "--out", "bal"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("fair price 40.00 points"), "{}", stdout(&out));
    for f in ["report.md", "balance.csv"] {
        assert!(dir.path().join("bal").join(f).is_file(), "{f}");
    }
    // Efficiency at each price is arithmetic on the one value: no chart, a sentence that
    // points to the cost curve instead.
    assert!(!dir.path().join("bal/cost-sweep.png").exists());
    let report = std::fs::read_to_string(dir.path().join("bal/report.md")).unwrap();
    assert!(report.contains("--set FIELD=a,b,c"), "{report}");
    let out =
        charioteer(&["balance", "a.toml", "--target-efficiency", "0.5", "--trials", "20000", "--out", "t"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("fair price"), "{}", stdout(&out));
    let out = charioteer(&["balance", "a.toml", "--price", "chariot.move", "--target-efficiency", "0.5"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("only chariot.points can be priced"), "{}", stderr(&out));
}

#[test]
fn sweep_runs_the_grid_and_its_base_point_equals_a_run() {
    let dir = scratch_dir();
    write(dir.path(), "a.toml", ISSUE_EXAMPLE);
    let out = charioteer(
        &[
            "sweep",
            "a.toml",
            "--set",
            "chariot.impact.strength=4..5",
            "--set",
            "chariot.move=8,10",
            "--trials",
            "30000",
            "--out",
            "sw",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("4 points x 30,000 trials"), "{}", stdout(&out));
    let csv = std::fs::read_to_string(dir.path().join("sw/sweep.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].starts_with("chariot.impact.strength,chariot.move,trials,impact_kills_mean,"), "{}", lines[0]);
    assert_eq!(lines.len(), 5);
    for f in ["report.md", "sweep.parquet", "sweep-breakthrough.png", "sweep-kills.svg"] {
        assert!(dir.path().join("sw").join(f).is_file(), "{f}");
    }
    // The point equal to the file itself (strength 4, move 10) is exactly a plain run.
    let run = charioteer(&["run", "a.toml", "--trials", "30000", "--out", "rep", "--json"], dir.path());
    let json: serde_json::Value = serde_json::from_str(stdout(&run).trim()).unwrap();
    let kills = json["metrics"]["kills"]["mean"].as_f64().unwrap();
    let base_row: Vec<&str> = lines.iter().find(|l| l.starts_with("4,10,")).unwrap().split(',').collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let at = header.iter().position(|h| *h == "kills_mean").unwrap();
    assert_eq!(base_row[at].parse::<f64>().unwrap(), kills);
    // A bad --set names itself.
    let out = charioteer(&["sweep", "a.toml", "--set", "chariot.move"], dir.path());
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--set chariot.move: write PATH=VALUES"), "{}", stderr(&out));
    let out = charioteer(&["sweep", "a.toml", "--set", "chariot.move=0,10"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("chariot.move=0"), "{}", stderr(&out));
}

#[test]
fn compare_with_set_and_target_ci() {
    let dir = scratch_dir();
    write(dir.path(), "a.toml", ISSUE_EXAMPLE);
    write(dir.path(), "b.toml", &ISSUE_EXAMPLE.replacen("strength = 4 }", "strength = 5 }", 1));
    // B given as a file and B made with --set are the same comparison.
    let files = charioteer(&["compare", "b.toml", "a.toml", "--trials", "20000", "--out", "f"], dir.path());
    let set = charioteer(
        &["compare", "a.toml", "--set", "chariot.impact.strength=5", "--trials", "20000", "--out", "s"],
        dir.path(),
    );
    assert!(files.status.success() && set.status.success(), "{}", stderr(&set));
    let f = std::fs::read_to_string(dir.path().join("f/paired.csv")).unwrap();
    let s = std::fs::read_to_string(dir.path().join("s/paired.csv")).unwrap();
    // B - A in one is A - B in the other: the kills difference has the opposite sign, and B
    // made stronger by --set gains kills.
    let kills = |csv: &str| -> f64 {
        csv.lines().find(|l| l.starts_with("kills,")).unwrap().split(',').nth(3).unwrap().parse().unwrap()
    };
    assert!(kills(&f) < 0.0 && kills(&s) > 0.0, "{} {}", kills(&f), kills(&s));
    let out = charioteer(
        &[
            "compare",
            "a.toml",
            "--set",
            "chariot.impact.strength=5",
            "--trials",
            "1000",
            "--target-ci",
            "0.02",
            "--out",
            "t",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("--target-ci 0.02: reached after"), "{}", stdout(&out));
    let csv = std::fs::read_to_string(dir.path().join("t/paired.csv")).unwrap();
    for line in csv.lines().skip(1) {
        let c: Vec<f64> = line.split(',').skip(1).map(|x| x.parse().unwrap()).collect();
        assert!((c[5] - c[4]) / 2.0 < 0.02, "{line}");
    }
    let out = charioteer(&["compare", "a.toml", "--set", "chariot.move=8,10"], dir.path());
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = charioteer(
        &["sweep", "a.toml", "--set", "chariot.move=8,10", "--trials", "1000", "--target-ci", "0.02", "--out", "sw"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let csv = std::fs::read_to_string(dir.path().join("sw/sweep.csv")).unwrap();
    let trials_col: Vec<u64> = csv.lines().skip(1).map(|l| l.split(',').nth(1).unwrap().parse().unwrap()).collect();
    assert!(trials_col.iter().all(|&t| t > 1000), "{trials_col:?}");
}

#[test]
fn a_bad_sweep_point_names_the_lines_of_the_users_file() {
    // The point is checked as TOML generated from the file, whose lines differ; the message
    // gives the file's own lines of `count` (30) and `ranks` (31).
    let dir = scratch_dir();
    let file = format!("{}/scenarios/mesbg/khandish-vs-minas-tirith.toml", env!("CARGO_MANIFEST_DIR"));
    let out = charioteer(&["sweep", &file, "--set", "formations[0].count=0,5", "--trials", "100"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("with formations[0].count=0:30: field `formations[0].count`"), "{err}");
    assert!(err.contains("with formations[0].count=0:31: field `formations[0].ranks`"), "{err}");
}

#[test]
fn a_report_replacing_another_leaves_none_of_its_files() {
    // A Hero rides in the first run (its report has wound_split.csv); the second run, into
    // the same folder, has no Hero: nothing of the first may stay, while a file of the
    // user's and the `exact` files beside the report are left alone.
    let dir = tempfile::tempdir().unwrap();
    let hero = std::fs::canonicalize("scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml").unwrap();
    let plain = std::fs::canonicalize("scenarios/mesbg/khandish-vs-minas-tirith.toml").unwrap();
    let out = charioteer(&["run", hero.to_str().unwrap(), "--trials", "2000", "--out", "rep", "-q"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let rep = dir.path().join("rep");
    assert!(rep.join("wound_split.csv").is_file(), "the Hero's report writes wound_split.csv");
    std::fs::write(rep.join("notes.txt"), "mine").unwrap();
    let out = charioteer(&["exact", plain.to_str().unwrap(), "--out", "rep", "-q"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let out = charioteer(&["run", plain.to_str().unwrap(), "--trials", "2000", "--out", "rep"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("it replaces the earlier report"));
    assert!(!rep.join("wound_split.csv").exists(), "the earlier report's wound_split.csv stayed");
    assert!(rep.join("notes.txt").is_file() && rep.join("exact.json").is_file());
    // Every file the folder holds is the new report's, the manifest, or left alone above.
    let report = std::fs::read_to_string(rep.join("report.md")).unwrap();
    for entry in std::fs::read_dir(&rep).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let kept = name == ".report-files" || name == "notes.txt" || name.starts_with("exact");
        assert!(kept || report.contains(&name), "{name} is not the new report's");
    }
}

#[test]
fn a_report_that_fails_half_way_leaves_the_earlier_report_as_it_was() {
    // The first report has no Hero; a folder then stands where the Hero's report writes
    // wound_split.csv, after summary.csv, the charts and the rest are rendered. The second
    // run must fail naming that file and leave every file of the first byte for byte, with
    // no temporary file behind.
    let dir = tempfile::tempdir().unwrap();
    let hero = std::fs::canonicalize("scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml").unwrap();
    let plain = std::fs::canonicalize("scenarios/mesbg/khandish-vs-minas-tirith.toml").unwrap();
    let out = charioteer(&["run", plain.to_str().unwrap(), "--trials", "2000", "--out", "rep", "-q"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let rep = dir.path().join("rep");
    let before = folder_bytes(&rep);
    std::fs::create_dir(rep.join("wound_split.csv")).unwrap();
    let out = charioteer(&["run", hero.to_str().unwrap(), "--trials", "2000", "--out", "rep", "-q"], dir.path());
    assert!(!out.status.success(), "the run should fail");
    let err = stderr(&out);
    assert!(err.contains("wound_split.csv") && err.contains("move or rename that folder"), "{err}");
    std::fs::remove_dir(rep.join("wound_split.csv")).unwrap();
    let after = folder_bytes(&rep);
    assert_eq!(before.keys().collect::<Vec<_>>(), after.keys().collect::<Vec<_>>(), "files came or went");
    for (name, bytes) in &before {
        assert!(after[name] == *bytes, "{name} changed");
    }
}

/// Every file in a folder (hidden ones too), by name.
fn folder_bytes(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

#[test]
fn a_sweep_sets_impact_hits_to_a_constant_or_dice_and_errors_never_contradict_themselves() {
    let dir = tempfile::tempdir().expect("tmp");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/mesbg/khandish-vs-minas-tirith.toml");
    let example = example.to_str().expect("path");
    // `2` (a TOML integer), `"3"` and `D3` alike.
    let o = charioteer(
        &["sweep", example, "--set", "chariot.impact.hits=2,\"3\",D3", "--trials", "2000", "--out", "sw", "-q"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let md = std::fs::read_to_string(dir.path().join("sw/report.md")).expect("report.md");
    assert!(md.contains("`chariot.impact.hits`: 2, 3, D3"), "{md}");
    // A range of constants too.
    let o = charioteer(
        &["sweep", example, "--set", "chariot.impact.hits=1..3", "--trials", "2000", "--out", "range", "-q"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let md = std::fs::read_to_string(dir.path().join("range/report.md")).expect("report.md");
    assert!(md.contains("`chariot.impact.hits`: 1, 2, 3"), "{md}");
    // A bad value names the field and says what it accepts.
    let bad = charioteer(
        &["sweep", example, "--set", "chariot.impact.hits=-1", "--trials", "2000", "--out", "bad", "-q"],
        dir.path(),
    );
    assert!(!bad.status.success());
    let e = stderr(&bad);
    assert!(e.contains("chariot.impact.hits") && e.contains("write a constant like \"2\""), "{e}");
    assert!(!e.contains("expected a string"), "{e}");
}

#[test]
fn set_on_a_field_a_profile_supplies_starts_from_the_profile() {
    use charioteer::mesbg::scenario::{bundled_profile_tables, parse};
    use charioteer::tools::sweep::{parse_set, points_of};
    // The Iron Hills Chariot (F4 S4 D8 A2 W4, Impact Hits 3 x S6 in the reference's
    // profile table) and the Mordor Orc Warrior (F3 S3 D4 A1 W1) are named by `profile`.
    let file = "scenarios/mesbg/iron-hills-vs-orcs-best.toml";
    let text = std::fs::read_to_string(file).unwrap();
    let library: toml::Table = bundled_profile_tables();
    let sets = [parse_set("chariot.impact.strength=5").unwrap(), parse_set("formations[0].profile.defence=6").unwrap()];
    let points = points_of(&text, file, &sets, &library, parse).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(points.len(), 1);
    let s = &points[0].scenario;
    let c = &s.chariot;
    assert_eq!((c.impact.strength, c.impact.hits.max(), c.impact.hits.min()), (5, 3, 3), "the profile's 3 hits kept");
    assert_eq!(
        (c.fight, c.strength, c.defence, c.attacks, c.wounds),
        (4, 4, 8, 2, 4),
        "the profile's other fields kept"
    );
    let orc = &s.formations[0].profile;
    assert_eq!((orc.fight, orc.strength, orc.defence, orc.attacks, orc.wounds), (3, 3, 6, 1, 1));
    // On the command line (the cavalry screen: a Khandish Charioteer, 2 x S4, into Riders of
    // Rohan, both by profile): a sweep over the profile's Strength runs, and a comparison
    // with the profile's own value is the same scenario, every difference exactly zero.
    let dir = tempfile::tempdir().unwrap();
    let example = std::fs::canonicalize("scenarios/mesbg/chariot-into-cavalry-screen.toml").unwrap();
    let example = example.to_str().unwrap();
    let o = charioteer(
        &[
            "sweep",
            example,
            "--set",
            "chariot.impact.strength=4,5",
            "--set",
            "formations[0].profile.defence=4..5",
            "--trials",
            "2000",
            "--out",
            "sw",
            "-q",
        ],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = charioteer(
        &["compare", example, "--set", "chariot.impact.strength=4", "--trials", "2000", "--json", "-q"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = json["differences"].as_object().unwrap_or_else(|| panic!("{json}"));
    assert!(rows.len() >= 5);
    for row in rows.values() {
        assert_eq!(row["diff"].as_f64(), Some(0.0), "{row}");
    }
}

#[test]
fn the_readmes_default_run_is_what_run_prints() {
    // Every line of the README's `cargo run -- run` block is what the default run prints
    // today, but the timing (a measurement; its trials, seed and scenario hash are checked).
    let dir = tempfile::tempdir().unwrap();
    let o = charioteer(&["run"], dir.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let printed = String::from_utf8_lossy(&o.stdout).into_owned();
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let block = readme.split("$ cargo run -- run\n").nth(1).and_then(|b| b.split("```").next()).expect("the block");
    let quoted: Vec<&str> = block.lines().collect();
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(quoted.len(), lines.len(), "README:\n{block}\nprinted:\n{printed}");
    for (q, l) in quoted.iter().zip(&lines) {
        if l.contains(" trials in ") && l.contains("trials/s") {
            let tail = |s: &str| s.split_once("), ").map(|(_, t)| t.to_string());
            assert!(q.starts_with("1,000,000 trials in ") && l.starts_with("1,000,000 trials in "), "{q}\n{l}");
            assert_eq!(tail(q), tail(l), "the seed and scenario hash");
        } else {
            assert_eq!(q, l, "the README quotes a line the default run no longer prints");
        }
    }
}
