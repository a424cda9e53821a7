//! A routing beast's run: the d12 clock heading, veering, the moves and turns that meet
//! units, trampling, re-rolls, the cells its centre crosses, and each step's dice-free
//! geometry remembered per thread.

use super::*;

/// The beasts' block for a move along `heading`: turned to face it about its centre when
/// the turn has room, else as it stands. A turn is free, but never through another unit,
/// so turning in place can never put the beasts into (or count as trampling) a unit they
/// already touch: only a move that goes into a unit makes contact.
///
/// `near` is the set of units (a bit each) that could overlap any turn of `here` (see
/// [`within_turning_reach`]): usually none, so most candidate headings cost no test.
pub(super) fn facing_for(states: &[UnitState], near: u32, here: &Block, heading: f64, dir: Vec2) -> Block {
    let turned = here.turned_along(heading, dir);
    let crowded = near != 0
        && states
            .iter()
            .enumerate()
            .any(|(i, st)| near & (1 << i) != 0 && st.block.as_ref().is_some_and(|other| turned.overlaps(other)));
    if crowded { *here } else { turned }
}

/// The units (a bit each) that the beasts at `here` could touch on a move of `length`
/// inches in any direction (turned any way): their bounding circles come within the move's
/// reach. A unit outside it fails every contact test's broad phase, so leaving it out of
/// the step's tests changes nothing but the time they take.
pub(super) fn within_move_reach(states: &[UnitState], beasts: usize, here: &Block, length: f64) -> u32 {
    let reach = board::circumradius(here) + length.max(0.0) + 1e-9;
    let mut among = 0u32;
    for (i, st) in states.iter().enumerate().take(32) {
        if i == beasts || st.figures == 0 {
            continue;
        }
        if let Some(other) = &st.block {
            let limit = reach + board::circumradius(other);
            let offset = other.centre - here.centre;
            if offset.dot(offset) <= limit * limit {
                among |= 1 << i;
            }
        }
    }
    among
}

/// The units (a bit each; the scenario allows at most 16) whose blocks come within reach
/// of `here` turned any way about its centre: their bounding circles meet its own.
pub(super) fn within_turning_reach(states: &[UnitState], beasts: usize, here: &Block) -> u32 {
    let reach = board::circumradius(here);
    let mut near = 0u32;
    for (i, st) in states.iter().enumerate().take(32) {
        if i == beasts || st.figures == 0 {
            continue;
        }
        if let Some(other) = &st.block {
            let d = (other.centre - here.centre).length();
            if d <= reach + board::circumradius(other) + 1e-9 {
                near |= 1 << i;
            }
        }
    }
    near
}

/// With `struck_unit_moves = "aside"`: the sideways way out of the beasts' path for the
/// rest of their move (across their heading `dir`), the shorter side first, when it is
/// no longer than the displacement and meets no other unit: (direction, distance).
pub(super) fn step_aside(
    states: &[UnitState],
    beasts: usize,
    struck: usize,
    beast_block: &Block,
    block: &Block,
    dir: Vec2,
    push: f64,
) -> Option<(Vec2, f64)> {
    let across = dir.right();
    let (cb, rb) = (beast_block.centre.dot(across), board::half_extent(beast_block, across));
    let (cu, ru) = (block.centre.dot(across), board::half_extent(block, across));
    let right = (cb + rb) - (cu - ru) + 1e-6;
    let left = (cu + ru) - (cb - rb) + 1e-6;
    let mut ways = [(across, right), (across.scale(-1.0), left)];
    ways.sort_by(|a, b| a.1.total_cmp(&b.1));
    ways.into_iter()
        .find(|&(way, d)| d < push && first_hit(states, u32::MAX, [struck, beasts], block, way, d).is_none())
}

/// The first unit among `among` (a bit each), other than those in `skip` and units gone,
/// that a block sliding along `dir` for `length` inches touches: (distance, unit).
pub(super) fn first_hit(
    states: &[UnitState],
    among: u32,
    skip: [usize; 2],
    block: &Block,
    dir: Vec2,
    length: f64,
) -> Option<(f64, usize)> {
    let mut best: Option<(f64, usize)> = None;
    for (i, st) in states.iter().enumerate() {
        if among & (1 << (i & 31)) == 0 || skip.contains(&i) || st.figures == 0 {
            continue;
        }
        let Some(other) = &st.block else { continue };
        if let Some(d) = board::first_contact(block, dir, length, other)
            && best.is_none_or(|(b, _)| d < b)
        {
            best = Some((d, i));
        }
    }
    best
}

/// Whether a block sliding along `dir` for `length` inches touches any unit among `among`
/// (a bit each; units gone never count). Tries the unit that blocked last time first:
/// neighbouring veer angles are usually blocked by the same unit.
pub(super) fn any_hit(
    states: &[UnitState],
    among: u32,
    block: &Block,
    dir: Vec2,
    length: f64,
    hint: &mut usize,
) -> bool {
    let blocks = |i: usize| {
        let st = &states[i];
        st.figures > 0
            && st.block.as_ref().is_some_and(|other| board::first_contact(block, dir, length, other).is_some())
    };
    if *hint < states.len() && among & (1 << (*hint & 31)) != 0 && blocks(*hint) {
        return true;
    }
    let mut rest = among & !(1u32.checked_shl(*hint as u32).unwrap_or(0));
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if i < states.len() && blocks(i) {
            *hint = i;
            return true;
        }
    }
    false
}

/// Marks every 1" cell of the path map that the segment `from`-`to` crosses (an exact grid
/// traversal: each cell whose interior or boundary the segment passes through, once per trial).
pub(super) fn mark_path(scratch: &mut Scratch, grid: (usize, usize), from: Vec2, to: Vec2) {
    for_each_cell_crossed(from, to, |col, row| {
        if col < 0 || row < 0 || col as usize >= grid.0 || row as usize >= grid.1 {
            return;
        }
        let cell = row as usize * grid.0 + col as usize;
        if scratch.stamp[cell] != scratch.generation {
            scratch.stamp[cell] = scratch.generation;
            scratch.cells.push(cell);
        }
    });
}

/// Visits the unit grid cells (column, row) whose interior a segment passes through, in order
/// (Amanatides and Woo's traversal): from the cell of `from`, stepping to whichever cell
/// boundary the segment meets next, to the cell of `to`. A cell the segment only grazes at
/// a corner, or only reaches at its end point on a boundary, is not crossed.
pub fn for_each_cell_crossed(from: Vec2, to: Vec2, mut visit: impl FnMut(i64, i64)) {
    let d = to - from;
    let length = d.length();
    if length < 1e-12 {
        visit(from.x.floor() as i64, from.y.floor() as i64);
        return;
    }
    // The cells the segment is inside just after it starts and just before it ends.
    let nudge = d.scale(1e-9 / length);
    let (start, end) = (from + nudge, to - nudge);
    let (mut col, mut row) = (start.x.floor() as i64, start.y.floor() as i64);
    let (end_col, end_row) = (end.x.floor() as i64, end.y.floor() as i64);
    let step = |v: f64| {
        if v > 0.0 {
            1
        } else if v < 0.0 {
            -1
        } else {
            0
        }
    };
    let (sx, sy) = (step(d.x), step(d.y));
    // The fraction of the segment at which it meets the next vertical / horizontal boundary.
    let next = |p: f64, c: i64, s: i64, dv: f64| match s {
        0 => f64::INFINITY,
        1 => ((c + 1) as f64 - p) / dv,
        _ => (c as f64 - p) / dv,
    };
    let (mut tx, mut ty) = (next(from.x, col, sx, d.x), next(from.y, row, sy, d.y));
    let (dtx, dty) = (1.0 / d.x.abs(), 1.0 / d.y.abs());
    visit(col, row);
    let steps = (end_col - col).unsigned_abs() + (end_row - row).unsigned_abs();
    for _ in 0..steps {
        if (col, row) == (end_col, end_row) {
            break;
        }
        if (tx - ty).abs() < 1e-12 {
            // Through a corner: straight into the diagonal cell.
            col += sx;
            row += sy;
            tx += dtx;
            ty += dty;
        } else if tx < ty {
            col += sx;
            tx += dtx;
        } else {
            row += sy;
            ty += dty;
        }
        visit(col, row);
    }
}

/// [`for_each_cell_crossed`] as a list, in order.
pub fn cells_crossed(from: Vec2, to: Vec2) -> Vec<(i64, i64)> {
    let mut cells = Vec::new();
    for_each_cell_crossed(from, to, |c, r| cells.push((c, r)));
    cells
}

/// Where the beasts go next, which depends on the board alone (no dice): the heading
/// taken after veering, its unit vector, the beasts' block turned to it, where the move
/// leaves the board and the first unit it meets (distance, unit).
#[derive(Clone, Copy, Debug)]
pub(super) struct RoutStep {
    heading: f64,
    veer: f64,
    dir: Vec2,
    turned: Block,
    exit: Option<f64>,
    hit: Option<(f64, usize)>,
}

/// The beasts' next move from `here` along the clock `line` with `remaining` inches to go,
/// the other units standing as in `states`: the smallest veer (clockwise first, within the
/// allowance) whose whole move is clear, or with `veer = "avoid_what_it_can"` the one that
/// meets only the unit it cannot avoid; then the turn (if it has room), the move and what it
/// meets.
pub(super) fn rout_step(
    plan: &BattlesystemPlan,
    states: &[UnitState],
    beasts: usize,
    here: Block,
    line: f64,
    remaining: f64,
) -> RoutStep {
    let rules = &plan.scenario.rules;
    let [width, depth] = plan.scenario.board;
    let near = within_turning_reach(states, beasts, &here);
    let among = within_move_reach(states, beasts, &here, remaining);
    // Veer: the smallest turn off the line (clockwise first) whose whole move is clear.
    let mut hint = usize::MAX;
    let mut clear_within = |heading: f64| {
        let dir = board::heading_vector(heading);
        let turned = facing_for(states, near, &here, heading, dir);
        let reach = board::leaves_board(turned.centre, dir, remaining, width, depth).unwrap_or(remaining);
        !any_hit(states, among, &turned, dir, reach, &mut hint)
    };
    let mut chosen = (line, 0.0);
    let mut clear = true;
    let steps = (rules.veer_degrees / rules.veer_step_degrees + 1e-9).floor() as i32;
    let offsets = || (1..=steps).flat_map(|k| [1.0, -1.0].map(|sign| sign * f64::from(k) * rules.veer_step_degrees));
    if !clear_within(line) {
        match offsets().find(|&off| clear_within(line + off)) {
            Some(off) => chosen = (line + off, off),
            None => {
                clear = false;
                if rules.veer == Veer::AvoidWhatItCan {
                    // Nothing clears the whole move. The unit met farthest away, over every
                    // heading within the allowance, is the one it cannot avoid; take the
                    // smallest turn (clockwise first) whose first contact is that unit,
                    // veering round every nearer one it can.
                    let first_met = |heading: f64| {
                        let dir = board::heading_vector(heading);
                        let turned = facing_for(states, near, &here, heading, dir);
                        first_hit(states, among, [beasts, beasts], &turned, dir, remaining)
                    };
                    let candidates: Vec<(f64, Option<(f64, usize)>)> =
                        std::iter::once(0.0).chain(offsets()).map(|off| (off, first_met(line + off))).collect();
                    let unavoidable = candidates
                        .iter()
                        .filter_map(|c| c.1)
                        .fold(
                            None,
                            |best: Option<(f64, usize)>, h| {
                                if best.is_none_or(|b| h.0 > b.0 + 1e-9) { Some(h) } else { best }
                            },
                        )
                        .map(|h| h.1);
                    if let Some(off) = candidates.iter().find(|c| c.1.map(|h| h.1) == unavoidable).map(|c| c.0) {
                        chosen = (line + off, off);
                    }
                }
            }
        }
    }
    let (heading, veer) = chosen;
    let heading = heading.rem_euclid(360.0);
    let dir = board::heading_vector(heading);
    let turned = facing_for(states, near, &here, heading, dir);
    let exit = board::leaves_board(turned.centre, dir, remaining, width, depth);
    // A heading found clear meets nothing: no need to look again.
    let hit =
        if clear { None } else { first_hit(states, among, [beasts, beasts], &turned, dir, exit.unwrap_or(remaining)) };
    RoutStep { heading, veer, dir, turned, exit, hit }
}

/// Rout steps already worked out in this thread, keyed by everything [`rout_step`] reads
/// that changes between trials: the beasts' block and line, the distance left and where
/// every other unit stands (or that it is gone). Trials retrace the same few boards over
/// and over (twelve first headings, a handful of morale results), so most steps are found
/// here instead of being recomputed; a step found is exactly the step computed.
#[derive(Clone, Debug, Default)]
pub(super) struct StepMemo {
    pub(super) steps: std::collections::HashMap<Box<[u64]>, RoutStep, std::hash::BuildHasherDefault<WordHasher>>,
    key: Vec<u64>,
}

/// The most steps a thread remembers (about 300 bytes each for the largest boards); when
/// full the memo starts again.
const MAX_REMEMBERED_STEPS: usize = 1 << 15;

impl StepMemo {
    fn step(
        &mut self,
        plan: &BattlesystemPlan,
        states: &[UnitState],
        beasts: usize,
        here: Block,
        line: f64,
        remaining: f64,
    ) -> RoutStep {
        self.key.clear();
        self.key.extend([here.centre.x, here.centre.y, here.facing, line, remaining].map(f64::to_bits));
        for (i, st) in states.iter().enumerate() {
            match st.block.filter(|_| i != beasts && st.figures > 0) {
                Some(b) => self.key.extend([b.centre.x.to_bits(), b.centre.y.to_bits()]),
                None => self.key.extend([u64::MAX, u64::MAX]),
            }
        }
        if let Some(step) = self.steps.get(&self.key[..]) {
            return *step;
        }
        let step = rout_step(plan, states, beasts, here, line, remaining);
        if self.steps.len() >= MAX_REMEMBERED_STEPS {
            self.steps.clear();
        }
        self.steps.insert(self.key.clone().into_boxed_slice(), step);
        step
    }
}

/// A fast hasher for the memo's keys (words of float bits, not attacker-controlled).
#[derive(Default)]
pub(super) struct WordHasher(u64);

impl std::hash::Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

pub(super) fn rout(
    plan: &BattlesystemPlan,
    s: &RoutSlots,
    beasts: usize,
    first_hour: Option<u32>,
    scratch: &mut Scratch,
    dice: &mut Dice,
    trace: &mut Option<Vec<BattlesystemEvent>>,
) {
    let sc = &plan.scenario;
    let rules = &sc.rules;
    let [width, depth] = sc.board;
    if scratch.stamp.len() != plan.grid.0 * plan.grid.1 {
        scratch.stamp = vec![0; plan.grid.0 * plan.grid.1];
        scratch.generation = 0;
    }
    scratch.generation += 1;
    let hour = first_hour.unwrap_or_else(|| die(12, dice));
    if let Some(t) = trace {
        t.push(BattlesystemEvent::Heading { hour, reroll: false });
    }
    let mut values = std::mem::take(&mut scratch.values);
    values[s.heading] = hour as u16;
    let mut line = clock_heading(hour);
    let mut remaining = sc.rout_distance(beasts);
    let (mut moved, mut rerolls, mut contacts) = (0.0, 0u32, 0u32);
    let mut off_board_units = 0u32;
    let start = scratch.states[beasts].block.map_or(sc.units[beasts].block.centre, |b| b.centre);
    mark_path(scratch, plan.grid, start, start);
    loop {
        if remaining <= 1e-9 || scratch.states[beasts].figures == 0 {
            break;
        }
        let here = scratch.states[beasts].block.unwrap_or(sc.units[beasts].block);
        let RoutStep { heading, veer, dir, turned, exit, hit } =
            scratch.steps.step(plan, &scratch.states, beasts, here, line, remaining);
        let go = match (hit, exit) {
            (Some((d, _)), _) => d,
            (None, Some(e)) => e,
            (None, None) => remaining,
        };
        let moved_block = turned.moved(dir.scale(go));
        mark_path(scratch, plan.grid, turned.centre, moved_block.centre);
        scratch.states[beasts].block = Some(moved_block);
        moved += go;
        remaining -= go;
        if let Some(t) = trace {
            t.push(BattlesystemEvent::Move {
                heading,
                veer,
                distance: go,
                to: [moved_block.centre.x, moved_block.centre.y],
            });
        }
        let Some((_, struck)) = hit else {
            if exit.is_some() {
                values[s.left_board] = 1;
                scratch.states[beasts].block = None;
                if let Some(t) = trace {
                    t.push(BattlesystemEvent::LeftBoard);
                }
            }
            break;
        };
        contacts += 1;
        scratch.states[struck].contacted = true;
        if let Some(t) = trace {
            let into = scratch.states[struck].block.map_or(0.0, |b| dir.dot(board::contact_face(&moved_block, &b)));
            t.push(BattlesystemEvent::Contact { unit: struck, into });
        }
        let (beast_losses, struck_losses) = melee(plan, &mut scratch.states, beasts, struck, false, dice, trace);
        scratch.states[beasts].lost += beast_losses.figures;
        scratch.states[struck].lost += struck_losses.figures;
        if scratch.states[beasts].figures == 0 {
            break;
        }
        let mut blocking = false;
        if scratch.states[struck].figures > 0 {
            let push = match morale(plan, struck, dice, trace) {
                MoraleResult::Held => 0.0,
                MoraleResult::FellBack => f64::from(rules.morale.fall_back_inches),
                MoraleResult::Routed => sc.rout_distance(struck),
            };
            let mut off_board = false;
            let mut pushed = 0.0;
            let mut gap_before = 0.0;
            if push > 0.0 {
                scratch.states[struck].displaced = true;
                // Pushed away from the beasts: along the heading of the move that struck it
                // (which went into it, so the gap between them can only grow), stopping
                // short of other units; or, with struck_unit_moves = "aside", sideways out of
                // their path when that is shorter and clear.
                let block = scratch.states[struck].block.unwrap_or(sc.units[struck].block);
                gap_before = board::separation(&moved_block, &block);
                let aside = (rules.struck_unit_moves == StruckUnitMoves::Aside)
                    .then(|| step_aside(&scratch.states, beasts, struck, &moved_block, &block, dir, push))
                    .flatten();
                let (way, mut room) = match aside {
                    Some(a) => a,
                    None => (
                        dir,
                        first_hit(&scratch.states, u32::MAX, [struck, beasts], &block, dir, push)
                            .map_or(push, |(d, _)| d),
                    ),
                };
                if let Some(e) = board::leaves_board(block.centre, way, room, width, depth) {
                    room = e;
                    off_board = true;
                }
                pushed = room;
                scratch.states[struck].block = if off_board { None } else { Some(block.moved(way.scale(room))) };
                if off_board {
                    // A unit that leaves the board is lost: its figures count as lost.
                    off_board_units += 1;
                    let st = &mut scratch.states[struck];
                    st.lost += st.figures;
                    st.figures = 0;
                }
            }
            blocking = scratch.states[struck]
                .block
                .is_some_and(|b| board::first_contact(&moved_block, dir, remaining.max(1e-6), &b).is_some());
            if let Some(t) = trace
                && push > 0.0
            {
                let gap_after = scratch.states[struck].block.map(|b| board::separation(&moved_block, &b));
                t.push(BattlesystemEvent::Displaced {
                    unit: struck,
                    distance: pushed,
                    off_board,
                    still_blocking: blocking,
                    gap_before,
                    gap_after,
                });
            }
        }
        if contacts >= MAX_CONTACTS {
            values[s.stopped] = 1;
            break;
        }
        if blocking {
            if rerolls >= rules.max_rerolls {
                values[s.stopped] = 1;
                if let Some(t) = trace {
                    t.push(BattlesystemEvent::Stopped);
                }
                break;
            }
            rerolls += 1;
            let hour = die(12, dice);
            if let Some(t) = trace {
                t.push(BattlesystemEvent::Heading { hour, reroll: true });
            }
            line = clock_heading(hour);
        } else {
            line = heading;
        }
    }
    if let Some(t) = trace {
        t.push(BattlesystemEvent::Finished {
            blocks: scratch.states.iter().map(|st| st.block.filter(|_| st.figures > 0)).collect(),
        });
    }
    values[s.rerolls] = to_u16(rerolls);
    values[s.contacts] = to_u16(contacts);
    let states = &scratch.states;
    values[s.units_contacted] = to_u16(states.iter().filter(|u| u.contacted).count() as u32);
    values[s.beasts_figures_lost] = to_u16(states[beasts].lost);
    values[s.beasts_destroyed] = u16::from(states[beasts].figures == 0);
    values[s.distance] = to_u16(moved.floor() as u32);
    values[s.units_off_board] = to_u16(off_board_units);
    let side = sc.units[beasts].side;
    let (mut friendly, mut enemy) = (0, 0);
    for (i, u) in sc.units.iter().enumerate().filter(|(i, _)| *i != beasts) {
        let st = &states[i];
        if u.side == side {
            friendly += st.lost;
        } else {
            enemy += st.lost;
        }
        let [c, l, d] = s.per_unit[i];
        values[c] = u16::from(st.contacted);
        values[l] = to_u16(st.lost);
        values[d] = u16::from(st.displaced);
    }
    values[s.friendly_figures_lost] = to_u16(friendly);
    values[s.enemy_figures_lost] = to_u16(enemy);
    scratch.values = values;
}
