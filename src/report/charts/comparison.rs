//! One metric across several scenarios: horizontal bars with 95% whiskers.

use super::{Chart, ChartError, INK, column_f64, column_str, label_style, msg, percent_label, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use polars::prelude::DataFrame;

/// The longest scenario name shown in full on the axis.
const NAME_CHARS: usize = 46;

/// Bars of one metric's mean per scenario.
#[derive(Clone, Debug)]
pub struct ComparisonChart {
    /// The caption.
    pub title: String,
    /// Whether the metric is a probability (axis in percent).
    pub probability: bool,
    /// What one trial is called on the axis ("charge" unless set).
    pub trial_word: String,
    names: Vec<String>,
    mean: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl ComparisonChart {
    /// Reads a comparison frame of one metric (`scenario`, `mean`, `ci95_lo`, `ci95_hi`).
    pub fn from_frame(frame: &DataFrame, title: &str, probability: bool) -> Result<Self, ChartError> {
        let col = |name| column_f64(frame, Self::KIND, name);
        Ok(Self {
            title: title.to_string(),
            probability,
            trial_word: "charge".to_string(),
            names: column_str(frame, Self::KIND, "scenario")?,
            mean: col("mean")?,
            lo: col("ci95_lo")?,
            hi: col("ci95_hi")?,
        })
    }
}

impl Chart for ComparisonChart {
    const KIND: &'static str = "comparison";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let n = self.names.len() as i32;
        let right = self.hi.iter().copied().fold(0.0f64, f64::max).max(1e-3) * 1.25;
        let right = if self.probability { right.min(1.0) } else { right };
        // The first scenario at the top: row i is drawn at n - 1 - i.
        // Long names lose the words they share, never the words that tell them apart.
        let names: Vec<String> = super::distinct_names(&self.names, NAME_CHARS - 4)
            .iter()
            .enumerate()
            .map(|(i, s)| format!("{}. {s}", i + 1))
            .rev()
            .collect();
        let row = |i: usize| n - 1 - i as i32;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style())
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(420)
            .build_cartesian_2d(0.0..right, (0..n.max(1) - 1).into_segmented())
            .map_err(msg)?;
        let probability = self.probability;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .disable_y_mesh()
            .x_desc(if probability {
                format!("share of {}s", self.trial_word)
            } else {
                format!("mean per {}", self.trial_word)
            })
            .y_labels(names.len())
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .x_label_formatter(&|x| if probability { percent_label(*x, right) } else { format!("{x:.2}") })
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        let inset = super::bar_margin(chart.plotting_area().dim_in_pixel().1, n.max(1) as usize + 1, 10);
        chart
            .draw_series(self.mean.iter().enumerate().map(|(i, &m)| {
                let i = row(i);
                let mut bar =
                    Rectangle::new([(0.0, SegmentValue::Exact(i)), (m, SegmentValue::Exact(i + 1))], INK.filled());
                bar.set_margin(inset, inset, 0, 0);
                bar
            }))
            .map_err(msg)?;
        chart
            .draw_series(self.lo.iter().zip(&self.hi).enumerate().map(|(i, (&lo, &hi))| {
                let i = row(i);
                PathElement::new(
                    vec![(lo, SegmentValue::CenterOf(i)), (hi, SegmentValue::CenterOf(i))],
                    BLACK.stroke_width(2),
                )
            }))
            .map_err(msg)?;
        let value_style = label_style().pos(Pos::new(HPos::Left, VPos::Center));
        chart
            .draw_series(self.mean.iter().zip(&self.hi).enumerate().map(|(i, (&m, &hi))| {
                let label = if probability { percent_label(m, 0.0) } else { format!("{m:.3}") };
                Text::new(label, (hi + right * 0.01, SegmentValue::CenterOf(row(i))), value_style.clone())
            }))
            .map_err(msg)?;
        Ok(())
    }
}
