//! Every example scenario users copy from `scenarios/` loads, plans and runs, and every
//! trial replays exactly as it counted in the run.

use charioteer::mesbg::plan::compile;
use charioteer::mesbg::resolve::{Streams, TrialRange, replay, run};
use charioteer::mesbg::scenario::load;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// Every example scenario file, both systems.
fn all_examples() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![PathBuf::from("scenarios")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.ends_with("profiles") {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "toml") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 8, "examples found: {files:?}");
    files
}

/// The MESBG example scenarios (BATTLESYSTEM ones are checked in `tests/rules/battlesystem.rs`,
/// matchup sets in `tests/tools/price.rs`).
fn examples() -> Vec<PathBuf> {
    all_examples()
        .into_iter()
        .filter(|f| !f.components().any(|c| c.as_os_str() == "battlesystem" || c.as_os_str() == "matchups"))
        .collect()
}

#[test]
fn every_example_runs_and_replays_exactly() {
    for file in examples() {
        let scenario = load(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let plan = compile(&scenario);
        let streams = Streams::new(scenario.seed, scenario.hash());
        let n = 3_000;
        let tally = run(&plan, streams, TrialRange { first: 0, count: n }, &|_| {}, &AtomicBool::new(false)).unwrap();
        let mut replayed = charioteer::mesbg::resolve::new_tally(&plan);
        for t in 0..n {
            let (outcome, events) = replay(&plan, streams, t);
            assert!(!events.is_empty(), "{}: trial {t} has no events", file.display());
            replayed.record(&outcome);
        }
        assert_eq!(tally, replayed, "{}: replays differ from the run", file.display());
        for m in &plan.metrics {
            let total: u64 = tally.histogram(*m).iter().sum();
            assert_eq!(total, n, "{}: {}", file.display(), m.name());
        }
    }
}

#[test]
fn every_example_validates_on_the_command_line() {
    for file in all_examples() {
        let out =
            std::process::Command::new(env!("CARGO_BIN_EXE_charioteer")).arg("validate").arg(&file).output().unwrap();
        assert!(out.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&out.stderr));
    }
}

/// Every `width`/`height` attribute of an SVG's elements, as numbers.
fn sizes(svg: &str) -> Vec<(String, f64)> {
    let mut found = Vec::new();
    for attr in ["width=\"", "height=\""] {
        let mut rest = svg;
        while let Some(at) = rest.find(attr) {
            rest = &rest[at + attr.len()..];
            let value: String = rest.chars().take_while(|&c| c != '"').collect();
            if let Ok(v) = value.trim_end_matches("px").parse::<f64>() {
                found.push((attr.trim_end_matches("=\"").to_string(), v));
            }
        }
    }
    found
}

/// Each piece of text of an SVG written with text as outlines (the default): its words
/// and the box its outline covers on the canvas (x0, y0, x1, y1), any rotation applied.
fn text_boxes(svg: &str) -> Vec<(String, [f64; 4])> {
    let attribute = |tag: &str, name: &str| {
        let key = format!(" {name}=\"");
        tag.find(&key).map(|i| {
            let rest = &tag[i + key.len()..];
            rest[..rest.find('"').unwrap_or(rest.len())].to_string()
        })
    };
    let mut out = Vec::new();
    for piece in svg.split("<path ").skip(1) {
        let tag = format!(" {}", &piece[..piece.find("/>").unwrap_or(piece.len())]);
        let tag = tag.as_str();
        let (Some(words), Some(d)) = (attribute(tag, "aria-label"), attribute(tag, "d")) else { continue };
        let numbers: Vec<f64> = d
            .split(|c: char| c.is_ascii_alphabetic() || c == ' ')
            .filter(|t| !t.is_empty())
            .filter_map(|t| t.parse().ok())
            .collect();
        let mut points: Vec<(f64, f64)> = numbers.chunks(2).filter(|c| c.len() == 2).map(|c| (c[0], c[1])).collect();
        if let Some(rotate) = attribute(tag, "transform").and_then(|t| {
            let inner = t.strip_prefix("rotate(")?.strip_suffix(')')?.to_string();
            let v: Vec<f64> = inner.split(',').filter_map(|x| x.trim().parse().ok()).collect();
            (v.len() == 3).then(|| (v[0], v[1], v[2]))
        }) {
            let (a, cx, cy) = rotate;
            let (sin, cos) = a.to_radians().sin_cos();
            for p in &mut points {
                let (x, y) = (p.0 - cx, p.1 - cy);
                *p = (cx + x * cos - y * sin, cy + x * sin + y * cos);
            }
        }
        if points.is_empty() {
            continue;
        }
        let b = points.iter().fold([f64::MAX, f64::MAX, f64::MIN, f64::MIN], |b, p| {
            [b[0].min(p.0), b[1].min(p.1), b[2].max(p.0), b[3].max(p.1)]
        });
        out.push((words, b));
    }
    out
}

#[test]
fn every_examples_charts_earn_their_place() {
    let out = tempfile::tempdir().expect("tmp");
    // Every kind of chart an example draws is shown in the gallery (docs/gallery.md).
    let gallery = std::fs::read_to_string("docs/gallery.md").expect("docs/gallery.md");
    let scenarios = all_examples().into_iter().filter(|f| !f.components().any(|c| c.as_os_str() == "matchups"));
    for (i, file) in scenarios.enumerate() {
        let file = &file;
        let dir = out.path().join(i.to_string());
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_charioteer"))
            .args(["run", file.to_str().unwrap(), "--trials", "20000", "--no-exact", "-q", "--out"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&o.stderr));
        let distribution = std::fs::read_to_string(dir.join("distribution.csv")).unwrap_or_default();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !name.ends_with(".svg") {
                continue;
            }
            // The kind: the name less its metric (`distribution-kills` is a `distribution`).
            let stem = name.trim_end_matches(".svg");
            let kind =
                ["distribution", "at-least"].into_iter().find(|k| stem.starts_with(&format!("{k}-"))).unwrap_or(stem);
            let shown = match kind {
                "distribution" | "at-least" => format!("{kind}.png"),
                other => other.to_string(),
            };
            assert!(
                gallery.contains(&format!("({shown}")) || gallery.contains(&format!("/{shown}")),
                "{}: a {kind} chart is not in docs/gallery.md (run scripts/gallery.sh after adding it there)",
                file.display()
            );
            let svg = std::fs::read_to_string(&path).unwrap();
            for (attr, v) in sizes(&svg) {
                assert!(v >= 0.0, "{} {name}: a {attr} of {v}", file.display());
            }
            // Every piece of text inside the canvas (960 x 560, half a pixel of antialiasing).
            let texts = text_boxes(&svg);
            assert!(!texts.is_empty(), "{} {name}: no text found (is text still drawn as outlines?)", file.display());
            for (words, b) in &texts {
                assert!(
                    b[0] >= -0.5 && b[1] >= -0.5 && b[2] <= 960.5 && b[3] <= 560.5,
                    "{} {name}: {words:?} runs off the canvas at {b:?}",
                    file.display()
                );
            }
            // On a board, no label covers another (the key, right of the board, is a list).
            if kind.starts_with("board") {
                let board: Vec<&(String, [f64; 4])> = texts.iter().filter(|(_, b)| b[2] < 960.0 - 250.0).collect();
                for (i, (a, p)) in board.iter().enumerate() {
                    for (b, q) in &board[i + 1..] {
                        let apart =
                            p[2] <= q[0] + 0.5 || q[2] <= p[0] + 0.5 || p[3] <= q[1] + 0.5 || q[3] <= p[1] + 0.5;
                        assert!(apart, "{} {name}: {a:?} {p:?} overprints {b:?} {q:?}", file.display());
                    }
                }
            }
            // A distribution chart is of a metric with three values or more, none of them
            // in 99% of the trials (else a sentence says it).
            // A chance-of-at-least-k line is of four values or more (fewer: the bars show them).
            if let Some(metric) = name.strip_prefix("at-least-").and_then(|n| n.strip_suffix(".svg")) {
                let values = distribution
                    .lines()
                    .filter(|l| l.split(',').next() == Some(metric))
                    .filter(|l| l.split(',').nth(2).and_then(|c| c.parse::<u64>().ok()).is_some_and(|c| c > 0))
                    .count();
                assert!(values >= 4, "{} {name}: a line of {values} values", file.display());
            }
            if let Some(metric) = name.strip_prefix("distribution-").and_then(|n| n.strip_suffix(".svg")) {
                let shares: Vec<f64> = distribution
                    .lines()
                    .filter(|l| l.split(',').next() == Some(metric))
                    .filter_map(|l| l.split(',').nth(3).and_then(|p| p.parse().ok()))
                    .filter(|p: &f64| *p > 0.0)
                    .collect();
                assert!(shares.len() >= 3, "{} {name}: a chart of two values or fewer (one number)", file.display());
                assert!(shares.iter().all(|&p| p < 0.99), "{} {name}: one bar holds 99% or more", file.display());
            }
        }
        // A headline never opens with a zero: what never happened is one closing line.
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        if let Some(rest) = md.split("## Headline\n\n").nth(1) {
            let first = rest.lines().next().unwrap_or("");
            assert!(
                !first.contains("**0%**") && !first.contains("**0.000**") && !first.starts_with("- Never"),
                "{}: the headline opens with {first:?}",
                file.display()
            );
        }
        // A scenario's `answer` leads its headline: the first bullet is its first metric's
        // (as the table of all metrics describes it), unless that one never happened.
        let text = std::fs::read_to_string(file).unwrap();
        let first_answer =
            text.lines().find_map(|l| l.strip_prefix("answer = [\"")).and_then(|rest| rest.split('"').next());
        if let (Some(name), Some(rest)) = (first_answer, md.split("## Headline\n\n").nth(1)) {
            let row = md.lines().find(|l| l.starts_with(&format!("| `{name}` |"))).expect("the metric's table row");
            let description = row.split(" | ").nth(1).unwrap_or_default().to_lowercase();
            let first = rest.lines().next().unwrap_or("").to_lowercase();
            let never = rest
                .lines()
                .take_while(|l| l.starts_with("- "))
                .any(|l| l.starts_with("- Never") && l.to_lowercase().contains(&description));
            assert!(
                never || first.contains(&description),
                "{}: the headline opens with {first:?}, not the answer {name} ({description})",
                file.display()
            );
        }
        // One contact on the path: no impact-chain chart, and report.md says why.
        let chain = std::fs::read_to_string(dir.join("impact_chain.csv")).unwrap_or_default();
        if chain.lines().count() == 2 {
            assert!(!dir.join("impact-chain.svg").exists(), "{}: an impact chain of one contact", file.display());
            let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
            assert!(md.contains("Charts left out"), "{}: report.md says what was left out", file.display());
        }
    }
}

/// The charts of the tools as the gallery makes them (a paired comparison named by its
/// `--set`, several scenarios side by side, a sweep): no negative sizes, every text inside
/// the canvas, and a comparison's bars read B - A with A and B named by what differs.
#[test]
fn the_tools_charts_keep_their_invariants() {
    let out = tempfile::tempdir().expect("tmp");
    let base = "scenarios/mesbg/khandish-vs-minas-tirith.toml";
    let runs: [(&str, Vec<&str>); 3] = [
        ("paired", vec!["compare", base, "--set", "chariot.impact.strength=5"]),
        ("side", vec!["run", base, "scenarios/mesbg/wood-into-shield-wall.toml", "--no-exact"]),
        ("sweep", vec!["sweep", base, "--set", "chariot.impact.strength=3..5"]),
    ];
    for (name, args) in runs {
        let dir = out.path().join(name);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_charioteer"))
            .args(&args)
            .args(["--trials", "20000", "-q", "--out"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        let mut svgs = Vec::new();
        let mut dirs = vec![dir.clone()];
        while let Some(d) = dirs.pop() {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "svg") {
                    svgs.push(path);
                }
            }
        }
        assert!(!svgs.is_empty(), "{name}: no charts");
        for path in svgs {
            let svg = std::fs::read_to_string(&path).unwrap();
            for (attr, v) in sizes(&svg) {
                assert!(v >= 0.0, "{}: a {attr} of {v}", path.display());
            }
            for (words, b) in text_boxes(&svg) {
                assert!(
                    b[0] >= -0.5 && b[1] >= -0.5 && b[2] <= 960.5 && b[3] <= 560.5,
                    "{}: {words:?} runs off the canvas at {b:?}",
                    path.display()
                );
            }
        }
    }
    // Impact Strength 5 kills more by Impact Hits: B's gain shows as a positive difference,
    // and the chart names B by the field it sets.
    let md = std::fs::read_to_string(out.path().join("paired/report.md")).unwrap();
    let row = md.lines().find(|l| l.starts_with("| `impact_kills` |")).expect("the impact_kills row");
    assert!(row.split(" | ").nth(3).is_some_and(|d| d.starts_with('+')), "{row}");
    let chart = std::fs::read_to_string(out.path().join("paired/difference-counts.svg")).unwrap();
    assert!(chart.contains("B: the same with chariot.impact.strength = 5"), "B is named by its --set");
}

/// The scenario hash keys every trial's random streams, so a change to it changes every
/// number a user has ever quoted from that file. It may change only when a rule changes
/// the answer (and then `rules_version` says so); a new rule option at its default, a
/// new metric or a reordered struct must leave it alone (docs/maintaining.md). These are
/// the bundled examples' hashes as released: a change here is a decision, not a chore.
#[test]
fn the_bundled_examples_keep_their_scenario_hashes() {
    use charioteer::tools::system::{Battlesystem, Game, Loaded, Mesbg, Turn, load_file};
    let pinned = [
        ("scenarios/mesbg/chariot-into-cavalry-screen.toml", "bae3a1775a470132"),
        ("scenarios/mesbg/chariot-vs-chariot.toml", "338858607f10d42b"),
        ("scenarios/mesbg/iron-hills-into-pike-block.toml", "d2c48b74d64de560"),
        ("scenarios/mesbg/iron-hills-vs-orcs-best.toml", "d9e1e859cbf68a6d"),
        ("scenarios/mesbg/khandish-into-spears-and-banner.toml", "4685e5ecf3b41ec5"),
        ("scenarios/mesbg/khandish-vs-minas-tirith.toml", "6b4a4e68f75c5d1d"),
        ("scenarios/mesbg/king-on-chariot-vs-cave-trolls.toml", "f9670b66a7897f1d"),
        ("scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml", "8dbda6e28c5799a5"),
        ("scenarios/mesbg/turn-three-khandish-into-shield-wall.toml", "cdecfaae312a26f2"),
        ("scenarios/mesbg/turn-two-iron-hills-into-pike-block.toml", "4d67d38d65ead647"),
        ("scenarios/mesbg/wood-into-shield-wall.toml", "0edc3706df6c22ba"),
        ("scenarios/battlesystem/dragon-with-crew.toml", "162c9f0b436484a1"),
        ("scenarios/battlesystem/elephant-howdah-vs-pikemen.toml", "f5ed45ce6ae38f80"),
        ("scenarios/battlesystem/routing-elephants-in-battle-line.toml", "41b104b25aa4546a"),
    ];
    let mut changed = Vec::new();
    for (file, hash) in pinned {
        let facts = match load_file(Some(std::path::Path::new(file))).expect(file) {
            Loaded::Mesbg(s) => Mesbg::facts(&s),
            Loaded::Turn(s) => Turn::facts(&s),
            Loaded::Battlesystem(s) => Battlesystem::facts(&s),
        };
        let now = format!("{:016x}", facts.hash);
        if now != hash {
            changed.push(format!("{file}: {hash} -> {now}"));
        }
    }
    let listed: Vec<PathBuf> = pinned.iter().map(|(f, _)| PathBuf::from(f)).collect();
    for example in all_examples().into_iter().filter(|p| !p.starts_with("scenarios/matchups")) {
        assert!(listed.contains(&example), "{}: a new example; pin its hash here", example.display());
    }
    assert!(
        changed.is_empty(),
        "scenario hashes changed (every quoted number of these files moves):\n{}",
        changed.join("\n")
    );
}
