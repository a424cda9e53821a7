//! How the charges (or routs) ended: one horizontal bar per way of ending, the classes
//! splitting every trial, each with its share written at its end, its 95% interval and,
//! when known, the exact chance marked. The most quotable split of a report, as a picture.

use super::{ACCENT, Chart, FONT, INK, label_style, msg, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One way of ending.
#[derive(Clone, Debug)]
pub struct Ending {
    /// In a reader's words ("stopped, won the fight").
    pub words: String,
    /// Its share of the trials.
    pub p: f64,
    /// Its 95% interval.
    pub lo: f64,
    /// See `lo`.
    pub hi: f64,
    /// The exact chance, when known.
    pub exact: Option<f64>,
}

/// The x axis's words for shares of `trials` ("charges", "turns", "routs"), naming the
/// exact chance's cross only when some bar has one.
pub fn axis_words(trials: &str, exact: bool) -> String {
    if exact {
        format!("share of {trials} (bar), its 95% interval (line), the exact chance (cross)")
    } else {
        format!("share of {trials} (bar) and its 95% interval (line)")
    }
}

/// The chart.
#[derive(Clone, Debug)]
pub struct EndingsChart {
    /// The caption.
    pub title: String,
    /// The x axis's words ("share of charges (bar), 95% interval (line), exact (cross)").
    pub axis: String,
    /// The classes, drawn top to bottom in this order.
    pub endings: Vec<Ending>,
}

impl Chart for EndingsChart {
    const KIND: &'static str = "endings";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let n = self.endings.len().max(1) as i32;
        // Room on the right for the share written after the longest bar.
        let top = self.endings.iter().map(|e| e.hi.max(e.p)).fold(0.0f64, f64::max);
        let x_max = (top * 1.22).clamp(0.1, 1.22);
        let longest = self.endings.iter().map(|e| e.words.chars().count()).max().unwrap_or(10);
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style())
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size((longest as u32 * 9 + 20).clamp(120, 380))
            .build_cartesian_2d(0.0..x_max, (0..n - 1).into_segmented())
            .map_err(msg)?;
        let words: Vec<String> = self.endings.iter().map(|e| e.words.clone()).collect();
        chart
            .configure_mesh()
            .disable_y_mesh()
            .light_line_style(TRANSPARENT)
            .x_desc(self.axis.as_str())
            .x_labels(6)
            .x_label_formatter(&|x| if *x <= 1.0 + 1e-9 { format!("{:.0}%", x * 100.0) } else { String::new() })
            .y_labels(n as usize)
            .y_label_formatter(&|v| match v {
                // Top to bottom in the listed order.
                SegmentValue::CenterOf(i) => words.get((n - 1 - *i) as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        let row = |k: usize| n - 1 - k as i32;
        chart
            .draw_series(self.endings.iter().enumerate().map(|(k, e)| {
                let mut bar = Rectangle::new(
                    [(0.0, SegmentValue::Exact(row(k))), (e.p, SegmentValue::Exact(row(k) + 1))],
                    ACCENT.mix(0.85).filled(),
                );
                bar.set_margin(8, 8, 0, 0);
                bar
            }))
            .map_err(msg)?;
        chart
            .draw_series(self.endings.iter().enumerate().filter(|(_, e)| e.hi > e.lo).map(|(k, e)| {
                PathElement::new(
                    vec![(e.lo, SegmentValue::CenterOf(row(k))), (e.hi, SegmentValue::CenterOf(row(k)))],
                    BLACK.stroke_width(2),
                )
            }))
            .map_err(msg)?;
        if self.endings.iter().any(|e| e.exact.is_some()) {
            chart
                .draw_series(self.endings.iter().enumerate().filter_map(|(k, e)| {
                    e.exact.map(|x| Cross::new((x, SegmentValue::CenterOf(row(k))), 7, INK.stroke_width(3)))
                }))
                .map_err(msg)?;
        }
        // The share, after the bar (and its whisker).
        let style = (FONT, 16).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
        let (w, _) = chart.plotting_area().dim_in_pixel();
        let nudge = 8.0 * x_max / f64::from(w.max(1));
        chart
            .draw_series(self.endings.iter().enumerate().map(|(k, e)| {
                Text::new(
                    super::super::document::percent(e.p),
                    (e.p.max(e.hi) + nudge, SegmentValue::CenterOf(row(k))),
                    style.clone(),
                )
            }))
            .map_err(msg)?;
        Ok(())
    }
}
