//! What the README and docs/json-schema.md promise a report folder holds, checked on real
//! runs of both rule systems: every listed file is written; `run.json` validates against
//! the checked-in JSON Schema (`docs/run.schema.json`); the impact chain's exact stopping
//! chances are those derived by hand; the wound split is a distribution; and every number
//! in `report.md`'s tables is the number in `summary.csv` / `distribution.csv`, as printed.

use crate::schema;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Runs `charioteer run FILE --trials N --out DIR -q` (plus `extra`) and returns the folder.
fn report(dir: &Path, file: &str, out: &str, trials: &str, extra: &[&str]) -> std::path::PathBuf {
    let file = std::fs::canonicalize(file).unwrap();
    let mut args = vec!["run", file.to_str().unwrap(), "--trials", trials, "--out", out, "-q"];
    args.extend(extra);
    let o = Command::new(env!("CARGO_BIN_EXE_charioteer")).args(&args).current_dir(dir).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    dir.join(out)
}

/// A CSV file as rows of named fields.
fn csv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(str::to_string).collect();
    lines
        .map(|l| {
            // The fields checked here hold no commas (labels and names are plain words).
            header.iter().cloned().zip(l.split(',').map(str::to_string)).collect()
        })
        .collect()
}

fn number(row: &BTreeMap<String, String>, field: &str) -> f64 {
    row[field].parse().unwrap_or_else(|_| panic!("{field} = {:?} is not a number", row[field]))
}

/// The files every report folder of that kind must hold.
fn assert_files(folder: &Path, names: &[&str]) {
    for name in names {
        let path = folder.join(name);
        assert!(path.exists(), "{} is missing", path.display());
        assert!(std::fs::metadata(&path).unwrap().len() > 0, "{} is empty", path.display());
    }
}

/// The charts of every count metric taking two or more values (README: "the distribution
/// of every count metric with 95% whiskers").
fn assert_distribution_charts(folder: &Path) {
    let rows = csv(&folder.join("distribution.csv"));
    let mut values: BTreeMap<String, usize> = BTreeMap::new();
    for r in &rows {
        if number(r, "count") > 0.0 {
            *values.entry(r["metric"].clone()).or_default() += 1;
        }
    }
    let flags: Vec<String> = csv(&folder.join("summary.csv"))
        .iter()
        .filter(|r| {
            let metric = &r["metric"];
            rows.iter().filter(|d| &d["metric"] == metric).count() <= 2
        })
        .map(|r| r["metric"].clone())
        .collect();
    let md = std::fs::read_to_string(folder.join("report.md")).expect("report.md");
    let left_out = md.lines().find(|l| l.starts_with("Charts left out")).unwrap_or("");
    // (value, count) pairs of a metric, to tell a chart equal to another's.
    let counts = |metric: &str| -> Vec<(String, String)> {
        rows.iter()
            .filter(|r| r["metric"] == metric && number(r, "count") > 0.0)
            .map(|r| (r["value"].clone(), r["count"].clone()))
            .collect()
    };
    for (metric, seen) in values {
        // A rout's first heading is fair by construction: said in a sentence, never drawn.
        if seen < 2 || flags.contains(&metric) || metric == "heading" {
            continue;
        }
        let drawn = folder.join(format!("distribution-{metric}.png"));
        if drawn.exists() {
            assert_files(folder, &[&format!("distribution-{metric}.png"), &format!("distribution-{metric}.svg")]);
            continue;
        }
        // Not drawn: report.md says so, for a reason that holds: one value in 99% of
        // trials, the same counts as a metric whose chart is drawn, ...
        assert!(left_out.contains(&format!("`{metric}`")), "{metric}: no chart and no word of why: {left_out}");
        let top = rows.iter().filter(|r| r["metric"] == metric).map(|r| number(r, "p")).fold(0.0, f64::max);
        let twin = rows.iter().map(|r| r["metric"].clone()).any(|other| {
            other != metric
                && counts(&other) == counts(&metric)
                && folder.join(format!("distribution-{other}.png")).exists()
        });
        // Or shown by another chart: where charges stopped (the impact chain) decides how
        // many models they touched; the wound split's margins are the two Wounds counts.
        let shown_elsewhere = (metric == "contacts" && folder.join("impact-chain.png").exists())
            || (["chariot_wounds_lost", "hero_wounds_lost"].contains(&metric.as_str())
                && folder.join("wound-split.png").exists());
        // Two values are one number, said rather than drawn.
        let two = seen == 2 && left_out.contains(&format!("`{metric}` (two values"));
        assert!(
            top >= 0.99 || twin || shown_elsewhere || two,
            "{metric}: left out, yet neither a certainty ({top}), a repeat, shown elsewhere nor two values"
        );
    }
}

/// A number as `report.md` prints it, and half its last printed digit (how far the true
/// value may be from it): `61.02%` is 0.6102 +- 0.00005, `1.5925` is 1.5925 +- 0.00005.
fn printed(cell: &str) -> Option<(f64, f64)> {
    let cell = cell.trim().trim_matches('*');
    let (digits, scale) = match cell.strip_suffix('%') {
        Some(d) => (d, 0.01),
        None => (cell, 1.0),
    };
    let value: f64 = digits.replace(',', "").parse().ok()?;
    let decimals = digits.split_once('.').map_or(0, |(_, f)| f.len());
    Some((value * scale, 0.5 * 10f64.powi(-(decimals as i32)) * scale + 1e-12))
}

fn assert_printed(cell: &str, exact: f64, what: &str) {
    let (value, slack) = printed(cell).unwrap_or_else(|| panic!("{what}: {cell:?} is not a number"));
    assert!((value - exact).abs() <= slack, "{what}: report.md prints {cell}, the CSV holds {exact}");
}

/// The rows of the markdown tables in `report.md` whose first cell is `` `name` ``, by name.
fn metric_rows(report: &str) -> BTreeMap<String, Vec<String>> {
    report
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<String> = l.trim_matches('|').split('|').map(|c| c.trim().to_string()).collect();
            (cells[0].trim_matches('`').to_string(), cells)
        })
        .collect()
}

/// Every metric row of report.md's "All metrics" table equals summary.csv, and every row
/// of each distribution table equals distribution.csv. Returns how many numbers it checked.
fn assert_report_matches_csv(folder: &Path, battlesystem: bool) -> usize {
    let report = std::fs::read_to_string(folder.join("report.md")).unwrap();
    let summary = csv(&folder.join("summary.csv"));
    let rows = metric_rows(&report);
    let mut checked = 0;
    for s in &summary {
        let metric = &s["metric"];
        let cells = rows.get(metric).unwrap_or_else(|| panic!("{metric} has no row in report.md"));
        // | metric | meaning | mean | lo to hi | (standard error) | exact | z |
        let mean = &cells[2];
        if mean.contains(' ') {
            // A categorical metric printed as its named outcomes ("held 63.52%, ...").
            continue;
        }
        assert_printed(mean, number(s, "mean"), &format!("{metric} mean"));
        let (lo, hi) = cells[3].split_once(" to ").unwrap_or_else(|| panic!("{metric}: interval {:?}", cells[3]));
        assert_printed(lo, number(s, "ci95_lo"), &format!("{metric} ci95_lo"));
        assert_printed(hi, number(s, "ci95_hi"), &format!("{metric} ci95_hi"));
        checked += 3;
        let exact_cell = if battlesystem { &cells[4] } else { &cells[5] };
        if !battlesystem {
            assert_printed(&cells[4], number(s, "se"), &format!("{metric} se"));
            checked += 1;
        }
        match s["exact_mean"].as_str() {
            "" => assert_eq!(exact_cell, "-", "{metric}: no exact value, none printed"),
            _ => {
                assert_printed(exact_cell, number(s, "exact_mean"), &format!("{metric} exact"));
                checked += 1;
            }
        }
    }
    // Distribution tables: "**Meaning** (`metric`)" then | k | P(= k) | P(at least k) | CI |.
    let distribution = csv(&folder.join("distribution.csv"));
    let mut current: Option<String> = None;
    for line in report.lines() {
        if line.starts_with("**") && line.contains("(`") {
            current = line.split("(`").nth(1).and_then(|r| r.split('`').next()).map(str::to_string);
            continue;
        }
        let Some(metric) = &current else { continue };
        if !line.starts_with("| ") || line.starts_with("| k") || line.starts_with("| ---") {
            if !line.starts_with('|') && !line.trim().is_empty() {
                current = None;
            }
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        // k is the value, or its name for a categorical metric (BATTLESYSTEM's `label`).
        let k = cells[0];
        let row = distribution
            .iter()
            .find(|r| &r["metric"] == metric && (r["value"] == k || r.get("label").is_some_and(|l| l == k)))
            .unwrap_or_else(|| panic!("{metric} = {k} printed but not in distribution.csv"));
        assert_printed(cells[1], number(row, "p"), &format!("P({metric} = {k})"));
        assert_printed(cells[2], number(row, "p_at_least"), &format!("P({metric} >= {k})"));
        let (lo, hi) = cells[3].split_once(" to ").unwrap();
        assert_printed(lo, number(row, "p_at_least_lo"), &format!("P({metric} >= {k}) lo"));
        assert_printed(hi, number(row, "p_at_least_hi"), &format!("P({metric} >= {k}) hi"));
        checked += 4;
    }
    checked
}

fn assert_valid_run_json(folder: &Path) {
    let schema = schema::Schema::load("docs/run.schema.json");
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(folder.join("run.json")).unwrap()).unwrap();
    let errors = schema.errors(&json);
    assert!(errors.is_empty(), "{}/run.json breaks docs/run.schema.json:\n{}", folder.display(), errors.join("\n"));
}

const MESBG_FILES: [&str; 14] = [
    "report.md",
    "board.csv",
    "board.png",
    "board.svg",
    "summary.csv",
    "summary.parquet",
    "distribution.csv",
    "distribution.parquet",
    "impact_chain.csv",
    "run.json",
    "impact-chain.png",
    "impact-chain.svg",
    "at-least-kills.png",
    "at-least-impact_kills.svg",
];

#[test]
fn a_mesbg_report_holds_every_promised_file_and_its_numbers_agree() {
    let dir = tempfile::tempdir().unwrap();
    let plain = report(dir.path(), "scenarios/mesbg/khandish-vs-minas-tirith.toml", "plain", "200000", &[]);
    assert_files(&plain, &MESBG_FILES);
    assert!(!plain.join("wound_split.csv").exists(), "no Hero, no wound split");
    assert_distribution_charts(&plain);
    assert!(assert_report_matches_csv(&plain, false) > 80);
    assert_valid_run_json(&plain);

    let hero = report(dir.path(), "scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml", "hero", "200000", &[]);
    assert_files(&hero, &MESBG_FILES);
    assert_files(&hero, &["wound_split.csv"]);
    // The King is almost never wounded here: his split is a certainty, said, not drawn.
    let md = std::fs::read_to_string(hero.join("report.md")).unwrap();
    assert!(
        !hero.join("wound-split.png").exists() && md.contains("the wound split (the chariot lost 0 and the Hero 0")
    );
    assert_distribution_charts(&hero);
    assert!(assert_report_matches_csv(&hero, false) > 80);
    assert_valid_run_json(&hero);
    // The wound split is a distribution over every trial.
    let split = csv(&hero.join("wound_split.csv"));
    let total: f64 = split.iter().map(|r| number(r, "p")).sum();
    let counts: f64 = split.iter().map(|r| number(r, "count")).sum();
    assert!((total - 1.0).abs() < 1e-9, "wound split sums to {total}");
    assert_eq!(counts, 200000.0);
    // And its margins are the metrics' distributions.
    let chariot_lost: f64 = split.iter().map(|r| number(r, "chariot_wounds_lost") * number(r, "p")).sum();
    let summary = csv(&hero.join("summary.csv"));
    let mean = |m: &str| number(summary.iter().find(|r| r["metric"] == m).unwrap(), "mean");
    assert!((chariot_lost - mean("chariot_wounds_lost")).abs() < 1e-9);

    // With terrain and with --target-ci, run.json carries the readings and the precision.
    let wood = report(dir.path(), "scenarios/mesbg/wood-into-shield-wall.toml", "wood", "20000", &[]);
    assert_valid_run_json(&wood);
    let precise = report(
        dir.path(),
        "scenarios/mesbg/khandish-vs-minas-tirith.toml",
        "precise",
        "20000",
        &["--target-ci", "0.02"],
    );
    assert_valid_run_json(&precise);
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(precise.join("run.json")).unwrap()).unwrap();
    assert_eq!(json["precision"]["reached"], true);
}

#[test]
fn the_impact_chain_file_holds_the_exact_stopping_chances() {
    // A single file of six models, each slain by its two S4 Impact Hits with 5/9 (see
    // tests/rules/statistics.rs): the charge stops at model g with (5/9)^(g-1) * 4/9, and is
    // never stopped past the sixth (breakthrough).
    let dir = tempfile::tempdir().unwrap();
    let folder = report(dir.path(), "tests/scenarios/column-of-six.toml", "column", "400000", &[]);
    let chain = csv(&folder.join("impact_chain.csv"));
    assert_eq!(chain.len(), 6, "one contact per model");
    for (g, row) in chain.iter().enumerate() {
        let reached = (5.0f64 / 9.0).powi(g as i32);
        let stopped = reached * 4.0 / 9.0;
        assert!((number(row, "p_stopped_exact") - stopped).abs() < 1e-12, "step {}: {row:?}", g + 1);
        assert_eq!(number(row, "models"), 1.0);
        // The sampled columns agree within five standard errors.
        for (field, exact) in [("p_stopped", stopped), ("p_reached", reached)] {
            let se = (exact * (1.0 - exact) / 400000.0).sqrt().max(1e-9);
            assert!((number(row, field) - exact).abs() < 5.0 * se, "step {}: {field} {row:?}", g + 1);
        }
    }
}

#[test]
fn battlesystem_reports_hold_every_promised_file_and_their_numbers_agree() {
    let dir = tempfile::tempdir().unwrap();
    let common = [
        "report.md",
        "summary.csv",
        "summary.parquet",
        "distribution.csv",
        "distribution.parquet",
        "units.csv",
        "run.json",
    ];
    let charge = report(dir.path(), "scenarios/battlesystem/elephant-howdah-vs-pikemen.toml", "charge", "100000", &[]);
    assert_files(&charge, &common);
    assert!(!charge.join("path_map.csv").exists(), "a charge has no path map");
    // Its board map draws the charge (the label is in the SVG's text).
    assert_files(&charge, &["board-map.png", "board-map.svg"]);
    let map = std::fs::read_to_string(charge.join("board-map.svg")).unwrap();
    assert!(
        map.contains("charges 9.5\" to contact") || map.contains("charges 9.5&quot; to contact"),
        "no charge arrow label"
    );
    let md = std::fs::read_to_string(charge.join("report.md")).unwrap();
    assert!(md.contains("board-map.png") && md.contains("charge into Pikemen"), "report.md shows the charge's map");
    assert_distribution_charts(&charge);
    assert!(assert_report_matches_csv(&charge, true) > 40);
    assert_valid_run_json(&charge);

    let rout =
        report(dir.path(), "scenarios/battlesystem/routing-elephants-in-battle-line.toml", "rout", "100000", &[]);
    assert_files(&rout, &common);
    assert_files(
        &rout,
        &["path_map.csv", "board-map.png", "board-map.svg", "units-contacted.png", "units-contacted.svg"],
    );
    assert_distribution_charts(&rout);
    assert!(assert_report_matches_csv(&rout, true) > 40);
    assert_valid_run_json(&rout);
    // What happened to the beasts is said (two ways of ending here, so in a sentence): its
    // shares are the flags' in summary.csv, and with "ran their whole rout move" split every rout.
    let md = std::fs::read_to_string(rout.join("report.md")).unwrap();
    let said =
        md.lines().find(|l| l.starts_with("What happened to the Elephants: they ")).expect("the beasts' sentence");
    let share_of = |words: &str| -> f64 {
        let at = said.find(words).unwrap_or_else(|| panic!("{words} in {said}")) + words.len();
        let rest = said[at..].trim_start().strip_prefix("in ").expect("a share");
        rest.split('%').next().unwrap().parse::<f64>().unwrap() / 100.0
    };
    let summary = csv(&rout.join("summary.csv"));
    let mean = |metric: &str| number(summary.iter().find(|r| r["metric"] == metric).expect(metric), "mean");
    let (ran, stopped) = (share_of("ran their whole rout move"), share_of("stopped in contact, out of re-rolls"));
    assert!((stopped - mean("stopped")).abs() < 0.0001, "{said}");
    assert!(said.contains("never left the board") && mean("left_board") == 0.0, "{said}");
    assert!((ran + stopped - 1.0).abs() < 0.0002, "{said}");
    // Morale outcomes are named in the distribution file.
    let labels: Vec<String> = csv(&charge.join("distribution.csv"))
        .into_iter()
        .filter(|r| r["metric"] == "target_morale")
        .map(|r| r["label"].clone())
        .collect();
    assert_eq!(labels, ["held", "fell back", "routed", "destroyed"]);
    // The path map's chances are its counts over the trials, each cell once.
    for row in csv(&rout.join("path_map.csv")) {
        assert!((number(&row, "p") - number(&row, "trials") / 100000.0).abs() < 1e-12, "{row:?}");
    }
}

#[test]
fn the_schema_refuses_what_run_json_must_not_be() {
    // The schema is not vacuous: a real run.json validates, and each of these edits of it
    // is refused.
    let dir = tempfile::tempdir().unwrap();
    let folder = report(dir.path(), "scenarios/mesbg/khandish-vs-minas-tirith.toml", "r", "2000", &[]);
    let schema = schema::Schema::load("docs/run.schema.json");
    let good: serde_json::Value = serde_json::from_slice(&std::fs::read(folder.join("run.json")).unwrap()).unwrap();
    assert!(schema.errors(&good).is_empty());
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit); 6] = [
        ("an unknown key", |j| j["surprise"] = 1.into()),
        ("a missing metric field", |j| {
            j["metrics"]["kills"].as_object_mut().unwrap().remove("se");
        }),
        ("a probability above 1", |j| j["distributions"]["kills"][0]["p"] = 1.5.into()),
        ("another schema version", |j| j["schema"] = "charioteer.run/9".into()),
        ("a ruleset entry without its meaning", |j| {
            j["ruleset"]["fate"].as_object_mut().unwrap().remove("reads");
        }),
        ("a short scenario hash", |j| j["scenario_hash"] = "abc".into()),
    ];
    for (what, edit) in edits {
        let mut bad = good.clone();
        edit(&mut bad);
        assert!(!schema.errors(&bad).is_empty(), "{what} was accepted");
    }
}
