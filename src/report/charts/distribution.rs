//! The distribution of one metric: P(metric = k) as bars with 95% Wilson whiskers.

use super::{Chart, ChartError, FONT, INK, column_f64, label_style, msg, percent_label, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use polars::prelude::DataFrame;

/// Bars of P(value = k) for one metric.
#[derive(Clone, Debug)]
pub struct DistributionChart {
    /// The caption.
    pub title: String,
    /// What the values count (x axis description).
    pub x_label: String,
    /// What a bar's height is a share of (y axis description).
    pub y_label: String,
    /// Names of the values on the x axis (value `v` is `labels[v]`); empty: the numbers.
    pub labels: Vec<String>,
    values: Vec<i32>,
    p: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl DistributionChart {
    /// Reads the distribution frame of one metric (`value`, `p`, `p_lo`, `p_hi`).
    pub fn from_frame(frame: &DataFrame, title: &str, x_label: &str) -> Result<Self, ChartError> {
        let col = |name| column_f64(frame, Self::KIND, name);
        Ok(Self {
            title: title.to_string(),
            x_label: x_label.to_string(),
            y_label: "share of charges".to_string(),
            labels: Vec::new(),
            values: col("value")?.into_iter().map(|v| v as i32).collect(),
            p: col("p")?,
            lo: col("p_lo")?,
            hi: col("p_hi")?,
        })
    }
}

impl Chart for DistributionChart {
    const KIND: &'static str = "distribution";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let last = self.values.iter().copied().max().unwrap_or(0);
        let top = self.hi.iter().copied().fold(0.0f64, f64::max).max(1e-3) * 1.12;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style())
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(80)
            .build_cartesian_2d((0..last).into_segmented(), 0.0..top)
            .map_err(msg)?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .disable_x_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_labels((last as usize + 1).min(30))
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(v) => {
                    usize::try_from(*v).ok().and_then(|i| self.labels.get(i)).cloned().unwrap_or_else(|| v.to_string())
                }
                _ => String::new(),
            })
            .y_label_formatter(&|y| percent_label(*y, top))
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        let inset = super::bar_margin(chart.plotting_area().dim_in_pixel().0, last as usize + 2, 8);
        chart
            .draw_series(self.values.iter().zip(&self.p).map(|(&v, &p)| {
                let mut bar =
                    Rectangle::new([(SegmentValue::Exact(v), 0.0), (SegmentValue::Exact(v + 1), p)], INK.filled());
                bar.set_margin(0, 0, inset, inset);
                bar
            }))
            .map_err(msg)?;
        chart
            .draw_series(self.values.iter().zip(self.lo.iter().zip(&self.hi)).map(|(&v, (&lo, &hi))| {
                PathElement::new(
                    vec![(SegmentValue::CenterOf(v), lo), (SegmentValue::CenterOf(v), hi)],
                    BLACK.stroke_width(2),
                )
            }))
            .map_err(msg)?;
        // Each bar's share written above it (above its whisker), while there is room.
        if self.values.len() <= 16 {
            let style = (FONT, 14).into_font().color(&BLACK).pos(Pos::new(HPos::Center, VPos::Bottom));
            chart
                .draw_series(self.values.iter().zip(self.p.iter().zip(&self.hi)).map(|(&v, (&p, &hi))| {
                    Text::new(short_percent(p), (SegmentValue::CenterOf(v), hi + top * 0.01), style.clone())
                }))
                .map_err(msg)?;
        }
        Ok(())
    }
}

/// A bar label: one decimal, or "<0.1%" for the rare values.
fn short_percent(p: f64) -> String {
    if p == 0.0 {
        String::new()
    } else if p < 0.001 {
        "<0.1%".to_string()
    } else {
        format!("{:.1}%", p * 100.0)
    }
}
