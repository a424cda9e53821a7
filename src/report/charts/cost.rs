//! The cost curve of a balance: the fair price of a piece at each value of one of its
//! fields, with its 95% sampling whiskers and, across a matchup set, the band holding the
//! spread across lines too; so a designer sees what a change to the piece is worth in
//! points, and how sure that is.

use super::{ACCENT, BAND, Chart, INK, label_style, legend, msg, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Fair price against a field's values.
#[derive(Clone, Debug)]
pub struct CostCurveChart {
    /// The caption.
    pub title: String,
    /// The field, as the x axis names it.
    pub field: String,
    /// Each value as written, with the fair price and its 95% sampling interval.
    pub points: Vec<(String, (f64, f64, f64))>,
    /// Across a matchup set, the 95% interval holding the sampling noise and the spread
    /// across lines at each value.
    pub band: Option<Vec<(f64, f64)>>,
    /// The price the piece pays now.
    pub current: f64,
}

impl Chart for CostCurveChart {
    const KIND: &'static str = "cost curve";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        let n = self.points.len().max(1) as i32;
        let values = self.points.iter().flat_map(|(_, (p, lo, hi))| [*p, *lo, *hi]);
        let banded = self.band.iter().flatten().flat_map(|(lo, hi)| [*lo, *hi]);
        let (lo, hi) = values
            .chain(banded)
            .chain([self.current])
            .fold((0.0f64, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
        let hi = hi.max(lo + 1e-6);
        // Headroom above for the legend and the dots' labels.
        let (y0, y1) = (if lo < 0.0 { lo - 0.1 * (hi - lo) } else { 0.0 }, hi + 0.35 * (hi - lo));
        let labels: Vec<String> = self.points.iter().map(|(v, _)| v.clone()).collect();
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style())
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(80)
            .build_cartesian_2d((0..n - 1).into_segmented(), y0..y1)
            .map_err(msg)?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .disable_x_mesh()
            .x_desc(&self.field)
            .y_desc("fair price (points)")
            .x_labels(n as usize)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .y_label_formatter(&|y| format!("{y:.0}"))
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        let at = |i: usize| SegmentValue::CenterOf(i as i32);
        if let Some(band) = &self.band {
            let mut outline: Vec<(SegmentValue<i32>, f64)> =
                band.iter().enumerate().map(|(i, b)| (at(i), b.1)).collect();
            outline.extend(band.iter().enumerate().rev().map(|(i, b)| (at(i), b.0)));
            chart
                .draw_series(std::iter::once(Polygon::new(outline, BAND.mix(0.45).filled())))
                .map_err(msg)?
                .label("95% with the spread across lines")
                .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 18, y + 6)], BAND.filled()));
        }
        let grey = RGBColor(120, 120, 120);
        let current = self.current;
        let (left, right) = (SegmentValue::Exact(0), SegmentValue::Exact(n));
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(left, current), (right, current)],
                grey.stroke_width(1),
            )))
            .map_err(msg)?
            .label(format!("price paid now {current:.0}"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], grey.stroke_width(1)));
        chart
            .draw_series(std::iter::once(PathElement::new(
                self.points.iter().enumerate().map(|(i, (_, (p, _, _)))| (at(i), *p)).collect::<Vec<_>>(),
                INK.stroke_width(2),
            )))
            .map_err(msg)?;
        chart
            .draw_series(
                self.points.iter().enumerate().map(|(i, (_, (_, lo, hi)))| {
                    PathElement::new(vec![(at(i), *lo), (at(i), *hi)], BLACK.stroke_width(2))
                }),
            )
            .map_err(msg)?;
        chart
            .draw_series(
                self.points
                    .iter()
                    .enumerate()
                    .map(|(i, (_, (p, _, _)))| EmptyElement::at((at(i), *p)) + Circle::new((0, 0), 6, ACCENT.filled())),
            )
            .map_err(msg)?
            .label("fair price (95% sampling whisker)")
            .legend(|(x, y)| Circle::new((x + 9, y), 5, ACCENT.filled()));
        chart
            .draw_series(self.points.iter().enumerate().map(|(i, (_, (p, _, hi)))| {
                let style = label_style().pos(Pos::new(HPos::Center, VPos::Bottom));
                EmptyElement::at((at(i), hi.max(*p))) + Text::new(format!("{p:.1}"), (0, -10), style)
            }))
            .map_err(msg)?;
        legend(&mut chart)?;
        Ok(())
    }
}
