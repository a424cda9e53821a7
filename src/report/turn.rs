//! The report of a turn of several chariots: whether the line broke (each reading its own
//! metric), the turn's totals, each chariot's own charge, the board with every path, and
//! the rule options and the players' choices in force.

use crate::engine::statistics::{self as analysis, DistributionRow, MetricSummary};
use crate::engine::{MetricSet, RuleSystem};
use crate::input::RuleOption;
use crate::mesbg::scenario::{PathChoice, Scenario, TurnOrder};
use crate::mesbg::turn::TurnPlan;
use crate::mesbg::turn::TurnTally;
use crate::report::charts as chart;
use crate::report::document::{Figure, group_digits, percent};
use crate::report::{
    Contents, ReportError, ReportFile, capitalise, push_chart, push_csv_and_parquet, write_with_markdown,
};
use serde_json::{Map, Value, json};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The version of a turn's `run.json` (and `run --json`).
pub const TURN_RUN_SCHEMA: &str = "charioteer.turn/1";

/// Everything known about a finished run of a turn.
#[derive(Clone, Debug)]
pub struct TurnRecord {
    /// The scenario.
    pub scenario: Scenario,
    /// The file as given.
    pub scenario_file: String,
    /// The order played (1-based chariot numbers).
    pub order: Vec<usize>,
    /// For `order = "best"`: each order tried (1-based) and its objective's estimate.
    pub orders_tried: Vec<(Vec<usize>, f64)>,
    /// Whether the orders tried were weighed by their exact means.
    pub orders_by_exact: bool,
    /// Boards planned (drives and final boards).
    pub boards: usize,
    /// Seed.
    pub seed: u64,
    /// Trials played.
    pub trials: u64,
    /// Worker threads.
    pub threads: usize,
    /// Wall-clock seconds of the trials.
    pub elapsed_s: f64,
    /// The command that reproduces the run.
    pub command: String,
    /// The metrics, in report order.
    pub metrics: MetricSet,
    /// Every metric's statistics.
    pub summary: Vec<MetricSummary<String>>,
    /// Every metric's distribution.
    pub distribution: Vec<DistributionRow<String>>,
    /// Every rule option and player's choice in force.
    pub ruleset: Vec<RuleOption>,
    /// How `--target-ci` chose the trial count, when it was given.
    pub precision: Option<crate::report::record::Precision>,
    /// The board picture.
    pub board: Option<crate::mesbg::board::BoardPicture>,
    /// What is allowed but probably not meant.
    pub warnings: Vec<crate::input::Problem>,
    /// Each metric's exact value beside the estimate (in the metrics' order), or why the
    /// turn has none.
    pub exact: Result<Vec<ExactBeside>, String>,
}

/// A metric's exact value beside its Monte Carlo estimate.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct ExactBeside {
    /// The exact mean.
    pub exact: f64,
    /// (estimate - exact) / (exact sd / sqrt(trials)); 0 when both are certain and equal.
    pub z: f64,
    /// Whether enough trials were played to read z ([`crate::mesbg::exact::z_readable`]).
    #[serde(skip)]
    pub readable: bool,
}

/// Until a run says otherwise: no exact values.
pub const NO_EXACT_TURN: &str = "not computed";

impl TurnRecord {
    /// Sets the exact values from the exact engine's answer for this turn.
    pub fn with_exact(&mut self, exact: Result<&crate::mesbg::turn::TurnExact, String>) {
        self.exact = exact.map(|e| {
            let trials = self.trials;
            self.summary
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let (mean, sd) = e.joint.mean_sd(i);
                    ExactBeside {
                        exact: mean,
                        z: crate::mesbg::exact::z_score(s.mean, mean, sd, trials),
                        readable: crate::mesbg::exact::z_readable(sd, trials),
                    }
                })
                .collect()
        });
    }

    /// The largest |z| of the estimates against the exact values, when there are some (of
    /// those over enough trials to read z: [`crate::mesbg::exact::z_readable`]).
    pub fn worst_z(&self) -> Option<f64> {
        self.exact.as_ref().ok().map(|v| v.iter().filter(|e| e.readable).map(|e| e.z.abs()).fold(0.0, f64::max))
    }

    /// The exact values in words for report.md's method section.
    fn exact_words(&self) -> String {
        match (&self.exact, self.worst_z()) {
            (Ok(_), Some(z)) => format!(
                "computed by the exact engine for a small turn (every branch of the Move phase and every fight, \
                 no sampling) and printed beside each estimate; the largest |z| of an estimate against its exact \
                 value is {z:.2}{}",
                if z > crate::mesbg::exact::DISAGREEMENT_Z {
                    " (more than 5: a disagreement worth reporting)"
                } else {
                    ""
                }
            ),
            (Err(reason), _) => format!("none ({reason}); the values are Monte Carlo estimates with 95% intervals"),
            _ => String::new(),
        }
    }

    /// A metric's exact mean, as printed beside the estimate ("" when there is none).
    pub fn exact_of(&self, metric: &str) -> String {
        let Ok(values) = &self.exact else { return String::new() };
        let Some(i) = self.summary.iter().position(|s| s.metric == metric) else { return String::new() };
        let flag = self.metrics.defs.get(i).is_some_and(|d| d.flag);
        let e = values[i];
        if flag { format!("{} (z {:+.2})", percent(e.exact), e.z) } else { format!("{:.3} (z {:+.2})", e.exact, e.z) }
    }
}

/// What the turn's pairing did, in a player's words: how splits are weighed, and whether
/// any board had too many contacts to weigh every split.
fn pairing_reads(plan: &TurnPlan) -> String {
    use crate::mesbg::turn::{MAX_EXHAUSTIVE_CONTACTS, SplitSearch};
    let chosen: Vec<_> = plan.finals.iter().filter_map(|b| b.split_choice).collect();
    let local = chosen.iter().filter(|c| c.search == SplitSearch::Local).count();
    let mut reads = "models in base contact are split into fights so that none has several models on both sides; where \
        there is a choice the charging player splits for the most expected models slain, each fight weighed by its own \
        outcomes (the duel with its dice, help and Heroes' Might, the Strikes with each chariot's To Wound roll, Might and \
        the models' Wounds, and against one chariot their mounts and Fate too; a chariot against more than four models by \
        a rough estimate)"
        .to_string();
    reads.push_str(&match (chosen.len(), local) {
        (0, _) => "; no board of this turn left a choice".to_string(),
        (n, 0) => format!("; {n} board{} left a choice, and every legal split was weighed", if n == 1 { "" } else { "s" }),
        (n, l) => format!(
            "; {n} board{} left a choice; on {l} a group had more than {MAX_EXHAUSTIVE_CONTACTS} contacts, and a local search (a shared model to one chariot or pooled, one or two at a time) chose the split",
            if n == 1 { "" } else { "s" }
        ),
    });
    reads
}

/// Every rule option and player's choice a turn's report prints: the `[rules]` options, the
/// order, how fights are paired and in what order they are fought, then each chariot's
/// charge distance and its Hero's policies.
pub fn turn_ruleset(scenario: &Scenario, plan: &TurnPlan) -> Vec<RuleOption> {
    let mut all = scenario.rules.options();
    let numbers = |order: &[usize]| order.iter().map(|c| (c + 1).to_string()).collect::<Vec<_>>().join(", ");
    let (value, reads) = match &scenario.turn {
        TurnOrder::Listed => ("listed".to_string(), "the chariots charge in the order listed".to_string()),
        TurnOrder::Given(order) => {
            (format!("[{}]", numbers(order)), "the chariots charge in the order given".to_string())
        }
        TurnOrder::Best(objective) => (
            format!("best ({})", objective.metric()),
            format!(
                "the whole order is fixed before the first charge: every order was weighed by {}, and the one with the highest {} was played: [{}]; choosing the next chariot after seeing the last one's result (order = \"adaptive\") is not done",
                if plan.orders_by_exact {
                    "its exact mean".to_string()
                } else {
                    format!(
                        "its mean over {} trials on the same dice for every order (common random numbers)",
                        group_digits(crate::mesbg::turn::BEST_ORDER_TRIALS)
                    )
                },
                objective.metric(),
                numbers(&plan.order)
            ),
        ),
    };
    all.push(RuleOption { name: "turn.order".into(), value, default: "listed".into(), reads: reads.into() });
    all.push(RuleOption {
        name: "turn.pairing".into(),
        value: "charging_player_most_kills".into(),
        default: "charging_player_most_kills".into(),
        reads: pairing_reads(plan).into(),
    });
    all.extend(scenario.turn_rules.options());
    for (i, entry) in scenario.entries().iter().enumerate() {
        let mut distance = entry.charge.distance_option();
        distance.name = format!("chariots[{i}].distance").into();
        all.push(distance);
        if let Some(hero) = &entry.chariot.hero {
            all.extend(hero.policies(&scenario.rules).into_iter().map(|mut o| {
                o.name = o.name.replacen("chariot.", &format!("chariots[{i}]."), 1).into();
                o
            }));
        }
    }
    for (i, f) in scenario.formations.iter().enumerate() {
        if let Some(h) = f.profile.hero {
            all.extend(h.policies(&format!("formations[{i}].profile"), &scenario.rules));
        }
        if let Some(h) = f.hero.as_ref().and_then(|h| h.profile.hero) {
            all.extend(h.policies(&format!("formations[{i}].hero.profile"), &scenario.rules));
        }
    }
    all
}

impl TurnRecord {
    /// Summarises a tally of `plan`.
    pub fn new(
        plan: &TurnPlan,
        tally: &TurnTally,
        (seed, threads, elapsed_s): (u64, usize, f64),
        command: String,
    ) -> Self {
        let defs = &plan.metrics.defs;
        let summary = defs
            .iter()
            .enumerate()
            .map(|(m, d)| analysis::summarize_histogram(plan.histogram(tally, m), tally.trials, d.flag, d.name.clone()))
            .collect();
        let distribution = defs
            .iter()
            .enumerate()
            .flat_map(|(m, d)| analysis::histogram_distribution(plan.histogram(tally, m), tally.trials, &d.name))
            .collect();
        Self {
            scenario: plan.scenario.clone(),
            scenario_file: plan.scenario.file.clone(),
            order: plan.order.iter().map(|c| c + 1).collect(),
            orders_tried: plan.orders_tried.iter().map(|(o, v)| (o.iter().map(|c| c + 1).collect(), *v)).collect(),
            orders_by_exact: plan.orders_by_exact,
            boards: plan.nodes.len() + plan.finals.len(),
            seed,
            trials: tally.trials,
            threads,
            elapsed_s,
            command,
            metrics: plan.metrics.clone(),
            summary,
            distribution,
            ruleset: turn_ruleset(&plan.scenario, plan),
            precision: None,
            board: None,
            warnings: Vec::new(),
            exact: Err(NO_EXACT_TURN.to_string()),
        }
    }

    /// Trials per second of wall-clock time.
    pub fn trials_per_second(&self) -> f64 {
        crate::report::stamp::trials_per_second(self.trials, self.elapsed_s)
    }

    /// A metric's statistics.
    pub fn summary_of(&self, metric: &str) -> Option<&MetricSummary<String>> {
        self.summary.iter().find(|s| s.metric == metric)
    }

    fn rows_of(&self, metric: &str) -> Vec<DistributionRow<String>> {
        self.distribution.iter().filter(|r| r.metric == metric).cloned().collect()
    }

    fn describe(&self, metric: &str) -> &str {
        self.metrics.defs.iter().find(|d| d.name == metric).map_or("", |d| d.description.as_str())
    }

    /// A metric's mean with its interval in words: `41.2% (40.9% to 41.5%)` for a flag,
    /// `2.31 (2.30 to 2.32)` for a count.
    pub fn stated(&self, metric: &str) -> String {
        let Some(s) = self.summary_of(metric) else { return "-".into() };
        let flag = self.metrics.defs.iter().any(|d| d.name == metric && d.flag);
        if flag {
            format!("{} ({} to {})", percent(s.mean), percent(s.ci95_lo), percent(s.ci95_hi))
        } else {
            format!("{:.3} ({:.3} to {:.3})", s.mean, s.ci95_lo, s.ci95_hi)
        }
    }

    /// The run as one JSON object (`run.json` and `run --json`).
    pub fn to_json(&self) -> Value {
        let mut metrics = Map::new();
        let mut distributions = Map::new();
        for s in &self.summary {
            metrics.insert(s.metric.clone(), serde_json::to_value(s).unwrap_or(Value::Null));
            let rows: Vec<Value> = self
                .distribution
                .iter()
                .filter(|r| r.metric == s.metric)
                .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
                .collect();
            distributions.insert(s.metric.clone(), Value::Array(rows));
        }
        let chariots: Vec<Value> = self
            .scenario
            .entries()
            .iter()
            .enumerate()
            .map(|(i, e)| {
                json!({
                    "number": i + 1,
                    "name": e.chariot.name,
                    "at": [e.chariot.start.centre.x, e.chariot.start.centre.y],
                    "facing": e.chariot.start.facing,
                    "hero": e.chariot.hero.as_ref().map(|h| h.name.clone()),
                })
            })
            .collect();
        let stamp = crate::report::stamp::RunStamp {
            schema: TURN_RUN_SCHEMA,
            system: Some("mesbg"),
            version: env!("CARGO_PKG_VERSION"),
            title: &self.scenario.title,
            question: &self.scenario.question,
            answer: None,
            scenario_file: &self.scenario_file,
            scenario_hash: format!("{:016x}", self.scenario.hash()),
            seed: self.seed,
            trials: self.trials,
            threads: self.threads,
            elapsed_s: self.elapsed_s,
            trials_per_second: self.trials_per_second(),
            ruleset: crate::report::ruleset_json(&self.ruleset),
        };
        stamp.with(json!({
            "turn": {
                "chariots": chariots,
                "order": self.order,
                "orders_tried": self.orders_tried.iter().map(|(o, v)| json!({ "order": o, "objective": v })).collect::<Vec<_>>(),
                "orders_weighed_by": if self.orders_by_exact { "exact" } else { "common_random_numbers" },
                "boards_planned": self.boards,
                "metrics": self.metrics.defs,
            },
            "command": self.command,
            "metrics": metrics,
            "distributions": distributions,
            "precision": self.precision,
            "warnings": self.warnings.iter().map(|w| json!({ "field": w.field, "message": w.message })).collect::<Vec<_>>(),
            "exact": match &self.exact {
                Ok(values) => json!({
                    "metrics": self
                        .summary
                        .iter()
                        .zip(values)
                        .map(|(s, e)| (s.metric.clone(), json!({ "exact": e.exact, "z": if e.z.is_finite() { json!(e.z) } else { Value::Null } })))
                        .collect::<Map<String, Value>>()
                }),
                Err(reason) => json!({ "unavailable": reason }),
            },
        }))
    }
}

/// Writes a turn's report folder: report.md, summary and distribution (CSV and Parquet),
/// run.json, the board with every path, and the charts that say something.
pub fn write_report(dir: &Path, record: &TurnRecord) -> Result<Vec<PathBuf>, ReportError> {
    let frame_error = |what| move |source| ReportError::Frame { what, source };
    let summary = analysis::summary_frame(&record.summary).map_err(frame_error("summary"))?;
    let distribution = analysis::distribution_frame(&record.distribution).map_err(frame_error("distribution"))?;
    let mut files = Vec::new();
    let mut figures = Vec::new();
    if let Some(board) = &record.board {
        let (rendered, _, alt) = crate::report::board_figure(board, &record.scenario.title, record.trials)?;
        push_chart(&mut files, "board", rendered);
        figures.push(Figure {
            stem: "board".into(),
            caption: format!(
                "The board to scale, in inches. Each chariot starts at an orange base numbered as listed (its place in \
                 the turn in brackets when the order differs); the pale bands are the areas their bases sweep, on the \
                 board each most often met. Each model is shaded by its chance to be slain in the turn (Impact Hits or \
                 fights); a flag marks a banner bearer, a shaft a spear or pike, a gold ring an enemy Hero; grey \
                 discs show where the chariots ended, their area in proportion to the share.{} {}; `board.csv` \
                 lists every model.",
                crate::report::corridor_words(board),
                crate::report::board_counted(board, record.trials)
            ),
            alt,
        });
        let frame = crate::report::board_frame(board).map_err(frame_error("board"))?;
        files.push(ReportFile {
            name: "board.csv".into(),
            contents: Contents::Frame(frame, "board", crate::report::FrameFormat::Csv),
        });
    }
    let mut rules = crate::report::ChartRules::default();
    if let Some((rendered, caption, alt)) = turn_endings_figure(record, &mut rules)? {
        push_chart(&mut files, "how-charges-end", rendered);
        figures.push(Figure { stem: "how-charges-end".into(), caption, alt });
    }
    // The turn's kills: how many models fall in a whole turn, the writer's headline.
    for name in ["kills", "points_slain"] {
        let rows = record.rows_of(name);
        if !rules.admits(name, &rows, "turns") {
            continue;
        }
        let frame = analysis::distribution_frame(&rows).map_err(frame_error("distribution"))?;
        let describe = record.describe(name).to_string();
        let title = capitalise(&describe);
        let mut chart = chart::distribution::DistributionChart::from_frame(&frame, &title, &describe)?;
        chart.y_label = "share of turns".to_string();
        let listed: Vec<String> = rows.iter().map(|r| format!("{} in {}", r.value, percent(r.p))).collect();
        push_chart(&mut files, &format!("distribution-{name}"), chart::render(&chart, &record.scenario.title)?);
        figures.push(Figure {
            stem: format!("distribution-{name}"),
            caption: format!("{title} (`{name}`): the share of turns giving each count, with 95% whiskers."),
            alt: format!("Bar chart of {describe}: {}.", listed.join(", ")),
        });
    }
    figures.extend(rules.note());
    push_csv_and_parquet(&mut files, "summary", &summary, "summary");
    push_csv_and_parquet(&mut files, "distribution", &distribution, "distribution");
    let json = serde_json::to_string_pretty(&record.to_json()).unwrap_or_default();
    files.push(ReportFile { name: "run.json".into(), contents: Contents::Bytes(json.into_bytes()) });
    write_with_markdown(dir, files, |names| markdown(record, &figures, names))
}

/// How each chariot's charge in the turn ended (broke through, stopped and won its fight,
/// stopped and did not win, slain, or otherwise), counted from its own flags, with the
/// exact chances when the turn has them. None when the classes cannot split every turn
/// (some chariot both broke through and fought) or nothing varies.
fn turn_endings(record: &TurnRecord) -> Vec<(usize, Vec<crate::mesbg::analysis::ChargeEnd>, bool)> {
    use crate::mesbg::tally::Metric;
    let n = record.trials;
    let hazards = u64::from(!record.scenario.terrain.is_empty());
    let mut chariots = Vec::new();
    for k in 1..=record.scenario.entries().len() {
        let name = |what: &str| format!("chariot{k}.{what}");
        let count = |what: &str| record.summary_of(&name(what)).map(|s| (s.mean * n as f64).round() as u64);
        let (Some(broke), Some(fought), Some(won), Some(slain)) =
            (count("breakthrough"), count("fight_fought"), count("fight_won"), count("slain"))
        else {
            return Vec::new();
        };
        if broke + fought > n {
            return Vec::new();
        }
        let counts =
            crate::mesbg::analysis::ChargeCounts { trials: n, broke, fought, won, slain, hazards_struck: hazards };
        let exact = |m: Metric| {
            let what = match m {
                Metric::Breakthrough => "breakthrough",
                Metric::FightFought => "fight_fought",
                Metric::FightWon => "fight_won",
                Metric::ChariotSlain => "slain",
                _ => return None,
            };
            let values = record.exact.as_ref().ok()?;
            let i = record.summary.iter().position(|s| s.metric == name(what))?;
            values.get(i).map(|e| e.exact)
        };
        let (ends, slain_apart) = crate::mesbg::analysis::charge_classes(&counts, &exact);
        chariots.push((k, ends, slain_apart));
    }
    chariots
}

/// The chart of [`turn_endings`]: one bar per chariot and way of ending that happened, the
/// rest named in the caption. None when nothing varies (every chariot's charge ended one
/// way in 99% of turns or more: the table says it).
fn turn_endings_figure(
    record: &TurnRecord,
    rules: &mut crate::report::ChartRules,
) -> Result<Option<(chart::Rendered, String, String)>, ReportError> {
    let chariots = turn_endings(record);
    if chariots.is_empty() {
        return Ok(None);
    }
    let varies = chariots.iter().any(|(_, ends, _)| ends.iter().all(|e| e.p < crate::report::CERTAINTY));
    if !varies {
        rules.left_out.push("how each chariot's charge ended (each ended one way in 99% of turns or more)".into());
        return Ok(None);
    }
    let mut endings = Vec::new();
    let mut never = Vec::new();
    let mut listed = Vec::new();
    for (k, ends, _) in &chariots {
        for e in ends {
            // "chariot 2: slain in the fight", not "chariot 2: chariot slain in the fight".
            let words = e.words.replacen("chariot slain", "slain", 1).replacen(", chariot stands", ", stands", 1);
            listed.push(format!("chariot {k}: {words} {}", percent(e.p)));
            if e.count == 0 && e.exact.unwrap_or(0.0) <= 0.0 {
                never.push(format!("chariot {k} {words}"));
                continue;
            }
            endings.push(chart::endings::Ending {
                words: format!("chariot {k}: {words}"),
                p: e.p,
                lo: e.ci95_lo,
                hi: e.ci95_hi,
                exact: e.exact,
            });
        }
    }
    let exact = endings.iter().any(|e| e.exact.is_some());
    let chart = chart::endings::EndingsChart {
        title: "How each chariot's charge ended".to_string(),
        axis: chart::endings::axis_words("turns", exact),
        endings,
    };
    let rendered = chart::render(&chart, &record.scenario.title)?;
    let merged = chariots.iter().any(|(_, _, apart)| !apart);
    let caption = format!(
        "How each chariot's charge ended: for each chariot, every turn in exactly one of its bars, with its 95% \
         interval{}.{}{}",
        if exact { " and the exact chance marked by a cross" } else { "" },
        if never.is_empty() { String::new() } else { format!(" Never: {}.", never.join("; ")) },
        if merged {
            " Where terrain could slay a chariot, or a slain chariot was not in a lost fight, its slain are not \
             split from its lost fights (see `chariotK.slain`)."
        } else {
            ""
        }
    );
    let alt = format!("Bar chart of how each chariot's charge ended: {}.", listed.join("; "));
    Ok(Some((rendered, caption, alt)))
}

/// How a chariot's path is chosen, in words.
fn path_words(path: &PathChoice, scenario: &Scenario) -> String {
    match path {
        PathChoice::Pivots(p) if p.iter().all(|x| *x == 0.0) => "straight ahead".into(),
        PathChoice::Pivots(p) => format!("pivots {:?}", p),
        PathChoice::AimAt(v) => format!("aims at ({:.1}, {:.1})", v.x, v.y),
        PathChoice::AimAtFormation(i) => {
            format!("aims at \"{}\"", scenario.formations.get(*i).map_or("?", |f| f.name.as_str()))
        }
        PathChoice::Best(o) => format!("the best path for {o:?}"),
    }
}

/// `report.md` of a turn.
pub fn markdown(record: &TurnRecord, figures: &[Figure], names: &[String]) -> String {
    let sc = &record.scenario;
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", sc.title);
    if let Some(q) = &sc.question {
        let _ = writeln!(out, "*{q}*\n");
    }
    let entries = sc.entries();
    let _ = writeln!(
        out,
        "A turn of {} chariots: each makes its Chariot Charge in the Move phase, one after another, into the board as \
         the earlier ones left it; then every fight is fought. {} turns played (seed {}, {} thread{}, {:.2} s).\n",
        entries.len(),
        group_digits(record.trials),
        record.seed,
        record.threads,
        if record.threads == 1 { "" } else { "s" },
        record.elapsed_s
    );
    for w in &record.warnings {
        let _ = writeln!(out, "> **Warning** (`{}`): {}\n", w.field, w.message);
    }
    let _ = writeln!(out, "## Did the line break?\n");
    // With exact values, a column of them (and each estimate's z) beside the estimates.
    let exact = record.exact.is_ok();
    let row = |out: &mut String, name: &str| {
        let extra = if exact { format!(" {} |", record.exact_of(name)) } else { String::new() };
        let _ = writeln!(out, "| `{name}` | {} |{extra} {} |", record.stated(name), record.describe(name));
    };
    let (head, rule) = if exact { (" exact (z) |", "---|") } else { ("", "") };
    let _ = writeln!(out, "| reading | chance |{head} what it means |");
    let _ = writeln!(out, "|---|---|{rule}---|");
    for name in ["line_breached", "line_halved", "army_broken", "breakthrough_any"] {
        if record.summary_of(name).is_some() {
            row(&mut out, name);
        }
    }
    let _ = writeln!(
        out,
        "\nThese are different questions and their answers differ: a chariot may drive through the end of a line \
         (`breakthrough_any`) while the line stands, and a line may lose half its models without a gap through it.\n"
    );
    let _ = writeln!(out, "## The turn in numbers\n");
    let _ = writeln!(out, "| metric | mean (95% interval) |{head} what it means |");
    let _ = writeln!(out, "|---|---|{rule}---|");
    for name in ["kills", "impact_kills", "fight_kills", "fights", "chariots_slain", "foe_heroes_slain"] {
        if record.summary_of(name).is_some() {
            row(&mut out, name);
        }
    }
    let _ = writeln!(out, "\n## Each chariot\n");
    let order_words: Vec<String> = record.order.iter().map(|n| n.to_string()).collect();
    let _ = writeln!(out, "Order of the turn: {}.", order_words.join(", "));
    if !record.orders_tried.is_empty() {
        let tried: Vec<String> = record
            .orders_tried
            .iter()
            .map(|(o, v)| format!("[{}] {:.4}", o.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", "), v))
            .collect();
        let how = if record.orders_by_exact { "exact mean" } else { "mean on common random numbers" };
        let _ = writeln!(out, "Orders tried (objective's {how}): {}.", tried.join("; "));
    }
    let _ = writeln!(
        out,
        "\n| chariot | path | Impact kills | in a fight | won it | fight kills | Wounds lost | slain | drove through |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
    for (i, e) in entries.iter().enumerate() {
        let k = i + 1;
        let m = |what: &str| record.stated(&format!("chariot{k}.{what}"));
        let _ = writeln!(
            out,
            "| {k}. {}{} | {} | {} | {} | {} | {} | {} | {} | {} |",
            e.chariot.name,
            e.chariot.hero.as_ref().map(|h| format!(" with {}", h.name)).unwrap_or_default(),
            path_words(&e.charge.path, sc),
            m("impact_kills"),
            m("fight_fought"),
            m("fight_won"),
            m("fight_kills"),
            m("wounds_lost"),
            m("slain"),
            m("breakthrough"),
        );
    }
    let blocked: Vec<String> = (1..=entries.len())
        .filter_map(|k| {
            record
                .summary_of(&format!("chariot{k}.blocked"))
                .map(|_| (k, record.stated(&format!("chariot{k}.blocked"))))
        })
        .map(|(k, s)| format!("chariot {k} in {s}"))
        .collect();
    if !blocked.is_empty() {
        let _ = writeln!(
            out,
            "\nA drive ended short of a friendly chariot (models cannot move through friends): {}.",
            blocked.join("; ")
        );
    }
    if let Some(board) = &record.board {
        let mut ends: Vec<&crate::mesbg::board::StopMark> = board.stops.iter().collect();
        ends.sort_by(|a, b| a.chariot.cmp(&b.chariot).then(b.p.total_cmp(&a.p)));
        let listed: Vec<String> = ends
            .iter()
            .map(|s| {
                format!(
                    "chariot {} {} {} at {:.1}\" driven ({:.1}, {:.1})",
                    s.chariot.unwrap_or(0),
                    percent(s.p),
                    s.how,
                    s.distance,
                    s.at.0,
                    s.at.1
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "\nWhere the chariots ended (each chariot's share of {} turns, as the board shows them): {}.",
            if board.trials == record.trials {
                format!("all {}", group_digits(board.trials))
            } else {
                format!("the first {}", group_digits(board.trials))
            },
            listed.join("; ")
        );
    }
    let _ = writeln!(out, "\n## Figures\n");
    for f in figures {
        if f.is_left_out() {
            let _ = writeln!(out, "{}\n", f.caption);
        } else {
            let _ = writeln!(out, "![{}]({}.png)\n\n{}\n", f.alt, f.stem, f.caption);
        }
    }
    let _ = writeln!(out, "## How the turn is read\n");
    let _ = writeln!(
        out,
        "- **Move phase.** Each chariot charges in order; slain models are removed, pushed models stay where they \
         were pushed, Wounds are kept, and a chariot stands where it stopped. A drive ends just short of a friendly \
         chariot. A chariot that meets a model already in contact with an earlier chariot deals its Impact Hits and, \
         if the model survives, stops and joins that fight.\n\
         - **Fight phase.** Models in base contact are split into fights with never several models on both sides. \
         Several chariots against one model roll their dice together (highest die, ties to the highest Fight, then \
         the roll-off) and each winner makes its own Strikes; a model that beats several chariots strikes the one \
         with the fewest Wounds left.\n\
         - **`line_breached`** is a measurement, not a rule: after the turn, a corridor as wide as one of a \
         line's bases runs from its front rank to its back rank between standing models, free of any standing \
         model; formations facing one way whose models touch (shields with spears behind) are one line. A gap at \
         the end of a line only shortens it and is not a breach.\n\
         - {} planned boards: every drive and every board after the moves is worked out once, before any dice.\n\
         - Exact values: {}.\n",
        record.boards,
        record.exact_words()
    );
    crate::report::document::ruleset_section(&mut out, &[("", &record.ruleset)]);
    let _ = writeln!(out, "\n## Reproduce\n\n```\n{}\n```\n", record.command);
    let _ = writeln!(out, "## Files\n");
    for n in names {
        let _ = writeln!(out, "- `{n}`");
    }
    out
}
