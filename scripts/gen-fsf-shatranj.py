#!/usr/bin/env python3
"""Labelled Shatranj positions from Fairy-Stockfish self-play, for tuning ferz's evaluation.

Fairy-Stockfish plays both sides at a fixed node count per move from both start arrays (king
on e1 and king on d1), each game opened by a few random legal plies so that games differ.
pyffish arbitrates (the same rules library the match runner uses). Every position where the
side to move is not in check, the engine's best move is not a capture and the score is not a
mate score is written as

    <FEN> | <score in cp, white-relative> | <result 1.0/0.5/0.0, white-relative>

which is the dataset text format of ferz's self-play worker and what `ferz-tune` reads.

  scripts/gen-fsf-shatranj.py --games 2000 --nodes 3000 --out shatranj-fsf.txt [--seed 1]

The output goes to `<out>.tmp` and is renamed when the run completes.
"""
import argparse
import os
import random
import re
import subprocess

import pyffish as sf

ARRAYS = [
    "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1",  # Fairy-Stockfish's startpos
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",  # king on e1
]
MATE = 30000
SCORE = re.compile(r"score (cp|mate) (-?\d+)")


class Engine:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.send("setoption name UCI_Variant value shatranj")
        self.sync()

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def sync(self):
        self.send("isready")
        while self.p.stdout.readline().strip() != "readyok":
            pass

    def go(self, fen, moves, nodes):
        """Best move and score (cp from the side to move; mates as +-MATE) at `nodes` nodes."""
        self.send(f"position fen {fen} moves {' '.join(moves)}" if moves else f"position fen {fen}")
        self.send(f"go nodes {nodes}")
        score = 0
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise EOFError("engine exited")
            m = SCORE.search(line)
            if m:
                mate = int(m.group(2))
                score = int(m.group(2)) if m.group(1) == "cp" else (MATE if mate > 0 else -MATE)
            if line.startswith("bestmove"):
                return line.split()[1], score


def play(engine, rnd, nodes, random_plies, max_plies):
    """One game; returns the start FEN, the moves, the sampled (ply, white score) and the result."""
    fen = rnd.choice(ARRAYS)
    moves = []
    for _ in range(random_plies):
        legal = sf.legal_moves("shatranj", fen, moves)
        if not legal:
            break
        moves.append(rnd.choice(legal))
    engine.send("ucinewgame")
    engine.sync()
    samples = []
    streak_side, streak = 0, 0
    while True:
        white = (len(moves) % 2 == 0) == (fen.split()[1] == "w")
        end, val = sf.is_immediate_game_end("shatranj", fen, moves)
        legal = sf.legal_moves("shatranj", fen, moves)
        if not end and not legal:
            end, val = True, sf.game_result("shatranj", fen, moves)
        if not end:
            end, val = sf.is_optional_game_end("shatranj", fen, moves)
        if end:
            result = 0.5 if val == 0 else (1.0 if (val > 0) == white else 0.0)
            return fen, moves, samples, result
        if len(moves) >= max_plies:
            return fen, moves, samples, 0.5
        move, score = engine.go(fen, moves, nodes)
        if move not in legal:
            raise RuntimeError(f"engine played illegal {move}")
        white_score = score if white else -score
        # Adjudicate clear wins (both sides agree for several plies) to save time.
        side = 0 if abs(white_score) < 1200 else (1 if white_score > 0 else -1)
        streak = streak + 1 if side != 0 and side == streak_side else (1 if side != 0 else 0)
        streak_side = side
        if streak >= 8:
            return fen, moves, samples, 1.0 if side > 0 else 0.0
        in_check = bool(moves) and sf.gives_check("shatranj", fen, moves)
        if (
            len(moves) >= random_plies + 4
            and abs(white_score) < MATE
            and not in_check
            and not is_capture(fen, moves, move)
        ):
            samples.append((len(moves), white_score))
        moves.append(move)


def is_capture(fen, moves, move):
    """Whether `move` takes a piece (a Shatranj pawn cannot capture en passant)."""
    before = sf.get_fen("shatranj", fen, moves).split()[0]
    after = sf.get_fen("shatranj", fen, moves + [move]).split()[0]
    count = lambda board: sum(c.isalpha() for c in board)
    return count(after) < count(before)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default="/usr/games/fairy-stockfish")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--nodes", type=int, default=3000)
    ap.add_argument("--random-plies", type=int, default=8)
    ap.add_argument("--max-plies", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    engine = Engine(args.engine)
    tmp = args.out + ".tmp"
    written, score_sum = 0, 0.0
    with open(tmp, "w") as out:
        for g in range(args.games):
            fen, moves, samples, result = play(engine, rnd, args.nodes, args.random_plies, args.max_plies)
            for ply, white_score in samples:
                out.write(f"{sf.get_fen('shatranj', fen, moves[:ply])} | {white_score} | {result}\n")
            written += len(samples)
            score_sum += result
            if (g + 1) % 50 == 0:
                out.flush()
                print(f"{g + 1} games, {written} positions, white score {score_sum / (g + 1):.3f}", flush=True)
    os.replace(tmp, args.out)
    print(f"done: {args.games} games, {written} positions -> {args.out}")


if __name__ == "__main__":
    main()
