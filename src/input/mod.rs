//! Reading scenario files, for both rule systems: size limits, the problems a file can
//! have (each naming its file, line and field) and their rendering, locating a field's
//! line in the TOML source, the checks every scenario's header shares, the rule options
//! every report prints, and the stable hash that keys a scenario's streams.

use serde::Serialize;
use std::fmt;
use std::path::Path;

mod locate;
mod nearest;

pub use nearest::nearest_names;

pub use locate::locate;
pub(crate) use locate::{field_at, line_of};

/// The largest number of trials a scenario may ask for (about nine hours at 30 M/s).
pub const MAX_TRIALS: u64 = 1_000_000_000_000;

/// The largest scenario file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// One thing wrong with a scenario file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Dotted path of the field, e.g. `formations[0].profile.wounds` (empty for syntax).
    pub field: String,
    /// 1-based line in the file, when known.
    pub line: Option<usize>,
    /// What is wrong and what is allowed.
    pub message: String,
}

/// Why a scenario could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("cannot read scenario file {file}: {source}")]
    Read {
        /// The path as given.
        file: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file was read but is not a valid scenario.
    #[error("{}", render_problems(file, problems))]
    Invalid {
        /// The path as given.
        file: String,
        /// Everything found wrong, in file order where lines are known.
        problems: Vec<Problem>,
    },
}

fn render_problems(file: &str, problems: &[Problem]) -> String {
    let mut out = format!("{file} is not a valid scenario ({} problem{}):", problems.len(), plural(problems.len()));
    for p in problems {
        out.push_str("\n  ");
        out.push_str(&p.located(file));
    }
    out
}

impl Problem {
    /// The problem on one line: `file:line: field `x`: message`.
    pub fn located(&self, file: &str) -> String {
        let mut out = match self.line {
            Some(line) => format!("{file}:{line}: "),
            None => format!("{file}: "),
        };
        if !self.field.is_empty() {
            out.push_str(&format!("field `{}`: ", self.field));
        }
        out.push_str(&self.message);
        out
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// One rule option or policy in force, as every report prints it: its name as a scenario
/// writes it, its value and default, and what that value means in the rules reference's
/// terms.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleOption {
    /// Where it is written: a `[rules]` key, `chariot.hero.<field>` for the riding Hero's
    /// policy, or the path of an enemy Hero's profile field.
    pub name: std::borrow::Cow<'static, str>,
    /// The value in force, as written.
    pub value: String,
    /// The reference's default, as written.
    pub default: String,
    /// What the value in force means.
    pub reads: std::borrow::Cow<'static, str>,
}

impl RuleOption {
    /// An option from its value and default (written as a scenario writes them) and what
    /// the value means.
    pub fn of<T: Serialize>(
        name: impl Into<std::borrow::Cow<'static, str>>,
        value: &T,
        default: &T,
        reads: impl Into<std::borrow::Cow<'static, str>>,
    ) -> Self {
        Self { name: name.into(), value: as_written(value), default: as_written(default), reads: reads.into() }
    }
}

/// A value as a scenario file writes it (a unit enum's snake_case name, unquoted).
fn as_written<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value).map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)).unwrap_or_default()
}

/// FNV-1a, 64 bit: tiny, stable across Rust versions and platforms.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// The input files a command read, as it read them: recorded while a shard plays (so the
/// shard carries its inputs and `merge` needs nothing else), and answered from while a
/// merge replays the command (so the merged report is the shards' inputs' report, even on
/// another machine or after a file changed).
#[derive(Debug, Default)]
struct InputFiles {
    /// Record every file read (path as given, text).
    recording: Option<Vec<(String, String)>>,
    /// Answer reads of these paths (as given) with these texts instead of the disk's.
    replaying: Option<Vec<(String, String)>>,
}

static INPUT_FILES: std::sync::Mutex<InputFiles> =
    std::sync::Mutex::new(InputFiles { recording: None, replaying: None });

fn input_files() -> std::sync::MutexGuard<'static, InputFiles> {
    INPUT_FILES.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Starts recording the files [`read`] reads (the earlier record is dropped).
pub fn record_inputs() {
    input_files().recording = Some(Vec::new());
}

/// Stops recording and returns each file read, once, in the order first read.
pub fn recorded_inputs() -> Vec<(String, String)> {
    input_files().recording.take().unwrap_or_default()
}

/// Makes [`read`] answer these paths (as given) with these texts until
/// [`stop_replaying_inputs`]; a path not among them is read from disk as usual.
pub fn replay_inputs(files: Vec<(String, String)>) {
    input_files().replaying = Some(files);
}

/// Makes [`read`] read the disk again.
pub fn stop_replaying_inputs() {
    input_files().replaying = None;
}

/// Reads a scenario file's text, refusing files too large or not UTF-8.
pub fn read(path: &Path) -> Result<String, ScenarioError> {
    let file = path.display().to_string();
    let replayed = input_files()
        .replaying
        .as_ref()
        .and_then(|files| files.iter().find(|(p, _)| *p == file).map(|(_, text)| text.clone()));
    let text = match replayed {
        Some(text) => text,
        None => read_from_disk(path)?,
    };
    if let Some(recorded) = input_files().recording.as_mut()
        && !recorded.iter().any(|(p, _)| *p == file)
    {
        recorded.push((file, text.clone()));
    }
    Ok(text)
}

/// [`read`] from the disk.
fn read_from_disk(path: &Path) -> Result<String, ScenarioError> {
    let file = path.display().to_string();
    let read_error = |source| ScenarioError::Read { file: file.clone(), source };
    let size = std::fs::metadata(path).map_err(read_error)?.len();
    if size > MAX_FILE_BYTES {
        return Err(ScenarioError::Invalid {
            file: file.clone(),
            problems: vec![Problem {
                field: String::new(),
                line: None,
                message: format!("the file is {size} bytes; a scenario may be at most {MAX_FILE_BYTES} bytes"),
            }],
        });
    }
    let bytes = std::fs::read(path).map_err(read_error)?;
    let text = String::from_utf8(bytes).map_err(|e| ScenarioError::Invalid {
        file: file.clone(),
        problems: vec![Problem {
            field: String::new(),
            line: None,
            message: format!("the file is not UTF-8 text (bad byte at offset {})", e.utf8_error().valid_up_to()),
        }],
    })?;
    Ok(text)
}

/// Serde's messages speak of Rust types; users write TOML.
pub(crate) fn plain_words(message: &str) -> String {
    let mut text = message.trim().replace('\n', " ");
    for (rust, toml) in [
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
        ("expected a sequence", "expected an array like [1, 2]"),
        ("expected an array of length 2", "expected an array of two numbers like [0.0, 6.0]"),
        ("expected struct Raw", "expected a table "),
        ("expected a string", "expected a string in quotes"),
    ] {
        text = text.replace(rust, toml);
    }
    text
}

/// Records a problem with `field`, located on its line in `text`.
pub(crate) fn record(text: &str, problems: &mut Vec<Problem>, field: &str, message: impl fmt::Display) {
    problems.push(Problem { field: field.to_string(), line: locate(text, field), message: message.to_string() });
}

/// `value` if it is finite and within `lo..=hi`; otherwise records why (naming it `what`)
/// and returns `lo`, so validation goes on to report every problem at once.
pub(crate) fn checked_float(
    text: &str,
    problems: &mut Vec<Problem>,
    field: &str,
    value: f64,
    (lo, hi): (f64, f64),
    what: &str,
) -> f64 {
    if !value.is_finite() {
        record(text, problems, field, format!("{what} must be a finite number, not {value}"));
        lo
    } else if value < lo || value > hi {
        record(text, problems, field, format!("{what} {value} is out of range; allowed {lo} to {hi}"));
        lo
    } else {
        value
    }
}

/// Checks the fields every scenario starts with (title, question, trials, seed) and
/// returns the trials and seed, defaults filled in; problems go to `problems`.
pub(crate) fn header_fields(
    text: &str,
    problems: &mut Vec<Problem>,
    title: &str,
    question: Option<&str>,
    trials: Option<i64>,
    seed: Option<i64>,
) -> (u64, u64) {
    let mut fail = |field: &str, message: String| record(text, problems, field, message);
    if title.trim().is_empty() || title.len() > 200 {
        fail("title", "the title must be 1 to 200 characters".into());
    }
    if question.is_some_and(|q| q.len() > 1000) {
        fail("question", "the question must be at most 1000 characters".into());
    }
    let trials = match trials {
        None => 100_000,
        Some(t) if t >= 1 && (t as u64) <= MAX_TRIALS => t as u64,
        Some(t) => {
            fail("trials", format!("trials = {t} is out of range; allowed 1 to {MAX_TRIALS}"));
            1
        }
    };
    let seed = match seed {
        None => 1,
        Some(s) if s >= 0 => s as u64,
        Some(s) => {
            fail("seed", format!("seed = {s} is negative; use a whole number from 0 to {}", i64::MAX));
            0
        }
    };
    (trials, seed)
}

/// Lower-case letters and digits of `text`, other runs as one `-` (titles are at most 200
/// characters, so a folder name is never cut).
pub fn slug_of(text: &str, empty: &str) -> String {
    let mut slug = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-').to_string();
    if slug.is_empty() { empty.to_string() } else { slug }
}

/// The problem of a file the TOML reader refused, located where it can be. A missing
/// field is blamed on the field itself (`title`, `chariot.impact.hits`), not on whatever
/// key its table starts with: a missing top-level field has no line.
pub(crate) fn toml_problem(text: &str, e: &toml::de::Error) -> Problem {
    let span = e.span();
    let message = plain_words(e.message());
    let missing = e.message().strip_prefix("missing field `").and_then(|m| m.split('`').next()).map(str::to_string);
    if let Some(missing) = missing {
        // The document's own table starts at 0 (a comment or a key there); a table that
        // lacks the field starts at its `[header]` or inline `{`.
        let top_level = span.as_ref().is_none_or(|s| s.start == 0 && !text.starts_with('['));
        if top_level {
            return Problem { field: missing, line: None, message };
        }
        let table = span.as_ref().map(|s| field_at(text, s.start)).unwrap_or_default();
        let field = if table.is_empty() { missing } else { format!("{table}.{missing}") };
        return Problem { field, line: span.map(|s| line_of(text, s.start)), message };
    }
    let line = span.as_ref().map(|s| line_of(text, s.start));
    let field = span.map(|s| field_at(text, s.start)).unwrap_or_default();
    Problem { field, line, message }
}

/// What reading a scenario's text into its raw form found: the raw form (when serde could
/// read the file once the items it refused were taken out), every problem serde met, and
/// the paths of the items taken out (problems that only follow from taking them out are
/// not reported again).
pub(crate) struct RawReading<T> {
    /// The raw scenario, if the file could be read at all.
    pub raw: Option<T>,
    /// Every problem met, in the order met.
    pub problems: Vec<Problem>,
    /// The dotted paths of the items taken out.
    pub removed: Vec<String>,
}

/// Whether a problem at `field` only follows from one of the `removed` items (the item
/// itself, or a field inside it).
pub(crate) fn follows_removal(removed: &[String], field: &str) -> bool {
    removed.iter().any(|r| field == r || field.starts_with(&format!("{r}.")) || field.starts_with(&format!("{r}[")))
}

/// The most problems serde is asked for before a file is given up on.
const MAX_READ_PROBLEMS: usize = 64;

/// Reads scenario `text` into `T`, reporting every problem serde meets rather than only the
/// first: each refused item (an unknown field, a value of the wrong type) is noted and
/// blanked out of a working copy (its bytes become spaces, so lines and offsets stay), and
/// the copy is read again. A syntax error, or a missing field that is not one taken out,
/// ends the reading.
pub(crate) fn read_all_problems<T: serde::de::DeserializeOwned>(text: &str) -> RawReading<T> {
    let mut working = text.to_string();
    let mut reading = RawReading { raw: None, problems: Vec::new(), removed: Vec::new() };
    if let Err(e) = toml::from_str::<toml::Table>(text) {
        reading.problems.push(toml_problem(text, &e));
        return reading;
    }
    for _ in 0..MAX_READ_PROBLEMS {
        let e = match toml::from_str::<T>(&working) {
            Ok(raw) => {
                reading.raw = Some(raw);
                return reading;
            }
            Err(e) => e,
        };
        let problem = toml_problem(&working, &e);
        let missing = e.message().starts_with("missing field");
        if missing && follows_removal(&reading.removed, &problem.field) {
            return reading; // it only lacks what was taken out
        }
        reading.problems.push(problem);
        if missing {
            return reading;
        }
        let Some((path, range)) = e.span().and_then(|s| locate::item_at(&working, s.start)) else {
            return reading;
        };
        let mut blanked = working.clone();
        // Every character but a newline becomes as many spaces as its bytes: the same lines
        // and offsets, still UTF-8.
        let bytes: String = working[range.clone()]
            .chars()
            .map(|c| if c == '\n' { "\n".to_string() } else { " ".repeat(c.len_utf8()) })
            .collect();
        blanked.replace_range(range, &bytes);
        if toml::from_str::<toml::Table>(&blanked).is_err() {
            return reading;
        }
        reading.removed.push(path);
        working = blanked;
    }
    reading
}
