//! One metric across a two-field sweep: a heatmap with each cell's mean written in it.

use super::{Chart, FONT, label_style, msg, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A grid of means: `cells[row][column]`, rows the second field, columns the first.
#[derive(Clone, Debug)]
pub struct SweepHeatmapChart {
    /// The caption.
    pub title: String,
    /// The first field (columns).
    pub x_label: String,
    /// The second field (rows).
    pub y_label: String,
    /// Column values as written.
    pub columns: Vec<String>,
    /// Row values as written.
    pub rows: Vec<String>,
    /// Means by row then column.
    pub cells: Vec<Vec<f64>>,
    /// Whether the metric is a probability (cells in percent).
    pub probability: bool,
}

impl Chart for SweepHeatmapChart {
    const KIND: &'static str = "sweep heatmap";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let (nx, ny) = (self.columns.len().max(1), self.rows.len().max(1));
        let values = self.cells.iter().flatten().copied();
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
        let span = if hi > lo { hi - lo } else { 1.0 };
        let (w, _) = root.dim_in_pixel();
        let (map, scale) = root.split_horizontally(w.saturating_sub(super::SCALE_STRIP));
        let root = &map;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style())
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(80)
            .build_cartesian_2d(-0.5..(nx as f64 - 0.5), -0.5..(ny as f64 - 0.5))
            .map_err(msg)?;
        let (columns, rows) = (self.columns.clone(), self.rows.clone());
        let pick = |labels: &Vec<String>, v: &f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(&self.x_label)
            .y_desc(&self.y_label)
            .x_labels(nx.min(25) * 2 + 1)
            .y_labels(ny.min(25) * 2 + 1)
            .x_label_formatter(&|v| pick(&columns, v))
            .y_label_formatter(&|v| pick(&rows, v))
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        let ramp = |t: f64| {
            let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
            RGBColor(mix(247.0, 8.0), mix(251.0, 48.0), mix(255.0, 107.0))
        };
        let shade = |v: f64| {
            let t = ((v - lo) / span).clamp(0.0, 1.0);
            (ramp(t), t > 0.55)
        };
        let value = |v: f64| if self.probability { format!("{:.1}%", v * 100.0) } else { format!("{v:.2}") };
        let lo_shown = if lo.is_finite() { lo } else { 0.0 };
        let labels = [(0.0, value(lo_shown)), (0.5, value(lo_shown + span / 2.0)), (1.0, value(lo_shown + span))];
        super::colour_scale(&scale, &ramp, &labels, if self.probability { "share" } else { "mean" })?;
        for (r, row) in self.cells.iter().enumerate() {
            for (c, &v) in row.iter().enumerate() {
                let (x, y) = (c as f64, r as f64);
                let (colour, dark) = shade(v);
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                        colour.filled(),
                    )))
                    .map_err(msg)?;
                if nx * ny <= 150 {
                    let text_colour = if dark { WHITE } else { BLACK };
                    let style = (FONT, 15).into_font().color(&text_colour).pos(Pos::new(HPos::Center, VPos::Center));
                    let label = if self.probability { format!("{:.1}%", v * 100.0) } else { format!("{v:.2}") };
                    chart.draw_series(std::iter::once(Text::new(label, (x, y), style))).map_err(msg)?;
                }
            }
        }
        Ok(())
    }
}
