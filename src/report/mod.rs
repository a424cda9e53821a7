//! Writing a run's report folder: `report.md`, the charts (PNG and SVG), `summary.csv`,
//! `distribution.csv`, their Parquet versions, and `run.json`, each written to a temporary
//! file and renamed into place, so a reader never sees half a file. Everything is
//! rendered in memory first: a failure leaves no partial report behind.

pub mod battlesystem;
pub mod charts;
pub mod document;
pub mod joint;
pub mod record;
pub mod stamp;
pub mod turn;
pub mod words;

use crate::mesbg::analysis::{self, DistributionRow, MetricSummary};
use crate::mesbg::exact;
use crate::mesbg::plan::Plan;
use crate::mesbg::scenario::Scenario;
use crate::mesbg::tally::Metric;
use crate::report::charts::{self as chart, ChartError};
use crate::report::document::Figure;
pub use crate::report::record::{
    PlanFacts, Precision, RUN_SCHEMA, RunRecord, TerrainReading, ruleset_json, terrain_readings,
};
use polars::error::PolarsError;
use polars::prelude::{CsvWriter, DataFrame, ParquetWriter, SerWriter};
use serde_json::{Map, Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

mod tools;
pub use tools::*;

/// The version of the `exact.json` layout; bumped on any incompatible change.
pub const EXACT_SCHEMA: &str = "charioteer.exact/2";

/// The schema of a BATTLESYSTEM run's `run.json`: the same version as MESBG's (2: `ruleset`
/// entries carry value, default and meaning), told apart by its `system` field.
pub const BATTLESYSTEM_RUN_SCHEMA: &str = "charioteer.run/2";

/// Why results could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file or folder could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A frame could not be built or serialised.
    #[error("cannot build the {what} table: {source}")]
    Frame {
        /// Which table.
        what: &'static str,
        /// The underlying error.
        source: polars::error::PolarsError,
    },
    /// A chart could not be drawn.
    #[error(transparent)]
    Chart(#[from] ChartError),
}

/// Writes `path` atomically: a temporary file beside it, flushed, then renamed.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), ReportError> {
    let tmp = stage(path, write)?;
    std::fs::rename(&tmp, path).map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        ReportError::Io { path: path.to_path_buf(), source }
    })
}

/// Writes what belongs at `path` to a temporary file beside it, flushed to disk, and
/// returns that file's path; nothing at `path` changes until the caller renames it.
fn stage(path: &Path, write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>) -> Result<PathBuf, ReportError> {
    let io = |source| ReportError::Io { path: path.to_path_buf(), source };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        write(&mut file)?;
        file.flush()?;
        file.sync_all()
    })();
    match result {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(io(e))
        }
    }
}

/// The formats a frame can be written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameFormat {
    /// Comma-separated text with a header row.
    Csv,
    /// Apache Parquet.
    Parquet,
}

/// Writes `frame` to `path` atomically in `format`.
pub fn write_frame(
    path: &Path,
    frame: &mut DataFrame,
    what: &'static str,
    format: FrameFormat,
) -> Result<(), ReportError> {
    let tmp = stage_frame(path, frame, what, format)?;
    std::fs::rename(&tmp, path).map_err(|source| {
        let _ = std::fs::remove_file(&tmp);
        ReportError::Io { path: path.to_path_buf(), source }
    })
}

/// [`stage`] for a frame: its temporary file, written in `format`.
fn stage_frame(
    path: &Path,
    frame: &mut DataFrame,
    what: &'static str,
    format: FrameFormat,
) -> Result<PathBuf, ReportError> {
    let mut polars_error = None;
    let result = stage(path, |file| {
        let written = match format {
            FrameFormat::Csv => CsvWriter::new(&mut *file).finish(frame),
            FrameFormat::Parquet => ParquetWriter::new(&mut *file).finish(frame).map(|_| ()),
        };
        written.map_err(|e| {
            let io = std::io::Error::other(e.to_string());
            polars_error = Some(e);
            io
        })
    });
    match polars_error {
        Some(source) => Err(ReportError::Frame { what, source }),
        None => result,
    }
}

/// The summary frame of a record: the estimates, and the exact mean and z-score of each
/// metric when the exact engine covers the scenario (null otherwise).
pub fn summary_with_exact(record: &RunRecord) -> Result<DataFrame, PolarsError> {
    let mut frame = analysis::summary_frame(&record.summary)?;
    let (exact, z): (Vec<Option<f64>>, Vec<Option<f64>>) = match &record.exact {
        Ok(rows) => rows.iter().map(|a| (Some(a.exact), a.z.is_finite().then_some(a.z))).unzip(),
        Err(_) => record.summary.iter().map(|_| (None, None)).unzip(),
    };
    frame.with_column(polars::prelude::Column::new("exact_mean".into(), exact))?;
    frame.with_column(polars::prelude::Column::new("z".into(), z))?;
    Ok(frame)
}

/// A file of the report, rendered in memory.
pub(crate) struct ReportFile {
    /// File name inside the report folder.
    pub(crate) name: String,
    /// What goes in it.
    pub(crate) contents: Contents,
}

/// The contents of a report file.
pub(crate) enum Contents {
    /// Bytes as they are.
    Bytes(Vec<u8>),
    /// A frame, what it is (for messages), and its format.
    Frame(DataFrame, &'static str, FrameFormat),
}

/// The figures of a run, drawn from its frames, with their files.
fn figures(record: &RunRecord) -> Result<(Vec<Figure>, Vec<ReportFile>), ReportError> {
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let mut figures = Vec::new();
    let mut files = Vec::new();
    let mut add = |stem: &str, rendered: chart::Rendered, caption: String, alt: String| {
        push_chart(&mut files, stem, rendered);
        figures.push(Figure { stem: stem.to_string(), caption, alt });
    };
    let pct = document::percent;
    if let Some(board) = &record.board {
        let (rendered, caption, alt) = board_figure(board, &record.title, record.trials)?;
        add("board", rendered, caption, alt);
    }
    // Each chart earns its place: none for one contact (a sentence says it), a certainty,
    // or a metric that equals one already drawn; report.md says what was left out and why.
    let mut rules = ChartRules::default();
    if let Some(figure) = endings_figure(&record.outcomes.0, record.outcomes.1, &record.title, &mut rules)? {
        let (rendered, caption, alt) = figure;
        add("how-charges-end", rendered, caption, alt);
    }
    if let [only] = record.chain.as_slice() {
        rules.left_out.push(format!(
            "the impact chain (one contact on the path, at {:.1}\": the chariot reached it in {} of charges and was \
             stopped there in {})",
            only.distance,
            pct(only.p_reached),
            pct(only.p_stopped)
        ));
    }
    if record.chain.len() >= 2 {
        let frame = analysis::impact_chain_frame(&record.chain).map_err(frame_error("impact chain"))?;
        let chart = chart::impact_chain::ImpactChainChart::from_frame(&frame, "How far the charge gets")?;
        let reached: Vec<String> = record
            .chain
            .iter()
            .map(|c| {
                format!(
                    "contact {} at {:.1} inches: reached {}, stopped there {}",
                    c.step,
                    c.distance,
                    pct(c.p_reached),
                    pct(c.p_stopped)
                )
            })
            .collect();
        add(
            "impact-chain",
            chart::render(&chart, &record.title)?,
            "The impact chain: the share of charges that reached each contact along the path (blue-grey) and \
             that a survivor stopped there (orange), with 95% whiskers; crosses mark the exact chance of \
             stopping there."
                .to_string(),
            format!("Bar chart of the impact chain. {}.", reached.join("; ")),
        );
    }
    // The wound split is drawn unless one pair of Wounds lost is a certainty.
    let commonest_split = record.wound_split.as_ref().and_then(|split| split.iter().max_by(|a, b| a.p.total_cmp(&b.p)));
    let split_drawn = commonest_split.is_some_and(|c| c.p < CERTAINTY);
    if let Some(c) = commonest_split.filter(|_| !split_drawn) {
        rules.left_out.push(format!(
            "the wound split (the chariot lost {} and the Hero {} Wounds in {} of charges)",
            c.chariot_wounds_lost,
            c.hero_wounds_lost,
            pct(c.p)
        ));
    }
    // `kills` first: where another count equals it, the headline's chart is the one kept.
    let mut counts: Vec<&MetricSummary> = record.summary.iter().filter(|s| !s.metric.is_flag()).collect();
    counts.sort_by_key(|s| s.metric != Metric::Kills);
    for s in counts {
        let rows: Vec<DistributionRow> = record.distribution.iter().filter(|r| r.metric == s.metric).cloned().collect();
        let name = s.metric.name();
        if matches!(s.metric, Metric::ChariotWoundsLost | Metric::HeroWoundsLost) && split_drawn {
            // The wound split's rows and columns are these two distributions.
            rules.left_out.push(format!("`{name}` (the wound split shows it, beside the other's)"));
            continue;
        }
        if s.metric == Metric::Contacts && record.chain.len() >= 2 {
            // Where the charge stopped decides how many it touched: the chain says it.
            rules.left_out.push(format!(
                "`{name}` (the impact chain shows where the charges stopped, and so how many models they touched)"
            ));
            continue;
        }
        if !rules.admits(name, &rows, "charges") {
            continue;
        }
        let frame = analysis::distribution_frame(&rows).map_err(frame_error("distribution"))?;
        let describe = s.metric.describe();
        let title = capitalise(describe);
        let listed: Vec<String> = rows.iter().map(|r| format!("{} in {}", r.value, pct(r.p))).collect();
        add(
            &format!("distribution-{name}"),
            chart::render(
                &chart::distribution::DistributionChart::from_frame(&frame, &title, describe)?,
                &record.title,
            )?,
            format!("{title} (`{name}`): the share of charges giving each value, with 95% whiskers."),
            format!("Bar chart of {describe}: {}.", listed.join(", ")),
        );
        let values = rows.iter().filter(|r| r.count > 0).count();
        if matches!(s.metric, Metric::Kills | Metric::ImpactKills) && values < 4 {
            // Over three values the chance of at least k is two numbers the bars beside it show.
            rules
                .left_out
                .push(format!("the chance of at least k {} (three values: the bars show them)", s.metric.describe()));
        }
        if matches!(s.metric, Metric::Kills | Metric::ImpactKills) && values >= 4 {
            let listed: Vec<String> =
                rows.iter().skip(1).map(|r| format!("at least {} in {}", r.value, pct(r.p_at_least))).collect();
            let title = format!("Chance of at least k: {describe}");
            add(
                &format!("at-least-{name}"),
                chart::render(&chart::at_least::AtLeastChart::from_frame(&frame, &title, describe)?, &record.title)?,
                format!("The chance of at least k {describe} (`{name}`), with its 95% Wilson band."),
                format!("Line chart, falling from 100% at k = 0: {}.", listed.join(", ")),
            );
        }
    }
    if let Some(split) = record.wound_split.as_ref().filter(|_| split_drawn) {
        let frame = analysis::wound_split_frame(split).map_err(frame_error("wound split"))?;
        let chart = chart::wound_split::WoundSplitChart::from_frame(&frame, "Wounds lost: chariot and Hero")?;
        let cells: Vec<String> = split
            .iter()
            .filter(|c| c.count > 0)
            .map(|c| format!("chariot {} and Hero {} in {}", c.chariot_wounds_lost, c.hero_wounds_lost, pct(c.p)))
            .collect();
        add(
            "wound-split",
            chart::render(&chart, &record.title)?,
            "The wound split: the share of charges for each pair of Wounds lost by the chariot (rows) and \
             by the Hero riding it (columns); darker is more common."
                .to_string(),
            format!("Heatmap of the wound split: {}.", cells.join("; ")),
        );
    }
    figures.extend(rules.note());
    Ok((figures, files))
}

/// The chart of how the charges ended (broke through, won, did not win, slain, otherwise),
/// with its caption and words for a reader who cannot see it; `None` (and a line in
/// `rules`' note) when one way of ending holds 99% or more.
fn endings_figure(
    outcomes: &[crate::mesbg::analysis::ChargeEnd],
    slain_apart: bool,
    source: &str,
    rules: &mut ChartRules,
) -> Result<Option<(chart::Rendered, String, String)>, ReportError> {
    let pct = document::percent;
    if outcomes.iter().all(|o| o.count == 0) {
        return Ok(None);
    }
    if let Some(top) = outcomes.iter().find(|o| o.p >= CERTAINTY) {
        rules.left_out.push(format!("how the charges ended ({} in {}: one bar)", top.words, pct(top.p)));
        return Ok(None);
    }
    // A way of ending that never happened and cannot is a sentence, not a bar.
    let (never, shown): (Vec<_>, Vec<_>) = outcomes.iter().partition(|o| o.count == 0 && o.exact.unwrap_or(0.0) <= 0.0);
    let exact = outcomes.iter().any(|o| o.exact.is_some());
    let endings = shown
        .iter()
        .map(|o| chart::endings::Ending {
            words: o.words.to_string(),
            p: o.p,
            lo: o.ci95_lo,
            hi: o.ci95_hi,
            exact: o.exact,
        })
        .collect();
    let chart = chart::endings::EndingsChart {
        title: "How the charges ended".to_string(),
        axis: chart::endings::axis_words("charges", exact),
        endings,
    };
    let rendered = chart::render(&chart, source)?;
    let never: Vec<&str> = never.iter().map(|o| o.words).collect();
    let caption = format!(
        "How the charges ended: every charge in exactly one bar, with its 95% interval{}.{}{}",
        if exact { " and the exact chance marked by a cross" } else { "" },
        if never.is_empty() { String::new() } else { format!(" Never: {}.", never.join("; ")) },
        if slain_apart && shown.iter().any(|o| o.name == "chariot_slain") {
            " A chariot can only be slain in a fight it did not win here, so the slain have a bar of their own."
        } else if slain_apart {
            ""
        } else {
            " Difficult terrain or an obstacle could slay the chariot here, so the chariot slain is not split \
             out (see `chariot_slain`)."
        }
    );
    let listed: Vec<String> = outcomes.iter().map(|o| format!("{} {}", o.words, pct(o.p))).collect();
    let alt = format!("Bar chart of how the charges ended: {}.", listed.join("; "));
    Ok(Some((rendered, caption, alt)))
}

/// A distribution with one value at least this common is one bar: said, not drawn.
pub const CERTAINTY: f64 = 0.99;

/// When a distribution chart earns its place: three values or more (two are one number),
/// none a certainty, and not equal trial for trial to one already drawn. What it leaves out, report.md says.
#[derive(Default)]
pub(crate) struct ChartRules {
    /// Each drawn metric's name and its (value, count) pairs.
    drawn: Vec<(String, Vec<(u32, u64)>)>,
    /// What was left out, each with why, as report.md says it.
    pub(crate) left_out: Vec<String>,
}

impl ChartRules {
    /// Whether metric `name`'s distribution (`rows`, over `trials`: "charges", "routs")
    /// is drawn; if not for a reason a reader would want, the reason is kept for report.md.
    pub(crate) fn admits<M>(
        &mut self,
        name: &str,
        rows: &[crate::engine::statistics::DistributionRow<M>],
        trials: &str,
    ) -> bool {
        let seen: Vec<&crate::engine::statistics::DistributionRow<M>> = rows.iter().filter(|r| r.count > 0).collect();
        if seen.len() < 2 {
            return false; // a single value: the table says it all
        }
        if let [a, b] = seen.as_slice() {
            // Two values are one number: said, not drawn.
            self.left_out.push(format!(
                "`{name}` (two values: {} in {} and {} in {} of {trials})",
                a.value,
                document::percent(a.p),
                b.value,
                document::percent(b.p)
            ));
            return false;
        }
        if let Some(top) = rows.iter().max_by(|a, b| a.p.total_cmp(&b.p))
            && top.p >= CERTAINTY
        {
            self.left_out.push(format!(
                "`{name}` ({} in {} of {trials}: one bar)",
                top.value,
                document::percent(top.p)
            ));
            return false;
        }
        let counts: Vec<(u32, u64)> = rows.iter().filter(|r| r.count > 0).map(|r| (r.value, r.count)).collect();
        if let Some((same, _)) = self.drawn.iter().find(|(_, c)| *c == counts) {
            self.left_out.push(format!(
                "`{name}` (equal to `{same}` in every one of the {trials}: its chart would repeat that one)"
            ));
            return false;
        }
        self.drawn.push((name.to_string(), counts));
        true
    }

    /// The sentence report.md prints for what was left out, if anything was.
    pub(crate) fn note(self) -> Option<Figure> {
        (!self.left_out.is_empty()).then(|| {
            Figure::left_out(format!(
                "Charts left out, each saying no more than a sentence: {}.",
                self.left_out.join("; ")
            ))
        })
    }
}

/// Which trials a board picture counted, in a caption's words: every trial of a run of
/// `run_trials` (then its numbers are the report's), or its first few.
pub fn board_counted(board: &crate::mesbg::board::BoardPicture, run_trials: u64) -> String {
    if board.trials == run_trials {
        format!(
            "Counted from all {} trials of the run, so its shares are the tables'",
            document::group_digits(run_trials)
        )
    } else {
        format!(
            "Counted from the first {} of the run's {} trials",
            document::group_digits(board.trials),
            document::group_digits(run_trials)
        )
    }
}

/// The caption's words for the corridors a turn's board picture draws ("" when none).
pub(crate) fn corridor_words(board: &crate::mesbg::board::BoardPicture) -> String {
    let pct = document::percent;
    let each: Vec<String> = board
        .corridors
        .iter()
        .map(|c| {
            format!(
                "line {} ({}): a corridor in {} of the trials, {} at the place drawn",
                c.line,
                c.names,
                pct(c.p_any),
                pct(c.p_here)
            )
        })
        .collect();
    if each.is_empty() {
        return String::new();
    }
    format!(
        " The green dashed band is where a corridor ran through a line after the turn most often (`line_breached`: a gap between two of the line's standing models, through every rank): {}.",
        each.join("; ")
    )
}

/// The board picture of a MESBG charge, with its caption and its words for a reader who
/// cannot see it.
pub fn board_figure(
    board: &crate::mesbg::board::BoardPicture,
    source: &str,
    run_trials: u64,
) -> Result<(chart::Rendered, String, String), ReportError> {
    let pct = document::percent;
    let chart = chart::charge_board::ChargeBoardChart {
        title: "The board: the path and who falls".to_string(),
        picture: board.clone(),
    };
    let rendered = chart::render(&chart, source)?;
    let caption = format!(
        "The board to scale, in inches. The chariot starts at the orange base; the pale orange band is the \
         area its base sweeps over its full Move, triangles mark its pivots. Each model's base is shaded by \
         its chance to be slain (by Impact Hits or in the fight) and labelled rank.file, as `replay` names \
         it; a flag marks a banner bearer, a shaft a spear or pike, a gold ring an enemy Hero; grey discs \
         show where charges ended, their area in proportion to the share.{} {}; `board.csv` lists every model.",
        corridor_words(board),
        board_counted(board, run_trials)
    );
    let mut likely: Vec<&crate::mesbg::board::DrawnBase> = board.bases.iter().filter(|b| b.p_slain > 0.0).collect();
    likely.sort_by(|a, b| b.p_slain.total_cmp(&a.p_slain));
    let named: Vec<String> = likely.iter().take(5).map(|b| format!("{} {}", b.label, pct(b.p_slain))).collect();
    let ends: Vec<String> = board
        .stops
        .iter()
        .map(|s| {
            let who = s.chariot.map(|c| format!("chariot {c}: ")).unwrap_or_default();
            format!("{who}{} at {:.1} inches ({})", pct(s.p), s.distance, s.how)
        })
        .collect();
    let corridors: Vec<String> = board
        .corridors
        .iter()
        .map(|c| format!(" A corridor through line {} in {} of the trials.", c.line, pct(c.p_any)))
        .collect();
    let alt = format!(
        "Map of the board. Most likely slain: {}. Charges ended: {}.{}",
        if named.is_empty() { "nobody".to_string() } else { named.join(", ") },
        ends.join("; "),
        corridors.concat()
    );
    Ok((rendered, caption, alt))
}

/// One row per model of a MESBG board: its name, rank and file, what it carries or is,
/// where it stood, and its chance to be slain with a 95% Wilson interval.
pub fn board_frame(board: &crate::mesbg::board::BoardPicture) -> Result<DataFrame, PolarsError> {
    use polars::prelude::*;
    let b = &board.bases;
    let bounds: Vec<(f64, f64)> = b.iter().map(|m| analysis::wilson(m.slain, board.trials, analysis::Z95)).collect();
    df!(
        "model" => b.iter().map(|m| m.label.as_str()).collect::<Vec<_>>(),
        "formation" => b.iter().map(|m| board.formations.get(m.formation).map_or("", String::as_str)).collect::<Vec<_>>(),
        "rank" => b.iter().map(|m| m.rank as u32).collect::<Vec<_>>(),
        "file" => b.iter().map(|m| m.file as u32).collect::<Vec<_>>(),
        "role" => b.iter().map(crate::mesbg::board::DrawnBase::role).collect::<Vec<_>>(),
        "x" => b.iter().map(|m| m.centre.0).collect::<Vec<_>>(),
        "y" => b.iter().map(|m| m.centre.1).collect::<Vec<_>>(),
        "p_slain" => b.iter().map(|m| m.p_slain).collect::<Vec<_>>(),
        "p_slain_lo" => bounds.iter().map(|x| x.0).collect::<Vec<_>>(),
        "p_slain_hi" => bounds.iter().map(|x| x.1).collect::<Vec<_>>(),
        "trials" => b.iter().map(|_| board.trials).collect::<Vec<_>>(),
    )
}

pub(crate) fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// Adds a frame as `<stem>.csv` and `<stem>.parquet` (`what` names it in messages).
pub(crate) fn push_csv_and_parquet(files: &mut Vec<ReportFile>, stem: &str, frame: &DataFrame, what: &'static str) {
    for (ext, format) in [("csv", FrameFormat::Csv), ("parquet", FrameFormat::Parquet)] {
        files
            .push(ReportFile { name: format!("{stem}.{ext}"), contents: Contents::Frame(frame.clone(), what, format) });
    }
}

/// Adds a rendered chart's `<stem>.png` and `<stem>.svg`.
pub(crate) fn push_chart(files: &mut Vec<ReportFile>, stem: &str, rendered: chart::Rendered) {
    files.push(ReportFile { name: format!("{stem}.png"), contents: Contents::Bytes(rendered.png) });
    files.push(ReportFile { name: format!("{stem}.svg"), contents: Contents::Bytes(rendered.svg.into_bytes()) });
}

/// Writes `report.md` (made by `markdown` from the names of every file, its own first)
/// followed by `files`.
pub(crate) fn write_with_markdown(
    dir: &Path,
    mut files: Vec<ReportFile>,
    markdown: impl FnOnce(&[String]) -> String,
) -> Result<Vec<PathBuf>, ReportError> {
    let names: Vec<String> =
        std::iter::once("report.md".to_string()).chain(files.iter().map(|f| f.name.clone())).collect();
    let text = markdown(&names);
    files.insert(0, ReportFile { name: "report.md".into(), contents: Contents::Bytes(text.into_bytes()) });
    // The earlier report's files, as its manifest lists them: those the new report does not
    // write are removed once it is written, so a replaced report leaves none of its files
    // (a Hero run's `wound_split.csv` beside a later run without a Hero). Files the manifest
    // does not name (`exact` files, the user's own) are never touched.
    let manifest = dir.join(REPORT_MANIFEST);
    let earlier: Vec<String> = std::fs::read_to_string(&manifest)
        .map(|t| t.lines().map(str::to_string).filter(|l| !l.is_empty()).collect())
        .unwrap_or_default();
    let written = write_files(dir, files)?;
    let mut listed = names.join("\n");
    listed.push('\n');
    write_atomic(&manifest, |f| f.write_all(listed.as_bytes()))?;
    for old in earlier.iter().filter(|old| !names.contains(old)) {
        // Only plain names in the folder itself, never a path elsewhere.
        if old.contains(['/', '\\']) || old.starts_with('.') {
            continue;
        }
        let path = dir.join(old);
        if path.is_file() {
            std::fs::remove_file(&path).map_err(|source| ReportError::Io { path: path.clone(), source })?;
        }
    }
    Ok(written)
}

/// The hidden file in a report folder listing the files its report wrote, so the next
/// report written there removes those it does not write again.
pub const REPORT_MANIFEST: &str = ".report-files";

/// Writes every file of a report into `dir`, all or nothing as far as the file system
/// allows: each file is first written in full to a temporary file beside its place (after
/// all were rendered), and only when every one is on disk are they renamed into place. A
/// failure while writing (a full disk, a folder where a file belongs) removes the temporary
/// files and leaves an earlier report in `dir` as it was. Returns the paths written.
pub(crate) fn write_files(dir: &Path, files: Vec<ReportFile>) -> Result<Vec<PathBuf>, ReportError> {
    std::fs::create_dir_all(dir).map_err(|source| ReportError::Io { path: dir.to_path_buf(), source })?;
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::with_capacity(files.len());
    let discard = |staged: &[(PathBuf, PathBuf)]| {
        for (tmp, _) in staged {
            let _ = std::fs::remove_file(tmp);
        }
    };
    for file in files {
        let path = dir.join(&file.name);
        if path.is_dir() {
            discard(&staged);
            let source = std::io::Error::other(format!(
                "a folder stands where the report writes its {} file; move or rename that folder, or write the report elsewhere with --out",
                file.name
            ));
            return Err(ReportError::Io { path, source });
        }
        let tmp = match file.contents {
            Contents::Bytes(bytes) => stage(&path, |f| f.write_all(&bytes)),
            Contents::Frame(mut frame, what, format) => stage_frame(&path, &mut frame, what, format),
        };
        match tmp {
            Ok(tmp) => staged.push((tmp, path)),
            Err(e) => {
                discard(&staged);
                return Err(e);
            }
        }
    }
    let mut written = Vec::with_capacity(staged.len());
    for (i, (tmp, path)) in staged.iter().enumerate() {
        if let Err(source) = std::fs::rename(tmp, path) {
            discard(&staged[i..]);
            return Err(ReportError::Io { path: path.clone(), source });
        }
        written.push(path.clone());
    }
    Ok(written)
}

/// Writes the report folder of a run: `report.md`, the charts (PNG and SVG), `summary.csv`
/// and `.parquet`, `distribution.csv` and `.parquet`, `impact_chain.csv`, `run.json`, and
/// `wound_split.csv` when a Hero rides. Returns the files written.
pub fn write_report(dir: &Path, record: &RunRecord) -> Result<Vec<PathBuf>, ReportError> {
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let summary = summary_with_exact(record).map_err(frame_error("summary"))?;
    let distribution = analysis::distribution_frame(&record.distribution).map_err(frame_error("distribution"))?;
    let chain = analysis::impact_chain_frame(&record.chain).map_err(frame_error("impact chain"))?;
    let (figures, mut files) = figures(record)?;
    let frame = |name: &str, frame: &DataFrame, what, format| ReportFile {
        name: name.to_string(),
        contents: Contents::Frame(frame.clone(), what, format),
    };
    push_csv_and_parquet(&mut files, "summary", &summary, "summary");
    push_csv_and_parquet(&mut files, "distribution", &distribution, "distribution");
    files.push(frame("impact_chain.csv", &chain, "impact chain", FrameFormat::Csv));
    if let Some(board) = &record.board {
        let board = board_frame(board).map_err(frame_error("board"))?;
        files.push(frame("board.csv", &board, "board", FrameFormat::Csv));
    }
    if let Some(split) = &record.wound_split {
        let split = analysis::wound_split_frame(split).map_err(frame_error("wound split"))?;
        files.push(frame("wound_split.csv", &split, "wound split", FrameFormat::Csv));
    }
    let json = serde_json::to_string_pretty(&record.to_json()).unwrap_or_default();
    files.push(ReportFile { name: "run.json".into(), contents: Contents::Bytes(json.into_bytes()) });
    write_with_markdown(dir, files, |names| document::report_markdown(record, &figures, names))
}

/// One finished run as a side-by-side comparison shows it, whichever rule system played it.
#[derive(Clone, Debug)]
pub struct ComparedRun {
    /// The scenario's title.
    pub title: String,
    /// The scenario file.
    pub scenario_file: String,
    /// Trials and seed.
    pub trials: u64,
    /// Seed.
    pub seed: u64,
    /// The command that reproduces it.
    pub command: String,
    /// Its rule options and policies.
    pub ruleset: Vec<crate::input::RuleOption>,
    /// Every metric's statistics.
    pub summary: Vec<crate::engine::statistics::MetricSummary<crate::engine::MetricDef>>,
    /// What one trial is ("charge", "rout"), for chart axes.
    pub trial_word: &'static str,
}

impl From<&RunRecord> for ComparedRun {
    fn from(r: &RunRecord) -> Self {
        use crate::engine::MetricKind;
        Self {
            title: r.title.clone(),
            scenario_file: r.scenario_file.clone(),
            trials: r.trials,
            seed: r.seed,
            command: r.command.clone(),
            ruleset: r.ruleset.clone(),
            summary: r.summary.iter().map(|s| with_def(s, s.metric.def())).collect(),
            trial_word: "charge",
        }
    }
}

impl From<&battlesystem::BattlesystemRecord> for ComparedRun {
    fn from(r: &battlesystem::BattlesystemRecord) -> Self {
        Self {
            title: r.scenario.title.clone(),
            scenario_file: r.scenario_file.clone(),
            trials: r.trials,
            seed: r.seed,
            command: r.command.clone(),
            ruleset: r.scenario.rules.ruleset(),
            summary: r
                .summary
                .iter()
                .zip(&r.metrics.defs)
                .filter(|(_, d)| d.labels.is_empty())
                .map(|(s, d)| with_def(s, d.clone()))
                .collect(),
            trial_word: if r.is_rout() { "rout" } else { "charge" },
        }
    }
}

/// A summary row with its metric named by `def`.
pub(crate) fn with_def<M>(
    s: &crate::engine::statistics::MetricSummary<M>,
    def: crate::engine::MetricDef,
) -> crate::engine::statistics::MetricSummary<crate::engine::MetricDef> {
    crate::engine::statistics::MetricSummary {
        metric: def,
        mean: s.mean,
        sd: s.sd,
        se: s.se,
        ci95_lo: s.ci95_lo,
        ci95_hi: s.ci95_hi,
    }
}

/// The headline metrics every compared run reports, in headline order (described in words
/// every run shares).
pub fn shared_headline(runs: &[ComparedRun]) -> Vec<crate::engine::MetricDef> {
    let Some(first) = runs.first() else { return Vec::new() };
    let defs: Vec<crate::engine::MetricDef> = first
        .summary
        .iter()
        .map(|s| s.metric.clone())
        .filter(|m| runs.iter().all(|r| r.summary.iter().any(|s| s.metric.name == m.name)))
        .map(|mut m| {
            // A description naming one scenario's unit ("Pikemen routed") would mislead
            // beside another's ("Knights routed"): then the metric's own name says it.
            let same = runs.iter().all(|r| r.summary.iter().any(|s| s.metric == m));
            if !same {
                m.description = m.name.replace(['_', '.'], " ");
            }
            m
        })
        .collect();
    document::headline_of(&defs)
}

/// The files every `exact` writes, for either system: `exact_summary.csv`,
/// `exact_distribution.csv` (in a run's shape) and `exact.json`.
pub(crate) fn exact_files<M: crate::engine::statistics::MetricName>(
    summary: &[crate::engine::statistics::MetricSummary<M>],
    rows: &[crate::engine::statistics::DistributionRow<M>],
    json: &Value,
) -> Result<Vec<ReportFile>, ReportError> {
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let json = serde_json::to_string_pretty(json).unwrap_or_default();
    Ok(vec![
        ReportFile {
            name: "exact_summary.csv".into(),
            contents: Contents::Frame(
                analysis::summary_frame(summary).map_err(frame_error("exact summary"))?,
                "exact summary",
                FrameFormat::Csv,
            ),
        },
        ReportFile {
            name: "exact_distribution.csv".into(),
            contents: Contents::Frame(
                analysis::distribution_frame(rows).map_err(frame_error("exact distribution"))?,
                "exact distribution",
                FrameFormat::Csv,
            ),
        },
        ReportFile { name: "exact.json".into(), contents: Contents::Bytes(json.into_bytes()) },
    ])
}

/// Writes the side-by-side comparison of several runs (of either system) into `dir`:
/// `report.md`, `comparison.csv` and a chart per headline metric they all report.
pub fn write_comparison(dir: &Path, runs: &[ComparedRun]) -> Result<Vec<PathBuf>, ReportError> {
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    type Row = (String, crate::engine::statistics::MetricSummary<crate::engine::MetricDef>);
    let mut rows: Vec<Row> = Vec::new();
    let mut figures = Vec::new();
    let mut files = Vec::new();
    let titles: Vec<String> = runs.iter().map(|r| r.title.clone()).collect();
    let compared_titles = chart::distinct_names(&titles, (120 / runs.len().max(1)).max(24))
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{}. {t}", i + 1))
        .collect::<Vec<_>>()
        .join("  /  ");
    for metric in shared_headline(runs) {
        let metric_rows: Vec<Row> = runs
            .iter()
            .filter_map(|r| {
                r.summary.iter().find(|s| s.metric.name == metric.name).map(|s| (r.title.clone(), s.clone()))
            })
            .collect();
        rows.extend(metric_rows.iter().cloned());
        if metric_rows.iter().all(|(_, s)| s.mean == 0.0 && s.ci95_hi == 0.0) {
            // Nothing to draw: the report's table says 0 for every scenario.
            continue;
        }
        let frame = analysis::comparison_frame(&metric_rows).map_err(frame_error("comparison"))?;
        let title = capitalise(&metric.description);
        let mut chart = chart::comparison::ComparisonChart::from_frame(&frame, &title, metric.flag)?;
        // Runs of one kind share its word; a mix of charges and routs is counted in trials.
        let words: std::collections::BTreeSet<&str> = runs.iter().map(|r| r.trial_word).collect();
        chart.trial_word = if words.len() == 1 { runs[0].trial_word } else { "trial" }.to_string();
        let rendered = chart::render(&chart, &compared_titles)?;
        let stem = format!("comparison-{}", metric.name);
        push_chart(&mut files, &stem, rendered);
        let listed: Vec<String> =
            metric_rows.iter().map(|(name, s)| format!("{name}: {}", document::headline_value(s).0)).collect();
        figures.push(Figure {
            stem,
            caption: format!("{title} (`{}`) in each scenario, with 95% whiskers.", metric.name),
            alt: format!("Horizontal bar chart. {}.", listed.join("; ")),
        });
    }
    let frame = analysis::comparison_frame(&rows).map_err(frame_error("comparison"))?;
    files.push(ReportFile {
        name: "comparison.csv".into(),
        contents: Contents::Frame(frame, "comparison", FrameFormat::Csv),
    });
    write_with_markdown(dir, files, |names| document::comparison_markdown(runs, &figures, names))
}

/// Writes per-trial rows (`trial` and one column per reported metric) as Parquet to
/// `path`, atomically, chunk by chunk from `chunks` (which calls its sink with each chunk's
/// first trial index and its values, one row of `metrics` per trial). Returns false when `chunks` was cancelled
/// (nothing is then left at `path`).
pub fn write_trials_parquet(
    path: &Path,
    metrics: &[&str],
    chunks: impl FnOnce(&mut crate::engine::ValueSink<'_, PolarsError>) -> Result<bool, PolarsError>,
) -> Result<bool, ReportError> {
    use polars::prelude::{Column, DataType, Field, Schema};
    let frame_error = |source| ReportError::Frame { what: "per-trial", source };
    let mut fields = vec![Field::new("trial".into(), DataType::UInt64)];
    fields.extend(metrics.iter().map(|m| Field::new((*m).into(), DataType::UInt32)));
    let schema: Schema = fields.into_iter().collect();
    let mut polars_error = None;
    let mut cancelled = false;
    let result = write_atomic(path, |file| {
        let run = || -> Result<bool, PolarsError> {
            let mut writer = ParquetWriter::new(&mut *file).batched(&schema)?;
            let stride = metrics.len().max(1);
            let finished = chunks(&mut |first, values| {
                let rows = values.len() / stride;
                let mut columns = vec![Column::new("trial".into(), (first..first + rows as u64).collect::<Vec<u64>>())];
                for (i, &m) in metrics.iter().enumerate() {
                    let column: Vec<u32> = values.chunks_exact(stride).map(|row| u32::from(row[i])).collect();
                    columns.push(Column::new(m.into(), column));
                }
                writer.write_batch(&DataFrame::new(rows, columns)?)
            })?;
            writer.finish()?;
            Ok(finished)
        };
        match run() {
            Ok(true) => Ok(()),
            Ok(false) => {
                cancelled = true;
                Err(std::io::Error::other("cancelled"))
            }
            Err(e) => {
                let io = std::io::Error::other(e.to_string());
                polars_error = Some(e);
                Err(io)
            }
        }
    });
    if let Some(e) = polars_error {
        return Err(frame_error(e));
    }
    match result {
        Ok(()) => Ok(true),
        Err(_) if cancelled => Ok(false),
        Err(e) => Err(e),
    }
}

/// The exact distribution as one JSON object (`exact.json`): the run's shape without
/// trials, seed or intervals.
pub fn exact_json(scenario: &Scenario, plan: &Plan, distribution: &exact::ExactDistribution, elapsed_s: f64) -> Value {
    let mut metrics = Map::new();
    let mut distributions = Map::new();
    for &m in &plan.metrics {
        let s = distribution.summary(m);
        metrics.insert(m.name().to_string(), json!({ "mean": s.mean, "sd": s.sd }));
        let rows: Vec<Value> = distribution
            .distribution(m)
            .iter()
            .map(|r| json!({"value": r.value, "p": r.p, "p_at_least": r.p_at_least}))
            .collect();
        distributions.insert(m.name().to_string(), Value::Array(rows));
    }
    json!({
        "schema": EXACT_SCHEMA,
        "version": env!("CARGO_PKG_VERSION"),
        "title": scenario.title,
        "scenario_file": scenario.file,
        "scenario_hash": format!("{:016x}", scenario.hash()),
        "elapsed_s": elapsed_s,
        "ruleset": ruleset_json(&scenario.ruleset()),
        "plan": PlanFacts::of(plan),
        "outcomes": distribution.outcomes.len(),
        "metrics": metrics,
        "distributions": distributions,
        "wound_split": plan.chariot.hero.map(|_| {
            distribution
                .wound_split()
                .iter()
                .map(|(c, h, p)| json!({"chariot_wounds_lost": c, "hero_wounds_lost": h, "p": p}))
                .collect::<Vec<_>>()
        }),
    })
}

/// Writes `exact_summary.csv` and `exact_distribution.csv` (the run's frames, with the
/// standard error 0 and each interval the value itself; `count` is 0) and `exact.json`.
pub fn write_exact(
    dir: &Path,
    scenario: &Scenario,
    plan: &Plan,
    distribution: &exact::ExactDistribution,
    elapsed_s: f64,
) -> Result<Vec<PathBuf>, ReportError> {
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let summary: Vec<MetricSummary> = plan.metrics.iter().map(|&m| distribution.summary(m)).collect();
    let rows: Vec<DistributionRow> = plan.metrics.iter().flat_map(|&m| distribution.distribution(m)).collect();
    let mut files = exact_files(&summary, &rows, &exact_json(scenario, plan, distribution, elapsed_s))?;
    if plan.chariot.hero.is_some() {
        let cells = distribution.wound_split();
        let frame = polars::df!(
            "chariot_wounds_lost" => cells.iter().map(|c| u32::from(c.0)).collect::<Vec<_>>(),
            "hero_wounds_lost" => cells.iter().map(|c| u32::from(c.1)).collect::<Vec<_>>(),
            "p" => cells.iter().map(|c| c.2).collect::<Vec<_>>(),
        )
        .map_err(frame_error("exact wound split"))?;
        files.push(ReportFile {
            name: "exact_wound_split.csv".into(),
            contents: Contents::Frame(frame, "exact wound split", FrameFormat::Csv),
        });
    }
    write_files(dir, files)
}
