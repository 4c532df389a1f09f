#!/usr/bin/env bash
# Self-play on a real Slurm cluster, end to end: a one-node cluster of this machine runs the
# job array and the merge job of deploy/slurm/, one task is killed mid-shard and requeued, and
# the merged dataset is checked against the same shards run without Slurm.
#
# What it does, for each of GENERATIONS opening-cache generations:
#   1. submits deploy/slurm/submit.sh SHARDS (an array of SHARDS tasks, one CPU each, and the
#      merge job with --dependency=afterok on it);
#   2. once task KILL of the array has checkpointed a quarter of its games, kills its ferz
#      with `scancel --signal=KILL <array>_<KILL>.0` (the task's srun step); the batch script
#      sees the kill and requeues the task, which resumes its shard on a fresh copy of the
#      cache generation;
#   3. waits for the merge job and checks: every checksum of every shard and of the dataset
#      (`ferz data stats`), game and position counts equal to the sum of the shard manifests,
#      SHARDS x GAMES games with no round twice, the killed task restarted, and the dataset,
#      its PGN (without the Date header) and the next cache generation identical to those of
#      the same shards played by `ferz selfplay` alone (as many at once as there are cores).
# Then `ferz loop` on the same cluster (deploy/slurm/loop.sh): LOOP_GENERATIONS generations, each
# an array of two shard tasks and a finish job that merges, trains, gates, promotes and submits
# the next generation; a shard task of generation 1 is killed and requeued; the ledger must equal
# that of the same loop run on this machine alone.
# It prints shards, games, positions, wall time and the throughput of every task.
#
# Slurm: slurmctld, slurmd, munged and the client commands are found on PATH (and /usr/sbin);
# when missing and this runs as root on Debian/Ubuntu they are installed with apt-get
# (packages slurmctld slurmd munge slurm-client). The script starts its own munged (own key
# and socket), slurmctld and slurmd (own slurm.conf, ports, state, spool and logs) under a
# temporary directory, as foreground processes, and stops each of them by its process id at
# the end, whatever happens. It needs root (slurmd runs jobs as their user) and python3.
#
# Usage: scripts/slurm-e2e.sh            (on a shared machine: nice -n 10 scripts/slurm-e2e.sh)
#   FERZ_BIN=path     use this ferz instead of building target/release/ferz
#   SHARDS=4 GAMES=100 NODES=1500 GENERATIONS=2 KILL=1 TIMEOUT=900 (seconds per generation)
#   LOOP_GENERATIONS=2 LOOP_GAMES=40  the loop's generations (0: skip it) and games per shard
#   KEEP=1            keep the temporary directory (it is kept anyway when a check fails)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
SHARDS=${SHARDS:-4}
GAMES=${GAMES:-100}
NODES=${NODES:-1500}
GENERATIONS=${GENERATIONS:-2}
KILL=${KILL:-1}
TIMEOUT=${TIMEOUT:-900}
LOOP_GENERATIONS=${LOOP_GENERATIONS:-2}
LOOP_GAMES=${LOOP_GAMES:-40}
KEEP=${KEEP:-0}
export PATH="$PATH:/usr/sbin:/sbin"

say() { printf '== %s\n' "$*"; }
fail() {
  printf 'FAILED: %s\n' "$*" >&2
  exit 1
}
if [ "$SHARDS" -lt 2 ] || [ "$KILL" -ge "$SHARDS" ]; then fail "need SHARDS >= 2 and KILL < SHARDS"; fi
command -v python3 >/dev/null || fail "python3 is needed for the checks"

# --- Slurm and munge --------------------------------------------------------------------
tools=(slurmctld slurmd munged munge unmunge sbatch srun scontrol scancel squeue sinfo)
missing=()
for tool in "${tools[@]}"; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    say "installing slurmctld slurmd munge slurm-client (missing: ${missing[*]})"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurmctld slurmd munge slurm-client >/dev/null ||
      { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurmctld slurmd munge slurm-client >/dev/null; }
  else
    fail "missing ${missing[*]}: install the Debian packages slurmctld slurmd munge slurm-client"
  fi
fi
[ "$(id -u)" -eq 0 ] || fail "run as root: slurmd starts jobs as their user"
say "$(slurmctld -V), munge $(munged -V 2>&1 | awk '{print $1}' | sed 's/munge-//')"

# --- ferz -----------------------------------------------------------------------------
if [ -z "${FERZ_BIN:-}" ]; then
  say "building ferz (release)"
  (cd "$root" && cargo build --release --locked --quiet -p ferz)
  FERZ_BIN=${CARGO_TARGET_DIR:-$root/target}/release/ferz
fi
FERZ_BIN=$(cd "$(dirname "$FERZ_BIN")" && pwd)/$(basename "$FERZ_BIN")
[ -x "$FERZ_BIN" ] || fail "$FERZ_BIN is not an executable"

# --- the cluster ----------------------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/ferz-slurm-e2e.XXXXXX")
chmod 755 "$work" # munged wants the directories above its socket readable by all
pids=()           # the daemons started here, in start order
ok=0
cleanup() {
  set +e
  if [ -n "${SLURM_CONF:-}" ] && [ ${#pids[@]} -gt 1 ]; then
    jobs=$(squeue -h -o %A 2>/dev/null | sort -u)
    if [ -n "$jobs" ]; then
      # shellcheck disable=SC2086
      scancel $jobs 2>/dev/null
      for _ in $(seq 1 20); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.5; done
    fi
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  if [ "$ok" = 1 ] && [ "$KEEP" != 1 ]; then
    rm -rf "$work"
  else
    echo "kept $work (daemon logs in $work/log, job output in $work/jobs)" >&2
  fi
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
mkdir -p "$work"/{munge,munge-key,state,spool,log,jobs,data,straight}
chmod 755 "$work/munge"
chmod 700 "$work/munge-key"
head -c 1024 /dev/urandom >"$work/munge-key/munge.key"
chmod 400 "$work/munge-key/munge.key"
socket=$work/munge/munge.socket
munged -F --key-file="$work/munge-key/munge.key" --socket="$socket" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/log/munged.log" --seed-file="$work/munge/munged.seed" >"$work/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 40); do munge -n -S "$socket" 2>/dev/null | unmunge -S "$socket" >/dev/null 2>&1 && break; sleep 0.25; done
munge -n -S "$socket" | unmunge -S "$socket" >/dev/null || fail "munged did not start: $(cat "$work/log/munged.out")"

node=$(hostname -s)
cpus=$(nproc)
memory=$(awk '/MemTotal/ { m = int($2 / 1024) - 512; print (m < 1024 ? 1024 : m) }' /proc/meminfo)
cat >"$work/slurm.conf" <<EOF
# One-node cluster of scripts/slurm-e2e.sh: everything under $work.
ClusterName=ferz-e2e
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire is also how long a requeued job waits before it may start again (default 120 s).
AuthInfo=socket=$socket,cred_expire=10
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
SlurmdParameters=config_overrides
ReturnToService=2
# Requeueable jobs (the array's --requeue needs it); short waits for a quick test.
JobRequeue=1
KillWait=5
# A killed step whose processes take longer than this to go drains the node ("Kill task
# failed"); the script then resumes the node and the requeued task runs. Slurm's default: a
# longer wait only delays that (once in CI the step hung its full 300 s with its process gone).
UnkillableStepTimeout=60
MinJobAge=900
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=e2e Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N "$node" -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && break; sleep 0.5; done
[ "$(sinfo -h -o %T 2>/dev/null)" = idle ] ||
  fail "the node did not come up: $(tail -5 "$work/log/slurmctld.out" "$work/log/slurmd.out")"
say "cluster up: node $node, $cpus CPUs, munged/slurmctld/slurmd pids ${pids[*]}"

# --- settings -------------------------------------------------------------------------
cat >"$work/selfplay.toml" <<EOF
# Low nodes, short games: a few hundred games in a couple of minutes.
[run]
games = $GAMES
threads = 1
seed = 1
checkpoint_seconds = 1

[variants]
chess = 2
shatranj = 1

[search]
nodes = $NODES
hash_mb = 4

[opening]
multipv_plies = 4
random_plies = 4
multipv_nodes = 2000

[adjudication]
max_plies = 240
win_cp = 900
win_plies = 4
EOF

# --- helpers --------------------------------------------------------------------------
job_field() { # job field
  scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1
}
games_done() { # shard directory
  python3 - "$1/checkpoint.json" <<'EOF' 2>/dev/null || echo 0
import json, sys
print(json.load(open(sys.argv[1]))["games_done"])
EOF
}

# Plays the shards with ferz alone, as the array's tasks do (one thread, the shard's cache a
# fresh copy of the generation), as many at once as there are cores (each shard's games depend on
# its own seed and cache only), and merges them the same way.
straight_shard() { # generation base-cache-or-empty shard-index
  local gen=$1 base=$2 i=$3 dir=$work/straight/gen$1
  local cache=$dir/cache-$i
  rm -rf "$cache"
  if [ -n "$base" ]; then cp -a "$base" "$cache"; fi
  FERZ__RUN__THREADS=1 FERZ__CACHE__PATH=$cache FERZ__RUN__SEED=$gen \
    "$FERZ_BIN" selfplay --config "$work/selfplay.toml" --out "$dir/run" --shard-index "$i" \
    --shard-count "$SHARDS" >/dev/null 2>"$dir/shard-$i.log" || return 1
  mv "$cache" "$dir/run/$(printf 'shard-%05d' "$i")/opening-cache"
}

straight_run() { # generation base-cache-or-empty
  local gen=$1 base=$2 dir=$work/straight/gen$1 i pids=()
  mkdir -p "$dir"
  # (Not `wait -n` or `jobs`: munged, slurmctld and slurmd are background jobs of this shell.)
  running() { local n=0 pid; for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && n=$((n + 1)); done; echo "$n"; }
  for ((i = 0; i < SHARDS; i++)); do
    while [ "$(running)" -ge "$(nproc)" ]; do sleep 0.2; done
    (
      status=0
      straight_shard "$gen" "$base" "$i" || status=$?
      echo "$status" >"$dir/status-$i"
    ) &
    pids+=($!)
  done
  wait "${pids[@]}"
  for ((i = 0; i < SHARDS; i++)); do
    [ "$(cat "$dir/status-$i" 2>/dev/null)" = 0 ] || fail "straight shard $i: $(tail -3 "$dir/shard-$i.log")"
  done
  "$FERZ_BIN" data merge --shuffle --seed 1 "$dir/dataset" "$dir"/run/shard-* >/dev/null
  # Every shard began as a copy of the generation: --base counts it once.
  "$FERZ_BIN" cache merge "$dir/cache" "$dir"/run/shard-*/opening-cache ${base:+--base "$base"} >/dev/null
}

# --- the generations ------------------------------------------------------------------
export FERZ_BIN FERZ_CONFIG=$work/selfplay.toml FERZ_CACHE_DIR=$work/data/cache
summary=()
for ((gen = 1; gen <= GENERATIONS; gen++)); do
  kill_task=$(((KILL + gen - 1) % SHARDS))
  base=""
  if [ -d "$FERZ_CACHE_DIR/current" ]; then
    base=$work/straight/base-gen$gen
    cp -a "$FERZ_CACHE_DIR/current" "$base"
  fi
  export FERZ_RUN_DIR=$work/data/run-gen$gen FERZ_DATASET=$work/data/dataset-gen$gen FERZ__RUN__SEED=$gen
  say "generation $gen: $SHARDS shards x $GAMES games at $NODES nodes; task $kill_task will be killed"
  started=$(date +%s.%N)
  ids=$(cd "$work/jobs" && "$root/deploy/slurm/submit.sh" "$SHARDS" --cpus-per-task=1 --mem=512M)
  array=$(sed -n 's/^array //p' <<<"$ids")
  merge=$(sed -n 's/^merge //p' <<<"$ids")
  say "array job $array, merge job $merge"

  # Kill the task's ferz once it has checkpointed a quarter of its shard.
  shard=$FERZ_RUN_DIR/$(printf 'shard-%05d' "$kill_task")
  deadline=$(($(date +%s) + TIMEOUT))
  killed_at=0
  while [ "$killed_at" -lt $((GAMES / 4)) ]; do
    [ -f "$shard/manifest.json" ] && fail "task $kill_task finished before it could be killed; raise GAMES"
    [ "$(date +%s)" -lt "$deadline" ] || fail "task $kill_task made no progress"
    sleep 0.2
    killed_at=$(games_done "$shard")
  done
  scancel --signal=KILL "${array}_${kill_task}.0"
  say "killed task ${array}_${kill_task} (its ferz step) after checkpoint $killed_at of $GAMES games"
  # The batch script must see the kill (not a finished shard) and requeue the task. A requeued
  # task may resume and finish its short shard within seconds, so the proof is the script's
  # own line, not a missing manifest.
  out=$work/jobs/ferz-selfplay-${array}_${kill_task}.out
  until grep -q "ferz was killed" "$out" 2>/dev/null; do
    if [ -f "$shard/manifest.json" ] && ! grep -q "ferz was killed" "$out" 2>/dev/null; then
      fail "task $kill_task finished before the kill landed; raise GAMES or NODES"
    fi
    [ "$(date +%s)" -lt "$deadline" ] || fail "task $kill_task was not seen killed: $(tail -3 "$out" 2>/dev/null)"
    sleep 0.2
  done

  # Wait for the merge job.
  while [ -n "$(squeue -h -j "$merge" 2>/dev/null)" ]; do
    reason=$(squeue -h -j "$merge" -o %r 2>/dev/null)
    [ "$reason" = DependencyNeverSatisfied ] && fail "a task failed for good: $(squeue -h -o '%i %T %r')"
    # A node drained by a slow kill is the test machine's trouble, not the job's: put it back,
    # as an operator would, and say so.
    if sinfo -h -N -o '%T %E' 2>/dev/null | grep -q '^drain.*Kill task failed'; then
      say "the node drained after the kill (Kill task failed); resuming it"
      scontrol update NodeName="$node" State=RESUME || fail "cannot resume the drained node"
    fi
    [ "$(date +%s)" -lt "$deadline" ] || fail "timed out: $(squeue -h -o '%i %T %r')"
    sleep 1
  done
  wall=$(python3 -c "import time; print(f'{time.time() - $started:.1f}')")
  state=$(job_field "$merge" JobState)
  [ "$state" = COMPLETED ] || fail "merge job $merge ended $state: $(cat "$work"/jobs/ferz-merge-"$merge".out)"
  restarts=$(job_field "${array}_${kill_task}" Restarts)
  [ "${restarts:-0}" -ge 1 ] || fail "task ${array}_${kill_task} was not requeued (Restarts=${restarts:-?})"
  grep -q "requeueing ${array}_${kill_task}" "$work"/jobs/ferz-selfplay-"${array}"_"${kill_task}".out ||
    fail "the batch script did not requeue the killed task"
  say "array and merge done in $wall s; task ${array}_${kill_task} restarted $restarts time(s)"

  # Every checksum: the shards' and the dataset's.
  "$FERZ_BIN" data stats "$FERZ_RUN_DIR"/shard-* "$FERZ_DATASET" >"$work/stats-gen$gen.txt" ||
    fail "ferz data stats: $(tail -3 "$work/stats-gen$gen.txt")"

  say "generation $gen: the same shards without Slurm"
  straight_run "$gen" "$base"

  # Counts, duplicates, identity, throughput.
  line=$(python3 - "$FERZ_RUN_DIR" "$FERZ_DATASET" "$work/straight/gen$gen" "$SHARDS" "$GAMES" "$wall" <<'EOF'
import glob, hashlib, json, os, re, sys

run, dataset, straight, shards, games, wall = sys.argv[1:]
shards, games, wall = int(shards), int(games), float(wall)
errors = []

def manifest(path):
    with open(os.path.join(path, "manifest.json")) as f:
        return json.load(f)

def positions(tally):
    return sum(tally["positions_by_variant"].values())

shard_dirs = sorted(glob.glob(os.path.join(run, "shard-*")))
manifests = [manifest(d) for d in shard_dirs]
merged = manifest(dataset)
if len(manifests) != shards:
    errors.append(f"{len(manifests)} shard manifests, expected {shards}")
if sorted(m["shard_index"] for m in manifests) != list(range(shards)):
    errors.append("shard indices are not 0..K-1")
if any(m["shard_count"] != shards for m in manifests):
    errors.append("a shard manifest has another shard count")
shard_games = sum(m["tally"]["games"] for m in manifests)
shard_positions = sum(positions(m["tally"]) for m in manifests)
if merged["tally"]["games"] != shard_games or shard_games != shards * games:
    errors.append(f"games: dataset {merged['tally']['games']}, shards {shard_games}, expected {shards * games}")
if positions(merged["tally"]) != shard_positions:
    errors.append(f"positions: dataset {positions(merged['tally'])}, shards {shard_positions}")
records = {}
for m in manifests:
    for f in m["files"]:
        records[f["name"]] = records.get(f["name"], 0) + f["records"]
for f in merged["files"]:
    if records.get(f["name"]) != f["records"]:
        errors.append(f"{f['name']}: {f['records']} records, the shards have {records.get(f['name'])}")

def pgn(path):
    with open(os.path.join(path, "games.pgn")) as f:
        return f.read()

rounds = re.findall(r'^\[Round "([^"]*)"\]', pgn(dataset), re.M)
if len(rounds) != shards * games or len(set(rounds)) != len(rounds):
    errors.append(f"PGN: {len(rounds)} games, {len(set(rounds))} distinct rounds, expected {shards * games}")

# Identity with the straight run: the data files' checksums, the PGN without its dates.
ours = {f["name"]: f["sha256"] for f in merged["files"] if f["name"] != "games.pgn"}
theirs = {f["name"]: f["sha256"] for f in manifest(os.path.join(straight, "dataset"))["files"] if f["name"] != "games.pgn"}
if ours != theirs:
    errors.append(f"the dataset differs from the straight run: {sorted(k for k in ours if ours[k] != theirs.get(k))}")
undated = lambda text: re.sub(r'^\[Date "[^"]*"\]\n', "", text, flags=re.M)
if undated(pgn(dataset)) != undated(pgn(os.path.join(straight, "dataset"))):
    errors.append("the PGN differs from the straight run")
for d, m in zip(shard_dirs, manifests):
    twin = manifest(os.path.join(straight, "run", os.path.basename(d)))
    if m["tally"] != twin["tally"]:
        errors.append(f"{os.path.basename(d)}: tally differs from the straight run")

if errors:
    print("; ".join(errors))
    sys.exit(1)
per_task = ", ".join(
    f"{m['shard_index']}: {m['tally']['games'] / m['seconds']:.1f} games/s {positions(m['tally']) / m['seconds']:.0f} pos/s"
    for m in manifests
)
print(f"{shards} shards, {shard_games} games, {shard_positions} positions, {wall:.1f} s wall; per task: {per_task}")
EOF
  ) || fail "generation $gen: $line"
  # The next cache generation equals the straight run's (the size on disk may differ).
  diff <("$FERZ_BIN" cache stats "$FERZ_CACHE_DIR/current" | tail -n +2) \
    <("$FERZ_BIN" cache stats "$work/straight/gen$gen/cache" | tail -n +2) >/dev/null ||
    fail "generation $gen: the merged opening cache differs from the straight run's"
  say "generation $gen OK: $line"
  summary+=("generation $gen: $line; killed task $kill_task at game $killed_at, requeued and resumed")
done

# --- the improvement loop on Slurm ------------------------------------------------------
if [ "$LOOP_GENERATIONS" -gt 0 ]; then
  # The kill tests' tiny loop (tests/data/loop/tiny.toml), as long as asked; the variables go
  # with every job (sbatch passes the environment on) and to the loop alone below.
  cp "$root/tests/data/loop/tiny.toml" "$work/loop.toml"
  export FERZ__LOOP__GENERATIONS=$LOOP_GENERATIONS FERZ__SELFPLAY__GAMES=$LOOP_GAMES FERZ__SELFPLAY__NODES=$NODES
  say "the loop: $LOOP_GENERATIONS generations of 2 x $LOOP_GAMES games on Slurm; shard task 1 of generation 1 will be killed"
  started=$(date +%s.%N)
  deadline=$(($(date +%s) + TIMEOUT * LOOP_GENERATIONS))
  ids=$(cd "$work/jobs" && "$root/deploy/slurm/loop.sh" "$work/loop" "$work/loop.toml" 2 --cpus-per-task=1 --mem=512M)
  array=$(sed -n 's/^array //p' <<<"$ids")
  shard=$work/loop/gen-0001/selfplay/shard-00001
  killed_at=0
  while [ "$killed_at" -lt $((LOOP_GAMES / 4)) ]; do
    [ -f "$shard/manifest.json" ] && fail "loop task 1 finished before it could be killed; raise LOOP_GAMES"
    [ "$(date +%s)" -lt "$deadline" ] || fail "loop task 1 made no progress"
    sleep 0.2
    killed_at=$(games_done "$shard")
  done
  scancel --signal=KILL "${array}_1.0"
  out=$work/jobs/ferz-loop-shard-${array}_1.out
  until grep -q "ferz was killed" "$out" 2>/dev/null; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "loop task 1 was not seen killed: $(tail -3 "$out" 2>/dev/null)"
    sleep 0.2
  done
  say "killed loop task ${array}_1 after checkpoint $killed_at of $LOOP_GAMES games"
  # The finish jobs chain the generations: the loop is done when the ledger holds them all and
  # nothing is queued.
  ledger_generations() {
    python3 -c "import json, sys; print(len(json.load(open(sys.argv[1]))['generations']))" \
      "$work/loop/ledger.json" 2>/dev/null || echo 0
  }
  while [ -n "$(squeue -h 2>/dev/null)" ] || [ "$(ledger_generations)" != "$LOOP_GENERATIONS" ]; do
    if [ -z "$(squeue -h 2>/dev/null)" ]; then
      sleep 2 # a finish job may be between its end and the next generation's submission
      [ -z "$(squeue -h 2>/dev/null)" ] && [ "$(ledger_generations)" != "$LOOP_GENERATIONS" ] &&
        fail "no job is left and the ledger holds $(ledger_generations) generations: $(tail -5 "$work"/jobs/ferz-loop-finish-*.out 2>/dev/null)"
    fi
    if sinfo -h -N -o '%T %E' 2>/dev/null | grep -q '^drain.*Kill task failed'; then
      scontrol update NodeName="$node" State=RESUME || fail "cannot resume the drained node"
    fi
    [ "$(date +%s)" -lt "$deadline" ] || fail "the loop timed out: $(squeue -h -o '%i %T %r')"
    sleep 1
  done
  wall=$(python3 -c "import time; print(f'{time.time() - $started:.1f}')")
  restarts=$(job_field "${array}_1" Restarts)
  [ "${restarts:-0}" -ge 1 ] || fail "loop task ${array}_1 was not requeued (Restarts=${restarts:-?})"
  say "the loop on Slurm: $LOOP_GENERATIONS generations in $wall s; now the same loop on this machine alone"
  "$FERZ_BIN" loop "$work/loop-alone" --config "$work/loop.toml" >"$work/loop-alone.log" 2>&1 ||
    fail "the loop alone: $(tail -3 "$work/loop-alone.log")"
  line=$(python3 - "$work/loop" "$work/loop-alone" <<'PY'
import json, sys

def rounded(v):
    # A resumed gate sums the same games in another order: equal to nine digits.
    if isinstance(v, float):
        return float(f"{v:.9g}")
    if isinstance(v, dict):
        return {k: rounded(x) for k, x in v.items()}
    if isinstance(v, list):
        return [rounded(x) for x in v]
    return v

def generations(d):
    out = []
    for g in json.load(open(f"{d}/ledger.json"))["generations"]:
        # Stage times, and the manifests and run record that hold the directory's paths.
        g.pop("stages")
        g["data"].pop("shard_manifests")
        g["train"].pop("run_record")
        out.append(rounded(g))
    return out

a, b = generations(sys.argv[1]), generations(sys.argv[2])
if a != b:
    print(f"the Slurm loop's generations differ from the loop alone: {a} {b}")
    sys.exit(1)
print(", ".join(
    f"generation {g['generation']}: {g['data']['positions']} positions, gate {g['gate']['elo']:+.1f} "
    f"over {g['gate']['games']} games, {'promoted' if g['promoted'] else 'not promoted'}" for g in a))
PY
  ) || fail "$line"
  say "the loop OK: $line"
  summary+=("the loop: $LOOP_GENERATIONS generations in $wall s on Slurm, shard task 1 killed at game $killed_at and requeued; equal to the loop alone: $line")
fi

ok=1
say "all checks passed ($(slurmctld -V), $(nproc) CPUs)"
printf '%s\n' "${summary[@]}"
