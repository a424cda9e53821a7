//! The exact distribution of a whole fight after the charge: the duel (supporters, a
//! banner, enemy Heroes and Might both ways), the beaten side knocked down, the winner's
//! declared Strikes and every Wound's prevention, folded state by state.

use super::*;

/// What the chariot may strike in a won fight: one target per beaten model, its rider
/// (or infantry model) while he stood at the duel, else its riderless mount.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FightTarget {
    /// The roll, Trapped flag, Defence and Wounds left at the start of the Strikes.
    pub target: StrikeTarget,
    /// A rider or infantry model (slaying it is a kill), not a mount.
    pub is_rider: bool,
    /// An enemy chariot.
    pub chariot: bool,
    /// An enemy Hero (his Fate may prevent the Wounds).
    pub hero: Option<FoeHero>,
}

/// The targets of a won fight, each way the beaten cavalry's Knocked Flying hits (a
/// Strength 3 hit on each rider still mounted and not already Prone) can fall, with its
/// probability. Models knocked down are Trapped when the ruleset says so; a model already
/// Prone always is; Monsters and chariots never are.
pub fn targets_after_knock_down(enemies: &[Combatant], rules: FightRules) -> Vec<(Vec<FightTarget>, f64)> {
    let mut ways: Vec<(Vec<FightTarget>, f64)> = vec![(Vec::new(), 1.0)];
    for e in enemies {
        let mut next = Vec::with_capacity(ways.len() * 2);
        for (targets, p) in ways {
            let push = |next: &mut Vec<(Vec<FightTarget>, f64)>, t: FightTarget, q: f64| {
                if q > 0.0 {
                    let mut v = targets.clone();
                    v.push(t);
                    next.push((v, p * q));
                }
            };
            if e.wounds_left > 0 {
                let rider = |wounds_left: u8, trapped: bool| FightTarget {
                    target: StrikeTarget { roll: e.struck_by_chariot, trapped, wounds_left, defence: e.defence },
                    is_rider: true,
                    chariot: e.chariot,
                    hero: e.hero,
                };
                if e.prone {
                    push(&mut next, rider(e.wounds_left, true), 1.0);
                } else if e.mount.is_some() {
                    let hit = e.knocked_flying.probability();
                    push(&mut next, rider(e.wounds_left - 1, rules.trapped), hit);
                    push(&mut next, rider(e.wounds_left, rules.trapped), 1.0 - hit);
                } else {
                    push(&mut next, rider(e.wounds_left, e.trapped_when_beaten(rules)), 1.0);
                }
            } else if let Some(m) = e.mount {
                let target = StrikeTarget {
                    roll: m.struck_by_chariot,
                    trapped: false,
                    wounds_left: m.wounds_left,
                    defence: m.defence,
                };
                push(&mut next, FightTarget { target, is_rider: false, chariot: false, hero: None }, 1.0);
            } else {
                next.push((targets, p));
            }
        }
        ways = next;
    }
    ways
}

/// The declared split of a won fight's Strikes over its targets, each standing as
/// `standing` says (Wounds, and an enemy Hero's Fate and Might left) when they are declared.
pub fn split_for(strikes: u8, targets: &[FightTarget], standing: &[HeroStanding]) -> Vec<u8> {
    let weighed: Vec<SplitTarget> = targets
        .iter()
        .zip(standing)
        .map(|(t, &(wounds_left, fate, might))| SplitTarget {
            roll: t.target.roll,
            trapped: t.target.trapped,
            wounds_left,
            counts_as_kill: t.is_rider,
            saves: t.hero.map(|h| TargetSaves { fate, might, saves: h.saves }),
        })
        .collect();
    declared_split(strikes, &weighed)
}

/// A won fight's states: ((Wounds, Fate, Might) left per target, the chariot's Might left)
/// with their probability.
type WonStates = BTreeMap<(Vec<HeroStanding>, u8), f64>;

/// The target of Strike `j`: by the declared order, or by the allocation policy among
/// those still standing. `None` when the Strike is lost (its target already slain) or no
/// one stands.
pub fn target_of_strike(
    j: usize,
    order: Option<&[usize]>,
    targets: &[StrikeTarget],
    allocation: StrikeAllocation,
) -> Option<usize> {
    match order {
        Some(order) => order.get(j).copied().filter(|&i| targets[i].wounds_left > 0),
        None => pick_target(targets, allocation),
    }
}

/// The exact distribution of a fight's outcome: the duel (with the Hero's Might on the
/// chariot's highest die when his policy says so), then either the chariot's Strikes
/// (declared or one at a time; Might turning failed To Wound rolls that matter when the
/// policy says so), or every enemy Strike on the chariot (never Trapped; Fate, retried,
/// and Might on the Fate roll may prevent each Wound; Strikes stop once the chariot is
/// slain). Outcomes with probability 0 are left out.
pub fn fight_distribution(
    chariot: &ChariotFighter,
    enemies: &[Combatant],
    rules: FightRules,
    hero: HeroInFight,
    support: &FoeSupport,
) -> Vec<(FightOutcome, f64)> {
    distribution(chariot, enemies, rules, hero, support, false).into_iter().map(|((o, _), p)| (o, p)).collect()
}

/// [`fight_distribution`] with, beside each outcome, which of the fight's targets it slew
/// (bit `i`: target `i`, the standing enemies and riderless mounts in the order they stand
/// in the fight, a rider or infantry model whose Wounds are gone): a turn's later fights
/// and its line need to know who fell, not only how many.
pub fn fight_distribution_by_target(
    chariot: &ChariotFighter,
    enemies: &[Combatant],
    rules: FightRules,
    hero: HeroInFight,
    support: &FoeSupport,
) -> Vec<((FightOutcome, u32), f64)> {
    distribution(chariot, enemies, rules, hero, support, true)
}

/// The fight's outcomes, each with the targets it slew when `by_target` (else 0, so the
/// outcomes fold exactly as [`fight_distribution`] has always folded them).
fn distribution(
    chariot: &ChariotFighter,
    enemies: &[Combatant],
    rules: FightRules,
    hero: HeroInFight,
    support: &FoeSupport,
    by_target: bool,
) -> Vec<((FightOutcome, u32), f64)> {
    if chariot.grip == Grip::Choose {
        let grip = chosen_grip(chariot, enemies, rules, hero, support);
        return distribution(&ChariotFighter { grip, ..*chariot }, enemies, rules, hero, support, by_target);
    }
    // Held two-handed: the chariot's Strikes need one less on every die; its duel dice are
    // lowered below.
    let two_handed = chariot.grip == Grip::TwoHanded;
    let held: Vec<Combatant>;
    let enemies = if two_handed {
        held = enemies.iter().map(Combatant::struck_two_handed).collect();
        &held[..]
    } else {
        enemies
    };
    let (attacker, defender) = duel_sides(chariot, enemies, support);
    let foe_dice = foe_duel_dice(enemies, &defender, support);
    let heroes = heroes_in_duel(enemies);
    let foe_might: Vec<u8> = heroes.iter().map(|h| h.might).collect();
    let foe_duel_might: Vec<u8> = heroes.iter().map(|h| if h.might_on_duel { h.might } else { 0 }).collect();
    let chariot_duel_might = if hero.might_on_duel { hero.might } else { 0 };
    // The duel: (won, the chariot's Might left, each enemy Hero's Might left) -> probability.
    let mut duel: BTreeMap<(bool, u8, Vec<u8>), f64> = BTreeMap::new();
    let attacker_faces: Vec<u8> = if attacker.dice == 0 { vec![0] } else { (1..=6).collect() };
    let plain = heroes.is_empty() && support.plain_dice();
    let tie = Tie::of(attacker.fight, defender.fight);
    for &a in &attacker_faces {
        let p_a = highest_d6_probability(attacker.dice, a);
        if p_a == 0.0 {
            continue;
        }
        // The chariot's score: its highest die, as the grip reads it.
        let a = if two_handed { super::super::two_handed_duel_die(a) } else { a };
        // The enemy's highest dice by owner: independent of the chariot's, unless a banner
        // re-roll depends on it.
        let highs: Vec<(Vec<u8>, f64)> = if plain {
            let faces: Vec<u8> = if defender.dice == 0 { vec![0] } else { (1..=6).collect() };
            faces.into_iter().map(|d| (vec![d], highest_d6_probability(defender.dice, d))).collect()
        } else {
            foe_highs_distribution(&foe_dice, a, tie)
        };
        for (h, p_d) in highs {
            let p = p_a * p_d;
            if p == 0.0 {
                continue;
            }
            let m = settle_duel_might(a, attacker.fight, chariot_duel_might, &h, &foe_duel_might, defender.fight);
            let might_left = hero.might - m.chariot_spent;
            let foe_left: Vec<u8> = foe_might.iter().zip(&m.foe_spent).map(|(a, b)| a - b).collect();
            let p_win = if m.chariot_high != m.foe_high {
                f64::from(u8::from(m.chariot_high > m.foe_high))
            } else if attacker.fight != defender.fight {
                f64::from(u8::from(attacker.fight > defender.fight))
            } else {
                0.5 // the roll-off: a D6 split 3-3 between Evil and Good
            };
            if p_win > 0.0 {
                *duel.entry((true, might_left, foe_left.clone())).or_default() += p * p_win;
            }
            if p_win < 1.0 {
                *duel.entry((false, might_left, foe_left)).or_default() += p * (1.0 - p_win);
            }
        }
    }
    let foe_might_spent = |left: &[u8]| -> u8 { foe_might.iter().zip(left).map(|(a, b)| a - b).sum() };
    let mut out: BTreeMap<(FightOutcome, u32), f64> = BTreeMap::new();
    let p_won: BTreeMap<(u8, Vec<u8>), f64> =
        duel.iter().filter(|((won, _, _), _)| *won).map(|((_, m, f), p)| ((*m, f.clone()), *p)).collect();
    let mut strikes: HashMap<(WoundRoll, bool, u8, u8), StrikeOutcomes> = HashMap::new();
    for (targets, q) in if p_won.is_empty() { Vec::new() } else { targets_after_knock_down(enemies, rules) } {
        // Which enemy Hero (in duel order) each target is.
        let mut k = 0;
        let hero_of: Vec<Option<usize>> = targets
            .iter()
            .map(|t| {
                t.hero.map(|_| {
                    k += 1;
                    k - 1
                })
            })
            .collect();
        // Won: states are ((Wounds, Fate, Might) left per target, the chariot's Might
        // left), after each Strike in turn, kept apart by the declared order (which
        // depends on the Might the enemy Heroes kept through the duel).
        let mut by_order: BTreeMap<Option<Vec<usize>>, WonStates> = BTreeMap::new();
        for ((might_left, foe_left), &p) in &p_won {
            let start: Vec<HeroStanding> = targets
                .iter()
                .zip(&hero_of)
                .map(|(t, h)| match (t.hero, h) {
                    (Some(fh), Some(i)) => (t.target.wounds_left, fh.fate, foe_left[*i]),
                    _ => (t.target.wounds_left, 0, 0),
                })
                .collect();
            let order = match rules.split {
                StrikeSplit::Declared => Some(declared_order(&split_for(chariot.attacks, &targets, &start))),
                StrikeSplit::OneAtATime => None,
            };
            *by_order.entry(order).or_default().entry((start, *might_left)).or_default() += p * q;
        }
        for (order, mut states) in by_order {
            for j in 0..usize::from(chariot.attacks) {
                let mut next: BTreeMap<(Vec<HeroStanding>, u8), f64> = BTreeMap::new();
                for ((state, might_left), p) in states {
                    let now: Vec<StrikeTarget> = targets
                        .iter()
                        .zip(&state)
                        .map(|(t, &(wounds_left, _, _))| StrikeTarget { wounds_left, ..t.target })
                        .collect();
                    let Some(i) = target_of_strike(j, order.as_deref(), &now, rules.allocation) else {
                        *next.entry((state, might_left)).or_default() += p;
                        continue;
                    };
                    let t = now[i];
                    let usable = if hero.might_on_wounds { might_left } else { 0 };
                    // Only min(Wounds left, rolls) matters to a Strike's settlement; against a
                    // Hero with Fate every Wound of it may matter.
                    let (_, fate, foe_might_left) = state[i];
                    let counted = if fate > 0 { 2 } else { t.wounds_left.min(2) };
                    let key = (t.roll, t.trapped, counted, usable);
                    let outcomes =
                        strikes.entry(key).or_insert_with(|| strike_distribution(t.roll, t.trapped, counted, usable));
                    for &((wounds, spent), r) in outcomes.iter() {
                        match targets[i].hero {
                            Some(fh) if fate > 0 => {
                                for (standing, s) in
                                    wounds_on_foe_hero(fh.saves, (t.wounds_left, fate, foe_might_left), wounds)
                                {
                                    let mut st = state.clone();
                                    st[i] = standing;
                                    *next.entry((st, might_left - spent)).or_default() += p * r * s;
                                }
                            }
                            _ => {
                                let mut st = state.clone();
                                st[i].0 -= wounds.min(st[i].0);
                                *next.entry((st, might_left - spent)).or_default() += p * r;
                            }
                        }
                    }
                }
                states = next;
            }
            // A rider (or infantry model) with no Wounds left is a kill, whether the Knocked
            // Flying hit or a Strike slew him; a riderless mount is not.
            for ((state, might_left), p) in states {
                let slain = |i: usize| targets[i].is_rider && state[i].0 == 0;
                let kills = (0..targets.len()).filter(|&i| slain(i)).count() as u8;
                let foe_chariot_slain = (0..targets.len()).any(|i| slain(i) && targets[i].chariot);
                let foe_left: Vec<u8> =
                    hero_of.iter().zip(&state).filter(|(h, _)| h.is_some()).map(|(_, s)| s.2).collect();
                let foe_fate_spent: u8 =
                    targets.iter().zip(&state).filter_map(|(t, s)| t.hero.map(|fh| fh.fate - s.1)).sum();
                let outcome = FightOutcome {
                    won: true,
                    kills,
                    wounds_lost: 0,
                    might_spent: hero.might - might_left,
                    fate_spent: 0,
                    foe_chariot_slain,
                    foe_might_spent: foe_might_spent(&foe_left),
                    foe_fate_spent,
                    foe_heroes_slain: (0..targets.len()).filter(|&i| slain(i) && targets[i].hero.is_some()).count()
                        as u8,
                };
                let slew =
                    if by_target { (0..targets.len()).filter(|&i| slain(i)).fold(0, |m, i| m | 1 << i) } else { 0 };
                *out.entry((outcome, slew)).or_default() += p;
            }
        }
    }
    // Lost: states are (the chariot's Wounds left, Fate left, Might left, each enemy
    // Hero's Might left), after each enemy Strike.
    type ChariotState = (u8, u8, u8, Vec<u8>);
    let mut saves: HashMap<(u8, u8, u8), Vec<(Prevention, f64)>> = HashMap::new();
    // Each standing rider or model that may Strike (with its Hero index), then its mount;
    // then each supporter, one Strike.
    let mut k = 0;
    let mut strikers: Vec<(u8, WoundRoll, Option<usize>)> = Vec::new();
    for e in enemies {
        let hero_index = (e.hero.is_some() && e.wounds_left > 0).then(|| {
            k += 1;
            k - 1
        });
        if e.wounds_left > 0 && e.strikes {
            strikers.push((e.attacks, e.strikes_chariot, hero_index));
        }
        if let Some(m) = e.mount {
            strikers.push((m.attacks, m.strikes_chariot, None));
        }
    }
    strikers.extend(support.supporters.iter().map(|s| (1, s.strikes_chariot, None)));
    for ((won, might_left, foe_left), &p) in &duel {
        if *won {
            continue;
        }
        let mut chariot_states: BTreeMap<ChariotState, f64> =
            BTreeMap::from([((chariot.wounds_left, hero.fate, *might_left, foe_left.clone()), 1.0)]);
        for &(attacks, roll, hero_index) in &strikers {
            for _ in 0..attacks {
                let mut next: BTreeMap<ChariotState, f64> = BTreeMap::new();
                for ((wounds, fate, might, foe), q) in chariot_states {
                    if wounds == 0 {
                        *next.entry((wounds, fate, might, foe)).or_default() += q; // slain: no more Strikes
                        continue;
                    }
                    // The Strike's To Wound roll, with an enemy Hero's Might when his
                    // policy spends it.
                    let usable = hero_index.filter(|&i| heroes[i].might_on_wounds).map_or(0, |i| foe[i]);
                    let hits: Vec<((u8, u8), f64)> = if usable == 0 {
                        let hit = roll.probability();
                        vec![((0, 0), 1.0 - hit), ((1, 0), hit)]
                    } else {
                        strike_distribution(roll, false, 1, usable)
                    };
                    for ((wounded, spent), r) in hits {
                        if r == 0.0 {
                            continue;
                        }
                        let mut foe = foe.clone();
                        if let Some(i) = hero_index {
                            foe[i] -= spent;
                        }
                        if wounded == 0 {
                            *next.entry((wounds, fate, might, foe)).or_default() += q * r;
                            continue;
                        }
                        let prevention = saves.entry((wounds, fate, might)).or_insert_with(|| {
                            prevention_distribution(hero.saves, WoundOn::Chariot { wounds_left: wounds }, fate, might)
                        });
                        for &(pr, s) in prevention.iter() {
                            let left = if pr.prevented { wounds } else { wounds - 1 };
                            let key = (left, fate - pr.fate_spent, might - pr.might_spent, foe.clone());
                            *next.entry(key).or_default() += q * r * s;
                        }
                    }
                }
                chariot_states = next;
            }
        }
        for ((wounds, fate, might, foe), q) in chariot_states {
            let outcome = FightOutcome {
                won: false,
                kills: 0,
                wounds_lost: chariot.wounds_left - wounds,
                might_spent: hero.might - might,
                fate_spent: hero.fate - fate,
                foe_chariot_slain: false,
                foe_might_spent: foe_might_spent(&foe),
                foe_fate_spent: 0,
                foe_heroes_slain: 0,
            };
            *out.entry((outcome, 0)).or_default() += p * q;
        }
    }
    out.into_iter().filter(|(_, p)| *p > 0.0).collect()
}

thread_local! {
    static GRIPS: std::cell::RefCell<HashMap<GripKey, Grip>> = std::cell::RefCell::new(HashMap::new());
}

/// Everything a fight's grip is chosen from.
type GripKey = (ChariotFighter, Vec<Combatant>, FightRules, HeroInFight, FoeSupport);

/// Expected kills and Wounds lost closer than this are equal when choosing a grip.
const GRIP_TIE: f64 = 1e-12;

/// The grip a sensible player picks for a hand-and-a-half weapon before this fight's Duel
/// Roll, knowing what he knows then (the models in the fight, their Wounds, his Might and
/// Fate, the help the enemy has): the one with the more expected kills; at equal kills,
/// the one that expects to lose fewer Wounds; still equal, one-handed. Worked out from the
/// exact distribution of the fight under each grip, so the sampler, the tables and the
/// exact engine all choose alike. A chariot whose grip is already fixed keeps it.
pub fn chosen_grip(
    chariot: &ChariotFighter,
    enemies: &[Combatant],
    rules: FightRules,
    hero: HeroInFight,
    support: &FoeSupport,
) -> Grip {
    if chariot.grip != Grip::Choose {
        return chariot.grip;
    }
    let key: GripKey = (*chariot, enemies.to_vec(), rules, hero, support.clone());
    if let Some(grip) = GRIPS.with(|cache| cache.borrow().get(&key).copied()) {
        return grip;
    }
    let worth = |grip: Grip| {
        let held = ChariotFighter { grip, ..*chariot };
        distribution(&held, enemies, rules, hero, support, false)
            .into_iter()
            .fold((0.0, 0.0), |(k, w), ((o, _), p)| (k + p * f64::from(o.kills), w + p * f64::from(o.wounds_lost)))
    };
    let (one, two) = (worth(Grip::OneHanded), worth(Grip::TwoHanded));
    let two_better = two.0 > one.0 + GRIP_TIE || ((two.0 - one.0).abs() <= GRIP_TIE && two.1 < one.1 - GRIP_TIE);
    let grip = if two_better { Grip::TwoHanded } else { Grip::OneHanded };
    GRIPS.with(|cache| cache.borrow_mut().insert(key, grip));
    grip
}

/// The enemy Heroes that roll in the duel (standing), in the order they stand in the fight.
pub fn heroes_in_duel(enemies: &[Combatant]) -> Vec<FoeHero> {
    enemies.iter().filter(|e| e.wounds_left > 0).filter_map(|e| e.hero).collect()
}

/// The enemy's duel dice by owner: each standing Hero's own, every other die the
/// warriors' (the bearer's and shielded pikes' at -1).
pub fn foe_duel_dice(enemies: &[Combatant], defender: &DuelSide, support: &FoeSupport) -> FoeDuelDice {
    let heroes: crate::mesbg::rules::duel::PerHero<HeroDice> = enemies
        .iter()
        .filter(|e| e.wounds_left > 0)
        .filter_map(|e| e.hero.map(|h| HeroDice { dice: u32::from(e.attacks), minus_one: h.bearer }))
        .collect();
    split_duel_dice(heroes, defender, support)
}

/// The enemy side's dice split by owner: `heroes` are each Hero's own dice (a bearer's at
/// -1), every other die of `defender` is the warriors' (the bearer's and shielded pikes' at
/// -1).
pub fn split_duel_dice(
    heroes: crate::mesbg::rules::duel::PerHero<HeroDice>,
    defender: &DuelSide,
    support: &FoeSupport,
) -> FoeDuelDice {
    let hero_dice: u32 = heroes.iter().map(|h| h.dice).sum();
    let warriors = defender_dice(&DuelSide { dice: defender.dice - hero_dice, ..*defender }, support);
    FoeDuelDice { warriors, heroes }
}
