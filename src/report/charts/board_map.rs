//! The board seen from above: every unit's block where it stood, and shaded 1" cells
//! giving the share of trials in which the routing unit's centre crossed each cell.

use super::{ACCENT, Chart, ChartError, FONT, INK, column_f64, column_str, label_style, msg, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use polars::prelude::DataFrame;

/// A unit as drawn: its name, whether it is the one that moves, and its corners.
type DrawnUnit = (String, bool, Vec<(f64, f64)>);

/// The board, its units and the path density.
#[derive(Clone, Debug)]
pub struct BoardMapChart {
    /// The caption.
    pub title: String,
    /// Board width and depth, inches.
    pub board: [f64; 2],
    cells: Vec<(f64, f64, f64)>,
    units: Vec<DrawnUnit>,
}

impl BoardMapChart {
    /// Reads the path map (`x`, `y`, `p`: cell corner and share of trials) and the units
    /// (`name`, `side`, `corners`: "x y;x y;..." and `moving`: which one routs).
    pub fn from_frames(path: &DataFrame, units: &DataFrame, title: &str, board: [f64; 2]) -> Result<Self, ChartError> {
        let (x, y, p) = (
            column_f64(path, Self::KIND, "x")?,
            column_f64(path, Self::KIND, "y")?,
            column_f64(path, Self::KIND, "p")?,
        );
        let names = column_str(units, Self::KIND, "name")?;
        let corners = column_str(units, Self::KIND, "corners")?;
        let moving = column_f64(units, Self::KIND, "moving")?;
        let parse = |text: &str| -> Vec<(f64, f64)> {
            text.split(';')
                .filter_map(|pair| {
                    let mut it = pair.split_whitespace().filter_map(|v| v.parse::<f64>().ok());
                    Some((it.next()?, it.next()?))
                })
                .collect()
        };
        Ok(Self {
            title: title.to_string(),
            board,
            cells: x.into_iter().zip(y).zip(p).map(|((x, y), p)| (x, y, p)).collect(),
            units: names
                .into_iter()
                .zip(corners.iter().map(|c| parse(c)))
                .zip(moving)
                .map(|((n, c), m)| (n, m > 0.5, c))
                .collect(),
        })
    }
}

impl Chart for BoardMapChart {
    const KIND: &'static str = "board map";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let [w, d] = self.board;
        // Keep the board's proportions: the plot gets the width its depth allows.
        let (px_w, px_h) = root.dim_in_pixel();
        let plot_h = f64::from(px_h) - 110.0;
        let plot_w = (plot_h * w / d).min(f64::from(px_w) - 260.0);
        let used = (plot_w + 135.0).min(f64::from(px_w)) as u32;
        let (left, right) = root.split_horizontally(used);
        let mut chart = ChartBuilder::on(&left)
            .caption(&self.title, title_style())
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(75)
            .build_cartesian_2d(0.0..w, 0.0..d)
            .map_err(msg)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("x (inches)")
            .y_desc("y (inches, 12 o'clock)")
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        let top = self.cells.iter().map(|c| c.2).fold(0.0f64, f64::max).max(1e-12);
        let shade = |p: f64| {
            let t = (p / top).sqrt().clamp(0.0, 1.0);
            let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
            RGBColor(mix(255.0, 120.0), mix(246.0, 20.0), mix(230.0, 20.0))
        };
        chart
            .draw_series(
                self.cells
                    .iter()
                    .filter(|c| c.2 > 0.0)
                    .map(|&(x, y, p)| Rectangle::new([(x, y), (x + 1.0, y + 1.0)], shade(p).filled())),
            )
            .map_err(msg)?;
        for (name, moving, corners) in &self.units {
            let colour = if *moving { ACCENT } else { INK };
            let mut outline = corners.clone();
            if let Some(first) = corners.first() {
                outline.push(*first);
            }
            chart
                .draw_series(std::iter::once(Polygon::new(corners.clone(), colour.mix(0.25).filled())))
                .map_err(msg)?;
            chart.draw_series(std::iter::once(PathElement::new(outline, colour.stroke_width(2)))).map_err(msg)?;
            let n = corners.len().max(1) as f64;
            let centre = (corners.iter().map(|c| c.0).sum::<f64>() / n, corners.iter().map(|c| c.1).sum::<f64>() / n);
            let style = (FONT, 14).into_font().color(&BLACK).pos(Pos::new(HPos::Center, VPos::Center));
            chart.draw_series(std::iter::once(Text::new(name.clone(), centre, style))).map_err(msg)?;
        }
        // The key, beside the board.
        let key = (FONT, 15).into_font().color(&BLACK);
        let lines = [
            "Shade: share of trials in which".to_string(),
            "the routing unit's centre".to_string(),
            "crossed the 1\" cell".to_string(),
            format!("(darkest: {:.1}%)", top * 100.0),
            String::new(),
            "Orange: the routing unit".to_string(),
            "Blue: the other units,".to_string(),
            "where they stood".to_string(),
        ];
        for (i, line) in lines.iter().enumerate() {
            right.draw(&Text::new(line.clone(), (10, 80 + 22 * i as i32), key.clone())).map_err(msg)?;
        }
        Ok(())
    }
}
