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

/// Trials the board picture counts (the first ones of the run's streams). 100,000 puts
/// a model's chance within about 0.3 percentage points (95%).
pub const BOARD_TRIALS: u64 = 100_000;

/// Points on a base's outline, enough for a smooth curve at print size.
const OUTLINE_POINTS: usize = 48;

/// A point on the board, inches (x east, y north).
pub type Point = (f64, f64);

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
            StopMark { distance, at: (at.x, at.y), p: share(n), how }
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
        trials,
        bounds: (x0 - margin, y0 - margin, x1 + margin, y1 + margin),
    }
}
