//! `balance`: the points efficiency and fair price of a chariot, a battle platform or a
//! routing beast, against a reference scenario or a target efficiency.

use super::*;
use crate::engine::RuleSystem;
use crate::tools::balance::Pricing;

/// What a balance needs from each scenario, whichever rule system it is.
struct Priced<'a, P> {
    title: String,
    slug: String,
    ruleset: Vec<crate::input::RuleOption>,
    plan: P,
    pricing: Pricing,
    source: run::Source<'a>,
}

/// Compiles and prices a scenario of system `S` (`price`: the field, or the system's
/// default when `None`).
fn priced<'a, S: System>(s: &S::Scenario, file: &'a Path, price: Option<&str>) -> Result<Priced<'a, S::Plan>> {
    let plan = S::compile(s);
    let pricing = S::pricing(s, &plan, price)?;
    let facts = S::facts(s);
    Ok(Priced {
        title: facts.title,
        slug: facts.slug,
        ruleset: facts.ruleset,
        plan,
        pricing,
        source: run::Source::of::<S>(s, Some(file)),
    })
}

pub(super) fn balance(args: BalanceArgs) -> Result<()> {
    on_system!(load_any(Some(&args.file))?, balance_system(&args))
}

fn balance_system<S: System>(a: S::Scenario, args: &BalanceArgs) -> Result<()> {
    let reference = match args.against.as_deref() {
        Some(path) => {
            let r = S::take(load_any(Some(path))?)
                .ok_or_else(|| UnsupportedRequest(format!("balance {}", compare::DIFFERENT_SYSTEMS)))?;
            // Each side prices its own acting piece by its system's default field; an
            // explicit --price names A's.
            Some(priced::<S>(&r, path, None)?)
        }
        None => None,
    };
    balance_of(args, priced::<S>(&a, &args.file, args.price.as_deref())?, reference)
}

fn balance_of<P: RuleSystem>(args: &BalanceArgs, a: Priced<P>, reference: Option<Priced<P>>) -> Result<()> {
    let (seed, trials) = a.source.seed_and_trials(&args.play);
    let pool = args.play.pool()?;
    let streams = Streams::new(seed, a.source.hash);
    let bar = trial_bar(trials, args.play.quiet || args.play.json);
    let cancel = &CANCEL;
    let range = TrialRange { first: 0, count: trials };
    let quote = |p: &Path| shell_quote(&p.display().to_string());
    let price_arg = args.price.as_deref().map(|p| format!(" --price {}", shell_quote(p))).unwrap_or_default();
    let sums = pool
        .install(|| {
            crate::tools::balance::play(
                &a.plan,
                &a.pricing,
                reference.as_ref().map(|r| (&r.plan, &r.pricing)),
                streams,
                range,
                &|n| bar.inc(n),
                cancel,
            )
        })
        .context("the balance run was interrupted")?;
    let (fair, command) = match (&reference, args.target_efficiency) {
        (Some(r), _) => {
            let fair = crate::tools::balance::fair_price_against(&sums, &a.pricing, &r.pricing).context(
                "the reference destroys nothing worth points, so no price matches its efficiency: choose another reference",
            )?;
            let command = format!(
                "charioteer balance {}{price_arg} --against {} --seed {seed} --trials {trials}",
                quote(&args.file),
                quote(args.against.as_deref().unwrap_or(Path::new("?")))
            );
            (fair, command)
        }
        (None, Some(target)) => {
            let fair = crate::tools::balance::fair_price_for(&sums, &a.pricing, target);
            let command = format!(
                "charioteer balance {}{price_arg} --target-efficiency {target} --seed {seed} --trials {trials}",
                quote(&args.file)
            );
            (fair, command)
        }
        (None, None) => anyhow::bail!("balance needs --against REFERENCE.toml or --target-efficiency X"),
    };
    bar.finish_and_clear();
    anyhow::ensure!(
        fair.fair_price.is_finite(),
        "the reference destroys nothing, so no price matches its efficiency: choose another reference"
    );
    let dir = args.play.out.clone().unwrap_or_else(|| PathBuf::from("reports").join(format!("balance--{}", a.slug)));
    let mut rulesets = vec![(a.title.clone(), a.ruleset.clone())];
    rulesets.extend(reference.as_ref().map(|r| (r.title.clone(), r.ruleset.clone())));
    let run = crate::tools::balance::BalanceRun {
        rulesets,
        title: a.title.clone(),
        reference: reference.as_ref().map(|r| r.title.clone()),
        fair: fair.clone(),
        pricing: a.pricing.clone(),
        trials,
        seed,
        command,
    };
    let replaced = holds_report(&dir);
    let written = report::write_balance(&dir, &run)?;
    if args.play.json {
        out!("{}", serde_json::to_string(&run.to_json())?);
    } else if !args.play.quiet {
        let s = &fair.scenario;
        out!("{}", a.title);
        out!(
            "price {:.0} points: {:.3} enemy points destroyed per trial (+/- {:.3}), efficiency {:.4} per point, {:.2} models or figures per 100 points",
            s.price,
            s.points_destroyed,
            crate::mesbg::analysis::Z95 * s.points_destroyed_se,
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
        out!("{}", report_line("report", &dir, written.len(), replaced));
    }
    Ok(())
}
