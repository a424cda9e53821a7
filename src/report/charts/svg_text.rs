//! SVG charts whose text looks the same in every viewer: each `<text>` element plotters
//! writes is replaced by the outlines of its glyphs in the bundled DejaVu Sans, as one
//! `<path>` (its words kept in `aria-label` for screen readers and search).
//!
//! A `<text>` element names a font family the viewer may not have, so the same SVG looks
//! different in a browser, Inkscape or a journal's pipeline; outlines do not depend on
//! the viewer. The cost is size (a few kB per chart) and text that is no longer editable
//! as text, hence [`SvgText::Text`] as the other choice.

use ab_glyph::{Font, FontRef, GlyphId, OutlineCurve};
use std::fmt::Write;

/// How SVG charts carry their text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SvgText {
    /// Glyph outlines of the bundled font: looks the same everywhere.
    #[default]
    Paths,
    /// `<text>` elements: smaller and editable, but drawn in whatever sans-serif font the
    /// viewer has.
    Text,
}

/// x-height of DejaVu Sans as a share of the em (1120 of 2048 units): what `ex` means in
/// the `dy` plotters writes.
pub(crate) const EX: f64 = 1120.0 / 2048.0;

/// The attributes of one `<text>` element that matter for drawing it.
#[derive(Debug, Default)]
struct TextElement<'a> {
    x: f64,
    y: f64,
    dy: &'a str,
    anchor: &'a str,
    size: f64,
    fill: &'a str,
    opacity: &'a str,
    bold: bool,
    transform: Option<&'a str>,
}

fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(&tag[start..end])
}

fn parse_tag(tag: &str) -> TextElement<'_> {
    let number = |name| attribute(tag, name).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    TextElement {
        x: number("x"),
        y: number("y"),
        dy: attribute(tag, "dy").unwrap_or(""),
        anchor: attribute(tag, "text-anchor").unwrap_or("start"),
        size: number("font-size"),
        fill: attribute(tag, "fill").unwrap_or("#000000"),
        opacity: attribute(tag, "opacity").unwrap_or("1"),
        bold: attribute(tag, "font-weight") == Some("bold"),
        transform: attribute(tag, "transform"),
    }
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The outline of `text` set in `font` at `size` pixels per em, with its left end of the
/// baseline at (`x`, `baseline`), as SVG path data; and its advance width.
fn outline_path(font: &FontRef<'_>, text: &str, size: f64, x: f64, baseline: f64) -> (String, f64) {
    let units = f64::from(font.units_per_em().unwrap_or(2048.0));
    let scale = size / units;
    let mut d = String::new();
    let mut pen = 0.0f64;
    let mut previous: Option<GlyphId> = None;
    for c in text.chars() {
        let id = font.glyph_id(c);
        if let Some(p) = previous {
            pen += f64::from(font.kern_unscaled(p, id));
        }
        if let Some(outline) = font.outline(id) {
            let at = |p: ab_glyph::Point| (x + (pen + f64::from(p.x)) * scale, baseline - f64::from(p.y) * scale);
            let mut last: Option<(f64, f64)> = None;
            for curve in &outline.curves {
                let (start, rest): (ab_glyph::Point, Vec<ab_glyph::Point>) = match curve {
                    OutlineCurve::Line(a, b) => (*a, vec![*b]),
                    OutlineCurve::Quad(a, b, c) => (*a, vec![*b, *c]),
                    OutlineCurve::Cubic(a, b, c, e) => (*a, vec![*b, *c, *e]),
                };
                let s = at(start);
                let joined = last.is_some_and(|l| (l.0 - s.0).abs() < 1e-6 && (l.1 - s.1).abs() < 1e-6);
                if !joined {
                    if last.is_some() {
                        d.push('Z');
                    }
                    let _ = write!(d, "M{:.2} {:.2}", s.0, s.1);
                }
                let command = match rest.len() {
                    1 => 'L',
                    2 => 'Q',
                    _ => 'C',
                };
                d.push(command);
                for (i, p) in rest.iter().enumerate() {
                    let q = at(*p);
                    let _ = write!(d, "{}{:.2} {:.2}", if i == 0 { "" } else { " " }, q.0, q.1);
                }
                last = rest.last().map(|p| at(*p));
            }
            if last.is_some() {
                d.push('Z');
            }
        }
        pen += f64::from(font.h_advance_unscaled(id));
        previous = Some(id);
    }
    (d, pen * scale)
}

/// Replaces every `<text>` element of an SVG written by plotters with the outlines of its
/// glyphs. Elements it cannot read are left as they are.
pub fn text_to_paths(svg: &str, regular: &[u8], bold: &[u8]) -> String {
    let (Ok(regular), Ok(bold)) = (FontRef::try_from_slice(regular), FontRef::try_from_slice(bold)) else {
        return svg.to_string();
    };
    let mut out = String::with_capacity(svg.len() * 2);
    let mut rest = svg;
    while let Some(open) = rest.find("<text ") {
        out.push_str(&rest[..open]);
        let element = &rest[open..];
        let (Some(tag_end), Some(close)) = (element.find('>'), element.find("</text>")) else {
            out.push_str(element);
            return out;
        };
        let tag = &element[..tag_end];
        let words = unescape(element[tag_end + 1..close].trim_matches('\n'));
        let t = parse_tag(tag);
        let font = if t.bold { &bold } else { &regular };
        let shift = match t.dy {
            "0.76em" => 0.76 * t.size,
            "0.5ex" => 0.5 * EX * t.size,
            "-0.5ex" => -0.5 * EX * t.size,
            _ => 0.0,
        };
        let (_, width) = outline_path(font, &words, t.size, 0.0, 0.0);
        let left = match t.anchor {
            "middle" => t.x - width / 2.0,
            "end" => t.x - width,
            _ => t.x,
        };
        let (d, _) = outline_path(font, &words, t.size, left, t.y + shift);
        let _ = write!(
            out,
            "<path d=\"{d}\" fill=\"{}\" opacity=\"{}\" aria-label=\"{}\"{}/>",
            t.fill,
            t.opacity,
            escape(&words),
            t.transform.map(|tr| format!(" transform=\"{tr}\"")).unwrap_or_default()
        );
        rest = &element[close + "</text>".len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const REGULAR: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
    const BOLD: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans-Bold.ttf");

    #[test]
    fn text_becomes_outlines_placed_by_its_anchor() {
        let svg = "<svg>\n<text x=\"100\" y=\"50\" dy=\"0.76em\" text-anchor=\"middle\" font-family=\"sans-serif\" \
                   font-size=\"20\" opacity=\"1\" fill=\"#000000\" font-weight=\"bold\">\nA &amp; o\n</text>\n\
                   <text x=\"10\" y=\"80\" dy=\"-0.5ex\" text-anchor=\"start\" font-family=\"sans-serif\" \
                   font-size=\"10\" opacity=\"1\" fill=\"#FF0000\" transform=\"rotate(270, 10, 80)\">\nx\n</text>\n</svg>";
        let out = text_to_paths(svg, REGULAR, BOLD);
        assert!(!out.contains("<text"), "{out}");
        assert_eq!(out.matches("<path ").count(), 2);
        assert!(out.contains("aria-label=\"A &amp; o\"") && out.contains("transform=\"rotate(270, 10, 80)\""));
        // "o" has a hole: two closed contours in one path, so the hole stays empty.
        let first = &out[out.find("d=\"").unwrap()..out.find("\" fill").unwrap()];
        assert!(first.matches('M').count() >= 4, "A (2 contours), o (2): {first}");
        // Centred on x = 100: the outline's horizontal extent straddles it.
        let xs: Vec<f64> = first
            .split(|c: char| c.is_ascii_alphabetic())
            .filter_map(|p| p.split_whitespace().next().and_then(|v| v.parse().ok()))
            .collect();
        let (lo, hi) = xs.iter().fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        assert!((lo + hi) / 2.0 > 95.0 && (lo + hi) / 2.0 < 105.0, "{lo} .. {hi}");
        assert!(hi - lo > 40.0 && hi - lo < 80.0, "5 characters at 20 px: {lo} .. {hi}");
    }

    #[test]
    fn an_svg_without_text_is_unchanged() {
        let svg = "<svg><rect x=\"0\" y=\"0\" width=\"1\" height=\"1\"/></svg>";
        assert_eq!(text_to_paths(svg, REGULAR, BOLD), svg);
    }
}
