//! One metric across a one-field sweep: its mean at each value with the 95% band.

use super::{BAND, Chart, INK, label_style, msg, percent_label, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Mean and interval of a metric at each swept value (drawn at positions 0..n, labelled
/// with the values as written).
#[derive(Clone, Debug)]
pub struct SweepLineChart {
    /// The caption.
    pub title: String,
    /// The swept field.
    pub x_label: String,
    /// The values as written.
    pub labels: Vec<String>,
    /// Mean at each value.
    pub mean: Vec<f64>,
    /// 95% interval at each value.
    pub band: Vec<(f64, f64)>,
    /// Whether the metric is a probability (axis in percent).
    pub probability: bool,
    /// What one trial is ("charge", "rout"), for the axis.
    pub trial_word: String,
}

impl Chart for SweepLineChart {
    const KIND: &'static str = "sweep line";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let n = self.mean.len().max(1);
        let top = self.band.iter().map(|b| b.1).fold(0.0f64, f64::max).max(1e-6) * 1.1;
        let top = if self.probability { top.min(1.0) } else { top };
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style())
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(80)
            .build_cartesian_2d(-0.3..(n as f64 - 0.7), 0.0..top)
            .map_err(msg)?;
        let labels = self.labels.clone();
        let probability = self.probability;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .x_desc(&self.x_label)
            .y_desc(if probability {
                format!("share of {}s", self.trial_word)
            } else {
                format!("mean per {}", self.trial_word)
            })
            .x_labels(n.min(25))
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 {
                    labels.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| if probability { percent_label(*y, top) } else { format!("{y:.2}") })
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        let xs = (0..self.mean.len()).map(|i| i as f64);
        let mut band: Vec<(f64, f64)> = xs.clone().zip(self.band.iter().map(|b| b.1)).collect();
        band.extend(xs.clone().zip(self.band.iter().map(|b| b.0)).rev());
        chart.draw_series(std::iter::once(Polygon::new(band, BAND.mix(0.8).filled()))).map_err(msg)?;
        chart
            .draw_series(LineSeries::new(xs.clone().zip(self.mean.iter().copied()), INK.stroke_width(3)))
            .map_err(msg)?;
        chart.draw_series(xs.zip(self.mean.iter()).map(|(x, &m)| Circle::new((x, m), 5, INK.filled()))).map_err(msg)?;
        Ok(())
    }
}
