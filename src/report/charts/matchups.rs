//! The fair price of a piece against each line of a matchup set: one row per line, its
//! price with its 95% sampling whisker, over the overall price's sampling band; so a reader
//! sees at once how far the price moves with the opponent against how sure each price is.

use super::{ACCENT, BAND, Chart, INK, label_style, legend, msg, title_style};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Fair prices per matchup, with the overall.
#[derive(Clone, Debug)]
pub struct MatchupChart {
    /// The caption.
    pub title: String,
    /// Each line's name and its fair price with the 95% sampling interval, in set order.
    pub rows: Vec<(String, (f64, f64, f64))>,
    /// The overall fair price and the 95% interval holding both its sampling noise and the
    /// spread across lines.
    pub overall: (f64, f64, f64),
    /// The price the piece pays now.
    pub current: f64,
}

impl Chart for MatchupChart {
    const KIND: &'static str = "matchup prices";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(msg)?;
        // Two empty rows above the lines keep the legend clear of every dot.
        let n = self.rows.len().max(1) as i32 + 2;
        let values = self.rows.iter().flat_map(|(_, (p, lo, hi))| [*p, *lo, *hi]);
        let (lo, hi) = values
            .chain([self.overall.1, self.overall.2, self.current])
            .fold((0.0f64, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
        let hi = hi.max(lo + 1e-6);
        let pad = 0.12 * (hi - lo);
        let (x0, x1) = (if lo < 0.0 { lo - pad } else { 0.0 }, hi + pad);
        // Rows top to bottom in set order.
        let names: Vec<String> = self.rows.iter().rev().map(|(name, _)| name.clone()).collect();
        let row = |i: usize| n - 3 - i as i32;
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, title_style())
            .margin(20)
            .x_label_area_size(55)
            .y_label_area_size(250)
            .build_cartesian_2d(x0..x1, (0..n - 1).into_segmented())
            .map_err(msg)?;
        chart
            .configure_mesh()
            .light_line_style(TRANSPARENT)
            .disable_y_mesh()
            // The rows are names, not values: no tick marks (the two spare rows above
            // would otherwise show ticks with nothing beside them).
            .set_tick_mark_size(LabelAreaPosition::Left, 0)
            .x_desc("fair price (points)")
            .y_labels(n as usize)
            .y_label_formatter(&|v| match v {
                // A little space between the name and the axis, which has no tick marks.
                SegmentValue::CenterOf(i) => names.get(*i as usize).map(|n| format!("{n}  ")).unwrap_or_default(),
                _ => String::new(),
            })
            .x_label_formatter(&|x| format!("{x:.0}"))
            .label_style(label_style())
            .axis_desc_style(label_style())
            .draw()
            .map_err(msg)?;
        let (overall, o_lo, o_hi) = self.overall;
        let (bottom, top) = (SegmentValue::Exact(0), SegmentValue::Exact(n));
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(o_lo.max(x0), bottom.clone()), (o_hi.min(x1), top.clone())],
                BAND.mix(0.45).filled(),
            )))
            .map_err(msg)?
            .label("overall price, 95% with the spread across lines")
            .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 18, y + 6)], BAND.filled()));
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(overall, bottom.clone()), (overall, top.clone())],
                INK.stroke_width(2),
            )))
            .map_err(msg)?
            .label(format!("overall fair price {overall:.1}"))
            .legend(|(x, y)| PathElement::new(vec![(x + 9, y - 7), (x + 9, y + 7)], INK.stroke_width(2)));
        let grey = RGBColor(120, 120, 120);
        let current = self.current;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(current, bottom), (current, top)],
                grey.stroke_width(1),
            )))
            .map_err(msg)?
            .label(format!("price paid now {current:.0}"))
            .legend(move |(x, y)| PathElement::new(vec![(x + 9, y - 7), (x + 9, y + 7)], grey.stroke_width(1)));
        chart
            .draw_series(self.rows.iter().enumerate().map(|(i, (_, (_, lo, hi)))| {
                let at = || SegmentValue::CenterOf(row(i));
                PathElement::new(vec![(*lo, at()), (*hi, at())], BLACK.stroke_width(2))
            }))
            .map_err(msg)?;
        // Each dot with its price written just right of its whisker.
        chart
            .draw_series(self.rows.iter().enumerate().map(|(i, (_, (p, _, _)))| {
                EmptyElement::at((*p, SegmentValue::CenterOf(row(i)))) + Circle::new((0, 0), 6, ACCENT.filled())
            }))
            .map_err(msg)?
            .label("fair price against the line (95% whisker)")
            .legend(|(x, y)| Circle::new((x + 9, y), 5, ACCENT.filled()));
        chart
            .draw_series(self.rows.iter().enumerate().map(|(i, (_, (p, _, hi)))| {
                let style = label_style().pos(Pos::new(HPos::Left, VPos::Center));
                EmptyElement::at((hi.max(*p), SegmentValue::CenterOf(row(i))))
                    + Text::new(format!("{p:.1}"), (10, 0), style)
            }))
            .map_err(msg)?;
        legend(&mut chart)?;
        Ok(())
    }
}
