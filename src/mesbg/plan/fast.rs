//! The common charge compiled down to sums: where a trial's metrics are fixed by which
//! rows of the plan's tables its dice pick, each row carries what it adds to the trial's
//! packed outcome, and a trial is a few table draws and word additions.
//!
//! The rows are the plan's own tables in the plan's own order, drawn with the same words
//! from the same streams, so a trial played this way gives exactly the outcome
//! [`crate::mesbg::resolve`] gives it die by die (a test checks this trial by trial on
//! every example). What the sums cannot say (a difficult-terrain test that rolls a 1 with
//! a Hero aboard or costs a chariot its last Wound, an obstacle, a fight without a table,
//! a Hero thrown from his slain chariot, enemy Heroes the chariot drove past, enemy
//! chariots) is left to the full resolver, trial by trial.

use super::*;
use crate::mesbg::tally::{Outcome, Packed};

/// A plan's common charge as additions to a packed outcome (see the module docs).
#[derive(Clone, Debug)]
pub struct FastCharge {
    /// Where the chariot stops: cumulative thresholds over the contact groups, the last
    /// value meaning it drove through (the plan's own stop table).
    pub stop: Vec<u64>,
    /// A stop at or past this group meets the difficult-terrain test first (its D6 is
    /// drawn here; a 1 is played in full); `usize::MAX` when the path has none.
    pub full_from_group: usize,
    /// The outcome of driving through, or `None` when it needs dice (an obstacle).
    pub drive_through: Option<Packed>,
    /// What a Wound from the difficult-terrain test adds (the test's Wound, the chariot's
    /// Wound lost), when a trial whose test rolls a 1 is played as sums (its fights drawn
    /// from [`FastGroup::wounded_fights`]); `None` when it is played in full.
    pub terrain_wound: Option<Packed>,
    /// Per contact group, what stopping there means.
    pub groups: Vec<FastGroup>,
    /// The models of every group, group after group.
    pub models: Vec<FastModel>,
    /// Cumulative thresholds of every table, table after table.
    pub thresholds: Vec<u64>,
    /// Rows of the Impact Hits tables, table after table.
    pub impact_rows: Vec<ImpactRow>,
    /// Per group and survivor configuration, its fight table (`None`: fought die by die).
    pub fights: Vec<Option<Table>>,
    /// Rows of the fight tables, table after table.
    pub fight_rows: Vec<FightRow>,
    /// The Break Point's verdict by the trial's kills, when an army is charged.
    pub army_broken: Option<Vec<bool>>,
}

/// Stopping at one contact group.
#[derive(Clone, Debug)]
pub struct FastGroup {
    /// What every stop here counts: the models before it (slain and touched), this
    /// group's models touched, and a fight fought.
    pub base: Packed,
    /// Its models in [`FastCharge::models`].
    pub models: std::ops::Range<usize>,
    /// Where its survivor configurations' fights start in [`FastCharge::fights`]; `None`
    /// when its fights are not tabulated (too many configurations) or enemy Heroes were
    /// driven past before it (their Fate is drawn on a stream of their own: played in full).
    pub fights: Option<usize>,
    /// The same for a chariot the difficult-terrain test cost a Wound (`None`: played in
    /// full).
    pub wounded_fights: Option<usize>,
}

/// One model of a contact group: its Impact Hits, drawn as the resolver draws them.
#[derive(Clone, Debug)]
pub struct FastModel {
    /// The chance the chariot drives on past it, given it stops at this group and drove
    /// past the earlier models of the group.
    pub passed_given_stop: Chance,
    /// Its outcomes given that it is passed.
    pub passed: Table,
    /// Given that it stops the chariot.
    pub stopped: Table,
    /// Unconditioned (once an earlier model of the group stopped the chariot).
    pub any: Table,
}

/// A table in the arenas: `len` thresholds from `thresholds` (so `len + 1` rows from
/// `rows`).
#[derive(Clone, Copy, Debug)]
pub struct Table {
    /// First threshold in [`FastCharge::thresholds`].
    pub thresholds: usize,
    /// Number of thresholds.
    pub len: usize,
    /// First row (in the impact or fight rows).
    pub rows: usize,
}

/// An Impact Hits outcome on one model.
#[derive(Clone, Copy, Debug)]
pub struct ImpactRow {
    /// What it adds: a casualty's kill.
    pub adds: Packed,
    /// Its part of the survivor configuration's index.
    pub config: usize,
    /// The chariot drives on past the model.
    pub passed: bool,
}

/// A fight outcome.
#[derive(Clone, Copy, Debug)]
pub struct FightRow {
    /// What it adds: won, kills, the chariot's Wounds, the Hero's Might and Fate.
    pub adds: Packed,
    /// The chariot was slain with a Hero riding it: his fall needs dice.
    pub needs_dice: bool,
}

/// The chance of a trial being handed back (by where the chariot stops) above which the
/// plan's trials are all played by the resolver.
const MOSTLY_HANDED_BACK: f64 = 0.5;

/// The most models a fast charge counts: every packed value stays far below 2^16.
const MAX_FAST_MODELS: usize = 30_000;

impl FastCharge {
    /// Compiles the plan's common charge, or `None` when no trial could be played as sums
    /// (enemy chariots on the board, or an absurdly long path) or most would be handed
    /// back (untabulated fights, enemy Heroes driven past).
    pub fn compile(plan: &Plan) -> Option<Self> {
        if plan.has_enemy_chariot || plan.models_on_path() > MAX_FAST_MODELS {
            return None;
        }
        let mut fast = Self {
            stop: plan.chain.stop.thresholds().to_vec(),
            full_from_group: if plan.difficult_from.is_some() { plan.terrain_group } else { usize::MAX },
            drive_through: None,
            terrain_wound: None,
            groups: Vec::with_capacity(plan.groups.len()),
            models: Vec::new(),
            thresholds: Vec::new(),
            impact_rows: Vec::new(),
            fights: Vec::new(),
            fight_rows: Vec::new(),
            army_broken: plan.army.map(|army| {
                (0..=plan.models_on_path() as u64)
                    .map(|kills| {
                        plan.rules.break_point.broken(u64::from(army.casualties) + kills, u64::from(army.models))
                    })
                    .collect()
            }),
        };
        // Driving through slays every enemy Hero on the path: their Fate needs dice.
        if plan.obstacle.is_none() && plan.foe_heroes.is_empty() {
            let passed = plan.models_on_path() as u16;
            let mut through = Outcome::default();
            through.set(Metric::ImpactKills, passed);
            through.set(Metric::Contacts, passed);
            through.set(Metric::Kills, passed);
            through.set(Metric::Breakthrough, u16::from(plan.breakthrough_possible));
            fast.drive_through = Some(through.packed());
        }
        for (g, group) in plan.groups.iter().enumerate() {
            let mut base = Outcome::default();
            base.set(Metric::ImpactKills, group.models_before as u16);
            base.set(Metric::Contacts, (group.models_before + group.models.len()) as u16);
            base.set(Metric::Kills, group.models_before as u16);
            base.set(Metric::FightFought, 1);
            let first_model = fast.models.len();
            for (i, (&m, &chance)) in group.models.iter().zip(&group.passed_given_stop).enumerate() {
                let impact = &plan.models[m].impact;
                let mut table = |cumulative: &CumulativeTable, outcomes: &[ContactOutcome]| {
                    let rows = outcomes.iter().map(|o| {
                        let mut adds = Outcome::default();
                        adds.set(Metric::ImpactKills, u16::from(o.casualty));
                        adds.set(Metric::Kills, u16::from(o.casualty));
                        if plan.models[m].hero.is_some() {
                            adds.set(Metric::FoeFateSpent, u16::from(o.fate_spent));
                            adds.set(Metric::FoeHeroesSlain, u16::from(o.casualty));
                        }
                        ImpactRow {
                            adds: adds.packed(),
                            config: group.config_part(i, o, &plan.models),
                            passed: o.passed,
                        }
                    });
                    fast.push_table(cumulative, rows, |f| &mut f.impact_rows)
                };
                let model = FastModel {
                    passed_given_stop: chance,
                    passed: table(&impact.passed_table, &impact.passed),
                    stopped: table(&impact.stopped_table, &impact.stopped),
                    any: table(&impact.table, &impact.outcomes),
                };
                fast.models.push(model);
            }
            let heroes_driven_past = plan.foe_heroes_before(g).next().is_some();
            let mut fights_of = |tables: &[Option<FightTable>], wounds_left: u8| {
                (!tables.is_empty() && !heroes_driven_past).then(|| {
                    let first = fast.fights.len();
                    for (config, table) in tables.iter().enumerate() {
                        let compiled = table.as_ref().map(|table| {
                            // A rider thrown from his slain mount stopped the chariot: the
                            // configuration says so, and its fight's rows count it.
                            let thrown = group.config_has_thrown_rider(config, &plan.models);
                            let rows = table.outcomes.iter().map(|r| fight_row(plan, r, thrown, wounds_left));
                            fast.push_table(&table.table, rows, |f| &mut f.fight_rows)
                        });
                        fast.fights.push(compiled);
                    }
                    first
                })
            };
            let fights = fights_of(&group.fights, plan.chariot.wounds);
            let wounded_fights = fights_of(&group.wounded_fights, plan.chariot.wounds.saturating_sub(1));
            fast.groups.push(FastGroup {
                base: base.packed(),
                models: first_model..fast.models.len(),
                fights,
                wounded_fights,
            });
        }
        // A Wound from the difficult-terrain test is played as sums where the groups past
        // the test have their fights tabulated for the wounded chariot.
        if plan.difficult_from.is_some() && plan.chariot.fights_wounded_from_tables() {
            let mut adds = Outcome::default();
            adds.set(Metric::TerrainWound, 1);
            adds.set(Metric::ChariotWoundsLost, 1);
            fast.terrain_wound = Some(adds.packed());
        }
        // Trials handed back cost their batch's work twice: where most would be, the
        // resolver plays them all (a difficult-terrain test hands back its 1s).
        let handed_back: f64 = (0..=plan.groups.len())
            .map(|g| {
                let p = plan.chain.stop_probabilities[g];
                let all = match fast.groups.get(g) {
                    Some(group) => group.fights.is_none(),
                    None => fast.drive_through.is_none(),
                };
                if all {
                    p
                } else if g >= fast.full_from_group && fast.terrain_wound.is_none() {
                    p / 6.0
                } else {
                    0.0
                }
            })
            .sum();
        (handed_back <= MOSTLY_HANDED_BACK).then_some(fast)
    }

    /// Appends a table's thresholds and rows to the arenas.
    fn push_table<R>(
        &mut self,
        cumulative: &CumulativeTable,
        rows: impl Iterator<Item = R>,
        arena: impl Fn(&mut Self) -> &mut Vec<R>,
    ) -> Table {
        let thresholds = cumulative.thresholds();
        let table = Table { thresholds: self.thresholds.len(), len: thresholds.len(), rows: arena(self).len() };
        self.thresholds.extend_from_slice(thresholds);
        arena(self).extend(rows);
        table
    }
}

/// What a fight outcome adds, as the resolver counts it after a fight with the
/// chariot's Hero's Might and Fate untouched before it and the chariot on `wounds_left`
/// (and, when `thrown_rider` says so, that a thrown rider stopped the chariot). The
/// Wound terrain may have taken first is counted apart ([`FastCharge::terrain_wound`]).
fn fight_row(plan: &Plan, result: &FightOutcome, thrown_rider: bool, wounds_left: u8) -> FightRow {
    let slain = result.wounds_lost >= wounds_left;
    let kills = u16::from(result.kills);
    let mut adds = Outcome::default();
    adds.set(Metric::ThrownRiderStopped, u16::from(thrown_rider));
    adds.set(Metric::FightWon, u16::from(result.won));
    adds.set(Metric::FightKills, kills);
    adds.set(Metric::Kills, kills);
    adds.set(Metric::ChariotWoundsLost, u16::from(result.wounds_lost));
    adds.set(Metric::ChariotSlain, u16::from(slain));
    if !plan.foe_heroes.is_empty() {
        adds.set(Metric::FoeMightSpent, u16::from(result.foe_might_spent));
        adds.set(Metric::FoeFateSpent, u16::from(result.foe_fate_spent));
        adds.set(Metric::FoeHeroesSlain, u16::from(result.foe_heroes_slain));
    }
    if plan.chariot.hero.is_some() {
        adds.set(Metric::MightSpent, u16::from(result.might_spent));
        adds.set(Metric::FateSpent, u16::from(result.fate_spent));
        adds.set(Metric::HeroKills, kills);
    }
    FightRow { adds: adds.packed(), needs_dice: slain && plan.chariot.hero.is_some() }
}
