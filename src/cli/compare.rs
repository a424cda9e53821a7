//! `compare`: two scenarios of one rule system on common random numbers, each metric's
//! paired difference.

use super::*;
use crate::engine::RuleSystem;

/// Why `a` and `b` (of the kind `b_kind`) cannot be paired by `command`.
pub(super) fn unpaired(command: &str, a: &Path, b: &Path, b_kind: &str) -> UnsupportedRequest {
    UnsupportedRequest(crate::tools::system::unpaired(command, a, b, b_kind))
}

pub(super) fn compare(args: CompareArgs) -> Result<()> {
    let sets = args.sets.iter().map(|s| crate::tools::sweep::parse_set(s)).collect::<Result<Vec<_>, _>>()?;
    if let Some(many) = sets.iter().find(|s| s.values.len() != 1) {
        return Err(crate::tools::sweep::SweepError::BadSet {
            text: many.path.clone(),
            reason: "compare sets one value per field (use sweep for several)".into(),
        }
        .into());
    }
    on_system!(load_any(Some(&args.a))?, compare_of(&args, &sets))
}

/// B (another file of the same system, or A with the `--set` fields), then the paired run.
fn compare_of<S: System>(a: S::Scenario, args: &CompareArgs, sets: &[crate::tools::sweep::Assignment]) -> Result<()> {
    let b = match (&args.b, sets.is_empty()) {
        (Some(path), true) => {
            let loaded = load_any(Some(path))?;
            let kind = loaded.kind();
            S::take(loaded).ok_or_else(|| unpaired("compare", &args.a, path, kind))?
        }
        (None, false) => {
            let text = scenario_text(Some(&args.a))?;
            let mut points =
                crate::tools::sweep::points_of(&text, &S::facts(&a).name, sets, &S::profile_library(), S::parse)?;
            points.remove(0).scenario
        }
        _ => anyhow::bail!("compare takes A.toml B.toml, or A.toml with --set PATH=VALUE to make B (not both)"),
    };
    let source = run::Source::of::<S>(&a, Some(&args.a));
    let (plan_a, plan_b) = (S::compile(&a), S::compile(&b));
    for (s, plan) in [(&a, &plan_a), (&b, &plan_b)] {
        system::print_warnings(&S::facts(s).name, &S::warnings(s, plan), args.play.quiet);
    }
    compare_plans(args, &source, [S::facts(&a), S::facts(&b)], &plan_a, &plan_b)
}

/// Plays both plans on A's streams, trial by trial, and writes the paired report.
fn compare_plans<S: RuleSystem>(
    args: &CompareArgs,
    a: &run::Source,
    sides: [crate::tools::system::Facts; 2],
    plan_a: &S,
    plan_b: &S,
) -> Result<()> {
    let (seed, trials) = a.seed_and_trials(&args.play);
    let pool = args.play.pool()?;
    let bar = args.play.bar();
    let player = args.play.player(&pool, &bar);
    let started = Instant::now();
    let quote = |p: &Path| shell_quote(&p.display().to_string());
    let comparison = crate::tools::paired::Comparison {
        plans: [plan_a, plan_b],
        sides: [&sides[0], &sides[1]],
        sets: &args.sets,
        seed,
        trials,
        target: args
            .precision
            .target_ci
            .map(|target| (target, args.precision.max_trials.unwrap_or(DEFAULT_MAX_TRIALS))),
        command: format!(
            "charioteer compare {}{}{}",
            quote(&args.a),
            args.b.as_deref().map(|b| format!(" {}", quote(b))).unwrap_or_default(),
            args.sets.iter().map(|s| format!(" --set {}", shell_quote(s))).collect::<String>()
        ),
    };
    let run = crate::tools::paired::compare(comparison, &player).map_err(tool_error)?;
    let trials = run.trials;
    let [side_a, side_b] = sides;
    let dir = args.play.out.clone().unwrap_or_else(|| {
        PathBuf::from("reports").join(joined_slug("paired", &[side_a.slug.clone(), side_b.slug.clone()]))
    });
    let replaced = holds_report(&dir);
    let written = report::write_paired(&dir, &run)?;
    if args.play.json {
        out!("{}", serde_json::to_string(&run.to_json())?);
    } else if !args.play.quiet {
        out!("A: {}\nB: {}", run.names[0], run.names[1]);
        out!(
            "{} paired trials in {:.2} s, seed {seed} (common random numbers)",
            group_digits(trials),
            started.elapsed().as_secs_f64()
        );
        if let Some(p) = &run.precision {
            out!("{}", precision_line(p, trials));
        }
        out!("{:<22} {:>10} {:>10}   {:<26} {:>10}", "metric", "A", "B", "B - A (95% half-width)", "p");
        for d in &run.rows {
            let fmt = |v: f64| if d.metric.flag { format!("{:.2}%", v * 100.0) } else { format!("{v:.4}") };
            out!(
                "{:<22} {:>10} {:>10}   {:<26} {:>10}",
                d.metric.name,
                fmt(d.mean_a),
                fmt(d.mean_b),
                crate::report::document::difference_words(d),
                crate::report::document::p_words(d.p_value)
            );
        }
        for line in crate::report::document::not_compared_lines(&run) {
            out!("{line}");
        }
        out!("{}", report_line("report", &dir, written.len(), replaced));
    }
    Ok(())
}
