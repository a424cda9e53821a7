//! What the project measures of a board after the turn (not rules of the game): the lines
//! of formations standing together, and whether a corridor runs through a line.

use crate::geometry::{self, Disc, Vec2};
use crate::mesbg::plan::support;
use crate::mesbg::scenario::Formation;

/// The lines of a board: formations facing the same way whose models touch one another
/// (shields with spears behind them) form one line, each a list of formation indices.
pub fn lines_of(formations: &[Formation]) -> Vec<Vec<usize>> {
    let n = formations.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let tolerance = support::BASE_CONTACT_MM / geometry::MM_PER_INCH;
    for a in 0..n {
        for b in a + 1..n {
            let (fa, fb) = (&formations[a], &formations[b]);
            let same_facing =
                ((fa.facing - fb.facing).rem_euclid(360.0)).min((fb.facing - fa.facing).rem_euclid(360.0)) < 1e-6;
            let touch = same_facing
                && fa.centres.iter().any(|&ca| {
                    let da = fa.disc_at(ca);
                    fb.centres.iter().any(|&cb| da.distance_to(&fb.disc_at(cb)) <= tolerance)
                });
            if touch {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut lines: Vec<Vec<usize>> = Vec::new();
    for f in 0..n {
        let r = root(&mut parent, f);
        match lines.iter_mut().find(|l| l[0] == r) {
            Some(l) if r != f => l.push(f),
            _ => lines.push(vec![f]),
        }
    }
    lines
}

/// Whether a corridor as wide as one of the line's bases (its widest) runs through the line
/// (formations `line`, facing one way) from its front rank to its back rank, free of the
/// `standing` models' bases (any formation's): a gap at least one base wide between two
/// standing models across the line, over its whole depth. A gap at either end of the line
/// is not a breach: the line is only shorter. A line of which no model stands is breached.
pub fn corridor_through(line: &[&Formation], standing: &[Disc], width: Option<f64>) -> bool {
    corridor(line, standing, width).is_some()
}

/// The corridor [`corridor_through`] finds (the first across the line, from its left), as
/// the four corners of the band it runs along on the board: between the two standing
/// models either side of the gap, from the line's back to its front. A line of which no
/// model stands gives the whole line's band. `None`: no corridor.
pub fn corridor(line: &[&Formation], standing: &[Disc], width: Option<f64>) -> Option<[Vec2; 4]> {
    let first = line.first()?;
    let forward = Vec2::heading(first.facing);
    let right = forward.right();
    let across = |c: Vec2| (c - first.front_centre).dot(right);
    let along = |c: Vec2| (c - first.front_centre).dot(forward);
    let (mut back, mut front, mut widest) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    let (mut left_end, mut right_end) = (f64::INFINITY, f64::NEG_INFINITY);
    for f in line {
        let half = f.oval_mm.map_or(f.radius(), |[w, _]| w / geometry::MM_PER_INCH / 2.0);
        widest = widest.max(2.0 * half);
        for c in &f.centres {
            back = back.min(along(*c) - f.depth());
            front = front.max(along(*c) + f.depth());
            left_end = left_end.min(across(*c) - half);
            right_end = right_end.max(across(*c) + half);
        }
    }
    let width = width.unwrap_or(widest);
    let reach = |d: &Disc, dir: Vec2| match d.oval {
        Some(o) => {
            let fwd = Vec2::heading(o.facing);
            Vec2::new(o.half_width * dir.dot(fwd.right()), o.half_length * dir.dot(fwd)).length()
        }
        None => d.radius,
    };
    let eps = 1e-6;
    let mut blocked: Vec<(f64, f64)> = standing
        .iter()
        .filter(|d| {
            let y = along(d.centre);
            let r = reach(d, forward);
            y + r > back + eps && y - r < front - eps
        })
        .map(|d| {
            let x = across(d.centre);
            let r = reach(d, right);
            (x - r, x + r)
        })
        .collect();
    blocked.sort_by(|a, b| a.0.total_cmp(&b.0));
    let band = |lo: f64, hi: f64| {
        let at = |x: f64, y: f64| first.front_centre + right.scale(x) + forward.scale(y);
        Some([at(lo, back), at(hi, back), at(hi, front), at(lo, front)])
    };
    // Not a model of the line stands: it is gone, and breached.
    let Some(&(_, first_end)) = blocked.first() else { return band(left_end, right_end) };
    let mut covered = first_end;
    for &(lo, hi) in &blocked[1..] {
        if lo - covered >= width - eps {
            return band(covered, lo);
        }
        covered = covered.max(hi);
    }
    None
}

/// Per line (`lines`, formation indices): whether a corridor `width` wide (`None`: one of
/// the line's own bases) runs through it between its own models that stand (`standing(m)`
/// for model `m`, placed at `centres[m]`). Only the line's models close a gap: a model of
/// another line standing in it is not part of this one.
pub fn breached_lines(
    formations: &[Formation],
    lines: &[Vec<usize>],
    centres: &[Vec2],
    standing: impl Fn(usize) -> bool,
    width: Option<f64>,
) -> Vec<bool> {
    line_corridors(formations, lines, centres, standing, width).iter().map(Option::is_some).collect()
}

/// Per line, as [`breached_lines`] measures it: the corridor through it ([`corridor`]), if
/// one runs.
pub fn line_corridors(
    formations: &[Formation],
    lines: &[Vec<usize>],
    centres: &[Vec2],
    standing: impl Fn(usize) -> bool,
    width: Option<f64>,
) -> Vec<Option<[Vec2; 4]>> {
    let mut first = Vec::with_capacity(formations.len());
    let mut at = 0;
    for f in formations {
        first.push(at);
        at += f.centres.len();
    }
    lines
        .iter()
        .map(|line| {
            let members: Vec<&Formation> = line.iter().map(|&f| &formations[f]).collect();
            let mut discs = Vec::new();
            for &f in line {
                let models = first[f]..first[f] + formations[f].centres.len();
                discs.extend(models.filter(|&m| standing(m)).map(|m| formations[f].disc_at(centres[m])));
            }
            corridor(&members, &discs, width)
        })
        .collect()
}

/// Per line: whether it has lost half or more of its models, given each formation's
/// losses (`lost`, in the file's order).
pub fn halved_lines(formations: &[Formation], lines: &[Vec<usize>], lost: &[usize]) -> Vec<bool> {
    lines
        .iter()
        .map(|line| {
            let size: usize = line.iter().map(|&f| formations[f].centres.len()).sum();
            let gone: usize = line.iter().map(|&f| lost[f]).sum();
            2 * gone >= size
        })
        .collect()
}
