//! `sweep`, `balance` and `compare` split across machines: `--shard K/N` plays shard K's
//! share of every play the command makes (each play's trial indices split K/N, so every
//! shard does an equal share of the work however many points, lines or values there are)
//! and writes it with the command's options and input files; `merge` checks the shards,
//! adds each play's parts, and replays the command on the sums, so the report is the one a
//! single machine writes, byte for byte.

use super::*;
use crate::tools::shard::{JobShardFile, PlayError, Plays};

/// A command whose plays can be split across machines, with its options.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Job {
    /// `sweep`.
    Sweep(SweepArgs),
    /// `balance`.
    Balance(BalanceArgs),
    /// `compare`.
    Compare(CompareArgs),
}

impl Job {
    fn name(&self) -> &'static str {
        match self {
            Job::Sweep(_) => "sweep",
            Job::Balance(_) => "balance",
            Job::Compare(_) => "compare",
        }
    }

    fn play_options(&mut self) -> &mut PlayOptions {
        match self {
            Job::Sweep(a) => &mut a.play,
            Job::Balance(a) => &mut a.play,
            Job::Compare(a) => &mut a.play,
        }
    }

    fn shard(&mut self) -> &mut Option<ShardSpec> {
        match self {
            Job::Sweep(a) => &mut a.shard,
            Job::Balance(a) => &mut a.shard,
            Job::Compare(a) => &mut a.shard,
        }
    }

    fn target_ci(&self) -> Option<f64> {
        match self {
            Job::Sweep(a) => a.precision.target_ci,
            Job::Compare(a) => a.precision.target_ci,
            Job::Balance(_) => None,
        }
    }

    /// Runs the command as its options say.
    fn run(self) -> Result<()> {
        match self {
            Job::Sweep(a) => super::sweep::sweep(a),
            Job::Balance(a) => super::balance::balance(a),
            Job::Compare(a) => super::compare::compare(a),
        }
    }

    /// The options that make the job what it is: without the shard, the report folder, the
    /// threads and how much is printed (none of which changes a result).
    fn what_it_plays(&self) -> Self {
        let mut job = self.clone();
        *job.shard() = None;
        let play = job.play_options();
        play.out = None;
        play.threads = None;
        play.quiet = false;
        play.json = false;
        play.plays = Plays::default();
        job
    }
}

/// True when `error` is a shard having played its part ([`PlayError::ShardPlayed`]), which
/// stops a command where its report would begin.
pub(super) fn shard_played(error: &anyhow::Error) -> bool {
    error.chain().any(|e| matches!(e.downcast_ref::<PlayError>(), Some(PlayError::ShardPlayed { .. })))
}

/// The trials that give a probability a 95% interval narrower than +/- `half_width`
/// whatever the probability (the interval is widest at one half: 1.96 sqrt(1/4n)).
fn trials_for(half_width: f64) -> u64 {
    (1.96f64 * 1.96 * 0.25 / (half_width * half_width)).ceil().min(MAX_TRIALS as f64) as u64
}

/// Plays a command: in full, or (with `--shard K/N`) shard K's share of it.
pub(super) fn play(mut job: Job) -> Result<()> {
    let Some(spec) = *job.shard() else { return job.run() };
    if let Some(x) = job.target_ci() {
        return Err(UnsupportedRequest(format!(
            "--target-ci cannot be split across shards: when to stop depends on every trial played so far, which no \
             shard sees. For the same precision give a fixed --trials: a probability's 95% interval is narrower than \
             +/- {x} after {} trials whatever the probability; for counts, run once without --shard at --target-ci {x} \
             (it says how many trials it reached) and shard that many",
            group_digits(trials_for(x))
        ))
        .into());
    }
    if matches!(&job, Job::Sweep(a) if a.resume) {
        return Err(UnsupportedRequest(
            "--resume continues a sweep played on this machine; a sharded sweep resumes by playing again only the \
             shards that are missing, then merging"
                .into(),
        )
        .into());
    }
    let command = job.name();
    let args = serde_json::to_value(job.what_it_plays())?;
    let play = job.play_options().clone();
    let threads = play.pool()?.current_num_threads();
    let plays = Plays::shard(spec);
    job.play_options().plays = plays.clone();
    let started = Instant::now();
    crate::input::record_inputs();
    let result = job.run();
    let inputs = crate::input::recorded_inputs();
    match result {
        Err(e) if shard_played(&e) => {}
        Err(e) => return Err(e),
        Ok(()) => anyhow::bail!("the {command} finished without reaching its plays' end; no shard was written"),
    }
    let key = crate::tools::shard::job_key(command, &args, &inputs);
    let parts = plays.parts();
    let trials: u64 = parts.iter().map(|p| p.part_count).sum();
    let all: u64 = parts.iter().map(|p| p.count).sum();
    let record = JobShardFile {
        schema: crate::tools::shard::JOB_SHARD_SCHEMA.to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        command: command.to_string(),
        args,
        inputs,
        job: key.clone(),
        shard: spec,
        plays: parts,
        elapsed_s: started.elapsed().as_secs_f64(),
        threads,
        checksum: String::new(),
    }
    .sealed();
    // One folder per job (command, options, inputs), so two jobs' shards never mix.
    let dir =
        play.out.clone().unwrap_or_else(|| PathBuf::from("reports").join("shards").join(format!("{command}-{key}")));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join(spec.file_name());
    let text = serde_json::to_string(&record)?;
    report::write_atomic(&path, |f| std::io::Write::write_all(f, text.as_bytes()))?;
    if !play.quiet {
        out!(
            "shard {}/{} of the {command}: {} play{}, {} of their {} trials, in {:.2} s -> {}",
            spec.index,
            spec.count,
            record.plays.len(),
            if record.plays.len() == 1 { "" } else { "s" },
            group_digits(trials),
            group_digits(all),
            record.elapsed_s,
            path.display()
        );
    }
    Ok(())
}

/// `merge` of a sweep's, balance's or comparison's shards: checks them, then replays the
/// command on each play's merged result (on the inputs the shards read), writing the report
/// to `--out` or where the command itself would.
pub(super) fn merge_job(files: &[PathBuf], output: &OutputOptions) -> Result<()> {
    let merged = crate::tools::shard::merge_job(files)?;
    let mut job: Job = serde_json::from_value(merged.args.clone()).with_context(|| {
        format!("the shards' {} options cannot be read by this charioteer version; play them again", merged.command)
    })?;
    let plays = Plays::merged(merged.plays);
    let play = job.play_options();
    play.out = output.out.clone();
    play.quiet = output.quiet;
    play.json = output.json;
    play.plays = plays.clone();
    if !output.quiet && !output.json {
        out!("merged {} shards of a {} ({} files)", merged.shards, merged.command, files.len());
    }
    crate::input::replay_inputs(merged.inputs);
    let result = job.run();
    crate::input::stop_replaying_inputs();
    result?;
    let left = plays.unanswered();
    anyhow::ensure!(
        left == 0,
        "the shards hold {left} plays this {} never asked for: they were played by another charioteer version; play \
         them again",
        merged.command
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trials_for_a_half_width_cover_the_widest_probability() {
        // 1.96 * sqrt(0.25 / n) <= x exactly when n >= 0.9604 / x^2.
        assert_eq!(trials_for(0.01), 9604);
        assert_eq!(trials_for(0.001), 960_400);
        let n = trials_for(0.003) as f64;
        assert!(1.96 * (0.25 / n).sqrt() <= 0.003);
        assert!(1.96 * (0.25 / (n - 1.0)).sqrt() > 0.003);
    }
}
