//! The fight after the charge, die by die: the duel (with supporters, a banner and enemy
//! Heroes' own dice and Might), the winner's Strikes, enemy Heroes' Fate, and the dice a
//! replay shows for a fight drawn from its exact table.

use super::*;
use crate::mesbg::rules::duel::{HeroDice, PerHero};
use crate::mesbg::rules::fight::{ChariotFighter, Combatant, HeroInFight};

/// Finds dice for a replayed fight that give `result`, the outcome its trial drew from the
/// exact table for the chariot as it came to the fight (`before`), on `board`: dice-level
/// fights on a stream of their own until one `matches` the draw (rejection sampling, so
/// the dice shown follow their exact distribution given the outcome). A single charge
/// matches the outcome; a turn's fight also the models slain.
#[allow(clippy::too_many_arguments)]
pub(crate) fn reconstruct_fight<O: Observer>(
    plan: &Plan,
    board: &FightBoard,
    scratch: &mut Scratch,
    dice: &mut Dice,
    before: ChariotState,
    matches: impl Fn(&Scratch, FightOutcome) -> bool,
    obs: &mut O,
) {
    for _ in 0..MAX_RECONSTRUCTION_TRIES {
        let mut trace = Trace::default();
        let result = fight_by_dice(plan, board, scratch, &mut { before }, dice, &mut trace);
        if matches(scratch, result) {
            for event in trace.0 {
                obs.note(|| event);
            }
            return;
        }
    }
    obs.note(|| Event::Note {
        text: format!("no dice found for this rare fight outcome in {MAX_RECONSTRUCTION_TRIES} tries"),
    });
}

/// Where a fight is fought, as its support and its beaten models' room to Back Away see
/// it: for a single charge, the plan's own board at the group the chariot stopped at; for
/// a fight of a turn, the board as the turn's moves left it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FightBoard<'a> {
    /// Spears, pikes and banners on the board.
    pub support: &'a crate::mesbg::plan::support::SupportMap,
    /// The models the chariot touched (its contact group), whether or not still standing.
    pub group: &'a [usize],
    /// The group's index (models of groups before it are slain).
    pub g: usize,
    /// What the fights fought earlier this turn changed: supporters used, models slain.
    pub earlier: crate::mesbg::plan::support::EarlierFights<'a>,
    /// Monsters that cannot Back Away here (`None`: the plan's own marks).
    pub cannot_back_away: Option<&'a [usize]>,
    /// Whether an enemy Hero may be in the fight (his dice, Might and Fate are kept apart).
    pub foe_heroes: bool,
    /// The help worked out with the plan, when it cannot change from trial to trial (a
    /// fight of a turn without cavalry: every model in it stands, none Prone).
    pub fixed: Option<&'a FoeSupport>,
    /// The order the chariots of a fight of several roll their Strikes in.
    pub strike_order: crate::mesbg::scenario::StrikeOrder,
}

impl<'a> FightBoard<'a> {
    /// The board of a single charge stopped at group `g`.
    pub(crate) fn of(plan: &'a Plan, g: usize) -> Self {
        Self {
            support: &plan.support,
            group: plan.groups.get(g).map_or(&[], |group| group.models.as_slice()),
            g,
            earlier: crate::mesbg::plan::support::EarlierFights::NONE,
            cannot_back_away: None,
            foe_heroes: !plan.foe_heroes.is_empty(),
            fixed: None,
            strike_order: crate::mesbg::scenario::StrikeOrder::default(),
        }
    }

    /// The help in this fight: worked out with the plan, or now from who stands.
    fn support<O: Observer>(
        &self,
        plan: &Plan,
        scratch: &Scratch,
        enemy: &mut DuelSide,
        obs: &mut O,
    ) -> std::borrow::Cow<'a, FoeSupport> {
        match self.fixed {
            Some(fixed) => {
                fixed.join(enemy);
                if !fixed.supporters.is_empty() || fixed.banner {
                    obs.note(|| Event::Support {
                        supporters: fixed.supporters.iter().map(|s| s.model).collect(),
                        banner: fixed.banner,
                    });
                }
                std::borrow::Cow::Borrowed(fixed)
            }
            None if self.support.any() => std::borrow::Cow::Owned(support_in_fight(plan, self, scratch, enemy, obs)),
            None => std::borrow::Cow::Owned(FoeSupport::NONE),
        }
    }

    /// The models of `scratch`'s fight with a rider or a mount standing, as the exact fight
    /// reads them (blocked behind as this board says).
    fn combatants(&self, plan: &Plan, scratch: &Scratch) -> Vec<Combatant> {
        scratch
            .survivors
            .iter()
            .filter(|s| s.left > 0 || s.mount_left > 0)
            .map(|s| {
                let mut c = plan.models[s.model].combatant_standing(
                    s.left,
                    s.mount_left,
                    s.prone,
                    s.strikes,
                    s.fate_spent,
                    s.braced,
                );
                if let Some(blocked) = self.cannot_back_away {
                    c.cannot_back_away = blocked.contains(&s.model);
                }
                c
            })
            .collect()
    }

    /// Whether beaten model `m` (a Monster) is Trapped for want of room to Back Away.
    fn trapped(&self, plan: &Plan, m: usize, left: u8, rules: mesbg_fight::FightRules) -> bool {
        let mut c = plan.models[m].combatant(left);
        if let Some(blocked) = self.cannot_back_away {
            c.cannot_back_away = blocked.contains(&m);
        }
        c.trapped_when_beaten(rules)
    }
}

/// The spears, pikes and banner helping the models in `scratch`'s fight: their dice (and,
/// by the ruleset, their Fight) join the enemy's side of the duel, and replays name them.
#[inline(never)]
pub(super) fn support_in_fight<O: Observer>(
    plan: &Plan,
    board: &FightBoard,
    scratch: &Scratch,
    enemy: &mut DuelSide,
    obs: &mut O,
) -> FoeSupport {
    let presence: Vec<Presence> = board
        .group
        .iter()
        .map(|&m| match scratch.survivors.iter().find(|s| s.model == m) {
            Some(s) => Presence { in_fight: true, rider: s.left > 0, prone: s.prone },
            None => Presence { in_fight: false, rider: false, prone: false },
        })
        .collect();
    let support = crate::mesbg::plan::support::foe_support(
        &plan.models,
        board.support,
        board.group,
        board.g,
        &presence,
        &plan.rules,
        board.earlier,
    );
    support.join(enemy);
    if !support.supporters.is_empty() || support.banner {
        obs.note(|| Event::Support {
            supporters: support.supporters.iter().map(|s| s.model).collect(),
            banner: support.banner,
        });
    }
    support
}

/// Each supporter's one Strike at the chariot after the enemy won the duel (until it is
/// slain).
#[inline(never)]
pub(super) fn supporters_strike<O: Observer>(
    plan: &Plan,
    support: &FoeSupport,
    state: &mut ChariotState,
    dice: &mut Dice,
    obs: &mut O,
) {
    for supporter in &support.supporters {
        if state.wounds_left == 0 {
            break;
        }
        let hit = supporter.strikes_chariot.roll(dice);
        let wounds = u8::from(hit && state.suffer_wound(plan, dice, obs));
        obs.note(|| Event::Strike {
            by: Some(supporter.model),
            target: None,
            rolls: 1,
            wounds,
            prevented: u8::from(hit) - wounds,
            slain: state.wounds_left == 0,
            casualty: false,
        });
    }
}

/// Tells a replay of the banner's re-roll: the die given up and the die rolled.
fn note_reroll<O: Observer>(roll: &mesbg_duel::FoeRoll, obs: &mut O) {
    if let Some((from, to)) = roll.reroll {
        obs.note(|| Event::BannerReroll { from, to });
    }
}

/// One enemy Hero in a die-by-die fight and what he has left.
#[derive(Clone, Copy, Debug)]
struct FoeInFight {
    /// His index among the fight's survivors (and targets).
    survivor: usize,
    /// His model.
    model: usize,
    /// His duel dice (Attacks).
    attacks: u8,
    /// His Might and Fate when the fight began, and his policies.
    hero: FoeHero,
    might_left: u8,
    fate_left: u8,
}

/// The standing enemy Heroes of a die-by-die fight, in the order they stand in it.
#[derive(Default)]
struct FoeHeroes {
    heroes: PerHero<FoeInFight>,
}

impl FoeHeroes {
    /// The standing Heroes among `scratch`'s survivors, with the Fate the Impact Hits left.
    fn of(plan: &Plan, scratch: &Scratch) -> Self {
        let heroes = scratch
            .survivors
            .iter()
            .enumerate()
            .filter(|(_, s)| s.left > 0)
            .filter_map(|(i, s)| {
                let m = &plan.models[s.model];
                m.hero.map(|h| {
                    let hero = FoeHero { fate: h.fate - s.fate_spent, ..h };
                    FoeInFight {
                        survivor: i,
                        model: s.model,
                        attacks: m.attacks,
                        hero,
                        might_left: hero.might,
                        fate_left: hero.fate,
                    }
                })
            })
            .collect();
        Self { heroes }
    }

    /// The Hero who is target (survivor) `i`, by his place in the list.
    fn at(&self, i: usize) -> Option<usize> {
        self.heroes.iter().position(|f| f.survivor == i)
    }

    fn might_spent(&self) -> u8 {
        self.heroes.iter().map(|f| f.hero.might - f.might_left).sum()
    }

    fn fate_spent(&self) -> u8 {
        self.heroes.iter().map(|f| f.hero.fate - f.fate_left).sum()
    }

    /// The enemy's duel roll with Heroes in it: each Hero's dice kept apart from the
    /// warriors', the banner's re-roll, then Might both ways
    /// ([`mesbg_duel::settle_duel_might`]). Raises `chariot_high` by the chariot's Might and
    /// returns the enemy's highest.
    #[allow(clippy::too_many_arguments)]
    fn duel<O: Observer>(
        &mut self,
        attacker: &DuelSide,
        enemy: &DuelSide,
        support: &FoeSupport,
        chariot_high: &mut u8,
        (policy, state): (crate::mesbg::scenario::MightPolicy, &mut ChariotState),
        dice: &mut Dice,
        obs: &mut O,
    ) -> u8 {
        let heroes: PerHero<HeroDice> =
            self.heroes.iter().map(|f| HeroDice { dice: u32::from(f.attacks), minus_one: f.hero.bearer }).collect();
        let split = mesbg_fight::split_duel_dice(heroes, enemy, support);
        let tie = mesbg_fight::Tie::of(attacker.fight, enemy.fight);
        let roll = mesbg_duel::settle_foe_highs(&split, *chariot_high, tie, || dice.d6());
        note_reroll(&roll, obs);
        let highs = roll.highs;
        let chariot_might = if policy.on_duel() { state.might_left } else { 0 };
        let foe_might: PerHero<u8> =
            self.heroes.iter().map(|f| if f.hero.might_on_duel { f.might_left } else { 0 }).collect();
        let m = mesbg_duel::settle_duel_might(
            *chariot_high,
            attacker.fight,
            chariot_might,
            &highs,
            &foe_might,
            enemy.fight,
        );
        if m.chariot_spent > 0 {
            state.might_left -= m.chariot_spent;
            obs.note(|| Event::Might { points: m.chariot_spent, on: "duel" });
        }
        for (f, &points) in self.heroes.iter_mut().zip(&m.foe_spent) {
            if points > 0 {
                f.might_left -= points;
                let model = f.model;
                obs.note(|| Event::FoeMight { model, points, on: "duel" });
            }
        }
        *chariot_high = m.chariot_high;
        m.foe_high
    }

    /// Hero `k` suffers `wounds` Wounds one at a time, each perhaps prevented by his Fate
    /// (and Might on the Fate roll); returns the Wounds he lost and those Fate prevented.
    fn suffer<O: Observer>(
        &mut self,
        k: usize,
        wounds_left: &mut u8,
        wounds: u8,
        dice: &mut Dice,
        obs: &mut O,
    ) -> (u8, u8) {
        let f = &mut self.heroes[k];
        let (mut lost, mut prevented) = (0, 0);
        for _ in 0..wounds {
            if *wounds_left == 0 {
                break;
            }
            let on = WoundOn::Hero { wounds_left: *wounds_left };
            let p = mesbg_fight::settle_prevention(f.hero.saves, on, f.fate_left, f.might_left, || dice.d6());
            f.fate_left -= p.fate_spent;
            f.might_left -= p.might_spent;
            let model = f.model;
            if p.might_spent > 0 {
                obs.note(|| Event::FoeMight { model, points: p.might_spent, on: "Fate" });
            }
            if p.fate_spent > 0 {
                obs.note(|| Event::FoeFate { model, points: p.fate_spent, saved: p.prevented });
            }
            if p.prevented {
                prevented += 1;
            } else {
                *wounds_left -= 1;
                lost += 1;
            }
        }
        (lost, prevented)
    }
}

/// Whether the chariot holds its weapon two-handed in the fight against `scratch`'s
/// survivors: as its grip says, or, for a hand-and-a-half weapon held as a sensible player
/// holds it, the grip [`mesbg_fight::chosen_grip`] picks from the fight as it stands (the
/// same choice the exact tables make). Replays say which.
fn held_two_handed<O: Observer>(
    plan: &Plan,
    enemies: impl FnOnce() -> Vec<Combatant>,
    state: &ChariotState,
    support: &FoeSupport,
    obs: &mut O,
) -> bool {
    let fighter = plan.chariot.fighter();
    let grip = match fighter.grip {
        mesbg_fight::Grip::OneHanded => return false,
        mesbg_fight::Grip::Choose => {
            let enemies = enemies();
            let chariot = ChariotFighter { wounds_left: state.wounds_left, ..fighter };
            let hero = HeroInFight { might: state.might_left, fate: state.fate_left, ..plan.chariot.hero_in_fight() };
            mesbg_fight::chosen_grip(&chariot, &enemies, fight_rules(&plan.rules), hero, support)
        }
        held => held,
    };
    let two_handed = grip == mesbg_fight::Grip::TwoHanded;
    let chosen = fighter.grip == mesbg_fight::Grip::Choose;
    obs.note(|| Event::Grip { two_handed, chosen });
    two_handed
}

/// The fight after the charge against the survivors in `scratch`, die by die, with the
/// Hero's Might (by his policy) and Fate, and cavalry (rider and mount).
pub(crate) fn fight_by_dice<O: Observer>(
    plan: &Plan,
    board: &FightBoard,
    scratch: &mut Scratch,
    state: &mut ChariotState,
    dice: &mut Dice,
    obs: &mut O,
) -> FightOutcome {
    let chariot = plan.chariot.fighter();
    let policy = plan.chariot.hero.map_or(crate::mesbg::scenario::MightPolicy::None, |h| h.might_policy);
    let rules = fight_rules(&plan.rules);
    let wounds_at_start = state.wounds_left;
    let (might_at_start, fate_at_start) = (state.might_left, state.fate_left);
    let attacker = DuelSide { dice: u32::from(chariot.attacks), fight: chariot.fight, side: chariot.side };
    let mut enemy = DuelSide { dice: 0, fight: 0, side: chariot.side.opponent() };
    for s in &scratch.survivors {
        let m = &plan.models[s.model];
        if s.left > 0 {
            enemy.dice += u32::from(m.attacks);
            enemy.fight = enemy.fight.max(m.fight);
        }
        if let Some(mount) = m.mount.filter(|_| s.mount_left > 0) {
            enemy.dice += u32::from(mount.attacks);
            enemy.fight = enemy.fight.max(mount.fight);
        }
    }
    // Spears, pikes and banners helping the models in the fight (worked out of line: most
    // scenarios have none).
    let support = board.support(plan, scratch, &mut enemy, obs);
    let support = support.as_ref();
    if !board.earlier.supporters.is_empty() || board.cannot_back_away.is_some() {
        // A fight of a turn: later fights need to know who supported here.
        scratch.supporters_used.clear();
        scratch.supporters_used.extend(support.supporters.iter().map(|sp| sp.model));
    }
    let mut foes = if board.foe_heroes { FoeHeroes::of(plan, scratch) } else { FoeHeroes::default() };
    let two_handed = held_two_handed(plan, || board.combatants(plan, scratch), state, support, obs);
    let mut chariot_high = dice.highest_d6(attacker.dice);
    if two_handed {
        chariot_high = mesbg::two_handed_duel_die(chariot_high);
    }
    let enemy_high = if !foes.heroes.is_empty() {
        foes.duel(&attacker, &enemy, support, &mut chariot_high, (policy, state), dice, obs)
    } else if support.plain_dice() {
        dice.highest_d6(enemy.dice)
    } else {
        let warriors = mesbg_duel::FoeDuelDice::warriors_only(mesbg_fight::defender_dice(&enemy, support));
        let tie = mesbg_fight::Tie::of(attacker.fight, enemy.fight);
        let roll = mesbg_duel::settle_foe_highs(&warriors, chariot_high, tie, || dice.d6());
        note_reroll(&roll, obs);
        roll.high()
    };
    if foes.heroes.is_empty()
        && policy.on_duel()
        && let Some(points) =
            mesbg::might_to_win_duel(chariot_high, enemy_high, attacker.fight, enemy.fight, state.might_left)
    {
        state.might_left -= points;
        chariot_high += points;
        obs.note(|| Event::Might { points, on: "duel" });
    }
    let duel = mesbg::settle_duel(attacker, enemy, chariot_high, enemy_high, dice);
    let won = duel.winner == DuelWinner::Attacker;
    obs.note(|| Event::Duel {
        chariot_dice: attacker.dice,
        enemy_dice: enemy.dice,
        chariot_high: duel.attacker_high,
        enemy_high: duel.defender_high,
        roll_off: duel.roll_off,
        chariot_won: won,
    });
    if won {
        // The beaten Infantry are knocked Prone, beaten Cavalry Knocked Flying (the rider
        // takes a Strength 3 hit and is Prone); never Monsters or chariots. Models knocked
        // down count as Trapped when the ruleset says so; a model already Prone when it
        // loses is always Trapped. Strikes go to riders (and infantry); a mount only when
        // its rider is already gone.
        let mut kills = 0;
        scratch.targets.clear();
        scratch.target_is_rider.clear();
        for s in &scratch.survivors {
            let m = &plan.models[s.model];

            if s.left > 0 {
                let mut left = s.left;
                let mounted = m.mount.is_some() && s.mount_left > 0;
                let trapped = if s.prone {
                    true
                } else if mounted {
                    let wounded = m.thrown_hit.roll(dice);
                    left -= u8::from(wounded);
                    kills += u8::from(left == 0);
                    obs.note(|| Event::KnockedFlying { model: s.model, wounded, slain: left == 0 });
                    rules.trapped
                } else {
                    board.trapped(plan, s.model, left, rules)
                };
                let (roll, defence) = m.struck(s.braced);
                let roll = if two_handed { roll.plus_one() } else { roll };
                scratch.targets.push(StrikeTarget { roll, trapped, wounds_left: left, defence });
                scratch.target_is_rider.push(true);
            } else if let Some(mount) = m.mount.filter(|_| s.mount_left > 0) {
                scratch.targets.push(StrikeTarget {
                    roll: if two_handed { mount.struck_by_chariot.plus_one() } else { mount.struck_by_chariot },
                    trapped: false,
                    wounds_left: s.mount_left,
                    defence: mount.defence,
                });
                scratch.target_is_rider.push(false);
            }
        }
        let declared = rules.split == StrikeSplit::Declared;
        let mut order = std::mem::take(&mut scratch.order);
        order.clear();
        if declared {
            let saves = |i: usize| {
                foes.at(i).map(|k| {
                    let f = &foes.heroes[k];
                    TargetSaves { fate: f.fate_left, might: f.might_left, saves: f.hero.saves }
                })
            };
            order.extend_from_slice(scratch.declared_order(chariot.attacks, saves));
            if O::ENABLED {
                let split: Vec<(usize, u8)> = (0..scratch.targets.len())
                    .map(|i| (scratch.survivors[i].model, order.iter().filter(|&&k| k == i).count() as u8))
                    .collect();
                obs.note(|| Event::StrikesDeclared { split });
            }
        }
        let mut at_start = std::mem::take(&mut scratch.at_start);
        at_start.clear();
        at_start.extend(scratch.targets.iter().map(|t| t.wounds_left));
        let might_on_wounds = policy.on_wounds();
        for j in 0..usize::from(chariot.attacks) {
            let pick = if declared {
                order.get(j).copied().filter(|&i| scratch.targets[i].wounds_left > 0)
            } else {
                mesbg::pick_target(&scratch.targets, rules.allocation)
            };
            let Some(i) = pick else {
                continue; // declared at a model already slain, or nobody stands
            };
            let target = scratch.targets[i];
            let might = if might_on_wounds { state.might_left } else { 0 };
            // Against a Hero with Fate left every Wound of the Strike may matter.
            let foe = foes.at(i).filter(|&k| foes.heroes[k].fate_left > 0);
            let counted = if foe.is_some() { target.wounds_left.max(2) } else { target.wounds_left };
            let (wounds, spent) = mesbg_fight::settle_strike(target.roll, target.trapped, counted, might, || dice.d6());
            if spent > 0 {
                state.might_left -= spent;
                obs.note(|| Event::Might { points: spent, on: "wound" });
            }
            let (wounds, prevented) = match foe {
                Some(k) => foes.suffer(k, &mut scratch.targets[i].wounds_left, wounds, dice, obs),
                None => {
                    scratch.targets[i].wounds_left -= wounds;
                    (wounds, 0)
                }
            };
            let slain = scratch.targets[i].wounds_left == 0;
            let casualty = slain && scratch.target_is_rider[i];
            kills += u8::from(casualty);
            let model = scratch.survivors[i].model;
            let rolls = 1 + u8::from(target.trapped);
            obs.note(|| Event::Strike { by: None, target: Some(model), rolls, wounds, prevented, slain, casualty });
        }
        let foe_chariot_slain = scratch.targets.iter().zip(&at_start).enumerate().any(|(i, (t, &start))| {
            start > 0 && t.wounds_left == 0 && plan.models[scratch.survivors[i].model].chariot.is_some()
        });
        let foe_heroes_slain =
            foes.heroes.iter().filter(|f| scratch.targets[f.survivor].wounds_left == 0).count() as u8;
        scratch.order = order;
        scratch.at_start = at_start;
        FightOutcome {
            won: true,
            kills,
            wounds_lost: 0,
            might_spent: might_at_start - state.might_left,
            fate_spent: 0,
            foe_chariot_slain,
            foe_might_spent: foes.might_spent(),
            foe_fate_spent: foes.fate_spent(),
            foe_heroes_slain,
        }
    } else {
        // A chariot is never Trapped: each enemy Strike is one roll; the Hero's Fate (and
        // Might on the Fate roll) may prevent each Wound. Prone models and riders thrown
        // this turn make no Strikes.
        'strikes: for s in &scratch.survivors {
            let m = &plan.models[s.model];
            let rider = (s.left > 0 && s.strikes).then_some((m.attacks, m.strikes_chariot));
            let mount = m.mount.filter(|_| s.mount_left > 0).map(|mt| (mt.attacks, mt.strikes_chariot));
            let foe = foes.heroes.iter().position(|f| f.model == s.model && f.hero.might_on_wounds);
            for (attacks, roll) in rider.into_iter().chain(mount) {
                for _ in 0..attacks {
                    // An enemy Hero may spend Might to turn his failed To Wound roll.
                    let hit = match foe.filter(|&k| foes.heroes[k].might_left > 0) {
                        Some(k) => {
                            let f = &mut foes.heroes[k];
                            let (wounded, spent) =
                                mesbg_fight::settle_strike(roll, false, 1, f.might_left, || dice.d6());
                            f.might_left -= spent;
                            let model = f.model;
                            if spent > 0 {
                                obs.note(|| Event::FoeMight { model, points: spent, on: "wound" });
                            }
                            wounded > 0
                        }
                        None => roll.roll(dice),
                    };
                    let wounds = u8::from(hit && state.suffer_wound(plan, dice, obs));
                    obs.note(|| Event::Strike {
                        by: Some(s.model),
                        target: None,
                        rolls: 1,
                        wounds,
                        prevented: u8::from(hit) - wounds,
                        slain: state.wounds_left == 0,
                        casualty: false,
                    });
                    if state.wounds_left == 0 {
                        break 'strikes;
                    }
                }
            }
        }
        // Then each supporter's one Strike.
        if !support.supporters.is_empty() {
            supporters_strike(plan, support, state, dice, obs);
        }
        FightOutcome {
            won: false,
            kills: 0,
            wounds_lost: wounds_at_start - state.wounds_left,
            might_spent: might_at_start - state.might_left,
            fate_spent: fate_at_start - state.fate_left,
            foe_chariot_slain: false,
            foe_might_spent: foes.might_spent(),
            foe_fate_spent: 0,
            foe_heroes_slain: 0,
        }
    }
}

/// What a fight of several chariots against one model came to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PooledOutcome {
    /// The chariots won the duel.
    pub won: bool,
    /// The model was slain (a casualty: its rider, or the model on foot).
    pub slain: bool,
    /// Per chariot of the fight, in its order: whether its Strike slew the model.
    pub slew: PerChariot<bool>,
    /// Might the enemy Hero spent.
    pub foe_might_spent: u8,
    /// Fate the enemy Hero spent.
    pub foe_fate_spent: u8,
}

/// A fight of several chariots against the one model they all touch (a turn): their duel
/// dice are rolled together (the highest die wins, ties to the highest Fight on each side,
/// then the roll-off) and their riding Heroes' Might is pooled to win it; if they win the
/// model is knocked down as by one chariot and each chariot, in the turn's order, makes its
/// own Strikes at it until it is slain; if they lose, the model (and its supporters)
/// strike the chariot it can most hurt, the one with the fewest Wounds left (the first of
/// them in the turn's order), then the next once that one is slain.
/// The order the chariots of a fight they won strike in (indices into `might_for_strikes`,
/// each chariot's Might its Hero would spend on its To Wound rolls): as charged, or (free
/// first) those whose Strikes cost Might after those whose Strikes cost nothing. The
/// pairing weighs a pooled fight in this same order.
pub(crate) fn strike_order(might_for_strikes: &[u8], order: crate::mesbg::scenario::StrikeOrder) -> PerChariot<usize> {
    let mut strikers: PerChariot<usize> = (0..might_for_strikes.len()).collect();
    if order == crate::mesbg::scenario::StrikeOrder::FreeFirst {
        strikers.sort_by_key(|&k| might_for_strikes[k] > 0);
    }
    strikers
}

/// Whether each chariot of a pooled fight holds its weapon two-handed: as its grip says,
/// or, for a hand-and-a-half weapon held as a sensible player holds it, the grip it would
/// choose fighting the model alone ([`mesbg_fight::chosen_grip`]).
fn pooled_grips<O: Observer>(
    plans: &[&Plan],
    board: &FightBoard,
    scratch: &Scratch,
    states: &[ChariotState],
    support: &FoeSupport,
    obs: &mut O,
) -> PerChariot<bool> {
    plans
        .iter()
        .zip(states)
        .map(|(plan, state)| held_two_handed(plan, || board.combatants(plans[0], scratch), state, support, obs))
        .collect()
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn pooled_fight<O: Observer>(
    plans: &[&Plan],
    board: &FightBoard,
    scratch: &mut Scratch,
    states: &mut [ChariotState],
    numbers: &[usize],
    dice: &mut Dice,
    obs: &mut O,
) -> PooledOutcome {
    let first = plans[0];
    let rules = fight_rules(&first.rules);
    let s = scratch.survivors[0];
    let m = &first.models[s.model];
    let side = first.chariot.side;
    let attacker = DuelSide {
        dice: plans.iter().map(|p| u32::from(p.chariot.attacks)).sum(),
        fight: plans.iter().map(|p| p.chariot.fight).max().unwrap_or(0),
        side,
    };
    let mut enemy = DuelSide { dice: 0, fight: 0, side: side.opponent() };
    if s.left > 0 {
        enemy.dice += u32::from(m.attacks);
        enemy.fight = enemy.fight.max(m.fight);
    }
    if let Some(mount) = m.mount.filter(|_| s.mount_left > 0) {
        enemy.dice += u32::from(mount.attacks);
        enemy.fight = enemy.fight.max(mount.fight);
    }
    let support = board.support(first, scratch, &mut enemy, obs);
    let support = support.as_ref();
    let mut foes = if board.foe_heroes { FoeHeroes::of(first, scratch) } else { FoeHeroes::default() };
    // The riding Heroes' Might, pooled for the duel (any of them may raise the side's die).
    let on_duel: PerChariot<bool> =
        plans.iter().map(|p| p.chariot.hero.is_some_and(|h| h.might_policy.on_duel())).collect();
    let might_pool: u8 = states.iter().zip(&on_duel).filter(|(_, d)| **d).map(|(st, _)| st.might_left).sum();
    let mut pool = ChariotState { wounds_left: 1, might_left: might_pool, fate_left: 0 };
    let policy = if might_pool > 0 {
        crate::mesbg::scenario::MightPolicy::WinDuel
    } else {
        crate::mesbg::scenario::MightPolicy::None
    };
    // Each chariot holds its weapon as it would fighting the model alone; the side's score
    // is the best of their dice as each grip reads them.
    let two_handed: PerChariot<bool> = pooled_grips(plans, board, scratch, states, support, obs);
    let mut chariot_high = if two_handed.iter().any(|&t| t) {
        plans
            .iter()
            .zip(&two_handed)
            .map(|(p, &t)| {
                let high = dice.highest_d6(u32::from(p.chariot.attacks));
                if t { mesbg::two_handed_duel_die(high) } else { high }
            })
            .max()
            .unwrap_or(0)
    } else {
        dice.highest_d6(attacker.dice)
    };
    let enemy_high = if !foes.heroes.is_empty() {
        foes.duel(&attacker, &enemy, support, &mut chariot_high, (policy, &mut pool), dice, obs)
    } else if support.plain_dice() {
        dice.highest_d6(enemy.dice)
    } else {
        let warriors = mesbg_duel::FoeDuelDice::warriors_only(mesbg_fight::defender_dice(&enemy, support));
        let tie = mesbg_fight::Tie::of(attacker.fight, enemy.fight);
        let roll = mesbg_duel::settle_foe_highs(&warriors, chariot_high, tie, || dice.d6());
        note_reroll(&roll, obs);
        roll.high()
    };
    if foes.heroes.is_empty()
        && might_pool > 0
        && let Some(points) =
            mesbg::might_to_win_duel(chariot_high, enemy_high, attacker.fight, enemy.fight, pool.might_left)
    {
        pool.might_left -= points;
        chariot_high += points;
        obs.note(|| Event::Might { points, on: "duel" });
    }
    // The pooled Might spent comes from the Heroes in the turn's order.
    let mut spent = might_pool - pool.might_left;
    for (st, _) in states.iter_mut().zip(&on_duel).filter(|(_, d)| **d) {
        let take = spent.min(st.might_left);
        st.might_left -= take;
        spent -= take;
    }
    let duel = mesbg::settle_duel(attacker, enemy, chariot_high, enemy_high, dice);
    let won = duel.winner == DuelWinner::Attacker;
    obs.note(|| Event::Duel {
        chariot_dice: attacker.dice,
        enemy_dice: enemy.dice,
        chariot_high: duel.attacker_high,
        enemy_high: duel.defender_high,
        roll_off: duel.roll_off,
        chariot_won: won,
    });
    let mut outcome = PooledOutcome { won, slew: smallvec::smallvec![false; plans.len()], ..PooledOutcome::default() };
    if won {
        // Knocked down as by one chariot: Infantry Prone, Cavalry Knocked Flying (a
        // Strength 3 hit on the rider), never a Monster; the Strikes go at the rider (the
        // model on foot), at the mount only once the rider is gone.
        let mut left = s.left;
        let mounted = m.mount.is_some() && s.mount_left > 0;
        let trapped = if s.prone {
            true
        } else if mounted && left > 0 {
            let wounded = m.thrown_hit.roll(dice);
            left -= u8::from(wounded);
            obs.note(|| Event::KnockedFlying { model: s.model, wounded, slain: left == 0 });
            rules.trapped
        } else {
            board.trapped(first, s.model, left, rules)
        };
        if s.left > 0 && left == 0 {
            outcome.slain = true;
            outcome.slew[0] = true;
        }
        let (mut rider, mut mount_left) = (left, if left > 0 { 0 } else { s.mount_left });
        let hero = foes.at(0).filter(|_| s.left > 0);
        let might: PerChariot<u8> =
            plans.iter().zip(states.iter()).map(|(p, st)| p.chariot.might_for_strikes(st.might_left)).collect();
        let strikers = strike_order(&might, board.strike_order);
        'chariots: for k in strikers {
            let plan = plans[k];
            if rider == 0 && mount_left == 0 {
                break;
            }
            let number = numbers[k];
            obs.note(|| Event::StrikesOf { chariot: number, striking: true });
            for _ in 0..plan.chariot.attacks {
                let on_rider = rider > 0;
                let (roll, wounds_left, strike_trapped) = if on_rider {
                    (plan.models[s.model].struck(s.braced).0, rider, trapped)
                } else {
                    match plan.models[s.model].mount {
                        Some(mt) => (mt.struck_by_chariot, mount_left, false),
                        None => break 'chariots,
                    }
                };
                let roll = if two_handed[k] { roll.plus_one() } else { roll };
                let might = plan.chariot.might_for_strikes(states[k].might_left);
                let foe = hero.filter(|&h| on_rider && foes.heroes[h].fate_left > 0);
                let counted = if foe.is_some() { wounds_left.max(2) } else { wounds_left };
                let (wounds, spent) = mesbg_fight::settle_strike(roll, strike_trapped, counted, might, || dice.d6());
                if spent > 0 {
                    states[k].might_left -= spent;
                    obs.note(|| Event::Might { points: spent, on: "wound" });
                }
                let mut remaining = wounds_left;
                let (wounds, prevented) = match foe {
                    Some(h) => foes.suffer(h, &mut remaining, wounds, dice, obs),
                    None => {
                        let w = wounds.min(remaining);
                        remaining -= w;
                        (w, 0)
                    }
                };
                let slain = remaining == 0;
                let casualty = slain && on_rider;
                if on_rider {
                    rider = remaining;
                } else {
                    mount_left = remaining;
                }
                if casualty {
                    outcome.slain = true;
                    outcome.slew[k] = true;
                }
                let rolls = 1 + u8::from(strike_trapped);
                obs.note(|| Event::Strike {
                    by: None,
                    target: Some(s.model),
                    rolls,
                    wounds,
                    prevented,
                    slain,
                    casualty,
                });
                if rider == 0 && mount_left == 0 {
                    break 'chariots;
                }
            }
        }
    } else {
        // The enemy strikes the chariot it can most hurt.
        let target = |states: &[ChariotState]| {
            (0..states.len()).filter(|&k| states[k].wounds_left > 0).min_by_key(|&k| (states[k].wounds_left, k))
        };
        let rider = (s.left > 0 && s.strikes).then_some(m.attacks);
        let mount_attacks = m.mount.filter(|_| s.mount_left > 0).map(|mt| mt.attacks);
        let foe = foes.heroes.iter().position(|f| f.model == s.model && f.hero.might_on_wounds);
        let strikers = rider.map(|a| (a, true)).into_iter().chain(mount_attacks.map(|a| (a, false)));
        'strikes: for (attacks, is_rider) in strikers {
            for _ in 0..attacks {
                let Some(k) = target(states) else { break 'strikes };
                let plan = plans[k];
                let roll = if is_rider {
                    plan.models[s.model].strikes_chariot
                } else {
                    match plan.models[s.model].mount {
                        Some(mt) => mt.strikes_chariot,
                        None => continue,
                    }
                };
                let hit = match foe.filter(|&h| is_rider && foes.heroes[h].might_left > 0) {
                    Some(h) => {
                        let f = &mut foes.heroes[h];
                        let (wounded, spent) = mesbg_fight::settle_strike(roll, false, 1, f.might_left, || dice.d6());
                        f.might_left -= spent;
                        let model = f.model;
                        if spent > 0 {
                            obs.note(|| Event::FoeMight { model, points: spent, on: "wound" });
                        }
                        wounded > 0
                    }
                    None => roll.roll(dice),
                };
                let number = numbers[k];
                obs.note(|| Event::StrikesOf { chariot: number, striking: false });
                let wounds = u8::from(hit && states[k].suffer_wound(plan, dice, obs));
                obs.note(|| Event::Strike {
                    by: Some(s.model),
                    target: None,
                    rolls: 1,
                    wounds,
                    prevented: u8::from(hit) - wounds,
                    slain: states[k].wounds_left == 0,
                    casualty: false,
                });
            }
        }
        for supporter in &support.supporters {
            let Some(k) = target(states) else { break };
            let plan = plans[k];
            let hit = plan.models[supporter.model].strikes_chariot.roll(dice);
            let number = numbers[k];
            obs.note(|| Event::StrikesOf { chariot: number, striking: false });
            let wounds = u8::from(hit && states[k].suffer_wound(plan, dice, obs));
            obs.note(|| Event::Strike {
                by: Some(supporter.model),
                target: None,
                rolls: 1,
                wounds,
                prevented: u8::from(hit) - wounds,
                slain: states[k].wounds_left == 0,
                casualty: false,
            });
        }
    }
    outcome.foe_might_spent = foes.might_spent();
    outcome.foe_fate_spent = foes.fate_spent();
    scratch.supporters_used.clear();
    scratch.supporters_used.extend(support.supporters.iter().map(|sp| sp.model));
    outcome
}
