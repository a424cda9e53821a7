//! `compare`: two scenarios on common random numbers, each metric's paired difference.

use super::*;

pub(super) fn compare(args: CompareArgs) -> Result<()> {
    let a = load(Some(&args.a))?;
    let b = match (&args.b, args.sets.is_empty()) {
        (Some(path), true) => load(Some(path))?,
        (None, false) => {
            let sets = args.sets.iter().map(|s| crate::sweep::parse_set(s)).collect::<Result<Vec<_>, _>>()?;
            if let Some(many) = sets.iter().find(|s| s.values.len() != 1) {
                return Err(crate::sweep::SweepError::BadSet {
                    text: many.path.clone(),
                    reason: "compare sets one value per field (use sweep for several)".into(),
                }
                .into());
            }
            let mut points = crate::sweep::points(&scenario_text(Some(&args.a))?, &a.file, &sets)?;
            points.remove(0).scenario
        }
        _ => anyhow::bail!("compare takes A.toml B.toml, or A.toml with --set PATH=VALUE to make B (not both)"),
    };
    let trials = args.play.trials.unwrap_or(a.trials);
    let seed = args.play.seed.unwrap_or(a.seed);
    let pool = args.play.pool()?;
    let (plan_a, plan_b) = (plan::compile(&a), plan::compile(&b));
    // Common random numbers: both play A's streams.
    let streams = Streams::new(seed, a.hash());
    let bar = if args.play.quiet { ProgressBar::hidden() } else { ProgressBar::new(trials) };
    let cancel = &CANCEL;
    let started = Instant::now();
    let play = |range: TrialRange| {
        pool.install(|| crate::paired::run(&plan_a, &plan_b, streams, range, &|n| bar.inc(n), cancel))
            .context("the comparison was interrupted")
    };
    let mut sums = play(TrialRange { first: 0, count: trials })?;
    if let Some(target) = args.precision.target_ci {
        let cap = args.precision.max_trials.unwrap_or(DEFAULT_MAX_TRIALS).max(trials);
        loop {
            let widest =
                crate::paired::differences(&sums).iter().map(|d| (d.ci95_hi - d.ci95_lo) / 2.0).fold(0.0, f64::max);
            if widest < target || sums.n >= cap {
                if !args.play.quiet {
                    out!(
                        "--target-ci {target}: {} after {} trials (widest half-width {widest:.6})",
                        if widest < target { "reached" } else { "NOT reached (raise --max-trials)" },
                        group_digits(sums.n)
                    );
                }
                break;
            }
            let next = sums.n.saturating_mul(2).min(cap);
            bar.set_length(next);
            let more = play(TrialRange { first: sums.n, count: next - sums.n })?;
            sums.add(&more);
        }
    }
    let trials = sums.n;
    bar.finish_and_clear();
    let quote = |p: &Path| shell_quote(&p.display().to_string());
    let run = crate::paired::PairedRun {
        rulesets: [a.ruleset(), b.ruleset()],
        titles: [a.title.clone(), b.title.clone()],
        files: [a.file.clone(), b.file.clone()],
        trials,
        seed,
        rows: crate::paired::differences(&sums),
        command: format!(
            "charioteer compare {}{}{} --seed {seed} --trials {trials}",
            quote(&args.a),
            args.b.as_deref().map(|b| format!(" {}", quote(b))).unwrap_or_default(),
            args.sets.iter().map(|s| format!(" --set {}", shell_quote(s))).collect::<String>()
        ),
    };
    let dir = args.play.out.unwrap_or_else(|| {
        let slug = |s: &Scenario| s.slug().chars().take(40).collect::<String>();
        PathBuf::from("reports").join(format!("paired--{}--{}", slug(&a), slug(&b)))
    });
    let written = report::write_paired(&dir, &run)?;
    if !args.play.quiet {
        out!("A: {}\nB: {}", a.title, b.title);
        out!(
            "{} paired trials in {:.2} s, seed {seed} (common random numbers)",
            group_digits(trials),
            started.elapsed().as_secs_f64()
        );
        out!("{:<22} {:>10} {:>10}   {:<26} {:>10}", "metric", "A", "B", "A - B (95% half-width)", "p");
        for d in &run.rows {
            let fmt = |v: f64| if d.metric.is_flag() { format!("{:.2}%", v * 100.0) } else { format!("{v:.4}") };
            out!(
                "{:<22} {:>10} {:>10}   {:<26} {:>10}",
                d.metric.name(),
                fmt(d.mean_a),
                fmt(d.mean_b),
                crate::document::difference_words(d),
                crate::document::p_words(d.p_value)
            );
        }
        out!("report: {} ({} files)", dir.join("report.md").display(), written.len());
    }
    Ok(())
}
