//! Properties of random valid scenarios (proptest): kills never exceed the models on the
//! path, every metric's distribution sums to 1, a replayed trial equals the run, and 1 and
//! 2 threads give the same tally; for BATTLESYSTEM routs also that no unit loses more
//! figures than it has and the contact flags agree with the count of units contacted.
//! The cases are drawn from a pinned seed (`tests/rules/support.rs`); `CHARIOTEER_FRESH_SEEDS=1`
//! draws new ones.

use crate::support;

use charioteer::battlesystem;
use charioteer::battlesystem::resolve::BattlesystemEvent;
use charioteer::mesbg::plan::compile;
use charioteer::mesbg::resolve::{Streams, TrialRange, new_tally, replay, run};
use charioteer::mesbg::scenario::parse;
use charioteer::mesbg::tally::Metric;
use proptest::prelude::*;
use std::sync::atomic::AtomicBool;

/// Trials per case: more than one block (32768), so threads split the work.
const TRIALS: u64 = 40_000;

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(f)
}

prop_compose! {
    fn mesbg_text()(
        mv in 6u32..=12, fight in 1u32..=6, strength in 2u32..=7, defence in 3u32..=8, attacks in 1u32..=3,
        wounds in 1u32..=4, hits in prop::sample::select(vec!["1", "2", "D3", "D6", "D3+1"]), impact_s in 2u32..=7,
        count in 1u32..=20, ranks in 1u32..=4, x in -3.0f64..3.0, y in 2.5f64..12.0, pivot in -45i32..=45,
        m_defence in 3u32..=8, m_wounds in 1u32..=3, m_fight in 1u32..=6, seed in 0u64..1000,
    ) -> String {
        format!(r#"title = "random"
system = "mesbg"
seed = {seed}
[chariot]
name = "Chariot"
side = "evil"
move = {mv}
fight = {fight}
strength = {strength}
defence = {defence}
attacks = {attacks}
wounds = {wounds}
courage = "7+"
impact = {{ hits = "{hits}", strength = {impact_s} }}
base = {{ round_mm = 60 }}
at = [0.0, 0.0]
[charge]
pivots = [{pivot}]
[[formations]]
name = "Foot"
count = {count}
ranks = {ranks}
base = {{ round_mm = 25 }}
front_centre = [{x:.2}, {y:.2}]
facing = 180
profile = {{ fight = {m_fight}, strength = 3, defence = {m_defence}, attacks = 1, wounds = {m_wounds}, courage = "7+" }}
"#)
    }
}

prop_compose! {
    fn rout_text()(
        n in 1usize..=5,
        xs in prop::collection::vec(4.0f64..44.0, 5), ys in prop::collection::vec(4.0f64..44.0, 5),
        figures in prop::collection::vec(1u32..=24, 5), ml in prop::collection::vec(2u32..=20, 5),
        beast_mv in 4.0f64..20.0, rerolls in 0u32..=4, veer in 0.0f64..=60.0, seed in 0u64..1000,
        avoid in any::<bool>(), aside in any::<bool>(),
    ) -> String {
        let veer_rule = if avoid { "avoid_what_it_can" } else { "whole_move" };
        let moves = if aside { "aside" } else { "straight" };
        let mut text = format!(
            "title = \"random rout\"\nsystem = \"battlesystem\"\nseed = {seed}\n[rules]\nmax_rerolls = {rerolls}\nveer_degrees = {veer:.1}\n\
             veer = \"{veer_rule}\"\nstruck_unit_moves = \"{moves}\"\n\
             [[units]]\nname = \"Beasts\"\nside = \"a\"\nfigures = 2\nfrontage = 2\nbeast = true\nat = [24.0, 24.0]\nbase = [2.0, 3.0]\n\
             stats = {{ ad = \"d12\", ar = 6, hits = 10, ml = 14, mv = {beast_mv:.1} }}\n"
        );
        for i in 0..n {
            text.push_str(&format!(
                "[[units]]\nname = \"Unit {i}\"\nside = \"{}\"\nfigures = {}\nfrontage = {}\nat = [{:.1}, {:.1}]\n\
                 stats = {{ ad = \"d6\", ar = 7, hits = 1, ml = {}, mv = 6 }}\n",
                if i % 2 == 0 { "a" } else { "b" },
                figures[i],
                figures[i].min(8),
                xs[i],
                ys[i],
                ml[i]
            ));
        }
        text.push_str("[rout]\nunit = \"Beasts\"\n");
        text
    }
}

proptest! {
    #![proptest_config(support::proptest_config(24, 20_261_202))]

    #[test]
    fn mesbg_invariants(text in mesbg_text()) {
        let parsed = parse(&text, "random.toml");
        prop_assume!(parsed.is_ok(), "invalid draw (overlap)");
        let scenario = parsed.unwrap();
        let plan = compile(&scenario);
        let streams = Streams::new(scenario.seed, scenario.hash());
        let range = TrialRange { first: 0, count: TRIALS };
        let never = AtomicBool::new(false);
        let one = in_pool(1, || run(&plan, streams, range, &|_| {}, &never).unwrap());
        let two = in_pool(2, || run(&plan, streams, range, &|_| {}, &never).unwrap());
        prop_assert_eq!(&one, &two);
        for m in &plan.metrics {
            prop_assert_eq!(one.histogram(*m).iter().sum::<u64>(), TRIALS, "{} does not sum to 1", m.name());
        }
        let on_path = plan.models_on_path();
        prop_assert!(one.histogram(Metric::Kills).len() <= on_path + 1 || one.histogram(Metric::Kills)[on_path + 1..].iter().all(|c| *c == 0),
            "kills beyond the {} models on the path", on_path);
        let mut replayed = new_tally(&plan);
        for t in 0..300 {
            replayed.record(&replay(&plan, streams, t).0);
        }
        let first = in_pool(2, || run(&plan, streams, TrialRange { first: 0, count: 300 }, &|_| {}, &never).unwrap());
        prop_assert_eq!(first, replayed);
    }

    #[test]
    fn rout_invariants(text in rout_text()) {
        let parsed = battlesystem::scenario::parse(&text, "random.toml");
        prop_assume!(parsed.is_ok(), "invalid draw (overlap, off the board)");
        let scenario = parsed.unwrap();
        let plan = battlesystem::resolve::compile(&scenario);
        let streams = Streams::new(scenario.seed, scenario.hash());
        let range = TrialRange { first: 0, count: TRIALS };
        let never = AtomicBool::new(false);
        let one = in_pool(1, || battlesystem::resolve::run(&plan, streams, range, &|_| {}, &never).unwrap());
        let two = in_pool(2, || battlesystem::resolve::run(&plan, streams, range, &|_| {}, &never).unwrap());
        prop_assert_eq!(&one, &two);
        for (m, d) in plan.metrics.defs.iter().enumerate() {
            prop_assert_eq!(one.histogram(m).iter().sum::<u64>(), TRIALS, "{} does not sum to 1", &d.name);
        }
        for unit in &scenario.units[1..] {
            let lost = one.histogram(plan.metrics.index(&format!("figures_lost.{}", unit.key)).unwrap());
            prop_assert!(lost.iter().enumerate().all(|(v, c)| *c == 0 || v as u32 <= unit.figures));
        }
        let index = |name: &str| plan.metrics.index(name).unwrap();
        for t in 0..300 {
            let (values, events) = battlesystem::resolve::replay(&plan, streams, t);
            for e in &events {
                match e {
                    // A contact only where the move goes into the unit: a turn in place,
                    // or a move away or alongside, never tramples anyone.
                    BattlesystemEvent::Contact { into, .. } => prop_assert!(*into > 1e-9, "trial {}: {:?}", t, events),
                    // A push never brings the struck unit closer to the beasts.
                    BattlesystemEvent::Displaced { gap_before, gap_after: Some(after), .. } => {
                        prop_assert!(*after >= gap_before - 1e-9, "trial {}: {:?}", t, events)
                    }
                    // When the rout ends, no two units overlap (units in contact touch, to
                    // within a millionth of an inch).
                    BattlesystemEvent::Finished { blocks } => {
                        for (i, a) in blocks.iter().enumerate() {
                            for b in blocks.iter().skip(i + 1) {
                                if let (Some(a), Some(b)) = (a, b) {
                                    let gap = battlesystem::board::separation(a, b);
                                    prop_assert!(gap > -1e-6, "trial {}: {:?} overlaps {:?} by {}", t, a, b, -gap);
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
            let flags: u16 = scenario.units[1..].iter().map(|u| values[index(&format!("contacted.{}", u.key))]).sum();
            prop_assert_eq!(flags, values[index("units_contacted")]);
            prop_assert!(values[index("contacts")] >= values[index("units_contacted")]);
            prop_assert!(u32::from(values[index("rerolls")]) <= scenario.rules.max_rerolls);
            prop_assert!(f64::from(values[index("distance")]) <= scenario.rout_distance(0) + 1e-9);
        }
    }
}
