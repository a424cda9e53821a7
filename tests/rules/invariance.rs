//! Nothing depends on where the board lies (#65): turning the whole board by any angle and
//! moving it, every bundled MESBG example and a few hundred random small boards give the
//! same exact values and, played on the same streams, the same tallies trial for trial.
//!
//! A scenario file is turned as a player would turn the table: every position (a
//! chariot's `at`, a formation's `front_centre`, an `aim` point, a terrain polygon or
//! obstacle) rotated clockwise about the origin and moved, every facing turned by the same
//! angle.

use charioteer::engine::{RuleSystem, Streams, TrialRange};
use charioteer::mesbg::scenario::parse;
use rand::{RngExt, SeedableRng};
use std::sync::atomic::AtomicBool;
use toml::Value;

/// A point turned clockwise by `degrees` about the origin, then moved by `by`.
fn turned(p: [f64; 2], degrees: f64, by: [f64; 2]) -> [f64; 2] {
    let (s, c) = degrees.to_radians().sin_cos();
    [p[0] * c + p[1] * s + by[0], -p[0] * s + p[1] * c + by[1]]
}

fn point(v: &Value) -> Option<[f64; 2]> {
    let a = v.as_array()?;
    let x = a.first()?.as_float().or_else(|| a.first()?.as_integer().map(|i| i as f64))?;
    let y = a.get(1)?.as_float().or_else(|| a.get(1)?.as_integer().map(|i| i as f64))?;
    (a.len() == 2).then_some([x, y])
}

fn set_point(v: &mut Value, p: [f64; 2]) {
    *v = Value::Array(vec![Value::Float(p[0]), Value::Float(p[1])]);
}

/// Turns the positions and facings of one table (a chariot, a charge, a formation).
fn turn_table(t: &mut toml::Table, degrees: f64, by: [f64; 2]) {
    for key in ["at", "front_centre"] {
        if let Some(v) = t.get_mut(key)
            && let Some(p) = point(v)
        {
            set_point(v, turned(p, degrees, by));
        }
    }
    if let Some(v) = t.get_mut("aim")
        && let Some(p) = point(v)
    {
        set_point(v, turned(p, degrees, by));
    }
    let facing = t.get("facing").and_then(|f| f.as_float().or_else(|| f.as_integer().map(|i| i as f64)));
    t.insert("facing".into(), Value::Float((facing.unwrap_or(0.0) + degrees).rem_euclid(360.0)));
}

/// The scenario text with the whole board turned by `degrees` and moved by `by`.
fn turned_board(text: &str, degrees: f64, by: [f64; 2]) -> String {
    let mut doc: toml::Table = text.parse().expect("a scenario is TOML");
    for key in ["chariot", "charge"] {
        if let Some(Value::Table(t)) = doc.get_mut(key) {
            // A chariot's facing is its own; a charge has none (its aim is a point).
            if key == "chariot" {
                turn_table(t, degrees, by);
            } else if let Some(v) = t.get_mut("aim")
                && let Some(p) = point(v)
            {
                set_point(v, turned(p, degrees, by));
            }
        }
    }
    for key in ["chariots", "formations"] {
        if let Some(Value::Array(items)) = doc.get_mut(key) {
            for item in items {
                if let Value::Table(t) = item {
                    turn_table(t, degrees, by);
                }
            }
        }
    }
    if let Some(Value::Array(items)) = doc.get_mut("terrain") {
        for item in items {
            let Value::Table(t) = item else { continue };
            for key in ["from", "to"] {
                if let Some(v) = t.get_mut(key)
                    && let Some(p) = point(v)
                {
                    set_point(v, turned(p, degrees, by));
                }
            }
            if let Some(Value::Array(ps)) = t.get_mut("polygon") {
                for v in ps {
                    if let Some(p) = point(v) {
                        set_point(v, turned(p, degrees, by));
                    }
                }
            }
        }
    }
    toml::to_string(&doc).expect("writes")
}

/// Whether `a` and `b` play alike: the same tallies over `trials` on the same streams, and
/// the same exact values where the exact engine answers.
fn same_play(a: &str, b: &str, trials: u64, what: &str) {
    let sa = parse(a, "a.toml").unwrap_or_else(|e| panic!("{what}: reads: {e:?}"));
    let sb = parse(b, "b.toml").unwrap_or_else(|e| panic!("{what}: the turned board reads: {e:?}"));
    // The same streams for both (a turned board hashes apart: its numbers are written).
    let streams = Streams::new(sa.seed, 0x5eed);
    let range = TrialRange { first: 0, count: trials };
    let never = AtomicBool::new(false);
    if sa.is_turn() {
        let (pa, pb) = (
            charioteer::mesbg::turn::compile(&sa).expect("plans"),
            charioteer::mesbg::turn::compile(&sb).expect("the turned board plans"),
        );
        assert_eq!(pa.nodes.len(), pb.nodes.len(), "{what}: the same tree of boards");
        let ta = charioteer::engine::run(&pa, streams, range, &|_| {}, &never).expect("runs");
        let tb = charioteer::engine::run(&pb, streams, range, &|_| {}, &never).expect("runs");
        assert_eq!(ta, tb, "{what}: turned and moved, the same tallies on the same streams");
        match (charioteer::mesbg::turn::exact_turn(&pa), charioteer::mesbg::turn::exact_turn(&pb)) {
            (Ok(ea), Ok(eb)) => {
                for i in 0..pa.metrics.len() {
                    let (ma, mb) = (ea.joint.mean_sd(i).0, eb.joint.mean_sd(i).0);
                    assert!((ma - mb).abs() < 1e-9, "{what}: exact metric {i}: {ma} and {mb}");
                }
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}: refused alike"),
            (a, b) => panic!("{what}: exact {:?} and {:?}", a.is_ok(), b.is_ok()),
        }
    } else {
        let (pa, pb) = (charioteer::mesbg::plan::compile(&sa), charioteer::mesbg::plan::compile(&sb));
        let ta = pa.empty_tally();
        let _ = ta;
        let ta = charioteer::engine::run(&pa, streams, range, &|_| {}, &never).expect("runs");
        let tb = charioteer::engine::run(&pb, streams, range, &|_| {}, &never).expect("runs");
        assert_eq!(ta, tb, "{what}: turned and moved, the same tallies on the same streams");
        match (charioteer::mesbg::exact::exact(&pa), charioteer::mesbg::exact::exact(&pb)) {
            (Ok(ea), Ok(eb)) => {
                let mean = |e: &charioteer::mesbg::exact::ExactDistribution, m| {
                    e.outcomes.iter().map(|(o, p)| f64::from(o.get(m)) * p).sum::<f64>()
                };
                for &m in &pa.metrics {
                    let (x, y) = (mean(&ea, m), mean(&eb, m));
                    assert!((x - y).abs() < 1e-9, "{what}: exact {m:?}: {x} and {y}");
                }
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}: refused alike"),
            (a, b) => panic!("{what}: exact {:?} and {:?}", a.is_ok(), b.is_ok()),
        }
    }
}

#[test]
fn every_bundled_example_plays_alike_turned_and_moved() {
    let mut files: Vec<_> =
        std::fs::read_dir("scenarios/mesbg").expect("examples").map(|e| e.expect("entry").path()).collect();
    files.sort();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(65);
    for path in files {
        let text = std::fs::read_to_string(&path).expect("reads");
        for _ in 0..2 {
            let degrees = rng.random_range(0.0..360.0);
            let by = [rng.random_range(-30.0..30.0), rng.random_range(-30.0..30.0)];
            let what = format!("{} turned {degrees:.2} degrees, moved {by:?}", path.display());
            same_play(&text, &turned_board(&text, degrees, by), 4_000, &what);
        }
    }
}

/// A random small board: one or two chariots and one to three formations in front of
/// them, each with one to six models in one or two ranks, facing roughly at the chariots.
fn random_board(rng: &mut impl RngExt) -> String {
    let chariots = rng.random_range(1..=2usize);
    let mut text = String::from("title = \"random\"\nsystem = \"mesbg\"\nseed = 1\n");
    let profiles = ["Khandish Charioteer", "Iron Hills Chariot"];
    let profile = profiles[rng.random_range(0..profiles.len())];
    for c in 0..chariots {
        let square = rng.random_bool(0.5);
        let x = -4.0 + 8.0 * c as f64 + if square { 0.0 } else { rng.random_range(-1.0..1.0) };
        let facing = if square { 0.0 } else { rng.random_range(-20.0..20.0) };
        if chariots == 1 {
            text.push_str("[chariot]\n");
        } else {
            text.push_str("[[chariots]]\n");
        }
        text.push_str(&format!(
            "profile = \"{profile}\"\nside = \"evil\"\nat = [{x:.3}, {:.3}]\nfacing = {facing:.3}\n",
            if square { 0.0 } else { rng.random_range(-1.0..1.0) }
        ));
    }
    let warriors = ["Warrior of Minas Tirith", "Warrior of Minas Tirith with spear and shield", "Mordor Orc Warrior"];
    let formations = rng.random_range(1..=3usize);
    for f in 0..formations {
        let count = rng.random_range(1..=6usize);
        let ranks = if count > 1 { rng.random_range(1..=2usize) } else { 1 };
        // Half the formations stand square and centred on a chariot's line, so that it
        // touches two models at one instant (ties the board's turning must not reorder).
        let square = rng.random_bool(0.5);
        let x = if square {
            -4.0 + 8.0 * (f % chariots) as f64
        } else {
            -6.0 + 6.0 * f as f64 + rng.random_range(-1.0..1.0)
        };
        let y = rng.random_range(5.0..9.0) + 4.0 * (f % 2) as f64;
        let facing = if square { 180.0 } else { 180.0 + rng.random_range(-30.0..30.0) };
        text.push_str(&format!(
            "[[formations]]\nname = \"F{f}\"\ncount = {count}\nranks = {ranks}\nbase = {{ round_mm = 25 }}\n\
             front_centre = [{x:.3}, {y:.3}]\nfacing = {:.3}\nprofile = \"{}\"\n",
            facing,
            warriors[rng.random_range(0..warriors.len())]
        ));
    }
    text
}

#[test]
fn random_small_boards_play_alike_turned_and_moved() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(37);
    let mut played = 0;
    for board in 0..300 {
        let text = random_board(&mut rng);
        let degrees = rng.random_range(0.0..360.0);
        let by = [rng.random_range(-30.0..30.0), rng.random_range(-30.0..30.0)];
        // A board the format refuses (models overlapping, a turn too large) is skipped.
        let Ok(scenario) = parse(&text, "random.toml") else { continue };
        if scenario.is_turn() && charioteer::mesbg::turn::check(&scenario).is_err() {
            continue;
        }
        let what = format!("random board {board} turned {degrees:.2} degrees, moved {by:?}:\n{text}");
        same_play(&text, &turned_board(&text, degrees, by), 1_000, &what);
        played += 1;
    }
    assert!(played >= 150, "only {played} random boards were valid");
}

/// The scenario text with its `[[formations]]` listed in reverse order.
fn formations_reversed(text: &str) -> String {
    let mut doc: toml::Table = text.parse().expect("a scenario is TOML");
    if let Some(Value::Array(items)) = doc.get_mut("formations") {
        items.reverse();
    }
    toml::to_string(&doc).expect("writes")
}

/// Each metric's histogram by name, a line's (`lineN.*`, numbered by the file's order)
/// by the formations it holds.
fn histograms_by_name(
    names: &[String],
    hist: impl Fn(usize) -> Vec<u64>,
    lines: &[Vec<String>],
) -> Vec<(String, Vec<u64>)> {
    let mut out: Vec<(String, Vec<u64>)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let name = match n.strip_prefix("line").and_then(|r| r.split_once('.')) {
                Some((k, what)) if k.chars().all(|c| c.is_ascii_digit()) => {
                    let line = &lines[k.parse::<usize>().expect("a number") - 1];
                    format!("line[{}].{what}", line.join(","))
                }
                _ => n.clone(),
            };
            let mut h = hist(i);
            while h.len() > 1 && h.last() == Some(&0) {
                h.pop();
            }
            (name, h)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_order_formations_are_listed_in_changes_no_number() {
    let mut files: Vec<_> =
        std::fs::read_dir("scenarios/mesbg").expect("examples").map(|e| e.expect("entry").path()).collect();
    files.sort();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(66);
    let boards: Vec<(String, String)> = files
        .iter()
        .map(|p| (p.display().to_string(), std::fs::read_to_string(p).expect("reads")))
        .chain((0..100).map(|i| (format!("random board {i}"), random_board(&mut rng))))
        .collect();
    let never = AtomicBool::new(false);
    for (what, text) in boards {
        let Ok(a) = parse(&text, "a.toml") else { continue };
        if a.formations.len() < 2 || (a.is_turn() && charioteer::mesbg::turn::check(&a).is_err()) {
            continue;
        }
        let b = parse(&formations_reversed(&text), "b.toml").unwrap_or_else(|e| panic!("{what} reversed reads: {e:?}"));
        let streams = Streams::new(a.seed, 0x5eed);
        let range = TrialRange { first: 0, count: 3_000 };
        let line_names = |s: &charioteer::mesbg::scenario::Scenario| -> Vec<Vec<String>> {
            let mut lines: Vec<Vec<String>> = charioteer::mesbg::turn::lines_of(&s.formations)
                .iter()
                .map(|l| {
                    let mut names: Vec<String> = l.iter().map(|&f| s.formations[f].name.clone()).collect();
                    names.sort();
                    names
                })
                .collect();
            lines.iter_mut().for_each(|l| l.sort());
            lines
        };
        let (la, lb) = (line_names(&a), line_names(&b));
        let (ha, hb) = if a.is_turn() {
            let (pa, pb) = (
                charioteer::mesbg::turn::compile(&a).expect("plans"),
                charioteer::mesbg::turn::compile(&b).expect("plans"),
            );
            let ta = charioteer::engine::run(&pa, streams, range, &|_| {}, &never).expect("runs");
            let tb = charioteer::engine::run(&pb, streams, range, &|_| {}, &never).expect("runs");
            let names = |p: &charioteer::mesbg::turn::TurnPlan| {
                p.metrics.defs.iter().map(|d| d.name.clone()).collect::<Vec<_>>()
            };
            (
                histograms_by_name(&names(&pa), |i| pa.histogram(&ta, i).to_vec(), &la),
                histograms_by_name(&names(&pb), |i| pb.histogram(&tb, i).to_vec(), &lb),
            )
        } else {
            let (pa, pb) = (charioteer::mesbg::plan::compile(&a), charioteer::mesbg::plan::compile(&b));
            let ta = charioteer::engine::run(&pa, streams, range, &|_| {}, &never).expect("runs");
            let tb = charioteer::engine::run(&pb, streams, range, &|_| {}, &never).expect("runs");
            let names =
                |p: &charioteer::mesbg::plan::Plan| p.metrics.iter().map(|m| m.name().to_string()).collect::<Vec<_>>();
            (
                histograms_by_name(&names(&pa), |i| pa.histogram(&ta, i).to_vec(), &la),
                histograms_by_name(&names(&pb), |i| pb.histogram(&tb, i).to_vec(), &lb),
            )
        };
        assert_eq!(ha, hb, "{what}: its formations listed in reverse play alike on the same streams");
    }
}
