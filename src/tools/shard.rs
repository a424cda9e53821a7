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
    let mut seen = vec![0u32; count as usize + 1];
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
        seen[s.shard.index as usize] += 1;
    }
    let missing: Vec<String> = (1..=count).filter(|&k| seen[k as usize] == 0).map(|k| k.to_string()).collect();
    let twice: Vec<String> = (1..=count).filter(|&k| seen[k as usize] > 1).map(|k| k.to_string()).collect();
    if !missing.is_empty() || !twice.is_empty() {
        let mut problem = Vec::new();
        if !missing.is_empty() {
            problem.push(format!("missing {}", missing.join(", ")));
        }
        if !twice.is_empty() {
            problem.push(format!("given more than once {}", twice.join(", ")));
        }
        return Err(MergeError::Incomplete { count, problem: problem.join("; ") });
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

#[cfg(test)]
mod tests {
    use super::*;

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
