//! The report folder as a writer meets it: every promised file, charts that decode at
//! the right size with their text kept as text, a `report.md` whose links resolve and
//! whose numbers are the ones in `summary.csv`, Parquet equal to CSV, per-trial rows that
//! are the run's own trials, and the side-by-side comparison of several scenarios.

use charioteer::mesbg::plan::compile;
use charioteer::mesbg::resolve::{self, Streams, TrialRange};
use charioteer::mesbg::scenario::load;
use charioteer::report::charts as chart;
use charioteer::report::document::{headline_value, percent};
use charioteer::report::{RunRecord, write_report};
use polars::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

const DEFAULT: &str = "scenarios/mesbg/khandish-vs-minas-tirith.toml";
const HERO: &str = "scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml";
/// A Hero whose Wounds split several ways (the Uruk-hai almost never wound the King, so
/// that report says its split in a sentence).
const SPLIT: &str = "scenarios/mesbg/king-on-chariot-vs-cave-trolls.toml";

fn record_of(file: &str, trials: u64) -> RunRecord {
    let scenario = load(Path::new(file)).expect("example scenario");
    let plan = compile(&scenario);
    let streams = Streams::new(scenario.seed, scenario.hash());
    let range = TrialRange { first: 0, count: trials };
    let tally = resolve::run(&plan, streams, range, &|_| {}, &AtomicBool::new(false)).expect("run");
    RunRecord::new(&scenario, &plan, &tally, scenario.seed, 1, 0.1, format!("charioteer run {file} --trials {trials}"))
}

fn report_of(file: &str, trials: u64) -> (tempfile::TempDir, RunRecord, Vec<PathBuf>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let record = record_of(file, trials);
    let files = write_report(dir.path(), &record).expect("report written");
    (dir, record, files)
}

fn names(files: &[PathBuf]) -> Vec<String> {
    files.iter().map(|f| f.file_name().unwrap().to_string_lossy().into_owned()).collect()
}

/// The targets of every Markdown link and image in `text`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let end = after.find(')').expect("closed link");
        out.push(after[..end].to_string());
        rest = &after[end..];
    }
    out
}

#[test]
fn the_report_folder_holds_every_promised_file() {
    let (dir, _, files) = report_of(HERO, 50_000);
    let written = names(&files);
    for f in [
        "report.md",
        "summary.csv",
        "summary.parquet",
        "distribution.csv",
        "distribution.parquet",
        "impact_chain.csv",
        "wound_split.csv",
        "run.json",
        "impact-chain.png",
        "impact-chain.svg",
        "distribution-kills.png",
        "distribution-kills.svg",
        "at-least-kills.png",
        "at-least-kills.svg",
    ] {
        assert!(written.contains(&f.to_string()), "{f} missing from {written:?}");
        assert!(dir.path().join(f).is_file(), "{f} not on disk");
    }
    let leftovers = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn charts_decode_at_their_size_and_keep_their_words() {
    let (dir, _, files) = report_of(HERO, 50_000);
    let pngs: Vec<&PathBuf> = files.iter().filter(|f| f.extension().is_some_and(|e| e == "png")).collect();
    assert!(pngs.len() >= 5, "{pngs:?}");
    for png in &pngs {
        let image = image::load_from_memory(&std::fs::read(png).unwrap()).expect("PNG decodes");
        assert_eq!((image.width(), image.height()), chart::SIZE, "{}", png.display());
        // Not blank: some pixels are dark (text, bars).
        let rgb = image.to_rgb8();
        assert!(rgb.pixels().filter(|p| p.0.iter().all(|&c| c < 100)).count() > 500, "{} looks blank", png.display());
    }
    let svg = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    let chain = svg("impact-chain.svg");
    for text in ["How far the charge gets", "share of charges", "contact along the path", "stopped here"] {
        // Text is drawn as glyph outlines, each keeping its words in `aria-label`.
        assert!(chain.contains(text) && chain.contains("aria-label=\""), "impact-chain.svg lacks {text:?}");
        assert!(!chain.contains("<text"), "impact-chain.svg depends on the viewer's fonts");
    }
    let kills = svg("distribution-kills.svg");
    assert!(kills.contains("Models slain in all") && kills.contains("models slain in all"));
    let (split_dir, _, _) = report_of(SPLIT, 50_000);
    let split = std::fs::read_to_string(split_dir.path().join("wound-split.svg")).unwrap();
    assert!(split.contains("Wounds the Hero lost") && split.contains("Wounds the chariot lost"));
    let _ = dir;
}

#[test]
fn report_md_links_only_files_that_exist() {
    for file in [DEFAULT, HERO] {
        let (dir, _, _) = report_of(file, 20_000);
        let text = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
        let targets = links(&text);
        assert!(targets.len() > 10, "{targets:?}");
        for t in targets {
            assert!(dir.path().join(&t).is_file(), "report.md links {t}, which is not there");
        }
        assert!(text.contains("## Reproduce") && text.contains("charioteer run") && text.contains("hash `"));
        assert!(text.contains("`prone_counts_as_trapped`") && text.contains("`strike_allocation`"));
    }
}

fn summary_csv(dir: &Path) -> Vec<(String, [f64; 5])> {
    let text = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| {
            let cells: Vec<&str> = line.split(',').collect();
            let num = |i: usize| cells[i].parse::<f64>().unwrap();
            (cells[0].to_string(), [num(1), num(2), num(3), num(4), num(5)])
        })
        .collect()
}

#[test]
fn the_numbers_in_report_md_are_those_of_summary_csv() {
    let (dir, record, _) = report_of(DEFAULT, 100_000);
    let text = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    let rows = summary_csv(dir.path());
    assert_eq!(rows.len(), record.summary.len());
    for (name, [mean, _sd, _se, lo, hi]) in rows {
        let summary = record.summary.iter().find(|s| s.metric.name() == name).expect("metric in record");
        // The CSV holds the record's numbers...
        assert_eq!((summary.mean, summary.ci95_lo, summary.ci95_hi), (mean, lo, hi), "{name}");
        // ...and report.md prints them, formatted, in the metric's table row.
        let (m, l, h) = headline_value(summary);
        let row = text.lines().find(|l| l.starts_with(&format!("| `{name}` |"))).expect("table row");
        assert!(row.contains(&format!("| {m} | {l} to {h} |")), "{row} vs {m} {l} {h}");
    }
    // The headline sentence of breakthrough carries the same numbers.
    let b = record.summary.iter().find(|s| s.metric.name() == "breakthrough").unwrap();
    assert!(text.contains(&format!(
        "**{}** of charges (95% CI {} to {})",
        percent(b.mean),
        percent(b.ci95_lo),
        percent(b.ci95_hi)
    )));
}

#[test]
fn parquet_exports_equal_the_csv_ones() {
    let (dir, _, _) = report_of(DEFAULT, 20_000);
    for name in ["summary", "distribution"] {
        let csv = CsvReadOptions::default()
            .try_into_reader_with_file_path(Some(dir.path().join(format!("{name}.csv"))))
            .unwrap()
            .finish()
            .unwrap();
        let file = std::fs::File::open(dir.path().join(format!("{name}.parquet"))).unwrap();
        let parquet = ParquetReader::new(file).finish().unwrap();
        assert_eq!(parquet.shape(), csv.shape(), "{name}");
        assert_eq!(parquet.get_column_names(), csv.get_column_names(), "{name}");
        for column in csv.get_column_names() {
            let a = csv.column(column.as_str()).unwrap();
            let b = parquet.column(column.as_str()).unwrap();
            if a.dtype() == &DataType::String {
                let (a, b) = (a.str().unwrap(), b.str().unwrap());
                assert!(a.iter().eq(b.iter()), "{name}.{column}");
                continue;
            }
            let (a, b) = (a.cast(&DataType::Float64).unwrap(), b.cast(&DataType::Float64).unwrap());
            for (x, y) in a.f64().unwrap().iter().zip(b.f64().unwrap().iter()) {
                let (x, y) = (x.unwrap(), y.unwrap());
                assert!((x - y).abs() <= 1e-12 * x.abs().max(1.0), "{name}.{column}: {x} vs {y}");
            }
        }
    }
}

#[test]
fn per_trial_rows_are_the_runs_own_trials() {
    let dir = tempfile::tempdir().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args([
            "run",
            &format!("{root}/{DEFAULT}"),
            "--trials",
            "3000",
            "--out",
            "rep",
            "--trials-out",
            "trials.parquet",
            "--quiet",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows = ParquetReader::new(std::fs::File::open(dir.path().join("trials.parquet")).unwrap()).finish().unwrap();
    assert_eq!(rows.height(), 3000);
    let scenario = load(Path::new(DEFAULT)).unwrap();
    let plan = compile(&scenario);
    let streams = Streams::new(scenario.seed, scenario.hash());
    let trial = rows.column("trial").unwrap().u64().unwrap().clone();
    let kills = rows.column("kills").unwrap().u32().unwrap().clone();
    for i in [0usize, 1, 17, 999, 2999] {
        assert_eq!(trial.get(i), Some(i as u64));
        let (outcome, _) = resolve::replay(&plan, streams, i as u64);
        assert_eq!(kills.get(i), Some(u32::from(outcome.get(charioteer::mesbg::tally::Metric::Kills))), "trial {i}");
    }
    // The rows' histogram of kills is the report's distribution.
    let dist = std::fs::read_to_string(dir.path().join("rep/distribution.csv")).unwrap();
    for line in dist.lines().filter(|l| l.starts_with("kills,")) {
        let cells: Vec<&str> = line.split(',').collect();
        let (value, count): (u32, usize) = (cells[1].parse().unwrap(), cells[2].parse().unwrap());
        assert_eq!(kills.iter().filter(|k| *k == Some(value)).count(), count, "kills = {value}");
    }
}

#[test]
fn several_scenarios_give_a_comparison_report() {
    let dir = tempfile::tempdir().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(["run", &format!("{root}/{DEFAULT}"), &format!("{root}/{HERO}"), "--trials", "20000", "--out", "rep"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("comparison: rep/comparison/report.md"));
    let comparison = dir.path().join("rep/comparison");
    let text = std::fs::read_to_string(comparison.join("report.md")).unwrap();
    assert!(text.contains("Khandish charioteer charges a Minas Tirith shield wall"));
    assert!(text.contains("Khandish King on his chariot charges an Uruk-hai line"));
    for t in links(&text) {
        assert!(comparison.join(&t).is_file(), "comparison report links {t}, which is not there");
    }
    let svg = std::fs::read_to_string(comparison.join("comparison-kills.svg")).unwrap();
    assert!(svg.contains("Models slain in all") && svg.contains("mean per charge"));
    for sub in [
        "khandish-charioteer-charges-a-minas-tirith-shield-wall",
        "khandish-king-on-his-chariot-charges-an-uruk-hai-line",
    ] {
        assert!(dir.path().join("rep").join(sub).join("report.md").is_file(), "{sub}");
    }
}
