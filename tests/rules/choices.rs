//! The player's choices as a sensible player makes them (#30): a Monster that cannot Back
//! Away, Impact Hits rolled once for a cavalry model, stopping short of a wall, supporters
//! matched for the most dice whatever the file's order, a Hero carrying the banner, and
//! every problem of a file reported at once. Every expected value is derived by hand in
//! the test, never read back from the engine.

use charioteer::mesbg::exact::exact;
use charioteer::mesbg::plan::compile;
use charioteer::mesbg::resolve::{Event, Streams, TrialRange, replay, run};
use charioteer::mesbg::scenario::parse;
use charioteer::mesbg::tally::Metric;

/// A Fight 4 chariot (Evil, 1 Attack + 1 charging: two dice) on a 25 mm base whose one
/// Strength 1 Impact Hit wounds nothing, so it always stops at the first model and fights;
/// Strength 10 in the fight. Then `rest` (formations, terrain, [rules]).
fn scenario(charge: &str, rest: &str) -> String {
    format!(
        r#"title = "choices"
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
base = {{ round_mm = 25 }}
at = [0.0, 0.0]
facing = 0
[charge]
{charge}
{rest}
"#
    )
}

/// One model at `at`, facing the chariot.
fn model(name: &str, at: (f64, f64), profile: &str, extra: &str) -> String {
    format!(
        "[[formations]]\nname = \"{name}\"\ncount = 1\nbase = {{ round_mm = 25 }}\nfront_centre = [{}, {}]\n\
         facing = 180\n{extra}\nprofile = {{ {profile} }}\n",
        at.0, at.1
    )
}

fn exact_mean(text: &str, metric: Metric) -> f64 {
    let plan = compile(&parse(text, "t.toml").unwrap_or_else(|e| panic!("{e}")));
    let m = exact(&plan).unwrap_or_else(|e| panic!("exact values for {metric:?}: {e:?}"));
    m.marginal(metric).iter().enumerate().map(|(v, p)| v as f64 * p).sum()
}

/// P(`metric` = 1) over `trials` die-by-die trials, with its standard error.
fn sampled_p(text: &str, metric: Metric, trials: u64) -> (f64, f64) {
    let s = parse(text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let plan = compile(&s);
    let streams = Streams::new(7, s.hash());
    let range = TrialRange { first: 0, count: trials };
    let tally = run(&plan, streams, range, &|_| {}, &std::sync::atomic::AtomicBool::new(false)).unwrap();
    let p = tally.histogram(metric).get(1).copied().unwrap_or(0) as f64 / trials as f64;
    (p, (p * (1.0 - p) / trials as f64).sqrt())
}

/// P(the highest of n D6 is k).
fn high(n: i32, k: u32) -> f64 {
    (f64::from(k) / 6.0).powi(n) - (f64::from(k - 1) / 6.0).powi(n)
}

/// P(the chariot's two dice beat `n` enemy dice at equal Fight; a tie is a roll-off).
fn duel(n: i32) -> f64 {
    let mut win = 0.0;
    for a in 1..=6 {
        for d in 1..=6 {
            win += high(2, a)
                * high(n, d)
                * if a > d {
                    1.0
                } else if a == d {
                    0.5
                } else {
                    0.0
                };
        }
    }
    win
}

const TROLL: &str = "fight = 4, strength = 3, defence = 9, attacks = 1, wounds = 1, courage = \"6+\", monster = true";

#[test]
fn a_monster_that_cannot_back_away_is_trapped() {
    // The troll stands 3" ahead. Beaten, it is not knocked Prone (a Monster) but Backs
    // Away 1" directly away from the chariot; with a wall 0.5" behind its base it cannot,
    // so it is Trapped: each of the chariot's two Strikes (Strength 10 against Defence 9,
    // 4+) rolls twice. By hand: P(win) = duel(1); slain with 1 - (1/2)^4 Trapped, with
    // 1 - (1/2)^2 Backing Away.
    let troll = model("Troll", (0.0, 3.0), TROLL, "");
    let wall = |behind: f64| {
        let y = 3.0 + 12.5 / 25.4 + behind;
        format!("[[terrain]]\nname = \"Wall\"\nkind = \"obstacle\"\nfrom = [-3.0, {y}]\nto = [3.0, {y}]\n")
    };
    let against_wall = scenario("pivots = [0]", &(troll.clone() + &wall(0.5)));
    let plan = compile(&parse(&against_wall, "t.toml").unwrap());
    assert!(plan.models[0].cannot_back_away);
    let trapped = duel(1) * (1.0 - 0.5f64.powi(4));
    assert!((exact_mean(&against_wall, Metric::FightKills) - trapped).abs() < 1e-12);
    // 1.5" of room behind it: it Backs Away, two rolls.
    let room = scenario("pivots = [0]", &(troll.clone() + &wall(1.5)));
    assert!(!compile(&parse(&room, "t.toml").unwrap()).models[0].cannot_back_away);
    let free = duel(1) * (1.0 - 0.5f64.powi(2));
    assert!((exact_mean(&room, Metric::FightKills) - free).abs() < 1e-12);
    // Another troll right behind it (bases touching) blocks it too.
    let pair = troll + &model("Troll behind", (0.0, 3.0 + 25.0 / 25.4), TROLL, "");
    assert!(compile(&parse(&scenario("pivots = [0]", &pair), "t.toml").unwrap()).models[0].cannot_back_away);
    // Infantry are knocked Prone instead, Trapped by the ruleset whatever stands behind.
    let man = model("Man", (0.0, 3.0), &TROLL.replace(", monster = true", ""), "");
    assert!(
        !compile(&parse(&scenario("pivots = [0]", &(man + &wall(0.5))), "t.toml").unwrap()).models[0].cannot_back_away
    );
}

#[test]
fn a_cavalry_models_impact_hits_are_rolled_once_for_rider_and_mount() {
    // D3 hits at Strength 4 on a rider (Defence 5: 5+, 1/3) and his horse (Defence 4: 4+,
    // 1/2). One roll: both take n hits, n = 1, 2, 3 with 1/3 each; each roll: independent.
    let text = |rules: &str| {
        let mut t = scenario(
            "pivots = [0]",
            &format!(
                "{}[rules]\n{rules}\n",
                model(
                    "Rider",
                    (0.0, 3.0),
                    "fight = 3, strength = 3, defence = 5, attacks = 1, wounds = 1, courage = \"7+\", \
                     mount = { defence = 4, wounds = 1 }",
                    ""
                )
            ),
        );
        t = t.replace("impact = { hits = \"1\", strength = 1 }", "impact = { hits = \"D3\", strength = 4 }");
        t.replace("base = { round_mm = 25 }\nfront_centre", "base = { round_mm = 40 }\nfront_centre")
    };
    let both_slain = |rules: &str| {
        let plan = compile(&parse(&text(rules), "t.toml").unwrap_or_else(|e| panic!("{e}")));
        let t = &plan.models[0].impact;
        let mut p = 0.0;
        for (o, q) in t.outcomes.iter().zip(&t.probabilities) {
            let (mh, mw) = o.mount.expect("cavalry");
            if rules.is_empty() {
                assert_eq!(o.hits, mh, "one roll: rider and mount take as many hits");
            }
            if o.wounds == 1 && mw == 1 {
                p += q;
            }
        }
        p
    };
    let rider = |n: i32| 1.0 - (2.0f64 / 3.0).powi(n);
    let horse = |n: i32| 1.0 - 0.5f64.powi(n);
    let one_roll: f64 = (1..=3).map(|n| rider(n) * horse(n) / 3.0).sum();
    let each: f64 = (1..=3).map(|n| rider(n) / 3.0).sum::<f64>() * (1..=3).map(|n| horse(n) / 3.0).sum::<f64>();
    assert!((both_slain("") - one_roll).abs() < 1e-12, "{} vs {one_roll}", both_slain(""));
    assert!((both_slain("cavalry_impact_hits = \"roll_each\"") - each).abs() < 1e-12);
    assert!((one_roll - each).abs() > 1e-3, "the two readings differ");
}

fn wall_ahead(charge: &str) -> String {
    // A long wall 2.5" ahead (no pivot of 45 degrees at most misses it) and nothing else but a
    // bystander far away.
    scenario(
        charge,
        &(model("Bystander", (20.0, 20.0), &TROLL.replace(", monster = true", ""), "")
            + "[[terrain]]\nname = \"Wall\"\nkind = \"obstacle\"\nfrom = [-40.0, 2.5]\nto = [40.0, 2.5]\n"),
    )
}

#[test]
fn a_chariot_may_stop_short_of_a_wall() {
    // Driven into the wall: three Strength 6 hits against Defence 7 (5+, 1/3 each), one
    // Wound expected; the validator says it could stop short.
    let into = wall_ahead("pivots = [0]");
    let s = parse(&into, "t.toml").unwrap();
    let plan = compile(&s);
    assert!(plan.obstacle.is_some());
    assert!((exact_mean(&into, Metric::ChariotWoundsLost) - 1.0).abs() < 1e-12);
    let warnings = plan.warnings(&s);
    assert!(warnings.iter().any(|w| w.field == "charge.distance" && w.message.contains("stop short")), "{warnings:?}");
    // `distance` stops it: 1.5" driven, no wall, no Wound.
    let short = wall_ahead("pivots = [0]\ndistance = 1.5");
    let plan = compile(&parse(&short, "t.toml").unwrap());
    assert!(plan.obstacle.is_none() && (plan.path_length - 1.5).abs() < 1e-9, "{}", plan.path_length);
    assert_eq!(exact_mean(&short, Metric::ChariotWoundsLost), 0.0);
    // The best path stops short by itself: going on can only hurt.
    let best = wall_ahead("plan = \"best\"");
    let plan = compile(&parse(&best, "t.toml").unwrap());
    assert!(plan.obstacle.is_none() && plan.stop_at.is_some(), "{:?}", plan.stop_at);
    assert_eq!(exact_mean(&best, Metric::ChariotWoundsLost), 0.0);
    // A distance beyond the Move is refused with its field.
    let err = parse(&wall_ahead("pivots = [0]\ndistance = 11"), "t.toml").unwrap_err().to_string();
    assert!(err.contains("charge.distance"), "{err}");
}

#[test]
fn supporters_are_matched_for_the_most_dice_whatever_the_files_order() {
    // The chariot stops against A (3" ahead). Beside-behind A stands a spear S; directly
    // behind A a pike P1, and behind P1 a pike P2. A supported by P1, which P2 supports
    // through, rolls three dice; A supported by S rolls two. Three it must be, in any
    // order of the formations. By hand: P(chariot wins) = duel(3).
    let r = 25.0 / 25.4;
    let plain = "fight = 4, strength = 3, defence = 9, attacks = 1, wounds = 1, courage = \"7+\"";
    let a = model("A", (0.0, 3.0), plain, "");
    let s = model("S", (-r * 60f64.to_radians().sin(), 3.0 + r * 0.5), &format!("{plain}, spear = true"), "");
    let p1 = model("P1", (0.0, 3.0 + r), &format!("{plain}, pike = true"), "");
    let p2 = model("P2", (0.0, 3.0 + 2.0 * r), &format!("{plain}, pike = true"), "");
    let parts = [a, s, p1, p2];
    let orders = [[0, 1, 2, 3], [0, 2, 3, 1], [1, 2, 3, 0], [3, 2, 1, 0], [2, 0, 1, 3]];
    for order in orders {
        let rest: String = order.iter().map(|&i| parts[i].clone()).collect();
        let text = scenario("pivots = [0]", &rest);
        let won = exact_mean(&text, Metric::FightWon);
        assert!((won - duel(3)).abs() < 1e-12, "order {order:?}: {won} vs {}", duel(3));
    }
}

#[test]
fn a_spear_supports_only_within_a_millimetre_and_from_a_base_no_smaller() {
    // A (25 mm) 3" ahead, a spear S directly behind it with `gap` mm between the bases (and
    // a friend touching S's side, so S stands in the formation): within 1 mm it adds a die
    // (the chariot wins duel(2) = 1/2), beyond it none (duel(1)).
    let plain = "fight = 4, strength = 3, defence = 9, attacks = 1, wounds = 1, courage = \"7+\"";
    let board = |front_mm: f64, spear_mm: f64, gap_mm: f64| {
        let front = model("A", (0.0, 3.0), plain, "").replace("round_mm = 25", &format!("round_mm = {front_mm}"));
        let behind = 3.0 + (front_mm / 2.0 + spear_mm / 2.0 + gap_mm) / 25.4;
        let spear = model("S", (0.0, behind), &format!("{plain}, spear = true"), "")
            .replace("round_mm = 25", &format!("round_mm = {spear_mm}"));
        let friend = model("Friend", ((spear_mm / 2.0 + 12.5) / 25.4, behind), plain, "");
        scenario("pivots = [0]", &(front + &spear + &friend))
    };
    let won = |text: &str| exact_mean(text, Metric::FightWon);
    assert!((won(&board(25.0, 25.0, 0.9)) - duel(2)).abs() < 1e-12, "0.9 mm supports");
    assert!((won(&board(25.0, 25.0, 1.1)) - duel(1)).abs() < 1e-12, "1.1 mm does not");
    // A spear on a 25 mm base does not support a model on a 40 mm base; on a 40 mm base it does.
    assert!((won(&board(40.0, 25.0, 0.0)) - duel(1)).abs() < 1e-12, "smaller base");
    assert!((won(&board(40.0, 40.0, 0.0)) - duel(2)).abs() < 1e-12, "same base");
}

#[test]
fn no_order_of_the_formations_changes_any_result() {
    // Every one of the 24 orders of the four formations above (and, in a second board, of
    // a spear rank of three models and a pike rank behind it) gives the same exact
    // distribution of every metric: the supporters' matching does not depend on the file.
    let r = 25.0 / 25.4;
    let plain = "fight = 4, strength = 3, defence = 9, attacks = 1, wounds = 1, courage = \"7+\"";
    let boards = [
        vec![
            model("A", (0.0, 3.0), plain, ""),
            model("S", (-r * 60f64.to_radians().sin(), 3.0 + r * 0.5), &format!("{plain}, spear = true"), ""),
            model("P1", (0.0, 3.0 + r), &format!("{plain}, pike = true"), ""),
            model("P2", (0.0, 3.0 + 2.0 * r), &format!("{plain}, pike = true"), ""),
        ],
        vec![
            model("Front", (0.0, 3.0), plain, "").replace("count = 1", "count = 3"),
            model("Spears", (0.0, 3.0 + r), &format!("{plain}, spear = true"), "").replace("count = 1", "count = 2"),
            model("Pikes", (0.0, 3.0 + 2.0 * r), &format!("{plain}, pike = true"), "")
                .replace("count = 1", "count = 3"),
            model("Flank", (2.0 * r, 3.0), &format!("{plain}, spear = true"), ""),
        ],
    ];
    let distribution = |parts: &[String], order: &[usize]| -> Vec<Vec<f64>> {
        let rest: String = order.iter().map(|&i| parts[i].clone()).collect();
        let plan = compile(&parse(&scenario("pivots = [0]", &rest), "t.toml").unwrap_or_else(|e| panic!("{e}")));
        let d = exact(&plan).unwrap_or_else(|e| panic!("{e:?}"));
        Metric::ALL.iter().map(|&m| d.marginal(m)).collect()
    };
    for parts in &boards {
        let first = distribution(parts, &[0, 1, 2, 3]);
        let mut orders = 0;
        for a in 0..4 {
            for b in (0..4).filter(|&b| b != a) {
                for c in (0..4).filter(|&c| c != a && c != b) {
                    let d = 6 - a - b - c;
                    let other = distribution(parts, &[a, b, c, d]);
                    for (m, (x, y)) in Metric::ALL.iter().zip(first.iter().zip(&other)) {
                        assert_eq!(x.len(), y.len(), "{m:?} in order {a}{b}{c}{d}");
                        for (p, q) in x.iter().zip(y) {
                            assert!((p - q).abs() < 1e-12, "{m:?} in order {a}{b}{c}{d}: {x:?} against {y:?}");
                        }
                    }
                    orders += 1;
                }
            }
        }
        assert_eq!(orders, 24);
    }
}

#[test]
fn a_hero_carrying_the_banner_rolls_at_minus_one() {
    // A Hero without Might (Fate 1, which the duel never reads) carrying the banner, alone
    // in the fight: one die at -1
    // and the banner's re-roll of it when that helps him (behind; or tied at equal Fight
    // when a fresh die at -1 beats the roll-off's 1/2, which is at a tie of 4 or less:
    // (5 - a)/6 + 1/12 > 1/2 for 2 <= a <= 4, and for a = 1, 5/6 + 1/12). Enumerated.
    let text = scenario(
        "pivots = [0]",
        &model(
            "Captain",
            (0.0, 3.0),
            "fight = 4, strength = 3, defence = 9, attacks = 1, wounds = 1, courage = \"7+\", might = 0, will = 0, fate = 1",
            "banner = true",
        ),
    );
    let shown = |f: u32| f.saturating_sub(1).max(1);
    let fresh = |a: u32| -> f64 {
        (1..=6)
            .map(|x| {
                if shown(x) > a {
                    1.0 / 6.0
                } else if shown(x) == a {
                    1.0 / 12.0
                } else {
                    0.0
                }
            })
            .sum()
    };
    let mut chariot = 0.0;
    for a in 1..=6 {
        for d in 1..=6 {
            let p = high(2, a) / 6.0;
            let first = shown(d);
            if first > a {
                continue;
            }
            if first == a && fresh(a) <= 0.5 {
                chariot += p * 0.5;
                continue;
            }
            chariot += p
                * (1..=6)
                    .map(|x| {
                        if shown(x) < a {
                            1.0
                        } else if shown(x) == a {
                            0.5
                        } else {
                            0.0
                        }
                    })
                    .sum::<f64>()
                / 6.0;
        }
    }
    assert!((exact_mean(&text, Metric::FightWon) - chariot).abs() < 1e-12);
    // The die-by-die fight too (5 standard errors; the chariot wins 0.702 against his dice
    // at -1, 0.514 against plain dice).
    let (p, se) = sampled_p(&text, Metric::FightWon, 400_000);
    assert!((p - chariot).abs() < 5.0 * se, "sampled {p} +- {se} against {chariot}");
    let plan = compile(&parse(&text, "t.toml").unwrap());
    assert!(plan.models[0].hero.is_some_and(|h| h.bearer));
    // The replays show his dice as rolled at -1: his highest is never a 6 (a plain die's
    // would be in a sixth of duels), and it is a 5 in some.
    let s = parse(&text, "t.toml").unwrap();
    let highs: Vec<u8> = (0..400)
        .flat_map(|t| replay(&plan, Streams::new(1, s.hash()), t).1)
        .filter_map(|e| match e {
            Event::Duel { enemy_high, .. } => Some(enemy_high),
            _ => None,
        })
        .collect();
    assert!(highs.len() >= 300, "{} duels replayed", highs.len());
    assert!(!highs.contains(&6), "a 6 shown for a die at -1");
    assert!(highs.contains(&5), "no 5 shown in {} duels", highs.len());
}

#[test]
fn replay_shows_the_banners_re_roll_and_fate_saves() {
    // A lone warrior with the banner: over the first trials some re-roll shows up.
    let text = scenario(
        "pivots = [0]",
        &model(
            "Bearer",
            (0.0, 3.0),
            "fight = 4, strength = 3, defence = 9, attacks = 1, wounds = 1, courage = \"7+\"",
            "banner = true",
        ),
    );
    let s = parse(&text, "t.toml").unwrap();
    let plan = compile(&s);
    let seen = (0..200)
        .any(|t| replay(&plan, Streams::new(1, s.hash()), t).1.iter().any(|e| matches!(e, Event::BannerReroll { .. })));
    assert!(seen, "a banner re-roll in 200 trials");
}

#[test]
fn every_problem_of_a_file_is_reported_at_once() {
    // A typo and two values of the wrong type: three problems, each with its line.
    let text = scenario(
        "pivots = [0]",
        &model("A", (0.0, 3.0), "fight = 4, strength = 3, defence = 9, attacks = 1, wounds = 1, courage = \"7+\"", ""),
    )
    .replace("fight = 4\n", "fight = \"four\"\n")
    .replace("wounds = 3\n", "wounds = 3\nwoonds = 2\n")
    .replace("seed_placeholder", "");
    let text = text.replace("move = 10\n", "move = [10]\n");
    let err = parse(&text, "t.toml").unwrap_err();
    let charioteer::mesbg::scenario::ScenarioError::Invalid { problems, .. } = &err else { panic!("{err}") };
    assert_eq!(problems.len(), 3, "{err}");
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    for f in ["chariot.move", "chariot.fight", "chariot.woonds"] {
        assert!(fields.contains(&f), "{f} in {fields:?}");
    }
    assert!(problems.iter().all(|p| p.line.is_some()), "{problems:?}");
}

#[test]
fn a_best_path_for_breakthrough_that_no_path_reaches_says_so_and_hits_hardest() {
    // A block twelve ranks deep and twelve files wide, 25 mm bases (11.8" each way), its
    // nearest file 4" to the right, so driving straight misses it: a Move of 10" can end
    // wholly past neither its last rank nor, driving along it, its far end, so no path
    // breaks through (a column one file wide no longer serves: since 2026-12-07 a chariot
    // that cuts across it from its flank drives through it). Asked for breakthrough, the
    // search used to keep the straight path (nothing lost, least turning), into empty
    // ground; now it turns to where the Impact Hits kill the most and says why.
    let column = "[[formations]]\nname = \"Column\"\ncount = 144\nranks = 12\nbase = { round_mm = 25 }\n\
                  front_centre = [9.41, 5.0]\nfacing = 180\n\
                  profile = { fight = 3, strength = 3, defence = 3, attacks = 1, wounds = 1, courage = \"7+\" }\n";
    let strong = |charge: &str| {
        scenario(charge, column)
            .replace("impact = { hits = \"1\", strength = 1 }", "impact = { hits = \"1\", strength = 5 }")
    };
    let asked = strong("plan = \"best\"\nobjective = \"breakthrough\"");
    let s = parse(&asked, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let plan = compile(&s);
    assert!(plan.breakthrough_unreachable);
    let warnings = plan.warnings(&s);
    let said = warnings.iter().find(|w| w.field == "charge.objective").unwrap_or_else(|| panic!("{warnings:?}"));
    assert!(said.message.contains("no path breaks through") && said.message.contains("Impact Hit kills"), "{said:?}");
    assert!(plan.models_on_path() > 0, "the chosen path meets the column");
    assert_eq!(exact_mean(&asked, Metric::Breakthrough), 0.0);
    // The first warrior is hit for sure: Strength 5 against Defence 3 wounds on 3+ (2/3),
    // so at least 2/3 of a kill is expected.
    assert!(exact_mean(&asked, Metric::ImpactKills) >= 2.0 / 3.0 - 1e-12);
    // Where a path can break through, the objective is kept and nothing is said: one
    // warrior alone is driven through (killed by a 3+ or pushed aside).
    let lone = strong("plan = \"best\"\nobjective = \"breakthrough\"")
        .replace("count = 144\nranks = 12", "count = 1\nranks = 1")
        .replace("front_centre = [9.41, 5.0]", "front_centre = [4.0, 5.0]");
    let s = parse(&lone, "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let plan = compile(&s);
    assert!(!plan.breakthrough_unreachable);
    assert!(plan.warnings(&s).iter().all(|w| w.field != "charge.objective"));
    assert!(exact_mean(&lone, Metric::Breakthrough) > 0.0);
}

#[test]
fn a_path_that_only_grazes_a_lines_end_is_called_so() {
    // The shield wall of the example: 6 files of 25 mm bases (0.98" apart, the end files'
    // centres 2.46" from the middle) and a 60 mm chariot (radius 1.18"). Driven at 3.8"
    // aside it meets only the end file (3.8 - 2.46 = 1.34 < 1.18 + 0.49) and misses the
    // next (3.8 - 1.48 = 2.32 > 1.67); driven at the middle it meets the middle files.
    let example =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/mesbg/khandish-vs-minas-tirith.toml"))
            .expect("the example");
    let at = |x: &str| example.replace("at = [0.0, 0.0]      # base centre, inches", &format!("at = [{x}, 0.0]"));
    let grazing = parse(&at("3.8"), "t.toml").unwrap_or_else(|e| panic!("{e}"));
    let warnings = compile(&grazing).warnings(&grazing);
    assert!(
        warnings.iter().any(|w| w.field == "formations[0]" && w.message.contains("only grazes the end")),
        "{warnings:?}"
    );
    let through = parse(&at("0.0"), "t.toml").unwrap_or_else(|e| panic!("{e}"));
    assert!(compile(&through).warnings(&through).iter().all(|w| !w.message.contains("grazes")));
}
