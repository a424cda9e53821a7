//! The board as a picture shows it: every base where it stood, the terrain, the chariot's
//! swept path with its pivots, where the charges stopped along it, and each model's
//! chance to be slain (by Impact Hits or in the fight).
//!
//! This is data only; `report::charts::charge_board` draws it. The chances come from a
//! pass of [`BOARD_TRIALS`] trials of the run's own streams that listens to each trial's
//! events, so they are counted from what happened to each model, not computed from the
//! rule tables the metrics use.

use super::plan::Plan;
use super::resolve::{self, Event, Observer, Scratch};
use super::scenario::{Scenario, Terrain};
use crate::engine::Streams;
use crate::geometry::{Footprint, Pose, Vec2};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

/// Trials the board picture counts where there is no run to match (`validate --map`, the
/// page): the first ones of the scenario's streams. 100,000 puts a model's chance within
/// about 0.3 percentage points (95%).
pub const BOARD_TRIALS: u64 = 100_000;

/// The most trials a run's board picture counts. Up to this many the picture counts the
/// run's own trials, so its shares of where charges ended are the report's to the last
/// digit; a longer run's picture counts its first `BOARD_TRIAL_CAP` and says so.
pub const BOARD_TRIAL_CAP: u64 = 2_000_000;

/// The trials a run of `run_trials` shows on its board: all of them, up to the cap.
pub fn board_trials(run_trials: u64) -> u64 {
    run_trials.min(BOARD_TRIAL_CAP)
}

/// Points on a base's outline, enough for a smooth curve at print size.
const OUTLINE_POINTS: usize = 48;

/// A point on the board, inches (x east, y north).
pub type Point = (f64, f64);

impl DrawnBase {
    /// What sets the model apart on the board, in a reader's words ("Hero, banner bearer",
    /// "spear"); empty for a plain warrior.
    pub fn role(&self) -> String {
        let mut parts: Vec<&str> = Vec::new();
        if self.hero {
            parts.push("Hero");
        }
        if self.banner {
            parts.push("banner bearer");
        }
        if let Some(p) = self.polearm {
            parts.push(p);
        }
        parts.join(", ")
    }
}

/// One model's base as drawn.
#[derive(Clone, Debug, Serialize)]
pub struct DrawnBase {
    /// Index of the model in the plan.
    pub model: usize,
    /// Its formation's index.
    pub formation: usize,
    /// Its rank and file, as `replay` names it.
    pub rank: usize,
    /// See `rank`.
    pub file: usize,
    /// The name `replay` gives it.
    pub label: String,
    /// Where it stood, inches.
    pub centre: Point,
    /// Its base's outline where it stood.
    pub outline: Vec<Point>,
    /// Where a pivot pushed it aside to, if one did.
    pub pushed_to: Option<Point>,
    /// Counted trials in which it was slain (Impact Hits or the fight).
    pub slain: u64,
    /// Their share of the counted trials.
    pub p_slain: f64,
    /// Whether it is an enemy Hero.
    pub hero: bool,
    /// Whether it carries its formation's banner (fights within 3" of it may re-roll a die).
    pub banner: bool,
    /// Its spear or pike (`"spear"`, `"pike"`): it can support a friend it touches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub polearm: Option<&'static str>,
}

/// A piece of terrain as drawn.
#[derive(Clone, Debug, Serialize)]
pub struct DrawnTerrain {
    /// Its name.
    pub name: String,
    /// `difficult` (an area) or `obstacle` (a line).
    pub kind: &'static str,
    /// The area's corners, or the obstacle's two ends.
    pub points: Vec<Point>,
}

/// Where charges ended along the path, and how often.
#[derive(Clone, Debug, Serialize)]
pub struct StopMark {
    /// Distance driven, inches.
    pub distance: f64,
    /// The centre of the chariot there.
    pub at: Point,
    /// Share of the counted trials that ended there.
    pub p: f64,
    /// How they ended: `stopped` by a survivor, `drove on` its full Move, `slain by terrain`.
    pub how: &'static str,
    /// In a turn: the chariot (1-based, as listed) whose charges ended here.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chariot: Option<usize>,
}

/// Where a corridor ran through a line after a turn (`line_breached`): the band between
/// the two standing models either side of the gap, over the line's depth, at its commonest
/// place in the counted trials.
#[derive(Clone, Debug, Serialize)]
pub struct DrawnCorridor {
    /// The line's number (1-based, as `lineN.*` counts them).
    pub line: usize,
    /// The formations that make the line.
    pub names: String,
    /// The band's corners.
    pub points: Vec<Point>,
    /// Share of the counted trials in which a corridor ran through the line anywhere.
    pub p_any: f64,
    /// Share in which it ran here.
    pub p_here: f64,
}

/// Another chariot's path in a turn.
#[derive(Clone, Debug, Serialize)]
pub struct DrawnPath {
    /// Its number (1-based, as listed).
    pub number: usize,
    /// Its place in the order of the turn (1-based).
    pub order: usize,
    /// Its base where it starts.
    pub start: Vec<Point>,
    /// Its base where its drive ends if nothing stops it.
    pub end: Vec<Point>,
    /// Its base every half inch along the path.
    pub swept: Vec<Vec<Point>>,
    /// The path of its centre.
    pub centre_line: Vec<Point>,
}

/// The whole picture.
#[derive(Clone, Debug, Serialize)]
pub struct BoardPicture {
    /// Every model of the formations.
    pub bases: Vec<DrawnBase>,
    /// Formation names, by index.
    pub formations: Vec<String>,
    /// The terrain.
    pub terrain: Vec<DrawnTerrain>,
    /// The chariot's name.
    pub chariot: String,
    /// The chariot's base where it starts.
    pub chariot_start: Vec<Point>,
    /// The chariot's base where its full Move ends.
    pub chariot_end: Vec<Point>,
    /// The chariot's base every half inch along its path (together, the swept area).
    pub swept: Vec<Vec<Point>>,
    /// The path of the chariot's centre: the start of each straight stretch, then the end.
    pub centre_line: Vec<Point>,
    /// Each pivot: where the centre was and the angle turned (degrees, clockwise).
    pub pivots: Vec<(Point, f64)>,
    /// Where the charges ended.
    pub stops: Vec<StopMark>,
    /// In a turn of several chariots, the first chariot's number (1-based, as listed), and
    /// the other chariots' paths (the path each drove most often in the counted trials).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<usize>,
    /// The other chariots of a turn.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<DrawnPath>,
    /// In a turn: per line that a corridor ran through in some counted trial, the place it
    /// ran most often.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub corridors: Vec<DrawnCorridor>,
    /// Trials counted for the chances.
    pub trials: u64,
    /// The smallest box holding everything drawn, with a margin: (x0, y0, x1, y1).
    pub bounds: (f64, f64, f64, f64),
}

/// The outline of a footprint at a pose (for a round base, a circle).
pub fn outline(footprint: &Footprint, pose: Pose) -> Vec<Point> {
    let forward = Vec2::heading(pose.facing);
    let right = forward.right();
    let place = |x: f64, y: f64| {
        let p = pose.centre + right.scale(x) + forward.scale(y);
        (p.x, p.y)
    };
    let turn = |i: usize| std::f64::consts::TAU * i as f64 / OUTLINE_POINTS as f64;
    if footprint.oval {
        return (0..OUTLINE_POINTS)
            .map(|i| place(footprint.half_width * turn(i).cos(), footprint.half_length * turn(i).sin()))
            .collect();
    }
    // A box grown by `rounding`: a quarter circle about each corner.
    let (hw, hl, r) = (footprint.half_width, footprint.half_length, footprint.rounding);
    let quarter = OUTLINE_POINTS / 4;
    let mut points = Vec::with_capacity(OUTLINE_POINTS + 4);
    for (k, (cx, cy)) in [(hw, hl), (-hw, hl), (-hw, -hl), (hw, -hl)].into_iter().enumerate() {
        for i in 0..=quarter {
            let a = std::f64::consts::FRAC_PI_2 * (k as f64 + i as f64 / quarter as f64);
            points.push(place(cx + r * a.cos(), cy + r * a.sin()));
        }
    }
    points
}

/// The chariot's pose after driving `distance` along its path.
pub fn pose_at(plan: &Plan, distance: f64) -> Pose {
    let leg = plan.legs.iter().rev().find(|l| l.from_distance <= distance + 1e-9);
    match leg {
        Some(l) => l.start.advanced((distance - l.from_distance).min(l.length)),
        None => plan.legs.first().map_or(plan.end, |l| l.start),
    }
}

/// What one trial did to each model, and where it ended.
struct Watch<'a> {
    plan: &'a Plan,
    slain: Vec<bool>,
    end: Option<(f64, &'static str)>,
}

impl Observer for Watch<'_> {
    const ENABLED: bool = true;
    fn note(&mut self, event: impl FnOnce() -> Event) {
        match event() {
            Event::Contact { model, outcome, .. } if outcome.casualty => self.slain[model] = true,
            Event::KnockedFlying { model, slain: true, .. } => self.slain[model] = true,
            Event::Strike { target: Some(model), casualty: true, .. } => self.slain[model] = true,
            Event::Stopped { distance, .. } => self.end = Some((distance, "stopped")),
            Event::DroveOn { .. } => self.end = Some((self.plan.path_length, "drove on")),
            Event::SlainByTerrain { distance } => self.end = Some((distance, "slain by terrain")),
            _ => {}
        }
    }
}

/// Per-model slain counts and ends of `trials` trials from the first, summed.
#[derive(Clone, Debug, Default)]
struct Counts {
    slain: Vec<u64>,
    ends: BTreeMap<(i64, &'static str), u64>,
}

impl Counts {
    fn merge(mut self, other: Counts) -> Counts {
        if self.slain.is_empty() {
            return other;
        }
        for (a, b) in self.slain.iter_mut().zip(other.slain) {
            *a += b;
        }
        for (k, v) in other.ends {
            *self.ends.entry(k).or_default() += v;
        }
        self
    }
}

/// Plays trials `range` of `streams`, listening to each.
fn count(plan: &Plan, streams: Streams, range: std::ops::Range<u64>) -> Counts {
    let mut counts = Counts { slain: vec![0; plan.models.len()], ends: BTreeMap::new() };
    let mut scratch = Scratch::default();
    let mut watch = Watch { plan, slain: vec![false; plan.models.len()], end: None };
    for t in range {
        watch.slain.fill(false);
        watch.end = None;
        resolve::trial(plan, streams, t, &mut scratch, &mut watch);
        for (c, s) in counts.slain.iter_mut().zip(&watch.slain) {
            *c += u64::from(*s);
        }
        if let Some((distance, how)) = watch.end {
            *counts.ends.entry(((distance * 1000.0).round() as i64, how)).or_default() += 1;
        }
    }
    counts
}

/// The picture of a compiled scenario, with chances from the first `trials` trials of
/// the run with `seed` (the same on any number of threads).
pub fn picture(scenario: &Scenario, plan: &Plan, seed: u64, trials: u64) -> BoardPicture {
    let streams = Streams::new(seed, scenario.hash());
    let chunk = 4096u64;
    let counts = (0..trials.div_ceil(chunk))
        .into_par_iter()
        .map(|c| count(plan, streams, c * chunk..((c + 1) * chunk).min(trials)))
        .reduce(Counts::default, Counts::merge);
    let share = |n: u64| if trials == 0 { 0.0 } else { n as f64 / trials as f64 };

    let mut bases = Vec::with_capacity(plan.models.len());
    for (i, m) in plan.models.iter().enumerate() {
        let f = &scenario.formations[m.formation];
        let pushed = plan.pushes.iter().find(|p| p.model == i);
        let stood = pushed.map_or(m.centre, |p| p.from);
        let disc = f.disc_at(stood);
        let footprint = match disc.oval {
            Some(o) => Footprint { half_width: o.half_width, half_length: o.half_length, rounding: 0.0, oval: true },
            None => Footprint { half_width: 0.0, half_length: 0.0, rounding: disc.radius, oval: false },
        };
        let files = plan.formation_files.get(m.formation).copied().unwrap_or(1).max(1);
        bases.push(DrawnBase {
            model: i,
            formation: m.formation,
            rank: (m.number - 1) / files + 1,
            file: (m.number - 1) % files + 1,
            label: plan.model_label(i),
            centre: (stood.x, stood.y),
            outline: outline(&footprint, Pose { centre: stood, facing: f.facing }),
            pushed_to: pushed.map(|p| (p.to.x, p.to.y)),
            slain: counts.slain.get(i).copied().unwrap_or(0),
            p_slain: share(counts.slain.get(i).copied().unwrap_or(0)),
            hero: m.hero.is_some(),
            banner: plan.support.bearers.contains(&i),
            polearm: plan.support.polearm.get(i).copied().flatten().map(|p| match p {
                crate::mesbg::plan::support::Polearm::Spear => "spear",
                crate::mesbg::plan::support::Polearm::Pike => "pike",
            }),
        });
    }
    let terrain = scenario
        .terrain
        .iter()
        .map(|t| match t {
            Terrain::Difficult { name, area } => DrawnTerrain {
                name: name.clone(),
                kind: "difficult",
                points: area.vertices.iter().map(|v| (v.x, v.y)).collect(),
            },
            Terrain::Obstacle { name, from, to } => {
                DrawnTerrain { name: name.clone(), kind: "obstacle", points: vec![(from.x, from.y), (to.x, to.y)] }
            }
        })
        .collect::<Vec<_>>();

    let footprint = scenario.chariot.base.footprint();
    let start = plan.legs.first().map_or(scenario.chariot.start, |l| l.start);
    let steps = (plan.path_length / 0.5).ceil() as usize;
    let swept = (0..=steps)
        .map(|k| outline(&footprint, pose_at(plan, (k as f64 * 0.5).min(plan.path_length))))
        .collect::<Vec<_>>();
    let mut centre_line: Vec<Point> = plan.legs.iter().map(|l| (l.start.centre.x, l.start.centre.y)).collect();
    centre_line.push((plan.end.centre.x, plan.end.centre.y));
    let pivots = plan
        .legs
        .iter()
        .zip(&plan.pivots)
        .filter(|(_, turn)| turn.abs() > 1e-9)
        .map(|(l, turn)| ((l.start.centre.x, l.start.centre.y), *turn))
        .collect();
    let stops = counts
        .ends
        .iter()
        .map(|(&(milli, how), &n)| {
            let distance = milli as f64 / 1000.0;
            let at = pose_at(plan, distance).centre;
            StopMark { distance, at: (at.x, at.y), p: share(n), how, chariot: None }
        })
        .collect();

    let chariot_start = outline(&footprint, start);
    let chariot_end = outline(&footprint, plan.end);
    let everything = bases
        .iter()
        .flat_map(|b| b.outline.iter())
        .chain(terrain.iter().flat_map(|t| t.points.iter()))
        .chain(swept.iter().flatten())
        .chain(&chariot_start);
    let (mut x0, mut y0, mut x1, mut y1) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for &(x, y) in everything {
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    let margin = 2.0;
    BoardPicture {
        bases,
        formations: scenario.formations.iter().map(|f| f.name.clone()).collect(),
        terrain,
        chariot: scenario.chariot.name.clone(),
        chariot_start,
        chariot_end,
        swept,
        centre_line,
        pivots,
        stops,
        number: None,
        more: Vec::new(),
        corridors: Vec::new(),
        trials,
        bounds: (x0 - margin, y0 - margin, x1 + margin, y1 + margin),
    }
}

/// What one trial of a turn did to each model, which drives it took, and where each
/// chariot ended.
struct TurnWatch {
    slain: Vec<bool>,
    chariot: usize,
    ends: Vec<(usize, f64, &'static str)>,
}

impl Observer for TurnWatch {
    const ENABLED: bool = true;
    fn note(&mut self, event: impl FnOnce() -> Event) {
        match event() {
            Event::Contact { model, outcome, .. } if outcome.casualty => self.slain[model] = true,
            Event::KnockedFlying { model, slain: true, .. } => self.slain[model] = true,
            Event::Strike { target: Some(model), casualty: true, .. } => self.slain[model] = true,
            Event::TurnCharge { chariot, .. } => self.chariot = chariot - 1,
            Event::Stopped { distance, .. } => self.ends.push((self.chariot, distance, "stopped")),
            // A drive ended short of a friend says so; its "drove on" adds nothing.
            Event::DroveOn { .. } if self.ends.last().is_none_or(|e| e.0 != self.chariot) => {
                self.ends.push((self.chariot, f64::NAN, "drove on"))
            }
            Event::Blocked { distance, .. } => self.ends.push((self.chariot, distance, "blocked")),
            Event::Obstacle { .. } => self.ends.push((self.chariot, f64::NAN, "obstacle")),
            Event::SlainByTerrain { distance } => self.ends.push((self.chariot, distance, "slain by terrain")),
            _ => {}
        }
    }
}

/// Per-model slain counts, per-node visits and chariots' ends of a turn's trials.
#[derive(Clone, Debug, Default)]
struct TurnCounts {
    slain: Vec<u64>,
    visits: Vec<u64>,
    ends: BTreeMap<(usize, i64, i64, &'static str), (u64, f64)>,
    /// Per line, the trials a corridor ran through it; per (line, band rounded to the tenth
    /// of an inch), the trials it ran there, with the band.
    breached: Vec<u64>,
    corridors: BTreeMap<(usize, [i64; 8]), (u64, [crate::geometry::Vec2; 4])>,
}

impl TurnCounts {
    fn merge(mut self, other: TurnCounts) -> TurnCounts {
        if self.slain.is_empty() {
            return other;
        }
        self.slain.iter_mut().zip(other.slain).for_each(|(a, b)| *a += b);
        self.visits.iter_mut().zip(other.visits).for_each(|(a, b)| *a += b);
        for (k, (n, d)) in other.ends {
            self.ends.entry(k).or_insert((0, d)).0 += n;
        }
        self.breached.iter_mut().zip(other.breached).for_each(|(a, b)| *a += b);
        for (k, (n, band)) in other.corridors {
            self.corridors.entry(k).or_insert((0, band)).0 += n;
        }
        self
    }
}

/// The picture of a turn: every chariot's path (the one it drove most often in the counted
/// trials, numbered as listed), where the chariots ended, and each model's chance to be
/// slain in the turn, from the first `trials` trials of the run with `seed`.
pub fn turn_picture(plan: &crate::mesbg::turn::TurnPlan, seed: u64, trials: u64) -> BoardPicture {
    let scenario = &plan.scenario;
    let streams = Streams::new(seed, scenario.hash());
    let chunk = 4096u64;
    let count = |range: std::ops::Range<u64>| {
        let mut counts = TurnCounts {
            slain: vec![0; plan.models],
            visits: vec![0; plan.nodes.len()],
            ends: BTreeMap::new(),
            breached: vec![0; plan.lines.len()],
            corridors: BTreeMap::new(),
        };
        let mut scratch = crate::mesbg::turn::TurnTrial::default();
        for t in range {
            let mut watch = TurnWatch { slain: vec![false; plan.models], chariot: 0, ends: Vec::new() };
            crate::mesbg::turn::play(plan, streams, t, &mut scratch, &mut watch);
            counts.slain.iter_mut().zip(&watch.slain).for_each(|(c, s)| *c += u64::from(*s));
            // Where a corridor runs through each line after the turn, as `line_breached`
            // measures it.
            if let Some(board) = plan.finals.get(scratch.last) {
                let slain = scratch.fight_slain();
                let standing = |m: usize| board.present[m] && !slain.contains(&m);
                let bands = crate::mesbg::turn::line_corridors(
                    &scenario.formations,
                    &plan.lines,
                    &board.centres,
                    standing,
                    plan.corridor_width,
                );
                for (l, band) in bands.into_iter().enumerate() {
                    let Some(band) = band else { continue };
                    counts.breached[l] += 1;
                    let mut key = [0i64; 8];
                    for (k, q) in band.iter().enumerate() {
                        key[2 * k] = (q.x * 10.0).round() as i64;
                        key[2 * k + 1] = (q.y * 10.0).round() as i64;
                    }
                    counts.corridors.entry((l, key)).or_insert((0, band)).0 += 1;
                }
            }
            let walked = scratch.walked();
            for &node in walked {
                counts.visits[node] += 1;
            }
            for &(c, distance, how) in &watch.ends {
                let Some(&node) = walked.iter().find(|&&n| plan.nodes[n].chariot == c) else { continue };
                let milli = if distance.is_finite() { (distance * 1000.0).round() as i64 } else { i64::MIN };
                // Where it ended, on the path it drove (one mark per chariot and place).
                let at = if milli == i64::MIN {
                    plan.nodes[node].end.centre
                } else {
                    crate::mesbg::turn::pose_on_legs(&plan.nodes[node].legs, distance)
                        .map_or(plan.nodes[node].end.centre, |p| p.centre)
                };
                // One mark per chariot, kind and place to the tenth of an inch the report
                // prints (the same place reached on different branches differs by rounding).
                let key = (c, (at.x * 10.0).round() as i64, (at.y * 10.0).round() as i64, how);
                let entry = counts.ends.entry(key).or_insert((
                    0,
                    if milli == i64::MIN { plan.nodes[node].legs.iter().map(|l| l.length).sum() } else { distance },
                ));
                entry.0 += 1;
            }
        }
        counts
    };
    let counts = (0..trials.div_ceil(chunk))
        .into_par_iter()
        .map(|c| count(c * chunk..((c + 1) * chunk).min(trials)))
        .reduce(TurnCounts::default, TurnCounts::merge);
    let share = |n: u64| if trials == 0 { 0.0 } else { n as f64 / trials as f64 };
    // Each chariot's most driven path: its node visited most often.
    let busiest = |c: usize| {
        (0..plan.nodes.len())
            .filter(|&n| plan.nodes[n].chariot == c)
            .max_by_key(|&n| (counts.visits[n], std::cmp::Reverse(n)))
    };
    let first = plan.order[0];
    let mut picture = picture(&scenario.view(first), &plan.plans[first], seed, 0);
    for b in &mut picture.bases {
        b.slain = counts.slain.get(b.model).copied().unwrap_or(0);
        b.p_slain = share(b.slain);
        b.label = plan.plans[first].model_label(b.model);
    }
    picture.trials = trials;
    picture.number = Some(first + 1);
    picture.stops = Vec::new();
    for (&(c, x, y, how), &(n, distance)) in &counts.ends {
        let at = (x as f64 / 10.0, y as f64 / 10.0);
        picture.stops.push(StopMark { distance, at, p: share(n), how, chariot: Some(c + 1) });
    }
    let mut more = Vec::new();
    for (depth, &c) in plan.order.iter().enumerate() {
        let Some(node) = busiest(c) else { continue };
        let mv = &plan.nodes[node];
        let footprint = plan.scenario.entries()[c].chariot.base.footprint();
        let length: f64 = mv.legs.iter().map(|l| l.length).sum();
        let steps = (length / 0.5).ceil() as usize;
        let along = |d: f64| crate::mesbg::turn::pose_on_legs(&mv.legs, d).unwrap_or(mv.end);
        let mut centre_line: Vec<Point> = mv.legs.iter().map(|l| (l.start.centre.x, l.start.centre.y)).collect();
        centre_line.push((mv.end.centre.x, mv.end.centre.y));
        let start = mv.legs.first().map_or(plan.scenario.entries()[c].chariot.start, |l| l.start);
        let drawn = DrawnPath {
            number: c + 1,
            order: depth + 1,
            start: outline(&footprint, start),
            end: outline(&footprint, mv.end),
            swept: (0..=steps).map(|k| outline(&footprint, along((k as f64 * 0.5).min(length)))).collect(),
            centre_line,
        };
        if depth == 0 {
            picture.swept = drawn.swept;
            picture.centre_line = drawn.centre_line;
            picture.chariot_start = drawn.start;
            picture.chariot_end = drawn.end;
            picture.pivots = Vec::new();
        } else {
            more.push(drawn);
        }
    }
    picture.more = more;
    // Each line's commonest corridor (the first of equals, in the order of their corners).
    for (l, line) in plan.lines.iter().enumerate() {
        let here =
            counts.corridors.iter().filter(|((k, _), _)| *k == l).max_by(|a, b| a.1.0.cmp(&b.1.0).then(b.0.cmp(a.0)));
        let Some((_, &(n, band))) = here else { continue };
        picture.corridors.push(DrawnCorridor {
            line: l + 1,
            names: line.iter().map(|&f| scenario.formations[f].name.as_str()).collect::<Vec<_>>().join(", "),
            points: band.iter().map(|q| (q.x, q.y)).collect(),
            p_any: share(counts.breached[l]),
            p_here: share(n),
        });
    }
    let everything = picture
        .bases
        .iter()
        .flat_map(|b| b.outline.iter())
        .chain(picture.terrain.iter().flat_map(|t| t.points.iter()))
        .chain(picture.swept.iter().flatten())
        .chain(picture.more.iter().flat_map(|m| m.swept.iter().flatten().chain(&m.start)))
        .chain(&picture.chariot_start);
    let (mut x0, mut y0, mut x1, mut y1) = (f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY);
    for &(x, y) in everything {
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    let margin = 2.0;
    picture.bounds = (x0 - margin, y0 - margin, x1 + margin, y1 + margin);
    picture
}
