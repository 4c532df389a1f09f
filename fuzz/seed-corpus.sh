#!/usr/bin/env bash
# Fills fuzz/corpus/{fen,uci_move}/ with seeds taken from the perft suites in
# crates/chess/tests/data. The corpus is git-ignored; rerun this after a fresh clone.
#
# Usage: fuzz/seed-corpus.sh [path/to/ferz]
# The ferz binary (built if not given) lists legal UCI moves for the uci_move seeds.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
data="$root/crates/chess/tests/data"
ferz="${1:-}"
if [[ -z "$ferz" ]]; then
    (cd "$root" && cargo build --quiet -p ferz)
    ferz="${CARGO_TARGET_DIR:-$root/target}/debug/ferz"
fi

mkdir -p "$here/corpus/fen" "$here/corpus/uci_move"

# "variant<TAB>fen" lines: every tricky and castling case, a sample of the larger suites.
fens() {
    grep '^epd ' "$data/tricky.perft" | sed 's/^epd /chess\t/'
    grep '^fen ' "$data/chess960-castling-cases.txt" | sed 's/^fen //; s/|.*//' | awk '{print "chess960\t" $0}'
    grep '^epd ' "$data/shatranj.perft" | sed 's/^epd /shatranj\t/' | awk 'NR % 2 == 1'
    grep '^epd ' "$data/chess960-midgame.perft" | sed 's/^epd /chess960\t/' | awk 'NR % 10 == 1'
    grep '^epd ' "$data/random.perft" | sed 's/^epd /chess\t/' | awk 'NR % 40 == 1'
    grep -v '^#' "$data/chess960-startpos.csv" | awk -F';' 'NR % 20 == 1 {print "chess960\t" $2; print "chess960\t" $3}'
}

# SAN and odd texts tried against every position, next to the legal UCI moves.
extra_moves=(O-O O-O-O 0-0 e4 Nf3 exd5 e8=Q+ Qxe7# Kxh1 Rad1 N1c3 e7e8 e1g1 e1h1 0000)

n=0
while IFS=$'\t' read -r variant fen; do
    [[ -n "$fen" ]] || continue
    n=$((n + 1))
    printf '%s' "$fen" > "$here/corpus/fen/seed-$n"
    moves="$("$ferz" perft --variant "$variant" --fen "$fen" --depth 1 --divide 2>/dev/null | awk 'NF == 2 {print $1}' || true)"
    i=0
    for m in $(printf '%s\n' $moves | awk 'NR % 7 == 1') "${extra_moves[$((n % ${#extra_moves[@]}))]}"; do
        i=$((i + 1))
        printf '%s\n%s' "$fen" "$m" > "$here/corpus/uci_move/seed-$n-$i"
    done
done < <(fens)

echo "fen: $(ls "$here/corpus/fen" | wc -l) seeds, uci_move: $(ls "$here/corpus/uci_move" | wc -l) seeds"
