//! A turn's metrics: what broke, the turn's totals, then each chariot's own, and where each
//! is in the plan's metric set.

use crate::engine::MetricSet;
use crate::mesbg::plan::Plan;
use crate::mesbg::scenario::Scenario;

/// Where each of a turn's metrics is in its [`MetricSet`].
#[derive(Clone, Debug, Default)]
pub struct TurnMetrics {
    /// `line_breached`.
    pub line_breached: usize,
    /// `line_halved`.
    pub line_halved: usize,
    /// Per line, when the board has several: `lineN.breached` and `lineN.halved`.
    pub lines: Vec<(usize, usize)>,
    /// `army_broken`, when the army is given.
    pub army_broken: Option<usize>,
    /// `breakthrough_any`.
    pub breakthrough_any: usize,
    /// `kills`.
    pub kills: usize,
    /// `impact_kills`.
    pub impact_kills: usize,
    /// `fight_kills`.
    pub fight_kills: usize,
    /// `fights`.
    pub fights: usize,
    /// `chariots_slain`.
    pub chariots_slain: usize,
    /// `foe_heroes_slain`, when an enemy Hero stands on the board.
    pub foe_heroes_slain: Option<usize>,
    /// `points_slain`, when the models are worth different points (else it is `kills`
    /// times their one value) and all of them together fit a metric's count.
    pub points_slain: Option<usize>,
    /// Per listed chariot, its metrics.
    pub chariot: Vec<ChariotMetrics>,
}

/// Where one chariot's metrics are.
#[derive(Clone, Debug, Default)]
pub struct ChariotMetrics {
    /// `chariotN.impact_kills`.
    pub impact_kills: usize,
    /// `chariotN.fight_fought`.
    pub fight_fought: usize,
    /// `chariotN.fight_won`.
    pub fight_won: usize,
    /// `chariotN.fight_kills`.
    pub fight_kills: usize,
    /// `chariotN.wounds_lost`.
    pub wounds_lost: usize,
    /// `chariotN.slain`.
    pub slain: usize,
    /// `chariotN.breakthrough`.
    pub breakthrough: usize,
    /// `chariotN.blocked`: its drive ended short of a friendly chariot.
    pub blocked: usize,
    /// `chariotN.might_spent` and `chariotN.fate_spent`, when a Hero rides it.
    pub hero: Option<(usize, usize)>,
}

/// The metrics of a turn: what broke, the turn's totals, then each chariot's own.
pub fn turn_metrics(scenario: &Scenario, plans: &[Plan], lines: &[Vec<usize>]) -> (MetricSet, TurnMetrics) {
    let mut set = MetricSet::default();
    let mut at = TurnMetrics {
        line_breached: set.add(
            "line_breached",
            "after the turn, a corridor runs through every rank of some line (formations touching, facing one way), between two of its own standing models, free of them (as wide as turn.corridor_width says)",
            true,
        ),
        line_halved: set.add(
            "line_halved",
            "after the turn, some line (formations touching, facing one way) has lost half or more of its models",
            true,
        ),
        ..TurnMetrics::default()
    };
    if lines.len() > 1 {
        for (l, line) in lines.iter().enumerate() {
            let names: Vec<&str> = line.iter().map(|&f| scenario.formations[f].name.as_str()).collect();
            let k = l + 1;
            let what = format!("line {k} ({})", names.join(", "));
            at.lines.push((
                set.add(
                    format!("line{k}.breached"),
                    format!(
                        "after the turn, a corridor runs through every rank of {what}, between its standing models"
                    ),
                    true,
                ),
                set.add(
                    format!("line{k}.halved"),
                    format!("after the turn, {what} has lost half or more of its models"),
                    true,
                ),
            ));
        }
    }
    if scenario.army.is_some() {
        at.army_broken = Some(set.add(
            "army_broken",
            "the army charged has lost enough models to be Broken at the end of the turn (Break Point)",
            true,
        ));
    }
    at.breakthrough_any = set.add("breakthrough_any", "some chariot drove through every formation on its path", true);
    at.kills = set.add("kills", "models slain in the turn (Impact Hits and fights)", false);
    at.impact_kills = set.add("impact_kills", "models slain by Impact Hits in the Move phase", false);
    at.fight_kills = set.add("fight_kills", "models slain in the Fight phase", false);
    at.fights = set.add("fights", "fights fought in the Fight phase", false);
    at.chariots_slain = set.add("chariots_slain", "chariots slain in the turn", false);
    let heroes = plans[0].models.iter().any(|m| m.hero.is_some());
    if heroes {
        at.foe_heroes_slain = Some(set.add("foe_heroes_slain", "enemy Heroes slain in the turn", false));
    }
    let mut points: Vec<u32> = plans[0].models.iter().map(|m| m.points).collect();
    let total: u64 = points.iter().map(|&p| u64::from(p)).sum();
    points.sort_unstable();
    points.dedup();
    if points.len() > 1 && total <= u64::from(u16::MAX) {
        at.points_slain = Some(set.add(
            "points_slain",
            "points of the models slain in the turn, each at its own profile's points",
            false,
        ));
    }
    for (i, plan) in plans.iter().enumerate() {
        let k = i + 1;
        let name = |what: &str| format!("chariot{k}.{what}");
        at.chariot.push(ChariotMetrics {
            impact_kills: set.add(name("impact_kills"), format!("models chariot {k} slew with Impact Hits"), false),
            fight_fought: set.add(name("fight_fought"), format!("chariot {k} ended its charge in a fight"), true),
            fight_won: set.add(name("fight_won"), format!("chariot {k} won its fight"), true),
            fight_kills: set.add(name("fight_kills"), format!("models chariot {k} slew in its fight"), false),
            wounds_lost: set.add(name("wounds_lost"), format!("Wounds chariot {k} lost"), false),
            slain: set.add(name("slain"), format!("chariot {k} was slain"), true),
            breakthrough: set.add(
                name("breakthrough"),
                format!("chariot {k} drove through every formation on its path"),
                true,
            ),
            blocked: set.add(name("blocked"), format!("chariot {k}'s drive ended short of a friendly chariot"), true),
            hero: plan.chariot.hero.map(|_| {
                (
                    set.add(name("might_spent"), format!("Might the Hero on chariot {k} spent"), false),
                    set.add(name("fate_spent"), format!("Fate the Hero on chariot {k} spent"), false),
                )
            }),
        });
    }
    (set, at)
}
