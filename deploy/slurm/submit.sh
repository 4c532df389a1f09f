#!/bin/bash
# Submits one self-play run: a job array of K shards and the merge job after it.
#
#   deploy/slurm/submit.sh K [sbatch options for both jobs, e.g. --partition=cpu]
#
# Prints the two job ids ("array <id>" and "merge <id>"). Settings are the FERZ_*
# variables described in selfplay.sbatch and merge.sbatch.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 K [sbatch options]   (K = shards, at least 1)" >&2
  exit 2
fi
shards=$1
shift
array=$(sbatch --parsable --array="0-$((shards - 1))" "$@" "$here/selfplay.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --dependency="afterok:$array" --export="ALL,FERZ_SHARD_COUNT=$shards" "$@" \
  "$here/merge.sbatch")
merge=${merge%%;*}
echo "array $array"
echo "merge $merge"
