//! The report folders of the tools: paired comparison, balance and sweep.

use super::*;

/// Writes the paired comparison report into `dir`: `report.md`, `paired.csv` and
/// `.parquet`, and difference charts (chances in percentage points, counts). Returns the
/// files written.
pub fn write_paired(dir: &Path, run: &crate::tools::paired::PairedRun) -> Result<Vec<PathBuf>, ReportError> {
    let rows = &run.rows;
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let frame = crate::tools::paired::paired_frame(rows).map_err(frame_error("paired"))?;
    let mut files = Vec::new();
    let mut figures = Vec::new();
    for (flags, stem, label, scale) in [
        (true, "difference-chances", "B - A, percentage points (right: B higher)", 100.0),
        (false, "difference-counts", "B - A, per trial (right: B higher)", 1.0),
    ] {
        let (part, identical): (Vec<crate::tools::paired::Difference>, Vec<crate::tools::paired::Difference>) =
            rows.iter().filter(|d| d.metric.flag == flags).cloned().partition(|d| !played_alike(d));
        let title = if flags { "What B changes: chances" } else { "What B changes: counts" };
        if part.is_empty() && !identical.is_empty() {
            figures.push(Figure::left_out(format!(
                "{title}: every difference is exactly 0 (the two played identically on every trial), so there is no chart."
            )));
            continue;
        }
        let part_frame = crate::tools::paired::paired_frame(&part).map_err(frame_error("paired"))?;
        let chart = chart::difference::DifferenceChart::from_frame(&part_frame, title, label, scale)?;
        let rendered = chart::render(&chart, &paired_source(&run.names))?;
        push_chart(&mut files, stem, rendered);
        let listed: Vec<String> =
            part.iter().map(|d| format!("{} {}", d.metric.name, document::difference_words(d))).collect();
        figures.push(Figure {
            stem: stem.to_string(),
            caption: format!(
                "{title}: each metric's paired difference B - A (B's gain over A) with its 95% interval; \
                 A is {}, B {}.{}",
                run.names[0],
                run.names[1],
                if identical.is_empty() {
                    String::new()
                } else {
                    let names: Vec<String> = identical.iter().map(|d| format!("`{}`", d.metric.name)).collect();
                    format!(" Not drawn, equal in A and B on every trial: {}.", names.join(", "))
                }
            ),
            alt: format!("Horizontal bar chart of differences B - A. {}.", listed.join("; ")),
        });
    }
    push_csv_and_parquet(&mut files, "paired", &frame, "paired");
    write_with_markdown(dir, files, |names| document::paired_markdown(run, &figures, names))
}

/// True when A and B scored alike on every trial (a difference of exactly 0 with no spread):
/// a bar of nothing, left out of the charts and named in their captions.
pub(crate) fn played_alike(d: &crate::tools::paired::Difference) -> bool {
    d.diff == 0.0 && d.ci95_lo == 0.0 && d.ci95_hi == 0.0
}

/// The line above a comparison's charts: A and B by what differs, the words they share cut
/// first, and only when both do not fit the chart's width.
fn paired_source(names: &[String; 2]) -> String {
    let whole = format!("A: {}  /  B: {}", names[0], names[1]);
    if whole.chars().count() <= 126 {
        return whole;
    }
    let short = chart::distinct_names(names, 56);
    format!("A: {}  /  B: {}", short[0], short[1])
}

/// Writes the balance report into `dir`: `report.md`, `balance.csv`, and across a matchup
/// set `matchups.csv` and the chart of the price against each line. Returns the files written.
pub fn write_balance(dir: &Path, run: &crate::tools::balance::BalanceRun) -> Result<Vec<PathBuf>, ReportError> {
    use polars::prelude::*;
    let (title, fair) = (run.title.as_str(), &run.fair);
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let s = &fair.scenario;
    let frame = df!(
        "scenario" => [title],
        "price" => [s.price],
        "points_destroyed" => [s.points_destroyed],
        "points_destroyed_se" => [s.points_destroyed_se],
        "efficiency" => [s.efficiency],
        "kills_per_100_points" => [s.kills_per_100_points],
        "reference_price" => [fair.reference.as_ref().map(|r| r.price)],
        "reference_efficiency" => [fair.reference.as_ref().map(|r| r.efficiency)],
        "target_efficiency" => [fair.target_efficiency],
        "fair_price" => [fair.fair_price],
        "fair_price_se" => [fair.fair_price_se],
        "ci95_lo" => [fair.ci95_lo],
        "ci95_hi" => [fair.ci95_hi],
    )
    .map_err(frame_error("balance"))?;
    let mut files = Vec::new();
    // A piece worth nothing or less per trial has no price at which its efficiency meets
    // the target: the chart would be a line at or below zero, so a sentence says it.
    let figure = if let (Some(spread), true) = (&run.spread, run.matchups.len() >= 2) {
        // Across a matchup set the question is how far the price moves with the opponent:
        // each line's price beside the overall (a cost sweep of one line would not say it).
        let chart = chart::matchups::MatchupChart {
            title: "Fair price against each line".to_string(),
            rows: run
                .matchups
                .iter()
                .map(|m| (m.reference.clone(), (m.fair.fair_price, m.fair.ci95_lo, m.fair.ci95_hi)))
                .collect(),
            overall: (fair.fair_price, fair.ci95_lo, fair.ci95_hi),
            current: fair.scenario.price,
        };
        let rendered = chart::render(&chart, title)?;
        let figure = Figure {
            stem: "matchup-prices".into(),
            caption:
                "The fair price against each line (dots, with 95% sampling whiskers, mostly narrower than the dot) \
                 and the price of the whole field (line); the band is the 95% interval holding both the sampling noise \
                 and the spread across lines. The spread of the dots is how much the price depends on the opponent, \
                 which more trials would not narrow."
                    .into(),
            alt: format!(
                "Dot chart of {} fair prices from {:.1} ({}) to {:.1} ({}), overall {:.1} points.",
                run.matchups.len(),
                spread.lowest,
                spread.lowest_against,
                spread.highest,
                spread.highest_against,
                fair.fair_price
            ),
        };
        push_chart(&mut files, &figure.stem, rendered);
        figure
    } else {
        // Efficiency at each price is the one value divided by the price: a curve fixed by
        // the numbers above, so a sentence says what a chart of it would.
        Figure::left_out(
            "No chart: one price against one line is a single number (above), and the efficiency at any other price \
             is its value per trial divided by that price. To see how the fair price moves with a field of the piece, \
             draw a cost curve: `balance ... --set FIELD=a,b,c` (e.g. `--set chariot.impact.hits=1,2,D3,D3+1`)."
                .to_string(),
        )
    };
    files
        .push(ReportFile { name: "balance.csv".into(), contents: Contents::Frame(frame, "balance", FrameFormat::Csv) });
    if !run.matchups.is_empty() || !run.left_out.is_empty() {
        let m = &run.matchups;
        let lines: Vec<&str> =
            m.iter().map(|m| m.reference.as_str()).chain(run.left_out.iter().map(|l| l.line.as_str())).collect();
        let or_none = |f: &dyn Fn(&crate::tools::balance::Matchup) -> f64| -> Vec<Option<f64>> {
            m.iter().map(|x| Some(f(x))).chain(run.left_out.iter().map(|_| None)).collect()
        };
        // A line without a price of its own that counts in the overall still has its worths.
        let worth = |f: &dyn Fn(&crate::tools::balance::LineWorth) -> f64| -> Vec<Option<f64>> {
            m.iter().map(|x| Some(f(&x.worth))).chain(run.left_out.iter().map(|l| l.counted.map(|c| f(&c)))).collect()
        };
        let frame = df!(
            "against" => lines,
            "weight" => worth(&|w| w.weight),
            "piece_value" => worth(&|w| w.piece),
            "reference_value" => worth(&|w| w.reference),
            "fair_price" => or_none(&|x| x.fair.fair_price),
            "ci95_lo" => or_none(&|x| x.fair.ci95_lo),
            "ci95_hi" => or_none(&|x| x.fair.ci95_hi),
            "left_out" => m.iter().map(|_| None).chain(run.left_out.iter().map(|l| Some(l.reason.as_str()))).collect::<Vec<Option<&str>>>(),
        )
        .map_err(frame_error("matchups"))?;
        files.push(ReportFile {
            name: "matchups.csv".into(),
            contents: Contents::Frame(frame, "matchups", FrameFormat::Csv),
        });
    }
    write_with_markdown(dir, files, |names| document::balance_markdown(run, &[figure], names))
}

/// Writes the sweep report into `dir`: `report.md`, `sweep.csv` and `.parquet`, and for one
/// swept field a line chart per headline metric, for two a heatmap. Returns the files.
pub fn write_sweep(dir: &Path, run: &crate::tools::sweep::SweepRun) -> Result<Vec<PathBuf>, ReportError> {
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let frame = run.frame().map_err(frame_error("sweep"))?;
    let mut files = Vec::new();
    let mut figures = Vec::new();
    for m in document::headline_of(&run.metrics()) {
        let summaries: Vec<&crate::engine::statistics::MetricSummary<crate::engine::MetricDef>> =
            run.rows.iter().filter_map(|r| r.summary.iter().find(|s| s.metric.name == m.name)).collect();
        let title = capitalise(&m.description);
        if summaries.iter().all(|s| s.mean == 0.0 && s.ci95_hi == 0.0) {
            figures.push(Figure::left_out(format!(
                "{title} (`{}`) is 0 at every point of the sweep, so it has no chart.",
                m.name
            )));
            continue;
        }
        // A heatmap paints its whole colour ramp over whatever spread it is given: where the
        // cells differ by less than one cell's own 95% interval, the colours would be noise.
        if run.paths.len() == 2 {
            let (lo, hi) =
                summaries.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), s| (a.min(s.mean), b.max(s.mean)));
            let half = summaries.iter().map(|s| (s.ci95_hi - s.ci95_lo) / 2.0).fold(0.0f64, f64::max);
            if hi - lo <= half {
                let value = |v: f64| if m.flag { document::percent(v) } else { format!("{v:.3}") };
                figures.push(Figure::left_out(format!(
                    "{title} (`{}`) is {} at every point of the sweep: a spread smaller than one point's own 95% \
                     interval ({}), so no difference to draw.",
                    m.name,
                    if hi > lo { format!("between {} and {}", value(lo), value(hi)) } else { value(lo) },
                    if m.flag {
                        format!("up to \u{b1}{:.2} percentage points", half * 100.0)
                    } else {
                        format!("up to \u{b1}{half:.3}")
                    }
                )));
                continue;
            }
        }
        let source = format!("Sweep of {}", run.title);
        let rendered = match run.paths.len() {
            1 => chart::render(
                &chart::sweep_line::SweepLineChart {
                    title: title.clone(),
                    x_label: run.paths[0].clone(),
                    labels: run.axes[0].clone(),
                    mean: summaries.iter().map(|s| s.mean).collect(),
                    band: summaries.iter().map(|s| (s.ci95_lo, s.ci95_hi)).collect(),
                    probability: m.flag,
                    trial_word: run.trial_word.clone(),
                },
                &source,
            )?,
            2 => {
                let (nx, ny) = (run.axes[0].len(), run.axes[1].len());
                // Points run with the first field slowest: point (i, j) is i * ny + j.
                let cells = (0..ny).map(|j| (0..nx).map(|i| summaries[i * ny + j].mean).collect()).collect();
                chart::render(
                    &chart::sweep_heatmap::SweepHeatmapChart {
                        title: title.clone(),
                        x_label: run.paths[0].clone(),
                        y_label: run.paths[1].clone(),
                        columns: run.axes[0].clone(),
                        rows: run.axes[1].clone(),
                        cells,
                        probability: m.flag,
                    },
                    &source,
                )?
            }
            _ => continue,
        };
        let stem = format!("sweep-{}", m.name);
        push_chart(&mut files, &stem, rendered);
        let listed: Vec<String> = run
            .rows
            .iter()
            .zip(&summaries)
            .map(|(r, s)| format!("{}: {}", r.values.join(", "), document::headline_value(s).0))
            .collect();
        figures.push(Figure {
            stem,
            caption: format!(
                "{title} (`{}`) at each point of the sweep{}.",
                m.name,
                if run.paths.len() == 1 { ", with its 95% band" } else { "" }
            ),
            alt: format!(
                "{} of {}. {}.",
                if run.paths.len() == 1 { "Line chart" } else { "Heatmap" },
                m.description,
                listed.join("; ")
            ),
        });
    }
    push_csv_and_parquet(&mut files, "sweep", &frame, "sweep");
    write_with_markdown(dir, files, |names| document::sweep_markdown(run, &figures, names))
}

/// Writes a cost curve's report into `dir`: `report.md`, `cost-curve.csv` and the chart of
/// the fair price at each value (left out, with a sentence, when the price does not move).
/// Returns the files written.
pub fn write_balance_curve(dir: &Path, curve: &crate::tools::balance::CostCurve) -> Result<Vec<PathBuf>, ReportError> {
    use polars::prelude::*;
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let runs: Vec<&crate::tools::balance::BalanceRun> = curve.points.iter().map(|(_, r)| r).collect();
    let frame = df!(
        curve.field.as_str() => curve.points.iter().map(|(v, _)| v.as_str()).collect::<Vec<_>>(),
        "price" => runs.iter().map(|r| r.fair.scenario.price).collect::<Vec<_>>(),
        "points_destroyed" => runs.iter().map(|r| r.fair.scenario.points_destroyed).collect::<Vec<_>>(),
        "fair_price" => runs.iter().map(|r| r.fair.fair_price).collect::<Vec<_>>(),
        "sampling_ci95_lo" => runs.iter().map(|r| sampling_interval(r).0).collect::<Vec<_>>(),
        "sampling_ci95_hi" => runs.iter().map(|r| sampling_interval(r).1).collect::<Vec<_>>(),
        "lowest_line" => runs.iter().map(|r| r.spread.as_ref().filter(|_| r.set.is_some()).map(|s| s.lowest)).collect::<Vec<_>>(),
        "highest_line" => runs.iter().map(|r| r.spread.as_ref().filter(|_| r.set.is_some()).map(|s| s.highest)).collect::<Vec<_>>(),
        "ci95_lo_with_spread" => runs.iter().map(|r| r.spread.as_ref().map(|_| r.fair.ci95_lo)).collect::<Vec<_>>(),
        "ci95_hi_with_spread" => runs.iter().map(|r| r.spread.as_ref().map(|_| r.fair.ci95_hi)).collect::<Vec<_>>(),
    )
    .map_err(frame_error("cost curve"))?;
    let mut files = Vec::new();
    let source = match curve.fixed.as_slice() {
        [] => curve.title.clone(),
        fixed => format!("{}, with {}", curve.title, fixed.join(", ")),
    };
    let negative = runs.iter().any(|r| r.fair.fair_price < 0.0);
    let figure = if curve.is_flat() {
        Figure::left_out(format!(
            "No chart: the fair price is {:.2} points at every value of `{}`, on the same trials; the field does not \
             change what the piece destroys against these opponents.",
            runs[0].fair.fair_price, curve.field
        ))
    } else if negative {
        Figure::left_out(
            "No chart: at some values the piece loses more points than it destroys (`--value net`), so there is no \
             price there to draw; the table gives each value's numbers."
                .to_string(),
        )
    } else {
        let banded = runs.iter().all(|r| r.spread.is_some());
        let chart = chart::cost::CostCurveChart {
            title: format!("Fair price as {} changes", curve.field),
            field: curve.field.clone(),
            points: curve
                .points
                .iter()
                .map(|(v, r)| {
                    let (lo, hi) = sampling_interval(r);
                    (v.clone(), (r.fair.fair_price, lo, hi))
                })
                .collect(),
            band: banded.then(|| runs.iter().map(|r| (r.fair.ci95_lo, r.fair.ci95_hi)).collect()),
            current: runs[0].fair.scenario.price,
        };
        let rendered = chart::render(&chart, &source)?;
        let (first, last) = (&curve.points[0], &curve.points[curve.points.len() - 1]);
        let figure = Figure {
            stem: "cost-curve".into(),
            caption: format!(
                "The fair price at each value of `{}` (dots, with 95% sampling whiskers){}; the grey line is the price \
                 paid now. Every value was played on the same trials, so the steps between dots are the change's, not \
                 the dice's.",
                curve.field,
                if banded {
                    "; the band is the interval holding the spread across the set's lines as well"
                } else {
                    ""
                }
            ),
            alt: format!(
                "Line chart of the fair price against {}: {:.1} points at {} to {:.1} at {}.",
                curve.field, first.1.fair.fair_price, first.0, last.1.fair.fair_price, last.0
            ),
        };
        push_chart(&mut files, &figure.stem, rendered);
        figure
    };
    files.push(ReportFile {
        name: "cost-curve.csv".into(),
        contents: Contents::Frame(frame, "cost curve", FrameFormat::Csv),
    });
    write_with_markdown(dir, files, |names| document::balance_curve_markdown(curve, &[figure], names))
}

/// A balance's sampling interval alone: across a matchup set the overall's, else its fair
/// price's own.
pub(crate) fn sampling_interval(run: &crate::tools::balance::BalanceRun) -> (f64, f64) {
    match &run.spread {
        Some(s) => s.sampling_ci95,
        None => (run.fair.ci95_lo, run.fair.ci95_hi),
    }
}
