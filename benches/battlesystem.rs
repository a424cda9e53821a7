//! Speed of BATTLESYSTEM trials: the routing elephants in their battle line (the rout
//! scenario of issue #4: d12 directions, veering, contacts, morale, re-rolls and the path
//! map), and the howdah and dragon charges. Run with `cargo bench --bench battlesystem`; throughput is
//! printed as elements (trials) per second.

use charioteer::battlesystem::resolve::{Scratch, compile, run, tally_trials};
use charioteer::battlesystem::scenario::parse;
use charioteer::mesbg::resolve::{Streams, TrialRange};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::sync::atomic::AtomicBool;

fn plan(file: &str) -> charioteer::battlesystem::resolve::BattlesystemPlan {
    let path = format!("scenarios/battlesystem/{file}");
    let text = std::fs::read_to_string(&path).expect("example scenario");
    compile(&parse(&text, &path).expect("valid example"))
}

fn battlesystem(c: &mut Criterion) {
    let never = AtomicBool::new(false);
    let mut group = c.benchmark_group("battlesystem");
    group.sample_size(10);
    for (name, file, trials) in [
        ("rout_elephants_in_battle_line", "routing-elephants-in-battle-line.toml", 400_000u64),
        ("charge_howdah_vs_pikemen", "elephant-howdah-vs-pikemen.toml", 2_000_000),
        ("charge_dragon_with_crew", "dragon-with-crew.toml", 2_000_000),
    ] {
        let plan = plan(file);
        let streams = Streams::new(plan.scenario.seed, plan.scenario.hash());
        group.throughput(Throughput::Elements(trials));
        group.bench_function(name, |b| {
            b.iter(|| run(&plan, streams, TrialRange { first: 0, count: trials }, &|_| {}, &never).map(|t| t.trials))
        });
    }
    let rout = plan("routing-elephants-in-battle-line.toml");
    let streams = Streams::new(1, rout.scenario.hash());
    group.throughput(Throughput::Elements(10_000));
    group.bench_function("rout_single_thread_x10000", |b| {
        let mut scratch = Scratch::default();
        let mut t = 0u64;
        b.iter(|| {
            let tally = tally_trials(&rout, streams, t..t + 10_000, &mut scratch);
            t += 10_000;
            tally.trials
        })
    });
    group.finish();
}

criterion_group!(benches, battlesystem);
criterion_main!(benches);
