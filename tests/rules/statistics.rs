//! Monte Carlo against exact values, with fixed seeds and bounds of five standard errors:
//! wide enough never to flake, narrow enough to catch a wrong rule. The exact values here
//! are derived by hand in the comments, so these tests check rules as well as sampling.

use charioteer::mesbg::analysis::{distribution_of, summarize_metric};
use charioteer::mesbg::plan::compile;
use charioteer::mesbg::resolve::{Streams, TrialRange, run};
use charioteer::mesbg::scenario::{Scenario, load, parse};
use charioteer::mesbg::tally::{Metric, Tally};
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
fn a_roll_off_splits_ties_at_equal_fight_and_higher_fight_takes_them_all() {
    // Two dice (1 Attack + 1 for charging) against one. Of the 216 equally likely rolls the
    // chariot's highest die beats the enemy's in 125 and ties in 36. At equal Fight a tie
    // goes to a roll-off (the Good side wins on 4+, so either side wins half of them:
    // 125 + 18 = 143 of 216), whichever side the chariot is on; with the higher Fight the
    // chariot takes every tie (161/216); with the lower it takes none (125/216). A roll-off
    // that favoured the Good side, or ties that went by side, would fail one of the three.
    let duel = |side: &str, chariot_fight: u8, enemy_fight: u8| {
        let text = std::fs::read_to_string("tests/scenarios/column-of-six.toml")
            .unwrap()
            .replace("side = \"evil\"", &format!("side = \"{side}\""))
            .replace("impact = { hits = \"2\", strength = 4 }", "impact = { hits = \"2\", strength = 1 }")
            .replace("defence = 5", "defence = 10")
            .replace("fight = 4\nstrength = 3", &format!("fight = {chariot_fight}\nstrength = 3"))
            .replace("fight = 4, strength", &format!("fight = {enemy_fight}, strength"));
        assert!(text.contains(&format!("fight = {enemy_fight}, strength")), "the enemy profile was edited");
        let scenario = parse(&text, "duel").unwrap();
        summarize_metric(&run_scenario(&scenario, N), Metric::FightWon).mean
    };
    let (beats, ties) = (125.0 / 216.0, 36.0 / 216.0);
    assert_probability("good, equal Fight", duel("good", 4, 4), beats + ties / 2.0, N);
    assert_probability("evil, equal Fight", duel("evil", 4, 4), beats + ties / 2.0, N);
    assert_probability("good, higher Fight", duel("good", 5, 4), beats + ties, N);
    assert_probability("good, lower Fight", duel("good", 4, 5), beats, N);
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

/// A chariot that always stops at a lone, unwoundable model (S1 Impact Hits against D10)
/// and fights it, with a Hero riding it.
fn hero_duel(chariot_defence: u8, hero: &str) -> Scenario {
    let text = format!(
        r#"
title = "Hero duel"
system = "mesbg"
seed = 3

[chariot]
name = "Test chariot"
side = "evil"
move = 10
fight = 4
strength = 3
defence = {chariot_defence}
attacks = 1
wounds = 1
courage = "7+"
impact = {{ hits = "2", strength = 1 }}
base = {{ round_mm = 60 }}
at = [0.0, 0.0]

[chariot.hero]
{hero}

[[formations]]
name = "Champion"
count = 1
base = {{ round_mm = 25 }}
front_centre = [0.0, 3.0]
facing = 180
profile = {{ fight = 4, strength = 10, defence = 10, attacks = 1, wounds = 1, courage = "7+" }}
"#
    );
    parse(&text, "hero-duel").unwrap()
}

#[test]
fn a_heros_fate_point_saves_the_chariot_half_the_time() {
    // The chariot (2 dice with the charge) loses the duel with 73/216; the champion's one
    // Strike (S10 against D1: 3+) wounds with 2/3; Fate (4+) prevents it half the time; the
    // one-Wound chariot is then slain and its Hero thrown: an S3 hit against his D3 (4+),
    // with no Fate left.
    let scenario =
        hero_duel(1, "fight = 1\nstrength = 1\ndefence = 3\nattacks = 0\nwounds = 2\ncourage = \"6+\"\nfate = 1");
    let tally = run_scenario(&scenario, N);
    let lost = 73.0 / 216.0;
    let wounded = lost * 2.0 / 3.0;
    let slain = wounded / 2.0;
    let p = |m| summarize_metric(&tally, m).mean;
    assert_probability("fate_spent", p(Metric::FateSpent), wounded, N);
    assert_probability("chariot_slain", p(Metric::ChariotSlain), slain, N);
    assert_probability("hero_dismounted", p(Metric::HeroDismounted), slain, N);
    assert_probability("hero_wounds_lost", p(Metric::HeroWoundsLost), slain / 2.0, N);
    assert_eq!(p(Metric::HeroSlain), 0.0, "two Wounds, one hit");
    // The wound split: (1, 1) and (1, 0) share the slain half; (0, 0) the rest.
    let split = charioteer::mesbg::analysis::wound_split(&tally);
    let cell = |c, h| split.iter().find(|x| x.chariot_wounds_lost == c && x.hero_wounds_lost == h).unwrap().p;
    assert_probability("split (1, 1)", cell(1, 1), slain / 2.0, N);
    assert_probability("split (1, 0)", cell(1, 0), slain / 2.0, N);
    assert_probability("split (0, 0)", cell(0, 0), 1.0 - slain, N);
    // Without Fate the chariot dies with every wounding Strike.
    let bare = hero_duel(1, "fight = 1\nstrength = 1\ndefence = 3\nattacks = 0\nwounds = 2\ncourage = \"6+\"");
    let tally = run_scenario(&bare, N);
    assert_probability("chariot_slain without Fate", summarize_metric(&tally, Metric::ChariotSlain).mean, wounded, N);
}

#[test]
fn might_policy_win_duel_against_a_known_duel() {
    // 2 dice against 1 at equal Fight, 1 Might spent only to win the duel, before any
    // roll-off: a tie below 6 becomes a win; a tie on 6 stays a roll-off; losing by one
    // becomes a roll-off.
    let scenario = hero_duel(
        7,
        "fight = 1\nstrength = 1\ndefence = 3\nattacks = 0\nwounds = 2\ncourage = \"6+\"\nmight = 1\nmight_policy = \"win_duel\"",
    );
    let (mut win, mut spent) = (0.0, 0.0);
    for a in 1..=6u32 {
        let p_a = f64::from(a * a - (a - 1) * (a - 1)) / 36.0;
        for d in 1..=6u32 {
            let p = p_a / 6.0;
            if a > d {
                win += p;
            } else if a == d && a < 6 {
                win += p;
                spent += p;
            } else if a == d {
                win += p / 2.0;
            } else if d == a + 1 {
                win += p / 2.0;
                spent += p;
            }
        }
    }
    let tally = run_scenario(&scenario, N);
    assert_probability("fight_won", summarize_metric(&tally, Metric::FightWon).mean, win, N);
    assert_probability("might_spent", summarize_metric(&tally, Metric::MightSpent).mean, spent, N);
    // With policy "none" the Might stays unspent and the duel is the plain 143/216.
    let none = hero_duel(
        7,
        "fight = 1\nstrength = 1\ndefence = 3\nattacks = 0\nwounds = 2\ncourage = \"6+\"\nmight = 1\nmight_policy = \"none\"",
    );
    let tally = run_scenario(&none, N);
    assert_probability("fight_won (none)", summarize_metric(&tally, Metric::FightWon).mean, 143.0 / 216.0, N);
    assert_eq!(summarize_metric(&tally, Metric::MightSpent).mean, 0.0);
}

#[test]
fn the_heros_profile_improves_the_chariot() {
    // Hero Fight 5 (better than the chariot's 4) wins every tie; his 2 Attacks add dice:
    // 4 dice against 1, ties to the chariot: P(win) = 1 - P(max of 4 < the enemy die).
    let scenario = hero_duel(7, "fight = 5\nstrength = 1\ndefence = 3\nattacks = 2\nwounds = 2\ncourage = \"6+\"");
    let lose: f64 = (1..=6).map(|d: i32| (f64::from(d - 1) / 6.0).powi(4) / 6.0).sum();
    let tally = run_scenario(&scenario, N);
    assert_probability("fight_won", summarize_metric(&tally, Metric::FightWon).mean, 1.0 - lose, N);
}

#[test]
fn a_riding_heros_kills_are_the_fights_kills_and_not_the_impacts() {
    // The column of six with a Hero who adds nothing to the fight (Fight 1 below the
    // chariot's 4, no Attacks, no Might or Fate): the fight is the plain chariot's, and
    // every model slain in it is credited to the Hero. The chariot wins with 143/216 and
    // its two Strikes on the Trapped model roll four times at 5+ (S3 against D5): a kill
    // with 1 - (2/3)^4 = 65/81. A fight follows unless all six fell to Impact Hits.
    let text = std::fs::read_to_string("tests/scenarios/column-of-six.toml").unwrap().replace(
        "[[formations]]",
        "[chariot.hero]\nfight = 1\nstrength = 1\ndefence = 3\nattacks = 0\nwounds = 2\ncourage = \"6+\"\n\n[[formations]]",
    );
    let tally = run_scenario(&parse(&text, "column-with-hero").unwrap(), N);
    let fought = 1.0 - (5.0f64 / 9.0).powi(6);
    let hero_kills = fought * 143.0 / 216.0 * 65.0 / 81.0;
    let p = |m| summarize_metric(&tally, m).mean;
    assert_probability("hero_kills", p(Metric::HeroKills), hero_kills, N);
    assert_probability("fight_kills", p(Metric::FightKills), hero_kills, N);
    // Impact kills are the chariot's: geometric, 5/9 a model, never credited to the Hero.
    let impact: f64 = (1..=6).map(|k| (5.0f64 / 9.0).powi(k)).sum();
    let s = summarize_metric(&tally, Metric::ImpactKills);
    assert!((s.mean - impact).abs() < 5.0 * s.se, "impact_kills {} vs {impact}", s.mean);
}

#[test]
fn army_broken_counts_the_charges_kills() {
    // Army of 10 with 4 casualties: Broken at half or more (the default) when the charge
    // kills 1 or more (5 of 10), and at more than half when it kills 2 or more (6 > 5).
    let text = std::fs::read_to_string("tests/scenarios/column-of-six.toml").unwrap()
        + "\n[army]\nmodels = 10\ncasualties = 4\n";
    let scenario = parse(&text, "army").unwrap();
    let tally = run_scenario(&scenario, N);
    let kills = distribution_of(&tally, Metric::Kills);
    let broken = summarize_metric(&tally, Metric::ArmyBroken).mean;
    assert_eq!(broken, kills[1].p_at_least, "the same trials");
    // Kills come from Impact Hits (the k-th model slain with (5/9)^k) and at most one from
    // the fight against the single model it stops at (won 143/216, then a kill 65/81).
    let fight_kill = 143.0 / 216.0 * 65.0 / 81.0;
    let at_least_one = 1.0 - 4.0 / 9.0 * (1.0 - fight_kill);
    assert_probability("army_broken (half or more)", broken, at_least_one, N);
    let scenario = parse(&format!("{text}\n[rules]\nbreak_point = \"more_than_half\"\n"), "army").unwrap();
    let tally = run_scenario(&scenario, N);
    let kills = distribution_of(&tally, Metric::Kills);
    let broken = summarize_metric(&tally, Metric::ArmyBroken).mean;
    assert_eq!(broken, kills[2].p_at_least, "the same trials");
    let at_least_two = (5.0f64 / 9.0).powi(2) + 5.0 / 9.0 * 4.0 / 9.0 * fight_kill;
    assert_probability("army_broken (more than half)", broken, at_least_two, N);
}

/// The default charge with extra TOML inserted before its formations.
fn default_with(extra: &str) -> Scenario {
    // Shieldwall off: the values below are for the line at D6 throughout.
    let text = charioteer::mesbg::scenario::DEFAULT_SCENARIO
        .replace("[[formations]]", &format!("{extra}\n\n[[formations]]"))
        + "\n[rules]\nshieldwall = false\n";
    parse(&text, "terrain").unwrap()
}

#[test]
fn difficult_terrain_costs_a_wound_one_time_in_six() {
    // A wood across the path before the line: every charge drives into it.
    let scenario = default_with(
        "[[terrain]]\nname = \"Wood\"\nkind = \"difficult\"\npolygon = [[-5, 1.5], [5, 1.5], [5, 2.5], [-5, 2.5]]",
    );
    let tally = run_scenario(&scenario, N);
    assert_probability("terrain_wound", summarize_metric(&tally, Metric::TerrainWound).mean, 1.0 / 6.0, N);
    // A wood the chariot never reaches before the line stops it is never tested: put it
    // behind the second rank.
    let behind = default_with(
        "[[terrain]]\nname = \"Wood\"\nkind = \"difficult\"\npolygon = [[-5, 8.5], [5, 8.5], [5, 9.5], [-5, 9.5]]",
    );
    let tally = run_scenario(&behind, N);
    let through = (5.0f64 / 9.0).powi(8);
    // Only charges that break through both ranks ((5/9)^8: all eight models in reach slain
    // by Impact Hits) reach it: the last contact is at 5.3" driven, the wood's edge at 7.3"
    // of the 10" Move. Each of those is tested, and wounded on a 1.
    assert_probability("breakthrough", summarize_metric(&tally, Metric::Breakthrough).mean, through, N);
    assert_probability("terrain_wound", summarize_metric(&tally, Metric::TerrainWound).mean, through / 6.0, N);
}

#[test]
fn an_obstacle_stops_the_chariot_with_three_strength_six_hits() {
    // A wall before the line: S6 against the chariot's D7 wounds on 5+ (1/3), three hits.
    let scenario = default_with("[[terrain]]\nname = \"Wall\"\nkind = \"obstacle\"\nfrom = [-4, 3]\nto = [4, 3]");
    let tally = run_scenario(&scenario, N);
    let p = |m| summarize_metric(&tally, m).mean;
    assert_eq!(p(Metric::ObstacleStruck), 1.0);
    assert_eq!(p(Metric::Contacts), 0.0, "the line behind the wall is never reached");
    assert_eq!(p(Metric::FightFought), 0.0);
    let s = summarize_metric(&tally, Metric::ChariotWoundsLost);
    assert!((s.mean - 1.0).abs() < 5.0 * s.se, "E[wounds] = 3 x 1/3, got {}", s.mean);
    assert_probability("chariot_slain", p(Metric::ChariotSlain), 1.0 / 27.0, N);
}

#[test]
fn chariot_against_chariot_the_smaller_backs_away() {
    // An enemy chariot cannot be slain by two S4 hits (D7, 3 Wounds): every charge fights.
    let enemy = |base_mm: u32| {
        let text = charioteer::mesbg::scenario::DEFAULT_SCENARIO
            .replace("count = 12", "count = 1")
            .replace("ranks = 2", "ranks = 1")
            .replace("base = { round_mm = 25 }", &format!("base = {{ round_mm = {base_mm} }}"))
            .replace("front_centre = [0.0, 6.0]", "front_centre = [0.0, 5.0]")
            .replace(
                "profile = { fight = 4, strength = 3, defence = 6, attacks = 1, wounds = 1, courage = \"7+\", points = 9, shield = true, shieldwall = true }",
                "profile = { fight = 4, strength = 3, defence = 7, attacks = 1, wounds = 3, courage = \"7+\", chariot = true }",
            )
            // The Strikes below are derived one-handed (tests/rules/grip.rs derives two-handed).
            + "\n[rules]\ngrip = \"one_handed\"\n";
        parse(&text, "chariots").unwrap()
    };
    // Nobody Backs Away once a chariot is slain. Ours (3 Wounds) never is: one S3 Strike
    // a fight. Theirs can be: the Impact Hits (2 at S4 v D7, 6+) take 1 Wound with 10/36
    // and 2 with 1/36; then, when ours wins the duel (143/216), its 2 Strikes (S3 v D7,
    // 6+, never Trapped) slay a 1-Wound chariot with 11/36 and a 2-Wound one with 1/36.
    let foe_slain = 143.0 / 216.0 * (10.0 / 36.0 * 1.0 / 36.0 + 1.0 / 36.0 * 11.0 / 36.0);
    let same = run_scenario(&enemy(60), N);
    assert_eq!(summarize_metric(&same, Metric::FightFought).mean, 1.0);
    let backs = summarize_metric(&same, Metric::ChariotBackedAway).mean;
    assert_probability("same size: D6", backs, 0.5 * (1.0 - foe_slain), N);
    let theirs = summarize_metric(&same, Metric::FoeChariotBackedAway).mean;
    assert_probability("same size: D6, theirs", theirs, 0.5 * (1.0 - foe_slain), N);
    let smaller = run_scenario(&enemy(40), N);
    assert_eq!(summarize_metric(&smaller, Metric::ChariotBackedAway).mean, 0.0);
    let theirs = summarize_metric(&smaller, Metric::FoeChariotBackedAway).mean;
    assert_probability("theirs smaller", theirs, 1.0 - foe_slain, N);
    let larger = run_scenario(&enemy(80), N);
    let backs = summarize_metric(&larger, Metric::ChariotBackedAway).mean;
    assert_probability("ours smaller", backs, 1.0 - foe_slain, N);
    assert_eq!(summarize_metric(&larger, Metric::FoeChariotBackedAway).mean, 0.0);
}

/// The default chariot against one Rider of Rohan (rider D5, horse D4) standing alone.
fn lone_rider(mount: &str, rules: &str) -> Scenario {
    let text = charioteer::mesbg::scenario::DEFAULT_SCENARIO
        .replace("count = 12", "count = 1")
        .replace("ranks = 2", "ranks = 1")
        .replace("base = { round_mm = 25 }", "base = { round_mm = 40 }")
        .replace(
            "profile = { fight = 4, strength = 3, defence = 6, attacks = 1, wounds = 1, courage = \"7+\", points = 9, shield = true, shieldwall = true }",
            &format!("profile = {{ fight = 3, strength = 3, defence = 5, attacks = 1, wounds = 1, courage = \"7+\", mount = {mount} }}"),
        )
        + rules;
    parse(&text, "cavalry").unwrap()
}

#[test]
fn impact_hits_on_rider_and_horse() {
    // Rider D5: 5/9 slain by 2 x S4; horse D4: 3/4. A rider who lives while his horse dies
    // is thrown: on a 1 (Knocked Flying) an S3 hit slays him on 5+ (1/3).
    let scenario = lone_rider("{ defence = 4, wounds = 1 }", "");
    let tally = run_scenario(&scenario, N);
    let casualty: f64 = 5.0 / 9.0 + (4.0 / 9.0) * (3.0 / 4.0) * (1.0 / 6.0) * (1.0 / 3.0);
    assert!((casualty - 31.0 / 54.0).abs() < 1e-12);
    let p = |m| summarize_metric(&tally, m).mean;
    assert_eq!(p(Metric::Contacts), 1.0);
    assert_probability("rider slain (impact_kills)", p(Metric::ImpactKills), casualty, N);
    // The horse has no Attacks, so it flees when its rider falls: the chariot drives on
    // exactly when the rider is slain, and otherwise fights the rider (mounted, standing or
    // Prone: one die at Fight 3 against the chariot's two at Fight 4): 161/216.
    assert_probability("fight_fought", p(Metric::FightFought), 1.0 - casualty, N);
    assert_probability("fight_won", p(Metric::FightWon), (1.0 - casualty) * 161.0 / 216.0, N);
    // The thrown rider who stops the chariot: he lives through the hits (4/9), his horse
    // does not (3/4), and he is not slain Knocked Flying (1 - 1/18): 17/54.
    assert_probability("thrown_rider_stopped", p(Metric::ThrownRiderStopped), 17.0 / 54.0, N);
}

#[test]
fn when_the_chariot_drives_past_cavalry_is_a_ruleset_option() {
    // A horse with an Attack stays when its rider is slain. With the earlier reading the
    // chariot drives on only when the rider is slain and the horse too (or fled)...
    let both = lone_rider(
        "{ defence = 4, wounds = 1, attacks = 1 }",
        "\n[rules]\ncavalry_passed_when = \"rider_slain_and_mount_gone\"\n",
    );
    let passed_both = (5.0 / 9.0) * (3.0 / 4.0) + (4.0 / 9.0) * (3.0 / 4.0) * (1.0 / 6.0) * (1.0 / 3.0);
    let tally = run_scenario(&both, N);
    assert_probability(
        "drives on (both gone)",
        1.0 - summarize_metric(&tally, Metric::FightFought).mean,
        passed_both,
        N,
    );
    // ... and by default (2024: a casualty when the rider dies) whenever the rider is
    // slain: 5/9 by the hits, plus a thrown rider (4/9 x 3/4) Knocked Flying (1/6) and
    // slain by the S3 hit (1/3): 5/9 + 1/54 = 31/54.
    let default = lone_rider("{ defence = 4, wounds = 1, attacks = 1 }", "");
    let tally = run_scenario(&default, N);
    let casualty = 31.0 / 54.0;
    assert_probability("drives on (default)", 1.0 - summarize_metric(&tally, Metric::FightFought).mean, casualty, N);
}
