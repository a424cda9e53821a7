//! `balance`: the points efficiency and fair price of a chariot, a battle platform or a
//! routing beast, against a reference scenario or a target efficiency.

use super::*;
use crate::engine::RuleSystem;
use crate::tools::balance::Pricing;

/// What a balance needs from each scenario, whichever rule system it is.
struct Priced<'a, S> {
    title: String,
    slug: String,
    ruleset: Vec<crate::mesbg::scenario::RuleOption>,
    plan: S,
    pricing: Pricing,
    source: run::Source<'a>,
}

/// Compiles and prices a scenario of either system (`price`: the field, or the system's
/// default when `None`).
fn priced_mesbg<'a>(s: &Scenario, file: &'a Path, price: Option<&str>) -> Result<Priced<'a, Plan>> {
    let plan = plan::compile(s);
    let pricing = crate::tools::balance::pricing(s, &plan, price.unwrap_or("chariot.points"))?;
    let source = Loaded::Mesbg(Box::new(s.clone())).source(Some(file));
    Ok(Priced { title: s.title.clone(), slug: s.slug(), ruleset: s.ruleset(), plan, pricing, source })
}

fn priced_battlesystem<'a>(
    s: &BattleScenario,
    file: &'a Path,
    price: Option<&str>,
) -> Result<Priced<'a, crate::battlesystem::resolve::BattlePlan>> {
    let plan = crate::battlesystem::resolve::compile(s);
    let pricing = crate::tools::balance::battle_pricing(s, &plan, price)?;
    let source = Loaded::Battlesystem(Box::new(s.clone())).source(Some(file));
    Ok(Priced { title: s.title.clone(), slug: s.slug(), ruleset: s.rules.ruleset(), plan, pricing, source })
}

pub(super) fn balance(args: BalanceArgs) -> Result<()> {
    let price = args.price.as_deref();
    let reference = args.against.as_deref().map(|p| load_any(Some(p)).map(|l| (l, p))).transpose()?;
    match (load_any(Some(&args.file))?, reference) {
        (Loaded::Mesbg(a), None) => balance_of(&args, priced_mesbg(&a, &args.file, price)?, None),
        (Loaded::Mesbg(a), Some((Loaded::Mesbg(r), path))) => {
            balance_of(&args, priced_mesbg(&a, &args.file, price)?, Some(priced_mesbg(&r, path, price)?))
        }
        (Loaded::Battlesystem(a), None) => balance_of(&args, priced_battlesystem(&a, &args.file, price)?, None),
        (Loaded::Battlesystem(a), Some((Loaded::Battlesystem(r), path))) => {
            // Each side prices its own acting unit (an explicit field names A's).
            let own = priced_battlesystem(&r, path, None)?;
            balance_of(&args, priced_battlesystem(&a, &args.file, price)?, Some(own))
        }
        _ => Err(UnsupportedRequest(
            "balance prices a scenario against a reference of the same rule system (their trials share random \
             streams); the two files are of different systems (MESBG and BATTLESYSTEM)"
                .into(),
        )
        .into()),
    }
}

fn balance_of<S: RuleSystem>(args: &BalanceArgs, a: Priced<S>, reference: Option<Priced<S>>) -> Result<()> {
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
        out!("report: {} ({} files)", dir.join("report.md").display(), written.len());
    }
    Ok(())
}
