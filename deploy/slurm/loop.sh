#!/bin/bash
# Submits the current generation of a `ferz loop` directory to Slurm: a job array of SHARDS
# self-play tasks (loop-shard.sbatch) and, after them, the job that merges, trains, gates and
# promotes (loop-finish.sbatch), which submits the next generation the same way until the loop's
# stop settings say it is done. The loop directory is the whole state: a requeued task resumes
# its shard, and this script run again continues where the loop stands.
#
#   deploy/slurm/loop.sh DIR CONFIG SHARDS [sbatch options for every job, e.g. --partition=cpu]
#
# SHARDS must equal the settings' selfplay.shards (ferz checks). Prints "array <id>" and
# "finish <id>". FERZ_BIN is the ferz binary [ferz on PATH]; the jobs find this directory in
# FERZ_SLURM_DIR, which this script sets. Walkthrough: deploy/slurm/README.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 3 ] || ! [[ $3 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 DIR CONFIG SHARDS [sbatch options]   (SHARDS = the settings' selfplay.shards)" >&2
  exit 2
fi
dir=$1 config=$2 shards=$3
shift 3
export FERZ_SLURM_DIR=$here FERZ_LOOP_DIR=$dir FERZ_LOOP_CONFIG=$config FERZ_LOOP_SHARDS=$shards
# The options go to the next generation's jobs too (one word each).
export FERZ_LOOP_SBATCH="$*"
array=$(sbatch --parsable --array="0-$((shards - 1))" "$@" "$here/loop-shard.sbatch")
array=${array%%;*}
finish=$(sbatch --parsable --dependency="afterok:$array" "$@" "$here/loop-finish.sbatch")
finish=${finish%%;*}
echo "array $array"
echo "finish $finish"
