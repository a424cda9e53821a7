//! Trials per second of every bundled example on all threads (the figures #37 asks for):
//! `cargo run --release --example speeds [rounds] [million trials] [name filter]`. Each
//! round plays every example once, one after the other, so the machine's swings fall on all
//! alike; the median of the rounds is printed.
use charioteer::battlesystem;
use charioteer::mesbg::plan::compile;
use charioteer::mesbg::resolve::{self, Streams, TrialRange};
use charioteer::mesbg::scenario::load;
use charioteer::mesbg::turn::compile_order;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// Plays `n` trials, returning how many were played.
type Runner = Box<dyn Fn(u64) -> u64>;

/// Every bundled example whose name contains `filter`, with the share of the trials it plays
/// (turns and BATTLESYSTEM examples are slower: an eighth).
fn runners(filter: &str) -> Vec<(String, f64, Runner)> {
    let mut out: Vec<(String, f64, Runner)> = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir("scenarios/mesbg")
        .expect("scenarios/mesbg")
        .chain(std::fs::read_dir("scenarios/battlesystem").expect("scenarios/battlesystem"))
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    for path in files {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if !name.contains(filter) {
            continue;
        }
        if path.parent().unwrap().ends_with("battlesystem") {
            let text = std::fs::read_to_string(&path).unwrap();
            let plan = battlesystem::resolve::compile(&battlesystem::scenario::parse(&text, "x").unwrap());
            let streams = Streams::new(plan.scenario.seed, plan.scenario.hash());
            out.push((
                name,
                0.125,
                Box::new(move |n| {
                    let never = AtomicBool::new(false);
                    battlesystem::resolve::run(&plan, streams, TrialRange { first: 0, count: n }, &|_| {}, &never)
                        .unwrap()
                        .trials
                }),
            ));
            continue;
        }
        let scenario = load(&path).unwrap();
        let streams = Streams::new(1, scenario.hash());
        if scenario.more.is_empty() {
            let plan = compile(&scenario);
            out.push((
                name,
                1.0,
                Box::new(move |n| {
                    let never = AtomicBool::new(false);
                    resolve::run(&plan, streams, TrialRange { first: 0, count: n }, &|_| {}, &never).unwrap().trials
                }),
            ));
        } else {
            let plan = compile_order(&scenario, (0..=scenario.more.len()).collect()).unwrap();
            out.push((
                name,
                0.125,
                Box::new(move |n| {
                    let never = AtomicBool::new(false);
                    charioteer::engine::run(&plan, streams, TrialRange { first: 0, count: n }, &|_| {}, &never)
                        .unwrap()
                        .trials
                }),
            ));
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    let millions: f64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(4.0);
    let filter = args.get(3).cloned().unwrap_or_default();
    let runners = runners(&filter);
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); runners.len()];
    for (_, _, run) in &runners {
        run(100_000); // warm: pages, pools, remembered steps
    }
    for _ in 0..rounds {
        for (i, (_, share, run)) in runners.iter().enumerate() {
            let n = (millions * 1e6 * share) as u64;
            let start = Instant::now();
            let done = run(n);
            rates[i].push(done as f64 / start.elapsed().as_secs_f64() / 1e6);
        }
    }
    for ((name, _, _), mut r) in runners.iter().zip(rates) {
        r.sort_by(f64::total_cmp);
        let median = r[r.len() / 2];
        println!(
            "{name:<40} {median:7.1} M trials/s  (rounds: {})",
            r.iter().map(|x| format!("{x:.1}")).collect::<Vec<_>>().join(" ")
        );
    }
}
