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
        let text = DEFAULT_SCENARIO.replacen("move = 10 ", &format!("move = {move_inches} "), 1);
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
    assert!(md.contains("## How the charges ended") && md.contains("that ended in a fight:"), "{md}");
    assert!(Path::new(&dir.path().join("r/run.json")).is_file());
}
