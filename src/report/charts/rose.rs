//! A clock rose: the share of trials giving each d12 hour, as wedges around a clock face
//! (12 at the top), with the uniform 1/12 drawn as a circle for reference.

use super::{BAND, Chart, ChartError, FONT, INK, column_f64, msg, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use polars::prelude::DataFrame;

/// Wedges of P(hour) for the twelve clock hours.
#[derive(Clone, Debug)]
pub struct RoseChart {
    /// The caption.
    pub title: String,
    /// P(hour = h) for h = 1..=12 (index 0 is hour 1).
    p: [f64; 12],
}

impl RoseChart {
    /// Reads the distribution frame of the heading metric (`value` 1-12, `p`).
    pub fn from_frame(frame: &DataFrame, title: &str) -> Result<Self, ChartError> {
        let values = column_f64(frame, Self::KIND, "value")?;
        let ps = column_f64(frame, Self::KIND, "p")?;
        let mut p = [0.0; 12];
        for (v, q) in values.into_iter().zip(ps) {
            if (1.0..=12.0).contains(&v) {
                p[v as usize - 1] = q;
            }
        }
        Ok(Self { title: title.to_string(), p })
    }
}

impl Chart for RoseChart {
    const KIND: &'static str = "rose";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let titled = root.titled(&self.title, title_style()).map_err(msg)?;
        let (w, h) = titled.dim_in_pixel();
        let side = w.min(h);
        let square = titled.margin(0, 0, (w - side) / 2, (w - side) / 2);
        let top = self.p.iter().copied().fold(1.0 / 12.0, f64::max) * 1.25;
        let mut chart = ChartBuilder::on(&square).margin(10).build_cartesian_2d(-1.2..1.2, -1.2..1.2).map_err(msg)?;
        let point = |angle_deg: f64, r: f64| {
            let a = angle_deg.to_radians();
            (r * a.sin(), r * a.cos())
        };
        // Reference: the uniform 1/12.
        let uniform = 1.0 / 12.0 / top;
        let circle: Vec<(f64, f64)> = (0..=120).map(|k| point(f64::from(k) * 3.0, uniform)).collect();
        chart.draw_series(std::iter::once(PathElement::new(circle, BAND.stroke_width(2)))).map_err(msg)?;
        for (i, &p) in self.p.iter().enumerate() {
            let hour = i as u32 + 1;
            let centre = f64::from(hour % 12) * 30.0;
            let r = p / top;
            let mut wedge = vec![(0.0, 0.0)];
            wedge.extend((0..=10).map(|k| point(centre - 13.0 + 2.6 * f64::from(k), r)));
            chart.draw_series(std::iter::once(Polygon::new(wedge, INK.mix(0.8).filled()))).map_err(msg)?;
            let label = (FONT, 16).into_font().color(&BLACK).pos(Pos::new(HPos::Center, VPos::Center));
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("{hour}: {:.1}%", p * 100.0),
                    point(centre, 1.08),
                    label,
                )))
                .map_err(msg)?;
        }
        let note = (FONT, 14).into_font().color(&BLACK);
        chart.draw_series(std::iter::once(Text::new("grey circle: 1/12 each", (-1.18, -1.15), note))).map_err(msg)?;
        Ok(())
    }
}
