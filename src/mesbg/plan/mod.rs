//! Compiling a scenario into a plan: geometry and tables resolved once, so that a trial
//! only walks an ordered list rolling dice.
//!
//! A chariot's path and the order of the models it meets do not depend on the dice: a
//! slain model is simply passed and a survivor stops the chariot. So the pivots, the pushes
//! they cause, and every contact along the full Move are worked out here, and each contact
//! carries the exact distribution of what its Impact Hits do.

use crate::dice::{Chance, CumulativeTable, Dice, DiceExpr};
use crate::geometry::{self, Disc, Footprint, Pose, Vec2};
use crate::mesbg::rules::duel::{FoeHero, wounds_on_foe_hero};
use crate::mesbg::rules::fight::{
    self as mesbg_fight, ChariotFighter, Combatant, FatePolicy, FightRules, Grip, HeroInFight, MountCombatant, Saves,
};
use crate::mesbg::rules::{self as mesbg, FightOutcome, Side, WoundRoll};
use crate::mesbg::scenario::{
    Army, CavalryImpactHits, CavalryPassed, Heroism, MesbgRules, MightPolicy, Mount, Objective, PathChoice, Profile,
    Scenario, Terrain, TerrainMeasure,
};
use crate::mesbg::tally::Metric;
use serde::Serialize;
use std::collections::BTreeMap;

mod compile;
pub use compile::*;

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

mod fast;
pub(crate) mod path;
pub mod shieldwall;
pub mod support;
mod tables;
#[cfg(test)]
mod tests;

pub use fast::{FastCharge, FastGroup, FastModel, FightRow, ImpactRow, Table};
use path::*;
pub use path::{BEST_PATH_CANDIDATES, BEST_PATH_CANDIDATES_PUSHING, MAX_PIVOT, distance_for_move};
pub(crate) use path::{PathPolicy, Standing, best_pivots, breaks_through, can_back_away, drive, pose_at};
pub use tables::{ContactOutcome, FightTable, ImpactTables};

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
    /// What Impact Hits do to it where the chariot's path touches it: outcomes and their
    /// exact distribution (braced by its shield wall when it is then).
    pub impact: ImpactTables,
    /// In a shield wall (Shieldwall played, the rule and a shield): what it has when
    /// braced. `None` for every other model.
    pub braced: Option<shieldwall::Braced>,
    /// What the chariot's Strikes need against it.
    pub struck_by_chariot: WoundRoll,
    /// What its Strikes need against the chariot.
    pub strikes_chariot: WoundRoll,
    /// An enemy Hero: his Might and Fate (all of them, before the charge) and how he
    /// spends them.
    pub hero: Option<FoeHero>,
    /// Beaten where the chariot stops against it, it cannot Back Away (a standing model or
    /// an obstacle within 1" directly behind it): a model that is not knocked Prone (a
    /// Monster) is then Trapped.
    pub cannot_back_away: bool,
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
    /// Per model in order: for cavalry, each state its Impact Hits can leave it standing in
    /// as the fight sees it (rider's and mount's Wounds, Prone, thrown), one outcome for
    /// each; its digit in the configuration's index is 1 + the state's place (0: not in
    /// the fight). Empty for a model on foot, whose digit is its Wounds left.
    #[serde(skip)]
    pub cavalry_states: Vec<Vec<ContactOutcome>>,
    /// Exact fight outcome tables by survivor configuration index (empty when the group
    /// has more than [`MAX_FIGHT_TABLES`] configurations).
    #[serde(skip)]
    pub fights: Vec<Option<FightTable>>,
    /// The same fights for a chariot that lost one Wound to the difficult-terrain test on
    /// its way here (empty unless the path enters difficult terrain at or before this group
    /// and the chariot carries no Hero and has a Wound to spare): a trial whose test rolled
    /// a 1 draws its fight from these instead of playing it die by die.
    #[serde(skip)]
    pub wounded_fights: Vec<Option<FightTable>>,
    /// Per model in order: the models of its shield wall touching it that still stand when
    /// the chariot touches the group (see [`shieldwall::wall_neighbours`]); empty lists when
    /// no model of the group is in a wall.
    #[serde(skip)]
    pub wall_neighbours: Vec<Vec<usize>>,
}

impl ContactGroup {
    /// The survivor configuration `index` stands for: per model, what its Impact Hits left
    /// of it as the fight sees it (`None`: not in the fight).
    pub fn config_outcomes(&self, index: usize, models: &[PlannedModel]) -> Vec<Option<ContactOutcome>> {
        (0..self.models.len())
            .map(|i| {
                let m = &models[self.models[i]];
                let stride = self.config_strides[i];
                if let Some(states) = self.cavalry_states.get(i).filter(|s| !s.is_empty()) {
                    let digit = (index / stride) % (states.len() + 1);
                    return digit.checked_sub(1).map(|k| states[k]);
                }
                let left = ((index / stride) % (usize::from(m.wounds) + 1)) as u8;
                let fate = m.hero.map_or(0, |h| h.fate);
                let fate_left = match self.fate_strides.get(i) {
                    Some(&fs) if fs > 0 => ((index / fs) % (usize::from(fate) + 1)) as u8,
                    _ => fate,
                };
                (left > 0).then_some(ContactOutcome {
                    hits: 0,
                    wounds: 0,
                    mount: None,
                    thrown: None,
                    left,
                    mount_left: 0,
                    prone: false,
                    casualty: false,
                    passed: false,
                    fate_spent: fate - fate_left,
                })
            })
            .collect()
    }

    /// The index of a survivor configuration's part for model `i` of the group, left
    /// standing by its Impact Hits as `outcome` says (an outcome the chariot drove on past
    /// is not in the fight: 0).
    #[inline]
    pub fn config_part(&self, i: usize, outcome: &ContactOutcome, models: &[PlannedModel]) -> usize {
        if outcome.passed {
            return 0;
        }
        if let Some(states) = self.cavalry_states.get(i).filter(|s| !s.is_empty()) {
            let digit = states.iter().position(|s| same_fight_state(s, outcome)).map_or(0, |k| k + 1);
            return digit * self.config_strides[i];
        }
        let fate_part = match self.fate_strides.get(i) {
            Some(&fs) if fs > 0 => {
                let fate = models[self.models[i]].hero.map_or(0, |h| h.fate);
                usize::from(fate - outcome.fate_spent) * fs
            }
            _ => 0,
        };
        usize::from(outcome.left) * self.config_strides[i] + fate_part
    }

    /// Whether survivor configuration `index` has a rider thrown from his slain mount in
    /// it (the `thrown_rider_stopped` metric).
    pub fn config_has_thrown_rider(&self, index: usize, models: &[PlannedModel]) -> bool {
        self.config_outcomes(index, models).iter().flatten().any(|o| o.thrown.is_some())
    }
}

/// Whether two Impact Hit outcomes of a cavalry model leave it in the same state for the
/// fight and its metrics: the rider's and the mount's Wounds, Prone, and how it was
/// thrown (Knocked Flying, Rises from the Dust without Strikes, Leaps into Action).
pub fn same_fight_state(a: &ContactOutcome, b: &ContactOutcome) -> bool {
    let thrown = |o: &ContactOutcome| match o.thrown {
        None => 0,
        Some(1) => 1,
        Some(2..=5) => 2,
        Some(_) => 3,
    };
    (a.left, a.mount_left, a.prone, a.fate_spent, thrown(a)) == (b.left, b.mount_left, b.prone, b.fate_spent, thrown(b))
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
    /// How it holds its weapon in its fights (a hand-and-a-half weapon's grip, or
    /// one-handed).
    #[serde(skip)]
    pub grip: Grip,
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
    /// The best path was asked for breakthrough and no path breaks through, so the path
    /// with the most expected Impact Hit kills was chosen instead (a warning says so).
    pub breakthrough_unreachable: bool,
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
    /// The common charge compiled to sums (`None` when no trial can be played so).
    pub fast: Option<FastCharge>,
    /// Where the charge ends short of the full Move, inches driven: given by `[charge]
    /// distance`, or chosen by the best-path search to stop short of a hazard.
    pub stop_at: Option<f64>,
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

    /// What makes a run of this plan probably not the one meant, beside the scenario's own
    /// warnings: a path that touches no model, and formations no model of which is within
    /// reach of the Move. Each names its field; the run still happens.
    pub fn warnings(&self, scenario: &Scenario) -> Vec<crate::input::Problem> {
        let mut warnings = scenario.warnings.clone();
        let absent: Vec<&str> =
            scenario.answer.iter().filter(|m| !self.metrics.contains(m)).map(|m| m.name()).collect();
        if !absent.is_empty() {
            warnings.push(crate::input::Problem {
                field: "answer".into(),
                line: None,
                message: format!(
                    "this charge cannot report {} (a metric applies only where its rule can come into play: an \
                     enemy chariot, cavalry, a Hero, terrain, an army), so the report cannot lead with it",
                    absent.join(", ")
                ),
            });
        }
        let move_inches = scenario.chariot.move_inches;
        let best = matches!(scenario.charge.path, PathChoice::Best(_));
        if let (Some(o), None, false) = (&self.obstacle, scenario.charge.distance, best) {
            let short = o.distance - path::STOP_SHORT_INCHES;
            warnings.push(crate::input::Problem {
                field: "charge.distance".into(),
                line: None,
                message: format!(
                    "the chariot drives into the obstacle \"{}\" after {:.2}\" (three Strength 6 hits on it); a charge is \
                     \"up to its Move\", so it could stop short: set [charge] distance = {short:.2} to stop before it, \
                     or plan = \"best\" to let the search decide",
                    o.name, o.distance
                ),
            });
        }
        if self.breakthrough_unreachable {
            warnings.push(crate::input::Problem {
                field: "charge.objective".into(),
                line: None,
                message: format!(
                    "no path breaks through: within the Move of {move_inches}\" no path ends wholly past the last rank \
                     of every formation it meets, so the best path for breakthrough would only avoid harm; the \
                     path with the most expected Impact Hit kills was chosen instead (breakthrough stays 0)"
                ),
            });
        }
        if self.models_on_path() == 0 {
            warnings.push(crate::input::Problem {
                field: "charge".into(),
                line: None,
                message: format!(
                    "the chariot's path touches no model within its Move of {move_inches}\": every trial is a charge \
                     into nothing (move the chariot or the formations, or change the pivots, aim or plan)"
                ),
            });
            return warnings;
        }
        for (f, formation) in scenario.formations.iter().enumerate() {
            // A path that touches only a line's end file goes past its end, not through it:
            // "breakthrough" then scores a charge that left the line standing.
            let files = self.formation_files.get(f).copied().unwrap_or(1);
            let touched: Vec<usize> = self
                .groups
                .iter()
                .flat_map(|g| &g.models)
                .filter(|&&m| self.models[m].formation == f)
                .map(|&m| (self.models[m].number - 1) % files.max(1) + 1)
                .collect();
            if files >= 3 && !touched.is_empty() && touched.iter().all(|&file| file == 1 || file == files) {
                warnings.push(crate::input::Problem {
                    field: format!("formations[{f}]"),
                    line: None,
                    message: format!(
                        "the path only grazes the end of \"{}\" (it touches file {} of {files} and no other): \
                         breakthrough here means driving past the line's end, not through it (line_breached, in a \
                         turn, says whether a gap opens in it)",
                        formation.name, touched[0]
                    ),
                });
            }
            let reached = !touched.is_empty();
            if !reached {
                warnings.push(crate::input::Problem {
                    field: format!("formations[{f}]"),
                    line: None,
                    message: format!(
                        "\"{}\" is out of the chariot's reach: no model of it is touched within the Move of \
                         {move_inches}\" (it can still support or carry a banner)",
                        formation.name
                    ),
                });
            }
        }
        warnings
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
    /// Whether a Wound from the difficult-terrain test leaves a fight that exact tables can
    /// follow: no Hero aboard (his Might or Fate may be spent instead) and a Wound to spare.
    /// Its fights past the test are then tabulated for the wounded chariot too.
    pub fn fights_wounded_from_tables(&self) -> bool {
        self.hero.is_none() && self.wounds > 1
    }

    /// The chariot as a fight sees it, with all its Wounds.
    pub fn fighter(&self) -> ChariotFighter {
        ChariotFighter {
            fight: self.fight,
            attacks: self.attacks,
            wounds_left: self.wounds,
            side: self.side,
            grip: self.grip,
        }
    }

    /// Of its Hero's `might_left`, the Might he would spend on its To Wound rolls (none when
    /// his policy keeps Might off them, or no Hero rides).
    pub fn might_for_strikes(&self, might_left: u8) -> u8 {
        if self.hero.is_some_and(|h| h.might_policy.on_wounds()) { might_left } else { 0 }
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
            cannot_back_away: self.cannot_back_away,
        }
    }

    /// The model as a fight sees it after its Impact Hits: the rider's Wounds, its mount
    /// while it stands, Prone, and no Strikes from a rider thrown this turn.
    pub fn combatant_after(&self, outcome: &ContactOutcome) -> Combatant {
        let strikes = !outcome.prone && !matches!(outcome.thrown, Some(2..=5));
        self.combatant_standing(outcome.left, outcome.mount_left, outcome.prone, strikes, outcome.fate_spent, false)
    }

    /// [`Self::combatant_after`], at its braced Defence when its shield wall braces it.
    pub fn combatant_braced(&self, outcome: &ContactOutcome, braced: bool) -> Combatant {
        let (struck_by_chariot, defence) = self.struck(braced);
        Combatant { struck_by_chariot, defence, ..self.combatant_after(outcome) }
    }

    /// The model as a fight sees it in the state the Impact Hits (of one chariot or of
    /// several in a turn) left it: the rider's Wounds, its mount's while it stands, Prone,
    /// whether it Strikes, the Fate a Hero spent, and whether its shield wall braces it.
    pub fn combatant_standing(
        &self,
        left: u8,
        mount_left: u8,
        prone: bool,
        strikes: bool,
        fate_spent: u8,
        braced: bool,
    ) -> Combatant {
        let (struck_by_chariot, defence) = self.struck(braced);
        Combatant {
            struck_by_chariot,
            defence,
            mount: self.mount.filter(|_| mount_left > 0).map(|m| MountCombatant {
                fight: m.fight,
                attacks: m.attacks,
                defence: m.defence,
                wounds_left: mount_left,
                struck_by_chariot: m.struck_by_chariot,
                strikes_chariot: m.strikes_chariot,
            }),
            prone,
            strikes,
            hero: self.hero.map(|h| FoeHero { fate: h.fate - fate_spent, ..h }),
            ..self.combatant(left)
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

impl Plan {
    /// The help the enemy gets in a fight at group `g` (see [`support::foe_support`]).
    pub fn foe_support(&self, g: usize, presence: &[Presence]) -> mesbg_fight::FoeSupport {
        support::foe_support(
            &self.models,
            &self.support,
            &self.groups[g].models,
            g,
            presence,
            &self.rules,
            support::EarlierFights::NONE,
        )
    }
}
