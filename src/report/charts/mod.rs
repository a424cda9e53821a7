//! Charts of a run, drawn with plotters from the analysis frames (never computing
//! statistics here) and written as PNG and SVG. Text uses the bundled DejaVu Sans (via
//! plotters' `ab_glyph` feature), so charts render the same on a machine without fonts.
//!
//! Each chart kind lives in its own module and implements [`Chart`]; [`render`] draws it
//! once per backend and returns both files' contents (the report writes them).

pub mod at_least;
pub mod board_map;
pub mod charge_board;
pub mod comparison;
pub mod cost;
pub mod difference;
pub mod distribution;
pub mod endings;
pub mod impact_chain;
pub mod matchups;
pub mod rose;
pub mod scaled;
pub mod svg_text;
pub mod sweep_heatmap;
pub mod sweep_line;
pub mod typeset;
pub mod wound_split;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use polars::prelude::{DataFrame, DataType};
use std::sync::Once;

/// Width and height of every chart, pixels.
pub const SIZE: (u32, u32) = (960, 560);

/// The font family charts use (registered from the bundled files).
pub const FONT: &str = "sans-serif";

const REGULAR: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
const BOLD: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-Bold.ttf");

/// The colour of the main series.
pub const INK: RGBColor = RGBColor(31, 95, 153);
/// The colour of a second series.
pub const ACCENT: RGBColor = RGBColor(214, 104, 35);
/// Light grey for bands and grid.
pub const BAND: RGBColor = RGBColor(190, 208, 226);

/// Why a chart could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// The frame lacks a column the chart draws, or it has the wrong type.
    #[error("the {chart} chart cannot read column `{column}`: {reason}")]
    Column {
        /// Which chart.
        chart: &'static str,
        /// The column.
        column: String,
        /// What went wrong.
        reason: String,
    },
    /// Plotters failed while drawing.
    #[error("drawing the {chart} chart failed: {reason}")]
    Draw {
        /// Which chart.
        chart: &'static str,
        /// What went wrong.
        reason: String,
    },
    /// The PNG could not be encoded.
    #[error("encoding the {chart} chart as PNG failed: {reason}")]
    Encode {
        /// Which chart.
        chart: &'static str,
        /// What went wrong.
        reason: String,
    },
}

/// A chart: its name and how to draw it on any plotters backend.
pub trait Chart {
    /// A short name for messages (e.g. `distribution`).
    const KIND: &'static str;

    /// Draws the whole chart on `root`.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

/// Registers the bundled fonts with plotters (once per process).
fn register_fonts() {
    static FONTS: Once = Once::new();
    FONTS.call_once(|| {
        // Both files are bundled and known to parse; a failure would show as missing
        // text, which the report tests catch.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, REGULAR);
        let _ = plotters::style::register_font(FONT, FontStyle::Bold, BOLD);
    });
}

/// A chart drawn for both formats.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// PNG file contents.
    pub png: Vec<u8>,
    /// SVG document (text as glyph outlines or `<text>`, as [`RenderOptions::svg_text`]).
    pub svg: String,
}

/// How charts are written, the same for every chart of a process (set once by the
/// command line's `--png-scale`/`--dpi` and `--svg-text`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct RenderOptions {
    /// PNG pixels per chart pixel: 1 gives [`SIZE`], 2 twice that each way for print.
    pub png_scale: f64,
    /// How SVGs carry their text.
    pub svg_text: svg_text::SvgText,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self { png_scale: 1.0, svg_text: svg_text::SvgText::Paths }
    }
}

/// The smallest and largest PNG scale: below, text is unreadable; above, a chart is
/// tens of megabytes of pixels.
pub const PNG_SCALES: std::ops::RangeInclusive<f64> = 0.5..=4.0;

static OPTIONS: std::sync::OnceLock<RenderOptions> = std::sync::OnceLock::new();

/// Sets how this process writes charts; the first call wins (returns false after).
pub fn set_render_options(options: RenderOptions) -> bool {
    OPTIONS.set(options).is_ok()
}

/// How this process writes charts.
pub fn render_options() -> RenderOptions {
    OPTIONS.get().copied().unwrap_or_default()
}

/// Draws `chart` once as a PNG ([`SIZE`] pixels times the PNG scale) and once as an SVG.
pub fn render<C: Chart>(chart: &C, source: &str) -> Result<Rendered, ChartError> {
    render_with(chart, source, render_options())
}

/// [`render`] with the given options.
pub fn render_with<C: Chart>(chart: &C, source: &str, options: RenderOptions) -> Result<Rendered, ChartError> {
    register_fonts();
    let scale = options.png_scale.clamp(*PNG_SCALES.start(), *PNG_SCALES.end());
    let (w, h) = ((f64::from(SIZE.0) * scale).round() as u32, (f64::from(SIZE.1) * scale).round() as u32);
    let draw_error = |reason: String| ChartError::Draw { chart: C::KIND, reason };
    let mut pixels = vec![255u8; (w * h * 3) as usize];
    {
        let bitmap = BitMapBackend::with_buffer(&mut pixels, (w, h));
        let backend = typeset::Typeset::new(bitmap, REGULAR, BOLD)
            .ok_or_else(|| draw_error("the bundled fonts cannot be read".into()))?;
        if scale == 1.0 {
            let root = backend.into_drawing_area();
            draw_with_source(chart, &root, source).map_err(draw_error)?;
            root.present().map_err(|e| draw_error(e.to_string()))?;
        } else {
            let root = scaled::Scaled::new(backend, scale).into_drawing_area();
            draw_with_source(chart, &root, source).map_err(draw_error)?;
            root.present().map_err(|e| draw_error(e.to_string()))?;
        }
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        draw_with_source(chart, &root, source).map_err(draw_error)?;
        root.present().map_err(|e| draw_error(e.to_string()))?;
    }
    if options.svg_text == svg_text::SvgText::Paths {
        svg = svg_text::text_to_paths(&svg, REGULAR, BOLD);
    }
    let png = encode_png(&pixels, w, h).map_err(|reason| ChartError::Encode { chart: C::KIND, reason })?;
    Ok(Rendered { png, svg })
}

/// Width of the colour scale beside a heatmap.
pub const SCALE_STRIP: u32 = 130;

/// Draws a heatmap's colour scale into `area` (a strip beside the map): a vertical bar
/// from t = 0 (bottom) to 1 (top) coloured by `colour_at`, with each `(t, text)` label
/// beside its tick and `title` above.
pub(crate) fn colour_scale<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    colour_at: &dyn Fn(f64) -> RGBColor,
    labels: &[(f64, String)],
    title: &str,
) -> Result<(), String> {
    let (_, h) = area.dim_in_pixel();
    colour_bar(area, colour_at, labels, title, (80, h as i32 - 90))
}

/// [`colour_scale`] with the bar from `top` to `bottom` pixels of `area`.
pub(crate) fn colour_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    colour_at: &dyn Fn(f64) -> RGBColor,
    labels: &[(f64, String)],
    title: &str,
    (top, bottom): (i32, i32),
) -> Result<(), String> {
    let (x0, x1) = (8i32, 30i32);
    let steps = 120;
    let span = f64::from(bottom - top);
    for i in 0..steps {
        let (a, b) = (f64::from(i) / f64::from(steps), f64::from(i + 1) / f64::from(steps));
        let (ya, yb) = (bottom - (a * span) as i32, bottom - (b * span) as i32);
        area.draw(&Rectangle::new([(x0, yb), (x1, ya)], colour_at((a + b) / 2.0).filled())).map_err(msg)?;
    }
    area.draw(&Rectangle::new([(x0, top), (x1, bottom)], BLACK.stroke_width(1))).map_err(msg)?;
    let style = (FONT, 14).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
    for (t, text) in labels {
        let y = bottom - (t.clamp(0.0, 1.0) * span) as i32;
        area.draw(&PathElement::new(vec![(x1, y), (x1 + 5, y)], BLACK.stroke_width(1))).map_err(msg)?;
        area.draw(&Text::new(text.clone(), (x1 + 8, y), style.clone())).map_err(msg)?;
    }
    let head = (FONT, 14).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Bottom));
    area.draw(&Text::new(title.to_string(), (x0, top - 16), head)).map_err(msg)?;
    Ok(())
}

/// Height of the strip above every chart naming the scenario (or scenarios) it shows.
pub const SOURCE_STRIP: u32 = 24;

/// Draws `chart` below a strip naming its `source` (the scenario's title, or A and B), so
/// a chart pasted on its own still says what it is of. A source too long for the strip
/// ends in "...".
fn draw_with_source<C: Chart, DB: DrawingBackend>(
    chart: &C,
    root: &DrawingArea<DB, plotters::coord::Shift>,
    source: &str,
) -> Result<(), String> {
    root.fill(&WHITE).map_err(msg)?;
    let (strip, rest) = root.split_vertically(SOURCE_STRIP);
    let limit = 130;
    let text: String = if source.chars().count() > limit {
        format!("{}...", source.chars().take(limit - 3).collect::<String>())
    } else {
        source.to_string()
    };
    let (w, _) = strip.dim_in_pixel();
    let style = (FONT, 14).into_font().color(&RGBColor(90, 90, 90)).pos(Pos::new(HPos::Center, VPos::Center));
    strip.draw(&Text::new(text, ((w / 2) as i32, (SOURCE_STRIP / 2 + 2) as i32), style)).map_err(msg)?;
    chart.draw(&rest)
}

fn encode_png(rgb: &[u8], w: u32, h: u32) -> Result<Vec<u8>, String> {
    use image::ImageEncoder;
    let mut bytes = Vec::new();
    image::codecs::png::PngEncoder::new(&mut bytes)
        .write_image(rgb, w, h, image::ExtendedColorType::Rgb8)
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// Reads a numeric column of `frame` as `f64`s (nulls as NaN).
pub fn column_f64(frame: &DataFrame, chart: &'static str, name: &str) -> Result<Vec<f64>, ChartError> {
    let err = |reason: String| ChartError::Column { chart, column: name.to_string(), reason };
    let column = frame.column(name).map_err(|e| err(e.to_string()))?;
    let cast = column.cast(&DataType::Float64).map_err(|e| err(e.to_string()))?;
    let values = cast.f64().map_err(|e| err(e.to_string()))?;
    Ok(values.iter().map(|v| v.unwrap_or(f64::NAN)).collect())
}

/// Reads a text column of `frame`.
pub fn column_str(frame: &DataFrame, chart: &'static str, name: &str) -> Result<Vec<String>, ChartError> {
    let err = |reason: String| ChartError::Column { chart, column: name.to_string(), reason };
    let column = frame.column(name).map_err(|e| err(e.to_string()))?;
    let values = column.str().map_err(|e| err(e.to_string()))?;
    Ok(values.iter().map(|v| v.unwrap_or_default().to_string()).collect())
}

/// Names shortened to `max_chars` each where the differing words survive: the words every
/// name shares at the start (then at the end) are cut first, marked by an ellipsis, and
/// only a difference that is itself too long is cut at its end. Names that fit are kept.
pub fn distinct_names(names: &[String], max_chars: usize) -> Vec<String> {
    let fits = |s: &str| s.chars().count() <= max_chars;
    let cut = |s: &str| format!("{}…", s.chars().take(max_chars.saturating_sub(1)).collect::<String>());
    let words: Vec<Vec<&str>> = names.iter().map(|n| n.split_whitespace().collect()).collect();
    let shortest = words.iter().map(Vec::len).min().unwrap_or(0);
    let shared = |at: &dyn Fn(&Vec<&str>, usize) -> Option<String>| {
        (0..shortest).take_while(|&i| words.iter().all(|w| at(w, i) == at(&words[0], i))).count()
    };
    let (mut head, mut tail) = (0, 0);
    if names.len() > 1 {
        head = shared(&|w, i| w.get(i).map(|s| s.to_string()));
        tail = shared(&|w, i| w.len().checked_sub(i + 1).and_then(|j| w.get(j)).map(|s| s.to_string()));
        // Every name keeps at least one word of its own.
        tail = tail.min(shortest.saturating_sub(head + 1));
        head = head.min(shortest.saturating_sub(1));
    }
    names
        .iter()
        .zip(&words)
        .map(|(name, w)| {
            if fits(name) {
                return name.clone();
            }
            let lead = if head > 0 { "…" } else { "" };
            let rest = format!("{lead}{}", w[head..].join(" "));
            if fits(&rest) {
                return rest;
            }
            let middle = format!("{lead}{}…", w[head..w.len() - tail].join(" "));
            if tail > 0 && fits(&middle) { middle } else { cut(&rest) }
        })
        .collect()
}

/// A percentage label for a probability axis tick (`12.5%`), with as few decimals as the
/// axis range needs.
pub fn percent_label(p: f64, range: f64) -> String {
    // About ten ticks span the range: enough decimals that neighbouring ticks differ.
    let decimals = if range <= 0.0 || !range.is_finite() {
        2
    } else {
        let step_percent = range * 100.0 / 10.0;
        (-step_percent.log10()).ceil().clamp(0.0, 4.0) as usize
    };
    format!("{:.*}%", decimals, p * 100.0)
}

/// A caption style: the bundled font, bold.
pub fn title_style() -> TextStyle<'static> {
    (FONT, 24).into_font().style(FontStyle::Bold).color(&BLACK)
}

/// The style of axis labels and descriptions.
pub fn label_style() -> TextStyle<'static> {
    (FONT, 17).into_font().color(&BLACK)
}

/// Draws the series legend in the upper right corner, the same on every chart.
pub fn legend<'a, DB, CT>(chart: &mut ChartContext<'a, DB, CT>) -> Result<(), String>
where
    DB: DrawingBackend + 'a,
    CT: plotters::coord::CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(label_style())
        .draw()
        .map_err(msg)
}

/// Converts any drawing error to its message.
pub fn msg<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// A bar's inset (pixels each side) that leaves it a visible width: at most `wanted`, and at
/// most a quarter of one of `segments` slots across `span` pixels, so bars of many narrow
/// slots never turn inside out (negative widths).
pub(crate) fn bar_margin(span: u32, segments: usize, wanted: u32) -> u32 {
    let slot = f64::from(span) / segments.max(1) as f64;
    ((slot / 4.0).floor().max(0.0) as u32).min(wanted)
}

#[cfg(test)]
mod percent_tests {
    use super::percent_label;

    #[test]
    fn neighbouring_ticks_read_differently_at_any_range() {
        assert_eq!(percent_label(0.5, 1.0), "50%");
        assert_eq!(percent_label(0.031, 0.05), "3.1%");
        // A range of 0.02 percentage points: ticks 0.002 points apart.
        let ticks: Vec<String> = (0..10).map(|i| percent_label(f64::from(i) * 0.00002, 0.0002)).collect();
        let mut unique = ticks.clone();
        unique.dedup();
        assert_eq!(unique.len(), ticks.len(), "{ticks:?}");
    }
}

#[cfg(test)]
mod name_tests {
    use super::distinct_names;

    fn owned(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn long_names_lose_their_shared_words_not_their_difference() {
        let names = owned(&[
            "Khandish charioteer charges a Minas Tirith shield wall",
            "Khandish charioteer drives through a wood into a shield wall",
        ]);
        let short = distinct_names(&names, 46);
        assert_eq!(short, ["…charges a Minas Tirith shield wall", "…drives through a wood into a shield wall"]);
        // Shorter still: the shared end goes too.
        let short = distinct_names(&names, 30);
        assert_eq!(short, ["…charges a Minas Tirith…", "…drives through a wood into a…"]);
        for s in &short {
            assert!(s.chars().count() <= 30, "{s}");
        }
        // Names that fit are kept whole, and one name alone is cut at its end.
        assert_eq!(distinct_names(&names, 80), names);
        assert_eq!(distinct_names(&owned(&["abcdef ghij"]), 6), ["abcde…"]);
    }
}
