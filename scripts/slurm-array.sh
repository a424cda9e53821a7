#!/usr/bin/env bash
# Run charioteer work as a Slurm job array of N shards, with the merge chained after it.
# Run this on the submit host, not under sbatch. Two forms:
#
#   scripts/slurm-array.sh [--cpus C] [--seed S] [--time HH:MM:SS] [--out DIR] SCENARIO.toml TRIALS N
#   scripts/slurm-array.sh [--cpus C] [--time HH:MM:SS] [--out DIR] --shards N COMMAND ARGS...
#
# The first plays one scenario (MESBG or BATTLESYSTEM) with `run --shard K/N`. The second
# splits a `sweep`, `balance` (matchup sets and cost curves included) or `compare`: each
# task runs `charioteer COMMAND ARGS... --shard K/N` (its share of every point, line or
# value), e.g.
#
#   scripts/slurm-array.sh --shards 20 sweep scenarios/mesbg/khandish-vs-minas-tirith.toml \
#       --set chariot.impact.strength=3..7 --trials 10000000
#
# Each array task plays its shard on C CPUs (default 1); a merge job starts only when every
# task succeeded. The shards go to $SHARD_ROOT/<name>-<array job id>/ (SHARD_ROOT defaults
# to reports/shards; <name> is the scenario hash for a run, the command and a hash of its
# arguments otherwise), so two submissions never share a folder; the merged report goes to
# --out (default: where charioteer puts that command's report). The merged report's data
# files are byte for byte those of one machine's. `--target-ci` cannot be split (each shard
# sees only its own trials): charioteer refuses it and says how many trials give the same
# precision.
#
# If a task fails, Slurm cancels the merge (--kill-on-invalid-dep=yes) instead of leaving
# it pending. Recovery: resubmit only the failed task K into the same folder, then merge:
#
#   SHARD_DIR=reports/shards/<name>-<jobid> sbatch --array=K --cpus-per-task=C \
#       --wrap "scripts/slurm-array.sh --task SCENARIO.toml TRIALS N"          # a run
#   SHARD_DIR=reports/shards/<name>-<jobid> sbatch --array=K --cpus-per-task=C \
#       --wrap "scripts/slurm-array.sh --task-job N COMMAND ARGS..."           # the others
#   scripts/slurm-array.sh --merge reports/shards/<name>-<jobid> [--out DIR]
#
# The binary is $CHARIOTEER, else `charioteer` on PATH, else target/release/charioteer
# (build it once with `cargo build --release`). The submit host and the compute nodes must
# share the working folder (as on any cluster with a shared home); relative paths are read
# from the folder the script was run in.
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
    sed -n '2,13p' "$script" >&2
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
    --task-job)
        # One array task of a sweep, balance or compare: its shard, into $SHARD_DIR.
        [[ $# -ge 3 ]] || usage
        shards="$2"
        shift 2
        task="${SLURM_ARRAY_TASK_ID:?--task-job runs under sbatch --array (SLURM_ARRAY_TASK_ID is not set)}"
        dir="${SHARD_DIR:?--task-job needs SHARD_DIR}"
        threads="${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-1}}"
        exec "$(find_binary)" "$@" --threads "$threads" --shard "$task/$shards" --out "$dir" --quiet
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
job_shards=""
while [[ $# -gt 0 && "$1" == --* ]]; do
    case "$1" in
        --cpus) cpus="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --time) time_limit="$2"; shift 2 ;;
        --out) out_args=(--out "$(readlink -f "$2")"); shift 2 ;;
        --shards) job_shards="$2"; shift 2 ;;
        *) usage ;;
    esac
done

# Submits the array (its tasks run `$script $task_args`, quoted) and the merge of folder
# "$root/$name-<array job id>"; prints both job ids and the folder.
submit() {
    local name="$1" task_command="$2" shards="$3" binary="$4"
    root="$(readlink -f "${SHARD_ROOT:-reports/shards}")"
    mkdir -p "$root"
    array_job="$(CHARIOTEER="$binary" SEED="$seed" sbatch --parsable --job-name=charioteer \
        --array="1-$shards" --cpus-per-task="$cpus" --time="$time_limit" \
        --output="$root/charioteer-%A_%a.log" \
        --export=ALL,CHARIOTEER="$binary",SEED="$seed" \
        --wrap "SHARD_DIR=\"$root/$name-\$SLURM_ARRAY_JOB_ID\" \"$script\" $task_command")"
    array_job="${array_job%%;*}"
    dir="$root/$name-$array_job"
    merge_job="$(sbatch --parsable --job-name=charioteer-merge --time="$time_limit" \
        --dependency="afterok:$array_job" --kill-on-invalid-dep=yes \
        --output="$root/charioteer-merge-%j.log" \
        --export=ALL,CHARIOTEER="$binary" \
        --wrap "\"$script\" --merge \"$dir\" ${out_args[*]:-}")"
    merge_job="${merge_job%%;*}"
    echo "array job $array_job: $shards shards into $dir"
    echo "merge job $merge_job: starts when every shard succeeded (cancelled if one fails)"
}

if [[ -n "$job_shards" ]]; then
    # A sweep, balance or compare.
    [[ $# -ge 2 ]] || usage
    case "$1" in
        sweep | balance | compare) ;;
        *) echo "--shards splits sweep, balance or compare (a run: SCENARIO.toml TRIALS N), not $1" >&2; exit 2 ;;
    esac
    [[ "$job_shards" =~ ^[1-9][0-9]*$ ]] || { echo "--shards takes a whole number of shards, not $job_shards" >&2; exit 2; }
    binary="$(find_binary)"
    # Stop a broken input file (or an option no shard can play) before anything is queued.
    for arg in "${@:2}"; do
        if [[ "$arg" == *.toml && -f "$arg" ]]; then
            "$binary" validate "$arg" --quiet > /dev/null
        fi
        if [[ "$arg" == --target-ci* ]]; then
            # charioteer refuses it before playing anything, saying how many trials give
            # the same precision.
            "$binary" "$@" --shard "1/$job_shards" --quiet || exit $?
            exit 2
        fi
    done
    name="$1-$(printf '%s\0' "$@" | sha256sum | cut -c 1-16)"
    submit "$name" "--task-job $job_shards $(printf '%q ' "$@")" "$job_shards" "$binary"
    exit 0
fi
[[ $# -eq 3 ]] || usage
scenario="$1"
trials="$2"
shards="$3"
binary="$(find_binary)"
# The scenario hash names the shard folder; validating first also stops a broken file
# before anything is queued.
hash="$("$binary" validate "$scenario" --json | sed -n 's/.*"scenario_hash": "\([0-9a-f]*\)".*/\1/p' | head -n 1)"
[[ -n "$hash" ]] || { echo "cannot read the scenario hash of $scenario" >&2; exit 2; }
submit "$hash" "--task \"$scenario\" $trials $shards" "$shards" "$binary"
