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
fn priced<'a, S: System>(
    s: &S::Scenario,
    file: &'a Path,
    price: Option<&str>,
    model: crate::tools::balance::ValueModel,
) -> Result<Priced<'a, S::Plan>> {
    let plan = S::compile(s);
    let pricing = S::pricing(s, &plan, price, model)?;
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
    if !args.weights.is_empty() && args.weights.len() != args.against.len() {
        return Err(UnsupportedRequest(format!(
            "--weights gives {} weights for {} references: give one per --against file, in order",
            args.weights.len(),
            args.against.len()
        ))
        .into());
    }
    if args.weights.iter().any(|w| !w.is_finite() || *w <= 0.0) {
        return Err(UnsupportedRequest("--weights must be positive numbers, e.g. --weights 2,1,1".into()).into());
    }
    let mut references = Vec::with_capacity(args.against.len());
    for path in &args.against {
        let loaded = load_any(Some(path))?;
        let kind = loaded.kind();
        let r = S::take(loaded).ok_or_else(|| compare::unpaired("balance", &args.file, path, kind))?;
        // Each side prices its own acting piece by its system's default field; an explicit
        // --price names A's.
        references.push(priced::<S>(&r, path, None, args.value)?);
    }
    // With a Hero riding, the same charge without him (on the same streams) splits the price.
    let alone = match S::without_rider(&a) {
        // A chariot priced at 0 without its Hero cannot be priced alone: no split then.
        Some((alone, hero, kind)) => {
            priced::<S>(&alone, &args.file, args.price.as_deref(), args.value).ok().map(|p| (p, hero, kind))
        }
        None => None,
    };
    balance_of(args, priced::<S>(&a, &args.file, args.price.as_deref(), args.value)?, references, alone)
}

fn balance_of<P: RuleSystem>(
    args: &BalanceArgs,
    a: Priced<P>,
    references: Vec<Priced<P>>,
    alone: Option<(Priced<P>, String, crate::tools::balance::SplitKind)>,
) -> Result<()> {
    let (seed, trials) = a.source.seed_and_trials(&args.play);
    let pool = args.play.pool()?;
    let streams = Streams::new(seed, a.source.hash);
    let plays = references.len().max(1) as u64 + u64::from(alone.is_some());
    let total = trials.saturating_mul(plays);
    let bar = trial_bar(total, args.play.quiet || args.play.json);
    let cancel = &CANCEL;
    let range = TrialRange { first: 0, count: trials };
    let quote = |p: &Path| shell_quote(&p.display().to_string());
    let mut price_arg = args.price.as_deref().map(|p| format!(" --price {}", shell_quote(p))).unwrap_or_default();
    if args.value == crate::tools::balance::ValueModel::Net {
        price_arg.push_str(" --value net");
    }
    let play = |reference: Option<&Priced<P>>| {
        let before = bar.position();
        let played = pool.install(|| {
            crate::tools::balance::play(
                &a.plan,
                &a.pricing,
                reference.map(|r| (&r.plan, &r.pricing)),
                streams,
                range,
                &|n| bar.inc(n),
                cancel,
            )
        });
        interrupted_play(played, &bar, before, range.count).context("the balance run was interrupted")
    };
    let mut matchups = Vec::new();
    let (fair, spread, command) = match (references.is_empty(), args.target_efficiency) {
        (false, _) => {
            for (i, r) in references.iter().enumerate() {
                let sums = play(Some(r))?;
                let fair = crate::tools::balance::fair_price_against(&sums, &a.pricing, &r.pricing).with_context(|| {
                    format!(
                        "the reference {} destroys nothing worth points, so no price matches its efficiency: choose \
                         another reference",
                        r.title
                    )
                })?;
                matchups.push(crate::tools::balance::Matchup {
                    reference: r.title.clone(),
                    weight: args.weights.get(i).copied().unwrap_or(1.0),
                    fair,
                });
            }
            let against: String = args.against.iter().map(|p| format!(" {}", quote(p))).collect();
            let weights = if args.weights.is_empty() {
                String::new()
            } else {
                format!(" --weights {}", args.weights.iter().map(f64::to_string).collect::<Vec<_>>().join(","))
            };
            let command = format!(
                "charioteer balance {}{price_arg} --against{against}{weights} --seed {seed} --trials {trials}",
                quote(&args.file)
            );
            let (fair, spread) = if matchups.len() == 1 {
                (matchups[0].fair.clone(), None)
            } else {
                let (fair, spread) =
                    crate::tools::balance::overall(&matchups).context("the weights add up to nothing")?;
                (fair, Some(spread))
            };
            (fair, spread, command)
        }
        (true, Some(target)) => {
            let sums = play(None)?;
            let fair = crate::tools::balance::fair_price_for(&sums, &a.pricing, target);
            let spread = None;
            let command = format!(
                "charioteer balance {}{price_arg} --target-efficiency {target} --seed {seed} --trials {trials}",
                quote(&args.file)
            );
            (fair, spread, command)
        }
        (true, None) => anyhow::bail!("balance needs --against REFERENCE.toml or --target-efficiency X"),
    };
    let split = match &alone {
        Some((c, hero, kind)) => {
            let before = bar.position();
            let played = pool.install(|| {
                crate::tools::balance::play(
                    &c.plan,
                    &c.pricing,
                    Some((&a.plan, &a.pricing)),
                    streams,
                    range,
                    &|n| bar.inc(n),
                    cancel,
                )
            });
            let sums =
                interrupted_play(played, &bar, before, range.count).context("the balance run was interrupted")?;
            crate::tools::balance::split_price(&sums, &c.pricing, &a.pricing, &fair, (*kind, hero))
        }
        None => None,
    };
    bar.finish_and_clear();
    anyhow::ensure!(
        fair.fair_price.is_finite(),
        "the reference destroys nothing, so no price matches its efficiency: choose another reference"
    );
    let dir = args.play.out.clone().unwrap_or_else(|| PathBuf::from("reports").join(format!("balance--{}", a.slug)));
    let mut rulesets = vec![(a.title.clone(), a.ruleset.clone())];
    rulesets.extend(references.iter().map(|r| (r.title.clone(), r.ruleset.clone())));
    let reference = match references.as_slice() {
        [] => None,
        [one] => Some(one.title.clone()),
        many => Some(format!("{} references", many.len())),
    };
    let run = crate::tools::balance::BalanceRun {
        rulesets,
        title: a.title.clone(),
        reference,
        fair: fair.clone(),
        pricing: a.pricing.clone(),
        trials,
        seed,
        command,
        matchups: if matchups.len() > 1 { matchups } else { Vec::new() },
        spread,
        split,
    };
    let replaced = holds_report(&dir);
    let written = report::write_balance(&dir, &run)?;
    if !args.play.quiet {
        for w in run.warnings() {
            eprintln!("warning: {w}");
        }
    }
    if args.play.json {
        out!("{}", serde_json::to_string(&run.to_json())?);
    } else if !args.play.quiet {
        let s = &fair.scenario;
        out!("{}", a.title);
        out!(
            "price {:.0} points: {:.3} {} per trial (+/- {:.3}), efficiency {:.4} per point, {:.2} models or figures per 100 points",
            s.price,
            s.points_destroyed,
            match a.pricing.model {
                crate::tools::balance::ValueModel::Kills => "enemy points destroyed",
                crate::tools::balance::ValueModel::Net => "points of value (enemy points destroyed less its own lost)",
            },
            crate::mesbg::analysis::Z95 * s.points_destroyed_se,
            s.efficiency,
            s.kills_per_100_points
        );
        if let (Some(r), Some(name)) = (&fair.reference, &run.reference) {
            out!("reference {name}: price {:.0}, efficiency {:.4} per point", r.price, r.efficiency);
        }
        for m in &run.matchups {
            out!(
                "  against {} (weight {}): fair price {:.2} (95% CI {:.2} to {:.2})",
                m.reference,
                m.weight,
                m.fair.fair_price,
                m.fair.ci95_lo,
                m.fair.ci95_hi
            );
        }
        let spread = run.spread.as_ref().map_or_else(String::new, |sp| {
            format!(
                "; across matchups {:.2} to {:.2} (sd {:.2}), sampling se {:.2}",
                sp.lowest, sp.highest, sp.between_sd, sp.sampling_se
            )
        });
        out!(
            "fair price {:.2} points (95% CI {:.2} to {:.2}){spread}, {} trials, seed {seed}",
            fair.fair_price,
            fair.ci95_lo,
            fair.ci95_hi,
            group_digits(trials)
        );
        if let Some(sp) = &run.split {
            match sp.kind {
                crate::tools::balance::SplitKind::HeroRiding => out!(
                    "of which the chariot {:.2} (95% CI {:.2} to {:.2}) and {} riding it {:.2} (95% CI {:.2} to {:.2}); \
                     without him it does {:.1}% of the work",
                    sp.chariot.0,
                    sp.chariot.1,
                    sp.chariot.2,
                    sp.hero,
                    sp.hero_part.0,
                    sp.hero_part.1,
                    sp.hero_part.2,
                    100.0 * sp.chariot_share
                ),
                crate::tools::balance::SplitKind::LastChariot => out!(
                    "one more chariot: {} adds {:.2} points of it (95% CI {:.2} to {:.2}), the others {:.2}; \
                     the turn without it does {:.1}% of the work",
                    sp.hero,
                    sp.hero_part.0,
                    sp.hero_part.1,
                    sp.hero_part.2,
                    sp.chariot.0,
                    100.0 * sp.chariot_share
                ),
            }
        }
        out!("{}", report_line("report", &dir, written.len(), replaced));
    }
    Ok(())
}
