//! The reports of the tools: paired comparison, balance and sweep.

use super::*;

/// A paired difference in words: "+7.30 pp +/- 0.80" for chances, "+0.123 +/- 0.004" for
/// counts (the +/- is the 95% half-width).
pub fn difference_words(d: &crate::tools::paired::Difference) -> String {
    let half = (d.ci95_hi - d.ci95_lo) / 2.0;
    if d.metric.flag {
        format!("{:+.2} pp +/- {:.2}", d.diff * 100.0, half * 100.0)
    } else {
        format!("{:+.4} +/- {:.4}", d.diff, half)
    }
}

/// A p-value as a reader expects it.
pub fn p_words(p: f64) -> String {
    if p < 0.001 { "p < 0.001".to_string() } else { format!("p = {p:.3}") }
}

/// The paired comparison report: what changed, each metric's difference with its interval
/// and p-value, the charts, and how to reproduce it.
pub fn paired_markdown(run: &crate::tools::paired::PairedRun, figures: &[Figure], files: &[String]) -> String {
    let rows = &run.rows;
    let mut out = String::new();
    let _ = writeln!(out, "# Paired comparison: {} vs {}\n", run.names[0], run.names[1]);
    let _ = writeln!(
        out,
        "A = `{}`, B = `{}`. Both played the same {} trials (seed {}) on common random numbers: trial t of A and \
         trial t of B roll from the same streams, one per rule phase, so each difference isolates the change. \
         Intervals are 95%, from the per-trial differences; p-values test \"no difference\".\n",
        run.files[0],
        run.files[1],
        group_digits(run.trials),
        run.seed
    );
    let _ = writeln!(out, "## What B changes (B - A: B's gain over A)\n");
    let headline = headline_of(&rows.iter().map(|d| d.metric.clone()).collect::<Vec<_>>());
    // A headline metric A and B scored alike on every trial is said once, after the changes.
    let (alike, changed): (Vec<_>, Vec<_>) = rows
        .iter()
        .filter(|d| headline.iter().any(|m| m.name == d.metric.name))
        .partition(|d| crate::report::tools::played_alike(d));
    for d in changed {
        let _ = writeln!(
            out,
            "- {}: **{}** ({})",
            capitalised(&d.metric.description),
            difference_words(d),
            p_words(d.p_value)
        );
    }
    if !alike.is_empty() {
        let said: Vec<String> = alike.iter().map(|d| d.metric.description.clone()).collect();
        let _ = writeln!(out, "- The same in A and B on every trial: {}.", said.join("; "));
    }
    let _ = writeln!(out);
    table_row(
        &mut out,
        &[
            "metric".into(),
            "A".into(),
            "B".into(),
            "B - A".into(),
            "95% CI".into(),
            "p".into(),
            "se paired / unpaired".into(),
        ],
    );
    table_row(
        &mut out,
        &["---".into(), "---:".into(), "---:".into(), "---:".into(), "---".into(), "---:".into(), "---:".into()],
    );
    for d in rows {
        let fmt = |v: f64| if d.metric.flag { percent(v) } else { format!("{v:.4}") };
        let diff = |v: f64| if d.metric.flag { format!("{:+.2} pp", v * 100.0) } else { format!("{v:+.4}") };
        let ratio = if d.se > 0.0 { format!("{:.2}", d.se / d.se_unpaired.max(1e-300)) } else { "0".to_string() };
        table_row(
            &mut out,
            &[
                format!("`{}`", d.metric.name),
                fmt(d.mean_a),
                fmt(d.mean_b),
                diff(d.diff),
                format!("{} to {}", diff(d.ci95_lo), diff(d.ci95_hi)),
                p_words(d.p_value),
                ratio,
            ],
        );
    }
    let _ = writeln!(
        out,
        "\nThe last column is the paired standard error over the one two independent runs would give: below 1, pairing bought precision.\n"
    );
    for line in not_compared_lines(run) {
        let _ = writeln!(out, "{line}\n");
    }
    let rules = [("A", run.rulesets[0].as_slice()), ("B", run.rulesets[1].as_slice())];
    figures_and_stamp(&mut out, figures, &rules, &run.command, files);
    out
}

/// What a comparison could not pair: a line for the metrics only A reports and one for
/// those only B reports (none when both report the same metrics).
pub fn not_compared_lines(run: &crate::tools::paired::PairedRun) -> Vec<String> {
    let [a, b] = &run.only_in;
    [("A", a), ("B", b)]
        .into_iter()
        .filter(|(_, names)| !names.is_empty())
        .map(|(side, names)| {
            let listed: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            format!("Not compared, reported by {side} only: {}.", listed.join(", "))
        })
        .collect()
}

/// With a Hero riding: the fair price split between the chariot and the Hero, and how.
fn split_paragraph(out: &mut String, run: &crate::tools::balance::BalanceRun) {
    let Some(sp) = &run.split else { return };
    if sp.kind == crate::tools::balance::SplitKind::LastChariot {
        let _ = writeln!(
            out,
            "**One more chariot.** Of the turn's fair price, **{:.1} points** (95% CI {:.1} to {:.1}) is what {} \
             adds as the last chariot of the turn, and **{:.1}** ({:.1} to {:.1}) the others'. The same turn was \
             played without it on the same random streams: it does {:.1}% (se {:.1}%) of the value of the whole \
             turn. A chariot that adds less than its points here is not worth bringing to this fight, whatever it \
             would do alone.\n",
            sp.hero_part.0,
            sp.hero_part.1,
            sp.hero_part.2,
            sp.hero,
            sp.chariot.0,
            sp.chariot.1,
            sp.chariot.2,
            100.0 * sp.chariot_share,
            100.0 * sp.chariot_share_se
        );
        return;
    }
    let _ = writeln!(
        out,
        "**Chariot and Hero apart.** Of the fair price, **{:.1} points** (95% CI {:.1} to {:.1}) is the chariot's \
         and **{:.1}** ({:.1} to {:.1}) is what {} adds by riding it. The same charge was played without him on \
         the same random streams: it does {:.1}% (se {:.1}%) of the value of the charge with him, and that share of \
         the fair price is the chariot's (the upgrade), the rest his. His worth on foot is not part of this: a Hero \
         who fights well without a chariot is worth more than his share here.\n",
        sp.chariot.0,
        sp.chariot.1,
        sp.chariot.2,
        sp.hero_part.0,
        sp.hero_part.1,
        sp.hero_part.2,
        sp.hero,
        100.0 * sp.chariot_share,
        100.0 * sp.chariot_share_se
    );
}

/// The balance report: the scenario's efficiency, the reference's, the fair price with its
/// interval, the cost sweep chart, and how to reproduce it.
pub fn balance_markdown(run: &crate::tools::balance::BalanceRun, figures: &[Figure], files: &[String]) -> String {
    let (title, fair, trials, seed, command) = (&run.title, &run.fair, run.trials, run.seed, &run.command);
    let reference = run.reference.as_deref();
    let mut out = String::new();
    let s = &fair.scenario;
    let _ = writeln!(out, "# What is it worth? {title}\n");
    for w in run.warnings() {
        let _ = writeln!(out, "**Warning:** {w}.\n");
    }
    if let (Some(set), Some(first)) = (&run.set, run.matchups.first()) {
        let _ = writeln!(
            out,
            "At **{:.0} points**, priced against {} (**{:.0} points**) on each line of *{set}*. A trial is worth {}.\n",
            s.price,
            reference.unwrap_or("the reference"),
            first.fair.reference.as_ref().map_or(0.0, |r| r.price),
            match run.pricing.model {
                crate::tools::balance::ValueModel::Kills => {
                    "the enemy points it destroys, each model slain at its own points (`--value kills`)"
                }
                crate::tools::balance::ValueModel::Net => {
                    "the enemy points it destroys, each model at its own points, less its own points lost in \
                     proportion to the Wounds lost (`--value net`)"
                }
            }
        );
    } else {
        balance_opening(&mut out, run);
    }
    if let Some(spread) = &run.spread {
        match &run.set {
            Some(set) => {
                let _ = writeln!(
                    out,
                    "## Against each line\n\nThe priced piece and its reference, {}, each charged every line of the \
                     matchup set *{set}*, placed in front of each, on the same trials: like for like. A line's fair \
                     price is the price at which the piece destroys as much per point as the reference does against \
                     that line.\n",
                    reference.unwrap_or("the reference")
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "## Against each reference\n\nEvery reference charges the same line as the priced piece.\n"
                );
            }
        }
        table_row(
            &mut out,
            &[
                "against".into(),
                "weight".into(),
                "piece per trial".into(),
                "reference per trial".into(),
                "fair price".into(),
                "95% CI (sampling)".into(),
            ],
        );
        table_row(&mut out, &["---".into(), "---:".into(), "---:".into(), "---:".into(), "---:".into(), "---".into()]);
        let total: f64 = run.matchups.iter().map(|m| m.weight).sum::<f64>()
            + run.left_out.iter().filter_map(|l| l.counted.map(|c| c.weight)).sum::<f64>();
        for m in &run.matchups {
            let negative = m.fair.fair_price < 0.0;
            table_row(
                &mut out,
                &[
                    m.reference.clone(),
                    format!("{:.2}", m.weight / total.max(f64::MIN_POSITIVE)),
                    format!("{:.2}", m.fair.scenario.points_destroyed),
                    m.fair.reference.as_ref().map_or_else(String::new, |r| format!("{:.2}", r.points_destroyed)),
                    if negative {
                        "no price: loses more than it destroys".into()
                    } else {
                        format!("{:.1}", m.fair.fair_price)
                    },
                    if negative { String::new() } else { format!("{:.1} to {:.1}", m.fair.ci95_lo, m.fair.ci95_hi) },
                ],
            );
        }
        for l in &run.left_out {
            let row = match l.counted {
                Some(c) => [
                    l.line.clone(),
                    format!("{:.2}", c.weight / total.max(f64::MIN_POSITIVE)),
                    format!("{:.2}", c.piece),
                    format!("{:.2}", c.reference),
                    "none of its own (counted)".into(),
                    String::new(),
                ],
                None => [l.line.clone(), "left out".into(), String::new(), String::new(), "none".into(), String::new()],
            };
            table_row(&mut out, &row);
        }
        for l in &run.left_out {
            let how = if l.counted.is_some() { "No price of its own" } else { "Left out" };
            let _ = writeln!(out, "\n- {how}, against {}: {}.", l.line, l.reason);
        }
        let _ = writeln!(
            out,
            "\n**Overall fair price: {:.1} points**, the field priced as one: the price at which the piece's \
             weighted worth a trial over every counted line matches the reference's weighted worth per point over \
             them (priced the other way round, the same lines give the reciprocal exchange rate). Two intervals \
             say how far to trust it, and they measure different things:\n\n\
             - **Sampling**, 95% CI {:.1} to {:.1}: where the field's price would settle with endless trials against \
             these lines at these weights. More trials narrow it.\n\
             - **Across matchups**, from {:.1} against {} to {:.1} against {} (weighted sd {:.2}): how much the price \
             depends on the opponent. More trials do not narrow it; it is the field's, not the dice's.\n\n\
             Quote {:.0} points for a field met in these proportions, and say that against a single opponent the fair \
             price runs from {:.0} to {:.0}. The interval holding both (1.96 x the root of the sum of their \
             variances) is {:.1} to {:.1}.\n",
            fair.fair_price,
            spread.sampling_ci95.0,
            spread.sampling_ci95.1,
            spread.lowest,
            spread.lowest_against,
            spread.highest,
            spread.highest_against,
            spread.between_sd,
            fair.fair_price,
            spread.lowest,
            spread.highest,
            fair.ci95_lo,
            fair.ci95_hi
        );
        split_paragraph(&mut out, run);
        let _ = writeln!(
            out,
            "{} trials per matchup, seed {seed}; both pieces play each matchup on the same random streams.\n",
            group_digits(trials)
        );
        leaves_out_section(&mut out, run);
        let sets: Vec<(&str, &[RuleOption])> = run.rulesets.iter().map(|(t, r)| (t.as_str(), r.as_slice())).collect();
        figures_and_stamp(&mut out, figures, &sets, command, files);
        return out;
    }
    match (&fair.reference, reference) {
        (Some(r), Some(name)) => {
            let _ = writeln!(
                out,
                "The reference, {name}, costs {:.0} points and destroys {:.2} per trial: **{:.3}** per point.\n",
                r.price, r.points_destroyed, r.efficiency
            );
        }
        _ => {
            let _ =
                writeln!(out, "The target efficiency is **{:.3}** enemy points per point.\n", fair.target_efficiency);
        }
    }
    let _ = writeln!(
        out,
        "**Fair price: {:.1} points** (95% CI {:.1} to {:.1}), the price at which its efficiency equals {}.\n",
        fair.fair_price,
        fair.ci95_lo,
        fair.ci95_hi,
        if fair.reference.is_some() { "the reference's" } else { "the target" }
    );
    split_paragraph(&mut out, run);
    let _ = writeln!(
        out,
        "{} trials, seed {seed}{}. The same seed always gives the same price; another seed gives a price within the \
         interval about 95% of the time.\n",
        group_digits(trials),
        if fair.reference.is_some() {
            "; both scenarios played the same trials on common random numbers, so the interval is that of the ratio of paired means (delta method)"
        } else {
            ""
        }
    );
    leaves_out_section(&mut out, run);
    let sets: Vec<(&str, &[RuleOption])> = run.rulesets.iter().map(|(t, r)| (t.as_str(), r.as_slice())).collect();
    figures_and_stamp(&mut out, figures, &sets, command, files);
    out
}

/// "What this price leaves out": what no price here counts (shooting, later turns, a Hero
/// off the chariot), then each piece's wargear, options and special rules the engine does
/// not play, by piece, so a designer knows what the points pay for beyond the price.
fn leaves_out_section(out: &mut String, run: &crate::tools::balance::BalanceRun) {
    let _ = writeln!(
        out,
        "## What this price leaves out

The price counts what {} in this charge or turn, for every piece alike. It \
         does not count the Shoot phase (a chariot's bow or bolt thrower, the enemy's archers), later turns, how the \
         piece moves, threatens or holds ground, or what a Hero does off the chariot (his Might, Will and Fate spent \
         elsewhere, heroic actions). Points paid for those are not in the fair price.\n",
        match run.pricing.model {
            crate::tools::balance::ValueModel::Kills => "each piece destroys",
            crate::tools::balance::ValueModel::Net => "each piece destroys, less what it loses,",
        }
    );
    if run.leaves_out.is_empty() {
        return;
    }
    let _ = writeln!(out, "Wargear, options and special rules of these pieces the engine does not play:\n");
    let mut pieces: Vec<&str> = Vec::new();
    for (piece, _) in &run.leaves_out {
        if !pieces.contains(&piece.as_str()) {
            pieces.push(piece);
        }
    }
    for piece in pieces {
        let items: Vec<&str> =
            run.leaves_out.iter().filter(|(p, _)| p == piece).map(|(_, what)| what.as_str()).collect();
        let _ = writeln!(out, "- **{piece}**: {}", items.join(", "));
    }
    let _ = writeln!(out);
}

/// What the priced piece does per trial and the value model, for a balance against one
/// line.
fn balance_opening(out: &mut String, run: &crate::tools::balance::BalanceRun) {
    let s = &run.fair.scenario;
    let _ = writeln!(
        *out,
        "At **{:.0} points**, it {} **{:.2}** {} per trial (one charge, turn or rout; 95% CI {:.2} to {:.2}): \
         **{:.3}** points per point spent, or **{:.2}** models or figures destroyed per 100 points.\n",
        s.price,
        if run.pricing.model == crate::tools::balance::ValueModel::Net { "is worth" } else { "destroys" },
        s.points_destroyed,
        if run.pricing.model == crate::tools::balance::ValueModel::Net {
            "points of value (enemy points destroyed less its own points lost)"
        } else {
            "enemy points"
        },
        s.points_destroyed - Z95_TEXT * s.points_destroyed_se,
        s.points_destroyed + Z95_TEXT * s.points_destroyed_se,
        s.efficiency,
        s.kills_per_100_points
    );
    let _ = writeln!(
        *out,
        "Value model **{}** (`--value {}`): a trial is worth {}: {}.\n",
        run.pricing.model.name(),
        run.pricing.model.flag(),
        match run.pricing.model {
            crate::tools::balance::ValueModel::Kills => "the enemy points it destroys (its own losses are not counted)",
            crate::tools::balance::ValueModel::Net => {
                "the enemy points it destroys less its own points lost (a chariot's and its Hero's in proportion to \
                 the Wounds lost, a unit's per figure, and the friends a routing beast tramples)"
            }
        },
        run.pricing.words()
    );
}

/// The 95% normal quantile, for intervals written out in text.
pub(super) const Z95_TEXT: f64 = crate::mesbg::analysis::Z95;

/// The sweep report: what was varied, every point's headline numbers, the charts, and how
/// to reproduce it.
pub fn sweep_markdown(run: &crate::tools::sweep::SweepRun, figures: &[Figure], files: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Sweep: {}\n", run.title);
    let _ = writeln!(
        out,
        "{} points, {} trials each, seed {}. Every point plays the base scenario's random streams (common random \
         numbers), so differences between neighbouring points come from the change, not the dice. Varied:\n",
        run.rows.len(),
        group_digits(run.trials),
        run.seed
    );
    for (path, axis) in run.paths.iter().zip(&run.axes) {
        let _ = writeln!(out, "- `{path}`: {}", axis.join(", "));
    }
    let metrics = headline_of(&run.metrics());
    let _ = writeln!(out, "\n## Every point\n");
    let mut header: Vec<String> = run.paths.iter().map(|p| format!("`{p}`")).collect();
    header.extend(metrics.iter().map(|m| format!("`{}` (95% CI)", m.name)));
    table_row(&mut out, &header);
    table_row(&mut out, &header.iter().map(|_| "---".to_string()).collect::<Vec<_>>());
    for row in &run.rows {
        let mut cells = row.values.clone();
        for m in &metrics {
            let cell = row.summary.iter().find(|s| s.metric.name == m.name).map_or_else(String::new, |s| {
                let (v, lo, hi) = headline_value(s);
                format!("{v} ({lo} to {hi})")
            });
            cells.push(cell);
        }
        table_row(&mut out, &cells);
    }
    let _ = writeln!(out);
    if figures.is_empty() && run.paths.len() > 2 {
        let _ =
            writeln!(out, "(Charts are drawn for sweeps of one or two fields; this one varies {}.)\n", run.paths.len());
    }
    figures_and_stamp(&mut out, figures, &[(run.title.as_str(), run.ruleset.as_slice())], &run.command, files);
    out
}

/// The cost curve's report: what was changed, the fair price at each value with its
/// intervals, the chart, and how to reproduce it.
pub fn balance_curve_markdown(
    curve: &crate::tools::balance::CostCurve,
    figures: &[Figure],
    files: &[String],
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# What is a change worth? {}: `{}`\n", curve.title, curve.field);
    for w in curve.warnings() {
        let _ = writeln!(out, "**Warning:** {w}.\n");
    }
    let Some((_, first)) = curve.points.first() else { return out };
    let against = match (&first.set, &first.reference) {
        (Some(set), Some(r)) => format!("against {r} on every line of *{set}*"),
        (None, Some(r)) => format!("against {r}"),
        _ => format!("for a target efficiency of {:.3} enemy points per point", first.fair.target_efficiency),
    };
    let fixed = if curve.fixed.is_empty() { String::new() } else { format!(" (with {})", curve.fixed.join(", ")) };
    let _ = writeln!(
        out,
        "The piece{fixed} priced {against} at each value of `{}`, every value on the same trials (common random \
         numbers), so the step from one value to the next is what the change is worth, not the luck of the dice. \
         Value model: **{}** (`--value {}`).\n",
        curve.field,
        first.pricing.model.name(),
        first.pricing.model.flag()
    );
    let across = curve.points.iter().all(|(_, r)| r.spread.is_some());
    let mut head = vec![format!("`{}`", curve.field), "fair price".into(), "95% CI (sampling)".into()];
    let mut rule = vec!["---".to_string(), "---:".into(), "---".into()];
    if across {
        head.extend(["lowest to highest against one opponent".into(), "95% with the spread".into()]);
        rule.extend(["---".into(), "---".into()]);
    }
    head.push("per trial".into());
    rule.push("---:".into());
    table_row(&mut out, &head);
    table_row(&mut out, &rule);
    for (value, run) in &curve.points {
        let f = &run.fair;
        let (lo, hi) = crate::report::tools::sampling_interval(run);
        let mut row = vec![value.clone()];
        if f.fair_price < 0.0 {
            row.extend(["no price: loses more than it destroys".into(), String::new()]);
        } else {
            row.extend([format!("{:.1}", f.fair_price), format!("{lo:.1} to {hi:.1}")]);
        }
        if across {
            match &run.spread {
                Some(s) => row.extend([
                    format!("{:.1} ({}) to {:.1} ({})", s.lowest, s.lowest_against, s.highest, s.highest_against),
                    format!("{:.1} to {:.1}", f.ci95_lo, f.ci95_hi),
                ]),
                None => row.extend([String::new(), String::new()]),
            }
        }
        row.push(format!("{:.2}", f.scenario.points_destroyed));
        table_row(&mut out, &row);
    }
    let priced: Vec<&(String, crate::tools::balance::BalanceRun)> =
        curve.points.iter().filter(|(_, r)| r.fair.fair_price >= 0.0).collect();
    if let (Some(lo), Some(hi)) = (
        priced.iter().min_by(|a, b| a.1.fair.fair_price.total_cmp(&b.1.fair.fair_price)),
        priced.iter().max_by(|a, b| a.1.fair.fair_price.total_cmp(&b.1.fair.fair_price)),
    ) {
        let _ = writeln!(
            out,
            "\nThe fair price runs from **{:.1} points** at `{}={}` to **{:.1}** at `{}={}`; the piece pays {:.0} now. \
             \"Per trial\" is what the piece is worth in one charge (or turn, or rout) at that value{}.\n",
            lo.1.fair.fair_price,
            curve.field,
            lo.0,
            hi.1.fair.fair_price,
            curve.field,
            hi.0,
            first.fair.scenario.price,
            if across { ", weighted across the opponents" } else { "" }
        );
    }
    let _ = writeln!(
        out,
        "{} trials per value, seed {}. Each value's own report is what `balance` prints with that one value.\n",
        group_digits(first.trials),
        first.seed
    );
    let sets: Vec<(&str, &[RuleOption])> = first.rulesets.iter().map(|(t, r)| (t.as_str(), r.as_slice())).collect();
    figures_and_stamp(&mut out, figures, &sets, &curve.command, files);
    out
}
