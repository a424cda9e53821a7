//! Times the pieces of a trial separately (profiling aid): `cargo run --release --example pieces`.
use charioteer::dice::{Phase, RunKey};
use charioteer::mesbg::plan::compile;
use charioteer::mesbg::resolve::{Scratch, Silent, Streams, tally_trials, trial, trial_as_sums};
use charioteer::mesbg::scenario::load;
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

fn time(name: &str, n: u64, mut f: impl FnMut(u64) -> u64) {
    let start = Instant::now();
    let mut acc = 0u64;
    for t in 0..n {
        acc = acc.wrapping_add(f(t));
    }
    black_box(acc);
    println!("{name:<48} {:6.1} ns", start.elapsed().as_secs_f64() * 1e9 / n as f64);
}

fn main() {
    let key = RunKey::new(1, 2);
    let n = 20_000_000;
    time("trial key + charge dice + 1 word", n, |t| key.trial(t).dice(Phase::Charge).word());
    time("... + fight dice + 1 word", n, |t| {
        let k = key.trial(t);
        k.dice(Phase::Charge).word() ^ k.dice(Phase::Fight).word()
    });
    for fixture in ["tests/scenarios/column-of-six.toml", "tests/scenarios/hero-column-of-six.toml"] {
        println!("{fixture}:");
        let scenario = load(Path::new(fixture)).expect("fixture");
        let plan = compile(&scenario);
        let streams = Streams::new(1, scenario.hash());
        let mut scratch = Scratch::default();
        time("  trial by the resolver (no tally)", n, |t| {
            u64::from(trial(&plan, streams, t, &mut scratch, &mut Silent).values[0])
        });
        time("  trial as sums, one at a time (no tally)", n, |t| {
            trial_as_sums(&plan, streams, t).map_or(0, |o| u64::from(o.values[0]))
        });
        let block = 1 << 15;
        time("  trial in a block (batches of sums, tallied)", n / block * block, |t| {
            if t % block == 0 { tally_trials(&plan, streams, t..t + block, &mut scratch).trials } else { 0 }
        });
    }
}
