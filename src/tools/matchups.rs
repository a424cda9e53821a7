//! Matchup sets: the target lines a designer prices a piece against, like for like.
//!
//! A matchup set is a TOML file of lines, each the `[[formations]]` (and optional
//! `[[terrain]]` and `[army]`) a scenario holds, written in the charging piece's own frame:
//! `x` inches to its right, `y` inches ahead of its base centre, facings in degrees from
//! straight ahead. [`place`] puts a line in front of whichever piece is charging (its
//! `[chariot]`, or the first of its `[[chariots]]`), replacing the piece's own line, so the
//! priced piece and its reference meet the same models at the same distance. [`line_of`]
//! reads a scenario's line back into that frame, so two scenarios can be told to charge the
//! same line or not.

use crate::input::{Problem, locate};
use std::path::Path;

/// The largest number of lines a matchup set may hold (each is played twice).
pub const MAX_LINES: usize = 64;

/// Why a matchup set cannot be read, or a line cannot be placed in front of a piece.
#[derive(Debug, thiserror::Error)]
pub enum MatchupError {
    /// The file could not be read.
    #[error("cannot read matchup set {file}: {source}")]
    Read {
        /// The path as given.
        file: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The set (or a line of it placed in front of a piece) is not valid.
    #[error("{}", render(file, context, problems))]
    Invalid {
        /// The matchup set's path.
        file: String,
        /// What was being done (empty when the set itself is wrong).
        context: String,
        /// Everything found wrong, each naming its field and, where known, its line.
        problems: Vec<Problem>,
    },
    /// The piece has no chariot to place a line in front of.
    #[error("{piece}: {message}")]
    Piece {
        /// The piece's file.
        piece: String,
        /// What is missing and what to do.
        message: String,
    },
}

fn render(file: &str, context: &str, problems: &[Problem]) -> String {
    let mut out = if context.is_empty() {
        format!("{file} is not a valid matchup set ({} problem{}):", problems.len(), plural(problems.len()))
    } else {
        format!("{context} ({} problem{}):", problems.len(), plural(problems.len()))
    };
    for p in problems {
        out.push_str("\n  ");
        out.push_str(&p.located(file));
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// One target line of a set.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// Its name, as reports print it.
    pub name: String,
    /// Its weight in the overall price (positive; normalised by the caller).
    pub weight: f64,
    /// The `[[formations]]` tables, in the piece's frame.
    formations: Vec<toml::Value>,
    /// The `[[terrain]]` tables, in the piece's frame.
    terrain: Vec<toml::Value>,
    /// The `[army]` table, when the line's army has a Break Point to test.
    army: Option<toml::Value>,
    /// BATTLESYSTEM: the `[[units]]` tables, in the charging unit's frame (no `side`: each
    /// is placed on the side the charger fights).
    units: Vec<toml::Value>,
    /// BATTLESYSTEM: the unit of the line that is charged.
    pub target: Option<String>,
}

/// Which rule system a set's lines are written for: MESBG formations or BATTLESYSTEM units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetSystem {
    /// `[[lines.formations]]`, placed in front of a chariot.
    Mesbg,
    /// `[[lines.units]]` and a `target`, placed in front of a charging unit.
    Battlesystem,
}

impl SetSystem {
    /// The system's name as reports print it.
    pub fn name(self) -> &'static str {
        match self {
            SetSystem::Mesbg => "MESBG",
            SetSystem::Battlesystem => "BATTLESYSTEM",
        }
    }
}

/// A matchup set as read.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchupSet {
    /// The path as given.
    pub file: String,
    /// Its title.
    pub title: String,
    /// Its lines, in file order.
    pub lines: Vec<Line>,
    /// What its lines are written for (BATTLESYSTEM when they hold `[[lines.units]]`).
    pub system: SetSystem,
    /// The file's text, to name the line of a problem found when a line is placed.
    text: String,
}

/// Whether `text` is a matchup set rather than a scenario: a TOML table with `[[lines]]`
/// and no `system`.
pub fn is_matchup_set(text: &str) -> bool {
    toml::from_str::<toml::Table>(text).is_ok_and(|t| t.contains_key("lines") && !t.contains_key("system"))
}

/// Reads a matchup set file.
pub fn load(path: &Path) -> Result<MatchupSet, MatchupError> {
    let file = path.display().to_string();
    let text = crate::input::read(path).map_err(|e| match e {
        crate::input::ScenarioError::Read { source, .. } => MatchupError::Read { file: file.clone(), source },
        crate::input::ScenarioError::Invalid { problems, .. } => {
            MatchupError::Invalid { file: file.clone(), context: String::new(), problems }
        }
    })?;
    parse(&text, &file)
}

/// Reads a matchup set's text (`file` names it in messages).
pub fn parse(text: &str, file: &str) -> Result<MatchupSet, MatchupError> {
    let invalid =
        |problems: Vec<Problem>| MatchupError::Invalid { file: file.to_string(), context: String::new(), problems };
    let problem =
        |field: &str, message: String| Problem { field: field.to_string(), line: locate(text, field), message };
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| crate::input::line_of(text, s.start));
        invalid(vec![Problem { field: String::new(), line, message: e.message().to_string() }])
    })?;
    let mut problems = Vec::new();
    for key in table.keys() {
        if !matches!(key.as_str(), "title" | "lines") {
            problems.push(problem(key, "unknown field: a matchup set holds `title` and `[[lines]]`".into()));
        }
    }
    let title = match table.get("title") {
        Some(toml::Value::String(t)) if !t.trim().is_empty() => t.clone(),
        Some(_) => {
            problems.push(problem("title", "give the set's title as text".into()));
            String::new()
        }
        None => {
            problems
                .push(problem("title", "missing: give the set a title, e.g. title = \"The library's lines\"".into()));
            String::new()
        }
    };
    let raw_lines = match table.get("lines") {
        Some(toml::Value::Array(lines)) if !lines.is_empty() => lines.clone(),
        _ => {
            problems.push(problem(
                "lines",
                "give one or more [[lines]], each with a name and its [[lines.formations]] (MESBG) or \
                 [[lines.units]] and target (BATTLESYSTEM)"
                    .into(),
            ));
            Vec::new()
        }
    };
    // A set is BATTLESYSTEM when its first line holds units; every line must then agree.
    let system = match raw_lines.first().and_then(toml::Value::as_table) {
        Some(t) if t.contains_key("units") => SetSystem::Battlesystem,
        _ => SetSystem::Mesbg,
    };
    if raw_lines.len() > MAX_LINES {
        problems.push(problem("lines", format!("{} lines: a set holds at most {MAX_LINES}", raw_lines.len())));
    }
    let mut lines: Vec<Line> = Vec::new();
    for (k, raw) in raw_lines.iter().enumerate() {
        let at = |field: &str| format!("lines[{k}].{field}");
        let Some(raw) = raw.as_table() else {
            problems.push(problem(&format!("lines[{k}]"), "each line is a table".into()));
            continue;
        };
        for key in raw.keys() {
            let known = match system {
                SetSystem::Mesbg => matches!(key.as_str(), "name" | "weight" | "formations" | "terrain" | "army"),
                SetSystem::Battlesystem => matches!(key.as_str(), "name" | "weight" | "units" | "target"),
            };
            if !known {
                let message = match (system, key.as_str()) {
                    (SetSystem::Mesbg, "units" | "target") | (SetSystem::Battlesystem, "formations") => format!(
                        "this set's first line is {}, so every line must be: a set holds MESBG lines \
                         ([[lines.formations]]) or BATTLESYSTEM lines ([[lines.units]] and target), not both",
                        system.name()
                    ),
                    (SetSystem::Mesbg, _) => {
                        "unknown field: a line holds `name`, `weight`, [[formations]], [[terrain]] and [army]".into()
                    }
                    (SetSystem::Battlesystem, _) => {
                        "unknown field: a BATTLESYSTEM line holds `name`, `weight`, [[units]] and `target`".into()
                    }
                };
                problems.push(problem(&at(key), message));
            }
        }
        let name = match raw.get("name").and_then(toml::Value::as_str) {
            Some(n) if !n.trim().is_empty() => n.to_string(),
            _ => {
                problems.push(problem(
                    &at("name"),
                    "give the line a name, e.g. name = \"Minas Tirith shield wall\"".into(),
                ));
                format!("line {}", k + 1)
            }
        };
        if lines.iter().any(|l| l.name == name) {
            problems.push(problem(&at("name"), format!("\"{name}\" names two lines: give each its own name")));
        }
        let weight = match raw.get("weight") {
            None => 1.0,
            Some(w) => match w.as_float().or_else(|| w.as_integer().map(|i| i as f64)) {
                Some(x) if x.is_finite() && x > 0.0 && x <= 1e6 => x,
                _ => {
                    problems.push(problem(&at("weight"), "give a positive number (default 1), e.g. weight = 2".into()));
                    1.0
                }
            },
        };
        let tables = |key: &str, problems: &mut Vec<Problem>| -> Vec<toml::Value> {
            match raw.get(key) {
                None => Vec::new(),
                Some(toml::Value::Array(a)) if a.iter().all(toml::Value::is_table) => a.clone(),
                Some(_) => {
                    problems.push(problem(&at(key), format!("write each as a [[lines.{key}]] table")));
                    Vec::new()
                }
            }
        };
        let formations = if system == SetSystem::Mesbg { tables("formations", &mut problems) } else { Vec::new() };
        if system == SetSystem::Mesbg && formations.is_empty() && raw.get("formations").is_none() {
            problems.push(problem(&at("formations"), "a line needs one or more [[lines.formations]]".into()));
        }
        let units = if system == SetSystem::Battlesystem { tables("units", &mut problems) } else { Vec::new() };
        let target = match (system, raw.get("target")) {
            (SetSystem::Mesbg, _) => None,
            (SetSystem::Battlesystem, Some(toml::Value::String(t))) => {
                let named = |u: &toml::Value| u.get("name").and_then(toml::Value::as_str) == Some(t.as_str());
                if !units.iter().any(named) {
                    problems.push(problem(
                        &at("target"),
                        format!("\"{t}\" names no unit of this line: give the name of one of its [[lines.units]]"),
                    ));
                }
                Some(t.clone())
            }
            (SetSystem::Battlesystem, _) => {
                problems.push(problem(
                    &at("target"),
                    "give the unit the piece charges, by name, e.g. target = \"Pikemen\"".into(),
                ));
                None
            }
        };
        for (i, u) in units.iter().enumerate() {
            check_point(u.get("at"), &at(&format!("units[{i}].at")), true, &mut problems, text);
            check_angle(u.get("facing"), &at(&format!("units[{i}].facing")), &mut problems, text);
            if u.get("side").is_some() {
                problems.push(problem(
                    &at(&format!("units[{i}].side")),
                    "leave the side out: every unit of a line is placed on the side the charging unit fights".into(),
                ));
            }
        }
        let terrain = tables("terrain", &mut problems);
        let army = match raw.get("army") {
            None => None,
            Some(t @ toml::Value::Table(_)) => Some(t.clone()),
            Some(_) => {
                problems.push(problem(&at("army"), "write it as a [lines.army] table".into()));
                None
            }
        };
        // Every point must be a pair of numbers before it can be placed.
        for (i, f) in formations.iter().enumerate() {
            check_point(
                f.get("front_centre"),
                &at(&format!("formations[{i}].front_centre")),
                true,
                &mut problems,
                text,
            );
            check_angle(f.get("facing"), &at(&format!("formations[{i}].facing")), &mut problems, text);
        }
        for (i, t) in terrain.iter().enumerate() {
            for key in ["from", "to"] {
                check_point(t.get(key), &at(&format!("terrain[{i}].{key}")), false, &mut problems, text);
            }
            if let Some(poly) = t.get("polygon") {
                match poly.as_array() {
                    Some(points) => {
                        for (j, p) in points.iter().enumerate() {
                            check_point(Some(p), &at(&format!("terrain[{i}].polygon[{j}]")), true, &mut problems, text);
                        }
                    }
                    None => problems.push(problem(
                        &at(&format!("terrain[{i}].polygon")),
                        "give the corners as [[x, y], ...] in inches".into(),
                    )),
                }
            }
        }
        lines.push(Line { name, weight, formations, terrain, army, units, target });
    }
    if problems.is_empty() {
        Ok(MatchupSet { file: file.to_string(), title, lines, system, text: text.to_string() })
    } else {
        problems.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
        Err(invalid(problems))
    }
}

fn number(v: &toml::Value) -> Option<f64> {
    v.as_float().or_else(|| v.as_integer().map(|i| i as f64)).filter(|x| x.is_finite())
}

fn pair(v: &toml::Value) -> Option<[f64; 2]> {
    match v.as_array()?.as_slice() {
        [x, y] => Some([number(x)?, number(y)?]),
        _ => None,
    }
}

fn check_point(v: Option<&toml::Value>, field: &str, required: bool, problems: &mut Vec<Problem>, text: &str) {
    let ok = match v {
        None => !required,
        Some(v) => pair(v).is_some_and(|[x, y]| x.abs() <= 1e4 && y.abs() <= 1e4),
    };
    if !ok {
        problems.push(Problem {
            field: field.to_string(),
            line: locate(text, field),
            message: "give [x, y] in inches in the charging piece's frame (x to its right, y ahead of it)".into(),
        });
    }
}

fn check_angle(v: Option<&toml::Value>, field: &str, problems: &mut Vec<Problem>, text: &str) {
    if v.and_then(number).is_none() {
        problems.push(Problem {
            field: field.to_string(),
            line: locate(text, field),
            message: "give the facing in degrees from the charging piece's own (180 faces it)".into(),
        });
    }
}

/// Where a piece stands: its base centre (inches) and facing (degrees from +y, clockwise).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Base centre.
    pub at: [f64; 2],
    /// Facing.
    pub facing: f64,
}

impl Frame {
    /// A point given `x` to the right and `y` ahead, on the board.
    fn piece_to_board(self, [x, y]: [f64; 2]) -> [f64; 2] {
        let (s, c) = self.facing.to_radians().sin_cos();
        // Ahead is (sin, cos); right is (cos, -sin) (clockwise positive from +y).
        [clean(self.at[0] + x * c + y * s), clean(self.at[1] - x * s + y * c)]
    }
    /// A board point in the piece's frame.
    fn board_to_piece(self, [bx, by]: [f64; 2]) -> [f64; 2] {
        let (s, c) = self.facing.to_radians().sin_cos();
        let (dx, dy) = (bx - self.at[0], by - self.at[1]);
        [clean(dx * c - dy * s), clean(dx * s + dy * c)]
    }
    fn angle_to_board(self, a: f64) -> f64 {
        clean((a + self.facing).rem_euclid(360.0))
    }
    fn angle_from_board(self, a: f64) -> f64 {
        clean((a - self.facing).rem_euclid(360.0))
    }
}

/// Rounds away the last bits of a rotation, so a line placed square to the board reads as
/// written (6.0, not 5.999999999999999).
fn clean(x: f64) -> f64 {
    let r = (x * 1e9).round() / 1e9;
    if r == 0.0 { 0.0 } else { r }
}

/// The frame of a scenario's charging piece: its `[chariot]` or first `[[chariots]]`.
pub fn frame_of(piece: &toml::Table) -> Option<Frame> {
    let chariot = piece
        .get("chariot")
        .or_else(|| piece.get("chariots").and_then(toml::Value::as_array).and_then(|a| a.first()))?;
    Some(Frame { at: pair(chariot.get("at")?)?, facing: chariot.get("facing").and_then(number).unwrap_or(0.0) })
}

/// Maps every point and facing of a line's tables through `point` and `angle`.
fn mapped(
    tables: &[toml::Value],
    point: &dyn Fn([f64; 2]) -> [f64; 2],
    angle: &dyn Fn(f64) -> f64,
) -> Vec<toml::Value> {
    let as_value = |[x, y]: [f64; 2]| toml::Value::Array(vec![toml::Value::Float(x), toml::Value::Float(y)]);
    tables
        .iter()
        .map(|t| {
            let mut t = t.clone();
            if let Some(table) = t.as_table_mut() {
                for key in ["front_centre", "from", "to", "at"] {
                    if let Some(p) = table.get(key).and_then(pair) {
                        table.insert(key.into(), as_value(point(p)));
                    }
                }
                if let Some(a) = table.get("facing").and_then(number) {
                    table.insert("facing".into(), toml::Value::Float(angle(a)));
                }
                if let Some(corners) = table.get("polygon").and_then(toml::Value::as_array) {
                    let corners = corners.iter().filter_map(pair).map(|p| as_value(point(p))).collect();
                    table.insert("polygon".into(), toml::Value::Array(corners));
                }
            }
            t
        })
        .collect()
}

/// The scenario text of `piece` (a MESBG scenario's text, read from `piece_file`) charging
/// line `k` of `set` instead of its own: its formations, terrain and army replaced by the
/// line's, placed in front of its chariot; its title says which line.
pub fn place(piece: &str, piece_file: &str, set: &MatchupSet, k: usize) -> Result<String, MatchupError> {
    if set.system == SetSystem::Battlesystem {
        return place_units(piece, piece_file, set, k);
    }
    let not_mesbg = || MatchupError::Piece {
        piece: piece_file.to_string(),
        message: format!(
            "{} is a set of MESBG lines, placed in front of a chariot: this file has no [chariot] or [[chariots]] \
             with `at` (a BATTLESYSTEM charge takes a set of [[lines.units]] with a target)",
            set.file
        ),
    };
    let mut table: toml::Table = toml::from_str(piece).map_err(|_| not_mesbg())?;
    if table.get("system").and_then(toml::Value::as_str) != Some("mesbg") {
        return Err(not_mesbg());
    }
    let frame = frame_of(&table).ok_or_else(not_mesbg)?;
    let line = &set.lines[k];
    let point = |p| frame.piece_to_board(p);
    let angle = |a| frame.angle_to_board(a);
    table.insert("formations".into(), toml::Value::Array(mapped(&line.formations, &point, &angle)));
    table.remove("terrain");
    if !line.terrain.is_empty() {
        table.insert("terrain".into(), toml::Value::Array(mapped(&line.terrain, &point, &angle)));
    }
    table.remove("army");
    if let Some(army) = &line.army {
        table.insert("army".into(), army.clone());
    }
    let title = table.get("title").and_then(toml::Value::as_str).unwrap_or("the piece").to_string();
    table.insert("title".into(), toml::Value::String(format!("{title}, against {}", line.name)));
    toml::to_string(&table).map_err(|e| MatchupError::Piece { piece: piece_file.to_string(), message: e.to_string() })
}

/// The scenario text of `piece` (a BATTLESYSTEM charge) charging line `k` of a
/// BATTLESYSTEM set instead of its own target: every unit of the other side replaced by the
/// line's units, placed in the charging unit's frame on the other side, and the charge's
/// target the line's `target`. The charger's own side (its friends) stays as written.
fn place_units(piece: &str, piece_file: &str, set: &MatchupSet, k: usize) -> Result<String, MatchupError> {
    let refuse = |message: &str| MatchupError::Piece { piece: piece_file.to_string(), message: message.to_string() };
    let mut table: toml::Table = toml::from_str(piece).map_err(|e| refuse(e.message()))?;
    if table.get("system").and_then(toml::Value::as_str) != Some("battlesystem") {
        return Err(refuse(&format!(
            "{} is a set of BATTLESYSTEM units, placed in front of a charging unit: price a BATTLESYSTEM charge \
             against it (a MESBG chariot takes a set of [[lines.formations]])",
            set.file
        )));
    }
    let charger = table
        .get("charge")
        .and_then(|c| c.get("unit"))
        .and_then(toml::Value::as_str)
        .ok_or_else(|| {
            refuse(
                "a matchup set places target units in front of a charging unit, and this scenario has no [charge] \
                 (a rout is priced with --against, like for like)",
            )
        })?
        .to_string();
    let units = table.get("units").and_then(toml::Value::as_array).cloned().unwrap_or_default();
    let own = units
        .iter()
        .find(|u| u.get("name").and_then(toml::Value::as_str) == Some(charger.as_str()))
        .ok_or_else(|| refuse(&format!("[charge] unit \"{charger}\" names no unit of the file")))?;
    let frame = Frame {
        at: own.get("at").and_then(pair).ok_or_else(|| refuse("the charging unit has no `at`"))?,
        facing: own.get("facing").and_then(number).unwrap_or(0.0),
    };
    let side = own.get("side").and_then(toml::Value::as_str).unwrap_or("a").to_string();
    let other = if side == "a" { "b" } else { "a" };
    let line = &set.lines[k];
    let point = |p| frame.piece_to_board(p);
    let angle = |a| frame.angle_to_board(a);
    // The line's units first, so a problem with `units[i]` of the placed scenario is
    // `lines[k].units[i]` of the set; then the charger's side as the file writes it.
    let mut placed = mapped(&line.units, &point, &angle);
    for u in &mut placed {
        if let Some(t) = u.as_table_mut() {
            t.insert("side".into(), toml::Value::String(other.into()));
        }
    }
    placed.extend(units.iter().filter(|u| u.get("side").and_then(toml::Value::as_str) == Some(side.as_str())).cloned());
    table.insert("units".into(), toml::Value::Array(placed));
    if let Some(charge) = table.get_mut("charge").and_then(toml::Value::as_table_mut) {
        charge.insert("target".into(), toml::Value::String(line.target.clone().unwrap_or_default()));
    }
    let title = table.get("title").and_then(toml::Value::as_str).unwrap_or("the piece").to_string();
    table.insert("title".into(), toml::Value::String(format!("{title}, against {}", line.name)));
    toml::to_string(&table).map_err(|e| refuse(&e.to_string()))
}

/// A problem found when line `k` was placed in front of `piece_file` and read as a
/// scenario, restated against the set's file: a field of the line is named as the set
/// writes it (`lines[2].formations[0].profile.wounds`, with its line in the set), any
/// other as the piece's.
pub fn placed_problems(set: &MatchupSet, k: usize, piece_file: &str, problems: Vec<Problem>) -> MatchupError {
    let problems = problems
        .into_iter()
        .map(|p| {
            let of_line = ["formations", "terrain", "army", "units"].iter().any(|key| {
                p.field == *key || p.field.starts_with(&format!("{key}.")) || p.field.starts_with(&format!("{key}["))
            });
            if of_line {
                let field = format!("lines[{k}].{}", p.field);
                Problem { line: locate(&set.text, &field), field, message: p.message }
            } else {
                Problem { field: p.field.clone(), line: None, message: format!("{} (in {piece_file})", p.message) }
            }
        })
        .collect();
    MatchupError::Invalid {
        file: set.file.clone(),
        context: format!(
            "{}: line \"{}\" placed in front of {piece_file} is not a valid scenario",
            set.file, set.lines[k].name
        ),
        problems,
    }
}

/// A scenario's own line (formations, terrain and army, names left out) in its chariot's
/// frame, as comparable text: two scenarios charge the same line when these are equal.
/// `None` for a file without a chariot (BATTLESYSTEM).
pub fn line_of(piece: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(piece).ok()?;
    let frame = frame_of(&table)?;
    let point = |p| frame.board_to_piece(p);
    let angle = |a| frame.angle_from_board(a);
    let list = |key: &str| {
        let tables = table.get(key).and_then(toml::Value::as_array).cloned().unwrap_or_default();
        let mut out = mapped(&tables, &point, &angle);
        for t in &mut out {
            if let Some(t) = t.as_table_mut() {
                t.remove("name");
            }
        }
        out
    };
    let line = serde_json::json!({
        "formations": list("formations"),
        "terrain": list("terrain"),
        "army": table.get("army"),
    });
    Some(line.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SET: &str = r#"
title = "Two lines"

[[lines]]
name = "One warrior"
weight = 2
[[lines.formations]]
name = "Warrior"
count = 1
ranks = 1
base = { round_mm = 25 }
front_centre = [0.0, 6.0]
facing = 180
profile = { fight = 3, strength = 3, defence = 4, attacks = 1, wounds = 1, courage = "7+", points = 6 }

[[lines]]
name = "Wall"
[[lines.formations]]
name = "Warrior"
count = 1
ranks = 1
base = { round_mm = 25 }
front_centre = [2.0, 6.0]
facing = 180
profile = { fight = 3, strength = 3, defence = 4, attacks = 1, wounds = 1, courage = "7+", points = 6 }
[[lines.terrain]]
name = "Wall"
kind = "obstacle"
from = [-3.0, 3.0]
to = [3.0, 3.0]
"#;

    const PIECE: &str = r#"
title = "A chariot"
system = "mesbg"
trials = 1000
seed = 1

[chariot]
name = "Chariot"
side = "evil"
move = 10
fight = 3
strength = 3
defence = 6
attacks = 1
wounds = 3
courage = "7+"
impact = { hits = "1", strength = 4 }
base = { round_mm = 60 }
at = [10.0, 20.0]
facing = 90
points = 40

[charge]
pivots = [0]

[[formations]]
name = "Somebody else"
count = 3
ranks = 1
base = { round_mm = 25 }
front_centre = [16.0, 20.0]
facing = 270
profile = { fight = 3, strength = 3, defence = 4, attacks = 1, wounds = 1, courage = "7+", points = 6 }
"#;

    #[test]
    fn a_line_is_placed_ahead_of_the_chariot_whichever_way_it_faces() {
        let set = parse(SET, "set.toml").expect("the set reads");
        assert_eq!(set.lines.len(), 2);
        assert_eq!(set.lines[0].weight, 2.0);
        let placed: toml::Table = toml::from_str(&place(PIECE, "piece.toml", &set, 1).unwrap()).unwrap();
        // Facing 90 (towards +x): 6" ahead and 2" right of (10, 20) is (16, 18).
        let f = &placed["formations"].as_array().unwrap()[0];
        assert_eq!(pair(&f["front_centre"]), Some([16.0, 18.0]));
        assert_eq!(number(&f["facing"]), Some(270.0));
        assert_eq!(placed["formations"].as_array().unwrap().len(), 1, "the piece's own line is replaced");
        let wall = &placed["terrain"].as_array().unwrap()[0];
        assert_eq!(pair(&wall["from"]), Some([13.0, 23.0]));
        assert_eq!(pair(&wall["to"]), Some([13.0, 17.0]));
        assert_eq!(placed["title"].as_str(), Some("A chariot, against Wall"));
        // The placed scenario is a valid one, and its line reads back as the set wrote it.
        let text = place(PIECE, "piece.toml", &set, 0).unwrap();
        crate::mesbg::scenario::parse(&text, "placed").expect("the placed scenario reads");
        let own = |text: &str| line_of(text).unwrap();
        let straight = PIECE.replace("at = [10.0, 20.0]\nfacing = 90", "at = [0.0, 0.0]\nfacing = 0");
        assert_eq!(own(&text), own(&place(&straight, "s.toml", &set, 0).unwrap()));
        assert_ne!(own(&text), own(&place(PIECE, "piece.toml", &set, 1).unwrap()));
    }

    #[test]
    fn a_bad_set_is_refused_naming_each_field_and_line() {
        let bad = SET.replace("weight = 2", "weight = -1").replace("front_centre = [2.0, 6.0]", "front_centre = [2.0]");
        let err = parse(&bad, "set.toml").unwrap_err().to_string();
        assert!(err.contains("set.toml:6: field `lines[0].weight`"), "{err}");
        assert!(err.contains("field `lines[1].formations[0].front_centre`"), "{err}");
        let twice =
            SET.replace("name = \"Wall\"\n[[lines.formations]]", "name = \"One warrior\"\n[[lines.formations]]");
        assert!(parse(&twice, "s").unwrap_err().to_string().contains("names two lines"));
        assert!(parse("title = \"x\"", "s").unwrap_err().to_string().contains("[[lines]]"));
    }

    #[test]
    fn a_problem_of_a_placed_line_is_named_in_the_set() {
        let bad = SET.replace("points = 6 }\n\n[[lines]]", "points = 6, wounds = 0 }\n\n[[lines]]");
        let bad = bad.replacen(
            "wounds = 1, courage = \"7+\", points = 6, wounds = 0",
            "wounds = 0, courage = \"7+\", points = 6",
            1,
        );
        let set = parse(&bad, "set.toml").unwrap();
        let text = place(PIECE, "piece.toml", &set, 0).unwrap();
        let Err(crate::input::ScenarioError::Invalid { problems, .. }) = crate::mesbg::scenario::parse(&text, "x")
        else {
            panic!("a warrior with no Wounds is refused");
        };
        let err = placed_problems(&set, 0, "piece.toml", problems).to_string();
        assert!(err.contains("line \"One warrior\" placed in front of piece.toml"), "{err}");
        assert!(err.contains("set.toml:14: field `lines[0].formations[0].profile.wounds`"), "{err}");
    }
}
