//! A drawing backend that sets a PNG chart's text the way its SVG sets it: each glyph
//! placed at its own fractional pen position with its side bearing and the font's kerning,
//! in the bundled regular or bold face as the style asks, and anchored by the same rules
//! as the SVG's `dy` (so the two files of a chart agree).
//!
//! Plotters 0.3.7 rasterises text itself, but drops each glyph's left side bearing and
//! rounds the pen to whole pixels, so small text came out unevenly spaced ("Khan dish
//! ch ari oteer"), and it never found the bold face, so PNG titles were regular where the
//! SVG's were bold. Everything but text passes through to the wrapped backend.

use super::svg_text::EX;
use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};

/// `inner`, with its text set by [`Typeset::draw_text`].
pub struct Typeset<'f, DB> {
    inner: DB,
    regular: FontRef<'f>,
    bold: FontRef<'f>,
}

impl<'f, DB: DrawingBackend> Typeset<'f, DB> {
    /// Wraps `inner`, setting text in `regular` and `bold` (font file contents); `None`
    /// when either file cannot be read.
    pub fn new(inner: DB, regular: &'f [u8], bold: &'f [u8]) -> Option<Self> {
        Some(Self { inner, regular: FontRef::try_from_slice(regular).ok()?, bold: FontRef::try_from_slice(bold).ok()? })
    }

    fn face(&self, style: FontStyle) -> &FontRef<'f> {
        if matches!(style, FontStyle::Bold) { &self.bold } else { &self.regular }
    }
}

/// The advance width of `text` set in `font` at `size` pixels (the font's height, as
/// plotters measures it), kerning included.
pub fn advance(font: &FontRef<'_>, size: f64, text: &str) -> f64 {
    let scaled = font.as_scaled(PxScale::from(size as f32));
    let mut pen = 0.0f32;
    let mut previous = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = previous {
            pen += scaled.kern(p, id);
        }
        pen += scaled.h_advance(id);
        previous = Some(id);
    }
    f64::from(pen)
}

impl<DB: DrawingBackend> DrawingBackend for Typeset<'_, DB> {
    type ErrorType = DB::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let colour = style.color();
        if colour.alpha == 0.0 || text.is_empty() {
            return Ok(());
        }
        let size = style.size();
        let font = self.face(style.style()).clone();
        let width = advance(&font, size, text);
        // Where the baseline starts, relative to `pos` before any rotation: the SVG's
        // `text-anchor` and `dy` rules.
        let left = match style.anchor().h_pos {
            HPos::Left => 0.0,
            HPos::Center => -width / 2.0,
            HPos::Right => -width,
        };
        let baseline = match style.anchor().v_pos {
            VPos::Top => 0.76 * size,
            VPos::Center => 0.5 * EX * size,
            VPos::Bottom => -0.5 * EX * size,
        };
        let scale = PxScale::from(size as f32);
        let scaled = font.as_scaled(scale);
        let transform = style.transform();
        let mut pen = left as f32;
        let mut previous = None;
        let mut ink: Vec<(i32, i32, f32)> = Vec::new();
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = previous {
                pen += scaled.kern(p, id);
            }
            let glyph = id.with_scale_and_position(scale, point(pen, baseline as f32));
            if let Some(outlined) = font.outline_glyph(glyph) {
                let bounds = outlined.px_bounds();
                let (x0, y0) = (bounds.min.x as i32, bounds.min.y as i32);
                outlined.draw(|x, y, coverage| {
                    if coverage > 0.0 {
                        ink.push((x0 + x as i32, y0 + y as i32, coverage.min(1.0)));
                    }
                });
            }
            pen += scaled.h_advance(id);
            previous = Some(id);
        }
        for (x, y, coverage) in ink {
            let (x, y) = transform.transform(x, y);
            let c = BackendColor { alpha: colour.alpha * f64::from(coverage), rgb: colour.rgb };
            self.inner.draw_pixel((pos.0 + x, pos.1 + y), c)?;
        }
        Ok(())
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        // As plotters measures it (the charts' layout is tuned to that), but with the
        // face the style asks for.
        let size = style.size();
        let width = advance(self.face(style.style()), size, text);
        Ok((width as u32, (size / 1.24) as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REGULAR: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
    const BOLD: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-Bold.ttf");

    /// Draws `text` at `size` px at (4, 4) into a white strip, set by this backend or
    /// (`typeset` false) by plotters itself; the red channel, row by row.
    fn strip(text: &str, size: f64, style: FontStyle, typeset: bool) -> (Vec<u8>, usize) {
        let (w, h) = (400u32, 60u32);
        let mut pixels = vec![255u8; (w * h * 3) as usize];
        {
            super::super::register_fonts();
            let mut backend = BitMapBackend::with_buffer(&mut pixels, (w, h));
            let font = ("sans-serif", size).into_font().style(style).color(&BLACK);
            if typeset {
                let mut typeset = Typeset::new(backend, REGULAR, BOLD).expect("fonts");
                typeset.draw_text(text, &font, (4, 4)).expect("drawn");
                typeset.present().expect("present");
            } else {
                backend.draw_text(text, &font, (4, 4)).expect("drawn");
                backend.present().expect("present");
            }
        }
        (pixels.chunks(3).map(|p| p[0]).collect(), w as usize)
    }

    /// The first column where each letter of `word` puts ink: where the picture of its
    /// first k+1 letters first differs from that of its first k.
    fn left_edges(word: &str, size: f64, typeset: bool) -> Vec<usize> {
        let chars: Vec<char> = word.chars().collect();
        (0..chars.len())
            .map(|k| {
                let before: String = chars[..k].iter().collect();
                let after: String = chars[..=k].iter().collect();
                let ((a, w), (b, _)) =
                    (strip(&before, size, FontStyle::Normal, typeset), strip(&after, size, FontStyle::Normal, typeset));
                (0..w).find(|&x| a.iter().zip(&b).skip(x).step_by(w).any(|(p, q)| p.abs_diff(*q) > 60)).unwrap_or(w)
            })
            .collect()
    }

    /// Where each letter's ink should start, from the font's metrics in its own units:
    /// the pen (advances and kerning of the letters before) plus the letter's left side
    /// bearing, scaled so the font's height is `size` px, from x = 4.
    fn ideal_left_edges(word: &str, size: f64) -> Vec<f64> {
        let font = FontRef::try_from_slice(REGULAR).expect("font");
        let scale = size / f64::from(font.height_unscaled());
        let mut pen = 0.0f64;
        let mut previous = None;
        let mut out = Vec::new();
        for c in word.chars() {
            let id = font.glyph_id(c);
            if let Some(p) = previous {
                pen += f64::from(font.kern_unscaled(p, id));
            }
            out.push(4.0 + (pen + f64::from(font.h_side_bearing_unscaled(id))) * scale);
            pen += f64::from(font.h_advance_unscaled(id));
            previous = Some(id);
        }
        out
    }

    #[test]
    fn each_letter_starts_where_the_fonts_metrics_put_it() {
        // Plotters' own text dropped each glyph's left side bearing (and rounded the pen),
        // so at 30 px letters sat up to 2-3 px from their place: "Khan dish ch ari oteer".
        let misplaced = |typeset: bool| {
            ["Khandish", "charioteer", "Minas Tirith"]
                .iter()
                .map(|word| {
                    let (seen, ideal) = (left_edges(word, 30.0, typeset), ideal_left_edges(word, 30.0));
                    // (a space puts no ink: its edge is not looked for)
                    let letters = word.chars().map(|c| c != ' ');
                    let off = |((s, i), letter): ((usize, f64), bool)| letter && (s as f64 - i.floor()).abs() > 1.0;
                    seen.into_iter().zip(ideal).zip(letters).filter(|&x| off(x)).count()
                })
                .sum::<usize>()
        };
        assert_eq!(misplaced(true), 0, "letters set by this backend are where the font puts them");
        assert!(misplaced(false) > 3, "the check sees plotters' spacing fault (else it checks nothing)");
    }

    #[test]
    fn bold_text_is_set_in_the_bold_face() {
        let ink = |(c, _): (Vec<u8>, usize)| c.iter().map(|&v| 255 - u32::from(v)).sum::<u32>();
        let (regular, bold) = (
            ink(strip("Khandish", 12.0, FontStyle::Normal, true)),
            ink(strip("Khandish", 12.0, FontStyle::Bold, true)),
        );
        assert!(bold > regular * 11 / 10, "bold {bold} vs regular {regular}");
    }
}
