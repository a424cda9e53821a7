//! The exact engine for a small turn: the distribution of every metric of a turn of one
//! or two chariots, computed down the same compiled tree of boards the resolver walks
//! ([`TurnPlan`]) instead of sampled.
//!
//! Each chariot's drive branches on the difficult-terrain test, every Impact Hit outcome
//! of every model it meets (from the table of the state an earlier chariot left it in) and
//! the obstacle's hits; each branch leads to the board the plan names for it. On each final
//! board the fights are fought in the resolver's order: a chariot alone against one model
//! by the exact fight tables of a single charge, two chariots against one model by the
//! pooled duel (both sides' highest dice, ties to the higher Fight, then the roll-off) and
//! each winner's Strikes in turn, or the model's Strikes at the chariot with the fewest
//! Wounds. Branches that agree are merged.
//!
//! What it does not follow is refused by name ([`NotExactTurn`]), never approximated:
//! more than two chariots, Heroes (riding or in the line), cavalry, spears, pikes and
//! banners, and a fight of one chariot against several models (which of them fall decides
//! whether the line is breached, and the fight tables count kills, not names).

use super::drive::MoveKey;
use super::pairing::TurnFight;
use super::plan::TurnPlan;
use super::scratch::TurnTrial;
use super::state::{ChariotTurn, ImpactState};
use super::values::write_values;
use crate::engine::statistics::JointDistribution;
use crate::mesbg::plan::{Plan, fight_rules};
use crate::mesbg::resolve::ChariotState;
use crate::mesbg::rules::fight::{self as mesbg_fight, ChariotFighter, FoeSupport, Grip};
use crate::mesbg::rules::{self as mesbg, DuelSide};
use std::collections::BTreeMap;

/// The most branches the engine carries at once before it gives up.
pub const MAX_TURN_BRANCHES: usize = 200_000;

/// Why a turn has no exact distribution: what the exact engine does not follow yet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotExactTurn {
    /// More chariots than the engine follows.
    #[error("no exact values: a turn of {0} chariots (the exact engine follows a turn of at most two)")]
    TooManyChariots(usize),
    /// A Hero rides a chariot.
    #[error(
        "no exact values: chariot {0} carries a Hero (the exact engine for a turn does not follow Might and Fate yet)"
    )]
    RidingHero(usize),
    /// The line holds a Hero.
    #[error("no exact values: the line holds a Hero (the exact engine for a turn does not follow enemy Heroes yet)")]
    FoeHero,
    /// The line holds cavalry.
    #[error(
        "no exact values: the line holds cavalry (the exact engine for a turn does not follow riders and mounts yet)"
    )]
    Cavalry,
    /// Spears, pikes or a banner can help a fight.
    #[error(
        "no exact values: spears, pikes or a banner can help a fight (the exact engine for a turn does not follow support yet)"
    )]
    Support,
    /// A fight of one chariot against several models.
    #[error(
        "no exact values: on some board chariot {chariot} fights {models} models at once (which of them fall decides \
         whether the line is breached; the exact engine for a turn follows fights against one model)"
    )]
    SeveralModels {
        /// Listed chariot, 1-based.
        chariot: usize,
        /// Models in the fight.
        models: usize,
    },
    /// A shield wall stands on the board.
    #[error(
        "no exact values: models of a shield wall stand on the board (the exact engine for a turn does not follow \
         Shieldwall yet)"
    )]
    Shieldwall,
    /// A chariot in two fights of one board.
    #[error(
        "no exact values: on some board chariot {0} is in two fights (the exact engine for a turn follows one each)"
    )]
    TwoFights(usize),
    /// Too many branches.
    #[error("no exact values: more than {MAX_TURN_BRANCHES} distinct states to follow")]
    TooManyBranches,
    /// The run was asked not to compute them.
    #[error("no exact values: skipped with --no-exact")]
    Skipped,
}

/// The exact joint distribution of a turn's metrics, and each model's chance to fall.
#[derive(Clone, Debug)]
pub struct TurnExact {
    /// Every possible set of metric values (in the plan's metric order) with its
    /// probability; the probabilities sum to 1.
    pub joint: JointDistribution,
    /// Per model: its chance to be slain in the turn.
    pub slain: Vec<f64>,
}

/// Where a branch of the Move phase stands: the next drive (or, after the last, the final
/// board), what each chariot has left, what earlier Impact Hits left of each model touched.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct MoveState {
    at: usize,
    wounds: Vec<u8>,
    /// (model, Wounds left), sorted by model.
    touched: Vec<(usize, u8)>,
    impact_kills: Vec<u16>,
    blocked: Vec<bool>,
}

impl MoveState {
    fn left(&self, plan: &TurnPlan, m: usize) -> u8 {
        match self.touched.binary_search_by_key(&m, |t| t.0) {
            Ok(i) => self.touched[i].1,
            Err(_) => plan.plans[0].models[m].wounds,
        }
    }

    fn set_left(&mut self, m: usize, left: u8) {
        match self.touched.binary_search_by_key(&m, |t| t.0) {
            Ok(i) => self.touched[i].1 = left,
            Err(i) => self.touched.insert(i, (m, left)),
        }
    }
}

/// The Fight phase's state on one final board.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct FightState {
    wounds: Vec<u8>,
    fought: Vec<bool>,
    won: Vec<bool>,
    fight_kills: Vec<u16>,
    /// Models slain in fights, sorted.
    slain: Vec<usize>,
}

/// Whether the exact engine follows `plan`'s turn, and why not.
pub fn check_exact_turn(plan: &TurnPlan) -> Result<(), NotExactTurn> {
    let n = plan.plans.len();
    if n > 2 {
        return Err(NotExactTurn::TooManyChariots(n));
    }
    if let Some(c) = plan.plans.iter().position(|p| p.chariot.hero.is_some()) {
        return Err(NotExactTurn::RidingHero(c + 1));
    }
    let models = &plan.plans[0].models;
    if models.iter().any(|m| m.hero.is_some()) {
        return Err(NotExactTurn::FoeHero);
    }
    if models.iter().any(|m| m.mount.is_some()) {
        return Err(NotExactTurn::Cavalry);
    }
    if models.iter().any(|m| m.braced.is_some()) {
        return Err(NotExactTurn::Shieldwall);
    }
    for board in &plan.finals {
        if board.support.any() || board.fixed_support.iter().any(Option::is_some) {
            return Err(NotExactTurn::Support);
        }
        let mut seen = vec![false; n];
        for fight in &board.fights {
            if fight.models.len() > 1 {
                return Err(NotExactTurn::SeveralModels { chariot: fight.chariots[0] + 1, models: fight.models.len() });
            }
            for &c in &fight.chariots {
                if std::mem::replace(&mut seen[c], true) {
                    return Err(NotExactTurn::TwoFights(c + 1));
                }
            }
        }
    }
    Ok(())
}

/// Computes the exact distribution of every metric of a small turn.
pub fn exact_turn(plan: &TurnPlan) -> Result<TurnExact, NotExactTurn> {
    check_exact_turn(plan)?;
    let n = plan.plans.len();
    let mut states: BTreeMap<MoveState, f64> = BTreeMap::new();
    states.insert(
        MoveState {
            at: 0,
            wounds: plan.plans.iter().map(|p| p.chariot.wounds).collect(),
            touched: Vec::new(),
            impact_kills: vec![0; n],
            blocked: vec![false; n],
        },
        1.0,
    );
    // The Move phase, drive by drive.
    for _ in 0..plan.order.len() {
        let mut next: BTreeMap<MoveState, f64> = BTreeMap::new();
        for (state, p) in states {
            let mut ends = Vec::new();
            drive(plan, state, p, (0, false), &mut ends);
            for (mut state, key, p) in ends {
                let Some(child) = plan.nodes[state.at].child(key) else {
                    debug_assert!(false, "a drive's outcome {key:?} has no board");
                    continue;
                };
                state.at = child;
                *next.entry(state).or_default() += p;
            }
            if next.len() > MAX_TURN_BRANCHES {
                return Err(NotExactTurn::TooManyBranches);
            }
        }
        states = next;
    }
    // The Fight phase on each final board, then the metrics.
    let mut outcomes: BTreeMap<Vec<u16>, f64> = BTreeMap::new();
    let mut slain = vec![0.0; plan.models];
    let mut scratch = TurnTrial::default();
    for (moved, p) in states {
        let board = &plan.finals[moved.at];
        let mut fights: BTreeMap<FightState, f64> = BTreeMap::new();
        fights.insert(
            FightState {
                wounds: moved.wounds.clone(),
                fought: vec![false; n],
                won: vec![false; n],
                fight_kills: vec![0; n],
                slain: Vec::new(),
            },
            p,
        );
        for fight in &board.fights {
            let mut after: BTreeMap<FightState, f64> = BTreeMap::new();
            for (state, q) in fights {
                for (s, r) in fight_once(plan, fight, &moved, state) {
                    *after.entry(s).or_default() += q * r;
                }
            }
            fights = after;
        }
        for (f, q) in fights {
            if q <= 0.0 {
                continue;
            }
            let chariots = (0..n).map(|c| ChariotTurn {
                state: ChariotState { wounds_left: f.wounds[c], might_left: 0, fate_left: 0 },
                fought: f.fought[c],
                won: f.won[c],
                blocked: moved.blocked[c],
                impact_kills: moved.impact_kills[c],
                fight_kills: f.fight_kills[c],
            });
            scratch.fill(moved.at, chariots, &f.slain);
            write_values(plan, board, board.fights.len() as u16, 0, &mut scratch);
            *outcomes.entry(scratch.values().to_vec()).or_default() += q;
            for &m in board.slain_in_moves.iter().chain(&f.slain) {
                slain[m] += q;
            }
        }
    }
    let outcomes = outcomes.into_iter().filter(|(_, p)| *p > 0.0).collect();
    Ok(TurnExact { joint: JointDistribution { outcomes }, slain })
}

/// Chariot `plan.nodes[state.at].chariot`'s drive from group `g` on (`tested`: the
/// difficult-terrain test at `g` is behind it): every way it can go, each with what it came
/// to (the key of the next board) and its probability.
fn drive(
    plan: &TurnPlan,
    mut state: MoveState,
    p: f64,
    (g, tested): (usize, bool),
    ends: &mut Vec<(MoveState, MoveKey, f64)>,
) {
    let mv = &plan.nodes[state.at];
    let c = mv.chariot;
    if mv.difficult_from.is_some() && g == mv.terrain_group && !tested {
        // A 1 in six is a Wound (no Hero rides: nothing prevents it).
        drive(plan, state.clone(), p * 5.0 / 6.0, (g, true), ends);
        state.wounds[c] = state.wounds[c].saturating_sub(1);
        if state.wounds[c] == 0 {
            ends.push((state, MoveKey { passed: g as u16, survivors: 0, gone: true }, p / 6.0));
        } else {
            drive(plan, state, p / 6.0, (g, true), ends);
        }
        return;
    }
    if let Some(group) = mv.groups.get(g) {
        // Every combination of the group's Impact Hit outcomes.
        let mut combos: Vec<(MoveState, u32, f64)> = vec![(state, 0, p)];
        for (i, &m) in group.models.iter().enumerate() {
            combos = combos
                .into_iter()
                .flat_map(|(st, mask, q)| {
                    let table =
                        plan.impact[c][m].table(ImpactState { left: st.left(plan, m), mount_left: 0, fate_left: 0 });
                    table
                        .outcomes
                        .iter()
                        .zip(&table.probabilities)
                        .filter(|(_, r)| **r > 0.0)
                        .map(|(o, r)| {
                            let mut st = st.clone();
                            st.set_left(m, o.left);
                            st.impact_kills[c] += u16::from(o.casualty);
                            (st, if o.passed { mask } else { mask | 1 << i }, q * r)
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
        }
        for (st, survivors, q) in combos {
            if survivors != 0 {
                ends.push((st, MoveKey { passed: g as u16, survivors, gone: false }, q));
            } else {
                drive(plan, st, q, (g + 1, false), ends);
            }
        }
        return;
    }
    // Past every model on its path: ended short of a friend, then the obstacle.
    state.blocked[c] |= mv.blocked_by.is_some();
    let mut branches = vec![(state, p)];
    if mv.obstacle.is_some() {
        let hit = plan.plans[c].obstacle_hit.probability();
        for _ in 0..crate::mesbg::plan::OBSTACLE_HITS {
            branches = branches
                .into_iter()
                .flat_map(|(st, q)| {
                    if st.wounds[c] == 0 {
                        return vec![(st, q)];
                    }
                    let mut hurt = st.clone();
                    hurt.wounds[c] -= 1;
                    vec![(st, q * (1.0 - hit)), (hurt, q * hit)]
                })
                .collect();
        }
    }
    let all = mv.groups.len() as u16;
    for (st, q) in branches {
        let gone = st.wounds[c] == 0;
        ends.push((st, MoveKey { passed: all, survivors: 0, gone }, q));
    }
}

/// P(the chariots win a pooled duel) when some hold their weapons two-handed: the side's
/// score is the best of each chariot's highest die as its grip shows it
/// ([`mesbg::two_handed_duel_die`]), against the model's highest die; a tie goes to the
/// higher Fight, else to an even roll-off.
fn pooled_win_with_grips(plans: &[&Plan], two_handed: &[bool], attacker: DuelSide, enemy: DuelSide) -> f64 {
    // P(score <= s) is the product over chariots of P(its shown highest <= s).
    let at_most = |s: u8| -> f64 {
        plans
            .iter()
            .zip(two_handed)
            .map(|(p, &t)| {
                let faces = (1..=6u8).filter(|&f| (if t { mesbg::two_handed_duel_die(f) } else { f }) <= s).count();
                (faces as f64 / 6.0).powi(i32::from(p.chariot.attacks))
            })
            .product()
    };
    let mut win = 0.0;
    for s in 1..=6u8 {
        let p_s = at_most(s) - at_most(s - 1);
        for e in 0..=6u8 {
            let p_e = mesbg_fight::highest_d6_probability(enemy.dice, e);
            win += p_s
                * p_e
                * match s.cmp(&e) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Less => 0.0,
                    std::cmp::Ordering::Equal => match attacker.fight.cmp(&enemy.fight) {
                        std::cmp::Ordering::Greater => 1.0,
                        std::cmp::Ordering::Less => 0.0,
                        std::cmp::Ordering::Equal => 0.5,
                    },
                };
        }
    }
    win
}

/// One fight of a final board, fought from `state`: every way it can end.
fn fight_once(plan: &TurnPlan, fight: &TurnFight, moved: &MoveState, mut state: FightState) -> Vec<(FightState, f64)> {
    let m = fight.models[0];
    let left = moved.left(plan, m);
    for &c in &fight.chariots {
        state.fought[c] = true;
    }
    let mut beaten = plan.plans[fight.chariots[0]].models[m].combatant(left);
    beaten.cannot_back_away = fight.cannot_back_away.contains(&m);
    let slay = |s: &mut FightState| {
        if let Err(i) = s.slain.binary_search(&m) {
            s.slain.insert(i, m);
        }
    };
    if let [c] = fight.chariots[..] {
        let cp = &plan.plans[c];
        let chariot = ChariotFighter { wounds_left: state.wounds[c], ..cp.chariot.fighter() };
        let rules = fight_rules(&cp.rules);
        return mesbg_fight::fight_distribution(
            &chariot,
            &[beaten],
            rules,
            cp.chariot.hero_in_fight(),
            &FoeSupport::default(),
        )
        .into_iter()
        .map(|(o, r)| {
            let mut s = state.clone();
            s.wounds[c] -= o.wounds_lost.min(s.wounds[c]);
            s.won[c] = o.won;
            s.fight_kills[c] += u16::from(o.kills);
            if o.won && o.kills > 0 {
                slay(&mut s);
            }
            (s, r)
        })
        .collect();
    }
    // Several chariots against one model: one pooled duel.
    let plans: Vec<&Plan> = fight.chariots.iter().map(|&c| &plan.plans[c]).collect();
    let model = &plans[0].models[m];
    let attacker = DuelSide {
        dice: plans.iter().map(|p| u32::from(p.chariot.attacks)).sum(),
        fight: plans.iter().map(|p| p.chariot.fight).max().unwrap_or(0),
        side: plans[0].chariot.side,
    };
    let enemy = DuelSide { dice: u32::from(model.attacks), fight: model.fight, side: attacker.side.opponent() };
    // Each chariot holds its weapon as it would fighting the model alone.
    let two_handed: Vec<bool> = plans
        .iter()
        .zip(&fight.chariots)
        .map(|(p, &c)| {
            let fighter = ChariotFighter { wounds_left: state.wounds[c], ..p.chariot.fighter() };
            let rules = fight_rules(&p.rules);
            mesbg_fight::chosen_grip(&fighter, &[beaten], rules, p.chariot.hero_in_fight(), &FoeSupport::NONE)
                == Grip::TwoHanded
        })
        .collect();
    let win = if two_handed.iter().any(|&t| t) {
        pooled_win_with_grips(&plans, &two_handed, attacker, enemy)
    } else {
        mesbg::duel_win_probability(attacker, enemy)
    };
    let mut ends = Vec::new();
    // Won: each chariot's Strikes in turn at the model until it falls.
    let trapped = beaten.trapped_when_beaten(fight_rules(&plans[0].rules));
    let mut strikes: Vec<(u8, Option<usize>, f64)> = vec![(left, None, win)];
    for (k, p) in plans.iter().enumerate() {
        for _ in 0..p.chariot.attacks {
            strikes = strikes
                .into_iter()
                .flat_map(|(rider, by, q)| {
                    if rider == 0 {
                        return vec![(rider, by, q)];
                    }
                    let roll = p.models[m].struck_by_chariot;
                    let roll = if two_handed[k] { roll.plus_one() } else { roll };
                    mesbg_fight::strike_distribution(roll, trapped, rider, 0)
                        .into_iter()
                        .map(|((wounds, _), r)| {
                            let after = rider - wounds.min(rider);
                            (after, if after == 0 { Some(k) } else { by }, q * r)
                        })
                        .collect()
                })
                .collect();
        }
    }
    for (rider, by, q) in strikes {
        let mut s = state.clone();
        for (k, &c) in fight.chariots.iter().enumerate() {
            s.won[c] = true;
            s.fight_kills[c] += u16::from(by == Some(k));
        }
        if rider == 0 {
            slay(&mut s);
        }
        ends.push((s, q));
    }
    // Lost: the model's Strikes, each at the chariot with the fewest Wounds left.
    let mut lost = state.clone();
    for &c in &fight.chariots {
        lost.won[c] = false;
    }
    let mut hits: Vec<(FightState, f64)> = vec![(lost, 1.0 - win)];
    for _ in 0..model.attacks {
        hits = hits
            .into_iter()
            .flat_map(|(s, q)| {
                let target = (0..plans.len())
                    .filter(|&k| s.wounds[fight.chariots[k]] > 0)
                    .min_by_key(|&k| (s.wounds[fight.chariots[k]], k));
                let Some(k) = target else { return vec![(s, q)] };
                let hit = plans[k].models[m].strikes_chariot.probability();
                let mut hurt = s.clone();
                hurt.wounds[fight.chariots[k]] -= 1;
                vec![(s, q * (1.0 - hit)), (hurt, q * hit)]
            })
            .collect();
    }
    ends.extend(hits);
    ends
}
