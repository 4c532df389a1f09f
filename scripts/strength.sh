#!/usr/bin/env bash
# ferz's strength against the engines it is compared with: four gauntlets at 10+0.1, one thread
# and 64 MiB a side, 200 games each (docs/measurements.md, "Matches", has every result):
#
#   sf2850     chess     Stockfish 15.1, UCI_Elo 2850   8moves_v3 in random order, seed 28
#   ethereal   chess     Ethereal 12, full strength      8moves_v3 in random order, seed 29
#   sf2400-960 Chess960  Stockfish 15.1, UCI_Elo 2400   random start positions,   seed 960
#   fsf        Shatranj  Fairy-Stockfish 11.1            both arrays, 6 random plies, seed 33
#
# The seeds are those of every earlier run, so each game starts where the same-numbered game of
# an earlier net started. A gauntlet whose PGN exists continues with `--resume`: stopping the
# script (or a kill) loses at most the games being played, and running it again after the last
# game only prints the results.
#
# Usage: scripts/strength.sh [DIR] [NAME...]   (default DIR: strength/; default: all four)
#   FERZ=path          the ferz binary (default: target/release/ferz, built when missing)
#   BOOK=path          8moves_v3.pgn (default: DIR/8moves_v3.pgn), for the two chess gauntlets
#   GAMES=200          games per gauntlet; CONCURRENCY=2 games at once
#   FERZ_OPTIONS="EvalFile=x.nnue ..."   extra UCI options for ferz (a candidate net, say)
# Engines: Debian's stockfish, ethereal-chess and fairy-stockfish (tools: apt-get install ...).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-strength}
shift || true
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(sf2850 ethereal sf2400-960 fsf)
ferz=${FERZ:-$root/target/release/ferz}
games=${GAMES:-200}
concurrency=${CONCURRENCY:-2}
for name in "${names[@]}"; do
    case "$name" in
    sf2850 | ethereal | sf2400-960 | fsf) ;;
    *)
        echo "strength: unknown gauntlet '$name' (sf2850, ethereal, sf2400-960, fsf)" >&2
        exit 2
        ;;
    esac
done
mkdir -p "$dir"
book=${BOOK:-$dir/8moves_v3.pgn}

if [ -z "${FERZ:-}" ] && [ ! -x "$ferz" ]; then
    (cd "$root" && cargo build --release -p ferz)
fi

engine_path() {
    local path=/usr/games/$1
    if [ ! -x "$path" ]; then
        echo "strength: $path is missing (apt-get install $2)" >&2
        exit 2
    fi
    echo "$path"
}

need_book() {
    if [ ! -f "$book" ]; then
        echo "strength: the chess gauntlets need 8moves_v3.pgn at $book (or BOOK=path)" >&2
        exit 2
    fi
}

gauntlet() {
    local name=$1
    shift
    local pgn=$dir/$name.pgn resume=()
    [ -s "$pgn" ] && resume=(--resume)
    local ours=(--option-a Hash=64)
    for option in ${FERZ_OPTIONS:-}; do
        ours+=(--option-a "$option")
    done
    # The build is named by its bench node count (deterministic per search and nets), so each
    # run of a resumed gauntlet says which build played it.
    echo "== $name: $(date -u +%FT%TZ), $ferz: $("$ferz" bench 2>/dev/null | tail -1 | cut -d' ' -f1,2)" >>"$dir/$name.log"
    "$ferz" match "${ours[@]}" --option-b Hash=64 --option-b Threads=1 --tc 10+0.1 \
        --games "$games" --concurrency "$concurrency" --pgn "$pgn" "${resume[@]}" "$@" >>"$dir/$name.log" 2>&1
}

for name in "${names[@]}"; do
    case "$name" in
    sf2850)
        need_book
        gauntlet sf2850 --vs "uci:$(engine_path stockfish stockfish)" --option-b UCI_LimitStrength=true \
            --option-b UCI_Elo=2850 --variant chess --book "$book" --book-order random --seed 28 \
            --time-margin-ms 400
        ;;
    ethereal)
        need_book
        gauntlet ethereal --vs "uci:$(engine_path ethereal-chess ethereal-chess)" --variant chess \
            --book "$book" --book-order random --seed 29 --time-margin-ms 400
        ;;
    sf2400-960)
        gauntlet sf2400-960 --vs "uci:$(engine_path stockfish stockfish)" --option-b UCI_LimitStrength=true \
            --option-b UCI_Elo=2400 --variant chess960 --seed 960 --time-margin-ms 400
        ;;
    fsf)
        gauntlet fsf --vs "uci:$(engine_path fairy-stockfish fairy-stockfish)" --variant shatranj --seed 33
        ;;
    esac
done

# The last result of each gauntlet played, as `ferz match` printed it.
for name in "${names[@]}"; do
    log=$dir/$name.log
    echo "$name: $(grep '^Score of' "$log" | tail -1)"
    echo "  $(grep '^Elo' "$log" | tail -1)"
done
