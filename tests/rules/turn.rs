//! A turn of several chariots (#33): the second chariot meets a warrior only when he
//! survived the first, two chariots in one fight against one model, the corridor of
//! `line_breached` on hand-drawn boards, order independence where the rules say order
//! cannot matter, and a turn of one chariot being today's single charge. Every expected
//! value is derived by hand or enumerated in the test, never read back from the engine.

use charioteer::engine::{RuleSystem, Streams, TrialRange};
use charioteer::geometry::{Disc, Vec2};
use charioteer::mesbg::scenario::parse;
use charioteer::mesbg::turn::{TurnPlan, compile_order, corridor_through};
use std::sync::atomic::AtomicBool;

const TRIALS: u64 = 400_000;

/// Two Khandish chariots (Evil; F4 S3 D7 A1 W3; Impact Hits 2 at Strength 4; 60 mm) and
/// one Warrior of Minas Tirith (Good; F4 S3 D5 A1 W1) at (0, 6) facing south. Chariot 1
/// starts at (0, 0) facing north; chariot 2 at (0, 14) facing south, so it drives at the
/// warrior from behind him, and is stopped short by chariot 1 when that one drove on past
/// him (it then stands at (0, 10), in chariot 2's way).
const ONE_WARRIOR: &str = r#"title = "two chariots, one warrior"
system = "mesbg"
seed = 11

[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 0.0]
facing = 0

[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 14.0]
facing = 180

[[formations]]
name = "Warrior"
count = 1
base = { round_mm = 25 }
front_centre = [0.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
"#;

fn plan_of(text: &str, order: Vec<usize>) -> TurnPlan {
    let scenario = parse(text, "turn.toml").expect("the scenario reads");
    compile_order(&scenario, order).expect("the turn plans")
}

/// Each metric's mean and standard error over `trials` turns of `plan`.
fn means(plan: &TurnPlan, seed: u64, trials: u64) -> Vec<(String, f64, f64)> {
    let streams = Streams::new(seed, plan.scenario.hash());
    let range = TrialRange { first: 0, count: trials };
    let tally = charioteer::engine::run(plan, streams, range, &|_| {}, &AtomicBool::new(false)).expect("runs");
    plan.metrics
        .defs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let hist = plan.histogram(&tally, i);
            let n = tally.trials as f64;
            let mean = hist.iter().enumerate().map(|(v, &c)| v as f64 * c as f64).sum::<f64>() / n;
            let second = hist.iter().enumerate().map(|(v, &c)| (v * v) as f64 * c as f64).sum::<f64>() / n;
            let sd = (second - mean * mean).max(0.0).sqrt();
            (d.name.clone(), mean, sd / n.sqrt())
        })
        .collect()
}

fn check(all: &[(String, f64, f64)], name: &str, expected: f64) {
    let (_, mean, se) = all.iter().find(|(n, ..)| n == name).unwrap_or_else(|| panic!("no metric {name}"));
    let bound = 5.0 * se.max(1e-4 / (TRIALS as f64).sqrt());
    assert!((mean - expected).abs() <= bound, "{name}: simulated {mean:.5}, derived {expected:.5} (5 se = {bound:.5})");
}

/// P(the chariots' `ours` dice beat the model's `theirs` dice), equal Fight, the roll-off
/// even: enumerated over every face.
fn pooled_duel(ours: u32, theirs: u32) -> f64 {
    let n = ours + theirs;
    let mut win = 0.0;
    let total = 6f64.powi(n as i32);
    for code in 0..6u32.pow(n) {
        let faces: Vec<u32> = (0..n).map(|i| code / 6u32.pow(i) % 6 + 1).collect();
        let a = faces[..ours as usize].iter().max().copied().unwrap_or(0);
        let b = faces[ours as usize..].iter().max().copied().unwrap_or(0);
        win += if a > b {
            1.0
        } else if a == b {
            0.5
        } else {
            0.0
        };
    }
    win / total
}

#[test]
fn the_second_chariot_meets_the_warrior_only_when_he_survived_the_first() {
    let plan = plan_of(ONE_WARRIOR, vec![0, 1]);
    let all = means(&plan, 11, TRIALS);
    // Two hits at Strength 4 against Defence 5 each wound on a 5+: P(slain) = 1 - (2/3)^2.
    let slain = 1.0 - (2.0f64 / 3.0).powi(2); // 5/9
    check(&all, "chariot1.impact_kills", slain);
    // Chariot 2 reaches him only when he survived chariot 1 (a W1 model survives unhurt).
    check(&all, "chariot2.impact_kills", (1.0 - slain) * slain);
    check(&all, "impact_kills", slain + (1.0 - slain) * slain);
    // When chariot 1 drove on past him it stands at (0, 10), in chariot 2's way; when it
    // stopped at him (4.33" up) and chariot 2 slays him, chariot 2 drives on into chariot
    // 1's place: either way its drive ends short of chariot 1.
    check(&all, "chariot2.blocked", slain + (1.0 - slain) * slain);
    // Chariot 1 is in a fight only when he survived both; chariot 2 whenever he survived it.
    let both = (1.0 - slain) * (1.0 - slain);
    check(&all, "chariot1.fight_fought", both);
    check(&all, "chariot2.fight_fought", both);
    check(&all, "fights", both);
}

#[test]
fn a_model_hit_by_two_chariots_keeps_the_wounds_of_the_first() {
    // The same board with a two-Wound warrior: after chariot 1's two hits (5+ each) he has
    // lost 0 Wounds (4/9), 1 (4/9) or 2 (1/9, slain); chariot 2 then needs both hits on
    // an unhurt one (1/9), one on a wounded one (5/9).
    let text = ONE_WARRIOR.replace(
        "profile = \"Warrior of Minas Tirith\"",
        "profile = { fight = 4, strength = 3, defence = 5, attacks = 1, wounds = 2, courage = \"7+\" }",
    );
    let plan = plan_of(&text, vec![0, 1]);
    let all = means(&plan, 13, TRIALS);
    let (none, one, two) = (4.0 / 9.0, 4.0 / 9.0, 1.0 / 9.0);
    check(&all, "chariot1.impact_kills", two);
    check(&all, "chariot2.impact_kills", none * two + one * (5.0 / 9.0));
}

#[test]
fn two_chariots_in_one_fight_pool_their_dice_and_strike_in_turn() {
    let plan = plan_of(ONE_WARRIOR, vec![0, 1]);
    let all = means(&plan, 12, TRIALS);
    let slain = 5.0 / 9.0;
    let both = (1.0 - slain) * (1.0 - slain);
    // Four dice (two chariots, 1 Attack + 1 for charging each) against one, Fight 4 each.
    let win = pooled_duel(4, 1);
    // Won: the warrior is knocked Prone and Trapped: each Strike is two rolls at 5+
    // (Strength 3 against Defence 5). Chariot 1's two Strikes, then chariot 2's while he
    // stands: chariot 1 kills with 1 - (2/3)^4, chariot 2 with (2/3)^4 (1 - (2/3)^4).
    let miss4 = (2.0f64 / 3.0).powi(4);
    check(&all, "chariot1.fight_won", both * win);
    check(&all, "chariot2.fight_won", both * win);
    check(&all, "chariot1.fight_kills", both * win * (1.0 - miss4));
    check(&all, "chariot2.fight_kills", both * win * miss4 * (1.0 - miss4));
    check(&all, "fight_kills", both * win * (1.0 - miss4 * miss4));
    // Lost: his one Strike (Strength 3 against Defence 7: 6+) goes at the chariot with the
    // fewest Wounds left, the first in the turn's order when they are level: chariot 1.
    check(&all, "chariot1.wounds_lost", both * (1.0 - win) / 6.0);
    check(&all, "chariot2.wounds_lost", 0.0);
    let killed = slain + (1.0 - slain) * slain + both * win * (1.0 - miss4 * miss4);
    check(&all, "kills", killed);
    check(&all, "line_halved", killed);
}

/// A formation's bases and its `count` models' discs, read from a scenario.
fn line(count: usize, ranks: usize) -> charioteer::mesbg::scenario::Formation {
    let text = format!(
        r#"title = "line"
system = "mesbg"
[chariot]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, -20.0]
[[formations]]
name = "Line"
count = {count}
ranks = {ranks}
base = {{ round_mm = 25 }}
front_centre = [0.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
"#
    );
    parse(&text, "line.toml").expect("reads").formations.remove(0)
}

fn standing(f: &charioteer::mesbg::scenario::Formation, gone: &[usize]) -> Vec<Disc> {
    f.centres.iter().enumerate().filter(|(i, _)| !gone.contains(i)).map(|(_, c)| f.disc_at(*c)).collect()
}

#[test]
fn a_corridor_needs_a_gap_one_base_wide_through_every_rank_between_standing_models() {
    // One rank of six, touching: whole, no corridor.
    let one = line(6, 1);
    assert!(!corridor_through(&[&one], &standing(&one, &[]), None));
    // A model gone from the middle leaves a gap exactly one base wide.
    assert!(corridor_through(&[&one], &standing(&one, &[2]), None));
    // A model gone from the end only shortens the line.
    assert!(!corridor_through(&[&one], &standing(&one, &[0]), None));
    assert!(!corridor_through(&[&one], &standing(&one, &[5]), None));
    // Every model gone: the line is no more, and breached.
    assert!(corridor_through(&[&one], &standing(&one, &[0, 1, 2, 3, 4, 5]), None));
    // One left at the end: a line of one, shortened, not breached.
    assert!(!corridor_through(&[&one], &standing(&one, &[0, 1, 2, 3, 4]), None));
    // Two ranks of six (models 0-5 the front, 6-11 the rear, file by file): the front
    // model gone with the one behind it standing is no corridor; both gone is.
    let two = line(12, 2);
    let behind = |i: usize| {
        let c = two.centres[i];
        (6..12).find(|&j| (two.centres[j].x - c.x).abs() < 1e-6).expect("a model behind")
    };
    assert!(!corridor_through(&[&two], &standing(&two, &[2]), None));
    assert!(corridor_through(&[&two], &standing(&two, &[2, behind(2)]), None));
    // Gone from neighbouring files, front in one and rear in the other: no straight gap.
    assert!(!corridor_through(&[&two], &standing(&two, &[2, behind(3)]), None));
    // A model of the line pushed half a base aside into the gap closes it.
    let mut pushed = standing(&one, &[2]);
    pushed.push(Disc::round(Vec2::new(one.centres[2].x + 0.25, one.centres[2].y), one.radius()));
    assert!(!corridor_through(&[&one], &pushed, None));
    // Shields with a separate formation of spears touching behind them are one line: a
    // shield gone with the spear behind it standing is no corridor.
    let text = r#"title = "two formations"
system = "mesbg"
[chariot]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, -20.0]
[[formations]]
name = "Shields"
count = 6
base = { round_mm = 25 }
front_centre = [0.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
[[formations]]
name = "Spears"
count = 6
base = { round_mm = 25 }
front_centre = [0.0, 6.984252]
facing = 180
profile = "Warrior of Minas Tirith with spear and shield"
[[formations]]
name = "Apart"
count = 2
base = { round_mm = 25 }
front_centre = [30.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
"#;
    let scenario = parse(text, "lines.toml").expect("reads");
    assert_eq!(charioteer::mesbg::turn::lines_of(&scenario.formations), vec![vec![0, 1], vec![2]]);
    let (shields, spears) = (&scenario.formations[0], &scenario.formations[1]);
    let all: Vec<Disc> = shields.centres.iter().chain(&spears.centres).map(|c| shields.disc_at(*c)).collect();
    let without = |gone: &[usize]| -> Vec<Disc> {
        all.iter().enumerate().filter(|(i, _)| !gone.contains(i)).map(|(_, d)| *d).collect()
    };
    let spear_behind = 6 + (0..6).find(|&j| (spears.centres[j].x - shields.centres[2].x).abs() < 1e-6).expect("behind");
    assert!(!corridor_through(&[shields, spears], &without(&[2]), None));
    assert!(corridor_through(&[shields, spears], &without(&[2, spear_behind]), None));
}

#[test]
fn the_order_cannot_matter_when_the_chariots_never_meet() {
    // Two chariots far apart, each into its own line: either order, the same chances.
    let text = r#"title = "apart"
system = "mesbg"
seed = 5
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [-20.0, 0.0]
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [20.0, 0.0]
[[formations]]
name = "West"
count = 5
base = { round_mm = 25 }
front_centre = [-20.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
[[formations]]
name = "East"
count = 5
base = { round_mm = 25 }
front_centre = [20.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
"#;
    let listed = means(&plan_of(text, vec![0, 1]), 5, 200_000);
    let swapped = means(&plan_of(text, vec![1, 0]), 5, 200_000);
    for ((name, a, sa), (_, b, sb)) in listed.iter().zip(&swapped) {
        let bound = 5.0 * (sa * sa + sb * sb).sqrt().max(1e-9);
        assert!((a - b).abs() <= bound, "{name}: {a:.5} listed, {b:.5} swapped (5 se = {bound:.5})");
    }
    // And each chariot's own Impact Hits slay the first model it meets with 5/9, whose
    // neighbours it then meets too (the first group is one model, straight ahead).
    let first = listed.iter().find(|(n, ..)| n == "chariot1.impact_kills").expect("metric");
    assert!(first.1 >= 5.0 / 9.0 - 5.0 * first.2, "chariot 1 slays at least its first model's share");
}

#[test]
fn a_turn_of_one_chariot_is_the_single_charge() {
    let single = std::fs::read_to_string("scenarios/mesbg/khandish-vs-minas-tirith.toml").expect("reads");
    let as_turn = single.replacen("[chariot]", "[[chariots]]", 1);
    // [charge] folds into the chariot's own table in a turn.
    let as_turn = match as_turn.find("[charge]") {
        Some(at) => {
            let rest = &as_turn[at + "[charge]".len()..];
            let end = rest.find("\n[").unwrap_or(rest.len());
            let body = &rest[..end];
            let without = format!("{}{}", &as_turn[..at], &rest[end..]);
            without.replacen("[[chariots]]", &format!("[[chariots]]{body}"), 1)
        }
        None => as_turn,
    };
    let a = parse(&single, "a.toml").expect("single reads");
    let b = parse(&as_turn, "b.toml").expect("turn of one reads");
    assert!(!b.is_turn());
    assert_eq!(a.hash(), b.hash(), "same streams");
    let (pa, pb) = (charioteer::mesbg::plan::compile(&a), charioteer::mesbg::plan::compile(&b));
    let streams = Streams::new(a.seed, a.hash());
    let range = TrialRange { first: 0, count: 50_000 };
    let never = AtomicBool::new(false);
    let ta = charioteer::mesbg::resolve::run(&pa, streams, range, &|_| {}, &never).expect("runs");
    let tb = charioteer::mesbg::resolve::run(&pb, streams, range, &|_| {}, &never).expect("runs");
    assert_eq!(ta, tb, "trial for trial, the same tallies");
}

/// The exact engine's mean of metric `name` for `plan`.
fn exact_mean(exact: &charioteer::mesbg::turn::TurnExact, plan: &TurnPlan, name: &str) -> f64 {
    let index = plan.metrics.index(name).unwrap_or_else(|| panic!("no metric {name}"));
    exact.joint.mean_sd(index).0
}

fn close(got: f64, expected: f64, name: &str) {
    assert!((got - expected).abs() < 1e-12, "{name}: exact engine {got:.12}, derived {expected:.12}");
}

#[test]
fn the_exact_engine_gives_the_hand_derived_values_of_two_chariots_into_one_warrior() {
    let plan = plan_of(ONE_WARRIOR, vec![0, 1]);
    let exact = charioteer::mesbg::turn::exact_turn(&plan).expect("a turn of two chariots into one model is exact");
    let total: f64 = exact.joint.outcomes.iter().map(|(_, p)| p).sum();
    close(total, 1.0, "probabilities");
    let slain = 5.0 / 9.0;
    let both = (1.0 - slain) * (1.0 - slain);
    let win = pooled_duel(4, 1);
    let miss4 = (2.0f64 / 3.0).powi(4);
    let e = |name: &str| exact_mean(&exact, &plan, name);
    close(e("chariot1.impact_kills"), slain, "chariot1.impact_kills");
    close(e("chariot2.impact_kills"), (1.0 - slain) * slain, "chariot2.impact_kills");
    close(e("chariot2.blocked"), slain + (1.0 - slain) * slain, "chariot2.blocked");
    close(e("fights"), both, "fights");
    close(e("chariot1.fight_won"), both * win, "chariot1.fight_won");
    close(e("chariot1.fight_kills"), both * win * (1.0 - miss4), "chariot1.fight_kills");
    close(e("chariot2.fight_kills"), both * win * miss4 * (1.0 - miss4), "chariot2.fight_kills");
    close(e("chariot1.wounds_lost"), both * (1.0 - win) / 6.0, "chariot1.wounds_lost");
    close(e("chariot2.wounds_lost"), 0.0, "chariot2.wounds_lost");
    let killed = slain + (1.0 - slain) * slain + both * win * (1.0 - miss4 * miss4);
    close(e("kills"), killed, "kills");
    close(e("line_halved"), killed, "line_halved");
    // The model's own chance to be slain is the turn's kills (he is the only model).
    close(exact.slain[0], killed, "slain[0]");

    // The two-Wound warrior: the second chariot's Impact Hits from the state the first left.
    let text = ONE_WARRIOR.replace(
        "profile = \"Warrior of Minas Tirith\"",
        "profile = { fight = 4, strength = 3, defence = 5, attacks = 1, wounds = 2, courage = \"7+\" }",
    );
    let plan = plan_of(&text, vec![0, 1]);
    let exact = charioteer::mesbg::turn::exact_turn(&plan).expect("exact");
    let (none, one, two) = (4.0 / 9.0, 4.0 / 9.0, 1.0 / 9.0);
    close(exact_mean(&exact, &plan, "chariot1.impact_kills"), two, "chariot1.impact_kills");
    close(exact_mean(&exact, &plan, "chariot2.impact_kills"), none * two + one * (5.0 / 9.0), "chariot2.impact_kills");
}

/// Every metric's Monte Carlo mean within 5 standard errors of the exact mean.
fn agrees_with_monte_carlo(text: &str, seed: u64) {
    let plan = plan_of(text, vec![0, 1]);
    let exact = charioteer::mesbg::turn::exact_turn(&plan).expect("exact");
    let all = means(&plan, seed, TRIALS);
    for (i, (name, mean, se)) in all.iter().enumerate() {
        let (want, sd) = exact.joint.mean_sd(i);
        let bound = 5.0 * (sd / (TRIALS as f64).sqrt()).max(1e-9);
        assert!((mean - want).abs() <= bound, "{name}: simulated {mean:.5} (se {se:.5}), exact {want:.5}");
    }
}

#[test]
fn the_exact_engine_agrees_with_the_turns_played() {
    agrees_with_monte_carlo(ONE_WARRIOR, 21);
    // Two chariots, each into a warrior of its own: chariot 2 through a ploughed field (a
    // Wound on a 1), chariot 1 on into a wall when it slays its man (three Strength 6 hits).
    let text = r#"title = "two apart, field and wall"
system = "mesbg"
seed = 3
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [-3.0, 0.0]
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [3.0, 0.0]
[[formations]]
name = "West"
count = 1
base = { round_mm = 25 }
front_centre = [-3.0, 6.0]
facing = 180
profile = { fight = 3, strength = 3, defence = 4, attacks = 1, wounds = 2, courage = "6+" }
[[formations]]
name = "East"
count = 1
base = { round_mm = 25 }
front_centre = [3.0, 6.0]
facing = 180
profile = { fight = 3, strength = 3, defence = 4, attacks = 1, wounds = 2, courage = "6+" }
[[terrain]]
name = "Ploughed field"
kind = "difficult"
polygon = [[0.0, 2.0], [6.0, 2.0], [6.0, 4.0], [0.0, 4.0]]
[[terrain]]
name = "Wall"
kind = "obstacle"
from = [-6.0, 9.0]
to = [6.0, 9.0]
"#;
    agrees_with_monte_carlo(text, 22);
}

#[test]
fn the_exact_engine_refuses_by_name_what_it_does_not_follow() {
    let three = std::fs::read_to_string("scenarios/mesbg/turn-three-khandish-into-shield-wall.toml").expect("reads");
    let scenario = parse(&three, "three.toml").expect("reads");
    let plan = compile_order(&scenario, vec![0, 1, 2]).expect("plans");
    let err = charioteer::mesbg::turn::exact_turn(&plan).expect_err("three chariots are not exact");
    assert!(err.to_string().contains("a turn of 3 chariots"), "{err}");
    let pikes = std::fs::read_to_string("scenarios/mesbg/turn-two-iron-hills-into-pike-block.toml").expect("reads");
    let scenario = parse(&pikes, "pikes.toml").expect("reads");
    let plan = compile_order(&scenario, vec![0, 1]).expect("plans");
    let err = charioteer::mesbg::turn::exact_turn(&plan).expect_err("pikes are not exact");
    assert!(!err.to_string().is_empty());
}

/// Two chariots side by side, each into one of a pair of Minas Tirith warriors (25 mm,
/// shoulder to shoulder at (-0.49, 6) and (0.49, 6)): chariot 1 meets file 2, chariot 2
/// file 1, and the fights are fought in the chariots' order.
const BANNER_PAIR: &str = r#"title = "two chariots, two warriors, one banner"
system = "mesbg"
seed = 21

[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [-1.5, 0.0]
facing = 0

[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [1.5, 0.0]
facing = 0

[[formations]]
name = "Pair"
count = 2
base = { round_mm = 25 }
front_centre = [0.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
"#;

/// One fight of a replayed turn: its enemy models, whether a banner helped them, and the
/// models the chariots' Strikes slew.
struct FightSeen {
    models: Vec<usize>,
    banner: bool,
    kills: u8,
    won: bool,
}

fn fights_seen(plan: &TurnPlan, streams: Streams, trial: u64) -> Vec<FightSeen> {
    use charioteer::mesbg::resolve::Event;
    let (_, events) = charioteer::mesbg::turn::replay_turn(plan, streams, trial);
    let mut fights: Vec<FightSeen> = Vec::new();
    for e in events {
        match e {
            Event::TurnFight { models, .. } => fights.push(FightSeen { models, banner: false, kills: 0, won: false }),
            Event::Support { banner, .. } => fights.last_mut().expect("support inside a fight").banner |= banner,
            Event::Fight { kills, chariot_won, .. } => {
                let fight = fights.last_mut().expect("a result inside a fight");
                (fight.kills, fight.won) = (kills, chariot_won);
            }
            _ => {}
        }
    }
    fights
}

#[test]
fn a_banner_bearer_slain_in_an_earlier_fight_helps_no_later_one() {
    // The bearer is file 2, in chariot 1's fight, fought first; file 1's fight, 0.98"
    // away, has his banner only while he stands: a chariot that won his fight slew him or
    // knocked him Prone, and a Prone bearer gives no banner either.
    let text = BANNER_PAIR.replace("facing = 180\n", "facing = 180\nbanner = true\nbanner_at = [1, 2]\n");
    let plan = plan_of(&text, vec![0, 1]);
    let bearer = plan.plans[0].support.bearers[0];
    let streams = Streams::new(21, plan.scenario.hash());
    let (mut fell_first, mut stood) = (0, 0);
    for trial in 0..3000 {
        let fights = fights_seen(&plan, streams, trial);
        let mut bearer_slain = false;
        for f in &fights {
            if f.models == [bearer] {
                // His own fight: the banner is his, standing in it.
                assert!(f.banner, "trial {trial}: the bearer's own fight has his banner");
                bearer_slain = f.won;
            } else if fights.iter().any(|g| g.models == [bearer]) {
                assert_eq!(
                    f.banner, !bearer_slain,
                    "trial {trial}: the bearer slain or knocked Prone before this fight: {bearer_slain}"
                );
                if bearer_slain {
                    fell_first += 1;
                } else {
                    stood += 1;
                }
            } else {
                assert!(!f.banner, "trial {trial}: the bearer fell to the Impact Hits");
            }
        }
    }
    assert!(fell_first > 100 && stood > 100, "both cases seen: {fell_first} slain first, {stood} standing");
}

#[test]
fn a_banner_bearer_who_supported_in_an_earlier_fight_still_stands_for_a_later_one() {
    // A second rank of spears behind the pair, the bearer the spear behind file 2: he
    // supports file 2 in chariot 1's fight (a supporter cannot be struck), and still
    // stands, 1.4" from file 1, when file 1 fights chariot 2. The pair are made too tough
    // for two Impact Hits (three Wounds), so both chariots stop at them and never reach
    // the spears.
    let pair = BANNER_PAIR.replace(
        "profile = \"Warrior of Minas Tirith\"",
        "profile = { fight = 4, strength = 3, defence = 5, attacks = 1, wounds = 3, courage = \"7+\" }",
    );
    let text = format!(
        "{pair}\n[[formations]]\nname = \"Spears\"\ncount = 2\nbase = {{ round_mm = 25 }}\n\
         front_centre = [0.0, 6.984252]\nfacing = 180\nbanner = true\nbanner_at = [1, 2]\n\
         profile = \"Warrior of Minas Tirith with spear and shield\"\n"
    );
    let plan = plan_of(&text, vec![0, 1]);
    let streams = Streams::new(21, plan.scenario.hash());
    for trial in 0..2000 {
        let fights = fights_seen(&plan, streams, trial);
        for f in &fights {
            assert!(f.banner, "trial {trial}: fight against {:?} without the standing banner", f.models);
        }
        assert_eq!(fights.len(), 2, "trial {trial}: both chariots stop at the pair");
    }
}

/// Each metric's mean and standard error, and each model's share of turns it was slain
/// in, over `trials` turns of `plan`.
fn means_and_slain(plan: &TurnPlan, seed: u64, trials: u64) -> (Vec<(String, f64, f64)>, Vec<f64>) {
    let streams = Streams::new(seed, plan.scenario.hash());
    let range = TrialRange { first: 0, count: trials };
    let tally = charioteer::engine::run(plan, streams, range, &|_| {}, &AtomicBool::new(false)).expect("runs");
    let slain = tally.slain.iter().map(|&s| s as f64 / trials as f64).collect();
    (means(plan, seed, trials), slain)
}

/// The three boards the drawn tables are checked on: a Captain with Might and Fate among
/// spears and a banner; a pike block; a banner bearer whose fall in one fight takes the
/// banner from the next.
fn boards_for_tables() -> Vec<(&'static str, String, Vec<usize>)> {
    let three = std::fs::read_to_string("scenarios/mesbg/turn-three-khandish-into-shield-wall.toml").expect("reads");
    let pikes = std::fs::read_to_string("scenarios/mesbg/turn-two-iron-hills-into-pike-block.toml").expect("reads");
    let banner = BANNER_PAIR.replace("facing = 180\n", "facing = 180\nbanner = true\nbanner_at = [1, 2]\n");
    vec![("three", three, vec![0, 1, 2]), ("pikes", pikes, vec![0, 1]), ("banner", banner, vec![0, 1])]
}

/// Asserts that `drawn` and `rolled` agree, within 5 standard errors, on every metric's
/// mean and each model's chance to be slain, over 300,000 turns each.
fn agree(name: &str, drawn: &TurnPlan, rolled: &TurnPlan) {
    let trials = 300_000;
    let (a, slain_a) = means_and_slain(drawn, 5, trials);
    let (b, slain_b) = means_and_slain(rolled, 6, trials);
    for ((metric, ma, sa), (_, mb, sb)) in a.iter().zip(&b) {
        let bound = 5.0 * (sa * sa + sb * sb).sqrt().max(1e-4);
        assert!((ma - mb).abs() <= bound, "{name} {metric}: drawn {ma:.5}, die by die {mb:.5} (5 se = {bound:.5})");
    }
    for (m, (pa, pb)) in slain_a.iter().zip(&slain_b).enumerate() {
        let se = ((pa * (1.0 - pa) + pb * (1.0 - pb)) / trials as f64).sqrt();
        let bound = 5.0 * se.max(1e-4);
        assert!((pa - pb).abs() <= bound, "{name} model {m} slain: drawn {pa:.5}, die by die {pb:.5}");
    }
}

#[test]
fn a_turns_fights_drawn_in_one_go_are_its_fights_fought_die_by_die() {
    // A fight of one chariot whose help is fixed is drawn from its exact distribution
    // (outcome and the models slain); the same turns with every fight rolled die by die
    // must agree on every metric and on each model's chance to be slain.
    for (name, text, order) in boards_for_tables() {
        let drawn = plan_of(&text, order);
        let mut rolled = drawn.clone();
        rolled.fights_from_tables = false;
        rolled.drawn = Default::default();
        agree(name, &drawn, &rolled);
        assert!(!drawn.drawn.is_empty(), "{name}: some fights were drawn in one go");
        assert!(rolled.drawn.is_empty(), "{name}: no fight was drawn with the tables off");
    }
}

#[test]
fn a_turns_drives_drawn_whole_are_its_drives_rolled_contact_by_contact() {
    // A drive without difficult terrain or an obstacle is drawn whole from the product of
    // its contacts' tables, merged by what each did to its model; the same turns rolled
    // contact by contact must agree on every metric and each model's chance to be slain.
    for (name, text, order) in boards_for_tables() {
        let drawn = plan_of(&text, order);
        let mut rolled = drawn.clone();
        rolled.drives_from_tables = false;
        rolled.drawn = Default::default();
        agree(name, &drawn, &rolled);
    }
}

/// P(the highest of `ours` dice beats the highest of `theirs`), ties going to them (their
/// Fight is higher): enumerated over every face.
fn duel_won_ties_lost(ours: u32, theirs: u32) -> f64 {
    let n = ours + theirs;
    let mut won = 0u64;
    for code in 0..6u32.pow(n) {
        let faces: Vec<u32> = (0..n).map(|i| code / 6u32.pow(i) % 6 + 1).collect();
        let a = faces[..ours as usize].iter().max().copied().unwrap_or(0);
        let b = faces[ours as usize..].iter().max().copied().unwrap_or(0);
        won += u64::from(a > b);
    }
    won as f64 / 6f64.powi(n as i32)
}

/// P(Binomial(n, p) >= k), summed term by term.
fn at_least(n: u32, p: f64, k: u32) -> f64 {
    let choose = |n: u32, k: u32| (0..k).fold(1.0, |c, i| c * f64::from(n - i) / f64::from(i + 1));
    (k..=n).map(|j| choose(n, j) * p.powi(j as i32) * (1.0 - p).powi((n - j) as i32)).sum()
}

#[test]
fn a_chariot_still_to_charge_blocks_the_one_charging_now() {
    // Chariot 1 drives north at a warrior at (0, 5); chariot 2 waits at (0, 9) facing east,
    // to charge after it. When the warrior falls to chariot 1's Impact Hits (5/9) chariot 1
    // drives on and its drive ends short of chariot 2, which has not moved yet; when he
    // survives, it stops at him.
    let text = r#"title = "a friend waiting"
system = "mesbg"
seed = 3
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 0.0]
facing = 0
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 9.0]
facing = 90
[[formations]]
name = "Warrior"
count = 1
base = { round_mm = 25 }
front_centre = [0.0, 5.0]
facing = 180
profile = "Warrior of Minas Tirith"
"#;
    let plan = plan_of(text, vec![0, 1]);
    let all = means(&plan, 3, TRIALS);
    let slain = 5.0 / 9.0;
    check(&all, "chariot1.blocked", slain);
    check(&all, "chariot1.fight_fought", 1.0 - slain);
    check(&all, "chariot2.blocked", 0.0);
    // Every chariot reports whether it was blocked, whether or not it can be.
    assert!(plan.metrics.index("chariot2.blocked").is_some());
}

#[test]
fn a_monster_beaten_by_chariots_on_both_sides_is_trapped() {
    // A Monster (F6 S6 D6 A3 W5, 50 mm) at (0, 6): chariot 1 charges it from the south,
    // chariot 2 from the north. Neither's Impact Hits (2 at Strength 4, 5+ against Defence
    // 6) can slay it (4 Wounds at most), so both stop against it: one fight, the chariots'
    // 4 dice against its 3, its higher Fight winning ties. Won, it is not knocked down (a
    // Monster), but it cannot Back Away from either chariot without running into the
    // other: Trapped, each of the chariots' 4 Strikes (Strength 3 against Defence 6, 6+) is
    // two rolls, 8 rolls in all.
    let text = r#"title = "a troll between two chariots"
system = "mesbg"
seed = 4
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 0.0]
facing = 0
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 14.0]
facing = 180
[[formations]]
name = "Troll"
count = 1
base = { round_mm = 50 }
front_centre = [0.0, 6.0]
facing = 90
profile = { fight = 6, strength = 6, defence = 6, attacks = 3, wounds = 5, courage = "6+", monster = true }
[rules]
grip = "one_handed"   # the derivation holds the chariots' weapons one-handed (tests/rules/grip.rs derives two-handed)
"#;
    let plan = plan_of(text, vec![0, 1]);
    let all = means(&plan, 4, TRIALS);
    let win = duel_won_ties_lost(4, 3);
    let hit = |a: u32| [4.0 / 9.0, 4.0 / 9.0, 1.0 / 9.0][a as usize]; // Binomial(2, 1/3)
    let mut slain = 0.0;
    for a in 0..=2 {
        for b in 0..=2 {
            slain += hit(a) * hit(b) * win * at_least(8, 1.0 / 6.0, 5 - a - b);
        }
    }
    check(&all, "impact_kills", 0.0);
    check(&all, "fights", 1.0);
    check(&all, "chariot1.fight_won", win);
    check(&all, "fight_kills", slain);
}

#[test]
fn a_line_is_measured_by_its_own_models() {
    // Line A: six warriors facing south, the third gone. Line B: one warrior facing east (a
    // line of its own: it faces another way), pushed into that gap. The gap through A is a
    // corridor: B's model is not part of line A.
    let text = r#"title = "two lines"
system = "mesbg"
[chariot]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, -20.0]
facing = 0
[[formations]]
name = "A"
count = 6
base = { round_mm = 25 }
front_centre = [0.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
[[formations]]
name = "B"
count = 1
base = { round_mm = 25 }
front_centre = [0.0, 12.0]
facing = 90
profile = "Warrior of Minas Tirith"
"#;
    let scenario = parse(text, "lines.toml").expect("reads");
    let lines = charioteer::mesbg::turn::lines_of(&scenario.formations);
    assert_eq!(lines, vec![vec![0], vec![1]], "apart and facing apart: two lines");
    let a = &scenario.formations[0];
    let gone = 2;
    let centres: Vec<Vec2> = a.centres.iter().copied().chain(std::iter::once(a.centres[gone])).collect();
    let breached =
        charioteer::mesbg::turn::measure::breached_lines(&scenario.formations, &lines, &centres, |m| m != gone, None);
    assert_eq!(breached, vec![true, false], "A breached though B's model stands in the gap; B whole");
    // Half of a line is half of all its formations' models: six shields with six spears
    // touching behind them are one line of 12; three shields lost is a quarter of it.
    let two = r#"title = "shields and spears"
system = "mesbg"
[chariot]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, -20.0]
facing = 0
[[formations]]
name = "Shields"
count = 6
base = { round_mm = 25 }
front_centre = [0.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
[[formations]]
name = "Spears"
count = 6
base = { round_mm = 25 }
front_centre = [0.0, 6.984252]
facing = 180
profile = "Warrior of Minas Tirith with spear and shield"
"#;
    let scenario = parse(two, "line.toml").expect("reads");
    let lines = charioteer::mesbg::turn::lines_of(&scenario.formations);
    assert_eq!(lines, vec![vec![0, 1]], "one line");
    let halved = |lost: &[usize]| charioteer::mesbg::turn::measure::halved_lines(&scenario.formations, &lines, lost);
    assert_eq!(halved(&[3, 0]), vec![false], "3 of 12");
    assert_eq!(halved(&[4, 2]), vec![true], "6 of 12");
}

#[test]
fn a_charge_that_drives_clean_through_from_behind_or_the_flank_breaks_through() {
    // Chariot 1 charges a warrior (facing south) from behind: from (0, 14) southwards, 10"
    // to (0, 4), wholly past him when he falls (5/9). Chariot 2 charges a line of three
    // (facing south) along it from the east: from (6, -20) westwards it must slay all three
    // in turn, (5/9)^3, to end wholly past the line's far end.
    let text = r#"title = "from behind and from the flank"
system = "mesbg"
seed = 6
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 14.0]
facing = 180
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [6.0, -20.0]
facing = 270
[[formations]]
name = "Alone"
count = 1
base = { round_mm = 25 }
front_centre = [0.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
[[formations]]
name = "Three"
count = 3
base = { round_mm = 25 }
front_centre = [0.0, -20.0]
facing = 180
profile = "Warrior of Minas Tirith"
"#;
    let plan = plan_of(text, vec![0, 1]);
    let all = means(&plan, 6, TRIALS);
    let slain = 5.0 / 9.0;
    check(&all, "chariot1.breakthrough", slain);
    check(&all, "chariot2.breakthrough", slain.powi(3));
    check(&all, "breakthrough_any", 1.0 - (1.0 - slain) * (1.0 - slain.powi(3)));
}

/// P(a chariot's `dice` dice beat one enemy die, equal Fight, the roll-off even), the
/// enemy's die at -1 (a banner bearer's own) or not, and re-rolled by a banner as the
/// default policy reads it (when losing, or on a tie when the re-roll wins more than the
/// roll-off's half): enumerated face by face.
fn chariot_beats_one_die(dice: u32, minus_one: bool, banner: bool) -> f64 {
    let value = |d: u32| if minus_one { d.saturating_sub(1).max(1) } else { d };
    let foe_wins = |e: u32, h: u32| {
        if e > h {
            1.0
        } else if e == h {
            0.5
        } else {
            0.0
        }
    };
    let mut won = 0.0;
    let cases = 6u32.pow(dice);
    for code in 0..cases {
        let h = (0..dice).map(|i| code / 6u32.pow(i) % 6 + 1).max().unwrap_or(0);
        for d in 1..=6 {
            let e = value(d);
            let after: f64 = (1..=6).map(|d2| foe_wins(value(d2), h)).sum::<f64>() / 6.0;
            let reroll = banner && (e < h || (e == h && after > 0.5));
            let foe = if reroll { after } else { foe_wins(e, h) };
            won += (1.0 - foe) / f64::from(cases) / 6.0;
        }
    }
    won
}

#[test]
fn the_charging_player_fights_first_the_fight_that_knocks_the_banner_down() {
    // Chariot 1 charges warrior X, chariot 2 the banner bearer B, 3.5" to X's left (his
    // banner reaches X). Defence 10 and 3 Wounds: Impact Hits (Strength 4, "6 then 5")
    // cannot slay either, so both fights happen; what the duels come to does not depend on
    // Wounds. Fought as charged, X fights with the banner's re-roll; the charging player
    // fights B first instead, and when chariot 2 wins, B lies Prone and gives X nothing.
    let text = r#"title = "banner first"
system = "mesbg"
seed = 8
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [2.0, 0.0]
facing = 0
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [-1.5, 0.0]
facing = 0
[[formations]]
name = "X"
count = 1
base = { round_mm = 25 }
front_centre = [2.0, 6.0]
facing = 180
profile = { fight = 4, strength = 3, defence = 10, attacks = 1, wounds = 3, courage = "7+" }
[[formations]]
name = "Bearer"
count = 1
base = { round_mm = 25 }
front_centre = [-1.5, 6.0]
facing = 180
banner = true
profile = { fight = 4, strength = 3, defence = 10, attacks = 1, wounds = 3, courage = "7+" }
[rules]
grip = "one_handed"   # the derivation holds the chariots' weapons one-handed (tests/rules/grip.rs derives two-handed)
"#;
    let p_banner = chariot_beats_one_die(2, false, true);
    let p_plain = chariot_beats_one_die(2, false, false);
    let q = chariot_beats_one_die(2, true, true);
    assert!((p_plain - pooled_duel(2, 1)).abs() < 1e-12, "the plain duel, two ways");
    let first = means(&plan_of(text, vec![0, 1]), 8, TRIALS);
    check(&first, "chariot2.fight_won", q);
    check(&first, "chariot1.fight_won", q * p_plain + (1.0 - q) * p_banner);
    let as_charged = text.replace("seed = 8\n", "seed = 8\n[turn]\nfight_order = \"as_charged\"\n");
    let charged = means(&plan_of(&as_charged, vec![0, 1]), 8, TRIALS);
    check(&charged, "chariot2.fight_won", q);
    check(&charged, "chariot1.fight_won", p_banner);
}

#[test]
fn a_chariot_that_pivots_into_a_friend_is_moved_away_just_enough() {
    // An Iron Hills chariot (an oval 105 x 170 mm: 2.07" x 3.35" half-axes) charges first
    // with a 45 degree pivot towards a Khandish chariot waiting 0.1" off its right side
    // (centre 3.348" east). Turned 45 degrees, the oval reaches sqrt((2.07^2 + 3.35^2) / 2)
    // = 2.78" east, past the Khandish's left edge at 3.348 - 1.181 = 2.17": the pivot would
    // overlap it. A chariot is never moved by another's pivot (Immovable Object), so the
    // pivoting one is moved away, west along the line between their centres, until they
    // just touch.
    let text = r#"title = "a pivot into a friend"
system = "mesbg"
seed = 9
[turn]
order = [2, 1]
[[chariots]]
profile = "Khandish Charioteer"
side = "good"
at = [3.348, 0.0]
facing = 0
[[chariots]]
profile = "Iron Hills Chariot"
side = "good"
at = [0.0, 0.0]
facing = 0
pivots = [45]
[[formations]]
name = "Far"
count = 1
base = { round_mm = 25 }
front_centre = [0.0, 30.0]
facing = 180
profile = "Mordor Orc Warrior"
"#;
    let plan = plan_of(text, vec![1, 0]);
    let first = &plan.nodes[0];
    assert_eq!(first.chariot, 1, "the Iron Hills chariot charges first");
    let start = first.legs[0].start;
    let oval = plan.scenario.entries()[1].chariot.base.footprint();
    let khandish = plan.scenario.entries()[0].chariot.base.footprint();
    let waiting = plan.scenario.entries()[0].chariot.start;
    let unmoved = charioteer::geometry::Pose { centre: Vec2::new(0.0, 0.0), facing: 45.0 };
    assert!(
        charioteer::geometry::footprint_gap(&oval, &unmoved, &khandish, &waiting) < -0.3,
        "turned in place it overlaps"
    );
    assert!((start.facing - 45.0).abs() < 1e-9);
    assert!(start.centre.x < 0.0 && start.centre.y.abs() < 1e-9, "moved west only: {:?}", start.centre);
    let gap = charioteer::geometry::footprint_gap(&oval, &start, &khandish, &waiting);
    assert!((0.0..1e-3).contains(&gap), "just touching after: gap {gap}");
}

/// [`ONE_WARRIOR`] with a Hero on chariot 1 who adds no dice (Attacks 0) and has one Might
/// to spend on his chariot's To Wound rolls; `strike_order` as given.
fn hero_on_the_first(strike_order: &str) -> String {
    let hero = "facing = 0\n\n[chariots.hero]\nname = \"Driver\"\nfight = 1\nstrength = 1\ndefence = 3\nattacks = 0\nwounds = 1\ncourage = \"6+\"\nmight = 1\nmight_policy = \"wound\"\n";
    let text = ONE_WARRIOR.replacen("facing = 0\n", hero, 1);
    format!("{text}\n[turn]\nstrike_order = \"{strike_order}\"\n")
}

#[test]
fn in_a_fight_won_together_the_free_strikes_come_before_the_might() {
    let slain = 5.0 / 9.0;
    let both = (1.0 - slain) * (1.0 - slain);
    let win = pooled_duel(4, 1);
    // One Strike: two rolls at 5+ (the warrior is Trapped); it wounds with 1 - (2/3)^2 =
    // 5/9; its best die is a 4 with (4/6)^2 - (3/6)^2 = 7/36 (one Might makes it a 5);
    // both dice miss by more with 1/4.
    let (wounds, fixable, hopeless): (f64, f64, f64) = (5.0 / 9.0, 7.0 / 36.0, 0.25);
    // The Hero spends his Might on the first of his two Strikes that can use it.
    let spends = fixable * (1.0 + hopeless);
    // Free first: chariot 2's two free Strikes go first; Might only if both missed.
    let plan = plan_of(&hero_on_the_first("free_first"), vec![0, 1]);
    let all = means(&plan, 21, TRIALS);
    check(&all, "chariot1.might_spent", both * win * (1.0 - wounds).powi(2) * spends);
    check(&all, "chariot2.fight_kills", both * win * (1.0 - (1.0 - wounds).powi(2)));
    // As charged: chariot 1 strikes first and spends at once.
    let plan = plan_of(&hero_on_the_first("as_charged"), vec![0, 1]);
    let all = means(&plan, 22, TRIALS);
    check(&all, "chariot1.might_spent", both * win * spends);
    // Either way the model dies as often: he survives the Hero's two Strikes only when both
    // are hopeless (the Might fixes the first that is not), the other two with (4/9)^2.
    let survives = hopeless * hopeless * (1.0 - wounds).powi(2);
    check(&all, "fight_kills", both * win * (1.0 - survives));
}

/// Two chariots, one from each side, both touching two models side by side: a Heavy one
/// (Strength 6) and a Light one (Strength 2), no Impact Hits; X has Defence 8 and 3 Wounds,
/// Y Defence 4 and 2 Wounds, both Fight 4, 1 Attack. Two splits are legal: Heavy on X and
/// Light on Y, or Heavy on Y and Light on X.
const TWO_BY_TWO: &str = r#"title = "two chariots, two models, a choice"
system = "mesbg"
seed = 5

[[chariots]]
name = "Heavy"
profile = "Khandish Charioteer"
strength = 6
impact = { hits = "0", strength = 1 }
side = "evil"
at = [0.0, 0.0]
facing = 0

[[chariots]]
name = "Light"
profile = "Khandish Charioteer"
strength = 2
impact = { hits = "0", strength = 1 }
side = "evil"
at = [0.0, 8.0]
facing = 180

[[formations]]
name = "X"
count = 1
base = { round_mm = 25 }
front_centre = [-0.5, 4.0]
facing = 180
profile = { fight = 4, strength = 3, defence = 8, attacks = 1, wounds = 3, courage = "4+" }

[[formations]]
name = "Y"
count = 1
base = { round_mm = 25 }
front_centre = [0.5, 4.0]
facing = 180
profile = { fight = 4, strength = 3, defence = 4, attacks = 1, wounds = 2, courage = "4+" }
[rules]
grip = "one_handed"   # the derivation holds the chariots' weapons one-handed (tests/rules/grip.rs derives two-handed)
"#;

/// P(at least `k` of `n` rolls succeed, each with `p`).
fn binomial_at_least(n: u32, p: f64, k: u32) -> f64 {
    (k..=n)
        .map(|j| {
            (1..=j).fold(1.0, |c, i| c * f64::from(n - j + i) / f64::from(i))
                * p.powi(j as i32)
                * (1.0 - p).powi((n - j) as i32)
        })
        .sum()
}

#[test]
fn the_charging_player_pairs_for_the_most_expected_kills_from_each_fights_own_odds() {
    // Each fight: two dice (1 Attack + 1 for charging) against one, Fight 4 each; won, the
    // model is Trapped: two Strikes of two rolls each, and he falls when the Wounds of the
    // four rolls reach his own. To Wound: Strength 6 on Defence 8 and Strength 2 on
    // Defence 4 need 5+ (1/3); Strength 6 on Defence 4 needs 3+ (2/3); Strength 2 on
    // Defence 8 a 6 then a 5+ (1/18).
    let win = pooled_duel(2, 1);
    let heavy_on_x = binomial_at_least(4, 1.0 / 3.0, 3);
    let light_on_y = binomial_at_least(4, 1.0 / 3.0, 2);
    let heavy_on_y = binomial_at_least(4, 2.0 / 3.0, 2);
    let light_on_x = binomial_at_least(4, 1.0 / 18.0, 3);
    // Heavy on Y and Light on X slays more (0.89 against 0.52 models when won), though
    // Wounds spread and capped at one kill a model promise the other (1.11 against 1.07).
    assert!(heavy_on_y + light_on_x > heavy_on_x + light_on_y + 0.3);
    let capped = |p: f64, w: f64| (4.0 * p / w).min(1.0);
    assert!(capped(1.0 / 3.0, 3.0) + capped(1.0 / 3.0, 2.0) > capped(2.0 / 3.0, 2.0) + capped(1.0 / 18.0, 3.0));
    let plan = plan_of(TWO_BY_TWO, vec![0, 1]);
    let all = means(&plan, 31, TRIALS);
    check(&all, "chariot1.fight_fought", 1.0);
    check(&all, "chariot2.fight_fought", 1.0);
    check(&all, "chariot1.fight_kills", win * heavy_on_y);
    check(&all, "chariot2.fight_kills", win * light_on_x);
    check(&all, "fight_kills", win * (heavy_on_y + light_on_x));
    // Listed the other way round, the same split.
    let plan = plan_of(TWO_BY_TWO, vec![1, 0]);
    let all = means(&plan, 32, TRIALS);
    check(&all, "chariot1.fight_kills", win * heavy_on_y);
}

#[test]
fn the_pairing_weighs_a_pooled_fight_by_its_own_odds() {
    use charioteer::mesbg::turn::{TurnFight, expected_fight_kills};
    let plan = plan_of(ONE_WARRIOR, vec![0, 1]);
    let pooled = TurnFight { chariots: vec![0, 1], models: vec![0], cannot_back_away: Vec::new() };
    let help = charioteer::mesbg::rules::fight::FoeSupport::default();
    let order = charioteer::mesbg::scenario::StrikeOrder::FreeFirst;
    let got = expected_fight_kills(&pooled, &plan.plans, &help, order, (&|_| 0, &|_| false));
    // Four dice against one, then four Strikes of two rolls at 5+ at a one-Wound warrior.
    let want = pooled_duel(4, 1) * (1.0 - (2.0f64 / 3.0).powi(8));
    assert!((got - want).abs() < 1e-12, "{got} against {want}");
    // Alone, chariot 1: two dice against one, two Strikes.
    let alone = TurnFight { chariots: vec![0], models: vec![0], cannot_back_away: Vec::new() };
    let got = expected_fight_kills(&alone, &plan.plans, &help, order, (&|_| 0, &|_| false));
    let want = pooled_duel(2, 1) * (1.0 - (2.0f64 / 3.0).powi(4));
    assert!((got - want).abs() < 1e-12, "{got} against {want}");
}

#[test]
fn pairings_as_good_in_kills_are_broken_by_points() {
    // [`TWO_BY_TWO`] with X and Y alike (Defence 4, 1 Wound) but for their points: either
    // split slays as many, and the charging player sends the Heavy chariot (3+ to wound,
    // against 5+) at the dearer model, whichever it is.
    let win = pooled_duel(2, 1);
    let heavy = 1.0 - (1.0f64 / 3.0).powi(4);
    let light = 1.0 - (2.0f64 / 3.0).powi(4);
    for (x_points, y_points) in [(50, 5), (5, 50)] {
        let text = TWO_BY_TWO
            .replace(
                "defence = 8, attacks = 1, wounds = 3, courage = \"4+\" }",
                &format!("defence = 4, attacks = 1, wounds = 1, courage = \"4+\", points = {x_points} }}"),
            )
            .replace(
                "defence = 4, attacks = 1, wounds = 2, courage = \"4+\" }",
                &format!("defence = 4, attacks = 1, wounds = 1, courage = \"4+\", points = {y_points} }}"),
            );
        for order in [vec![0, 1], vec![1, 0]] {
            let plan = plan_of(&text, order);
            let all = means(&plan, 33, TRIALS);
            check(&all, "fight_kills", win * (heavy + light));
            check(&all, "points_slain", win * (50.0 * heavy + 5.0 * light));
        }
    }
}

#[test]
fn the_corridor_drawn_is_the_gap_between_the_standing_models_over_the_lines_depth() {
    use charioteer::mesbg::turn::corridor;
    // Two ranks of six facing south (models 0-5 the front, 6-11 the rear): the third file
    // gone from both ranks leaves a band one file wide, from the rear rank's back to the
    // front rank's front, between the second and fourth files' bases.
    let two = line(12, 2);
    let band = corridor(&[&two], &standing(&two, &[2, 8]), None).expect("a corridor");
    let r = two.base_mm / 25.4 / 2.0;
    let xs = |i: usize| two.centres[i].x;
    let ys: Vec<f64> = two.centres.iter().map(|c| c.y).collect();
    let (y_lo, y_hi) = (
        ys.iter().cloned().fold(f64::INFINITY, f64::min) - r,
        ys.iter().cloned().fold(f64::NEG_INFINITY, f64::max) + r,
    );
    let (x_a, x_b) = (xs(1), xs(3));
    let (x_lo, x_hi) = (x_a.min(x_b) + r, x_a.max(x_b) - r);
    for q in band {
        let on_x = (q.x - x_lo).abs() < 1e-9 || (q.x - x_hi).abs() < 1e-9;
        let on_y = (q.y - y_lo).abs() < 1e-9 || (q.y - y_hi).abs() < 1e-9;
        assert!(on_x && on_y, "corner {q:?} of {band:?}: x {x_lo:.3}..{x_hi:.3}, y {y_lo:.3}..{y_hi:.3}");
    }
    let width = band.iter().map(|q| q.x).fold(f64::NEG_INFINITY, f64::max)
        - band.iter().map(|q| q.x).fold(f64::INFINITY, f64::min);
    assert!((width - 2.0 * r).abs() < 1e-9, "one base wide: {width}");
    // No gap, no band.
    assert!(corridor(&[&two], &standing(&two, &[2]), None).is_none());
}

/// Chariot 1 (round, 60 mm) stops at a warrior from the south; chariot 2 (a 50 x 100 mm
/// box, facing north, east of him and a little south) pivots 45 degrees to the left at its
/// start: its front sweeps across his place and pushes him aside, off chariot 1's base,
/// and then drives into him. No Impact Hits, so he is never slain in the moves.
const PUSHED_OFF: &str = r#"title = "a pivot pushes a model off the chariot that stopped at him"
system = "mesbg"
seed = 7

[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 0.0]
facing = 0
impact = { hits = "0", strength = 1 }

[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
base = { rect_mm = [50, 100] }
at = [2.25, 5.0]
facing = 0
pivots = [-45]
impact = { hits = "0", strength = 1 }

[[formations]]
name = "Warrior"
count = 1
base = { round_mm = 25 }
front_centre = [0.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
"#;

#[test]
fn a_model_pushed_off_a_chariot_by_a_later_pivot_no_longer_fights_it() {
    let plan = plan_of(PUSHED_OFF, vec![0, 1]);
    let all = means(&plan, 41, TRIALS);
    // Chariot 1 touches nobody when the moves end: no fight for it.
    check(&all, "chariot1.fight_fought", 0.0);
    check(&all, "chariot2.fight_fought", 1.0);
    check(&all, "fights", 1.0);
    // Chariot 2 fights him alone: two dice against one, not the pooled four.
    let win = pooled_duel(2, 1);
    check(&all, "chariot2.fight_won", win);
    check(&all, "fight_kills", win * (1.0 - (2.0f64 / 3.0).powi(4)));
}

/// P(the chariots' `ours` dice beat the model's `theirs` dice when the chariots hold their
/// weapons two-handed: each of their faces shown 1 lower unless a 6, never below 1), equal
/// Fight, the roll-off even: enumerated over every face.
fn pooled_duel_two_handed(ours: u32, theirs: u32) -> f64 {
    let n = ours + theirs;
    let shown = |face: u32| if face == 6 { 6 } else { face.saturating_sub(1).max(1) };
    let mut win = 0.0;
    for code in 0..6u32.pow(n) {
        let faces: Vec<u32> = (0..n).map(|i| code / 6u32.pow(i) % 6 + 1).collect();
        let a = faces[..ours as usize].iter().map(|&f| shown(f)).max().unwrap_or(0);
        let b = faces[ours as usize..].iter().max().copied().unwrap_or(0);
        win += match a.cmp(&b) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Less => 0.0,
        };
    }
    win / 6f64.powi(n as i32)
}

#[test]
fn two_chariots_holding_their_weapons_two_handed_pool_the_lowered_dice() {
    // The Khandish chariots carry hand-and-a-half weapons; `grip = "two_handed"` holds
    // them so in every fight. The Impact Hits are untouched (4/9 leaves the warrior
    // standing each time); in the pooled fight the side's score is its best die as the
    // grip shows it, and each Trapped Strike is two rolls at 4+ (5+, one better).
    let text = format!("{ONE_WARRIOR}\n[rules]\ngrip = \"two_handed\"\n");
    let plan = plan_of(&text, vec![0, 1]);
    let all = means(&plan, 12, TRIALS);
    let both = (4.0f64 / 9.0).powi(2);
    let win = pooled_duel_two_handed(4, 1);
    assert!(win < pooled_duel(4, 1), "two-handed dice win less often");
    let miss4 = 0.5f64.powi(4);
    check(&all, "chariot1.fight_won", both * win);
    check(&all, "chariot1.fight_kills", both * win * (1.0 - miss4));
    check(&all, "chariot2.fight_kills", both * win * miss4 * (1.0 - miss4));
    check(&all, "chariot1.wounds_lost", both * (1.0 - win) / 6.0);
    // The exact engine for a turn gives the same, to the last digit.
    let exact = charioteer::mesbg::turn::exact_turn(&plan).expect("exact");
    let e = |name: &str| exact_mean(&exact, &plan, name);
    close(e("chariot1.fight_won"), both * win, "chariot1.fight_won, exact");
    close(e("chariot1.fight_kills"), both * win * (1.0 - miss4), "chariot1.fight_kills, exact");
    close(e("chariot2.fight_kills"), both * win * miss4 * (1.0 - miss4), "chariot2.fight_kills, exact");
    // Left to choose (`best`), each chariot holds it as it would alone against the D5
    // warrior: one-handed, 143/216 * (1 - (2/3)^4) = 0.531 against two-handed
    // 238/432 * (1 - (1/2)^4) = 0.516, so the pooled fight is the one-handed one that
    // `two_chariots_in_one_fight_pool_their_dice_and_strike_in_turn` derives.
    let one = 143.0 / 216.0 * (1.0 - (2.0f64 / 3.0).powi(4));
    let two = 238.0 / 432.0 * (1.0 - 0.5f64.powi(4));
    assert!(one > two);
}
