//! The board seen from above: every unit's block where it stood, and shaded 1" cells
//! giving the share of trials in which the routing unit's centre crossed each cell.

use super::{ACCENT, Chart, ChartError, FONT, INK, column_f64, column_str, label_style, msg, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use polars::prelude::DataFrame;

/// A unit as drawn: its name, its side, whether it is the one that moves, and its corners.
pub(super) type DrawnUnit = (String, String, bool, Vec<(f64, f64)>);

/// The colour of side "b"'s units (side "a" is [`INK`], the moving unit [`ACCENT`]).
const SIDE_B: RGBColor = RGBColor(118, 62, 145);

/// Points of a label's font; its width is estimated from the characters.
const LABEL_PX: u32 = 14;

/// An axis-aligned box in board inches: (x0, y0, x1, y1).
/// A box: (x0, y0, x1, y1).
pub(super) type Area = (f64, f64, f64, f64);

fn overlaps(a: Area, b: Area) -> bool {
    a.0 < b.2 && b.0 < a.2 && a.1 < b.3 && b.1 < a.3
}

/// Where each unit's label goes, in board inches (centre of the text): beside its block
/// (above, below, right, left, then further out), at the first place that overlaps no
/// block, no label placed before it and nothing in `avoid` (a path, say), and stays on the
/// board.
pub(super) fn place_labels(units: &[DrawnUnit], inch_px: f64, board: [f64; 2], avoid: &[Area]) -> Vec<(f64, f64)> {
    let bounds: Vec<Area> = units
        .iter()
        .map(|(_, _, _, c)| {
            let xs = c.iter().map(|p| p.0);
            let ys = c.iter().map(|p| p.1);
            (
                xs.clone().fold(f64::INFINITY, f64::min),
                ys.clone().fold(f64::INFINITY, f64::min),
                xs.fold(f64::NEG_INFINITY, f64::max),
                ys.fold(f64::NEG_INFINITY, f64::max),
            )
        })
        .collect();
    let mut placed: Vec<Area> = Vec::new();
    let mut out = Vec::with_capacity(units.len());
    for ((name, ..), b) in units.iter().zip(&bounds) {
        // About 0.55 em per character, and a line's height.
        let half_w = 0.55 * f64::from(LABEL_PX) * name.chars().count() as f64 / inch_px / 2.0;
        let half_h = f64::from(LABEL_PX) * 0.7 / inch_px;
        let (cx, cy) = ((b.0 + b.2) / 2.0, (b.1 + b.3) / 2.0);
        let gap = half_h + 0.2;
        let mut candidates = Vec::new();
        for step in 0..4 {
            let extra = f64::from(step) * 2.0 * half_h;
            candidates.push((cx, b.3 + gap + extra));
            candidates.push((cx, b.1 - gap - extra));
            candidates.push((b.2 + half_w + 0.3 + extra, cy));
            candidates.push((b.0 - half_w - 0.3 - extra, cy));
        }
        let area = |(x, y): (f64, f64)| (x - half_w, y - half_h, x + half_w, y + half_h);
        let fits = |p: (f64, f64)| {
            let a = area(p);
            a.0 >= 0.0
                && a.1 >= 0.0
                && a.2 <= board[0]
                && a.3 <= board[1]
                && !bounds.iter().any(|u| overlaps(a, *u))
                && !placed.iter().any(|l| overlaps(a, *l))
                && !avoid.iter().any(|l| overlaps(a, *l))
        };
        let at = candidates.iter().copied().find(|p| fits(*p)).unwrap_or(candidates[0]);
        placed.push(area(at));
        out.push(at);
    }
    out
}

/// The board, its units and the path density.
#[derive(Clone, Debug)]
pub struct BoardMapChart {
    /// The caption.
    pub title: String,
    /// Board width and depth, inches.
    pub board: [f64; 2],
    cells: Vec<(f64, f64, f64)>,
    units: Vec<DrawnUnit>,
    /// A charge, drawn as an arrow.
    charge: Option<ChargeArrow>,
}

/// A charge as the map draws it: the line from the charger's front to where it meets its
/// target, and its label.
#[derive(Clone, Debug)]
struct ChargeArrow {
    from: (f64, f64),
    to: (f64, f64),
    label: String,
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
        let sides = column_str(units, Self::KIND, "side")?;
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
                .zip(sides)
                .zip(corners.iter().map(|c| parse(c)))
                .zip(moving)
                .map(|(((n, side), c), m)| (n, side, m > 0.5, c))
                .collect(),
            charge: None,
        })
    }

    /// The map with a charge drawn as an arrow from `from` to `to`, labelled.
    pub fn with_charge(mut self, from: (f64, f64), to: (f64, f64), label: String) -> Self {
        self.charge = Some(ChargeArrow { from, to, label });
        self
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
        // Names keep clear of the charge's arrow too: it is offered as a thin block of its
        // own, whose (empty) label is not drawn.
        let mut blocks = self.units.clone();
        if let Some(ChargeArrow { from, to, .. }) = &self.charge {
            let (x0, x1) = (from.0.min(to.0) - 0.6, from.0.max(to.0) + 0.6);
            let (y0, y1) = (from.1.min(to.1) - 0.6, from.1.max(to.1) + 0.6);
            blocks.push((String::new(), String::new(), false, vec![(x0, y0), (x1, y0), (x1, y1), (x0, y1)]));
        }
        let labels = place_labels(&blocks, plot_w / w, self.board, &[]);
        for ((name, side, moving, corners), at) in self.units.iter().zip(&labels) {
            let colour = match (*moving, side.as_str()) {
                (true, _) => ACCENT,
                (false, "b") => SIDE_B,
                _ => INK,
            };
            let mut outline = corners.clone();
            if let Some(first) = corners.first() {
                outline.push(*first);
            }
            chart
                .draw_series(std::iter::once(Polygon::new(corners.clone(), colour.mix(0.25).filled())))
                .map_err(msg)?;
            chart.draw_series(std::iter::once(PathElement::new(outline, colour.stroke_width(2)))).map_err(msg)?;
            let style = (FONT, LABEL_PX).into_font().color(&colour).pos(Pos::new(HPos::Center, VPos::Center));
            chart.draw_series(std::iter::once(Text::new(name.clone(), *at, style))).map_err(msg)?;
        }
        if let Some(ChargeArrow { from, to, label }) = &self.charge {
            // The arrow, its head two short strokes back from the tip.
            let (dx, dy) = (to.0 - from.0, to.1 - from.1);
            let length = dx.hypot(dy).max(1e-9);
            let (ux, uy) = (dx / length, dy / length);
            let head = (1.2f64).min(length / 2.0);
            let barb = |side: f64| (to.0 - head * (ux - side * 0.5 * uy), to.1 - head * (uy + side * 0.5 * ux));
            let style = ACCENT.stroke_width(3);
            chart.draw_series(std::iter::once(PathElement::new(vec![*from, *to], style))).map_err(msg)?;
            for side in [-1.0, 1.0] {
                chart.draw_series(std::iter::once(PathElement::new(vec![barb(side), *to], style))).map_err(msg)?;
            }
            // The label beside the arrow's middle, off its line.
            let at = ((from.0 + to.0) / 2.0 + 1.0 * uy.abs().max(0.3), (from.1 + to.1) / 2.0);
            let font = (FONT, LABEL_PX).into_font().color(&ACCENT).pos(Pos::new(HPos::Left, VPos::Center));
            chart.draw_series(std::iter::once(Text::new(label.clone(), at, font))).map_err(msg)?;
        }
        // The key, beside the board.
        let key = (FONT, 15).into_font().color(&BLACK);
        let shading = [
            "Shade: share of trials in which".to_string(),
            "the routing unit's centre".to_string(),
            "crossed the 1\" cell".to_string(),
            format!("(darkest: {:.1}%)", top * 100.0),
            String::new(),
        ];
        let shaded = if self.cells.is_empty() { &[][..] } else { &shading[..] };
        let charge_key = ["Arrow: the charge, to contact".to_string(), String::new()];
        let charged = if self.charge.is_some() { &charge_key[..] } else { &[][..] };
        let units = [
            "Orange: the moving unit".to_string(),
            "Blue: side a, purple: side b,".to_string(),
            "where they stood; each name".to_string(),
            "beside its block".to_string(),
        ];
        for (i, line) in shaded.iter().chain(charged).chain(&units).enumerate() {
            right.draw(&Text::new(line.clone(), (10, 80 + 22 * i as i32), key.clone())).map_err(msg)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(name: &str, x: f64, y: f64, w: f64, d: f64) -> DrawnUnit {
        let c = vec![
            (x - w / 2.0, y - d / 2.0),
            (x + w / 2.0, y - d / 2.0),
            (x + w / 2.0, y + d / 2.0),
            (x - w / 2.0, y + d / 2.0),
        ];
        (name.to_string(), "a".to_string(), false, c)
    }

    #[test]
    fn labels_sit_beside_their_blocks_and_never_overlap_a_block_or_each_other() {
        // Three blocks in a row and one just above the middle: crowded labels.
        let units = vec![
            block("Spearmen left", 21.0, 15.5, 10.0, 2.0),
            block("Elephants", 30.0, 15.5, 4.0, 3.0),
            block("Spearmen right", 39.0, 15.5, 10.0, 2.0),
            block("Enemy foot", 30.0, 20.0, 15.0, 2.0),
        ];
        let inch_px = 10.0;
        let at = place_labels(&units, inch_px, [60.0, 48.0], &[]);
        let half = |name: &str| {
            (
                0.55 * f64::from(LABEL_PX) * name.chars().count() as f64 / inch_px / 2.0,
                f64::from(LABEL_PX) * 0.7 / inch_px,
            )
        };
        let areas: Vec<Area> = units
            .iter()
            .zip(&at)
            .map(|((n, ..), &(x, y))| {
                let (hw, hh) = half(n);
                (x - hw, y - hh, x + hw, y + hh)
            })
            .collect();
        for (i, a) in areas.iter().enumerate() {
            for (j, b) in areas.iter().enumerate().filter(|(j, _)| *j != i) {
                assert!(!overlaps(*a, *b), "labels {i} and {j} overlap: {a:?} {b:?}");
            }
            for (_, _, _, c) in &units {
                let (x0, x1) = (c[0].0, c[1].0);
                let (y0, y1) = (c[0].1, c[2].1);
                assert!(!overlaps(*a, (x0, y0, x1, y1)), "label {i} covers a block");
            }
            // Beside its own block: within a few inches of it.
            let (_, _, _, c) = &units[i];
            let (cx, cy) = ((c[0].0 + c[1].0) / 2.0, (c[0].1 + c[2].1) / 2.0);
            let (x, y) = at[i];
            assert!((x - cx).abs() < 15.0 && (y - cy).abs() < 8.0, "label {i} strays to {x}, {y}");
        }
    }
}
