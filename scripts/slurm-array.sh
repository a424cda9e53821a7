#!/usr/bin/env bash
# Run one charioteer scenario as a Slurm job array of N shards, then merge them.
#
#   sbatch --array=1-16 scripts/slurm-array.sh scenarios/mesbg/khandish-vs-minas-tirith.toml 1000000000 16
#   # when every task has finished (or chain it: sbatch --dependency=afterok:<jobid> ...):
#   scripts/slurm-array.sh --merge reports/shards
#
# Each array task plays only its share of the trial indices (run --shard K/N) and writes
# reports/shards/shard-K-of-N.json; the merge gives the report a single run of all the
# trials would give, byte for byte in summary.csv. Set CHARIOTEER to the binary (default:
# target/release/charioteer; build it once with `cargo build --release`), SHARD_DIR to
# change where the shards go, SEED to fix a seed other than the scenario's.
#
#SBATCH --job-name=charioteer
#SBATCH --cpus-per-task=4
#SBATCH --time=01:00:00
#SBATCH --output=charioteer-%A_%a.log
set -euo pipefail

CHARIOTEER="${CHARIOTEER:-target/release/charioteer}"
SHARD_DIR="${SHARD_DIR:-reports/shards}"

if [[ "${1:-}" == "--merge" ]]; then
    exec "$CHARIOTEER" merge "${2:-$SHARD_DIR}"
fi

if [[ $# -ne 3 ]]; then
    echo "usage: sbatch --array=1-N $0 SCENARIO.toml TRIALS N    |    $0 --merge [SHARD_DIR]" >&2
    exit 2
fi
scenario="$1"
trials="$2"
shards="$3"
task="${SLURM_ARRAY_TASK_ID:?run this under sbatch --array=1-$shards (SLURM_ARRAY_TASK_ID is not set)}"
seed_args=()
if [[ -n "${SEED:-}" ]]; then
    seed_args=(--seed "$SEED")
fi
exec "$CHARIOTEER" run "$scenario" --trials "$trials" "${seed_args[@]}" \
    --threads "${SLURM_CPUS_PER_TASK:-1}" --shard "$task/$shards" --out "$SHARD_DIR" --quiet
