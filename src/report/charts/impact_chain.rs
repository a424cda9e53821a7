//! The impact chain: how often the charge reached each group of contacts along its path,
//! and how often a survivor there stopped it, with the exact stopping chances marked.

use super::{ACCENT, BAND, Chart, ChartError, INK, column_f64, label_style, legend, msg, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use polars::prelude::DataFrame;

/// Bars of P(reached step g) and P(stopped at step g) per contact group.
#[derive(Clone, Debug)]
pub struct ImpactChainChart {
    /// The caption.
    pub title: String,
    distance: Vec<f64>,
    reached: Vec<f64>,
    reached_lo: Vec<f64>,
    reached_hi: Vec<f64>,
    stopped: Vec<f64>,
    stopped_lo: Vec<f64>,
    stopped_hi: Vec<f64>,
    exact: Vec<f64>,
}

impl ImpactChainChart {
    /// Reads the impact chain frame.
    pub fn from_frame(frame: &DataFrame, title: &str) -> Result<Self, ChartError> {
        let col = |name| column_f64(frame, Self::KIND, name);
        Ok(Self {
            title: title.to_string(),
            distance: col("distance")?,
            reached: col("p_reached")?,
            reached_lo: col("p_reached_lo")?,
            reached_hi: col("p_reached_hi")?,
            stopped: col("p_stopped")?,
            stopped_lo: col("p_stopped_lo")?,
            stopped_hi: col("p_stopped_hi")?,
            exact: col("p_stopped_exact")?,
        })
    }
}

impl Chart for ImpactChainChart {
    const KIND: &'static str = "impact chain";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let steps = self.distance.len() as i32;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style())
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(80)
            .build_cartesian_2d((1..steps.max(1)).into_segmented(), 0.0..1.08)
            .map_err(msg)?;
        let distance = self.distance.clone();
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .disable_x_mesh()
            .x_desc("contact along the path (inches driven when touched)")
            .y_desc("share of charges")
            .x_labels((steps as usize).min(24))
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(g) => {
                    distance.get((*g - 1) as usize).map_or_else(String::new, |d| format!("{g} ({d:.1}\")"))
                }
                _ => String::new(),
            })
            .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        let step = |g: usize| g as i32 + 1;
        let span = chart.plotting_area().dim_in_pixel().0;
        let (wide, narrow) =
            (super::bar_margin(span, steps as usize + 1, 6), super::bar_margin(span, steps as usize + 1, 22));
        chart
            .draw_series(self.reached.iter().enumerate().map(|(g, &p)| {
                let mut bar = Rectangle::new(
                    [(SegmentValue::Exact(step(g)), 0.0), (SegmentValue::Exact(step(g) + 1), p)],
                    BAND.filled(),
                );
                bar.set_margin(0, 0, wide, wide);
                bar
            }))
            .map_err(msg)?
            .label("reached this contact")
            .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 18, y + 6)], BAND.filled()));
        chart
            .draw_series(self.stopped.iter().enumerate().map(|(g, &p)| {
                let mut bar = Rectangle::new(
                    [(SegmentValue::Exact(step(g)), 0.0), (SegmentValue::Exact(step(g) + 1), p)],
                    ACCENT.filled(),
                );
                bar.set_margin(0, 0, narrow.max(wide), narrow.max(wide));
                bar
            }))
            .map_err(msg)?
            .label("stopped here")
            .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 18, y + 6)], ACCENT.filled()));
        let whisker = |g: usize, lo: f64, hi: f64| {
            PathElement::new(
                vec![(SegmentValue::CenterOf(step(g)), lo), (SegmentValue::CenterOf(step(g)), hi)],
                BLACK.stroke_width(2),
            )
        };
        chart
            .draw_series(
                self.reached_lo.iter().zip(&self.reached_hi).enumerate().map(|(g, (&lo, &hi))| whisker(g, lo, hi)),
            )
            .map_err(msg)?;
        chart
            .draw_series(
                self.stopped_lo.iter().zip(&self.stopped_hi).enumerate().map(|(g, (&lo, &hi))| whisker(g, lo, hi)),
            )
            .map_err(msg)?;
        chart
            .draw_series(
                self.exact
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.is_finite())
                    .map(|(g, &p)| Cross::new((SegmentValue::CenterOf(step(g)), p), 7, INK.stroke_width(3))),
            )
            .map_err(msg)?
            .label("exact chance of stopping here")
            .legend(|(x, y)| Cross::new((x + 9, y), 6, INK.stroke_width(3)));
        legend(&mut chart)?;
        Ok(())
    }
}
