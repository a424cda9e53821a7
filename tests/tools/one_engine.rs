//! One engine, two rule systems: every tool written once against the engine's rule-system
//! trait behaves the same for MESBG and BATTLESYSTEM. For both: the thread count never
//! changes a tally, shards merge into the single run's files byte for byte, a scenario
//! compared with itself differs by exactly zero, a sweep's point at the file's own value is
//! the file's run, and `--target-ci` and per-trial rows work. For BATTLESYSTEM charges the
//! exact joint distribution is checked against the Monte Carlo, value by value, over
//! variants that reach every branch (platforms lost, crew first, per-figure platform rolls,
//! a platform target, a target destroyed by volleys).

use charioteer::battlesystem::exact::charge_joint;
use charioteer::battlesystem::resolve::{BattlesystemPlan, compile};
use charioteer::battlesystem::scenario::parse;
use charioteer::engine::{RuleSystem, Streams, TrialRange};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::AtomicBool;

const MESBG: &str = "scenarios/mesbg/khandish-vs-minas-tirith.toml";
const BATTLE_CHARGE: &str = "scenarios/battlesystem/elephant-howdah-vs-pikemen.toml";
const BATTLE_ROUT: &str = "scenarios/battlesystem/routing-elephants-in-battle-line.toml";
const ALL: [&str; 3] = [MESBG, BATTLE_CHARGE, BATTLE_ROUT];

fn example(relative: &str) -> String {
    std::fs::canonicalize(relative).unwrap().to_string_lossy().into_owned()
}

fn charioteer(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_charioteer")).args(args).current_dir(dir).output().expect("binary runs")
}

fn ok(args: &[&str], dir: &Path) -> Output {
    let out = charioteer(args, dir);
    assert!(out.status.success(), "{args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// The data files of a report folder (CSV), by name: what must not change between two
/// ways of playing the same trials (report.md and run.json also hold times and threads).
fn data_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

/// A tally of `plan` on `threads` threads.
fn tally_on<S: RuleSystem>(plan: &S, streams: Streams, trials: u64, threads: usize) -> S::Tally {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        charioteer::engine::run(plan, streams, TrialRange { first: 0, count: trials }, &|_| {}, &AtomicBool::new(false))
    })
    .unwrap()
}

#[test]
fn the_thread_count_never_changes_a_tally_of_either_system() {
    let mesbg = charioteer::mesbg::scenario::load(Path::new(MESBG)).unwrap();
    let plan = charioteer::mesbg::plan::compile(&mesbg);
    let streams = Streams::new(1, mesbg.hash());
    // More than two blocks of 32768 trials, so the split over threads matters.
    assert_eq!(tally_on(&plan, streams, 100_001, 1), tally_on(&plan, streams, 100_001, 3));
    for file in [BATTLE_CHARGE, BATTLE_ROUT] {
        let plan = compile(&parse(&std::fs::read_to_string(file).unwrap(), file).unwrap());
        let streams = Streams::new(1, plan.scenario.hash());
        assert_eq!(tally_on(&plan, streams, 100_001, 1), tally_on(&plan, streams, 100_001, 3), "{file}");
    }
}

#[test]
fn shards_merge_into_the_single_run_byte_for_byte_for_both_systems() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (i, file) in ALL.iter().enumerate() {
        let file = example(file);
        let (one, parts, merged) = (format!("one-{i}"), format!("parts-{i}"), format!("merged-{i}"));
        ok(&["run", &file, "--trials", "70001", "--seed", "4", "--threads", "2", "--out", &one, "-q"], d);
        for k in 1..=3 {
            let shard = format!("{k}/3");
            ok(&["run", &file, "--trials", "70001", "--seed", "4", "--shard", &shard, "--out", &parts, "-q"], d);
        }
        let shard: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join(&parts).join("shard-1-of-3.json")).unwrap()).unwrap();
        let system = if file.contains("battlesystem") { "battlesystem" } else { "mesbg" };
        assert_eq!(shard["system"], system);
        assert!(shard["threads"].as_u64().unwrap() >= 1, "a shard records its threads");
        let out = ok(&["merge", &parts, "--out", &merged, "--json"], d);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["trials"], 70001);
        assert!(json["threads"].as_u64().unwrap() >= 1, "a merged run records the shards' threads, not 0");
        assert!(json["command"].as_str().unwrap().contains(&file), "the reproduce command names the file");
        let (a, b) = (data_files(&d.join(&one)), data_files(&d.join(&merged)));
        assert!(a.len() >= 3, "{file}: {:?}", a.keys());
        assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>(), "{file}");
        for (name, bytes) in &a {
            assert!(bytes == &b[name], "{file}: {name} differs between one run and the merged shards");
        }
    }
}

#[test]
fn a_scenario_compared_with_itself_differs_by_exactly_zero_in_both_systems() {
    let dir = tempfile::tempdir().unwrap();
    for (i, file) in ALL.iter().enumerate() {
        let file = example(file);
        let out = ok(&["compare", &file, &file, "--trials", "40000", "--json", "--out", &format!("c{i}")], dir.path());
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(json["schema"], "charioteer.paired/2");
        let differences = json["differences"].as_object().unwrap();
        assert!(differences.len() >= 8, "{file}: {}", differences.len());
        for (name, d) in differences {
            assert_eq!(d["diff"].as_f64(), Some(0.0), "{file}: {name}");
            assert_eq!(d["se"].as_f64(), Some(0.0), "{file}: {name}");
            assert_eq!(d["p_value"].as_f64(), Some(1.0), "{file}: {name}");
        }
        assert!(!differences.contains_key("target_morale"), "a categorical metric has no difference of means");
    }
}

/// `name_mean` of every metric in a sweep's row `row`, from sweep.csv.
fn sweep_means(csv: &str, row: usize) -> BTreeMap<String, f64> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let cells: Vec<&str> = lines.nth(row).unwrap().split(',').collect();
    header
        .iter()
        .zip(cells)
        .filter_map(|(h, c)| h.strip_suffix("_mean").map(|m| (m.to_string(), c.parse::<f64>().unwrap())))
        .collect()
}

/// `mean` of every metric of a run's summary.csv.
fn run_means(csv: &str) -> BTreeMap<String, f64> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let (m, mean) =
        (header.iter().position(|h| *h == "metric").unwrap(), header.iter().position(|h| *h == "mean").unwrap());
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            (cells[m].to_string(), cells[mean].parse::<f64>().unwrap())
        })
        .collect()
}

#[test]
fn a_sweep_point_at_the_files_own_value_is_the_files_run_in_both_systems() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // (file, a field, the file's own value, another value)
    let cases = [
        (MESBG, "chariot.impact.strength", "4", "5"),
        (BATTLE_CHARGE, "units[1].stats.ml", "12", "14"),
        (BATTLE_ROUT, "units[0].stats.mv", "12", "15"),
    ];
    for (i, (file, field, own, other)) in cases.iter().enumerate() {
        let file = example(file);
        let text = std::fs::read_to_string(&file).unwrap();
        let set = format!("{field}={other},{own}");
        ok(&["sweep", &file, "--set", &set, "--trials", "30000", "--seed", "8", "--out", &format!("s{i}"), "-q"], d);
        ok(&["run", &file, "--trials", "30000", "--seed", "8", "--out", &format!("r{i}"), "-q"], d);
        let sweep = std::fs::read_to_string(d.join(format!("s{i}/sweep.csv"))).unwrap();
        let run = run_means(&std::fs::read_to_string(d.join(format!("r{i}/summary.csv"))).unwrap());
        let at_own = sweep_means(&sweep, 1);
        assert!(at_own.len() >= 3, "{file}: {sweep}");
        for (metric, mean) in &at_own {
            assert_eq!(Some(mean), run.get(metric), "{file} ({field} = {own} is the file's: {})", text.len());
        }
        // The other point differs somewhere (the field matters).
        assert_ne!(sweep_means(&sweep, 0), at_own, "{file}: {field} changed nothing");
    }
}

#[test]
fn target_ci_and_per_trial_rows_work_for_battlesystem() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(
        &[
            "run",
            &example(BATTLE_CHARGE),
            "--trials",
            "10000",
            "--target-ci",
            "0.01",
            "--json",
            "--trials-out",
            "rows.parquet",
            "--out",
            "r",
        ],
        dir.path(),
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let precision = &json["precision"];
    assert_eq!(precision["reached"], true, "{precision}");
    assert!(precision["half_width"].as_f64().unwrap() < 0.01);
    let trials = json["trials"].as_u64().unwrap();
    assert!(
        trials > 10_000 && trials.is_multiple_of(10_000) && (trials / 10_000).is_power_of_two(),
        "doublings: {trials}"
    );
    // Every reported (not categorical) metric is within the target.
    for (name, m) in json["metrics"].as_object().unwrap() {
        if name == "target_morale" {
            continue;
        }
        let half = (m["ci95_hi"].as_f64().unwrap() - m["ci95_lo"].as_f64().unwrap()) / 2.0;
        assert!(half < 0.01, "{name}: +/- {half}");
    }
    assert!(dir.path().join("rows.parquet").is_file());
    let md = std::fs::read_to_string(dir.path().join("r/report.md")).unwrap();
    assert!(md.contains("Trials were added until every metric's 95% interval was narrower than +/- 0.01"));
}

/// A charge between two platform units, with `rules` and the charger's and target's
/// statistics filled in.
fn charge(rules: &str, charger: &str, target: &str, volleys: u32) -> BattlesystemPlan {
    let text = format!(
        r#"title = "exact against Monte Carlo"
system = "battlesystem"
seed = 23
[board]
width = 48
depth = 48
[rules]
{rules}
[[units]]
name = "Chariots"
side = "a"
{charger}
at = [24.0, 14.0]
base = [2.0, 3.0]
[[units]]
name = "Target"
side = "b"
{target}
at = [24.0, 26.0]
facing = 180
[charge]
unit = "Chariots"
target = "Target"
volleys = {volleys}
"#
    );
    compile(&parse(&text, "test.toml").unwrap_or_else(|e| panic!("{e}\n{text}")))
}

/// Weak chariots (AR 2, 2 Hits each) with a driver, two fighters and an archer each.
const WEAK_CHARIOTS: &str = r#"figures = 3
frontage = 3
stats = { ad = "d6", ar = 2, hits = 2, ml = 13, mv = 12 }
crew = [
  { name = "Driver", role = "rider", ad = "d4", ar = 8 },
  { name = "Fighters", role = "fighter", count = 2, ad = "d6", ar = 7 },
  { name = "Archer", role = "archer", ad = "d8", ar = 6, range_bands = [[0, 6, 1.0], [6, 14, 0.5]] },
]"#;

/// Twelve strong foot (d10, AR 4) six wide.
const STRONG_FOOT: &str = r#"figures = 12
frontage = 6
stats = { ad = "d10", ar = 4, hits = 1, ml = 11, mv = 6 }"#;

/// Three frail foot, easily shot down before the melee.
const FRAIL_FOOT: &str = r#"figures = 3
frontage = 3
stats = { ad = "d4", ar = 10, hits = 1, ml = 9, mv = 6 }"#;

/// Two enemy chariots (platforms with crew) as the target.
const ENEMY_CHARIOTS: &str = r#"figures = 2
frontage = 2
base = [2.0, 3.0]
stats = { ad = "d8", ar = 5, hits = 3, ml = 12, mv = 12 }
crew = [
  { name = "Driver", role = "rider", ad = "d4", ar = 8 },
  { name = "Spearman", role = "fighter", ad = "d8", ar = 6, hits = 2 },
]"#;

/// Every value of every metric within 5 standard errors of its exact probability (and no
/// value outside the exact support), and every mean within 5 standard errors.
fn check_joint(name: &str, plan: &BattlesystemPlan, trials: u64) {
    let joint = charge_joint(plan).unwrap_or_else(|e| panic!("{name}: {e}"));
    let total: f64 = joint.outcomes.iter().map(|(_, p)| p).sum();
    assert!((total - 1.0).abs() < 1e-9, "{name}: probabilities sum to {total}");
    let streams = Streams::new(plan.scenario.seed, plan.scenario.hash());
    let tally = tally_on(plan, streams, trials, 2);
    let n = trials as f64;
    for (m, def) in plan.metrics.defs.iter().enumerate() {
        let pmf = joint.marginal(m);
        let hist = tally.histogram(m);
        for (v, &count) in hist.iter().enumerate() {
            let p = pmf.get(v).copied().unwrap_or(0.0).clamp(0.0, 1.0);
            let got = count as f64 / n;
            let se = (p * (1.0 - p) / n).sqrt();
            assert!(
                (got - p).abs() <= 5.0 * se + 1e-12,
                "{name}: P({} = {v}) = {got:.5} by Monte Carlo, {p:.5} exactly",
                def.name
            );
        }
        let (mean, sd) = joint.mean_sd(m);
        let got = hist.iter().enumerate().map(|(v, c)| v as f64 * *c as f64).sum::<f64>() / n;
        assert!((got - mean).abs() <= 5.0 * sd / n.sqrt() + 1e-12, "{name}: mean of {} {got} vs {mean}", def.name);
    }
}

#[test]
fn battlesystem_charges_follow_their_exact_joint_distribution() {
    let trials = 300_000;
    for file in ["elephant-howdah-vs-pikemen.toml", "dragon-with-crew.toml"] {
        let path = Path::new("scenarios/battlesystem").join(file);
        let plan = compile(&parse(&std::fs::read_to_string(&path).unwrap(), file).unwrap());
        check_joint(file, &plan, trials);
    }
    let variants = [
        ("platforms lost", charge("", WEAK_CHARIOTS, STRONG_FOOT, 2)),
        (
            "crew first, per-figure platform rolls, platforms attacking alone",
            charge(
                "platform_hits = \"crew_first\"\nplatform_roll = \"per_figure\"\nplatform_attacks_alone = true",
                WEAK_CHARIOTS,
                STRONG_FOOT,
                1,
            ),
        ),
        ("a platform target", charge("charge_doubles = \"crew\"", WEAK_CHARIOTS, ENEMY_CHARIOTS, 2)),
        ("a target shot down", charge("", WEAK_CHARIOTS, FRAIL_FOOT, 2)),
    ];
    for (name, plan) in &variants {
        check_joint(name, plan, trials);
    }
    // The variants reach the branches they are for.
    let p = |plan: &BattlesystemPlan, metric: &str, value: usize| {
        charge_joint(plan).unwrap().marginal(plan.metrics.index(metric).unwrap()).get(value).copied().unwrap_or(0.0)
    };
    assert!(p(&variants[0].1, "platform_figures_lost", 1) > 0.01);
    assert!(p(&variants[1].1, "crew_lost", 1) > 0.01);
    assert!(p(&variants[2].1, "target_figures_lost", 1) > 0.01);
    assert!(p(&variants[3].1, "target_destroyed", 1) > 0.01);
    // The joint's marginal of hits_on_target equals the closed form where that exists.
    let closed = charioteer::battlesystem::exact::charge_hits_on_target(&variants[0].1).unwrap();
    let marginal =
        charge_joint(&variants[0].1).unwrap().marginal(variants[0].1.metrics.index("hits_on_target").unwrap());
    for (v, p) in closed.iter().enumerate() {
        assert!((p - marginal.get(v).copied().unwrap_or(0.0)).abs() < 1e-12, "hits_on_target = {v}");
    }
}

#[test]
fn balance_prices_a_battlesystem_unit_by_hand_worked_value() {
    use charioteer::tools::balance::{battlesystem_pricing, fair_price_against, fair_price_for, play};
    // The Worthless and Free refusals name the field to set.
    let plan = charge("", WEAK_CHARIOTS, STRONG_FOOT, 2);
    let err = battlesystem_pricing(&plan.scenario, &plan, None, Default::default()).unwrap_err().to_string();
    assert!(err.contains("units[0].points is 0"), "{err}");
    let priced = |charger_points: u32, foot_points: u32| {
        charge(
            "",
            &format!("{WEAK_CHARIOTS}\npoints = {charger_points}"),
            &format!("{STRONG_FOOT}\npoints = {foot_points}"),
            2,
        )
    };
    let worthless = priced(50, 0);
    let err = battlesystem_pricing(&worthless.scenario, &worthless, None, Default::default()).unwrap_err().to_string();
    assert!(err.contains("worth 0 points") && err.contains("points"), "{err}");
    let a = priced(50, 6);
    let pa = battlesystem_pricing(&a.scenario, &a, None, Default::default()).unwrap();
    assert_eq!(pa.price, 150.0, "three chariots at 50 points each");
    assert_eq!(pa.worth, vec![("target_figures_lost".to_string(), 6)]);
    assert_eq!(pa.scale, 1);
    let err =
        battlesystem_pricing(&a.scenario, &a, Some("units[1].points"), Default::default()).unwrap_err().to_string();
    assert!(err.contains("only units[0].points can be priced"), "{err}");
    // Against a target efficiency, the value is 6 points per figure lost: the exact mean of
    // target_figures_lost (from the joint) times 6, within 5 standard errors.
    let streams = Streams::new(5, a.scenario.hash());
    let range = TrialRange { first: 0, count: 200_000 };
    let sums = play(&a, &pa, None, streams, range, &|_| {}, &AtomicBool::new(false)).unwrap();
    let fair = fair_price_for(&sums, &pa, 0.25);
    let (mean, sd) = charge_joint(&a).unwrap().mean_sd(a.metrics.index("target_figures_lost").unwrap());
    let exact_value = 6.0 * mean;
    assert!(
        (fair.scenario.points_destroyed - exact_value).abs() < 5.0 * 6.0 * sd / (range.count as f64).sqrt(),
        "{} vs {exact_value}",
        fair.scenario.points_destroyed
    );
    assert!((fair.fair_price - fair.scenario.points_destroyed / 0.25).abs() < 1e-9);
    // The net value model: less 50 points for each of its own platforms lost.
    let net = battlesystem_pricing(&a.scenario, &a, None, charioteer::tools::balance::ValueModel::Net).unwrap();
    assert_eq!(net.worth[1], ("platform_figures_lost".to_string(), -50));
    let sums = play(&a, &net, None, streams, range, &|_| {}, &AtomicBool::new(false)).unwrap();
    let fair_net = fair_price_for(&sums, &net, 0.25);
    let joint = charge_joint(&a).unwrap();
    let (lost, _) = joint.mean_sd(a.metrics.index("platform_figures_lost").unwrap());
    let expected = 6.0 * mean - 50.0 * lost;
    assert!(lost > 0.05, "weak chariots do lose platforms");
    assert!(
        (fair_net.scenario.points_destroyed - expected).abs() < 5.0 * fair_net.scenario.points_destroyed_se,
        "{} vs {expected}",
        fair_net.scenario.points_destroyed
    );
    // Against itself at a different price, the fair price is exactly the reference's price
    // (the same trials on both sides), with no uncertainty.
    let b = priced(80, 6);
    let pb = battlesystem_pricing(&b.scenario, &b, None, Default::default()).unwrap();
    let sums = play(&a, &pa, Some((&b, &pb)), streams, range, &|_| {}, &AtomicBool::new(false)).unwrap();
    let fair = fair_price_against(&sums, &pa, &pb).unwrap();
    assert!((fair.fair_price - 240.0).abs() < 1e-9 && fair.fair_price_se < 1e-6, "{fair:?}");
}

#[test]
fn every_command_takes_out_quiet_and_json_for_both_systems() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (mesbg, charge) = (example(MESBG), example(BATTLE_CHARGE));
    // Shards to merge, for each system.
    for (name, file) in [("m", &mesbg), ("b", &charge)] {
        ok(&["run", file, "--trials", "2000", "--shard", "1/1", "--out", &format!("shards-{name}"), "-q"], d);
    }
    for (name, file) in [("m", &mesbg), ("b", &charge)] {
        let shards = format!("shards-{name}");
        let commands: Vec<(&str, Vec<&str>)> = vec![
            ("charioteer.run/2", vec!["run", file, "--trials", "2000"]),
            ("charioteer.validate/1", vec!["validate", file]),
            ("charioteer.replay/1", vec!["replay", file, "--trial", "4"]),
            ("charioteer.exact/2", vec!["exact", file]),
            ("charioteer.paired/2", vec!["compare", file, file, "--trials", "2000"]),
            ("charioteer.sweep/1", vec!["sweep", file, "--set", "seed=1,2", "--trials", "2000"]),
            ("charioteer.balance/2", vec!["balance", file, "--target-efficiency", "0.1", "--trials", "2000"]),
            ("charioteer.run/2", vec!["merge", &shards]),
        ];
        for (i, (schema, args)) in commands.iter().enumerate() {
            let json_out = format!("{name}-json-{i}");
            let mut with_json = args.clone();
            with_json.extend(["--json", "--out", &json_out]);
            let out = ok(&with_json, d);
            let value: serde_json::Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{args:?} --json: not one JSON object ({e})"));
            assert_eq!(value["schema"], *schema, "{args:?}");
            assert!(d.join(&json_out).is_dir(), "{args:?}: --out {json_out} was not written");
            let quiet_out = format!("{name}-quiet-{i}");
            let mut quiet = args.clone();
            quiet.extend(["--quiet", "--out", &quiet_out]);
            let out = ok(&quiet, d);
            assert!(out.stdout.is_empty(), "{args:?} --quiet printed {}", String::from_utf8_lossy(&out.stdout));
        }
    }
}

#[test]
fn runs_of_several_battlesystem_files_get_a_side_by_side_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let dragon = example("scenarios/battlesystem/dragon-with-crew.toml");
    ok(&["run", &example(BATTLE_CHARGE), &dragon, "--trials", "20000", "--out", "two", "-q"], dir.path());
    let cmp = dir.path().join("two/comparison");
    let csv = std::fs::read_to_string(cmp.join("comparison.csv")).unwrap();
    // Both runs, every shared headline metric; the categorical morale is not a mean.
    assert!(csv.lines().filter(|l| l.contains(",target_routed,")).count() == 2, "{csv}");
    assert!(!csv.contains("target_morale"), "{csv}");
    let md = std::fs::read_to_string(cmp.join("report.md")).unwrap();
    // Units differ between the scenarios, so headings use the metric's own words.
    assert!(md.contains("## Target routed") && !md.contains("## Pikemen routed"), "{md}");
    assert!(cmp.join("comparison-target_routed.png").is_file());
}
