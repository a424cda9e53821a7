//! The BATTLESYSTEM report.md.

use super::*;

pub(super) fn moving_name(record: &BattlesystemRecord) -> &str {
    match record.scenario.action {
        Action::Charge { unit, .. } | Action::Rout { unit, .. } => &record.scenario.units[unit].name,
    }
}

pub(super) fn row(out: &mut String, cells: &[String]) {
    let _ = writeln!(out, "| {} |", cells.join(" | "));
}

pub(super) fn value_text(record: &BattlesystemRecord, s: &MetricSummary<String>) -> (String, String, String) {
    if record.flag(&s.metric) {
        (percent(s.mean), percent(s.ci95_lo), percent(s.ci95_hi))
    } else {
        (super::significant(s.mean), super::significant(s.ci95_lo), super::significant(s.ci95_hi))
    }
}

/// The text of `report.md` for a BATTLESYSTEM run.
pub fn markdown(record: &BattlesystemRecord, figures: &[Figure], files: &[String]) -> String {
    let sc = &record.scenario;
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", sc.title);
    if let Some(q) = &sc.question {
        let _ = writeln!(out, "*{q}*\n");
    }
    let what = match sc.action {
        Action::Charge { unit, target, volleys, gap } => format!(
            "BATTLESYSTEM: the battle platform **{}** charges **{}** ({gap:.1}\" away), {} volley{} on the way in, then \
             one simultaneous melee and {} morale check.",
            sc.units[unit].name,
            sc.units[target].name,
            volleys,
            if volleys == 1 { "" } else { "s" },
            crate::report::document::possessive(&sc.units[target].name),
        ),
        Action::Rout { unit, .. } => format!(
            "BATTLESYSTEM: **{}** rout in a d12 clock direction ({}\" on a {}\" x {}\" board), veering up to {} degrees \
             round units; what they cannot avoid they trample (melee at once, both sides), and a struck unit that \
             does not clear the path makes them roll a new direction (at most {}).",
            sc.units[unit].name,
            sc.rout_distance(unit),
            sc.board[0],
            sc.board[1],
            sc.rules.veer_degrees,
            sc.rules.max_rerolls,
        ),
    };
    let _ = writeln!(out, "{what}\n");
    let _ = writeln!(out, "## Headline\n");
    // The headline metrics this plan reports, in the order every report shows them.
    let headline: Vec<String> =
        crate::report::document::headline_of(&record.metrics.defs).into_iter().map(|d| d.name).collect();
    // What happened first; what never happened in one closing line, not as opening zeros.
    let mut never = Vec::new();
    for name in &headline {
        if let Some(s) = record.summary_of(name) {
            if s.mean <= 0.0 {
                never.push(record.describe(name).to_string());
                continue;
            }
            let (v, lo, hi) = value_text(record, s);
            let d = capitalise(record.describe(name));
            if record.flag(name) {
                let _ = writeln!(out, "- {d} in **{v}** of trials (95% CI {lo} to {hi}).");
            } else {
                // How often, as well as how many: the chance of at least one, when it is not
                // a certainty.
                let rows = record.rows_of(name);
                let none: u64 = rows.iter().filter(|r| r.value == 0).map(|r| r.count).sum();
                let some = record.trials.saturating_sub(none) as f64 / record.trials.max(1) as f64;
                let often =
                    if none > 0 { format!("; at least one in {} of trials", percent(some)) } else { String::new() };
                let _ = writeln!(out, "- {d}: **{v}** per trial on average (95% CI {lo} to {hi}){often}.");
            }
        }
    }
    if !never.is_empty() {
        let _ = writeln!(out, "- Never in these {} trials: {}.", group_digits(record.trials), never.join("; "));
    }
    let _ = writeln!(
        out,
        "\n{} trials, seed {}, scenario hash `{:016x}`. Every number has a 95% interval (Wilson for chances).\n",
        group_digits(record.trials),
        record.seed,
        sc.hash()
    );
    if let Some(p) = &record.precision {
        let _ = writeln!(out, "{}\n", p.sentence());
    }
    match &record.exact {
        Ok(rows) => {
            for a in rows {
                let _ = writeln!(
                    out,
                    "Exact check: `{}` has exact mean {:.4}; the estimate is {:+.2} standard errors from it.\n",
                    a.metric, a.exact, a.z
                );
            }
        }
        Err(reason) => {
            let _ = writeln!(out, "No exact values for this scenario: {reason}.\n");
        }
    }
    crate::report::document::write_figures(&mut out, figures);
    let _ = writeln!(out, "## Units\n");
    row(
        &mut out,
        &[
            "unit".into(),
            "side".into(),
            "figures".into(),
            "AD".into(),
            "AR".into(),
            "Hits".into(),
            "ML".into(),
            "MV".into(),
            "crew per figure".into(),
        ],
    );
    row(
        &mut out,
        &[
            "---".into(),
            "---".into(),
            "---:".into(),
            "---".into(),
            "---:".into(),
            "---:".into(),
            "---:".into(),
            "---:".into(),
            "---".into(),
        ],
    );
    for u in &sc.units {
        let crew: Vec<String> = u
            .crew
            .iter()
            .map(|c| {
                let role = match c.role {
                    Role::Rider => "rider",
                    Role::Fighter => "fighter",
                    Role::Archer => "archer",
                };
                format!("{} x {} ({role}, {})", c.count, c.name, c.ad.name())
            })
            .collect();
        row(
            &mut out,
            &[
                u.name.clone(),
                u.side.name().to_string(),
                u.figures.to_string(),
                u.stats.ad.name().to_string(),
                u.stats.ar.to_string(),
                u.stats.hits.to_string(),
                u.stats.ml.to_string(),
                u.stats.mv.to_string(),
                if crew.is_empty() { "-".to_string() } else { crew.join(", ") },
            ],
        );
    }
    let _ = writeln!(out, "\n## Every metric\n");
    row(&mut out, &["metric".into(), "meaning".into(), "estimate".into(), "95% CI".into(), "exact".into(), "z".into()]);
    row(&mut out, &["---".into(), "---".into(), "---:".into(), "---".into(), "---:".into(), "---:".into()]);
    for s in &record.summary {
        let (mut v, mut lo, mut hi) = value_text(record, s);
        // A categorical metric reads as the share of each named outcome, not a mean code.
        if let Some(i) = record.metrics.index(&s.metric).filter(|&i| !record.metrics.defs[i].labels.is_empty()) {
            let shares: Vec<String> = record
                .rows_of(&s.metric)
                .iter()
                .filter(|r| r.count > 0)
                .map(|r| format!("{} {}", record.metrics.value_label(i, r.value), percent(r.p)))
                .collect();
            (v, lo, hi) = (shares.join(", "), String::new(), String::new());
        }
        let exact = record.exact.as_ref().ok().and_then(|rows| rows.iter().find(|a| a.metric == s.metric));
        let (e, z) =
            exact.map_or(("-".to_string(), "-".to_string()), |a| (format!("{:.4}", a.exact), format!("{:+.2}", a.z)));
        row(
            &mut out,
            &[
                format!("`{}`", s.metric),
                record.describe(&s.metric).to_string(),
                v,
                if lo.is_empty() { "-".to_string() } else { format!("{lo} to {hi}") },
                e,
                z,
            ],
        );
    }
    let _ = writeln!(out, "\n## Distributions\n");
    for def in record.metrics.defs.iter().filter(|d| !d.flag) {
        let rows = record.rows_of(&def.name);
        let index = record.metrics.index(&def.name);
        let label = |v: u32| index.map_or_else(|| v.to_string(), |i| record.metrics.value_label(i, v));
        crate::report::document::distribution_table(
            &mut out,
            &capitalise(record.describe(&def.name)),
            &def.name,
            &rows.iter().collect::<Vec<_>>(),
            &label,
        );
    }
    crate::report::document::ruleset_section(&mut out, &[("", &sc.rules.ruleset())]);
    let _ = writeln!(
        out,
        "\nDefaults are those of the simulator's BATTLESYSTEM reference, not the rulebook's (its tables are not public); \
         a scenario's `[rules]` table overrides them."
    );
    let _ = writeln!(out, "\n## Reproduce\n");
    let _ = writeln!(out, "- charioteer {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(out, "- scenario file `{}`, hash `{:016x}`", record.scenario_file, sc.hash());
    let _ = writeln!(
        out,
        "- seed {}, {} trials, {:.2} s on {} (results do not depend on the thread count)\n",
        record.seed,
        group_digits(record.trials),
        record.elapsed_s,
        crate::report::document::played_on(record.threads)
    );
    let _ = writeln!(out, "```sh\n{}\n```\n", record.command);
    let _ = writeln!(out, "Files: {}", files.iter().map(|f| format!("[{f}]({f})")).collect::<Vec<_>>().join(", "));
    out
}
