//! A BATTLESYSTEM charge, from the reference only (`../shared/rules/battlesystem.md`, the
//! seed, and the decisions in `docs/battlesystem.md`): the archers aboard shoot at the
//! starting gap and at half of it (dice = figures x the range band's multiplier, fractions
//! rounded up; each die through the hits table, the reference's default or another of even
//! steps; a d10 per hit against AR cancels it; figures go as their Hits fill up, the rest
//! carried); then one simultaneous melee: each platform in contact rolls its die and adds
//! it to every die of its fighting crew (the rider does not fight), a charge doubling the
//! crew's dice; the target's figures in contact strike back with one die each; hits on the
//! platform unit fall on the platforms (their AR and Hits) and the crew fall with them;
//! then the target's morale (2d10 against ML: held, fell back when failed by less than the
//! rout margin, 5 by default, routed by it or more; destroyed with no figure left). Who is
//! in contact is given: geometry is the test's business. Plain and slow on purpose: every
//! die is a loop over its faces.

use std::collections::BTreeMap;

/// One crew group aboard each platform.
#[derive(Clone, Debug)]
pub struct Crew {
    /// Figures of the group per platform.
    pub count: u32,
    /// Sides of its attack die.
    pub die: u32,
    pub fights: bool,
    /// Its own armour and Hits (hits fall on it first under `crew_first`).
    pub ar: u32,
    pub hits: u32,
    /// Archers: `(from, to, multiplier in hundredths)`, from inclusive, to exclusive.
    pub bands: Vec<(f64, f64, u32)>,
}

/// What a charge doubles (the reference: "doubles the carried figures' dice, the
/// platform's, or both; default both"; none is the what-if of a platform not counting as
/// charging cavalry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Doubles {
    Crew,
    Platform,
    Both,
    Nothing,
}

impl Doubles {
    pub fn crew(self) -> bool {
        matches!(self, Doubles::Crew | Doubles::Both)
    }
    pub fn platform(self) -> bool {
        matches!(self, Doubles::Platform | Doubles::Both)
    }
}

/// The readings in force (the reference's `[configurable]` points, and the project's
/// decisions where the rules are silent: `docs/battlesystem.md`).
#[derive(Clone, Copy, Debug)]
pub struct BsRules {
    /// A d10 equal to the AR cancels too.
    pub armour_or_equal: bool,
    /// One platform die per crew die (else one per platform, shared).
    pub platform_per_die: bool,
    /// What the charge doubles.
    pub doubles: Doubles,
    /// The platform also attacks on its own: its own die per platform, besides the roll
    /// added to its crew's dice.
    pub platform_attacks_alone: bool,
    /// Hits on the platform unit fall on its crew first (fighters and archers in the order
    /// listed, the riders last), each group with its own AR and Hits, then on the
    /// platforms.
    pub crew_first: bool,
    /// The charging unit attacks with its whole front rank, in contact or not.
    pub whole_front_rank: bool,
    /// A platform with only its driver aboard may not charge (else it attacks with the
    /// platform's own die, doubled by the charge unless the charge doubles nothing).
    pub driver_only_refused: bool,
    /// The hits table every attack roll is read on.
    pub table: Table,
    /// A failed morale check routs when failed by this much or more (else falls back).
    pub rout_margin: u32,
}

impl BsRules {
    /// Whether the rules refuse this charge (and why): doubling the platform's own dice
    /// when it has none, or a driver alone charging where that is refused.
    pub fn refuses(&self, c: &BsCharge) -> Option<&'static str> {
        if self.doubles == Doubles::Platform && !self.platform_attacks_alone {
            return Some("charge_doubles = platform without platform_attacks_alone");
        }
        if self.driver_only_refused && !c.crew.iter().any(|cr| cr.fights && cr.count > 0) {
            return Some("only the driver aboard");
        }
        None
    }
}

/// A charge: a unit of platforms with crew into a unit of plain figures.
#[derive(Clone, Debug)]
pub struct BsCharge {
    pub platforms: u32,
    pub platform_die: u32,
    pub platform_ar: u32,
    pub platform_hits: u32,
    pub crew: Vec<Crew>,
    pub target_figures: u32,
    pub target_die: u32,
    pub target_ar: u32,
    pub target_hits: u32,
    pub target_ml: u32,
    pub volleys: u32,
    pub gap: f64,
    /// The charger's platforms in contact (its whole front rank, the platforms abreast,
    /// attack under `whole_front_rank`), and the target's figures along the contact.
    pub platforms_in_contact: u32,
    pub target_in_contact: u32,
    pub rules: BsRules,
}

/// What a charge came to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct BsResult {
    pub volley_hits: u32,
    pub volley_kills: u32,
    pub hits_on_target: u32,
    pub target_figures_lost: u32,
    pub hits_on_charger: u32,
    pub platform_figures_lost: u32,
    pub crew_lost: u32,
    /// 0 held, 1 fell back, 2 routed, 3 destroyed.
    pub target_morale: u32,
    pub charger_destroyed: bool,
}

type Pmf = BTreeMap<u32, f64>;

fn add(pmf: &mut Pmf, k: u32, p: f64) {
    *pmf.entry(k).or_default() += p;
}

/// A hits table of even steps: a roll below `from` scores no hit, `from` scores one, and
/// every `step` above it one more. The reference's default is from 5, step 4 (1-4 none,
/// 5-8 one, 9-12 two, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    pub from: u32,
    pub step: u32,
}

impl Table {
    /// The reference's default table.
    pub const DEFAULT: Table = Table { from: 5, step: 4 };

    /// The hits one roll scores.
    fn hits(self, roll: u32) -> u32 {
        if roll < self.from { 0 } else { (roll - self.from) / self.step + 1 }
    }

    /// The table as the scenario format writes it: `[lowest roll, hits]` bands up to a roll
    /// of 64, beyond anything the cases roll.
    pub fn bands(self) -> Vec<[u32; 2]> {
        (0..).map(|h| [self.from + h * self.step, h + 1]).take_while(|b| b[0] <= 64).collect()
    }
}

/// The sum of two independent counts.
fn sum(a: &Pmf, b: &Pmf) -> Pmf {
    let mut out = Pmf::new();
    for (&x, &p) in a {
        for (&y, &q) in b {
            add(&mut out, x + y, p * q);
        }
    }
    out
}

fn nothing() -> Pmf {
    Pmf::from([(0, 1.0)])
}

/// Hits of `n` dice of `sides`, each with `plus` added, read on `table`.
fn dice_hits(table: Table, n: u32, sides: u32, plus: u32) -> Pmf {
    let mut out = nothing();
    for _ in 0..n {
        let mut one = Pmf::new();
        for face in 1..=sides {
            add(&mut one, table.hits(face + plus), 1.0 / f64::from(sides));
        }
        out = sum(&out, &one);
    }
    out
}

/// Dice for `figures` at a multiplier in hundredths, a fraction rounded up.
fn dice(figures: u32, hundredths: u32) -> u32 {
    (figures * hundredths).div_ceil(100)
}

/// A unit's state as hits land: figures left and hits carried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Standing {
    figures: u32,
    carried: u32,
}

/// `raw` hits on a unit: each rolls its d10 against `ar`; those through fill figures up.
/// Returns ((through, figures removed, state after), p).
fn take(raw: &Pmf, start: Standing, ar: u32, hits: u32, or_equal: bool) -> BTreeMap<(u32, u32, Standing), f64> {
    let cancel = (1..=10u32).filter(|&d| if or_equal { d >= ar } else { d > ar }).count() as f64 / 10.0;
    let mut out = BTreeMap::new();
    for (&n, &p) in raw {
        // Each of the n hits: through or cancelled.
        let mut through: Pmf = nothing();
        for _ in 0..n {
            let mut next = Pmf::new();
            for (&k, &q) in &through {
                add(&mut next, k + 1, q * (1.0 - cancel));
                add(&mut next, k, q * cancel);
            }
            through = next;
        }
        for (k, q) in through {
            let mut s = start;
            let mut removed = 0;
            for _ in 0..k {
                if s.figures == 0 {
                    break;
                }
                s.carried += 1;
                if s.carried >= hits {
                    s.carried = 0;
                    s.figures -= 1;
                    removed += 1;
                }
            }
            *out.entry((k, removed, s)).or_default() += p * q;
        }
    }
    out
}

/// The raw melee hits of the charger's attacking platforms: each adds its roll to its
/// fighting crew's dice (doubled when the charge doubles the crew); one with only its driver
/// aboard rolls its own die instead (doubled unless the charge doubles nothing), unless it
/// attacks on its own anyway (`platform_attacks_alone`): then every platform also rolls its
/// own die, doubled when the charge doubles the platform's dice.
fn charger_melee(c: &BsCharge) -> Pmf {
    let crew_times = if c.rules.doubles.crew() { 2 } else { 1 };
    let sides: Vec<u32> = c
        .crew
        .iter()
        .filter(|cr| cr.fights)
        .flat_map(|cr| std::iter::repeat_n(cr.die, (cr.count * crew_times) as usize))
        .collect();
    let mut one_platform = nothing();
    if sides.is_empty() {
        if !c.rules.platform_attacks_alone {
            let n = if c.rules.doubles == Doubles::Nothing { 1 } else { 2 };
            one_platform = dice_hits(c.rules.table, n, c.platform_die, 0);
        }
    } else if c.rules.platform_per_die {
        let mut out = nothing();
        for &s in &sides {
            let mut die = Pmf::new();
            for r in 1..=c.platform_die {
                for (h, p) in dice_hits(c.rules.table, 1, s, r) {
                    add(&mut die, h, p / f64::from(c.platform_die));
                }
            }
            out = sum(&out, &die);
        }
        one_platform = out;
    } else {
        one_platform = Pmf::new();
        for r in 1..=c.platform_die {
            let mut out = nothing();
            for &s in &sides {
                out = sum(&out, &dice_hits(c.rules.table, 1, s, r));
            }
            for (h, p) in out {
                add(&mut one_platform, h, p / f64::from(c.platform_die));
            }
        }
    }
    if c.rules.platform_attacks_alone {
        let own = if c.rules.doubles.platform() { 2 } else { 1 };
        one_platform = sum(&one_platform, &dice_hits(c.rules.table, own, c.platform_die, 0));
    }
    let attacking = if c.rules.whole_front_rank { c.platforms } else { c.platforms_in_contact };
    let mut all = nothing();
    for _ in 0..attacking {
        all = sum(&all, &one_platform);
    }
    all
}

/// The charger's losses to `raw` hits: ((through, platforms removed, crew removed,
/// platforms left), p). Platform first: each hit rolls against the platform's AR and the
/// crew fall with their platform. Crew first: each hit falls on the first crew group still
/// aboard (fighters and archers as listed, riders last; every platform's crew of a group
/// together), rolling against that group's AR and filling its Hits, then on the platforms.
fn charger_takes(c: &BsCharge, raw: &Pmf) -> BTreeMap<(u32, u32, u32, u32), f64> {
    let or_equal = c.rules.armour_or_equal;
    let crew_per_platform: u32 = 1 + c.crew.iter().map(|cr| cr.count).sum::<u32>();
    let mut out = BTreeMap::new();
    if !c.rules.crew_first {
        let fresh = Standing { figures: c.platforms, carried: 0 };
        for ((through, removed, after), p) in take(raw, fresh, c.platform_ar, c.platform_hits, or_equal) {
            *out.entry((through, removed, removed * crew_per_platform, after.figures)).or_default() += p;
        }
        return out;
    }
    // (AR, Hits, figures) of each group in the order hits fall on them; the driver (one per
    // platform, AR and Hits of `DRIVER`) last of the crew, then the platforms.
    let mut order: Vec<(u32, u32, u32)> =
        c.crew.iter().filter(|cr| cr.count > 0).map(|cr| (cr.ar, cr.hits, cr.count * c.platforms)).collect();
    order.push((DRIVER.0, DRIVER.1, c.platforms));
    let crew_groups = order.len();
    order.push((c.platform_ar, c.platform_hits, c.platforms));
    let cancels = |ar: u32| (1..=10u32).filter(|&d| if or_equal { d >= ar } else { d > ar }).count() as f64 / 10.0;
    for (&n, &p) in raw {
        // State: (group hit next, figures left in it, hits carried, through, crew lost).
        let mut states: BTreeMap<(usize, u32, u32, u32, u32), f64> = BTreeMap::from([((0, order[0].2, 0, 0, 0), p)]);
        for _ in 0..n {
            let mut next = BTreeMap::new();
            for (&(g, left, carried, through, lost), &q) in &states {
                if g >= order.len() {
                    // Nothing is left to remove, but a hit still rolls against the platforms'
                    // armour and counts as through ("melee hits that got through armour",
                    // as `take` counts them when the platforms take the hits first).
                    let cancel = cancels(c.platform_ar);
                    *next.entry((g, left, carried, through, lost)).or_default() += q * cancel;
                    *next.entry((g, left, carried, through + 1, lost)).or_default() += q * (1.0 - cancel);
                    continue;
                }
                let (ar, hits, _) = order[g];
                let cancel = cancels(ar);
                *next.entry((g, left, carried, through, lost)).or_default() += q * cancel;
                let (mut g2, mut left2, mut carried2, mut lost2) = (g, left, carried + 1, lost);
                if carried2 >= hits {
                    carried2 = 0;
                    left2 -= 1;
                    if g < crew_groups {
                        lost2 += 1;
                    }
                    if left2 == 0 {
                        g2 = g + 1;
                        left2 = order.get(g2).map_or(0, |o| o.2);
                    }
                }
                *next.entry((g2, left2, carried2, through + 1, lost2)).or_default() += q * (1.0 - cancel);
            }
            states = next;
        }
        for ((g, left, _, through, lost), q) in states {
            let platforms_left = if g < crew_groups {
                c.platforms
            } else if g == crew_groups {
                left
            } else {
                0
            };
            *out.entry((through, c.platforms - platforms_left, lost, platforms_left)).or_default() += q;
        }
    }
    out
}

/// The driver's AR and Hits in the cases the tests write (`ar = 5`, `hits = 1`).
pub const DRIVER: (u32, u32) = (5, 1);

/// The morale check (2d10 against ML): 0 held, 1 fell back (failed by less than
/// `rout_margin`), 2 routed (failed by `rout_margin` or more).
fn morale(ml: u32, rout_margin: u32) -> [f64; 3] {
    let mut out = [0.0; 3];
    for a in 1..=10 {
        for b in 1..=10 {
            let total = a + b;
            let k = if total <= ml {
                0
            } else if total - ml < rout_margin {
                1
            } else {
                2
            };
            out[k] += 0.01;
        }
    }
    out
}

/// Every outcome of the charge with its probability.
pub fn charge(c: &BsCharge) -> BTreeMap<BsResult, f64> {
    let or_equal = c.rules.armour_or_equal;
    // The volleys.
    let mut stage: BTreeMap<(Standing, u32, u32), f64> =
        BTreeMap::from([((Standing { figures: c.target_figures, carried: 0 }, 0, 0), 1.0)]);
    for v in 0..c.volleys {
        let range = if v == 0 { c.gap } else { c.gap / 2.0 };
        let mut raw = nothing();
        for cr in c.crew.iter().filter(|cr| !cr.bands.is_empty()) {
            if let Some(&(_, _, h)) = cr.bands.iter().find(|b| range >= b.0 && range < b.1) {
                raw = sum(&raw, &dice_hits(c.rules.table, dice(cr.count * c.platforms, h), cr.die, 0));
            }
        }
        let mut next = BTreeMap::new();
        for ((s, hits, kills), p) in stage {
            // A unit with no figure left is no longer shot at.
            if s.figures == 0 {
                *next.entry((s, hits, kills)).or_default() += p;
                continue;
            }
            for ((through, removed, after), q) in take(&raw, s, c.target_ar, c.target_hits, or_equal) {
                *next.entry((after, hits + through, kills + removed)).or_default() += p * q;
            }
        }
        stage = next;
    }
    let on_target = charger_melee(c);
    let odds = morale(c.target_ml, c.rules.rout_margin);
    let mut out = BTreeMap::new();
    for ((s, volley_hits, volley_kills), p) in stage {
        let mut r = BsResult { volley_hits, volley_kills, ..BsResult::default() };
        if s.figures == 0 {
            r.target_figures_lost = volley_kills;
            r.target_morale = 3;
            *out.entry(r).or_default() += p;
            continue;
        }
        // Simultaneous: the target strikes back with every figure in contact it still has.
        let back = dice_hits(c.rules.table, c.target_in_contact.min(s.figures), c.target_die, 0);
        let to_target = take(&on_target, s, c.target_ar, c.target_hits, or_equal);
        let to_charger = charger_takes(c, &back);
        for (&(ht, ft, after_t), pt) in &to_target {
            for (&(hc, fc, crew, platforms_left), pc) in &to_charger {
                let mut r = BsResult {
                    hits_on_target: ht,
                    target_figures_lost: volley_kills + ft,
                    hits_on_charger: hc,
                    platform_figures_lost: fc,
                    crew_lost: crew,
                    charger_destroyed: platforms_left == 0,
                    ..r
                };
                if after_t.figures == 0 {
                    r.target_morale = 3;
                    *out.entry(r).or_default() += p * pt * pc;
                } else {
                    for (k, pm) in odds.iter().enumerate() {
                        if *pm > 0.0 {
                            *out.entry(BsResult { target_morale: k as u32, ..r }).or_default() += p * pt * pc * pm;
                        }
                    }
                }
            }
        }
    }
    out
}

/// One side of a rout's trampling melee: its figures in contact and their profile.
#[derive(Clone, Copy, Debug)]
pub struct Side {
    pub in_contact: u32,
    pub figures: u32,
    pub die: u32,
    pub ar: u32,
    pub hits: u32,
}

/// What one melee did: hits through armour on and figures lost by the struck unit, then
/// by the beasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Exchange {
    pub hits_on_struck: u32,
    pub struck_lost: u32,
    pub hits_on_beasts: u32,
    pub beasts_lost: u32,
}

/// A routing beast unit (no crew aboard) meets a unit, both fresh: each beast in contact
/// rolls its own die (a rout is not a charge: not doubled), each figure of the struck unit
/// in contact one die; both take their hits at once.
pub fn rout_melee(beasts: Side, struck: Side, armour_or_equal: bool) -> BTreeMap<Exchange, f64> {
    let on_struck = dice_hits(Table::DEFAULT, beasts.in_contact, beasts.die, 0);
    let on_beasts = dice_hits(Table::DEFAULT, struck.in_contact, struck.die, 0);
    let fresh = |s: Side| Standing { figures: s.figures, carried: 0 };
    let a = take(&on_struck, fresh(struck), struck.ar, struck.hits, armour_or_equal);
    let b = take(&on_beasts, fresh(beasts), beasts.ar, beasts.hits, armour_or_equal);
    let mut out = BTreeMap::new();
    for (&(hs, ls, _), p) in &a {
        for (&(hb, lb, _), q) in &b {
            let e = Exchange { hits_on_struck: hs, struck_lost: ls, hits_on_beasts: hb, beasts_lost: lb };
            *out.entry(e).or_default() += p * q;
        }
    }
    out
}

/// The chances of held, fell back and routed for a morale rating (the default margin).
pub fn morale_odds(ml: u32) -> [f64; 3] {
    morale(ml, 5)
}
