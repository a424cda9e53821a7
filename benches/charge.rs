//! Speed of each layer: the roll kernel, one trial, a block of trials on all cores, and the
//! aggregation. Run with `cargo bench`; throughput is printed as elements (trials) per second.
//!
//! Target of the foundation: at least 30 M trials/s on 2 cores for the 6-model column with
//! its fight (`full_run/column_of_six`). A hero charge (`full_run/hero_king_on_chariot`)
//! must stay within 2x of it per trial; issue #19 asks 80 M trials/s of the column with a
//! Hero (`full_run/hero_column_of_six`). `sweep/default_100_points_x100k` times a 100-point
//! sweep.

use charioteer::dice::{Phase, trial_dice};
use charioteer::mesbg::analysis;
use charioteer::mesbg::plan::compile;
use charioteer::mesbg::resolve::{self, Scratch, Streams, TrialRange};
use charioteer::mesbg::scenario::{DEFAULT_SCENARIO, load, parse};
use charioteer::report::{RunRecord, write_report};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::Path;
use std::sync::atomic::AtomicBool;

fn kernels(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel");
    group.throughput(Throughput::Elements(1000));
    group.bench_function("d6_x1000", |b| {
        let mut dice = trial_dice(1, 2, 3, Phase::Charge);
        b.iter(|| (0..1000).map(|_| u32::from(dice.d6())).sum::<u32>())
    });
    group.bench_function("trial_streams_x1000", |b| {
        b.iter(|| (0..1000u64).map(|t| u32::from(trial_dice(1, 2, black_box(t), Phase::Charge).d6())).sum::<u32>())
    });
    group.finish();
}

fn one_trial(c: &mut Criterion) {
    let column = load(Path::new("tests/scenarios/column-of-six.toml")).expect("column scenario");
    let plan = compile(&column);
    let streams = Streams::new(1, column.hash());
    let mut group = c.benchmark_group("single_thread");
    group.throughput(Throughput::Elements(10_000));
    group.bench_function("column_of_six_x10000", |b| {
        let mut scratch = Scratch::default();
        let mut t = 0u64;
        // Every trial is tallied, exactly as one block of a run does.
        b.iter(|| {
            let tally = resolve::tally_trials(&plan, streams, t..t + 10_000, &mut scratch);
            t += 10_000;
            tally.trials
        })
    });
    group.finish();
}

fn full_runs(c: &mut Criterion) {
    let never = AtomicBool::new(false);
    let trials = 4_000_000;
    let mut group = c.benchmark_group("full_run");
    group.sample_size(10);
    group.throughput(Throughput::Elements(trials));
    let mut runs = vec![
        ("column_of_six".to_string(), load(Path::new("tests/scenarios/column-of-six.toml")).expect("column")),
        ("default_shield_wall".to_string(), parse(DEFAULT_SCENARIO, "default").expect("default")),
        // The column of six with a Khandish King aboard: six impact steps, then a five-dice
        // fight with Might and Fate (the Hero charge of issue #19).
        (
            "hero_column_of_six".to_string(),
            load(Path::new("tests/scenarios/hero-column-of-six.toml")).expect("hero column"),
        ),
    ];
    // Every bundled single-charge example (#37: each at least 40 M trials/s on 2 threads),
    // named after its file; the turns have their own group below.
    let mut files: Vec<_> = std::fs::read_dir("scenarios/mesbg")
        .expect("scenarios/mesbg")
        .map(|e| e.expect("an entry of scenarios/mesbg").path())
        .filter(|p| !p.file_stem().is_some_and(|s| s.to_string_lossy().starts_with("turn-")))
        .collect();
    files.sort();
    for path in files {
        let name = path.file_stem().expect("a file").to_string_lossy().replace('-', "_");
        runs.push((name, load(&path).expect("a bundled example")));
    }
    for (name, scenario) in runs {
        let plan = compile(&scenario);
        let streams = Streams::new(1, scenario.hash());
        group.bench_function(&name, |b| {
            b.iter(|| resolve::run(&plan, streams, TrialRange { first: 0, count: trials }, &|_| {}, &never).unwrap())
        });
    }
    group.finish();

    let scenario = parse(DEFAULT_SCENARIO, "default").expect("default");
    let plan = compile(&scenario);
    let tally =
        resolve::run(&plan, Streams::new(1, 1), TrialRange { first: 0, count: 100_000 }, &|_| {}, &never).unwrap();
    c.bench_function("aggregation/summary_and_frames", |b| {
        b.iter(|| {
            let s = analysis::summarize(&tally, &plan.metrics);
            let d = analysis::distributions(&tally, &plan.metrics);
            (analysis::summary_frame(&s).unwrap(), analysis::distribution_frame(&d).unwrap())
        })
    });
    c.bench_function("plan/compile_default", |b| b.iter(|| compile(black_box(&scenario))));
    // The best-path search of the bundled example (#37 asks under 0.5 s): an oval chariot
    // whose pivots push the models they touch.
    let best = load(Path::new("scenarios/mesbg/iron-hills-vs-orcs-best.toml")).expect("best-path example");
    let mut group = c.benchmark_group("plan");
    group.sample_size(10);
    group.bench_function("best_path_iron_hills_vs_orcs", |b| b.iter(|| compile(black_box(&best))));
    group.finish();
}

/// Rendering and writing the full report (charts, report.md, CSV, Parquet, JSON) of a
/// 1 M-trial run of the King-on-chariot scenario (the one with the most charts): the
/// reports issue asks for under a second.
fn reports(c: &mut Criterion) {
    let scenario = load(Path::new("scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml")).expect("hero scenario");
    let plan = compile(&scenario);
    let never = AtomicBool::new(false);
    let range = TrialRange { first: 0, count: 1_000_000 };
    let tally = resolve::run(&plan, Streams::new(1, scenario.hash()), range, &|_| {}, &never).unwrap();
    let record = RunRecord::new(&scenario, &plan, &tally, 1, 2, 0.1, "charioteer run".into());
    let dir = tempfile::tempdir().expect("temp dir");
    let mut group = c.benchmark_group("report");
    group.sample_size(10);
    group.bench_function("write_full_report_1m_trials", |b| b.iter(|| write_report(dir.path(), &record).unwrap()));
    group.finish();
}

/// The exact engine on a King riding a chariot into a two-rank Uruk-hai line: the exact
/// issue asks for under 10 ms, compiling the plan included.
fn exact_engine(c: &mut Criterion) {
    let scenario = load(Path::new("scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml")).expect("hero scenario");
    let plan = compile(&scenario);
    let mut group = c.benchmark_group("exact");
    group.bench_function("king_on_chariot_compile_and_exact", |b| {
        b.iter(|| charioteer::mesbg::exact::exact(&compile(black_box(&scenario))).unwrap().outcomes.len())
    });
    group.bench_function("king_on_chariot_exact_only", |b| {
        b.iter(|| charioteer::mesbg::exact::exact(black_box(&plan)).unwrap().outcomes.len())
    });
    group.finish();
}

/// A 100-point sweep of the default scenario (Move 3 to 12 by Impact Strength 1 to 10),
/// 100,000 trials a point: compiling each point and playing it, as `sweep` does.
fn sweep(c: &mut Criterion) {
    let never = AtomicBool::new(false);
    let per_point = 100_000u64;
    let points: Vec<String> = (3..=12)
        .flat_map(|m| {
            (1..=10).map(move |st| {
                DEFAULT_SCENARIO.replacen("move = 10 ", &format!("move = {m} "), 1).replacen(
                    "strength = 4 }",
                    &format!("strength = {st} }}"),
                    1,
                )
            })
        })
        .collect();
    let mut group = c.benchmark_group("sweep");
    group.sample_size(10);
    group.throughput(Throughput::Elements(per_point * points.len() as u64));
    group.bench_function("default_100_points_x100k", |b| {
        b.iter(|| {
            points
                .iter()
                .map(|text| {
                    let scenario = parse(text, "point").expect("sweep point");
                    let plan = compile(&scenario);
                    let range = TrialRange { first: 0, count: per_point };
                    resolve::run(&plan, Streams::new(1, scenario.hash()), range, &|_| {}, &never).unwrap().trials
                })
                .sum::<u64>()
        })
    });
    group.finish();
}

/// A turn of several chariots (#33 asks at least 10 M turns/s on 2 threads for the
/// three-chariot example).
fn turns(c: &mut Criterion) {
    let never = AtomicBool::new(false);
    let trials = 1_000_000;
    let mut group = c.benchmark_group("turn");
    group.sample_size(10);
    group.throughput(Throughput::Elements(trials));
    for (name, file) in [
        ("three_khandish_into_shield_wall", "scenarios/mesbg/turn-three-khandish-into-shield-wall.toml"),
        ("two_iron_hills_into_pike_block", "scenarios/mesbg/turn-two-iron-hills-into-pike-block.toml"),
    ] {
        let scenario = load(Path::new(file)).expect("turn scenario");
        let plan = charioteer::mesbg::turn::compile_order(&scenario, (0..=scenario.more.len()).collect())
            .expect("the turn plans");
        let streams = Streams::new(1, scenario.hash());
        group.bench_function(name, |b| {
            b.iter(|| {
                charioteer::engine::run(&plan, streams, TrialRange { first: 0, count: trials }, &|_| {}, &never)
                    .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, kernels, one_trial, full_runs, sweep, reports, exact_engine, turns);
criterion_main!(benches);
