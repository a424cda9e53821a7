//! The MESBG trial's own tests: replay against the fast path, die-by-die fights against
//! their exact tables, thread-count independence, interruption.

use super::*;
use crate::mesbg::plan::compile;
use crate::mesbg::scenario::{DEFAULT_SCENARIO, parse};

#[test]
fn replay_matches_the_fast_path() {
    let scenario = parse(DEFAULT_SCENARIO, "t").unwrap();
    let plan = compile(&scenario);
    let streams = Streams::new(3, scenario.hash());
    let mut scratch = Scratch::default();
    for t in 0..2000 {
        let fast = trial(&plan, streams, t, &mut scratch, &mut Silent);
        let (slow, events) = replay(&plan, streams, t);
        assert_eq!(fast, slow, "trial {t}");
        let contacts = events.iter().filter(|e| matches!(e, Event::Contact { .. })).count();
        assert_eq!(contacts as u16, fast.get(Metric::Contacts));
    }
}

/// Plays every tabulated fight of the plan's first contact group die by die and checks
/// each outcome's frequency against its exact probability (5 standard errors). Both
/// sides call the same settle functions, so this checks the dice-level sampling and
/// the table compilation, not the rules (the oracle in `tests/oracle/` does that).
fn check_first_group_against_dice(plan: &Plan, fights_per_config: u32) {
    check_group_against_dice(plan, 0, false, fights_per_config);
}

/// [`check_first_group_against_dice`] for group `g`, and with `wounded` for the chariot the
/// difficult-terrain test cost a Wound (its fights against [`ContactGroup::wounded_fights`]).
fn check_group_against_dice(plan: &Plan, g: usize, wounded: bool, fights_per_config: u32) {
    let group = &plan.groups[g];
    let mut dice = crate::dice::trial_dice(1, 2, 3, Phase::Fight);
    let mut scratch = Scratch { group: g, ..Scratch::default() };
    let mut checked = 0;
    let mut chariot = ChariotState::fresh(plan);
    chariot.wounds_left -= u8::from(wounded);
    let tables = if wounded { &group.wounded_fights } else { &group.fights };
    for (config, table) in tables.iter().enumerate() {
        let Some(table) = table else { continue };
        scratch.survivors = group
            .models
            .iter()
            .zip(group.config_outcomes(config, &plan.models))
            .filter_map(|(&m, o)| o.map(|o| Survivor::after(m, &o)))
            .collect();
        brace_survivors(group, &mut scratch.survivors);
        let mut counts = vec![0u32; table.outcomes.len()];
        for _ in 0..fights_per_config {
            let o = fight_by_dice(
                plan,
                &FightBoard::of(plan, scratch.group),
                &mut scratch,
                &mut { chariot },
                &mut dice,
                &mut Silent,
            );
            let i = table.outcomes.iter().position(|x| *x == o).unwrap_or_else(|| panic!("{o:?} not in table"));
            counts[i] += 1;
        }
        let n = f64::from(fights_per_config);
        for (c, p) in counts.iter().zip(&table.probabilities) {
            let se = (p * (1.0 - p) / n).sqrt();
            assert!(
                (f64::from(*c) / n - p).abs() < 5.0 * se + 1e-9,
                "{config}: {counts:?} vs {:?}",
                table.probabilities
            );
        }
        checked += 1;
    }
    assert!(checked > 0, "no fight tables to check");
}

#[test]
fn dice_level_fights_follow_the_exact_tables() {
    // Every survivor configuration of the default scenario's first pair, with both
    // allocation policies and with and without Trapped.
    for (trapped, policy) in [(true, "most_wounded_first"), (false, "easiest_first")] {
        let text = format!(
            "{DEFAULT_SCENARIO}\n[rules]\nprone_counts_as_trapped = {trapped}\nstrike_allocation = \"{policy}\"\n"
        );
        check_first_group_against_dice(&compile(&parse(&text, "t").unwrap()), 200_000);
    }
}

/// A column of six hard hitters behind a wood, fought by a two-Wound chariot without a
/// Hero: a fight can cost it more Wounds than it has, so the wounded chariot's tables are
/// not the fresh chariot's.
fn tough_column_through_a_wood() -> String {
    let wood = "\n[[terrain]]\nname = \"Wood\"\nkind = \"difficult\"\npolygon = [[-3.0, 1.5], [3.0, 1.5], [3.0, 2.5], [-3.0, 2.5]]\n";
    let column = include_str!("../../../tests/scenarios/hero-column-of-six.toml")
        .replace("wounds = 3", "wounds = 2")
        .replace("defence = 7", "defence = 4")
        .replace("[chariot.hero]\nprofile = \"Khandish King\"\nmight_policy = \"win_duel_then_wound\"\n", "")
        .replace(
            "profile = { fight = 4, strength = 3, defence = 5, attacks = 1",
            "profile = { fight = 6, strength = 8, defence = 5, attacks = 3",
        );
    assert!(!column.contains("[chariot.hero]") && column.contains("attacks = 3"));
    format!("{column}{wood}")
}

#[test]
fn a_chariot_wounded_by_terrain_fights_by_its_own_exact_tables() {
    // Past difficult terrain every group's fights are tabulated a second time for the
    // chariot the test cost a Wound; each agrees with the fight played die by die by that
    // wounded chariot. In the wood example and a tough column behind a wood.
    let examples = [
        ("wood", include_str!("../../../scenarios/mesbg/wood-into-shield-wall.toml").to_string()),
        ("tough column", tough_column_through_a_wood()),
    ];
    for (name, text) in examples {
        let plan = compile(&parse(&text, name).unwrap_or_else(|e| panic!("{name}: {e}")));
        assert!(plan.chariot.hero.is_none() && plan.chariot.wounds > 1, "{name}");
        let past_the_wood: Vec<usize> = (plan.terrain_group..plan.groups.len()).collect();
        assert!(!past_the_wood.is_empty(), "{name}: the path meets models after the wood");
        for &g in &past_the_wood {
            let group = &plan.groups[g];
            assert_eq!(group.wounded_fights.len(), group.fights.len(), "{name}: group {g}");
            check_group_against_dice(&plan, g, true, 40_000);
        }
        // Before the wood nothing is tabulated twice.
        assert!(plan.groups[..plan.terrain_group].iter().all(|g| g.wounded_fights.is_empty()), "{name}");
        if name == "tough column" {
            // The column can deal more Wounds than the wounded chariot has: its tables differ.
            let g = &plan.groups[past_the_wood[0]];
            let differ = g.fights.iter().zip(&g.wounded_fights).any(|(f, w)| match (f, w) {
                (Some(f), Some(w)) => f.outcomes != w.outcomes,
                _ => false,
            });
            assert!(differ, "{name}: the wounded chariot's fights are the fresh chariot's");
        }
    }
}

#[test]
fn a_cavalry_bearer_whose_rider_fell_to_the_impact_hits_gives_no_banner() {
    // The Rohan screen with a banner in the middle of its line: when the chariot stops at the
    // bearer, his banner helps the fight while his rider stands, and not once the Impact Hits
    // slew the rider, even though his horse still stands in the fight (the default reading
    // of when cavalry is passed), nor while the rider lies Prone.
    let text = include_str!("../../../scenarios/mesbg/chariot-into-cavalry-screen.toml")
        .replace("facing = 180\n", "facing = 180\nbanner = true\nbanner_at = [1, 3]\n");
    let plan = compile(&parse(&text, "banner screen").unwrap_or_else(|e| panic!("{e}")));
    let bearer = *plan.support.bearers.first().expect("the screen has a banner bearer");
    let (g, at) = plan
        .groups
        .iter()
        .enumerate()
        .find_map(|(g, group)| group.models.iter().position(|&m| m == bearer).map(|i| (g, i)))
        .expect("the chariot's path meets the bearer");
    let standing = Presence { in_fight: true, rider: true, prone: false };
    let with_bearer = |bearer_presence: Presence| {
        let mut presence = vec![standing; plan.groups[g].models.len()];
        presence[at] = bearer_presence;
        plan.foe_support(g, &presence).banner
    };
    assert!(with_bearer(standing), "a standing rider carries the banner");
    assert!(!with_bearer(Presence { in_fight: true, rider: false, prone: false }), "the rider fell: no banner");
    assert!(!with_bearer(Presence { in_fight: true, rider: true, prone: true }), "a Prone rider gives nothing");
    assert!(!with_bearer(Presence { in_fight: false, rider: false, prone: false }), "rider and horse gone");
}

#[test]
fn supported_fights_follow_the_exact_tables() {
    // Spears (or pikes three deep) behind the line and a banner in it (at the front or
    // in the second rank): the die-by-die fight and the exact tables agree for every
    // survivor configuration of the first pair.
    for (weapon, ranks, banner_at) in [("spear", 2, "[1, 3]"), ("pike", 3, "[2, 3]"), ("spear", 3, "[1, 4]")] {
        let text = DEFAULT_SCENARIO
            .replace("count = 12", "count = 18")
            .replace("ranks = 2", &format!("ranks = {ranks}\nbanner = true\nbanner_at = {banner_at}"))
            .replace("shield = true, shieldwall = true }", &format!("{weapon} = true }}"));
        let plan = compile(&parse(&text, "t").unwrap_or_else(|e| panic!("{e}")));
        let all = vec![Presence { in_fight: true, rider: true, prone: false }; plan.groups[0].models.len()];
        let support = plan.foe_support(0, &all);
        // Each model in the fight has one supporter touching it (beside or behind), and a
        // pike one more through that one.
        let per_model = if weapon == "pike" { 2 } else { 1 };
        assert_eq!(support.supporters.len(), all.len() * per_model, "{weapon}: {support:?}");
        assert!(support.banner, "{weapon}: the bearer is within 3\"");
        check_first_group_against_dice(&plan, 150_000);
    }
}

#[test]
fn enemy_hero_fights_follow_the_exact_tables() {
    // A Captain (2 Wounds, 2 Might, 1 Fate) beside a warrior in the first pair, under
    // each of his Might policies and with a King's Might answering his: every survivor
    // configuration, his Fate left after the Impact Hits included, fought die by die
    // agrees with its exact table.
    for (policy, king) in [("win_duel_then_wound", false), ("wound", false), ("win_duel", true)] {
        let hero = format!(
            "ranks = 2\nhero = {{ profile = {{ fight = 5, strength = 4, defence = 6, attacks = 2, wounds = 2, courage = \"6+\", might = 2, will = 1, fate = 1, might_policy = \"{policy}\" }}, at = [1, 3] }}"
        );
        let mut text = DEFAULT_SCENARIO.replace("ranks = 2", &hero);
        if king {
            text = text.replace(
                "points = 40\n",
                "points = 40\n[chariot.hero]\nprofile = \"Khandish King\"\nmight_policy = \"win_duel\"\n",
            );
            assert!(text.contains("[chariot.hero]"));
        }
        let plan = compile(&parse(&text, "t").unwrap_or_else(|e| panic!("{e}")));
        let group = &plan.groups[0];
        assert!(group.models.iter().any(|&m| plan.models[m].hero.is_some()), "{policy}: the Captain is in the pair");
        assert!(group.fate_strides.iter().any(|&s| s > 0));
        check_first_group_against_dice(&plan, 100_000);
    }
}

#[test]
fn hero_fights_follow_the_exact_tables() {
    // A Hero with Might 3 and Fate 2 under every Might policy, against a pair of
    // two-Wound Uruk-hai (so Might on wounds and Fate both matter, and a Strike can
    // leave a target wounded).
    for policy in ["none", "win_duel", "wound", "win_duel_then_wound"] {
        let text = format!(
            r#"title = "t"
system = "mesbg"
[chariot]
profile = "Khandish Chariot upgrade for a King"
side = "evil"
at = [0.0, 0.0]
facing = 0
[chariot.hero]
profile = "Khandish King"
might = 3
fate = 2
might_policy = "{policy}"
[charge]
pivots = []
[[formations]]
name = "line"
count = 2
profile = {{ fight = 4, strength = 4, defence = 5, attacks = 1, wounds = 2, courage = "7+", base_mm = 25.0 }}
front_centre = [0.0, 6.0]
facing = 180
"#
        );
        let plan = compile(&parse(&text, "t").unwrap());
        assert!(plan.groups[0].fights.iter().flatten().any(|t| t.outcomes.iter().any(|o| o.fate_spent > 0)));
        if policy != "none" {
            assert!(plan.groups[0].fights.iter().flatten().any(|t| t.outcomes.iter().any(|o| o.might_spent > 0)));
        }
        check_first_group_against_dice(&plan, 150_000);
    }
}

#[test]
fn replayed_fights_are_consistent_with_their_outcome() {
    let scenario = parse(DEFAULT_SCENARIO, "t").unwrap();
    let plan = compile(&scenario);
    let streams = Streams::new(9, scenario.hash());
    for t in 0..300 {
        let (outcome, events) = replay(&plan, streams, t);
        let strikes_slaying =
            events.iter().filter(|e| matches!(e, Event::Strike { target: Some(_), slain: true, .. })).count();
        let chariot_wounds: u32 = events
            .iter()
            .map(|e| match e {
                Event::Strike { target: None, wounds, .. } => u32::from(*wounds),
                _ => 0,
            })
            .sum();
        if outcome.get(Metric::FightFought) == 1 {
            assert_eq!(strikes_slaying as u16, outcome.get(Metric::FightKills), "trial {t}: {events:?}");
            assert_eq!(chariot_wounds as u16, outcome.get(Metric::ChariotWoundsLost), "trial {t}");
            let won = events.iter().any(|e| matches!(e, Event::Duel { chariot_won: true, .. }));
            assert_eq!(u16::from(won), outcome.get(Metric::FightWon), "trial {t}");
        }
    }
}

#[test]
fn block_split_does_not_change_the_tally() {
    let scenario = parse(DEFAULT_SCENARIO, "t").unwrap();
    let plan = compile(&scenario);
    let streams = Streams::new(3, scenario.hash());
    let never = AtomicBool::new(false);
    let whole = run(&plan, streams, TrialRange { first: 0, count: 100_000 }, &|_| {}, &never).unwrap();
    let mut parts = run(&plan, streams, TrialRange { first: 0, count: 41_234 }, &|_| {}, &never).unwrap();
    let rest = run(&plan, streams, TrialRange { first: 41_234, count: 58_766 }, &|_| {}, &never).unwrap();
    parts.merge(&rest);
    assert_eq!(whole, parts);
}

#[test]
fn cancel_stops_the_run() {
    let scenario = parse(DEFAULT_SCENARIO, "t").unwrap();
    let plan = compile(&scenario);
    let streams = Streams::new(3, 1);
    let cancel = AtomicBool::new(true);
    let err = run(&plan, streams, TrialRange { first: 0, count: 10 * BLOCK }, &|_| {}, &cancel).unwrap_err();
    assert_eq!(err.asked, 10 * BLOCK);
}

#[test]
fn cavalry_fights_follow_the_exact_tables() {
    // Riders of Rohan (#37: cavalry fights are tabulated too): every state the Impact Hits
    // can leave rider and horse in (thrown, Knocked Flying and Prone, rising without
    // Strikes, the horse slain or fled), under both readings of when the chariot drives
    // on, fought die by die, agrees with its exact table.
    let text = std::fs::read_to_string("scenarios/mesbg/chariot-into-cavalry-screen.toml").unwrap();
    for reading in ["rider_slain_and_mount_gone", "rider_slain"] {
        let text = text.replace("\"rider_slain_and_mount_gone\"", &format!("\"{reading}\""));
        let plan = compile(&parse(&text, "t").unwrap());
        let group = &plan.groups[0];
        let states: usize = group.cavalry_states.iter().map(Vec::len).sum();
        // Unhurt, and thrown three ways (Knocked Flying and Prone, Rises from the Dust,
        // Leaps into Action): a slain rider is driven past, a riderless horse flees.
        assert_eq!(states, 4 * group.models.len(), "{reading}: {states} cavalry states");
        assert!(group.fights.iter().flatten().count() > 1, "{reading}: cavalry fights are tabulated");
        check_first_group_against_dice(&plan, 60_000);
    }
}
