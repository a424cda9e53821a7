//! Dice: expressions as written in profiles (`2`, `D3`, `D3+1`, `2D6`), their exact
//! distributions, the fast roll kernel every rule draws from, and the derivation of
//! each trial's random stream.
//!
//! Reproducibility rests on [`trial_dice`]: trial `t` of a run always draws from the same
//! stream, whatever thread runs it, so results never depend on the thread count.

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use std::fmt;
use std::str::FromStr;

/// The largest number of dice an expression may roll (keeps distributions small).
pub const MAX_DICE: u8 = 12;
/// The largest constant an expression may add.
pub const MAX_MODIFIER: i16 = 24;

/// A dice expression: `count` dice of `sides` sides plus `modifier`, e.g. `D3+1`.
///
/// `sides == 0` means a plain constant (`"2"`). Only D3 and D6 exist in MESBG; D3 is
/// rolled as a halved D6, as the rules say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(into = "String")]
pub struct DiceExpr {
    /// Number of dice rolled (0 for a constant).
    pub count: u8,
    /// Sides of each die: 0 (constant), 3 or 6.
    pub sides: u8,
    /// Constant added to the dice total.
    pub modifier: i16,
}

/// Why a dice expression was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{text}` is not a dice expression: {reason}; write a constant like \"2\", or dice like \"D3\", \"D3+1\", \"2D6\""
)]
pub struct DiceExprError {
    /// The text as the user wrote it.
    pub text: String,
    /// What exactly is wrong.
    pub reason: String,
}

impl DiceExpr {
    /// A constant expression.
    pub const fn constant(value: i16) -> Self {
        Self { count: 0, sides: 0, modifier: value }
    }

    /// The smallest value the expression can produce.
    pub fn min(&self) -> i32 {
        let per_die = if self.sides == 0 { 0 } else { 1 };
        i32::from(self.count) * per_die + i32::from(self.modifier)
    }

    /// The largest value the expression can produce.
    pub fn max(&self) -> i32 {
        i32::from(self.count) * i32::from(self.sides) + i32::from(self.modifier)
    }

    /// Exact distribution: `pmf[v]` is the probability of the value `v` (index 0 = value 0).
    pub fn pmf(&self) -> Vec<f64> {
        let mut dist = vec![1.0];
        if self.sides > 0 {
            let face = 1.0 / f64::from(self.sides);
            for _ in 0..self.count {
                let mut next = vec![0.0; dist.len() + usize::from(self.sides)];
                for (total, p) in dist.iter().enumerate() {
                    for f in 1..=usize::from(self.sides) {
                        next[total + f] += p * face;
                    }
                }
                dist = next;
            }
        }
        let shift = i32::from(self.modifier);
        let len = (self.max().max(0) + 1) as usize;
        let mut pmf = vec![0.0; len];
        for (total, p) in dist.iter().enumerate() {
            if *p > 0.0 {
                let v = (total as i32 + shift).max(0) as usize;
                pmf[v] += p;
            }
        }
        pmf
    }

    /// Rolls the expression (never below zero).
    #[inline]
    pub fn roll(&self, dice: &mut Dice) -> u32 {
        let mut total = i32::from(self.modifier);
        for _ in 0..self.count {
            total += i32::from(match self.sides {
                3 => dice.d3(),
                _ => dice.d6(),
            });
        }
        total.max(0) as u32
    }
}

impl FromStr for DiceExpr {
    type Err = DiceExprError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let fail = |reason: &str| DiceExprError { text: text.to_string(), reason: reason.to_string() };
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        if compact.is_empty() {
            return Err(fail("it is empty"));
        }
        let upper = compact.to_ascii_uppercase();
        let Some(d_at) = upper.find('D') else {
            let value: i16 = upper.parse().map_err(|_| fail("a constant must be a whole number"))?;
            if !(0..=MAX_MODIFIER).contains(&value) {
                return Err(fail(&format!("a constant must be 0 to {MAX_MODIFIER}")));
            }
            return Ok(Self::constant(value));
        };
        let count_text = &upper[..d_at];
        let rest = &upper[d_at + 1..];
        let count: u8 = if count_text.is_empty() {
            1
        } else {
            count_text.parse().map_err(|_| fail("the number of dice before `D` must be a whole number"))?
        };
        if count == 0 || count > MAX_DICE {
            return Err(fail(&format!("the number of dice must be 1 to {MAX_DICE}")));
        }
        let (sides_text, modifier) = match rest.find(['+', '-']) {
            Some(at) => {
                let sign: i16 = if rest.as_bytes()[at] == b'-' { -1 } else { 1 };
                let m: i16 =
                    rest[at + 1..].parse().map_err(|_| fail("the modifier after `+` or `-` must be a whole number"))?;
                if m > MAX_MODIFIER {
                    return Err(fail(&format!("the modifier must be at most {MAX_MODIFIER}")));
                }
                (&rest[..at], sign * m)
            }
            None => (rest, 0),
        };
        let sides: u8 = sides_text.parse().map_err(|_| fail("the die after `D` must be D3 or D6"))?;
        if sides != 3 && sides != 6 {
            return Err(fail("only D3 and D6 are used"));
        }
        let expr = Self { count, sides, modifier };
        if expr.min() < 0 {
            return Err(fail("it could roll below zero"));
        }
        Ok(expr)
    }
}

impl fmt::Display for DiceExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.sides == 0 {
            return write!(f, "{}", self.modifier);
        }
        if self.count != 1 {
            write!(f, "{}", self.count)?;
        }
        write!(f, "D{}", self.sides)?;
        match self.modifier {
            0 => Ok(()),
            m if m > 0 => write!(f, "+{m}"),
            m => write!(f, "{m}"),
        }
    }
}

impl From<DiceExpr> for String {
    fn from(expr: DiceExpr) -> Self {
        expr.to_string()
    }
}

/// How many D6 are cut from one 64-bit word. Each die is the next base-6 digit of the
/// word read as a fraction in [0, 1); the k-th digit is off uniform by at most
/// 6^k / 2^64, i.e. below 1e-13 for k <= 8.
const D6_PER_WORD: u8 = 8;

/// The random source a trial's rules draw from: a PCG generator with a buffer of D6 digits.
///
/// One 64-bit draw yields eight D6 (see [`D6_PER_WORD`]), which is why the kernel is
/// several times faster than a range sample per die.
#[derive(Clone, Debug)]
pub struct Dice {
    rng: Pcg64Mcg,
    word: u64,
    left: u8,
}

impl Dice {
    /// Wraps a generator.
    pub fn from_rng(rng: Pcg64Mcg) -> Self {
        Self { rng, word: 0, left: 0 }
    }

    /// A D6: 1 to 6.
    #[inline]
    pub fn d6(&mut self) -> u8 {
        if self.left == 0 {
            self.word = self.rng.next_u64();
            self.left = D6_PER_WORD;
        }
        let wide = u128::from(self.word) * 6;
        self.word = wide as u64;
        self.left -= 1;
        (wide >> 64) as u8 + 1
    }

    /// A D3: a D6 halved, rounding up.
    #[inline]
    pub fn d3(&mut self) -> u8 {
        self.d6().div_ceil(2)
    }

    /// The highest of `n` D6 (0 when `n` is 0).
    #[inline]
    pub fn highest_d6(&mut self, n: u32) -> u8 {
        (0..n).map(|_| self.d6()).max().unwrap_or(0)
    }

    /// A uniform 64-bit word, for sampling compiled tables (see [`CumulativeTable`]).
    #[inline]
    pub fn word(&mut self) -> u64 {
        self.rng.next_u64()
    }
}

/// Which rule phase a stream serves. Separate phases draw from separate streams so that a
/// change to one phase (say, the fight) leaves the dice of the other phases untouched:
/// paired comparisons stay paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Phase {
    /// Impact hits and everything during the Chariot Charge.
    Charge = 1,
    /// The fight after the charge.
    Fight = 2,
    /// Details that change no metric (which Impact Hits slew a model the chariot drove
    /// past), drawn only when a trial is replayed with a trace.
    Trace = 3,
    /// Dice of a replayed fight consistent with the outcome the trial drew (replays only).
    TraceFight = 4,
    /// Impact Hits on enemy Heroes the chariot drove past: the Fate they spent before they
    /// fell is counted.
    DrivenPast = 5,
}

/// SplitMix64's finaliser: a bijective mixer with full avalanche.
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The key of a run's random streams: `(seed, stream_key)` mixed once, so that deriving a
/// trial's streams costs only the per-trial part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunKey {
    mixed: u64,
}

impl RunKey {
    /// Mixes a seed and a stream key (normally the scenario hash).
    pub const fn new(seed: u64, stream_key: u64) -> Self {
        Self { mixed: mix64(mix64(seed ^ 0x6a09_e667_f3bc_c909) ^ stream_key) }
    }

    /// The per-trial key from which each phase's stream is derived.
    #[inline]
    pub const fn trial(&self, trial: u64) -> TrialKey {
        TrialKey { mixed: mix64(self.mixed ^ trial.wrapping_mul(0x9e37_79b9_7f4a_7c15)) }
    }
}

/// One trial's key: each rule phase draws from its own stream derived from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrialKey {
    mixed: u64,
}

impl TrialKey {
    /// The dice of one phase of this trial.
    #[inline]
    pub fn dice(&self, phase: Phase) -> Dice {
        // Two independent mixes (not chained), so their latencies overlap.
        let hi = mix64(self.mixed ^ phase as u64);
        let lo = mix64(self.mixed ^ (phase as u64).wrapping_mul(0xbb67_ae85_84ca_a73b));
        Dice::from_rng(Pcg64Mcg::new((u128::from(hi) << 64) | u128::from(lo)))
    }
}

/// The dice for one phase of trial `trial`, keyed by `(seed, stream_key, trial, phase)` and
/// nothing else (never the thread or the clock). `stream_key` is normally the scenario
/// hash. Same streams as [`RunKey`] and [`TrialKey`], which cache the shared mixing.
#[inline]
pub fn trial_dice(seed: u64, stream_key: u64, trial: u64, phase: Phase) -> Dice {
    RunKey::new(seed, stream_key).trial(trial).dice(phase)
}

/// An event of fixed probability, compiled for one comparison against a 64-bit word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chance {
    threshold: u64,
    certain: bool,
}

impl Chance {
    /// An event of probability `p` (clamped to [0, 1]).
    pub fn new(p: f64) -> Self {
        let p = if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) };
        let scale = 18_446_744_073_709_551_616.0_f64; // 2^64
        Self { threshold: (p * scale).min(u64::MAX as f64) as u64, certain: p >= 1.0 }
    }

    /// The probability, as compiled.
    pub fn probability(&self) -> f64 {
        if self.certain { 1.0 } else { self.threshold as f64 / 18_446_744_073_709_551_616.0 }
    }

    /// Whether the event happens this time.
    #[inline]
    pub fn happens(&self, dice: &mut Dice) -> bool {
        dice.word() < self.threshold || self.certain
    }
}

/// A discrete distribution over `0..len` compiled for sampling with one 64-bit word:
/// `thresholds[i]` is P(value <= i) scaled to 2^64 (the last value takes the rest).
#[derive(Clone, Debug, PartialEq)]
pub struct CumulativeTable {
    thresholds: Vec<u64>,
}

impl CumulativeTable {
    /// Compiles a probability mass function (it must sum to 1 within rounding).
    pub fn new(pmf: &[f64]) -> Self {
        let scale = 18_446_744_073_709_551_616.0_f64; // 2^64
        let mut acc = 0.0;
        let mut thresholds = Vec::with_capacity(pmf.len().saturating_sub(1));
        let mut last = 0u64;
        for p in pmf.iter().take(pmf.len().saturating_sub(1)) {
            acc += p;
            // Never below the last (a probability rounded to -0.0 must not reorder them):
            // `sampled_index` relies on it.
            last = last.max((acc * scale).min(u64::MAX as f64) as u64);
            thresholds.push(last);
        }
        Self { thresholds }
    }

    /// Draws a value.
    #[inline]
    pub fn sample(&self, dice: &mut Dice) -> usize {
        sampled_index(&self.thresholds, dice.word())
    }

    /// The thresholds (P(value <= i) scaled to 2^64), for samplers that keep their own copy.
    pub fn thresholds(&self) -> &[u64] {
        &self.thresholds
    }
}

/// The value a uniform word `u` draws from nondecreasing cumulative `thresholds`: the
/// first `i` with `u < thresholds[i]`, or `thresholds.len()`.
///
/// Counted rather than searched: the count has no branch to mispredict, and a charge's
/// tables are short (a handful of outcomes), so counting them all is cheaper than one
/// mispredicted early exit.
#[inline]
pub fn sampled_index(thresholds: &[u64], u: u64) -> usize {
    thresholds.iter().map(|&t| usize::from(t <= u)).sum()
}

/// Binomial(n, p) probabilities for 0..=n successes.
pub fn binomial_pmf(n: usize, p: f64) -> Vec<f64> {
    let mut pmf = vec![0.0; n + 1];
    pmf[0] = 1.0;
    for trials in 1..=n {
        for k in (0..=trials).rev() {
            let stay = pmf[k] * (1.0 - p);
            let step = if k > 0 { pmf[k - 1] * p } else { 0.0 };
            pmf[k] = stay + step;
        }
    }
    pmf
}

/// Every sequence of D6 faces that `settle` reads, with the result it settles to and its
/// probability (6^-length). `settle` must read its dice one at a time and decide from the
/// faces read so far whether to read another (every rule here does), so the sequences it
/// reads are exactly the ones enumerated.
pub fn enumerate_d6<R>(mut settle: impl FnMut(&mut dyn FnMut() -> u8) -> R) -> Vec<(R, f64)> {
    let mut out = Vec::new();
    let mut pending: Vec<Vec<u8>> = vec![Vec::new()];
    while let Some(prefix) = pending.pop() {
        let mut read = 0;
        let mut wanted_more = false;
        let result = settle(&mut || {
            let face = prefix.get(read).copied().unwrap_or_else(|| {
                wanted_more = true;
                1
            });
            read += 1;
            face
        });
        if wanted_more {
            for face in 1..=6 {
                let mut longer = prefix.clone();
                longer.push(face);
                pending.push(longer);
            }
        } else {
            out.push((result, 6f64.powi(-(prefix.len() as i32))));
        }
    }
    out
}

/// Adds up the probabilities of equal results (sorted by result).
pub fn merge_equal<R: Ord>(pairs: Vec<(R, f64)>) -> Vec<(R, f64)> {
    let mut merged: std::collections::BTreeMap<R, f64> = std::collections::BTreeMap::new();
    for (r, p) in pairs {
        *merged.entry(r).or_default() += p;
    }
    merged.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> DiceExpr {
        s.parse().expect(s)
    }

    #[test]
    fn parses_profile_expressions() {
        assert_eq!(parse("2"), DiceExpr::constant(2));
        assert_eq!(parse("D3"), DiceExpr { count: 1, sides: 3, modifier: 0 });
        assert_eq!(parse("d3+1"), DiceExpr { count: 1, sides: 3, modifier: 1 });
        assert_eq!(parse("2D6"), DiceExpr { count: 2, sides: 6, modifier: 0 });
        assert_eq!(parse(" 2D6 - 1 "), DiceExpr { count: 2, sides: 6, modifier: -1 });
        for s in ["2", "D3", "D3+1", "2D6", "D6-1", "0"] {
            assert_eq!(parse(s).to_string(), s);
        }
    }

    #[test]
    fn refuses_nonsense_with_a_reason() {
        for (s, why) in [
            ("", "empty"),
            ("D4", "only D3 and D6"),
            ("two", "whole number"),
            ("0D6", "number of dice"),
            ("13D6", "number of dice"),
            ("D3-2", "below zero"),
            ("-1", "constant must be"),
            ("D6+x", "modifier"),
            ("99", "constant must be"),
        ] {
            let err = s.parse::<DiceExpr>().unwrap_err();
            assert!(err.to_string().contains(why), "{s}: {err}");
        }
    }

    #[test]
    fn exact_distributions() {
        let close = |a: &[f64], b: &[f64]| {
            assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
            a.iter().zip(b).for_each(|(x, y)| assert!((x - y).abs() < 1e-12, "{a:?} vs {b:?}"));
        };
        close(&parse("2").pmf(), &[0.0, 0.0, 1.0]);
        close(&parse("D3+1").pmf(), &[0.0, 0.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0]);
        let two_d6 = parse("2D6").pmf();
        assert_eq!(two_d6.len(), 13);
        assert!((two_d6[7] - 6.0 / 36.0).abs() < 1e-12);
        assert!((two_d6.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert_eq!(parse("2D6").min(), 2);
        assert_eq!(parse("2D6").max(), 12);
    }

    #[test]
    fn streams_are_pinned() {
        // Value stability: these first rolls are part of the reproducibility promise.
        // If this test fails, every published seed gives different answers.
        let mut dice = trial_dice(7, 0xfeed, 0, Phase::Charge);
        let first: Vec<u8> = (0..12).map(|_| dice.d6()).collect();
        let mut again = trial_dice(7, 0xfeed, 0, Phase::Charge);
        let second: Vec<u8> = (0..12).map(|_| again.d6()).collect();
        assert_eq!(first, second);
        assert_eq!(first, PINNED_ROLLS, "pinned first rolls changed");
        let mut other = trial_dice(7, 0xfeed, 1, Phase::Charge);
        let third: Vec<u8> = (0..12).map(|_| other.d6()).collect();
        assert_ne!(first, third);
        let mut fight = trial_dice(7, 0xfeed, 0, Phase::Fight);
        let fourth: Vec<u8> = (0..12).map(|_| fight.d6()).collect();
        assert_ne!(first, fourth);
    }

    const PINNED_ROLLS: [u8; 12] = [1, 1, 1, 6, 3, 1, 3, 2, 5, 2, 6, 3];

    #[test]
    fn phases_and_neighbouring_trials_are_independent() {
        // Chi-square on 6x6 tables of first rolls: 35 degrees of freedom, 99.99% point 74.
        let key = RunKey::new(7, 0x4ae0_5fd9_b420_3f7f);
        let n = 720_000u64;
        let (mut phases, mut neighbours, mut words) = ([[0u64; 6]; 6], [[0u64; 6]; 6], [[0u64; 6]; 6]);
        for t in 0..n {
            let k = key.trial(t);
            let mut charge = k.dice(Phase::Charge);
            let mut fight = k.dice(Phase::Fight);
            let mut next = key.trial(t + 1).dice(Phase::Charge);
            let first = usize::from(charge.d6() - 1);
            phases[first][usize::from(fight.d6() - 1)] += 1;
            neighbours[first][usize::from(next.d6() - 1)] += 1;
            for _ in 0..D6_PER_WORD - 1 {
                charge.d6();
            }
            words[first][usize::from(charge.d6() - 1)] += 1;
        }
        let expected = n as f64 / 36.0;
        for (name, table) in [("phases", phases), ("neighbours", neighbours), ("words", words)] {
            let chi: f64 = table.iter().flatten().map(|&c| (c as f64 - expected).powi(2) / expected).sum();
            assert!(chi < 74.0, "{name}: chi-square {chi}");
        }
    }

    #[test]
    fn d6_and_d3_are_uniform() {
        let mut dice = trial_dice(1, 2, 3, Phase::Charge);
        let n = 600_000;
        let mut counts = [0u32; 7];
        let mut d3 = [0u32; 4];
        for _ in 0..n {
            counts[usize::from(dice.d6())] += 1;
            d3[usize::from(dice.d3())] += 1;
        }
        assert_eq!(counts[0], 0);
        // Chi-square, 5 degrees of freedom: 0.1% critical value 20.5.
        let expected = f64::from(n) / 6.0;
        let chi: f64 = counts[1..].iter().map(|&c| (f64::from(c) - expected).powi(2) / expected).sum();
        assert!(chi < 20.5, "d6 chi-square {chi}: {counts:?}");
        let expected3 = f64::from(n) / 3.0;
        let chi3: f64 = d3[1..].iter().map(|&c| (f64::from(c) - expected3).powi(2) / expected3).sum();
        assert!(chi3 < 13.8, "d3 chi-square {chi3}: {d3:?}");
    }

    #[test]
    fn chances_happen_at_their_rate() {
        let mut dice = trial_dice(4, 4, 4, Phase::Charge);
        assert!((0..1000).all(|_| Chance::new(1.0).happens(&mut dice)));
        assert!((0..1000).all(|_| !Chance::new(0.0).happens(&mut dice)));
        let n = 400_000u32;
        let hits = (0..n).filter(|_| Chance::new(0.3).happens(&mut dice)).count() as f64;
        let se = (0.3f64 * 0.7 / f64::from(n)).sqrt();
        assert!((hits / f64::from(n) - 0.3).abs() < 5.0 * se);
    }

    #[test]
    fn cumulative_table_samples_its_pmf() {
        let pmf = [0.25, 0.0, 0.5, 0.25];
        let table = CumulativeTable::new(&pmf);
        let mut dice = trial_dice(9, 9, 9, Phase::Fight);
        let n = 400_000;
        let mut counts = [0u32; 4];
        for _ in 0..n {
            counts[table.sample(&mut dice)] += 1;
        }
        assert_eq!(counts[1], 0);
        for (c, p) in counts.iter().zip(pmf) {
            let se = (p * (1.0 - p) / f64::from(n)).sqrt();
            assert!((f64::from(*c) / f64::from(n) - p).abs() <= 5.0 * se + 1e-12, "{counts:?}");
        }
        let certain = CumulativeTable::new(&[1.0]);
        assert_eq!(certain.sample(&mut dice), 0);
    }
}

/// A hasher for the memo's small integer keys (SipHash's strength against crafted keys is
/// not needed for keys the engine makes itself).
#[derive(Default)]
pub struct MixHasher(u64);

impl std::hash::Hasher for MixHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = mix64(self.0 ^ v);
    }
    fn write_u128(&mut self, v: u128) {
        self.write_u64(v as u64);
        self.write_u64((v >> 64) as u64);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(u64::from(v));
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
