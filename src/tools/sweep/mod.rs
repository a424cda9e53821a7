//! Sweeps: the cartesian grid of scenario fields set from the command line
//! (`--set chariot.impact.strength=3..7 --set chariot.move=8,10,12`). Each grid point is the
//! scenario file with those fields replaced, validated like any file (a bad value names the
//! point and the field), and run on the base scenario's random streams, so neighbouring
//! points differ by the change, not by the luck of their dice (common random numbers).

mod procedure;
pub use procedure::{Checkpoint, SweepHooks, SweepRequest, Swept, sweep};

use crate::engine::MetricDef;
use crate::mesbg::scenario::{self, Scenario, ScenarioError};

/// The most grid points one sweep may have.
pub const MAX_POINTS: usize = 10_000;

/// The most values one `--set` may list or range over.
pub const MAX_VALUES: usize = 1_000;

/// One `--set PATH=VALUES`.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    /// The field's dotted path as written, e.g. `formations[0].count`.
    pub path: String,
    parts: Vec<PathPart>,
    /// The values to try, in order.
    pub values: Vec<toml::Value>,
}

#[derive(Clone, Debug, PartialEq)]
enum PathPart {
    Key(String),
    Index(usize),
}

/// Why a `--set` or a sweep cannot be run.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// A `--set` is malformed.
    #[error("--set {text}: {reason}")]
    BadSet {
        /// The argument as given.
        text: String,
        /// What is wrong and how to write it.
        reason: String,
    },
    /// The grid is too large.
    #[error("the sweep has {points} points; at most {MAX_POINTS} are allowed: use fewer values or split the sweep")]
    TooManyPoints {
        /// Points asked for.
        points: u128,
    },
    /// The scenario file does not parse as TOML.
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
}

fn bad(text: &str, reason: impl Into<String>) -> SweepError {
    SweepError::BadSet { text: text.to_string(), reason: reason.into() }
}

/// A scalar as written on the command line: integer, number, true/false, or text (in
/// double quotes or bare: `"2"` is the text 2, `D3` the text D3).
fn scalar(text: &str) -> toml::Value {
    if let Some(quoted) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).filter(|_| text.len() >= 2) {
        toml::Value::String(quoted.to_string())
    } else if let Ok(i) = text.parse::<i64>() {
        toml::Value::Integer(i)
    } else if let Ok(x) = text.parse::<f64>().map_err(|_| ()).and_then(|x| if x.is_finite() { Ok(x) } else { Err(()) })
    {
        toml::Value::Float(x)
    } else if text == "true" || text == "false" {
        toml::Value::Boolean(text == "true")
    } else {
        toml::Value::String(text.to_string())
    }
}

/// The comma-separated items of `text`, splitting only outside brackets and braces (so
/// `[1, 4],[1, 1]` is two arrays).
fn top_level_items(text: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(text[start..].trim());
    items
}

/// An array or inline table written as TOML, e.g. `[1, 4]` or `{ round_mm = 30 }`.
fn inline_value(text: &str, value: &str) -> Result<toml::Value, SweepError> {
    toml::from_str::<toml::Table>(&format!("v = {value}")).ok().and_then(|mut t| t.remove("v")).ok_or_else(|| {
        bad(text, format!("`{value}` is not a TOML array or inline table, e.g. [1, 4] or {{ round_mm = 30 }}"))
    })
}

/// Parses `PATH=VALUES`: VALUES is `a..b` (integers, step 1), `a..b:step` (numbers), a
/// comma-separated list, or a comma-separated list of TOML arrays or inline tables
/// (`[1, 4],[1, 1]`).
pub fn parse_set(text: &str) -> Result<Assignment, SweepError> {
    let (path, values) = text
        .split_once('=')
        .ok_or_else(|| bad(text, "write PATH=VALUES, e.g. chariot.move=8,10,12 or chariot.impact.strength=3..7"))?;
    let path = path.trim();
    let mut parts = Vec::new();
    for segment in path.split('.') {
        let (key, mut rest) = match segment.find('[') {
            Some(i) => (&segment[..i], &segment[i..]),
            None => (segment, ""),
        };
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(bad(
                text,
                format!("{path:?} is not a field path like chariot.impact.strength or formations[0].count"),
            ));
        }
        parts.push(PathPart::Key(key.to_string()));
        while let Some(inner) = rest.strip_prefix('[') {
            let close = inner.find(']').ok_or_else(|| bad(text, "an index needs its closing ]"))?;
            let index = inner[..close]
                .parse::<usize>()
                .map_err(|_| bad(text, "an index is a whole number, e.g. formations[0]"))?;
            parts.push(PathPart::Index(index));
            rest = &inner[close + 1..];
        }
        if !rest.is_empty() {
            return Err(bad(text, format!("unexpected {rest:?} after an index")));
        }
    }
    let values = values.trim();
    let list: Vec<toml::Value> = if values.starts_with('[') || values.starts_with('{') {
        top_level_items(values).into_iter().map(|v| inline_value(text, v)).collect::<Result<_, _>>()?
    } else if let Some((from, to)) = values.split_once("..") {
        let (to, step) = match to.split_once(':') {
            Some((to, step)) => (to, Some(step)),
            None => (to, None),
        };
        let number = |s: &str| s.trim().parse::<f64>().ok().filter(|x| x.is_finite());
        let (Some(a), Some(b)) = (number(from), number(to)) else {
            return Err(bad(text, "a range is two numbers, e.g. 3..7 or 0.5..2:0.5"));
        };
        let step = match step {
            Some(s) => {
                number(s).filter(|s| *s > 0.0).ok_or_else(|| bad(text, "a range's step is a positive number"))?
            }
            None => 1.0,
        };
        if b < a {
            return Err(bad(text, "a range goes upwards: write the smaller end first"));
        }
        let count = ((b - a) / step + 1e-9).floor() as usize + 1;
        if count > MAX_VALUES {
            return Err(bad(text, format!("{count} values; at most {MAX_VALUES}")));
        }
        let integers = a.fract() == 0.0 && step.fract() == 0.0 && b.fract() == 0.0;
        (0..count)
            .map(|i| {
                let x = a + step * i as f64;
                if integers { toml::Value::Integer(x.round() as i64) } else { toml::Value::Float(x) }
            })
            .collect()
    } else {
        values.split(',').map(|v| scalar(v.trim())).collect()
    };
    // Impact Hits are a dice expression, text in the file ("2", "D3"): a number given here
    // (`hits=2` or `hits=1..3`) is that text, so a constant can be swept like any field.
    let list = if path.ends_with("impact.hits") {
        list.into_iter()
            .map(|v| match v {
                toml::Value::Integer(i) => toml::Value::String(i.to_string()),
                other => other,
            })
            .collect()
    } else {
        list
    };
    if list.is_empty() || values.is_empty() {
        return Err(bad(text, "give at least one value"));
    }
    if list.len() > MAX_VALUES {
        return Err(bad(text, format!("{} values; at most {MAX_VALUES}", list.len())));
    }
    Ok(Assignment { path: path.to_string(), parts, values: list })
}

/// The profile's own value of `key` (a table such as `impact` or `base`) when `table`
/// names a profile of `library` (searched by kind: chariots, heroes, models).
fn profile_table(library: &toml::Table, table: &toml::Table, key: &str) -> Option<toml::Value> {
    let name = table.get("profile")?.as_str()?;
    ["chariots", "heroes", "models"]
        .iter()
        .filter_map(|kind| library.get(*kind)?.as_table()?.get(name)?.as_table()?.get(key))
        .find(|v| v.is_table())
        .cloned()
}

/// The table of the profile `name` in `library` (chariots, heroes, then models).
fn named_profile(library: &toml::Table, name: &str) -> Option<toml::Value> {
    ["chariots", "heroes", "models"]
        .iter()
        .find_map(|kind| library.get(*kind)?.as_table()?.get(name))
        .filter(|v| v.is_table())
        .cloned()
}

/// Sets `value` at the assignment's path in `table`, creating missing tables (so a field a
/// profile supplies can be overridden); an array index must already exist. A table a
/// profile supplies (`chariot.impact` of a chariot named by `profile`) starts as the
/// profile's, taken from `library`, so setting one of its fields keeps the others.
fn set(
    table: &mut toml::Table,
    assignment: &Assignment,
    value: toml::Value,
    library: &toml::Table,
) -> Result<(), SweepError> {
    let text = format!("{}=...", assignment.path);
    let mut slot: Option<&mut toml::Value> = None;
    let mut current_table: Option<&mut toml::Table> = Some(table);
    let last = assignment.parts.len() - 1;
    for (i, part) in assignment.parts.iter().enumerate() {
        match part {
            PathPart::Key(key) => {
                let t = match (current_table.take(), slot.take()) {
                    (Some(t), _) => t,
                    (None, Some(toml::Value::Table(t))) => t,
                    _ => return Err(bad(&text, format!("{key:?} is inside something that is not a table"))),
                };
                if i == last {
                    t.insert(key.clone(), value);
                    return Ok(());
                }
                let next_is_table = matches!(assignment.parts[i + 1], PathPart::Key(_));
                if !t.contains_key(key) {
                    let start =
                        profile_table(library, t, key).unwrap_or_else(|| toml::Value::Table(toml::Table::new()));
                    t.insert(key.clone(), start);
                }
                let Some(entry) = t.get_mut(key) else { unreachable!("inserted just above") };
                // `profile = "NAME"` reached into (`formations[0].profile.defence`): the named
                // profile's whole table, with the field set, as if written out in the file.
                if next_is_table
                    && key == "profile"
                    && let Some(named) = entry.as_str().and_then(|name| named_profile(library, name))
                {
                    *entry = named;
                }
                if next_is_table && !entry.is_table() {
                    return Err(bad(&text, format!("{key:?} is not a table")));
                }
                slot = Some(entry);
            }
            PathPart::Index(index) => {
                let Some(toml::Value::Array(items)) = slot.take() else {
                    return Err(bad(&text, format!("[{index}] needs an array, e.g. formations[{index}]")));
                };
                let len = items.len();
                let item = items.get_mut(*index).ok_or_else(|| {
                    bad(&text, format!("index {index} is out of range: the file has {len} entries there"))
                })?;
                if i == last {
                    *item = value;
                    return Ok(());
                }
                slot = Some(item);
            }
        }
    }
    Ok(())
}

/// One point of the grid: the value index of each assignment, and the values as text.
#[derive(Clone, Debug, PartialEq)]
pub struct Point<T = Scenario> {
    /// Each assignment's value, as written in reports.
    pub values: Vec<String>,
    /// The scenario at this point (of either rule system).
    pub scenario: T,
}

/// A value as reports show it.
pub fn value_text(value: &toml::Value) -> String {
    match value {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Every point of a MESBG grid (the first assignment varies slowest), each validated.
/// Fields of the bundled profiles can be set (`chariot.impact.strength` of a chariot
/// named by `profile`).
pub fn points(base_text: &str, file: &str, assignments: &[Assignment]) -> Result<Vec<Point>, SweepError> {
    let library: toml::Table = scenario::bundled_profile_tables();
    points_of(base_text, file, assignments, &library, scenario::parse)
}

/// Every point of the grid (the first assignment varies slowest), each validated by
/// `parse` (the rule system's scenario parser: text, name); `library` is the rule system's
/// profile library as TOML (empty when it has none).
pub fn points_of<T>(
    base_text: &str,
    file: &str,
    assignments: &[Assignment],
    library: &toml::Table,
    parse: impl Fn(&str, &str) -> Result<T, ScenarioError>,
) -> Result<Vec<Point<T>>, SweepError> {
    let size: u128 = assignments.iter().map(|a| a.values.len() as u128).product();
    if size > MAX_POINTS as u128 {
        return Err(SweepError::TooManyPoints { points: size });
    }
    // The file itself must be valid before it is varied.
    parse(base_text, file)?;
    let base: toml::Table = base_text.parse().map_err(|e: toml::de::Error| {
        SweepError::Scenario(ScenarioError::Invalid {
            file: file.to_string(),
            problems: vec![scenario::Problem { field: String::new(), line: None, message: e.message().to_string() }],
        })
    })?;
    let mut out = Vec::with_capacity(size as usize);
    for n in 0..size as usize {
        let mut rest = n;
        let mut chosen = vec![0; assignments.len()];
        for (i, a) in assignments.iter().enumerate().rev() {
            chosen[i] = rest % a.values.len();
            rest /= a.values.len();
        }
        let mut table = base.clone();
        let mut label = Vec::new();
        for (a, &k) in assignments.iter().zip(&chosen) {
            set(&mut table, a, a.values[k].clone(), library)?;
            label.push(value_text(&a.values[k]));
        }
        let text = toml::to_string(&table).map_err(|e| bad("(grid point)", e.to_string()))?;
        let name = format!(
            "{file} with {}",
            assignments.iter().zip(&label).map(|(a, v)| format!("{}={v}", a.path)).collect::<Vec<_>>().join(", ")
        );
        let scenario = parse(&text, &name).map_err(|e| lines_of_the_file(e, base_text))?;
        out.push(Point { values: label, scenario });
    }
    Ok(out)
}

/// A grid point's problems with the lines of the file the user wrote: a point is checked
/// as TOML generated from it, whose lines mean nothing to them. Each problem gets the line
/// of its field in the file, or none when the file does not write it (a profile supplies
/// it, or `--set` added it).
fn lines_of_the_file(error: ScenarioError, base_text: &str) -> ScenarioError {
    match error {
        ScenarioError::Invalid { file, problems } => ScenarioError::Invalid {
            file,
            problems: problems
                .into_iter()
                .map(|mut p| {
                    p.line = if p.field.is_empty() { None } else { scenario::locate(base_text, &p.field) };
                    p
                })
                .collect(),
        },
        other => other,
    }
}

/// One finished point of a sweep.
#[derive(Clone, Debug)]
pub struct SweepRow {
    /// Each assignment's value, as written.
    pub values: Vec<String>,
    /// Trials played at this point (more than asked under `--target-ci`).
    pub trials: u64,
    /// Its metrics.
    pub summary: Vec<crate::engine::statistics::MetricSummary<MetricDef>>,
}

/// A finished sweep, as reports need it.
#[derive(Clone, Debug)]
pub struct SweepRun {
    /// The base scenario's title.
    pub title: String,
    /// The swept fields, in `--set` order.
    pub paths: Vec<String>,
    /// Each assignment's values as written (for chart axes).
    pub axes: Vec<Vec<String>>,
    /// Every point, the first field varying slowest.
    pub rows: Vec<SweepRow>,
    /// Trials per point.
    pub trials: u64,
    /// Seed.
    pub seed: u64,
    /// The command that reproduces it.
    pub command: String,
    /// The base scenario's rule options and policies (a swept `rules.*` field varies as
    /// its column says).
    pub ruleset: Vec<crate::mesbg::scenario::RuleOption>,
    /// What one trial is, for chart axes: "charge" or "rout".
    pub trial_word: String,
}

/// The version of a sweep's JSON object (`sweep --json`).
pub const SWEEP_SCHEMA: &str = "charioteer.sweep/1";

impl SweepRun {
    /// The sweep as one JSON object (`sweep --json`, docs/json-schema.md): the swept
    /// fields, and per point its values, trials and every metric's mean and interval.
    pub fn to_json(&self) -> serde_json::Value {
        let points: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|r| {
                let metrics: serde_json::Map<String, serde_json::Value> = r
                    .summary
                    .iter()
                    .map(|s| {
                        let v = serde_json::json!({
                            "mean": s.mean, "se": s.se, "ci95_lo": s.ci95_lo, "ci95_hi": s.ci95_hi, "flag": s.metric.flag,
                        });
                        (s.metric.name.clone(), v)
                    })
                    .collect();
                serde_json::json!({ "values": r.values, "trials": r.trials, "metrics": metrics })
            })
            .collect();
        serde_json::json!({
            "schema": SWEEP_SCHEMA,
            "version": env!("CARGO_PKG_VERSION"),
            "title": self.title,
            "fields": self.paths,
            "trials": self.trials,
            "seed": self.seed,
            "command": self.command,
            "points": points,
        })
    }

    /// The metrics every point reports, in the first point's order.
    pub fn metrics(&self) -> Vec<MetricDef> {
        let Some(first) = self.rows.first() else { return Vec::new() };
        first
            .summary
            .iter()
            .map(|s| s.metric.clone())
            .filter(|m| self.rows.iter().all(|r| r.summary.iter().any(|s| s.metric.name == m.name)))
            .collect()
    }

    /// The sweep frame: one row per point, the swept values, then each metric's mean and
    /// 95% interval.
    pub fn frame(&self) -> polars::prelude::PolarsResult<polars::prelude::DataFrame> {
        use polars::prelude::*;
        let mut columns: Vec<Column> = Vec::new();
        for (i, path) in self.paths.iter().enumerate() {
            let values: Vec<&str> = self.rows.iter().map(|r| r.values[i].as_str()).collect();
            columns.push(Column::new(path.as_str().into(), values));
        }
        columns.push(Column::new("trials".into(), self.rows.iter().map(|r| r.trials).collect::<Vec<u64>>()));
        for m in self.metrics() {
            let get = |f: fn(&crate::engine::statistics::MetricSummary<MetricDef>) -> f64| -> Vec<f64> {
                self.rows
                    .iter()
                    .map(|r| r.summary.iter().find(|s| s.metric.name == m.name).map_or(f64::NAN, f))
                    .collect()
            };
            columns.push(Column::new(format!("{}_mean", m.name).into(), get(|s| s.mean)));
            columns.push(Column::new(format!("{}_ci95_lo", m.name).into(), get(|s| s.ci95_lo)));
            columns.push(Column::new(format!("{}_ci95_hi", m.name).into(), get(|s| s.ci95_hi)));
        }
        DataFrame::new(self.rows.len(), columns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_parse_ranges_lists_and_indices() {
        let a = parse_set("chariot.impact.strength=3..7").unwrap();
        assert_eq!(a.values.len(), 5);
        assert_eq!(a.values[0], toml::Value::Integer(3));
        let b = parse_set("chariot.move=8,10,12").unwrap();
        assert_eq!(b.values, vec![toml::Value::Integer(8), toml::Value::Integer(10), toml::Value::Integer(12)]);
        let c = parse_set("formations[0].gap_mm=0..1:0.5").unwrap();
        assert_eq!(c.values.len(), 3);
        // Arrays and inline tables, split only outside their brackets.
        let d = parse_set("formations[0].hero.at=[1, 4],[1,1]").unwrap();
        let pair = |a, b| toml::Value::Array(vec![toml::Value::Integer(a), toml::Value::Integer(b)]);
        assert_eq!(d.values, vec![pair(1, 4), pair(1, 1)]);
        let e = parse_set("formations[0].base={ round_mm = 25 },{ oval_mm = [30, 50] }").unwrap();
        assert_eq!(e.values.len(), 2);
        assert!(e.values[1].as_table().is_some_and(|t| t.contains_key("oval_mm")));
        let err = parse_set("chariot.at=[1, ").unwrap_err().to_string();
        assert!(err.contains("not a TOML array"), "{err}");
        assert_eq!(c.parts[1], PathPart::Index(0));
        let d = parse_set("rules.strike_allocation=most_wounded_first,easiest_first").unwrap();
        assert_eq!(d.values[1], toml::Value::String("easiest_first".into()));
        for wrong in
            ["chariot.move", "chariot.move=", "=3", "chariot..move=3", "x[a]=1", "x=7..3", "x=1..2:0", "x=0..5000"]
        {
            assert!(parse_set(wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn points_vary_the_file_and_validate_each() {
        let base = crate::mesbg::scenario::DEFAULT_SCENARIO;
        let sets = [parse_set("chariot.move=8,12").unwrap(), parse_set("chariot.impact.strength=3..4").unwrap()];
        let grid = points(base, "default.toml", &sets).unwrap();
        assert_eq!(grid.len(), 4);
        assert_eq!(grid[1].values, vec!["8".to_string(), "4".to_string()]);
        assert_eq!(grid[2].scenario.chariot.move_inches, 12.0);
        // A value the scenario refuses names the point and the field.
        let err = points(base, "default.toml", &[parse_set("chariot.move=0").unwrap()]).unwrap_err().to_string();
        assert!(err.contains("chariot.move=0") && err.contains("move"), "{err}");
        let err = points(base, "default.toml", &[parse_set("formations[9].count=3").unwrap()]).unwrap_err().to_string();
        assert!(err.contains("out of range"), "{err}");
    }
}
