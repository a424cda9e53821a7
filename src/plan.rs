//! Compiling a scenario into a plan: geometry and tables resolved once, so that a trial
//! only walks an ordered list rolling dice.
//!
//! A chariot's path and the order of the models it meets do not depend on the dice: a
//! slain model is simply passed and a survivor stops the chariot. So the pivots, the pushes
//! they cause, and every contact along the full Move are worked out here, and each contact
//! carries the exact distribution of what its Impact Hits do.

use crate::dice::{Chance, CumulativeTable, Dice, DiceExpr};
use crate::geometry::{self, Disc, Footprint, Pose, Vec2};
use crate::rules::mesbg::{self, FightOutcome, Side, WoundRoll};
use crate::rules::mesbg_duel::{FoeHero, wounds_on_foe_hero};
use crate::rules::mesbg_fight::{
    self, ChariotFighter, Combatant, FatePolicy, FightRules, HeroInFight, MountCombatant, Saves,
};
use crate::scenario::{
    Army, CavalryPassed, Heroism, MesbgRules, MightPolicy, Mount, Objective, PathChoice, Profile, Scenario, Terrain,
    TerrainMeasure,
};
use crate::tally::Metric;
use serde::Serialize;
use std::collections::BTreeMap;

/// Hits an obstacle and a chariot driving into it inflict on each other.
pub const OBSTACLE_HITS: u8 = 3;
/// Their Strength.
pub const OBSTACLE_STRENGTH: u8 = 6;

/// The area of a footprint, square inches (to compare chariot sizes).
pub fn footprint_area(f: &Footprint) -> f64 {
    f.area()
}

/// Strength of the hit a Hero takes when thrown from his slain chariot (Knocked Flying).
pub const THROWN_STRENGTH: u8 = 3;

/// The length of drive after which the chariot may pivot again, inches.
pub const PIVOT_EVERY: f64 = 4.0;

/// Models the chariot first touches within this much drive of each other (millimetres)
/// are touched at the same time: they form one contact group and all take their hits.
/// A hundredth of a millimetre is far below what a tape measure resolves, and far above
/// the geometry's rounding (1e-7 inch), so models placed symmetrically about the path
/// are simultaneous while a model a visible hair further away is not.
pub const SAME_TIME_MM: f64 = 0.01;

/// [`SAME_TIME_MM`] in inches.
pub const SAME_TIME_INCHES: f64 = SAME_TIME_MM / geometry::MM_PER_INCH;

pub mod support;

use support::{Polearm, Presence, SupportMap};

/// The most survivor configurations of one contact group whose fights are tabulated
/// exactly; larger groups fight die by die (same rules, slower).
pub const MAX_FIGHT_TABLES: usize = 4096;

/// One model on the board as the trials need it.
#[derive(Clone, Debug)]
pub struct PlannedModel {
    /// Index of its formation in the scenario.
    pub formation: usize,
    /// 1-based number within its formation, rank by rank.
    pub number: usize,
    /// Where it stands when contacted (after any pushes).
    pub centre: Vec2,
    /// Fight value.
    pub fight: u8,
    /// Attacks.
    pub attacks: u8,
    /// Wounds.
    pub wounds: u8,
    /// Defence.
    pub defence: u8,
    /// Points.
    pub points: u32,
    /// A Monster (never knocked Prone).
    pub monster: bool,
    /// Its mount, for cavalry.
    pub mount: Option<MountInFight>,
    /// What the Strength 3 hit of being Knocked Flying needs against it.
    pub thrown_hit: WoundRoll,
    /// An enemy chariot: never Prone; `Some(true)` when our chariot's base is the larger,
    /// `Some(false)` when smaller, `None` when the same size.
    pub chariot: Option<Option<bool>>,
    /// What Impact Hits do to it: outcomes and their exact distribution.
    pub impact: ImpactTables,
    /// What the chariot's Strikes need against it.
    pub struck_by_chariot: WoundRoll,
    /// What its Strikes need against the chariot.
    pub strikes_chariot: WoundRoll,
    /// An enemy Hero: his Might and Fate (all of them, before the charge) and how he
    /// spends them.
    pub hero: Option<FoeHero>,
}

/// What Impact Hits did to one model (and its mount, for cavalry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ContactOutcome {
    /// Impact Hits on the model (the rider, for cavalry).
    pub hits: u8,
    /// Wounds they caused, capped at its Wounds.
    pub wounds: u8,
    /// For cavalry: hits and wounds on the mount.
    pub mount: Option<(u8, u8)>,
    /// For a rider whose mount was slain: the Thrown Rider D6 (1 Knocked Flying, 2-5 Rises
    /// from the Dust, 6 Leaps into Action).
    pub thrown: Option<u8>,
    /// Wounds the model (the rider) has left.
    pub left: u8,
    /// Wounds the mount has left (0: slain, fled or none).
    pub mount_left: u8,
    /// Prone after the contact (a rider Knocked Flying).
    pub prone: bool,
    /// The model counts as a casualty (the rider slain).
    pub casualty: bool,
    /// The chariot drives on past it.
    pub passed: bool,
    /// Fate points an enemy Hero spent against the Impact Hits' Wounds.
    #[serde(skip_serializing_if = "is_zero")]
    pub fate_spent: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// The outcomes of Impact Hits on one model, split by whether the chariot drives on past
/// it, each part compiled for one-draw sampling.
#[derive(Clone, Debug)]
pub struct ImpactTables {
    /// Exact chance that the chariot drives on past the model.
    pub p_passed: f64,
    /// Every outcome.
    pub outcomes: Vec<ContactOutcome>,
    /// Their exact probabilities.
    pub probabilities: Vec<f64>,
    /// Samples an index into `outcomes` (unconditioned).
    pub table: CumulativeTable,
    /// Outcomes the chariot drives on past.
    pub passed: Vec<ContactOutcome>,
    /// Samples `passed` given that the chariot drives on.
    pub passed_table: CumulativeTable,
    /// Outcomes that stop the chariot.
    pub stopped: Vec<ContactOutcome>,
    /// Samples `stopped` given that the model stops the chariot.
    pub stopped_table: CumulativeTable,
}

impl ImpactTables {
    /// Compiles the joint distribution of (hits, wounds) for Impact Hits on one infantry model.
    pub fn new(hits: DiceExpr, strength: u8, defence: u8, wounds: u8) -> Self {
        let (pairs, probs): (Vec<(u8, u8)>, Vec<f64>) =
            mesbg::impact_outcomes(hits, strength, defence, wounds).into_iter().unzip();
        let outcomes = pairs
            .into_iter()
            .map(|(h, w)| ContactOutcome {
                hits: h,
                wounds: w,
                mount: None,
                thrown: None,
                left: wounds - w,
                mount_left: 0,
                prone: false,
                casualty: w >= wounds,
                passed: w >= wounds,
                fate_spent: 0,
            })
            .collect();
        Self::from_outcomes(outcomes, probs)
    }

    /// Compiles Impact Hits on an enemy Hero on foot: each Wound may be prevented by his
    /// Fate (retried by the ruleset), never by Might (Impact Hits are never modified by
    /// Might, and the Fate roll against them is taken plain here). Wounds beyond his
    /// Wounds plus Fate cannot change anything (each prevented Wound costs a Fate point), so
    /// the hits' Wounds are counted up to that many.
    pub fn heroic(hits: DiceExpr, strength: u8, defence: u8, wounds: u8, fate: u8, saves: Saves) -> Self {
        let saves = Saves { might_on_fate: false, might_on_terrain: false, ..saves };
        let mut merged: BTreeMap<(u8, u8, u8), f64> = BTreeMap::new();
        for ((h, raw), p) in mesbg::impact_outcomes(hits, strength, defence, wounds.saturating_add(fate)) {
            for ((left, fate_left, _), q) in wounds_on_foe_hero(saves, (wounds, fate, 0), raw) {
                *merged.entry((h, left, fate - fate_left)).or_default() += p * q;
            }
        }
        let (outcomes, probs): (Vec<ContactOutcome>, Vec<f64>) = merged
            .into_iter()
            .map(|((h, left, fate_spent), p)| {
                let outcome = ContactOutcome {
                    hits: h,
                    wounds: wounds - left,
                    mount: None,
                    thrown: None,
                    left,
                    mount_left: 0,
                    prone: false,
                    casualty: left == 0,
                    passed: left == 0,
                    fate_spent,
                };
                (outcome, p)
            })
            .unzip();
        Self::from_outcomes(outcomes, probs)
    }

    /// Compiles the outcomes of Impact Hits on a cavalry model: rider and mount each take
    /// the hits; a rider whose mount is slain rolls on the Thrown Rider chart (Knocked
    /// Flying: a Strength 3 hit, then Prone); a mount without Attacks whose rider is slain
    /// flees. `passed_when` says when the chariot drives on.
    pub fn cavalry(hits: DiceExpr, strength: u8, rider: &Profile, mount: &Mount, passed_when: CavalryPassed) -> Self {
        let (rider_pairs, rider_probs): (Vec<(u8, u8)>, Vec<f64>) =
            mesbg::impact_outcomes(hits, strength, rider.defence, rider.wounds).into_iter().unzip();
        let (mount_pairs, mount_probs): (Vec<(u8, u8)>, Vec<f64>) =
            mesbg::impact_outcomes(hits, strength, mount.defence, mount.wounds).into_iter().unzip();
        let thrown_p = mesbg::to_wound(THROWN_STRENGTH, rider.defence).probability();
        let mut outcomes = Vec::new();
        let mut probs = Vec::new();
        for (&(rh, rw), &rp) in rider_pairs.iter().zip(&rider_probs) {
            for (&(mh, mw), &mp) in mount_pairs.iter().zip(&mount_probs) {
                let rider_left = rider.wounds - rw;
                let mount_left = mount.wounds - mw;
                let base = ContactOutcome {
                    hits: rh,
                    wounds: rw,
                    mount: Some((mh, mw)),
                    thrown: None,
                    left: rider_left,
                    mount_left,
                    prone: false,
                    casualty: rider_left == 0,
                    passed: false,
                    fate_spent: 0,
                };
                let mut push = |mut o: ContactOutcome, p: f64| {
                    if o.left == 0 && o.mount_left > 0 && mount.attacks == 0 {
                        o.mount_left = 0; // a riderless mount without Attacks flees
                    }
                    o.casualty = o.left == 0;
                    o.passed = match passed_when {
                        CavalryPassed::RiderSlainAndMountGone => o.left == 0 && o.mount_left == 0,
                        CavalryPassed::RiderSlain => o.left == 0,
                    };
                    outcomes.push(o);
                    probs.push(p);
                };
                if rider_left > 0 && mount_left == 0 {
                    // Thrown Rider: 1 Knocked Flying (S3 hit, then Prone), 2-5 Rises from
                    // the Dust, 6 Leaps into Action.
                    for die in 1..=6u8 {
                        let p = rp * mp / 6.0;
                        if die == 1 {
                            let hurt = ContactOutcome { thrown: Some(1), left: rider_left - 1, prone: true, ..base };
                            push(hurt, p * thrown_p);
                            push(ContactOutcome { thrown: Some(1), prone: true, ..base }, p * (1.0 - thrown_p));
                        } else {
                            push(ContactOutcome { thrown: Some(die), ..base }, p);
                        }
                    }
                } else {
                    push(base, rp * mp);
                }
            }
        }
        Self::from_outcomes(outcomes, probs)
    }

    fn from_outcomes(outcomes: Vec<ContactOutcome>, probs: Vec<f64>) -> Self {
        let split = |passed: bool| {
            let (o, p): (Vec<ContactOutcome>, Vec<f64>) =
                outcomes.iter().zip(&probs).filter(|(o, _)| o.passed == passed).map(|(o, p)| (*o, *p)).unzip();
            let total: f64 = p.iter().sum();
            let normalised: Vec<f64> = p.iter().map(|x| x / total).collect();
            (o, CumulativeTable::new(&normalised), total)
        };
        let (passed, passed_table, p_passed) = split(true);
        let (stopped, stopped_table, _) = split(false);
        Self {
            p_passed,
            table: CumulativeTable::new(&probs),
            outcomes,
            probabilities: probs,
            passed,
            passed_table,
            stopped,
            stopped_table,
        }
    }

    /// An outcome, unconditioned.
    #[inline]
    pub fn sample(&self, dice: &mut Dice) -> ContactOutcome {
        self.outcomes[self.table.sample(dice)]
    }

    /// An outcome given that the chariot drives on past the model (or is stopped by it).
    #[inline]
    pub fn sample_given(&self, passed: bool, dice: &mut Dice) -> ContactOutcome {
        if passed { self.passed[self.passed_table.sample(dice)] } else { self.stopped[self.stopped_table.sample(dice)] }
    }
}

/// A cavalry model's mount as the fight needs it.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct MountInFight {
    /// Attacks (added to the rider's dice and Strikes while mounted).
    pub attacks: u8,
    /// Fight value.
    pub fight: u8,
    /// Defence.
    pub defence: u8,
    /// What the chariot's Strikes need against it.
    pub struck_by_chariot: WoundRoll,
    /// What its Strikes need against the chariot.
    pub strikes_chariot: WoundRoll,
}

/// Models first touched at the same distance along the path: all take their hits.
#[derive(Clone, Debug, Serialize)]
pub struct ContactGroup {
    /// Distance driven when they are touched, inches.
    pub distance: f64,
    /// Indices into [`Plan::models`].
    pub models: Vec<usize>,
    /// For each model in order: the chance the chariot would drive on past it, given that
    /// it stops at this group (not all passed) and it drove on past every earlier model of
    /// the group. Once one
    /// survives, the rest are unconditioned.
    #[serde(skip)]
    pub passed_given_stop: Vec<Chance>,
    /// Models touched before this group (all slain if the chariot got here).
    pub models_before: usize,
    /// Per model in order: the weight of its Wounds left in a survivor configuration's
    /// index (mixed radix: Wounds + 1 per model).
    #[serde(skip)]
    pub config_strides: Vec<usize>,
    /// Per model in order: the weight of an enemy Hero's Fate left after the Impact Hits
    /// in the configuration's index (Fate + 1 values), 0 for a model without Fate.
    #[serde(skip)]
    pub fate_strides: Vec<usize>,
    /// Exact fight outcome tables by survivor configuration index (empty when the group
    /// has more than [`MAX_FIGHT_TABLES`] configurations).
    #[serde(skip)]
    pub fights: Vec<Option<FightTable>>,
}

impl ContactGroup {
    /// The survivor configuration `index` stands for: per model, (Wounds left, Fate left).
    pub fn decode(&self, index: usize, models: &[PlannedModel]) -> Vec<(u8, u8)> {
        self.models
            .iter()
            .zip(self.config_strides.iter().zip(&self.fate_strides))
            .map(|(&m, (&stride, &fate_stride))| {
                let left = ((index / stride) % (usize::from(models[m].wounds) + 1)) as u8;
                let fate = models[m].hero.map_or(0, |h| h.fate);
                let fate_left = index.checked_div(fate_stride).map_or(fate, |q| (q % (usize::from(fate) + 1)) as u8);
                (left, fate_left)
            })
            .collect()
    }

    /// The index of a survivor configuration: model `i` of the group has `left` Wounds and
    /// spent `fate_spent` Fate (a Hero's) on its Impact Hits.
    #[inline]
    pub fn config_part(&self, i: usize, left: u8, fate_spent: u8, models: &[PlannedModel]) -> usize {
        let fate_part = match self.fate_strides.get(i) {
            Some(&fs) if fs > 0 => {
                let fate = models[self.models[i]].hero.map_or(0, |h| h.fate);
                usize::from(fate - fate_spent) * fs
            }
            _ => 0,
        };
        usize::from(left) * self.config_strides[i] + fate_part
    }
}

/// The exact outcome distribution of one fight, compiled for one-draw sampling.
#[derive(Clone, Debug)]
pub struct FightTable {
    /// Possible outcomes.
    pub outcomes: Vec<FightOutcome>,
    /// Their probabilities.
    pub probabilities: Vec<f64>,
    /// Samples an index into `outcomes`.
    pub table: CumulativeTable,
    /// The outcomes with their probabilities, as the exact engine reads them.
    pub distribution: Vec<(FightOutcome, f64)>,
}

impl FightTable {
    /// Compiles an exact distribution, the likeliest outcomes first: a draw scans the
    /// cumulative table from the start, so the common outcomes are found at once.
    pub fn new(mut distribution: Vec<(FightOutcome, f64)>) -> Self {
        distribution.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let (outcomes, probabilities): (Vec<_>, Vec<_>) = distribution.iter().copied().unzip();
        let table = CumulativeTable::new(&probabilities);
        Self { outcomes, probabilities, table, distribution }
    }

    /// Draws an outcome.
    #[inline]
    pub fn sample(&self, dice: &mut Dice) -> FightOutcome {
        self.outcomes[self.table.sample(dice)]
    }
}

/// Where the chariot stops, compiled: a slain model is passed and a survivor stops it, so
/// the group it stops at has an exact distribution, drawn with one word per trial.
#[derive(Clone, Debug)]
pub struct ImpactChain {
    /// Index of the stopping group; `groups.len()` means it drove through.
    pub stop: CumulativeTable,
    /// P(stopping at group g), and last P(driving through), for reports and tests.
    pub stop_probabilities: Vec<f64>,
}

/// A model moved aside by a pivot (it takes no hits).
#[derive(Clone, Debug, Serialize)]
pub struct Push {
    /// Distance driven before the pivot, inches.
    pub at_distance: f64,
    /// Index into [`Plan::models`].
    pub model: usize,
    /// Where it stood.
    pub from: Vec2,
    /// Where it was pushed.
    pub to: Vec2,
}

/// The chariot drives into an obstacle.
#[derive(Clone, Debug, Serialize)]
pub struct ObstacleContact {
    /// The obstacle's name.
    pub name: String,
    /// Distance driven when it touches it, inches.
    pub distance: f64,
}

/// The distance a drive covers for `budget` inches of Move when the `stretches` (sorted,
/// disjoint, from the start of the drive) are difficult terrain, where Move is halved.
pub fn distance_for_move(budget: f64, stretches: &[(f64, f64)]) -> f64 {
    let (mut at, mut cost) = (0.0, 0.0);
    for &(from, to) in stretches {
        let open = (from - at).max(0.0);
        if cost + open >= budget {
            return at + (budget - cost);
        }
        cost += open;
        at = at.max(from);
        let rough = (to - at).max(0.0);
        if cost + 2.0 * rough >= budget {
            return at + (budget - cost) / 2.0;
        }
        cost += 2.0 * rough;
        at = at.max(to);
    }
    at + (budget - cost)
}

/// Merges overlapping stretches into sorted disjoint ones.
fn merge_stretches(mut stretches: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    stretches.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut merged: Vec<(f64, f64)> = Vec::with_capacity(stretches.len());
    for (from, to) in stretches {
        match merged.last_mut() {
            Some(last) if from <= last.1 => last.1 = last.1.max(to),
            _ => merged.push((from, to)),
        }
    }
    merged
}

/// A straight stretch of the path.
#[derive(Clone, Debug, Serialize)]
pub struct Leg {
    /// Pose at the start of the stretch (after its pivot).
    pub start: Pose,
    /// Distance driven before this stretch, inches.
    pub from_distance: f64,
    /// Length of the stretch, inches.
    pub length: f64,
}

/// The chariot as the fight needs it, with the Hero riding it folded in: his Fight and
/// Strength where better, his Attacks added.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FightingChariot {
    /// Fight value.
    pub fight: u8,
    /// Strength.
    pub strength: u8,
    /// Defence.
    pub defence: u8,
    /// Attacks in the fight after the charge (the +1 for charging included).
    pub attacks: u8,
    /// Wounds.
    pub wounds: u8,
    /// Allegiance.
    pub side: Side,
    /// The Hero riding it.
    pub hero: Option<RidingHero>,
    /// How its Hero saves its Wounds (no Fate or Might without a Hero).
    #[serde(skip)]
    pub saves: Saves,
}

/// What the rules need of a Hero riding a chariot.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct RidingHero {
    /// Might points.
    pub might: u8,
    /// Fate points.
    pub fate: u8,
    /// When Might is spent in the fight.
    pub might_policy: MightPolicy,
    /// Which Wounds get Fate.
    pub fate_policy: FatePolicy,
    /// Might also saves Wounds (terrain D6, Fate rolls).
    pub might_on_saves: bool,
    /// His own Wounds.
    pub wounds: u8,
    /// What the Strength 3 hit of being thrown from the slain chariot needs against him.
    pub thrown_hit: WoundRoll,
}

/// The compiled scenario.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Every model on the board.
    pub models: Vec<PlannedModel>,
    /// Contacts along the full Move, in order.
    pub groups: Vec<ContactGroup>,
    /// Where the chariot stops.
    pub chain: ImpactChain,
    /// Models pushed aside by pivots.
    pub pushes: Vec<Push>,
    /// The path, stretch by stretch.
    pub legs: Vec<Leg>,
    /// Where the chariot ends if nothing stops it.
    pub end: Pose,
    /// True when the full Move ends wholly past the last rank of every formation it
    /// touches (and it touches at least one): breakthrough then only needs every model
    /// on the path slain.
    pub breakthrough_possible: bool,
    /// Names of the formations on the path.
    pub formations_on_path: Vec<String>,
    /// The chariot in the fight.
    pub chariot: FightingChariot,
    /// Ruleset options.
    pub rules: MesbgRules,
    /// Names of the formations, by index.
    pub formation_names: Vec<String>,
    /// Models per full rank of each formation (to name a model by rank and file).
    pub formation_files: Vec<usize>,
    /// The metrics this scenario reports.
    pub metrics: Vec<Metric>,
    /// Distance driven when the chariot first enters difficult terrain (as the ruleset
    /// measures it): reaching it means the difficult-terrain test, rolled there and then.
    pub difficult_from: Option<f64>,
    /// The first contact group the chariot reaches only after that test (touched at or
    /// after the point of entry): a chariot slain by the test never reaches it.
    /// `groups.len()` when every group comes before it, or there is no test.
    pub terrain_group: usize,
    /// Where the chariot drives into an obstacle, if it does.
    pub obstacle: Option<ObstacleContact>,
    /// Times the chariot was moved away from an obstacle to finish a pivot.
    pub moved_off_obstacles: Vec<Push>,
    /// Move value spent along the full path (difficult terrain costs double).
    pub move_spent: f64,
    /// Distance driven along the full path, inches.
    pub path_length: f64,
    /// The pivot made at each chance (chosen by the path policy), degrees.
    pub pivots: Vec<f64>,
    /// What the obstacle's three Strength 6 hits need against the chariot.
    pub obstacle_hit: WoundRoll,
    /// The Break Point of the army charged.
    pub army: Option<Army>,
    /// Whether the path meets difficult terrain or an obstacle (so trials must check).
    pub has_hazards: bool,
    /// Whether any enemy model is a chariot (so fights must check who Backs Away).
    pub has_enemy_chariot: bool,
    /// Spears, pikes and banners on the board, for the fights they help.
    pub support: SupportMap,
    /// The enemy Heroes on the path as (contact group, model), in path order (empty in
    /// most scenarios, so trials without Heroes skip their bookkeeping).
    pub foe_heroes: Vec<(usize, usize)>,
    /// The Heroes placed among warriors as (formation, 1-based number, name), so labels
    /// name them.
    pub hero_names: Vec<(usize, usize, String)>,
}

impl Plan {
    /// The enemy Heroes the chariot touches (model indices), in path order.
    pub fn foe_heroes_on_path(&self) -> Vec<usize> {
        self.foe_heroes.iter().map(|&(_, m)| m).collect()
    }

    /// The enemy Heroes in contact groups before `g`: the chariot drove past them, so
    /// Impact Hits slew them (perhaps after they spent Fate).
    pub fn foe_heroes_before(&self, g: usize) -> impl Iterator<Item = usize> + '_ {
        self.foe_heroes.iter().take_while(move |&&(group, _)| group < g).map(|&(_, m)| m)
    }

    /// Number of models on the full path.
    pub fn models_on_path(&self) -> usize {
        self.groups.iter().map(|g| g.models.len()).sum()
    }

    /// The largest group of simultaneous contacts.
    pub fn largest_group(&self) -> usize {
        self.groups.iter().map(|g| g.models.len()).max().unwrap_or(0)
    }

    /// A short label for a model by its formation, rank and file (files from the
    /// formation's own left), e.g. `Warriors of Minas Tirith (rank 1, file 3)`.
    pub fn model_label(&self, model: usize) -> String {
        let m = &self.models[model];
        let files = self.formation_files.get(m.formation).copied().unwrap_or(1).max(1);
        let (rank, file) = ((m.number - 1) / files + 1, (m.number - 1) % files + 1);
        let formation = &self.formation_names[m.formation];
        match self.hero_names.iter().find(|(f, n, _)| *f == m.formation && *n == m.number) {
            Some((_, _, name)) => format!("{name} ({formation}, rank {rank}, file {file})"),
            None => format!("{formation} (rank {rank}, file {file})"),
        }
    }
}

impl FightingChariot {
    /// The chariot as a fight sees it, with all its Wounds.
    pub fn fighter(&self) -> ChariotFighter {
        ChariotFighter { fight: self.fight, attacks: self.attacks, wounds_left: self.wounds, side: self.side }
    }

    /// What its Hero brings to a fight with all his Might and Fate.
    pub fn hero_in_fight(&self) -> HeroInFight {
        self.hero.map_or(HeroInFight::NONE, |h| HeroInFight {
            might: h.might,
            fate: h.fate,
            might_on_duel: h.might_policy.on_duel(),
            might_on_wounds: h.might_policy.on_wounds(),
            saves: self.saves,
        })
    }
}

impl PlannedModel {
    /// The model as a fight sees it, with `wounds_left` Wounds.
    pub fn combatant(&self, wounds_left: u8) -> Combatant {
        Combatant {
            fight: self.fight,
            attacks: self.attacks,
            defence: self.defence,
            wounds_left,
            struck_by_chariot: self.struck_by_chariot,
            strikes_chariot: self.strikes_chariot,
            never_prone: self.monster || self.chariot.is_some(),
            chariot: self.chariot.is_some(),
            mount: None,
            prone: false,
            strikes: true,
            knocked_flying: self.thrown_hit,
            hero: self.hero,
        }
    }

    /// The model as a fight sees it after its Impact Hits: the rider's Wounds, its mount
    /// while it stands, Prone, and no Strikes from a rider thrown this turn.
    pub fn combatant_after(&self, outcome: &ContactOutcome) -> Combatant {
        Combatant {
            mount: self.mount.filter(|_| outcome.mount_left > 0).map(|m| MountCombatant {
                fight: m.fight,
                attacks: m.attacks,
                defence: m.defence,
                wounds_left: outcome.mount_left,
                struck_by_chariot: m.struck_by_chariot,
                strikes_chariot: m.strikes_chariot,
            }),
            prone: outcome.prone,
            strikes: !outcome.prone && !matches!(outcome.thrown, Some(2..=5)),
            hero: self.hero.map(|h| FoeHero { fate: h.fate - outcome.fate_spent, ..h }),
            ..self.combatant(outcome.left)
        }
    }
}

/// How an enemy Hero saves Wounds: Fate by the ruleset and his policy, Might on the Fate
/// roll when both the rules and his profile allow it.
pub fn foe_saves(h: &Heroism, rules: &MesbgRules) -> Saves {
    Saves {
        fate_rule: rules.fate,
        fate_policy: h.fate_policy.as_fate_policy(),
        might_on_fate: rules.might_on_fate && h.might_on_saves,
        might_on_terrain: false,
    }
}

/// The fight rules in force.
pub fn fight_rules(rules: &MesbgRules) -> FightRules {
    FightRules {
        trapped: rules.prone_counts_as_trapped,
        allocation: rules.strike_allocation,
        split: rules.strike_split,
    }
}

/// Tabulates the exact fight of every survivor configuration of group `g`, with the
/// spears, pikes and banners that help each one.
fn compile_fights(
    groups: &mut [ContactGroup],
    g: usize,
    models: &[PlannedModel],
    chariot: &FightingChariot,
    rules: &MesbgRules,
    map: &SupportMap,
) {
    let group = &mut groups[g];
    let mut strides = Vec::with_capacity(group.models.len());
    let mut fate_strides = Vec::with_capacity(group.models.len());
    let mut configs: usize = 1;
    for &m in &group.models {
        strides.push(configs);
        configs = configs.saturating_mul(usize::from(models[m].wounds) + 1);
        match models[m].hero.filter(|h| h.fate > 0) {
            Some(h) => {
                fate_strides.push(configs);
                configs = configs.saturating_mul(usize::from(h.fate) + 1);
            }
            None => fate_strides.push(0),
        }
    }
    group.config_strides = strides;
    group.fate_strides = fate_strides;
    // Cavalry (rider, mount and the Thrown Rider chart) fight die by die. A Hero's
    // fights are tabulated with all his Might and Fate: a trial in which terrain took
    // some of them first fights die by die. An enemy Hero's fights are tabulated for each
    // Fate the Impact Hits may have left him.
    if configs > MAX_FIGHT_TABLES || group.models.iter().any(|&m| models[m].mount.is_some()) {
        return;
    }
    let fight_rules = fight_rules(rules);
    let fighter = chariot.fighter();
    let hero = chariot.hero_in_fight();
    let decoded: Vec<Vec<(u8, u8)>> = (0..configs).map(|index| group.decode(index, models)).collect();
    group.fights = decoded
        .into_iter()
        .map(|state| {
            let left: Vec<u8> = state.iter().map(|&(l, _)| l).collect();
            let survivors: Vec<Combatant> = group
                .models
                .iter()
                .zip(&state)
                .filter(|(_, (l, _))| *l > 0)
                .map(|(&m, &(l, fate_left))| {
                    let mut c = models[m].combatant(l);
                    c.hero = c.hero.map(|h| FoeHero { fate: fate_left, ..h });
                    c
                })
                .collect();
            let presence: Vec<Presence> =
                left.iter().map(|&l| Presence { in_fight: l > 0, rider: l > 0, prone: false }).collect();
            let support = support::foe_support(models, map, &group.models, g, &presence, rules);
            (!survivors.is_empty()).then(|| {
                FightTable::new(mesbg_fight::fight_distribution(&fighter, &survivors, fight_rules, hero, &support))
            })
        })
        .collect();
}

/// The spears, pikes and banners of a scenario, with the bases that touch (only computed
/// when some model can support).
fn support_map(scenario: &Scenario, models: &[PlannedModel], groups: &[ContactGroup]) -> SupportMap {
    let mut map = SupportMap::default();
    for m in models {
        let f = &scenario.formations[m.formation];
        let profile = f.profile_of(m.number - 1);
        map.shielded.push(profile.pike && profile.shield);
        map.polearm.push(if profile.pike {
            Some(Polearm::Pike)
        } else if profile.spear {
            Some(Polearm::Spear)
        } else {
            None
        });
        map.bases.push(f.disc_at(m.centre));
        if f.banner == Some(m.number - 1) {
            map.bearers.push(map.bases.len() - 1);
        }
    }
    map.group_of = vec![usize::MAX; models.len()];
    for (g, group) in groups.iter().enumerate() {
        for &m in &group.models {
            map.group_of[m] = g;
        }
    }
    if map.polearm.iter().any(Option::is_some) {
        map.touching = support::touching(&map.bases);
    }
    map.active = !map.bearers.is_empty() || map.polearm.iter().any(Option::is_some);
    map
}

impl Plan {
    /// The help the enemy gets in a fight at group `g` (see [`support::foe_support`]).
    pub fn foe_support(&self, g: usize, presence: &[Presence]) -> mesbg_fight::FoeSupport {
        support::foe_support(&self.models, &self.support, &self.groups[g].models, g, presence, &self.rules)
    }
}

/// Compiles where the chariot stops, and each group's conditional chances.
fn compile_chain(groups: &mut [ContactGroup], models: &[PlannedModel]) -> ImpactChain {
    let mut reach = 1.0; // P(every earlier group slain)
    let mut before = 0;
    let mut stop_probabilities = Vec::with_capacity(groups.len() + 1);
    for g in groups.iter_mut() {
        let p: Vec<f64> = g.models.iter().map(|&m| models[m].impact.p_passed).collect();
        // suffix[i] = P(models i.. of the group all slain).
        let mut suffix = vec![1.0; p.len() + 1];
        for i in (0..p.len()).rev() {
            suffix[i] = suffix[i + 1] * p[i];
        }
        g.passed_given_stop = (0..p.len())
            .map(|i| {
                let not_all = 1.0 - suffix[i];
                if not_all <= 0.0 { Chance::new(1.0) } else { Chance::new(p[i] * (1.0 - suffix[i + 1]) / not_all) }
            })
            .collect();
        g.models_before = before;
        before += g.models.len();
        stop_probabilities.push(reach * (1.0 - suffix[0]));
        reach *= suffix[0];
    }
    stop_probabilities.push(reach);
    ImpactChain { stop: CumulativeTable::new(&stop_probabilities), stop_probabilities }
}

/// Which way the chariot turns at each chance to pivot.
#[derive(Clone, Debug)]
enum PathPolicy {
    /// The pivots as listed (missing ones are 0).
    Pivots(Vec<f64>),
    /// Towards a point, by up to 45 degrees at each chance, while it lies ahead.
    Aim(Vec2),
    /// The pivots that maximise an objective (searched at plan time).
    Best(Objective),
}

impl PathPolicy {
    fn of(scenario: &Scenario) -> Self {
        match &scenario.charge.path {
            PathChoice::Pivots(p) => PathPolicy::Pivots(p.clone()),
            PathChoice::AimAt(point) => PathPolicy::Aim(*point),
            PathChoice::AimAtFormation(i) => {
                let f = &scenario.formations[*i];
                let n = f.centres.len() as f64;
                let sum = f.centres.iter().fold(Vec2::default(), |a, c| a + *c);
                PathPolicy::Aim(sum.scale(1.0 / n))
            }
            PathChoice::Best(objective) => PathPolicy::Best(*objective),
        }
    }

    fn pivot(&self, chance: usize, pose: &Pose, searched: &[f64]) -> f64 {
        match self {
            PathPolicy::Pivots(p) => p.get(chance).copied().unwrap_or(0.0),
            PathPolicy::Aim(target) => {
                let to = *target - pose.centre;
                if to.length() < 1e-9 {
                    return 0.0;
                }
                let heading = to.x.atan2(to.y).to_degrees();
                let turn = (heading - pose.facing + 540.0).rem_euclid(360.0) - 180.0;
                // Once the target is behind, the chariot has passed it: drive on straight.
                if turn.abs() > 90.0 { 0.0 } else { turn.clamp(-MAX_PIVOT, MAX_PIVOT) }
            }
            PathPolicy::Best(_) => searched.get(chance).copied().unwrap_or(0.0),
        }
    }
}

/// The largest pivot, degrees.
pub const MAX_PIVOT: f64 = 45.0;

/// The path driven and what it meets, before any dice.
struct Drive {
    groups: Vec<ContactGroup>,
    pushes: Vec<Push>,
    moved_off_obstacles: Vec<Push>,
    legs: Vec<Leg>,
    end: Pose,
    driven: f64,
    spent: f64,
    difficult_from: Option<f64>,
    obstacle: Option<ObstacleContact>,
    discs: Vec<Disc>,
    pivots_used: Vec<f64>,
}

/// Drives the full Move: pivots (asked of `pivot_for` at each chance), pushes, difficult
/// stretches, obstacles and the ordered contacts.
fn drive(
    scenario: &Scenario,
    footprint: &Footprint,
    mut discs: Vec<Disc>,
    mut pivot_for: impl FnMut(usize, &Pose) -> f64,
) -> Drive {
    let c = &scenario.chariot;
    let footprint = *footprint;
    // What must be inside an area for the chariot to be within difficult terrain.
    let within = match scenario.rules.difficult_terrain_measure {
        TerrainMeasure::AnyPart => footprint,
        TerrainMeasure::Centre => Footprint::POINT,
    };
    let areas: Vec<&geometry::Polygon> = scenario
        .terrain
        .iter()
        .filter_map(|t| if let Terrain::Difficult { area, .. } = t { Some(area) } else { None })
        .collect();
    let walls: Vec<(&str, Vec2, Vec2)> = scenario
        .terrain
        .iter()
        .filter_map(
            |t| if let Terrain::Obstacle { name, from, to } = t { Some((name.as_str(), *from, *to)) } else { None },
        )
        .collect();
    let mut alive = vec![true; discs.len()];
    let mut groups: Vec<ContactGroup> = Vec::new();
    let mut pushes = Vec::new();
    let mut moved_off_obstacles = Vec::new();
    let mut legs = Vec::new();
    let mut pose = c.start;
    let mut driven = 0.0;
    let mut spent = 0.0;
    let mut chance = 0;
    let mut difficult_from = None;
    let mut obstacle = None;
    let mut pivots_used = Vec::new();
    while spent < c.move_inches - geometry::EPSILON || chance == 0 {
        let pivot = pivot_for(chance, &pose);
        pivots_used.push(pivot);
        if pivot != 0.0 {
            // Touching terrain while pivoting: the chariot is moved away just enough.
            for &(_, a, b) in &walls {
                if let Some(centre) = geometry::pivot_clear_of_segment(&footprint, &pose, pivot, a, b) {
                    moved_off_obstacles.push(Push {
                        at_distance: driven,
                        model: usize::MAX,
                        from: pose.centre,
                        to: centre,
                    });
                    pose.centre = centre;
                }
            }
            for (i, disc) in discs.iter_mut().enumerate() {
                if !alive[i] {
                    continue;
                }
                if let Some(to) = geometry::pivot_push(&footprint, &pose, pivot, disc) {
                    pushes.push(Push { at_distance: driven, model: i, from: disc.centre, to });
                    disc.centre = to;
                }
            }
            pose.facing += pivot;
        }
        // Move value for this stretch: up to the next full 4" (difficult terrain costs double).
        let budget = PIVOT_EVERY.min(c.move_inches - spent).max(0.0);
        let stretches = merge_stretches(
            areas.iter().flat_map(|a| geometry::overlap_intervals(&within, &pose, budget, a)).collect(),
        );
        let mut length = distance_for_move(budget, &stretches);
        let wall = walls
            .iter()
            .filter_map(|&(name, a, b)| {
                geometry::first_segment_contact(&footprint, &pose, length, a, b).map(|s| (s, name))
            })
            .min_by(|x, y| x.0.total_cmp(&y.0));
        if let Some((s, _)) = wall {
            length = s;
        }
        if difficult_from.is_none()
            && let Some(&(from, _)) = stretches.first()
            && from <= length + geometry::EPSILON
        {
            difficult_from = Some(driven + from);
        }
        let rough: f64 = stretches.iter().map(|&(a, b)| (b.min(length) - a).max(0.0)).sum();
        legs.push(Leg { start: pose, from_distance: driven, length });
        let mut hits: Vec<(f64, usize)> = discs
            .iter()
            .enumerate()
            .filter(|(i, _)| alive[*i])
            .filter_map(|(i, d)| geometry::first_contact(&footprint, &pose, length, d).map(|s| (driven + s, i)))
            .collect();
        hits.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        for (s, i) in hits {
            alive[i] = false;
            match groups.last_mut() {
                Some(g) if s - g.distance <= SAME_TIME_INCHES => g.models.push(i),
                _ => groups.push(ContactGroup {
                    distance: s,
                    models: vec![i],
                    passed_given_stop: Vec::new(),
                    models_before: 0,
                    config_strides: Vec::new(),
                    fate_strides: Vec::new(),
                    fights: Vec::new(),
                }),
            }
        }
        pose = pose.advanced(length);
        driven += length;
        spent += length + rough;
        chance += 1;
        if let Some((_, name)) = wall {
            obstacle = Some(ObstacleContact { name: name.to_string(), distance: driven });
            break;
        }
        if length <= 0.0 {
            break;
        }
    }
    Drive {
        groups,
        pushes,
        moved_off_obstacles,
        legs,
        end: pose,
        driven,
        spent,
        difficult_from,
        obstacle,
        discs,
        pivots_used,
    }
}

/// The exact value of an objective for a drive, from its contact list alone.
fn objective_value(
    drive: &Drive,
    models: &[PlannedModel],
    scenario: &Scenario,
    footprint: &Footprint,
    objective: Objective,
) -> f64 {
    let mut reach = 1.0;
    let mut kills = 0.0;
    for g in &drive.groups {
        let p: Vec<f64> = g.models.iter().map(|&m| models[m].impact.p_passed).collect();
        kills += reach * p.iter().sum::<f64>();
        reach *= p.iter().product::<f64>();
    }
    match objective {
        Objective::ExpectedImpactKills => kills,
        Objective::Breakthrough => {
            if breaks_through(&drive.groups, models, scenario, footprint, &drive.end) {
                reach
            } else {
                0.0
            }
        }
    }
}

/// The formations (by index, ascending) with a model on the path.
fn formations_on_path(groups: &[ContactGroup], models: &[PlannedModel]) -> Vec<usize> {
    let mut on_path: Vec<usize> = groups.iter().flat_map(|g| g.models.iter().map(|&m| models[m].formation)).collect();
    on_path.sort_unstable();
    on_path.dedup();
    on_path
}

/// Whether the end of the full path lies wholly past the last rank of every formation it
/// touched (and it touched one).
fn breaks_through(
    groups: &[ContactGroup],
    models: &[PlannedModel],
    scenario: &Scenario,
    footprint: &Footprint,
    end: &Pose,
) -> bool {
    let on_path = formations_on_path(groups, models);
    !on_path.is_empty()
        && on_path.iter().all(|&fi| {
            let f = &scenario.formations[fi];
            let back = Vec2::heading(f.facing).scale(-1.0);
            let rear = f.front_centre + back.scale(f.spacing() * (f.ranks as f64 - 1.0));
            geometry::wholly_beyond(footprint, end, rear, back, f.depth())
        })
}

/// Candidates the best-path search scores exhaustively before refining.
pub const BEST_PATH_CANDIDATES: usize = 20_000;
/// The same for footprints that push models when pivoting (each push is a search of its
/// own), so that planning stays within seconds.
pub const BEST_PATH_CANDIDATES_PUSHING: usize = 1_000;

/// Searches pivot sequences for the one that maximises `objective`: every sequence on the
/// finest even grid of pivots that fits in [`BEST_PATH_CANDIDATES`], then one pivot at a
/// time at 1 degree until nothing improves. Ties go to the smaller total turning.
fn best_pivots(
    scenario: &Scenario,
    footprint: &Footprint,
    discs: &[Disc],
    models: &[PlannedModel],
    objective: Objective,
) -> Vec<f64> {
    let chances = 1 + (scenario.chariot.move_inches / PIVOT_EVERY + 1e-9).floor() as usize;
    let score = |pivots: &[f64]| {
        let d = drive(scenario, footprint, discs.to_vec(), |k, _| pivots.get(k).copied().unwrap_or(0.0));
        let value = objective_value(&d, models, scenario, footprint, objective);
        let turning: f64 = pivots.iter().map(|p| p.abs()).sum();
        (value, -turning)
    };
    let better = |a: (f64, f64), b: (f64, f64)| a.0 > b.0 + 1e-12 || ((a.0 - b.0).abs() <= 1e-12 && a.1 > b.1 + 1e-9);
    let budget = if footprint.is_round() { BEST_PATH_CANDIDATES } else { BEST_PATH_CANDIDATES_PUSHING };
    let per = ((budget as f64).powf(1.0 / chances as f64).floor() as usize).clamp(3, 91);
    let values: Vec<f64> = (0..per).map(|i| -MAX_PIVOT + 2.0 * MAX_PIVOT * i as f64 / (per - 1) as f64).collect();
    let mut best = vec![0.0; chances];
    let mut best_score = score(&best);
    let total = per.pow(chances as u32);
    let mut candidate = vec![0.0; chances];
    for index in 0..total {
        let mut rest = index;
        for slot in candidate.iter_mut() {
            *slot = values[rest % per];
            rest /= per;
        }
        let sc = score(&candidate);
        if better(sc, best_score) {
            best_score = sc;
            best.clone_from(&candidate);
        }
    }
    // Refine one pivot at a time at 1 degree: over the whole range for round footprints,
    // within one grid step of the best for pushing ones.
    let reach = if footprint.is_round() { 45 } else { (90 / (per - 1)) as i32 };
    for _ in 0..5 {
        let mut improved = false;
        for k in 0..chances {
            let centre = best[k].round() as i32;
            for step in (centre - reach).max(-45)..=(centre + reach).min(45) {
                let mut trial = best.clone();
                trial[k] = f64::from(step);
                let sc = score(&trial);
                if better(sc, best_score) {
                    best_score = sc;
                    best = trial;
                    improved = true;
                }
            }
        }
        if !improved {
            break;
        }
    }
    best
}

/// Compiles a validated scenario.
pub fn compile(scenario: &Scenario) -> Plan {
    let c = &scenario.chariot;
    let footprint: Footprint = c.base.footprint();
    let chariot = FightingChariot {
        fight: c.fight.max(c.hero.as_ref().map_or(0, |h| h.fight)),
        strength: c.strength.max(c.hero.as_ref().map_or(0, |h| h.strength)),
        defence: c.defence,
        attacks: c.attacks + c.hero.as_ref().map_or(0, |h| h.attacks) + 1,
        wounds: c.wounds,
        side: c.side,
        hero: c.hero.as_ref().map(|h| RidingHero {
            might: h.might,
            fate: h.fate,
            might_policy: h.might_policy,
            wounds: h.wounds,
            fate_policy: h.fate_policy,
            might_on_saves: h.might_on_saves,
            thrown_hit: mesbg::to_wound(THROWN_STRENGTH, h.defence),
        }),
        saves: Saves {
            fate_rule: scenario.rules.fate,
            fate_policy: c.hero.as_ref().map_or(FatePolicy::default(), |h| h.fate_policy),
            might_on_fate: scenario.rules.might_on_fate && c.hero.as_ref().is_some_and(|h| h.might_on_saves),
            might_on_terrain: c.hero.as_ref().is_some_and(|h| h.might_on_saves),
        },
    };
    let mut models = Vec::new();
    let mut discs = Vec::new();
    for (fi, f) in scenario.formations.iter().enumerate() {
        let impact_of = |p: &Profile| match (&p.mount, p.hero) {
            (Some(mount), _) => {
                ImpactTables::cavalry(c.impact.hits, c.impact.strength, p, mount, scenario.rules.cavalry_passed_when)
            }
            (None, Some(h)) => ImpactTables::heroic(
                c.impact.hits,
                c.impact.strength,
                p.defence,
                p.wounds,
                h.fate,
                foe_saves(&h, &scenario.rules),
            ),
            (None, None) => ImpactTables::new(c.impact.hits, c.impact.strength, p.defence, p.wounds),
        };
        let warriors_impact = impact_of(&f.profile);
        for (mi, centre) in f.centres.iter().enumerate() {
            let p = f.profile_of(mi);
            let impact = if std::ptr::eq(p, &f.profile) { warriors_impact.clone() } else { impact_of(p) };
            models.push(PlannedModel {
                formation: fi,
                number: mi + 1,
                centre: *centre,
                fight: p.fight,
                attacks: p.attacks,
                wounds: p.wounds,
                defence: p.defence,
                points: p.points,
                monster: p.monster,
                mount: p.mount.map(|mount| MountInFight {
                    attacks: mount.attacks,
                    fight: mount.fight,
                    defence: mount.defence,
                    struck_by_chariot: mesbg::to_wound(chariot.strength, mount.defence),
                    strikes_chariot: mesbg::to_wound(mount.strength, c.defence),
                }),
                thrown_hit: mesbg::to_wound(THROWN_STRENGTH, p.defence),
                chariot: p.chariot.then(|| {
                    let ours = footprint_area(&footprint);
                    let theirs = std::f64::consts::PI * f.radius() * f.radius();
                    if (ours - theirs).abs() < 1e-9 { None } else { Some(ours > theirs) }
                }),
                impact,
                struck_by_chariot: mesbg::to_wound(chariot.strength, p.defence),
                strikes_chariot: mesbg::to_wound(p.strength, c.defence),
                hero: p.hero.map(|h| FoeHero {
                    might: h.might,
                    fate: h.fate,
                    might_on_duel: h.might_policy.on_duel(),
                    might_on_wounds: h.might_policy.on_wounds(),
                    saves: foe_saves(&h, &scenario.rules),
                }),
            });
            discs.push(f.disc_at(*centre));
        }
    }

    let policy = PathPolicy::of(scenario);
    let pivots = match &policy {
        PathPolicy::Best(objective) => best_pivots(scenario, &footprint, &discs, &models, *objective),
        _ => Vec::new(),
    };
    let drive = drive(scenario, &footprint, discs, |chance, pose| policy.pivot(chance, pose, &pivots));
    let Drive {
        mut groups,
        pushes,
        moved_off_obstacles,
        legs,
        end: pose,
        driven,
        spent,
        difficult_from,
        obstacle,
        discs,
        pivots_used,
    } = drive;
    for (m, d) in models.iter_mut().zip(&discs) {
        m.centre = d.centre;
    }
    let chain = compile_chain(&mut groups, &models);
    let support = support_map(scenario, &models, &groups);
    for g in 0..groups.len() {
        compile_fights(&mut groups, g, &models, &chariot, &scenario.rules, &support);
    }
    let has_hazards = difficult_from.is_some() || obstacle.is_some();
    // The test is rolled on entering; a model touched at the same point is touched after it.
    let terrain_group = difficult_from.map_or(groups.len(), |from| {
        groups.iter().position(|g| g.distance >= from - SAME_TIME_INCHES).unwrap_or(groups.len())
    });
    let has_enemy_chariot = models.iter().any(|m| m.chariot.is_some());
    let mut metrics = Metric::CHARGE.to_vec();
    if chariot.hero.is_some() {
        metrics.extend(Metric::HERO);
    }
    if scenario.army.is_some() {
        metrics.push(Metric::ArmyBroken);
    }
    if difficult_from.is_some() {
        metrics.push(Metric::TerrainWound);
    }
    if obstacle.is_some() {
        metrics.push(Metric::ObstacleStruck);
    }
    if models.iter().any(|m| m.chariot.is_some()) {
        metrics.push(Metric::ChariotBackedAway);
    }
    let foe_heroes: Vec<(usize, usize)> = groups
        .iter()
        .enumerate()
        .flat_map(|(g, group)| group.models.iter().map(move |&m| (g, m)))
        .filter(|&(_, m)| models[m].hero.is_some())
        .collect();
    if !foe_heroes.is_empty() {
        metrics.extend(Metric::FOE_HEROES);
    }

    let on_path = formations_on_path(&groups, &models);
    let breakthrough_possible = breaks_through(&groups, &models, scenario, &footprint, &pose);

    Plan {
        models,
        groups,
        chain,
        pushes,
        legs,
        end: pose,
        breakthrough_possible,
        formations_on_path: on_path.iter().map(|&fi| scenario.formations[fi].name.clone()).collect(),
        chariot,
        rules: scenario.rules.clone(),
        formation_names: scenario.formations.iter().map(|f| f.name.clone()).collect(),
        formation_files: scenario.formations.iter().map(|f| f.centres.len().div_ceil(f.ranks.max(1))).collect(),
        metrics,
        army: scenario.army,
        difficult_from,
        terrain_group,
        obstacle,
        moved_off_obstacles,
        move_spent: spent,
        has_hazards,
        has_enemy_chariot,
        path_length: driven,
        pivots: pivots_used,
        obstacle_hit: mesbg::to_wound(OBSTACLE_STRENGTH, c.defence),
        support,
        foe_heroes,
        hero_names: scenario
            .formations
            .iter()
            .enumerate()
            .filter_map(|(fi, f)| f.hero.as_ref().map(|h| (fi, h.index + 1, h.name.clone())))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::mesbg_fight::FateRule;
    use crate::scenario::{DEFAULT_SCENARIO, parse};

    fn plan_of(text: &str) -> Plan {
        compile(&parse(text, "test.toml").unwrap())
    }

    #[test]
    fn fate_against_impact_hits_follows_the_heros_policy() {
        // Two hits at Strength 4 on Defence 6 wound on 5+ (1/3 each): no Wound 4/9, one
        // 4/9, two 1/9. A 2-Wound Hero with 1 Fate (4+ saves, retried but he has one point)
        // is slain only by two Wounds with the Fate roll failed: 1/18 under either policy.
        // Spending on every Wound he spends Fate whenever one wounds (5/9); keeping it for
        // a lethal Wound, only on the second of two (1/9).
        let saves = |fate_policy| Saves {
            fate_rule: FateRule::Retry,
            fate_policy,
            might_on_fate: true,
            might_on_terrain: false,
        };
        let hits = DiceExpr::constant(2);
        for (policy, p_spent) in [(FatePolicy::ChariotThenHero, 5.0 / 9.0), (FatePolicy::LethalOnly, 1.0 / 9.0)] {
            let t = ImpactTables::heroic(hits, 4, 6, 2, 1, saves(policy));
            let p = |f: &dyn Fn(&ContactOutcome) -> bool| -> f64 {
                t.outcomes.iter().zip(&t.probabilities).filter(|(o, _)| f(o)).map(|(_, p)| p).sum()
            };
            assert!((p(&|o| o.casualty) - 1.0 / 18.0).abs() < 1e-15, "{policy:?}");
            assert!((t.p_passed - 1.0 / 18.0).abs() < 1e-15);
            assert!((p(&|o| o.fate_spent == 1) - p_spent).abs() < 1e-15, "{policy:?}");
            // One Wound lost: one wound unsaved (4/9 x 1/2 spending on every Wound; 4/9
            // keeping it), or two with the first saved (1/9 x 1/2).
            let one = if policy == FatePolicy::LethalOnly { 4.0 / 9.0 + 1.0 / 18.0 } else { 4.0 / 18.0 + 1.0 / 18.0 };
            assert!((p(&|o| o.left == 1) - one).abs() < 1e-15, "{policy:?}");
        }
    }

    #[test]
    fn default_charge_meets_two_ranks_in_pairs() {
        let plan = plan_of(DEFAULT_SCENARIO);
        // A 60 mm chariot dead centre on a 6-wide line of 25 mm bases touches the four
        // middle models of each rank: pairs at the same distance, front rank first.
        let sizes: Vec<usize> = plan.groups.iter().map(|g| g.models.len()).collect();
        assert_eq!(sizes, vec![2, 2, 2, 2]);
        let r_sum: f64 = (30.0 + 12.5) / 25.4;
        let d: f64 = 25.0 / 25.4;
        let first = 6.0 - (r_sum * r_sum - (d / 2.0).powi(2)).sqrt();
        assert!((plan.groups[0].distance - first).abs() < 1e-9);
        let front: Vec<usize> = plan.groups[..2].iter().flat_map(|g| g.models.clone()).collect();
        assert!(front.iter().all(|&m| plan.models[m].number <= 6), "front rank first: {front:?}");
        let distances: Vec<f64> = plan.groups.iter().map(|g| g.distance).collect();
        assert!(distances.windows(2).all(|w| w[0] < w[1]));
        assert!(plan.breakthrough_possible);
        assert!(plan.pushes.is_empty());
    }

    #[test]
    fn the_stop_distribution_is_geometric_along_single_contacts() {
        let text = std::fs::read_to_string("tests/scenarios/column-of-six.toml").unwrap();
        let plan = plan_of(&text);
        assert_eq!(plan.groups.len(), 6);
        let p: f64 = 5.0 / 9.0;
        for (g, q) in plan.chain.stop_probabilities.iter().enumerate().take(6) {
            assert!((q - p.powi(g as i32) * (1.0 - p)).abs() < 1e-12);
        }
        assert!((plan.chain.stop_probabilities[6] - p.powi(6)).abs() < 1e-12);
        // A lone model at the stop is certainly the survivor.
        assert_eq!(plan.groups[0].passed_given_stop[0].probability(), 0.0);
    }

    #[test]
    fn conditional_chances_in_a_pair() {
        // Two models at the same distance, each slain with p = 5/9. Given the chariot stops
        // there (not both slain), the first is slain with p (1 - p) / (1 - p^2) = p / (1 + p).
        let plan = plan_of(DEFAULT_SCENARIO);
        let p: f64 = 5.0 / 9.0;
        let chances: Vec<f64> = plan.groups[0].passed_given_stop.iter().map(|c| c.probability()).collect();
        assert!((chances[0] - p / (1.0 + p)).abs() < 1e-12 && chances[1] == 0.0, "{chances:?}");
        let total: f64 = plan.chain.stop_probabilities.iter().sum();
        assert!((total - 1.0).abs() < 1e-12);
        assert!((plan.chain.stop_probabilities[4] - p.powi(8)).abs() < 1e-12);
    }

    #[test]
    fn move_is_halved_in_difficult_terrain() {
        assert_eq!(distance_for_move(4.0, &[]), 4.0);
        assert_eq!(distance_for_move(4.0, &[(1.0, 10.0)]), 2.5);
        assert_eq!(distance_for_move(4.0, &[(1.0, 2.0)]), 3.0);
        assert_eq!(distance_for_move(4.0, &[(5.0, 6.0)]), 4.0);
        assert_eq!(merge_stretches(vec![(3.0, 4.0), (0.0, 1.0), (0.5, 2.0)]), vec![(0.0, 2.0), (3.0, 4.0)]);
    }

    #[test]
    fn a_wood_on_the_path_costs_move_and_is_tested() {
        // A wood from y = 2 to y = 4 across the path: the 60 mm base is partly inside from
        // s = 2 - r to s = 4 + r, costing that stretch twice; the line at y = 6 is out of reach.
        let r = 30.0 / 25.4;
        let text = DEFAULT_SCENARIO.replace(
            "[[formations]]",
            "[[terrain]]\nname = \"Wood\"\nkind = \"difficult\"\npolygon = [[-5, 2], [5, 2], [5, 4], [-5, 4]]\n\n[[formations]]",
        );
        let plan = plan_of(&text);
        assert!((plan.difficult_from.unwrap() - (2.0 - r)).abs() < 1e-6);
        let rough = 2.0 + 2.0 * r;
        let driven = plan.end.centre.y;
        assert!((driven - (10.0 - rough)).abs() < 1e-6, "drove {driven}");
        assert!((plan.move_spent - 10.0).abs() < 1e-6);
        assert!(plan.metrics.contains(&Metric::TerrainWound));
    }

    #[test]
    fn an_obstacle_stops_the_path() {
        let text = DEFAULT_SCENARIO.replace(
            "[[formations]]",
            "[[terrain]]\nname = \"Wall\"\nkind = \"obstacle\"\nfrom = [-3, 3]\nto = [3, 3]\n\n[[formations]]",
        );
        let plan = plan_of(&text);
        let r = 30.0 / 25.4;
        let hit = plan.obstacle.as_ref().expect("hits the wall");
        assert!((hit.distance - (3.0 - r)).abs() < 1e-6);
        assert!(plan.groups.is_empty(), "the line behind the wall is never reached");
        assert!(!plan.breakthrough_possible);
    }

    #[test]
    fn aim_turns_towards_a_point_by_at_most_45_degrees() {
        let text = DEFAULT_SCENARIO.replace("pivots = [0, 0]", "aim = [10.0, 0.5]");
        let plan = plan_of(&text);
        assert_eq!(plan.pivots[0], 45.0, "wants about 87 degrees, turns 45");
        assert!(plan.pivots[1] > 0.0 && plan.pivots[1] <= 45.0, "{:?}", plan.pivots);
        // Aiming at the formation by name heads for its centre: dead ahead, no turning.
        let text = DEFAULT_SCENARIO.replace("pivots = [0, 0]", "aim = \"Warriors of Minas Tirith\"");
        let plan = plan_of(&text);
        assert!(plan.pivots.iter().all(|p| p.abs() < 1e-9), "{:?}", plan.pivots);
    }

    #[test]
    fn the_best_plan_turns_from_a_gap_into_the_line() {
        // Two blocks with a 4" gap straight ahead: driving straight meets nobody.
        let blocks = |path: &str| {
            format!(
                r#"title = "gap"
system = "mesbg"
[chariot]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 0.0]
[charge]
{path}
[[formations]]
name = "Left"
count = 5
profile = "Warrior of Minas Tirith"
front_centre = [-4.5, 6.0]
facing = 180
[[formations]]
name = "Right"
count = 5
profile = "Warrior of Minas Tirith"
front_centre = [4.5, 6.0]
facing = 180
"#
            )
        };
        let straight = plan_of(&blocks("pivots = [0]"));
        assert!(straight.groups.is_empty());
        let best = plan_of(&blocks("plan = \"best\""));
        assert!(!best.groups.is_empty(), "pivots {:?}", best.pivots);
        assert!(best.pivots.iter().any(|p| p.abs() > 0.0));
        // Through the gap is the way to break through nothing: the breakthrough objective
        // needs a formation on the path, so it also turns into a line.
        let through = plan_of(&blocks("plan = \"best\"\nobjective = \"breakthrough\""));
        assert!(through.breakthrough_possible, "pivots {:?}", through.pivots);
    }

    #[test]
    fn a_path_that_misses_everything() {
        let text = DEFAULT_SCENARIO.replace("facing = 0 ", "facing = 90 ");
        let plan = plan_of(&text);
        assert!(plan.groups.is_empty());
        assert!(!plan.breakthrough_possible);
        assert!((plan.end.centre.x - 10.0).abs() < 1e-9);
    }

    #[test]
    fn pivots_turn_the_path() {
        // Facing east, then two pivots of -45 turn it north after 4" and 8".
        let text = DEFAULT_SCENARIO
            .replace("facing = 0 ", "facing = 90 ")
            .replace("at = [0.0, 0.0]", "at = [-6.0, 0.0]")
            .replace("pivots = [0, 0]", "pivots = [0, -45, -45]");
        let plan = plan_of(&text);
        assert_eq!(plan.legs.len(), 3);
        assert!((plan.end.facing - 0.0).abs() < 1e-9);
        let h = 4.0 * std::f64::consts::FRAC_1_SQRT_2;
        assert!((plan.end.centre.x - (-2.0 + h)).abs() < 1e-9, "{:?}", plan.end);
        assert!((plan.end.centre.y - (h + 2.0)).abs() < 1e-9, "{:?}", plan.end);
    }

    #[test]
    fn a_rectangular_chariot_pivot_pushes_a_model_aside_without_hitting_it() {
        let text = DEFAULT_SCENARIO
            .replace("base = { round_mm = 60 }", "base = { rect_mm = [50.8, 101.6] }")
            .replace("pivots = [0, 0]", "pivots = [45]")
            .replace("count = 12", "count = 1")
            .replace("ranks = 2", "ranks = 1")
            .replace("front_centre = [0.0, 6.0]", "front_centre = [-1.55, -1.7]");
        // Turning clockwise, the rear-left corner sweeps west through the model beside it;
        // the chariot then drives north-east, away from where the model was pushed.
        let plan = plan_of(&text);
        assert_eq!(plan.pushes.len(), 1, "{:?}", plan.pushes);
        let push = &plan.pushes[0];
        assert_eq!(push.at_distance, 0.0);
        assert!(push.to.x < push.from.x, "pushed west: {push:?}");
        assert!(plan.groups.is_empty(), "a push is not a contact: {:?}", plan.groups);
        assert_eq!(plan.models[push.model].centre, push.to);
    }
}
