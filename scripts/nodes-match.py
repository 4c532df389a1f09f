#!/usr/bin/env python3
"""Fixed-nodes match between two UCI engines (standard chess), for comparing evaluations.

Time-control matches measure nothing on a machine whose CPU is shared with other jobs: the
engines lose on time when they are not scheduled. With a node budget per move the result does
not depend on CPU share, only on the search and the evaluation (the two sides' speed is taken
as equal, which holds when only evaluation weights differ).

  nodes-match.py --a NEW --b OLD --games 200 --nodes 20000 --book 8moves.epd [--seed 1]

Each book position (drawn at random) is played twice, colours swapped. A game ends by the rules
(threefold and the 50-move rule claimed at once), by adjudication when both engines' scores
are at least --win-cp for the same side over 4 plies in a row, or as a draw after 400 plies.
The last line is `score A: W-D-L (points/games), Elo diff +- 95% error`.
"""
import argparse, math, random

import chess
import chess.engine


def play(a, b, fen, a_white, nodes, win_cp):
    board = chess.Board(fen)
    engines = {chess.WHITE: a if a_white else b, chess.BLACK: b if a_white else a}
    for e in (a, b):
        e.configure({"Clear Hash": None}) if "Clear Hash" in e.options else None
    streak = 0
    while not board.is_game_over(claim_draw=True) and board.ply() < 400:
        result = engines[board.turn].play(board, chess.engine.Limit(nodes=nodes), info=chess.engine.INFO_SCORE)
        score = result.info.get("score")
        if score is not None:
            cp = score.white().score(mate_score=100000)
            if cp >= win_cp:
                streak = streak + 1 if streak > 0 else 1
            elif cp <= -win_cp:
                streak = streak - 1 if streak < 0 else -1
            else:
                streak = 0
        board.push(result.move)
        if abs(streak) >= 4:
            white_score = 1.0 if streak > 0 else 0.0
            break
    else:
        outcome = board.outcome(claim_draw=True)
        white_score = 0.5 if outcome is None or outcome.winner is None else (1.0 if outcome.winner else 0.0)
    return white_score if a_white else 1.0 - white_score, board.ply()


def elo(points, games, wins, draws, losses):
    p = points / games
    if p <= 0 or p >= 1:
        return float("nan"), float("nan")
    var = (wins * (1 - p) ** 2 + draws * (0.5 - p) ** 2 + losses * (0 - p) ** 2) / games
    se = math.sqrt(var / games)
    f = lambda x: -400 * math.log10(1 / min(max(x, 1e-6), 1 - 1e-6) - 1)
    return f(p), (f(p + 1.96 * se) - f(p - 1.96 * se)) / 2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--book", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--win-cp", type=int, default=1000)
    args = ap.parse_args()
    book = [line.strip() for line in open(args.book) if line.strip() and not line.startswith("#")]
    rng = random.Random(args.seed)
    a = chess.engine.SimpleEngine.popen_uci(args.a)
    b = chess.engine.SimpleEngine.popen_uci(args.b)
    wins = draws = losses = 0
    try:
        for pair in range((args.games + 1) // 2):
            fen = " ".join(rng.choice(book).split()[:4]) + " 0 1"
            for a_white in (True, False):
                if wins + draws + losses >= args.games:
                    break
                score, plies = play(a, b, fen, a_white, args.nodes, args.win_cp)
                wins += score == 1.0
                draws += score == 0.5
                losses += score == 0.0
                n = wins + draws + losses
                print(f"game {n} a_white={a_white} a_score={score} plies={plies} fen={fen}", flush=True)
    finally:
        a.quit()
        b.quit()
    n = wins + draws + losses
    points = wins + draws / 2
    diff, err = elo(points, n, wins, draws, losses)
    print(f"score A: {wins}-{draws}-{losses} ({points}/{n}), Elo diff {diff:+.0f} +- {err:.0f}")


if __name__ == "__main__":
    main()
