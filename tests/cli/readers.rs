//! What a reader is told (#18): the four ways a charge ends split every trial, and the
//! rates given a fight match their exact values.

use charioteer::engine::{RuleSystem, Streams};
use charioteer::mesbg::scenario::{DEFAULT_SCENARIO, parse};
use charioteer::mesbg::tally::Metric;
use std::path::Path;
use std::process::Command;

#[test]
fn the_ways_a_charge_ends_split_every_trial() {
    for move_inches in [3, 5, 10] {
        // Shieldwall off: a 5" Move then slays what it touches often enough to show it.
        let text = DEFAULT_SCENARIO.replacen("move = 10 ", &format!("move = {move_inches} "), 1)
            + "\n[rules]\nshieldwall = false\n";
        let s = parse(&text, "default").unwrap();
        let plan = charioteer::mesbg::plan::compile(&s);
        let metrics = plan.metrics();
        let at = |m: Metric| metrics.iter().position(|x| *x == m).unwrap();
        let (bt, fought, contacts) = (at(Metric::Breakthrough), at(Metric::FightFought), at(Metric::Contacts));
        let mut scratch = Default::default();
        let mut values = Vec::new();
        let mut counts = [0u64; 4];
        for t in 0..20_000 {
            plan.play_values(Streams::new(3, s.hash()), t, &mut scratch, &mut values);
            let classes = [values[bt] == 1, values[fought] == 1, values[contacts] == 0];
            assert!(classes.iter().filter(|c| **c).count() <= 1, "move {move_inches}, trial {t}: {classes:?}");
            let class = classes.iter().position(|c| *c).map_or(2, |i| if i == 2 { 3 } else { i });
            counts[class] += 1;
        }
        match move_inches {
            3 => assert_eq!(counts[3], 20_000, "a 3\" Move touches nothing"),
            5 => assert!(counts[2] > 3_000, "a 5\" Move often slays all it touches and stops: {counts:?}"),
            _ => assert!(counts[0] > 0 && counts[1] > 15_000, "{counts:?}"),
        }
    }
}

#[test]
fn rates_given_a_fight_agree_with_their_exact_values_and_the_report_names_the_denominator() {
    let dir = tempfile::tempdir().unwrap();
    let text = DEFAULT_SCENARIO.replacen("move = 10 ", "move = 5 ", 1);
    std::fs::write(dir.path().join("m5.toml"), &text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(["run", "m5.toml", "--trials", "400000", "--json", "--out", "r"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fought = json["metrics"]["fight_fought"]["mean"].as_f64().unwrap();
    for c in json["conditional"].as_array().unwrap() {
        let (mean, lo, hi) =
            (c["mean"].as_f64().unwrap(), c["ci95_lo"].as_f64().unwrap(), c["ci95_hi"].as_f64().unwrap());
        let exact = c["exact"].as_f64().unwrap();
        // 5 standard errors: the 95% half-width is 1.96 of them.
        assert!((mean - exact).abs() < 5.0 * (hi - lo) / 2.0 / 1.96 + 1e-9, "{c}");
        assert_eq!(c["given"], "fight_fought");
        assert_eq!(c["trials"].as_u64().unwrap(), (fought * 400_000.0).round() as u64, "{c}");
    }
    let ends = json["charge_ends"].as_array().unwrap();
    let total: u64 = ends.iter().map(|e| e["count"].as_u64().unwrap()).sum();
    assert_eq!(total, 400_000);
    for e in ends {
        let (p, exact) = (e["p"].as_f64().unwrap(), e["exact"].as_f64().unwrap());
        let se = (exact * (1.0 - exact) / 400_000.0).sqrt();
        assert!((p - exact).abs() <= 5.0 * se + 1e-9, "{e}");
    }
    let md = std::fs::read_to_string(dir.path().join("r/report.md")).unwrap();
    assert!(md.contains("## How the charges ended") && md.contains("that ended in a fight (`fight_fought`):"), "{md}");
    assert!(Path::new(&dir.path().join("r/run.json")).is_file());
}

#[test]
fn balance_against_a_matchup_set_gives_each_price_and_an_overall_with_the_spread() {
    let dir = tempfile::tempdir().unwrap();
    let a = std::fs::canonicalize("scenarios/mesbg/khandish-vs-minas-tirith.toml").unwrap();
    // A like-for-like reference: the same line, charged by a chariot with D3 Impact Hits.
    let b = dir.path().join("d3.toml");
    let text = std::fs::read_to_string(&a).unwrap().replace("hits = \"2\"", "hits = \"D3\"");
    std::fs::write(&b, text.replace("title = \"", "title = \"D3: ")).unwrap();
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let run = |extra: &[&str]| {
        let mut args = vec!["balance", a, "--against", a, b, "--trials", "40000", "--json", "--out", "bal"];
        args.extend(extra);
        Command::new(env!("CARGO_BIN_EXE_charioteer")).args(&args).current_dir(dir.path()).output().unwrap()
    };
    let out = run(&["--weights", "3,1"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = json["matchups"].as_array().unwrap();
    assert_eq!(m.len(), 2);
    let price = |i: usize| m[i]["fair"]["fair_price"].as_f64().unwrap();
    let se = |i: usize| m[i]["fair"]["fair_price_se"].as_f64().unwrap();
    // Against itself the fair price is its own 40 points, exactly.
    assert!((price(0) - 40.0).abs() < 1e-9 && se(0) < 1e-6, "{}", m[0]);
    // Worked by hand from the matchups, weights 3/4 and 1/4: the field priced as one, both
    // references at 40 points, is 40 x the piece's weighted worth over theirs.
    let worth = |i: usize, side: &str| m[i]["fair"][side]["points_destroyed"].as_f64().unwrap();
    let mean = 40.0 * (0.75 * worth(0, "scenario") + 0.25 * worth(1, "scenario"))
        / (0.75 * worth(0, "reference") + 0.25 * worth(1, "reference"));
    let between = (0.75 * (price(0) - mean).powi(2) + 0.25 * (price(1) - mean).powi(2)).sqrt();
    let sampling = json["spread"]["sampling_se"].as_f64().unwrap();
    // Only the D3 reference's dice differ from the piece's, weighed a quarter: about a quarter of its se.
    assert!(sampling > 0.0 && sampling < 0.5 * se(1), "{sampling} against {}", se(1));
    let half = 1.959_963_984_540_054 * (between.powi(2) + sampling.powi(2)).sqrt();
    let fair = &json["fair"];
    assert!((fair["fair_price"].as_f64().unwrap() - mean).abs() < 1e-9, "{fair}");
    assert!((fair["ci95_hi"].as_f64().unwrap() - (mean + half)).abs() < 1e-9, "{fair}");
    let spread = &json["spread"];
    assert!((spread["between_sd"].as_f64().unwrap() - between).abs() < 1e-9, "{spread}");
    assert_eq!(spread["lowest"].as_f64().unwrap(), price(0).min(price(1)));
    let md = std::fs::read_to_string(dir.path().join("bal/report.md")).unwrap();
    assert!(md.contains("Overall fair price") && md.contains("**Across matchups**"), "{md}");
    // Weights must be one per reference.
    let out = run(&["--weights", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("one per --against file"));
}

#[test]
fn a_chart_of_nothing_but_zeros_is_left_out_with_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::canonicalize("scenarios/battlesystem/elephant-howdah-vs-pikemen.toml").unwrap();
    let file = file.to_str().unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_charioteer")).args(args).current_dir(dir.path()).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    // The elephant never loses a platform: that sweep chart would be a flat zero.
    run(&["sweep", file, "--set", "units[1].stats.ml=10,14", "--trials", "20000", "--out", "sw", "-q"]);
    let md = std::fs::read_to_string(dir.path().join("sw/report.md")).unwrap();
    assert!(md.contains("(`platform_figures_lost`) is 0 at every point of the sweep, so it has no chart."), "{md}");
    assert!(!dir.path().join("sw/sweep-platform_figures_lost.png").exists());
    assert!(dir.path().join("sw/sweep-target_routed.png").is_file(), "a chart with something in it stays");
    // A scenario compared with itself: every difference is 0, so no difference chart.
    run(&["compare", file, file, "--trials", "5000", "--out", "self", "-q"]);
    let md = std::fs::read_to_string(dir.path().join("self/report.md")).unwrap();
    assert!(md.contains("every difference is exactly 0") && !md.contains("difference-chances.png"), "{md}");
    assert!(!dir.path().join("self/difference-chances.png").exists());
}

#[test]
fn every_chart_names_the_scenario_it_shows() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(["run", "--trials", "20000", "--out", "r", "-q"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut charts = 0;
    for entry in std::fs::read_dir(dir.path().join("r")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "svg") {
            let svg = std::fs::read_to_string(&path).unwrap();
            assert!(svg.contains("Khandish charioteer charges a Minas Tirith shield wall"), "{}", path.display());
            charts += 1;
        }
    }
    assert!(charts >= 5, "{charts} charts");
}

#[test]
fn heatmaps_carry_a_colour_scale() {
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::canonicalize("scenarios/mesbg/king-on-chariot-vs-cave-trolls.toml").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(["run", file.to_str().unwrap(), "--trials", "20000", "--out", "r", "-q"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let svg = std::fs::read_to_string(dir.path().join("r/wound-split.svg")).unwrap();
    assert!(svg.contains("share of charges") && svg.contains("0.00%"), "the wound split has its scale");
    let png = image::open(dir.path().join("r/wound-split.png")).unwrap().to_rgb8();
    assert_eq!(png.dimensions(), (960, 560));
}

#[test]
fn the_net_value_model_counts_the_pieces_own_losses() {
    use charioteer::tools::balance::{ValueModel, fair_price_for, play, pricing};
    use std::sync::atomic::AtomicBool;
    // MESBG: 9 points per warrior slain, less the chariot's 40 points in thirds as it loses
    // its 3 Wounds. The value's exact mean comes from the exact engine's distribution.
    let text = DEFAULT_SCENARIO.replacen("move = 10 ", "move = 5 ", 1);
    let s = parse(&text, "default").unwrap();
    let plan = charioteer::mesbg::plan::compile(&s);
    assert_eq!((s.chariot.points, s.chariot.wounds), (40, 3));
    let net = pricing(&s, &plan, "chariot.points", ValueModel::Net).unwrap();
    assert_eq!(net.words(), "`kills` x 9 - `chariot_wounds_lost` x 13.33");
    let exact = charioteer::mesbg::exact::exact(&plan).unwrap();
    let (kills, wounds) = (exact.summary(Metric::Kills), exact.summary(Metric::ChariotWoundsLost));
    assert!(wounds.mean > 0.0, "the chariot does lose Wounds in this charge");
    let expected = 9.0 * kills.mean - 40.0 / 3.0 * wounds.mean;
    let range = charioteer::engine::TrialRange { first: 0, count: 200_000 };
    let sums = play(&plan, &net, None, Streams::new(1, s.hash()), range, &|_| {}, &AtomicBool::new(false)).unwrap();
    let fair = fair_price_for(&sums, &net, 0.5);
    let got = fair.scenario.points_destroyed;
    assert!((got - expected).abs() < 5.0 * fair.scenario.points_destroyed_se, "{got} vs {expected}");
    // The kills model of the same trials is worth more by exactly the losses' mean.
    let kills_only = pricing(&s, &plan, "chariot.points", ValueModel::Kills).unwrap();
    let sums =
        play(&plan, &kills_only, None, Streams::new(1, s.hash()), range, &|_| {}, &AtomicBool::new(false)).unwrap();
    let gross = fair_price_for(&sums, &kills_only, 0.5).scenario.points_destroyed;
    assert!(gross > got, "{gross} vs {got}");
}

/// Two warriors one behind the other, one Impact Hit each wounding on a 5+: by hand a
/// third of the charges slay the first and drive on, and a third of those slay the
/// second too and break through; so breakthrough given the first broken is 1/3.
#[test]
fn breakthrough_given_the_first_rank_broken_matches_a_charge_worked_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let text = DEFAULT_SCENARIO.replacen("count = 12", "count = 2", 1).replacen("hits = \"2\"", "hits = \"1\"", 1);
    std::fs::write(dir.path().join("file.toml"), &text).unwrap();
    let n = 300_000u64;
    let out = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(["run", "file.toml", "--trials", &n.to_string(), "--json", "--out", "r"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rates = json["conditional"].as_array().unwrap();
    let rate = rates.iter().find(|c| c["name"] == "breakthrough_given_first_broken").expect("the rate is reported");
    assert_eq!(rate["given"], "first_group_broken");
    let broken = rate["trials"].as_u64().unwrap() as f64;
    let third = 1.0 / 3.0;
    let five_se = |q: f64, m: f64| 5.0 * (q * (1.0 - q) / m).sqrt();
    assert!((broken / n as f64 - third).abs() < five_se(third, n as f64), "{rate}");
    let mean = rate["mean"].as_f64().unwrap();
    assert!((mean - third).abs() < five_se(third, broken), "{rate}");
    assert!((rate["exact"].as_f64().unwrap() - third).abs() < 1e-9, "{rate}");
    let md = std::fs::read_to_string(dir.path().join("r/report.md")).unwrap();
    assert!(md.contains("breakthrough_given_first_broken"), "report.md shows the rate with its denominator");
}

/// With a Hero riding, the fair price splits by the share of the work the chariot does
/// without him: with one points value per model that share is E[kills without him] /
/// E[kills with him], which the exact engine gives without sampling.
#[test]
fn a_heros_price_and_his_chariots_are_given_apart() {
    let dir = tempfile::tempdir().unwrap();
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml");
    let out = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(["balance", file, "--target-efficiency", "0.5", "--trials", "200000", "--json", "--out", "b"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let split = &json["split"];
    let fair = json["fair"]["fair_price"].as_f64().unwrap();
    let (chariot, hero) = (split["chariot"][0].as_f64().unwrap(), split["hero_part"][0].as_f64().unwrap());
    assert!((chariot + hero - fair).abs() < 1e-9, "the parts add up to the fair price: {split}");

    let s = parse(&std::fs::read_to_string(file).unwrap(), file).unwrap();
    let with = charioteer::mesbg::exact::exact(&charioteer::mesbg::plan::compile(&s)).unwrap();
    let mut alone = s.clone();
    alone.chariot.hero = None;
    let without = charioteer::mesbg::exact::exact(&charioteer::mesbg::plan::compile(&alone)).unwrap();
    let share = without.summary(Metric::Kills).mean / with.summary(Metric::Kills).mean;
    assert!(share > 0.2 && share < 0.95, "the Hero adds some of the work but not all: {share}");
    let (got, se) = (split["chariot_share"].as_f64().unwrap(), split["chariot_share_se"].as_f64().unwrap());
    assert!((got - share).abs() < 5.0 * se, "share {got} (se {se}) against the exact {share}");
    let md = std::fs::read_to_string(dir.path().join("b/report.md")).unwrap();
    assert!(md.contains("Chariot and Hero apart"), "report.md explains the split");

    // Without a Hero there is nothing to split.
    let plain = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/mesbg/khandish-vs-minas-tirith.toml");
    let out = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(["balance", plain, "--target-efficiency", "0.5", "--trials", "20000", "--json", "--out", "p"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(json["split"].is_null());
}
