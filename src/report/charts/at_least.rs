//! "At least k": P(metric >= k) for every k, with its 95% Wilson band.

use super::{BAND, Chart, ChartError, INK, column_f64, label_style, legend, msg, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use polars::prelude::DataFrame;

/// The curve of P(value >= k) with its band.
#[derive(Clone, Debug)]
pub struct AtLeastChart {
    /// The caption.
    pub title: String,
    /// What the values count (x axis description).
    pub x_label: String,
    values: Vec<f64>,
    p: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl AtLeastChart {
    /// Reads the distribution frame of one metric (`value`, `p_at_least` and its bounds).
    pub fn from_frame(frame: &DataFrame, title: &str, x_label: &str) -> Result<Self, ChartError> {
        let col = |name| column_f64(frame, Self::KIND, name);
        Ok(Self {
            title: title.to_string(),
            x_label: x_label.to_string(),
            values: col("value")?,
            p: col("p_at_least")?,
            lo: col("p_at_least_lo")?,
            hi: col("p_at_least_hi")?,
        })
    }
}

impl Chart for AtLeastChart {
    const KIND: &'static str = "at-least";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let last = self.values.iter().copied().fold(1.0f64, f64::max);
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style())
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(80)
            .build_cartesian_2d(-0.3..last + 0.3, 0.0..1.05)
            .map_err(msg)?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .x_desc(&self.x_label)
            .y_desc("share of charges with at least k")
            .x_labels((last as usize + 1).min(30))
            .x_label_formatter(&|x| {
                if (x - x.round()).abs() < 1e-9 && *x >= 0.0 { format!("{x:.0}") } else { String::new() }
            })
            .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        let mut band: Vec<(f64, f64)> = self.values.iter().copied().zip(self.hi.iter().copied()).collect();
        band.extend(self.values.iter().copied().zip(self.lo.iter().copied()).rev());
        chart
            .draw_series(std::iter::once(Polygon::new(band, BAND.mix(0.8).filled())))
            .map_err(msg)?
            .label("95% interval")
            .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 18, y + 6)], BAND.filled()));
        chart
            .draw_series(LineSeries::new(self.values.iter().copied().zip(self.p.iter().copied()), INK.stroke_width(3)))
            .map_err(msg)?
            .label("P(at least k)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], INK.stroke_width(3)));
        chart
            .draw_series(self.values.iter().zip(&self.p).map(|(&k, &p)| Circle::new((k, p), 5, INK.filled())))
            .map_err(msg)?;
        legend(&mut chart)?;
        Ok(())
    }
}
