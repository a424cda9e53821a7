//! `balance`: a chariot's points efficiency and fair price against a reference.

use super::*;

pub(super) fn balance(args: BalanceArgs) -> Result<()> {
    let a = load(Some(&args.file))?;
    let trials = args.play.trials.unwrap_or(a.trials);
    let seed = args.play.seed.unwrap_or(a.seed);
    let pool = args.play.pool()?;
    let plan_a = plan::compile(&a);
    let pricing_a = crate::balance::pricing(&a, &plan_a, &args.price)?;
    let streams = Streams::new(seed, a.hash());
    let bar = if args.play.quiet { ProgressBar::hidden() } else { ProgressBar::new(trials) };
    let cancel = &CANCEL;
    let range = TrialRange { first: 0, count: trials };
    let quote = |p: &Path| shell_quote(&p.display().to_string());
    let (fair, reference_title, command) = match (&args.against, args.target_efficiency) {
        (Some(path), _) => {
            let r = load(Some(path))?;
            let plan_r = plan::compile(&r);
            let pricing_r = crate::balance::pricing(&r, &plan_r, &args.price)?;
            let sums = pool
                .install(|| crate::paired::run(&plan_a, &plan_r, streams, range, &|n| bar.inc(n), cancel))
                .context("the balance run was interrupted")?;
            let fair = crate::balance::fair_price_against(&sums, pricing_a, pricing_r)
                .context("the reference slays nothing, so no price matches its efficiency")?;
            let command = format!(
                "charioteer balance {} --price {} --against {} --seed {seed} --trials {trials}",
                quote(&args.file),
                args.price,
                quote(path)
            );
            (fair, Some((r.title.clone(), r.ruleset())), command)
        }
        (None, Some(target)) => {
            let tally = pool.install(|| resolve::run(&plan_a, streams, range, &|n| bar.inc(n), cancel))?;
            let kills = crate::analysis::summarize_metric(&tally, Metric::Kills);
            let fair = crate::balance::fair_price_for(&kills, tally.trials, pricing_a, target);
            let command = format!(
                "charioteer balance {} --price {} --target-efficiency {target} --seed {seed} --trials {trials}",
                quote(&args.file),
                args.price
            );
            (fair, None, command)
        }
        (None, None) => anyhow::bail!("balance needs --against REFERENCE.toml or --target-efficiency X"),
    };
    bar.finish_and_clear();
    anyhow::ensure!(
        fair.fair_price.is_finite(),
        "the reference slays nothing, so no price matches its efficiency: choose another reference"
    );
    let dir = args.play.out.unwrap_or_else(|| PathBuf::from("reports").join(format!("balance--{}", a.slug())));
    let mut rulesets = vec![(a.title.clone(), a.ruleset())];
    rulesets.extend(reference_title.clone());
    let run = crate::balance::BalanceRun {
        rulesets,
        title: a.title.clone(),
        reference: reference_title.map(|r| r.0),
        fair: fair.clone(),
        trials,
        seed,
        command,
    };
    let written = report::write_balance(&dir, &run)?;
    if !args.play.quiet {
        let s = &fair.scenario;
        out!("{}", a.title);
        out!(
            "price {:.0} points: {:.3} enemy points destroyed per charge (+/- {:.3}), efficiency {:.4} per point, {:.2} models per 100 points",
            s.price,
            s.points_destroyed,
            crate::analysis::Z95 * s.points_destroyed_se,
            s.efficiency,
            s.kills_per_100_points
        );
        if let (Some(r), Some(name)) = (&fair.reference, &run.reference) {
            out!("reference {name}: price {:.0}, efficiency {:.4} per point", r.price, r.efficiency);
        }
        out!(
            "fair price {:.2} points (95% CI {:.2} to {:.2}), {} trials, seed {seed}",
            fair.fair_price,
            fair.ci95_lo,
            fair.ci95_hi,
            group_digits(trials)
        );
        out!("report: {} ({} files)", dir.join("report.md").display(), written.len());
    }
    Ok(())
}
