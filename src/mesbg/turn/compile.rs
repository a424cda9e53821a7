//! Compiling a turn: the tree of boards of the Move phase. A later chariot's path depends
//! on the dice only through what the earlier charges did to the board, and that is told by
//! a few discrete facts per chariot ([`MoveKey`]): how many of its contact groups it drove
//! past, which models of the group it stopped at survived, whether it was slain on the
//! way. So each node is one chariot's drive on one board, each of its keys leads to the
//! next chariot's node, and after the last to a [`FinalBoard`]. Every drive, push, friendly
//! chariot in the way, corridor and support map is worked out once here; a trial walks the
//! tree rolling dice.

use super::drive::{MoveKey, TurnGroup, TurnMove};
use super::final_board::{FinalBoard, MovingBoard, TurnSetting, final_board};
use super::impact::{FlatImpact, ImpactStates};
use super::measure::lines_of;
use super::metrics::turn_metrics;
use super::plan::{MAX_SIMULTANEOUS_IN_TURN, MAX_TURN_BOARDS, TurnError, TurnPlan};
use crate::geometry::{self, Footprint, Pose, Vec2};
use crate::mesbg::plan::shieldwall::{BRACING_NEIGHBOURS, wall_neighbours_standing};
use crate::mesbg::plan::{
    Leg, PathPolicy, Plan, SAME_TIME_INCHES, Standing, best_pivots, breaks_through, compile, drive, pose_at,
};
use crate::mesbg::scenario::{CorridorWidth, Profile, Scenario, TurnOrder};

/// Compiles a turn in the order the scenario asks for. For `order = "best"`, every order is
/// compiled and weighed by the objective's mean: by `exact_mean` when the exact engine
/// answers for every order, else by `play_mean` (trials played on the same streams for
/// every order: common random numbers); the best is kept, and every order's value.
pub fn compile_turn(
    scenario: &Scenario,
    exact_mean: &dyn Fn(&TurnPlan, &str) -> Option<f64>,
    play_mean: &dyn Fn(&TurnPlan, &str) -> f64,
) -> Result<TurnPlan, TurnError> {
    let n = scenario.more.len() + 1;
    match &scenario.turn {
        TurnOrder::Listed => compile_order(scenario, (0..n).collect()),
        TurnOrder::Given(order) => compile_order(scenario, order.clone()),
        TurnOrder::Best(objective) => {
            let metric = objective.metric();
            let orders = permutations(n);
            // Exact values where the exact engine answers every order (it follows at most
            // two chariots, so at most two plans are held).
            let mut exact: Vec<(TurnPlan, f64)> = Vec::new();
            for order in &orders {
                let plan = compile_order(scenario, order.clone())?;
                match exact_mean(&plan, metric) {
                    Some(value) => exact.push((plan, value)),
                    None => {
                        exact.clear();
                        break;
                    }
                }
            }
            let by_exact = !exact.is_empty();
            let mut best: Option<(TurnPlan, f64)> = None;
            let mut tried = Vec::new();
            let mut weigh = |plan: TurnPlan, value: f64| {
                tried.push((plan.order.clone(), value));
                if best.as_ref().is_none_or(|(_, b)| value > *b + 1e-12) {
                    best = Some((plan, value));
                }
            };
            if by_exact {
                exact.into_iter().for_each(|(plan, value)| weigh(plan, value));
            } else {
                for order in orders {
                    let plan = compile_order(scenario, order)?;
                    let value = play_mean(&plan, metric);
                    weigh(plan, value);
                }
            }
            let mut plan = best.map(|(p, _)| p).ok_or(TurnError::TooManyBoards)?;
            plan.orders_tried = tried;
            plan.orders_by_exact = by_exact;
            Ok(plan)
        }
    }
}

/// The pose after `distance` inches along `legs` (the last leg's end beyond them).
pub fn pose_on_legs(legs: &[Leg], distance: f64) -> Option<Pose> {
    pose_at(legs, distance)
}

/// Every order of `n` items, the listed order first, in lexicographic order.
pub fn permutations(n: usize) -> Vec<Vec<usize>> {
    fn go(prefix: &mut Vec<usize>, n: usize, out: &mut Vec<Vec<usize>>) {
        if prefix.len() == n {
            out.push(prefix.clone());
            return;
        }
        for i in 0..n {
            if !prefix.contains(&i) {
                prefix.push(i);
                go(prefix, n, out);
                prefix.pop();
            }
        }
    }
    let mut out = Vec::new();
    go(&mut Vec::new(), n, &mut out);
    out
}

/// Compiles the turn in `order`.
pub fn compile_order(scenario: &Scenario, order: Vec<usize>) -> Result<TurnPlan, TurnError> {
    let entries = scenario.entries();
    let plans: Vec<Plan> = (0..entries.len()).map(|i| compile(&scenario.view(i))).collect();
    // Per chariot: each model's tables, then (indices `models..`) each model's tables when
    // its shield wall braces it (the same tables for a model outside any wall).
    let mut impact = Vec::with_capacity(entries.len());
    for entry in &entries {
        let mut per_model = Vec::new();
        let mut braced = Vec::new();
        for f in &scenario.formations {
            let compiled = |p: &Profile| std::sync::Arc::new(ImpactStates::compile(entry, p, &scenario.rules));
            let in_wall = |p: &Profile| scenario.rules.shieldwall && p.in_shieldwall();
            let warriors = compiled(&f.profile);
            let warriors_braced = if in_wall(&f.profile) { compiled(&f.profile.braced()) } else { warriors.clone() };
            for mi in 0..f.centres.len() {
                let (plain, wall) = match &f.hero {
                    Some(h) if h.index == mi => {
                        let plain = compiled(&h.profile);
                        let wall = if in_wall(&h.profile) { compiled(&h.profile.braced()) } else { plain.clone() };
                        (plain, wall)
                    }
                    _ => (warriors.clone(), warriors_braced.clone()),
                };
                per_model.push(plain);
                braced.push(wall);
            }
        }
        per_model.extend(braced);
        impact.push(per_model);
    }
    let centres: Vec<Vec2> = scenario.formations.iter().flat_map(|f| f.centres.iter().copied()).collect();
    let models = centres.len();
    let corridor_width = match scenario.turn_rules.corridor_width {
        CorridorWidth::LineBase => None,
        CorridorWidth::NarrowestChariot => {
            entries.iter().map(|e| 2.0 * e.chariot.base.footprint().support(Vec2::new(1.0, 0.0))).reduce(f64::min)
        }
    };
    let setting = TurnSetting { scenario, entries: &entries, plans: &plans, order: &order, corridor_width };
    let mut compiler = Compiler { setting, nodes: Vec::new(), finals: Vec::new() };
    let start = MovingBoard {
        present: vec![true; models],
        centres,
        standing: Vec::new(),
        stopped_at: vec![Vec::new(); entries.len()],
        through: vec![false; entries.len()],
    };
    compiler.node(0, start)?;
    let Compiler { nodes, finals, .. } = compiler;
    let (metrics, at) = turn_metrics(scenario, &plans, &lines_of(&scenario.formations));
    let heroes: Vec<bool> = plans[0].models.iter().chain(&plans[0].models).map(|m| m.hero.is_some()).collect();
    let flat_impact = FlatImpact::new(&impact, &heroes);
    Ok(TurnPlan {
        scenario: scenario.clone(),
        order,
        orders_tried: Vec::new(),
        orders_by_exact: false,
        plans,
        flat_impact,
        impact,
        nodes,
        finals,
        metrics,
        at,
        models,
        lines: lines_of(&scenario.formations),
        corridor_width,
        fights_from_tables: true,
        drives_from_tables: true,
        drawn: Default::default(),
        compiled: Default::default(),
    })
}

/// The tree being compiled: the nodes and final boards so far.
struct Compiler<'a> {
    setting: TurnSetting<'a>,
    nodes: Vec<TurnMove>,
    finals: Vec<FinalBoard>,
}

impl Compiler<'_> {
    fn boards(&self) -> usize {
        self.nodes.len() + self.finals.len()
    }

    /// Compiles the drive of the chariot at `depth` on `board`, and every board after it.
    fn node(&mut self, depth: usize, board: MovingBoard) -> Result<usize, TurnError> {
        if self.boards() >= MAX_TURN_BOARDS {
            return Err(TurnError::TooManyBoards);
        }
        let c = self.setting.order[depth];
        let view = self.setting.scenario.view(c);
        let footprint = view.chariot.base.footprint();
        let discs = self.setting.discs(&board.centres);
        // Every friendly chariot on the board blocks: those that charged, where they stand,
        // and those still to charge, where they wait.
        let waiting = self.setting.order[depth + 1..].iter().map(|&k| (k, self.setting.entries[k].chariot.start));
        let friend_at: Vec<(usize, Pose)> = board.standing.iter().copied().chain(waiting).collect();
        let friends: Vec<(Footprint, Pose)> =
            friend_at.iter().map(|&(k, pose)| (self.setting.entries[k].chariot.base.footprint(), pose)).collect();
        let standing = Standing { present: Some(&board.present), friends: &friends };
        let policy = PathPolicy::of(&view);
        let (pivots, stop_at) = match &policy {
            PathPolicy::Best(objective) => {
                let best = best_pivots(
                    &view,
                    &footprint,
                    &discs,
                    &self.setting.plans[c].models,
                    *objective,
                    view.charge.distance,
                    standing,
                );
                (best.pivots, best.stop_at)
            }
            _ => (Vec::new(), view.charge.distance),
        };
        let d = drive(&view, &footprint, discs, stop_at, standing, |chance, pose| policy.pivot(chance, pose, &pivots));
        // Shieldwall: a model its standing wall braces when it is touched takes the hits
        // from its braced tables (index `models + m`).
        let models = &self.setting.plans[c].models;
        let wall = wall_neighbours_standing(&d.groups, models, &d.discs, &d.pushes, Some(&board.present));
        let groups: Vec<TurnGroup> = d
            .groups
            .iter()
            .zip(wall)
            .map(|(g, neighbours)| TurnGroup {
                distance: g.distance,
                models: g.models.clone(),
                tables: g
                    .models
                    .iter()
                    .zip(&neighbours)
                    .map(|(&m, n)| if n.len() >= BRACING_NEIGHBOURS { m + models.len() } else { m })
                    .collect(),
            })
            .collect();
        if let Some(big) = groups.iter().find(|g| g.models.len() > MAX_SIMULTANEOUS_IN_TURN) {
            return Err(TurnError::TooManyAtOnce { chariot: c + 1, models: big.models.len() });
        }
        let terrain_group = d.difficult_from.map_or(groups.len(), |from| {
            groups.iter().position(|g| g.distance >= from - SAME_TIME_INCHES).unwrap_or(groups.len())
        });
        let breakthrough_possible = breaks_through(&d.groups, models, &view, &footprint, (&d.start(), &d.end));
        let index = self.nodes.len();
        self.nodes.push(TurnMove {
            chariot: c,
            depth,
            centres: board.centres.clone(),
            present: board.present.clone(),
            standing: board.standing.clone(),
            groups,
            legs: d.legs,
            end: d.end,
            pushes: d.pushes,
            obstacle: d.obstacle,
            difficult_from: d.difficult_from,
            terrain_group,
            blocked_by: d.blocked.map(|(k, at)| (friend_at[k].0, at)),
            breakthrough_possible,
            children: Vec::new(),
            child_words: Vec::new(),
        });
        let keys = self.keys(index);
        let mut children = Vec::with_capacity(keys.len());
        for key in keys {
            let next = self.after(index, key, &board);
            let child =
                if depth + 1 < self.setting.order.len() { self.node(depth + 1, next)? } else { self.last(next)? };
            children.push((key, child));
        }
        self.nodes[index].set_children(children);
        Ok(index)
    }

    /// Every outcome a drive can come to.
    fn keys(&self, index: usize) -> Vec<MoveKey> {
        let mv = &self.nodes[index];
        let mut keys = Vec::new();
        for (g, group) in mv.groups.iter().enumerate() {
            if mv.difficult_from.is_some() && g == mv.terrain_group {
                keys.push(MoveKey { passed: g as u16, survivors: 0, gone: true });
            }
            for mask in 1..(1u32 << group.models.len()) {
                keys.push(MoveKey { passed: g as u16, survivors: mask, gone: false });
            }
        }
        let all = mv.groups.len() as u16;
        if mv.difficult_from.is_some() && mv.terrain_group == mv.groups.len() {
            keys.push(MoveKey { passed: all, survivors: 0, gone: true });
        }
        keys.push(MoveKey { passed: all, survivors: 0, gone: false });
        if mv.obstacle.is_some() && !keys.contains(&MoveKey { passed: all, survivors: 0, gone: true }) {
            keys.push(MoveKey { passed: all, survivors: 0, gone: true });
        }
        keys
    }

    /// The board after drive `index` came to `key`.
    fn after(&self, index: usize, key: MoveKey, board: &MovingBoard) -> MovingBoard {
        let mv = &self.nodes[index];
        let mut present = board.present.clone();
        for g in &mv.groups[..usize::from(key.passed).min(mv.groups.len())] {
            for &m in &g.models {
                present[m] = false;
            }
        }
        if key.survivors != 0
            && let Some(g) = mv.groups.get(usize::from(key.passed))
        {
            for (i, &m) in g.models.iter().enumerate() {
                present[m] = key.survivors & (1 << i) != 0;
            }
        }
        let reached = mv.reached(key);
        let mut centres = board.centres.clone();
        for p in mv.pushes.iter().filter(|p| p.at_distance <= reached + geometry::EPSILON) {
            centres[p.model] = p.to;
        }
        let mut standing = board.standing.clone();
        if let Some(pose) = mv.pose_after(key) {
            standing.push((mv.chariot, pose));
        }
        let mut stopped_at = board.stopped_at.clone();
        // A model this drive's pivots pushed aside may no longer touch a chariot that
        // stopped at it earlier: that contact ends, so the fights follow who still touches
        // whom.
        let pushed: Vec<usize> =
            mv.pushes.iter().filter(|p| p.at_distance <= reached + geometry::EPSILON).map(|p| p.model).collect();
        if !pushed.is_empty() {
            let discs = self.setting.discs(&centres);
            let contact = crate::mesbg::plan::support::BASE_CONTACT_MM / geometry::MM_PER_INCH;
            for &(k, pose) in &board.standing {
                let footprint = self.setting.entries[k].chariot.base.footprint();
                stopped_at[k].retain(|&m| !pushed.contains(&m) || discs[m].distance_from(&footprint, &pose) <= contact);
            }
        }
        if key.survivors != 0
            && let Some(g) = mv.groups.get(usize::from(key.passed))
        {
            stopped_at[mv.chariot] =
                g.models.iter().enumerate().filter(|(i, _)| key.survivors & (1 << i) != 0).map(|(_, &m)| m).collect();
        }
        let mut through = board.through.clone();
        through[mv.chariot] = !key.gone && key.survivors == 0 && mv.breakthrough_possible;
        MovingBoard { centres, present, standing, stopped_at, through }
    }

    /// The board after the last move: its fights and measurements ([`final_board`]).
    fn last(&mut self, board: MovingBoard) -> Result<usize, TurnError> {
        if self.boards() >= MAX_TURN_BOARDS {
            return Err(TurnError::TooManyBoards);
        }
        self.finals.push(final_board(&self.setting, board));
        Ok(self.finals.len() - 1)
    }
}
