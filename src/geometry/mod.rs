//! The board in inches: points, headings, base footprints, the straight drive of a
//! Chariot Charge swept against round bases, pivots that push models aside, and formation
//! layouts.
//!
//! Conventions: `+y` is "north"; a heading of 0 degrees points along `+y` and headings grow
//! clockwise (90 points along `+x`). A footprint is described in its own frame, where `+y` is
//! forward and `+x` is to its right.
//!
//! A chariot footprint is a *rounded box*: a rectangle of half-extents `(half_width,
//! half_length)` grown by `rounding` (a round base is a zero-size box grown by its radius;
//! a rectangular base has no rounding), or an *oval* (an ellipse of semi-axes `half_width`
//! across and `half_length` along). Round bases of the models it meets are discs. Contacts
//! of a rounded box are closed-form; an oval's are solved to machine precision: the
//! distance from a point to an ellipse by a bisection on its closest-point equation, and a
//! drive's first contact with a disc by a bisection on the parallel curve of the ellipse
//! (both monotone, so exact up to floating-point rounding, about 1e-12 inch).
//!
//! A model on an oval base (an ellipse, its length along the way its formation faces) is met
//! through the signed distance between two convex shapes, from their support functions:
//! `-min over directions u of (h_A(u) + h_B(-u) - (c_B - c_A).u)`, minimised over 36
//! directions and refined by golden sections around the two best (to about 1e-12 inch;
//! tested against brute-force sweeps of the ellipse's boundary). A straight drive along
//! `v` first touches the oval after `max over u (with v.u > 0) of (d.u - h_A(u) -
//! h_B(-u)) / (v.u)`, found the same way and confirmed by the gap there (tested against a
//! brute-force march to 1e-7 inch). Pivots push ovals by the shortest route, as discs.

use serde::Serialize;

mod bases;

use bases::first_contact_oval;
pub use bases::{Disc, OvalShape, convex_signed_distance, first_footprint_contact, footprint_gap};

mod terrain;
pub use terrain::*;

/// Millimetres per inch.
pub const MM_PER_INCH: f64 = 25.4;

/// Distances closer than this (inches) count as equal: contacts this close together are
/// simultaneous, and a gap this small is touching.
pub const EPSILON: f64 = 1e-7;

/// How far past the swept area a pushed model is put, so it is clearly no longer touching.
pub const PUSH_CLEARANCE: f64 = 1e-4;

/// A point or displacement on the board, in inches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Vec2 {
    /// East-west coordinate.
    pub x: f64,
    /// North-south coordinate.
    pub y: f64,
}

impl Vec2 {
    /// A vector from its coordinates.
    pub const fn new(x: f64, y: f64) -> Self {
        Self { x, y }
    }

    /// The unit vector of a heading in degrees (0 = `+y`, clockwise).
    pub fn heading(degrees: f64) -> Self {
        let r = degrees.to_radians();
        Self::new(r.sin(), r.cos())
    }

    /// Dot product.
    pub fn dot(self, other: Self) -> f64 {
        self.x * other.x + self.y * other.y
    }

    /// Length.
    pub fn length(self) -> f64 {
        self.dot(self).sqrt()
    }

    /// The vector scaled by `k`.
    pub fn scale(self, k: f64) -> Self {
        Self::new(self.x * k, self.y * k)
    }

    /// The unit vector 90 degrees clockwise (to the right of a heading).
    pub fn right(self) -> Self {
        Self::new(self.y, -self.x)
    }
}

impl std::ops::Add for Vec2 {
    type Output = Vec2;
    fn add(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x + o.x, self.y + o.y)
    }
}

impl std::ops::Sub for Vec2 {
    type Output = Vec2;
    fn sub(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x - o.x, self.y - o.y)
    }
}

/// Where a footprint stands and which way it faces.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Pose {
    /// Centre of the base.
    pub centre: Vec2,
    /// Heading in degrees.
    pub facing: f64,
}

impl Pose {
    /// A world point in the footprint's own frame (`x` right, `y` forward).
    pub fn to_local(&self, p: Vec2) -> Vec2 {
        let d = p - self.centre;
        let forward = Vec2::heading(self.facing);
        Vec2::new(d.dot(forward.right()), d.dot(forward))
    }

    /// The pose after driving `distance` inches straight ahead.
    pub fn advanced(&self, distance: f64) -> Pose {
        Pose { centre: self.centre + Vec2::heading(self.facing).scale(distance), facing: self.facing }
    }
}

/// A base footprint: a box of half-extents grown by `rounding` (see the module notes).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Footprint {
    /// Half the box's width (across the heading), inches.
    pub half_width: f64,
    /// Half the box's length (along the heading), inches.
    pub half_length: f64,
    /// Radius added all round, inches.
    pub rounding: f64,
    /// An oval (an ellipse of semi-axes `half_width` and `half_length`, no rounding) rather
    /// than a rounded box. Not serialised when false.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub oval: bool,
}

impl Footprint {
    /// A round base of the given diameter in millimetres.
    pub fn round_mm(diameter_mm: f64) -> Self {
        Self { half_width: 0.0, half_length: 0.0, rounding: diameter_mm / MM_PER_INCH / 2.0, oval: false }
    }

    /// A rectangular base, width across and length along the heading, in millimetres.
    pub fn rect_mm(width_mm: f64, length_mm: f64) -> Self {
        Self {
            half_width: width_mm / MM_PER_INCH / 2.0,
            half_length: length_mm / MM_PER_INCH / 2.0,
            rounding: 0.0,
            oval: false,
        }
    }

    /// An oval base, width across and length along the heading, in millimetres (an
    /// oval as wide as it is long is a round base).
    pub fn oval_mm(width_mm: f64, length_mm: f64) -> Self {
        if width_mm == length_mm {
            return Self::round_mm(width_mm);
        }
        Self { oval: true, ..Self::rect_mm(width_mm, length_mm) }
    }

    /// A point: the centre of a base, as "within terrain" measures it by the centre.
    pub const POINT: Footprint = Footprint { half_width: 0.0, half_length: 0.0, rounding: 0.0, oval: false };

    /// True when turning the footprint about its centre changes nothing (a round base).
    pub fn is_round(&self) -> bool {
        self.half_width == 0.0 && self.half_length == 0.0
    }

    /// The area of the footprint, square inches.
    pub fn area(&self) -> f64 {
        if self.oval {
            return std::f64::consts::PI * self.half_width * self.half_length;
        }
        4.0 * self.half_width * self.half_length
            + 2.0 * self.rounding * 2.0 * (self.half_width + self.half_length)
            + std::f64::consts::PI * self.rounding * self.rounding
    }

    /// Signed distance from a point in the footprint's frame to its edge (negative inside).
    pub fn signed_distance(&self, local: Vec2) -> f64 {
        if self.oval {
            return ellipse_signed_distance(self.half_width, self.half_length, local);
        }
        let qx = local.x.abs() - self.half_width;
        let qy = local.y.abs() - self.half_length;
        let outside = Vec2::new(qx.max(0.0), qy.max(0.0)).length();
        let inside = qx.max(qy).min(0.0);
        outside + inside - self.rounding
    }

    /// The radius of the largest circle about the centre that lies inside the footprint.
    pub fn inradius(&self) -> f64 {
        let half = self.half_width.min(self.half_length);
        if self.oval { half } else { half + self.rounding }
    }

    /// The farthest the footprint reaches from its centre.
    pub fn circumradius(&self) -> f64 {
        if self.oval {
            return self.half_width.max(self.half_length);
        }
        Vec2::new(self.half_width, self.half_length).length() + self.rounding
    }

    /// How far the footprint reaches along a unit direction given in its own frame.
    pub fn support(&self, local_dir: Vec2) -> f64 {
        if self.oval {
            return Vec2::new(self.half_width * local_dir.x, self.half_length * local_dir.y).length();
        }
        self.half_width * local_dir.x.abs() + self.half_length * local_dir.y.abs() + self.rounding
    }

    /// How far ahead of its centre line (local `y`) the footprint grown by `reach` extends
    /// at local `x`, or `None` when `|x|` is beyond it: a disc of radius `reach` centred at
    /// `(x, y)` touches the footprint sliding along `+y` when `y` reaches this.
    fn front_at(&self, x: f64, reach: f64) -> Option<f64> {
        if !self.oval {
            let r = self.rounding + reach;
            let dx = (x.abs() - self.half_width).max(0.0);
            if dx > r + EPSILON {
                return None;
            }
            return Some(self.half_length + (r * r - dx * dx).max(0.0).sqrt());
        }
        let (a, b) = (self.half_width, self.half_length);
        let x = x.abs();
        if x > a + reach + EPSILON {
            return None;
        }
        let x = x.min(a + reach);
        // The parallel curve at distance `reach`: p(t) + reach * n(t), t in [0, pi/2] for
        // the front right quarter, where x falls from a + reach to 0 as t grows.
        let point = |t: f64| {
            let (sin, cos) = t.sin_cos();
            let n = Vec2::new(b * cos, a * sin);
            let n = n.scale(1.0 / n.length());
            Vec2::new(a * cos, b * sin) + n.scale(reach)
        };
        // Regula falsi with the Illinois step on the bracket [0, pi/2], where x(t) - x
        // falls from >= 0 to <= 0: a handful of steps to machine precision.
        let f = |t: f64| point(t).x - x;
        let (mut lo, mut hi) = (0.0, std::f64::consts::FRAC_PI_2);
        let (mut f_lo, mut f_hi) = (f(lo), f(hi));
        if f_lo <= 0.0 {
            return Some(point(lo).y);
        }
        if f_hi >= 0.0 {
            return Some(point(hi).y);
        }
        let mut side = 0;
        let mut t = 0.5 * (lo + hi);
        for _ in 0..100 {
            t = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
            let ft = f(t);
            if ft == 0.0 || hi - lo < 1e-15 {
                break;
            }
            if ft > 0.0 {
                (lo, f_lo) = (t, ft);
                if side == 1 {
                    f_hi /= 2.0;
                }
                side = 1;
            } else {
                (hi, f_hi) = (t, ft);
                if side == -1 {
                    f_lo /= 2.0;
                }
                side = -1;
            }
            if ft.abs() < 1e-14 {
                break;
            }
        }
        Some(point(t).y)
    }
}

/// Signed distance from `p` to the ellipse of semi-axes `a` (along x) and `b` (along y),
/// negative inside: the closest point solves a one-dimensional equation, found by bisection
/// to machine precision (Eberly's robust method).
pub fn ellipse_signed_distance(a: f64, b: f64, p: Vec2) -> f64 {
    // Work with the longer axis first, in the first quadrant.
    let (e0, e1, y0, y1) = if a >= b { (a, b, p.x.abs(), p.y.abs()) } else { (b, a, p.y.abs(), p.x.abs()) };
    let inside = (y0 / e0).powi(2) + (y1 / e1).powi(2) < 1.0;
    let distance = if y1 > 0.0 {
        if y0 > 0.0 {
            let (z0, z1) = (y0 / e0, y1 / e1);
            let g = z0 * z0 + z1 * z1 - 1.0;
            if g == 0.0 {
                0.0
            } else {
                let r0 = (e0 / e1).powi(2);
                let n0 = r0 * z0;
                let (mut s0, mut s1) = (z1 - 1.0, if g < 0.0 { 0.0 } else { n0.hypot(z1) - 1.0 });
                // The root of the convex, decreasing G(s) in [s0, s1]: Newton's steps from
                // s0 (where G >= 0) approach it from below without overshooting, in a few
                // steps; bisection finishes whatever they leave.
                let g_of = |s: f64| (n0 / (s + r0)).powi(2) + (z1 / (s + 1.0)).powi(2) - 1.0;
                let mut s = s0;
                let mut converged = false;
                for _ in 0..60 {
                    let (u, v) = (n0 / (s + r0), z1 / (s + 1.0));
                    let value = u * u + v * v - 1.0;
                    if value.abs() < 1e-15 {
                        converged = true;
                        break;
                    }
                    let slope = -2.0 * (u * u / (s + r0) + v * v / (s + 1.0));
                    if value < 0.0 || slope >= 0.0 {
                        break;
                    }
                    let next = s - value / slope;
                    if !(next > s && next < s1) {
                        break;
                    }
                    s = next;
                }
                if !converged {
                    if g_of(s) >= 0.0 {
                        s0 = s;
                    }
                    // Bisection to an absolute 1e-16 in s (far below any distance that
                    // matters; halving towards 0 to the last subnormal would take 1,000
                    // steps).
                    while s1 - s0 > 1e-16 {
                        s = 0.5 * (s0 + s1);
                        if s == s0 || s == s1 {
                            break;
                        }
                        let g = g_of(s);
                        if g > 0.0 {
                            s0 = s;
                        } else if g < 0.0 {
                            s1 = s;
                        } else {
                            break;
                        }
                    }
                }
                let x0 = r0 * y0 / (s + r0);
                let x1 = y1 / (s + 1.0);
                (x0 - y0).hypot(x1 - y1)
            }
        } else {
            (y1 - e1).abs()
        }
    } else {
        let (numer, denom) = (e0 * y0, e0 * e0 - e1 * e1);
        if numer < denom {
            let xde0 = numer / denom;
            let x0 = e0 * xde0;
            let x1 = e1 * (1.0 - xde0 * xde0).max(0.0).sqrt();
            (x0 - y0).hypot(x1)
        } else {
            (y0 - e0).abs()
        }
    };
    if inside { -distance } else { distance }
}

/// The distance along a straight drive of `length` inches from `pose` at which the
/// footprint first touches `disc`, or `None` if it never does.
///
/// A disc already touching at the start counts (at 0) only when it stands ahead of the
/// footprint's centre line, i.e. the drive pushes into it rather than away.
pub fn first_contact(footprint: &Footprint, pose: &Pose, length: f64, disc: &Disc) -> Option<f64> {
    if disc.oval.is_some() {
        return first_contact_oval(footprint, pose, length, disc);
    }
    let q = pose.to_local(disc.centre);
    // Out of reach whatever the exact front (it is never more than this).
    let most = footprint.half_length + footprint.rounding + disc.radius + EPSILON;
    if q.y > most + length + EPSILON || q.y < -most {
        return None;
    }
    // While the footprint slides along +y, the disc touches it when |y| <= front.
    let front = footprint.front_at(q.x, disc.radius)?;
    if q.y > front {
        let s = q.y - front;
        return (s <= length + EPSILON).then_some(s.min(length));
    }
    (q.y >= -front && q.y > EPSILON).then_some(0.0)
}

/// True when `disc` overlaps the footprint at some heading while it pivots about its
/// centre from `pose.facing` by `pivot` degrees.
pub fn pivot_overlaps(footprint: &Footprint, pose: &Pose, pivot: f64, disc: &Disc) -> bool {
    // Beyond the footprint's reach at any heading: no need to look closer.
    if (disc.centre - pose.centre).length() - footprint.circumradius() >= disc.radius {
        return false;
    }
    if disc.oval.is_some() {
        return oval_pivot_gap(footprint, pose, pivot, disc, -EPSILON) < -EPSILON;
    }
    !pivot_keeps_clear(footprint, pose, pivot, disc.centre, disc.radius - EPSILON)
}

/// The smallest gap between the footprint and an oval base over the whole pivot (headings
/// every degree, as a pivot's clearance is measured), or any value at least `enough` once it is clear
/// that the gap is no smaller: the circles around and inside the oval settle most headings
/// without the full distance.
fn oval_pivot_gap(footprint: &Footprint, pose: &Pose, pivot: f64, disc: &Disc, enough: f64) -> f64 {
    let inner = disc.oval.map_or(disc.radius, |o| o.half_width.min(o.half_length));
    let steps = pivot.abs().ceil().max(1.0) as usize;
    let mut least = f64::INFINITY;
    for i in 0..=steps {
        let at = Pose { centre: pose.centre, facing: pose.facing + pivot * i as f64 / steps as f64 };
        let to_centre = footprint.signed_distance(at.to_local(disc.centre));
        if to_centre - disc.radius >= enough {
            continue;
        }
        if to_centre < inner {
            return to_centre - inner; // the circle inside overlaps: so does the oval
        }
        least = least.min(disc.distance_from(footprint, &at));
        if least < enough {
            return least;
        }
    }
    least.min(enough)
}

/// Whether `point` stays at least `needed` from the footprint over the whole pivot: the
/// answer of `pivot_clearance(..) >= needed`, settled without the distance where the circles
/// about and inside the footprint settle it (every heading lies between them, and the
/// point's distance from the centre does not turn), and at the first heading that comes
/// closer otherwise. A pushed model's escape asks this thousands of times.
fn pivot_keeps_clear(footprint: &Footprint, pose: &Pose, pivot: f64, point: Vec2, needed: f64) -> bool {
    // Far wider than the distance's rounding, far narrower than anything on a table.
    const MARGIN: f64 = 1e-9;
    let from_centre = (point - pose.centre).length();
    if from_centre - footprint.circumradius() >= needed + MARGIN {
        return true;
    }
    if from_centre - footprint.inradius() < needed - MARGIN {
        return false;
    }
    if footprint.is_round() || pivot == 0.0 {
        return footprint.signed_distance(pose.to_local(point)) >= needed;
    }
    let steps = pivot.abs().ceil().max(1.0) as usize;
    (0..=steps).all(|i| {
        let facing = pose.facing + pivot * i as f64 / steps as f64;
        footprint.signed_distance(Pose { centre: pose.centre, facing }.to_local(point)) >= needed
    })
}

/// The smallest distance between the footprint and `point` over the whole pivot.
#[cfg(test)]
fn pivot_clearance(footprint: &Footprint, pose: &Pose, pivot: f64, point: Vec2) -> f64 {
    if footprint.is_round() || pivot == 0.0 {
        return footprint.signed_distance(pose.to_local(point));
    }
    // Headings every degree: between two samples a point of the footprint strays at most
    // circumradius * (1 - cos 0.5 deg) = 0.00004 x circumradius from the sampled arc.
    let steps = pivot.abs().ceil().max(1.0) as usize;
    (0..=steps)
        .map(|i| {
            let facing = pose.facing + pivot * i as f64 / steps as f64;
            footprint.signed_distance(Pose { centre: pose.centre, facing }.to_local(point))
        })
        .fold(f64::INFINITY, f64::min)
}

/// Where a model touched by a pivot is pushed: the nearest position (shortest route) from
/// which the footprint can finish its whole pivot without touching it. `None` if the pivot
/// does not touch it.
pub fn pivot_push(footprint: &Footprint, pose: &Pose, pivot: f64, disc: &Disc) -> Option<Vec2> {
    if footprint.is_round() || pivot == 0.0 || !pivot_overlaps(footprint, pose, pivot, disc) {
        return None;
    }
    let needed = disc.radius + PUSH_CLEARANCE;
    let reach = footprint.circumradius() + 2.0 * needed + 0.1;
    if disc.oval.is_some() {
        return shortest_escape(disc.centre, reach, 26, |p| {
            oval_pivot_gap(footprint, pose, pivot, &Disc { centre: p, ..*disc }, PUSH_CLEARANCE) >= PUSH_CLEARANCE
        });
    }
    shortest_escape(disc.centre, reach, 40, |p| pivot_keeps_clear(footprint, pose, pivot, p, needed))
}

/// The nearest point to `origin` (within `reach`) where `is_clear` holds: along each
/// direction the first clear distance (marching in 0.05" steps, then `bisections` halvings:
/// 40 reach 1e-12 inch, 26 about 1e-9), over directions every 5 degrees, then every 0.5
/// degree around the best.
fn shortest_escape(origin: Vec2, reach: f64, bisections: u32, is_clear: impl Fn(Vec2) -> bool) -> Option<Vec2> {
    let distance_along = |angle: f64| -> f64 {
        let dir = Vec2::heading(angle);
        let step = 0.05;
        let mut blocked = 0.0;
        let mut d = step;
        while d <= reach {
            if is_clear(origin + dir.scale(d)) {
                for _ in 0..bisections {
                    let mid = 0.5 * (blocked + d);
                    if is_clear(origin + dir.scale(mid)) {
                        d = mid;
                    } else {
                        blocked = mid;
                    }
                }
                return d;
            }
            blocked = d;
            d += step;
        }
        f64::INFINITY
    };
    let best_in = |from: f64, to: f64, step: f64| {
        let n = ((to - from) / step).round() as usize;
        (0..=n)
            .map(|i| from + step * i as f64)
            .map(|a| (distance_along(a), a))
            .fold((f64::INFINITY, from), |best, cand| if cand.0 < best.0 - 1e-12 { cand } else { best })
    };
    let (_, coarse) = best_in(0.0, 355.0, 5.0);
    let (d, angle) = best_in(coarse - 5.0, coarse + 5.0, 0.5);
    d.is_finite().then(|| origin + Vec2::heading(angle).scale(d))
}

/// The least value of `f`, unimodal on `lo..hi`, found by a golden-section search of
/// `steps` steps (48 shrink the interval to 1e-10 of its width, 100 past the last bit);
/// `keep_left_on_tie` keeps the left part when the two probes tie.
fn golden_section_min(f: &impl Fn(f64) -> f64, mut lo: f64, mut hi: f64, steps: usize, keep_left_on_tie: bool) -> f64 {
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut x1, mut x2) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
    let (mut f1, mut f2) = (f(x1), f(x2));
    for _ in 0..steps {
        if f1 < f2 || (keep_left_on_tie && f1 == f2) {
            hi = x2;
            (x2, f2) = (x1, f1);
            x1 = hi - ratio * (hi - lo);
            f1 = f(x1);
        } else {
            lo = x1;
            (x1, f1) = (x2, f2);
            x2 = lo + ratio * (hi - lo);
            f2 = f(x2);
        }
    }
    f1.min(f2)
}

#[cfg(test)]
mod tests;
