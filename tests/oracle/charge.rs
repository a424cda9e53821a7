//! The whole Chariot Charge, from the rules reference only (`../shared/rules/mesbg.md`,
//! the seed, and the readings in `docs/methods.md`): the chariot drives along a fixed list
//! of contact groups; each model touched takes the Impact Hits (never modified by Might;
//! an enemy Hero's Fate is his own roll, taken plain); a group wholly slain is driven
//! through, a survivor stops the chariot and the fight follows ([`super::fight_with`], the
//! weapon's grip and a nearby banner's re-roll as the readings say); the difficult-terrain
//! D6 where the chariot enters it by either reading of "within" (a 1 is a Wound at once,
//! unless a riding Hero's Might turns it to a 2; a chariot slain there stops there); the
//! wall's three Strength 6 hits when the chariot drives through everything into it; the
//! riding Hero thrown from a slain chariot (one Strength 3 hit); and the Break Point of
//! the army charged. The contact list is given, not derived: geometry is the test's
//! business.

use super::{
    Chariot, Foe, FoeHero, Grip, Help, Hero, Horse, Prob, Rules, add, chart, fate, holds_two_handed, save_roll,
    wound_hero,
};
use std::collections::BTreeMap;

/// How many Impact Hits each model touched takes.
#[derive(Clone, Copy, Debug)]
pub enum ImpactDice {
    /// Always this many.
    Fixed(u8),
    /// A D3 (a D6 halved, rounded up) rolled for each model.
    D3,
}

/// A Hero riding the chariot: his points and policies, and what the Strength 3 hit when
/// he is thrown from a slain chariot needs.
#[derive(Clone, Copy, Debug)]
pub struct Riding {
    pub hero: Hero,
    pub wounds: u8,
    pub defence: u8,
}

/// The army charged, for its Break Point.
#[derive(Clone, Copy, Debug)]
pub struct Army {
    pub models: u32,
    pub casualties: u32,
    /// Broken at half or more lost (else: at more than half).
    pub half_or_more: bool,
}

/// A charge along a fixed contact list.
#[derive(Clone, Debug)]
pub struct Charge {
    /// The chariot as it fights (dice include its charge bonus and the Hero's Attacks).
    pub chariot: Chariot,
    pub riding: Option<Riding>,
    pub impact: ImpactDice,
    pub impact_strength: u8,
    /// Models touched at the same moment, group after group along the drive: infantry (an
    /// enemy Hero carries `hero`) or cavalry (`horse`, never a Hero).
    pub groups: Vec<Vec<Foe>>,
    /// A dice number of Impact Hits is rolled for a cavalry model's rider and mount apart
    /// (else once for both).
    pub cavalry_roll_each: bool,
    /// The chariot drives on past cavalry only when the rider is slain and the mount slain
    /// or fled (else when the rider is slain).
    pub cavalry_passed_when_mount_gone: bool,
    /// Which groups are three shielded infantry with Shieldwall standing abreast, bases
    /// touching: the middle one touches two shielded friends, each end one.
    pub walls: Vec<bool>,
    /// Shieldwall is played: +1 Defence to a shielded model with the rule while it touches
    /// two or more standing shielded friends with it.
    pub shieldwall: bool,
    /// A band of difficult terrain lies just before this group (the number of groups:
    /// after the last one).
    pub terrain_before: Option<usize>,
    /// The band lies so close before that group (or the wall) that when the chariot's
    /// front touches it, the chariot's centre is still short of the band: geometry, given
    /// by the test.
    pub terrain_short_of_centre: bool,
    /// The reading of "within" difficult terrain: the chariot's centre inside the band
    /// (else any part of its base).
    pub terrain_by_centre: bool,
    /// How a chariot with a hand-and-a-half weapon holds it (`OneHanded` for one without).
    pub grip: Grip,
    /// A standing enemy banner within 3" of every fight the charge can end in, its bearer
    /// out of the chariot's way.
    pub banner_nearby: bool,
    /// The reading that a banner lets its side re-roll a duel die (else it gives none).
    pub banner_rerolls: bool,
    /// A wall stands beyond the last group, within the chariot's Move.
    pub wall: bool,
    /// Driving through every group, the full Move carries the whole base past every
    /// formation (a breakthrough): geometry, given by the test.
    pub ends_past_everything: bool,
    pub army: Option<Army>,
    pub rules: Rules,
}

/// What a charge came to: the metrics the test compares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct ChargeResult {
    pub contacts: u8,
    pub impact_kills: u8,
    pub breakthrough: bool,
    pub terrain_wound: bool,
    pub obstacle_struck: bool,
    pub fought: bool,
    pub won: bool,
    pub fight_kills: u8,
    pub kills: u8,
    pub chariot_wounds_lost: u8,
    pub chariot_slain: bool,
    pub might_spent: u8,
    pub fate_spent: u8,
    pub hero_wounds_lost: u8,
    pub foe_might_spent: u8,
    pub foe_fate_spent: u8,
    pub foe_heroes_slain: u8,
    pub army_broken: bool,
}

/// The chariot part way through its charge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Driving {
    wounds: u8,
    might: u8,
    fate: u8,
    result: ChargeResult,
}

/// The chances that one roll of `strength` against `defence` wounds and that it does
/// not, from the chart's faces (a "6 then n" is a 6 and then n or more), in 36ths.
fn wound_chance<P: Prob>(strength: u8, defence: u8) -> (P, P) {
    let k = match chart(strength, defence) {
        None => 0,
        Some((first, 0)) => 6 * u64::from(7 - first),
        Some((first, second)) => u64::from(7 - first) * u64::from(7 - second),
    };
    (P::frac(k, 36), P::frac(36 - k, 36))
}

/// The number of Wounds `hits` hits cause, each rolled on its own.
fn wounds_from<P: Prob>(hits: u8, (wound, miss): (P, P)) -> BTreeMap<u8, P> {
    let mut out = BTreeMap::from([(0u8, P::one())]);
    for _ in 0..hits {
        let mut next = BTreeMap::new();
        for (&w, &q) in &out {
            add(&mut next, w + 1, q * wound);
            add(&mut next, w, q * miss);
        }
        out = next;
    }
    out
}

/// A model touched, after its Impact Hits: as it stands in the chariot's way (`None`: the
/// chariot drives on past it), an enemy Hero's Fate spent, and whether it is a casualty.
type Touched = (Option<Foe>, u8, bool);

/// A group after its Impact Hits: each model in the way or passed with its casualty, the
/// Fate spent, and the chance.
type Combo<P> = (Vec<(Option<Foe>, bool)>, u8, P);

/// How many Impact Hits one roll gives, with their chances.
fn hit_counts<P: Prob>(c: &Charge) -> Vec<(u8, P)> {
    match c.impact {
        ImpactDice::Fixed(n) => vec![(n, P::one())],
        ImpactDice::D3 => (1..=6u8).map(|f| (f.div_ceil(2), P::frac(1, 6))).collect(),
    }
}

/// What the Impact Hits do to one model touched: (the model as it stands in the chariot's
/// way after them, or `None` when the chariot drives on past it; an enemy Hero's Fate
/// spent; whether it is a casualty), p.
fn impact_on<P: Prob>(c: &Charge, foe: &Foe) -> Vec<(Touched, P)> {
    if foe.horse.is_some() {
        return impact_on_cavalry(c, foe);
    }
    let counts = hit_counts::<P>(c);
    let p = wound_chance::<P>(c.impact_strength, foe.defence);
    let mut out: BTreeMap<(u8, u8, u8), P> = BTreeMap::new();
    for (hits, q) in counts {
        for (w, r) in wounds_from(hits, p) {
            match foe.hero {
                None => add(&mut out, (foe.wounds.saturating_sub(w), 0, 0), q * r),
                Some(h) => {
                    // His Fate roll against Impact Hits is never raised by Might.
                    let plain = FoeHero { might_on_fate: false, ..h };
                    for ((left, fate_left, _), s) in wound_hero::<P>(&plain, (foe.wounds, h.fate, h.might), w) {
                        add(&mut out, (left, h.fate - fate_left, fate_left), q * r * s);
                    }
                }
            }
        }
    }
    out.into_iter()
        .map(|((left, spent, fate_left), p)| {
            let after = (left > 0).then(|| Foe {
                wounds: left,
                hero: foe.hero.map(|h| FoeHero { fate: fate_left, ..h }),
                ..*foe
            });
            ((after, spent, left == 0), p)
        })
        .collect()
}

/// The Impact Hits on a cavalry model (no Hero): rider and mount each take them (one
/// number rolled for the model, or one each); a rider whose mount is slain rolls on the
/// Thrown Rider chart (1: a Strength 3 hit, then Prone if he lives; 2-5: up, but no Strikes
/// this turn; 6: on his feet as infantry); a riderless mount without Attacks flees. The
/// model is a casualty when its rider is slain; the chariot drives on past it then, or, by
/// the earlier reading, only once the mount is slain or fled too.
fn impact_on_cavalry<P: Prob>(c: &Charge, foe: &Foe) -> Vec<(Touched, P)> {
    let horse = foe.horse.expect("cavalry");
    let counts = hit_counts::<P>(c);
    let on_rider = wound_chance::<P>(c.impact_strength, foe.defence);
    let on_mount = wound_chance::<P>(c.impact_strength, horse.defence);
    // (rider's Wounds, mount's Wounds) caused, p.
    let mut wounds: BTreeMap<(u8, u8), P> = BTreeMap::new();
    for (n, q) in &counts {
        // The mount's number: the same roll, or a roll of its own.
        let mount_counts = if c.cavalry_roll_each { counts.clone() } else { vec![(*n, P::one())] };
        for (m, r) in mount_counts {
            for (wr, a) in wounds_from(*n, on_rider) {
                for (wm, b) in wounds_from(m, on_mount) {
                    add(&mut wounds, (wr, wm), *q * r * a * b);
                }
            }
        }
    }
    let (thrown_hit, thrown_miss) = wound_chance::<P>(3, foe.defence);
    let mut out: Vec<(Touched, P)> = Vec::new();
    let mut settle = |rider: u8, mount: Option<Horse>, prone: bool, thrown: bool, p: P| {
        // A riderless mount without Attacks flees.
        let mount = mount.filter(|h| rider > 0 || h.attacks > 0);
        let casualty = rider == 0;
        let passed = if c.cavalry_passed_when_mount_gone { casualty && mount.is_none() } else { casualty };
        let after = (!passed).then_some(Foe { wounds: rider, horse: mount, prone, thrown, ..*foe });
        out.push(((after, 0, casualty), p));
    };
    for ((wr, wm), p) in wounds {
        let rider = foe.wounds.saturating_sub(wr);
        let mount = (wm < horse.wounds).then(|| Horse { wounds: horse.wounds - wm, ..horse });
        if rider == 0 || mount.is_some() {
            settle(rider, mount, false, false, p);
            continue;
        }
        // Thrown: the chart's D6.
        let sixth = P::frac(1, 6);
        settle(rider - 1, None, rider > 1, false, p * sixth * thrown_hit);
        settle(rider, None, true, false, p * sixth * thrown_miss);
        settle(rider, None, false, true, p * P::frac(4, 6));
        settle(rider, None, false, false, p * sixth);
    }
    out
}

/// One Wound on the chariot, and the riding Hero's Fate against it.
fn suffer<P: Prob>(c: &Charge, d: Driving) -> Vec<(Driving, P)> {
    match c.riding {
        None => vec![(Driving { wounds: d.wounds - 1, ..d }, P::one())],
        Some(r) => fate::<P>(&r.hero, d.wounds, d.fate, d.might)
            .into_iter()
            .map(|((saved, fs, ms), p)| {
                let wounds = if saved { d.wounds } else { d.wounds - 1 };
                (Driving { wounds, fate: d.fate - fs, might: d.might - ms, ..d }, p)
            })
            .collect(),
    }
}

/// The difficult-terrain D6 on entering.
fn terrain<P: Prob>(c: &Charge, d: Driving) -> Vec<(Driving, P)> {
    let mut out = vec![(d, P::frac(5, 6))];
    let turned = c.riding.is_some_and(|r| r.hero.might_on_fate) && d.might > 0;
    if turned {
        out.push((Driving { might: d.might - 1, ..d }, P::frac(1, 6)));
    } else {
        let marked = Driving { result: ChargeResult { terrain_wound: true, ..d.result }, ..d };
        out.extend(suffer::<P>(c, marked).into_iter().map(|(d, p)| (d, p * P::frac(1, 6))));
    }
    out
}

/// The wall's three Strength 6 hits on the chariot (Fate may prevent each Wound).
fn wall<P: Prob>(c: &Charge, d: Driving) -> Vec<(Driving, P)> {
    let (p, miss) = wound_chance::<P>(6, c.chariot.defence);
    let mut states = vec![(Driving { result: ChargeResult { obstacle_struck: true, ..d.result }, ..d }, P::one())];
    for _ in 0..3 {
        let mut next = Vec::new();
        for (d, q) in states {
            if d.wounds == 0 {
                next.push((d, q));
                continue;
            }
            next.push((d, q * miss));
            next.extend(suffer::<P>(c, d).into_iter().map(|(d, r)| (d, q * p * r)));
        }
        states = next;
    }
    states
}

/// The end of the charge: Wounds lost, the Hero thrown from a slain chariot, the Break
/// Point.
fn finish<P: Prob>(c: &Charge, d: Driving, p: P, out: &mut BTreeMap<ChargeResult, P>) {
    let mut r = d.result;
    r.chariot_wounds_lost = c.chariot.wounds - d.wounds;
    r.chariot_slain = d.wounds == 0;
    let mut ends: Vec<(ChargeResult, u8, u8, P)> = vec![(r, d.might, d.fate, P::one())];
    if let (Some(riding), true) = (c.riding, r.chariot_slain) {
        let (hit, miss) = wound_chance::<P>(3, riding.defence);
        let lethal = riding.wounds == 1;
        let uses = match riding.hero.fate_use {
            super::FateUse::LastWoundOnly => lethal,
            _ => true,
        };
        ends = vec![(r, d.might, d.fate, miss)];
        for ((saved, fs, ms), q) in
            save_roll::<P>(uses, riding.hero.fate_retry, riding.hero.might_on_fate, d.fate, d.might)
        {
            let hurt = ChargeResult { hero_wounds_lost: u8::from(!saved), ..r };
            ends.push((hurt, d.might - ms, d.fate - fs, hit * q));
        }
    }
    for (mut r, might, fate, q) in ends {
        if let Some(h) = c.riding {
            r.might_spent = h.hero.might - might;
            r.fate_spent = h.hero.fate - fate;
        }
        if let Some(a) = c.army {
            let lost = 2 * (a.casualties + u32::from(r.kills));
            r.army_broken = if a.half_or_more { lost >= a.models } else { lost > a.models };
        }
        add(out, r, p * q);
    }
}

/// Every outcome of the charge with its probability.
pub fn charge<P: Prob>(c: &Charge) -> BTreeMap<ChargeResult, P> {
    let (might, fate) = c.riding.map_or((0, 0), |r| (r.hero.might, r.hero.fate));
    let mut driving: BTreeMap<Driving, P> = BTreeMap::from([(
        Driving { wounds: c.chariot.wounds, might, fate, result: ChargeResult::default() },
        P::one(),
    )]);
    let mut out = BTreeMap::new();
    let mut fights: BTreeMap<String, Vec<(super::Result, P)>> = BTreeMap::new();
    // Where along the drive the chariot is first within the band. Any part of the base: as
    // its front reaches it. The centre: a band still ahead of the centre when the front
    // touches the next group is entered only if the chariot drives through that group
    // (before the group after it); one short of a wall is never entered.
    let entered = c.terrain_before.and_then(|g| {
        if !(c.terrain_by_centre && c.terrain_short_of_centre) {
            Some(g)
        } else if g < c.groups.len() {
            Some(g + 1)
        } else {
            (!c.wall).then_some(g)
        }
    });
    for g in 0..=c.groups.len() {
        if entered == Some(g) {
            let mut next = BTreeMap::new();
            for (d, p) in driving {
                for (d, q) in terrain::<P>(c, d) {
                    if d.wounds == 0 {
                        finish(c, d, p * q, &mut out);
                    } else {
                        add(&mut next, d, p * q);
                    }
                }
            }
            driving = next;
        }
        if g == c.groups.len() {
            for (d, p) in driving {
                let through =
                    Driving { result: ChargeResult { breakthrough: c.ends_past_everything, ..d.result }, ..d };
                let ends = if c.wall { wall::<P>(c, through) } else { vec![(through, P::one())] };
                for (d, q) in ends {
                    finish(c, d, p * q, &mut out);
                }
            }
            break;
        }
        // Every combination of what the hits did to the group's models.
        // Shieldwall: the middle of a wall touches its two friends when the chariot touches
        // all three, so it meets the Impact Hits at +1 Defence.
        let braced = c.shieldwall && c.walls.get(g).copied().unwrap_or(false);
        let touched: Vec<Foe> = c.groups[g]
            .iter()
            .enumerate()
            .map(|(i, f)| if braced && i == 1 { Foe { defence: f.defence + 1, ..*f } } else { *f })
            .collect();
        // (each model in the way or passed, its casualty, Fate spent, p).
        let mut combos: Vec<Combo<P>> = vec![(Vec::new(), 0, P::one())];
        for foe in &touched {
            let each = impact_on::<P>(c, foe);
            combos = combos
                .into_iter()
                .flat_map(|(stand, spent, p)| {
                    each.iter().map(move |((after, fate, casualty), q)| {
                        let mut stand = stand.clone();
                        stand.push((*after, *casualty));
                        (stand, spent + fate, p * *q)
                    })
                })
                .collect();
        }
        let mut next = BTreeMap::new();
        for (d, p) in driving {
            for (stand, spent, q) in &combos {
                let slain = stand.iter().filter(|s| s.1).count() as u8;
                let heroes_slain = c.groups[g].iter().zip(stand).filter(|(f, s)| f.hero.is_some() && s.1).count() as u8;
                let mut r = d.result;
                r.contacts += c.groups[g].len() as u8;
                r.impact_kills += slain;
                r.kills += slain;
                r.foe_fate_spent += spent;
                r.foe_heroes_slain += heroes_slain;
                let d = Driving { result: r, ..d };
                // In the fight the wall is as the Impact Hits left it: the middle keeps its
                // +1 only while both ends still stand.
                let both_ends = braced && stand[0].0.is_some() && stand[2].0.is_some();
                let survivors: Vec<Foe> = stand
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| s.0.map(|f| (i, f)))
                    .map(|(i, f)| {
                        let plain = c.groups[g][i].defence;
                        Foe { defence: if braced && i == 1 && both_ends { plain + 1 } else { plain }, ..f }
                    })
                    .collect();
                if survivors.is_empty() {
                    add(&mut next, d, p * *q);
                    continue;
                }
                // Stopped: the fight, with what the chariot and its Hero have left; the
                // weapon's grip chosen for this fight as it stands.
                let help = Help { banner: c.banner_nearby && c.banner_rerolls, ..Help::default() };
                let chariot = Chariot { wounds: d.wounds, ..c.chariot };
                let hero = c.riding.map(|h| Hero { might: d.might, fate: d.fate, ..h.hero });
                // Many ways through the Impact Hits leave the same fight: each is worked
                // out once (the key is the whole fight as it stands, written out).
                let key = format!("{chariot:?} {hero:?} {survivors:?}");
                let fight = fights.entry(key).or_insert_with(|| {
                    let two_handed = holds_two_handed(c.grip, &chariot, hero.as_ref(), &survivors, &help, &c.rules);
                    let chariot = Chariot { two_handed, ..chariot };
                    super::fight_with::<P>(&chariot, hero.as_ref(), &survivors, &help, &c.rules).into_iter().collect()
                });
                for &(f, s) in fight.iter() {
                    let mut r = d.result;
                    r.fought = true;
                    r.won = f.won;
                    r.fight_kills = f.kills;
                    r.kills += f.kills;
                    r.foe_might_spent += f.foe_might_spent;
                    r.foe_fate_spent += f.foe_fate_spent;
                    r.foe_heroes_slain += f.foe_heroes_slain;
                    let after = Driving {
                        wounds: d.wounds - f.wounds_lost,
                        might: d.might - f.might_spent,
                        fate: d.fate - f.fate_spent,
                        result: r,
                    };
                    finish(c, after, p * *q * s, &mut out);
                }
            }
        }
        driving = next;
    }
    out
}
