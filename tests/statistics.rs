//! Monte Carlo against exact values, with fixed seeds and bounds of five standard errors:
//! wide enough never to flake, narrow enough to catch a wrong rule.

use charioteer::analysis::{distribution_of, summarize_metric};
use charioteer::plan::compile;
use charioteer::resolve::{Streams, TrialRange, run};
use charioteer::scenario::{Scenario, load, parse};
use charioteer::tally::{Metric, Tally};
use std::path::Path;
use std::sync::atomic::AtomicBool;

fn run_scenario(scenario: &Scenario, trials: u64) -> Tally {
    let plan = compile(scenario);
    let streams = Streams::new(scenario.seed, scenario.hash());
    run(&plan, streams, TrialRange { first: 0, count: trials }, &|_| {}, &AtomicBool::new(false)).unwrap()
}

/// Asserts a probability estimate from `n` trials is within 5 standard errors of `exact`.
fn assert_probability(name: &str, estimate: f64, exact: f64, n: u64) {
    let se = (exact * (1.0 - exact) / n as f64).sqrt().max(1e-12);
    let z = (estimate - exact) / se;
    assert!(z.abs() < 5.0, "{name}: estimate {estimate:.6}, exact {exact:.6}, z = {z:.2}");
}

fn column() -> Scenario {
    load(Path::new("tests/scenarios/column-of-six.toml")).unwrap()
}

const N: u64 = 2_000_000;

#[test]
fn impact_chain_through_a_column_is_geometric() {
    let scenario = column();
    let tally = run_scenario(&scenario, N);
    let dist = distribution_of(&tally, Metric::ImpactKills);
    assert_eq!(dist.len(), 7, "values 0..=6 seen");
    for k in 1..=6 {
        let exact = (5.0f64 / 9.0).powi(k);
        assert_probability(&format!("P(impact_kills >= {k})"), dist[k as usize].p_at_least, exact, N);
    }
    // E[impact kills] = sum over k of (5/9)^k.
    let mean: f64 = (1..=6).map(|k| (5.0f64 / 9.0).powi(k)).sum();
    let s = summarize_metric(&tally, Metric::ImpactKills);
    assert!((s.mean - mean).abs() < 5.0 * s.se, "mean {} vs {mean}", s.mean);
    // Breakthrough needs all six slain, and the full Move ends past the column.
    let b = summarize_metric(&tally, Metric::Breakthrough);
    assert_probability("breakthrough", b.mean, (5.0f64 / 9.0).powi(6), N);
}

#[test]
fn the_fight_after_the_charge_matches_exact_values() {
    let scenario = column();
    let tally = run_scenario(&scenario, N);
    let fought = 1.0 - (5.0f64 / 9.0).powi(6);
    // 2 dice (1 Attack + 1 for charging) against 1 at equal Fight, Evil chariot: 143/216.
    let won = fought * 143.0 / 216.0;
    // Two Strikes on a Prone (so Trapped) model: 4 rolls of 5+ (S3 vs D5), one Wound kills.
    let fight_kills = won * (1.0 - (2.0f64 / 3.0).powi(4));
    // Lost: one Strike of S3 against D7 needs a 6.
    let wounds_lost = fought * (73.0 / 216.0) / 6.0;
    let p = |m| summarize_metric(&tally, m).mean;
    assert_probability("fight_fought", p(Metric::FightFought), fought, N);
    assert_probability("fight_won", p(Metric::FightWon), won, N);
    assert_probability("fight_kills", p(Metric::FightKills), fight_kills, N);
    assert_probability("chariot_wounds_lost", p(Metric::ChariotWoundsLost), wounds_lost, N);
    assert_eq!(p(Metric::ChariotSlain), 0.0, "one S3 Strike cannot take 3 Wounds");
}

#[test]
fn without_trapped_the_chariot_strikes_once_per_attack() {
    let text = std::fs::read_to_string("tests/scenarios/column-of-six.toml").unwrap()
        + "\n[rules]\nprone_counts_as_trapped = false\n";
    let scenario = parse(&text, "column-untrapped").unwrap();
    let tally = run_scenario(&scenario, N);
    let fought = 1.0 - (5.0f64 / 9.0).powi(6);
    let fight_kills = fought * 143.0 / 216.0 * (1.0 - (2.0f64 / 3.0).powi(2));
    assert_probability("fight_kills", summarize_metric(&tally, Metric::FightKills).mean, fight_kills, N);
}

#[test]
fn duel_of_two_dice_against_one_wins_143_of_216() {
    // An unwoundable target (S1 against D10) always stops the chariot at once.
    let text = std::fs::read_to_string("tests/scenarios/column-of-six.toml")
        .unwrap()
        .replace("impact = { hits = \"2\", strength = 4 }", "impact = { hits = \"2\", strength = 1 }")
        .replace("defence = 5", "defence = 10");
    let scenario = parse(&text, "duel").unwrap();
    let tally = run_scenario(&scenario, N);
    assert_eq!(summarize_metric(&tally, Metric::FightFought).mean, 1.0);
    assert_eq!(summarize_metric(&tally, Metric::ImpactKills).mean, 0.0);
    assert_probability("duel", summarize_metric(&tally, Metric::FightWon).mean, 143.0 / 216.0, N);
}

#[test]
fn a_good_chariot_wins_the_roll_off_on_four_plus() {
    // Same duel, but with a Good chariot: the roll-off still splits 50/50, so the win rate
    // is unchanged; with higher Fight, ties all go to the chariot: 161/216.
    let text = std::fs::read_to_string("tests/scenarios/column-of-six.toml")
        .unwrap()
        .replace("side = \"evil\"", "side = \"good\"")
        .replace("impact = { hits = \"2\", strength = 4 }", "impact = { hits = \"2\", strength = 1 }")
        .replace("defence = 5", "defence = 10")
        .replace("fight = 4\nstrength = 3", "fight = 5\nstrength = 3");
    let scenario = parse(&text, "duel-good").unwrap();
    let tally = run_scenario(&scenario, N);
    assert_probability("duel", summarize_metric(&tally, Metric::FightWon).mean, 161.0 / 216.0, N);
}

#[test]
fn thread_count_does_not_change_the_tally() {
    let scenario = column();
    let plan = compile(&scenario);
    let streams = Streams::new(5, scenario.hash());
    let tally_with = |threads| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            run(&plan, streams, TrialRange { first: 0, count: 300_001 }, &|_| {}, &AtomicBool::new(false)).unwrap()
        })
    };
    let one = tally_with(1);
    assert_eq!(one, tally_with(2));
    assert_eq!(one, tally_with(7));
}
