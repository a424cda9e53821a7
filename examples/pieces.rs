//! Times the pieces of a trial separately (profiling aid): `cargo run --release --example pieces`.
use charioteer::dice::{Phase, RunKey};
use charioteer::mesbg::plan::compile;
use charioteer::mesbg::resolve::{Scratch, Silent, Streams, trial};
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
    println!("{name:<40} {:6.1} ns", start.elapsed().as_secs_f64() * 1e9 / n as f64);
}

fn main() {
    let scenario = load(Path::new("tests/scenarios/column-of-six.toml")).expect("fixture");
    let plan = compile(&scenario);
    let streams = Streams::new(1, scenario.hash());
    let key = RunKey::new(1, 2);
    let n = 20_000_000;
    time("trial key + charge dice + 1 word", n, |t| key.trial(t).dice(Phase::Charge).word());
    time("... + fight dice + 1 word", n, |t| {
        let k = key.trial(t);
        k.dice(Phase::Charge).word() ^ k.dice(Phase::Fight).word()
    });
    let mut scratch = Scratch::default();
    time("trial (no tally)", n, |t| u64::from(trial(&plan, streams, t, &mut scratch, &mut Silent).values[0]));
    let mut tally = charioteer::mesbg::resolve::new_tally(&plan);
    time("trial + tally", n, |t| {
        tally.record(&trial(&plan, streams, t, &mut scratch, &mut Silent));
        0
    });
}
