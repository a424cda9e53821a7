//! `report.md`: the run written for a reader. Headline numbers in words with their
//! intervals, the charts with captions and alt text, the tables, the ruleset options in
//! force, and how to reproduce the run. Pure text from the run record; nothing here
//! computes statistics.

use crate::mesbg::analysis::{DistributionRow, MetricSummary};
use crate::mesbg::scenario::RuleOption;
use crate::mesbg::tally::Metric;
use crate::report::record::RunRecord;
use std::fmt::Write;

mod tools;
pub use super::words::*;
pub use tools::*;

/// A chart in the report folder (`<stem>.png` and `<stem>.svg`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figure {
    /// File name without extension.
    pub stem: String,
    /// The caption under the chart.
    pub caption: String,
    /// Alternative text: what the chart shows, for readers who cannot see it.
    pub alt: String,
}

impl Figure {
    /// A chart left out (it would show nothing but zeros), with the sentence said instead.
    pub fn left_out(sentence: String) -> Self {
        Self { stem: String::new(), caption: sentence, alt: String::new() }
    }

    /// Whether this is a chart left out.
    pub fn is_left_out(&self) -> bool {
        self.stem.is_empty()
    }
}

/// The value of a summary row as the report prints it (percent for probabilities).
pub fn headline_value<M: crate::engine::MetricKind>(
    s: &crate::engine::statistics::MetricSummary<M>,
) -> (String, String, String) {
    if s.metric.is_flag() {
        (percent(s.mean), percent(s.ci95_lo), percent(s.ci95_hi))
    } else {
        (mean(s.mean), mean(s.ci95_lo), mean(s.ci95_hi))
    }
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// One metric in a sentence, e.g. "The chariot won the fight in 31.42% of charges (95%
/// CI 31.33-31.51%)."
pub fn sentence(s: &MetricSummary) -> String {
    let (value, lo, hi) = headline_value(s);
    if s.metric.is_flag() {
        format!("{} in **{value}** of charges (95% CI {lo} to {hi}).", capitalised(s.metric.describe()))
    } else {
        format!("{}: **{value}** per charge on average (95% CI {lo} to {hi}).", capitalised(s.metric.describe()))
    }
}

/// Each figure as image, numbered caption and SVG link; a chart left out as its sentence.
pub(crate) fn write_figures(out: &mut String, figures: &[Figure]) {
    let mut number = 0;
    for f in figures {
        if f.is_left_out() {
            let _ = writeln!(out, "{}\n", f.caption);
            continue;
        }
        number += 1;
        let _ = writeln!(out, "![{}]({}.png)\n", f.alt, f.stem);
        let _ = writeln!(out, "*Figure {number}. {}* ([SVG]({}.svg))\n", f.caption, f.stem);
    }
}

/// The figures (image, caption, SVG link), then the reproduction stamp and the file list:
/// the closing part every report shares.
fn figures_and_stamp(
    out: &mut String,
    figures: &[Figure],
    rules: &[(&str, &[RuleOption])],
    command: &str,
    files: &[String],
) {
    write_figures(out, figures);
    ruleset_section(out, rules);
    let _ = writeln!(out, "\n## Reproduce\n\n- charioteer {}\n", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(out, "```sh\n{command}\n```\n");
    let _ = writeln!(out, "Files: {}", files.iter().map(|f| format!("[{f}]({f})")).collect::<Vec<_>>().join(", "));
}

fn table_row(out: &mut String, cells: &[String]) {
    let _ = writeln!(out, "| {} |", cells.join(" | "));
}

/// A metric's distribution as a markdown table under its `title` and `name`: each value
/// (named by `label`, e.g. a morale outcome), its share, and the chance of it or more with
/// its Wilson interval. Both rule systems' reports print it.
pub(crate) fn distribution_table<M>(
    out: &mut String,
    title: &str,
    name: &str,
    rows: &[&crate::engine::statistics::DistributionRow<M>],
    label: &dyn Fn(u32) -> String,
) {
    let _ = writeln!(out, "\n**{title}** (`{name}`)\n");
    table_row(out, &["k".into(), "P(= k)".into(), "P(at least k)".into(), "95% CI of P(at least k)".into()]);
    table_row(out, &["---:".into(), "---:".into(), "---:".into(), "---".into()]);
    for r in rows {
        table_row(
            out,
            &[
                label(r.value),
                percent(r.p),
                percent(r.p_at_least),
                format!("{} to {}", percent(r.p_at_least_lo), percent(r.p_at_least_hi)),
            ],
        );
    }
}

/// The text of `report.md` for `record`, showing `figures` and listing `files` (names in
/// the report folder).
pub fn report_markdown(record: &RunRecord, figures: &[Figure], files: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", record.title);
    if let Some(question) = &record.question {
        let _ = writeln!(out, "> {question}\n");
    }
    let _ = writeln!(
        out,
        "{} simulated charges, seed {}; every figure below is an estimate with its 95% confidence interval \
         (Wilson for chances, normal for means).\n",
        group_digits(record.trials),
        record.seed
    );
    if let Some(p) = &record.precision {
        let _ = writeln!(out, "{}\n", p.sentence());
    }
    if !record.warnings.is_empty() {
        let _ = writeln!(out, "**Warnings.** The scenario allows these, but probably does not mean them:\n");
        for w in &record.warnings {
            let _ = writeln!(out, "- {}", w.located(&record.scenario_file));
        }
        let _ = writeln!(out);
    }
    let _ = writeln!(out, "## Headline\n");
    // The metrics that answer the scenario's question first, in its order (those that
    // never happened after the rest, said as "never", not as a zero); then what else happened; what never
    // happened in one closing line, not as opening zeros.
    let find = |metric: &Metric| record.summary.iter().find(|s| s.metric == *metric);
    let (mut answers, never): (Vec<&MetricSummary>, Vec<&MetricSummary>) =
        record.answer.iter().filter_map(find).partition(|s| s.mean > 0.0);
    answers.extend(never);
    for s in &answers {
        let _ = if s.mean > 0.0 {
            writeln!(out, "- {}", sentence(s))
        } else {
            writeln!(out, "- Never in these {} charges: {}.", group_digits(record.trials), s.metric.describe())
        };
    }
    let headline: Vec<&MetricSummary> =
        Metric::headline().iter().filter(|m| !record.answer.contains(m)).filter_map(find).collect();
    for s in headline.iter().filter(|s| s.mean > 0.0) {
        let _ = writeln!(out, "- {}", sentence(s));
    }
    let never: Vec<&str> = headline.iter().filter(|s| s.mean <= 0.0).map(|s| s.metric.describe()).collect();
    if !never.is_empty() {
        let _ = writeln!(out, "- Never in these {} charges: {}.", group_digits(record.trials), never.join("; "));
    }
    let _ = writeln!(out, "\n## The charge\n");
    let pivots: Vec<String> = record.plan.pivots.iter().map(|p| format!("{p:+.0} deg")).collect();
    let _ = writeln!(
        out,
        "The chariot drives {:.1}\" (pivots: {}), with {} in reach in {} contact group{}{}. {}\n",
        record.plan.path_length,
        if pivots.is_empty() { "none".to_string() } else { pivots.join(", ") },
        counted(record.plan.models_on_path as u64, "model"),
        record.plan.contacts.len(),
        if record.plan.contacts.len() == 1 { "" } else { "s" },
        record.plan.obstacle.as_ref().map(|o| format!(", ending at the obstacle \"{o}\"")).unwrap_or_default(),
        if record.plan.breakthrough_possible {
            "Driving its full Move carries it through every formation it touches."
        } else {
            "Even its full Move does not carry it through: no charge can break through."
        }
    );
    if !figures.is_empty() {
        let _ = writeln!(out, "## Charts\n");
        write_figures(&mut out, figures);
    }
    let _ = writeln!(out, "## All metrics\n");
    match &record.exact {
        Ok(_) => {
            let _ = writeln!(
                out,
                "Every metric of this scenario is also computed exactly (`charioteer exact`); `z` is the estimate's \
                 distance from the exact value in standard errors, and |z| above 5 would mean a fault.\n"
            );
        }
        Err(reason) => {
            let _ = writeln!(out, "The exact engine does not cover this scenario ({reason}).\n");
        }
    }
    table_row(
        &mut out,
        &[
            "metric".into(),
            "meaning".into(),
            "mean".into(),
            "95% CI".into(),
            "standard error".into(),
            "exact".into(),
            "z".into(),
        ],
    );
    table_row(
        &mut out,
        &["---".into(), "---".into(), "---:".into(), "---".into(), "---:".into(), "---:".into(), "---:".into()],
    );
    for s in &record.summary {
        let (value, lo, hi) = headline_value(s);
        let se = if s.metric.is_flag() { percent(s.se) } else { format!("{:.4}", s.se) };
        let agreement = record.exact.as_ref().ok().and_then(|rows| rows.iter().find(|a| a.metric == s.metric));
        let (exact, z) = match agreement {
            Some(a) => (
                if s.metric.is_flag() { percent(a.exact) } else { format!("{:.4}", a.exact) },
                if a.z.is_finite() { format!("{:+.2}", a.z) } else { "inf".to_string() },
            ),
            None => ("-".to_string(), "-".to_string()),
        };
        table_row(
            &mut out,
            &[
                format!("`{}`", s.metric.name()),
                s.metric.describe().to_string(),
                value,
                format!("{lo} to {hi}"),
                se,
                exact,
                z,
            ],
        );
    }
    charge_ends_section(&mut out, record);
    let _ = writeln!(out, "\n## Distributions\n");
    for s in record.summary.iter().filter(|s| !s.metric.is_flag()) {
        let rows: Vec<&DistributionRow> = record.distribution.iter().filter(|r| r.metric == s.metric).collect();
        distribution_table(&mut out, &capitalised(s.metric.describe()), s.metric.name(), &rows, &|v| v.to_string());
    }
    if let Some(split) = &record.wound_split {
        let _ = writeln!(out, "\n**Wound split**: chance of each pair of Wounds lost (chariot, Hero)\n");
        table_row(&mut out, &["chariot lost".into(), "Hero lost".into(), "share".into(), "95% CI".into()]);
        table_row(&mut out, &["---:".into(), "---:".into(), "---:".into(), "---".into()]);
        for c in split.iter().filter(|c| c.count > 0) {
            table_row(
                &mut out,
                &[
                    c.chariot_wounds_lost.to_string(),
                    c.hero_wounds_lost.to_string(),
                    percent(c.p),
                    format!("{} to {}", percent(c.p_lo), percent(c.p_hi)),
                ],
            );
        }
    }
    if !record.terrain_readings.is_empty() {
        terrain_section(&mut out, record);
    }
    ruleset_section(&mut out, &[(record.title.as_str(), record.ruleset.as_slice())]);
    let _ = writeln!(out, "\n## Reproduce\n");
    let _ = writeln!(out, "- charioteer {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(out, "- scenario file `{}`, hash `{:016x}`", record.scenario_file, record.scenario_hash);
    let _ = writeln!(out, "- seed {}, {} trials", record.seed, group_digits(record.trials));
    let _ = writeln!(
        out,
        "- played on {} in {:.2} s (results do not depend on the thread count)\n",
        record.played_on(),
        record.elapsed_s
    );
    let _ = writeln!(out, "```sh\n{}\n```\n", record.command);
    let _ = writeln!(out, "Files: {}", files.iter().map(|f| format!("[{f}]({f})")).collect::<Vec<_>>().join(", "));
    out
}

/// "The rules as read": every rule option and policy in force with its default and meaning;
/// with several scenarios, one value column each and the rows where they differ marked.
pub fn ruleset_section(out: &mut String, sets: &[(&str, &[RuleOption])]) {
    let Some((_, first)) = sets.first() else { return };
    let _ = writeln!(out, "\n## The rules as read\n");
    if sets.len() == 1 {
        let _ = writeln!(
            out,
            "Every rule option and policy in force; a value other than the rules reference's default is marked *changed*.\n"
        );
        table_row(out, &["option".into(), "value".into(), "default".into(), "what it means here".into()]);
        table_row(out, &["---".into(), "---".into(), "---".into(), "---".into()]);
        for o in first.iter() {
            let value =
                if o.value == o.default { format!("`{}`", o.value) } else { format!("`{}` (*changed*)", o.value) };
            table_row(out, &[format!("`{}`", o.name), value, format!("`{}`", o.default), o.reads.to_string()]);
        }
        return;
    }
    let _ = writeln!(
        out,
        "Every rule option and policy in force for each scenario; rows where they differ are marked **differs**, \
         and their meanings follow the table.\n"
    );
    let mut names: Vec<&str> = Vec::new();
    for (_, set) in sets {
        for o in set.iter() {
            if !names.contains(&o.name.as_ref()) {
                names.push(&o.name);
            }
        }
    }
    let mut header = vec!["option".to_string()];
    header.extend(sets.iter().map(|(title, _)| title.to_string()));
    header.push("default".into());
    table_row(out, &header);
    table_row(out, &header.iter().map(|_| "---".to_string()).collect::<Vec<_>>());
    let mut differing = Vec::new();
    for name in &names {
        let values: Vec<Option<&RuleOption>> =
            sets.iter().map(|(_, set)| set.iter().find(|o| o.name == *name)).collect();
        let differs = values.windows(2).any(|w| w[0].map(|o| &o.value) != w[1].map(|o| &o.value));
        let mut row = vec![if differs { format!("`{name}` **differs**") } else { format!("`{name}`") }];
        row.extend(values.iter().map(|o| o.map_or_else(|| "(no Hero)".to_string(), |o| format!("`{}`", o.value))));
        row.push(values.iter().flatten().next().map_or_else(String::new, |o| format!("`{}`", o.default)));
        table_row(out, &row);
        if differs {
            differing.push(values);
        }
    }
    let _ = writeln!(out);
    for values in differing {
        for (o, (title, _)) in values.iter().zip(sets) {
            if let Some(o) = o {
                let _ = writeln!(out, "- {title}: `{}` = `{}`: {}", o.name, o.value, o.reads);
            }
        }
    }
}

/// "Difficult terrain, measured both ways": the path and the exact headline values under
/// each `difficult_terrain_measure`.
fn terrain_section(out: &mut String, record: &RunRecord) {
    let _ = writeln!(out, "\n## Difficult terrain, measured both ways\n");
    let _ = writeln!(
        out,
        "The rules halve a chariot's Move \"whilst within\" difficult terrain and test it when it \"spends any of its \
         Chariot Charge\" there; whether that means any part of its base or its centre is not settled \
         (`[rules] difficult_terrain_measure`). The charge under each reading (exact values where the exact engine \
         covers the scenario):\n"
    );
    let names: Vec<String> = record.terrain_readings.first().map_or_else(Vec::new, |r| {
        r.exact
            .iter()
            .map(|(m, _)| Metric::from_name(m).map_or_else(|| m.clone(), |m| m.describe().to_string()))
            .collect()
    });
    let mut header =
        vec!["measure".to_string(), "enters at".into(), "drives".into(), "Move spent".into(), "models in reach".into()];
    header.extend(names.iter().cloned());
    table_row(out, &header);
    table_row(
        out,
        &header.iter().enumerate().map(|(i, _)| if i == 0 { "---".into() } else { "---:".into() }).collect::<Vec<_>>(),
    );
    for r in &record.terrain_readings {
        let mut row = vec![
            format!("`{}`{}", r.measure, if r.in_force { " (this run)" } else { "" }),
            r.entered_at.map_or_else(|| "never".to_string(), |d| format!("{d:.2}\"")),
            format!("{:.2}\"", r.path_length),
            format!("{:.2}\"", r.move_spent),
            r.models_on_path.to_string(),
        ];
        for (m, v) in &r.exact {
            let flag = Metric::from_name(m).is_some_and(|m| m.is_flag());
            row.push(if flag { percent(*v) } else { format!("{v:.4}") });
        }
        table_row(out, &row);
    }
}

/// The side-by-side comparison report of several runs (of either system).
pub fn comparison_markdown(runs: &[crate::report::ComparedRun], figures: &[Figure], files: &[String]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Comparison of {} scenarios\n", runs.len());
    for (i, r) in runs.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}. **{}** (`{}`, {} trials, seed {})",
            i + 1,
            r.title,
            r.scenario_file,
            group_digits(r.trials),
            r.seed
        );
    }
    let _ = writeln!(
        out,
        "\nEach scenario ran on its own random streams: differences smaller than the intervals may be chance.\n"
    );
    let shared = crate::report::shared_headline(runs);
    if shared.is_empty() {
        let _ = writeln!(out, "The scenarios share no headline metric (they may be of different rule systems).\n");
    }
    for metric in shared {
        let _ = writeln!(out, "## {}\n", capitalised(&metric.description));
        table_row(&mut out, &["scenario".into(), "mean".into(), "95% CI".into()]);
        table_row(&mut out, &["---".into(), "---:".into(), "---".into()]);
        for r in runs {
            if let Some(s) = r.summary.iter().find(|s| s.metric.name == metric.name) {
                let (value, lo, hi) = headline_value(s);
                table_row(&mut out, &[r.title.clone(), value, format!("{lo} to {hi}")]);
            }
        }
        if let Some((i, f)) = figures.iter().enumerate().find(|(_, f)| f.stem == format!("comparison-{}", metric.name))
        {
            let _ = writeln!(out, "\n![{}]({}.png)\n", f.alt, f.stem);
            let _ = writeln!(out, "*Figure {}. {}* ([SVG]({}.svg))", i + 1, f.caption, f.stem);
        } else {
            let _ = writeln!(out, "\n0 in every scenario, so there is no chart.");
        }
        let _ = writeln!(out);
    }
    let sets: Vec<(&str, &[RuleOption])> = runs.iter().map(|r| (r.title.as_str(), r.ruleset.as_slice())).collect();
    ruleset_section(&mut out, &sets);
    let _ = writeln!(out, "\n## Reproduce\n\n```sh");
    for r in runs {
        let _ = writeln!(out, "{}", r.command);
    }
    let _ = writeln!(out, "```\n");
    let _ = writeln!(out, "Files: {}", files.iter().map(|f| format!("[{f}]({f})")).collect::<Vec<_>>().join(", "));
    out
}

/// How the charges ended (four classes that split every trial) and the rates among the
/// charges that ended in a fight, each with its denominator.
fn charge_ends_section(out: &mut String, record: &RunRecord) {
    let _ = writeln!(out, "\n## How the charges ended\n");
    let _ = writeln!(out, "Every charge ends in exactly one of these ways; the shares add up to 100%.\n");
    table_row(out, &["the charge".into(), "share of charges".into(), "95% CI".into(), "exact".into()]);
    table_row(out, &["---".into(), "---:".into(), "---".into(), "---:".into()]);
    for e in &record.charge_ends {
        table_row(
            out,
            &[
                capitalised(e.words),
                percent(e.p),
                format!("{} to {}", percent(e.ci95_lo), percent(e.ci95_hi)),
                e.exact.map_or_else(|| "-".to_string(), percent),
            ],
        );
    }
    // One table per denominator, each saying how many charges it counts.
    for (given, rates) in crate::mesbg::analysis::by_denominator(&record.conditional) {
        let among = match given {
            "fight_fought" => "that ended in a fight",
            "first_group_broken" => "that slew every model of the first contact group and drove on",
            other => other,
        };
        let trials = rates[0].trials;
        if trials == 0 {
            let _ = writeln!(out, "\nNo charge {among} (`{given}`), so there is no rate among them.");
            continue;
        }
        let _ = writeln!(
            out,
            "\nAmong the {} charges ({}) {among} (`{given}`):\n",
            group_digits(trials),
            percent(trials as f64 / record.trials.max(1) as f64)
        );
        table_row(out, &["metric".into(), "value".into(), "95% CI".into(), "exact".into(), "meaning".into()]);
        table_row(out, &["---".into(), "---:".into(), "---".into(), "---:".into(), "---".into()]);
        for c in rates {
            let fmt = |v: f64| if c.flag { percent(v) } else { format!("{v:.4}") };
            table_row(
                out,
                &[
                    format!("`{}`", c.name),
                    fmt(c.mean),
                    format!("{} to {}", fmt(c.ci95_lo), fmt(c.ci95_hi)),
                    c.exact.map_or_else(|| "-".to_string(), fmt),
                    c.description.clone(),
                ],
            );
        }
    }
}

/// The headline metrics among `metrics`, in headline order.
pub fn shared_headline(metrics: &[Metric]) -> Vec<Metric> {
    Metric::headline().into_iter().filter(|m| metrics.contains(m)).collect()
}

/// Headline metrics of a BATTLESYSTEM plan, charge and rout, in headline order.
pub const BATTLESYSTEM_HEADLINE: [&str; 12] = [
    "target_routed",
    "target_fell_back",
    "target_held",
    "target_figures_lost",
    "platform_figures_lost",
    "crew_lost",
    // A rout: what it did to each side first (its question), then what became of the beasts.
    "friendly_figures_lost",
    "enemy_figures_lost",
    "units_contacted",
    "beasts_figures_lost",
    "left_board",
    "stopped",
];

/// The headline metrics among `metrics` (of either rule system), in headline order: the
/// ones a tool that cannot show every metric (a sweep's table and charts) shows.
pub fn headline_of(metrics: &[crate::engine::MetricDef]) -> Vec<crate::engine::MetricDef> {
    Metric::headline()
        .iter()
        .map(|m| m.name())
        .chain(BATTLESYSTEM_HEADLINE)
        .filter_map(|name| metrics.iter().find(|m| m.name == name).cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_names_read_as_english() {
        assert_eq!(counted(1, "thread"), "1 thread");
        assert_eq!(counted(2, "thread"), "2 threads");
        assert_eq!(counted(1200, "model"), "1,200 models");
        assert_eq!(played_on(0), "merged shards");
        assert_eq!(played_on(1), "1 thread");
        assert_eq!(possessive("Knights"), "Knights'");
        assert_eq!(possessive("the Captain"), "the Captain's");
    }

    #[test]
    fn percentages_keep_rare_intervals_visible() {
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(0.3142), "31.42%");
        assert_eq!(percent(0.00905), "0.91%");
        assert_eq!(percent(0.0000038), "0.00038%");
        assert_eq!(percent(1.0), "100.00%");
        assert_eq!(group_digits(1_000_000), "1,000,000");
        assert_eq!(group_digits(999), "999");
    }
}
