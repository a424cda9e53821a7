//! BATTLESYSTEM end to end: the example scenarios run, replay exactly and do not depend on
//! the thread count; the charge agrees with its exact distribution and with the worked
//! checks of the reference; the command line writes the promised report and refuses what
//! it does not cover.

use charioteer::battlesystem::exact::{charge_hits_on_target, mean_of};
use charioteer::battlesystem::resolve::{BattlesystemPlan, compile, new_tally, replay, run};
use charioteer::battlesystem::scenario::parse;
use charioteer::battlesystem::tally::BattlesystemTally;
use charioteer::mesbg::resolve::{Streams, TrialRange};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::AtomicBool;

fn examples() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir("scenarios/battlesystem").unwrap().map(|e| e.unwrap().path()).collect();
    files.retain(|f| f.extension().is_some_and(|e| e == "toml"));
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    files
}

fn plan_of(path: &Path) -> BattlesystemPlan {
    let text = std::fs::read_to_string(path).unwrap();
    compile(&parse(&text, &path.display().to_string()).unwrap_or_else(|e| panic!("{e}")))
}

fn plan_from(text: &str) -> BattlesystemPlan {
    compile(&parse(text, "test.toml").unwrap_or_else(|e| panic!("{e}")))
}

fn play(plan: &BattlesystemPlan, trials: u64, threads: usize) -> BattlesystemTally {
    let streams = Streams::new(plan.scenario.seed, plan.scenario.hash());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| run(plan, streams, TrialRange { first: 0, count: trials }, &|_| {}, &AtomicBool::new(false)))
        .unwrap()
}

#[test]
fn examples_replay_exactly_and_do_not_depend_on_threads() {
    for file in examples() {
        let plan = plan_of(&file);
        // More than one block (32768 trials), so the split over threads matters.
        let n = 70_000;
        let one = play(&plan, n, 1);
        let two = play(&plan, n, 2);
        assert_eq!(one, two, "{}: 1 and 2 threads differ", file.display());
        let streams = Streams::new(plan.scenario.seed, plan.scenario.hash());
        let mut replayed = new_tally(&plan);
        for t in 0..3_000 {
            let (values, events) = replay(&plan, streams, t);
            assert!(!events.is_empty(), "{}: trial {t} has no events", file.display());
            replayed.record(&values);
        }
        let first = play(&plan, 3_000, 2);
        assert_eq!(first.histograms, replayed.histograms, "{}: replays differ from the run", file.display());
        for (m, d) in plan.metrics.defs.iter().enumerate() {
            assert_eq!(one.histogram(m).iter().sum::<u64>(), n, "{}: {}", file.display(), d.name);
        }
    }
}

/// Every value of `hits_on_target` within 5 standard errors of its exact probability.
fn check_against_exact(plan: &BattlesystemPlan, trials: u64) {
    let pmf = charge_hits_on_target(plan).expect("exact values");
    let tally = play(plan, trials, 2);
    let m = plan.metrics.index("hits_on_target").unwrap();
    let hist = tally.histogram(m);
    assert!(hist.len() <= pmf.len() + 1, "values beyond the exact support");
    for (h, p) in pmf.iter().enumerate() {
        let got = hist.get(h).copied().unwrap_or(0) as f64 / trials as f64;
        let se = (p * (1.0 - p) / trials as f64).sqrt();
        assert!((got - p).abs() <= 5.0 * se + 1e-9, "{} hits: {got} vs exact {p}", h);
    }
    let mean: f64 = hist.iter().enumerate().map(|(v, c)| v as f64 * *c as f64).sum::<f64>() / trials as f64;
    let var: f64 = pmf.iter().enumerate().map(|(k, p)| (k as f64 - mean_of(&pmf)).powi(2) * p).sum();
    assert!((mean - mean_of(&pmf)).abs() < 5.0 * (var / trials as f64).sqrt(), "mean {mean} vs {}", mean_of(&pmf));
}

#[test]
fn charges_follow_their_exact_distribution() {
    for file in ["elephant-howdah-vs-pikemen.toml", "dragon-with-crew.toml"] {
        check_against_exact(&plan_of(&Path::new("scenarios/battlesystem").join(file)), 200_000);
    }
}

const CHARGE: &str = r#"
title = "Worked check"
system = "battlesystem"
seed = 9
[rules]
charge_doubles = "none"
[[units]]
name = "Chariot"
side = "a"
figures = 1
at = [24.0, 10.0]
stats = { ad = "d8", ar = 5, hits = 4, ml = 12, mv = 12 }
crew = [{ name = "Driver", role = "rider", ad = "d4" }, { name = "Warrior", role = "fighter", ad = "d6" }]
[[units]]
name = "Line"
side = "b"
figures = 20
frontage = 10
at = [24.0, 16.0]
facing = 180
stats = { ad = "d4", ar = 10, hits = 1, ml = 12, mv = 6 }
[charge]
unit = "Chariot"
target = "Line"
"#;

#[test]
fn the_reference_worked_checks_through_the_whole_charge() {
    // Platform d8 + one crew d6, the charge not doubled, AR 10 (no hit is ever cancelled):
    // P(0 hits) = 1/8.
    let plan = plan_from(CHARGE);
    let n = 200_000;
    let tally = play(&plan, n, 2);
    let zero = tally.histogram(plan.metrics.index("hits_on_target").unwrap())[0] as f64 / n as f64;
    let se = (0.125f64 * 0.875 / n as f64).sqrt();
    assert!((zero - 0.125).abs() < 5.0 * se, "P(0 hits) = {zero}");
    check_against_exact(&plan, n);
    // Armour: against AR 6 each hit is cancelled with probability (10 - 6) / 10, so the
    // mean hits through is 0.6 of the mean against AR 10.
    let ar6 = plan_from(&CHARGE.replace("ar = 10", "ar = 6"));
    let mean = |plan: &BattlesystemPlan, tally: &BattlesystemTally| {
        let h = tally.histogram(plan.metrics.index("hits_on_target").unwrap());
        h.iter().enumerate().map(|(v, c)| v as f64 * *c as f64).sum::<f64>() / tally.trials as f64
    };
    let exact10 = mean_of(&charge_hits_on_target(&plan).unwrap());
    let exact6 = mean_of(&charge_hits_on_target(&ar6).unwrap());
    assert!((exact6 - 0.6 * exact10).abs() < 1e-12);
    let t6 = play(&ar6, n, 2);
    assert!((mean(&ar6, &t6) - exact6).abs() < 0.01, "{} vs {exact6}", mean(&ar6, &t6));
    // Doubling the crew's AD doubles their dice: three warriors charging with x2 roll six
    // dice, and the exact hits equal those of six warriors without the doubling.
    let three = CHARGE.replace(
        "{ name = \"Warrior\", role = \"fighter\", ad = \"d6\" }",
        "{ name = \"Warrior\", role = \"fighter\", count = 3, ad = \"d6\" }",
    );
    let doubled = plan_from(&three.replace("charge_doubles = \"none\"", "charge_doubles = \"crew\""));
    let six = plan_from(&three.replace("count = 3", "count = 6"));
    let (a, b) = (charge_hits_on_target(&doubled).unwrap(), charge_hits_on_target(&six).unwrap());
    assert_eq!(a.len(), b.len());
    assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-12));
    check_against_exact(&doubled, n);
}

fn charioteer(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_charioteer")).args(args).current_dir(dir).output().expect("binary runs")
}

#[test]
fn the_command_line_writes_the_rout_report_and_says_why_a_rout_has_no_exact_values() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = std::fs::canonicalize("scenarios/battlesystem/routing-elephants-in-battle-line.toml").unwrap();
    let file = scenario.to_str().unwrap();
    let out = charioteer(&["run", file, "--trials", "20000", "--out", "rep", "--threads", "2"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let rep = dir.path().join("rep");
    for name in [
        "report.md",
        "board-map.png",
        "board-map.svg",
        "units-contacted.png",
        "summary.csv",
        "summary.parquet",
        "distribution.csv",
        "path_map.csv",
        "units.csv",
        "run.json",
    ] {
        assert!(rep.join(name).is_file(), "{name} missing");
    }
    // The first d12 is fair by construction: no rose of it, a sentence with its shares.
    assert!(!rep.join("heading-rose.png").exists(), "a rose of a fair d12 says nothing");
    let said = std::fs::read_to_string(rep.join("report.md")).unwrap();
    assert!(
        said.contains("`heading` (the first d12 is fair by construction, 1/12 = 8.3% each hour; here from "),
        "{said}"
    );
    let png = image::open(rep.join("board-map.png")).unwrap().to_rgb8();
    assert_eq!(png.dimensions(), (960, 560));
    assert!(png.pixels().any(|p| p.0 != [255, 255, 255]));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(rep.join("run.json")).unwrap()).unwrap();
    assert_eq!(json["schema"], "charioteer.run/2");
    assert_eq!(json["ruleset"]["max_rerolls"]["default"], 3, "{}", json["ruleset"]);
    assert_eq!(json["system"], "battlesystem");
    assert_eq!(json["trials"], 20000);
    let heading = json["distributions"]["heading"].as_array().unwrap();
    assert_eq!(heading.len(), 13, "values 0 to 12");
    assert!(json["metrics"]["contacted.spearmen_left"]["mean"].as_f64().unwrap() > 0.0);
    let md = std::fs::read_to_string(rep.join("report.md")).unwrap();
    assert!(md.contains("## The rules as read") && md.contains("`max_rerolls`") && md.contains("board-map.png"));
    // Every file report.md links exists.
    for link in md.split("](").skip(1).filter_map(|s| s.split(')').next()) {
        assert!(rep.join(link).is_file(), "report.md links {link}");
    }
    // The path map counts the start cell in every trial.
    let csv = std::fs::read_to_string(rep.join("path_map.csv")).unwrap();
    assert!(csv.lines().any(|l| l.starts_with("30,16,20000,")), "{}", &csv[..200.min(csv.len())]);
    // Replays print events; `exact` says why a rout has no exact values.
    let out = charioteer(&["replay", file, "--trial", "3"], dir.path());
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("rout direction, d12:"));
    let out = charioteer(&["exact", file], dir.path());
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("exact values cover charges only"));
}

#[test]
fn bad_battlesystem_files_name_the_field_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &[&str]); 5] = [
        ("ad = \"d8\"", "ad = \"d9\"", &["test.toml:12:", "units[0].stats.ad", "not an attack die"]),
        ("at = [24.0, 16.0]", "at = [24.0, 10.5]", &["test.toml:", "overlaps \"Chariot\""]),
        ("target = \"Line\"", "target = \"Lines\"", &["charge.target", "no unit is named \"Lines\""]),
        ("{ name = \"Driver\", role = \"rider\", ad = \"d4\" }, ", "", &["units[0].crew", "role = \"rider\""]),
        ("charge_doubles = \"none\"", "charge_doubles = \"horse\"", &["test.toml:6:", "rules.charge_doubles"]),
    ];
    for (from, to, expect) in cases {
        assert!(CHARGE.contains(from), "{from}");
        std::fs::write(dir.path().join("test.toml"), CHARGE.replacen(from, to, 1)).unwrap();
        for cmd in ["validate", "run"] {
            let out = charioteer(&[cmd, "test.toml"], dir.path());
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{to}: {err}");
            for needle in expect {
                assert!(err.contains(needle), "{to}: `{needle}` missing from {err}");
            }
        }
        assert!(!dir.path().join("reports").exists(), "no partial report");
    }
}

/// A chariot (one platform, AR 5, 4 Hits) with a rider (AR 8) and one archer (d6, AR 7)
/// charging twenty foot (d6, AR 7, 1 Hit, ML 12) ten wide, 9.5" away, under the default
/// rules but for `platform_hits`.
fn hand_worked_charge(platform_hits: &str) -> BattlesystemPlan {
    plan_from(&format!(
        r#"title = "hand-worked charge"
system = "battlesystem"
seed = 17
[board]
width = 48
depth = 48
[rules]
platform_hits = "{platform_hits}"
[[units]]
name = "Chariot"
side = "a"
figures = 1
at = [24.0, 14.0]
base = [2.0, 3.0]
stats = {{ ad = "d8", ar = 5, hits = 4, ml = 14, mv = 12 }}
crew = [
  {{ name = "Driver", role = "rider", ad = "d4", ar = 8 }},
  {{ name = "Archer", role = "archer", ad = "d6", ar = 7, range_bands = [[0, 20, 1.0]] }},
]
[[units]]
name = "Foot"
side = "b"
figures = 20
frontage = 10
at = [24.0, 26.0]
facing = 180
stats = {{ ad = "d6", ar = 7, hits = 1, ml = 12, mv = 6 }}
[charge]
unit = "Chariot"
target = "Foot"
"#
    ))
}

/// P(metric = v) in a tally.
fn share(plan: &BattlesystemPlan, tally: &BattlesystemTally, name: &str, value: usize) -> f64 {
    let m = plan.metrics.index(name).unwrap_or_else(|| panic!("no metric {name}"));
    tally.histogram(m).get(value).copied().unwrap_or(0) as f64 / tally.trials as f64
}

/// Checks a hand-derived P(metric = value) against the Monte Carlo tally (within 5
/// standard errors) and against the exact engine's joint distribution (to 1e-12).
fn assert_share(plan: &BattlesystemPlan, tally: &BattlesystemTally, name: &str, value: usize, exact: f64) {
    let joint = charioteer::battlesystem::exact::charge_joint(plan).expect("a charge has an exact joint");
    let m = plan.metrics.index(name).unwrap();
    let marginal = joint.marginal(m);
    let computed = marginal.get(value).copied().unwrap_or(0.0);
    assert!(
        (computed - exact).abs() < 1e-12,
        "exact engine: P({name} = {value}) = {computed:.12}, derived {exact:.12}"
    );
    let estimate = share(plan, tally, name, value);
    let se = (exact * (1.0 - exact) / tally.trials as f64).sqrt().max(1e-9);
    assert!((estimate - exact).abs() < 5.0 * se, "P({name} = {value}) = {estimate:.5}, derived {exact:.5}");
}

#[test]
fn a_charge_worked_by_hand() {
    // The default hits table: a roll r gives floor((r - 1) / 4) hits; a hit is cancelled by a
    // d10 above the AR of the figure it falls on (through with AR/10).
    let hits = |r: u32| (r - 1) / 4;
    // Volleys: the archer shoots twice (at 9.5" and 4.75", both in its one band, x1): one d6
    // a volley, a hit on 5-6, through the foot's AR 7 with 7/10.
    let volley = 2.0 / 6.0 * 7.0 / 10.0;
    // Melee, charger: the archer fights (the driver controls the platform); the charge
    // doubles its dice (2 d6) and the chariot's one d8 roll is added to both.
    let mut melee_raw = [0.0f64; 7];
    for platform in 1..=8 {
        for a in 1..=6 {
            for b in 1..=6 {
                melee_raw[(hits(a + platform) + hits(b + platform)) as usize] += 1.0 / (8.0 * 36.0);
            }
        }
    }
    // Each raw hit gets through AR 7 with 7/10.
    let binomial = |n: usize, k: usize, p: f64| {
        let choose = (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64);
        choose * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
    };
    let on_target: Vec<f64> = (0..=6).map(|k| (k..=6).map(|n| melee_raw[n] * binomial(n, k, 0.7)).sum()).collect();
    // Melee, foot: two figures cover the chariot's 2" front (bases 23-24 and 24-25), one d6
    // each, undoubled: a hit on 5-6.
    let raw_back = |k: usize| binomial(2, k, 1.0 / 3.0);
    // Morale: 2d10 against ML 12, 64 of 100 at most 12 (held), 13-16 fell back (26),
    // 17 or more routed (10); eight figures at most are lost, so never destroyed.
    for (platform_hits, on_charger) in [
        // Hits fall on the platform (AR 5: through with 1/2).
        (
            "platform_first",
            [
                raw_back(0) + raw_back(1) / 2.0 + raw_back(2) / 4.0,
                raw_back(1) / 2.0 + raw_back(2) / 2.0,
                raw_back(2) / 4.0,
            ],
        ),
        // Hits fall on the archer first (AR 7), then the driver (AR 8): the second raw hit
        // meets the driver only if the first got through.
        (
            "crew_first",
            [
                raw_back(0) + raw_back(1) * 0.3 + raw_back(2) * 0.3 * 0.3,
                raw_back(1) * 0.7 + raw_back(2) * (0.7 * 0.2 + 0.3 * 0.7),
                raw_back(2) * 0.7 * 0.8,
            ],
        ),
    ] {
        let plan = hand_worked_charge(platform_hits);
        let tally = play(&plan, 400_000, 2);
        for (k, p) in on_charger.iter().enumerate() {
            assert_share(&plan, &tally, "volley_hits", k, binomial(2, k, volley));
            assert_share(&plan, &tally, "hits_on_charger", k, *p);
        }
        for (k, p) in on_target.iter().enumerate() {
            assert_share(&plan, &tally, "hits_on_target", k, *p);
        }
        assert_share(&plan, &tally, "target_morale", 0, 0.64);
        assert_share(&plan, &tally, "target_morale", 1, 0.26);
        assert_share(&plan, &tally, "target_morale", 2, 0.10);
        assert_eq!(share(&plan, &tally, "target_destroyed", 1), 0.0);
        // Losses aboard: none while the platform takes the hits (4 Hits, at most 2 come);
        // with crew_first the archer falls to the first hit through, the driver to the next
        // (leaving the platform uncontrolled).
        let (archer_or_more, driver) = match platform_hits {
            "platform_first" => (0.0, 0.0),
            _ => (1.0 - on_charger[0], on_charger[2]),
        };
        assert_share(&plan, &tally, "crew_lost", 0, 1.0 - archer_or_more);
        assert_share(&plan, &tally, "crew_lost", 2, driver);
        assert_share(&plan, &tally, "platform_uncontrolled", 1, driver);
        assert_eq!(share(&plan, &tally, "platform_figures_lost", 1), 0.0);
    }
}

/// The dragon with its war tower, by hand, under each reading of what a charge doubles.
/// The dragon (2d10, attacking on its own too) touches the knights with its 4" front; its
/// four tower guards each roll a d8 plus the dragon's one 2d10 roll (the rider does not
/// fight); the dragon also rolls its own 2d10. A charge doubles the guards' dice (crew),
/// the dragon's own (platform), both, or neither. Each die's hits by the default table
/// (floor((roll - 1) / 4)); each hit gets through the knights' AR 3 when the d10 is 3 or
/// less (3 in 10). Expected hits through armour:
/// 0.3 x (guards' dice x E[hits of d8 + 2d10] + own dice x E[hits of 2d10]).
#[test]
fn the_dragons_charge_rolls_the_dice_each_doubling_reading_says() {
    // E[floor((roll - 1) / 4)] over a distribution of rolls, enumerated face by face.
    let two_d10: Vec<u32> = (1..=10).flat_map(|a| (1..=10).map(move |b| a + b)).collect();
    let hits = |roll: u32| f64::from((roll - 1) / 4);
    let own = two_d10.iter().map(|&r| hits(r)).sum::<f64>() / 100.0;
    let guard = (1..=8u32).flat_map(|d| two_d10.iter().map(move |&p| d + p)).map(hits).sum::<f64>() / 800.0;
    let text = std::fs::read_to_string("scenarios/battlesystem/dragon-with-crew.toml").unwrap();
    for (reading, guard_dice, own_dice) in
        [("both", 8.0, 2.0), ("crew", 8.0, 1.0), ("platform", 4.0, 2.0), ("none", 4.0, 1.0)]
    {
        let file = text.replace("[rules]\n", &format!("[rules]\ncharge_doubles = \"{reading}\"\n"));
        let plan = plan_from(&file);
        let pmf = charge_hits_on_target(&plan).unwrap_or_else(|e| panic!("{reading}: {e}"));
        let got = mean_of(&pmf);
        let want = 0.3 * (guard_dice * guard + own_dice * own);
        assert!((got - want).abs() < 1e-9, "{reading}: {got:.6} hits through armour, by hand {want:.6}");
    }
}
