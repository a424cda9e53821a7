//! Shieldwall (2024, `../shared/rules/mesbg.md`): a shielded model with the rule has +1
//! Defence while it touches two or more standing shielded friends with it. The expected
//! values here are worked out by hand from the To Wound chart and the board, never read
//! back from the engine: the Khandish chariot's Impact Hits are 2 at Strength 4, and a
//! Warrior of Minas Tirith with a shield is Defence 6 (7 braced). S4 against D6 wounds on
//! 5+ (1/3), against D7 on 6+ (1/6), so two hits slay a one-Wound model with 5/9 at D6 and
//! 11/36 at D7.

use charioteer::mesbg::exact;
use charioteer::mesbg::plan::compile;
use charioteer::mesbg::scenario::parse;
use charioteer::mesbg::tally::Metric;

/// P(two S4 Impact Hits slay a one-Wound model at Defence 6): 1 - (2/3)^2.
const AT_D6: f64 = 5.0 / 9.0;
/// The same at Defence 7: 1 - (5/6)^2.
const AT_D7: f64 = 11.0 / 36.0;

/// One rank of `count` Warriors of Minas Tirith with shields (library name, `shield =
/// true`), bases touching, facing the Khandish chariot 6" away whose centre line runs
/// `offset_mm` to the right of the rank's centre; `extra` goes under `[rules]`, `chariot`
/// beside the chariot's name.
fn rank(count: usize, offset_mm: f64, rules: &str, chariot: &str) -> String {
    format!(
        r#"
title = "shieldwall by hand"
system = "mesbg"
[chariot]
profile = "Khandish Charioteer"
side = "evil"
at = [{x}, 0.0]
facing = 0
{chariot}
[charge]
pivots = []
[[formations]]
name = "Wall"
count = {count}
gap_mm = 0
front_centre = [0.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
shield = true
[rules]
{rules}
"#,
        x = offset_mm / 25.4
    )
}

/// P(the higher of 2 dice beats 1 die), a tie (equal Fight) going to an even roll-off:
/// enumerated face by face.
fn two_dice_beat_one() -> f64 {
    let mut win = 0.0;
    for high in 1..=6u32 {
        let p_high = f64::from(high * high - (high - 1) * (high - 1)) / 36.0;
        for theirs in 1..=6u32 {
            win += p_high / 6.0
                * match high.cmp(&theirs) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                };
        }
    }
    win
}

fn exact_of(text: &str) -> exact::ExactDistribution {
    let scenario = parse(text, "t").unwrap_or_else(|e| panic!("{e:?}"));
    exact::exact(&compile(&scenario)).expect("exact")
}

/// A rank of five charged at its middle model: the middle is braced by its two neighbours
/// (D7). If it falls, the chariot drives on and touches its two neighbours at once; each
/// now touches only one standing friend (the middle was slain by the previous Impact Hits,
/// and they do not touch each other), so each is D6. The end models stand 50 mm off the
/// chariot's line, beyond its 30 mm + 12.5 mm reach: never touched.
#[test]
fn the_middle_of_a_rank_is_braced_and_its_fall_unbraces_its_neighbours() {
    let d = exact_of(&rank(5, 0.0, "", ""));
    let kills = d.summary(Metric::ImpactKills).mean;
    let expected = AT_D7 + AT_D7 * 2.0 * AT_D6;
    assert!((kills - expected).abs() < 1e-12, "impact kills {kills} vs {expected} by hand");
    let through = d.summary(Metric::Breakthrough).mean;
    assert!((through - AT_D7 * AT_D6 * AT_D6).abs() < 1e-12, "drove through {through}");
    // The named option turns it off: every model is D6.
    let off = exact_of(&rank(5, 0.0, "shieldwall = false", ""));
    let kills_off = off.summary(Metric::ImpactKills).mean;
    assert!((kills_off - (AT_D6 + AT_D6 * 2.0 * AT_D6)).abs() < 1e-12, "without Shieldwall {kills_off}");
}

/// A rank of three: the middle has two shielded neighbours (braced), each end only one.
#[test]
fn a_model_with_one_shielded_neighbour_is_not_braced() {
    let d = exact_of(&rank(3, 0.0, "", ""));
    let kills = d.summary(Metric::ImpactKills).mean;
    assert!((kills - (AT_D7 + AT_D7 * 2.0 * AT_D6)).abs() < 1e-12, "{kills}");
    // Charged at an end model (the chariot's line through the right-hand end, 25 mm
    // right of the centre): the end has one neighbour, D6; if it falls, the middle (still
    // touching the other end only) is touched next, D6 too.
    let end = exact_of(&rank(3, 25.0, "", ""));
    let first = end.summary(Metric::Contacts);
    assert!(first.mean > 1.0, "the chariot reaches the middle after the end: {}", first.mean);
    let p_first_slain = 1.0 - end.marginal(Metric::ImpactKills)[0];
    assert!((p_first_slain - AT_D6).abs() < 1e-12, "the end model falls with {p_first_slain}");
}

/// A rank of four charged at the gap between its two middle models: both are touched at
/// once and braced (each touches a standing end and the other), so the Impact Hits face D7
/// on both. In the fight the bonus follows who survived: when one of the two fell, the
/// other touches only its end model and fights at D6.
///
/// The fight, by hand: a chariot of Fight 4 with its charge bonus rolls 2 dice against the
/// warrior's one (Fight 4): it wins on a higher die, and a tie (equal Fight) on the roll-off
/// (1/2). Winning, it knocks the warrior Prone, so each of its 2 Strikes (Strength 4 here,
/// the chariot's written beside the name) is two To Wound rolls: 5+ at D6, so 1 - (2/3)^2
/// per Strike, and the warrior (one Wound) survives both with (4/9)^2.
#[test]
fn a_survivor_whose_partner_fell_fights_without_the_bonus() {
    let d = exact_of(&rank(4, 0.0, "", "strength = 4"));
    // Neither falls to the Impact Hits (both D7): stopped at the first contact.
    let none = d
        .outcomes
        .iter()
        .filter(|(o, _)| o.get(Metric::Contacts) == 2 && o.get(Metric::ImpactKills) == 0)
        .map(|(_, p)| p)
        .sum::<f64>();
    let expected_none = (1.0 - AT_D7) * (1.0 - AT_D7);
    assert!((none - expected_none).abs() < 1e-12, "both stand: {none} vs {expected_none}");
    // Exactly one falls: the fight is against the other, unbraced.
    let one: Vec<_> =
        d.outcomes.iter().filter(|(o, _)| o.get(Metric::Contacts) == 2 && o.get(Metric::ImpactKills) == 1).collect();
    let p_one: f64 = one.iter().map(|(_, p)| p).sum();
    assert!((p_one - 2.0 * AT_D7 * (1.0 - AT_D7)).abs() < 1e-12, "one falls: {p_one}");
    let win = two_dice_beat_one();
    let kill_at_d6 = 1.0 - (4.0f64 / 9.0).powi(2);
    let fight_kills: f64 = one.iter().map(|(o, p)| p * f64::from(o.get(Metric::FightKills))).sum::<f64>() / p_one;
    assert!(
        (fight_kills - win * kill_at_d6).abs() < 1e-12,
        "the survivor fights at D6: {fight_kills} vs {} by hand (at D7 it would be {})",
        win * kill_at_d6,
        win * (1.0 - (25.0f64 / 36.0).powi(2))
    );
}

/// A shield wall spaced apart is warned by field (its models do not touch, so none is
/// braced); laid out touching it is not.
#[test]
fn a_spaced_wall_is_warned_by_field() {
    let spaced = parse(&rank(5, 0.0, "", "").replace("gap_mm = 0", "gap_mm = 5"), "t").expect("valid");
    assert!(
        spaced.warnings.iter().any(|w| w.field == "formations[0].gap_mm" && w.message.contains("Shieldwall")),
        "{:?}",
        spaced.warnings
    );
    let touching = parse(&rank(5, 0.0, "", ""), "t").expect("valid");
    assert!(!touching.warnings.iter().any(|w| w.message.contains("Shieldwall")), "{:?}", touching.warnings);
}

/// The sampler plays the same wall: drawn from its tables and fought die by die (the
/// tables taken away), every metric of the four-model rank is within 5 standard errors of
/// the exact engine's value, at a fixed seed.
#[test]
fn the_sampler_plays_the_wall_from_tables_and_die_by_die() {
    use charioteer::mesbg::resolve::{self, Streams, TrialRange};
    use std::sync::atomic::AtomicBool;
    let scenario = parse(&rank(4, 0.0, "", "strength = 4"), "t").expect("valid");
    let plan = compile(&scenario);
    let exact = exact::exact(&plan).expect("exact");
    let mut by_dice = plan.clone();
    for g in &mut by_dice.groups {
        g.fights.clear();
        g.wounded_fights.clear();
    }
    by_dice.fast = None;
    let trials = 200_000;
    for (how, plan) in [("tables", &plan), ("die by die", &by_dice)] {
        let range = TrialRange { first: 0, count: trials };
        let tally =
            resolve::run(plan, Streams::new(7, scenario.hash()), range, &|_| {}, &AtomicBool::new(false)).expect("run");
        let summary = charioteer::mesbg::analysis::summarize(&tally, &plan.metrics);
        for a in exact::agreement(&summary, &exact, trials) {
            assert!(a.z.abs() < 5.0, "{how}: {} {} vs exact {} (z = {:.2})", a.metric.name(), a.estimate, a.exact, a.z);
        }
    }
}

/// An inline profile with `shieldwall = true`: with a shield it stands in the wall; with a
/// pike as well it does not (the pike takes the shield's use away), so the middle of a rank
/// of five is D6 as written rather than D7.
#[test]
fn an_inline_profile_with_the_rule_braces_unless_it_carries_a_pike() {
    let inline = |pike: bool| {
        rank(5, 0.0, "", "").replace(
            "profile = \"Warrior of Minas Tirith\"\nshield = true",
            &format!(
                "profile = {{ fight = 4, strength = 3, defence = 6, attacks = 1, wounds = 1, courage = \"7+\", base_mm = 25, shield = true, pike = {pike}, shieldwall = true }}"
            ),
        )
    };
    let shields = exact_of(&inline(false)).summary(Metric::ImpactKills).mean;
    assert!((shields - (AT_D7 + AT_D7 * 2.0 * AT_D6)).abs() < 1e-12, "shields: {shields}");
    let pikes = exact_of(&inline(true)).summary(Metric::ImpactKills).mean;
    assert!((pikes - (AT_D6 + AT_D6 * 2.0 * AT_D6)).abs() < 1e-12, "pikes and shields: {pikes}");
}

/// A turn of two chariots into a wall of four, each chariot on a 20 mm base (too narrow to
/// touch any model but the one in its lane: 10 + 12.5 mm < 25 mm) and Strength 4, chariot 1
/// in the lane of model 2, chariot 2 in the lane of model 3, in that order.
///
/// By hand: model 2 is braced by models 1 and 3 (D7), so chariot 1 slays it with 11/36.
/// Model 3 is braced by 2 and 4 only if 2 stands: chariot 2 slays it with 5/9 after 2 fell,
/// 11/36 otherwise. In the Fight phase (chariot 1's fight first: each fight's model braces
/// the other's, so the order stays the order of the charge) model 2 fights braced if 3
/// survived its hits, and model 3 fights braced only if 2 survived its hits and its fight
/// (a chariot that wins slays or knocks its model Prone, and a Prone model braces nobody).
/// A chariot wins its duel with `win` (2 dice against 1, equal Fight, the roll-off even);
/// winning, its 2 Strikes each roll twice against the Prone model: it slays him with
/// 1 - (4/9)^2 at D6 and 1 - (25/36)^2 at D7.
#[test]
fn in_a_turn_a_neighbour_slain_or_knocked_down_by_an_earlier_chariot_unbraces_the_next() {
    use charioteer::engine::{RuleSystem, Streams, TrialRange};
    use charioteer::mesbg::turn::compile_order;
    use std::sync::atomic::AtomicBool;
    let text = r#"
title = "a turn into a wall"
system = "mesbg"
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [-0.4921260, 0.0]
facing = 0
strength = 4
base = { round_mm = 20 }
[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [0.4921260, 0.0]
facing = 0
strength = 4
base = { round_mm = 20 }
[[formations]]
name = "Wall"
count = 4
gap_mm = 0
front_centre = [0.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
shield = true
[rules]
grip = "one_handed"   # the fights below are derived one-handed (tests/rules/grip.rs derives two-handed)
"#;
    let scenario = parse(text, "t").unwrap_or_else(|e| panic!("{e:?}"));
    let plan = compile_order(&scenario, vec![0, 1]).expect("the turn plans");
    let trials = 400_000u64;
    let streams = Streams::new(5, plan.scenario.hash());
    let range = TrialRange { first: 0, count: trials };
    let tally = charioteer::engine::run(&plan, streams, range, &|_| {}, &AtomicBool::new(false)).expect("runs");
    let mean = |name: &str| {
        let i = plan.metrics.defs.iter().position(|d| d.name == name).unwrap_or_else(|| panic!("no metric {name}"));
        let hist = plan.histogram(&tally, i);
        let n = tally.trials as f64;
        let m = hist.iter().enumerate().map(|(v, &c)| v as f64 * c as f64).sum::<f64>() / n;
        let second = hist.iter().enumerate().map(|(v, &c)| (v * v) as f64 * c as f64).sum::<f64>() / n;
        (m, (second - m * m).max(0.0).sqrt() / n.sqrt())
    };
    let check = |name: &str, expected: f64| {
        let (m, se) = mean(name);
        let bound = 5.0 * se.max(1e-4 / (trials as f64).sqrt());
        assert!((m - expected).abs() <= bound, "{name}: simulated {m:.5}, by hand {expected:.5} (5 se = {bound:.5})");
    };
    let (d6, d7) = (AT_D6, AT_D7);
    check("chariot1.impact_kills", d7);
    check("chariot2.impact_kills", d7 * d6 + (1.0 - d7) * d7);
    let win = two_dice_beat_one();
    let (k6, k7) = (1.0 - (4.0f64 / 9.0).powi(2), 1.0 - (25.0f64 / 36.0).powi(2));
    // Chariot 1 fights model 2 when it survived (25/36); model 3 then survived chariot 2's
    // braced hits with 25/36.
    check("chariot1.fight_kills", (1.0 - d7) * ((1.0 - d7) * win * k7 + d7 * win * k6));
    // Chariot 2 fights model 3 when it survived: after model 2 fell to the Impact Hits
    // (model 3 was hit at D6), unbraced; after model 2 survived them, braced unless chariot
    // 1 won its fight.
    let after_two_fell = d7 * (1.0 - d6) * win * k6;
    let after_two_stood = (1.0 - d7) * (1.0 - d7) * (win * win * k6 + (1.0 - win) * win * k7);
    check("chariot2.fight_kills", after_two_fell + after_two_stood);
}
