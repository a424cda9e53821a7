//! The report of a BATTLESYSTEM run: the same folder shape, JSON shape and statistics as a
//! MESBG run (summary and distribution frames, run.json, report.md, charts as PNG and
//! SVG), plus what a rout adds: the board map of where the beasts went, the d12 rose, and
//! each unit's chance of being trampled.

use crate::battlesystem::exact;

use crate::battlesystem::resolve::BattlesystemPlan;
use crate::battlesystem::scenario::{Action, BattlesystemScenario, Role};
use crate::battlesystem::tally::BattlesystemTally;
use crate::engine::statistics::{self as analysis, DistributionRow, MetricSummary, Z95};
use crate::report::charts as chart;
use crate::report::document::{Figure, group_digits, percent};
use crate::report::{
    BATTLESYSTEM_RUN_SCHEMA, Contents, FrameFormat, ReportError, ReportFile, capitalise, push_chart,
    push_csv_and_parquet, write_with_markdown,
};
use polars::prelude::*;
use serde_json::{Map, Value, json};
use std::fmt::Write;
use std::path::{Path, PathBuf};

mod markdown;
pub use markdown::*;

/// An exact value beside its estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct ExactValue {
    /// The metric.
    pub metric: String,
    /// Its exact mean.
    pub exact: f64,
    /// (estimate - exact) / se.
    pub z: f64,
    /// Whether enough trials were played to read z ([`crate::mesbg::exact::z_readable`]).
    pub readable: bool,
}

/// Everything known about a finished BATTLESYSTEM run.
#[derive(Clone, Debug)]
pub struct BattlesystemRecord {
    /// The scenario.
    pub scenario: BattlesystemScenario,
    /// The file as given.
    pub scenario_file: String,
    /// Seed.
    pub seed: u64,
    /// Trials played.
    pub trials: u64,
    /// Worker threads.
    pub threads: usize,
    /// Wall-clock seconds of the trials.
    pub elapsed_s: f64,
    /// The command that reproduces the run.
    pub command: String,
    /// Metric descriptions and flags, in report order.
    pub metrics: crate::engine::MetricSet,
    /// Every metric's statistics.
    pub summary: Vec<MetricSummary<String>>,
    /// Every metric's distribution.
    pub distribution: Vec<DistributionRow<String>>,
    /// The tally (its path map is drawn and exported).
    pub tally: BattlesystemTally,
    /// Exact values where the rules give them, or why not.
    pub exact: Result<Vec<ExactValue>, String>,
    /// How `--target-ci` chose the trial count, when it was given.
    pub precision: Option<crate::report::record::Precision>,
}

impl BattlesystemRecord {
    /// Summarises a tally of `plan`.
    pub fn new(
        plan: &BattlesystemPlan,
        tally: BattlesystemTally,
        seed: u64,
        threads: usize,
        elapsed_s: f64,
        command: String,
    ) -> Self {
        Self::with_exact(plan, tally, (seed, threads, elapsed_s), command, true)
    }

    /// Summarises a tally of `plan`, checked against exact values only when `exact` (`run
    /// --no-exact` skips them).
    pub fn with_exact(
        plan: &BattlesystemPlan,
        tally: BattlesystemTally,
        (seed, threads, elapsed_s): (u64, usize, f64),
        command: String,
        exact: bool,
    ) -> Self {
        let defs = &plan.metrics.defs;
        let summary: Vec<MetricSummary<String>> = defs
            .iter()
            .enumerate()
            .map(|(m, d)| analysis::summarize_histogram(tally.histogram(m), tally.trials, d.flag, d.name.clone()))
            .collect();
        let distribution = defs
            .iter()
            .enumerate()
            .flat_map(|(m, d)| analysis::histogram_distribution(tally.histogram(m), tally.trials, &d.name))
            .collect();
        let joint = if exact { exact::charge_joint(plan) } else { Err(exact::SKIPPED.to_string()) };
        let exact = joint.map(|joint| {
            summary
                .iter()
                .enumerate()
                .filter(|(m, _)| defs[*m].labels.is_empty())
                .map(|(m, s)| {
                    // The standard error from the exact sd, not the sample's: a rare outcome
                    // not yet seen has a sample se of 0, and would read as infinitely far off.
                    let (value, sd) = joint.mean_sd(m);
                    ExactValue {
                        metric: s.metric.clone(),
                        exact: value,
                        z: crate::mesbg::exact::z_score(s.mean, value, sd, tally.trials),
                        readable: crate::mesbg::exact::z_readable(sd, tally.trials),
                    }
                })
                .collect()
        });
        Self {
            scenario_file: plan.scenario.file.clone(),
            scenario: plan.scenario.clone(),
            seed,
            trials: tally.trials,
            threads,
            elapsed_s,
            command,
            metrics: plan.metrics.clone(),
            summary,
            distribution,
            tally,
            exact,
            precision: None,
        }
    }

    /// Trials per second of wall-clock time.
    pub fn trials_per_second(&self) -> f64 {
        crate::report::stamp::trials_per_second(self.trials, self.elapsed_s)
    }

    fn flag(&self, metric: &str) -> bool {
        self.metrics.defs.iter().any(|d| d.name == metric && d.flag)
    }

    fn describe(&self, metric: &str) -> &str {
        self.metrics.defs.iter().find(|d| d.name == metric).map_or("", |d| d.description.as_str())
    }

    /// Exact values that disagree with their estimate by more than 5 standard errors.
    pub fn disagreements(&self) -> Vec<&ExactValue> {
        self.exact
            .as_ref()
            .map(|v| v.iter().filter(|a| a.readable && a.z.abs() > crate::mesbg::exact::DISAGREEMENT_Z).collect())
            .unwrap_or_default()
    }

    /// The run as one JSON object (`run.json` and `--json`), in the shape of MESBG runs.
    pub fn to_json(&self) -> Value {
        let mut metrics = Map::new();
        let mut distributions = Map::new();
        for s in &self.summary {
            metrics.insert(s.metric.clone(), serde_json::to_value(s).unwrap_or(Value::Null));
            let index = self.metrics.index(&s.metric);
            let rows: Vec<Value> = self
                .distribution
                .iter()
                .filter(|r| r.metric == s.metric)
                .map(|r| {
                    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
                    if let (Some(i), Value::Object(o)) = (index, &mut v) {
                        o.insert("label".into(), Value::String(self.metrics.value_label(i, r.value)));
                    }
                    v
                })
                .collect();
            distributions.insert(s.metric.clone(), Value::Array(rows));
        }
        let ruleset = crate::report::ruleset_json(&self.scenario.rules.ruleset());
        let stamp = crate::report::stamp::RunStamp {
            schema: BATTLESYSTEM_RUN_SCHEMA,
            system: Some("battlesystem"),
            version: env!("CARGO_PKG_VERSION"),
            title: &self.scenario.title,
            question: &self.scenario.question,
            answer: None,
            scenario_file: &self.scenario_file,
            scenario_hash: format!("{:016x}", self.scenario.hash()),
            seed: self.seed,
            trials: self.trials,
            threads: self.threads,
            elapsed_s: self.elapsed_s,
            trials_per_second: self.trials_per_second(),
            ruleset,
        };
        stamp.with(json!({
            "plan": {
                "board": self.scenario.board,
                "units": self.scenario.units,
                "action": self.scenario.action,
                "metrics": self.metrics.defs,
            },
            "command": self.command,
            "metrics": metrics,
            "distributions": distributions,
            "wound_split": Value::Null,
            "impact_chain": [],
            "path_map": if self.is_rout() {
                json!({ "file": "path_map.csv", "cols": self.tally.cols, "rows": self.tally.rows })
            } else {
                Value::Null
            },
            "precision": self.precision,
            "exact": match &self.exact {
                Ok(rows) => Value::Object(
                    rows.iter()
                        .map(|a| {
                            let z = if a.z.is_finite() { json!(a.z) } else { Value::Null };
                            (a.metric.clone(), json!({ "exact": a.exact, "z": z }))
                        })
                        .collect(),
                ),
                Err(reason) => json!({ "unavailable": reason }),
            },
        }))
    }

    /// Whether the run is of a routing unit (its trials are routs, not charges).
    pub fn is_rout(&self) -> bool {
        matches!(self.scenario.action, Action::Rout { .. })
    }

    fn summary_of(&self, metric: &str) -> Option<&MetricSummary<String>> {
        self.summary.iter().find(|s| s.metric == metric)
    }

    fn rows_of(&self, metric: &str) -> Vec<DistributionRow<String>> {
        self.distribution.iter().filter(|r| r.metric == metric).cloned().collect()
    }
}

/// What happened to the routing beasts: how each rout ended for them (left the board,
/// stopped in contact out of re-rolls, destroyed trampling, or ran their whole rout move),
/// every trial in one bar, and what the trampling cost them, in the caption. Two ways of
/// ending or fewer are a sentence, not a chart (no rendering). None for a charge.
type BeastsFigure = Option<(Option<chart::Rendered>, String, String)>;
fn beasts_figure(record: &BattlesystemRecord) -> Result<BeastsFigure, ReportError> {
    let Action::Rout { unit, .. } = record.scenario.action else { return Ok(None) };
    let beasts = &record.scenario.units[unit];
    let n = record.trials;
    let count_of = |metric: &str, value: Option<u32>| -> u64 {
        record.rows_of(metric).iter().filter(|r| value.is_none_or(|v| r.value == v)).map(|r| r.count).sum()
    };
    let left = count_of("left_board", Some(1));
    let stopped = count_of("stopped", Some(1));
    let destroyed = count_of("beasts_figures_lost", Some(beasts.figures));
    if n == 0 || left + stopped + destroyed > n {
        return Ok(None);
    }
    let ran = n - left - stopped - destroyed;
    let classes = [
        ("ran their whole rout move", ran),
        ("stopped in contact, out of re-rolls", stopped),
        ("left the board (lost)", left),
        ("were destroyed trampling", destroyed),
    ];
    let (shown, never): (Vec<_>, Vec<_>) = classes.iter().partition(|(_, c)| *c > 0);
    let endings: Vec<chart::endings::Ending> = shown
        .iter()
        .map(|(words, c)| {
            let (lo, hi) = analysis::wilson(*c, n, analysis::Z95);
            chart::endings::Ending { words: words.to_string(), p: *c as f64 / n as f64, lo, hi, exact: None }
        })
        .collect();
    let chart = chart::endings::EndingsChart {
        title: format!("What happened to the {}", beasts.name),
        axis: chart::endings::axis_words("routs", false),
        endings,
    };
    let lost = record.summary_of("beasts_figures_lost");
    let hurt = n - count_of("beasts_figures_lost", Some(0));
    let cost = match lost {
        Some(s) if hurt > 0 => format!(
            " Trampling cost them {} figures a rout on average (95% CI {} to {}); they lost at least one in {} of routs.",
            significant(s.mean),
            significant(s.ci95_lo),
            significant(s.ci95_hi),
            percent(hurt as f64 / n as f64)
        ),
        Some(_) => format!(" They lost no figure trampling in these {} routs.", group_digits(n)),
        None => String::new(),
    };
    let never: Vec<&str> = never.iter().map(|(w, _)| *w).collect();
    if shown.len() <= 2 {
        // Two bars (or one) say no more than a sentence does.
        let said: Vec<String> =
            shown.iter().map(|(w, c)| format!("{w} in {}", percent(*c as f64 / n as f64))).collect();
        let sentence = format!(
            "What happened to the {}: they {} of routs{}.{cost}",
            beasts.name,
            said.join(" and "),
            if never.is_empty() { String::new() } else { format!("; they never {}", never.join(" or ")) },
        );
        return Ok(Some((None, sentence, String::new())));
    }
    let rendered = chart::render(&chart, &record.scenario.title)?;
    let caption = format!(
        "What happened to the {}: every rout in exactly one bar, with its 95% interval.{}{}",
        beasts.name,
        if never.is_empty() { String::new() } else { format!(" Never: {}.", never.join("; ")) },
        cost
    );
    let listed: Vec<String> = classes.iter().map(|(w, c)| format!("{w} {}", percent(*c as f64 / n as f64))).collect();
    let alt = format!("Bar chart of what happened to the {}: {}.", beasts.name, listed.join("; "));
    Ok(Some((Some(rendered), caption, alt)))
}

/// A mean with at least two significant digits (0.0021, not 0.000), three decimals from 0.01.
pub(crate) fn significant(v: f64) -> String {
    if v == 0.0 || v.abs() >= 0.01 {
        return format!("{v:.3}");
    }
    let decimals = (1 - v.abs().log10().floor() as i32).clamp(3, 8) as usize;
    format!("{v:.decimals$}")
}

/// The summary frame with the exact mean and z of each metric (null where none).
pub fn summary_frame(record: &BattlesystemRecord) -> PolarsResult<DataFrame> {
    let mut frame = analysis::summary_frame(&record.summary)?;
    let found = |s: &MetricSummary<String>| {
        record.exact.as_ref().ok().and_then(|rows| rows.iter().find(|a| a.metric == s.metric))
    };
    let exact: Vec<Option<f64>> = record.summary.iter().map(|s| found(s).map(|a| a.exact)).collect();
    let z: Vec<Option<f64>> = record.summary.iter().map(|s| found(s).map(|a| a.z).filter(|z| z.is_finite())).collect();
    frame.with_column(Column::new("exact_mean".into(), exact))?;
    frame.with_column(Column::new("z".into(), z))?;
    Ok(frame)
}

/// The path map: one row per 1" cell the routing unit's centre ever crossed (`x`, `y` of
/// the cell's south-west corner, trials, and their share with its Wilson interval).
pub fn path_frame(tally: &BattlesystemTally) -> PolarsResult<DataFrame> {
    let cells: Vec<(usize, u64)> = tally.path.iter().copied().enumerate().filter(|(_, c)| *c > 0).collect();
    let n = tally.trials;
    let share = |c: u64| if n > 0 { c as f64 / n as f64 } else { 0.0 };
    let bounds: Vec<(f64, f64)> = cells.iter().map(|(_, c)| analysis::wilson(*c, n, Z95)).collect();
    df!(
        "x" => cells.iter().map(|(i, _)| (i % tally.cols.max(1)) as u32).collect::<Vec<_>>(),
        "y" => cells.iter().map(|(i, _)| (i / tally.cols.max(1)) as u32).collect::<Vec<_>>(),
        "trials" => cells.iter().map(|(_, c)| *c).collect::<Vec<_>>(),
        "p" => cells.iter().map(|(_, c)| share(*c)).collect::<Vec<_>>(),
        "p_lo" => bounds.iter().map(|b| b.0).collect::<Vec<_>>(),
        "p_hi" => bounds.iter().map(|b| b.1).collect::<Vec<_>>(),
    )
}

/// One row per unit: where it stood (corners as "x y;..."), whether it is the one that
/// moves, and for a rout its chance of being contacted and displaced and its mean losses.
pub fn units_frame(record: &BattlesystemRecord) -> PolarsResult<DataFrame> {
    let sc = &record.scenario;
    let moving = match sc.action {
        Action::Charge { unit, .. } | Action::Rout { unit, .. } => unit,
    };
    let stat = |prefix: &str, key: &str, pick: fn(&MetricSummary<String>) -> f64| {
        record.summary_of(&format!("{prefix}.{key}")).map(pick)
    };
    let units = &sc.units;
    df!(
        "name" => units.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(),
        "side" => units.iter().map(|u| u.side.name()).collect::<Vec<_>>(),
        "figures" => units.iter().map(|u| u.figures).collect::<Vec<_>>(),
        "moving" => units.iter().enumerate().map(|(i, _)| u32::from(i == moving)).collect::<Vec<_>>(),
        "corners" => units
            .iter()
            .map(|u| u.block.corners().iter().map(|c| format!("{:.3} {:.3}", c.x, c.y)).collect::<Vec<_>>().join(";"))
            .collect::<Vec<_>>(),
        "p_contacted" => units.iter().map(|u| stat("contacted", &u.key, |s| s.mean)).collect::<Vec<_>>(),
        "p_contacted_lo" => units.iter().map(|u| stat("contacted", &u.key, |s| s.ci95_lo)).collect::<Vec<_>>(),
        "p_contacted_hi" => units.iter().map(|u| stat("contacted", &u.key, |s| s.ci95_hi)).collect::<Vec<_>>(),
        "mean_figures_lost" => units.iter().map(|u| stat("figures_lost", &u.key, |s| s.mean)).collect::<Vec<_>>(),
        "p_displaced" => units.iter().map(|u| stat("displaced", &u.key, |s| s.mean)).collect::<Vec<_>>(),
    )
}

/// The board from above (`validate --map`): every unit where it stood and, for a rout,
/// where the routing unit went in the record's trials.
pub fn board_map(record: &BattlesystemRecord) -> Result<chart::Rendered, ReportError> {
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let units = units_frame(record).map_err(frame_error("units"))?;
    let path = path_frame(&record.tally).map_err(frame_error("path map"))?;
    let title = if record.is_rout() {
        format!("Where {} went", moving_name(record))
    } else {
        format!("The board: {} charges", moving_name(record))
    };
    let mut map = chart::board_map::BoardMapChart::from_frames(&path, &units, &title, record.scenario.board)?;
    if let Action::Charge { unit, target, gap, .. } = record.scenario.action {
        let (from, to) = charge_line(&record.scenario.units[unit].block, &record.scenario.units[target].block);
        map = map.with_charge(from, to, format!("charges {gap:.1}\" to contact"));
    }
    Ok(chart::render(&map, &record.scenario.title)?)
}

/// The line a charge is drawn along: from the middle of the charger's front edge towards
/// the target's centre, ending where it meets the target's block.
fn charge_line(
    charger: &crate::battlesystem::board::Block,
    target: &crate::battlesystem::board::Block,
) -> ((f64, f64), (f64, f64)) {
    let from = charger.centre + crate::geometry::Vec2::heading(charger.facing).scale(charger.depth / 2.0);
    let aim = target.centre;
    let corners = target.corners();
    // The first crossing of the segment from -> aim with an edge of the target's block.
    let d = aim - from;
    let cross = |a: crate::geometry::Vec2, b: crate::geometry::Vec2| a.x * b.y - a.y * b.x;
    let first = (0..4)
        .filter_map(|i| {
            let (p, q) = (corners[i], corners[(i + 1) % 4]);
            let e = q - p;
            let denom = cross(d, e);
            if denom.abs() < 1e-12 {
                return None;
            }
            let t = cross(p - from, e) / denom;
            let u = cross(p - from, d) / denom;
            ((0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u)).then_some(t)
        })
        .fold(1.0f64, f64::min);
    let to = from + d.scale(first);
    ((from.x, from.y), (to.x, to.y))
}

/// Writes the report folder of a BATTLESYSTEM run: report.md, charts (PNG and SVG),
/// summary and distribution (CSV and Parquet), units.csv, path_map.csv for a rout, and
/// run.json. Returns the files written.
pub fn write_report(dir: &Path, record: &BattlesystemRecord) -> Result<Vec<PathBuf>, ReportError> {
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let summary = summary_frame(record).map_err(frame_error("summary"))?;
    let mut distribution = analysis::distribution_frame(&record.distribution).map_err(frame_error("distribution"))?;
    // Each value by name: a morale outcome's word, a count's number.
    let labels: Vec<String> = record
        .distribution
        .iter()
        .map(|r| {
            record
                .metrics
                .index(&r.metric)
                .map_or_else(|| r.value.to_string(), |i| record.metrics.value_label(i, r.value))
        })
        .collect();
    distribution
        .with_column(polars::prelude::Column::new("label".into(), labels))
        .map_err(frame_error("distribution"))?;
    let units = units_frame(record).map_err(frame_error("units"))?;
    let mut files = Vec::new();
    let mut figures = Vec::new();
    let mut add = |files: &mut Vec<ReportFile>, stem: &str, rendered: chart::Rendered, caption: String, alt: String| {
        push_chart(files, stem, rendered);
        figures.push(Figure { stem: stem.to_string(), caption, alt });
    };
    let frame = |name: &str, frame: &DataFrame, what, format| ReportFile {
        name: name.to_string(),
        contents: Contents::Frame(frame.clone(), what, format),
    };
    let mut rules = crate::report::ChartRules::default();
    let mut beasts_sentence = None;
    if record.is_rout() {
        let path = path_frame(&record.tally).map_err(frame_error("path map"))?;
        let title = format!("Where {} went", moving_name(record));
        let map = chart::board_map::BoardMapChart::from_frames(&path, &units, &title, record.scenario.board)?;
        let busiest: Vec<String> = {
            let mut cells: Vec<(usize, u64)> = record.tally.path.iter().copied().enumerate().collect();
            cells.sort_by_key(|c| std::cmp::Reverse(c.1));
            cells
                .iter()
                .take(5)
                .filter(|c| c.1 > 0)
                .map(|(i, c)| {
                    let cols = record.tally.cols.max(1);
                    format!("cell ({}, {}) in {}", i % cols, i / cols, percent(*c as f64 / record.trials.max(1) as f64))
                })
                .collect()
        };
        add(
            &mut files,
            "board-map",
            chart::render(&map, &record.scenario.title)?,
            "The board from above: each unit where it stood, and the share of trials in which the routing \
             unit's centre crossed each 1-inch cell (darker: more often)."
                .to_string(),
            format!("Map of the board. The most crossed cells: {}.", busiest.join("; ")),
        );
        // The first d12 is fair by construction (or fixed by `first_hour`): a rose of it shows
        // nothing a sentence does not, so the sentence is what report.md gets.
        let heading = record.rows_of("heading");
        let shares: Vec<f64> = heading.iter().filter(|r| r.value >= 1).map(|r| r.p).collect();
        let (lo, hi) = shares.iter().fold((1.0f64, 0.0f64), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        rules.left_out.push(match record.scenario.action {
            Action::Rout { first_hour: Some(hour), .. } => {
                format!("`heading` (the first d12 is fixed at {hour} o'clock by `first_hour`)")
            }
            _ => format!(
                "`heading` (the first d12 is fair by construction, 1/12 = 8.3% each hour; here from {} to {})",
                percent(lo),
                percent(hi)
            ),
        });
        match beasts_figure(record)? {
            Some((Some(rendered), caption, alt)) => {
                add(&mut files, "what-happened-to-the-beasts", rendered, caption, alt)
            }
            Some((None, sentence, _)) => beasts_sentence = Some(sentence),
            None => {}
        }
        let contacted: Vec<(String, f64, f64, f64)> = record
            .scenario
            .units
            .iter()
            .filter_map(|u| {
                record
                    .summary_of(&format!("contacted.{}", u.key))
                    .map(|s| (u.name.clone(), s.mean, s.ci95_lo, s.ci95_hi))
            })
            .collect();
        if !contacted.is_empty() {
            let frame = df!(
                "scenario" => contacted.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(),
                "mean" => contacted.iter().map(|c| c.1).collect::<Vec<_>>(),
                "ci95_lo" => contacted.iter().map(|c| c.2).collect::<Vec<_>>(),
                "ci95_hi" => contacted.iter().map(|c| c.3).collect::<Vec<_>>(),
            )
            .map_err(frame_error("contacted"))?;
            let mut chart =
                chart::comparison::ComparisonChart::from_frame(&frame, "Chance each unit is contacted", true)?;
            chart.trial_word = if record.is_rout() { "rout" } else { "charge" }.to_string();
            let listed: Vec<String> = contacted.iter().map(|c| format!("{} {}", c.0, percent(c.1))).collect();
            add(
                &mut files,
                "units-contacted",
                chart::render(&chart, &record.scenario.title)?,
                "The chance that the routing unit contacts each unit, with 95% whiskers.".to_string(),
                format!("Bar chart of the chance of contact: {}.", listed.join(", ")),
            );
        }
        files.push(frame("path_map.csv", &path, "path map", FrameFormat::Csv));
    } else if let Action::Charge { unit, target, gap, .. } = record.scenario.action {
        let (charger, target) = (&record.scenario.units[unit].name, &record.scenario.units[target].name);
        add(
            &mut files,
            "board-map",
            board_map(record)?,
            format!(
                "The board from above: each unit where it stood, and {} charge into {target}.",
                crate::report::document::possessive(charger)
            ),
            format!("Map of the board: {charger} charges {target}, {gap:.1} inches to contact."),
        );
    }
    // Every count metric taking two or more values, as for MESBG (flags are in the tables;
    // the first heading is said in a sentence above).
    let charted: Vec<&str> =
        record.metrics.defs.iter().filter(|d| !d.flag && d.name != "heading").map(|d| d.name.as_str()).collect();
    for name in charted {
        let rows = record.rows_of(name);
        if !rules.admits(name, &rows, if record.is_rout() { "routs" } else { "charges" }) {
            continue;
        }
        let frame = analysis::distribution_frame(&rows).map_err(frame_error("distribution"))?;
        let describe = record.describe(name).to_string();
        let title = capitalise(&describe);
        let mut chart = chart::distribution::DistributionChart::from_frame(&frame, &title, &describe)?;
        chart.y_label = if record.is_rout() { "share of routs" } else { "share of charges" }.to_string();
        let index = record.metrics.index(name);
        let label = |v: u32| index.map_or_else(|| v.to_string(), |i| record.metrics.value_label(i, v));
        if index.is_some_and(|i| !record.metrics.defs[i].labels.is_empty()) {
            chart.labels = (0..=rows.iter().map(|r| r.value).max().unwrap_or(0)).map(label).collect();
        }
        let listed: Vec<String> = rows.iter().map(|r| format!("{} in {}", label(r.value), percent(r.p))).collect();
        add(
            &mut files,
            &format!("distribution-{name}"),
            chart::render(&chart, &record.scenario.title)?,
            format!("{title} (`{name}`): the share of trials giving each value, with 95% whiskers."),
            format!("Bar chart of {describe}: {}.", listed.join(", ")),
        );
    }
    figures.extend(beasts_sentence.map(Figure::left_out));
    figures.extend(rules.note());
    push_csv_and_parquet(&mut files, "summary", &summary, "summary");
    push_csv_and_parquet(&mut files, "distribution", &distribution, "distribution");
    files.push(frame("units.csv", &units, "units", FrameFormat::Csv));
    let json = serde_json::to_string_pretty(&record.to_json()).unwrap_or_default();
    files.push(ReportFile { name: "run.json".into(), contents: Contents::Bytes(json.into_bytes()) });
    write_with_markdown(dir, files, |names| markdown(record, &figures, names))
}

#[cfg(test)]
mod tests {
    use super::charge_line;
    use crate::battlesystem::board::Block;
    use crate::geometry::Vec2;

    #[test]
    fn a_charge_is_drawn_from_the_chargers_front_to_the_targets_edge() {
        // Charger 4" wide, 6" deep at (24, 12) facing north: its front edge's middle is
        // (24, 15). Target 6" wide, 2" deep at (24, 24): its near edge is y = 23.
        let charger = Block::new(Vec2 { x: 24.0, y: 12.0 }, 0.0, 4.0, 6.0);
        let target = Block::new(Vec2 { x: 24.0, y: 24.0 }, 180.0, 6.0, 2.0);
        let ((fx, fy), (tx, ty)) = charge_line(&charger, &target);
        assert!((fx - 24.0).abs() < 1e-9 && (fy - 15.0).abs() < 1e-9, "from ({fx}, {fy})");
        assert!((tx - 24.0).abs() < 1e-9 && (ty - 23.0).abs() < 1e-9, "to ({tx}, {ty})");
        // Facing east towards a target north-east: the line ends on the target's west or
        // south edge, never inside it.
        let charger = Block::new(Vec2 { x: 10.0, y: 10.0 }, 90.0, 4.0, 2.0);
        let target = Block::new(Vec2 { x: 20.0, y: 14.0 }, 270.0, 4.0, 2.0);
        let (_, (tx, ty)) = charge_line(&charger, &target);
        assert!((tx - 19.0).abs() < 1e-9 || (ty - 12.0).abs() < 1e-9, "to ({tx}, {ty})");
        assert!(tx <= 19.0 + 1e-9 && ty <= 14.0 + 1e-9);
    }
}
