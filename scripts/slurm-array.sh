#!/usr/bin/env bash
# Run one charioteer scenario (MESBG or BATTLESYSTEM) as a Slurm job array of N shards,
# with the merge chained after it. Run this on the submit host, not under sbatch:
#
#   scripts/slurm-array.sh [--cpus C] [--seed S] [--time HH:MM:SS] [--out DIR] SCENARIO.toml TRIALS N
#
# It submits an array of N tasks (each plays its share of the trial indices with
# `run --shard K/N` on C CPUs, default 1) and a merge job that starts only when every task
# succeeded. The shards go to $SHARD_ROOT/<scenario hash>-<array job id>/ (SHARD_ROOT
# defaults to reports/shards), so two runs never share a folder; the merged report goes to
# --out (default: charioteer's reports/<scenario slug>/). The merged summary.csv and
# distribution.csv are byte for byte those of one run of all the trials.
#
# If a task fails, Slurm cancels the merge (--kill-on-invalid-dep=yes) instead of leaving
# it pending. Recovery: resubmit only the failed task K into the same folder, then merge:
#
#   SHARD_DIR=reports/shards/<hash>-<jobid> sbatch --array=K --cpus-per-task=C \
#       --wrap "scripts/slurm-array.sh --task SCENARIO.toml TRIALS N"
#   scripts/slurm-array.sh --merge reports/shards/<hash>-<jobid> [--out DIR]
#
# The binary is $CHARIOTEER, else `charioteer` on PATH, else target/release/charioteer
# (build it once with `cargo build --release`). The submit host and the compute nodes must
# share the working folder (as on any cluster with a shared home).
set -euo pipefail

script="$(readlink -f "$0")"

find_binary() {
    if [[ -n "${CHARIOTEER:-}" ]]; then
        echo "$CHARIOTEER"
    elif command -v charioteer > /dev/null 2>&1; then
        command -v charioteer
    elif [[ -x target/release/charioteer ]]; then
        readlink -f target/release/charioteer
    else
        echo "charioteer not found: set CHARIOTEER, put charioteer on PATH, or run cargo build --release" >&2
        exit 2
    fi
}

usage() {
    sed -n '2,8p' "$script" >&2
    exit 2
}

case "${1:-}" in
    --task)
        # One array task: its shard of the run, into $SHARD_DIR.
        [[ $# -eq 4 ]] || usage
        scenario="$2"
        trials="$3"
        shards="$4"
        task="${SLURM_ARRAY_TASK_ID:?--task runs under sbatch --array (SLURM_ARRAY_TASK_ID is not set)}"
        dir="${SHARD_DIR:?--task needs SHARD_DIR}"
        threads="${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-1}}"
        seed_args=()
        if [[ -n "${SEED:-}" ]]; then
            seed_args=(--seed "$SEED")
        fi
        exec "$(find_binary)" run "$scenario" --trials "$trials" "${seed_args[@]}" \
            --threads "$threads" --shard "$task/$shards" --out "$dir" --quiet
        ;;
    --merge)
        # Merge a finished (or recovered) shard folder.
        [[ $# -ge 2 ]] || usage
        dir="$2"
        shift 2
        exec "$(find_binary)" merge "$dir" "$@"
        ;;
esac

cpus=1
time_limit="01:00:00"
out_args=()
seed=""
while [[ $# -gt 0 && "$1" == --* ]]; do
    case "$1" in
        --cpus) cpus="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --time) time_limit="$2"; shift 2 ;;
        --out) out_args=(--out "$(readlink -f "$2")"); shift 2 ;;
        *) usage ;;
    esac
done
[[ $# -eq 3 ]] || usage
scenario="$1"
trials="$2"
shards="$3"
binary="$(find_binary)"
# The scenario hash names the shard folder; validating first also stops a broken file
# before anything is queued.
hash="$("$binary" validate "$scenario" --json | sed -n 's/.*"scenario_hash": "\([0-9a-f]*\)".*/\1/p' | head -n 1)"
[[ -n "$hash" ]] || { echo "cannot read the scenario hash of $scenario" >&2; exit 2; }
root="$(readlink -f "${SHARD_ROOT:-reports/shards}")"
mkdir -p "$root"
array_job="$(CHARIOTEER="$binary" SEED="$seed" sbatch --parsable --job-name=charioteer \
    --array="1-$shards" --cpus-per-task="$cpus" --time="$time_limit" \
    --output="$root/charioteer-%A_%a.log" \
    --export=ALL,CHARIOTEER="$binary",SEED="$seed" \
    --wrap "SHARD_DIR=\"$root/$hash-\$SLURM_ARRAY_JOB_ID\" \"$script\" --task \"$scenario\" $trials $shards")"
array_job="${array_job%%;*}"
dir="$root/$hash-$array_job"
merge_job="$(sbatch --parsable --job-name=charioteer-merge --time="$time_limit" \
    --dependency="afterok:$array_job" --kill-on-invalid-dep=yes \
    --output="$root/charioteer-merge-%j.log" \
    --export=ALL,CHARIOTEER="$binary" \
    --wrap "\"$script\" --merge \"$dir\" ${out_args[*]:-}")"
merge_job="${merge_job%%;*}"
echo "array job $array_job: $shards shards of $trials trials into $dir"
echo "merge job $merge_job: starts when every shard succeeded (cancelled if one fails)"
