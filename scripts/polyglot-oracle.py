#!/usr/bin/env python3
"""Reads games from stdin and prints, for each, python-chess's Polyglot key of the final
position and the entries `chess.polyglot` finds for it in a book: the reference the ferz-book
test `polyglot_reference` checks its own keys and reader against.

Usage: scripts/polyglot-oracle.py BOOK < games   (BOOK may be `-` for keys only)

Input lines: `VARIANT|FEN|MOVES`, VARIANT `chess` or `chess960`, FEN the start position, MOVES
space-separated UCI moves (castling as e1g1 in chess, king takes rook in Chess960).
Output lines: `KEY MOVE:WEIGHT:LEARN ...`, the key in hex, entries in file order, weight-0 entries
included (minimum_weight=0), moves in the same UCI notation.
"""

import sys

import chess
import chess.polyglot


def main():
    book_path = sys.argv[1] if len(sys.argv) > 1 else "-"
    reader = chess.polyglot.open_reader(book_path) if book_path != "-" else None
    out = sys.stdout
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line:
            continue
        variant, fen, moves = line.split("|")
        board = chess.Board(fen, chess960=(variant == "chess960"))
        for uci in moves.split():
            board.push_uci(uci)
        fields = ["%016x" % chess.polyglot.zobrist_hash(board)]
        if reader is not None:
            for entry in reader.find_all(board, minimum_weight=0):
                fields.append("%s:%d:%d" % (board.uci(entry.move), entry.weight, entry.learn))
        out.write(" ".join(fields) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
