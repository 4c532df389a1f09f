#!/usr/bin/env python3
"""How often an engine mates a bare king with bishop and knight, without tablebases, within the
50-move rule against Stockfish's defence.

Usage: scripts/bare-king.py ENGINE [--positions 12] [--seed 5] [--nodes 20000] [--stockfish PATH]

Draws random legal positions of king, bishop and knight against king (White to move, no check,
no piece next to the bare king or attacked by it), then lets ENGINE play the winning side at
--nodes a move and Stockfish defend at ten times that. A game ends at mate, at the 50-move rule
or at a threefold repetition. Prints the count of mates and their lengths in plies. The same
seed draws the same positions, so two builds compare game by game (docs/measurements.md).
"""
import argparse
import random

import chess
import chess.engine


def positions(count, seed):
    """`count` random KBNK positions with White (the strong side) to move."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        king, bishop, knight, bare = rng.sample(range(64), 4)
        board = chess.Board(None)
        board.set_piece_at(king, chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(bishop, chess.Piece(chess.BISHOP, chess.WHITE))
        board.set_piece_at(knight, chess.Piece(chess.KNIGHT, chess.WHITE))
        board.set_piece_at(bare, chess.Piece(chess.KING, chess.BLACK))
        board.turn = chess.WHITE
        if not board.is_valid() or board.is_check() or board.is_attacked_by(chess.WHITE, bare):
            continue
        if any(chess.square_distance(bare, square) <= 1 for square in (king, bishop, knight)):
            continue
        found.append(board.fen())
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine")
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--nodes", type=int, default=20000)
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    args = parser.parse_args()
    engine = chess.engine.SimpleEngine.popen_uci(args.engine)
    stockfish = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    mates = []
    fens = positions(args.positions, args.seed)
    try:
        for fen in fens:
            board = chess.Board(fen)
            while not board.is_game_over() and not board.is_repetition(3) and board.halfmove_clock < 100:
                if board.turn == chess.WHITE:
                    move = engine.play(board, chess.engine.Limit(nodes=args.nodes)).move
                else:
                    move = stockfish.play(board, chess.engine.Limit(nodes=10 * args.nodes)).move
                board.push(move)
            if board.is_checkmate():
                mates.append(board.ply())
    finally:
        engine.quit()
        stockfish.quit()
    print(f"{args.engine}: {len(mates)} mates of {len(fens)}, in plies {mates}")


if __name__ == "__main__":
    main()
