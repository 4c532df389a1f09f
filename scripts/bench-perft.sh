#!/usr/bin/env bash
# Perft speed of ferz next to the reference engines, in one run:
#   1. standard start position, perft 6: ferz vs Stockfish (`go perft 6`);
#   2. ferz alone: Kiwipete perft 5 with bulk counting and with --no-bulk, start position
#      perft 6 with --no-bulk (Mnps from ferz's own `nodes N time MS nps NPS` line);
#   3. Shatranj start position, perft 6: ferz vs Fairy-Stockfish (UCI_Variant shatranj).
#
# Every measurement is the best of RUNS runs (default 5, after one warm-up run) of the whole
# process, wall clock, timed here with `date +%s.%N` (process start-up included for every
# engine; the engines' start-up alone is printed too). Each engine's own node count is checked
# against the known value; a wrong count fails the script. The machine should be otherwise idle.
# ferz runs single-threaded (--threads 1), like Stockfish's perft.
#
# Usage: scripts/bench-perft.sh [RUNS]
#   env STOCKFISH=/path/to/stockfish FAIRY_STOCKFISH=/path/to/fairy-stockfish to override;
#   a missing engine skips its comparison. Install them with `apt-get install stockfish fairy-stockfish`
#   (Debian packages stockfish 15.1, fairy-stockfish 11.1, in /usr/games).
#   The build uses the workspace's default target dir: target/release/ferz.
set -euo pipefail

RUNS="${1:-${RUNS:-5}}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

unset CARGO_TARGET_DIR
echo "== building ferz (release)"
cargo build --release --quiet -p ferz
FERZ="$root/target/release/ferz"

find_engine() { # name [override]
    local override="$2"
    if [[ -n "$override" ]]; then
        [[ -x "$override" ]] && echo "$override"
        return 0
    fi
    command -v "$1" 2>/dev/null || { [[ -x "/usr/games/$1" ]] && echo "/usr/games/$1"; } || true
}
STOCKFISH="$(find_engine stockfish "${STOCKFISH:-}")"
FAIRY="$(find_engine fairy-stockfish "${FAIRY_STOCKFISH:-}")"

START_NODES=119060324
KIWIPETE="r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
KIWIPETE_NODES=193690690
SHATRANJ_NODES=19864709

now() { date +%s.%N; }

# best_of OUT_VAR OUTPUT_FILE cmd...: runs cmd RUNS times, keeps the stdout of the fastest run
# in OUTPUT_FILE and its wall-clock seconds in OUT_VAR.
best_of() {
    local -n best_ref="$1"
    local file="$2"
    shift 2
    local tmp t0 t1 elapsed i
    tmp="$(mktemp)"
    best_ref=""
    "$@" >/dev/null # warm-up: page cache, CPU frequency
    for ((i = 0; i < RUNS; i++)); do
        t0="$(now)"
        "$@" >"$tmp"
        t1="$(now)"
        elapsed="$(echo "$t1 - $t0" | bc -l)"
        if [[ -z "$best_ref" ]] || (($(echo "$elapsed < $best_ref" | bc -l))); then
            best_ref="$elapsed"
            cp "$tmp" "$file"
        fi
    done
    rm -f "$tmp"
}

# Feeds UCI commands on stdin to an engine. Stockfish and Fairy-Stockfish run `go perft` on
# their search thread but wait for it to finish before acting on `quit`, so the whole count is
# printed ("Nodes searched: N"; checked below) before the process exits.
uci_perft() { # engine setup-commands depth
    printf '%sgo perft %s\nquit\n' "$2" "$3" | "$1"
}

uci_quit() { printf 'quit\n' | "$1"; }

ferz_nodes() { awk '$1 == "nodes" {print $2}' "$1" | tail -1; }
ferz_nps() { awk '$1 == "nodes" {print $6}' "$1" | tail -1; }
engine_nodes() { sed -n 's/.*Nodes searched: *\([0-9]*\).*/\1/p' "$1" | tail -1; }
mnps() { echo "scale=1; $1 / 1000000" | bc -l; }
secs() { printf '%.3f' "$1"; }
ratio() { printf '%.2f' "$(echo "$1 / $2" | bc -l)"; }

check() { # what got want
    if [[ "$2" != "$3" ]]; then
        echo "error: $1 counted ${2:-nothing}, expected $3" >&2
        exit 1
    fi
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rows=()
row() { rows+=("$(printf '%-34s | %-10s | %9s | %7s | %s' "$@")"); }

echo "== $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), best of $RUNS runs"
"$FERZ" --version 2>/dev/null || true

# 1. Start position perft 6: ferz vs Stockfish.
echo
echo "== 1. start position perft 6 ($START_NODES)"
best_of t_ferz "$work/ferz-start" "$FERZ" perft --depth 6 --threads 1
n="$(ferz_nodes "$work/ferz-start")"
check "ferz start perft 6" "$n" "$START_NODES"
echo "ferz:      $(secs "$t_ferz") s, counted $n, own line: $(tail -1 "$work/ferz-start")"
row "start perft 6" ferz "$(secs "$t_ferz")" "$(mnps "$(ferz_nps "$work/ferz-start")")" "nodes $n"
if [[ -n "$STOCKFISH" ]]; then
    best_of t_sf "$work/sf-start" uci_perft "$STOCKFISH" $'position startpos\n' 6
    n="$(engine_nodes "$work/sf-start")"
    check "stockfish start perft 6" "$n" "$START_NODES"
    echo "stockfish: $(secs "$t_sf") s, counted $n ($(head -1 "$work/sf-start"))"
    echo "ratio ferz/stockfish time: $(ratio "$t_ferz" "$t_sf")"
    best_of t_sf0 "$work/sf-quit" uci_quit "$STOCKFISH"
    echo "(stockfish start-up and quit alone: $(secs "$t_sf0") s; ferz/stockfish time without it:" \
        "$(ratio "$t_ferz" "$(echo "$t_sf - $t_sf0" | bc -l)"))"
    row "start perft 6" stockfish "$(secs "$t_sf")" "$(mnps "$(echo "$START_NODES / $t_sf" | bc)")" \
        "nodes $n; ferz/stockfish time $(ratio "$t_ferz" "$t_sf")"
else
    echo "skipped: stockfish not found (apt-get install stockfish, or set STOCKFISH)"
    row "start perft 6" stockfish - - "skipped: not installed"
fi

# 2. ferz alone: bulk counting against making every leaf move.
echo
echo "== 2. ferz with and without bulk counting"
best_of t "$work/kiwi-bulk" "$FERZ" perft --fen "$KIWIPETE" --depth 5 --threads 1
n="$(ferz_nodes "$work/kiwi-bulk")"
check "ferz Kiwipete perft 5" "$n" "$KIWIPETE_NODES"
echo "Kiwipete perft 5, bulk:     $(secs "$t") s, $(mnps "$(ferz_nps "$work/kiwi-bulk")") Mnps"
row "Kiwipete perft 5 (bulk)" ferz "$(secs "$t")" "$(mnps "$(ferz_nps "$work/kiwi-bulk")")" "nodes $n"
best_of t "$work/kiwi-nobulk" "$FERZ" perft --fen "$KIWIPETE" --depth 5 --threads 1 --no-bulk
n="$(ferz_nodes "$work/kiwi-nobulk")"
check "ferz Kiwipete perft 5 --no-bulk" "$n" "$KIWIPETE_NODES"
echo "Kiwipete perft 5, no bulk:  $(secs "$t") s, $(mnps "$(ferz_nps "$work/kiwi-nobulk")") Mnps"
row "Kiwipete perft 5 (--no-bulk)" ferz "$(secs "$t")" "$(mnps "$(ferz_nps "$work/kiwi-nobulk")")" "nodes $n"
best_of t "$work/start-nobulk" "$FERZ" perft --depth 6 --threads 1 --no-bulk
n="$(ferz_nodes "$work/start-nobulk")"
check "ferz start perft 6 --no-bulk" "$n" "$START_NODES"
echo "start perft 6, no bulk:     $(secs "$t") s, $(mnps "$(ferz_nps "$work/start-nobulk")") Mnps"
row "start perft 6 (--no-bulk)" ferz "$(secs "$t")" "$(mnps "$(ferz_nps "$work/start-nobulk")")" "nodes $n"

# 3. Shatranj start position perft 6: ferz vs Fairy-Stockfish.
echo
echo "== 3. Shatranj start position perft 6 ($SHATRANJ_NODES)"
best_of t_ferz "$work/ferz-shatranj" "$FERZ" perft --variant shatranj --depth 6 --threads 1
n="$(ferz_nodes "$work/ferz-shatranj")"
check "ferz Shatranj perft 6" "$n" "$SHATRANJ_NODES"
echo "ferz:            $(secs "$t_ferz") s, counted $n, own line: $(tail -1 "$work/ferz-shatranj")"
row "Shatranj perft 6" ferz "$(secs "$t_ferz")" "$(mnps "$(ferz_nps "$work/ferz-shatranj")")" "nodes $n"
if [[ -n "$FAIRY" ]]; then
    best_of t_fsf "$work/fsf-shatranj" uci_perft "$FAIRY" \
        $'setoption name UCI_Variant value shatranj\nposition startpos\n' 6
    n="$(engine_nodes "$work/fsf-shatranj")"
    check "fairy-stockfish Shatranj perft 6" "$n" "$SHATRANJ_NODES"
    echo "fairy-stockfish: $(secs "$t_fsf") s, counted $n ($(head -1 "$work/fsf-shatranj"))"
    echo "speed-up fairy-stockfish/ferz time: $(ratio "$t_fsf" "$t_ferz")x (target >= 10x)"
    best_of t_fsf0 "$work/fsf-quit" uci_quit "$FAIRY"
    echo "(fairy-stockfish start-up and quit alone: $(secs "$t_fsf0") s)"
    row "Shatranj perft 6" fairy-sf "$(secs "$t_fsf")" "$(mnps "$(echo "$SHATRANJ_NODES / $t_fsf" | bc)")" \
        "nodes $n; ferz $(ratio "$t_fsf" "$t_ferz")x faster (target >= 10x)"
else
    echo "skipped: fairy-stockfish not found (apt-get install fairy-stockfish, or set FAIRY_STOCKFISH)"
    row "Shatranj perft 6" fairy-sf - - "skipped: not installed"
fi

echo
echo "== summary (wall clock of the whole process, best of $RUNS; Mnps: ferz's own count, engines: nodes/wall time)"
printf '%-34s | %-10s | %9s | %7s | %s\n' test engine "time (s)" Mnps notes
printf '%s\n' "-----------------------------------+------------+-----------+---------+------------------------------"
printf '%s\n' "${rows[@]}"
