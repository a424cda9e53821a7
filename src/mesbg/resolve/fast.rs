//! Playing a trial of the common charge as sums (see [`crate::mesbg::plan::FastCharge`]):
//! the same words from the same streams as [`super::play`], so the same outcome.

use crate::dice::{Phase, sampled_index};
use crate::engine::Streams;
use crate::mesbg::plan::{FastCharge, Table};
use crate::mesbg::tally::{Metric, Packed, packed_value};

/// Plays trial `trial` into `out` as sums, or returns false (leaving `out` unspecified)
/// when it needs the full resolver: a difficult-terrain test, an obstacle, a fight without
/// a table, or a Hero thrown from his slain chariot.
#[inline]
pub(super) fn play_fast(fast: &FastCharge, streams: Streams, trial: u64, out: &mut Packed) -> bool {
    let key = streams.trial_key(trial);
    let mut dice = key.dice(Phase::Charge);
    let stop = sampled_index(&fast.stop, dice.word());
    if stop >= fast.full_from_group {
        return false;
    }
    let Some(group) = fast.groups.get(stop) else {
        return match fast.drive_through {
            Some(through) => {
                *out = through;
                count_army(fast, out)
            }
            None => false,
        };
    };
    let Some(fights) = group.fights else {
        return false;
    };
    let mut sum = group.base;
    let mut config = 0;
    let mut stopped = false;
    for model in &fast.models[group.models.clone()] {
        let table = if stopped {
            model.any
        } else if model.passed_given_stop.happens(&mut dice) {
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
    let row = &fast.fight_rows[row_index(fast, *table, key.dice(Phase::Fight).word())];
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
    let m = Metric::ArmyBroken as usize;
    out[m / 4] |= u64::from(broken) << (16 * (m % 4));
    true
}
