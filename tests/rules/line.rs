//! The line a chariot really meets (2024 wargear): supporting spears and pikes, and banners.
//! Every expected value is derived by hand in the test (enumerating dice where that is
//! clearer than algebra), never read back from the engine; the exact engine and the Monte
//! Carlo are both held to it.

use charioteer::mesbg::exact::exact;
use charioteer::mesbg::plan::compile;
use charioteer::mesbg::resolve::{Event, Streams, TrialRange, replay, run};
use charioteer::mesbg::scenario::parse;
use charioteer::mesbg::tally::Metric;
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

/// P(the chariot wins) against one enemy die (at -1 when `bearer`) at equal Fight (a tie
/// is a roll-off), with the banner's re-roll of that die taken when it raises the enemy's
/// chance: always when behind; on a tie only when a fresh die beats the roll-off's 1/2,
/// which (one die, the new one replacing the old) is when the tied value is 3 or less for
/// a plain die ((6 - a)/6 + 1/12 > 1/2) and 4 or less for a die at -1 ((5 - a)/6 + 1/12 for
/// a >= 2, plus the 1 and 2 both showing 1 when a = 1). Enumerated die by die.
fn banner_duel(bearer: bool) -> f64 {
    let enemy = |face: u32| if bearer { face.saturating_sub(1).max(1) } else { face };
    // The enemy's chance to win with a fresh die against the chariot's `a`.
    let fresh = |a: u32| -> f64 {
        (1..=6)
            .map(|x| {
                let v = enemy(x);
                if v > a {
                    1.0 / 6.0
                } else if v == a {
                    0.5 / 6.0
                } else {
                    0.0
                }
            })
            .sum()
    };
    let mut win = 0.0;
    for a in 1..=6 {
        for d in 1..=6 {
            let p = high(2, a) * high(1, d);
            let first = enemy(d);
            if first > a {
                continue; // the enemy wins outright
            }
            if first == a && fresh(a) <= 0.5 {
                win += p * 0.5; // a tie kept for the roll-off
                continue;
            }
            // Behind, or a tie worth re-rolling: the only die is re-rolled, the new one stands.
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

// ---- Enemy Heroes: Might in the duel and on To Wound rolls, Fate against Impact Hits and
// Strikes. Each expected value is enumerated here from the reference's rules.

/// A lone enemy model (Defence 10) with the given extra profile fields.
fn lone(fight: u8, attacks: u8, wounds: u8, extra: &str) -> String {
    format!(
        "[[formations]]\nname = \"Hero\"\ncount = 1\nbase = {{ round_mm = 25 }}\nfront_centre = [0.0, 3.0]\nfacing = 180\n\
         profile = {{ fight = {fight}, strength = 3, defence = 10, attacks = {attacks}, wounds = {wounds}, courage = \"6+\"{extra} }}\n"
    )
}

/// P(highest of two chariot dice = a) x P(the Hero's highest of n = h), over every (a, h),
/// with `f(a, h)` the chariot's chance of winning the duel given them.
fn over_duel_dice(n: i32, f: impl Fn(u32, u32) -> f64) -> f64 {
    let mut total = 0.0;
    for a in 1..=6 {
        for h in 1..=6 {
            total += high(2, a) * high(n, h) * f(a, h);
        }
    }
    total
}

#[test]
fn an_enemy_heros_might_answers_the_chariot_in_the_duel() {
    // A Fight 5 Hero with two dice and 2 Might against the Fight 4 chariot's two dice: he
    // wins ties on Fight, so he spends a - h Might whenever the chariot leads by 1 or 2; the
    // chariot wins only by 3 or more.
    let text = scenario(&lone(5, 2, 3, ", might = 2, will = 0, fate = 0, might_policy = \"win_duel\""), "");
    let won = over_duel_dice(2, |a, h| f64::from(u8::from(a >= h + 3)));
    both_agree(&text, Metric::FightWon, 1, won, "Fight 5 Hero, 2 Might: chariot wins");
    let spent = |k: u32| over_duel_dice(2, move |a, h| f64::from(u8::from(a == h + k)));
    both_agree(&text, Metric::FoeMightSpent, 1, spent(1), "Might spent 1");
    both_agree(&text, Metric::FoeMightSpent, 2, spent(2), "Might spent 2");

    // Equal Fight (a tie is a roll-off): behind by one he spends 2 to win outright while
    // that stays at most 6, else 1 for the roll-off; behind by two, 2 for the roll-off; on a
    // tie, 1 to win outright (below 6). The chariot, with no Might, cannot answer.
    let text = scenario(&lone(4, 2, 3, ", might = 2, will = 0, fate = 0, might_policy = \"win_duel\""), "");
    let won = over_duel_dice(2, |a, h| match a as i32 - h as i32 {
        d if d >= 3 => 1.0,
        2 => 0.5,
        1 if a == 6 => 0.5,
        1 => 0.0,
        0 if a == 6 => 0.5,
        _ => 0.0,
    });
    both_agree(&text, Metric::FightWon, 1, won, "Fight 4 Hero, 2 Might: chariot wins");
    // Without Might in his policy the duel is the plain one.
    let text = scenario(&lone(4, 2, 3, ", might = 2, will = 0, fate = 0, might_policy = \"none\""), "");
    both_agree(&text, Metric::FightWon, 1, duel(2, 0.5), "Hero keeping his Might");
    both_agree(&text, Metric::FoeMightSpent, 0, 1.0, "Might kept");
}

#[test]
fn an_enemy_heros_fate_and_might_save_him_from_the_chariots_strikes() {
    // A Fight 1 Hero (1 Wound, 1 Fate, D10) loses ties to the Fight 4 chariot. Beaten, he is
    // Prone and Trapped: the chariot's two Strikes at Strength 10 roll twice each, 4+ to
    // wound. With one Fate point he lives only if no roll wounds (1/16) or one does (4/16)
    // and his Fate roll saves it (4+, or a 3 raised by his Might).
    let won = duel(1, 1.0);
    let text = scenario(&lone(1, 1, 1, ", might = 0, will = 0, fate = 1"), "");
    both_agree(&text, Metric::FightWon, 1, won, "won");
    let survive = 1.0 / 16.0 + 4.0 / 16.0 * 0.5;
    both_agree(&text, Metric::FoeHeroesSlain, 1, won * (1.0 - survive), "slain with Fate");
    both_agree(&text, Metric::FoeFateSpent, 1, won * 15.0 / 16.0, "Fate spent");
    // One Might point, kept for his Fate roll (might_policy none, might_on_saves default).
    let text = scenario(&lone(1, 1, 1, ", might = 1, will = 0, fate = 1, might_policy = \"none\""), "");
    let survive = 1.0 / 16.0 + 4.0 / 16.0 * (0.5 + 1.0 / 6.0);
    both_agree(&text, Metric::FoeHeroesSlain, 1, won * (1.0 - survive), "slain with Fate and Might");
    both_agree(&text, Metric::FoeMightSpent, 1, won * 15.0 / 16.0 / 6.0, "Might on the Fate roll");
    // Without Might on saves the Might stays unspent.
    let text = scenario(
        &lone(1, 1, 1, ", might = 1, will = 0, fate = 1, might_policy = \"none\", might_on_saves = false"),
        "",
    );
    both_agree(&text, Metric::FoeMightSpent, 0, 1.0, "no Might on saves");
}

#[test]
fn an_enemy_heros_might_turns_his_failed_to_wound_rolls() {
    // A Fight 6 Hero (never loses a duel to Fight 4 with... ) strikes the Defence 7 chariot
    // at Strength 3 (6+), one Strike, with 1 Might for the wound: a 5 becomes a 6. Duel:
    // the Hero with one die and Fight 6 wins when h >= a (ties on Fight).
    let text = scenario(&lone(6, 1, 3, ", might = 1, will = 0, fate = 0, might_policy = \"wound\""), "");
    let lost = over_duel_dice(1, |a, h| f64::from(u8::from(h >= a)));
    both_agree(&text, Metric::ChariotWoundsLost, 1, lost * 2.0 / 6.0, "a Wound with Might on a 5");
    both_agree(&text, Metric::FoeMightSpent, 1, lost / 6.0, "Might on the 5");
}

/// The Khandish chariot's two Strength 4 Impact Hits drive into a Defence 4 Hero (1 Wound,
/// 1 Fate), with `behind` after him.
fn hero_in_front(behind: &str) -> String {
    format!(
        r#"title = "hero in front"
system = "mesbg"
[chariot]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 0.0]
[charge]
pivots = []
[[formations]]
name = "Hero"
count = 1
base = {{ round_mm = 25 }}
front_centre = [0.0, 3.0]
facing = 180
profile = {{ fight = 1, strength = 1, defence = 4, attacks = 0, wounds = 1, courage = "6+", might = 0, will = 0, fate = 1 }}
{behind}"#
    )
}

#[test]
fn fate_saves_an_enemy_hero_from_impact_hits_and_counts_when_the_chariot_drives_past() {
    // Two hits at 4+ (S4 v D4): no Wound 1/4, one 1/2, two 1/4. Every Wound is lethal to a
    // 1-Wound Hero: he spends his Fate on the first (4+ saves), none is left for a second.
    // Slain: 1/2 x 1/2 + 1/4 = 1/2; Fate spent whenever a hit wounds: 3/4.
    let text = hero_in_front("");
    both_agree(&text, Metric::ImpactKills, 1, 0.5, "slain by Impact Hits");
    // Driven past (slain) he always spent his Fate: P(no fight and 1 Fate spent) = 1/2.
    let plan = compile(&parse(&text, "t.toml").unwrap());
    let joint = exact(&plan)
        .unwrap()
        .outcomes
        .iter()
        .filter(|(o, _)| o.get(Metric::FightFought) == 0 && o.get(Metric::FoeFateSpent) == 1)
        .map(|(_, p)| p)
        .sum::<f64>();
    assert!((joint - 0.5).abs() < 1e-12, "{joint}");
    // A Troll behind him: when the Hero falls the chariot drives on past him into it, and
    // the Fate he spent is counted from his own stream.
    let troll = "[[formations]]\nname = \"Troll\"\ncount = 1\nbase = { round_mm = 50 }\nfront_centre = [0.0, 5.5]\nfacing = 180\nprofile = \"Cave Troll\"\n";
    let text = hero_in_front(troll);
    let plan = compile(&parse(&text, "t.toml").unwrap());
    assert_eq!(plan.foe_heroes.len(), 1);
    let joint = |o: &charioteer::mesbg::tally::Outcome| {
        o.get(Metric::Contacts) == 2 && o.get(Metric::FoeHeroesSlain) == 1 && o.get(Metric::FoeFateSpent) == 1
    };
    let e: f64 = exact(&plan).unwrap().outcomes.iter().filter(|(o, _)| joint(o)).map(|(_, p)| p).sum();
    assert!((e - 0.5).abs() < 1e-12, "{e}");
    let s = parse(&text, "t.toml").unwrap();
    let streams = Streams::new(9, s.hash());
    let n = 200_000u64;
    let mut scratch = charioteer::mesbg::resolve::Scratch::default();
    let hits = (0..n)
        .filter(|&t| {
            joint(&charioteer::mesbg::resolve::trial(
                &plan,
                streams,
                t,
                &mut scratch,
                &mut charioteer::mesbg::resolve::Silent,
            ))
        })
        .count() as f64
        / n as f64;
    let se = (0.25 / n as f64).sqrt();
    assert!((hits - 0.5).abs() < 5.0 * se, "{hits}");
}

#[test]
fn a_pike_with_a_shield_rolls_at_minus_one() {
    // Two ranks of shielded pikes (Fight 4, as the chariot): the one in the fight and the
    // one supporting it each roll at -1 (a 1 stays 1). Ties are a roll-off.
    let text = scenario(&column("Shielded pikes", 2, 2, 3.0, 4, ", pike = true, shield = true", ""), "");
    let minus_one_high = |k: u32| {
        // P(max(face - 1, 1) over two dice <= k) = P(both faces <= k + 1), for k >= 1.
        let le = |k: u32| if k == 0 { 0.0 } else { (f64::from((k + 1).min(6)) / 6.0).powi(2) };
        le(k) - le(k - 1)
    };
    let mut won = 0.0;
    for a in 1..=6 {
        for h in 1..=5 {
            won += high(2, a)
                * minus_one_high(h)
                * if a > h {
                    1.0
                } else if a == h {
                    0.5
                } else {
                    0.0
                };
        }
    }
    both_agree(&text, Metric::FightWon, 1, won, "shielded pikes");
}

#[test]
fn a_hero_placed_in_a_line_stands_where_he_is_told() {
    let hero = "hero = { profile = \"Captain of Minas Tirith\", at = [1, 2] }";
    let text = scenario(&column("Line", 3, 1, 3.0, 4, "", hero), "");
    let s = parse(&text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let f = &s.formations[0];
    assert_eq!(f.hero.as_ref().map(|h| h.index), Some(1));
    assert_eq!(f.profile_of(1).hero.map(|h| (h.might, h.will, h.fate)), Some((2, 1, 1)));
    assert!(f.profile_of(0).hero.is_none());
    let plan = compile(&s);
    let heroes: Vec<usize> = plan.models.iter().filter(|m| m.hero.is_some()).map(|m| m.number).collect();
    assert_eq!(heroes, vec![2]);
}

#[test]
fn enemy_heroes_that_cannot_be_modelled_are_refused_by_field() {
    let refused = |formations: &str, field: &str, words: &str| {
        let err = parse(&scenario(formations, ""), "t.toml").unwrap_err().to_string();
        assert!(err.contains(field) && err.contains(words), "{field}: {err}");
    };
    refused(&lone(4, 1, 2, ", might = 1, will = 1"), "formations[0].profile.fate", "missing");
    refused(&lone(4, 1, 2, ", might_policy = \"wound\""), "formations[0].profile.might_policy", "for a Hero");
    refused(
        &lone(4, 1, 2, ", might = 1, will = 1, fate = 1, mount = { defence = 4, wounds = 1 }"),
        "formations[0].profile.might",
        "mounted",
    );
    refused(
        &column("Spear hero", 2, 2, 3.0, 4, ", spear = true, might = 1, will = 1, fate = 1", ""),
        "profile.spear",
        "Hero",
    );
    // A shield in a profile table is carried as written (its Defence is the table's).
    let shields = parse(&scenario(&column("Shields", 2, 2, 3.0, 4, ", shield = true", ""), ""), "t.toml").unwrap();
    assert!(shields.formations[0].profile.shield && !shields.formations[0].profile.pike);
    refused(
        &column("Pikes", 2, 2, 3.0, 4, ", pike = true, shield = true", "banner = true"),
        "formations[0].banner",
        "-2",
    );
    let captain = "hero = { profile = \"Captain of Minas Tirith\" }\nbanner = true";
    refused(&column("Line", 3, 1, 3.0, 4, "", captain), "formations[0].hero.at", "banner bearer");
    refused(
        &column("Line", 3, 1, 3.0, 4, "", "hero = { profile = \"Warrior of Minas Tirith\" }"),
        "formations[0].hero.profile.might",
        "might, will and fate",
    );
    refused(
        &column("Line", 3, 1, 3.0, 4, "", "hero = { profile = \"Captain of Minas Tirith\", at = [2, 1] }"),
        "formations[0].hero.at",
        "rank 2",
    );
    refused(
        &column(
            "Line",
            3,
            1,
            3.0,
            4,
            "",
            "hero = { profile = { fight = 5, strength = 4, defence = 6, attacks = 2, wounds = 2, courage = \"6+\", might = 1, will = 1, fate = 1, base_mm = 40 } }",
        ),
        "formations[0].hero.profile.base_mm",
        "25 mm",
    );
}

// ---- Models on oval bases: where the chariot meets them, how they stand in ranks, and
// whom they touch. Distances are worked out by hand from the bases' half-axes.

/// One formation of `count` models in `ranks` on 35 x 60 mm ovals, front centre 4" ahead,
/// facing `facing`, with `extra` profile fields.
fn ovals(count: u32, ranks: u32, facing: f64, extra: &str) -> String {
    format!(
        "[[formations]]\nname = \"Ovals\"\ncount = {count}\nranks = {ranks}\nbase = {{ oval_mm = [35, 60] }}\n\
         front_centre = [0.0, 4.0]\nfacing = {facing}\n\
         profile = {{ fight = 4, strength = 3, defence = 9, attacks = 1, wounds = 1, courage = \"7+\"{extra} }}\n"
    )
}

#[test]
fn a_chariot_meets_an_oval_base_at_its_half_length_or_half_width() {
    let mm = 25.4;
    // Facing the chariot, the oval's length lies along the drive: the 60 mm chariot (30 mm
    // radius) touches it when 30 + 30 mm separate their centres.
    let plan = compile(&parse(&scenario(&ovals(1, 1, 180.0, ""), ""), "t.toml").unwrap_or_else(|e| panic!("{e}")));
    assert!((plan.groups[0].distance - (4.0 - 60.0 / mm)).abs() < 1e-7, "{}", plan.groups[0].distance);
    // Turned side on, its width: 30 + 17.5 mm.
    let plan = compile(&parse(&scenario(&ovals(1, 1, 90.0, ""), ""), "t.toml").unwrap());
    assert!((plan.groups[0].distance - (4.0 - 47.5 / mm)).abs() < 1e-7, "{}", plan.groups[0].distance);
}

#[test]
fn ovals_stand_in_ranks_by_width_and_length_and_support_their_friends() {
    let s = parse(&scenario(&ovals(4, 2, 180.0, ", spear = true"), ""), "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let c = &s.formations[0].centres;
    // Side by side 35 mm apart, ranks 60 mm apart (facing south: the second rank is north).
    assert!(((c[1] - c[0]).length() - 35.0 / 25.4).abs() < 1e-12);
    assert!(((c[2] - c[0]).length() - 60.0 / 25.4).abs() < 1e-12);
    // The chariot stops against the front pair; each is supported by the spear behind it,
    // whose oval touches its own end to end.
    let plan = compile(&s);
    let group = &plan.groups[0];
    let all = vec![
        charioteer::mesbg::plan::support::Presence { in_fight: true, rider: true, prone: false };
        group.models.len()
    ];
    let support = plan.foe_support(0, &all);
    assert_eq!(support.supporters.len(), group.models.len(), "{support:?}");
    // A gap of 2 mm between the ranks and nobody touches: the spears are refused.
    let gapped = ovals(4, 2, 180.0, ", spear = true").replace("base = {", "gap_mm = 2\nbase = {");
    let err = parse(&scenario(&gapped, ""), "t.toml").unwrap_err().to_string();
    assert!(err.contains("formations[0].profile.spear") && err.contains("can never support"), "{err}");
}
