//! The cost sweep of a balance: the scenario's efficiency (enemy points destroyed per point)
//! at each price, against the reference efficiency, with the fair price marked.

use super::{ACCENT, BAND, Chart, INK, label_style, legend, msg, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Efficiency against price.
#[derive(Clone, Debug)]
pub struct CostChart {
    /// The caption.
    pub title: String,
    /// Prices on the curve.
    pub prices: Vec<f64>,
    /// Efficiency at each price.
    pub efficiency: Vec<f64>,
    /// Its 95% band (low, high) at each price.
    pub band: Vec<(f64, f64)>,
    /// The efficiency to match.
    pub target: f64,
    /// The fair price and its 95% interval.
    pub fair: (f64, f64, f64),
    /// The price the scenario pays now.
    pub current: f64,
}

impl Chart for CostChart {
    const KIND: &'static str = "cost sweep";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let x0 = self.prices.first().copied().unwrap_or(0.0);
        let x1 = self.prices.last().copied().unwrap_or(1.0).max(x0 + 1e-9);
        let top = self.band.iter().map(|b| b.1).fold(self.target, f64::max) * 1.1;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style())
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(80)
            .build_cartesian_2d(x0..x1, 0.0..top.max(1e-9))
            .map_err(msg)?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .x_desc("price (points)")
            .y_desc("enemy points destroyed per point")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.2}"))
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        let (fair, lo, hi) = self.fair;
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(lo.max(x0), 0.0), (hi.min(x1), top)],
                BAND.mix(0.5).filled(),
            )))
            .map_err(msg)?
            .label("fair price, 95% interval")
            .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 18, y + 6)], BAND.filled()));
        let mut band: Vec<(f64, f64)> = self.prices.iter().copied().zip(self.band.iter().map(|b| b.1)).collect();
        band.extend(self.prices.iter().copied().zip(self.band.iter().map(|b| b.0)).rev());
        chart.draw_series(std::iter::once(Polygon::new(band, INK.mix(0.2).filled()))).map_err(msg)?;
        chart
            .draw_series(LineSeries::new(
                self.prices.iter().copied().zip(self.efficiency.iter().copied()),
                INK.stroke_width(3),
            ))
            .map_err(msg)?
            .label("this chariot at each price")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], INK.stroke_width(3)));
        chart
            .draw_series(LineSeries::new(vec![(x0, self.target), (x1, self.target)], ACCENT.stroke_width(2)))
            .map_err(msg)?
            .label("efficiency to match")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], ACCENT.stroke_width(2)));
        chart
            .draw_series(std::iter::once(PathElement::new(vec![(fair, 0.0), (fair, top)], BLACK.stroke_width(2))))
            .map_err(msg)?
            .label(format!("fair price {fair:.1}"))
            .legend(|(x, y)| PathElement::new(vec![(x + 9, y - 7), (x + 9, y + 7)], BLACK.stroke_width(2)));
        let current = self.current;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(current, 0.0), (current, top)],
                RGBColor(120, 120, 120).stroke_width(2),
            )))
            .map_err(msg)?
            .label(format!("current price {current:.0}"))
            .legend(|(x, y)| {
                PathElement::new(vec![(x + 9, y - 7), (x + 9, y + 7)], RGBColor(120, 120, 120).stroke_width(2))
            });
        legend(&mut chart)?;
        Ok(())
    }
}
