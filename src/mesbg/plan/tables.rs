//! What Impact Hits and fights can do, compiled once per plan: each model's contact
//! outcomes (infantry, cavalry, enemy Heroes with Fate) split by whether the chariot drives
//! on, and each survivor configuration's exact fight, all for one-draw sampling.

use super::*;

/// What Impact Hits did to one model (and its mount, for cavalry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ContactOutcome {
    /// Impact Hits on the model (the rider, for cavalry).
    pub hits: u8,
    /// Wounds they caused, capped at its Wounds.
    pub wounds: u8,
    /// For cavalry: hits and wounds on the mount.
    pub mount: Option<(u8, u8)>,
    /// For a rider whose mount was slain: the Thrown Rider D6 (1 Knocked Flying, 2-5 Rises
    /// from the Dust, 6 Leaps into Action).
    pub thrown: Option<u8>,
    /// Wounds the model (the rider) has left.
    pub left: u8,
    /// Wounds the mount has left (0: slain, fled or none).
    pub mount_left: u8,
    /// Prone after the contact (a rider Knocked Flying).
    pub prone: bool,
    /// The model counts as a casualty (the rider slain).
    pub casualty: bool,
    /// The chariot drives on past it.
    pub passed: bool,
    /// Fate points an enemy Hero spent against the Impact Hits' Wounds.
    #[serde(skip_serializing_if = "is_zero")]
    pub fate_spent: u8,
}

pub(super) fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// Impact Hits on one model (or mount): (hits, Wounds caused).
type ImpactOn = (u8, u8);

/// The outcomes of Impact Hits on one model, split by whether the chariot drives on past
/// it, each part compiled for one-draw sampling.
#[derive(Clone, Debug)]
pub struct ImpactTables {
    /// Exact chance that the chariot drives on past the model.
    pub p_passed: f64,
    /// Every outcome.
    pub outcomes: Vec<ContactOutcome>,
    /// Their exact probabilities.
    pub probabilities: Vec<f64>,
    /// Samples an index into `outcomes` (unconditioned).
    pub table: CumulativeTable,
    /// Outcomes the chariot drives on past.
    pub passed: Vec<ContactOutcome>,
    /// Samples `passed` given that the chariot drives on.
    pub passed_table: CumulativeTable,
    /// Outcomes that stop the chariot.
    pub stopped: Vec<ContactOutcome>,
    /// Samples `stopped` given that the model stops the chariot.
    pub stopped_table: CumulativeTable,
}

impl ImpactTables {
    /// Compiles the joint distribution of (hits, wounds) for Impact Hits on one infantry model.
    pub fn new(hits: DiceExpr, strength: u8, defence: u8, wounds: u8) -> Self {
        let (pairs, probs): (Vec<(u8, u8)>, Vec<f64>) =
            mesbg::impact_outcomes(hits, strength, defence, wounds).into_iter().unzip();
        let outcomes = pairs
            .into_iter()
            .map(|(h, w)| ContactOutcome {
                hits: h,
                wounds: w,
                mount: None,
                thrown: None,
                left: wounds - w,
                mount_left: 0,
                prone: false,
                casualty: w >= wounds,
                passed: w >= wounds,
                fate_spent: 0,
            })
            .collect();
        Self::from_outcomes(outcomes, probs)
    }

    /// Compiles Impact Hits on an enemy Hero on foot: each Wound may be prevented by his
    /// Fate (retried by the ruleset), never by Might (Impact Hits are never modified by
    /// Might, and the Fate roll against them is taken plain here). Wounds beyond his
    /// Wounds plus Fate cannot change anything (each prevented Wound costs a Fate point), so
    /// the hits' Wounds are counted up to that many.
    pub fn heroic(hits: DiceExpr, strength: u8, defence: u8, wounds: u8, fate: u8, saves: Saves) -> Self {
        let saves = Saves { might_on_fate: false, might_on_terrain: false, ..saves };
        let mut merged: BTreeMap<(u8, u8, u8), f64> = BTreeMap::new();
        for ((h, raw), p) in mesbg::impact_outcomes(hits, strength, defence, wounds.saturating_add(fate)) {
            for ((left, fate_left, _), q) in wounds_on_foe_hero(saves, (wounds, fate, 0), raw) {
                *merged.entry((h, left, fate - fate_left)).or_default() += p * q;
            }
        }
        let (outcomes, probs): (Vec<ContactOutcome>, Vec<f64>) = merged
            .into_iter()
            .map(|((h, left, fate_spent), p)| {
                let outcome = ContactOutcome {
                    hits: h,
                    wounds: wounds - left,
                    mount: None,
                    thrown: None,
                    left,
                    mount_left: 0,
                    prone: false,
                    casualty: left == 0,
                    passed: left == 0,
                    fate_spent,
                };
                (outcome, p)
            })
            .unzip();
        Self::from_outcomes(outcomes, probs)
    }

    /// Compiles the outcomes of Impact Hits on a cavalry model: rider and mount each take
    /// the hits (one number rolled for the model, or one each, by `number`); a rider whose
    /// mount is slain rolls on the Thrown Rider chart (Knocked Flying: a Strength 3 hit,
    /// then Prone); a mount without Attacks whose rider is slain flees. `passed_when` says
    /// when the chariot drives on.
    pub fn cavalry(
        hits: DiceExpr,
        strength: u8,
        rider: &Profile,
        mount: &Mount,
        passed_when: CavalryPassed,
        number: CavalryImpactHits,
    ) -> Self {
        let rider_outcomes = mesbg::impact_outcomes(hits, strength, rider.defence, rider.wounds);
        let mount_outcomes = mesbg::impact_outcomes(hits, strength, mount.defence, mount.wounds);
        // (rider's (hits, Wounds), mount's (hits, Wounds), probability): with one roll for
        // the model both took the same number, P = P(n) P(rider | n) P(mount | n).
        let pmf = hits.pmf();
        let mut joint: Vec<(ImpactOn, ImpactOn, f64)> = Vec::new();
        for &(r, rp) in &rider_outcomes {
            for &(m, mp) in &mount_outcomes {
                let p = match number {
                    CavalryImpactHits::RollEach => rp * mp,
                    CavalryImpactHits::OneRoll if r.0 != m.0 => 0.0,
                    CavalryImpactHits::OneRoll => rp * mp / pmf[usize::from(r.0)],
                };
                if p > 0.0 {
                    joint.push((r, m, p));
                }
            }
        }
        let thrown_p = mesbg::to_wound(THROWN_STRENGTH, rider.defence).probability();
        let mut outcomes = Vec::new();
        let mut probs = Vec::new();
        for &((rh, rw), (mh, mw), p) in &joint {
            let rider_left = rider.wounds - rw;
            let mount_left = mount.wounds - mw;
            let base = ContactOutcome {
                hits: rh,
                wounds: rw,
                mount: Some((mh, mw)),
                thrown: None,
                left: rider_left,
                mount_left,
                prone: false,
                casualty: rider_left == 0,
                passed: false,
                fate_spent: 0,
            };
            let mut push = |mut o: ContactOutcome, p: f64| {
                if o.left == 0 && o.mount_left > 0 && mount.attacks == 0 {
                    o.mount_left = 0; // a riderless mount without Attacks flees
                }
                o.casualty = o.left == 0;
                o.passed = match passed_when {
                    CavalryPassed::RiderSlainAndMountGone => o.left == 0 && o.mount_left == 0,
                    CavalryPassed::RiderSlain => o.left == 0,
                };
                outcomes.push(o);
                probs.push(p);
            };
            if rider_left > 0 && mount_left == 0 {
                // Thrown Rider: 1 Knocked Flying (S3 hit, then Prone), 2-5 Rises from the
                // Dust, 6 Leaps into Action.
                for die in 1..=6u8 {
                    let p = p / 6.0;
                    if die == 1 {
                        let hurt = ContactOutcome { thrown: Some(1), left: rider_left - 1, prone: true, ..base };
                        push(hurt, p * thrown_p);
                        push(ContactOutcome { thrown: Some(1), prone: true, ..base }, p * (1.0 - thrown_p));
                    } else {
                        push(ContactOutcome { thrown: Some(die), ..base }, p);
                    }
                }
            } else {
                push(base, p);
            }
        }
        Self::from_outcomes(outcomes, probs)
    }

    fn from_outcomes(outcomes: Vec<ContactOutcome>, probs: Vec<f64>) -> Self {
        let split = |passed: bool| {
            let (o, p): (Vec<ContactOutcome>, Vec<f64>) =
                outcomes.iter().zip(&probs).filter(|(o, _)| o.passed == passed).map(|(o, p)| (*o, *p)).unzip();
            let total: f64 = p.iter().sum();
            let normalised: Vec<f64> = p.iter().map(|x| x / total).collect();
            (o, CumulativeTable::new(&normalised), total)
        };
        let (passed, passed_table, p_passed) = split(true);
        let (stopped, stopped_table, _) = split(false);
        Self {
            p_passed,
            table: CumulativeTable::new(&probs),
            outcomes,
            probabilities: probs,
            passed,
            passed_table,
            stopped,
            stopped_table,
        }
    }

    /// An outcome, unconditioned.
    #[inline]
    pub fn sample(&self, dice: &mut Dice) -> ContactOutcome {
        self.outcomes[self.table.sample(dice)]
    }

    /// An outcome given that the chariot drives on past the model (or is stopped by it).
    #[inline]
    pub fn sample_given(&self, passed: bool, dice: &mut Dice) -> ContactOutcome {
        if passed { self.passed[self.passed_table.sample(dice)] } else { self.stopped[self.stopped_table.sample(dice)] }
    }
}

/// The exact outcome distribution of one fight, compiled for one-draw sampling.
#[derive(Clone, Debug)]
pub struct FightTable {
    /// Possible outcomes.
    pub outcomes: Vec<FightOutcome>,
    /// Their probabilities.
    pub probabilities: Vec<f64>,
    /// Samples an index into `outcomes`.
    pub table: CumulativeTable,
    /// The outcomes with their probabilities, as the exact engine reads them.
    pub distribution: Vec<(FightOutcome, f64)>,
}

impl FightTable {
    /// Compiles an exact distribution, the likeliest outcomes first: a draw scans the
    /// cumulative table from the start, so the common outcomes are found at once.
    pub fn new(mut distribution: Vec<(FightOutcome, f64)>) -> Self {
        distribution.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let (outcomes, probabilities): (Vec<_>, Vec<_>) = distribution.iter().copied().unzip();
        let table = CumulativeTable::new(&probabilities);
        Self { outcomes, probabilities, table, distribution }
    }

    /// Draws an outcome.
    #[inline]
    pub fn sample(&self, dice: &mut Dice) -> FightOutcome {
        self.outcomes[self.table.sample(dice)]
    }
}
