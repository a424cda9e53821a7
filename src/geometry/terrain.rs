//! Terrain and straight edges: polygons, segment distances, overlaps along a drive, and where a formation's models stand.

use super::*;

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
pub(super) fn segment_hits_box(a: Vec2, b: Vec2, hw: f64, hl: f64) -> bool {
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
    if footprint.oval {
        return oval_segment_distance(footprint.half_width, footprint.half_length, la, lb);
    }
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

/// The distance between the ellipse of semi-axes `a`, `b` and the segment `p`-`q` (0 when
/// they meet). Scaled to the unit circle, they meet when the segment comes within 1 of the
/// origin; otherwise the distance to a convex set is convex along the segment, so a golden-
/// section search finds its minimum.
pub(super) fn oval_segment_distance(a: f64, b: f64, p: Vec2, q: Vec2) -> f64 {
    let (sp, sq) = (Vec2::new(p.x / a, p.y / b), Vec2::new(q.x / a, q.y / b));
    if point_segment_distance(Vec2::new(0.0, 0.0), sp, sq) <= 1.0 {
        return 0.0;
    }
    let at = |u: f64| ellipse_signed_distance(a, b, p + (q - p).scale(u));
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (0.0, 1.0);
    let (mut x1, mut x2) = (hi - ratio * (hi - lo), lo + ratio * (hi - lo));
    let (mut f1, mut f2) = (at(x1), at(x2));
    for _ in 0..100 {
        if f1 < f2 {
            hi = x2;
            (x2, f2) = (x1, f1);
            x1 = hi - ratio * (hi - lo);
            f1 = at(x1);
        } else {
            lo = x1;
            (x1, f1) = (x2, f2);
            x2 = lo + ratio * (hi - lo);
            f2 = at(x2);
        }
    }
    [at(0.0), at(1.0), f1, f2].into_iter().fold(f64::INFINITY, f64::min).max(0.0)
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
    shortest_escape(pose.centre, 2.0 * footprint.circumradius() + 1.0, 40, |c| clearance(c) >= PUSH_CLEARANCE)
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
    [width, length]: [f64; 2],
    gap: f64,
    front_centre: Vec2,
    facing: f64,
) -> Vec<Vec2> {
    let per_rank = count.div_ceil(ranks.max(1));
    let forward = Vec2::heading(facing);
    let right = forward.right();
    let (across, along) = (width + gap, length + gap);
    let mut centres = Vec::with_capacity(count);
    for rank in 0..ranks {
        let in_rank = per_rank.min(count - centres.len());
        let back = front_centre - forward.scale(along * rank as f64);
        for i in 0..in_rank {
            let offset = (i as f64 - (in_rank as f64 - 1.0) / 2.0) * across;
            centres.push(back + right.scale(offset));
        }
        if centres.len() == count {
            break;
        }
    }
    centres
}
