#!/usr/bin/env python3
"""Where a gauntlet's half-points went: the wins ferz let slip to draws, and when its losses were
decided, judged by a full-strength Stockfish.

Usage: scripts/gauntlet-audit.py PGN... [--engine ferz] [--nodes 300000] [--stockfish PATH]

Reads the PGN files `scripts/strength.sh` writes (each move's comment starts with the mover's
score, `+1.23/17`). For every drawn game in which ferz's own score reached --won (+2.50), a
full-strength Stockfish scores the position after each of ferz's moves from three moves before
that point, at --nodes a position: the game was a win let slip if Stockfish rated ferz at +1.50
or more and then a single ferz move took it below +0.80 (the move is printed), and ferz's
score was inflated if Stockfish never rated ferz at +1.50. For every loss it prints the move
from which the opponent's own score stayed winning (+1.50, never again below +1.00), with no
engine needed. The last lines count both (docs/measurements.md).
"""
import argparse

import chess
import chess.engine
import chess.pgn


def score_of(comment):
    """The mover's score in pawns from a `+1.23/17 0.5s` comment (a mate is ±100), or None."""
    words = comment.split()
    if not words or "/" not in words[0]:
        return None
    text = words[0].split("/")[0]
    if "M" in text:
        return -100.0 if text.startswith("-") else 100.0
    return float(text)


def games(paths):
    """Every game of the PGN files, with the file it came from."""
    for path in paths:
        with open(path) as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                yield path, game


def moves_of(game, ferz_is_white):
    """(board before, move, mover is ferz, mover's score) for every move of the game."""
    board = game.board()
    for node in game.mainline():
        ferz_moves = (board.turn == chess.WHITE) == ferz_is_white
        yield board.copy(), node.move, ferz_moves, score_of(node.comment)
        board.push(node.move)


def audit_draw(stockfish, game, ferz_is_white, args):
    """(kind, detail): kind 'slipped' (detail: the move), 'gradual' or 'inflated'; None when
    ferz never reached --won."""
    ferz = [(before, move, score) for before, move, mine, score in moves_of(game, ferz_is_white) if mine]
    first = next((i for i, (_, _, s) in enumerate(ferz) if s is not None and s >= args.won), None)
    if first is None:
        return None
    side = chess.WHITE if ferz_is_white else chess.BLACK
    previous, best = None, -1000.0
    for before, move, score in ferz[max(0, first - 3) :]:
        after = before.copy()
        after.push(move)
        info = stockfish.analyse(after, chess.engine.Limit(nodes=args.nodes))
        judged = info["score"].pov(side).score(mate_score=10000) / 100
        if previous is not None and previous >= 1.5 and judged < 0.8:
            return "slipped", f"at ply {before.ply() + 1} {before.san(move)} (ferz {score}, Stockfish {previous:+.2f} -> {judged:+.2f}) {before.fen()}"
        best = max(best, judged)
        previous = judged
    return ("gradual", "") if best >= 1.5 else ("inflated", f"(Stockfish at most {best:+.2f})")


def decided_at(game, ferz_is_white):
    """The move from which the opponent's own score stayed winning, or None."""
    theirs = [(before.ply(), s) for before, _, mine, s in moves_of(game, ferz_is_white) if not mine and s is not None]
    for i, (ply, score) in enumerate(theirs):
        if score >= 1.5 and all(s >= 1.0 for _, s in theirs[i:]):
            return ply // 2 + 1
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pgn", nargs="+")
    parser.add_argument("--engine", default="ferz", help="the name ferz plays under in the PGN")
    parser.add_argument("--nodes", type=int, default=300_000)
    parser.add_argument("--won", type=float, default=2.5)
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    args = parser.parse_args()
    stockfish = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    stockfish.configure({"Hash": 64, "Threads": 1})
    draws, losses = {}, {}
    try:
        for path, game in games(args.pgn):
            ferz_is_white = game.headers["White"].startswith(args.engine)
            result = game.headers["Result"]
            label = f"{path} round {game.headers['Round']}"
            if result == "1/2-1/2":
                verdict = audit_draw(stockfish, game, ferz_is_white, args)
                if verdict is not None:
                    kind, detail = verdict
                    print(f"draw {label}: {kind} {detail}".rstrip(), flush=True)
                    draws[kind] = draws.get(kind, 0) + 1
            elif result == ("0-1" if ferz_is_white else "1-0"):
                move = decided_at(game, ferz_is_white)
                print(f"loss {label}: decided at move {move}", flush=True)
                span = "never" if move is None else "1-20" if move <= 20 else "21-30" if move <= 30 else "31-45" if move <= 45 else "46+"
                losses[span] = losses.get(span, 0) + 1
    finally:
        stockfish.quit()
    print("draws after ferz reached", f"{args.won:+.2f}:", draws)
    print("losses by the move they were decided:", losses)


if __name__ == "__main__":
    main()
