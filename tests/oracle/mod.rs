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

pub mod battlesystem;
pub mod charge;

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
    /// Its weapon held two-handed: each duel die shows one less (never below 1) unless it
    /// is a 6, and each To Wound die one more (never above 6).
    pub two_handed: bool,
}

impl Chariot {
    /// What the grip adds to each of the chariot's To Wound dice.
    fn wound_bonus(&self) -> u8 {
        u8::from(self.two_handed)
    }

    /// What one of its duel dice shows.
    fn duel_face(&self, face: u8) -> u8 {
        if self.two_handed && face < 6 { face.saturating_sub(1).max(1) } else { face }
    }
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
    /// An enemy Hero: his Might and Fate and how he spends them.
    pub hero: Option<FoeHero>,
    /// Its own duel dice are at -1 (it carries the banner, or a pike with a shield).
    pub minus_one: bool,
    /// Beaten, it could not Back Away 1" (a Monster is then Trapped).
    pub cannot_back_away: bool,
}

/// An enemy Hero's points and how he spends them.
#[derive(Clone, Copy, Debug)]
pub struct FoeHero {
    pub might: u8,
    pub fate: u8,
    /// Might to win the duel.
    pub might_in_duel: bool,
    /// Might on his failed To Wound rolls against the chariot.
    pub might_on_wounds: bool,
    /// Might may lift his last failed Fate roll against a Strike to a 4.
    pub might_on_fate: bool,
    /// Fate retried on the same Wound.
    pub fate_retry: bool,
    /// Fate only on a Wound that would slay him.
    pub lethal_only: bool,
}

/// A spear or pike model supporting the enemy: a die (at -1 for a bearer or a shielded
/// pike), its Fight for ties when the reading counts it, and one Strike if its side wins.
#[derive(Clone, Copy, Debug)]
pub struct Supporter {
    pub fight: u8,
    pub strength: u8,
    pub minus_one: bool,
}

/// What helps the enemy side of a fight beyond the models in it.
#[derive(Clone, Debug, Default)]
pub struct Help {
    pub supporters: Vec<Supporter>,
    /// A standing banner within 3": the side may re-roll one duel die.
    pub banner: bool,
    /// Supporters' Fight counts for the side's highest Fight in a tie.
    pub supporter_fight_counts: bool,
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
            hero: None,
            minus_one: false,
            cannot_back_away: false,
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
    pub foe_might_spent: u8,
    pub foe_fate_spent: u8,
    pub foe_heroes_slain: u8,
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

/// P(one To Wound roll succeeds) with `bonus` added to each die, as a float (for the
/// declared split only): faces counted one by one.
fn chance(strength: u8, defence: u8, bonus: u8) -> f64 {
    let share = |needs: u8| (1..=6u8).filter(|&d| (d + bonus).min(6) >= needs).count() as f64 / 6.0;
    match chart(strength, defence) {
        None => 0.0,
        Some((a, 0)) => share(a),
        Some((a, b)) => share(a) * share(b),
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

/// Over every split of `total` Strikes among the `living` targets (indices into `count`
/// targets), the one with the most (kills, then Wounds) by `value`, the first found on a
/// tie; as Strikes per target.
fn best_split(total: u8, living: &[usize], count: usize, value: impl Fn(&[u8]) -> (f64, f64)) -> Vec<u8> {
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
    let mut full = vec![0; count];
    for (&i, k) in living.iter().zip(best.map(|b| b.0).unwrap_or_default()) {
        full[i] = k;
    }
    full
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
    best_split(total, &living, targets.len(), value)
}

/// One Strike by the chariot at a model with `left` Wounds: every face of every die, with
/// Might spent only where a Wound can still matter. Returns ((Wounds, Might spent), p).
/// `bonus` is added to every die before it is read (never above 6): a weapon held
/// two-handed.
fn strike<P: Prob>(strength: u8, defence: u8, bonus: u8, trapped: bool, left: u8, might: u8) -> Vec<((u8, u8), P)> {
    let up = |d: u8| (d + bonus).min(6);
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
            let mut hits = dice.iter().filter(|&&d| up(d) >= first).count() as u8;
            let mut misses: Vec<u8> = dice.iter().filter(|&&d| up(d) < first).map(|&d| first - up(d)).collect();
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
                let lift = 6 - up(f);
                if lift > might - spent {
                    next.push((wounds, spent, p));
                    continue;
                }
                for s in 1..=6u8 {
                    let raised = (up(s) + lift).min(6);
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

/// One Wound and an attempt to prevent it with Fate: a point and a D6 at a time, 4+ saves;
/// another point after a failure when `retry`; Might lifts the last failed roll to a 4
/// when `might_on_fate` and enough Might is left. `uses`: the policy spends Fate on this
/// Wound at all. Returns ((saved, Fate spent, Might spent), p).
fn save_roll<P: Prob>(uses: bool, retry: bool, might_on_fate: bool, fate: u8, might: u8) -> Vec<((bool, u8, u8), P)> {
    if !uses || fate == 0 {
        return vec![((false, 0, 0), P::one())];
    }
    let mut out = BTreeMap::new();
    let mut rolling: Vec<(u8, P)> = vec![(0, P::one())];
    while let Some((spent, p)) = rolling.pop() {
        for face in 1..=6u8 {
            let q = p * P::frac(1, 6);
            let spent = spent + 1;
            if face >= 4 {
                add(&mut out, (true, spent, 0), q);
            } else if retry && spent < fate {
                rolling.push((spent, q));
            } else if might_on_fate && 4 - face <= might {
                add(&mut out, (true, spent, 4 - face), q);
            } else {
                add(&mut out, (false, spent, 0), q);
            }
        }
    }
    out.into_iter().collect()
}

/// One Wound on the chariot and its riding Hero's attempt to prevent it, by his policy.
fn fate<P: Prob>(hero: &Hero, chariot_left: u8, fate: u8, might: u8) -> Vec<((bool, u8, u8), P)> {
    let uses = match hero.fate_use {
        FateUse::Always => true,
        FateUse::LastWoundOnly => chariot_left == 1,
        FateUse::NeverOnChariot => false,
    };
    save_roll(uses, hero.fate_retry, hero.might_on_fate, fate, might)
}

/// `wounds` Wounds suffered one at a time by an enemy Hero standing at (Wounds, Fate,
/// Might): each may be prevented by his Fate as his policy says; none matter once he is
/// slain. Returns ((Wounds, Fate, Might) left, p).
fn wound_hero<P: Prob>(h: &FoeHero, start: (u8, u8, u8), wounds: u8) -> BTreeMap<(u8, u8, u8), P> {
    let mut states = BTreeMap::from([(start, P::one())]);
    for _ in 0..wounds {
        let mut next = BTreeMap::new();
        for ((left, fate, might), p) in states {
            if left == 0 {
                add(&mut next, (left, fate, might), p);
                continue;
            }
            let uses = !h.lethal_only || left == 1;
            for ((saved, fs, ms), q) in save_roll::<P>(uses, h.fate_retry, h.might_on_fate, fate, might) {
                add(&mut next, (if saved { left } else { left - 1 }, fate - fs, might - ms), p * q);
            }
        }
        states = next;
    }
    states
}

/// A target of the chariot's Strikes as the declared split weighs it: P(one roll wounds),
/// rolls per Strike, Wounds left, whether slaying it is a kill, and an enemy Hero's Fate
/// and Might left with his policy.
#[derive(Clone, Copy, Debug)]
pub struct Aim {
    pub p: f64,
    pub per: u8,
    pub wounds: u8,
    pub is_kill: bool,
    pub hero: Option<(FoeHero, u8, u8)>,
}

/// The declared split counting every save: the allocation with the most expected kills,
/// then the most expected Wounds lost, the earliest target getting more on a tie. A target
/// with no Wounds left gets no Strikes.
pub fn declare_saving(total: u8, targets: &[Aim]) -> Vec<u8> {
    let living: Vec<usize> = (0..targets.len()).filter(|&i| targets[i].wounds > 0).collect();
    if living.is_empty() {
        return vec![0; targets.len()];
    }
    let value = |split: &[u8]| {
        let mut kills = 0.0;
        let mut lost = 0.0;
        for (&i, &k) in living.iter().zip(split) {
            let t = targets[i];
            let n = u32::from(k) * u32::from(t.per);
            for x in 0..=n {
                let px = choose(n, x) * t.p.powi(x as i32) * (1.0 - t.p).powi((n - x) as i32);
                match t.hero {
                    Some((h, fate, might)) if fate > 0 => {
                        for ((left, _, _), q) in wound_hero::<f64>(&h, (t.wounds, fate, might), x as u8) {
                            if left == 0 && t.is_kill {
                                kills += px * q;
                            }
                            lost += px * q * f64::from(t.wounds - left);
                        }
                    }
                    _ => {
                        if x >= u32::from(t.wounds) && t.is_kill {
                            kills += px;
                        }
                        lost += px * f64::from(x.min(u32::from(t.wounds)));
                    }
                }
            }
        }
        (kills, lost)
    };
    best_split(total, &living, targets.len(), value)
}

/// P(the enemy wins the duel) when its highest die is `foe` and the chariot's `chariot`:
/// dice first, then the higher Fight, then the roll-off's 1/2.
fn foe_wins(foe: u8, chariot: u8, foe_fight: u8, chariot_fight: u8) -> f64 {
    if foe != chariot {
        f64::from(u8::from(foe > chariot))
    } else if foe_fight != chariot_fight {
        f64::from(u8::from(foe_fight > chariot_fight))
    } else {
        0.5
    }
}

/// Might in a duel with enemy Heroes, after all dice are seen: whoever does not lead spends
/// the least that wins outright (the chariot's Hero on its highest die; an enemy Hero only
/// on his own highest die, the cheapest Hero, an outright win before a roll-off), or, when
/// losing outright at equal Fight, the least that reaches the roll-off; then the other side
/// may answer, until the side behind cannot. The chariot, which charged, goes first at a
/// roll-off. Returns (chariot's high, enemy's high, chariot's Might spent, each Hero's).
fn duel_might(
    chariot_high: u8,
    chariot_fight: u8,
    chariot_might: u8,
    highs: &[u8],
    hero_might: &[u8],
    foe_fight: u8,
) -> (u8, u8, u8, Vec<u8>) {
    let mut ch = chariot_high;
    let mut own: Vec<u8> = highs[1..].to_vec();
    let mut c_left = chariot_might;
    let mut h_left = hero_might.to_vec();
    loop {
        let fh = own.iter().copied().fold(highs[0], u8::max);
        let lead = if ch != fh {
            Some(ch > fh)
        } else if chariot_fight != foe_fight {
            Some(chariot_fight > foe_fight)
        } else {
            None
        };
        if lead != Some(true) {
            let k = might_for_duel(ch, fh, chariot_fight, foe_fight, c_left);
            if k > 0 {
                ch += k;
                c_left -= k;
                continue;
            }
        }
        if lead != Some(false) {
            let mut best: Option<(bool, u8, usize)> = None;
            for (i, (&mine, &left)) in own.iter().zip(&h_left).enumerate() {
                if mine > ch || left == 0 {
                    continue;
                }
                let to_tie = ch - mine;
                let outright = if foe_fight > chariot_fight { to_tie } else { to_tie + 1 };
                let option = if outright > 0 && outright <= left && mine + outright <= 6 {
                    Some((true, outright))
                } else if lead == Some(true) && foe_fight == chariot_fight && to_tie > 0 && to_tie <= left {
                    Some((false, to_tie))
                } else {
                    None
                };
                if let Some((out, cost)) = option {
                    let take = match best {
                        None => true,
                        Some((b_out, b_cost, _)) => (out && !b_out) || (out == b_out && cost < b_cost),
                    };
                    if take {
                        best = Some((out, cost, i));
                    }
                }
            }
            if let Some((_, cost, i)) = best {
                own[i] += cost;
                h_left[i] -= cost;
                continue;
            }
        }
        let fh = own.iter().copied().fold(highs[0], u8::max);
        let spent: Vec<u8> = hero_might.iter().zip(&h_left).map(|(a, b)| a - b).collect();
        return (ch, fh, chariot_might - c_left, spent);
    }
}

/// A target's (Wounds, Fate, Might) left.
type Standing = (u8, u8, u8);

/// How a chariot with a hand-and-a-half weapon holds it for a fight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grip {
    OneHanded,
    TwoHanded,
    /// As a sensible player would, before the Duel Roll: the grip that expects more
    /// kills in this fight, then fewer Wounds lost by the chariot, else one-handed.
    Best,
}

/// Expected kills and expected Wounds lost by the chariot in a fight, held `two_handed`.
fn fight_worth(
    c: &Chariot,
    two_handed: bool,
    hero: Option<&Hero>,
    foes: &[Foe],
    help: &Help,
    rules: &Rules,
) -> (f64, f64) {
    let held = Chariot { two_handed, ..*c };
    fight_with::<f64>(&held, hero, foes, help, rules)
        .into_iter()
        .fold((0.0, 0.0), |(k, w), (r, p)| (k + p * f64::from(r.kills), w + p * f64::from(r.wounds_lost)))
}

/// Whether the chariot holds its weapon two-handed in this fight under `grip`: the choice
/// is made from the fight as it stands (the models in it, their Wounds and help, the
/// riding Hero's Might and Fate left), each grip weighed by this oracle's own fight.
pub fn holds_two_handed(
    grip: Grip,
    c: &Chariot,
    hero: Option<&Hero>,
    foes: &[Foe],
    help: &Help,
    rules: &Rules,
) -> bool {
    match grip {
        Grip::OneHanded => false,
        Grip::TwoHanded => true,
        Grip::Best => {
            const TIE: f64 = 1e-9;
            let (one, two) =
                (fight_worth(c, false, hero, foes, help, rules), fight_worth(c, true, hero, foes, help, rules));
            two.0 > one.0 + TIE || ((two.0 - one.0).abs() <= TIE && two.1 < one.1 - TIE)
        }
    }
}

/// The fight without supporters or a banner.
pub fn fight<P: Prob>(c: &Chariot, hero: Option<&Hero>, foes: &[Foe], rules: &Rules) -> BTreeMap<Result, P> {
    fight_with(c, hero, foes, &Help::default(), rules)
}

/// The fight: the duel (every die of the enemy enumerated face by face, owners kept apart,
/// the banner's re-roll when it raises the enemy's chance, Might both ways), then the
/// winner's Strikes (the chariot's declared or aimed one at a time; the enemy's by every
/// standing model, mount and supporter in turn).
pub fn fight_with<P: Prob>(
    c: &Chariot,
    hero: Option<&Hero>,
    foes: &[Foe],
    help: &Help,
    rules: &Rules,
) -> BTreeMap<Result, P> {
    let might0 = hero.map_or(0, |h| h.might);
    let fate0 = hero.map_or(0, |h| h.fate);
    // The standing enemy Heroes (in the order they stand) and their foe indices.
    let heroes: Vec<usize> = (0..foes.len()).filter(|&i| foes[i].wounds > 0 && foes[i].hero.is_some()).collect();
    let hero_of = |i: usize| heroes.iter().position(|&h| h == i);
    // The enemy's dice in rolling order: (owner, at -1); owner 0 rolls every die that is
    // not a Hero's. The warriors' plain dice first, then theirs at -1, then each Hero's.
    let mut plain = 0u32;
    let mut minus = 0u32;
    let mut foe_fight = 0u8;
    for (i, f) in foes.iter().enumerate() {
        if f.wounds > 0 {
            foe_fight = foe_fight.max(f.fight);
            if hero_of(i).is_none() {
                if f.minus_one {
                    minus += u32::from(f.attacks);
                } else {
                    plain += u32::from(f.attacks);
                }
            }
        }
        if let Some(h) = f.horse {
            foe_fight = foe_fight.max(h.fight);
            plain += u32::from(h.attacks);
        }
    }
    for s in &help.supporters {
        if help.supporter_fight_counts {
            foe_fight = foe_fight.max(s.fight);
        }
        if s.minus_one {
            minus += 1;
        } else {
            plain += 1;
        }
    }
    let mut dice: Vec<(usize, bool)> = Vec::new();
    dice.extend(std::iter::repeat_n((0, false), plain as usize));
    dice.extend(std::iter::repeat_n((0, true), minus as usize));
    for (k, &i) in heroes.iter().enumerate() {
        dice.extend(std::iter::repeat_n((k + 1, foes[i].minus_one), usize::from(foes[i].attacks)));
    }
    let owners = heroes.len() + 1;
    let shown = |face: u8, at_minus: bool| if at_minus { face.saturating_sub(1).max(1) } else { face };
    let hero_duel_might: Vec<u8> =
        heroes.iter().map(|&i| foes[i].hero.map_or(0, |h| if h.might_in_duel { h.might } else { 0 })).collect();
    let hero_might0: Vec<u8> = heroes.iter().map(|&i| foes[i].hero.map_or(0, |h| h.might)).collect();
    let chariot_duel_might = match hero {
        Some(h) if h.might_in_duel => h.might,
        _ => 0,
    };
    // Every face of every enemy die; without a banner or a Hero only the side's highest
    // matters, so equal highest dice are merged die by die (many dice stay cheap).
    let n = dice.len();
    let simple = !help.banner && heroes.is_empty();
    let mut folded: BTreeMap<u8, P> = BTreeMap::from([(0u8, P::one())]);
    if simple {
        for &(_, at_minus) in &dice {
            let mut next = BTreeMap::new();
            for (&m, &p) in &folded {
                for face in 1..=6u8 {
                    add(&mut next, m.max(shown(face, at_minus)), p * P::frac(1, 6));
                }
            }
            folded = next;
        }
    }
    let mut faces_list: Vec<Vec<u8>> = vec![Vec::new()];
    for _ in 0..if simple { 0 } else { n } {
        faces_list = faces_list
            .into_iter()
            .flat_map(|f| {
                (1..=6u8).map(move |x| {
                    let mut g = f.clone();
                    g.push(x);
                    g
                })
            })
            .collect();
    }
    // The duel: (won, the chariot's Might left, each Hero's Might left) -> p.
    let mut duel: BTreeMap<(bool, u8, Vec<u8>), P> = BTreeMap::new();
    // Each way the enemy's dice can fall, as (the value each die shows, p): with `simple`,
    // one die standing for the side's highest.
    let rolls: Vec<(Vec<u8>, P)> = if simple {
        folded.iter().map(|(&m, &p)| (if n == 0 { Vec::new() } else { vec![m] }, p)).collect()
    } else {
        let each = P::frac(1, 6u64.pow(n as u32));
        faces_list
            .iter()
            .map(|faces| (dice.iter().zip(faces).map(|(&(_, m), &f)| shown(f, m)).collect(), each))
            .collect()
    };
    let dice: Vec<(usize, bool)> = if simple { dice.into_iter().take(1).collect() } else { dice };
    let n = dice.len();
    let highs_of = |values: &[u8]| {
        let mut highs = vec![0u8; owners];
        for (&(owner, _), &v) in dice.iter().zip(values) {
            highs[owner] = highs[owner].max(v);
        }
        highs
    };
    for (&rolled, &pa) in &highest::<P>(u32::from(c.dice)) {
        // The chariot's score: its highest die as its grip shows it (a lower die never
        // shows more than a higher one, so the highest stays the highest).
        let a = c.duel_face(rolled);
        for (values, q0) in &rolls {
            let p = pa * *q0;
            let values = values.clone();
            let side_high = values.iter().copied().max().unwrap_or(0);
            // The banner: re-roll the lowest die (a plain one before one at -1, then the
            // first rolled) when that raises the enemy's chance on the dice alone.
            let mut ways: Vec<(Vec<u8>, P)> = vec![(values.clone(), P::one())];
            if help.banner && n > 0 {
                let low = (0..n).min_by_key(|&i| (values[i], u8::from(dice[i].1), i)).expect("dice");
                let now = foe_wins(side_high, a, foe_fight, c.fight);
                let after: f64 = (1..=6u8)
                    .map(|x| {
                        let mut v = values.clone();
                        v[low] = shown(x, dice[low].1);
                        foe_wins(v.iter().copied().max().unwrap_or(0), a, foe_fight, c.fight) / 6.0
                    })
                    .sum();
                if after > now + 1e-12 {
                    ways = (1..=6u8)
                        .map(|x| {
                            let mut v = values.clone();
                            v[low] = shown(x, dice[low].1);
                            (v, P::frac(1, 6))
                        })
                        .collect();
                }
            }
            for (v, q) in ways {
                let highs = highs_of(&v);
                let (ch, fh, c_spent, h_spent) =
                    duel_might(a, c.fight, chariot_duel_might, &highs, &hero_duel_might, foe_fight);
                let left: Vec<u8> = hero_might0.iter().zip(&h_spent).map(|(m, s)| m - s).collect();
                let lose = foe_wins(fh, ch, foe_fight, c.fight);
                let c_left = might0 - c_spent;
                if lose < 1.0 {
                    let w = if lose == 0.0 { P::one() } else { P::frac(1, 2) };
                    add(&mut duel, (true, c_left, left.clone()), p * q * w);
                }
                if lose > 0.0 {
                    let l = if lose == 1.0 { P::one() } else { P::frac(1, 2) };
                    add(&mut duel, (false, c_left, left), p * q * l);
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
                } else if f.chariot {
                    false // a chariot is never Trapped
                } else if f.monster {
                    f.cannot_back_away // not knocked Prone: Trapped only if it cannot Back Away
                } else {
                    rules.knocked_down_are_trapped
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
    let fate_of = |i: usize| foes[i].hero.map_or(0, |h| h.fate);
    for ((won, might, hero_left), &p) in &duel {
        if *won {
            for (start, pk) in &knocked {
                let target = |k: usize| aims[aimed[k]].expect("aimed");
                // (Wounds, Fate, Might) of each aimed target when the Strikes begin.
                let standing: Vec<(u8, u8, u8)> = (0..aimed.len())
                    .map(|k| match hero_of(aimed[k]) {
                        Some(h) => (start[k], fate_of(aimed[k]), hero_left[h]),
                        None => (start[k], 0, 0),
                    })
                    .collect();
                let declared: Option<Vec<usize>> = rules.declared.then(|| {
                    let weighed: Vec<Aim> = (0..aimed.len())
                        .map(|k| {
                            let (defence, trapped, rider, _) = target(k);
                            Aim {
                                p: chance(c.strength, defence, c.wound_bonus()),
                                per: 1 + u8::from(trapped),
                                wounds: start[k],
                                is_kill: rider,
                                hero: foes[aimed[k]].hero.map(|h| (h, standing[k].1, standing[k].2)),
                            }
                        })
                        .collect();
                    let split = declare_saving(c.dice, &weighed);
                    split.iter().enumerate().flat_map(|(k, &n)| std::iter::repeat_n(k, usize::from(n))).collect()
                });
                // States: ((Wounds, Fate, Might) left per aimed target, the chariot's Might left).
                let mut states: BTreeMap<(Vec<Standing>, u8), P> = BTreeMap::new();
                add(&mut states, (standing.clone(), *might), p * *pk);
                for s in 0..usize::from(c.dice) {
                    let mut next = BTreeMap::new();
                    for ((left, might), p) in states {
                        let pick = match &declared {
                            Some(order) => order.get(s).copied().filter(|&k| left[k].0 > 0),
                            None => (0..aimed.len()).filter(|&k| left[k].0 > 0).min_by_key(|&k| {
                                if rules.easiest_first { (target(k).0, left[k].0, k) } else { (0, left[k].0, k) }
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
                        let (w, fate, hm) = left[k];
                        // Against a Hero with Fate left every Wound of the Strike may matter.
                        let counted = if fate > 0 { w.max(2) } else { w };
                        for ((wounds, spent), q) in
                            strike::<P>(c.strength, defence, c.wound_bonus(), trapped, counted, usable)
                        {
                            match foes[aimed[k]].hero {
                                Some(h) if fate > 0 => {
                                    for (after_k, r) in wound_hero::<P>(&h, (w, fate, hm), wounds) {
                                        let mut after = left.clone();
                                        after[k] = after_k;
                                        add(&mut next, (after, might - spent), p * q * r);
                                    }
                                }
                                _ => {
                                    let mut after = left.clone();
                                    after[k].0 -= wounds.min(w);
                                    add(&mut next, (after, might - spent), p * q);
                                }
                            }
                        }
                    }
                    states = next;
                }
                for ((left, might), p) in states {
                    let slain = |k: usize| target(k).2 && left[k].0 == 0;
                    let hero_k = |k: usize| foes[aimed[k]].hero.is_some();
                    let foe_fate_spent: u8 =
                        (0..aimed.len()).filter(|&k| hero_k(k)).map(|k| fate_of(aimed[k]) - left[k].1).sum();
                    let foe_might_left: u8 = (0..aimed.len()).filter(|&k| hero_k(k)).map(|k| left[k].2).sum();
                    let result = Result {
                        won: true,
                        kills: (0..aimed.len()).filter(|&k| slain(k)).count() as u8,
                        wounds_lost: 0,
                        might_spent: might0 - might,
                        fate_spent: 0,
                        foe_chariot_slain: (0..aimed.len()).any(|k| slain(k) && target(k).3),
                        foe_might_spent: hero_might0.iter().sum::<u8>() - foe_might_left,
                        foe_fate_spent,
                        foe_heroes_slain: (0..aimed.len()).filter(|&k| slain(k) && hero_k(k)).count() as u8,
                    };
                    add(&mut results, result, p);
                }
            }
        } else {
            // States: (chariot Wounds left, Fate left, Might left, each Hero's Might left).
            let mut states: BTreeMap<(u8, u8, u8, Vec<u8>), P> = BTreeMap::new();
            add(&mut states, (c.wounds, fate0, *might, hero_left.clone()), p);
            // Standing riders and infantry Strike, unless Prone or thrown this turn, then
            // their horses, model by model; then each supporter once.
            let mut strikers: Vec<(u8, u8, Option<usize>)> = Vec::new();
            for (i, f) in foes.iter().enumerate() {
                if f.wounds > 0 && !f.prone && !f.thrown {
                    let with_might = hero_of(i).filter(|_| f.hero.is_some_and(|h| h.might_on_wounds));
                    strikers.push((f.attacks, f.strength, with_might));
                }
                if let Some(h) = f.horse {
                    strikers.push((h.attacks, h.strength, None));
                }
            }
            strikers.extend(help.supporters.iter().map(|s| (1, s.strength, None)));
            for (attacks, strength, with_might) in strikers {
                for _ in 0..attacks {
                    let mut next = BTreeMap::new();
                    for ((w, fate_left, might_left, hl), p) in states {
                        if w == 0 {
                            add(&mut next, (w, fate_left, might_left, hl), p);
                            continue;
                        }
                        // The To Wound roll, face by face, with the Hero's Might if he spends it.
                        let usable = with_might.map_or(0, |h| hl[h]);
                        for ((hit, spent), q) in strike::<P>(strength, c.defence, 0, false, 1, usable) {
                            let mut hl = hl.clone();
                            if let Some(h) = with_might {
                                hl[h] -= spent;
                            }
                            if hit == 0 {
                                add(&mut next, (w, fate_left, might_left, hl), p * q);
                                continue;
                            }
                            let saves = match hero {
                                Some(h) => fate::<P>(h, w, fate_left, might_left),
                                None => vec![((false, 0, 0), P::one())],
                            };
                            for ((saved, fs, ms), r) in saves {
                                let after = if saved { w } else { w - 1 };
                                add(&mut next, (after, fate_left - fs, might_left - ms, hl.clone()), p * q * r);
                            }
                        }
                    }
                    states = next;
                }
            }
            for ((w, fate_left, might_left, hl), p) in states {
                let result = Result {
                    won: false,
                    kills: 0,
                    wounds_lost: c.wounds - w,
                    might_spent: might0 - might_left,
                    fate_spent: fate0 - fate_left,
                    foe_chariot_slain: false,
                    foe_might_spent: hero_might0.iter().sum::<u8>() - hl.iter().sum::<u8>(),
                    foe_fate_spent: 0,
                    foe_heroes_slain: 0,
                };
                add(&mut results, result, p);
            }
        }
    }
    results.retain(|_, p| *p != P::zero());
    results
}
