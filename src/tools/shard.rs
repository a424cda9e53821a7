//! Runs split across machines: `run --shard K/N` plays only its share of the trial indices
//! and writes a partial tally; `merge` adds the partial tallies into the tally a single run
//! would have made (integer addition, so the merged report's `summary.csv` is byte for byte
//! the single run's). Each shard file carries the scenario's text, so the merge needs
//! nothing but the shard files. Both rule systems shard the same way: a shard names its
//! system and holds that system's tally.

use crate::engine::{RuleSystem, TrialRange};
use crate::mesbg::scenario::ScenarioError;
use crate::mesbg::tally::Tally;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The version of the shard file layout.
/// (2: a checksum over the contents, so an edited or damaged shard is refused;
/// 3: the rule system is named, and its tally is that system's.)
pub const SHARD_SCHEMA: &str = "charioteer.shard/3";

/// Which share of a run's trials one machine plays: shard `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardSpec {
    /// 1-based shard number.
    pub index: u64,
    /// Number of shards.
    pub count: u64,
}

impl std::str::FromStr for ShardSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("--shard takes K/N with 1 <= K <= N <= 100000 (e.g. 2/8), not {text:?}");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let index: u64 = k.trim().parse().map_err(|_| bad())?;
        let count: u64 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count || count > 100_000 {
            return Err(bad());
        }
        Ok(Self { index, count })
    }
}

impl ShardSpec {
    /// The trial indices of this shard: contiguous, and the shards of a run cover
    /// `0..trials` exactly once.
    pub fn range(self, trials: u64) -> TrialRange {
        let bound = |k: u64| ((u128::from(trials) * u128::from(k)) / u128::from(self.count)) as u64;
        let first = bound(self.index - 1);
        TrialRange { first, count: bound(self.index) - first }
    }

    /// The shard file's name, e.g. `shard-2-of-8.json`.
    pub fn file_name(self) -> String {
        format!("shard-{}-of-{}.json", self.index, self.count)
    }
}

/// A partial tally (of rule system tally type `T`) and everything needed to merge it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ShardFile<T = Tally> {
    /// [`SHARD_SCHEMA`].
    pub schema: String,
    /// The rule system (`mesbg`, `battlesystem`), whose tally `tally` is.
    pub system: String,
    /// charioteer version that played it.
    pub version: String,
    /// The scenario's file name, as a run reports it.
    pub scenario_file: String,
    /// The scenario's full text.
    pub scenario_text: String,
    /// The scenario hash (16 hex digits).
    pub scenario_hash: String,
    /// Seed of the run.
    pub seed: u64,
    /// Trials of the whole run.
    pub trials: u64,
    /// Which shard.
    pub shard: ShardSpec,
    /// Its trial indices.
    pub first: u64,
    /// How many.
    pub count: u64,
    /// Wall-clock seconds it took.
    pub elapsed_s: f64,
    /// Threads the shard was played on.
    pub threads: usize,
    /// Its tally.
    pub tally: T,
    /// 16 hex digits: a hash of everything above ([`ShardFile::sealed`]), so that a shard
    /// edited or damaged after it was written is refused by `merge` rather than merged.
    #[serde(default)]
    pub checksum: String,
}

/// The fields of a shard file that say what it is, read before its tally's type is known.
#[derive(Deserialize)]
struct ShardHeader {
    schema: String,
    #[serde(default)]
    system: String,
}

impl<T: Serialize + Clone> ShardFile<T> {
    /// The checksum of the contents (every field but the checksum itself): FNV-1a over
    /// their JSON, which is deterministic (the tally is stored as vectors).
    fn content_checksum(&self) -> String {
        let text = serde_json::to_string(&Self { checksum: String::new(), ..self.clone() }).unwrap_or_default();
        let hash =
            text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        format!("{hash:016x}")
    }

    /// The shard with its checksum set, ready to be written.
    pub fn sealed(self) -> Self {
        let checksum = self.content_checksum();
        Self { checksum, ..self }
    }
}

/// Why shard files could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A file or folder could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A file is not a shard file.
    #[error("{path} is not a charioteer shard file ({reason})")]
    NotAShard {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// Shards of different runs.
    #[error("{path} belongs to a different run: its {field} is {found}, the first shard's is {expected}")]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// The field that differs.
        field: &'static str,
        /// The first shard's value.
        expected: String,
        /// This shard's value.
        found: String,
    },
    /// Shards missing or given twice.
    #[error("shards of {count}: {problem}; merge needs each of 1..={count} exactly once")]
    Incomplete {
        /// Shards in the run.
        count: u64,
        /// Which are missing or repeated.
        problem: String,
    },
    /// The embedded scenario no longer parses (a different charioteer version).
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
}

/// The shard files named by `paths`: files as given, folders searched for `shard-*.json`.
pub fn find_shard_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, MergeError> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let entries = std::fs::read_dir(path).map_err(|source| MergeError::Io { path: path.clone(), source })?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    name.starts_with("shard-") && name.ends_with(".json")
                })
                .collect();
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// The rule system a shard file was played under (after checking its schema), so the
/// caller can read it with that system's tally.
pub fn shard_system(path: &Path) -> Result<String, MergeError> {
    let text = std::fs::read_to_string(path).map_err(|source| MergeError::Io { path: path.to_path_buf(), source })?;
    let header: ShardHeader = serde_json::from_str(&text)
        .map_err(|e| MergeError::NotAShard { path: path.to_path_buf(), reason: e.to_string() })?;
    if header.schema != SHARD_SCHEMA {
        return Err(MergeError::NotAShard {
            path: path.to_path_buf(),
            reason: format!(
                "schema {:?}, expected {SHARD_SCHEMA:?}: it was written by another charioteer version; play it again \
                 with this one",
                header.schema
            ),
        });
    }
    Ok(header.system)
}

/// Reads one shard file of a run of rule system `S`.
pub fn read_shard<S: RuleSystem>(path: &Path) -> Result<ShardFile<S::Tally>, MergeError> {
    let system = shard_system(path)?;
    if system != S::SYSTEM {
        return Err(MergeError::NotAShard {
            path: path.to_path_buf(),
            reason: format!("it holds a {system:?} run, the first shard a {:?} run", S::SYSTEM),
        });
    }
    let text = std::fs::read_to_string(path).map_err(|source| MergeError::Io { path: path.to_path_buf(), source })?;
    let shard: ShardFile<S::Tally> = serde_json::from_str(&text)
        .map_err(|e| MergeError::NotAShard { path: path.to_path_buf(), reason: e.to_string() })?;
    if shard.checksum != shard.content_checksum() {
        return Err(MergeError::NotAShard {
            path: path.to_path_buf(),
            reason: "its contents do not match its checksum: it was edited or damaged after it was written; \
                     play that shard again"
                .into(),
        });
    }
    Ok(shard)
}

/// A merged run: its scenario file and text, seed, trials, summed elapsed time and tally.
#[derive(Clone, Debug)]
pub struct Merged<T> {
    /// The scenario's file name, as the shards' run reported it.
    pub scenario_file: String,
    /// The scenario's text.
    pub scenario_text: String,
    /// Seed.
    pub seed: u64,
    /// Total trials.
    pub trials: u64,
    /// Shards merged.
    pub shards: u64,
    /// Sum of the shards' wall-clock seconds.
    pub elapsed_s: f64,
    /// The most threads any shard played on (a shard's threads, for one machine's run).
    pub threads: usize,
    /// The merged tally.
    pub tally: T,
}

/// Checks that `files` are every shard of one run of rule system `S`, exactly once, and
/// merges them. `hash_of` parses the scenario text the shards carry (`file`, `text`) and
/// gives its hash as this version computes it, so a shard from a version that reads the
/// scenario differently is refused.
pub fn merge<S: RuleSystem>(
    files: &[PathBuf],
    hash_of: impl Fn(&str, &str) -> Result<u64, ScenarioError>,
) -> Result<Merged<S::Tally>, MergeError>
where
    S::Tally: DeserializeOwned,
{
    let shards: Vec<(PathBuf, ShardFile<S::Tally>)> =
        files.iter().map(|p| read_shard::<S>(p).map(|s| (p.clone(), s))).collect::<Result<_, _>>()?;
    let Some((_, first)) = shards.first() else {
        return Err(MergeError::Incomplete { count: 0, problem: "no shard files given".into() });
    };
    let count = first.shard.count;
    for (path, s) in &shards {
        let check = |field: &'static str, expected: String, found: String| {
            if expected == found {
                Ok(())
            } else {
                Err(MergeError::Mismatch { path: path.clone(), field, expected, found })
            }
        };
        check("scenario_hash", first.scenario_hash.clone(), s.scenario_hash.clone())?;
        check("seed", first.seed.to_string(), s.seed.to_string())?;
        check("trials", first.trials.to_string(), s.trials.to_string())?;
        check("shard count", count.to_string(), s.shard.count.to_string())?;
        let range = s.shard.range(s.trials);
        let held = S::trials_in(&s.tally);
        if (range.first, range.count) != (s.first, s.count) || held != s.count {
            return Err(MergeError::NotAShard {
                path: path.clone(),
                reason: format!("shard {} holds {held} trials from {}, not its share", s.shard.index, s.first),
            });
        }
    }
    if let Some(problem) = coverage_problem(count, shards.iter().map(|(_, s)| s.shard.index)) {
        return Err(MergeError::Incomplete { count, problem });
    }
    let hash = hash_of(&first.scenario_text, &first.scenario_file)?;
    if format!("{hash:016x}") != first.scenario_hash {
        return Err(MergeError::Mismatch {
            path: shards[0].0.clone(),
            field: "scenario hash (recomputed by this version)",
            expected: first.scenario_hash.clone(),
            found: format!("{hash:016x}"),
        });
    }
    let mut sorted: Vec<&ShardFile<S::Tally>> = shards.iter().map(|(_, s)| s).collect();
    sorted.sort_by_key(|s| s.shard.index);
    let mut tally = sorted[0].tally.clone();
    for s in &sorted[1..] {
        S::merge_tally(&mut tally, &s.tally);
    }
    Ok(Merged {
        scenario_file: first.scenario_file.clone(),
        scenario_text: first.scenario_text.clone(),
        seed: first.seed,
        trials: first.trials,
        shards: count,
        elapsed_s: sorted.iter().map(|s| s.elapsed_s).sum(),
        threads: sorted.iter().map(|s| s.threads).max().unwrap_or(0),
        tally,
    })
}

/// The version of the layout of a shard of a sweep, a balance or a comparison.
pub const JOB_SHARD_SCHEMA: &str = "charioteer.job-shard/1";

/// One play of a command (a sweep point's run, a balance's paired run against one
/// reference or line, a comparison's paired run), as one shard holds it: the trials it
/// played of it and their partial result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayPart {
    /// What the play is, in words (equal in every shard of a job).
    pub label: String,
    /// The first trial index of the whole play.
    pub first: u64,
    /// The trials of the whole play.
    pub count: u64,
    /// The first trial this shard played of it.
    pub part_first: u64,
    /// How many it played (the shard's share; 0 when the play has fewer trials than shards).
    pub part_count: u64,
    /// The partial result (the rule system's tally, or paired sums): exact integers, so the
    /// parts add up to the whole play's result in any order.
    pub result: serde_json::Value,
}

/// A shard of a sweep, a balance or a comparison: its share of the trials of every play the
/// command makes, the command's options and every input file it read, so that `merge`
/// replays the command on the merged results and writes the report one machine would.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JobShardFile {
    /// [`JOB_SHARD_SCHEMA`].
    pub schema: String,
    /// charioteer version that played it.
    pub version: String,
    /// The command (`sweep`, `balance`, `compare`).
    pub command: String,
    /// The command's options (without the shard, report folder, threads or printing).
    pub args: serde_json::Value,
    /// Every input file the command read, as (path as given, text).
    pub inputs: Vec<(String, String)>,
    /// 16 hex digits naming the job: a hash of the command, its options and its inputs.
    pub job: String,
    /// Which shard.
    pub shard: ShardSpec,
    /// Its part of every play, in the order the command makes them.
    pub plays: Vec<PlayPart>,
    /// Wall-clock seconds it took.
    pub elapsed_s: f64,
    /// Threads it was played on.
    pub threads: usize,
    /// 16 hex digits over everything above, so an edited or damaged shard is refused.
    #[serde(default)]
    pub checksum: String,
}

/// FNV-1a over `text`, as 16 hex digits.
fn fnv_hex(text: &str) -> String {
    format!("{:016x}", crate::input::fnv1a(text.as_bytes()))
}

/// The name of a job: a hash of its command, options and inputs.
pub fn job_key(command: &str, args: &serde_json::Value, inputs: &[(String, String)]) -> String {
    fnv_hex(&serde_json::to_string(&(command, args, inputs)).unwrap_or_default())
}

impl JobShardFile {
    fn content_checksum(&self) -> String {
        fnv_hex(&serde_json::to_string(&Self { checksum: String::new(), ..self.clone() }).unwrap_or_default())
    }

    /// The shard with its checksum set, ready to be written.
    pub fn sealed(self) -> Self {
        let checksum = self.content_checksum();
        Self { checksum, ..self }
    }
}

/// The schema a shard file names (`charioteer.shard/3` for a run's, [`JOB_SHARD_SCHEMA`]
/// for a sweep's, balance's or comparison's).
pub fn shard_schema(path: &Path) -> Result<String, MergeError> {
    let text = std::fs::read_to_string(path).map_err(|source| MergeError::Io { path: path.to_path_buf(), source })?;
    let header: ShardHeader = serde_json::from_str(&text)
        .map_err(|e| MergeError::NotAShard { path: path.to_path_buf(), reason: e.to_string() })?;
    Ok(header.schema)
}

/// One play of a merged job: what it is and every shard's part of its result, in shard
/// order.
#[derive(Clone, Debug, PartialEq)]
pub struct MergedPlay {
    /// What the play is.
    pub label: String,
    /// Its whole trial range.
    pub range: TrialRange,
    /// Every shard's partial result.
    pub parts: Vec<serde_json::Value>,
}

/// The shards of one job, checked and gathered: the command to replay on them.
#[derive(Clone, Debug)]
pub struct MergedJob {
    /// The command.
    pub command: String,
    /// Its options.
    pub args: serde_json::Value,
    /// Its input files.
    pub inputs: Vec<(String, String)>,
    /// Every play, with its parts.
    pub plays: Vec<MergedPlay>,
    /// Shards merged.
    pub shards: u64,
    /// Sum of the shards' wall-clock seconds.
    pub elapsed_s: f64,
    /// The most threads a shard played on.
    pub threads: usize,
}

/// Reads one job shard file, refusing one edited or damaged after it was written.
pub fn read_job_shard(path: &Path) -> Result<JobShardFile, MergeError> {
    let schema = shard_schema(path)?;
    if schema != JOB_SHARD_SCHEMA {
        return Err(MergeError::NotAShard {
            path: path.to_path_buf(),
            reason: format!(
                "schema {schema:?}, expected {JOB_SHARD_SCHEMA:?}: it is not a shard of a sweep, balance or compare \
                 (or another charioteer version wrote it; play it again with this one)"
            ),
        });
    }
    let text = std::fs::read_to_string(path).map_err(|source| MergeError::Io { path: path.to_path_buf(), source })?;
    let shard: JobShardFile = serde_json::from_str(&text)
        .map_err(|e| MergeError::NotAShard { path: path.to_path_buf(), reason: e.to_string() })?;
    if shard.checksum != shard.content_checksum() {
        return Err(MergeError::NotAShard {
            path: path.to_path_buf(),
            reason: "its contents do not match its checksum: it was edited or damaged after it was written; play that \
                     shard again"
                .into(),
        });
    }
    Ok(shard)
}

/// Which shards of `count` are missing or given more than once, in words (`None` when each
/// is there once).
fn coverage_problem(count: u64, indices: impl Iterator<Item = u64>) -> Option<String> {
    let mut seen = vec![0u32; count as usize + 1];
    let mut strays = Vec::new();
    for k in indices {
        match seen.get_mut(k as usize).filter(|_| k > 0) {
            Some(n) => *n += 1,
            None => strays.push(k.to_string()),
        }
    }
    let missing: Vec<String> = (1..=count).filter(|&k| seen[k as usize] == 0).map(|k| k.to_string()).collect();
    let twice: Vec<String> = (1..=count).filter(|&k| seen[k as usize] > 1).map(|k| k.to_string()).collect();
    let mut problem = Vec::new();
    if !missing.is_empty() {
        problem.push(format!("missing {}", missing.join(", ")));
    }
    if !twice.is_empty() {
        problem.push(format!("given more than once {}", twice.join(", ")));
    }
    if !strays.is_empty() {
        problem.push(format!("numbered outside 1..={count}: {}", strays.join(", ")));
    }
    (!problem.is_empty()).then(|| problem.join("; "))
}

/// Checks that `files` are every shard of one job, exactly once, each holding its share of
/// every play, and gathers their parts play by play.
pub fn merge_job(files: &[PathBuf]) -> Result<MergedJob, MergeError> {
    let shards: Vec<(PathBuf, JobShardFile)> =
        files.iter().map(|p| read_job_shard(p).map(|s| (p.clone(), s))).collect::<Result<_, _>>()?;
    let Some((_, first)) = shards.first() else {
        return Err(MergeError::Incomplete { count: 0, problem: "no shard files given".into() });
    };
    let count = first.shard.count;
    for (path, s) in &shards {
        let mismatch = |field: &'static str, expected: String, found: String| MergeError::Mismatch {
            path: path.clone(),
            field,
            expected,
            found,
        };
        if s.job != first.job {
            return Err(mismatch("job (command, options and input files)", first.job.clone(), s.job.clone()));
        }
        if s.shard.count != count {
            return Err(mismatch("shard count", count.to_string(), s.shard.count.to_string()));
        }
        if s.version != first.version {
            return Err(mismatch("charioteer version", first.version.clone(), s.version.clone()));
        }
        if job_key(&s.command, &s.args, &s.inputs) != s.job {
            return Err(MergeError::NotAShard {
                path: path.clone(),
                reason: "its job name does not match its command, options and inputs".into(),
            });
        }
        if s.plays.len() != first.plays.len() {
            return Err(mismatch("number of plays", first.plays.len().to_string(), s.plays.len().to_string()));
        }
        for (part, model) in s.plays.iter().zip(&first.plays) {
            if (&part.label, part.first, part.count) != (&model.label, model.first, model.count) {
                return Err(mismatch(
                    "plays",
                    format!("{} ({} trials)", model.label, model.count),
                    format!("{} ({} trials)", part.label, part.count),
                ));
            }
            let share = s.shard.range(part.count);
            if (part.part_first, part.part_count) != (part.first + share.first, share.count) {
                return Err(MergeError::NotAShard {
                    path: path.clone(),
                    reason: format!(
                        "shard {} holds trials {}..{} of {}, not its share",
                        s.shard.index,
                        part.part_first,
                        part.part_first + part.part_count,
                        part.label
                    ),
                });
            }
        }
    }
    if let Some(problem) = coverage_problem(count, shards.iter().map(|(_, s)| s.shard.index)) {
        return Err(MergeError::Incomplete { count, problem });
    }
    let mut sorted: Vec<&JobShardFile> = shards.iter().map(|(_, s)| s).collect();
    sorted.sort_by_key(|s| s.shard.index);
    let plays = first
        .plays
        .iter()
        .enumerate()
        .map(|(i, p)| MergedPlay {
            label: p.label.clone(),
            range: TrialRange { first: p.first, count: p.count },
            parts: sorted.iter().map(|s| s.plays[i].result.clone()).collect(),
        })
        .collect();
    Ok(MergedJob {
        command: first.command.clone(),
        args: first.args.clone(),
        inputs: first.inputs.clone(),
        plays,
        shards: count,
        elapsed_s: sorted.iter().map(|s| s.elapsed_s).sum(),
        threads: sorted.iter().map(|s| s.threads).max().unwrap_or(0),
    })
}

/// Why a play could not be made or answered.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// Not a failure: a shard has played its part of every play of a piece of work, and
    /// what follows (the report) belongs to the merge. It unwinds the command.
    #[error("shard {index} of {count} has played its part; the report is written by `charioteer merge`")]
    ShardPlayed {
        /// The shard.
        index: u64,
        /// Shards in the job.
        count: u64,
    },
    /// A merged job's plays are not the ones the command asks for.
    #[error(
        "the merged shards do not fit this command: its play {index} is {asked}, the shards hold {held}; play the \
         shards again with this charioteer version"
    )]
    Mismatch {
        /// 1-based play number.
        index: usize,
        /// What the command asked for.
        asked: String,
        /// What the shards hold there.
        held: String,
    },
    /// A merged part does not read as the command's result type.
    #[error("the shards' result of {label} cannot be read: {reason}")]
    Unreadable {
        /// The play.
        label: String,
        /// Why.
        reason: String,
    },
}

/// Where a command's plays come from: played here in full (the default), played in part
/// for one shard (each play's trials split K/N, so every shard does an equal share of
/// every play), or answered from merged shards. Commands call [`Plays::play`] for each run
/// of trials and [`Plays::checkpoint`] once a piece of work has made all its plays, before
/// anything that reads their results can fail on a shard's part of them.
#[derive(Clone, Debug, Default)]
pub struct Plays(std::sync::Arc<std::sync::Mutex<Ledger>>);

#[derive(Debug, Default)]
struct Ledger {
    mode: Mode,
    /// A shard's parts, in play order.
    parts: Vec<PlayPart>,
    /// Merged plays answered so far.
    answered: usize,
}

#[derive(Debug, Default)]
enum Mode {
    #[default]
    Whole,
    Shard(ShardSpec),
    Merged(Vec<MergedPlay>),
}

impl Plays {
    /// Plays for shard `spec`: each play's share of its trials.
    pub fn shard(spec: ShardSpec) -> Self {
        Self(std::sync::Arc::new(std::sync::Mutex::new(Ledger { mode: Mode::Shard(spec), ..Ledger::default() })))
    }

    /// Plays answered from merged shards, in order.
    pub fn merged(plays: Vec<MergedPlay>) -> Self {
        Self(std::sync::Arc::new(std::sync::Mutex::new(Ledger { mode: Mode::Merged(plays), ..Ledger::default() })))
    }

    fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// True when plays are played here in full (not a shard, not a merge): only then does a
    /// command keep checkpoints of its own (a sweep's `--resume` state).
    pub fn is_whole(&self) -> bool {
        matches!(self.ledger().mode, Mode::Whole)
    }

    /// The shard being played, if any.
    pub fn shard_spec(&self) -> Option<ShardSpec> {
        match self.ledger().mode {
            Mode::Shard(spec) => Some(spec),
            _ => None,
        }
    }

    /// The result of trials `range` of the play `label`: `play(range)` in full; a shard's
    /// share of it (recorded for the shard file); or, in a merge, every shard's part read
    /// back and added with `add`.
    pub fn play<T, E>(
        &self,
        label: &str,
        range: TrialRange,
        play: impl FnOnce(TrialRange) -> Result<T, E>,
        add: impl Fn(&mut T, &T),
    ) -> Result<T, E>
    where
        T: Serialize + DeserializeOwned,
        E: From<PlayError>,
    {
        let (shard, merged) = {
            let ledger = self.ledger();
            match &ledger.mode {
                Mode::Whole => (None, false),
                Mode::Shard(spec) => (Some(*spec), false),
                Mode::Merged(_) => (None, true),
            }
        };
        if merged {
            return self.answer(label, range, add);
        }
        let Some(spec) = shard else { return play(range) };
        let share = spec.range(range.count);
        let part = TrialRange { first: range.first + share.first, count: share.count };
        let result = play(part)?;
        let value = serde_json::to_value(&result)
            .map_err(|e| PlayError::Unreadable { label: label.to_string(), reason: e.to_string() })?;
        self.ledger().parts.push(PlayPart {
            label: label.to_string(),
            first: range.first,
            count: range.count,
            part_first: part.first,
            part_count: part.count,
            result: value,
        });
        Ok(result)
    }

    /// A merged play's result: its parts read back and added in shard order.
    fn answer<T: DeserializeOwned, E: From<PlayError>>(
        &self,
        label: &str,
        range: TrialRange,
        add: impl Fn(&mut T, &T),
    ) -> Result<T, E> {
        let mut ledger = self.ledger();
        let index = ledger.answered;
        let Mode::Merged(plays) = &ledger.mode else {
            return Err(PlayError::Mismatch { index: index + 1, asked: label.into(), held: "no merge".into() }.into());
        };
        let asked = format!("{label} ({} trials from {})", range.count, range.first);
        let Some(merged) = plays.get(index) else {
            return Err(PlayError::Mismatch { index: index + 1, asked, held: "nothing (fewer plays)".into() }.into());
        };
        if merged.label != label || merged.range != range {
            let held = format!("{} ({} trials from {})", merged.label, merged.range.count, merged.range.first);
            return Err(PlayError::Mismatch { index: index + 1, asked, held }.into());
        }
        let read = |v: &serde_json::Value| {
            T::deserialize(v).map_err(|e| PlayError::Unreadable { label: label.to_string(), reason: e.to_string() })
        };
        let mut parts = merged.parts.iter();
        let mut total = match parts.next() {
            Some(v) => read(v)?,
            None => {
                let reason = "no shard holds a part of it".to_string();
                return Err(PlayError::Unreadable { label: label.to_string(), reason }.into());
            }
        };
        for part in parts {
            add(&mut total, &read(part)?);
        }
        ledger.answered += 1;
        Ok(total)
    }

    /// In a shard, stops the command once a piece of work has made all its plays (the
    /// rest reads their results, and belongs to the merge); otherwise does nothing.
    pub fn checkpoint(&self) -> Result<(), PlayError> {
        match self.shard_spec() {
            Some(spec) => Err(PlayError::ShardPlayed { index: spec.index, count: spec.count }),
            None => Ok(()),
        }
    }

    /// The shard's parts of every play made so far.
    pub fn parts(&self) -> Vec<PlayPart> {
        self.ledger().parts.clone()
    }

    /// In a merge, the plays the shards hold that the command never asked for (a shard of
    /// another version); 0 otherwise.
    pub fn unanswered(&self) -> usize {
        let ledger = self.ledger();
        match &ledger.mode {
            Mode::Merged(plays) => plays.len() - ledger.answered,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in play: the sum of the trial indices played, and how many.
    fn sum_of(range: TrialRange) -> Result<(u64, u64), PlayError> {
        Ok(((range.first..range.first + range.count).sum(), range.count))
    }

    fn add(total: &mut (u64, u64), part: &(u64, u64)) {
        total.0 += part.0;
        total.1 += part.1;
    }

    #[test]
    fn shards_of_plays_add_up_to_the_whole_plays_and_a_merge_answers_them_in_order() {
        let plays = [("point 1", TrialRange { first: 0, count: 10 }), ("point 2", TrialRange { first: 0, count: 2 })];
        let n = 3;
        let parts: Vec<Vec<PlayPart>> = (1..=n)
            .map(|k| {
                let shard = Plays::shard(ShardSpec { index: k, count: n });
                for (label, range) in plays {
                    shard.play(label, range, sum_of, add).unwrap();
                }
                assert!(matches!(shard.checkpoint(), Err(PlayError::ShardPlayed { index, count: 3 }) if index == k));
                shard.parts()
            })
            .collect();
        // Point 2 has fewer trials than shards: shard 1 holds an empty part of it.
        assert_eq!((parts[0][1].part_first, parts[0][1].part_count), (0, 0));
        let merged: Vec<MergedPlay> = plays
            .iter()
            .enumerate()
            .map(|(i, (label, range))| MergedPlay {
                label: label.to_string(),
                range: *range,
                parts: parts.iter().map(|p| p[i].result.clone()).collect(),
            })
            .collect();
        let answers = Plays::merged(merged.clone());
        assert!(answers.checkpoint().is_ok());
        // The whole plays: 0+..+9 = 45 over 10 trials; 0+1 = 1 over 2.
        assert_eq!(
            answers.play("point 1", plays[0].1, |_| -> Result<_, PlayError> { unreachable!() }, add).unwrap(),
            (45, 10)
        );
        assert_eq!(answers.unanswered(), 1);
        assert_eq!(
            answers.play("point 2", plays[1].1, |_| -> Result<_, PlayError> { unreachable!() }, add).unwrap(),
            (1, 2)
        );
        assert_eq!(answers.unanswered(), 0);
        // A command asking other plays than the shards hold is refused.
        let other = Plays::merged(merged);
        let asked = other.play("point 2", plays[1].1, sum_of, add);
        assert!(matches!(asked, Err(PlayError::Mismatch { index: 1, .. })), "{asked:?}");
        // Played here in full, a play is just played.
        assert_eq!(Plays::default().play("point 1", plays[0].1, sum_of, add).unwrap(), (45, 10));
    }

    #[test]
    fn shards_cover_every_trial_once() {
        for (trials, n) in [(10u64, 3u64), (1, 4), (1_000_000_007, 7), (5, 5)] {
            let mut next = 0;
            for k in 1..=n {
                let r = ShardSpec { index: k, count: n }.range(trials);
                assert_eq!(r.first, next);
                next += r.count;
            }
            assert_eq!(next, trials);
        }
        assert!("0/3".parse::<ShardSpec>().is_err());
        assert!("4/3".parse::<ShardSpec>().is_err());
        assert!("x".parse::<ShardSpec>().is_err());
        assert_eq!("2/3".parse::<ShardSpec>(), Ok(ShardSpec { index: 2, count: 3 }));
    }
}
