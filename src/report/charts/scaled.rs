//! A drawing backend that draws every chart at a multiple of its size (`--png-scale 2`
//! for print): charts keep drawing in their own pixels and this scales coordinates, line
//! widths, radii and font sizes on the way to the real backend, so text is rasterised at
//! the larger size rather than enlarged.

use plotters::prelude::*;
use plotters::style::{FontDesc, TextStyle};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};

/// `inner` seen at 1/`scale` of its size.
pub struct Scaled<DB> {
    inner: DB,
    scale: f64,
}

impl<DB: DrawingBackend> Scaled<DB> {
    /// Wraps `inner`, whose size is `scale` times the size charts draw at.
    pub fn new(inner: DB, scale: f64) -> Self {
        Self { inner, scale }
    }

    fn at(&self, (x, y): BackendCoord) -> BackendCoord {
        ((f64::from(x) * self.scale).round() as i32, (f64::from(y) * self.scale).round() as i32)
    }

    fn length(&self, n: u32) -> u32 {
        ((f64::from(n) * self.scale).round() as u32).max(1)
    }
}

/// A line style with its width scaled.
struct Wider {
    color: BackendColor,
    width: u32,
}

impl BackendStyle for Wider {
    fn color(&self) -> BackendColor {
        self.color
    }
    fn stroke_width(&self) -> u32 {
        self.width
    }
}

impl<DB: DrawingBackend> DrawingBackend for Scaled<DB> {
    type ErrorType = DB::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        let (w, h) = self.inner.get_size();
        ((f64::from(w) / self.scale).round() as u32, (f64::from(h) / self.scale).round() as u32)
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let (a, b) = (self.at(point), self.at((point.0 + 1, point.1 + 1)));
        self.inner.draw_rect(a, (b.0 - 1, b.1 - 1), &color, true)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let wider = Wider { color: style.color(), width: self.length(style.stroke_width()) };
        let (from, to) = (self.at(from), self.at(to));
        self.inner.draw_line(from, to, &wider)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let wider = Wider { color: style.color(), width: self.length(style.stroke_width()) };
        let (a, b) = (self.at(upper_left), self.at(bottom_right));
        self.inner.draw_rect(a, b, &wider, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let wider = Wider { color: style.color(), width: self.length(style.stroke_width()) };
        let points: Vec<BackendCoord> = path.into_iter().map(|p| self.at(p)).collect();
        self.inner.draw_path(points, &wider)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let wider = Wider { color: style.color(), width: self.length(style.stroke_width()) };
        let (centre, radius) = (self.at(center), self.length(radius));
        self.inner.draw_circle(centre, radius, &wider, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let points: Vec<BackendCoord> = vert.into_iter().map(|p| self.at(p)).collect();
        self.inner.fill_polygon(points, &style.color())
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let family = style.family();
        let font = FontDesc::new(family, style.size() * self.scale, style.style()).transform(style.transform());
        let colour = style.color();
        let (r, g, b) = colour.rgb;
        let ink = RGBColor(r, g, b).mix(colour.alpha);
        let scaled = TextStyle::from(font).color(&ink).pos(style.anchor());
        let pos = self.at(pos);
        self.inner.draw_text(text, &scaled, pos)
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        self.inner.estimate_text_size(text, style)
    }
}
