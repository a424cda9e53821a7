//! The wound split: the joint distribution of Wounds the chariot lost and Wounds its
//! Hero lost, as a heatmap with each cell's share written in it.

use super::{Chart, ChartError, FONT, column_f64, label_style, msg, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use polars::prelude::DataFrame;

/// Heatmap of P(chariot lost c, Hero lost h).
#[derive(Clone, Debug)]
pub struct WoundSplitChart {
    /// The caption.
    pub title: String,
    cells: Vec<(i32, i32, f64)>,
}

impl WoundSplitChart {
    /// Reads the wound split frame (`chariot_wounds_lost`, `hero_wounds_lost`, `p`).
    pub fn from_frame(frame: &DataFrame, title: &str) -> Result<Self, ChartError> {
        let col = |name| column_f64(frame, Self::KIND, name);
        let (c, h, p) = (col("chariot_wounds_lost")?, col("hero_wounds_lost")?, col("p")?);
        let cells = c.iter().zip(&h).zip(&p).map(|((&c, &h), &p)| (c as i32, h as i32, p)).collect();
        Ok(Self { title: title.to_string(), cells })
    }
}

/// White (0) to deep blue (the largest share), on a square-root scale so that rare cells
/// stay visible.
fn shade(p: f64, max: f64) -> RGBColor {
    let t = if max > 0.0 { (p / max).sqrt() } else { 0.0 };
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    RGBColor(mix(247.0, 8.0), mix(251.0, 48.0), mix(255.0, 107.0))
}

impl Chart for WoundSplitChart {
    const KIND: &'static str = "wound split";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let max_c = self.cells.iter().map(|c| c.0).max().unwrap_or(0);
        let max_h = self.cells.iter().map(|c| c.1).max().unwrap_or(0);
        let max_p = self.cells.iter().map(|c| c.2).fold(0.0, f64::max);
        let (w, _) = root.dim_in_pixel();
        let (map, scale) = root.split_horizontally(w.saturating_sub(super::SCALE_STRIP));
        // The scale is a square root of the share (so rare cells stay visible): t = sqrt(p / max).
        let labels: Vec<(f64, String)> =
            [0.0, 0.25, 1.0].iter().map(|&f: &f64| (f.sqrt(), format!("{:.2}%", 100.0 * f * max_p))).collect();
        super::colour_scale(&scale, &|t| shade(t * t * max_p, max_p), &labels, "share of charges")?;
        let root = &map;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style())
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(80)
            .build_cartesian_2d(-0.5..f64::from(max_h) + 0.5, -0.5..f64::from(max_c) + 0.5)
            .map_err(msg)?;
        let integer = |v: &f64| if (v - v.round()).abs() < 1e-9 { format!("{v:.0}") } else { String::new() };
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .disable_mesh()
            .x_desc("Wounds the Hero lost")
            .y_desc("Wounds the chariot lost")
            .x_labels(max_h as usize + 2)
            .y_labels(max_c as usize + 2)
            .x_label_formatter(&integer)
            .y_label_formatter(&integer)
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        chart
            .draw_series(self.cells.iter().map(|&(c, h, p)| {
                let (x, y) = (f64::from(h), f64::from(c));
                Rectangle::new([(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)], shade(p, max_p).filled())
            }))
            .map_err(msg)?;
        chart
            .draw_series(self.cells.iter().map(|&(c, h, p)| {
                let dark = max_p > 0.0 && (p / max_p).sqrt() > 0.55;
                let colour = if dark { WHITE } else { BLACK };
                let style = (FONT, 20).into_font().color(&colour).pos(Pos::new(HPos::Center, VPos::Center));
                let label = if p == 0.0 {
                    "0".to_string()
                } else if p < 0.0001 {
                    "<0.01%".to_string()
                } else {
                    format!("{:.2}%", p * 100.0)
                };
                Text::new(label, (f64::from(h), f64::from(c)), style)
            }))
            .map_err(msg)?;
        Ok(())
    }
}
