#!/usr/bin/env python3
"""Writes the Syzygy oracle fixture: random legal 3- and 4-piece positions with the WDL and DTZ
values python-chess's `chess.syzygy` reads from the same tables.

The ferz-syzygy test `oracle` compares its own prober against every line.

Usage: scripts/syzygy-oracle.py TABLE_DIR OUTPUT [--positions N] [--seed S]

Output lines: `FEN;WDL;DTZ`: a few hand-picked positions, then N random ones (WDL in -2..2, DTZ as python-chess reports it). Positions have no
castling rights (tables do not cover them); about one in twenty has a legal en passant capture,
the case the probing code treats specially.
"""

import argparse
import random
import sys

import chess
import chess.syzygy

# Positions random placement rarely gives: checkmate, stalemate, mate in one, en passant as
# the only capture, bare kings. Written first, before the random ones.
SPECIAL = [
    "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1",
    "k7/8/1QK5/8/8/8/8/8 b - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1",
    "8/8/8/8/Pp6/8/8/K1k5 b - a3 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "7k/8/6KP/8/8/8/8/8 b - - 0 1",
    "8/8/8/8/8/5k2/6q1/7K w - - 0 1",
]

ROLES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP, "N": chess.KNIGHT, "P": chess.PAWN}


def materials(table_dir):
    """Every table's material, as (white pieces, black pieces) strings, both orientations."""
    import os

    names = sorted({f[:-5] for f in os.listdir(table_dir) if f.endswith(".rtbw")})
    result = []
    for name in names:
        white, black = name.split("v")
        result.append((white, black))
        if white != black:
            result.append((black, white))
    return result


def random_position(rng, white, black):
    """A random legal position with this material, or None when the placement is illegal."""
    board = chess.Board(None)
    squares = list(chess.SQUARES)
    rng.shuffle(squares)
    for color, pieces in ((chess.WHITE, white), (chess.BLACK, black)):
        for letter in pieces:
            role = ROLES[letter]
            while True:
                if not squares:
                    return None
                square = squares.pop()
                if role == chess.PAWN and chess.square_rank(square) in (0, 7):
                    continue
                board.set_piece_at(square, chess.Piece(role, color))
                break
    board.turn = rng.choice([chess.WHITE, chess.BLACK])
    return board if board.is_valid() else None


def en_passant_position(rng, white, black):
    """A position where the side to move can capture en passant, reached by a double push."""
    if "P" not in white or "P" not in black:
        return None
    board = random_position(rng, white, black)
    if board is None:
        return None
    mover = board.turn
    pushes = [
        m
        for m in board.legal_moves
        if board.piece_type_at(m.from_square) == chess.PAWN and abs(m.to_square - m.from_square) == 16
    ]
    if not pushes:
        return None
    board.push(rng.choice(pushes))
    if not board.has_legal_en_passant() or board.turn == mover:
        return None
    return chess.Board(board.fen())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table_dir")
    parser.add_argument("output")
    parser.add_argument("--positions", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=20261123)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    pairs = materials(args.table_dir)
    pawn_pairs = [p for p in pairs if "P" in p[0] and "P" in p[1]]
    lines = []
    seen = set()
    with chess.syzygy.open_tablebase(args.table_dir) as tables:
        for fen in SPECIAL:
            board = chess.Board(fen)
            seen.add(board.fen())
            lines.append(f"{board.fen()};{tables.probe_wdl(board)};{tables.probe_dtz(board)}")
        while len(lines) < len(SPECIAL) + args.positions:
            if len(lines) % 20 == 0 and pawn_pairs:
                white, black = rng.choice(pawn_pairs)
                board = en_passant_position(rng, white, black)
            else:
                white, black = rng.choice(pairs)
                board = random_position(rng, white, black)
            if board is None:
                continue
            fen = board.fen()
            if fen in seen:
                continue
            seen.add(fen)
            wdl = tables.probe_wdl(board)
            dtz = tables.probe_dtz(board)
            lines.append(f"{fen};{wdl};{dtz}")
    with open(args.output, "w") as out:
        out.write("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} positions to {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
