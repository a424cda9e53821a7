//! Attacks drawn whole: the exact distribution of the hits one side's attack scores (a
//! melee's dice, or a volley's), thinned by the defender's armour d10s when every hit falls
//! on figures of one armour rating, so that one uniform word decides what a whole attack
//! got through instead of one word per die and one per hit.
//!
//! An attack's outcome depends only on who attacks, how (charging, trampling, standing, or
//! a volley at a given range), with how many figures in contact, with what crew aboard, and
//! against what armour; the tables are worked out the first time a thread meets such an
//! attack and kept for the rest of its trials. A defender whose hits fall on its crew first
//! (crew groups of different armour, riders last) still rolls each hit's armour die, since
//! which figure a hit falls on depends on the hits before it.

use super::{BattlesystemPlan, Fighting, MAX_CREW_GROUPS, driver_alone_attacks, driver_only_multiplier, fighting_crew};
use super::{melee_multipliers, rout::WordHasher};
use crate::battlesystem::rules::{AttackDie, HitsTable, PlatformRoll, convolve, dice_count};
use crate::battlesystem::scenario::{PlatformHits, Role, Unit};
use crate::dice::{CumulativeTable, Dice, sampled_index};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// The distribution of the sum of `count` independent rolls of `one`.
pub(crate) fn power(one: &[f64], count: u32) -> Vec<f64> {
    (0..count).fold(vec![1.0], |acc, _| convolve(&acc, one))
}

/// Hits (before armour) of one platform in contact fighting as `how`: its fighting crew
/// `groups` (figures, die) with the platform's roll added, or, with none aboard but the
/// driver, the platform's own die when the rules let it attack alone.
pub(crate) fn platform_or_driver_pmf(
    plan: &BattlesystemPlan,
    unit: &Unit,
    groups: &[(u32, AttackDie)],
    crew_mult: (u32, u32),
    how: Fighting,
) -> Vec<f64> {
    let rules = &plan.scenario.rules;
    let table = &rules.attack.hits_table;
    if groups.is_empty() {
        if !driver_alone_attacks(rules, how) {
            return vec![1.0];
        }
        let (m, d) = driver_only_multiplier(rules, how);
        return power(&table.hits_pmf(&unit.stats.ad.pmf()), dice_count(1, m, d));
    }
    let dice: Vec<(u32, AttackDie)> =
        groups.iter().map(|&(aboard, die)| (dice_count(aboard, crew_mult.0, crew_mult.1), die)).collect();
    platform_pmf(unit.stats.ad, &dice, rules.platform_roll, table)
}

/// Hits (before armour) of one platform's crew: `groups` of (dice, die), each die plus the
/// platform's roll (shared by the crew, or one per die).
pub(crate) fn platform_pmf(
    platform: AttackDie,
    groups: &[(u32, AttackDie)],
    roll: PlatformRoll,
    table: &HitsTable,
) -> Vec<f64> {
    let all_dice = |shift_pmf: &dyn Fn(AttackDie) -> Vec<f64>| {
        let mut total = vec![1.0];
        for &(dice, die) in groups {
            let per_die = table.hits_pmf(&shift_pmf(die));
            for _ in 0..dice {
                total = convolve(&total, &per_die);
            }
        }
        total
    };
    match roll {
        PlatformRoll::PerDie => all_dice(&|die| convolve(&die.pmf(), &platform.pmf())),
        PlatformRoll::Shared => {
            let mut out = vec![0.0];
            for (shared, p) in platform.pmf().iter().enumerate().filter(|(_, p)| **p > 0.0) {
                let given = all_dice(&|die| {
                    let mut shifted = vec![0.0; shared];
                    shifted.extend(die.pmf());
                    shifted
                });
                if given.len() > out.len() {
                    out.resize(given.len(), 0.0);
                }
                out.iter_mut().zip(&given).for_each(|(o, g)| *o += p * g);
            }
            out
        }
    }
}

/// The distribution of the hits (before armour) a unit scores in melee with `in_contact`
/// figures and `crew_alive` crew aboard, fighting as `how`: a platform's crew with the
/// platform's roll added, platform by platform (the one rider a platform needs does not
/// fight), and the unit's own dice (a unit that is not a platform, a platform that attacks
/// alone, or trampling beasts).
pub(crate) fn melee_raw(
    plan: &BattlesystemPlan,
    unit: &Unit,
    crew_alive: &[u32; MAX_CREW_GROUPS],
    in_contact: u32,
    how: Fighting,
) -> Vec<f64> {
    let rules = &plan.scenario.rules;
    let table = &rules.attack.hits_table;
    let (crew_mult, own_mult) = melee_multipliers(rules, unit, how == Fighting::Charging);
    let own_dice = || power(&table.hits_pmf(&unit.stats.ad.pmf()), dice_count(in_contact, own_mult.0, own_mult.1));
    if !unit.is_platform() {
        return own_dice();
    }
    let mut left = *crew_alive;
    let mut groups = [(0, AttackDie::D4); MAX_CREW_GROUPS];
    let mut raw = vec![1.0];
    for _ in 0..in_contact {
        let n = fighting_crew(unit, &mut left, &mut groups);
        raw = convolve(&raw, &platform_or_driver_pmf(plan, unit, &groups[..n], crew_mult, how));
    }
    if rules.platform_attacks_alone || how == Fighting::Trampling {
        raw = convolve(&raw, &own_dice());
    }
    raw
}

/// The distribution of the hits (before armour) of a platform's archers shooting at
/// `range` inches, with `crew_alive` aboard: each archer group whose range band covers the
/// range rolls its dice under the band's multiplier.
pub(crate) fn volley_raw(
    plan: &BattlesystemPlan,
    unit: &Unit,
    crew_alive: &[u32; MAX_CREW_GROUPS],
    range: f64,
) -> Vec<f64> {
    let table = &plan.scenario.rules.attack.hits_table;
    let mut raw = vec![1.0];
    for (g, crew) in unit.crew.iter().enumerate().filter(|(_, cr)| cr.role == Role::Archer) {
        if let Some(band) = crew.bands.iter().find(|b| range >= b.from && range < b.to) {
            let count = dice_count(crew_alive[g], band.hundredths, 100);
            raw = convolve(&raw, &power(&table.hits_pmf(&crew.ad.pmf()), count));
        }
    }
    raw
}

/// The distribution of the hits that get through armour when each hit of `raw` is kept
/// with probability `keep` (its armour d10 does not cancel it).
pub(crate) fn thinned(raw: &[f64], keep: f64) -> Vec<f64> {
    let mut out = vec![0.0; raw.len()];
    // binomial[t] = P(t of r hits kept), built up one hit at a time.
    let mut binomial = vec![1.0];
    for (r, &p) in raw.iter().enumerate() {
        if r > 0 {
            binomial = convolve(&binomial, &[1.0 - keep, keep]);
        }
        if p > 0.0 {
            out.iter_mut().zip(&binomial).for_each(|(o, b)| *o += p * b);
        }
    }
    while out.len() > 1 && out.last() == Some(&0.0) {
        out.pop();
    }
    out
}

/// Buckets of a table's guide: the top bits of a word.
const GUIDE_BITS: u32 = 6;

/// The guide of cumulative `thresholds`: for each bucket of words (by their top
/// [`GUIDE_BITS`] bits), how many thresholds lie at or below the bucket's lowest word, so a
/// draw starts its count there.
fn guide_of(thresholds: &[u64]) -> [u16; 1 << GUIDE_BITS] {
    std::array::from_fn(|b| {
        let lowest = (b as u64) << (64 - GUIDE_BITS);
        thresholds.partition_point(|&t| t <= lowest) as u16
    })
}

/// The value a uniform word `u` draws from cumulative `thresholds`, as [`sampled_index`]:
/// counted for a short table; for a long one (an attack of many dice has dozens of
/// outcomes), counted on from where its bucket of the `guide` starts (a step or two).
#[inline]
fn drawn_index(thresholds: &[u64], guide: &[u16; 1 << GUIDE_BITS], u: u64) -> usize {
    if thresholds.len() <= 8 {
        return sampled_index(thresholds, u);
    }
    let mut i = usize::from(guide[(u >> (64 - GUIDE_BITS)) as usize]);
    while i < thresholds.len() && thresholds[i] <= u {
        i += 1;
    }
    i
}

/// Whether the hits on `unit` fall on figures of its own armour (so an attack's hits through
/// armour can be drawn at once), rather than on its crew first, group by group.
pub(crate) fn hits_fall_on_one_armour(plan: &BattlesystemPlan, unit: &Unit) -> bool {
    !(unit.crew.iter().any(|c| c.count > 0)
        && unit.is_platform()
        && plan.scenario.rules.platform_hits == PlatformHits::CrewFirst)
}

/// What one word drew for an attack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Drawn {
    /// Hits through the defender's armour (its armour dice are part of the draw).
    Through(u32),
    /// Hits before armour, each still to roll its armour die against the figure it falls on.
    Raw(u32),
}

/// How an attack is made, for its table's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Made {
    /// In a melee, fighting as this.
    Melee(Fighting),
    /// Volley number this (0: at the full gap, 1: at half of it).
    Volley(u32),
}

/// An attack's table's key: who attacks and how (attacker, how, armour rating the hits
/// roll against, volley, figures in contact) in one word, the crew aboard in two (sixteen
/// bits a group: no group holds more than 12 x 48 figures).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct AttackKey(u64, u64, u64);

impl std::hash::Hash for AttackKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.0 ^ self.1.rotate_left(21) ^ self.2.rotate_left(42));
    }
}

/// The armour field of a key whose hits are drawn before armour.
const RAW: u64 = 0xFFFF;

/// Where a table sits: its thresholds' start and length in [`AttackTables::thresholds`],
/// and its guide's number.
type TableAt = (u32, u32, u32);

/// Entries of the small cache in front of the index (a power of two).
const RECENT: usize = 16;

/// Every attack table this thread has worked out for one plan, by the attack's key.
#[derive(Clone, Debug, Default)]
pub(super) struct AttackTables {
    /// The plan the tables belong to ([`BattlesystemPlan::id`]); another plan starts afresh.
    plan: u64,
    /// The attacks met lately, by a few bits of their key's hash: a trial meets the same few
    /// attacks again and again, and finding one here costs a multiply and a compare.
    recent: [Option<(AttackKey, TableAt)>; RECENT],
    /// Each attack met: where its thresholds sit in `thresholds` (start, length) and its
    /// guide's number.
    index: HashMap<AttackKey, TableAt, BuildHasherDefault<WordHasher>>,
    /// Every table's cumulative thresholds, one after the other.
    thresholds: Vec<u64>,
    /// Each table's guide (see [`guide_of`]), by its number.
    guides: Vec<[u16; 1 << GUIDE_BITS]>,
    /// A 2d10's sum, for morale checks: index 0 is a roll of 2.
    two_d10: Vec<u64>,
}

impl AttackTables {
    /// Draws the outcome of `attacker`'s attack (made as `made`, with `in_contact` figures and
    /// `crew_alive` aboard) on `defender`: its hits through armour when they all fall on one
    /// armour rating, else its hits before armour.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn draw(
        &mut self,
        plan: &BattlesystemPlan,
        attacker: usize,
        crew_alive: &[u32; MAX_CREW_GROUPS],
        in_contact: u32,
        made: Made,
        defender: usize,
        dice: &mut Dice,
    ) -> Drawn {
        if self.plan != plan.id {
            *self = Self { plan: plan.id, ..Self::default() };
        }
        let units = &plan.scenario.units;
        let (a, d) = (&units[attacker], &units[defender]);
        // Armour past 10 cancels nothing a d10 rolls, so every such rating is one table.
        let armour = if hits_fall_on_one_armour(plan, d) { u64::from(d.stats.ar.min(11)) } else { RAW };
        let (how, volley) = match made {
            Made::Melee(how) => (how as u64, 0),
            Made::Volley(v) => (3, u64::from(v)),
        };
        let mut crew = [0u64; 2];
        if a.is_platform() || matches!(made, Made::Volley(_)) {
            for (g, &n) in crew_alive.iter().enumerate() {
                crew[g / 4] |= u64::from(n) << (16 * (g % 4));
            }
        }
        let key = AttackKey(
            attacker as u64 | how << 8 | armour << 16 | volley << 32 | u64::from(in_contact) << 40,
            crew[0],
            crew[1],
        );
        let slot = (key.0 ^ key.1.rotate_left(21) ^ key.2.rotate_left(42)).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 60;
        let (start, len, guide) = match self.recent[slot as usize % RECENT] {
            Some((k, at)) if k == key => at,
            _ => {
                let at = match self.index.get(&key) {
                    Some(&at) => at,
                    None => self.work_out(plan, key, (a, crew_alive, in_contact, made), (d, armour != RAW)),
                };
                self.recent[slot as usize % RECENT] = Some((key, at));
                at
            }
        };
        let table = &self.thresholds[start as usize..(start + len) as usize];
        // A certain outcome (no dice at all) draws no word.
        let value =
            if table.is_empty() { 0 } else { drawn_index(table, &self.guides[guide as usize], dice.word()) as u32 };
        if armour == RAW { Drawn::Raw(value) } else { Drawn::Through(value) }
    }

    #[cold]
    #[inline(never)]
    fn work_out(
        &mut self,
        plan: &BattlesystemPlan,
        key: AttackKey,
        (a, crew_alive, in_contact, made): (&Unit, &[u32; MAX_CREW_GROUPS], u32, Made),
        (d, through_armour): (&Unit, bool),
    ) -> TableAt {
        let thresholds = attack_thresholds(plan, (a, crew_alive, in_contact, made), (d, through_armour));
        let at = (self.thresholds.len() as u32, thresholds.len() as u32, self.guides.len() as u32);
        self.thresholds.extend_from_slice(&thresholds);
        self.guides.push(guide_of(&thresholds));
        self.index.insert(key, at);
        at
    }

    /// Rolls 2d10 (one word, the sum drawn from its distribution).
    pub(super) fn two_d10(&mut self, dice: &mut Dice) -> u32 {
        if self.two_d10.is_empty() {
            let table = CumulativeTable::new(&AttackDie::TwoD10.pmf()[2..]);
            self.two_d10 = table.thresholds().to_vec();
        }
        sampled_index(&self.two_d10, dice.word()) as u32 + 2
    }
}

/// The cumulative thresholds of an attack's outcome (hits through `d`'s armour when
/// `through_armour`, else hits before armour), as every table here draws it.
fn attack_thresholds(
    plan: &BattlesystemPlan,
    (a, crew_alive, in_contact, made): (&Unit, &[u32; MAX_CREW_GROUPS], u32, Made),
    (d, through_armour): (&Unit, bool),
) -> Vec<u64> {
    let raw = match made {
        Made::Melee(how) => melee_raw(plan, a, crew_alive, in_contact, how),
        Made::Volley(v) => volley_raw(plan, a, crew_alive, plan.volley_range(v)),
    };
    let pmf = if through_armour {
        thinned(&raw, 1.0 - plan.scenario.rules.attack.armour.cancel_probability(d.stats.ar))
    } else {
        raw
    };
    let table = CumulativeTable::new(&pmf);
    let mut thresholds = table.thresholds();
    // Outcomes past the last threshold below 2^64 have less than a 2^-64 chance between
    // them: they are left out rather than counted on every draw.
    while let [rest @ .., u64::MAX] = thresholds {
        thresholds = rest;
    }
    thresholds.to_vec()
}

/// One attack's table worked out with the plan: the same thresholds and guide
/// [`AttackTables`] would find for it, reached by position instead of by key.
#[derive(Clone, Debug)]
pub(super) struct FixedTable {
    thresholds: Vec<u64>,
    guide: [u16; 1 << GUIDE_BITS],
    /// Whether it draws hits before armour (the defender takes its crew's hits first).
    raw: bool,
}

impl FixedTable {
    /// The table of `attacker`'s attack made as `made` with `in_contact` figures and
    /// `crew_alive` aboard, on `defender`.
    fn new(
        plan: &BattlesystemPlan,
        (attacker, crew_alive, in_contact, made): (usize, &[u32; MAX_CREW_GROUPS], u32, Made),
        defender: usize,
    ) -> Self {
        let units = &plan.scenario.units;
        let d = &units[defender];
        let through = hits_fall_on_one_armour(plan, d);
        let thresholds = attack_thresholds(plan, (&units[attacker], crew_alive, in_contact, made), (d, through));
        Self { guide: guide_of(&thresholds), thresholds, raw: !through }
    }

    /// Draws the attack: one word, as [`AttackTables::draw`] draws it from the same table.
    #[inline]
    pub(super) fn draw(&self, dice: &mut Dice) -> Drawn {
        let value =
            if self.thresholds.is_empty() { 0 } else { drawn_index(&self.thresholds, &self.guide, dice.word()) as u32 };
        if self.raw { Drawn::Raw(value) } else { Drawn::Through(value) }
    }
}

/// Every attack of a charge, worked out when the plan is compiled: nothing touches the
/// charger before it strikes (its volleys and its melee attack are made with every figure
/// and crewman), and the target, when it is not a platform, strikes back with dice that
/// depend only on its figures in contact. A trial then reaches each table by position
/// (volley number, the target's figures in contact) rather than by hashing the attack's
/// key: the same tables, the same words, the same outcomes.
#[derive(Clone, Debug)]
pub(super) struct ChargeTables {
    /// Each volley's, by number.
    pub(super) volleys: Vec<FixedTable>,
    /// The charger's figures in contact with the target in the melee.
    pub(super) charger_contact: u32,
    /// The charger's melee attack on the target.
    pub(super) charger: FixedTable,
    /// The target's attack back, by its figures in contact (index 0 unused).
    pub(super) target: Vec<FixedTable>,
}

impl ChargeTables {
    /// The tables of a charge by `unit` on `target` (with `volleys` volleys, the charger's
    /// figures in contact `charger_contact` and the target's at most `target_facing`), or
    /// none when the target is a platform (its attack back depends on the crew the volleys
    /// left it, so it is looked up by key).
    pub(super) fn new(
        plan: &BattlesystemPlan,
        (unit, target, volleys): (usize, usize, u32),
        charger_contact: u32,
        target_facing: u32,
    ) -> Option<Self> {
        let units = &plan.scenario.units;
        if units[target].is_platform() {
            return None;
        }
        let fresh_crew = super::UnitState::fresh(&units[unit]).crew_alive;
        let none = [0; MAX_CREW_GROUPS];
        let most = target_facing.min(units[target].figures);
        Some(Self {
            volleys: (0..volleys)
                .map(|v| FixedTable::new(plan, (unit, &fresh_crew, 0, Made::Volley(v)), target))
                .collect(),
            charger_contact,
            charger: FixedTable::new(
                plan,
                (unit, &fresh_crew, charger_contact, Made::Melee(Fighting::Charging)),
                target,
            ),
            target: (0..=most)
                .map(|n| FixedTable::new(plan, (target, &none, n, Made::Melee(Fighting::Standing)), unit))
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A draw through a table's guide gives the value counting every threshold gives, for
    /// short and long tables, at their edges and at random words.
    #[test]
    fn a_guided_draw_is_the_counted_draw() {
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            state ^ (state >> 29)
        };
        for len in [1usize, 2, 5, 8, 9, 20, 57, 200] {
            let pmf: Vec<f64> = (0..len).map(|i| ((i * 7919) % 13 + usize::from(i % 5 == 0) * 40) as f64).collect();
            let total: f64 = pmf.iter().sum();
            let pmf: Vec<f64> = pmf.iter().map(|p| p / total).collect();
            let table = CumulativeTable::new(&pmf);
            let thresholds = table.thresholds();
            let guide = guide_of(thresholds);
            let mut words: Vec<u64> =
                thresholds.iter().flat_map(|&t| [t.wrapping_sub(1), t, t.wrapping_add(1)]).collect();
            words.extend([0, u64::MAX, 1 << 58, (1 << 58) - 1]);
            words.extend((0..2000).map(|_| next()));
            for u in words {
                assert_eq!(
                    drawn_index(thresholds, &guide, u),
                    sampled_index(thresholds, u),
                    "length {len}, word {u:#x}"
                );
            }
        }
    }
}
