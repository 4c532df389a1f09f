#!/usr/bin/env bash
# Plays `ferz bot` against a real pychess-variants server (an oracle, not a dependency): the
# server's source tree is the first argument, nothing is fetched. See scripts/pychess-real.py
# for what is played and reported.
#
#   scripts/pychess-real.sh PYCHESS_SOURCE_DIR [--port N] [--work DIR] [--only NAME ...]
#
# PYTHON names an interpreter (3.13 or later) that has the server's requirements and
# mongomock-motor installed, e.g. a virtualenv made with
#   python3.13 -m venv venv && venv/bin/pip install <the server's pyproject dependencies> mongomock-motor
# FERZ names the ferz binary (default: target/release/ferz, built with `cargo build --release`).
# Not part of CI.
set -euo pipefail
if [[ $# -lt 1 || ! -f "$1/server/server.py" ]]; then
    echo "usage: $0 PYCHESS_SOURCE_DIR [--port N] [--work DIR] [--only NAME ...]" >&2
    echo "  (PYCHESS_SOURCE_DIR: a pychess-variants checkout, holding server/server.py)" >&2
    exit 2
fi
source_dir=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
ferz=${FERZ:-$here/../target/release/ferz}
python=${PYTHON:-python3}
if [[ ! -x "$ferz" ]]; then
    echo "$ferz: not built (cargo build --release)" >&2
    exit 2
fi
exec "$python" "$here/pychess-real.py" "$source_dir" "$ferz" "$@"
