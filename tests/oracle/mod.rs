//! An independent oracle for the fight after a Chariot Charge, written straight from the
//! rules reference (`../shared/rules/mesbg.md`) and the readings documented in
//! `docs/methods.md`, sharing **no** rule code with `src/`: its own To Wound chart, duel,
//! Might, Strikes, Trapped rolls, declared split, Fate and roll-off.
//!
//! It is deliberately plain and slow: every die is a loop over its six faces, and the
//! states reached are merged in ordered maps. Probabilities are generic ([`Prob`]): exact
//! fractions ([`Ratio`]) for small fights, `f64` for the random fights the property test
//! draws. If it and the engine disagree, one of them misreads the rules; neither is
//! trusted by default.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ops::{Add, Mul};

/// A probability type: exact or floating.
pub trait Prob: Copy + Add<Output = Self> + Mul<Output = Self> + PartialEq + std::fmt::Debug {
    /// 0.
    fn zero() -> Self;
    /// 1.
    fn one() -> Self;
    /// n / d.
    fn frac(n: u64, d: u64) -> Self;
    /// As a float.
    fn to_f64(self) -> f64;
}

impl Prob for f64 {
    fn zero() -> Self {
        0.0
    }
    fn one() -> Self {
        1.0
    }
    fn frac(n: u64, d: u64) -> Self {
        n as f64 / d as f64
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// An exact fraction (numerator, denominator), always reduced. Overflow panics: use it for
/// small fights only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ratio(pub u128, pub u128);

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

impl Ratio {
    fn reduced(n: u128, d: u128) -> Self {
        let g = gcd(n, d).max(1);
        Ratio(n / g, d / g)
    }
}

impl Add for Ratio {
    type Output = Ratio;
    fn add(self, o: Ratio) -> Ratio {
        let g = gcd(self.1, o.1);
        let d = (self.1 / g).checked_mul(o.1).expect("ratio overflow");
        let n = self.0 * (o.1 / g) + o.0 * (self.1 / g);
        Ratio::reduced(n, d)
    }
}

impl Mul for Ratio {
    type Output = Ratio;
    fn mul(self, o: Ratio) -> Ratio {
        let a = Ratio::reduced(self.0, o.1);
        let b = Ratio::reduced(o.0, self.1);
        Ratio::reduced(a.0.checked_mul(b.0).expect("ratio overflow"), a.1.checked_mul(b.1).expect("ratio overflow"))
    }
}

impl Prob for Ratio {
    fn zero() -> Self {
        Ratio(0, 1)
    }
    fn one() -> Self {
        Ratio(1, 1)
    }
    fn frac(n: u64, d: u64) -> Self {
        Ratio::reduced(u128::from(n), u128::from(d))
    }
    fn to_f64(self) -> f64 {
        self.0 as f64 / self.1 as f64
    }
}

/// The chariot as it fights (the riding Hero's Fight and Strength already folded in where
/// better, his Attacks and the +1 for charging already added).
#[derive(Clone, Copy, Debug)]
pub struct Chariot {
    pub fight: u8,
    pub strength: u8,
    pub defence: u8,
    pub dice: u8,
    pub wounds: u8,
    pub evil: bool,
}

/// Where the Hero's Fate goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FateUse {
    Always,
    LastWoundOnly,
    NeverOnChariot,
}

/// The riding Hero's points and how he spends them.
#[derive(Clone, Copy, Debug)]
pub struct Hero {
    pub might: u8,
    pub fate: u8,
    pub might_in_duel: bool,
    pub might_on_wounds: bool,
    pub might_on_fate: bool,
    pub fate_retry: bool,
    pub fate_use: FateUse,
}

/// A model fighting the chariot. For cavalry, `wounds` are the rider's (0: the mount
/// stands riderless) and `horse` is the mount while it stands.
#[derive(Clone, Copy, Debug)]
pub struct Foe {
    pub fight: u8,
    pub strength: u8,
    pub defence: u8,
    pub attacks: u8,
    pub wounds: u8,
    pub monster: bool,
    pub chariot: bool,
    pub horse: Option<Horse>,
    /// Lying Prone (Knocked Flying by the Impact Hits).
    pub prone: bool,
    /// Thrown from his slain horse this turn (Rises from the Dust): no Strikes.
    pub thrown: bool,
}

/// A cavalry mount still standing.
#[derive(Clone, Copy, Debug)]
pub struct Horse {
    pub fight: u8,
    pub strength: u8,
    pub defence: u8,
    pub attacks: u8,
    pub wounds: u8,
}

impl Foe {
    /// An infantry model.
    pub fn infantry(fight: u8, strength: u8, defence: u8, attacks: u8, wounds: u8) -> Self {
        Foe {
            fight,
            strength,
            defence,
            attacks,
            wounds,
            monster: false,
            chariot: false,
            horse: None,
            prone: false,
            thrown: false,
        }
    }
}

/// The readings in force.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    pub knocked_down_are_trapped: bool,
    pub declared: bool,
    pub easiest_first: bool,
}

/// What a fight came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Result {
    pub won: bool,
    pub kills: u8,
    pub wounds_lost: u8,
    pub might_spent: u8,
    pub fate_spent: u8,
    pub foe_chariot_slain: bool,
}

/// The To Wound chart as the reference prints it, row by row: for a Defence minus
/// Strength difference up to `upto`, the first die needs `first`, and a second die needs
/// `second` (0: no second die).
const CHART: [(i16, u8, u8); 7] = [(-2, 3, 0), (0, 4, 0), (2, 5, 0), (4, 6, 0), (5, 6, 4), (6, 6, 5), (7, 6, 6)];

/// (first die needs, second die needs or 0), or `None` when it cannot wound.
pub fn chart(strength: u8, defence: u8) -> Option<(u8, u8)> {
    let diff = i16::from(defence) - i16::from(strength);
    CHART.iter().find(|(upto, _, _)| diff <= *upto).map(|&(_, a, b)| (a, b))
}

/// P(one To Wound roll succeeds), as a float (for the declared split only).
fn chance(strength: u8, defence: u8) -> f64 {
    match chart(strength, defence) {
        None => 0.0,
        Some((a, 0)) => f64::from(7 - a) / 6.0,
        Some((a, b)) => f64::from(7 - a) / 6.0 * f64::from(7 - b) / 6.0,
    }
}

fn add<K: Ord, P: Prob>(map: &mut BTreeMap<K, P>, key: K, p: P) {
    let entry = map.entry(key).or_insert_with(P::zero);
    *entry = *entry + p;
}

/// Distribution of the highest of `n` D6, face by face (0 for no dice).
fn highest<P: Prob>(n: u32) -> BTreeMap<u8, P> {
    let mut dist = BTreeMap::from([(0u8, P::one())]);
    for _ in 0..n {
        let mut next = BTreeMap::new();
        for (&m, &p) in &dist {
            for face in 1..=6u8 {
                add(&mut next, m.max(face), p * P::frac(1, 6));
            }
        }
        dist = next;
    }
    dist
}

/// How much Might the Hero puts on the chariot's highest duel die: the fewest points that
/// win outright (a tie on dice goes to the higher Fight); failing that, at equal Fight, the
/// fewest that reach a tie and so a roll-off; else none.
fn might_for_duel(mine: u8, theirs: u8, my_fight: u8, their_fight: u8, might: u8) -> u8 {
    let wins = |high: u8| high > theirs || (high == theirs && my_fight > their_fight);
    if wins(mine) {
        return 0;
    }
    for k in 1..=might {
        if mine + k <= 6 && wins(mine + k) {
            return k;
        }
    }
    if my_fight == their_fight {
        for k in 1..=might {
            if mine + k == theirs {
                return k;
            }
        }
    }
    0
}

/// All ways to give `total` Strikes to `n` targets, the most to the earliest first.
fn compositions(total: u8, n: usize) -> Vec<Vec<u8>> {
    if n == 1 {
        return vec![vec![total]];
    }
    let mut out = Vec::new();
    for first in (0..=total).rev() {
        for rest in compositions(total - first, n - 1) {
            let mut v = vec![first];
            v.extend(rest);
            out.push(v);
        }
    }
    out
}

fn choose(n: u32, k: u32) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
}

/// The declared split: the allocation with the most expected kills, then the most
/// expected Wounds (capped at each target's), the earliest target getting more on a tie.
pub fn declare(total: u8, targets: &[(f64, u8, u8)]) -> Vec<u8> {
    let weighed: Vec<(f64, u8, u8, bool)> = targets.iter().map(|&(p, per, w)| (p, per, w, true)).collect();
    declare_weighed(total, &weighed)
}

/// [`declare`] with a flag per target: slaying it is a kill (false for a horse). A target
/// with no Wounds left gets no Strikes.
pub fn declare_weighed(total: u8, targets: &[(f64, u8, u8, bool)]) -> Vec<u8> {
    // targets: (P(one roll wounds), rolls per Strike, Wounds left, counts as a kill)
    let living: Vec<usize> = (0..targets.len()).filter(|&i| targets[i].2 > 0).collect();
    if living.is_empty() {
        return vec![0; targets.len()];
    }
    let value = |split: &[u8]| {
        let mut kills = 0.0;
        let mut wounds = 0.0;
        for (&i, &k) in living.iter().zip(split) {
            let (p, per, w, is_kill) = targets[i];
            let n = u32::from(k) * u32::from(per);
            for x in 0..=n {
                let px = choose(n, x) * p.powi(x as i32) * (1.0 - p).powi((n - x) as i32);
                if x >= u32::from(w) && is_kill {
                    kills += px;
                }
                wounds += px * f64::from(x.min(u32::from(w)));
            }
        }
        (kills, wounds)
    };
    let mut best: Option<(Vec<u8>, (f64, f64))> = None;
    for split in compositions(total, living.len()) {
        let v = value(&split);
        let improves = match &best {
            None => true,
            Some((_, b)) => v.0 > b.0 + 1e-12 || ((v.0 - b.0).abs() <= 1e-12 && v.1 > b.1 + 1e-12),
        };
        if improves {
            best = Some((split, v));
        }
    }
    let mut full = vec![0; targets.len()];
    for (&i, k) in living.iter().zip(best.map(|b| b.0).unwrap_or_default()) {
        full[i] = k;
    }
    full
}

/// One Strike by the chariot at a model with `left` Wounds: every face of every die, with
/// Might spent only where a Wound can still matter. Returns ((Wounds, Might spent), p).
fn strike<P: Prob>(strength: u8, defence: u8, trapped: bool, left: u8, might: u8) -> Vec<((u8, u8), P)> {
    let mut out: BTreeMap<(u8, u8), P> = BTreeMap::new();
    let Some((first, second)) = chart(strength, defence) else {
        return vec![((0, 0), P::one())];
    };
    let sixth = P::frac(1, 6);
    if second == 0 {
        // Both dice (when Trapped) are seen, then Might turns the failures that matter,
        // the nearest miss first.
        let faces: Vec<Vec<u8>> = if trapped {
            (1..=6).flat_map(|a| (1..=6).map(move |b| vec![a, b])).collect()
        } else {
            (1..=6).map(|a| vec![a]).collect()
        };
        for dice in faces {
            let p = if trapped { sixth * sixth } else { sixth };
            let mut hits = dice.iter().filter(|&&d| d >= first).count() as u8;
            let mut misses: Vec<u8> = dice.iter().filter(|&&d| d < first).map(|&d| first - d).collect();
            misses.sort();
            let wanted = left.min(dice.len() as u8);
            let mut spent = 0;
            for cost in misses {
                if hits < wanted && spent + cost <= might {
                    spent += cost;
                    hits += 1;
                }
            }
            add(&mut out, (hits.min(left), spent), p);
        }
        return out.into_iter().collect();
    }
    // "6 then n": the first dice are seen; the higher is settled first. Might put on a
    // first die to make it a 6 is committed before its second die is rolled, and counts
    // on the second die too.
    let firsts: Vec<Vec<u8>> = if trapped {
        (1..=6).flat_map(|a| (1..=6).map(move |b| vec![a, b])).collect()
    } else {
        (1..=6).map(|a| vec![a]).collect()
    };
    for mut dice in firsts {
        let p0 = if trapped { sixth * sixth } else { sixth };
        dice.sort_by(|a, b| b.cmp(a));
        // States: (Wounds, Might spent, probability), over the second dice.
        let mut states: Vec<(u8, u8, P)> = vec![(0, 0, p0)];
        for &f in &dice {
            let mut next = Vec::new();
            for (wounds, spent, p) in states {
                if wounds >= left {
                    next.push((wounds, spent, p));
                    continue;
                }
                let lift = 6 - f;
                if lift > might - spent {
                    next.push((wounds, spent, p));
                    continue;
                }
                for s in 1..=6u8 {
                    let raised = (s + lift).min(6);
                    let q = p * sixth;
                    if raised >= second {
                        next.push((wounds + 1, spent + lift, q));
                    } else if spent + lift + (second - raised) <= might {
                        next.push((wounds + 1, spent + lift + second - raised, q));
                    } else {
                        next.push((wounds, spent + lift, q));
                    }
                }
            }
            states = next;
        }
        for (wounds, spent, p) in states {
            add(&mut out, (wounds.min(left), spent), p);
        }
    }
    out.into_iter().collect()
}

/// One Wound on the chariot and the Hero's attempt to prevent it: Fate points, a D6 each,
/// 4+ saves; retried while he has Fate (if the reading retries); Might lifts the last
/// failed roll to a 4 when he has enough. Returns ((saved, Fate spent, Might spent), p).
fn fate<P: Prob>(hero: &Hero, chariot_left: u8, fate: u8, might: u8) -> Vec<((bool, u8, u8), P)> {
    let uses = match hero.fate_use {
        FateUse::Always => true,
        FateUse::LastWoundOnly => chariot_left == 1,
        FateUse::NeverOnChariot => false,
    };
    if !uses || fate == 0 {
        return vec![((false, 0, 0), P::one())];
    }
    let mut out = BTreeMap::new();
    // (points spent so far, probability) of reaching the next roll.
    let mut rolling: Vec<(u8, P)> = vec![(0, P::one())];
    while let Some((spent, p)) = rolling.pop() {
        for face in 1..=6u8 {
            let q = p * P::frac(1, 6);
            let spent = spent + 1;
            if face >= 4 {
                add(&mut out, (true, spent, 0), q);
            } else if hero.fate_retry && spent < fate {
                rolling.push((spent, q));
            } else if hero.might_on_fate && 4 - face <= might {
                add(&mut out, (true, spent, 4 - face), q);
            } else {
                add(&mut out, (false, spent, 0), q);
            }
        }
    }
    // Several failed rolls reach the same state: merge them.
    let mut merged = BTreeMap::new();
    for (k, p) in out {
        add(&mut merged, k, p);
    }
    merged.into_iter().collect()
}

/// The fight: duel, then the winner's Strikes.
pub fn fight<P: Prob>(c: &Chariot, hero: Option<&Hero>, foes: &[Foe], rules: &Rules) -> BTreeMap<Result, P> {
    let might0 = hero.map_or(0, |h| h.might);
    let fate0 = hero.map_or(0, |h| h.fate);
    // Riders (and infantry) still standing roll their Attacks, Prone or not; so do horses.
    let mut foe_dice = 0u32;
    let mut foe_fight = 0u8;
    for f in foes {
        if f.wounds > 0 {
            foe_dice += u32::from(f.attacks);
            foe_fight = foe_fight.max(f.fight);
        }
        if let Some(h) = f.horse {
            foe_dice += u32::from(h.attacks);
            foe_fight = foe_fight.max(h.fight);
        }
    }
    // The duel: (won, Might left) -> p.
    let mut duel: BTreeMap<(bool, u8), P> = BTreeMap::new();
    for (&mine, &p) in &highest::<P>(u32::from(c.dice)) {
        for (&theirs, &q) in &highest::<P>(foe_dice) {
            let spend = match hero {
                Some(h) if h.might_in_duel => might_for_duel(mine, theirs, c.fight, foe_fight, h.might),
                _ => 0,
            };
            let high = mine + spend;
            let left = might0 - spend;
            if high != theirs {
                add(&mut duel, (high > theirs, left), p * q);
            } else if c.fight != foe_fight {
                add(&mut duel, (c.fight > foe_fight, left), p * q);
            } else {
                for roll in 1..=6u8 {
                    let evil_wins = roll <= 3;
                    add(&mut duel, (evil_wins == c.evil, left), p * q * P::frac(1, 6));
                }
            }
        }
    }
    let mut results: BTreeMap<Result, P> = BTreeMap::new();
    // What the chariot can strike if it wins: per foe, (Defence, Trapped, is a rider or
    // infantry model, is a chariot), or nothing for a foe with neither rider nor horse.
    let aims: Vec<Option<(u8, bool, bool, bool)>> = foes
        .iter()
        .map(|f| {
            if f.wounds > 0 {
                let trapped = if f.prone {
                    true
                } else if f.horse.is_some() {
                    rules.knocked_down_are_trapped // Knocked Flying: Prone
                } else {
                    rules.knocked_down_are_trapped && !f.monster && !f.chariot
                };
                Some((f.defence, trapped, true, f.chariot))
            } else {
                f.horse.map(|h| (h.defence, false, false, false))
            }
        })
        .collect();
    let aimed: Vec<usize> = (0..foes.len()).filter(|&i| aims[i].is_some()).collect();
    // Beaten riders still on their horses (and not Prone already) are Knocked Flying: an
    // S3 hit each, face by face. Ways: (Wounds left per aimed target, p).
    let mut knocked: BTreeMap<Vec<u8>, P> = BTreeMap::new();
    add(
        &mut knocked,
        aimed
            .iter()
            .map(|&i| if foes[i].wounds > 0 { foes[i].wounds } else { foes[i].horse.map_or(0, |h| h.wounds) })
            .collect(),
        P::one(),
    );
    for (k, &i) in aimed.iter().enumerate() {
        let f = &foes[i];
        if !(f.wounds > 0 && f.horse.is_some() && !f.prone) {
            continue;
        }
        let mut next = BTreeMap::new();
        for (left, p) in knocked {
            for d1 in 1..=6u8 {
                for d2 in 1..=6u8 {
                    let hurt = match chart(3, f.defence) {
                        None => false,
                        Some((a, b)) => d1 >= a && (b == 0 || d2 >= b),
                    };
                    let mut after = left.clone();
                    if hurt {
                        after[k] -= 1;
                    }
                    add(&mut next, after, p * P::frac(1, 36));
                }
            }
        }
        knocked = next;
    }
    for (&(won, might), &p) in &duel {
        if won {
            for (start, pk) in &knocked {
                let target = |k: usize| aims[aimed[k]].expect("aimed");
                let declared: Option<Vec<usize>> = rules.declared.then(|| {
                    // A horse counts for Wounds, not kills: weigh it with an impossible kill.
                    let weighed: Vec<(f64, u8, u8, bool)> = (0..aimed.len())
                        .map(|k| {
                            let (defence, trapped, rider, _) = target(k);
                            (chance(c.strength, defence), 1 + u8::from(trapped), start[k], rider)
                        })
                        .collect();
                    let split = declare_weighed(c.dice, &weighed);
                    split.iter().enumerate().flat_map(|(k, &n)| std::iter::repeat_n(k, usize::from(n))).collect()
                });
                // States: (Wounds left per aimed target, Might left).
                let mut states: BTreeMap<(Vec<u8>, u8), P> = BTreeMap::new();
                add(&mut states, (start.clone(), might), p * *pk);
                for n in 0..usize::from(c.dice) {
                    let mut next = BTreeMap::new();
                    for ((left, might), p) in states {
                        let pick = match &declared {
                            Some(order) => order.get(n).copied().filter(|&k| left[k] > 0),
                            None => (0..aimed.len()).filter(|&k| left[k] > 0).min_by_key(|&k| {
                                if rules.easiest_first { (target(k).0, left[k], k) } else { (0, left[k], k) }
                            }),
                        };
                        let Some(k) = pick else {
                            add(&mut next, (left, might), p);
                            continue;
                        };
                        let usable = match hero {
                            Some(h) if h.might_on_wounds => might,
                            _ => 0,
                        };
                        let (defence, trapped, _, _) = target(k);
                        for ((wounds, spent), q) in strike::<P>(c.strength, defence, trapped, left[k], usable) {
                            let mut after = left.clone();
                            after[k] -= wounds;
                            add(&mut next, (after, might - spent), p * q);
                        }
                    }
                    states = next;
                }
                for ((left, might), p) in states {
                    let slain = |k: usize| target(k).2 && left[k] == 0;
                    let result = Result {
                        won: true,
                        kills: (0..aimed.len()).filter(|&k| slain(k)).count() as u8,
                        wounds_lost: 0,
                        might_spent: might0 - might,
                        fate_spent: 0,
                        foe_chariot_slain: (0..aimed.len()).any(|k| slain(k) && target(k).3),
                    };
                    add(&mut results, result, p);
                }
            }
        } else {
            // States: (chariot Wounds left, Fate left, Might left).
            let mut states: BTreeMap<(u8, u8, u8), P> = BTreeMap::new();
            add(&mut states, (c.wounds, fate0, might), p);
            // Standing riders and infantry Strike, unless Prone or thrown this turn; then
            // each horse.
            let mut strikers: Vec<(u8, u8)> = Vec::new();
            for f in foes {
                if f.wounds > 0 && !f.prone && !f.thrown {
                    strikers.push((f.attacks, f.strength));
                }
                if let Some(h) = f.horse {
                    strikers.push((h.attacks, h.strength));
                }
            }
            for (attacks, strength) in strikers {
                for _ in 0..attacks {
                    let mut next = BTreeMap::new();
                    for ((w, fate_left, might_left), p) in states {
                        if w == 0 {
                            add(&mut next, (w, fate_left, might_left), p);
                            continue;
                        }
                        // The To Wound roll, face by face.
                        let mut wounded = P::zero();
                        let mut missed = P::zero();
                        match chart(strength, c.defence) {
                            None => missed = P::one(),
                            Some((a, b)) => {
                                for d1 in 1..=6u8 {
                                    for d2 in 1..=6u8 {
                                        let q = P::frac(1, 36);
                                        let hit = d1 >= a && (b == 0 || d2 >= b);
                                        if hit {
                                            wounded = wounded + q;
                                        } else {
                                            missed = missed + q;
                                        }
                                    }
                                }
                            }
                        }
                        add(&mut next, (w, fate_left, might_left), p * missed);
                        if wounded == P::zero() {
                            continue;
                        }
                        let saves = match hero {
                            Some(h) => fate::<P>(h, w, fate_left, might_left),
                            None => vec![((false, 0, 0), P::one())],
                        };
                        for ((saved, fs, ms), q) in saves {
                            let after = if saved { w } else { w - 1 };
                            add(&mut next, (after, fate_left - fs, might_left - ms), p * wounded * q);
                        }
                    }
                    states = next;
                }
            }
            for ((w, fate_left, might_left), p) in states {
                let result = Result {
                    won: false,
                    kills: 0,
                    wounds_lost: c.wounds - w,
                    might_spent: might0 - might_left,
                    fate_spent: fate0 - fate_left,
                    foe_chariot_slain: false,
                };
                add(&mut results, result, p);
            }
        }
    }
    results.retain(|_, p| *p != P::zero());
    results
}
