//! Each chariot's Impact Hits on each model by the state an earlier chariot's hits left it
//! in, and the same tables laid out flat for the Move phase's inner loop.

use super::state::{ContactEffect, ImpactState};
use crate::dice::{CumulativeTable, Dice};
use crate::mesbg::plan::{ContactOutcome, ImpactTables, impact_tables};
use crate::mesbg::scenario::{MesbgRules, Mount, Profile, TurnEntry};

/// Impact Hits tables for one model by the state Impact Hits of an earlier chariot left it
/// in: Wounds left (1..), its mount's Wounds left (0 when it has none or lost it), a Hero's
/// Fate left.
#[derive(Clone, Debug)]
pub struct ImpactStates {
    /// Its Wounds.
    pub wounds: u8,
    /// Its mount's Wounds (0: no mount).
    pub mount: u8,
    /// Its Fate.
    pub fate: u8,
    /// Tables by [`ImpactStates::index`].
    pub tables: Vec<ImpactTables>,
}

/// The index among a model's Impact Hits tables of the state `s`, for a model whose mount
/// has `mount` Wounds and who has `fate` Fate: Wounds first, then the mount's, then Fate
/// ([`ImpactStates::compile`]'s order).
#[inline]
fn state_index((mount, fate): (u8, u8), s: ImpactState) -> usize {
    let (m, f) = (usize::from(mount) + 1, usize::from(fate) + 1);
    ((usize::from(s.left.max(1)) - 1) * m + usize::from(s.mount_left.min(mount))) * f
        + usize::from(s.fate_left.min(fate))
}

impl ImpactStates {
    /// The index of a state.
    #[inline]
    pub fn index(&self, s: ImpactState) -> usize {
        state_index((self.mount, self.fate), s)
    }

    /// The table for a model in state `s`.
    #[inline]
    pub fn table(&self, s: ImpactState) -> &ImpactTables {
        &self.tables[self.index(s)]
    }

    /// The opening state: every Wound, the mount's and the Fate.
    pub fn opening(&self) -> ImpactState {
        ImpactState { left: self.wounds, mount_left: self.mount, fate_left: self.fate }
    }

    /// The tables of `entry`'s chariot on a model of `profile`, for every state, each by
    /// the single charge's own chooser ([`impact_tables`]).
    pub fn compile(entry: &TurnEntry, profile: &Profile, rules: &MesbgRules) -> Self {
        let mount_wounds = profile.mount.map_or(0, |m| m.wounds);
        let fate = profile.hero.map_or(0, |h| h.fate);
        let mut tables = Vec::new();
        for left in 1..=profile.wounds {
            for mount_left in 0..=mount_wounds {
                for fate_left in 0..=fate {
                    let mount = profile.mount.map(|m| Mount { wounds: mount_left, ..m });
                    let model = Profile { wounds: left, mount, ..profile.clone() };
                    tables.push(impact_tables(&entry.chariot.impact, &model, fate_left, rules));
                }
            }
        }
        Self { wounds: profile.wounds, mount: mount_wounds, fate, tables }
    }

    /// The effects this chariot's Impact Hits can have on the model in state `s`, each with
    /// its exact chance: the state's table merged by [`ContactEffect`], in the order their
    /// first outcomes come in the table.
    pub fn effects(&self, s: ImpactState) -> Vec<(ContactEffect, f64)> {
        let table = self.table(s);
        let mut effects: Vec<(ContactEffect, f64)> = Vec::new();
        for (o, &p) in table.outcomes.iter().zip(&table.probabilities).filter(|(_, p)| **p > 0.0) {
            let effect = ContactEffect::of(o);
            match effects.iter_mut().find(|(e, _)| *e == effect) {
                Some((_, q)) => *q += p,
                None => effects.push((effect, p)),
            }
        }
        effects
    }

    /// For a replay: one outcome of the table of state `s` that has `effect`, drawn from
    /// the outcomes that do in proportion to their chances (the hits and wounds a drive
    /// drawn whole did not need to know).
    pub fn outcome_given(&self, s: ImpactState, effect: ContactEffect, trace: &mut Dice) -> ContactOutcome {
        let table = self.table(s);
        let matching: Vec<(ContactOutcome, f64)> = table
            .outcomes
            .iter()
            .zip(&table.probabilities)
            .filter(|(o, _)| ContactEffect::of(o) == effect)
            .map(|(o, &p)| (*o, p))
            .collect();
        let total: f64 = matching.iter().map(|o| o.1).sum();
        let pmf: Vec<f64> = matching.iter().map(|o| o.1 / total).collect();
        match matching.get(CumulativeTable::new(&pmf).sample(trace)) {
            Some(o) => o.0,
            None => table.outcomes[0],
        }
    }
}

/// Every chariot's Impact Hits tables on every model laid out flat: a contact of the Move
/// phase finds its model's table in two steps and reads its thresholds beside its
/// outcomes, where the nested tables take a chain of dependent loads (list of chariots,
/// list of models, the model's states, the table, its thresholds, its outcomes) that a
/// turn waits on at every contact. It draws what [`ImpactTables::sample`] draws from the
/// same word.
#[derive(Clone, Debug, Default)]
pub struct FlatImpact {
    /// Models on the board.
    models: usize,
    /// Per chariot and model (`chariot * models + model`): where its tables begin, and
    /// how its states index them.
    states: Vec<FlatStates>,
    /// Per table: its rows in `rows` (first, count).
    tables: Vec<(u32, u32)>,
    /// Per table, row by row: P(an outcome up to this one) scaled to 2^64 (as a
    /// [`CumulativeTable`] holds it; the last row's is not read), and the outcome.
    rows: Vec<(u64, ContactOutcome)>,
}

/// Where one chariot's tables on one model are in a [`FlatImpact`].
#[derive(Clone, Copy, Debug, Default)]
struct FlatStates {
    /// Its first table.
    first: u32,
    /// The model's Wounds.
    wounds: u8,
    /// Its mount's Wounds ([`ImpactStates::index`]).
    mount: u8,
    /// Its Fate.
    fate: u8,
    /// The model is a Hero (its fall counts among the enemy Heroes slain).
    hero: bool,
}

impl FlatImpact {
    /// Lays out `impact` (per chariot, per model), with which models are Heroes.
    pub fn new(impact: &[Vec<std::sync::Arc<ImpactStates>>], heroes: &[bool]) -> Self {
        let mut flat = FlatImpact { models: impact.first().map_or(0, Vec::len), ..Default::default() };
        for per_model in impact {
            for (states, &hero) in per_model.iter().zip(heroes) {
                flat.states.push(FlatStates {
                    first: flat.tables.len() as u32,
                    wounds: states.wounds,
                    mount: states.mount,
                    fate: states.fate,
                    hero,
                });
                for table in &states.tables {
                    let thresholds = table.table.thresholds().iter().copied().chain(std::iter::once(u64::MAX));
                    flat.tables.push((flat.rows.len() as u32, table.outcomes.len() as u32));
                    flat.rows.extend(thresholds.zip(table.outcomes.iter().copied()));
                }
            }
        }
        flat
    }

    /// The state `model` is in when the turn begins, untouched.
    #[inline]
    pub fn opening(&self, model: usize) -> ImpactState {
        let st = self.states[model];
        ImpactState { left: st.wounds, mount_left: st.mount, fate_left: st.fate }
    }

    /// Whether `model` is a Hero (its fall counts among the enemy Heroes slain).
    #[inline]
    pub fn is_hero(&self, model: usize) -> bool {
        self.states[model].hero
    }

    /// Draws the outcome of chariot `chariot`'s Impact Hits on `model`, in the state `s`
    /// it is in, with one word of `dice`; and whether the model is a Hero.
    #[inline]
    pub fn sample(&self, (chariot, model): (usize, usize), s: ImpactState, dice: &mut Dice) -> (ContactOutcome, bool) {
        let st = self.states[chariot * self.models + model];
        let index = state_index((st.mount, st.fate), s);
        let (first, count) = self.tables[st.first as usize + index];
        let rows = &self.rows[first as usize..(first + count) as usize];
        let u = dice.word();
        // Counted as `sampled_index` counts: the thresholds at or below the word.
        let at: usize = rows[..rows.len().saturating_sub(1)].iter().map(|r| usize::from(r.0 <= u)).sum();
        (rows[at].1, st.hero)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dice::{Phase, trial_dice};

    #[test]
    fn the_flat_impact_tables_draw_what_each_state_s_table_draws_from_the_same_word() {
        let text = include_str!("../../../scenarios/mesbg/turn-three-khandish-into-shield-wall.toml");
        let scenario = crate::mesbg::scenario::parse(text, "turn.toml").expect("the example reads");
        let entry = &scenario.entries()[0];
        let captain = scenario.formations[0].hero.as_ref().expect("a Captain").profile.clone();
        let warrior = scenario.formations[0].profile.clone();
        let horse = Mount { defence: 4, wounds: 2, attacks: 0, fight: 0, strength: 3 };
        // Infantry, a Hero with Fate, cavalry, and a Hero on a horse: every index of
        // Wounds, mount's Wounds and Fate.
        let profiles = [
            warrior.clone(),
            captain.clone(),
            Profile { mount: Some(horse), ..warrior },
            Profile { mount: Some(horse), ..captain },
        ];
        let states: Vec<std::sync::Arc<ImpactStates>> =
            profiles.iter().map(|p| std::sync::Arc::new(ImpactStates::compile(entry, p, &scenario.rules))).collect();
        assert!(states[3].mount > 0 && states[3].fate > 0 && states[3].wounds > 1, "every dimension varies");
        let heroes = [false, true, false, true];
        // Two chariots (the second's tables the same), so the chariot's offset counts too.
        let flat = FlatImpact::new(&[states.clone(), states.clone()], &heroes);
        for (m, st) in states.iter().enumerate() {
            assert_eq!(flat.opening(m), st.opening(), "model {m} untouched");
            // The tables in the order `ImpactStates::compile` makes them, counted here rather
            // than indexed by the formula the flat tables share.
            let mut compiled = st.tables.iter();
            for left in 1..=st.wounds {
                for mount_left in 0..=st.mount {
                    for fate_left in 0..=st.fate {
                        let table = compiled.next().expect("a table per state");
                        let s = ImpactState { left, mount_left, fate_left };
                        let (mut a, mut b) =
                            (trial_dice(5, m as u64, 0, Phase::Charge), trial_dice(5, m as u64, 0, Phase::Charge));
                        for _ in 0..500 {
                            let (got, hero) = flat.sample((1, m), s, &mut a);
                            assert_eq!(got, table.sample(&mut b), "model {m} at {left}/{mount_left}/{fate_left}");
                            assert_eq!(hero, heroes[m]);
                        }
                    }
                }
            }
            assert!(compiled.next().is_none(), "no table left over");
        }
    }
}
