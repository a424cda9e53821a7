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
        let Some(cell) = grid_cell(grid, col, row) else { return };
        if scratch.stamp[cell] != scratch.generation {
            scratch.stamp[cell] = scratch.generation;
            scratch.cells.push(cell);
        }
    });
}

/// The path map's index of cell (column, row) of a grid of (columns, rows), if it is on
/// the map.
fn grid_cell(grid: (usize, usize), col: i64, row: i64) -> Option<usize> {
    let (col, row) = (usize::try_from(col).ok()?, usize::try_from(row).ok()?);
    (col < grid.0 && row < grid.1).then_some(row * grid.0 + col)
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
    /// Other units (a bit each) the move touches at the same instant as `hit`'s: the
    /// beasts fight each of them too.
    also: u32,
}

/// Contacts this close along a move (inches) happen at the same instant.
const SAME_INSTANT: f64 = 1e-6;

impl RoutStep {
    /// How far the beasts go on this step: to the unit they meet, else to the board's edge,
    /// else the whole of what is left.
    fn distance(&self, remaining: f64) -> f64 {
        match (self.hit, self.exit) {
            (Some((d, _)), _) => d,
            (None, Some(e)) => e,
            (None, None) => remaining,
        }
    }
}

/// A rout step with what follows from it alone, worked out once for every trial that
/// takes it: how far the beasts go, where they end, the path map cells their centre
/// crosses (a range of [`StepMemo::cells`]) and, on a hit, the struck unit's figures facing
/// them (before its losses).
#[derive(Clone, Copy, Debug)]
pub(super) struct CompiledStep {
    step: RoutStep,
    go: f64,
    moved: Block,
    cells: (u32, u32),
    /// On a hit: (the beasts' figures facing the struck unit, its figures facing them).
    facing: Option<(u32, u32)>,
    /// On a hit, where the struck unit ends for each morale result (held, fell back,
    /// routed), should it survive the melee.
    after: Option<[Displacement; 3]>,
}

/// Where a struck unit ends after its morale result, and whether it still blocks the
/// beasts: geometry only, given the result.
#[derive(Clone, Copy, Debug)]
pub(super) struct Displacement {
    /// Its block afterwards (`None`: pushed off the board).
    block: Option<Block>,
    /// How far it was pushed (`None`: it held).
    pushed: Option<f64>,
    /// Whether the push took it off the board.
    off_board: bool,
    /// Whether it still stands in the beasts' way for the rest of their move.
    blocking: bool,
}

/// Where the unit `struck` goes after morale `result`, the beasts standing at `moved`
/// after a move along `dir` with `remaining` inches left: pushed away from them along
/// `dir` (which went into it, so the gap between them can only grow), stopping short of
/// other units; or, with struck_unit_moves = "aside", sideways out of their path when
/// that is shorter and clear. A unit pushed off the board leaves it.
#[allow(clippy::too_many_arguments)]
pub(super) fn displacement(
    plan: &BattlesystemPlan,
    states: &[UnitState],
    beasts: usize,
    struck: usize,
    moved: &Block,
    dir: Vec2,
    result: MoraleResult,
    remaining: f64,
) -> Displacement {
    let sc = &plan.scenario;
    let [width, depth] = sc.board;
    let block = states[struck].block.unwrap_or(sc.units[struck].block);
    let push = match result {
        MoraleResult::Held => 0.0,
        MoraleResult::FellBack => f64::from(sc.rules.morale.fall_back_inches),
        MoraleResult::Routed => sc.rout_distance(struck),
    };
    let (after, pushed, off_board) = if push > 0.0 {
        let aside = (sc.rules.struck_unit_moves == StruckUnitMoves::Aside)
            .then(|| step_aside(states, beasts, struck, moved, &block, dir, push))
            .flatten();
        let (way, mut room) = match aside {
            Some(a) => a,
            None => (dir, first_hit(states, u32::MAX, [struck, beasts], &block, dir, push).map_or(push, |(d, _)| d)),
        };
        let mut off_board = false;
        if let Some(e) = board::leaves_board(block.centre, way, room, width, depth) {
            room = e;
            off_board = true;
        }
        let after = if off_board { None } else { Some(block.moved(way.scale(room))) };
        (after, Some(room), off_board)
    } else {
        (Some(block), None, false)
    };
    let blocking = after.is_some_and(|b| board::first_contact(moved, dir, remaining.max(1e-6), &b).is_some());
    Displacement { block: after, pushed, off_board, blocking }
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
    let reach = exit.unwrap_or(remaining);
    let hit = if clear { None } else { first_hit(states, among, [beasts, beasts], &turned, dir, reach) };
    let mut also = 0u32;
    if let Some((d, first)) = hit {
        for (i, st) in states.iter().enumerate().take(32) {
            if i == beasts || i == first || st.figures == 0 || among & (1 << i) == 0 {
                continue;
            }
            if st
                .block
                .and_then(|b| board::first_contact(&turned, dir, reach, &b))
                .is_some_and(|e| e <= d + SAME_INSTANT)
            {
                also |= 1 << i;
            }
        }
    }
    RoutStep { heading, veer, dir, turned, exit, hit, also }
}

/// Rout steps this thread has met, as a graph (the steps themselves are worked out once
/// per plan and shared by the threads: [`SharedSteps`]). Each board state a rout
/// meets (everything [`rout_step`] reads that changes between trials: the beasts' block
/// and line, the distance left, where every other unit stands or that it is gone) is a
/// node, numbered the first time it is met and holding its compiled step. A node leads to
/// the next by what the dice did ([`turn_of`]: the struck unit destroyed, or its morale
/// result, and the line the beasts take next), so after the first trials a rout walks
/// from node to node by number, looking nothing up by its board. Trials retrace the same
/// few boards over and over (twelve first headings, a handful of morale results); a step
/// found is exactly the step computed (`tests/rules/compiled_rout.rs`).
#[derive(Clone, Debug)]
pub(super) struct StepMemo {
    /// Each board state met, by its key: its node.
    index: std::collections::HashMap<Box<[u64]>, u32, std::hash::BuildHasherDefault<WordHasher>>,
    /// Each node's compiled step.
    pub(super) nodes: Vec<CompiledStep>,
    /// What a trial's walk reads of each node at every step, packed apart from the rest
    /// of its compiled step (by node, as `nodes`): a run revisits thousands of nodes, and
    /// the walk's few bytes of each stay in the cache where whole steps would not.
    hot: Vec<HotStep>,
    /// Each node's path map cells, a range of `cells` (by node, as `nodes`): read for every
    /// walk a block counts, so kept apart from the whole steps.
    ranges: Vec<(u32, u32)>,
    /// Where each node leads, by turn: the node's own few slots from its
    /// [`HotStep::links`] ([`HotStep::slot_of`]), `u32::MAX` while not yet seen.
    next: Vec<u32>,
    /// The first node of a rout by its first hour (1 to 12).
    roots: [u32; 13],
    key: Vec<u64>,
    /// The path map cells of every node, each node's a range.
    cells: Vec<usize>,
    /// Whether to remember at all (tests compare a run that works out every step afresh).
    pub(super) remember: bool,
    /// The most nodes kept before the memo starts again ([`MAX_REMEMBERED_STEPS`]; tests
    /// lower it to make it start again often).
    pub(super) capacity: usize,
    /// The plan the nodes belong to ([`BattlesystemPlan::id`]): another plan starts afresh.
    plan: u64,
    /// The walks through these nodes that trials took, counted for the path map.
    pub(super) walks: WalkCounter,
}

impl Default for StepMemo {
    fn default() -> Self {
        Self {
            index: Default::default(),
            nodes: Vec::new(),
            hot: Vec::new(),
            ranges: Vec::new(),
            next: Vec::new(),
            roots: [u32::MAX; 13],
            key: Vec::new(),
            cells: Vec::new(),
            remember: true,
            capacity: MAX_REMEMBERED_STEPS,
            plan: 0,
            walks: WalkCounter::default(),
        }
    }
}

/// Every rout step worked out for one plan, by its board key, shared by the threads that
/// play it: a thread meeting a board state its own graph lacks takes the step from here
/// when another thread (or an earlier run of the same plan: a sweep's batches, `--target-ci`
/// doublings) worked it out, and works it out and leaves it here otherwise. Each thread
/// still numbers and links the nodes it met in its own [`StepMemo`], so a trial's walk
/// takes no lock; the lock is taken only the first time a thread meets a board state.
#[derive(Debug, Default)]
pub(crate) struct SharedSteps {
    steps:
        std::sync::RwLock<std::collections::HashMap<Box<[u64]>, SharedStep, std::hash::BuildHasherDefault<WordHasher>>>,
    /// How many steps any thread worked out (not taken from here): the tests' check that
    /// a step is worked out once.
    worked_out: std::sync::atomic::AtomicUsize,
}

/// A step as [`SharedSteps`] keeps it: the compiled step and its path map cells (its own
/// `cells` range means nothing outside the thread that compiled it).
#[derive(Debug)]
struct SharedStep {
    step: CompiledStep,
    cells: Box<[usize]>,
}

impl SharedSteps {
    /// The step of board state `key`, copied into a thread's memo (its cells pushed onto
    /// `cells`), if some thread worked it out.
    fn take(&self, key: &[u64], cells: &mut Vec<usize>) -> Option<CompiledStep> {
        // A poisoned lock (a thread panicked while holding it) only costs the sharing.
        let steps = self.steps.read().ok()?;
        let shared = steps.get(key)?;
        let first = cells.len() as u32;
        cells.extend_from_slice(&shared.cells);
        Some(CompiledStep { cells: (first, cells.len() as u32), ..shared.step })
    }

    /// Leaves a step just worked out for the other threads (up to
    /// [`MAX_REMEMBERED_STEPS`] steps; later ones each thread works out for itself).
    fn leave(&self, key: &[u64], step: &CompiledStep, cells: &[usize]) {
        if let Ok(mut steps) = self.steps.write()
            && steps.len() < MAX_REMEMBERED_STEPS
        {
            steps.entry(key.into()).or_insert_with(|| SharedStep { step: *step, cells: cells.into() });
        }
    }

    /// How many steps threads have worked out for this plan so far (each step once, while
    /// the store has room).
    #[cfg(test)]
    pub(crate) fn worked_out(&self) -> usize {
        self.worked_out.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// The most nodes a thread remembers (a few hundred bytes each); when full the memo
/// starts again at the next trial.
const MAX_REMEMBERED_STEPS: usize = 1 << 15;

/// A turn the graph does not record (a step that met several units at once): the next
/// node is found by its board.
const UNLINKED: usize = usize::MAX;

/// The turn a rout takes after a step: `outcome` 0 (no hit), 1 (the struck unit was
/// destroyed in the melee) or 2 + its morale result; `reroll` the hour re-rolled, if any.
fn turn_of(outcome: usize, reroll: Option<u32>) -> usize {
    outcome * 13 + reroll.map_or(0, |h| h as usize)
}

impl StepMemo {
    /// Readies the memo for a trial of `plan`: another plan's nodes, or too many, are
    /// forgotten (never during a trial, whose node numbers must hold).
    fn begin_trial(&mut self, plan: &BattlesystemPlan) {
        let id = plan.id;
        if self.will_forget(plan) {
            self.index.clear();
            self.nodes.clear();
            self.hot.clear();
            self.ranges.clear();
            self.next.clear();
            self.cells.clear();
            self.roots = [u32::MAX; 13];
            self.plan = id;
        }
    }

    /// Whether the next trial of `plan` starts the memo again, forgetting every node (and
    /// so every walk numbered by them: see [`WalkCounter`]).
    pub(super) fn will_forget(&self, plan: &BattlesystemPlan) -> bool {
        self.plan != plan.id || self.nodes.len() >= self.capacity
    }

    /// The node of the board state given, found by its key or compiled now.
    fn node_for(
        &mut self,
        plan: &BattlesystemPlan,
        states: &[UnitState],
        beasts: usize,
        here: Block,
        line: f64,
        remaining: f64,
    ) -> u32 {
        self.key.clear();
        self.key.extend([here.centre.x, here.centre.y, here.facing, line, remaining].map(f64::to_bits));
        for (i, st) in states.iter().enumerate() {
            match st.block.filter(|_| i != beasts && st.figures > 0) {
                Some(b) => self.key.extend([b.centre.x.to_bits(), b.centre.y.to_bits()]),
                None => self.key.extend([u64::MAX, u64::MAX]),
            }
        }
        if let Some(&node) = self.index.get(&self.key[..]) {
            return node;
        }
        let step = self.new_step(plan, states, beasts, here, line, remaining);
        let node = self.nodes.len() as u32;
        let mut hot = HotStep::of(&step);
        hot.links = self.next.len() as u32;
        self.next.extend(std::iter::repeat_n(u32::MAX, hot.slot_count()));
        self.hot.push(hot);
        self.ranges.push(step.cells);
        self.nodes.push(step);
        self.index.insert(self.key.clone().into_boxed_slice(), node);
        node
    }

    /// The step of a board state this thread meets for the first time (its key in
    /// `self.key`): taken from the plan's shared store, or worked out and left there.
    /// (Out of line: the trials' walk from node to node stays small.)
    #[inline(never)]
    #[cold]
    fn new_step(
        &mut self,
        plan: &BattlesystemPlan,
        states: &[UnitState],
        beasts: usize,
        here: Block,
        line: f64,
        remaining: f64,
    ) -> CompiledStep {
        if let Some(step) = plan.steps.take(&self.key, &mut self.cells) {
            return step;
        }
        plan.steps.worked_out.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let step = compile_step(plan, states, beasts, here, line, remaining, &mut self.cells);
        plan.steps.leave(&self.key, &step, &self.cells[step.cells.0 as usize..step.cells.1 as usize]);
        step
    }

    /// The node a turn from `node` leads to, if it was seen before.
    fn follow(&self, node: u32, turn: usize) -> Option<u32> {
        let hot = &self.hot[node as usize];
        hot.slot_of(turn).map(|slot| self.next[slot]).filter(|&n| n != u32::MAX)
    }

    /// Records that a turn from `node` leads to `to`.
    fn link(&mut self, node: u32, turn: usize, to: u32) {
        let slot = self.hot[node as usize].slot_of(turn);
        debug_assert!(slot.is_some(), "turn {turn} from a step whose outcomes did not foresee it");
        if let Some(slot) = slot {
            self.next[slot] = to;
        }
    }

    /// The path map cells of a node's step.
    fn cells_of(&self, cells: (u32, u32)) -> &[usize] {
        &self.cells[cells.0 as usize..cells.1 as usize]
    }
}

/// The part of a [`CompiledStep`] a trial's walk reads at every step (see
/// [`StepMemo::hot`]), in 32 bytes so that two share a cache line and a run's thousands
/// stay in the cache; the rest (where the beasts end, the heading and veer for a replay,
/// where a pushed unit goes) is read from the whole step only when needed.
#[derive(Clone, Copy, Debug)]
struct HotStep {
    /// How far the beasts go.
    go: f64,
    /// The node's first slot in [`StepMemo::next`].
    links: u32,
    /// Other units met at the same instant, a bit each.
    also: u32,
    /// On a hit: (the beasts' figures facing the struck unit, its figures facing them);
    /// [`NO_FACING`] when not worked out.
    facing: (u16, u16),
    /// The unit met first ([`NOT_STRUCK`]: none).
    struck: u8,
    /// Whether the move ends at the board's edge.
    exits: bool,
    /// On a hit, for each morale result `r` (held, fell back, routed): bit `r` whether the
    /// struck unit still blocks, bit `3 + r` whether it was pushed; bit [`AFTER_KNOWN`]
    /// whether these were worked out at all.
    after: u8,
    /// Each outcome's slots after the node's first ([`HotStep::slot_of`]), for outcomes 1
    /// to 4 (a step that met nothing leads nowhere).
    slots: [u8; 4],
}

/// [`HotStep::facing`] not worked out.
const NO_FACING: (u16, u16) = (u16::MAX, u16::MAX);
/// [`HotStep::struck`] when the step met nothing.
const NOT_STRUCK: u8 = u8::MAX;
/// The bit of [`HotStep::after`] saying its other bits were worked out.
const AFTER_KNOWN: u8 = 1 << 6;
// Facing figures and unit numbers fit the hot step's small fields.
const _: () = assert!(super::super::scenario::MAX_FIGURES < u16::MAX as i64);
const _: () = assert!(super::super::scenario::MAX_UNITS < NOT_STRUCK as usize);

/// An outcome a step cannot lead on from: no slot.
const NO_SLOT: u8 = u8::MAX;
/// Marks an outcome whose slots are twelve, one per hour re-rolled (the struck unit
/// still stands in the way); else it has one, the line kept.
const HOURLY: u8 = 0x80;

impl HotStep {
    fn of(step: &CompiledStep) -> Self {
        let after = step.after.map_or(0, |after| {
            after.iter().enumerate().fold(AFTER_KNOWN, |bits, (r, d)| {
                bits | (u8::from(d.blocking) << r) | (u8::from(d.pushed.is_some()) << (3 + r))
            })
        });
        Self {
            go: step.go,
            links: 0,
            also: step.step.also,
            facing: step.facing.map_or(NO_FACING, |(a, d)| (a as u16, d as u16)),
            struck: step.step.hit.map_or(NOT_STRUCK, |(_, unit)| unit as u8),
            exits: step.step.exit.is_some(),
            after,
            slots: Self::slots(step),
        }
    }

    /// On a hit, the facing figures worked out with the step.
    fn facing(&self) -> Option<(u32, u32)> {
        (self.facing != NO_FACING).then(|| (u32::from(self.facing.0), u32::from(self.facing.1)))
    }

    /// For morale result `result`, whether the struck unit stays where it stood, and
    /// whether it still blocks the beasts; `None` when not worked out.
    fn after(&self, result: usize) -> Option<(bool, bool)> {
        (self.after & AFTER_KNOWN != 0)
            .then(|| (self.after & (1 << (3 + result)) == 0, self.after & (1 << result) != 0))
    }

    /// Where a step can lead on, by outcome (see [`turn_of`]), as the walk goes: a step
    /// that met nothing ends the rout; a struck unit destroyed leaves the way clear, so
    /// the line is kept; one that survives is re-rolled round (an hour each) when its
    /// morale result leaves it in the way, else passed with the line kept. A node keeps
    /// these few links (about fifteen) rather than one for every outcome and hour (65);
    /// a turn with no slot is simply not linked (its next node is found by its board).
    fn slots(step: &CompiledStep) -> [u8; 4] {
        let mut slots = [NO_SLOT; 4];
        let Some(after) = step.step.hit.and(step.after) else { return slots };
        let mut at = 0u8;
        for (k, slot) in slots.iter_mut().enumerate() {
            let outcome = k + 1;
            let hourly = outcome >= 2 && after[outcome - 2].blocking;
            *slot = at | if hourly { HOURLY } else { 0 };
            at += if hourly { 12 } else { 1 };
        }
        slots
    }

    /// How many slots the node keeps in [`StepMemo::next`].
    fn slot_count(&self) -> usize {
        self.slots.iter().filter(|&&s| s != NO_SLOT).map(|&s| if s & HOURLY != 0 { 12 } else { 1 }).sum()
    }

    /// The slot in [`StepMemo::next`] of a turn from this node ([`turn_of`]), if it has one.
    fn slot_of(&self, turn: usize) -> Option<usize> {
        let (outcome, hour) = (turn / 13, turn % 13);
        let slot = *self.slots.get(outcome.checked_sub(1)?)?;
        let first = self.links as usize + usize::from(slot & !HOURLY);
        match (slot, hour) {
            (NO_SLOT, _) => None,
            (s, 0) if s & HOURLY == 0 => Some(first),
            (s, h) if s & HOURLY != 0 && h > 0 => Some(first + h - 1),
            _ => None,
        }
    }
}

/// [`rout_step`] and what follows from it alone (see [`CompiledStep`]), its cells pushed
/// onto `cells`.
fn compile_step(
    plan: &BattlesystemPlan,
    states: &[UnitState],
    beasts: usize,
    here: Block,
    line: f64,
    remaining: f64,
    cells: &mut Vec<usize>,
) -> CompiledStep {
    let step = rout_step(plan, states, beasts, here, line, remaining);
    let go = step.distance(remaining);
    let moved = step.turned.moved(step.dir.scale(go));
    let first = cells.len() as u32;
    let grid = plan.grid;
    for_each_cell_crossed(step.turned.centre, moved.centre, |col, row| cells.extend(grid_cell(grid, col, row)));
    let facing = step.hit.and_then(|(_, struck)| {
        let block = states[struck].block?;
        let units = &plan.scenario.units;
        Some((
            fight::defenders_facing(&units[beasts], &moved, &block),
            fight::defenders_facing(&units[struck], &block, &moved),
        ))
    });
    let left = remaining - go;
    let after = step.hit.map(|(_, struck)| {
        [MoraleResult::Held, MoraleResult::FellBack, MoraleResult::Routed]
            .map(|result| displacement(plan, states, beasts, struck, &moved, step.dir, result, left))
    });
    CompiledStep { step, go, moved, cells: (first, cells.len() as u32), facing, after }
}

/// A unit's bit in [`Scratch::touched`] (a unit past the 64th: every bit, so all reset).
pub(super) fn unit_bit(unit: usize) -> u64 {
    1u64.checked_shl(unit as u32).unwrap_or(u64::MAX)
}

/// The units of a set (a bit each), in their order in the file.
pub(super) fn units_of(set: impl Into<u64>) -> impl Iterator<Item = usize> {
    let mut left: u64 = set.into();
    std::iter::from_fn(move || {
        let unit = (left != 0).then(|| left.trailing_zeros() as usize)?;
        left &= left - 1;
        Some(unit)
    })
}

/// The whole step the walk stands on (for what it reads only now and then): worked out
/// afresh, or the memo's node.
fn whole_step<'a>(fresh: &'a Option<CompiledStep>, steps: &'a StepMemo, node: u32) -> &'a CompiledStep {
    fresh.as_ref().unwrap_or_else(|| &steps.nodes[node as usize])
}

/// Writes the beasts' block into `states` when the walk left it pending at node `pending`
/// (see `rout`): after a trial untraced, `states` may hold where the beasts stood before
/// their last step, a trial's values being worked out without it.
fn settle_beasts(states: &mut [UnitState], steps: &StepMemo, beasts: usize, pending: &mut Option<u32>) {
    if let Some(id) = pending.take() {
        states[beasts].block = Some(steps.nodes[id as usize].moved);
    }
}

/// Where the routing beasts' centre stands as the rout begins: the first cell of its path.
fn rout_start(plan: &BattlesystemPlan, states: &[UnitState], beasts: usize) -> Vec2 {
    states[beasts].block.map_or(plan.scenario.units[beasts].block.centre, |b| b.centre)
}

/// Counts a block's trials by their walk (the memo's nodes, in order) for the path map:
/// a walk's cells follow from its nodes alone, and trials retrace a few thousand walks
/// (about 5,200 in a block of 32,768 trials of the routing example), so each walk's cells
/// are marked once, for all the trials that took it, instead of once per trial. Walks are
/// kept by value (most are short: no allocation, and a block's table stays in the cache),
/// and the table keeps its room from block to block. The counts must reach the tally
/// ([`StepMemo::drain_walks_into`]) before the memo forgets the nodes they are numbered by
/// ([`StepMemo::will_forget`]).
#[derive(Clone, Debug)]
pub(super) struct WalkCounter {
    /// Trials per walk of at most [`WalkCounter::inline`] nodes ([`ShortWalk`]: the nodes numbered below 65,536).
    short: std::collections::HashMap<ShortWalk, u64, std::hash::BuildHasherDefault<WordHasher>>,
    /// Trials per other walk.
    long: std::collections::HashMap<Box<[u32]>, u64, std::hash::BuildHasherDefault<WordHasher>>,
    /// The longest walk kept by value ([`SHORT_WALK`]; tests lower it to send every walk
    /// the long way).
    pub(super) inline: usize,
}

/// The most nodes of a walk kept by value.
const SHORT_WALK: usize = 7;

/// A walk of at most [`SHORT_WALK`] nodes numbered below 65,536 (the memo keeps at most
/// [`MAX_REMEMBERED_STEPS`]), by value in two words of four 16-bit lanes: its length, then
/// its nodes (the rest zero). Sixteen bytes a key keep a block's ~5,000 walks in a table
/// of ~120 KB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ShortWalk([u64; 2]);

impl std::hash::Hash for ShortWalk {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let mixed = (self.0[0] ^ self.0[1].rotate_left(29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        state.write_u64(mixed ^ (mixed >> 31));
    }
}

impl ShortWalk {
    /// The walk packed, if it is short enough and its nodes' numbers fit 16 bits.
    fn of(walk: &[u32]) -> Option<Self> {
        if walk.len() > SHORT_WALK {
            return None;
        }
        let mut words = [walk.len() as u64, 0];
        for (i, &node) in walk.iter().enumerate() {
            let lane = i + 1;
            words[lane / 4] |= u64::from(u16::try_from(node).ok()?) << (16 * (lane % 4));
        }
        Some(Self(words))
    }

    /// The walk's nodes: its length, and the nodes in the first that many places.
    fn nodes(&self) -> (usize, [u32; SHORT_WALK]) {
        let mut nodes = [0u32; SHORT_WALK];
        for (i, node) in nodes.iter_mut().enumerate() {
            let lane = i + 1;
            *node = u32::from((self.0[lane / 4] >> (16 * (lane % 4))) as u16);
        }
        ((self.0[0] & 0xFFFF) as usize, nodes)
    }
}

impl Default for WalkCounter {
    fn default() -> Self {
        Self { short: Default::default(), long: Default::default(), inline: SHORT_WALK }
    }
}

impl WalkCounter {
    /// Counts one trial that took `walk`.
    pub(super) fn count(&mut self, walk: &[u32]) {
        if let Some(key) = ShortWalk::of(walk).filter(|_| walk.len() <= self.inline) {
            *self.short.entry(key).or_insert(0) += 1;
        } else {
            match self.long.get_mut(walk) {
                Some(n) => *n += 1,
                None => {
                    self.long.insert(walk.into(), 1);
                }
            }
        }
    }
}

impl StepMemo {
    /// Adds each walk's trials counted since the last drain to every path map cell it
    /// crosses (each cell once per trial, as a trial marks them; the rout's start cell
    /// included), and empties the counter.
    pub(super) fn drain_walks_into(
        &mut self,
        path: &mut [u64],
        plan: &BattlesystemPlan,
        beasts: usize,
        stamp: &mut [u64],
        generation: &mut u64,
    ) {
        let start = rout_start(plan, &plan.fresh, beasts);
        let mut start_cell = None;
        for_each_cell_crossed(start, start, |col, row| start_cell = grid_cell(plan.grid, col, row));
        let (ranges, cells) = (&self.ranges, &self.cells);
        let mut add = |walk: &[u32], n: u64| {
            *generation += 1;
            let crossed = start_cell.into_iter().chain(walk.iter().flat_map(|&id| {
                let (a, b) = ranges[id as usize];
                cells[a as usize..b as usize].iter().copied()
            }));
            for cell in crossed {
                if stamp[cell] != *generation {
                    stamp[cell] = *generation;
                    path[cell] += n;
                }
            }
        };
        for (walk, n) in self.walks.short.drain() {
            let (len, nodes) = walk.nodes();
            add(&nodes[..len], n);
        }
        for (walk, n) in self.walks.long.drain() {
            add(&walk, n);
        }
    }
}

/// Marks each cell of `cells` on the path map, once per trial.
fn mark_cells(stamp: &mut [u64], generation: u64, crossed: &mut Vec<usize>, cells: &[usize]) {
    for &cell in cells {
        if stamp[cell] != generation {
            stamp[cell] = generation;
            crossed.push(cell);
        }
    }
}

/// A fast hasher for the memo's keys (words of float bits, not attacker-controlled).
#[derive(Default)]
pub(crate) struct WordHasher(u64);

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
    // A rout changes the beasts and the units they meet, nothing else (see `reset_states`).
    scratch.touched = unit_bit(beasts);
    values[s.heading] = hour as u16;
    let mut line = clock_heading(hour);
    let mut remaining = sc.rout_distance(beasts);
    let (mut moved, mut rerolls, mut contacts) = (0.0, 0u32, 0u32);
    let mut off_board_units = 0u32;
    // Trials tallied by their walks through the memo's nodes mark no cells: the walk's
    // cells are marked once for every trial that took it (see [`WalkCounter`]).
    let remember = scratch.steps.remember;
    let by_walk = remember && scratch.count_walks;
    scratch.walk.clear();
    if !by_walk {
        let start = rout_start(plan, &scratch.states, beasts);
        mark_path(scratch, plan.grid, start, start);
    }
    // Where the rout stands in the memo's graph: the node of the board state, when known
    // from the turn that led here, and that turn (to record it once the node is found).
    if remember {
        scratch.steps.begin_trial(plan);
    }
    let first_hour = hour as usize;
    let mut node = Some(scratch.steps.roots[first_hour]).filter(|&n| remember && n != u32::MAX);
    let mut came_by: Option<(u32, usize)> = None;
    let mut current = u32::MAX;
    // The node whose `moved` block the beasts stand on but `states` does not yet say: the
    // walk reads only the node's hot bytes, and the block is written from the whole step
    // only where something reads it (`settle_beasts`).
    let mut beasts_at: Option<u32> = None;
    let whole_rank = rules.melee_contact == MeleeContact::WholeFrontRank;
    // The step worked out afresh, when steps are not remembered (kept out of the loop's
    // values: a trial's walk should not move it about).
    let mut fresh: Option<CompiledStep> = None;
    loop {
        if remaining <= 1e-9 || scratch.states[beasts].figures == 0 {
            break;
        }
        // The step as the walk reads it, and the node it came from (none when worked out
        // afresh, which gives the step whole).
        let (hot, node_id) = if remember {
            let memo = &mut scratch.steps;
            let id = match node {
                Some(id) => id,
                None => {
                    settle_beasts(&mut scratch.states, memo, beasts, &mut beasts_at);
                    let here = scratch.states[beasts].block.unwrap_or(sc.units[beasts].block);
                    let id = memo.node_for(plan, &scratch.states, beasts, here, line, remaining);
                    match came_by {
                        Some((_, UNLINKED)) => {}
                        Some((from, turn)) => memo.link(from, turn, id),
                        None => memo.roots[first_hour] = id,
                    }
                    id
                }
            };
            current = id;
            let hot = memo.hot[id as usize];
            if by_walk {
                scratch.walk.push(id);
            } else {
                let cells = memo.ranges[id as usize];
                mark_cells(&mut scratch.stamp, scratch.generation, &mut scratch.cells, memo.cells_of(cells));
            }
            beasts_at = Some(id);
            (hot, Some(id))
        } else {
            // Every step worked out afresh, as before steps were remembered: the check
            // that remembering changes nothing.
            let here = scratch.states[beasts].block.unwrap_or(sc.units[beasts].block);
            let step = rout_step(plan, &scratch.states, beasts, here, line, remaining);
            let go = step.distance(remaining);
            let moved = step.turned.moved(step.dir.scale(go));
            mark_path(scratch, plan.grid, step.turned.centre, moved.centre);
            let compiled = CompiledStep { step, go, moved, cells: (0, 0), facing: None, after: None };
            scratch.states[beasts].block = Some(moved);
            fresh = Some(compiled);
            (HotStep::of(&compiled), None)
        };
        let HotStep { go, struck: first_struck, also, exits, .. } = hot;
        let facing = hot.facing();
        moved += go;
        remaining -= go;
        if let Some(t) = trace {
            let CompiledStep { step: RoutStep { heading, veer, .. }, moved, .. } =
                whole_step(&fresh, &scratch.steps, current);
            t.push(BattlesystemEvent::Move {
                heading: *heading,
                veer: *veer,
                distance: go,
                to: [moved.centre.x, moved.centre.y],
            });
        }
        if first_struck == NOT_STRUCK {
            if exits {
                values[s.left_board] = 1;
                beasts_at = None;
                scratch.states[beasts].block = None;
                if let Some(t) = trace {
                    t.push(BattlesystemEvent::LeftBoard);
                }
            }
            break;
        }
        let first_struck = usize::from(first_struck);
        // Every unit touched at this instant, the first met first (the others in their order
        // in the file): the beasts fight each, each with the beasts that touch it.
        // (No list is collected: this runs at every contact of every trial.)
        let struck_units = std::iter::once(first_struck).chain(units_of(also));
        let mut blocking = false;
        // What happened to the (first) struck unit, for the memo's graph (see `turn_of`).
        let mut outcome = 1;
        for (k, struck) in struck_units.enumerate() {
            if scratch.states[beasts].figures == 0 || scratch.states[struck].figures == 0 {
                continue;
            }
            contacts += 1;
            scratch.touched |= unit_bit(struck);
            scratch.states[struck].contacted = true;
            if let Some(t) = trace {
                let step = whole_step(&fresh, &scratch.steps, current);
                let into = scratch.states[struck]
                    .block
                    .map_or(0.0, |b| step.step.dir.dot(board::contact_face(&step.moved, &b)));
                t.push(BattlesystemEvent::Contact { unit: struck, into });
            }
            let facing_now = if k == 0 { facing } else { None };
            if facing_now.is_none() || whole_rank {
                // The melee counts the figures in contact from where the units stand.
                settle_beasts(&mut scratch.states, &scratch.steps, beasts, &mut beasts_at);
            }
            let (beast_losses, struck_losses) = melee(
                plan,
                &mut scratch.states,
                &mut scratch.attacks,
                beasts,
                struck,
                Fighting::Trampling,
                facing_now,
                dice,
                trace,
            );
            scratch.states[beasts].lost += beast_losses.figures;
            scratch.states[struck].lost += struck_losses.figures;
            if scratch.states[beasts].figures == 0 {
                break;
            }
            if scratch.states[struck].figures == 0 {
                continue;
            }
            let result = morale(plan, &mut scratch.attacks, struck, dice, trace);
            if k == 0 {
                outcome = 2 + result as usize;
            }
            let block = scratch.states[struck].block.unwrap_or(sc.units[struck].block);
            // Worked out with the step: most units hold, and then only whether they still
            // block is read; a pushed unit's new place is read from the whole step.
            let remembered = node_id.filter(|_| k == 0).and_then(|_| hot.after(result as usize));
            let moved_aside = match remembered {
                Some((true, still_blocking)) => {
                    Displacement { block: Some(block), pushed: None, off_board: false, blocking: still_blocking }
                }
                _ => {
                    let step = whole_step(&fresh, &scratch.steps, current);
                    match step.after.as_ref().filter(|_| remembered.is_some()) {
                        Some(after) => after[result as usize],
                        None => {
                            settle_beasts(&mut scratch.states, &scratch.steps, beasts, &mut beasts_at);
                            displacement(
                                plan,
                                &scratch.states,
                                beasts,
                                struck,
                                &step.moved,
                                step.step.dir,
                                result,
                                remaining,
                            )
                        }
                    }
                }
            };
            blocking |= moved_aside.blocking;
            if moved_aside.pushed.is_some() {
                scratch.states[struck].displaced = true;
                scratch.states[struck].block = moved_aside.block;
                if moved_aside.off_board {
                    // A unit that leaves the board is lost: its figures count as lost.
                    off_board_units += 1;
                    let st = &mut scratch.states[struck];
                    st.lost += st.figures;
                    st.figures = 0;
                }
            }
            if let Some(t) = trace
                && let Some(pushed) = moved_aside.pushed
            {
                let moved_block = whole_step(&fresh, &scratch.steps, current).moved;
                let gap_after = scratch.states[struck].block.map(|b| board::separation(&moved_block, &b));
                t.push(BattlesystemEvent::Displaced {
                    unit: struck,
                    distance: pushed,
                    off_board: moved_aside.off_board,
                    still_blocking: moved_aside.blocking,
                    gap_before: board::separation(&moved_block, &block),
                    gap_after,
                });
            }
        }
        if scratch.states[beasts].figures == 0 {
            break;
        }
        // The memo's graph follows one struck unit's outcome; a step that met several
        // finds its next step by the board instead.
        let linkable = also == 0;
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
            came_by = Some((current, turn_of(outcome, Some(hour))));
        } else {
            // The rolled line stays the line: the next veer is measured from it again, so
            // veers never add up past the allowance.
            came_by = Some((current, turn_of(outcome, None)));
        }
        if !linkable {
            came_by = Some((current, UNLINKED));
        }
        node = came_by
            .filter(|&(_, turn)| remember && turn != UNLINKED)
            .and_then(|(from, turn)| scratch.steps.follow(from, turn));
    }
    if let Some(t) = trace {
        settle_beasts(&mut scratch.states, &scratch.steps, beasts, &mut beasts_at);
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
    // A unit the beasts never met lost nothing, was not contacted nor displaced: its values
    // stay the zeros the trial began with (and its tally is kept apart: `RoutRecorder`).
    for i in units_of(scratch.touched & !unit_bit(beasts)) {
        let (u, st) = (&sc.units[i], &states[i]);
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

#[cfg(test)]
mod walk_tests {
    use super::*;

    #[test]
    fn short_walks_pack_their_nodes_and_leave_the_rest_the_long_way() {
        for walk in [&[][..], &[0], &[7, 3, 65_535], &[1, 2, 3, 4, 5, 6, 7], &[65_535; 7]] {
            let (len, nodes) = ShortWalk::of(walk).expect("short, numbered below 65,536").nodes();
            assert_eq!(&nodes[..len], walk);
        }
        // Distinct walks, distinct keys: a prefix and a zero node are not the walk without it.
        assert_ne!(ShortWalk::of(&[0]), ShortWalk::of(&[]));
        assert_ne!(ShortWalk::of(&[5, 0]), ShortWalk::of(&[5]));
        assert_eq!(ShortWalk::of(&[65_536]), None, "a node past 16 bits");
        assert_eq!(ShortWalk::of(&[1; 8]), None, "a walk past the short length");
        // Both kinds are counted, and drained with their nodes.
        let mut counter = WalkCounter::default();
        for walk in [&[3, 4][..], &[3, 4], &[70_000, 1], &[1; 9], &[1; 9], &[1; 9]] {
            counter.count(walk);
        }
        assert_eq!(counter.short.get(&ShortWalk::of(&[3, 4]).unwrap()), Some(&2));
        assert_eq!(counter.long.get(&[70_000, 1][..]), Some(&1));
        assert_eq!(counter.long.get(&[1; 9][..]), Some(&3));
    }
}
