//! MESBG's statistics from its tally: every metric's summary and distribution, the wound
//! split between a Hero and his chariot, the impact chain, and the comparison frame. The
//! shared statistics ([`crate::engine::statistics`]) are re-exported with MESBG's metric
//! type filled in.

use crate::engine::statistics;
use crate::mesbg::tally::{Metric, Tally};
use polars::prelude::*;
use serde::Serialize;

pub use statistics::{
    MetricName, Z95, comparison_frame, distribution_frame, exact_rows, exact_summary, histogram_distribution,
    summarize_histogram, summary_frame, wilson,
};

/// One MESBG metric's headline statistics.
pub type MetricSummary = statistics::MetricSummary<Metric>;

/// P(metric = value) and P(metric >= value) of one MESBG metric, with Wilson intervals.
pub type DistributionRow = statistics::DistributionRow<Metric>;

impl MetricName for Metric {
    fn metric_name(&self) -> &str {
        self.name()
    }
}

/// Headline statistics of one metric.
pub fn summarize_metric(tally: &Tally, metric: Metric) -> MetricSummary {
    summarize_histogram(tally.histogram(metric), tally.trials, metric.is_flag(), metric)
}

/// Headline statistics of the given metrics.
pub fn summarize(tally: &Tally, metrics: &[Metric]) -> Vec<MetricSummary> {
    metrics.iter().map(|&m| summarize_metric(tally, m)).collect()
}

/// The distribution of one metric, from 0 to its largest value seen (0 and 1 at least).
pub fn distribution_of(tally: &Tally, metric: Metric) -> Vec<DistributionRow> {
    histogram_distribution(tally.histogram(metric), tally.trials, &metric)
}

/// The distributions of the given metrics, metric by metric.
pub fn distributions(tally: &Tally, metrics: &[Metric]) -> Vec<DistributionRow> {
    metrics.iter().flat_map(|&m| distribution_of(tally, m)).collect()
}

/// One cell of the wound split: P(chariot lost `chariot_wounds_lost` and the Hero
/// `hero_wounds_lost`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SplitCell {
    /// Wounds the chariot lost.
    pub chariot_wounds_lost: u32,
    /// Wounds the Hero lost.
    pub hero_wounds_lost: u32,
    /// Trials.
    pub count: u64,
    /// Share of all trials.
    pub p: f64,
    /// Wilson 95% lower bound of `p`.
    pub p_lo: f64,
    /// Wilson 95% upper bound of `p`.
    pub p_hi: f64,
}

/// The joint distribution of chariot and Hero Wounds lost, every cell.
pub fn wound_split(tally: &Tally) -> Vec<SplitCell> {
    let n = tally.trials;
    tally
        .wound_split()
        .into_iter()
        .map(|(c, h, count)| {
            let (p_lo, p_hi) = wilson(count, n, Z95);
            SplitCell {
                chariot_wounds_lost: c as u32,
                hero_wounds_lost: h as u32,
                count,
                p: if n > 0 { count as f64 / n as f64 } else { 0.0 },
                p_lo,
                p_hi,
            }
        })
        .collect()
}

/// The wound split frame: chariot_wounds_lost, hero_wounds_lost, count, p, p_lo, p_hi.
pub fn wound_split_frame(rows: &[SplitCell]) -> PolarsResult<DataFrame> {
    df!(
        "chariot_wounds_lost" => rows.iter().map(|r| r.chariot_wounds_lost).collect::<Vec<_>>(),
        "hero_wounds_lost" => rows.iter().map(|r| r.hero_wounds_lost).collect::<Vec<_>>(),
        "count" => rows.iter().map(|r| r.count).collect::<Vec<_>>(),
        "p" => rows.iter().map(|r| r.p).collect::<Vec<_>>(),
        "p_lo" => rows.iter().map(|r| r.p_lo).collect::<Vec<_>>(),
        "p_hi" => rows.iter().map(|r| r.p_hi).collect::<Vec<_>>(),
    )
}

/// One step of the impact chain: a group of simultaneous contacts, how often the charge
/// got there and how often it stopped there.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChainStep {
    /// 1-based index of the contact group along the path.
    pub step: u32,
    /// Distance driven when it is touched, inches.
    pub distance: f64,
    /// Models touched at this step.
    pub models: u32,
    /// Share of trials in which the charge reached this step.
    pub p_reached: f64,
    /// Wilson 95% bounds of `p_reached`.
    pub p_reached_lo: f64,
    /// Upper bound.
    pub p_reached_hi: f64,
    /// Share of trials in which a survivor here stopped the chariot.
    pub p_stopped: f64,
    /// Wilson 95% bounds of `p_stopped`.
    pub p_stopped_lo: f64,
    /// Upper bound.
    pub p_stopped_hi: f64,
    /// The exact probability of stopping here, from the compiled chain.
    pub p_stopped_exact: f64,
}

/// The impact chain step by step, from the `contacts` histogram: the charge reached step
/// `g` when it touched more models than the steps before it hold, and stopped there when
/// it touched exactly the models up to `g` and did not slay them all. `steps` are
/// (distance, models touched) per contact group and `exact_stop` the compiled chain's
/// P(stop at group g) (one more entry: P(driving through)).
pub fn impact_chain(tally: &Tally, steps: &[(f64, usize)], exact_stop: &[f64]) -> Vec<ChainStep> {
    let n = tally.trials;
    let contacts = tally.histogram(Metric::Contacts);
    let at_least = |k: usize| contacts.iter().skip(k).sum::<u64>();
    let total: usize = steps.iter().map(|s| s.1).sum();
    // Trials that slew every model on the path drove through.
    let drove_through = tally.histogram(Metric::ImpactKills).get(total).copied().unwrap_or(0);
    let share = |c: u64| if n > 0 { c as f64 / n as f64 } else { 0.0 };
    let mut before = 0;
    steps
        .iter()
        .enumerate()
        .map(|(g, &(distance, models))| {
            let reached = at_least(before + 1);
            let through = before + models;
            let mut stopped = contacts.get(through).copied().unwrap_or(0);
            if through == total {
                stopped -= drove_through.min(stopped);
            }
            before = through;
            let (p_reached_lo, p_reached_hi) = wilson(reached, n, Z95);
            let (p_stopped_lo, p_stopped_hi) = wilson(stopped, n, Z95);
            ChainStep {
                step: g as u32 + 1,
                distance,
                models: models as u32,
                p_reached: share(reached),
                p_reached_lo,
                p_reached_hi,
                p_stopped: share(stopped),
                p_stopped_lo,
                p_stopped_hi,
                p_stopped_exact: exact_stop.get(g).copied().unwrap_or(f64::NAN),
            }
        })
        .collect()
}

/// The impact chain frame, one row per contact group.
pub fn impact_chain_frame(rows: &[ChainStep]) -> PolarsResult<DataFrame> {
    df!(
        "step" => rows.iter().map(|r| r.step).collect::<Vec<_>>(),
        "distance" => rows.iter().map(|r| r.distance).collect::<Vec<_>>(),
        "models" => rows.iter().map(|r| r.models).collect::<Vec<_>>(),
        "p_reached" => rows.iter().map(|r| r.p_reached).collect::<Vec<_>>(),
        "p_reached_lo" => rows.iter().map(|r| r.p_reached_lo).collect::<Vec<_>>(),
        "p_reached_hi" => rows.iter().map(|r| r.p_reached_hi).collect::<Vec<_>>(),
        "p_stopped" => rows.iter().map(|r| r.p_stopped).collect::<Vec<_>>(),
        "p_stopped_lo" => rows.iter().map(|r| r.p_stopped_lo).collect::<Vec<_>>(),
        "p_stopped_hi" => rows.iter().map(|r| r.p_stopped_hi).collect::<Vec<_>>(),
        "p_stopped_exact" => rows.iter().map(|r| r.p_stopped_exact).collect::<Vec<_>>(),
    )
}

/// A rate among only the trials where something happened ("won, given a fight"), so a
/// reader never guesses the denominator: how many trials that was, the estimate with its
/// 95% interval, and the exact value when the exact engine covers the scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConditionalRate {
    /// Name in files, e.g. `fight_won_given_fought`.
    pub name: String,
    /// What it means, denominator included.
    pub description: String,
    /// The metric that must be 1 for a trial to count.
    pub given: String,
    /// Trials in which it was.
    pub trials: u64,
    /// True for a chance (Wilson interval), false for a mean.
    pub flag: bool,
    /// The estimate.
    pub mean: f64,
    /// Lower end of its 95% interval.
    pub ci95_lo: f64,
    /// Upper end.
    pub ci95_hi: f64,
    /// The exact value, when known.
    pub exact: Option<f64>,
}

/// How a charge ended, one of four classes that split every trial: it broke through; a
/// survivor stopped it and a fight followed; every model it touched was slain but the
/// Move (or an obstacle) stopped it; it touched nothing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChargeEnd {
    /// Name in files (`broke_through`, `stopped_by_a_survivor`, `ran_out`, `touched_nothing`).
    pub name: &'static str,
    /// The class in words.
    pub words: &'static str,
    /// Trials that ended so.
    pub count: u64,
    /// Their share.
    pub p: f64,
    /// Wilson 95% interval of the share.
    pub ci95_lo: f64,
    /// Upper end.
    pub ci95_hi: f64,
    /// The exact chance, when known.
    pub exact: Option<f64>,
}

/// The conditional rates a player asks for: the fight won and the models slain in it,
/// among charges that ended in a fight. `exact_mean(metric)` gives a metric's exact mean
/// when the exact engine covers the scenario.
///
/// With a breakthrough possible, `steps` (each contact group's distance and models) adds
/// `breakthrough_given_first_broken`: among charges that slew every model of the first
/// contact group and drove on, the share that broke through; `exact_first_broken` is
/// P(first group broken) when the exact engine covers the scenario.
pub fn conditional_rates(
    tally: &Tally,
    exact_mean: &dyn Fn(Metric) -> Option<f64>,
    steps: &[(f64, usize)],
    exact_first_broken: Option<f64>,
) -> Vec<ConditionalRate> {
    let fought = tally.histogram(Metric::FightFought).get(1).copied().unwrap_or(0);
    let ratio = |m: Metric| match (exact_mean(m), exact_mean(Metric::FightFought)) {
        (Some(a), Some(f)) if f > 0.0 => Some(a / f),
        _ => None,
    };
    let won = tally.histogram(Metric::FightWon).get(1).copied().unwrap_or(0);
    let (lo, hi) = wilson(won, fought, Z95);
    let won_rate = ConditionalRate {
        name: "fight_won_given_fought".into(),
        description: "the chariot won the fight, among charges that ended in a fight".into(),
        given: Metric::FightFought.name().into(),
        trials: fought,
        flag: true,
        mean: if fought > 0 { won as f64 / fought as f64 } else { 0.0 },
        ci95_lo: lo,
        ci95_hi: hi,
        exact: ratio(Metric::FightWon),
    };
    // Trials without a fight slay nobody in it, so the sums over the fights are the sums
    // over every trial.
    let (sum, sum_sq) = tally
        .histogram(Metric::FightKills)
        .iter()
        .enumerate()
        .fold((0.0, 0.0), |(s, q), (v, &c)| (s + v as f64 * c as f64, q + (v * v) as f64 * c as f64));
    let n = fought as f64;
    let mean = if fought > 0 { sum / n } else { 0.0 };
    let var = if fought > 1 { ((sum_sq - n * mean * mean) / (n - 1.0)).max(0.0) } else { 0.0 };
    let se = if fought > 0 { (var / n).sqrt() } else { 0.0 };
    let (kills_lo, kills_hi) = crate::engine::statistics::count_interval(mean, se);
    let kills_rate = ConditionalRate {
        name: "fight_kills_given_fought".into(),
        description: "models slain in the fight, among charges that ended in a fight".into(),
        given: Metric::FightFought.name().into(),
        trials: fought,
        flag: false,
        mean,
        ci95_lo: kills_lo,
        ci95_hi: kills_hi,
        exact: ratio(Metric::FightKills),
    };
    let mut rates = vec![won_rate, kills_rate];
    if let Some(&(_, first)) = steps.first() {
        let broken = first_group_broken(tally, steps, first);
        let broke = tally.histogram(Metric::Breakthrough).get(1).copied().unwrap_or(0);
        let (lo, hi) = wilson(broke, broken, Z95);
        rates.push(ConditionalRate {
            name: "breakthrough_given_first_broken".into(),
            description: "the chariot broke through, among charges that slew every model of the first contact group \
                          (the rank it met first) and drove on"
                .into(),
            given: "first_group_broken".into(),
            trials: broken,
            flag: true,
            mean: if broken > 0 { broke as f64 / broken as f64 } else { 0.0 },
            ci95_lo: lo,
            ci95_hi: hi,
            exact: match (exact_mean(Metric::Breakthrough), exact_first_broken) {
                (Some(b), Some(f)) if f > 0.0 => Some(b / f),
                _ => None,
            },
        });
    }
    rates
}

/// The rates grouped by their denominator (`given`), in the order first met: each group is
/// printed with how many trials it counts.
pub fn by_denominator(rates: &[ConditionalRate]) -> Vec<(&str, Vec<&ConditionalRate>)> {
    let mut groups: Vec<(&str, Vec<&ConditionalRate>)> = Vec::new();
    for rate in rates {
        match groups.iter_mut().find(|(given, _)| *given == rate.given) {
            Some((_, members)) => members.push(rate),
            None => groups.push((&rate.given, vec![rate])),
        }
    }
    groups
}

/// Trials that slew every model of the first contact group (`first` models) and drove on:
/// those that touched a model beyond it, or, with a single group, slew it all.
fn first_group_broken(tally: &Tally, steps: &[(f64, usize)], first: usize) -> u64 {
    if steps.len() > 1 {
        tally.histogram(Metric::Contacts).iter().skip(first + 1).sum()
    } else {
        tally.histogram(Metric::ImpactKills).get(first).copied().unwrap_or(0)
    }
}

/// How the charges ended: the four classes of [`ChargeEnd`], whose counts add up to the
/// trials. `exact` gives P(breakthrough), P(fight), P(no contact) when known.
pub fn charge_ends(tally: &Tally, exact: Option<[f64; 3]>) -> Vec<ChargeEnd> {
    let n = tally.trials;
    let broke = tally.histogram(Metric::Breakthrough).get(1).copied().unwrap_or(0);
    let fought = tally.histogram(Metric::FightFought).get(1).copied().unwrap_or(0);
    let nothing = tally.histogram(Metric::Contacts).first().copied().unwrap_or(0);
    let ran_out = n.saturating_sub(broke + fought + nothing);
    let exact_ran_out = exact.map(|[b, f, z]| (1.0 - b - f - z).max(0.0));
    [
        ("broke_through", "broke through every formation on its path", broke, exact.map(|e| e[0])),
        ("stopped_by_a_survivor", "stopped by a model that survived, and fought", fought, exact.map(|e| e[1])),
        (
            "ran_out",
            "every model touched was slain, but the Move (or an obstacle) ended the charge",
            ran_out,
            exact_ran_out,
        ),
        ("touched_nothing", "touched no model", nothing, exact.map(|e| e[2])),
    ]
    .into_iter()
    .map(|(name, words, count, exact)| {
        let (ci95_lo, ci95_hi) = wilson(count, n, Z95);
        ChargeEnd { name, words, count, p: if n > 0 { count as f64 / n as f64 } else { 0.0 }, ci95_lo, ci95_hi, exact }
    })
    .collect()
}

/// How the charges ended as a player tells it: broke through, stopped and won the fight,
/// stopped and did not win it, the chariot slain, or ended otherwise (its Move ran out with
/// every model touched slain, or it touched no one). The classes split every trial.
///
/// They are counted from the metrics' own histograms: a won fight is always a fought one,
/// and where no trial met difficult terrain's wound or an obstacle the chariot can only be
/// slain in a fight it did not win, so "slain" is its own class. Where a hazard could have
/// slain it, the chariot slain is not split out (it could be in either of two classes) and
/// `slain_apart` is false. `exact_mean` gives a metric's exact mean when known.
pub fn charge_outcomes(tally: &Tally, exact_mean: &dyn Fn(Metric) -> Option<f64>) -> (Vec<ChargeEnd>, bool) {
    let ones = |m: Metric| tally.histogram(m).get(1).copied().unwrap_or(0);
    let counts = ChargeCounts {
        trials: tally.trials,
        broke: ones(Metric::Breakthrough),
        fought: ones(Metric::FightFought),
        won: ones(Metric::FightWon),
        slain: ones(Metric::ChariotSlain),
        hazards_struck: ones(Metric::TerrainWound) + ones(Metric::ObstacleStruck),
    };
    charge_classes(&counts, exact_mean)
}

/// What [`charge_classes`] counts a chariot's charges from: how many trials, and in how
/// many of them each flag was set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChargeCounts {
    /// Trials.
    pub trials: u64,
    /// The chariot broke through.
    pub broke: u64,
    /// It fought.
    pub fought: u64,
    /// It won its fight.
    pub won: u64,
    /// It was slain.
    pub slain: u64,
    /// A hazard (difficult terrain's wound, an obstacle) struck it, or could have: then the
    /// slain are not split out. Any non-zero value.
    pub hazards_struck: u64,
}

/// How one chariot's charges ended (see [`charge_outcomes`]), from its flags' counts:
/// also each chariot of a turn, whose flags are its own. The classes split every trial only
/// when no trial both broke through and fought (`broke + fought <= trials` is necessary;
/// the caller checks it).
pub fn charge_classes(c: &ChargeCounts, exact_mean: &dyn Fn(Metric) -> Option<f64>) -> (Vec<ChargeEnd>, bool) {
    let ChargeCounts { trials: n, broke, fought, won, slain, hazards_struck } = *c;
    let slain_apart = hazards_struck == 0 && fought >= won + slain;
    let exact = |m: Metric| exact_mean(m);
    let minus = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| (a - b).max(0.0));
    let (lost, exact_lost) = if slain_apart {
        (
            fought.saturating_sub(won + slain),
            minus(minus(exact(Metric::FightFought), exact(Metric::FightWon)), exact(Metric::ChariotSlain)),
        )
    } else {
        (fought.saturating_sub(won), minus(exact(Metric::FightFought), exact(Metric::FightWon)))
    };
    let otherwise = n.saturating_sub(broke + fought);
    let exact_otherwise =
        exact(Metric::Breakthrough).zip(exact(Metric::FightFought)).map(|(b, f)| (1.0 - b - f).max(0.0));
    let mut classes = vec![
        ("broke_through", "broke through", broke, exact(Metric::Breakthrough)),
        ("won_the_fight", "stopped, won the fight", won, exact(Metric::FightWon)),
        (
            "did_not_win",
            if slain_apart { "stopped, did not win, chariot stands" } else { "stopped, did not win the fight" },
            lost,
            exact_lost,
        ),
    ];
    if slain_apart {
        classes.push(("chariot_slain", "chariot slain in the fight", slain, exact(Metric::ChariotSlain)));
    }
    classes.push(("ended_otherwise", "no fight: all it touched were slain", otherwise, exact_otherwise));
    let ends = classes
        .into_iter()
        .map(|(name, words, count, exact)| {
            let (ci95_lo, ci95_hi) = wilson(count, n, Z95);
            ChargeEnd {
                name,
                words,
                count,
                p: if n > 0 { count as f64 / n as f64 } else { 0.0 },
                ci95_lo,
                ci95_hi,
                exact,
            }
        })
        .collect();
    (ends, slain_apart)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesbg::tally::Outcome;

    fn tally_of(values: &[(u16, u16)]) -> Tally {
        let mut t = Tally::new(&[1; Metric::ALL.len()]);
        for &(kills, broke) in values {
            let mut o = Outcome::default();
            o.set(Metric::ImpactKills, kills);
            o.set(Metric::Breakthrough, broke);
            t.record(&o);
        }
        t
    }

    #[test]
    fn wilson_matches_a_known_value() {
        // 81 of 263 (a textbook example): 0.2553 to 0.3662.
        let (lo, hi) = wilson(81, 263, Z95);
        assert!((lo - 0.2553).abs() < 1e-3 && (hi - 0.3662).abs() < 1e-3, "{lo} {hi}");
        let (lo, hi) = wilson(0, 100, Z95);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.03 && hi < 0.04);
    }

    #[test]
    fn summary_and_distribution() {
        let t = tally_of(&[(0, 0), (1, 0), (2, 1), (3, 1)]);
        let s = summarize_metric(&t, Metric::ImpactKills);
        assert!((s.mean - 1.5).abs() < 1e-12);
        assert!((s.sd - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
        let b = summarize_metric(&t, Metric::Breakthrough);
        assert!((b.mean - 0.5).abs() < 1e-12);
        assert_eq!((b.ci95_lo, b.ci95_hi), wilson(2, 4, Z95));
        let d = distribution_of(&t, Metric::ImpactKills);
        assert_eq!(d.len(), 4);
        assert_eq!(d[0].p_at_least, 1.0);
        assert_eq!(d[2].p_at_least, 0.5);
        assert_eq!(d[3].p, 0.25);
        let frame = distribution_frame(&distributions(&t, &Metric::CHARGE)).unwrap();
        assert_eq!(frame.width(), 9);
        assert_eq!(summary_frame(&summarize(&t, &Metric::CHARGE)).unwrap().height(), Metric::CHARGE.len());
        let split = wound_split(&t);
        assert_eq!(split.iter().map(|c| c.count).sum::<u64>(), 4);
        assert_eq!(wound_split_frame(&split).unwrap().width(), 6);
    }
}
