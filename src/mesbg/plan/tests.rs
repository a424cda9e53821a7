//! The plan's own tests: contacts, pivots and pushes, tables, Fate against Impact Hits.

use super::*;
use crate::mesbg::rules::fight::FateRule;
use crate::mesbg::scenario::{DEFAULT_SCENARIO, parse};

fn plan_of(text: &str) -> Plan {
    compile(&parse(text, "test.toml").unwrap())
}

#[test]
fn fate_against_impact_hits_follows_the_heros_policy() {
    // Two hits at Strength 4 on Defence 6 wound on 5+ (1/3 each): no Wound 4/9, one
    // 4/9, two 1/9. A 2-Wound Hero with 1 Fate (4+ saves, retried but he has one point)
    // is slain only by two Wounds with the Fate roll failed: 1/18 under either policy.
    // Spending on every Wound he spends Fate whenever one wounds (5/9); keeping it for
    // a lethal Wound, only on the second of two (1/9).
    let saves =
        |fate_policy| Saves { fate_rule: FateRule::Retry, fate_policy, might_on_fate: true, might_on_terrain: false };
    let hits = DiceExpr::constant(2);
    for (policy, p_spent) in [(FatePolicy::ChariotThenHero, 5.0 / 9.0), (FatePolicy::LethalOnly, 1.0 / 9.0)] {
        let t = ImpactTables::heroic(hits, 4, 6, 2, 1, saves(policy));
        let p = |f: &dyn Fn(&ContactOutcome) -> bool| -> f64 {
            t.outcomes.iter().zip(&t.probabilities).filter(|(o, _)| f(o)).map(|(_, p)| p).sum()
        };
        assert!((p(&|o| o.casualty) - 1.0 / 18.0).abs() < 1e-15, "{policy:?}");
        assert!((t.p_passed - 1.0 / 18.0).abs() < 1e-15);
        assert!((p(&|o| o.fate_spent == 1) - p_spent).abs() < 1e-15, "{policy:?}");
        // One Wound lost: one wound unsaved (4/9 x 1/2 spending on every Wound; 4/9
        // keeping it), or two with the first saved (1/9 x 1/2).
        let one = if policy == FatePolicy::LethalOnly { 4.0 / 9.0 + 1.0 / 18.0 } else { 4.0 / 18.0 + 1.0 / 18.0 };
        assert!((p(&|o| o.left == 1) - one).abs() < 1e-15, "{policy:?}");
    }
}

#[test]
fn default_charge_meets_two_ranks_in_pairs() {
    let plan = plan_of(DEFAULT_SCENARIO);
    // A 60 mm chariot dead centre on a 6-wide line of 25 mm bases touches the four
    // middle models of each rank: pairs at the same distance, front rank first.
    let sizes: Vec<usize> = plan.groups.iter().map(|g| g.models.len()).collect();
    assert_eq!(sizes, vec![2, 2, 2, 2]);
    let r_sum: f64 = (30.0 + 12.5) / 25.4;
    let d: f64 = 25.0 / 25.4;
    let first = 6.0 - (r_sum * r_sum - (d / 2.0).powi(2)).sqrt();
    assert!((plan.groups[0].distance - first).abs() < 1e-9);
    let front: Vec<usize> = plan.groups[..2].iter().flat_map(|g| g.models.clone()).collect();
    assert!(front.iter().all(|&m| plan.models[m].number <= 6), "front rank first: {front:?}");
    let distances: Vec<f64> = plan.groups.iter().map(|g| g.distance).collect();
    assert!(distances.windows(2).all(|w| w[0] < w[1]));
    assert!(plan.breakthrough_possible);
    assert!(plan.pushes.is_empty());
}

#[test]
fn the_stop_distribution_is_geometric_along_single_contacts() {
    let text = std::fs::read_to_string("tests/scenarios/column-of-six.toml").unwrap();
    let plan = plan_of(&text);
    assert_eq!(plan.groups.len(), 6);
    let p: f64 = 5.0 / 9.0;
    for (g, q) in plan.chain.stop_probabilities.iter().enumerate().take(6) {
        assert!((q - p.powi(g as i32) * (1.0 - p)).abs() < 1e-12);
    }
    assert!((plan.chain.stop_probabilities[6] - p.powi(6)).abs() < 1e-12);
    // A lone model at the stop is certainly the survivor.
    assert_eq!(plan.groups[0].passed_given_stop[0].probability(), 0.0);
}

#[test]
fn conditional_chances_in_a_pair() {
    // Two models at the same distance, each slain with p = 5/9. Given the chariot stops
    // there (not both slain), the first is slain with p (1 - p) / (1 - p^2) = p / (1 + p).
    // (Shieldwall off: D6 throughout.)
    let plan = plan_of(&format!("{DEFAULT_SCENARIO}\n[rules]\nshieldwall = false\n"));
    let p: f64 = 5.0 / 9.0;
    let chances: Vec<f64> = plan.groups[0].passed_given_stop.iter().map(|c| c.probability()).collect();
    assert!((chances[0] - p / (1.0 + p)).abs() < 1e-12 && chances[1] == 0.0, "{chances:?}");
    let total: f64 = plan.chain.stop_probabilities.iter().sum();
    assert!((total - 1.0).abs() < 1e-12);
    assert!((plan.chain.stop_probabilities[4] - p.powi(8)).abs() < 1e-12);
}

#[test]
fn move_is_halved_in_difficult_terrain() {
    assert_eq!(distance_for_move(4.0, &[]), 4.0);
    assert_eq!(distance_for_move(4.0, &[(1.0, 10.0)]), 2.5);
    assert_eq!(distance_for_move(4.0, &[(1.0, 2.0)]), 3.0);
    assert_eq!(distance_for_move(4.0, &[(5.0, 6.0)]), 4.0);
    assert_eq!(merge_stretches(vec![(3.0, 4.0), (0.0, 1.0), (0.5, 2.0)]), vec![(0.0, 2.0), (3.0, 4.0)]);
}

#[test]
fn a_wood_on_the_path_costs_move_and_is_tested() {
    // A wood from y = 2 to y = 4 across the path: the 60 mm base is partly inside from
    // s = 2 - r to s = 4 + r, costing that stretch twice; the line at y = 6 is out of reach.
    let r = 30.0 / 25.4;
    let text = DEFAULT_SCENARIO.replace(
        "[[formations]]",
        "[[terrain]]\nname = \"Wood\"\nkind = \"difficult\"\npolygon = [[-5, 2], [5, 2], [5, 4], [-5, 4]]\n\n[[formations]]",
    );
    let plan = plan_of(&text);
    assert!((plan.difficult_from.unwrap() - (2.0 - r)).abs() < 1e-6);
    let rough = 2.0 + 2.0 * r;
    let driven = plan.end.centre.y;
    assert!((driven - (10.0 - rough)).abs() < 1e-6, "drove {driven}");
    assert!((plan.move_spent - 10.0).abs() < 1e-6);
    assert!(plan.metrics.contains(&Metric::TerrainWound));
}

#[test]
fn an_obstacle_stops_the_path() {
    let text = DEFAULT_SCENARIO.replace(
        "[[formations]]",
        "[[terrain]]\nname = \"Wall\"\nkind = \"obstacle\"\nfrom = [-3, 3]\nto = [3, 3]\n\n[[formations]]",
    );
    let plan = plan_of(&text);
    let r = 30.0 / 25.4;
    let hit = plan.obstacle.as_ref().expect("hits the wall");
    assert!((hit.distance - (3.0 - r)).abs() < 1e-6);
    assert!(plan.groups.is_empty(), "the line behind the wall is never reached");
    assert!(!plan.breakthrough_possible);
}

#[test]
fn aim_turns_towards_a_point_by_at_most_45_degrees() {
    let text = DEFAULT_SCENARIO.replace("pivots = [0, 0]", "aim = [10.0, 0.5]");
    let plan = plan_of(&text);
    assert_eq!(plan.pivots[0], 45.0, "wants about 87 degrees, turns 45");
    assert!(plan.pivots[1] > 0.0 && plan.pivots[1] <= 45.0, "{:?}", plan.pivots);
    // Aiming at the formation by name heads for its centre: dead ahead, no turning.
    let text = DEFAULT_SCENARIO.replace("pivots = [0, 0]", "aim = \"Warriors of Minas Tirith\"");
    let plan = plan_of(&text);
    assert!(plan.pivots.iter().all(|p| p.abs() < 1e-9), "{:?}", plan.pivots);
}

#[test]
fn the_best_plan_turns_from_a_gap_into_the_line() {
    // Two blocks with a 4" gap straight ahead: driving straight meets nobody.
    let blocks = |path: &str| {
        format!(
            r#"title = "gap"
system = "mesbg"
[chariot]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 0.0]
facing = 0
[charge]
{path}
[[formations]]
name = "Left"
count = 5
profile = "Warrior of Minas Tirith"
front_centre = [-4.5, 6.0]
facing = 180
[[formations]]
name = "Right"
count = 5
profile = "Warrior of Minas Tirith"
front_centre = [4.5, 6.0]
facing = 180
"#
        )
    };
    let straight = plan_of(&blocks("pivots = [0]"));
    assert!(straight.groups.is_empty());
    let best = plan_of(&blocks("plan = \"best\""));
    assert!(!best.groups.is_empty(), "pivots {:?}", best.pivots);
    assert!(best.pivots.iter().any(|p| p.abs() > 0.0));
    // Through the gap is the way to break through nothing: the breakthrough objective
    // needs a formation on the path, so it also turns into a line.
    let through = plan_of(&blocks("plan = \"best\"\nobjective = \"breakthrough\""));
    assert!(through.breakthrough_possible, "pivots {:?}", through.pivots);
}

#[test]
fn a_path_that_misses_everything() {
    let text = DEFAULT_SCENARIO.replace("facing = 0 ", "facing = 90 ");
    let plan = plan_of(&text);
    assert!(plan.groups.is_empty());
    assert!(!plan.breakthrough_possible);
    assert!((plan.end.centre.x - 10.0).abs() < 1e-9);
}

#[test]
fn pivots_turn_the_path() {
    // Facing east, then two pivots of -45 turn it north after 4" and 8".
    let text = DEFAULT_SCENARIO
        .replace("facing = 0 ", "facing = 90 ")
        .replace("at = [0.0, 0.0]", "at = [-6.0, 0.0]")
        .replace("pivots = [0, 0]", "pivots = [0, -45, -45]");
    let plan = plan_of(&text);
    assert_eq!(plan.legs.len(), 3);
    assert!((plan.end.facing - 0.0).abs() < 1e-9);
    let h = 4.0 * std::f64::consts::FRAC_1_SQRT_2;
    assert!((plan.end.centre.x - (-2.0 + h)).abs() < 1e-9, "{:?}", plan.end);
    assert!((plan.end.centre.y - (h + 2.0)).abs() < 1e-9, "{:?}", plan.end);
}

#[test]
fn a_rectangular_chariot_pivot_pushes_a_model_aside_without_hitting_it() {
    let text = DEFAULT_SCENARIO
        .replace("base = { round_mm = 60 }", "base = { rect_mm = [50.8, 101.6] }")
        .replace("pivots = [0, 0]", "pivots = [45]")
        .replace("count = 12", "count = 1")
        .replace("ranks = 2", "ranks = 1")
        .replace("front_centre = [0.0, 6.0]", "front_centre = [-1.55, -1.7]");
    // Turning clockwise, the rear-left corner sweeps west through the model beside it;
    // the chariot then drives north-east, away from where the model was pushed.
    let plan = plan_of(&text);
    assert_eq!(plan.pushes.len(), 1, "{:?}", plan.pushes);
    let push = &plan.pushes[0];
    assert_eq!(push.at_distance, 0.0);
    assert!(push.to.x < push.from.x, "pushed west: {push:?}");
    assert!(plan.groups.is_empty(), "a push is not a contact: {:?}", plan.groups);
    assert_eq!(plan.models[push.model].centre, push.to);
}

/// The best-path search that reuses the drives of candidates beginning with the same pivots
/// chooses exactly what scoring every candidate in full chooses: the bundled example with ten orcs (a
/// Move of 8" asks for two of its three pivots), the same line behind a wall (every drive
/// ends at it, at different chances), a Move of 10" (every pivot used), difficult ground to stop short of,
/// and breaking through rather than killing.
#[test]
fn reusing_drives_chooses_the_path_the_full_search_chooses() {
    let example = include_str!("../../../scenarios/mesbg/iron-hills-vs-orcs-best.toml");
    // Ten orcs, not twenty: the full search pushes every model a pivot touches, and this
    // test runs it five times beside the other tests.
    let smaller = example.replace("count = 20", "count = 10");
    let wall =
        format!("{smaller}\n[[terrain]]\nname = \"Wall\"\nkind = \"obstacle\"\nfrom = [-1.0, 5.0]\nto = [6.0, 5.5]\n");
    let rough = format!(
        "{smaller}\n[[terrain]]\nname = \"Scree\"\nkind = \"difficult\"\npolygon = [[-6.0, 3.0], [0.5, 3.0], [0.5, 4.5], [-6.0, 4.5]]\n"
    );
    let longer = smaller.replace("facing = 0\n", "facing = 0\nmove = 10\n");
    let through = smaller.replace("objective = \"expected_impact_kills\"", "objective = \"breakthrough\"");
    for (name, text) in
        [("example", smaller.clone()), ("wall", wall), ("rough", rough), ("move 10", longer), ("breakthrough", through)]
    {
        let scenario = parse(&text, "test.toml").unwrap_or_else(|e| panic!("{name}: {e}"));
        let reused = compile(&scenario);
        path::REUSE_DRIVES.with(|r| r.set(false));
        let full = compile(&scenario);
        path::REUSE_DRIVES.with(|r| r.set(true));
        assert_eq!(reused.pivots, full.pivots, "{name}");
        assert_eq!(reused.path_length.to_bits(), full.path_length.to_bits(), "{name}");
        assert_eq!(reused.groups.len(), full.groups.len(), "{name}");
    }
}
