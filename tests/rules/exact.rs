//! The exact engine against hand-derived values, and every example scenario's Monte Carlo
//! run against the exact engine (within 5 standard errors, fixed seeds).
//!
//! The Monte Carlo-vs-exact checks here prove the *sampling*: the sampler and the exact
//! engine read the same compiled tables and rule functions, so a misread rule would agree
//! with itself. The *rules* are checked by the hand-derived values here and in
//! `tests/rules/readings.rs`, and by the independent oracle (`tests/oracle/`, `tests/rules/rules_oracle.rs`).

use charioteer::mesbg::exact;
use charioteer::mesbg::plan::compile;
use charioteer::mesbg::resolve::{self, Streams, TrialRange};
use charioteer::mesbg::scenario::{load, parse};
use charioteer::mesbg::tally::Metric;
use std::path::Path;
use std::sync::atomic::AtomicBool;

fn plan_of(file: &str) -> charioteer::mesbg::plan::Plan {
    compile(&load(Path::new(file)).expect("scenario"))
}

#[test]
fn the_column_of_six_by_hand() {
    let plan = plan_of("tests/scenarios/column-of-six.toml");
    let d = exact::exact(&plan).expect("exact");
    let total: f64 = d.outcomes.iter().map(|(_, p)| p).sum();
    assert!((total - 1.0).abs() < 1e-12);
    // E[impact kills] = sum over k of P(at least k) = sum of (5/9)^k.
    let expected: f64 = (1..=6).map(|k| (5.0f64 / 9.0).powi(k)).sum();
    assert!((d.summary(Metric::ImpactKills).mean - expected).abs() < 1e-12);
    let at_least = d.distribution(Metric::ImpactKills);
    for (k, row) in at_least.iter().enumerate().skip(1) {
        assert!((row.p_at_least - (5.0f64 / 9.0).powi(k as i32)).abs() < 1e-12, "k = {k}");
    }
    assert_eq!(at_least.len(), 7);
    assert!((d.summary(Metric::Breakthrough).mean - (5.0f64 / 9.0).powi(6)).abs() < 1e-12);
}

#[test]
fn fate_and_a_known_duel_by_hand() {
    // A single warrior that the Impact Hits cannot wound (S1 against Defence 10) fights the
    // chariot with its n dice; the warrior has Fight 10, so it wins every tie:
    // P(chariot wins) = 1 - sum over w of (1/6)(w/6)^n. Losing, the warrior's single
    // Strike (S3 against the chariot's Defence 7: a 6) wounds with 1/6; a Hero's Fate 1
    // then saves half of those.
    let text = |fate: u8| {
        format!(
            r#"title = "t"
system = "mesbg"
[chariot]
name = "c"
side = "evil"
move = 10
fight = 4
strength = 3
defence = 7
attacks = 1
wounds = 3
courage = "7+"
impact = {{ hits = "1", strength = 1 }}
base = {{ round_mm = 60 }}
at = [0.0, 0.0]
facing = 0
[chariot.hero]
name = "h"
fight = 1
strength = 1
attacks = 1
wounds = 2
courage = "7+"
might = 0
will = 0
fate = {fate}
defence = 6
[charge]
pivots = []
[[formations]]
name = "w"
count = 1
profile = {{ fight = 10, strength = 3, defence = 10, attacks = 1, wounds = 1, courage = "7+", base_mm = 25.0 }}
front_centre = [0.0, 4.0]
facing = 180
"#
        )
    };
    for fate in [0u8, 1] {
        let plan = compile(&parse(&text(fate), "t").expect("valid"));
        let d = exact::exact(&plan).expect("exact");
        let n = i32::from(plan.chariot.attacks);
        assert!(n >= 2, "the chariot's Attacks, the Hero's and the charge bonus: {n}");
        let lose: f64 = (1..=6).map(|w| (f64::from(w) / 6.0).powi(n) / 6.0).sum();
        let won = d.summary(Metric::FightWon).mean;
        assert!((won - (1.0 - lose)).abs() < 1e-12, "won {won}");
        let wounded = d.summary(Metric::ChariotWoundsLost).mean;
        let expected = lose / 6.0 * if fate == 1 { 0.5 } else { 1.0 };
        assert!((wounded - expected).abs() < 1e-12, "fate {fate}: {wounded} vs {expected}");
        let fate_spent = d.summary(Metric::FateSpent).mean;
        assert!((fate_spent - if fate == 1 { lose / 6.0 } else { 0.0 }).abs() < 1e-12);
    }
}

#[test]
fn cavalry_charges_are_exact() {
    // One Rider of Rohan (rider D5 1 Wound, horse D4 1 Wound, 1 Attack) before the default
    // chariot (2 hits at S4). The chariot drives on when the rider is slain: 5/9 by the
    // hits, or thrown (rider lives 4/9, horse slain 3/4), Knocked Flying (1/6) and slain by
    // the S3 hit (1/3): 5/9 + 1/54 = 31/54. A fight follows otherwise: 23/54.
    let text = std::fs::read_to_string("scenarios/mesbg/khandish-vs-minas-tirith.toml")
        .unwrap()
        .replace("count = 12", "count = 1")
        .replace("ranks = 2", "ranks = 1")
        .replace("base = { round_mm = 25 }", "base = { round_mm = 40 }")
        .replace(
            "profile = { fight = 4, strength = 3, defence = 6, attacks = 1, wounds = 1, courage = \"7+\", points = 9, shield = true, shieldwall = true }",
            "profile = { fight = 3, strength = 3, defence = 5, attacks = 1, wounds = 1, courage = \"7+\", mount = { defence = 4, wounds = 1, attacks = 1 } }",
        );
    let plan = compile(&parse(&text, "rider").unwrap());
    let d = exact::exact(&plan).expect("cavalry are exact");
    assert!((d.summary(Metric::FightFought).mean - 23.0 / 54.0).abs() < 1e-12);
    // The example screen is exact too (its Monte Carlo agreement is checked below).
    assert!(exact::exact(&plan_of("scenarios/mesbg/chariot-into-cavalry-screen.toml")).is_ok());
}

/// Every example scenario with exact values: every reported metric's Monte Carlo mean
/// within 5 standard errors of its exact mean, at a fixed seed.
#[test]
fn every_example_agrees_with_the_exact_engine() {
    let mut checked = 0;
    let mut files: Vec<_> = std::fs::read_dir("scenarios/mesbg").unwrap().map(|e| e.unwrap().path()).collect();
    files.push("tests/scenarios/column-of-six.toml".into());
    files.sort();
    for file in files {
        let scenario = load(&file).expect("example loads");
        if scenario.is_turn() {
            continue; // a turn has no exact engine yet (refused by name: tests/rules/turn.rs)
        }
        let plan = compile(&scenario);
        let Ok(exact) = exact::exact(&plan) else { continue };
        let trials = 400_000;
        let range = TrialRange { first: 0, count: trials };
        let tally = resolve::run(&plan, Streams::new(2024, scenario.hash()), range, &|_| {}, &AtomicBool::new(false))
            .expect("run");
        let summary = charioteer::mesbg::analysis::summarize(&tally, &plan.metrics);
        for a in exact::agreement(&summary, &exact, trials) {
            assert!(
                a.z.abs() < 5.0,
                "{}: {} estimate {} vs exact {} (z = {:.2})",
                file.display(),
                a.metric.name(),
                a.estimate,
                a.exact,
                a.z
            );
        }
        // And the whole distribution of kills, value by value.
        let pmf = exact.marginal(Metric::Kills);
        let hist = tally.histogram(Metric::Kills);
        for (v, p) in pmf.iter().enumerate() {
            let c = hist.get(v).copied().unwrap_or(0) as f64 / trials as f64;
            let se = (p * (1.0 - p) / trials as f64).sqrt();
            assert!((c - p).abs() <= 5.0 * se + 1e-12, "{}: P(kills = {v}) {c} vs {p}", file.display());
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} scenarios had exact values");
}

#[test]
fn the_exact_wound_split_matches_the_simulated_one() {
    // Every cell of the joint distribution of chariot and Hero Wounds lost, against a run.
    // The King's chariot made fragile (1 Wound, Defence 3) so that it is sometimes slain
    // and throws him: every kind of cell then has some weight.
    let text = std::fs::read_to_string("scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml").unwrap().replacen(
        "[chariot.hero]",
        "wounds = 1\ndefence = 3\n\n[chariot.hero]",
        1,
    );
    let scenario = parse(&text, "king").unwrap();
    let plan = compile(&scenario);
    let exact = exact::exact(&plan).expect("exact");
    let trials = 400_000u64;
    let range = TrialRange { first: 0, count: trials };
    let tally = resolve::run(&plan, Streams::new(3, scenario.hash()), range, &|_| {}, &AtomicBool::new(false)).unwrap();
    let simulated = tally.wound_split();
    let cells = exact.wound_split();
    assert!((cells.iter().map(|c| c.2).sum::<f64>() - 1.0).abs() < 1e-12);
    let slain: f64 = cells.iter().filter(|c| c.0 == 1).map(|c| c.2).sum();
    let thrown_and_hurt: f64 = cells.iter().filter(|c| c.0 == 1 && c.1 == 1).map(|c| c.2).sum();
    assert!(slain > 0.001 && thrown_and_hurt > 1e-4, "slain {slain}, thrown and hurt {thrown_and_hurt}");
    for (c, h, p) in cells {
        let count = simulated.iter().find(|x| x.0 == usize::from(c) && x.1 == usize::from(h)).map_or(0, |x| x.2);
        let estimate = count as f64 / trials as f64;
        let se = (p * (1.0 - p) / trials as f64).sqrt();
        assert!((estimate - p).abs() <= 5.0 * se + 1e-12, "cell ({c}, {h}): {estimate} vs {p}");
    }
}
