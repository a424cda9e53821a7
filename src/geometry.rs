//! The board in inches: points, headings, base footprints, the straight drive of a
//! Chariot Charge swept against round bases, pivots that push models aside, and formation
//! layouts.
//!
//! Conventions: `+y` is "north"; a heading of 0 degrees points along `+y` and headings grow
//! clockwise (90 points along `+x`). A footprint is described in its own frame, where `+y` is
//! forward and `+x` is to its right.
//!
//! Every chariot footprint is a *rounded box*: a rectangle of half-extents
//! `(half_width, half_length)` grown by `rounding`. A round base is a zero-size box grown
//! by its radius; a rectangular base has no rounding. Round bases of the models it meets
//! are discs. That family keeps every contact computation exact and closed-form.

use serde::Serialize;

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
}

impl Footprint {
    /// A round base of the given diameter in millimetres.
    pub fn round_mm(diameter_mm: f64) -> Self {
        Self { half_width: 0.0, half_length: 0.0, rounding: diameter_mm / MM_PER_INCH / 2.0 }
    }

    /// A rectangular base, width across and length along the heading, in millimetres.
    pub fn rect_mm(width_mm: f64, length_mm: f64) -> Self {
        Self { half_width: width_mm / MM_PER_INCH / 2.0, half_length: length_mm / MM_PER_INCH / 2.0, rounding: 0.0 }
    }

    /// True when turning the footprint about its centre changes nothing (a round base).
    pub fn is_round(&self) -> bool {
        self.half_width == 0.0 && self.half_length == 0.0
    }

    /// Signed distance from a point in the footprint's frame to its edge (negative inside).
    pub fn signed_distance(&self, local: Vec2) -> f64 {
        let qx = local.x.abs() - self.half_width;
        let qy = local.y.abs() - self.half_length;
        let outside = Vec2::new(qx.max(0.0), qy.max(0.0)).length();
        let inside = qx.max(qy).min(0.0);
        outside + inside - self.rounding
    }

    /// The farthest the footprint reaches from its centre.
    pub fn circumradius(&self) -> f64 {
        Vec2::new(self.half_width, self.half_length).length() + self.rounding
    }

    /// How far the footprint reaches along a unit direction given in its own frame.
    pub fn support(&self, local_dir: Vec2) -> f64 {
        self.half_width * local_dir.x.abs() + self.half_length * local_dir.y.abs() + self.rounding
    }
}

/// A round base of a model on the board.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Disc {
    /// Centre, inches.
    pub centre: Vec2,
    /// Radius, inches.
    pub radius: f64,
}

/// The distance along a straight drive of `length` inches from `pose` at which the
/// footprint first touches `disc`, or `None` if it never does.
///
/// A disc already touching at the start counts (at 0) only when it stands ahead of the
/// footprint's centre line, i.e. the drive pushes into it rather than away.
pub fn first_contact(footprint: &Footprint, pose: &Pose, length: f64, disc: &Disc) -> Option<f64> {
    let q = pose.to_local(disc.centre);
    let reach = footprint.rounding + disc.radius;
    let dx = (q.x.abs() - footprint.half_width).max(0.0);
    if dx > reach + EPSILON {
        return None;
    }
    // While the box slides along +y, the disc touches it when |y| <= half_length + ext.
    let ext = (reach * reach - dx * dx).max(0.0).sqrt();
    let front = footprint.half_length + ext;
    if q.y > front {
        let s = q.y - front;
        return (s <= length + EPSILON).then_some(s.min(length));
    }
    (q.y >= -front && q.y > EPSILON).then_some(0.0)
}

/// True when `disc` overlaps the footprint at some heading while it pivots about its
/// centre from `pose.facing` by `pivot` degrees.
pub fn pivot_overlaps(footprint: &Footprint, pose: &Pose, pivot: f64, disc: &Disc) -> bool {
    pivot_clearance(footprint, pose, pivot, disc.centre) < disc.radius - EPSILON
}

/// The smallest distance between the footprint and `point` over the whole pivot.
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
    shortest_escape(disc.centre, reach, |p| pivot_clearance(footprint, pose, pivot, p) >= needed)
}

/// The nearest point to `origin` (within `reach`) where `is_clear` holds: along each
/// direction the first clear distance (marching in 0.05" steps, then bisecting to 1e-12),
/// over directions every 5 degrees, then every 0.5 degree around the best.
fn shortest_escape(origin: Vec2, reach: f64, is_clear: impl Fn(Vec2) -> bool) -> Option<Vec2> {
    let distance_along = |angle: f64| -> f64 {
        let dir = Vec2::heading(angle);
        let step = 0.05;
        let mut blocked = 0.0;
        let mut d = step;
        while d <= reach {
            if is_clear(origin + dir.scale(d)) {
                for _ in 0..40 {
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

/// A simple polygon on the board (inches), e.g. a wood.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Polygon {
    /// Corners in order (either direction); the last joins the first.
    pub vertices: Vec<Vec2>,
}

impl Polygon {
    /// Whether a point lies inside (even-odd rule).
    pub fn contains(&self, p: Vec2) -> bool {
        let n = self.vertices.len();
        let mut inside = false;
        for i in 0..n {
            let a = self.vertices[i];
            let b = self.vertices[(i + 1) % n];
            if (a.y > p.y) != (b.y > p.y) {
                let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
                if p.x < x {
                    inside = !inside;
                }
            }
        }
        inside
    }

    /// The edges as segments.
    pub fn edges(&self) -> impl Iterator<Item = (Vec2, Vec2)> + '_ {
        let n = self.vertices.len();
        (0..n).map(move |i| (self.vertices[i], self.vertices[(i + 1) % n]))
    }
}

/// Distance from point `p` to the segment `a`-`b`.
pub fn point_segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f64 {
    let ab = b - a;
    let len2 = ab.dot(ab);
    let t = if len2 > 0.0 { ((p - a).dot(ab) / len2).clamp(0.0, 1.0) } else { 0.0 };
    (p - (a + ab.scale(t))).length()
}

/// Whether the segment `a`-`b` (in a footprint's frame) crosses its box (Liang-Barsky).
fn segment_hits_box(a: Vec2, b: Vec2, hw: f64, hl: f64) -> bool {
    let d = b - a;
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [(-d.x, a.x + hw), (d.x, hw - a.x), (-d.y, a.y + hl), (d.y, hl - a.y)] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
            if t0 > t1 {
                return false;
            }
        }
    }
    true
}

/// Distance between the footprint at `pose` and the segment `a`-`b` (0 when they touch
/// or overlap).
pub fn footprint_segment_distance(footprint: &Footprint, pose: &Pose, a: Vec2, b: Vec2) -> f64 {
    let (la, lb) = (pose.to_local(a), pose.to_local(b));
    let (hw, hl) = (footprint.half_width, footprint.half_length);
    let to_box = if segment_hits_box(la, lb, hw, hl) {
        0.0
    } else {
        let corners = [Vec2::new(hw, hl), Vec2::new(-hw, hl), Vec2::new(hw, -hl), Vec2::new(-hw, -hl)];
        let box_only = Footprint { rounding: 0.0, ..*footprint };
        corners
            .iter()
            .map(|&c| point_segment_distance(c, la, lb))
            .chain([box_only.signed_distance(la), box_only.signed_distance(lb)])
            .fold(f64::INFINITY, f64::min)
    };
    (to_box - footprint.rounding).max(0.0)
}

/// Whether any part of the footprint at `pose` lies within the polygon.
pub fn overlaps_polygon(footprint: &Footprint, pose: &Pose, polygon: &Polygon) -> bool {
    polygon.contains(pose.centre)
        || polygon.edges().any(|(a, b)| footprint_segment_distance(footprint, pose, a, b) <= EPSILON)
}

/// The stretches `[from, to]` of a straight drive of `length` inches from `pose` during
/// which some part of the footprint lies within the polygon, to within 1e-7 inch (the
/// drive is scanned every 0.01 inch and every change refined by bisection).
pub fn overlap_intervals(footprint: &Footprint, pose: &Pose, length: f64, polygon: &Polygon) -> Vec<(f64, f64)> {
    let inside = |s: f64| overlaps_polygon(footprint, &pose.advanced(s), polygon);
    let refine = |mut lo: f64, mut hi: f64, lo_inside: bool| {
        for _ in 0..40 {
            let mid = 0.5 * (lo + hi);
            if inside(mid) == lo_inside {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    };
    let steps = (length / 0.01).ceil().max(1.0) as usize;
    let mut intervals = Vec::new();
    let mut prev_s = 0.0;
    let mut prev = inside(0.0);
    let mut start = if prev { Some(0.0) } else { None };
    for i in 1..=steps {
        let s = length * i as f64 / steps as f64;
        let now = inside(s);
        if now != prev {
            let edge = refine(prev_s, s, prev);
            if now {
                start = Some(edge);
            } else if let Some(from) = start.take() {
                intervals.push((from, edge));
            }
        }
        prev = now;
        prev_s = s;
    }
    if let Some(from) = start {
        intervals.push((from, length));
    }
    intervals
}

/// The distance along a straight drive of `length` inches from `pose` at which the
/// footprint first touches the segment `a`-`b`, found by conservative advancement (the
/// gap can close no faster than the drive), or `None`.
pub fn first_segment_contact(footprint: &Footprint, pose: &Pose, length: f64, a: Vec2, b: Vec2) -> Option<f64> {
    let mut s = 0.0;
    for _ in 0..100_000 {
        let gap = footprint_segment_distance(footprint, &pose.advanced(s), a, b);
        if gap <= EPSILON {
            return Some(s);
        }
        s += gap;
        if s > length {
            return None;
        }
    }
    None
}

/// Where a pivoting chariot must be moved (the shortest route) so that its whole pivot
/// clears the segment `a`-`b`, or `None` when the pivot does not touch it.
pub fn pivot_clear_of_segment(footprint: &Footprint, pose: &Pose, pivot: f64, a: Vec2, b: Vec2) -> Option<Vec2> {
    if footprint.is_round() || pivot == 0.0 {
        return None;
    }
    let steps = (pivot.abs() / 0.25).ceil().max(1.0) as usize;
    let clearance = |centre: Vec2| {
        (0..=steps)
            .map(|i| {
                let facing = pose.facing + pivot * i as f64 / steps as f64;
                footprint_segment_distance(footprint, &Pose { centre, facing }, a, b)
            })
            .fold(f64::INFINITY, f64::min)
    };
    if clearance(pose.centre) > EPSILON {
        return None;
    }
    shortest_escape(pose.centre, 2.0 * footprint.circumradius() + 1.0, |c| clearance(c) >= PUSH_CLEARANCE)
}

/// True when the whole footprint at `pose` lies beyond the line through `line_point`,
/// at least `margin` inches further along the unit direction `beyond`.
pub fn wholly_beyond(footprint: &Footprint, pose: &Pose, line_point: Vec2, beyond: Vec2, margin: f64) -> bool {
    let forward = Vec2::heading(pose.facing);
    let local_dir = Vec2::new(beyond.dot(forward.right()), beyond.dot(forward));
    let nearest = (pose.centre - line_point).dot(beyond) - footprint.support(local_dir);
    nearest >= margin - EPSILON
}

/// The base centres of a formation: `count` models in `ranks` ranks, side by side in base
/// contact (plus `gap` inches), ranks directly behind each other. The front rank is full;
/// a short last rank is centred. Models are listed rank by rank, left to right as the
/// formation sees it.
pub fn formation_centres(
    count: usize,
    ranks: usize,
    diameter: f64,
    gap: f64,
    front_centre: Vec2,
    facing: f64,
) -> Vec<Vec2> {
    let per_rank = count.div_ceil(ranks.max(1));
    let forward = Vec2::heading(facing);
    let right = forward.right();
    let spacing = diameter + gap;
    let mut centres = Vec::with_capacity(count);
    for rank in 0..ranks {
        let in_rank = per_rank.min(count - centres.len());
        let back = front_centre - forward.scale(spacing * rank as f64);
        for i in 0..in_rank {
            let offset = (i as f64 - (in_rank as f64 - 1.0) / 2.0) * spacing;
            centres.push(back + right.scale(offset));
        }
        if centres.len() == count {
            break;
        }
    }
    centres
}

#[cfg(test)]
mod tests {
    use super::*;

    const INCH_25MM: f64 = 25.0 / MM_PER_INCH;

    fn disc(x: f64, y: f64) -> Disc {
        Disc { centre: Vec2::new(x, y), radius: INCH_25MM / 2.0 }
    }

    #[test]
    fn headings_are_clockwise_from_north() {
        let east = Vec2::heading(90.0);
        assert!((east.x - 1.0).abs() < 1e-12 && east.y.abs() < 1e-12);
        let pose = Pose { centre: Vec2::new(1.0, 1.0), facing: 90.0 };
        let local = pose.to_local(Vec2::new(3.0, 0.0));
        assert!((local.y - 2.0).abs() < 1e-12, "ahead: {local:?}");
        // (3, 0) lies one inch south of (1, 1): to the right of an east-facing pose.
        assert!((local.x - 1.0).abs() < 1e-12, "to the right is south: {local:?}");
    }

    #[test]
    fn round_chariot_meets_a_disc_dead_ahead() {
        let chariot = Footprint::round_mm(60.0);
        let pose = Pose { centre: Vec2::new(0.0, 0.0), facing: 0.0 };
        let s = first_contact(&chariot, &pose, 10.0, &disc(0.0, 5.0)).unwrap();
        let expected = 5.0 - (30.0 + 12.5) / MM_PER_INCH;
        assert!((s - expected).abs() < 1e-12);
        // Glancing: offset sideways so the centres pass at exactly touching distance.
        let touch = (30.0 + 12.5) / MM_PER_INCH;
        let s = first_contact(&chariot, &pose, 10.0, &disc(touch, 5.0)).unwrap();
        assert!((s - 5.0).abs() < 1e-6);
        assert!(first_contact(&chariot, &pose, 10.0, &disc(touch + 0.01, 5.0)).is_none());
        // Out of reach of the move, and behind.
        assert!(first_contact(&chariot, &pose, 3.0, &disc(0.0, 5.0)).is_none());
        assert!(first_contact(&chariot, &pose, 10.0, &disc(0.0, -3.0)).is_none());
    }

    #[test]
    fn rectangular_chariot_sweeps_its_corners() {
        let chariot = Footprint::rect_mm(50.8, 101.6); // 2" x 4"
        let pose = Pose { centre: Vec2::new(0.0, 0.0), facing: 0.0 };
        let r = INCH_25MM / 2.0;
        // Straight ahead of the flat front.
        let s = first_contact(&chariot, &pose, 10.0, &disc(0.5, 6.0)).unwrap();
        assert!((s - (6.0 - 2.0 - r)).abs() < 1e-12);
        // Off the corner: the disc meets the corner point.
        let dx = 0.2;
        let s = first_contact(&chariot, &pose, 10.0, &disc(1.0 + dx, 6.0)).unwrap();
        assert!((s - (6.0 - 2.0 - (r * r - dx * dx).sqrt())).abs() < 1e-12);
        // Turned to face east, it meets a disc to the east.
        let east = Pose { centre: Vec2::new(0.0, 0.0), facing: 90.0 };
        let s = first_contact(&chariot, &east, 10.0, &disc(6.0, 0.0)).unwrap();
        assert!((s - (6.0 - 2.0 - r)).abs() < 1e-9);
    }

    #[test]
    fn touching_at_the_start_counts_only_ahead() {
        let chariot = Footprint::round_mm(60.0);
        let pose = Pose { centre: Vec2::new(0.0, 0.0), facing: 0.0 };
        let touch = (30.0 + 12.5) / MM_PER_INCH;
        assert_eq!(first_contact(&chariot, &pose, 5.0, &disc(0.0, touch)), Some(0.0));
        assert_eq!(first_contact(&chariot, &pose, 5.0, &disc(0.0, -touch)), None);
    }

    #[test]
    fn a_pivot_pushes_a_model_aside_by_the_shortest_route() {
        // A 2" x 4" chariot pivots 45 degrees clockwise; a model just off its front-right
        // corner is swept by the turning front and must be pushed clear.
        let chariot = Footprint::rect_mm(50.8, 101.6);
        let pose = Pose { centre: Vec2::new(0.0, 0.0), facing: 0.0 };
        let r = INCH_25MM / 2.0;
        let model = disc(1.0 + r + 0.05, 1.7);
        assert!(first_contact(&chariot, &pose, 0.0, &model).is_none(), "not touching before the pivot");
        assert!(pivot_overlaps(&chariot, &pose, 45.0, &model));
        let pushed = pivot_push(&chariot, &pose, 45.0, &model).expect("pushed");
        let moved = (pushed - model.centre).length();
        let after = Disc { centre: pushed, ..model };
        assert!(!pivot_overlaps(&chariot, &pose, 45.0, &after), "clear after the push");
        // Radially outwards would clear it too; the shortest route is no longer than that.
        let radial = chariot.circumradius() + r - model.centre.length();
        assert!(moved > 0.0 && moved <= radial + 1e-3, "moved {moved}, radial {radial}");
        // Turning the other way never reaches it, and a round chariot pushes nothing.
        assert!(pivot_push(&chariot, &pose, -45.0, &model).is_none());
        let round = Footprint::round_mm(60.0);
        assert!(pivot_push(&round, &pose, 45.0, &disc(1.2, 0.5)).is_none());
    }

    #[test]
    fn formation_layout_in_base_contact() {
        let d = INCH_25MM;
        let centres = formation_centres(5, 2, d, 0.0, Vec2::new(0.0, 6.0), 180.0);
        assert_eq!(centres.len(), 5);
        // Facing south: its right is west, so the first model (its left) is east.
        assert!((centres[0].x - d).abs() < 1e-12 && (centres[0].y - 6.0).abs() < 1e-12);
        assert!((centres[2].x + d).abs() < 1e-12);
        // The second rank stands behind (further north), short rank centred.
        assert!((centres[3].y - (6.0 + d)).abs() < 1e-12);
        assert!((centres[3].x - d / 2.0).abs() < 1e-12 && (centres[4].x + d / 2.0).abs() < 1e-12);
    }

    #[test]
    fn polygons_and_segments() {
        let square = Polygon {
            vertices: vec![Vec2::new(0.0, 0.0), Vec2::new(4.0, 0.0), Vec2::new(4.0, 4.0), Vec2::new(0.0, 4.0)],
        };
        assert!(square.contains(Vec2::new(1.0, 1.0)));
        assert!(!square.contains(Vec2::new(5.0, 1.0)));
        let chariot = Footprint::round_mm(50.8); // radius 1"
        let at = |x, y| Pose { centre: Vec2::new(x, y), facing: 0.0 };
        assert!(overlaps_polygon(&chariot, &at(-0.9, 2.0), &square), "base edge inside");
        assert!(!overlaps_polygon(&chariot, &at(-1.1, 2.0), &square));
        // Driving north from (2, -3): the base enters at y = -1 (s = 2) and leaves the far
        // side at y = 5 (s = 8).
        let iv = overlap_intervals(&chariot, &at(2.0, -3.0), 10.0, &square);
        assert_eq!(iv.len(), 1);
        assert!((iv[0].0 - 2.0).abs() < 1e-6 && (iv[0].1 - 8.0).abs() < 1e-6, "{iv:?}");
        // A wall across the path at y = 5 is touched when the front reaches it.
        let s = first_segment_contact(&chariot, &at(0.0, 0.0), 10.0, Vec2::new(-3.0, 5.0), Vec2::new(3.0, 5.0));
        assert!((s.unwrap() - 4.0).abs() < 1e-6, "{s:?}");
        assert!(
            first_segment_contact(&chariot, &at(0.0, 0.0), 3.0, Vec2::new(-3.0, 5.0), Vec2::new(3.0, 5.0)).is_none()
        );
        // A rectangle's corner reaching a wall beside it.
        let rect = Footprint::rect_mm(50.8, 101.6);
        let d = footprint_segment_distance(&rect, &at(0.0, 0.0), Vec2::new(1.5, -5.0), Vec2::new(1.5, 5.0));
        assert!((d - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_pivot_against_a_wall_moves_the_chariot_just_enough() {
        // A 2" x 4" chariot with a wall 0.2" off its right side pivots 45 degrees: its
        // front-right corner would cross the wall, so the chariot is moved away.
        let rect = Footprint::rect_mm(50.8, 101.6);
        let pose = Pose { centre: Vec2::new(0.0, 0.0), facing: 0.0 };
        let (a, b) = (Vec2::new(1.2, -10.0), Vec2::new(1.2, 10.0));
        let moved = pivot_clear_of_segment(&rect, &pose, 45.0, a, b).expect("must move");
        assert!(moved.x < 0.0, "away from the wall: {moved:?}");
        let after = Pose { centre: moved, facing: 45.0 };
        assert!(footprint_segment_distance(&rect, &after, a, b) > 0.0);
        // At 45 degrees the corner reaches sqrt(5) * sin(45 + 26.57) = 2.12" to the right.
        let needed = 5f64.sqrt() * (45f64 + 26.565).to_radians().sin() - 1.2;
        assert!((moved.length() - needed).abs() < 0.01, "{} vs {needed}", moved.length());
        assert!(pivot_clear_of_segment(&rect, &pose, 45.0, Vec2::new(5.0, -1.0), Vec2::new(5.0, 1.0)).is_none());
    }

    #[test]
    fn wholly_beyond_a_line() {
        let chariot = Footprint::round_mm(50.8); // radius 1"
        let pose = Pose { centre: Vec2::new(0.0, 10.0), facing: 0.0 };
        assert!(wholly_beyond(&chariot, &pose, Vec2::new(0.0, 8.5), Vec2::new(0.0, 1.0), 0.5));
        assert!(!wholly_beyond(&chariot, &pose, Vec2::new(0.0, 8.6), Vec2::new(0.0, 1.0), 0.5));
    }
}
