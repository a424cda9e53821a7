//! Compiling a scenario into its plan: the drive and its contacts, the impact chain, the support maps and the exact fight tables.

use super::*;

/// Tabulates the exact fight of every survivor configuration of group `g`, with the
/// spears, pikes and banners that help each one; when the chariot meets the group
/// `after_terrain` (a difficult-terrain test on its way), also for the chariot that test
/// cost a Wound.
pub(super) fn compile_fights(
    groups: &mut [ContactGroup],
    g: usize,
    models: &[PlannedModel],
    chariot: &FightingChariot,
    rules: &MesbgRules,
    map: &SupportMap,
    after_terrain: bool,
) {
    let group = &mut groups[g];
    let mut strides = Vec::with_capacity(group.models.len());
    let mut fate_strides = Vec::with_capacity(group.models.len());
    let mut cavalry_states = Vec::with_capacity(group.models.len());
    let mut configs: usize = 1;
    for &m in &group.models {
        strides.push(configs);
        if models[m].mount.is_some() {
            // Cavalry: each state its Impact Hits can leave it standing in.
            let mut states: Vec<ContactOutcome> = Vec::new();
            for o in models[m].impact.outcomes.iter().filter(|o| !o.passed) {
                if !states.iter().any(|s| same_fight_state(s, o)) {
                    states.push(*o);
                }
            }
            configs = configs.saturating_mul(states.len() + 1);
            fate_strides.push(0);
            cavalry_states.push(states);
            continue;
        }
        cavalry_states.push(Vec::new());
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
    group.cavalry_states = cavalry_states;
    // A Hero's fights are tabulated with all his Might and Fate: a trial in which terrain
    // took some of them first fights die by die. An enemy Hero's fights are tabulated for
    // each Fate the Impact Hits may have left him; cavalry for each state the Impact Hits
    // may have left rider and mount in.
    if configs > MAX_FIGHT_TABLES {
        return;
    }
    let fight_rules = fight_rules(rules);
    let hero = chariot.hero_in_fight();
    let group = &groups[g];
    let tables = |fighter: ChariotFighter| -> Vec<Option<FightTable>> {
        (0..configs)
            .map(|index| {
                let state = group.config_outcomes(index, models);
                let in_fight = |n: usize| group.models.iter().zip(&state).any(|(&k, o)| k == n && o.is_some());
                let survivors: Vec<Combatant> = group
                    .models
                    .iter()
                    .zip(&state)
                    .enumerate()
                    .filter_map(|(i, (&m, o))| {
                        o.as_ref().map(|o| models[m].combatant_braced(o, group.braced_in_fight(i, in_fight)))
                    })
                    .collect();
                let presence: Vec<Presence> = state
                    .iter()
                    .map(|o| match o {
                        Some(o) => Presence { in_fight: true, rider: o.left > 0, prone: o.prone },
                        None => Presence { in_fight: false, rider: false, prone: false },
                    })
                    .collect();
                let support =
                    support::foe_support(models, map, &group.models, g, &presence, rules, support::EarlierFights::NONE);
                (!survivors.is_empty()).then(|| {
                    FightTable::new(mesbg_fight::fight_distribution(&fighter, &survivors, fight_rules, hero, &support))
                })
            })
            .collect()
    };
    let fighter = chariot.fighter();
    let fights = tables(fighter);
    // A chariot the difficult-terrain test cost a Wound fights the same fight with one
    // Wound fewer.
    let wounded_fights = if after_terrain && chariot.fights_wounded_from_tables() {
        tables(ChariotFighter { wounds_left: fighter.wounds_left - 1, ..fighter })
    } else {
        Vec::new()
    };
    groups[g].fights = fights;
    groups[g].wounded_fights = wounded_fights;
}

/// The spears, pikes and banners of a scenario, with the bases that touch (only computed
/// when some model can support).
pub(super) fn support_map(scenario: &Scenario, models: &[PlannedModel], groups: &[ContactGroup]) -> SupportMap {
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

/// Compiles where the chariot stops, and each group's conditional chances.
pub(super) fn compile_chain(groups: &mut [ContactGroup], models: &[PlannedModel]) -> ImpactChain {
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

/// Marks the Monsters that could not Back Away if beaten where the chariot stops against
/// them: the chariot's centre there, the standing models (untouched so far; those touched
/// earlier are slain if it got there, those touched with them back away too) and the
/// obstacles decide. Chariots are never Trapped; other models are knocked Prone instead.
fn mark_blocked_monsters(
    scenario: &Scenario,
    models: &mut [PlannedModel],
    groups: &[ContactGroup],
    legs: &[Leg],
    discs: &[Disc],
) {
    let walls: Vec<(Vec2, Vec2)> = scenario
        .terrain
        .iter()
        .filter_map(|t| if let Terrain::Obstacle { from, to, .. } = t { Some((*from, *to)) } else { None })
        .collect();
    let mut touched_by = vec![usize::MAX; models.len()];
    for (g, group) in groups.iter().enumerate() {
        for &m in &group.models {
            touched_by[m] = g;
        }
    }
    for (g, group) in groups.iter().enumerate() {
        let Some(pose) = pose_at(legs, group.distance) else { continue };
        for &m in &group.models {
            if !models[m].monster || models[m].chariot.is_some() {
                continue;
            }
            let others: Vec<Disc> = (0..discs.len())
                .filter(|&o| o != m && (touched_by[o] == usize::MAX || touched_by[o] > g))
                .map(|o| discs[o])
                .collect();
            models[m].cannot_back_away = !can_back_away(&discs[m], pose.centre, &others, &[], &walls);
        }
    }
}

/// The Impact Hits tables of a chariot's `impact` on a model of profile `p` (its Wounds
/// and its mount's as they stand: a mount with no Wounds left is gone) with `fate` Fate
/// left: a cavalry model's rider and mount, a Hero's Fate against each Wound, or plain
/// Wounds. The one chooser of the single charge and of every state of a turn.
pub fn impact_tables(
    impact: &crate::mesbg::scenario::Impact,
    p: &Profile,
    fate: u8,
    rules: &MesbgRules,
) -> ImpactTables {
    match (p.mount.filter(|m| m.wounds > 0), p.hero) {
        (Some(mount), _) => ImpactTables::cavalry(
            impact.hits,
            impact.strength,
            p,
            &mount,
            rules.cavalry_passed_when,
            rules.cavalry_impact_hits,
        ),
        (None, Some(h)) => {
            ImpactTables::heroic(impact.hits, impact.strength, p.defence, p.wounds, fate, foe_saves(&h, rules))
        }
        (None, None) => ImpactTables::new(impact.hits, impact.strength, p.defence, p.wounds),
    }
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
        grip: scenario.rules.grip.grip(c.has_hand_and_a_half()),
    };
    let mut models = Vec::new();
    let mut discs = Vec::new();
    for (fi, f) in scenario.formations.iter().enumerate() {
        let impact_of = |p: &Profile| impact_tables(&c.impact, p, p.hero.map_or(0, |h| h.fate), &scenario.rules);
        let warriors_impact = impact_of(&f.profile);
        for (mi, centre) in f.centres.iter().enumerate() {
            let p = f.profile_of(mi);
            let impact = if std::ptr::eq(p, &f.profile) { warriors_impact.clone() } else { impact_of(p) };
            // A model of a shield wall: its tables with the +1 Defence, used wherever it
            // is braced.
            let braced = (scenario.rules.shieldwall && p.in_shieldwall()).then(|| {
                let wall = p.braced();
                shieldwall::Braced {
                    defence: wall.defence,
                    impact: impact_of(&wall),
                    struck_by_chariot: mesbg::to_wound(chariot.strength, wall.defence),
                }
            });
            models.push(PlannedModel {
                formation: fi,
                number: mi + 1,
                centre: *centre,
                fight: p.fight,
                attacks: p.attacks,
                wounds: p.wounds,
                defence: p.defence,
                points: p.points
                    + if f.banner == Some(mi) && std::ptr::eq(p, &f.profile) { f.bearer_points } else { 0 },
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
                braced,
                struck_by_chariot: mesbg::to_wound(chariot.strength, p.defence),
                strikes_chariot: mesbg::to_wound(p.strength, c.defence),
                hero: p.hero.map(|h| FoeHero {
                    might: h.might,
                    fate: h.fate,
                    might_on_duel: h.might_policy.on_duel(),
                    might_on_wounds: h.might_policy.on_wounds(),
                    saves: foe_saves(&h, &scenario.rules),
                    bearer: f.banner == Some(mi),
                }),
                cannot_back_away: false,
            });
            discs.push(f.disc_at(*centre));
        }
    }

    let policy = PathPolicy::of(scenario);
    let mut breakthrough_unreachable = false;
    let (pivots, stop_at) = match &policy {
        PathPolicy::Best(objective) => {
            let search = |objective| {
                best_pivots(
                    scenario,
                    &footprint,
                    &discs,
                    &models,
                    objective,
                    scenario.charge.distance,
                    Standing::default(),
                )
            };
            let mut best = search(*objective);
            // No path breaks through: rather than a path that merely avoids harm (often one
            // into empty ground), the player drives where the Impact Hits kill the most,
            // and the plan says so.
            if *objective == Objective::Breakthrough && best.value <= 1e-12 {
                breakthrough_unreachable = true;
                best = search(Objective::ExpectedImpactKills);
            }
            (best.pivots, best.stop_at)
        }
        _ => (Vec::new(), scenario.charge.distance),
    };
    let drive = drive(scenario, &footprint, discs, stop_at, Standing::default(), |chance, pose| {
        policy.pivot(chance, pose, &pivots)
    });
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
        blocked: _,
    } = drive;
    for (m, d) in models.iter_mut().zip(&discs) {
        m.centre = d.centre;
    }
    mark_blocked_monsters(scenario, &mut models, &groups, &legs, &discs);
    // Shieldwall: who braces whom at each contact; a model braced when touched takes its
    // Impact Hits at the higher Defence.
    let wall = shieldwall::wall_neighbours(&groups, &models, &discs, &pushes);
    for (group, neighbours) in groups.iter_mut().zip(wall) {
        group.wall_neighbours = neighbours;
        for (i, &m) in group.models.iter().enumerate() {
            if group.braced_on_contact(i)
                && let Some(b) = &models[m].braced
            {
                models[m].impact = b.impact.clone();
            }
        }
    }
    let chain = compile_chain(&mut groups, &models);
    let support = support_map(scenario, &models, &groups);
    // The test is rolled on entering; a model touched at the same point is touched after it.
    let terrain_group = difficult_from.map_or(groups.len(), |from| {
        groups.iter().position(|g| g.distance >= from - SAME_TIME_INCHES).unwrap_or(groups.len())
    });
    for g in 0..groups.len() {
        compile_fights(&mut groups, g, &models, &chariot, &scenario.rules, &support, g >= terrain_group);
    }
    let has_hazards = difficult_from.is_some() || obstacle.is_some();
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
        metrics.extend([Metric::ChariotBackedAway, Metric::FoeChariotBackedAway]);
    }
    if groups.iter().flat_map(|g| &g.models).any(|&m| models[m].impact.outcomes.iter().any(|o| o.thrown.is_some())) {
        metrics.push(Metric::ThrownRiderStopped);
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
    let start = legs.first().map_or(pose, |l| l.start);
    let breakthrough_possible = breaks_through(&groups, &models, scenario, &footprint, (&start, &pose));

    let mut plan = Plan {
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
        breakthrough_unreachable,
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
        fast: None,
        stop_at,
    };
    plan.fast = FastCharge::compile(&plan);
    plan
}
