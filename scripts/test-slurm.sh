#!/usr/bin/env bash
# Checks scripts/slurm-array.sh on a real one-node Slurm cluster, for runs of both rule
# systems, a sweep and a balance:
# installs Slurm and MUNGE from Debian's packages if missing, starts munged, slurmctld and
# slurmd under a temporary folder (their own ports, sockets, state and logs), submits a
# small array and its chained merge, checks the merged summary.csv and distribution.csv
# are byte for byte those of one run, and stops exactly the daemons it started.
#
#   scripts/test-slurm.sh            # uses $CHARIOTEER, else builds target/debug/charioteer
#
# Needs root (to install packages and run the daemons). CI does not run it.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
if ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
    echo "installing Slurm and MUNGE from Debian's packages"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge > /dev/null
fi
if [[ -z "${CHARIOTEER:-}" ]]; then
    (cd "$root" && cargo build --quiet)
    export CHARIOTEER="$root/target/debug/charioteer"
fi

tmp="$(mktemp -d /tmp/charioteer-slurm.XXXXXX)"
pids=()
cleanup() {
    status=$?
    for pidfile in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munged.pid"; do
        if [[ -s "$pidfile" ]]; then
            kill "$(cat "$pidfile")" 2> /dev/null || true
        fi
    done
    sleep 1
    if [[ $status -ne 0 ]]; then
        echo "FAILED; daemon logs:" >&2
        tail -n 20 "$tmp"/*.log >&2 || true
    fi
    rm -rf "$tmp"
    exit $status
}
trap cleanup EXIT

host="$(hostname -s)"
cpus="$(nproc)"
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/work"
head -c 1024 /dev/urandom > "$tmp/munge.key"
chmod 600 "$tmp/munge.key"
munged --force --key-file="$tmp/munge.key" --socket="$tmp/munge.sock" --pid-file="$tmp/munged.pid" \
    --log-file="$tmp/munged.log" --seed-file="$tmp/munged.seed"

cat > "$tmp/slurm.conf" <<CONF
ClusterName=charioteer-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
    if sinfo -h -o %T 2> /dev/null | grep -q idle; then
        break
    fi
    sleep 1
done
sinfo -h -o "%N %T %c" | sed 's/^/node: /'

wait_for_queue() {
    for _ in $(seq 300); do
        if [[ -z "$(squeue -h 2> /dev/null)" ]]; then
            return 0
        fi
        sleep 1
    done
    echo "jobs still queued after 300 s:" >&2
    squeue >&2
    return 1
}

cd "$tmp/work"
trials=90001
for scenario in scenarios/mesbg/khandish-vs-minas-tirith.toml scenarios/battlesystem/elephant-howdah-vs-pikemen.toml; do
    name="$(basename "$scenario" .toml)"
    SHARD_ROOT="$tmp/work/shards" "$root/scripts/slurm-array.sh" --cpus 1 --out "$tmp/work/merged-$name" \
        "$root/$scenario" "$trials" 3
    wait_for_queue
    "$CHARIOTEER" run "$root/$scenario" --trials "$trials" --out "$tmp/work/single-$name" --quiet
    for file in summary.csv distribution.csv; do
        if cmp -s "$tmp/work/single-$name/$file" "$tmp/work/merged-$name/$file"; then
            echo "$name: $file of the merged Slurm array is identical to one run's"
        else
            echo "$name: $file differs between the merged Slurm array and one run" >&2
            ls -R "$tmp/work" >&2
            exit 1
        fi
    done
    grep -h '"threads"' "$tmp/work/merged-$name/run.json" | head -n 1 | sed "s/^ */$name: merged run.json /"
done
# A sweep and a balance (a cost curve over a matchup set) split the same way: every file of
# the merged report is one machine's, byte for byte.
jobs=(
    "sweep $root/scenarios/mesbg/khandish-vs-minas-tirith.toml --set chariot.impact.strength=3..5 --trials 30001"
    "balance $root/scenarios/mesbg/khandish-vs-minas-tirith.toml --against $root/scenarios/mesbg/iron-hills-into-pike-block.toml --matchups $root/scenarios/matchups/mesbg-lines.toml --set chariot.impact.hits=1,2 --trials 20001"
)
for job in "${jobs[@]}"; do
    read -r -a words <<< "$job"
    name="${words[0]}"
    SHARD_ROOT="$tmp/work/shards" "$root/scripts/slurm-array.sh" --cpus 1 --out "$tmp/work/merged-$name" \
        --shards 3 "${words[@]}"
    wait_for_queue
    "$CHARIOTEER" "${words[@]}" --out "$tmp/work/single-$name" --quiet
    if diff -r "$tmp/work/single-$name" "$tmp/work/merged-$name" > /dev/null; then
        echo "$name: every file of the merged Slurm array's report ($(ls "$tmp/work/single-$name" | wc -l)) is identical to one machine's"
    else
        echo "$name: the merged Slurm array's report differs from one machine's" >&2
        diff -r "$tmp/work/single-$name" "$tmp/work/merged-$name" >&2 || true
        cat "$tmp/work/shards"/charioteer-*.log >&2 || true
        exit 1
    fi
done
# --target-ci is refused before anything is queued.
if SHARD_ROOT="$tmp/work/shards" "$root/scripts/slurm-array.sh" --shards 3 sweep \
    "$root/scenarios/mesbg/khandish-vs-minas-tirith.toml" --set chariot.move=8,10 --target-ci 0.01 2> "$tmp/work/refused"; then
    echo "a sweep with --target-ci was submitted" >&2
    exit 1
fi
echo "refused before queueing: $(head -c 120 "$tmp/work/refused")..."
# A failed shard cancels the merge (it does not stay pending), and the documented recovery
# (resubmit the one task into the same folder, then merge by hand) gives the same report.
scenario="$root/scenarios/battlesystem/elephant-howdah-vs-pikemen.toml"
cat > "$tmp/work/fails-on-2" <<WRAP
#!/usr/bin/env bash
if [[ "\${SLURM_ARRAY_TASK_ID:-}" == 2 ]]; then echo "task 2 fails on purpose" >&2; exit 1; fi
exec "$CHARIOTEER" "\$@"
WRAP
chmod +x "$tmp/work/fails-on-2"
submitted="$(CHARIOTEER="$tmp/work/fails-on-2" SHARD_ROOT="$tmp/work/shards" "$root/scripts/slurm-array.sh" \
    --out "$tmp/work/merged-recovered" "$scenario" "$trials" 3)"
echo "$submitted"
wait_for_queue
dir="$(echo "$submitted" | sed -n 's/.* into \(.*\)$/\1/p')"
array_job="$(echo "$submitted" | sed -n 's/^array job \([0-9]*\):.*/\1/p')"
if [[ -e "$tmp/work/merged-recovered/summary.csv" ]]; then
    echo "the merge ran although shard 2 failed" >&2
    exit 1
fi
echo "failed shard: the merge was cancelled, not left pending; $(ls "$dir" | grep -c '^shard-') of 3 shards written"
SHARD_DIR="$dir" sbatch --quiet --array=2 --cpus-per-task=1 --export=ALL,CHARIOTEER="$CHARIOTEER" \
    --output="$tmp/work/recover-%A_%a.log" --wrap "$root/scripts/slurm-array.sh --task $scenario $trials 3"
wait_for_queue
"$root/scripts/slurm-array.sh" --merge "$dir" --out "$tmp/work/merged-recovered" --quiet
cmp "$tmp/work/single-elephant-howdah-vs-pikemen/summary.csv" "$tmp/work/merged-recovered/summary.csv"
echo "recovered: task 2 resubmitted alone, merged by hand, summary.csv identical to one run's (array job $array_job)"
# The same for a sweep: its failed task resubmitted with --task-job.
read -r -a words <<< "${jobs[0]}"
submitted="$(CHARIOTEER="$tmp/work/fails-on-2" SHARD_ROOT="$tmp/work/shards" "$root/scripts/slurm-array.sh" \
    --out "$tmp/work/merged-sweep-recovered" --shards 3 "${words[@]}")"
echo "$submitted"
wait_for_queue
dir="$(echo "$submitted" | sed -n 's/.* into \(.*\)$/\1/p')"
if [[ -e "$tmp/work/merged-sweep-recovered/sweep.csv" ]]; then
    echo "the sweep's merge ran although shard 2 failed" >&2
    exit 1
fi
echo "failed sweep shard: the merge was cancelled; $(ls "$dir" | grep -c '^shard-') of 3 shards written"
SHARD_DIR="$dir" sbatch --quiet --array=2 --cpus-per-task=1 --export=ALL,CHARIOTEER="$CHARIOTEER" \
    --output="$tmp/work/recover-sweep-%A_%a.log" \
    --wrap "$root/scripts/slurm-array.sh --task-job 3 $(printf '%q ' "${words[@]}")"
wait_for_queue
"$root/scripts/slurm-array.sh" --merge "$dir" --out "$tmp/work/merged-sweep-recovered" --quiet
diff -r "$tmp/work/single-sweep" "$tmp/work/merged-sweep-recovered"
echo "recovered: the sweep's task 2 resubmitted alone (--task-job), merged by hand, every file identical to one machine's"
echo "ok: Slurm arrays of runs (both rule systems), a sweep and a balance merge byte for byte; stopping the daemons this script started"
