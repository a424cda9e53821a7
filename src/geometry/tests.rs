//! The board geometry's tests: contacts, pushes and distances against brute force.

use super::*;

const INCH_25MM: f64 = 25.0 / MM_PER_INCH;

fn disc(x: f64, y: f64) -> Disc {
    Disc::round(Vec2::new(x, y), INCH_25MM / 2.0)
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
fn a_pivot_pushes_an_oval_base_aside_by_the_shortest_route() {
    // The same pivot against a 35 x 60 mm oval lying east-west just off the front-right
    // corner: pushed clear of the whole pivot, by no more than moving it radially out of
    // the chariot's reach (half the oval's width covers its reach towards the chariot
    // only when it lies north-south; east-west its half length does).
    let chariot = Footprint::rect_mm(50.8, 101.6);
    let pose = Pose { centre: Vec2::new(0.0, 0.0), facing: 0.0 };
    let model =
        Disc::oval(Vec2::new(1.0 + 30.0 / MM_PER_INCH + 0.05, 1.7), 35.0 / MM_PER_INCH, 60.0 / MM_PER_INCH, 90.0);
    assert!(model.distance_from(&chariot, &pose) > 0.04, "apart before the pivot");
    assert!(pivot_overlaps(&chariot, &pose, 45.0, &model));
    let pushed = pivot_push(&chariot, &pose, 45.0, &model).expect("pushed");
    let after = Disc { centre: pushed, ..model };
    assert!(!pivot_overlaps(&chariot, &pose, 45.0, &after), "clear after the push");
    let moved = (pushed - model.centre).length();
    let radial = chariot.circumradius() + model.radius - model.centre.length();
    assert!(moved > 0.0 && moved <= radial + 1e-3, "moved {moved}, radial {radial}");
    assert!(pivot_push(&chariot, &pose, -45.0, &model).is_none());
}

#[test]
fn formation_layout_in_base_contact() {
    let d = INCH_25MM;
    let centres = formation_centres(5, 2, [d, d], 0.0, Vec2::new(0.0, 6.0), 180.0);
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
    let square =
        Polygon { vertices: vec![Vec2::new(0.0, 0.0), Vec2::new(4.0, 0.0), Vec2::new(4.0, 4.0), Vec2::new(0.0, 4.0)] };
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
    assert!(first_segment_contact(&chariot, &at(0.0, 0.0), 3.0, Vec2::new(-3.0, 5.0), Vec2::new(3.0, 5.0)).is_none());
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

/// A small deterministic generator for the brute-force checks (no rand needed here).
fn lcg(state: &mut u64) -> f64 {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*state >> 11) as f64 / (1u64 << 53) as f64
}

/// The distance from `p` to the ellipse's boundary by brute force: 200,000 boundary
/// points, then the best refined by a fine local scan.
fn brute_distance(a: f64, b: f64, p: Vec2) -> f64 {
    let at = |t: f64| (Vec2::new(a * t.cos(), b * t.sin()) - p).length();
    let n = 200_000;
    let (best, t0) = (0..n)
        .map(|i| {
            let t = std::f64::consts::TAU * i as f64 / n as f64;
            (at(t), t)
        })
        .fold((f64::INFINITY, 0.0), |x, y| if y.0 < x.0 { y } else { x });
    let step = std::f64::consts::TAU / n as f64;
    (-1000..=1000).map(|k| at(t0 + step * k as f64 / 1000.0)).fold(best, f64::min)
}

/// The gap between the footprint at `pose` and an oval base by brute force: the least
/// signed distance from the footprint over 4,000 points of the oval's boundary, refined
/// a thousandfold around the best (exact when they do not overlap; negative when they
/// do).
fn brute_gap(footprint: &Footprint, pose: &Pose, disc: &Disc) -> f64 {
    let o = disc.oval.expect("an oval");
    let forward = Vec2::heading(o.facing);
    let at = |t: f64| {
        let p = disc.centre + forward.right().scale(o.half_width * t.cos()) + forward.scale(o.half_length * t.sin());
        footprint.signed_distance(pose.to_local(p))
    };
    let n = 4_000;
    let step = std::f64::consts::TAU / n as f64;
    let (best, t0) = (0..n)
        .map(|i| (at(step * i as f64), step * i as f64))
        .fold((f64::INFINITY, 0.0), |x, y| if y.0 < x.0 { y } else { x });
    (-2000..=2000).map(|k| at(t0 + step * k as f64 / 1000.0)).fold(best, f64::min)
}

/// The first distance in `0..=length` at which `touching` holds, by brute force: a march
/// in steps of `step`, then 60 bisections.
fn brute_first_touch(touching: impl Fn(f64) -> bool, length: f64, step: f64) -> Option<f64> {
    let mut s = 0.0;
    while s <= length + 1e-12 {
        if touching(s) {
            let (mut lo, mut hi) = ((s - step).max(0.0), s);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if touching(mid) { hi = mid } else { lo = mid }
            }
            return Some(hi);
        }
        s += step;
    }
    None
}

/// A random oval model base near the origin (25-60 mm wide, 25-100 mm long, any facing).
fn random_oval(seed: &mut u64, spread: f64) -> Disc {
    let centre = Vec2::new((lcg(seed) - 0.5) * spread, (lcg(seed) - 0.5) * spread);
    let w = (25.0 + 35.0 * lcg(seed)) / MM_PER_INCH;
    let l = (25.0 + 75.0 * lcg(seed)) / MM_PER_INCH;
    Disc::oval(centre, w, l, lcg(seed) * 360.0)
}

#[test]
fn the_gap_to_an_oval_base_matches_brute_force() {
    // Against a round, a rectangular and an oval chariot at odd headings: the gap from
    // support functions equals the brute-force gap to 1e-9 inch when they are apart, and
    // is negative exactly when some boundary point of the oval is inside the chariot.
    let mut seed = 5;
    let mut apart = 0;
    for footprint in [Footprint::round_mm(60.0), Footprint::rect_mm(50.0, 100.0), Footprint::oval_mm(105.0, 170.0)] {
        for k in 0..80 {
            let pose = Pose { centre: Vec2::new(0.3, -0.2), facing: 17.0 * k as f64 };
            let disc = random_oval(&mut seed, 12.0);
            let fast = disc.distance_from(&footprint, &pose);
            let brute = brute_gap(&footprint, &pose, &disc);
            if brute > 1e-6 {
                assert!((fast - brute).abs() < 1e-9, "{footprint:?} {disc:?}: {fast} vs {brute}");
                apart += 1;
            } else if brute < -1e-6 {
                assert!(fast < 0.0, "{footprint:?} {disc:?}: {fast} vs {brute}");
            }
        }
    }
    assert!(apart > 150, "only {apart} separated cases");
    // Two ovals side by side, long sides facing: the gap is what is left between them.
    let a = Disc::oval(Vec2::new(0.0, 0.0), 1.0, 2.0, 0.0);
    let b = Disc::oval(Vec2::new(1.25, 0.0), 1.0, 2.0, 0.0);
    assert!((a.distance_to(&b) - 0.25).abs() < 1e-12);
    // End to end after a quarter turn of one: 1 (half length) + 0.5 (half width) = 1.5.
    let c = Disc::oval(Vec2::new(0.0, 2.0), 1.0, 2.0, 90.0);
    assert!((a.distance_to(&c) - 0.5).abs() < 1e-12, "{}", a.distance_to(&c));
}

#[test]
fn a_chariot_meets_an_oval_base_where_brute_force_finds() {
    // Drives of 6" by a round and an oval chariot past oval bases anywhere ahead: the
    // first contact equals a brute-force march (0.01 inch steps, then bisection on the
    // brute-force gap) to 1e-7 inch, and both agree on which are never touched.
    let mut seed = 21;
    let mut met = 0;
    for footprint in [Footprint::round_mm(60.0), Footprint::oval_mm(105.0, 170.0)] {
        let pose = Pose { centre: Vec2::new(0.0, 0.0), facing: 0.0 };
        for _ in 0..16 {
            let mut disc = random_oval(&mut seed, 6.0);
            disc.centre.y += 4.0;
            if brute_gap(&footprint, &pose, &disc) <= 1e-6 {
                continue; // overlapping at the start: not a valid board
            }
            let fast = first_contact(&footprint, &pose, 6.0, &disc);
            let touching = |s: f64| brute_gap(&footprint, &pose.advanced(s), &disc) <= 0.0;
            let brute = brute_first_touch(touching, 6.0, 1e-2);
            match (fast, brute) {
                (Some(f), Some(b)) => {
                    assert!((f - b).abs() < 1e-7, "{disc:?}: {f} vs {b}");
                    met += 1;
                }
                (None, None) => {}
                (Some(f), None) => assert!(f > 6.0 - 1e-2, "{disc:?}: sweep {f}, brute none"),
                (None, Some(b)) => panic!("{disc:?}: brute force touches at {b}, the sweep never"),
            }
        }
    }
    assert!(met > 8, "only {met} contacts checked");
}

#[test]
fn distance_to_an_oval_matches_brute_force() {
    let mut seed = 7;
    for (a, b) in [(1.0, 2.0), (3.3464567, 2.0669291), (0.5, 0.49)] {
        for _ in 0..60 {
            let p = Vec2::new((lcg(&mut seed) - 0.5) * 4.0 * a, (lcg(&mut seed) - 0.5) * 4.0 * b);
            let d = ellipse_signed_distance(a, b, p);
            let brute = brute_distance(a, b, p);
            assert!((d.abs() - brute).abs() < 1e-9, "{a} {b} {p:?}: {d} vs {brute}");
            let inside = (p.x / a).powi(2) + (p.y / b).powi(2) < 1.0;
            assert_eq!(d < 0.0, inside, "{p:?}");
        }
    }
}

#[test]
fn an_oval_chariot_sweeps_discs_as_brute_force_finds() {
    // The Iron Hills chariot's 105 x 170 mm oval driving north, against 25 mm discs
    // anywhere ahead or beside: the first contact equals a brute-force march (steps of
    // 1e-4 inch, then bisection on the exact distance) to 1e-9 inch.
    let oval = Footprint::oval_mm(105.0, 170.0);
    assert!(oval.oval);
    let pose = Pose { centre: Vec2::new(0.0, 0.0), facing: 0.0 };
    let radius = 12.5 / MM_PER_INCH;
    let mut seed = 11;
    let mut met = 0;
    for _ in 0..300 {
        let centre = Vec2::new((lcg(&mut seed) - 0.5) * 6.0, lcg(&mut seed) * 8.0 - 1.0);
        let disc = Disc::round(centre, radius);
        if oval.signed_distance(pose.to_local(centre)) < radius {
            continue; // overlapping at the start: not a valid board
        }
        let fast = first_contact(&oval, &pose, 6.0, &disc);
        let touching = |s: f64| oval.signed_distance(pose.advanced(s).to_local(centre)) <= radius;
        let brute = brute_first_touch(touching, 6.0, 1e-4);
        match (fast, brute) {
            (Some(f), Some(b)) => {
                assert!((f - b).abs() < 1e-9, "{centre:?}: {f} vs {b}");
                met += 1;
            }
            (None, None) => {}
            (Some(f), None) => assert!(f > 6.0 - 1e-4, "{centre:?}: sweep {f}, brute none"),
            (None, Some(b)) => panic!("{centre:?}: brute force touches at {b}, the sweep never"),
        }
    }
    assert!(met > 50, "only {met} contacts checked");
    // An oval meets fewer of a line's models than the box around it: a 6-wide line of
    // 25 mm bases dead ahead is touched by the box at four, by the oval at two first.
    let line: Vec<Disc> =
        (0..6).map(|i| Disc::round(Vec2::new((i as f64 - 2.5) * 25.0 / MM_PER_INCH, 5.0), radius)).collect();
    let first = |f: &Footprint| {
        let hits: Vec<f64> = line.iter().filter_map(|d| first_contact(f, &pose, 6.0, d)).collect();
        let s = hits.iter().copied().fold(f64::INFINITY, f64::min);
        hits.iter().filter(|&&h| h - s < 1e-9).count()
    };
    assert_eq!(first(&Footprint::rect_mm(105.0, 170.0)), 4);
    assert_eq!(first(&oval), 2);
}

#[test]
fn an_oval_keeps_its_distance_from_a_wall_as_brute_force_finds() {
    let oval = Footprint::oval_mm(105.0, 170.0);
    let mut seed = 3;
    for _ in 0..100 {
        let pose = Pose { centre: Vec2::new(0.0, 0.0), facing: lcg(&mut seed) * 360.0 };
        let a = Vec2::new((lcg(&mut seed) - 0.5) * 12.0, (lcg(&mut seed) - 0.5) * 12.0);
        let b = Vec2::new((lcg(&mut seed) - 0.5) * 12.0, (lcg(&mut seed) - 0.5) * 12.0);
        let d = footprint_segment_distance(&oval, &pose, a, b);
        let brute = (0..=20_000)
            .map(|i| b.scale(i as f64 / 20_000.0) + a.scale(1.0 - i as f64 / 20_000.0))
            .map(|p| oval.signed_distance(pose.to_local(p)).max(0.0))
            .fold(f64::INFINITY, f64::min);
        // The sampled segment misses the minimum by at most half a step's length.
        let step = (b - a).length() / 20_000.0;
        assert!(d <= brute + 1e-12 && brute - d <= step, "{a:?} {b:?}: {d} vs {brute}");
    }
}

/// The quick clearance test gives the answer of the full one (the least distance over every
/// heading of the pivot, compared with what is needed) for ovals, rounded rectangles and
/// round bases, every pivot, points inside, outside and on the knife edge between the two
/// circles, so the pushes it finds are the same.
#[test]
fn the_quick_pivot_clearance_answers_as_the_full_one() {
    let mut seed = 0x5eed_c1ea_u64;
    let footprints = [
        Footprint::oval_mm(105.0, 170.0),
        Footprint::oval_mm(60.0, 100.0),
        Footprint::rect_mm(50.0, 100.0),
        Footprint::round_mm(60.0),
    ];
    let mut settled = [0usize; 2];
    for footprint in footprints {
        for _ in 0..4_000 {
            let pose =
                Pose { centre: Vec2::new(lcg(&mut seed) - 0.5, lcg(&mut seed) - 0.5), facing: 360.0 * lcg(&mut seed) };
            let pivot = (90.0 * lcg(&mut seed) - 45.0).round() * if lcg(&mut seed) < 0.1 { 0.0 } else { 1.0 };
            let angle = 360.0 * lcg(&mut seed);
            let reach = footprint.circumradius() + 1.5;
            let point = pose.centre + Vec2::heading(angle).scale(reach * lcg(&mut seed));
            let needed = 0.6 * lcg(&mut seed);
            let full = pivot_clearance(&footprint, &pose, pivot, point);
            // Half the cases need exactly the distance found (the knife edge).
            let needed = if lcg(&mut seed) < 0.5 { needed } else { full };
            let quick = pivot_keeps_clear(&footprint, &pose, pivot, point, needed);
            assert_eq!(quick, full >= needed, "{footprint:?} {pose:?} pivot {pivot} point {point:?} needed {needed}");
            settled[usize::from(quick)] += 1;
        }
    }
    assert!(settled[0] > 1_000 && settled[1] > 1_000, "both answers are tried: {settled:?}");
}

/// The stepped search [`first_segment_contact`] replaced: advance by the gap (it can close
/// no faster than the drive) until it is under EPSILON. Kept here as the reference.
fn stepped_segment_contact(footprint: &Footprint, pose: &Pose, length: f64, a: Vec2, b: Vec2) -> Option<f64> {
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

#[test]
fn the_solved_wall_contact_is_where_stepping_by_the_gap_arrives() {
    // Ovals, rounded boxes and round bases against walls in every direction, many of them
    // driven alongside (where stepping crawls); the stepped reference must agree on
    // whether a wall is met, and where to within its own tolerance, and the solved point
    // must touch the wall while a hair before it does not.
    let footprints = [
        Footprint::oval_mm(105.0, 170.0),
        Footprint::oval_mm(50.0, 100.0),
        Footprint { rounding: 0.2, ..Footprint::rect_mm(50.0, 100.0) },
        Footprint::rect_mm(60.0, 120.0),
        Footprint::round_mm(60.0),
    ];
    let mut seed = 11u64;
    let mut next = || lcg(&mut seed);
    let (mut met, mut missed) = (0, 0);
    for case in 0..4000 {
        let footprint = footprints[case % footprints.len()];
        let pose = Pose { centre: Vec2::new(0.0, 0.0), facing: 360.0 * next() };
        let forward = Vec2::heading(pose.facing);
        let side = forward.right();
        // Half the walls run nearly along the drive, just beside the chariot.
        let (a, b) = if case % 2 == 0 {
            let extent = if footprint.oval { footprint.half_width } else { footprint.half_width + footprint.rounding };
            let off = (extent + 0.3 * next() - 0.05) * if next() < 0.5 { -1.0 } else { 1.0 };
            let tilt = 0.05 * (next() - 0.5);
            let start = side.scale(off) + forward.scale(8.0 * next() - 2.0);
            (start, start + (forward + side.scale(tilt)).scale(2.0 + 6.0 * next()))
        } else {
            let a = Vec2::new(16.0 * next() - 8.0, 16.0 * next() - 8.0);
            (a, a + Vec2::heading(360.0 * next()).scale(1.0 + 5.0 * next()))
        };
        let length = 10.0 * next();
        let solved = first_segment_contact(&footprint, &pose, length, a, b);
        let stepped = stepped_segment_contact(&footprint, &pose, length, a, b);
        match (solved, stepped) {
            (Some(s), Some(t)) => {
                met += 1;
                assert!(s >= t - 1e-9, "case {case}: solved {s} before the stepped {t}");
                let touching = footprint_segment_distance(&footprint, &pose.advanced(s), a, b);
                assert!(touching <= 1e-9, "case {case}: at {s} the gap is {touching}");
                if s > 1e-6 {
                    let before = footprint_segment_distance(&footprint, &pose.advanced(s - 1e-6), a, b);
                    assert!(before > 0.0, "case {case}: touching before {s}");
                }
                // Stepping stops once within EPSILON of the wall: short of it by no more
                // than the drive takes to close that gap when sliding nearly along it.
                let gap_at_t = footprint_segment_distance(&footprint, &pose.advanced(t), a, b);
                assert!(gap_at_t <= EPSILON, "case {case}");
            }
            (None, None) => missed += 1,
            (s, t) => {
                // Only a wall met within EPSILON of the end of the drive may differ.
                let end_gap = footprint_segment_distance(&footprint, &pose.advanced(length), a, b);
                assert!(end_gap <= 1e-6, "case {case}: solved {s:?}, stepped {t:?}, gap at the end {end_gap}");
            }
        }
    }
    assert!(met > 500 && missed > 500, "{met} met, {missed} missed");
}

/// The plain scan [`overlap_intervals`] replaced: every 0.01 inch looked at, each change
/// refined by bisection. Kept here as the reference.
fn scanned_overlap_intervals(footprint: &Footprint, pose: &Pose, length: f64, polygon: &Polygon) -> Vec<(f64, f64)> {
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
    let (mut intervals, mut prev_s, mut prev) = (Vec::new(), 0.0, inside(0.0));
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
        (prev, prev_s) = (now, s);
    }
    if let Some(from) = start {
        intervals.push((from, length));
    }
    intervals
}

/// The pivot's wall clearance as first written: the least distance over every heading.
fn plain_pivot_clear_of_segment(footprint: &Footprint, pose: &Pose, pivot: f64, a: Vec2, b: Vec2) -> Option<Vec2> {
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

#[test]
fn skipping_what_cannot_change_answers_as_looking_at_everything() {
    // Terrain stretches and pivots against walls, for ovals, boxes and round bases: the
    // quick answers are the plain ones exactly (same floating-point numbers).
    let footprints = [
        Footprint::oval_mm(105.0, 170.0),
        Footprint { rounding: 0.2, ..Footprint::rect_mm(50.0, 100.0) },
        Footprint::rect_mm(60.0, 120.0),
        Footprint::round_mm(60.0),
    ];
    let mut seed = 5u64;
    let mut next = || lcg(&mut seed);
    let (mut stretches, mut pushes) = (0, 0);
    for case in 0..96 {
        let footprint = footprints[case % footprints.len()];
        let pose = Pose { centre: Vec2::new(0.0, 0.0), facing: 360.0 * next() };
        let (x, y, w, h) = (12.0 * next() - 6.0, 10.0 * next() - 2.0, 0.5 + 4.0 * next(), 0.5 + 4.0 * next());
        let polygon = Polygon {
            vertices: vec![Vec2::new(x, y), Vec2::new(x + w, y), Vec2::new(x + w, y + h), Vec2::new(x, y + h)],
        };
        let length = 1.0 + 7.0 * next();
        let quick = overlap_intervals(&footprint, &pose, length, &polygon);
        assert_eq!(quick, scanned_overlap_intervals(&footprint, &pose, length, &polygon), "case {case}");
        stretches += quick.len();
        if case % 16 == 0 {
            // Pivots beside a wall within reach of the chariot's corners.
            let a = Vec2::new(6.0 * next() - 3.0, 6.0 * next() - 3.0);
            let b = a + Vec2::heading(360.0 * next()).scale(1.0 + 4.0 * next());
            let pivot = 90.0 * next() - 45.0;
            let quick = pivot_clear_of_segment(&footprint, &pose, pivot, a, b);
            assert_eq!(quick, plain_pivot_clear_of_segment(&footprint, &pose, pivot, a, b), "case {case}");
            pushes += usize::from(quick.is_some());
        }
    }
    eprintln!("{stretches} stretches, {pushes} pushes");
    assert!(stretches > 15 && pushes > 2, "{stretches} stretches, {pushes} pushes");
}
