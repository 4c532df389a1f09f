#!/usr/bin/env bash
# `ferz loop` end to end with the release binary: two tiny generations, killed with SIGKILL in
# every stage, must end as an unbroken run of the same settings does; then the report is
# rendered in a real browser.
#
# What it does:
#   1. runs the loop of two tiny generations (a few hundred nodes a move) unbroken, in one
#      directory;
#   2. runs it again in another directory, killed (SIGKILL, no cleanup) in each stage of each
#      generation: at the fault points selfplay:3, merge:1, train:1, scale:1, gate:3, promote:1,
#      ledger:1 (FERZ_LOOP_KILL_AT, see crates/loop/src/fault.rs), after a first run killed from
#      outside with `kill -9` once generation 1's first self-play game is written; then to its end;
#   3. checks that both ledgers hold the same generations (data, nets, gate games, verdicts;
#      stage times aside), that best/ holds the same nets, that no stage's partial output is
#      left, and that running the finished loop again changes nothing;
#   4. renders report.html in headless Chromium (installed with apt-get when missing and this
#      runs as root) and checks the screenshot shows the plots.
# It prints what was killed where and the wall time of each run.
#
# Usage: scripts/loop-e2e.sh   (FERZ_BIN=path to use another ferz; KEEP=1 keeps the directory)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
KEEP=${KEEP:-0}
if [ -z "${FERZ_BIN:-}" ]; then
    (cd "$root" && cargo build --release --quiet)
    FERZ_BIN=$root/target/release/ferz
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ferz-loop-e2e.XXXXXX")
cleanup() {
    status=$?
    if [ "$KEEP" = 1 ] || [ $status -ne 0 ]; then
        echo "kept $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT

# The kill tests' tiny loop (tests/data/loop/tiny.toml), with longer shards so that the kill
# from outside lands in generation 1's self-play.
cp "$root/tests/data/loop/tiny.toml" "$work/loop.toml"
export FERZ__SELFPLAY__GAMES=20 FERZ__SELFPLAY__NODES=400 FERZ__GATE__NODES=400

run_loop() { # dir [fault point]; prints the exit status
    local dir=$1 point=${2:-}
    local status=0
    if [ -n "$point" ]; then
        FERZ_LOOP_KILL_AT=$point "$FERZ_BIN" loop "$dir" --config "$work/loop.toml" >>"$work/log" 2>&1 || status=$?
    else
        "$FERZ_BIN" loop "$dir" --config "$work/loop.toml" >>"$work/log" 2>&1 || status=$?
    fi
    echo "$status"
}

start=$(date +%s.%N)
status=$(run_loop "$work/unbroken")
[ "$status" = 0 ] || { echo "the unbroken loop failed ($status)"; tail -20 "$work/log"; exit 1; }
echo "unbroken: 2 generations in $(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')") s"

# Once from outside, at a moment no fault point chose: as soon as generation 1's first game is
# written. A fixed delay cannot do it: on a fast machine the whole self-play stage takes less
# than half a second, and a kill after it would move every fault point below into generation 2.
"$FERZ_BIN" loop "$work/killed" --config "$work/loop.toml" >>"$work/log" 2>&1 &
pid=$!
first_games=$work/killed/gen-0001/selfplay/shard-00000/games.pgn
for _ in $(seq 3000); do
    [ -s "$first_games" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.01
done
if kill -KILL "$pid" 2>/dev/null; then
    echo "killed from outside after generation 1's first self-play game"
else
    echo "the loop ended before generation 1's first self-play game could be killed"
    tail -20 "$work/log"
    exit 1
fi
wait "$pid" || true
for generation in 1 2; do
    for point in selfplay:3 merge:1 train:1 scale:1 gate:3 promote:1 ledger:1; do
        status=$(run_loop "$work/killed" "$point")
        # 137 = 128 + SIGKILL; 134 = 128 + SIGABRT (where `kill` could not be run).
        case $status in
            137|134) echo "killed at $point in generation $generation" ;;
            *) echo "the loop was not killed at $point (exit $status)"; tail -20 "$work/log"; exit 1 ;;
        esac
        if [ "$generation" = 1 ] && [ -e "$work/killed/gen-0002" ]; then
            echo "the kill at $point landed in generation 2, not 1"; tail -20 "$work/log"; exit 1
        fi
    done
done
status=$(run_loop "$work/killed")
[ "$status" = 0 ] || { echo "the resumed loop failed ($status)"; tail -20 "$work/log"; exit 1; }

python3 - "$work/unbroken" "$work/killed" <<'PY'
import hashlib, json, pathlib, sys
a, b = (pathlib.Path(p) for p in sys.argv[1:3])
def rounded(value):
    # The gate's statistics are sums of the same games in another order after a resume: equal
    # to the last bits, not in them.
    if isinstance(value, float):
        return float(f"{value:.9g}")
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded(v) for v in value]
    return value
def generations(d):
    out = []
    for g in json.loads((d / "ledger.json").read_text())["generations"]:
        g.pop("stages")
        g["data"].pop("shard_manifests")  # they hold the directory's paths and seconds played
        g["train"].pop("run_record")
        out.append(rounded(g))
    return out
ga, gb = generations(a), generations(b)
assert len(ga) == 2, ga
assert ga == gb, f"the killed loop's generations differ:\n{ga}\n{gb}"
for net in sorted((a / "best").iterdir()):
    other = b / "best" / net.name
    assert hashlib.sha256(net.read_bytes()).digest() == hashlib.sha256(other.read_bytes()).digest(), net.name
for g in (1, 2):
    gen = b / f"gen-{g:04d}"
    assert not (gen / "data.part").exists(), "a partial merge was left"
    assert not list((gen / "selfplay").glob("*/checkpoint.json")), "a shard was left unfinished"
    assert (gen / "gate" / "verdict.json").exists()
report = (b / "report.md").read_text()
print(report.split("## Generations")[0].strip())
assert "2 generations finished" in report
PY

before=$(sha256sum "$work/killed/ledger.json")
status=$(run_loop "$work/killed")
[ "$status" = 0 ] && [ "$(sha256sum "$work/killed/ledger.json")" = "$before" ] || { echo "a finished loop changed when run again"; exit 1; }
echo "a finished loop run again: no change"

# The report in a real browser.
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ] && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    chromium=$(command -v chromium || true)
fi
if [ -z "$chromium" ]; then
    if [ "${CI:-}" = true ]; then echo "chromium is missing in CI"; exit 1; fi
    echo "chromium not found (not root): the report was not rendered"
    exit 0
fi
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/chromium" --window-size=1200,1800 \
    --screenshot="$work/report.png" "file://$work/killed/report.html" >/dev/null 2>&1
python3 - "$work/report.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
width, height = struct.unpack(">II", data[16:24])
# Decompress the image data and count distinct byte values per row: a page with plots has
# many colours and lines; a blank or error page has almost none.
chunks, at = [], 8
while at < len(data):
    length, kind = struct.unpack(">I4s", data[at:at + 8])
    chunks.append((kind, data[at + 8:at + 8 + length]))
    at += 12 + length
idat = b"".join(body for kind, body in chunks if kind == b"IDAT")
raw = zlib.decompress(idat)
distinct = len(set(raw))
print(f"report.png: {width}x{height}, {len(data)} bytes, {distinct} distinct byte values")
assert width >= 1000 and height >= 1000 and distinct > 64, "the screenshot looks empty"
PY
echo "loop end to end: OK"
