//! One test per rule reading of the MESBG rules reference that a charge meets (the points
//! corrected on 2026-12-01 and the options around them). Every expected value is derived
//! by hand in the comment beside it, never read back from the engine; the engine's exact
//! distribution and its Monte Carlo are both held to it where both apply.

use charioteer::mesbg::exact::exact;
use charioteer::mesbg::plan::{SAME_TIME_INCHES, SAME_TIME_MM, compile};
use charioteer::mesbg::resolve::{Event, Streams, TrialRange, replay, run};
use charioteer::mesbg::scenario::{BreakPoint, CavalryPassed, MesbgRules, parse};
use charioteer::mesbg::tally::Metric;
use std::sync::atomic::AtomicBool;

/// A chariot at the origin facing north, with the given extra chariot fields, hero table,
/// terrain and formations, and `[rules]` lines.
fn scenario(chariot: &str, hero: &str, rest: &str, rules: &str) -> String {
    format!(
        r#"title = "reading"
system = "mesbg"
[chariot]
profile = "Khandish Chariot upgrade for a King"
side = "evil"
at = [0.0, 0.0]
facing = 0
{chariot}
{hero}
[charge]
pivots = [0, 0, 0]
{rest}
[rules]
{rules}
"#
    )
}

/// A wood across the path from y = 2 to y = 4.
const WOOD: &str = r#"[[terrain]]
name = "Wood"
kind = "difficult"
polygon = [[-5.0, 2.0], [5.0, 2.0], [5.0, 4.0], [-5.0, 4.0]]
"#;

fn exact_p(text: &str, metric: Metric, value: usize) -> f64 {
    let plan = compile(&parse(text, "t.toml").unwrap());
    let d = exact(&plan).unwrap();
    d.marginal(metric).get(value).copied().unwrap_or(0.0)
}

/// Monte Carlo P(metric = value) with its standard error.
fn sampled_p(text: &str, metric: Metric, value: usize, trials: u64) -> (f64, f64) {
    let s = parse(text, "t.toml").unwrap();
    let plan = compile(&s);
    let tally = run(
        &plan,
        Streams::new(11, s.hash()),
        TrialRange { first: 0, count: trials },
        &|_| {},
        &AtomicBool::new(false),
    )
    .unwrap();
    let h = tally.histogram(metric);
    let p = h.get(value).copied().unwrap_or(0) as f64 / trials as f64;
    (p, (p * (1.0 - p) / trials as f64).sqrt().max(1.0 / trials as f64))
}

fn both_agree(text: &str, metric: Metric, value: usize, expected: f64) {
    let e = exact_p(text, metric, value);
    assert!((e - expected).abs() < 1e-12, "exact {e} vs hand {expected}");
    let (p, se) = sampled_p(text, metric, value, 400_000);
    assert!((p - expected).abs() < 5.0 * se, "sampled {p} +- {se} vs hand {expected}");
}

const HERO_FATE_2: &str = r#"[chariot.hero]
profile = "Khandish King"
might = 0
fate = 2
"#;

#[test]
fn fate_is_retried_on_the_same_wound() {
    // Through a wood, nothing else: the D6 is a 1 with 1/6, and the Wound is prevented
    // unless both Fate rolls fail (1/4, retried) or the one roll fails (1/2, once).
    let retry = scenario("", HERO_FATE_2, WOOD, "");
    both_agree(&retry, Metric::ChariotWoundsLost, 1, 1.0 / 6.0 / 4.0);
    let once = scenario("", HERO_FATE_2, WOOD, "fate = \"once\"");
    both_agree(&once, Metric::ChariotWoundsLost, 1, 1.0 / 6.0 / 2.0);
    // Retried, the second point is spent only after a failed first roll: P(2 spent) =
    // 1/6 * 1/2.
    both_agree(&retry, Metric::FateSpent, 2, 1.0 / 12.0);
}

#[test]
fn fate_policy_can_keep_fate_for_the_hero() {
    // hero_only: no Fate on the chariot, so the terrain Wound stands with 1/6.
    let text = scenario("", &format!("{HERO_FATE_2}fate_policy = \"hero_only\"\n"), WOOD, "");
    both_agree(&text, Metric::ChariotWoundsLost, 1, 1.0 / 6.0);
    both_agree(&text, Metric::FateSpent, 0, 1.0);
    // lethal_only on a 3-Wound chariot: the terrain Wound is not its last, no Fate.
    let text = scenario("", &format!("{HERO_FATE_2}fate_policy = \"lethal_only\"\n"), WOOD, "");
    both_agree(&text, Metric::ChariotWoundsLost, 1, 1.0 / 6.0);
    // ... but on a 1-Wound chariot it is: slain only if both rolls fail, 1/6 * 1/4.
    let text = scenario("wounds = 1", &format!("{HERO_FATE_2}fate_policy = \"lethal_only\"\n"), WOOD, "");
    both_agree(&text, Metric::ChariotSlain, 1, 1.0 / 24.0);
}

#[test]
fn might_turns_the_terrain_one_into_a_two() {
    // One Might: the 1 becomes a 2, no Wound ever; the Might goes with the 1 (1/6).
    let hero = "[chariot.hero]\nprofile = \"Khandish King\"\nmight = 1\nfate = 0\n";
    let text = scenario("", hero, WOOD, "");
    both_agree(&text, Metric::ChariotWoundsLost, 0, 1.0);
    both_agree(&text, Metric::TerrainWound, 1, 0.0);
    both_agree(&text, Metric::MightSpent, 1, 1.0 / 6.0);
    // A Hero who keeps Might off saves takes the Wound with 1/6.
    let text = scenario("", &format!("{hero}might_on_saves = false\n"), WOOD, "");
    both_agree(&text, Metric::ChariotWoundsLost, 1, 1.0 / 6.0);
}

#[test]
fn might_raises_a_failed_fate_roll() {
    // A wall ends the drive: three S6 hits against D7, each wounding on 5+ (1/3). The Hero
    // has one Fate point and one Might, kept out of the fight (policy "none") but spent on
    // saves: the first Wound is prevented on a Fate roll of 4+, or of 3 lifted by the
    // Might (4/6 in all); later Wounds find no Fate left.
    let wall = "[[terrain]]\nname = \"Wall\"\nkind = \"obstacle\"\nfrom = [-5.0, 8.0]\nto = [5.0, 8.0]\n";
    let hero = "[chariot.hero]\nprofile = \"Khandish King\"\nmight = 1\nfate = 1\nmight_policy = \"none\"\n";
    let text = scenario("", hero, wall, "");
    // Wounds lost = wounding hits minus one if the first was saved. P(no Wound) =
    // P(0 hits) + P(exactly 1 hit) * 4/6 = (2/3)^3 + 3 (1/3)(2/3)^2 * 2/3.
    let p0 = (2.0f64 / 3.0).powi(3);
    let p1 = 3.0 * (1.0 / 3.0) * (2.0f64 / 3.0).powi(2);
    both_agree(&text, Metric::ChariotWoundsLost, 0, p0 + p1 * 4.0 / 6.0);
    // Without Might on Fate rolls, a single Fate roll saves 1/2.
    let text = scenario("", hero, wall, "might_on_fate = false");
    both_agree(&text, Metric::ChariotWoundsLost, 0, p0 + p1 * 0.5);
}

#[test]
fn the_terrain_wound_is_immediate() {
    // A one-Wound chariot, the wood at y = 2..4, a single warrior in reach beyond it at
    // y = 6. Slain by the test (1/6) it stops on entering the wood and never touches him:
    // contacts = 0 exactly when the test slew it.
    let warrior = r#"[[formations]]
name = "Line"
count = 1
profile = "Warrior of Minas Tirith"
front_centre = [0.0, 6.0]
facing = 180
"#;
    let text = scenario("wounds = 1", "", &format!("{WOOD}{warrior}"), "");
    both_agree(&text, Metric::Contacts, 0, 1.0 / 6.0);
    // No fight after a slaying: P(fight) = 5/6 * P(the warrior survives 2 hits at S4 v D5)
    // = 5/6 * (2/3)^2.
    both_agree(&text, Metric::FightFought, 1, 5.0 / 6.0 * 4.0 / 9.0);
}

#[test]
fn difficult_terrain_measured_two_ways() {
    // The 60 mm base (radius r inches) heading north from y = 0, Move 10, the wood from
    // y = 2 to y = 4. Any part: inside from 2 - r to 4 + r, that stretch costs double, so
    // it drives 10 - (2 + 2r). Centre: inside from 2 to 4, costing 4 for 2, so 8 in all.
    let r = 30.0 / 25.4;
    let any = compile(&parse(&scenario("", "", WOOD, ""), "t").unwrap());
    assert!((any.path_length - (10.0 - (2.0 + 2.0 * r))).abs() < 1e-6, "{}", any.path_length);
    assert!((any.difficult_from.unwrap() - (2.0 - r)).abs() < 1e-6);
    let centre = compile(&parse(&scenario("", "", WOOD, "difficult_terrain_measure = \"centre\""), "t").unwrap());
    assert!((centre.path_length - 8.0).abs() < 1e-6, "{}", centre.path_length);
    assert!((centre.difficult_from.unwrap() - 2.0).abs() < 1e-6);
}

#[test]
fn break_point_at_half_or_more() {
    // An army of 10 with 4 casualties: one more kill makes 5 = half (Broken by default),
    // two more make 6 (Broken under either reading).
    let line = r#"[[formations]]
name = "Line"
count = 6
profile = "Warrior of Minas Tirith"
front_centre = [0.0, 6.0]
facing = 180
[army]
models = 10
casualties = 4
"#;
    let half = scenario("", "", line, "");
    let kills_at_least = |text: &str, k: usize| -> f64 {
        let plan = compile(&parse(text, "t").unwrap());
        exact(&plan).unwrap().marginal(Metric::Kills).iter().skip(k).sum()
    };
    both_agree(&half, Metric::ArmyBroken, 1, kills_at_least(&half, 1));
    let more = scenario("", "", line, "break_point = \"more_than_half\"");
    both_agree(&more, Metric::ArmyBroken, 1, kills_at_least(&more, 2));
    assert!(BreakPoint::HalfOrMore.broken(5, 10) && !BreakPoint::MoreThanHalf.broken(5, 10));
}

#[test]
fn break_point_of_an_odd_army() {
    // An army of 7: half is 3.5, so "half or more" needs 4 casualties and "more than half"
    // needs 4 too (3 is less than half, 4 more than half). Integer division (7 / 2 = 3)
    // would break it at 3.
    for reading in [BreakPoint::HalfOrMore, BreakPoint::MoreThanHalf] {
        assert!(!reading.broken(3, 7), "{reading:?}: 3 of 7");
        assert!(reading.broken(4, 7), "{reading:?}: 4 of 7");
    }
    // In a charge: an army of 7 with 2 casualties is Broken by 2 kills or more, not 1.
    let line = r#"[[formations]]
name = "Line"
count = 5
profile = "Warrior of Minas Tirith"
front_centre = [0.0, 6.0]
facing = 180
[army]
models = 7
casualties = 2
"#;
    let kills_at_least = |text: &str, k: usize| -> f64 {
        let plan = compile(&parse(text, "t").unwrap());
        exact(&plan).unwrap().marginal(Metric::Kills).iter().skip(k).sum()
    };
    for rules in ["", "break_point = \"more_than_half\""] {
        let text = scenario("", "", line, rules);
        let two_or_more = kills_at_least(&text, 2);
        assert!(two_or_more > 0.0 && kills_at_least(&text, 1) > two_or_more + 1e-3);
        both_agree(&text, Metric::ArmyBroken, 1, two_or_more);
    }
}

#[test]
fn cavalry_is_passed_when_its_rider_dies_by_default() {
    assert_eq!(MesbgRules::default().cavalry_passed_when, CavalryPassed::RiderSlain);
}

#[test]
fn a_thrown_rider_makes_no_strikes() {
    // Replays of the cavalry example: whenever a rider was thrown with 2-5 (Rises from the
    // Dust) or lies Prone, no Strike of his on the chariot follows in that trial.
    let text = std::fs::read_to_string("scenarios/mesbg/chariot-into-cavalry-screen.toml").unwrap();
    let s = parse(&text, "cavalry").unwrap();
    let plan = compile(&s);
    let streams = Streams::new(1, s.hash());
    let mut thrown_trials = 0;
    for t in 0..20_000 {
        let (_, events) = replay(&plan, streams, t);
        let mut silenced = Vec::new();
        for e in &events {
            if let Event::Contact { model, outcome, .. } = e
                && !outcome.passed
                && (outcome.prone || matches!(outcome.thrown, Some(2..=5)))
            {
                silenced.push(*model);
            }
        }
        thrown_trials += usize::from(!silenced.is_empty());
        for e in &events {
            if let Event::Strike { by: Some(m), target: None, .. } = e {
                assert!(!silenced.contains(m), "trial {t}: thrown model {m} struck: {events:?}");
            }
        }
    }
    assert!(thrown_trials > 100, "the example throws riders: {thrown_trials}");
}

#[test]
fn nobody_backs_away_from_a_slain_chariot() {
    let text = std::fs::read_to_string("scenarios/mesbg/chariot-vs-chariot.toml").unwrap();
    let plan = compile(&parse(&text, "t").unwrap());
    let d = exact(&plan).unwrap();
    for (o, p) in &d.outcomes {
        if o.get(Metric::ChariotSlain) == 1 || o.get(Metric::FightKills) > 0 {
            assert_eq!(o.get(Metric::ChariotBackedAway), 0, "{o:?} with p {p}");
        }
    }
}

#[test]
fn models_touched_within_the_tolerance_are_touched_together() {
    assert_eq!(SAME_TIME_MM, 0.01);
    // Two single warriors side by side ahead of the chariot, one set back by `offset_mm`:
    // within the tolerance they form one contact group, beyond it two.
    let groups = |offset_mm: f64| {
        let back = offset_mm / 25.4;
        let rest = format!(
            "[[formations]]\nname = \"A\"\ncount = 1\nprofile = \"Warrior of Minas Tirith\"\nfront_centre = [-0.5, 6.0]\nfacing = 180\n\
             [[formations]]\nname = \"B\"\ncount = 1\nprofile = \"Warrior of Minas Tirith\"\nfront_centre = [0.5, {}]\nfacing = 180\n",
            6.0 + back
        );
        compile(&parse(&scenario("", "", &rest, ""), "t").unwrap()).groups.len()
    };
    assert_eq!(groups(0.0), 1);
    assert_eq!(groups(SAME_TIME_MM / 2.0), 1);
    assert_eq!(groups(SAME_TIME_MM * 3.0), 2);
    assert!((SAME_TIME_INCHES * 25.4 - SAME_TIME_MM).abs() < 1e-15);
}

#[test]
fn rules_not_built_yet_are_refused() {
    // Wargear that the engine does not simulate yet is refused with the field named, never
    // silently ignored. (Spears, pikes, shields with pikes, banners and enemy Heroes are
    // simulated: tests/rules/line.rs.)
    let line = |extra: &str| {
        format!(
            "[[formations]]\nname = \"Line\"\ncount = 2\nfront_centre = [0.0, 6.0]\nfacing = 180\n\
             profile = {{ fight = 4, strength = 3, defence = 5, attacks = 1, wounds = 1, courage = \"7+\"{extra} }}\n"
        )
    };
    for (extra, field) in [(", two_handed = true", "two_handed"), (", lance = true", "lance")] {
        let err = parse(&scenario("", "", &line(extra), ""), "t.toml").unwrap_err().to_string();
        assert!(err.contains(field), "{extra}: {err}");
    }
    // Chariots and models may stand on oval bases (tests/rules/line.rs); a model's rectangular
    // base and a zero-width oval are refused by field.
    assert!(parse(&scenario("base = { oval_mm = [105, 170] }", "", "", ""), "t.toml").is_ok());
    let oval_model = line("").replace("front_centre", "base = { oval_mm = [25, 40] }\nfront_centre");
    assert!(parse(&scenario("", "", &oval_model, ""), "t.toml").is_ok());
    let rect_model = line("").replace("front_centre", "base = { rect_mm = [25, 40] }\nfront_centre");
    let err = parse(&scenario("", "", &rect_model, ""), "t.toml").unwrap_err().to_string();
    assert!(err.contains("formations[0].base.rect_mm") && err.contains("round or oval"), "{err}");
    let flat = line("").replace("front_centre", "base = { oval_mm = [0, 40] }\nfront_centre");
    let err = parse(&scenario("", "", &flat, ""), "t.toml").unwrap_err().to_string();
    assert!(err.contains("formations[0].base.oval_mm") && err.contains("width"), "{err}");
}
