//! A MESBG charge seen from above, to scale: the formations' bases shaded by each
//! model's chance to be slain, the terrain, the chariot where it starts and the area its
//! base sweeps along the path, its pivots, and where the charges stopped.

use super::board_map::{Area, DrawnUnit, place_labels};
use super::{ACCENT, Chart, FONT, INK, colour_bar, label_style, msg, title_style};
use crate::mesbg::board::{BoardPicture, Point};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Width of the key beside the board, pixels.
const KEY_PX: u32 = 250;
/// The swept area's fill.
const SWEPT: RGBColor = RGBColor(253, 226, 200);
/// Difficult terrain's fill and edge.
const ROUGH_FILL: RGBColor = RGBColor(222, 234, 204);
const ROUGH_EDGE: RGBColor = RGBColor(110, 140, 80);
/// An obstacle's line.
const OBSTACLE: RGBColor = RGBColor(120, 80, 40);
/// Stop marks.
const STOP: RGBColor = RGBColor(40, 40, 40);
/// A corridor through a line.
const CORRIDOR: RGBColor = RGBColor(20, 130, 90);
/// The edge of an enemy Hero's base.
const HERO_EDGE: RGBColor = RGBColor(196, 150, 0);
/// A banner's pennant.
const BANNER: RGBColor = RGBColor(31, 95, 153);
/// A spear's or pike's shaft.
const SHAFT: RGBColor = RGBColor(90, 70, 50);
/// Stop marks labelled on the board: the commonest, at most this many, each at least this
/// share (the key lists every one).
const STOP_LABELS: usize = 6;
const STOP_LABEL_SHARE: f64 = 0.05;
/// The largest stop mark's radius, pixels (for a share of 100%).
const STOP_MAX_PX: f64 = 16.0;

/// The colour of a chance to be slain: white at 0 through salmon to deep red at 1.
pub fn slain_shade(p: f64) -> RGBColor {
    let stops = [(0.0, (255.0, 255.0, 255.0)), (0.5, (250.0, 140.0, 105.0)), (1.0, (150.0, 12.0, 20.0))];
    let t = p.clamp(0.0, 1.0);
    let (a, b) = if t <= 0.5 { (stops[0], stops[1]) } else { (stops[1], stops[2]) };
    let u = (t - a.0) / (b.0 - a.0);
    let mix = |x: f64, y: f64| (x + (y - x) * u).round() as u8;
    RGBColor(mix(a.1.0, b.1.0), mix(a.1.1, b.1.1), mix(a.1.2, b.1.2))
}

/// The board picture of a charge.
#[derive(Clone, Debug)]
pub struct ChargeBoardChart {
    /// The caption.
    pub title: String,
    /// What to draw.
    pub picture: BoardPicture,
}

impl ChargeBoardChart {
    /// The x and y ranges (inches) that fill a plot of `w` x `h` pixels at one scale on
    /// both axes, centred on the picture, and the pixels per inch.
    fn ranges(&self, w: f64, h: f64) -> (std::ops::Range<f64>, std::ops::Range<f64>, f64) {
        let (x0, y0, x1, y1) = self.picture.bounds;
        let scale = (w / (x1 - x0).max(1.0)).min(h / (y1 - y0).max(1.0));
        let (half_w, half_h) = (w / scale / 2.0, h / scale / 2.0);
        let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
        (cx - half_w..cx + half_w, cy - half_h..cy + half_h, scale)
    }
}

fn closed(points: &[Point]) -> Vec<Point> {
    let mut out = points.to_vec();
    if let Some(first) = points.first() {
        out.push(*first);
    }
    out
}

impl Chart for ChargeBoardChart {
    const KIND: &'static str = "board";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let (px_w, _) = root.dim_in_pixel();
        let (board_area, key_area) = root.split_horizontally(px_w.saturating_sub(KEY_PX));
        let (bw, bh) = board_area.dim_in_pixel();
        // Caption 40, x labels 40, y labels 55, margins 10: the plot's own pixels.
        let (plot_w, plot_h) = (f64::from(bw) - 75.0, f64::from(bh) - 95.0);
        let (xr, yr, inch_px) = self.ranges(plot_w, plot_h);
        let origin = (xr.start, yr.start);
        let mut chart = ChartBuilder::on(&board_area)
            .caption(&self.title, title_style())
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(55)
            .build_cartesian_2d(xr.clone(), yr.clone())
            .map_err(msg)?;
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(232, 232, 232))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .x_desc("inches")
            .y_desc("inches")
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        let p = &self.picture;

        for t in p.terrain.iter().filter(|t| t.kind == "difficult") {
            chart.draw_series(std::iter::once(Polygon::new(t.points.clone(), ROUGH_FILL.filled()))).map_err(msg)?;
            chart
                .draw_series(std::iter::once(PathElement::new(closed(&t.points), ROUGH_EDGE.stroke_width(1))))
                .map_err(msg)?;
        }
        chart.draw_series(p.swept.iter().map(|outline| Polygon::new(outline.clone(), SWEPT.filled()))).map_err(msg)?;
        chart
            .draw_series(std::iter::once(Polygon::new(p.chariot_start.clone(), ACCENT.mix(0.45).filled())))
            .map_err(msg)?;
        chart
            .draw_series(std::iter::once(PathElement::new(closed(&p.chariot_start), ACCENT.stroke_width(2))))
            .map_err(msg)?;
        chart
            .draw_series(std::iter::once(DashedPathElement::new(closed(&p.chariot_end), 4, 3, ACCENT.stroke_width(1))))
            .map_err(msg)?;
        chart
            .draw_series(std::iter::once(PathElement::new(p.centre_line.clone(), ACCENT.stroke_width(2))))
            .map_err(msg)?;
        // A turn: the other chariots' paths, drawn alike, each numbered at its start.
        for m in &p.more {
            chart.draw_series(m.swept.iter().map(|o| Polygon::new(o.clone(), SWEPT.filled()))).map_err(msg)?;
            chart
                .draw_series(std::iter::once(Polygon::new(m.start.clone(), ACCENT.mix(0.45).filled())))
                .map_err(msg)?;
            chart
                .draw_series(std::iter::once(PathElement::new(closed(&m.start), ACCENT.stroke_width(2))))
                .map_err(msg)?;
            chart
                .draw_series(std::iter::once(DashedPathElement::new(closed(&m.end), 4, 3, ACCENT.stroke_width(1))))
                .map_err(msg)?;
            chart
                .draw_series(std::iter::once(PathElement::new(m.centre_line.clone(), ACCENT.stroke_width(2))))
                .map_err(msg)?;
        }
        let numbered = p
            .number
            .map(|n| (n, 1, &p.chariot_start))
            .into_iter()
            .chain(p.more.iter().map(|m| (m.number, m.order, &m.start)));
        for (number, order, start) in numbered {
            let n = start.len().max(1) as f64;
            let c = start.iter().fold((0.0, 0.0), |s, q| (s.0 + q.0 / n, s.1 + q.1 / n));
            let style = (FONT, 16).into_font().color(&BLACK).pos(Pos::new(HPos::Center, VPos::Center));
            let text = if number == order { format!("{number}") } else { format!("{number} ({order}.)") };
            chart.draw_series(std::iter::once(Text::new(text, c, style))).map_err(msg)?;
        }
        for t in p.terrain.iter().filter(|t| t.kind == "obstacle") {
            chart
                .draw_series(std::iter::once(PathElement::new(t.points.clone(), OBSTACLE.stroke_width(5))))
                .map_err(msg)?;
        }

        // Bases, shaded by their chance to be slain; pushed ones with an arrow to where
        // the pivot moved them.
        for b in &p.bases {
            if let Some(to) = b.pushed_to {
                chart
                    .draw_series(std::iter::once(DashedPathElement::new(
                        vec![b.centre, to],
                        4,
                        3,
                        RGBColor(120, 120, 120).stroke_width(1),
                    )))
                    .map_err(msg)?;
                chart
                    .draw_series(std::iter::once(Circle::new(to, 3, RGBColor(120, 120, 120).filled())))
                    .map_err(msg)?;
            }
            let edge = if b.hero { HERO_EDGE.stroke_width(3) } else { RGBColor(60, 60, 60).stroke_width(1) };
            chart
                .draw_series(std::iter::once(Polygon::new(b.outline.clone(), slain_shade(b.p_slain).filled())))
                .map_err(msg)?;
            chart.draw_series(std::iter::once(PathElement::new(closed(&b.outline), edge))).map_err(msg)?;
        }
        // Corridors through the lines after the turn: a band over the bases, where each ran
        // most often, with its line's number at the front.
        for c in &p.corridors {
            chart
                .draw_series(std::iter::once(Polygon::new(c.points.clone(), CORRIDOR.mix(0.16).filled())))
                .map_err(msg)?;
            chart
                .draw_series(std::iter::once(DashedPathElement::new(closed(&c.points), 6, 4, CORRIDOR.stroke_width(2))))
                .map_err(msg)?;
        }
        // What a model carries: a banner's flag at the base's right, a spear's or pike's
        // shaft across it (both in pixels, so they read at any board scale).
        let origin_px = board_area.get_base_pixel();
        let px = |q: Point| {
            let (x, y) = chart.backend_coord(&q);
            (x - origin_px.0, y - origin_px.1)
        };
        for b in &p.bases {
            let r_px = (inner_radius(b) * inch_px) as i32;
            let c = px(b.centre);
            // Above the rank.file label: the shaft in the upper left, the flag upper right.
            if b.polearm.is_some() {
                shaft(&board_area, (c.0 - r_px / 2, c.1 - r_px * 3 / 5), (r_px / 3).max(3))?;
            }
            if b.banner {
                flag(&board_area, (c.0 + r_px / 3, c.1 - r_px / 2 - 8))?;
            }
        }
        // Pivots: a diamond and the angle (their labels' boxes kept, so no later label
        // covers them).
        let mut pivot_labels: Vec<Area> = Vec::new();
        for &(at, turn) in &p.pivots {
            chart.draw_series(std::iter::once(TriangleMarker::new(at, 6, BLACK.filled()))).map_err(msg)?;
            let style = (FONT, 12).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Bottom));
            let text = format!("{}{:.0}\u{b0}", if turn > 0.0 { "+" } else { "" }, turn);
            let left = at.0 + 6.0 / inch_px;
            let width = 0.6 * 12.0 * text.chars().count() as f64 / inch_px;
            pivot_labels.push((left, at.1, left + width, at.1 + 14.0 / inch_px));
            chart.draw_series(std::iter::once(Text::new(text, (left, at.1), style))).map_err(msg)?;
        }
        // Formation names, beside their blocks, never over a base or each other.
        let mut units: Vec<DrawnUnit> = Vec::new();
        for (fi, name) in p.formations.iter().enumerate() {
            let pts: Vec<Point> =
                p.bases.iter().filter(|b| b.formation == fi).flat_map(|b| b.outline.clone()).collect();
            if pts.is_empty() {
                continue;
            }
            let (mut a, mut b) = ((f64::INFINITY, f64::INFINITY), (f64::NEG_INFINITY, f64::NEG_INFINITY));
            for q in pts {
                (a, b) = ((a.0.min(q.0), a.1.min(q.1)), (b.0.max(q.0), b.1.max(q.1)));
            }
            let shift = |q: Point| (q.0 - origin.0, q.1 - origin.1);
            let corners = vec![shift(a), shift((b.0, a.1)), shift(b), shift((a.0, b.1))];
            units.push((name.clone(), "a".into(), false, corners));
        }
        let extent = [xr.end - xr.start, yr.end - yr.start];
        // The paths' centre lines, as thin boxes every quarter inch: a name never sits on one.
        let lines = std::iter::once(&p.centre_line).chain(p.more.iter().map(|m| &m.centre_line));
        let on_paths: Vec<Area> = lines
            .flat_map(|line| line.windows(2).map(|w| (w[0], w[1])).collect::<Vec<_>>())
            .flat_map(|(a, b)| {
                let n = ((b.0 - a.0).hypot(b.1 - a.1) / 0.25).ceil().max(1.0) as usize;
                (0..=n).map(move |k| {
                    let t = k as f64 / n as f64;
                    (a.0 + (b.0 - a.0) * t - origin.0, a.1 + (b.1 - a.1) * t - origin.1)
                })
            })
            .map(|(x, y)| (x - 0.12, y - 0.12, x + 0.12, y + 0.12))
            .collect();
        let at = place_labels(&units, inch_px, extent, &on_paths);
        let mut named: Vec<(f64, f64, f64, f64)> = Vec::new();
        for ((name, ..), at) in units.iter().zip(at) {
            let (half_w, half_h) = (0.55 * 14.0 * name.chars().count() as f64 / inch_px / 2.0, 14.0 * 0.7 / inch_px);
            let (x, y) = (at.0 + origin.0, at.1 + origin.1);
            named.push((x - half_w, y - half_h, x + half_w, y + half_h));
            let style = (FONT, 14).into_font().color(&INK).pos(Pos::new(HPos::Center, VPos::Center));
            chart
                .draw_series(std::iter::once(Text::new(name.clone(), (at.0 + origin.0, at.1 + origin.1), style)))
                .map_err(msg)?;
        }
        // Where the charges ended: a disc whose area is the share, and the share beside it
        // where that covers no base and no other label (the key lists them all).
        let boxes: Vec<(f64, f64, f64, f64)> = p
            .bases
            .iter()
            .map(|b| {
                b.outline.iter().fold((f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY), |a, q| {
                    (a.0.min(q.0), a.1.min(q.1), a.2.max(q.0), a.3.max(q.1))
                })
            })
            .collect();
        let mut taken = named;
        taken.extend(pivot_labels);
        let mut order: Vec<&crate::mesbg::board::StopMark> = p.stops.iter().collect();
        order.sort_by(|a, b| b.p.total_cmp(&a.p));
        // Every disc first; then labels for the commonest few (the key lists them all), each
        // clear of every base, disc and label.
        for s in &order {
            let r = (STOP_MAX_PX * s.p.sqrt()).max(2.0);
            chart.draw_series(std::iter::once(Circle::new(s.at, r as i32, STOP.mix(0.6).filled()))).map_err(msg)?;
        }
        taken.extend(order.iter().map(|s| {
            let r = (STOP_MAX_PX * s.p.sqrt()).max(2.0) / inch_px;
            (s.at.0 - r, s.at.1 - r, s.at.0 + r, s.at.1 + r)
        }));
        for s in order.into_iter().filter(|s| s.p >= STOP_LABEL_SHARE).take(STOP_LABELS) {
            let r = (STOP_MAX_PX * s.p.sqrt()).max(2.0);
            let text = super::super::document::percent(s.p);
            let (half_w, half_h) = (0.6 * 12.0 * text.chars().count() as f64 / inch_px / 2.0, 8.0 / inch_px);
            let gap = (r + 4.0) / inch_px + half_w;
            let clear = |c: (f64, f64)| {
                let a = (c.0 - half_w, c.1 - half_h, c.0 + half_w, c.1 + half_h);
                let apart = |b: &(f64, f64, f64, f64)| a.2 < b.0 || b.2 < a.0 || a.3 < b.1 || b.3 < a.1;
                let inside = a.0 > xr.start && a.2 < xr.end && a.1 > yr.start && a.3 < yr.end;
                inside && boxes.iter().chain(&taken).all(apart)
            };
            // Beside the disc; failing that, further out or a line up or down, with a
            // leader line back to the disc.
            let mut spots = Vec::new();
            for out in [0.0, 0.6, 1.2, 2.0] {
                for dy in [0.0, 2.5 * half_h, -2.5 * half_h] {
                    spots.push((s.at.0 - gap - out, s.at.1 + dy));
                    spots.push((s.at.0 + gap + out, s.at.1 + dy));
                }
            }
            if let Some(c) = spots.into_iter().find(|c| clear(*c)) {
                taken.push((c.0 - half_w, c.1 - half_h, c.0 + half_w, c.1 + half_h));
                if (c.0 - s.at.0).abs() > gap + 1e-9 || (c.1 - s.at.1).abs() > 1e-9 {
                    let side = (c.0 - s.at.0).signum();
                    let from = (s.at.0 + side * (r + 1.0) / inch_px, s.at.1);
                    let to = (c.0 - side * half_w, c.1);
                    chart
                        .draw_series(std::iter::once(PathElement::new(vec![from, to], STOP.mix(0.5).stroke_width(1))))
                        .map_err(msg)?;
                }
                let style = (FONT, 12).into_font().color(&STOP).pos(Pos::new(HPos::Center, VPos::Center));
                chart.draw_series(std::iter::once(Text::new(text, c, style))).map_err(msg)?;
            }
        }

        // Rank and file inside each base when it is big enough to read.
        let smallest = p.bases.iter().map(inner_radius).fold(f64::INFINITY, f64::min);
        let font_px = (smallest * inch_px * 0.8).min(12.0);
        if font_px >= 8.0 {
            for b in &p.bases {
                let ink = if b.p_slain > 0.6 { WHITE } else { BLACK };
                let style = (FONT, font_px).into_font().color(&ink).pos(Pos::new(HPos::Center, VPos::Center));
                chart
                    .draw_series(std::iter::once(Text::new(format!("{}.{}", b.rank, b.file), b.centre, style)))
                    .map_err(msg)?;
            }
        }

        for t in &p.terrain {
            let n = t.points.len().max(1) as f64;
            let c = t.points.iter().fold((0.0, 0.0), |s, q| (s.0 + q.0 / n, s.1 + q.1 / n));
            let colour = if t.kind == "obstacle" { OBSTACLE } else { ROUGH_EDGE };
            let style = (FONT, 12).into_font().color(&colour).pos(Pos::new(HPos::Center, VPos::Top));
            let below = if t.kind == "obstacle" { 8.0 / inch_px } else { 0.0 };
            chart.draw_series(std::iter::once(Text::new(t.name.clone(), (c.0, c.1 - below), style))).map_err(msg)?;
        }

        // A scale bar of 6 inches (or 3 on a close-up) in the lower left corner.
        let bar = if (xr.end - xr.start) > 14.0 { 6.0 } else { 3.0 };
        let (bx, by) = (xr.start + 0.8, yr.start + 0.8);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(bx, by + 0.25), (bx, by), (bx + bar, by), (bx + bar, by + 0.25)],
                BLACK.stroke_width(2),
            )))
            .map_err(msg)?;
        let style = (FONT, 12).into_font().color(&BLACK).pos(Pos::new(HPos::Center, VPos::Bottom));
        chart
            .draw_series(std::iter::once(Text::new(format!("{bar:.0} inches"), (bx + bar / 2.0, by + 0.35), style)))
            .map_err(msg)?;

        self.draw_key(&key_area)
    }
}

/// The largest circle inside a base about its centre (inches): what a mark or label on it
/// may fill.
fn inner_radius(b: &crate::mesbg::board::DrawnBase) -> f64 {
    b.outline.iter().map(|q| (q.0 - b.centre.0).hypot(q.1 - b.centre.1)).fold(f64::INFINITY, f64::min)
}

/// A banner: a pole with a pennant, its foot at `at` (pixels).
fn flag<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, at: (i32, i32)) -> Result<(), String> {
    let (x, y) = (at.0 - 3, at.1 + 8);
    area.draw(&PathElement::new(vec![(x, y), (x, y - 17)], BLACK.stroke_width(2))).map_err(msg)?;
    area.draw(&Polygon::new(vec![(x + 1, y - 17), (x + 11, y - 13), (x + 1, y - 9)], BANNER.filled())).map_err(msg)
}

/// A spear's or pike's shaft across a base, centred at `at` with half-length `half` (pixels).
fn shaft<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, at: (i32, i32), half: i32) -> Result<(), String> {
    let (x, y) = at;
    // A pale underlay keeps the shaft visible on a dark (likely slain) base.
    let line = vec![(x - half, y + half), (x + half, y - half)];
    area.draw(&PathElement::new(line.clone(), WHITE.stroke_width(4))).map_err(msg)?;
    area.draw(&PathElement::new(line, SHAFT.stroke_width(2))).map_err(msg)?;
    area.draw(&TriangleMarker::new((x + half, y - half), 3, SHAFT.filled())).map_err(msg)
}

/// The few words a stop mark's label gives its kind.
fn short_how(how: &str) -> &str {
    match how {
        "stopped" => "stopped",
        "drove on" => "full Move",
        other => other,
    }
}

impl ChargeBoardChart {
    /// The key: what each mark means, then the colour scale of the chance to be slain.
    fn draw_key<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let (_, h) = area.dim_in_pixel();
        let (symbols, scale) = area.split_vertically(h.saturating_sub(190));
        let text = (FONT, 13).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
        let mut y = 24;
        let mut line = |draw: &dyn Fn(i32) -> Result<(), String>, words: &str| -> Result<(), String> {
            draw(y)?;
            symbols.draw(&Text::new(words.to_string(), (44, y), text.clone())).map_err(msg)?;
            y += 23;
            Ok(())
        };
        line(
            &|y| {
                symbols.draw(&Rectangle::new([(8, y - 8), (34, y + 8)], ACCENT.mix(0.45).filled())).map_err(msg)?;
                symbols.draw(&Rectangle::new([(8, y - 8), (34, y + 8)], ACCENT.stroke_width(2))).map_err(msg)
            },
            "chariot at the start",
        )?;
        line(
            &|y| symbols.draw(&Rectangle::new([(8, y - 8), (34, y + 8)], SWEPT.filled())).map_err(msg),
            "area its base sweeps",
        )?;
        line(
            &|y| symbols.draw(&PathElement::new(vec![(8, y), (34, y)], ACCENT.stroke_width(2))).map_err(msg),
            "path of its centre",
        )?;
        line(&|y| symbols.draw(&TriangleMarker::new((21, y), 6, BLACK.filled())).map_err(msg), "pivot (degrees)")?;
        line(&|y| symbols.draw(&Circle::new((21, y), 8, STOP.mix(0.75).filled())).map_err(msg), "charges ending here")?;
        line(
            &|y| symbols.draw(&Circle::new((21, y), 8, RGBColor(60, 60, 60).stroke_width(1))).map_err(msg),
            "base (rank.file)",
        )?;
        if self.picture.bases.iter().any(|b| b.hero) {
            line(&|y| symbols.draw(&Circle::new((21, y), 8, HERO_EDGE.stroke_width(3))).map_err(msg), "enemy Hero")?;
        }
        if self.picture.bases.iter().any(|b| b.banner) {
            line(&|y| flag(&symbols, (21, y)), "banner bearer")?;
        }
        for (kind, words) in [("spear", "spear (supports a friend)"), ("pike", "pike (supports, or through a pike)")] {
            if self.picture.bases.iter().any(|b| b.polearm == Some(kind)) {
                line(&|y| shaft(&symbols, (21, y), 9), words)?;
            }
        }
        if !self.picture.corridors.is_empty() {
            line(
                &|y| {
                    symbols
                        .draw(&Rectangle::new([(8, y - 8), (34, y + 8)], CORRIDOR.mix(0.16).filled()))
                        .map_err(msg)?;
                    symbols.draw(&Rectangle::new([(8, y - 8), (34, y + 8)], CORRIDOR.stroke_width(2))).map_err(msg)
                },
                "corridor, where most often",
            )?;
        }
        if self.picture.terrain.iter().any(|t| t.kind == "difficult") {
            line(
                &|y| symbols.draw(&Rectangle::new([(8, y - 8), (34, y + 8)], ROUGH_FILL.filled())).map_err(msg),
                "difficult terrain",
            )?;
        }
        if self.picture.terrain.iter().any(|t| t.kind == "obstacle") {
            line(
                &|y| symbols.draw(&PathElement::new(vec![(8, y), (34, y)], OBSTACLE.stroke_width(5))).map_err(msg),
                "obstacle",
            )?;
        }
        let small = (FONT, 12).into_font().color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
        // Each corridor's chances: anywhere through its line, and at the place drawn.
        for c in &self.picture.corridors {
            let pct = super::super::document::percent;
            let words = format!("line {}: corridor {}, {} here", c.line, pct(c.p_any), pct(c.p_here));
            symbols.draw(&Text::new(words, (16, y), small.clone())).map_err(msg)?;
            y += 18;
        }
        y += 4;
        symbols.draw(&Text::new("Charges ended, commonest first:".to_string(), (8, y), text.clone())).map_err(msg)?;
        // Commonest first, so the ending a reader most needs is never the one cut.
        let mut ends: Vec<&crate::mesbg::board::StopMark> = self.picture.stops.iter().collect();
        ends.sort_by(|a, b| b.p.total_cmp(&a.p).then(a.distance.total_cmp(&b.distance)));
        let room = (symbols.dim_in_pixel().1 as i32 - y - 10) / 18;
        for (i, s) in ends.iter().enumerate().take(room.max(0) as usize) {
            let line = if i + 1 == room as usize && ends.len() > room as usize {
                format!("... and {} more (listed in report.md)", ends.len() - i)
            } else {
                format!(
                    "{}{} {} at {:.1}\"",
                    s.chariot.map(|c| format!("{c}: ")).unwrap_or_default(),
                    super::super::document::percent(s.p),
                    short_how(s.how),
                    s.distance
                )
            };
            symbols.draw(&Text::new(line, (16, y + 18 * (i as i32 + 1)), small.clone())).map_err(msg)?;
        }
        let labels: Vec<(f64, String)> =
            [0.0, 0.25, 0.5, 0.75, 1.0].iter().map(|&t| (t, format!("{:.0}%", t * 100.0))).collect();
        let title = format!("chance slain ({})", super::super::document::counted(self.picture.trials, "trial"));
        colour_bar(&scale, &slain_shade, &labels, &title, (36, 176))
    }
}
