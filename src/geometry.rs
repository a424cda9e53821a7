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
    // Headings every quarter degree: between two samples a point of the footprint moves
    // at most circumradius * 0.0044 / 2 inches sideways, far below a millimetre.
    let steps = (pivot.abs() / 0.25).ceil().max(1.0) as usize;
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
    let clear = |p: Vec2| pivot_clearance(footprint, pose, pivot, p) >= needed;
    let reach = footprint.circumradius() + needed + 0.1;
    // The first clear distance along a direction: march, then bisect.
    let distance_along = |angle: f64| -> f64 {
        let dir = Vec2::heading(angle);
        let step = 0.02;
        let mut blocked = 0.0;
        let mut d = step;
        while d <= reach + 2.0 * needed {
            if clear(disc.centre + dir.scale(d)) {
                for _ in 0..40 {
                    let mid = 0.5 * (blocked + d);
                    if clear(disc.centre + dir.scale(mid)) {
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
    let (_, coarse) = best_in(0.0, 359.0, 1.0);
    let (d, angle) = best_in(coarse - 1.0, coarse + 1.0, 0.05);
    Some(disc.centre + Vec2::heading(angle).scale(d))
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
    fn wholly_beyond_a_line() {
        let chariot = Footprint::round_mm(50.8); // radius 1"
        let pose = Pose { centre: Vec2::new(0.0, 10.0), facing: 0.0 };
        assert!(wholly_beyond(&chariot, &pose, Vec2::new(0.0, 8.5), Vec2::new(0.0, 1.0), 0.5));
        assert!(!wholly_beyond(&chariot, &pose, Vec2::new(0.0, 8.6), Vec2::new(0.0, 1.0), 0.5));
    }
}
