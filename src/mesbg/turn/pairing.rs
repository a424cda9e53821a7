//! The pairing of the Fight phase: the models in base contact split into fights so that no
//! fight has several models on both sides, as the charging player splits them.

use crate::mesbg::plan::Plan;
use serde::Serialize;

/// One fight of the Fight phase: one chariot against the models it touches, or several
/// chariots against the one model they all touch.
#[derive(Clone, Debug, Serialize)]
pub struct TurnFight {
    /// The chariots (listed indices), in the order of the turn.
    pub chariots: Vec<usize>,
    /// The enemy models.
    pub models: Vec<usize>,
    /// The Monsters among them that cannot Back Away from where the chariot(s) stand.
    pub cannot_back_away: Vec<usize>,
}

/// Every way to split the contacts `edges` (chariot, model) into fights, each fight one
/// chariot against models it touches or one model against chariots it touches, every
/// chariot and model in exactly one fight; each split's fights in the order of their first
/// chariot in `order`.
pub fn legal_splits(edges: &[(usize, usize)], order: &[usize]) -> Vec<Vec<TurnFight>> {
    let mut splits = Vec::new();
    let n = edges.len();
    if n > 16 {
        // Too many contacts to try every subset: keep each chariot with its own models
        // and give a shared model to the first chariot in the order.
        let mut fights: Vec<TurnFight> = Vec::new();
        let mut taken = Vec::new();
        for &c in order {
            let models: Vec<usize> =
                edges.iter().filter(|(k, m)| *k == c && !taken.contains(m)).map(|&(_, m)| m).collect();
            taken.extend(&models);
            if !models.is_empty() {
                fights.push(TurnFight { chariots: vec![c], models, cannot_back_away: Vec::new() });
            }
        }
        return vec![fights];
    }
    let chariots: Vec<usize> = order.iter().copied().filter(|c| edges.iter().any(|(k, _)| k == c)).collect();
    let mut models: Vec<usize> = edges.iter().map(|&(_, m)| m).collect();
    models.sort_unstable();
    models.dedup();
    for subset in 1u32..(1 << n) {
        let chosen: Vec<(usize, usize)> = (0..n).filter(|i| subset & (1 << i) != 0).map(|i| edges[i]).collect();
        let degree_c = |c: usize| chosen.iter().filter(|(k, _)| *k == c).count();
        let degree_m = |m: usize| chosen.iter().filter(|(_, x)| *x == m).count();
        if chariots.iter().any(|&c| degree_c(c) == 0) || models.iter().any(|&m| degree_m(m) == 0) {
            continue;
        }
        // Every chosen contact joins a chariot with several models or a model with several
        // chariots, never both: each fight is a star.
        if chosen.iter().any(|&(c, m)| degree_c(c) > 1 && degree_m(m) > 1) {
            continue;
        }
        let mut fights: Vec<TurnFight> = Vec::new();
        for &c in &chariots {
            let mine: Vec<usize> = chosen.iter().filter(|(k, _)| *k == c).map(|&(_, m)| m).collect();
            if mine.len() > 1 || degree_m(mine[0]) == 1 {
                fights.push(TurnFight { chariots: vec![c], models: mine, cannot_back_away: Vec::new() });
            } else if let Some(f) = fights.iter_mut().find(|f| f.models == mine) {
                f.chariots.push(c);
            } else {
                fights.push(TurnFight { chariots: vec![c], models: mine, cannot_back_away: Vec::new() });
            }
        }
        splits.push(fights);
    }
    splits
}

/// Kills a split's fights promise, as the charging player weighs them before any die is
/// rolled (a player's estimate, not the exact fight): for each fight, the chance its
/// chariots win the duel (their dice pooled against the models' own, support and Might
/// left out, equal Fight read as a roll-off) times the expected kills of its Strikes spread
/// evenly over its models, each knocked down (Trapped, two rolls) unless a Monster, at full
/// Wounds, at most one kill per model.
pub fn promised_kills(fights: &[TurnFight], plans: &[Plan]) -> f64 {
    let models = &plans[0].models;
    fights
        .iter()
        .map(|f| {
            let ours: u32 = f.chariots.iter().map(|&c| u32::from(plans[c].chariot.attacks)).sum();
            let theirs: u32 = f.models.iter().map(|&m| u32::from(models[m].attacks)).sum();
            let fight_ours = f.chariots.iter().map(|&c| plans[c].chariot.fight).max().unwrap_or(0);
            let fight_theirs = f.models.iter().map(|&m| models[m].fight).max().unwrap_or(0);
            let win = duel_win(ours, theirs, fight_ours.cmp(&fight_theirs));
            // Each chariot's Strikes, spread over its models; a model's expected kills are
            // capped at one.
            let mut expected = vec![0.0; f.models.len()];
            for &c in &f.chariots {
                let per = f64::from(plans[c].chariot.attacks) / f.models.len() as f64;
                for (i, &m) in f.models.iter().enumerate() {
                    let p = plans[c].models[m].struck_by_chariot.probability();
                    let trapped = if models[m].monster { 1.0 } else { 2.0 };
                    expected[i] += per * trapped * p / f64::from(models[m].wounds.max(1));
                }
            }
            win * expected.iter().map(|e| e.min(1.0)).sum::<f64>()
        })
        .sum()
}

/// The chance that `ours` dice beat `theirs` (highest die; a tie to the higher Fight, an
/// equal Fight to a roll-off).
pub fn duel_win(ours: u32, theirs: u32, fight: std::cmp::Ordering) -> f64 {
    let at_most = |k: u32, n: u32| (f64::from(k) / 6.0).powi(n as i32);
    let mut win = 0.0;
    for high in 1..=6u32 {
        let p_ours = at_most(high, ours) - at_most(high - 1, ours);
        let below = at_most(high - 1, theirs);
        let tie = at_most(high, theirs) - below;
        let tie_won = match fight {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Less => 0.0,
            std::cmp::Ordering::Equal => 0.5,
        };
        win += p_ours * (below + tie * tie_won);
    }
    win
}
