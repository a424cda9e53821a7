//! The chariot's path: the pivots a policy chooses (given, aimed, or the best found by
//! search), the drive with its pushes, difficult stretches and obstacles, and the ordered
//! contacts it makes.

use super::*;
use rayon::prelude::*;

/// The distance a drive covers for `budget` inches of Move when the `stretches` (sorted,
/// disjoint, from the start of the drive) are difficult terrain, where Move is halved.
pub fn distance_for_move(budget: f64, stretches: &[(f64, f64)]) -> f64 {
    let (mut at, mut cost) = (0.0, 0.0);
    for &(from, to) in stretches {
        let open = (from - at).max(0.0);
        if cost + open >= budget {
            return at + (budget - cost);
        }
        cost += open;
        at = at.max(from);
        let rough = (to - at).max(0.0);
        if cost + 2.0 * rough >= budget {
            return at + (budget - cost) / 2.0;
        }
        cost += 2.0 * rough;
        at = at.max(to);
    }
    at + (budget - cost)
}

/// Merges overlapping stretches into sorted disjoint ones.
pub(crate) fn merge_stretches(mut stretches: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    stretches.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut merged: Vec<(f64, f64)> = Vec::with_capacity(stretches.len());
    for (from, to) in stretches {
        match merged.last_mut() {
            Some(last) if from <= last.1 => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    merged
}

/// Which way the chariot turns at each chance to pivot.
#[derive(Clone, Debug)]
pub(crate) enum PathPolicy {
    /// The pivots as listed (missing ones are 0).
    Pivots(Vec<f64>),
    /// Towards a point, by up to 45 degrees at each chance, while it lies ahead.
    Aim(Vec2),
    /// The pivots that maximise an objective (searched at plan time).
    Best(Objective),
}

impl PathPolicy {
    pub(crate) fn of(scenario: &Scenario) -> Self {
        match &scenario.charge.path {
            PathChoice::Pivots(p) => PathPolicy::Pivots(p.clone()),
            PathChoice::AimAt(point) => PathPolicy::Aim(*point),
            PathChoice::AimAtFormation(i) => {
                let f = &scenario.formations[*i];
                let n = f.centres.len() as f64;
                let sum = f.centres.iter().fold(Vec2::default(), |a, c| a + *c);
                PathPolicy::Aim(sum.scale(1.0 / n))
            }
            PathChoice::Best(objective) => PathPolicy::Best(*objective),
        }
    }

    pub(crate) fn pivot(&self, chance: usize, pose: &Pose, searched: &[f64]) -> f64 {
        match self {
            PathPolicy::Pivots(p) => p.get(chance).copied().unwrap_or(0.0),
            PathPolicy::Aim(target) => {
                let to = *target - pose.centre;
                if to.length() < 1e-9 {
                    return 0.0;
                }
                let heading = to.x.atan2(to.y).to_degrees();
                let turn = (heading - pose.facing + 540.0).rem_euclid(360.0) - 180.0;
                // Once the target is behind, the chariot has passed it: drive on straight.
                if turn.abs() > 90.0 { 0.0 } else { turn.clamp(-MAX_PIVOT, MAX_PIVOT) }
            }
            PathPolicy::Best(_) => searched.get(chance).copied().unwrap_or(0.0),
        }
    }
}

/// The largest pivot, degrees.
pub const MAX_PIVOT: f64 = 45.0;

/// What else stands on the board when a chariot of a turn charges: which models are still
/// standing (`None`: all), and the chariots of its own side standing where they stopped,
/// which its drive ends short of (models cannot move through friendly models).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Standing<'a> {
    pub(crate) present: Option<&'a [bool]>,
    pub(crate) friends: &'a [(Footprint, Pose)],
}

/// The path driven and what it meets, before any dice.
pub(crate) struct Drive {
    pub(crate) groups: Vec<ContactGroup>,
    pub(crate) pushes: Vec<Push>,
    pub(crate) moved_off_obstacles: Vec<Push>,
    pub(crate) legs: Vec<Leg>,
    pub(crate) end: Pose,
    pub(crate) driven: f64,
    pub(crate) spent: f64,
    pub(crate) difficult_from: Option<f64>,
    pub(crate) obstacle: Option<ObstacleContact>,
    pub(crate) discs: Vec<Disc>,
    pub(crate) pivots_used: Vec<f64>,
    /// The friendly chariot (index into [`Standing::friends`]) the drive ended short of,
    /// and how far it had driven then.
    pub(crate) blocked: Option<(usize, f64)>,
}

impl Drive {
    /// Where the chariot stood before it moved (after its first pivot).
    pub(crate) fn start(&self) -> Pose {
        self.legs.first().map_or(self.end, |l| l.start)
    }
}

/// Drives the full Move, or stops after `stop_at` inches driven: pivots (asked of
/// `pivot_for` at each chance), pushes, difficult stretches, obstacles and the ordered
/// contacts.
pub(crate) fn drive(
    scenario: &Scenario,
    footprint: &Footprint,
    mut discs: Vec<Disc>,
    stop_at: Option<f64>,
    board: Standing<'_>,
    mut pivot_for: impl FnMut(usize, &Pose) -> f64,
) -> Drive {
    let stop_at = stop_at.unwrap_or(f64::INFINITY);
    let c = &scenario.chariot;
    let footprint = *footprint;
    // What must be inside an area for the chariot to be within difficult terrain.
    let within = match scenario.rules.difficult_terrain_measure {
        TerrainMeasure::AnyPart => footprint,
        TerrainMeasure::Centre => Footprint::POINT,
    };
    let areas: Vec<&geometry::Polygon> = scenario
        .terrain
        .iter()
        .filter_map(|t| if let Terrain::Difficult { area, .. } = t { Some(area) } else { None })
        .collect();
    let walls: Vec<(&str, Vec2, Vec2)> = scenario
        .terrain
        .iter()
        .filter_map(
            |t| if let Terrain::Obstacle { name, from, to } = t { Some((name.as_str(), *from, *to)) } else { None },
        )
        .collect();
    let mut alive = board.present.map_or_else(|| vec![true; discs.len()], <[bool]>::to_vec);
    let mut blocked = None;
    let mut groups: Vec<ContactGroup> = Vec::new();
    let mut pushes = Vec::new();
    let mut moved_off_obstacles = Vec::new();
    let mut legs = Vec::new();
    let mut pose = c.start;
    let mut driven = 0.0;
    let mut spent = 0.0;
    let mut chance = 0;
    let mut difficult_from = None;
    let mut obstacle = None;
    let mut pivots_used = Vec::new();
    while spent < c.move_inches - geometry::EPSILON || chance == 0 {
        let pivot = pivot_for(chance, &pose);
        pivots_used.push(pivot);
        if pivot != 0.0 {
            // Touching terrain while pivoting: the chariot is moved away just enough.
            for &(_, a, b) in &walls {
                if let Some(centre) = geometry::pivot_clear_of_segment(&footprint, &pose, pivot, a, b) {
                    moved_off_obstacles.push(Push {
                        at_distance: driven,
                        model: usize::MAX,
                        from: pose.centre,
                        to: centre,
                    });
                    pose.centre = centre;
                }
            }
            // Touching a friendly chariot while pivoting: it is never moved (Immovable
            // Object), so the pivoting chariot is moved away just enough, as from terrain:
            // at each degree of the pivot, along the line from the friend's centre.
            for &(friend, at) in board.friends {
                if (pose.centre - at.centre).length() > footprint.circumradius() + friend.circumradius() {
                    continue;
                }
                let before = pose.centre;
                let steps = (pivot.abs().ceil() as usize).max(1);
                for k in 1..=steps {
                    let facing = pose.facing + pivot * k as f64 / steps as f64;
                    for _ in 0..64 {
                        let gap = geometry::footprint_gap(&footprint, &Pose { facing, ..pose }, &friend, &at);
                        if gap >= 0.0 {
                            break;
                        }
                        let away = pose.centre - at.centre;
                        pose.centre = pose.centre + away.scale((1e-6 - gap) / away.length().max(1e-12));
                    }
                }
                if pose.centre != before {
                    moved_off_obstacles.push(Push {
                        at_distance: driven,
                        model: usize::MAX,
                        from: before,
                        to: pose.centre,
                    });
                }
            }
            for (i, disc) in discs.iter_mut().enumerate() {
                if !alive[i] {
                    continue;
                }
                if let Some(to) = geometry::pivot_push(&footprint, &pose, pivot, disc) {
                    pushes.push(Push { at_distance: driven, model: i, from: disc.centre, to });
                    disc.centre = to;
                }
            }
            pose.facing += pivot;
        }
        // Move value for this stretch: up to the next full 4" (difficult terrain costs double).
        let budget = PIVOT_EVERY.min(c.move_inches - spent).max(0.0);
        let stretches = merge_stretches(
            areas.iter().flat_map(|a| geometry::overlap_intervals(&within, &pose, budget, a)).collect(),
        );
        let mut length = distance_for_move(budget, &stretches).min((stop_at - driven).max(0.0));
        let stopping = driven + length >= stop_at - geometry::EPSILON;
        let wall = walls
            .iter()
            .filter_map(|&(name, a, b)| {
                geometry::first_segment_contact(&footprint, &pose, length, a, b).map(|s| (s, name))
            })
            .min_by(|x, y| x.0.total_cmp(&y.0));
        if let Some((s, _)) = wall {
            length = s;
        }
        // A friendly chariot ahead: the drive ends just short of it (and of the wall beyond).
        let friend = board
            .friends
            .iter()
            .enumerate()
            .filter_map(|(k, (f, p))| {
                geometry::first_footprint_contact(&footprint, &pose, length, f, p).map(|s| (s, k))
            })
            .min_by(|x, y| x.0.total_cmp(&y.0));
        let wall = match friend {
            Some((s, k)) if wall.is_none_or(|(w, _)| s <= w) => {
                length = (s - STOP_SHORT_INCHES).max(0.0);
                blocked = Some((k, driven + length));
                None
            }
            _ => wall,
        };
        if difficult_from.is_none()
            && let Some(&(from, _)) = stretches.first()
            && from <= length + geometry::EPSILON
        {
            difficult_from = Some(driven + from);
        }
        let rough: f64 = stretches.iter().map(|&(a, b)| (b.min(length) - a).max(0.0)).sum();
        legs.push(Leg { start: pose, from_distance: driven, length });
        let mut hits: Vec<(f64, usize)> = discs
            .iter()
            .enumerate()
            .filter(|(i, _)| alive[*i])
            .filter_map(|(i, d)| geometry::first_contact(&footprint, &pose, length, d).map(|s| (driven + s, i)))
            .collect();
        hits.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        // The groups this stretch touches (the last one may go on from the stretch before).
        let touched_from = groups.len().saturating_sub(1);
        for (s, i) in hits {
            alive[i] = false;
            match groups.last_mut() {
                Some(g) if s - g.distance <= SAME_TIME_INCHES => g.models.push(i),
                _ => groups.push(ContactGroup {
                    distance: s,
                    models: vec![i],
                    passed_given_stop: Vec::new(),
                    models_before: 0,
                    config_strides: Vec::new(),
                    fate_strides: Vec::new(),
                    cavalry_states: Vec::new(),
                    fights: Vec::new(),
                    wounded_fights: Vec::new(),
                    wall_neighbours: Vec::new(),
                }),
            }
        }
        // Models touched at one instant, left to right as the chariot sees them: an order
        // the board's own, whichever way it lies and however the file lists them (their
        // distances along the drive differ only by rounding).
        let right = Vec2::heading(pose.facing).right();
        for g in &mut groups[touched_from..] {
            g.models.sort_by(|&a, &b| {
                (discs[a].centre - pose.centre).dot(right).total_cmp(&(discs[b].centre - pose.centre).dot(right))
            });
        }
        pose = pose.advanced(length);
        driven += length;
        spent += length + rough;
        chance += 1;
        if let Some((_, name)) = wall {
            obstacle = Some(ObstacleContact { name: name.to_string(), distance: driven });
            break;
        }
        if length <= 0.0 || stopping || blocked.is_some() {
            break;
        }
    }
    Drive {
        blocked,
        groups,
        pushes,
        moved_off_obstacles,
        legs,
        end: pose,
        driven,
        spent,
        difficult_from,
        obstacle,
        discs,
        pivots_used,
    }
}

/// The exact value of an objective for a drive, from its contact list alone.
pub(crate) fn objective_value(
    drive: &Drive,
    models: &[PlannedModel],
    scenario: &Scenario,
    footprint: &Footprint,
    objective: Objective,
) -> f64 {
    let mut reach = 1.0;
    let mut kills = 0.0;
    for p in super::shieldwall::passed_chances(&drive.groups, models, &drive.discs, &drive.pushes) {
        kills += reach * p.iter().sum::<f64>();
        reach *= p.iter().product::<f64>();
    }
    match objective {
        Objective::ExpectedImpactKills => kills,
        Objective::Breakthrough => {
            if breaks_through(&drive.groups, models, scenario, footprint, (&drive.start(), &drive.end)) {
                reach
            } else {
                0.0
            }
        }
    }
}

/// The formations (by index, ascending) with a model on the path.
pub(crate) fn formations_on_path(groups: &[ContactGroup], models: &[PlannedModel]) -> Vec<usize> {
    let mut on_path: Vec<usize> = groups.iter().flat_map(|g| g.models.iter().map(|&m| models[m].formation)).collect();
    on_path.sort_unstable();
    on_path.dedup();
    on_path
}

/// Whether the chariot, starting at `start` and ending at `end`, drove clean through every
/// formation it touched, judged along its travel (the way it faces at the end): through a
/// formation from the side its travel enters by (its front, its back, or one of its ends,
/// whichever of the formation's own axes the travel runs most along), starting wholly short
/// of the formation's near side and ending wholly beyond its far side. A charge straight at
/// a line's front must end past its last rank (as before 2026-12-07); one from behind, past
/// its front rank; one along it from a flank, past its far end. Grazing a corner of a deep
/// block is not driving through it.
pub(crate) fn breaks_through(
    groups: &[ContactGroup],
    models: &[PlannedModel],
    scenario: &Scenario,
    footprint: &Footprint,
    (start, end): (&Pose, &Pose),
) -> bool {
    let on_path = formations_on_path(groups, models);
    let travel = Vec2::heading(end.facing);
    // How far the footprint at `pose` reaches along the world direction `dir`.
    let reach = |pose: &Pose, dir: Vec2| {
        let forward = Vec2::heading(pose.facing);
        footprint.support(Vec2::new(dir.dot(forward.right()), dir.dot(forward)))
    };
    !on_path.is_empty()
        && on_path.iter().all(|&fi| {
            let f = &scenario.formations[fi];
            let (front, right) = (Vec2::heading(f.facing), Vec2::heading(f.facing).right());
            let (into, across) = (-travel.dot(front), travel.dot(right));
            // The formation's own axis the travel runs most along, pointing the way it goes.
            let axis =
                if into.abs() >= across.abs() { front.scale(-into.signum()) } else { right.scale(across.signum()) };
            let along = |c: Vec2, sign: f64| c.dot(axis) + sign * f.disc_at(c).reach(axis);
            let far = f.centres.iter().map(|&c| along(c, 1.0)).fold(f64::NEG_INFINITY, f64::max);
            let near = f.centres.iter().map(|&c| along(c, -1.0)).fold(f64::INFINITY, f64::min);
            start.centre.dot(axis) + reach(start, axis) <= near + geometry::EPSILON
                && end.centre.dot(axis) - reach(end, axis.scale(-1.0)) >= far - geometry::EPSILON
        })
}

/// Candidates the best-path search scores exhaustively before refining.
pub const BEST_PATH_CANDIDATES: usize = 20_000;

/// The same for footprints that push models when pivoting (each push is a search of its
/// own), so that planning stays within seconds.
pub const BEST_PATH_CANDIDATES_PUSHING: usize = 1_000;

/// The chance that the chariot gets `distance` inches along a drive: every model it
/// touches before then slain.
fn p_reaches(drive: &Drive, models: &[PlannedModel], distance: f64) -> f64 {
    let chances = super::shieldwall::passed_chances(&drive.groups, models, &drive.discs, &drive.pushes);
    drive
        .groups
        .iter()
        .zip(&chances)
        .take_while(|(g, _)| g.distance < distance - SAME_TIME_INCHES)
        .flat_map(|(_, p)| p)
        .product()
}

/// The Wounds a drive's hazards are expected to cost the chariot: the obstacle's three
/// Strength 6 hits and the difficult-terrain test's 1 in 6, each weighed by the chance the
/// chariot gets there (Fate and Might are not counted).
pub(crate) fn hazard_wounds(drive: &Drive, models: &[PlannedModel], scenario: &Scenario) -> f64 {
    let mut wounds = 0.0;
    if let Some(o) = &drive.obstacle {
        let per_hit = mesbg::to_wound(OBSTACLE_STRENGTH, scenario.chariot.defence).probability();
        wounds += p_reaches(drive, models, o.distance + 2.0 * SAME_TIME_INCHES) * f64::from(OBSTACLE_HITS) * per_hit;
    }
    if let Some(from) = drive.difficult_from {
        wounds += p_reaches(drive, models, from) / 6.0;
    }
    wounds
}

/// How far short of a hazard a chariot that chooses to stop short stops, inches.
pub const STOP_SHORT_INCHES: f64 = 0.01;

/// The distances at which a drive could stop short of its hazards: just before the
/// obstacle it drives into and just before it first enters difficult terrain.
pub(crate) fn stops_short_of_hazards(drive: &Drive) -> Vec<f64> {
    let mut stops: Vec<f64> = drive.obstacle.iter().map(|o| o.distance).chain(drive.difficult_from).collect();
    stops.retain(|&d| d > STOP_SHORT_INCHES);
    stops.iter().map(|d| d - STOP_SHORT_INCHES).collect()
}

thread_local! {
    /// Whether the best-path search reuses the drives of candidates that begin with the
    /// same pivots (always, but for the test that proves it chooses as the plain search).
    pub(crate) static REUSE_DRIVES: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// What the best-path search chose: the pivots, and where to stop short (`None`: drive the
/// full Move).
pub(crate) struct BestPath {
    pub(crate) pivots: Vec<f64>,
    pub(crate) stop_at: Option<f64>,
    /// The objective's value on the path chosen (0: no path reaches it).
    pub(crate) value: f64,
}

/// Searches pivot sequences for the one that maximises `objective`: every sequence on the
/// finest even grid of pivots that fits in [`BEST_PATH_CANDIDATES`], then one pivot at a
/// time at 1 degree until nothing improves. Ties go to the path whose hazards (an obstacle,
/// difficult terrain) are expected to cost fewer Wounds, then to the smaller total turning.
/// Then, since a chariot charges "up to its Move", it stops just short of the obstacle or
/// the difficult terrain on its path when that loses nothing of the objective and saves
/// Wounds. `stop_at` is a distance the scenario fixed (then no stop is searched).
pub(crate) fn best_pivots(
    scenario: &Scenario,
    footprint: &Footprint,
    discs: &[Disc],
    models: &[PlannedModel],
    objective: Objective,
    stop_at: Option<f64>,
    board: Standing<'_>,
) -> BestPath {
    let chances =
        1 + (scenario.chariot.move_inches.min(stop_at.unwrap_or(f64::INFINITY)) / PIVOT_EVERY + 1e-9).floor() as usize;
    let drive_of = |pivots: &[f64], stop: Option<f64>| {
        drive(scenario, footprint, discs.to_vec(), stop, board, |k, _| pivots.get(k).copied().unwrap_or(0.0))
    };
    let score_of = |d: &Drive, pivots: &[f64]| {
        let value = objective_value(d, models, scenario, footprint, objective);
        let turning: f64 = pivots.iter().map(|p| p.abs()).sum();
        (value, -hazard_wounds(d, models, scenario), -turning)
    };
    // A drive asks for its pivots one chance at a time and may end before the last (a Move
    // of 8" pivots at 0" and 4" only; an obstacle or a friend ends it early), so candidates
    // that differ only after the pivots a drive used drive the same path. The value and
    // hazards of each path driven are kept by the pivots it used, and reused for every
    // candidate that begins with them (the turning, which counts every pivot, is not kept).
    let reuse = REUSE_DRIVES.with(std::cell::Cell::get);
    let driven: std::sync::Mutex<std::collections::HashMap<Vec<u64>, (f64, f64)>> = Default::default();
    let key = |pivots: &[f64]| -> Vec<u64> { pivots.iter().map(|p| p.to_bits()).collect() };
    let score = |pivots: &[f64]| {
        let turning: f64 = pivots.iter().map(|p| p.abs()).sum();
        let known = reuse.then(|| {
            let memo = driven.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            (1..=pivots.len()).find_map(|used| memo.get(&key(&pivots[..used])).copied())
        });
        let known = known.flatten();
        let (value, hazard) = known.unwrap_or_else(|| {
            let d = drive_of(pivots, stop_at);
            let sc = score_of(&d, pivots);
            let used = d.pivots_used.len().min(pivots.len());
            driven.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(key(&pivots[..used]), (sc.0, sc.1));
            (sc.0, sc.1)
        });
        (value, hazard, -turning)
    };
    let better = |a: (f64, f64, f64), b: (f64, f64, f64)| {
        let same = |x: f64, y: f64| (x - y).abs() <= 1e-12;
        a.0 > b.0 + 1e-12 || (same(a.0, b.0) && (a.1 > b.1 + 1e-12 || (same(a.1, b.1) && a.2 > b.2 + 1e-9)))
    };
    let budget = if footprint.is_round() { BEST_PATH_CANDIDATES } else { BEST_PATH_CANDIDATES_PUSHING };
    let per = ((budget as f64).powf(1.0 / chances as f64).floor() as usize).clamp(3, 91);
    let values: Vec<f64> = (0..per).map(|i| -MAX_PIVOT + 2.0 * MAX_PIVOT * i as f64 / (per - 1) as f64).collect();
    let mut best = vec![0.0; chances];
    let mut best_score = score(&best);
    let total = per.pow(chances as u32);
    let candidate = |index: usize| -> Vec<f64> {
        let mut rest = index;
        (0..chances)
            .map(|_| {
                let v = values[rest % per];
                rest /= per;
                v
            })
            .collect()
    };
    // Scored in parallel, chosen in order: the same choice as scoring one by one.
    let scores: Vec<(f64, f64, f64)> = (0..total).into_par_iter().map(|index| score(&candidate(index))).collect();
    for (index, sc) in scores.into_iter().enumerate() {
        if better(sc, best_score) {
            best_score = sc;
            best = candidate(index);
        }
    }
    // Refine one pivot at a time at 1 degree: over the whole range for round footprints,
    // within one grid step of the best for pushing ones.
    let reach = if footprint.is_round() { 45 } else { (90 / (per - 1)) as i32 };
    for _ in 0..5 {
        let mut improved = false;
        for k in 0..chances {
            let centre = best[k].round() as i32;
            // Every trial differs from `best` only at pivot k, so an improvement found on
            // the way does not change the trials after it: scored in parallel, chosen in
            // order, as one by one.
            let steps: Vec<i32> = ((centre - reach).max(-45)..=(centre + reach).min(45)).collect();
            let with_step = |step: i32| {
                let mut trial = best.clone();
                trial[k] = f64::from(step);
                trial
            };
            let scores: Vec<(f64, f64, f64)> = steps.par_iter().map(|&step| score(&with_step(step))).collect();
            let mut chosen = None;
            for (&step, sc) in steps.iter().zip(scores) {
                if better(sc, best_score) {
                    best_score = sc;
                    chosen = Some(step);
                    improved = true;
                }
            }
            if let Some(step) = chosen {
                best = with_step(step);
            }
        }
        if !improved {
            break;
        }
    }
    if stop_at.is_some() {
        return BestPath { pivots: best, stop_at, value: best_score.0 };
    }
    // Stop short of a hazard when that keeps the objective and saves Wounds.
    let full = drive_of(&best, None);
    let mut chosen = (None, score_of(&full, &best));
    for stop in stops_short_of_hazards(&full) {
        let sc = score_of(&drive_of(&best, Some(stop)), &best);
        if sc.0 >= chosen.1.0 - 1e-12 && sc.1 > chosen.1.1 + 1e-12 {
            chosen = (Some(stop), sc);
        }
    }
    BestPath { pivots: best, stop_at: chosen.0, value: chosen.1.0 }
}

/// How much a base is shrunk to tell overlapping an obstacle from touching it, inches.
const BASE_HAIR: f64 = 1e-4;

/// How far a beaten model Backs Away, inches.
pub const BACK_AWAY_INCHES: f64 = 1.0;

/// The chariot's pose after `distance` inches along its legs.
pub(crate) fn pose_at(legs: &[Leg], distance: f64) -> Option<Pose> {
    legs.iter()
        .find(|l| distance <= l.from_distance + l.length + geometry::EPSILON)
        .or(legs.last())
        .map(|l| l.start.advanced((distance - l.from_distance).clamp(0.0, l.length)))
}

/// Whether the base `disc` can Back Away: move 1" directly away from the chariot (along
/// the line from the chariot's centre `chariot` through its own) without its base crossing
/// another model's (`others`, the standing models), a chariot's (`chariots`, their
/// footprints where they stand) or an obstacle (`walls`). Checked every 1/32" along the
/// way, finer than any base.
pub(crate) fn can_back_away(
    disc: &Disc,
    chariot: Vec2,
    others: &[Disc],
    chariots: &[(Footprint, Pose)],
    walls: &[(Vec2, Vec2)],
) -> bool {
    let away = disc.centre - chariot;
    if away.length() < 1e-9 {
        return true;
    }
    let dir = away.scale(1.0 / away.length());
    const STEPS: usize = 32;
    (1..=STEPS).all(|k| {
        let moved = Disc { centre: disc.centre + dir.scale(BACK_AWAY_INCHES * k as f64 / STEPS as f64), ..*disc };
        let clear_of_models = others.iter().all(|o| moved.distance_to(o) >= -geometry::EPSILON)
            && chariots.iter().all(|(f, p)| moved.distance_from(f, p) >= -geometry::EPSILON);
        // The footprint distance is 0 for touching and overlapping alike: a base shrunk by a
        // hair that still meets the wall overlaps it (touching it is allowed).
        let shrunk_mm = |inches: f64| 2.0 * (inches - BASE_HAIR) * geometry::MM_PER_INCH;
        let (footprint, facing) = match moved.oval {
            None => (Footprint::round_mm(shrunk_mm(moved.radius)), 0.0),
            Some(o) => (Footprint::oval_mm(shrunk_mm(o.half_width), shrunk_mm(o.half_length)), o.facing),
        };
        let pose = Pose { centre: moved.centre, facing };
        let clear_of_walls =
            walls.iter().all(|&(a, b)| geometry::footprint_segment_distance(&footprint, &pose, a, b) > 0.0);
        clear_of_models && clear_of_walls
    })
}
