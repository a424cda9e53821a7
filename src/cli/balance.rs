//! `balance`: the points efficiency and fair price of a chariot, a battle platform or a
//! routing beast, against a reference scenario or a target efficiency. The pricing is
//! [`crate::tools::balance::balance`]; this file reads the options, shows the progress,
//! writes the report and prints it.

use super::*;
use crate::tools::balance::{BalanceRequest, Balanced};

pub(super) fn balance(args: BalanceArgs) -> Result<()> {
    let request = BalanceRequest {
        file: args.file.clone(),
        price: args.price.clone(),
        against: args.against.clone(),
        value: args.value,
        weights: args.weights.clone(),
        target_efficiency: args.target_efficiency,
        matchups: args.matchups.clone(),
        sets: args.sets.clone(),
        seed: args.play.seed,
        trials: args.play.trials,
    };
    let pool = args.play.pool()?;
    let bar = args.play.bar();
    let player = args.play.player(&pool, &bar);
    let dir = |folder: &str| args.play.out.clone().unwrap_or_else(|| PathBuf::from("reports").join(folder));
    match crate::tools::balance::balance(&request, &player).map_err(tool_error)? {
        Balanced::One { run, folder } => finish_balance(&args, &run, &dir(&folder)),
        Balanced::Curve { curve, folder } => finish_curve(&args, &curve, &dir(&folder)),
    }
}

/// Writes a price's report folder with `write` and prints its warnings (not under
/// `--quiet`); says whether it replaced an earlier report, and the files written.
fn write_and_warn(
    args: &BalanceArgs,
    dir: &Path,
    warnings: Vec<String>,
    write: impl FnOnce(&Path) -> Result<Vec<PathBuf>, report::ReportError>,
) -> Result<(bool, Vec<PathBuf>)> {
    let replaced = holds_report(dir);
    let written = write(dir)?;
    if !args.play.quiet {
        for w in warnings {
            eprintln!("warning: {w}");
        }
    }
    Ok((replaced, written))
}

/// Writes a cost curve's report and prints it (table, JSON or nothing).
fn finish_curve(args: &BalanceArgs, curve: &crate::tools::balance::CostCurve, dir: &Path) -> Result<()> {
    let (replaced, written) = write_and_warn(args, dir, curve.warnings(), |d| report::write_balance_curve(d, curve))?;
    if args.play.json {
        out!("{}", serde_json::to_string(&curve.to_json())?);
        return Ok(());
    }
    if args.play.quiet {
        return Ok(());
    }
    let Some((_, first)) = curve.points.first() else { return Ok(()) };
    out!("{}: fair price as {} changes", curve.title, curve.field);
    match (&first.set, &first.reference) {
        (Some(set), Some(r)) => out!("priced against {r} on every line of {set}, every value on the same trials"),
        (None, Some(r)) => out!("priced against {r}, every value on the same trials"),
        _ => out!(
            "priced for a target efficiency of {:.3}, every value on the same trials",
            first.fair.target_efficiency
        ),
    }
    for (value, run) in &curve.points {
        let f = &run.fair;
        let (lo, hi) = report::sampling_interval(run);
        if f.fair_price < 0.0 {
            out!(
                "  {}={value}: no price: it loses more points than it destroys ({:.2} a trial)",
                curve.field,
                f.scenario.points_destroyed
            );
        } else if let (Some(sp), Some(_)) = (&run.spread, &run.set) {
            out!(
                "  {}={value}: fair price {:.2} (sampling 95% CI {lo:.2} to {hi:.2}; across lines {:.2} to {:.2}; both together {:.2} to {:.2})",
                curve.field,
                f.fair_price,
                sp.lowest,
                sp.highest,
                f.ci95_lo,
                f.ci95_hi
            );
        } else {
            out!("  {}={value}: fair price {:.2} (95% CI {lo:.2} to {hi:.2})", curve.field, f.fair_price);
        }
    }
    out!(
        "price paid now {:.0}; {} trials per value, seed {}",
        first.fair.scenario.price,
        group_digits(first.trials),
        first.seed
    );
    out!("{}", report_line("report", dir, written.len(), replaced));
    Ok(())
}

/// Writes a balance's report and prints it (table, JSON or nothing).
fn finish_balance(args: &BalanceArgs, run: &crate::tools::balance::BalanceRun, dir: &Path) -> Result<()> {
    let fair = &run.fair;
    let (seed, trials) = (run.seed, run.trials);
    let (replaced, written) = write_and_warn(args, dir, run.warnings(), |d| report::write_balance(d, run))?;
    if args.play.json {
        out!("{}", serde_json::to_string(&run.to_json())?);
    } else if !args.play.quiet {
        let s = &fair.scenario;
        out!("{}", run.title);
        if let (Some(set), Some(first)) = (&run.set, run.matchups.first()) {
            out!(
                "price {:.0} points, priced against {} ({:.0} points) on every line of {set}, both on the same trials",
                s.price,
                run.reference.as_deref().unwrap_or("the reference"),
                first.fair.reference.as_ref().map_or(0.0, |r| r.price)
            );
        } else {
            out!(
                "price {:.0} points: {:.3} {} per trial (+/- {:.3}), efficiency {:.4} per point, {:.2} models or figures per 100 points",
                s.price,
                s.points_destroyed,
                match run.pricing.model {
                    crate::tools::balance::ValueModel::Kills => "enemy points destroyed",
                    crate::tools::balance::ValueModel::Net =>
                        "points of value (enemy points destroyed less its own lost)",
                },
                crate::mesbg::analysis::Z95 * s.points_destroyed_se,
                s.efficiency,
                s.kills_per_100_points
            );
        }
        if let (Some(r), Some(name), None) = (&fair.reference, &run.reference, &run.set) {
            out!("reference {name}: price {:.0}, efficiency {:.4} per point", r.price, r.efficiency);
        }
        for m in &run.matchups {
            if m.fair.fair_price < 0.0 {
                out!(
                    "  against {} (weight {}): no price: it loses more points than it destroys there ({:.2} a trial)",
                    m.reference,
                    m.weight,
                    m.fair.scenario.points_destroyed
                );
            } else {
                out!(
                    "  against {} (weight {}): fair price {:.2} (95% CI {:.2} to {:.2})",
                    m.reference,
                    m.weight,
                    m.fair.fair_price,
                    m.fair.ci95_lo,
                    m.fair.ci95_hi
                );
            }
        }
        for l in &run.left_out {
            match l.counted {
                Some(c) => out!(
                    "  against {} (weight {}): no price of its own; counted in the overall by its worth, {:.2} a trial to \
                     the piece and {:.2} to the reference (see the warning above)",
                    l.line,
                    c.weight,
                    c.piece,
                    c.reference
                ),
                None => out!("  against {}: left out of the overall (see the warning above)", l.line),
            }
        }
        let played = format!("{} trials, seed {seed}", group_digits(trials));
        if fair.fair_price < 0.0 {
            out!(
                "no fair price: under the net value model it loses more points than it destroys ({:.2} points a trial), \
                 so no price makes it pay for itself; {played}",
                fair.scenario.points_destroyed
            );
        } else if let Some(sp) = &run.spread {
            out!(
                "overall fair price {:.2} points: from sampling, 95% CI {:.2} to {:.2} ({played})",
                fair.fair_price,
                sp.sampling_ci95.0,
                sp.sampling_ci95.1
            );
            out!(
                "across matchups: {:.2} against {} to {:.2} against {} (weighted sd {:.2}); both together, {:.2} to {:.2}",
                sp.lowest,
                sp.lowest_against,
                sp.highest,
                sp.highest_against,
                sp.between_sd,
                fair.ci95_lo,
                fair.ci95_hi
            );
        } else {
            out!(
                "fair price {:.2} points (95% CI {:.2} to {:.2}), {played}",
                fair.fair_price,
                fair.ci95_lo,
                fair.ci95_hi
            );
        }
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
        out!("{}", report_line("report", dir, written.len(), replaced));
    }
    Ok(())
}
