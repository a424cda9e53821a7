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
    golden_section_min(&at, 0.0, 1.0, GOLDEN_TO_THE_LAST_BIT, false).min(at(0.0)).min(at(1.0)).max(0.0)
}

/// Whether any part of the footprint at `pose` lies within the polygon.
pub fn overlaps_polygon(footprint: &Footprint, pose: &Pose, polygon: &Polygon) -> bool {
    let reach = footprint.circumradius();
    polygon.contains(pose.centre)
        || polygon.edges().any(|(a, b)| {
            // Beyond the circle about the footprint, an edge cannot touch it.
            point_segment_distance(pose.centre, a, b) - reach <= EPSILON
                && footprint_segment_distance(footprint, pose, a, b) <= EPSILON
        })
}

/// The stretches `[from, to]` of a straight drive of `length` inches from `pose` during
/// which some part of the footprint lies within the polygon, to within 1e-7 inch (the
/// drive is scanned every 0.01 inch and every change refined by bisection). Scan points
/// the footprint cannot reach an edge from are answered without looking: whether it
/// overlaps changes only where an edge touches it, and the drive closes no gap faster
/// than it drives.
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
    let step = length / steps as f64;
    // The last scan point known to answer as the one before it (from the edges' clearance).
    let known_until = |i: usize, clearance: f64| {
        let unchanged = ((clearance - EPSILON - 1e-12) / step).floor();
        if unchanged >= 1.0 { i + (unchanged.min(steps as f64) as usize) } else { i }
    };
    let mut intervals = Vec::new();
    let mut prev_s = 0.0;
    let (mut prev, clearance) = overlap_and_clearance(footprint, &pose.advanced(0.0), polygon);
    let mut known = known_until(0, clearance);
    let mut start = if prev { Some(0.0) } else { None };
    let mut i = 1;
    while i <= steps {
        if i <= known {
            // As the point before: nothing to do but move on.
            i = known.min(steps) + 1;
            prev_s = length * known.min(steps) as f64 / steps as f64;
            continue;
        }
        let s = length * i as f64 / steps as f64;
        let (now, clearance) = overlap_and_clearance(footprint, &pose.advanced(s), polygon);
        if now != prev {
            let edge = refine(prev_s, s, prev);
            if now {
                start = Some(edge);
            } else if let Some(from) = start.take() {
                intervals.push((from, edge));
            }
        }
        known = known_until(i, clearance);
        prev = now;
        prev_s = s;
        i += 1;
    }
    if let Some(from) = start {
        intervals.push((from, length));
    }
    intervals
}

/// Whether any part of the footprint at `pose` lies within the polygon, and a lower bound
/// on its distance from the polygon's edges (their exact distance where it is small).
fn overlap_and_clearance(footprint: &Footprint, pose: &Pose, polygon: &Polygon) -> (bool, f64) {
    let reach = footprint.circumradius();
    let mut clearance = f64::INFINITY;
    for (a, b) in polygon.edges() {
        // The footprint lies within its circumradius of the centre.
        let bound = point_segment_distance(pose.centre, a, b) - reach;
        let d = if bound > EPSILON { bound } else { footprint_segment_distance(footprint, pose, a, b) };
        clearance = clearance.min(d);
    }
    (clearance <= EPSILON || polygon.contains(pose.centre), clearance)
}

/// The distance along a straight drive of `length` inches from `pose` at which the
/// footprint first touches the segment `a`-`b`, or `None` (0 when they touch already, to
/// within [`EPSILON`]).
///
/// Solved, not stepped: seen from the chariot, the segment slides straight back towards
/// it, so a point of the segment at `(x, y)` (across, ahead) meets the footprint after
/// `y - front(x)`, where `front` is the footprint's front edge. That is convex along the
/// segment (a line less a concave edge), so its least value over the part of the segment
/// within the footprint's width is the contact. (Stepping by the gap crawled when the
/// chariot drove alongside a wall: up to 100,000 distance solves per drive.)
pub fn first_segment_contact(footprint: &Footprint, pose: &Pose, length: f64, a: Vec2, b: Vec2) -> Option<f64> {
    if footprint_segment_distance(footprint, pose, a, b) <= EPSILON {
        return Some(0.0);
    }
    let (p, q) = (pose.to_local(a), pose.to_local(b));
    let extent = half_extent_across(footprint);
    // The part of the segment (u in [lo, hi]) within the footprint's width.
    let dx = q.x - p.x;
    let (lo, hi) = if dx.abs() < 1e-15 {
        if p.x.abs() > extent {
            return None;
        }
        (0.0, 1.0)
    } else {
        let (u1, u2) = ((-extent - p.x) / dx, (extent - p.x) / dx);
        (u1.min(u2).max(0.0), u1.max(u2).min(1.0))
    };
    if lo > hi {
        return None;
    }
    let point = |u: f64| p + (q - p).scale(u);
    let ahead = |u: f64| {
        let at = point(u);
        at.y - front_edge(footprint, at.x)
    };
    // Not touching, so the whole part is ahead of the footprint or behind it.
    if ahead(0.5 * (lo + hi)) < 0.0 {
        return None;
    }
    let s = golden_section_min(&ahead, lo, hi, GOLDEN_TO_THE_LAST_BIT, false).min(ahead(lo)).min(ahead(hi)).max(0.0);
    (s <= length).then_some(s)
}

/// Golden-section steps that shrink the interval below the last bit of a unit interval.
const GOLDEN_TO_THE_LAST_BIT: usize = 100;

/// Half the footprint's width across its heading.
fn half_extent_across(footprint: &Footprint) -> f64 {
    if footprint.oval { footprint.half_width } else { footprint.half_width + footprint.rounding }
}

/// How far ahead of the centre the footprint's front edge lies at `x` across (`|x|` at
/// most [`half_extent_across`]).
fn front_edge(footprint: &Footprint, x: f64) -> f64 {
    if footprint.oval {
        let t = x / footprint.half_width;
        footprint.half_length * (1.0 - t * t).max(0.0).sqrt()
    } else {
        let beyond = (x.abs() - footprint.half_width).max(0.0);
        let r = footprint.rounding;
        footprint.half_length + (r * r - beyond * beyond).max(0.0).sqrt()
    }
}

/// Where a pivoting chariot must be moved (the shortest route) so that its whole pivot
/// clears the segment `a`-`b`, or `None` when the pivot does not touch it.
pub fn pivot_clear_of_segment(footprint: &Footprint, pose: &Pose, pivot: f64, a: Vec2, b: Vec2) -> Option<Vec2> {
    if footprint.is_round() || pivot == 0.0 {
        return None;
    }
    let steps = (pivot.abs() / 0.25).ceil().max(1.0) as usize;
    // Whether every heading of the pivot about `centre` is clear of the wall by what `far`
    // asks of the distance: settled by the circles about and inside the footprint where
    // they settle it (the wall's distance from the centre does not turn), otherwise at the
    // first heading that fails (the escape asks this thousands of times).
    const MARGIN: f64 = 1e-9;
    let keeps_clear = |centre: Vec2, needed: f64, far: &dyn Fn(f64) -> bool| {
        let from_centre = point_segment_distance(centre, a, b);
        if from_centre - footprint.circumradius() >= needed + MARGIN {
            return true;
        }
        if from_centre - footprint.inradius() < needed - MARGIN {
            return false;
        }
        // Turning by a step moves no point of the footprint further than `drift`, so a
        // heading clear by more than k drifts answers for the next k headings too.
        let drift = footprint.circumradius() * (pivot.abs() / steps as f64).to_radians();
        let mut i = 0;
        while i <= steps {
            let facing = pose.facing + pivot * i as f64 / steps as f64;
            let d = footprint_segment_distance(footprint, &Pose { centre, facing }, a, b);
            if !far(d) {
                return false;
            }
            let answered = ((d - needed - MARGIN) / drift).floor();
            i += if answered >= 1.0 { answered.min(steps as f64) as usize + 1 } else { 1 };
        }
        true
    };
    if keeps_clear(pose.centre, EPSILON, &|d| d > EPSILON) {
        return None;
    }
    shortest_escape(pose.centre, 2.0 * footprint.circumradius() + 1.0, 40, |c| {
        keeps_clear(c, PUSH_CLEARANCE, &|d| d >= PUSH_CLEARANCE)
    })
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
