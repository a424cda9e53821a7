//! Paired differences (B - A, B's gain over A) of several metrics: horizontal bars from zero with 95%
//! whiskers, one axis unit per chart (percentage points, or counts).

use super::{ACCENT, Chart, ChartError, INK, column_f64, column_str, label_style, msg, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use polars::prelude::DataFrame;

/// Bars of B - A per metric, named in words.
#[derive(Clone, Debug)]
pub struct DifferenceChart {
    /// The caption.
    pub title: String,
    /// The axis description (with its unit).
    pub x_label: String,
    /// Multiplier from the frame's values to the axis (100 for percentage points).
    pub scale: f64,
    names: Vec<String>,
    diff: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl DifferenceChart {
    /// Reads a paired frame (`metric`, `diff`, `ci95_lo`, `ci95_hi`).
    pub fn from_frame(frame: &DataFrame, title: &str, x_label: &str, scale: f64) -> Result<Self, ChartError> {
        let col = |name| column_f64(frame, Self::KIND, name);
        Ok(Self {
            title: title.to_string(),
            x_label: x_label.to_string(),
            scale,
            names: column_str(frame, Self::KIND, "metric")?.iter().map(|m| m.replace(['_', '.'], " ")).collect(),
            diff: col("diff")?,
            lo: col("ci95_lo")?,
            hi: col("ci95_hi")?,
        })
    }
}

impl Chart for DifferenceChart {
    const KIND: &'static str = "difference";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let n = self.names.len() as i32;
        let scaled = |v: &f64| v * self.scale;
        let reach = self.lo.iter().chain(&self.hi).map(|v| scaled(v).abs()).fold(0.0f64, f64::max).max(1e-6) * 1.15;
        let names: Vec<String> = self.names.iter().rev().cloned().collect();
        let row = |i: usize| n - 1 - i as i32;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style())
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(230)
            .build_cartesian_2d(-reach..reach, (0..n.max(1) - 1).into_segmented())
            .map_err(msg)?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .disable_y_mesh()
            .x_desc(&self.x_label)
            .y_labels(names.len())
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .x_label_formatter(&|x| format!("{x:+.2}"))
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        let inset = super::bar_margin(chart.plotting_area().dim_in_pixel().1, n.max(1) as usize + 1, 10);
        chart
            .draw_series(self.diff.iter().enumerate().map(|(i, d)| {
                let colour = if *d >= 0.0 { INK } else { ACCENT };
                let mut bar = Rectangle::new(
                    [(0.0, SegmentValue::Exact(row(i))), (scaled(d), SegmentValue::Exact(row(i) + 1))],
                    colour.filled(),
                );
                bar.set_margin(inset, inset, 0, 0);
                bar
            }))
            .map_err(msg)?;
        chart
            .draw_series(self.lo.iter().zip(&self.hi).enumerate().map(|(i, (lo, hi))| {
                let at = || SegmentValue::CenterOf(row(i));
                PathElement::new(vec![(scaled(lo), at()), (scaled(hi), at())], BLACK.stroke_width(2))
            }))
            .map_err(msg)?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0.0, SegmentValue::Exact(0)), (0.0, SegmentValue::Exact(n))],
                BLACK.stroke_width(1),
            )))
            .map_err(msg)?;
        Ok(())
    }
}
