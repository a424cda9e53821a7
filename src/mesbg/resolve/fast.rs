//! Playing a trial of the common charge as sums (see [`crate::mesbg::plan::FastCharge`]):
//! the same words from the same streams as [`super::play`], so the same outcome.

use crate::dice::{Dice, Phase, TrialKey, sampled_index};
use crate::engine::Streams;
use crate::mesbg::plan::{FastCharge, Table};
use crate::mesbg::tally::{Metric, Packed, add_to_packed, packed_value};

/// Trials played together by [`play_fast_batch`].
pub(super) const BATCH: usize = 8;

/// Plays trial `trial` into `out` as sums, or returns false (leaving `out` unspecified)
/// when it needs the full resolver: a difficult-terrain test that rolls a 1 with a Hero
/// aboard (or a chariot of one Wound), an obstacle, a fight without a table, enemy Heroes
/// driven past, or a Hero thrown from his slain chariot.
#[inline]
pub(super) fn play_fast(fast: &FastCharge, streams: Streams, trial: u64, out: &mut Packed) -> bool {
    let key = streams.trial_key(trial);
    let mut dice = key.dice(Phase::Charge);
    let stop = sampled_index(&fast.stop, dice.word());
    finish(fast, &mut dice, stop, || key.dice(Phase::Fight).word(), out)
}

/// Plays the [`BATCH`] trials from `first` into `outs` as [`play_fast`] does, and returns
/// which of them (bit `i` for trial `first + i`) need the full resolver.
///
/// The same words from the same streams, computed stage by stage across the batch: each
/// trial's streams and first draws are a chain of multiplications that waits on itself,
/// and eight independent chains side by side keep the processor busy where one would not.
#[inline]
pub(super) fn play_fast_batch(fast: &FastCharge, streams: Streams, first: u64, outs: &mut [Packed; BATCH]) -> u32 {
    let keys: [TrialKey; BATCH] = std::array::from_fn(|i| streams.trial_key(first + i as u64));
    let mut charge: [Dice; BATCH] = std::array::from_fn(|i| keys[i].dice(Phase::Charge));
    let fight: [u64; BATCH] = std::array::from_fn(|i| keys[i].dice(Phase::Fight).word());
    let stops: [usize; BATCH] = std::array::from_fn(|i| sampled_index(&fast.stop, charge[i].word()));
    let mut handed_back = 0;
    for i in 0..BATCH {
        if !finish(fast, &mut charge[i], stops[i], || fight[i], &mut outs[i]) {
            handed_back |= 1 << i;
        }
    }
    handed_back
}

/// The rest of a trial once its stop is drawn: the stopping group's Impact Hits from the
/// charge dice, then the fight from the first word of the fight's stream.
#[inline]
fn finish(fast: &FastCharge, dice: &mut Dice, stop: usize, fight_word: impl FnOnce() -> u64, out: &mut Packed) -> bool {
    // The difficult-terrain test, drawn as the resolver draws it (the next word's first
    // D6): passed, the chariot goes on fresh; a 1 costs a Wound (counted here, its fights
    // drawn from the wounded chariot's tables) or, with a Hero aboard, Might or Fate
    // (played in full).
    let mut wounded = None;
    if stop >= fast.full_from_group && dice.d6() == 1 {
        match fast.terrain_wound {
            Some(adds) => wounded = Some(adds),
            None => return false,
        }
    }
    let Some(group) = fast.groups.get(stop) else {
        return match fast.drive_through {
            Some(through) => {
                *out = through;
                if let Some(adds) = &wounded {
                    add(out, adds);
                }
                count_army(fast, out)
            }
            None => false,
        };
    };
    let (fights, mut sum) = match &wounded {
        None => (group.fights, group.base),
        Some(adds) => {
            let mut sum = group.base;
            add(&mut sum, adds);
            (group.wounded_fights, sum)
        }
    };
    let Some(fights) = fights else {
        return false;
    };
    let mut config = 0;
    let mut stopped = false;
    for model in &fast.models[group.models.clone()] {
        let table = if stopped {
            model.any
        } else if model.passed_given_stop.happens(dice) {
            model.passed
        } else {
            model.stopped
        };
        let row = &fast.impact_rows[row_index(fast, table, dice.word())];
        add(&mut sum, &row.adds);
        config += row.config;
        stopped |= !row.passed;
    }
    let Some(Some(table)) = fast.fights.get(fights + config) else {
        return false;
    };
    let row = &fast.fight_rows[row_index(fast, *table, fight_word())];
    if row.needs_dice {
        return false;
    }
    add(&mut sum, &row.adds);
    *out = sum;
    count_army(fast, out)
}

/// The row of `table` that the uniform word `u` draws.
#[inline]
fn row_index(fast: &FastCharge, table: Table, u: u64) -> usize {
    table.rows + sampled_index(&fast.thresholds[table.thresholds..table.thresholds + table.len], u)
}

/// Adds packed values (each stays below 2^16, so no lane carries into the next).
#[inline]
fn add(sum: &mut Packed, adds: &Packed) {
    for (s, a) in sum.iter_mut().zip(adds) {
        *s += a;
    }
}

/// Writes whether the army charged is Broken, by the trial's kills (false, for the full
/// resolver, if they are beyond what the plan counted).
#[inline]
fn count_army(fast: &FastCharge, out: &mut Packed) -> bool {
    let Some(verdicts) = &fast.army_broken else {
        return true;
    };
    let Some(&broken) = verdicts.get(usize::from(packed_value(out, Metric::Kills))) else {
        return false;
    };
    add_to_packed(out, Metric::ArmyBroken, u16::from(broken));
    true
}
