//! What a charge and a trampling rout both roll: melee hits both ways, hits through armour and the figures and crew they remove, morale; and the charge itself (volleys, melee, morale).

use super::*;

/// Rolls the armour d10 for each of `hits` and removes figures (platform or crew, by the
/// option in force) as hits accumulate.
pub(super) fn take_hits(
    plan: &BattlesystemPlan,
    unit: &Unit,
    state: &mut UnitState,
    hits: u32,
    dice: &mut Dice,
) -> Losses {
    let armour = plan.scenario.rules.attack.armour;
    let mut losses = Losses::default();
    if unit.crew.is_empty() {
        // No crew to share the hits: every hit's d10 is rolled, those armour does not cancel
        // are counted without a branch on each (a coin toss the processor cannot foresee),
        // and the figures they remove follow from the count.
        let ar = unit.stats.ar;
        let through: u32 = (0..hits).map(|_| u32::from(!armour.cancels(die(10, dice), ar))).sum();
        return land_through(unit, state, through);
    }
    let crew_first = unit.is_platform() && plan.scenario.rules.platform_hits == PlatformHits::CrewFirst;
    // Crew first: fighters and archers in order, riders last, then the platforms. A group
    // once wiped out stays so, so the next group hit only ever moves down this order.
    let mut order = [0usize; MAX_CREW_GROUPS];
    let mut groups = 0;
    if crew_first {
        for rider in [false, true] {
            for (g, _) in unit.crew.iter().enumerate().filter(|(_, c)| (c.role == Role::Rider) == rider) {
                order[groups] = g;
                groups += 1;
            }
        }
    }
    let mut next = 0;
    for _ in 0..hits {
        while next < groups && state.crew_alive[order[next]] == 0 {
            next += 1;
        }
        let crew_target = (next < groups).then(|| order[next]);
        let ar = crew_target.map_or(unit.stats.ar, |g| unit.crew[g].ar);
        if armour.cancels(die(10, dice), ar) {
            continue;
        }
        losses.through += 1;
        match crew_target {
            Some(g) => {
                state.crew_carried[g] += 1;
                if state.crew_carried[g] >= unit.crew[g].hits {
                    state.crew_carried[g] = 0;
                    state.crew_alive[g] -= 1;
                    losses.crew += 1;
                }
            }
            None if state.figures > 0 => {
                state.carried += 1;
                if state.carried >= unit.stats.hits {
                    state.carried = 0;
                    state.figures -= 1;
                    losses.figures += 1;
                    // The crew of a removed platform fall with it: no more stay aboard
                    // than the surviving platforms carry.
                    for (g, c) in unit.crew.iter().enumerate() {
                        let removed = state.crew_alive[g].saturating_sub(c.count * state.figures);
                        state.crew_alive[g] -= removed;
                        losses.crew += removed;
                    }
                }
            }
            None => {}
        }
    }
    losses
}

/// What `through` hits that got through armour do to a unit whose hits fall on figures of
/// its own armour (see [`tables::hits_fall_on_one_armour`]): figures go as their hits fill up, and
/// crew fall with their platforms. The same as [`take_hits`] after its armour dice.
pub(super) fn land_through(unit: &Unit, state: &mut UnitState, through: u32) -> Losses {
    let mut losses = Losses { through, ..Losses::default() };
    if state.figures > 0 {
        let per_figure = unit.stats.hits.max(1);
        let total = state.carried + through;
        let removed = (total / per_figure).min(state.figures);
        state.figures -= removed;
        state.carried = if state.figures == 0 { 0 } else { total - removed * per_figure };
        losses.figures = removed;
        for (g, c) in unit.crew.iter().enumerate() {
            let fallen = state.crew_alive[g].saturating_sub(c.count * state.figures);
            state.crew_alive[g] -= fallen;
            losses.crew += fallen;
        }
    }
    losses
}

/// What a drawn attack does to its defender: hits through armour land at once; hits
/// before armour roll their armour dice one by one (see [`take_hits`]).
fn land(plan: &BattlesystemPlan, unit: &Unit, state: &mut UnitState, drawn: Drawn, dice: &mut Dice) -> Losses {
    match drawn {
        Drawn::Through(through) => land_through(unit, state, through),
        Drawn::Raw(hits) => take_hits(plan, unit, state, hits, dice),
    }
}

/// The crew fighting on the next platform: takes up to each group's `count` from `left`
/// (the crew not yet placed on a platform), spares the one rider a platform needs, and
/// writes the fighting groups as (figures, die) into `groups`. Returns how many it wrote.
pub(crate) fn fighting_crew(
    unit: &Unit,
    left: &mut [u32; MAX_CREW_GROUPS],
    groups: &mut [(u32, AttackDie); MAX_CREW_GROUPS],
) -> usize {
    let mut n = 0;
    let mut rider_spared = false;
    for (g, c) in unit.crew.iter().enumerate() {
        let mut aboard = c.count.min(left[g]);
        left[g] -= aboard;
        if c.role == Role::Rider && !rider_spared && aboard > 0 {
            rider_spared = true;
            aboard -= 1;
        }
        if aboard > 0 {
            groups[n] = (aboard, c.ad);
            n += 1;
        }
    }
    n
}

/// The AD multipliers of a unit's melee (crew dice, the unit's own dice): doubled by a
/// charge as `charge_doubles` says; a unit that is not a platform rolls its own dice as
/// crew.
pub(crate) fn melee_multipliers(
    rules: &crate::battlesystem::scenario::BattlesystemRules,
    unit: &Unit,
    charging: bool,
) -> ((u32, u32), (u32, u32)) {
    let doubled = |which: ChargeDoubles| {
        charging && (rules.charge_doubles == which || rules.charge_doubles == ChargeDoubles::Both)
    };
    let crew_mult = if doubled(ChargeDoubles::Crew) { (2, 1) } else { (1, 1) };
    let own_mult = if !unit.is_platform() {
        crew_mult
    } else if doubled(ChargeDoubles::Platform) {
        (2, 1)
    } else {
        (1, 1)
    };
    (crew_mult, own_mult)
}

/// How a unit fights in a melee: charging (its dice doubled as the rules say), trampling
/// (routing beasts: each beast in contact attacks with its own AD whatever it carries), or
/// neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fighting {
    /// The unit charged into the melee.
    Charging,
    /// Routing beasts met a unit.
    Trampling,
    /// Struck, or meeting a charge.
    Standing,
}

/// The hits (before armour) a unit scores in melee with `in_contact` figures, fighting as
/// `how`. A platform adds its roll to its fighting crew's dice; one with only its driver
/// aboard attacks with its own AD (`driver_only = "platform_ad"`, doubled when it charges); beasts
/// trampling attack with their own AD, and their crew able to fight add their attacks.
///
/// Die by die: trials draw each attack whole from its table ([`AttackTables`]); this is
/// the reference the tables are checked against.
#[cfg(test)]
pub(super) fn melee_hits(
    plan: &BattlesystemPlan,
    unit: &Unit,
    state: &UnitState,
    in_contact: u32,
    how: Fighting,
    dice: &mut Dice,
) -> u32 {
    use crate::battlesystem::rules::{Attack, PlatformRoll, attack_hits, platform_crew_hits};
    let charging = how == Fighting::Charging;
    let rules = &plan.scenario.rules;
    let (crew_mult, own_mult) = melee_multipliers(rules, unit, charging);
    let table = &rules.attack.hits_table;
    // The unit's own attack: a unit's figures, or a platform attacking alone.
    let own = Attack {
        figures: in_contact,
        die: unit.stats.ad,
        multiplier: own_mult,
        platform: None,
        platform_roll: PlatformRoll::Shared,
        defender_ar: 0,
    };
    if !unit.is_platform() {
        return attack_hits(&own, table, dice);
    }
    let mut hits = 0;
    // Each platform in contact adds its roll to its own crew's dice. Crew are spread over
    // the surviving platforms; the one rider a platform needs does not fight.
    let mut left = state.crew_alive;
    let mut groups = [(0, AttackDie::D4); MAX_CREW_GROUPS];
    for _ in 0..in_contact {
        let n = fighting_crew(unit, &mut left, &mut groups);
        if n > 0 {
            hits += platform_crew_hits(unit.stats.ad, &groups[..n], crew_mult, rules.platform_roll, table, dice);
        } else if driver_alone_attacks(rules, how) {
            let alone = Attack { figures: 1, multiplier: driver_only_multiplier(rules, how), ..own.clone() };
            hits += attack_hits(&alone, table, dice);
        }
    }
    if rules.platform_attacks_alone || how == Fighting::Trampling {
        hits += attack_hits(&own, table, dice);
    }
    hits
}

/// Whether a platform in contact with only its driver aboard attacks with its own AD:
/// under `driver_only = "platform_ad"`, in any melee (trampling beasts and platforms that
/// attack alone roll their own dice anyway).
pub(crate) fn driver_alone_attacks(rules: &crate::battlesystem::scenario::BattlesystemRules, how: Fighting) -> bool {
    how != Fighting::Trampling && rules.driver_only == DriverOnly::PlatformAd && !rules.platform_attacks_alone
}

/// The multiplier of such a platform's one die: doubled by the charge unless the charge
/// doubles nothing.
pub(crate) fn driver_only_multiplier(
    rules: &crate::battlesystem::scenario::BattlesystemRules,
    how: Fighting,
) -> (u32, u32) {
    if how == Fighting::Charging && rules.charge_doubles != ChargeDoubles::None { (2, 1) } else { (1, 1) }
}

/// Figures of `defender` that strike back at `attacker`: those whose bases lie along the
/// stretch where the two blocks touch. The contact face is the separating axis with the
/// smallest gap; the stretch is the overlap of the two blocks across it; each figure takes
/// its base's extent along the stretch, and no more figures fit than stand along that face
/// of the defender (a rank across its front or back, its ranks along a flank), nor more than
/// it has left. A column two figures wide meets a 4"-wide dragon with two figures.
pub(super) fn defenders_in_contact(defender: &Unit, state: &UnitState, attacker: &Block) -> u32 {
    let Some(d) = state.block else { return 0 };
    if state.figures == 0 {
        return 0;
    }
    defenders_facing(defender, &d, attacker).min(state.figures)
}

/// The figures of `defender` (standing at `d`) whose bases face the stretch of contact
/// with `attacker`, before counting the figures it has left: geometry only, so a rout
/// step can work it out once for every trial that takes it.
pub(super) fn defenders_facing(defender: &Unit, d: &Block, attacker: &Block) -> u32 {
    let d = *d;
    let contact_face = board::contact_face(attacker, &d);
    let along = contact_face.right();
    let overlap = board::overlap_along(attacker, &d, along);
    let d_forward = Vec2::heading(d.facing);
    let across_front = along.dot(d_forward.right()).abs() >= along.dot(d_forward).abs();
    let (base_along, on_face) = if across_front {
        (defender.base[0], defender.frontage)
    } else {
        (defender.base[1], defender.figures.div_ceil(defender.frontage.max(1)))
    };
    let fit = ((overlap / base_along) - 1e-9).ceil().max(1.0) as u32;
    fit.min(on_face)
}

/// Figures of a charge's target that strike back while it has every figure (with fewer
/// left, the fewer of this and those left): the exact engine's view of
/// [`defenders_in_contact`], whose stretch of contact does not change during a charge.
pub(crate) fn charge_target_in_contact(plan: &BattlesystemPlan, charger: usize, target: usize) -> u32 {
    let units = &plan.scenario.units;
    defenders_in_contact(&units[target], &UnitState::fresh(&units[target]), &units[charger].block)
}

/// Figures of a charger that attack its target while it has every figure: the exact
/// engine's view of [`attackers_in_contact`] (a charger loses no figure before it strikes).
pub(crate) fn charger_in_contact(plan: &BattlesystemPlan, charger: usize, target: usize) -> u32 {
    let units = &plan.scenario.units;
    let states: Vec<UnitState> = units.iter().map(UnitState::fresh).collect();
    attackers_in_contact(plan, &states, charger, target)
}

/// The figures of the unit that moves (`attacker`, at its block in `states`) that attack
/// `defender`: by `melee_contact`, those in contact (the same measure as the defender's:
/// its bases along the stretch where the blocks touch) or its whole front rank.
pub(super) fn attackers_in_contact(
    plan: &BattlesystemPlan,
    states: &[UnitState],
    attacker: usize,
    defender: usize,
) -> u32 {
    let units = &plan.scenario.units;
    let a = &units[attacker];
    match plan.scenario.rules.melee_contact {
        MeleeContact::WholeFrontRank => states[attacker].figures.min(a.frontage),
        MeleeContact::FiguresInContact => {
            let d_block = states[defender].block.unwrap_or(units[defender].block);
            defenders_in_contact(a, &states[attacker], &d_block)
        }
    }
}

/// A simultaneous melee between the unit that moved into contact and the unit it struck.
/// Returns (attacker's losses, defender's losses).
///
/// `facing`, when given, is (the attacker's figures facing the defender, the defender's
/// facing the attacker), worked out beforehand for these blocks with [`defenders_facing`]
/// (the attacker's is used only under `melee_contact = "figures_in_contact"`).
#[allow(clippy::too_many_arguments)]
pub(super) fn melee(
    plan: &BattlesystemPlan,
    states: &mut [UnitState],
    tables: &mut AttackTables,
    attacker: usize,
    defender: usize,
    how: Fighting,
    facing: Option<(u32, u32)>,
    dice: &mut Dice,
    trace: &mut Option<Vec<BattlesystemEvent>>,
) -> (Losses, Losses) {
    let contacts = melee_contacts(plan, states, attacker, defender, facing);
    // Both roll before either removes a figure.
    let a_crew = states[attacker].crew_alive;
    let on_defender = tables.draw(plan, attacker, &a_crew, contacts.0, Made::Melee(how), defender, dice);
    let d_crew = states[defender].crew_alive;
    let on_attacker = tables.draw(plan, defender, &d_crew, contacts.1, Made::Melee(Fighting::Standing), attacker, dice);
    exchange(plan, states, (attacker, defender), contacts, (on_defender, on_attacker), dice, trace)
}

/// The figures of each side that fight in a melee between `attacker` and `defender`:
/// (the attacker's, the defender's). `facing` as for [`melee`].
#[inline]
pub(super) fn melee_contacts(
    plan: &BattlesystemPlan,
    states: &[UnitState],
    attacker: usize,
    defender: usize,
    facing: Option<(u32, u32)>,
) -> (u32, u32) {
    let units = &plan.scenario.units;
    let a_block = states[attacker].block.unwrap_or(units[attacker].block);
    let whole_rank = plan.scenario.rules.melee_contact == MeleeContact::WholeFrontRank;
    let a_contact = match facing {
        Some((f, _)) if !whole_rank && states[attacker].figures > 0 => f.min(states[attacker].figures),
        _ => attackers_in_contact(plan, states, attacker, defender),
    };
    let d_contact = match facing {
        Some((_, f)) if states[defender].block.is_some() && states[defender].figures > 0 => {
            f.min(states[defender].figures)
        }
        _ => defenders_in_contact(&units[defender], &states[defender], &a_block),
    };
    (a_contact, d_contact)
}

/// The rest of a melee once both sides' attacks are drawn (the attacker's on the defender,
/// the defender's on the attacker), `a_contact` and `d_contact` figures fighting: the hits
/// land on both, and the exchange is traced. Returns (attacker's losses, defender's losses).
#[inline]
fn exchange(
    plan: &BattlesystemPlan,
    states: &mut [UnitState],
    (attacker, defender): (usize, usize),
    (a_contact, d_contact): (u32, u32),
    (on_defender, on_attacker): (Drawn, Drawn),
    dice: &mut Dice,
    trace: &mut Option<Vec<BattlesystemEvent>>,
) -> (Losses, Losses) {
    let units = &plan.scenario.units;
    let d_losses = land(plan, &units[defender], &mut states[defender], on_defender, dice);
    let a_losses = land(plan, &units[attacker], &mut states[attacker], on_attacker, dice);
    if let Some(t) = trace {
        t.push(BattlesystemEvent::Melee {
            attacker,
            defender,
            attacker_figures: a_contact,
            defender_figures: d_contact,
            hits_on_defender: d_losses.through,
            hits_on_attacker: a_losses.through,
            defender_lost: d_losses.figures,
            attacker_lost: a_losses.figures,
        });
    }
    (a_losses, d_losses)
}

/// A unit's morale check: 2d10 (drawn as one sum) against its morale level.
pub(super) fn morale(
    plan: &BattlesystemPlan,
    tables: &mut AttackTables,
    unit: usize,
    dice: &mut Dice,
    trace: &mut Option<Vec<BattlesystemEvent>>,
) -> MoraleResult {
    let roll = tables.two_d10(dice);
    let result = plan.scenario.rules.morale.result(roll, plan.scenario.units[unit].stats.ml);
    if let Some(t) = trace {
        t.push(BattlesystemEvent::Morale { unit, roll, result });
    }
    result
}

pub(super) fn charge(
    plan: &BattlesystemPlan,
    s: &ChargeSlots,
    (unit, target, volleys, _gap): (usize, usize, u32, f64),
    scratch: &mut Scratch,
    dice: &mut Dice,
    trace: &mut Option<Vec<BattlesystemEvent>>,
) {
    let units = &plan.scenario.units;
    let (c, t) = (&units[unit], &units[target]);
    let states = &mut scratch.states;
    let tables = &mut scratch.attacks;
    let out = &mut scratch.values;
    let (mut volley_hits, mut volley_kills) = (0, 0);
    // Volleys at the start of the charge and halfway in: archers aboard shoot as if
    // stationary, with the range band's multiplier on their dice.
    for v in 0..volleys {
        let range = plan.volley_range(v);
        // The archers aboard (read only where needed: the compiled tables know them).
        let drawn = match &plan.charge_tables {
            Some(compiled) => compiled.volleys[v as usize].draw(dice),
            None => tables.draw(plan, unit, &states[unit].crew_alive, 0, Made::Volley(v), target, dice),
        };
        let losses = land(plan, t, &mut states[target], drawn, dice);
        volley_hits += losses.through;
        volley_kills += losses.figures;
        if let Some(tr) = trace {
            // The dice the archers rolled, for the replay (the draw needs only their hits).
            let rolled: u32 = c
                .crew
                .iter()
                .zip(&states[unit].crew_alive)
                .filter(|(cr, _)| cr.role == Role::Archer)
                .filter_map(|(cr, &aboard)| {
                    let band = cr.bands.iter().find(|b| range >= b.from && range < b.to)?;
                    Some(crate::battlesystem::rules::dice_count(aboard, band.hundredths, 100))
                })
                .sum();
            tr.push(BattlesystemEvent::Volley { range, dice: rolled, hits: losses.through, removed: losses.figures });
        }
        if states[target].figures == 0 {
            break;
        }
    }
    out[s.volley_hits] = to_u16(volley_hits);
    out[s.volley_kills] = to_u16(volley_kills);
    let (mut on_target, mut on_charger) = (Losses::default(), Losses::default());
    if states[target].figures > 0 {
        (on_charger, on_target) = match &plan.charge_tables {
            Some(compiled) => {
                let contacts = melee_contacts(plan, states, unit, target, Some(s.facing));
                debug_assert_eq!(contacts.0, compiled.charger_contact, "the charger strikes with every figure");
                let on_target = compiled.charger.draw(dice);
                let on_charger = compiled.target[contacts.1 as usize].draw(dice);
                exchange(plan, states, (unit, target), contacts, (on_target, on_charger), dice, trace)
            }
            None => melee(plan, states, tables, unit, target, Fighting::Charging, Some(s.facing), dice, trace),
        };
    }
    out[s.hits_on_target] = to_u16(on_target.through);
    out[s.target_figures_lost] = to_u16(volley_kills + on_target.figures);
    out[s.hits_on_charger] = to_u16(on_charger.through);
    out[s.platform_figures_lost] = to_u16(on_charger.figures);
    out[s.crew_lost] = to_u16(on_charger.crew);
    let result = if states[target].figures == 0 { 3 } else { morale(plan, tables, target, dice, trace) as u16 };
    out[s.target_morale] = result;
    out[[s.target_held, s.target_fell_back, s.target_routed, s.target_destroyed][usize::from(result)]] = 1;
    let charger = &states[unit];
    out[s.charger_destroyed] = u16::from(charger.figures == 0);
    let riders: u32 =
        c.crew.iter().zip(&charger.crew_alive).filter(|(cr, _)| cr.role == Role::Rider).map(|(_, n)| n).sum();
    // Each platform needs a rider of its own: any platform left without one is out of control.
    out[s.platform_uncontrolled] = u16::from(charger.figures > 0 && riders < charger.figures);
}
