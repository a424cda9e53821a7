//! Shieldwall (2024): a model with the rule that uses a shield gets +1 Defence while it is
//! in base contact with two or more other standing models that have the rule and use
//! shields. Cavalry and Prone models neither get nor give it.
//!
//! Within one charge whether a model is braced depends only on who still stands, and that
//! is fixed by where the chariot has got to: every model it touched before a contact group
//! was slain (a survivor would have stopped it), and no other model has fallen. So a
//! model's Defence against its Impact Hits is known when the plan is compiled (models
//! touched together are hit together: their neighbours' state is the one before the hits),
//! and its Defence in the fight follows from which of the models touched with it survived
//! their hits (worked out before it Backs Away, so a model knocked Prone by losing keeps it
//! for the Strikes).

use super::support::in_base_contact;
use super::{ContactGroup, PlannedModel, Push, SAME_TIME_INCHES};
use crate::geometry::Disc;

/// What changes for a model in a shield wall when it is braced.
#[derive(Clone, Debug)]
pub struct Braced {
    /// Its Defence with the bonus.
    pub defence: u8,
    /// What Impact Hits do to it at that Defence.
    pub impact: super::ImpactTables,
    /// What the chariot's Strikes need against it at that Defence.
    pub struck_by_chariot: crate::mesbg::rules::WoundRoll,
}

/// Friends a model needs touching it, standing, for the bonus.
pub const BRACING_NEIGHBOURS: usize = 2;

/// For each contact group, for each of its models in order: the models of the shield wall
/// that touch it and still stand when the chariot touches it (none touched by an earlier
/// group), where they stand then (a push made after that contact is undone). Empty lists
/// for models outside the wall; every list empty when no model is in it.
pub fn wall_neighbours(
    groups: &[ContactGroup],
    models: &[PlannedModel],
    discs: &[Disc],
    pushes: &[Push],
) -> Vec<Vec<Vec<usize>>> {
    wall_neighbours_standing(groups, models, discs, pushes, None)
}

/// [`wall_neighbours`] on a board where only the models `present` says stand (a later
/// chariot's drive in a turn: those an earlier one slew are gone).
pub fn wall_neighbours_standing(
    groups: &[ContactGroup],
    models: &[PlannedModel],
    discs: &[Disc],
    pushes: &[Push],
    present: Option<&[bool]>,
) -> Vec<Vec<Vec<usize>>> {
    let members: Vec<usize> = (0..models.len())
        .filter(|&m| models[m].braced.is_some() && present.is_none_or(|p| p.get(m).copied().unwrap_or(false)))
        .collect();
    let mut touched_by = vec![usize::MAX; models.len()];
    for (g, group) in groups.iter().enumerate() {
        for &m in &group.models {
            touched_by[m] = g;
        }
    }
    groups
        .iter()
        .enumerate()
        .map(|(g, group)| {
            if members.is_empty() || !group.models.iter().any(|&m| models[m].braced.is_some()) {
                return vec![Vec::new(); group.models.len()];
            }
            // Where every model stood when this group was touched.
            let mut at = discs.to_vec();
            for push in pushes.iter().rev().filter(|p| p.at_distance >= group.distance - SAME_TIME_INCHES) {
                if let Some(d) = at.get_mut(push.model) {
                    d.centre = push.from;
                }
            }
            group
                .models
                .iter()
                .map(|&m| {
                    if models[m].braced.is_none() {
                        return Vec::new();
                    }
                    members
                        .iter()
                        .copied()
                        .filter(|&n| n != m && touched_by[n] >= g && in_base_contact(&at[m], &at[n]))
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// Per model, the standing models of its shield wall that touch it (`present` says who
/// stands; empty lists for models outside the wall): a turn's Fight phase reads who of
/// them is still standing, not Prone, when each fight begins.
pub fn wall_on_board(models: &[PlannedModel], discs: &[Disc], present: &[bool]) -> Vec<Vec<usize>> {
    let members: Vec<usize> =
        (0..models.len()).filter(|&m| models[m].braced.is_some() && present.get(m).copied().unwrap_or(false)).collect();
    (0..models.len())
        .map(|m| {
            if !members.contains(&m) {
                return Vec::new();
            }
            members.iter().copied().filter(|&n| n != m && in_base_contact(&discs[m], &discs[n])).collect()
        })
        .collect()
}

impl ContactGroup {
    /// Whether model `i` of the group is braced when the chariot touches the group.
    pub fn braced_on_contact(&self, i: usize) -> bool {
        self.wall_neighbours.get(i).is_some_and(|n| n.len() >= BRACING_NEIGHBOURS)
    }

    /// Whether model `i` of the group is braced in the fight, `in_fight(n)` saying whether
    /// the group's model `n` (a model index) survived its Impact Hits; every other wall
    /// neighbour (untouched, or pushed aside) still stands.
    pub fn braced_in_fight(&self, i: usize, in_fight: impl Fn(usize) -> bool) -> bool {
        self.wall_neighbours.get(i).is_some_and(|neighbours| {
            neighbours.iter().filter(|&&n| !self.models.contains(&n) || in_fight(n)).count() >= BRACING_NEIGHBOURS
        })
    }

    /// Whether any model of the group stands in a shield wall that can brace it.
    pub fn has_wall(&self) -> bool {
        self.wall_neighbours.iter().any(|n| n.len() >= BRACING_NEIGHBOURS)
    }
}

/// For each contact group of a drive, each model's chance that the chariot drives on past
/// it (its Impact Hits slay it) at the Defence it has when touched.
pub fn passed_chances(
    groups: &[ContactGroup],
    models: &[PlannedModel],
    discs: &[Disc],
    pushes: &[Push],
) -> Vec<Vec<f64>> {
    let plain = || groups.iter().map(|g| g.models.iter().map(|&m| models[m].impact.p_passed).collect()).collect();
    if !models.iter().any(|m| m.braced.is_some()) {
        return plain();
    }
    let wall = wall_neighbours(groups, models, discs, pushes);
    groups
        .iter()
        .zip(&wall)
        .map(|(g, neighbours)| {
            g.models
                .iter()
                .zip(neighbours)
                .map(|(&m, n)| match &models[m].braced {
                    Some(b) if n.len() >= BRACING_NEIGHBOURS => b.impact.p_passed,
                    _ => models[m].impact.p_passed,
                })
                .collect()
        })
        .collect()
}

impl PlannedModel {
    /// What the chariot's Strikes need against the model, braced by its wall or not.
    pub fn struck(&self, braced: bool) -> (crate::mesbg::rules::WoundRoll, u8) {
        match &self.braced {
            Some(b) if braced => (b.struck_by_chariot, b.defence),
            _ => (self.struck_by_chariot, self.defence),
        }
    }
}
