//! The line a chariot really meets (2024 wargear): supporting spears and pikes, and banners.
//! Every expected value is derived by hand in the test (enumerating dice where that is
//! clearer than algebra), never read back from the engine; the exact engine and the Monte
//! Carlo are both held to it.

use charioteer::exact::exact;
use charioteer::plan::compile;
use charioteer::resolve::{Event, Streams, TrialRange, replay, run};
use charioteer::scenario::parse;
use charioteer::tally::Metric;
use std::sync::atomic::AtomicBool;

/// A Fight 4, Strength 10 chariot (Evil, 1 Attack, +1 charging: two duel dice) whose one
/// Strength 1 Impact Hit cannot wound Defence 9, so it always stops at the first model and
/// fights; then `formations` and `[rules]` lines.
fn scenario(formations: &str, rules: &str) -> String {
    format!(
        r#"title = "line"
system = "mesbg"
[chariot]
name = "Test chariot"
side = "evil"
move = 10
fight = 4
strength = 10
defence = 7
attacks = 1
wounds = 3
courage = "7+"
impact = {{ hits = "1", strength = 1 }}
base = {{ round_mm = 60 }}
at = [0.0, 0.0]
[charge]
pivots = []
{formations}
[rules]
{rules}
"#
    )
}

/// A formation of `count` models in `ranks` straight behind the first, facing the chariot,
/// with the given extra profile fields and formation lines.
fn column(name: &str, count: u32, ranks: u32, front_y: f64, fight: u8, profile: &str, extra: &str) -> String {
    format!(
        "[[formations]]\nname = \"{name}\"\ncount = {count}\nranks = {ranks}\nbase = {{ round_mm = 25 }}\n\
         front_centre = [0.0, {front_y}]\nfacing = 180\n{extra}\n\
         profile = {{ fight = {fight}, strength = 3, defence = 9, attacks = 1, wounds = 1, courage = \"7+\"{profile} }}\n"
    )
}

/// P(the highest of n D6 is k).
fn high(n: i32, k: u32) -> f64 {
    (f64::from(k) / 6.0).powi(n) - (f64::from(k - 1) / 6.0).powi(n)
}

/// P(the chariot's two dice beat the enemy's n dice), ties going to the chariot with
/// `tie` (1 higher Fight, 0 lower, 1/2 a roll-off).
fn duel(n: i32, tie: f64) -> f64 {
    let mut win = 0.0;
    for a in 1..=6 {
        for d in 1..=6 {
            let p = high(2, a) * high(n, d);
            win += p * if a > d {
                1.0
            } else if a == d {
                tie
            } else {
                0.0
            };
        }
    }
    win
}

fn exact_p(text: &str, metric: Metric, value: usize) -> f64 {
    let plan = compile(&parse(text, "t.toml").unwrap_or_else(|e| panic!("{e}")));
    exact(&plan).unwrap().marginal(metric).get(value).copied().unwrap_or(0.0)
}

fn sampled_p(text: &str, metric: Metric, value: usize, trials: u64) -> (f64, f64) {
    let s = parse(text, "t.toml").unwrap();
    let plan = compile(&s);
    let range = TrialRange { first: 0, count: trials };
    let tally = run(&plan, Streams::new(5, s.hash()), range, &|_| {}, &AtomicBool::new(false)).unwrap();
    let p = tally.histogram(metric).get(value).copied().unwrap_or(0) as f64 / trials as f64;
    (p, (p * (1.0 - p) / trials as f64).sqrt().max(1.0 / trials as f64))
}

/// The exact engine equals `expected` to 1e-12 and 400,000 trials are within 5 standard
/// errors of it.
fn both_agree(text: &str, metric: Metric, value: usize, expected: f64, what: &str) {
    let e = exact_p(text, metric, value);
    assert!((e - expected).abs() < 1e-12, "{what}: exact {e} vs by hand {expected}");
    let (p, se) = sampled_p(text, metric, value, 400_000);
    assert!((p - expected).abs() < 5.0 * se, "{what}: sampled {p} +- {se} vs by hand {expected}");
}

#[test]
fn a_spear_behind_adds_a_die_and_a_strike_and_is_never_struck() {
    // The front model fights; the spear behind it (touching) adds a die at Fight 4 and, if
    // they win, a Strike. Both duel sides roll two dice at equal Fight: ties to a roll-off.
    let text = scenario(&column("Spears", 2, 2, 3.0, 4, ", spear = true", ""), "");
    let won = duel(2, 0.5);
    both_agree(&text, Metric::FightWon, 1, won, "fight won");
    // Won: two Strikes at the Trapped (knocked Prone) front model, S10 against D9 (4+),
    // two rolls each: a kill unless all four fail. The supporter is never struck.
    both_agree(&text, Metric::FightKills, 1, won * 15.0 / 16.0, "one kill");
    both_agree(&text, Metric::FightKills, 2, 0.0, "the supporter is not struck");
    // Lost: two Strikes (the model's and the supporter's), S3 against D7 (6+), on a
    // 3-Wound chariot: Wounds lost ~ Binomial(2, 1/6).
    let lost = 1.0 - won;
    both_agree(&text, Metric::ChariotWoundsLost, 1, lost * 2.0 * (1.0 / 6.0) * (5.0 / 6.0), "one Wound");
    both_agree(&text, Metric::ChariotWoundsLost, 2, lost / 36.0, "two Wounds");
    // Without the spear: one die against two, one Strike.
    let plain = scenario(&column("Plain", 2, 2, 3.0, 4, "", ""), "");
    both_agree(&plain, Metric::FightWon, 1, duel(1, 0.5), "no support");
    both_agree(&plain, Metric::ChariotWoundsLost, 2, 0.0, "one Strike cannot take two Wounds");
}

#[test]
fn pikes_support_three_deep_and_spears_do_not() {
    // Three deep: the second pike supports the front model, the third through it (three
    // dice); a third spear cannot support through the second (two dice).
    let pikes = scenario(&column("Pikes", 3, 3, 3.0, 4, ", pike = true", ""), "");
    both_agree(&pikes, Metric::FightWon, 1, duel(3, 0.5), "pikes");
    // Lost: three Strikes at 6+.
    let lost = 1.0 - duel(3, 0.5);
    both_agree(&pikes, Metric::ChariotWoundsLost, 3, lost / 216.0, "three Wounds from three Strikes");
    let spears = scenario(&column("Spears", 3, 3, 3.0, 4, ", spear = true", ""), "");
    both_agree(&spears, Metric::FightWon, 1, duel(2, 0.5), "spears");
}

#[test]
fn a_supporters_fight_counts_in_a_tie_by_the_ruleset() {
    // A Fight 3 model with a Fight 5 spear behind it, against the chariot's Fight 4: by
    // default the supporter's Fight is its side's highest (ties to the enemy); with
    // supporter_fight_counts = false the side's highest is 3 (ties to the chariot).
    let formations =
        column("Front", 1, 1, 3.0, 3, "", "") + &column("Spear", 1, 1, 3.0 + 25.0 / 25.4, 5, ", spear = true", "");
    both_agree(&scenario(&formations, ""), Metric::FightWon, 1, duel(2, 0.0), "supporter's Fight counts");
    both_agree(
        &scenario(&formations, "supporter_fight_counts = false"),
        Metric::FightWon,
        1,
        duel(2, 1.0),
        "only the fighters' Fight",
    );
}

/// P(the chariot wins) against one enemy die (at -1 when `bearer`), with a banner re-roll
/// of that die when the enemy would otherwise lose or tie; a tie at equal Fight is a
/// roll-off. Enumerated die by die.
fn banner_duel(bearer: bool) -> f64 {
    let enemy = |face: u32| if bearer { face.saturating_sub(1).max(1) } else { face };
    let mut win = 0.0;
    for a in 1..=6 {
        for d in 1..=6 {
            let p = high(2, a) * high(1, d);
            let first = enemy(d);
            if first > a {
                continue; // the enemy wins outright
            }
            // Lose or tie: the lowest (only) die is re-rolled, the new one stands.
            for x in 1..=6 {
                let again = enemy(x);
                win += p / 6.0
                    * if again < a {
                        1.0
                    } else if again == a {
                        0.5
                    } else {
                        0.0
                    };
            }
        }
    }
    win
}

#[test]
fn a_banner_re_rolls_a_losing_die_and_its_bearer_rolls_at_minus_one() {
    // A lone model with the bearer behind it (not a supporter: no spear): one die, re-rolled
    // when it would lose or tie.
    let behind = scenario(&column("Banner", 2, 2, 3.0, 4, "", "banner = true\nbanner_at = [2, 1]"), "");
    both_agree(&behind, Metric::FightWon, 1, banner_duel(false), "banner behind");
    // With banner_reroll = "never" the banner gives nothing: one plain die.
    let ignored =
        scenario(&column("Banner", 2, 2, 3.0, 4, "", "banner = true\nbanner_at = [2, 1]"), "banner_reroll = \"never\"");
    both_agree(&ignored, Metric::FightWon, 1, duel(1, 0.5), "banner_reroll = never");
    assert!(banner_duel(false) < duel(1, 0.5), "the banner helps the enemy");
    // The bearer in the fight: its own die at -1, and the re-roll.
    let fighting = scenario(&column("Bearer", 1, 1, 3.0, 4, "", "banner = true"), "");
    both_agree(&fighting, Metric::FightWon, 1, banner_duel(true), "bearer fighting");
    // A bearer more than 3" from the fight gives nothing.
    let far = column("Front", 1, 1, 3.0, 4, "", "") + &column("Far banner", 1, 1, 8.0, 4, "", "banner = true");
    both_agree(&scenario(&far, ""), Metric::FightWon, 1, duel(1, 0.5), "banner out of range");
}

#[test]
fn replay_names_the_supporters_and_the_banner() {
    let text = scenario(&column("Spears", 2, 2, 3.0, 4, ", spear = true", "banner = true\nbanner_at = [2, 1]"), "");
    let s = parse(&text, "t.toml").unwrap();
    let plan = compile(&s);
    let (_, events) = replay(&plan, Streams::new(5, s.hash()), 0);
    let support = events.iter().find_map(|e| match e {
        Event::Support { supporters, banner } => Some((supporters.clone(), *banner)),
        _ => None,
    });
    assert_eq!(support, Some((vec![1], true)), "{events:?}");
}

#[test]
fn wargear_that_cannot_work_is_refused_with_its_field() {
    let refused = |formations: &str, field: &str, words: &str| {
        let err = parse(&scenario(formations, ""), "t.toml").unwrap_err().to_string();
        assert!(err.contains(field) && err.contains(words), "{field}: {err}");
    };
    // A pike with no one to support: bases 10 mm apart.
    refused(
        &column("Loose pikes", 2, 2, 3.0, 4, ", pike = true", "gap_mm = 10"),
        "formations[0].profile.pike",
        "can never support",
    );
    refused(
        &column("Banner", 4, 2, 3.0, 4, "", "banner = true\nbanner_at = [3, 1]"),
        "formations[0].banner_at",
        "rank 3",
    );
    refused(
        &column("Banner", 4, 2, 3.0, 4, "", "banner = true\nbanner_at = [1, 5]"),
        "formations[0].banner_at",
        "file 5",
    );
    refused(&column("Banner", 4, 2, 3.0, 4, "", "banner_at = [1, 1]"), "formations[0].banner_at", "banner = true");
    refused(&column("Both", 2, 2, 3.0, 4, ", spear = true, pike = true", ""), "formations[0].profile.pike", "not both");
}
