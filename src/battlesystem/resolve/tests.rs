//! BATTLESYSTEM trials' tests: charges, routs, trampling and thread-count independence.

use super::*;
use crate::battlesystem::scenario::parse;

fn plan_of(text: &str) -> BattlesystemPlan {
    compile(&parse(text, "test.toml").expect("valid scenario"))
}

/// The bundled routing example's plan.
fn routing_example() -> BattlesystemPlan {
    let path = "scenarios/battlesystem/routing-elephants-in-battle-line.toml";
    plan_of(&std::fs::read_to_string(path).expect("bundled example"))
}

fn tally(plan: &BattlesystemPlan, trials: u64) -> BattlesystemTally {
    let streams = Streams::new(plan.scenario.seed, plan.scenario.hash());
    tally_trials(plan, streams, 0..trials, &mut Scratch::default())
}

fn mean(t: &BattlesystemTally, plan: &BattlesystemPlan, name: &str) -> f64 {
    let m = plan.metrics.index(name).unwrap_or_else(|| panic!("no metric {name}"));
    let h = t.histogram(m);
    h.iter().enumerate().map(|(v, c)| v as f64 * *c as f64).sum::<f64>() / t.trials as f64
}

const HEADER: &str = "title = \"t\"\nsystem = \"battlesystem\"\nseed = 5\n[board]\nwidth = 48\ndepth = 48\n";

fn beast(at: [f64; 2], extra: &str) -> String {
    format!(
        "[[units]]\nname = \"Beast\"\nside = \"a\"\nfigures = 1\nbeast = true\nat = [{}, {}]\nbase = [2.0, 2.0]\nstats = {{ ad = \"d10\", ar = 10, hits = 50, ml = 14, mv = 12 }}\n{extra}",
        at[0], at[1]
    )
}

fn block_unit(name: &str, side: &str, at: [f64; 2], figures: u32, frontage: u32, ml: u32) -> String {
    format!(
        "[[units]]\nname = \"{name}\"\nside = \"{side}\"\nfigures = {figures}\nfrontage = {frontage}\nat = [{}, {}]\nstats = {{ ad = \"d4\", ar = 10, hits = 50, ml = {ml}, mv = 30 }}\n",
        at[0], at[1]
    )
}

/// A unit block with an explicit base, facing, and stats line.
#[allow(clippy::too_many_arguments)]
fn unit_at(
    name: &str,
    side: &str,
    figures: u32,
    frontage: u32,
    at: [f64; 2],
    facing: f64,
    base: [f64; 2],
    ml: u32,
) -> String {
    format!(
        "[[units]]\nname = \"{name}\"\nside = \"{side}\"\nfigures = {figures}\nfrontage = {frontage}\nfacing = {facing}\n\
         at = [{}, {}]\nbase = [{}, {}]\nstats = {{ ad = \"d4\", ar = 10, hits = 50, ml = {ml}, mv = 6 }}\n",
        at[0], at[1], base[0], base[1]
    )
}

/// The defender figures of the first melee of trial 0.
fn first_melee_defenders(text: &str) -> u32 {
    let plan = plan_of(text);
    let (_, events) = replay(&plan, Streams::new(1, plan.scenario.hash()), 0);
    events
        .iter()
        .find_map(|e| match e {
            BattlesystemEvent::Melee { defender_figures, .. } => Some(*defender_figures),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no melee: {events:?}"))
}

#[test]
fn only_the_figures_along_the_contact_fight_back() {
    let dragon = |base: [f64; 2]| {
        format!(
            "[[units]]\nname = \"Dragon\"\nside = \"a\"\nfigures = 1\nbeast = true\nat = [24.0, 10.0]\nbase = [{}, {}]\n\
             stats = {{ ad = \"d12\", ar = 10, hits = 50, ml = 14, mv = 12 }}\n",
            base[0], base[1]
        )
    };
    let go_north = "[rout]\nunit = \"Dragon\"\nfirst_hour = 12\n[rules]\nveer_degrees = 0\n";
    // A column two figures wide (1" bases) meets a 4"-wide dragon along 2": 2 figures.
    let column = unit_at("Column", "b", 20, 2, [24.0, 20.0], 180.0, [1.0, 1.0], 20);
    assert_eq!(first_melee_defenders(&format!("{HEADER}{}{column}{go_north}", dragon([4.0, 3.0]))), 2);
    // A line ten wide meets a 2"-wide beast along 2": 2 figures; a 4"-wide one, 4.
    let line = unit_at("Line", "b", 20, 10, [24.0, 20.0], 180.0, [1.0, 1.0], 20);
    assert_eq!(first_melee_defenders(&format!("{HEADER}{}{line}{go_north}", dragon([2.0, 3.0]))), 2);
    assert_eq!(first_melee_defenders(&format!("{HEADER}{}{line}{go_north}", dragon([4.0, 3.0]))), 4);
    // The line's flank (it faces east; two ranks deep, 2") meets a 4"-wide dragon
    // along 2": only its 2 ranks' end figures.
    let flank = unit_at("Flank", "b", 20, 10, [24.0, 20.0], 90.0, [1.0, 1.0], 20);
    assert_eq!(first_melee_defenders(&format!("{HEADER}{}{flank}{go_north}", dragon([4.0, 3.0]))), 2);
    // Offset half off the column: the 4" dragon centred 1.5" east of a 2"-wide column
    // overlaps it by 1.5": 2 figures (a part of a base fights).
    let side = unit_at("Column", "b", 20, 2, [22.5, 20.0], 180.0, [1.0, 1.0], 20);
    assert_eq!(first_melee_defenders(&format!("{HEADER}{}{side}{go_north}", dragon([4.0, 3.0]))), 2);
}

#[test]
fn a_turn_in_place_is_not_a_contact() {
    // The beast (2" x 2") starts 4" south of a line that never breaks (ML 20), drives
    // north into it, and re-rolls. A southward re-roll (4 to 8 o'clock) leads away from
    // the line: it must move off (a move of more than 1") with no new contact with it.
    let text = format!(
        "{HEADER}{}{}[rout]\nunit = \"Beast\"\nfirst_hour = 12\n[rules]\nveer_degrees = 0\nmax_rerolls = 1\n",
        beast([24.0, 10.0], ""),
        block_unit("Wall", "b", [24.0, 15.5], 20, 10, 20)
    );
    let plan = plan_of(&text);
    let streams = Streams::new(1, plan.scenario.hash());
    let mut away = 0;
    for trial in 0..200 {
        let (_, events) = replay(&plan, streams, trial);
        let Some(k) = events.iter().position(|e| matches!(e, BattlesystemEvent::Heading { reroll: true, .. })) else {
            continue;
        };
        let BattlesystemEvent::Heading { hour, .. } = events[k] else { unreachable!() };
        if (4..=8).contains(&hour) {
            away += 1;
            match &events[k + 1] {
                BattlesystemEvent::Move { distance, .. } => assert!(*distance > 1.0, "{events:?}"),
                other => panic!("expected a move away, got {other:?}"),
            }
            assert!(!matches!(events.get(k + 2), Some(BattlesystemEvent::Contact { unit: 1, .. })), "{events:?}");
        }
        for e in &events {
            if let BattlesystemEvent::Contact { into, .. } = e {
                assert!(*into > 1e-9, "a contact not going into its unit: {events:?}");
            }
        }
    }
    assert!(away > 20, "{away} southward re-rolls");
}

#[test]
fn a_pushed_unit_moves_straight_away_or_aside() {
    // The beast (2" wide, x 23 to 25) drives north into a small unit 2" wide at x = 24.5
    // (x 23.5 to 25.5) that always fails (ML 2: 99 in 100). Straight: it is pushed north
    // and the gap grows by exactly the push. Aside: stepping east 1.5" clears the
    // beast's path (west would take 2.5"), shorter than any push.
    let small = unit_at("Small", "b", 2, 2, [24.5, 14.0], 180.0, [1.0, 1.0], 2);
    for (moves, expect_aside) in [("straight", false), ("aside", true)] {
        let text = format!(
            "{HEADER}{}{small}[rout]\nunit = \"Beast\"\nfirst_hour = 12\n[rules]\nveer_degrees = 0\nstruck_unit_moves = \"{moves}\"\n",
            beast([24.0, 10.0], "")
        );
        let plan = plan_of(&text);
        let streams = Streams::new(1, plan.scenario.hash());
        let mut seen = 0;
        for trial in 0..100 {
            let (_, events) = replay(&plan, streams, trial);
            let Some(BattlesystemEvent::Displaced { distance, gap_before, gap_after, still_blocking, .. }) =
                events.iter().find(|e| matches!(e, BattlesystemEvent::Displaced { .. }))
            else {
                continue;
            };
            seen += 1;
            assert!(gap_before.abs() < 1e-6, "touching when pushed: {gap_before}");
            if expect_aside {
                assert!((distance - 1.5).abs() < 1e-5, "{events:?}");
                assert!(!still_blocking);
            } else if let Some(after) = gap_after {
                assert!((after - gap_before - distance).abs() < 1e-6, "{events:?}");
            }
        }
        assert!(seen > 80, "{moves}: {seen}");
    }
}

#[test]
fn veering_round_what_it_can_avoid() {
    // A small unit A 3" ahead (x 23 to 25, y 13.5 to 14.5) and a long line B across the
    // board 20" ahead. No veer within 45 degrees clears the whole 30" move (B spans the
    // board). whole_move keeps the line and meets A; avoid_what_it_can veers round A
    // (the smallest turn that does, clockwise first) and meets only B.
    let a = unit_at("A", "b", 2, 2, [24.0, 14.0], 180.0, [1.0, 1.0], 20);
    let b = unit_at("B", "b", 44, 44, [24.0, 30.0], 180.0, [1.0, 1.0], 20);
    let first_contact = |veer: &str| {
        let text = format!(
            "{HEADER}{}{a}{b}[rout]\nunit = \"Beast\"\nfirst_hour = 12\n[rules]\nveer = \"{veer}\"\nrout_distance = 30\n",
            beast([24.0, 10.0], "")
        );
        let plan = plan_of(&text);
        let (_, events) = replay(&plan, Streams::new(1, plan.scenario.hash()), 0);
        let contact = events.iter().find_map(|e| match e {
            BattlesystemEvent::Contact { unit, .. } => Some(*unit),
            _ => None,
        });
        let veer = events.iter().find_map(|e| match e {
            BattlesystemEvent::Move { veer, .. } => Some(*veer),
            _ => None,
        });
        (contact, veer)
    };
    assert_eq!(first_contact("whole_move"), (Some(1), Some(0.0)));
    let (unit, veer) = first_contact("avoid_what_it_can");
    assert_eq!(unit, Some(2));
    // The beast's corner must pass A's corner: at 35 degrees its path (2" wide) clears
    // x = 25 by y = 13.5; at 30 it does not. Clockwise first: +35.
    let veer = veer.unwrap();
    assert!(veer > 0.0 && veer <= 45.0, "veer {veer}");
}

#[test]
fn cells_crossed_follow_the_segment_exactly() {
    // By hand: from (0.5, 0.5) to (2.5, 1.5), the line y = x / 2 + 0.25 crosses x = 1 at
    // y = 0.75, y = 1 at x = 1.5, x = 2 at y = 1.25.
    assert_eq!(cells_crossed(Vec2::new(0.5, 0.5), Vec2::new(2.5, 1.5)), vec![(0, 0), (1, 0), (1, 1), (2, 1)]);
    // Through a corner exactly: straight into the diagonal cell.
    assert_eq!(cells_crossed(Vec2::new(0.5, 0.5), Vec2::new(1.5, 1.5)), vec![(0, 0), (1, 1)]);
    // Ending on a boundary does not enter the next cell; going west and south works.
    assert_eq!(cells_crossed(Vec2::new(0.5, 0.5), Vec2::new(2.0, 0.5)), vec![(0, 0), (1, 0)]);
    assert_eq!(cells_crossed(Vec2::new(3.2, 2.7), Vec2::new(0.6, 0.1)).last(), Some(&(0, 0)));
    // Against dense sampling of random segments: the same cells (sampling can only miss
    // a sliver, never add a cell).
    let mut dice = crate::dice::trial_dice(4, 4, 4, Phase::Charge);
    for _ in 0..500 {
        let mut r = || f64::from(dice.d6()) * 1.37 + f64::from(dice.d6()) * 0.291;
        let (a, b) = (Vec2::new(r(), r()), Vec2::new(r(), r()));
        let exact = cells_crossed(a, b);
        let n = 20_000;
        let mut sampled: Vec<(i64, i64)> = Vec::new();
        for k in 1..n {
            let p = a + (b - a).scale(k as f64 / n as f64);
            let c = (p.x.floor() as i64, p.y.floor() as i64);
            if !sampled.contains(&c) {
                sampled.push(c);
            }
        }
        for c in &sampled {
            assert!(exact.contains(c), "{a:?} -> {b:?}: {c:?} sampled, not in {exact:?}");
        }
        assert!(exact.len() <= sampled.len() + 2, "{a:?} -> {b:?}: {exact:?} vs {sampled:?}");
    }
}

#[test]
fn veering_round_a_small_unit_and_not_round_a_long_line() {
    // Heading north from (24, 10); a 2"-wide unit ahead at (24, 18). Turning 15 degrees
    // clears it; a 20"-wide line cannot be avoided within 45 degrees.
    let small = format!(
        "{HEADER}{}{}[rout]\nunit = \"Beast\"\nfirst_hour = 12\n",
        beast([24.0, 10.0], ""),
        block_unit("Scouts", "b", [24.0, 18.0], 2, 2, 20)
    );
    let plan = plan_of(&small);
    let streams = Streams::new(1, plan.scenario.hash());
    let (values, events) = replay(&plan, streams, 0);
    let veer = events.iter().find_map(|e| match e {
        BattlesystemEvent::Move { veer, .. } => Some(*veer),
        _ => None,
    });
    // Clockwise first, in 5-degree steps, the smallest turn that clears it.
    let veer = veer.expect("moved");
    assert!(veer > 0.0 && veer <= 45.0 && (veer / 5.0).fract() == 0.0, "{events:?}");
    assert_eq!(values[plan.metrics.index("contacts").unwrap()], 0);
    assert_eq!(values[plan.metrics.index("distance").unwrap()], 12);
    // Allowed less than that turn, it strikes them.
    let tight =
        small.replace("first_hour = 12\n", &format!("first_hour = 12\n[rules]\nveer_degrees = {}\n", veer - 5.0));
    let plan_tight = plan_of(&tight);
    let (values, _) = replay(&plan_tight, streams, 0);
    assert_eq!(values[plan_tight.metrics.index("contacted.scouts").unwrap()], 1);
    let long = small.replace("figures = 2\nfrontage = 2", "figures = 20\nfrontage = 20");
    let plan = plan_of(&long);
    let (values, events) = replay(&plan, streams, 0);
    assert!(events.iter().any(|e| matches!(e, BattlesystemEvent::Contact { unit: 1, .. })), "{events:?}");
    // Contact after 6.5": the beast's front at 11, the line's near edge at 17.5.
    let first_move = events.iter().find_map(|e| match e {
        BattlesystemEvent::Move { distance, veer, .. } => Some((*distance, *veer)),
        _ => None,
    });
    let (distance, veer) = first_move.expect("moved");
    assert!((distance - 6.5).abs() < 1e-6 && veer == 0.0, "{events:?}");
    assert_eq!(values[plan.metrics.index("contacted.scouts").unwrap()], 1);
}

#[test]
fn a_unit_that_holds_forces_a_reroll_and_a_ring_stops_the_beast() {
    // Boxed in on all four sides by units that never fail morale (ML 20) and never
    // lose a figure: every direction is blocked, so every rout uses all three re-rolls
    // and stops.
    // The corner gaps (1") are narrower than the beast (2"); the rout distance (96")
    // always reaches the next unit.
    let ring = format!(
        "{HEADER}{}{}{}{}{}[rout]\nunit = \"Beast\"\n[rules]\nrout_distance = 96\n",
        beast([24.0, 24.0], ""),
        block_unit("North", "b", [24.0, 29.0], 16, 16, 20),
        block_unit("South", "b", [24.0, 19.0], 16, 16, 20),
        block_unit("East", "b", [33.5, 24.0], 16, 1, 20),
        block_unit("West", "b", [14.5, 24.0], 16, 1, 20),
    );
    let plan = plan_of(&ring);
    let t = tally(&plan, 2000);
    assert_eq!(mean(&t, &plan, "rerolls"), 3.0);
    assert_eq!(mean(&t, &plan, "stopped"), 1.0);
    // One melee per move, and two when the beast, wedged in a corner against two units,
    // is rolled a heading into both at once (it fights each).
    let contacts = mean(&t, &plan, "contacts");
    assert!((4.0..4.2).contains(&contacts), "{contacts}");
    assert_eq!(mean(&t, &plan, "left_board"), 0.0);
    assert_eq!(mean(&t, &plan, "displaced.north"), 0.0);
}

#[test]
fn a_displaced_unit_clears_the_path() {
    // A line ahead with ML 2 (2d10 of 7 or more fails by 5+: it routs, 86 times in 100)
    // that runs 30" away from the beast when it routs at the first contact: the beast
    // goes on with the distance left, no re-roll, and the Levy's figures are lost off
    // the board.
    let text = format!(
        "{HEADER}{}{}[rout]\nunit = \"Beast\"\nfirst_hour = 12\n[rules]\nveer_degrees = 0\n",
        beast([24.0, 10.0], ""),
        block_unit("Levy", "b", [24.0, 18.0], 20, 20, 2).replace("mv = 30", "mv = 40")
    );
    let plan = plan_of(&text);
    let streams = Streams::new(1, plan.scenario.hash());
    let mut routed_and_cleared = 0;
    for trial in 0..50 {
        let (values, events) = replay(&plan, streams, trial);
        let displaced = events.iter().find_map(|e| match e {
            BattlesystemEvent::Displaced { distance, still_blocking, .. } => Some((*distance, *still_blocking)),
            _ => None,
        });
        let first_morale = events.iter().find_map(|e| match e {
            BattlesystemEvent::Morale { result, .. } => Some(*result),
            _ => None,
        });
        if first_morale == Some(MoraleResult::Routed) {
            // Pushed 40" north from y = 18, it leaves the 48" board after 30".
            let (distance, blocking) = displaced.expect("displaced");
            assert!(!blocking && (distance - 30.0).abs() < 1e-9, "{events:?}");
            assert_eq!(values[plan.metrics.index("rerolls").unwrap()], 0);
            assert_eq!(values[plan.metrics.index("distance").unwrap()], 12, "{events:?}");
            assert_eq!(values[plan.metrics.index("units_off_board").unwrap()], 1);
            assert_eq!(values[plan.metrics.index("figures_lost.levy").unwrap()], 20, "all 20 lost");
            assert_eq!(values[plan.metrics.index("enemy_figures_lost").unwrap()], 20);
            routed_and_cleared += 1;
        }
    }
    assert!(routed_and_cleared > 30, "{routed_and_cleared}");
}

#[test]
fn leaving_the_board_is_lost_and_headings_are_uniform() {
    // Alone near the east edge: hours 1 to 5 take it off within its 12" move.
    let text = format!("{HEADER}{}[rout]\nunit = \"Beast\"\n", beast([40.0, 24.0], ""));
    let plan = plan_of(&text);
    let n = 120_000;
    let t = tally(&plan, n);
    let heading = t.histogram(plan.metrics.index("heading").unwrap());
    let expected = n as f64 / 12.0;
    let chi2: f64 = (1..=12).map(|h| (heading[h] as f64 - expected).powi(2) / expected).sum();
    assert!(chi2 < 45.0, "chi-square {chi2} with 11 df");
    assert_eq!(heading[0], 0);
    // The centre is 8" from the east edge: hour 3 leaves after 8", hours 2 and 4 after
    // 8 / sin(60) = 9.2", hours 1 and 5 would need 8 / sin(30) = 16" (more than 12").
    let p = mean(&t, &plan, "left_board");
    let se = (3.0 / 12.0 * 9.0 / 12.0 / n as f64).sqrt();
    assert!((p - 3.0 / 12.0).abs() < 5.0 * se, "{p}");
    // The path map: the start cell in every trial.
    assert_eq!(t.path[24 * 48 + 40], n);
}

/// The step memo only saves time: trials played each with a fresh scratch (nothing
/// remembered) tally exactly as trials played with one scratch that remembers steps,
/// under both veer readings.
#[test]
fn remembered_rout_steps_are_the_steps_computed() {
    for veer in ["whole_move", "avoid_what_it_can"] {
        let path = "scenarios/battlesystem/routing-elephants-in-battle-line.toml";
        let text = std::fs::read_to_string(path)
            .expect("bundled example")
            .replace("[rules]\n", &format!("[rules]\nveer = \"{veer}\"\n"));
        let plan = plan_of(&text);
        let streams = Streams::new(3, plan.scenario.hash());
        let mut remembering = Scratch::default();
        let together = tally_trials(&plan, streams, 0..4_000, &mut remembering);
        assert!(remembering.steps.nodes.len() > 10, "the memo is used");
        let mut apart = new_tally(&plan);
        for t in 0..4_000 {
            apart.merge(&tally_trials(&plan, streams, t..t + 1, &mut Scratch::default()));
        }
        assert_eq!(together, apart, "veer = {veer}");
    }
}

/// A block's path map is counted by the walks its trials take through the memo's nodes:
/// a memo that fills and starts again mid-block (here every 40 nodes) must first hand the
/// walks numbered by its old nodes to the tally. The whole tally, path map included, is
/// the one of trials each worked out afresh.
#[test]
fn a_memo_that_starts_again_mid_block_keeps_the_path_map() {
    let plan = routing_example();
    let streams = Streams::new(9, plan.scenario.hash());
    let mut forgetful = Scratch::default();
    forgetful.steps.capacity = 40;
    let counted = tally_trials(&plan, streams, 0..3_000, &mut forgetful);
    assert!(forgetful.steps.nodes.len() <= 40 + 64, "the memo started again");
    let afresh = tally_trials(&plan, streams, 0..3_000, &mut Scratch::uncompiled());
    assert!(afresh.path.iter().filter(|&&n| n > 0).count() > 100, "the routs cross the board");
    assert_eq!(counted, afresh);
}

/// Walks are counted by value when short and by a boxed copy when long: with every walk
/// sent the long way the whole tally is still the one of trials worked out afresh (and a
/// second block with the counter's room kept from the first, too).
#[test]
fn walks_counted_the_long_way_keep_the_path_map() {
    let plan = routing_example();
    let streams = Streams::new(11, plan.scenario.hash());
    let mut long = Scratch::default();
    long.steps.walks.inline = 0;
    for trials in [0..3_000, 3_000..6_000] {
        let afresh = tally_trials(&plan, streams, trials.clone(), &mut Scratch::uncompiled());
        assert_eq!(tally_trials(&plan, streams, trials, &mut long), afresh);
    }
}

/// A rout step is worked out once per plan, whichever thread meets it first: another
/// thread playing the same trials (with nothing of its own remembered) takes every step
/// from the plan's shared store, works none out, and tallies exactly the same.
#[test]
fn rout_steps_are_worked_out_once_and_shared_by_the_threads() {
    let plan = routing_example();
    let streams = Streams::new(5, plan.scenario.hash());
    let here = tally_trials(&plan, streams, 0..3_000, &mut Scratch::default());
    let worked_out = plan.steps.worked_out();
    assert!(worked_out > 10, "the routs meet many board states: {worked_out}");
    let there = std::thread::scope(|s| {
        s.spawn(|| {
            let mut fresh = Scratch::default();
            assert!(fresh.steps.nodes.is_empty(), "a new thread starts with no steps of its own");
            tally_trials(&plan, streams, 0..3_000, &mut fresh)
        })
        .join()
        .expect("the other thread")
    });
    assert_eq!(plan.steps.worked_out(), worked_out, "the other thread worked out no step again");
    assert_eq!(here, there);
    // And a plan compiled again has a store of its own.
    let again = routing_example();
    assert_eq!(again.steps.worked_out(), 0);
}

/// Hits through armour the way the rules read, one hit at a time (crew first on a
/// platform: fighters and archers in order, riders last, then the platforms; a removed
/// platform takes the crew it carried), written here apart from the resolver's counting.
fn hits_one_at_a_time(
    plan: &BattlesystemPlan,
    unit: &Unit,
    state: &mut UnitState,
    hits: u32,
    dice: &mut Dice,
) -> Losses {
    let armour = plan.scenario.rules.attack.armour;
    let crew_first = unit.is_platform() && plan.scenario.rules.platform_hits == PlatformHits::CrewFirst;
    let mut losses = Losses::default();
    for _ in 0..hits {
        let target = crew_first
            .then(|| {
                let fighting = (0..unit.crew.len()).filter(|&g| unit.crew[g].role != Role::Rider);
                let riders = (0..unit.crew.len()).filter(|&g| unit.crew[g].role == Role::Rider);
                fighting.chain(riders).find(|&g| state.crew_alive[g] > 0)
            })
            .flatten();
        let ar = target.map_or(unit.stats.ar, |g| unit.crew[g].ar);
        if armour.cancels(die(10, dice), ar) {
            continue;
        }
        losses.through += 1;
        if let Some(g) = target {
            state.crew_carried[g] += 1;
            if state.crew_carried[g] >= unit.crew[g].hits {
                state.crew_carried[g] = 0;
                state.crew_alive[g] -= 1;
                losses.crew += 1;
            }
        } else if state.figures > 0 {
            state.carried += 1;
            if state.carried >= unit.stats.hits {
                state.carried = 0;
                state.figures -= 1;
                losses.figures += 1;
                for (g, c) in unit.crew.iter().enumerate() {
                    let removed = state.crew_alive[g].saturating_sub(c.count * state.figures);
                    state.crew_alive[g] -= removed;
                    losses.crew += removed;
                }
            }
        }
    }
    losses
}

/// The resolver's hits through armour (counted without a branch per hit for a unit
/// without crew; a platform's next crew group found by walking down its order) take the
/// same dice and leave every unit as one hit at a time does: every unit of the bundled
/// charges and rout, from fresh and from worn states, under both ways platforms take hits.
#[test]
fn hits_through_armour_counted_at_once_are_the_hits_taken_one_at_a_time() {
    let files = [
        include_str!("../../../scenarios/battlesystem/elephant-howdah-vs-pikemen.toml"),
        include_str!("../../../scenarios/battlesystem/dragon-with-crew.toml"),
        include_str!("../../../scenarios/battlesystem/routing-elephants-in-battle-line.toml"),
    ];
    let mut checked = 0;
    for text in files {
        for crew_first in [false, true] {
            // Each file with its `platform_hits` set both ways.
            let text: String =
                text.lines().filter(|l| !l.starts_with("platform_hits")).map(|l| format!("{l}\n")).collect();
            let line = format!("platform_hits = \"{}\"\n", if crew_first { "crew_first" } else { "platform_first" });
            let text = if text.contains("\n[rules]\n") {
                text.replacen("\n[rules]\n", &format!("\n[rules]\n{line}"), 1)
            } else {
                format!("{text}\n[rules]\n{line}")
            };
            let scenario = parse(&text, "test.toml").expect("a bundled example, with crew first");
            assert_eq!(scenario.rules.platform_hits == PlatformHits::CrewFirst, crew_first);
            let plan = compile(&scenario);
            for (u, unit) in plan.scenario.units.iter().enumerate() {
                for trial in 0..400u64 {
                    let mut fresh = UnitState::fresh(unit);
                    // Worn: some figures gone, hits carried, crew thinned.
                    if trial % 2 == 1 {
                        fresh.figures -= (trial as u32 / 2) % fresh.figures.max(1);
                        fresh.carried = (trial as u32 / 3) % unit.stats.hits.max(1);
                        for g in 0..unit.crew.len() {
                            fresh.crew_alive[g] = fresh.crew_alive[g].min(unit.crew[g].count * fresh.figures) / 2;
                        }
                    }
                    let hits = (trial % 37) as u32;
                    let (mut a, mut b) = (fresh, fresh);
                    let mut dice_a = crate::dice::trial_dice(9, u as u64, trial, Phase::Charge);
                    let mut dice_b = crate::dice::trial_dice(9, u as u64, trial, Phase::Charge);
                    let counted = take_hits(&plan, unit, &mut a, hits, &mut dice_a);
                    let one_by_one = hits_one_at_a_time(&plan, unit, &mut b, hits, &mut dice_b);
                    let name = &unit.name;
                    assert_eq!(counted, one_by_one, "{name} trial {trial}");
                    assert_eq!(
                        (a.figures, a.carried, a.crew_alive, a.crew_carried),
                        (b.figures, b.carried, b.crew_alive, b.crew_carried),
                        "{name} trial {trial}"
                    );
                    // The same dice taken: the next word is the same.
                    assert_eq!(dice_a.word(), dice_b.word(), "{name} trial {trial}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 4_000, "{checked}");
}

/// Each attack drawn whole from its table ([`tables::AttackTables`]) follows the
/// distribution of the same attack rolled die by die (every die through the hits table, the
/// platform's roll added, then each hit's armour d10): for every pair of units of the
/// bundled charges and rout, charging, trampling and standing, with one to three figures in
/// contact, fresh and with crew lost, under each way platforms take hits and roll their die,
/// and the charges' volleys. Two samples, each outcome's share within five standard errors
/// of the difference, and the means likewise.
#[test]
fn attacks_drawn_whole_follow_the_dice_rolled_one_by_one() {
    let files = [
        include_str!("../../../scenarios/battlesystem/elephant-howdah-vs-pikemen.toml"),
        include_str!("../../../scenarios/battlesystem/dragon-with-crew.toml"),
        include_str!("../../../scenarios/battlesystem/routing-elephants-in-battle-line.toml"),
    ];
    const N: usize = 6_000;
    let mut compared = 0;
    for text in files {
        for (variant, lines) in [
            "platform_hits = \"crew_first\"\n",
            "platform_hits = \"platform_first\"\nplatform_roll = \"per_die\"\n",
            "platform_hits = \"crew_first\"\ndriver_only = \"platform_ad\"\nplatform_attacks_alone = false\n",
        ]
        .iter()
        .enumerate()
        {
            let text = with_rules(text, lines);
            let plan = compile(&parse(&text, "test.toml").expect("a bundled example with other rules"));
            let units = &plan.scenario.units;
            let pairs = (0..units.len().min(3)).flat_map(|a| (0..units.len().min(3)).map(move |d| (a, d)));
            for (a, d) in pairs.filter(|(a, d)| a != d) {
                let mut attacks: Vec<(Made, u32, bool)> = Vec::new();
                for how in [Fighting::Charging, Fighting::Trampling, Fighting::Standing] {
                    for in_contact in 1..=units[a].figures.min(3) {
                        for worn in [false, true] {
                            attacks.push((Made::Melee(how), in_contact, worn));
                        }
                    }
                }
                if units[a].crew.iter().any(|c| c.role == crate::battlesystem::scenario::Role::Archer) {
                    attacks.extend([
                        (Made::Volley(0), 0, false),
                        (Made::Volley(1), 0, false),
                        (Made::Volley(0), 0, true),
                    ]);
                }
                for (made, in_contact, worn) in attacks {
                    let mut attacker = UnitState::fresh(&units[a]);
                    if worn {
                        for g in 0..units[a].crew.len() {
                            attacker.crew_alive[g] /= 2;
                        }
                    }
                    let seed = (variant * 100 + a * 10 + d) as u64;
                    let mut tables = tables::AttackTables::default();
                    let mut drawn_dice = crate::dice::trial_dice(seed, 1, in_contact.into(), Phase::Charge);
                    let mut rolled_dice = crate::dice::trial_dice(seed, 2, in_contact.into(), Phase::Charge);
                    let one_armour = tables::hits_fall_on_one_armour(&plan, &units[d]);
                    let (mut drawn, mut rolled) = (vec![0u32; N], vec![0u32; N]);
                    for i in 0..N {
                        drawn[i] =
                            match tables.draw(&plan, a, &attacker.crew_alive, in_contact, made, d, &mut drawn_dice) {
                                tables::Drawn::Through(t) => {
                                    assert!(one_armour, "through armour drawn for {} under crew first", units[d].name);
                                    t
                                }
                                tables::Drawn::Raw(r) => {
                                    assert!(!one_armour, "hits before armour drawn for {}", units[d].name);
                                    r
                                }
                            };
                        let raw = match made {
                            Made::Melee(how) => {
                                melee_hits(&plan, &units[a], &attacker, in_contact, how, &mut rolled_dice)
                            }
                            Made::Volley(v) => volley_hits_one_by_one(&plan, a, &attacker, v, &mut rolled_dice),
                        };
                        rolled[i] = if one_armour {
                            let mut target = UnitState::fresh(&units[d]);
                            take_hits(&plan, &units[d], &mut target, raw, &mut rolled_dice).through
                        } else {
                            raw
                        };
                    }
                    let what = format!(
                        "variant {variant}: {} on {} as {made:?}, {in_contact} in contact, worn {worn}",
                        units[a].name, units[d].name
                    );
                    assert_same_distribution(&drawn, &rolled, &what);
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 150, "{compared}");
}

/// A bundled example's text with its own `platform_hits` and `platform_attacks_alone` lines
/// dropped and `lines` added to its `[rules]` (made when it has none).
fn with_rules(text: &str, lines: &str) -> String {
    let text: String = text
        .lines()
        .filter(|l| !l.starts_with("platform_hits") && !l.starts_with("platform_attacks_alone"))
        .map(|l| format!("{l}\n"))
        .collect();
    if text.contains("\n[rules]\n") {
        text.replacen("\n[rules]\n", &format!("\n[rules]\n{lines}"), 1)
    } else {
        format!("{text}\n[rules]\n{lines}")
    }
}

/// A volley's hits before armour, die by die (the archers' groups in range, each die
/// through the hits table).
fn volley_hits_one_by_one(plan: &BattlesystemPlan, unit: usize, state: &UnitState, v: u32, dice: &mut Dice) -> u32 {
    let range = plan.volley_range(v);
    let mut hits = 0;
    for (g, crew) in plan.scenario.units[unit].crew.iter().enumerate() {
        if crew.role != crate::battlesystem::scenario::Role::Archer {
            continue;
        }
        if let Some(band) = crew.bands.iter().find(|b| range >= b.from && range < b.to) {
            for _ in 0..crate::battlesystem::rules::dice_count(state.crew_alive[g], band.hundredths, 100) {
                hits += plan.scenario.rules.attack.hits_table.hits(crew.ad.roll(dice));
            }
        }
    }
    hits
}

/// Two samples of the same size agree: each value's share, and the mean, within five
/// standard errors of the difference.
fn assert_same_distribution(a: &[u32], b: &[u32], what: &str) {
    let n = a.len() as f64;
    let top = *a.iter().chain(b).max().unwrap_or(&0) as usize;
    let (mut ca, mut cb) = (vec![0.0; top + 1], vec![0.0; top + 1]);
    a.iter().for_each(|&x| ca[x as usize] += 1.0);
    b.iter().for_each(|&x| cb[x as usize] += 1.0);
    for v in 0..=top {
        let (pa, pb) = (ca[v] / n, cb[v] / n);
        let pooled = (pa + pb) / 2.0;
        let se = (2.0 * pooled * (1.0 - pooled) / n).sqrt().max(1.0 / n);
        assert!((pa - pb).abs() <= 5.0 * se, "{what}: P({v}) drawn {pa:.4} vs rolled {pb:.4} (se {se:.4})");
    }
    let mean = |s: &[u32]| s.iter().map(|&x| f64::from(x)).sum::<f64>() / n;
    let var = |s: &[u32], m: f64| s.iter().map(|&x| (f64::from(x) - m).powi(2)).sum::<f64>() / n;
    let (ma, mb) = (mean(a), mean(b));
    let se = ((var(a, ma) + var(b, mb)) / n).sqrt().max(1.0 / n);
    assert!((ma - mb).abs() <= 5.0 * se, "{what}: mean drawn {ma:.4} vs rolled {mb:.4} (se {se:.4})");
}

/// A charge played from the tables worked out with its plan ([`tables::ChargeTables`]) is,
/// trial by trial, the charge played from each thread's keyed tables: the same values and
/// the same replayed events, for the bundled charges under each way platforms take hits,
/// roll their die and meet a unit, with the target close enough to be shot at twice, and
/// a charge of one unit on another that is no platform and one on a platform (which has no
/// compiled tables and must say so).
#[test]
fn a_charge_from_its_compiled_tables_is_the_charge_looked_up_by_key() {
    let files = [
        include_str!("../../../scenarios/battlesystem/elephant-howdah-vs-pikemen.toml"),
        include_str!("../../../scenarios/battlesystem/dragon-with-crew.toml"),
    ];
    let variants = [
        "",
        "platform_hits = \"crew_first\"\n",
        "platform_hits = \"platform_first\"\nplatform_roll = \"per_die\"\nmelee_contact = \"whole_front_rank\"\n",
        "platform_hits = \"crew_first\"\ndriver_only = \"platform_ad\"\nplatform_attacks_alone = false\n",
    ];
    let mut compared = 0;
    for text in files {
        for lines in variants {
            let text = with_rules(text, lines);
            let compiled = plan_of(&text);
            assert!(compiled.charge_tables.is_some(), "a charge on a unit that is no platform is compiled");
            let mut keyed = compiled.clone();
            keyed.charge_tables = None;
            let streams = Streams::new(compiled.scenario.seed, compiled.scenario.hash());
            let (mut a, mut b) = (Scratch::default(), Scratch::default());
            for trial in 0..20_000 {
                play(&compiled, streams, trial, &mut a, &mut None);
                play(&keyed, streams, trial, &mut b, &mut None);
                assert_eq!(a.values, b.values, "trial {trial} of\n{text}");
                if trial % 1000 == 0 {
                    let mut trace_keyed = Some(Vec::new());
                    let mut s = Scratch::default();
                    play(&keyed, streams, trial, &mut s, &mut trace_keyed);
                    assert_eq!(replay(&compiled, streams, trial).1, trace_keyed.unwrap_or_default(), "trial {trial}");
                }
            }
            // The tallies agree, and the charge did something worth comparing.
            let (tc, tk) = (tally(&compiled, 20_000), tally(&keyed, 20_000));
            assert_eq!(tc, tk);
            assert!(mean(&tc, &compiled, "hits_on_target") > 0.5 && mean(&tc, &compiled, "hits_on_charger") > 0.2);
            compared += 1;
        }
    }
    assert_eq!(compared, 8);
    // A charge on a platform is looked up by key (its attack back depends on the crew the
    // volleys left).
    let on_a_platform = include_str!("../../../scenarios/battlesystem/dragon-with-crew.toml").replace(
        "points = 30\n",
        "points = 30\ncrew = [{ name = \"Squire\", role = \"rider\", ad = \"d4\", ar = 8 }]\n",
    );
    assert!(on_a_platform.contains("Squire"));
    assert!(plan_of(&on_a_platform).charge_tables.is_none());
}

/// Hits through armour on a platform: a platform goes when its hits fill up, and its crew
/// go with it (no more stay aboard than the platforms left carry); hits that remove no
/// platform leave the crew alone. Two elephants of ten hits, each with a mahout and three
/// archers aboard (worked out by hand).
#[test]
fn hits_through_armour_remove_platforms_and_the_crew_they_carry() {
    let text = include_str!("../../../scenarios/battlesystem/elephant-howdah-vs-pikemen.toml").replacen(
        "figures = 1\n",
        "figures = 2\n",
        1,
    );
    let plan = plan_of(&text);
    let unit = &plan.scenario.units[0];
    let mut state = UnitState::fresh(unit);
    assert_eq!((state.figures, &state.crew_alive[..2]), (2, &[2, 6][..]));
    // Ten hits: one elephant down, its mahout and three archers with it.
    let lost = land_through(unit, &mut state, 10);
    assert_eq!((lost.through, lost.figures, lost.crew), (10, 1, 4));
    assert_eq!((state.figures, state.carried, &state.crew_alive[..2]), (1, 0, &[1, 3][..]));
    // Nine more are carried by the last elephant: nobody falls.
    let lost = land_through(unit, &mut state, 9);
    assert_eq!((lost.figures, lost.crew), (0, 0));
    assert_eq!((state.figures, state.carried, &state.crew_alive[..2]), (1, 9, &[1, 3][..]));
    // The tenth fells it, and everyone aboard.
    let lost = land_through(unit, &mut state, 1);
    assert_eq!((lost.figures, lost.crew), (1, 4));
    assert_eq!((state.figures, state.carried, &state.crew_alive[..2]), (0, 0, &[0, 0][..]));
    // A crew already thinned by hits loses only those the fallen platform carried above
    // what the one left carries.
    let mut state = UnitState::fresh(unit);
    state.crew_alive[1] = 4;
    let lost = land_through(unit, &mut state, 12);
    assert_eq!((lost.figures, lost.crew, state.carried, &state.crew_alive[..2]), (1, 2, 2, &[1, 3][..]));
}
