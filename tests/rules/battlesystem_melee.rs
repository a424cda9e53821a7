//! Who fights in a BATTLESYSTEM melee (#31): only the figures in contact, beasts with only a
//! driver aboard, several units struck at the same instant, veers measured from the rolled
//! line, beast units refused as struck units, platforms left without a driver, and a charge
//! too large to enumerate. Every expected value is worked by hand in the comment beside it
//! (or enumerated in the test), never read back from the engine.

use charioteer::battlesystem::exact::charge_joint;
use charioteer::battlesystem::resolve::{BattlesystemEvent, BattlesystemPlan, compile, replay, run};
use charioteer::battlesystem::scenario::parse;
use charioteer::battlesystem::tally::BattlesystemTally;
use charioteer::mesbg::resolve::{Streams, TrialRange};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::AtomicBool;

fn plan_from(text: &str) -> BattlesystemPlan {
    compile(&parse(text, "test.toml").unwrap_or_else(|e| panic!("{e}")))
}

fn play(plan: &BattlesystemPlan, trials: u64) -> BattlesystemTally {
    let streams = Streams::new(plan.scenario.seed, plan.scenario.hash());
    run(plan, streams, TrialRange { first: 0, count: trials }, &|_| {}, &AtomicBool::new(false)).unwrap()
}

/// The mean of metric `name` and its standard error.
fn mean_se(plan: &BattlesystemPlan, tally: &BattlesystemTally, name: &str) -> (f64, f64) {
    let hist = tally.histogram(plan.metrics.index(name).unwrap_or_else(|| panic!("no metric {name}")));
    let n = tally.trials as f64;
    let mean = hist.iter().enumerate().map(|(v, c)| v as f64 * *c as f64).sum::<f64>() / n;
    let sq = hist.iter().enumerate().map(|(v, c)| (v as f64).powi(2) * *c as f64).sum::<f64>() / n;
    (mean, ((sq - mean * mean).max(0.0) / n).sqrt())
}

/// Asserts the mean of `name` within 5 standard errors (and a hair) of `expected`.
fn assert_mean(plan: &BattlesystemPlan, tally: &BattlesystemTally, name: &str, expected: f64) {
    let (mean, se) = mean_se(plan, tally, name);
    assert!((mean - expected).abs() <= 5.0 * se + 1e-9, "{name}: mean {mean} (se {se}), expected {expected}");
}

fn exact_mean(plan: &BattlesystemPlan, name: &str) -> f64 {
    let joint = charge_joint(plan).unwrap_or_else(|e| panic!("exact: {e}"));
    joint.mean_sd(plan.metrics.index(name).unwrap()).0
}

fn melees(plan: &BattlesystemPlan, trials: u64) -> Vec<(usize, usize, u32, u32)> {
    let streams = Streams::new(plan.scenario.seed, plan.scenario.hash());
    let mut out = Vec::new();
    for t in 0..trials {
        for e in replay(plan, streams, t).1 {
            if let BattlesystemEvent::Melee { attacker, defender, attacker_figures, defender_figures, .. } = e {
                out.push((attacker, defender, attacker_figures, defender_figures));
            }
        }
    }
    out
}

const HEADER: &str =
    "title = \"melee\"\nsystem = \"battlesystem\"\ntrials = 1000\nseed = 5\n[board]\nwidth = 48\ndepth = 48\n";

/// Four chariots abreast (1" bases, x 22 to 26) charging north into a one-figure column
/// standing in front of the leftmost only (x 22 to 23). `extra` goes into `[rules]`.
fn chariots_into_a_column(extra: &str, crew: &str) -> String {
    format!(
        "{HEADER}[rules]\n{extra}\n\
         [[units]]\nname = \"Chariots\"\nside = \"a\"\nfigures = 4\nfrontage = 4\nat = [24.0, 10.0]\n\
         stats = {{ ad = \"d4\", ar = 5, hits = 3, ml = 14, mv = 12 }}\ncrew = [{crew}]\n\
         [[units]]\nname = \"Column\"\nside = \"b\"\nfigures = 1\nfrontage = 1\nat = [22.5, 14.0]\nfacing = 180\n\
         stats = {{ ad = \"d4\", ar = 10, hits = 50, ml = 20, mv = 6 }}\n\
         [charge]\nunit = \"Chariots\"\ntarget = \"Column\"\n"
    )
}

const RIDER_AND_FIGHTER: &str = "{ name = \"Driver\", role = \"rider\", ad = \"d4\" }, \
                                 { name = \"Warrior\", role = \"fighter\", ad = \"d6\" }";

/// One chariot's melee as it charges: its warrior's d6 doubled by the charge (two dice),
/// each plus the chariot's one shared d4, through hits = floor((roll - 1) / 4). d6 + d4 in
/// 24 equally likely pairs: sums 5-8 (15 pairs) score 1, 9-10 (3 pairs) score 2, so one
/// die scores 21/24 = 0.875 and the warrior's two 1.75. The column's AR 10 cancels nothing
/// (a hit is cancelled by a d10 greater than the AR) and its 50 hits take them all.
const ONE_CHARIOT: f64 = 2.0 * 21.0 / 24.0;

#[test]
fn only_the_chariot_touching_a_one_figure_column_fights() {
    let plan = plan_from(&chariots_into_a_column("", RIDER_AND_FIGHTER));
    let tally = play(&plan, 40_000);
    assert_mean(&plan, &tally, "hits_on_target", ONE_CHARIOT);
    assert!((exact_mean(&plan, "hits_on_target") - ONE_CHARIOT).abs() < 1e-12);
    // Replay: every melee counts one chariot against one figure.
    for (_, _, attackers, defenders) in melees(&plan, 300) {
        assert_eq!((attackers, defenders), (1, 1));
    }
    // The earlier reading, kept by name: the whole front rank of four attacks.
    let whole = plan_from(&chariots_into_a_column("melee_contact = \"whole_front_rank\"", RIDER_AND_FIGHTER));
    let tally = play(&whole, 40_000);
    assert_mean(&whole, &tally, "hits_on_target", 4.0 * ONE_CHARIOT);
    assert!((exact_mean(&whole, "hits_on_target") - 4.0 * ONE_CHARIOT).abs() < 1e-12);
    assert!(whole.scenario.rules.ruleset().iter().any(|o| o.name == "melee_contact" && o.value == "whole_front_rank"));
}

#[test]
fn a_chariot_with_only_its_driver_attacks_with_its_own_ad_or_is_refused() {
    // Only the driver aboard: the chariot attacks with its own d4... made a d12 here so it
    // can score: two d12 (doubled by the charge), hits = floor((d12 - 1) / 4): 1-4 score 0,
    // 5-8 one, 9-12 two, so 1.0 a die and 2.0 in all.
    let text = chariots_into_a_column("", "{ name = \"Driver\", role = \"rider\", ad = \"d4\" }")
        .replace("stats = { ad = \"d4\", ar = 5", "stats = { ad = \"d12\", ar = 5");
    let plan = plan_from(&text);
    let tally = play(&plan, 40_000);
    assert_mean(&plan, &tally, "hits_on_target", 2.0);
    assert!((exact_mean(&plan, "hits_on_target") - 2.0).abs() < 1e-12);
    // Refused by name when the scenario says so.
    let refused = text.replace("[rules]\n", "[rules]\ndriver_only = \"refused\"\n");
    let err = parse(&refused, "test.toml").expect_err("refused").to_string();
    assert!(err.contains("driver_only") && err.contains("Chariots"), "{err}");
}

/// A war elephant (2" x 3" base) routing north, first d12 fixed at 12, no veer, no re-roll,
/// into the units given; every struck unit holds (ML 20) so the rout stops at the first
/// contact. `crew` is the elephant's crew (empty for none).
fn elephant_routing_into(units: &str, crew: &str) -> String {
    let crew = if crew.is_empty() { String::new() } else { format!("crew = [{crew}]\n") };
    format!(
        "{HEADER}[rules]\nveer_degrees = 0\nmax_rerolls = 0\n\
         [[units]]\nname = \"Elephant\"\nside = \"a\"\nfigures = 1\nat = [24.0, 10.0]\nbase = [2.0, 3.0]\nbeast = true\n\
         stats = {{ ad = \"d12\", ar = 6, hits = 40, ml = 14, mv = 12 }}\n{crew}{units}\
         [rout]\nunit = \"Elephant\"\nfirst_hour = 12\n"
    )
}

fn foot(name: &str, x: f64, figures: u32) -> String {
    format!(
        "[[units]]\nname = \"{name}\"\nside = \"b\"\nfigures = {figures}\nfrontage = {figures}\nat = [{x}, 16.0]\n\
         stats = {{ ad = \"d4\", ar = 10, hits = 1, ml = 20, mv = 6 }}\n"
    )
}

#[test]
fn an_elephant_with_only_its_mahout_aboard_still_tramples() {
    // The elephant's own d12 against AR 10 (nothing cancelled), one hit a figure: hits =
    // floor((d12 - 1) / 4) is 0, 1 or 2 with 4 faces each, so 1.0 figure lost a rout.
    let mahout = "{ name = \"Mahout\", role = \"rider\", ad = \"d4\" }";
    for crew in ["", mahout] {
        let plan = plan_from(&elephant_routing_into(&foot("Levy", 24.0, 10), crew));
        let tally = play(&plan, 40_000);
        assert_mean(&plan, &tally, "figures_lost.levy", 1.0);
        assert_mean(&plan, &tally, "contacted.levy", 1.0);
    }
}

#[test]
fn an_elephant_touching_two_units_at_once_fights_both() {
    // Two units of two 1" figures, x 22 to 24 and 24 to 26, their fronts level: the 2"-wide
    // elephant centred on x 24 meets both at the same instant, one figure of each.
    let units = format!("{}{}", foot("Left", 23.0, 2), foot("Right", 25.0, 2));
    let plan = plan_from(&elephant_routing_into(&units, ""));
    let tally = play(&plan, 20_000);
    for name in ["left", "right"] {
        assert_mean(&plan, &tally, &format!("contacted.{name}"), 1.0);
        // One elephant die against each: 1.0 figure each, as above.
        assert_mean(&plan, &tally, &format!("figures_lost.{name}"), 1.0);
    }
    assert_mean(&plan, &tally, "contacts", 2.0);
    for (attacker, _, attackers, defenders) in melees(&plan, 300) {
        assert_eq!((attacker, attackers, defenders), (0, 1, 1));
    }
}

#[test]
fn routing_elephants_attack_only_with_the_beasts_in_contact() {
    // Two elephants abreast (x 22 to 26) routing north into one 1" figure at x 22 to 23:
    // only the left elephant touches it.
    let text = elephant_routing_into(&foot("Lone", 22.5, 1), "")
        .replace("figures = 1\nat = [24.0, 10.0]", "figures = 2\nfrontage = 2\nat = [24.0, 10.0]");
    let plan = plan_from(&text);
    let all = melees(&plan, 500);
    assert!(!all.is_empty());
    for (_, _, attackers, defenders) in all {
        assert_eq!((attackers, defenders), (1, 1));
    }
}

#[test]
fn veers_never_add_up_past_the_allowance() {
    // The routing example under `veer = "avoid_what_it_can"`: every move's heading lies
    // within 45 degrees of the line the last d12 gave (hour x 30 degrees).
    let text = std::fs::read_to_string("scenarios/battlesystem/routing-elephants-in-battle-line.toml")
        .unwrap()
        .replace("veer_degrees = 45\n", "veer_degrees = 45\nveer = \"avoid_what_it_can\"\n");
    let plan = plan_from(&text);
    let streams = Streams::new(plan.scenario.seed, plan.scenario.hash());
    let mut moves = 0;
    for t in 0..3_000 {
        let mut line = None;
        for e in replay(&plan, streams, t).1 {
            match e {
                BattlesystemEvent::Heading { hour, .. } => line = Some(f64::from(hour) * 30.0),
                BattlesystemEvent::Move { heading, distance, .. } if distance > 0.0 => {
                    let line = line.expect("a heading before a move");
                    let off = (heading - line).rem_euclid(360.0);
                    let off = off.min(360.0 - off);
                    assert!(off <= 45.0 + 1e-9, "trial {t}: heading {heading} is {off} degrees off the line {line}");
                    moves += 1;
                }
                _ => {}
            }
        }
    }
    assert!(moves > 3_000);
}

#[test]
fn a_beast_unit_in_the_way_of_a_rout_is_refused_by_name() {
    let other = foot("Other elephants", 24.0, 2).replace("stats =", "beast = true\nstats =");
    let err = parse(&elephant_routing_into(&other, ""), "test.toml").expect_err("refused").to_string();
    assert!(err.contains("units[1].beast"), "{err}");
}

#[test]
fn two_chariots_left_with_one_driver_are_uncontrolled() {
    // Two chariots, a driver each and nobody else, hits on the crew first; every roll scores
    // one hit (hits_table = [[1, 1]]), the drivers' AR 10 cancels nothing and one hit kills a
    // driver. The column's one figure in contact strikes back with one die: one hit, one
    // driver dead, one chariot of two without a driver in every trial.
    let text = chariots_into_a_column(
        "platform_hits = \"crew_first\"\nhits_table = [[1, 1]]",
        "{ name = \"Driver\", role = \"rider\", ad = \"d4\", ar = 10 }",
    )
    .replace("figures = 4\nfrontage = 4", "figures = 2\nfrontage = 2")
    .replace("at = [24.0, 10.0]", "at = [23.0, 10.0]");
    let plan = plan_from(&text);
    let tally = play(&plan, 2_000);
    assert_mean(&plan, &tally, "crew_lost", 1.0);
    assert_mean(&plan, &tally, "platform_uncontrolled", 1.0);
    assert!((exact_mean(&plan, "platform_uncontrolled") - 1.0).abs() < 1e-12);
}

/// Forty-eight chariots of nine crew each charging four foot of twenty hits each: valid, but
/// far too much work to enumerate (it reaches the work bound before the state bound).
fn a_large_charge() -> String {
    format!(
        "{HEADER}[rules]\nplatform_hits = \"platform_first\"\n\
         [[units]]\nname = \"Chariots\"\nside = \"a\"\nfigures = 48\nfrontage = 10\nat = [24.0, 10.0]\n\
         stats = {{ ad = \"2d10\", ar = 2, hits = 1, ml = 18, mv = 15 }}\n\
         crew = [{{ name = \"Driver\", role = \"rider\", ad = \"d6\", ar = 4, hits = 5 }}, \
         {{ name = \"Guard\", role = \"fighter\", count = 4, ad = \"2d10\", ar = 5, hits = 5 }}, \
         {{ name = \"Bow\", role = \"archer\", count = 4, ad = \"d8\", ar = 5, hits = 5, range_bands = [[0, 12, 1], [12, 30, 0.5]] }}]\n\
         [[units]]\nname = \"Foot\"\nside = \"b\"\nfigures = 4\nfrontage = 4\nat = [24.0, 22.0]\nfacing = 180\n\
         stats = {{ ad = \"2d10\", ar = 4, hits = 20, ml = 15, mv = 12 }}\n\
         [charge]\nunit = \"Chariots\"\ntarget = \"Foot\"\n"
    )
}

fn charioteer(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_charioteer")).args(args).current_dir(dir).output().expect("binary runs")
}

#[test]
fn a_charge_too_large_to_enumerate_has_no_exact_values_and_the_run_goes_on() {
    let plan = plan_from(&a_large_charge());
    let err = charge_joint(&plan).expect_err("too large");
    assert!(err.contains("needs more than 3000000 steps"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.toml"), a_large_charge()).unwrap();
    let out = charioteer(&["run", "big.toml", "--trials", "200", "--out", "rep", "--threads", "2"], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("no exact values: the charge "), "{stdout}");
    assert!(dir.path().join("rep/report.md").exists());
    let out = charioteer(
        &["run", "big.toml", "--trials", "200", "--out", "rep2", "--threads", "2", "--no-exact"],
        dir.path(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("skipped with --no-exact"), "{stdout}");
}

#[test]
fn target_ci_never_aims_at_the_mean_of_a_clock_heading() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = std::fs::canonicalize("scenarios/battlesystem/routing-elephants-in-battle-line.toml").unwrap();
    let out = charioteer(
        &[
            "run",
            scenario.to_str().unwrap(),
            "--trials",
            "1000",
            "--target-ci",
            "0.3",
            "--max-trials",
            "4000",
            "--out",
            "rep",
            "--json",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let worst = json["precision"]["worst_metric"].as_str().unwrap_or_else(|| panic!("{json}"));
    assert_ne!(worst, "heading");
}

#[test]
fn balance_warns_of_a_negative_fair_price() {
    // A chariot that cannot hurt (d4 + d4 platform never reaches 5 under the default hits
    // table... its crew rolls d4 too) against foot that strike back: under the net value
    // model every trial is worth zero or less, so the fair price is negative.
    let text = chariots_into_a_column("", "{ name = \"Driver\", role = \"rider\", ad = \"d4\" }, { name = \"Boy\", role = \"fighter\", ad = \"d4\", ar = 10 }")
        .replace("stats = { ad = \"d4\", ar = 10, hits = 50, ml = 20, mv = 6 }", "stats = { ad = \"2d10\", ar = 10, hits = 50, ml = 20, mv = 6 }\npoints = 5")
        .replace("stats = { ad = \"d4\", ar = 5, hits = 3, ml = 14, mv = 12 }", "stats = { ad = \"d4\", ar = 10, hits = 1, ml = 14, mv = 12 }\npoints = 40");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("weak.toml"), text).unwrap();
    let out = charioteer(
        &["balance", "weak.toml", "--target-efficiency", "0.5", "--value", "net", "--trials", "4000", "--out", "bal"],
        dir.path(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("the fair price is negative"), "{stderr}");
    let report = std::fs::read_to_string(dir.path().join("bal/report.md")).unwrap();
    assert!(report.contains("**Warning:** the fair price is negative"), "{report}");
}

#[test]
fn veers_never_add_up_on_crowded_boards() {
    // Boards built to make beasts veer again and again within one d12 line: an elephant in
    // the middle of a 60" board with a 40" rout, among eight small units that rout at once
    // (ML 2) and so clear the path, under `avoid_what_it_can`. Whatever happens, every move
    // lies within the 45-degree allowance of the line the last d12 gave, and reports its
    // veer from that line; in particular after a veered move struck a unit that was then
    // pushed clear, the next move starts again from the rolled line (the sequence that would
    // let veers add up), which these boards produce dozens of times.
    let mut moves = 0;
    let mut veered = 0;
    let mut resumed_after_a_veered_contact = 0;
    for board in 0..40u32 {
        let mut units = String::new();
        for k in 0..8u32 {
            // A fixed scatter: rings of units at 6-16" from the elephant, turned each board.
            let angle = f64::from(k) * 45.0 + f64::from(board) * 17.0;
            let reach = 6.0 + f64::from((k * 7 + board * 3) % 11);
            let (x, y) = (30.0 + reach * angle.to_radians().sin(), 30.0 + reach * angle.to_radians().cos());
            units.push_str(&format!(
                "[[units]]\nname = \"U{k}\"\nside = \"b\"\nfigures = 4\nfrontage = {}\nat = [{x:.2}, {y:.2}]\n\
                 stats = {{ ad = \"d4\", ar = 10, hits = 1, ml = 2, mv = 30 }}\n",
                1 + (k + board) % 4
            ));
        }
        let text = format!(
            "title = \"crowd\"\nsystem = \"battlesystem\"\ntrials = 1000\nseed = {board}\n[board]\nwidth = 60\ndepth = 60\n\
             [rules]\nveer = \"avoid_what_it_can\"\nrout_distance = 40\nmax_rerolls = 3\n\
             [[units]]\nname = \"Elephant\"\nside = \"a\"\nfigures = 1\nat = [30.0, 30.0]\nbase = [2.0, 3.0]\nbeast = true\n\
             stats = {{ ad = \"d12\", ar = 6, hits = 40, ml = 14, mv = 12 }}\n{units}[rout]\nunit = \"Elephant\"\n"
        );
        let Ok(scenario) = parse(&text, "crowd.toml") else { continue };
        let plan = compile(&scenario);
        let streams = Streams::new(plan.scenario.seed, plan.scenario.hash());
        for t in 0..400 {
            let mut line = None;
            // The veer of the last move, and whether a unit it struck was just pushed clear.
            let mut last_veer = 0.0;
            let mut cleared_after_veer = false;
            for e in replay(&plan, streams, t).1 {
                match e {
                    BattlesystemEvent::Heading { hour, .. } => {
                        line = Some(f64::from(hour) * 30.0);
                        cleared_after_veer = false;
                    }
                    BattlesystemEvent::Displaced { still_blocking: false, .. } if last_veer != 0.0 => {
                        cleared_after_veer = true;
                    }
                    BattlesystemEvent::Move { heading, distance, veer, .. } if distance > 0.0 => {
                        let line = line.expect("a heading before a move");
                        let off = (heading - line).rem_euclid(360.0);
                        let off = off.min(360.0 - off);
                        assert!(
                            off <= 45.0 + 1e-9,
                            "board {board} trial {t}: heading {heading}, {off} degrees off {line}"
                        );
                        // The veer the move reports is measured from that same line.
                        let signed = (heading - line + 540.0).rem_euclid(360.0) - 180.0;
                        assert!(
                            (signed - veer).abs() < 1e-6,
                            "board {board} trial {t}: heading {heading} is {signed} off the line {line}, reported {veer}"
                        );
                        resumed_after_a_veered_contact += usize::from(cleared_after_veer);
                        cleared_after_veer = false;
                        last_veer = veer;
                        moves += 1;
                        veered += usize::from(veer != 0.0);
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(moves > 3_000 && veered > 300, "{moves} moves, {veered} veered: the boards no longer test veering");
    assert!(
        resumed_after_a_veered_contact >= 10,
        "{resumed_after_a_veered_contact} moves after a veered contact cleared the path: the boards no longer test it"
    );
}
