//! The board of a BATTLESYSTEM scenario: units as rectangular blocks of figures, and the
//! two questions the resolver asks of them: how far can a block slide in a direction before
//! it touches another, and where does its centre leave the board.
//!
//! Contact is decided by the separating axes of the two rectangles (their four edge
//! normals): under translation each axis gives an interval of travel during which the
//! projections overlap, and the blocks overlap exactly while every interval does. Touching
//! (zero overlap) is not contact, so a block may slide away from one it touches.

use crate::geometry::Vec2;
use serde::Serialize;

/// Overlap below this (inches) counts as touching, not contact.
const TOUCH: f64 = 1e-9;

/// Blocks that start a move overlapping by less than this (inches) are touching: a sweep
/// stops a block at the touch threshold, and rounding may leave it a hair inside. Such a
/// pair makes contact only if the move goes into the face where they touch.
pub const STARTS_TOUCHING: f64 = 1e-6;

/// A rectangular block on the board.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Block {
    /// Centre, inches.
    pub centre: Vec2,
    /// Facing in degrees clockwise from the board's +y.
    pub facing: f64,
    /// Width across the facing (frontage), inches.
    pub width: f64,
    /// Depth along the facing, inches.
    pub depth: f64,
    /// The unit vector of the facing (kept so contact tests need no trigonometry).
    #[serde(skip)]
    forward: Vec2,
    /// The radius of the circle through the corners (kept: every contact test's broad
    /// phase reads it).
    #[serde(skip)]
    radius: f64,
}

impl Block {
    /// A block centred at `centre`, facing `facing` degrees, `width` across and `depth` deep.
    pub fn new(centre: Vec2, facing: f64, width: f64, depth: f64) -> Self {
        Self::facing_along(centre, facing, Vec2::heading(facing), width, depth)
    }

    /// As [`Block::new`], given the unit vector of `facing` as well (a caller that has it
    /// already saves the trigonometry).
    fn facing_along(centre: Vec2, facing: f64, forward: Vec2, width: f64, depth: f64) -> Self {
        let radius = (width * width + depth * depth).sqrt() / 2.0;
        Self { centre, facing, width, depth, forward, radius }
    }

    /// The unit vectors across (right) and along (forward) the facing.
    fn axes(&self) -> (Vec2, Vec2) {
        (self.forward.right(), self.forward)
    }

    /// The radius of the circle through the corners.
    fn circumradius(&self) -> f64 {
        self.radius
    }

    /// Half the block's extent projected on unit vector `n`.
    pub(crate) fn radius_on(&self, n: Vec2) -> f64 {
        let (right, forward) = self.axes();
        self.width / 2.0 * right.dot(n).abs() + self.depth / 2.0 * forward.dot(n).abs()
    }

    /// The four corners, clockwise from front left.
    pub fn corners(&self) -> [Vec2; 4] {
        let (right, forward) = self.axes();
        let r = right.scale(self.width / 2.0);
        let f = forward.scale(self.depth / 2.0);
        [self.centre + f - r, self.centre + f + r, self.centre - f + r, self.centre - f - r]
    }

    /// The block moved by `offset`.
    pub fn moved(&self, offset: Vec2) -> Block {
        Block { centre: self.centre + offset, ..*self }
    }

    /// The block turned to face `facing` about its centre.
    pub fn turned(&self, facing: f64) -> Block {
        Block::new(self.centre, facing, self.width, self.depth)
    }

    /// The block turned to face `facing` about its centre, where `forward` is the unit
    /// vector of that facing ([`Vec2::heading`] of it).
    pub fn turned_along(&self, facing: f64, forward: Vec2) -> Block {
        Block::facing_along(self.centre, facing, forward, self.width, self.depth)
    }

    /// Whether the two blocks overlap (touching, to within [`STARTS_TOUCHING`], does not
    /// count).
    pub fn overlaps(&self, other: &Block) -> bool {
        first_contact(self, Vec2::new(0.0, 0.0), 0.0, other).is_some()
    }

    /// Whether every corner lies on a board of `width` x `depth` (origin at a corner).
    pub fn on_board(&self, width: f64, depth: f64) -> bool {
        self.corners().iter().all(|c| c.x >= -TOUCH && c.y >= -TOUCH && c.x <= width + TOUCH && c.y <= depth + TOUCH)
    }
}

/// The unit vector of a heading in degrees, exactly as [`Vec2::heading`] gives it: whole
/// degrees from -720 to 720 (every heading a rout tries when its veer step is a whole number
/// of degrees) come from a table computed once, the rest are computed.
pub fn heading_vector(degrees: f64) -> Vec2 {
    static TABLE: std::sync::LazyLock<Vec<Vec2>> =
        std::sync::LazyLock::new(|| (-720..=720).map(|d| Vec2::heading(f64::from(d))).collect());
    if degrees.fract() == 0.0 && (-720.0..=720.0).contains(&degrees) {
        TABLE[(degrees + 720.0) as usize]
    } else {
        Vec2::heading(degrees)
    }
}

/// How far `moving` travels along unit vector `direction` (at most `length` inches) before
/// it first overlaps `other`: `Some(0.0)` when they overlap already, `None` when the whole
/// move stays clear.
pub fn first_contact(moving: &Block, direction: Vec2, length: f64, other: &Block) -> Option<f64> {
    // Broad phase: the bounding circles along the move never meet.
    let reach = moving.radius + other.radius;
    let offset = other.centre - moving.centre;
    let along = offset.dot(direction).clamp(0.0, length.max(0.0));
    let nearest = offset - direction.scale(along);
    if nearest.dot(nearest) > reach * reach {
        return None;
    }
    let (r1, f1) = moving.axes();
    let (r2, f2) = other.axes();
    // Both frames are orthonormal, so two cosines give every cross projection.
    let (w1, d1, w2, d2) = (moving.width / 2.0, moving.depth / 2.0, other.width / 2.0, other.depth / 2.0);
    let (c, s) = (r1.dot(r2).abs(), r1.dot(f2).abs());
    let reaches = [w1 + w2 * c + d2 * s, d1 + w2 * s + d2 * c, w1 * c + d1 * s + w2, w1 * s + d1 * c + d2];
    let mut enter = f64::NEG_INFINITY;
    let mut exit = f64::INFINITY;
    for (n, reach) in [r1, f1, r2, f2].into_iter().zip(reaches) {
        let reach = reach - TOUCH;
        let gap = -offset.dot(n);
        let speed = direction.dot(n);
        if speed.abs() < 1e-12 {
            if gap.abs() >= reach {
                return None;
            }
            continue;
        }
        let (a, b) = ((-reach - gap) / speed, (reach - gap) / speed);
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        enter = enter.max(lo);
        exit = exit.min(hi);
        if enter >= exit {
            return None;
        }
    }
    if exit <= 0.0 || enter > length {
        return None;
    }
    if enter <= 0.0
        && separation(moving, other) > -STARTS_TOUCHING
        && direction.dot(contact_face(moving, other)) <= 1e-9
    {
        return None; // touching, and moving away or alongside
    }
    Some(enter.max(0.0))
}

/// The unit normal of the face where `a` and `b` touch (or come closest, or overlap least),
/// pointing from `a` towards `b`: of the four separating axes of the two rectangles, the
/// one with the largest gap (the least overlap).
pub fn contact_face(a: &Block, b: &Block) -> Vec2 {
    let (r1, f1) = a.axes();
    let (r2, f2) = b.axes();
    let offset = b.centre - a.centre;
    let mut best = (f64::NEG_INFINITY, f1);
    for n in [r1, f1, r2, f2] {
        let gap = offset.dot(n).abs() - (a.radius_on(n) + b.radius_on(n));
        if gap > best.0 + 1e-12 {
            best = (gap, if offset.dot(n) >= 0.0 { n } else { n.scale(-1.0) });
        }
    }
    best.1
}

/// The radius of the circle through the corners of `block`.
pub fn circumradius(block: &Block) -> f64 {
    block.circumradius()
}

/// Half the extent of `block` projected on unit vector `n`.
pub fn half_extent(block: &Block, n: Vec2) -> f64 {
    block.radius_on(n)
}

/// The length over which the projections of `a` and `b` on unit vector `along` overlap (0
/// when they do not).
pub fn overlap_along(a: &Block, b: &Block, along: Vec2) -> f64 {
    let (ca, cb) = (a.centre.dot(along), b.centre.dot(along));
    let (ra, rb) = (a.radius_on(along), b.radius_on(along));
    ((ca + ra).min(cb + rb) - (ca - ra).max(cb - rb)).max(0.0)
}

/// The gap between `a` and `b` along the face where they are closest (negative when they
/// overlap): pushing one away from the other must never shrink it.
pub fn separation(a: &Block, b: &Block) -> f64 {
    let (r1, f1) = a.axes();
    let (r2, f2) = b.axes();
    let offset = b.centre - a.centre;
    [r1, f1, r2, f2]
        .into_iter()
        .map(|n| offset.dot(n).abs() - (a.radius_on(n) + b.radius_on(n)))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// How far a point moving from `from` along unit vector `direction` goes before it leaves a
/// board of `width` x `depth` (`None` if it stays on for all of `length` inches).
pub fn leaves_board(from: Vec2, direction: Vec2, length: f64, width: f64, depth: f64) -> Option<f64> {
    let mut exit = f64::INFINITY;
    for (position, speed, limit) in [(from.x, direction.x, width), (from.y, direction.y, depth)] {
        if speed > 1e-12 {
            exit = exit.min((limit - position) / speed);
        } else if speed < -1e-12 {
            exit = exit.min(-position / speed);
        }
    }
    (exit < length).then_some(exit.max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(x: f64, y: f64, facing: f64, width: f64, depth: f64) -> Block {
        Block::new(Vec2::new(x, y), facing, width, depth)
    }

    #[test]
    fn sliding_into_a_block_ahead() {
        // A 2" x 2" block at the origin moving north towards a 4" x 1" block whose near edge is at y = 5.
        let beast = block(0.0, 0.0, 0.0, 2.0, 2.0);
        let line = block(0.0, 5.5, 0.0, 4.0, 1.0);
        let north = Vec2::heading(0.0);
        let t = first_contact(&beast, north, 10.0, &line).expect("contact");
        assert!((t - 4.0).abs() < 1e-6, "{t}");
        assert_eq!(first_contact(&beast, north, 3.9, &line), None, "too short");
        assert_eq!(first_contact(&beast, Vec2::heading(180.0), 10.0, &line), None, "moving away");
        // Passing beside it: 3" to the east, the blocks' edges 0" apart never overlap.
        assert_eq!(first_contact(&beast.moved(Vec2::new(3.0, 0.0)), north, 10.0, &line), None);
        // 2.9" east they overlap by 0.1".
        assert!(first_contact(&beast.moved(Vec2::new(2.9, 0.0)), north, 10.0, &line).is_some());
    }

    #[test]
    fn diagonal_and_rotated_contact() {
        // Heading 45 degrees, a unit block; the target is a square rotated 45 degrees.
        let beast = block(0.0, 0.0, 45.0, 1.0, 1.0);
        let target = block(10.0, 10.0, 45.0, 2.0, 2.0);
        let t = first_contact(&beast, Vec2::heading(45.0), 30.0, &target).expect("contact");
        // Centres 10 * sqrt(2) apart along the heading; contact when they are 1.5" apart.
        assert!((t - (200f64.sqrt() - 1.5)).abs() < 1e-6, "{t}");
    }

    #[test]
    fn touching_is_not_contact() {
        let a = block(0.0, 0.0, 0.0, 2.0, 2.0);
        let b = block(2.0, 0.0, 0.0, 2.0, 2.0);
        assert!(!a.overlaps(&b));
        assert!(a.overlaps(&block(1.9, 0.0, 0.0, 2.0, 2.0)));
        // Sliding away from a touching block is clear; sliding into it is contact at once.
        assert_eq!(first_contact(&a, Vec2::heading(270.0), 5.0, &b), None);
        assert!(first_contact(&a, Vec2::heading(90.0), 5.0, &b).is_some_and(|d| d < 1e-6));
    }

    #[test]
    fn leaving_the_board() {
        let east = Vec2::heading(90.0);
        assert_eq!(leaves_board(Vec2::new(40.0, 10.0), east, 12.0, 48.0, 48.0), Some(8.0));
        assert_eq!(leaves_board(Vec2::new(40.0, 10.0), east, 7.0, 48.0, 48.0), None);
        let sw = Vec2::heading(225.0);
        let t = leaves_board(Vec2::new(3.0, 5.0), sw, 20.0, 48.0, 48.0).expect("leaves");
        assert!((t - 3.0 * 2f64.sqrt()).abs() < 1e-9);
    }

    #[test]
    fn corners_and_board() {
        let b = block(24.0, 24.0, 90.0, 4.0, 2.0);
        // Facing east: 4" across is north-south, 2" deep is east-west.
        let xs: Vec<f64> = b.corners().iter().map(|c| c.x).collect();
        let ys: Vec<f64> = b.corners().iter().map(|c| c.y).collect();
        assert!((xs.iter().cloned().fold(f64::MIN, f64::max) - 25.0).abs() < 1e-9);
        assert!((ys.iter().cloned().fold(f64::MIN, f64::max) - 26.0).abs() < 1e-9);
        assert!(b.on_board(48.0, 48.0));
        assert!(!b.moved(Vec2::new(0.0, 23.0)).on_board(48.0, 48.0));
    }
}
