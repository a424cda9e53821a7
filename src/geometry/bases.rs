//! Models' bases on the board, round or oval, and the gap between convex shapes that an
//! oval base is met by (see the module notes of [`super`]).

use super::*;

/// A model's base on the board: round (a disc of `radius`), or oval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Disc {
    /// Centre, inches.
    pub centre: Vec2,
    /// Radius, inches (for an oval base, the farthest it reaches from its centre: half its
    /// length).
    pub radius: f64,
    /// An oval base's shape, if the base is oval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oval: Option<OvalShape>,
}

/// An oval model base: an ellipse of semi-axes `half_width` across and `half_length` along
/// `facing` (the way the model faces), inches.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OvalShape {
    /// Half the width, across the model's facing, inches.
    pub half_width: f64,
    /// Half the length, along the model's facing, inches.
    pub half_length: f64,
    /// The model's heading, degrees.
    pub facing: f64,
}

impl Disc {
    /// A round base.
    pub fn round(centre: Vec2, radius: f64) -> Self {
        Self { centre, radius, oval: None }
    }

    /// An oval base of `width` x `length` inches facing `facing` degrees.
    pub fn oval(centre: Vec2, width: f64, length: f64, facing: f64) -> Self {
        let (half_width, half_length) = (width / 2.0, length / 2.0);
        Self { centre, radius: half_width.max(half_length), oval: Some(OvalShape { half_width, half_length, facing }) }
    }

    /// The base's area, square inches.
    pub fn area(&self) -> f64 {
        match self.oval {
            Some(o) => std::f64::consts::PI * o.half_width * o.half_length,
            None => std::f64::consts::PI * self.radius * self.radius,
        }
    }

    /// How far the base reaches from its centre along the unit world direction `dir`.
    pub fn reach(&self, dir: Vec2) -> f64 {
        (self.support_fn())(dir)
    }

    /// How far the base reaches from its centre along a unit world direction, with the
    /// oval's axes worked out once for the many directions asked.
    fn support_fn(&self) -> impl Fn(Vec2) -> f64 + use<> {
        let (radius, oval) = (self.radius, self.oval.map(|o| (o.half_width, o.half_length, Vec2::heading(o.facing))));
        move |dir: Vec2| match oval {
            Some((hw, hl, forward)) => Vec2::new(hw * dir.dot(forward.right()), hl * dir.dot(forward)).length(),
            None => radius,
        }
    }

    /// The gap between this base's edge and `other`'s (negative when they overlap).
    pub fn distance_to(&self, other: &Disc) -> f64 {
        if self.oval.is_none() && other.oval.is_none() {
            return (other.centre - self.centre).length() - self.radius - other.radius;
        }
        convex_signed_distance(self.support_fn(), self.centre, other.support_fn(), other.centre)
    }

    /// The gap between the footprint at `pose` and this base (negative when they overlap).
    pub fn distance_from(&self, footprint: &Footprint, pose: &Pose) -> f64 {
        if self.oval.is_none() {
            return footprint.signed_distance(pose.to_local(self.centre)) - self.radius;
        }
        let forward = Vec2::heading(pose.facing);
        let right = forward.right();
        let chariot = |u: Vec2| footprint.support(Vec2::new(u.dot(right), u.dot(forward)));
        convex_signed_distance(chariot, pose.centre, self.support_fn(), self.centre)
    }
}

/// The gap between two footprints at their poses (negative when they overlap): two
/// chariots' bases.
pub fn footprint_gap(a: &Footprint, pose_a: &Pose, b: &Footprint, pose_b: &Pose) -> f64 {
    let world = |f: Footprint, pose: Pose| {
        let forward = Vec2::heading(pose.facing);
        let right = forward.right();
        move |u: Vec2| f.support(Vec2::new(u.dot(right), u.dot(forward)))
    };
    convex_signed_distance(world(*a, *pose_a), pose_a.centre, world(*b, *pose_b), pose_b.centre)
}

/// The distance along a straight drive of `length` inches from `pose` at which footprint
/// `f` first touches footprint `other` standing at `other_pose`, or `None` if it never
/// does: found on a 0.01" grid, then to 1e-6" by bisection.
pub fn first_footprint_contact(
    f: &Footprint,
    pose: &Pose,
    length: f64,
    other: &Footprint,
    other_pose: &Pose,
) -> Option<f64> {
    let gap = |s: f64| footprint_gap(f, &pose.advanced(s), other, other_pose);
    // Out of reach whatever the shapes.
    let reach = f.circumradius() + other.circumradius();
    let to = other_pose.centre - pose.centre;
    let along = to.dot(Vec2::heading(pose.facing));
    let across = (to.length().powi(2) - along * along).max(0.0).sqrt();
    if across > reach + EPSILON || along < -reach || along > length + reach {
        return None;
    }
    if gap(0.0) <= 0.0 {
        // Touching already: the drive meets it only when it stands ahead.
        return (along > EPSILON).then_some(0.0);
    }
    const STEP: f64 = 0.01;
    let steps = (length / STEP).ceil().max(1.0) as usize;
    let mut last = 0.0;
    for k in 1..=steps {
        let s = (k as f64 * STEP).min(length);
        if gap(s) <= 0.0 {
            let (mut lo, mut hi) = (last, s);
            while hi - lo > 1e-7 {
                let mid = 0.5 * (lo + hi);
                if gap(mid) <= 0.0 { hi = mid } else { lo = mid }
            }
            return Some(lo);
        }
        last = s;
    }
    None
}

/// The signed distance between two convex shapes given by their support functions `ha`,
/// `hb` (how far each reaches from its centre along a unit world direction) and centres:
/// positive is the gap between them, negative the depth of their overlap.
pub fn convex_signed_distance(ha: impl Fn(Vec2) -> f64, ca: Vec2, hb: impl Fn(Vec2) -> f64, cb: Vec2) -> f64 {
    let d = cb - ca;
    let g_at = |u: Vec2| ha(u) + hb(u.scale(-1.0)) - d.dot(u);
    const SAMPLES: usize = 36;
    let step = std::f64::consts::TAU / SAMPLES as f64;
    // The two best of the sampled directions (a fixed table: no trigonometry per call).
    let directions = sample_directions();
    let (mut first, mut second) = ((f64::INFINITY, 0usize), (f64::INFINITY, 0usize));
    for (i, u) in directions.iter().enumerate() {
        let value = g_at(*u);
        if value < first.0 {
            second = first;
            first = (value, i);
        } else if value < second.0 {
            second = (value, i);
        }
    }
    let samples = [first, second];
    // Around a sampled direction u0 the directions are normalize(u0 + t u0'), |t| up to
    // tan(10 degrees): no trigonometry in the refinement.
    let half = step.tan();
    let golden = |i: usize| {
        let u0 = directions[i];
        let across = Vec2::new(-u0.y, u0.x);
        let g = |t: f64| {
            let v = u0 + across.scale(t);
            g_at(v.scale(1.0 / v.length()))
        };
        golden_section_min(&g, -half, half, 48, true).min(g(0.0))
    };
    let best = samples.iter().map(|&(_, i)| golden(i)).fold(f64::INFINITY, f64::min);
    -best
}

/// The unit directions every 10 degrees (counter-clockwise from +x) that
/// [`convex_signed_distance`] samples, computed once.
fn sample_directions() -> &'static [Vec2; 36] {
    static DIRECTIONS: std::sync::OnceLock<[Vec2; 36]> = std::sync::OnceLock::new();
    DIRECTIONS.get_or_init(|| {
        std::array::from_fn(|i| {
            let t = i as f64 * std::f64::consts::TAU / 36.0;
            Vec2::new(t.cos(), t.sin())
        })
    })
}

/// The first contact of a drive with an oval base (see [`first_contact`]): the gap is
/// convex in the distance driven, so its minimum is found by golden sections and the first
/// touch by a bisection before it.
pub(super) fn first_contact_oval(footprint: &Footprint, pose: &Pose, length: f64, disc: &Disc) -> Option<f64> {
    // The circle around the oval is touched first, or the oval never is.
    first_contact(footprint, pose, length, &Disc::round(disc.centre, disc.radius))?;
    let gap = |s: f64| disc.distance_from(footprint, &pose.advanced(s));
    if gap(0.0) <= EPSILON {
        return (pose.to_local(disc.centre).y > EPSILON).then_some(0.0);
    }
    // Along each direction u with some of the drive v in it, the two are apart until the
    // chariot has driven (d.u - h_A(u) - h_B(-u)) / (v.u); they first touch once they are
    // no longer apart along any: at the greatest of these (when they touch at all, which
    // the gap there says).
    let v = Vec2::heading(pose.facing);
    let side = v.right();
    let hb = disc.support_fn();
    let d = disc.centre - pose.centre;
    let ratio = |u: Vec2| {
        let local = Vec2::new(u.dot(side), u.dot(v));
        (d.dot(u) - footprint.support(local) - hb(u.scale(-1.0))) / u.dot(v)
    };
    // Directions at angles t from v: u = normalize(v + tan(t) side), t within +-87.5 deg.
    let at = |k: f64| {
        let w = v + side.scale(k);
        w.scale(1.0 / w.length())
    };
    const SAMPLES: usize = 36;
    let step = 175.0 / (SAMPLES - 1) as f64;
    let angle = |i: usize| (-87.5 + step * i as f64).to_radians();
    let (mut first, mut second) = ((f64::NEG_INFINITY, 0usize), (f64::NEG_INFINITY, 0usize));
    for i in 0..SAMPLES {
        let value = ratio(at(angle(i).tan()));
        if value > first.0 {
            second = first;
            first = (value, i);
        } else if value > second.0 {
            second = (value, i);
        }
    }
    let golden = |i: usize| {
        let f = |t: f64| ratio(at(t.tan()));
        let (lo, hi) = (angle(i.saturating_sub(1)), angle((i + 1).min(SAMPLES - 1)));
        (-golden_section_min(&|t| -f(t), lo, hi, 48, true)).max(f(angle(i)))
    };
    let s = golden(first.1).max(golden(second.1));
    if !s.is_finite() || s > length + EPSILON || gap(s.max(0.0)) > 1e-7 {
        return None;
    }
    Some(s.clamp(0.0, length))
}
