#!/usr/bin/env python3
"""Positions labelled by a stronger engine, for tuning ferz's evaluations.

A teacher engine (Stockfish for chess and Chess960, Fairy-Stockfish for Shatranj) plays both
sides at a fixed node count per move. Games start from a book position (chess), a random
Scharnagl array (Chess960) or either start array (Shatranj, king on d1 or e1), followed by a
few random legal plies so that games differ. pyffish arbitrates (the rules library the match
runner is checked against). Every position where the side to move is not in check, the
teacher's best move is not a capture and the score is not a mate is written as

    <FEN> | <teacher's score in cp, white-relative> | <result 1.0/0.5/0.0, white-relative>

which is the dataset text format of ferz's self-play worker and what `ferz-tune` reads.

  scripts/gen-teacher-data.py --variant chess960 --games 1000 --nodes 3000 --out c960.txt
  scripts/gen-teacher-data.py --variant chess --book 8moves.epd --games 1000 --out chess.txt
  scripts/gen-teacher-data.py --variant shatranj --engine /usr/games/fairy-stockfish --out sh.txt

The output goes to `<out>.tmp` and is renamed when the run completes.
"""
import argparse
import os
import random
import re
import subprocess

import chess
import pyffish as sf

SHATRANJ_ARRAYS = [
    "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1",  # Fairy-Stockfish's startpos
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",  # king on e1
]
MATE = 30000
SCORE = re.compile(r"score (cp|mate) (-?\d+)")


class Rules:
    """pyffish calls for one variant (Chess960 is pyffish's `chess` with the 960 flag)."""

    def __init__(self, variant):
        self.name = "shatranj" if variant == "shatranj" else "chess"
        self.c960 = variant == "chess960"

    def legal(self, fen, moves):
        return sf.legal_moves(self.name, fen, moves, self.c960)

    def fen(self, fen, moves):
        return sf.get_fen(self.name, fen, moves, self.c960)

    def gives_check(self, fen, moves):
        return sf.gives_check(self.name, fen, moves, self.c960)

    def outcome(self, fen, moves, legal):
        """None while the game goes on, else the result value from the side to move (pyffish's)."""
        end, val = sf.is_immediate_game_end(self.name, fen, moves, self.c960)
        if not end and not legal:
            end, val = True, sf.game_result(self.name, fen, moves, self.c960)
        if not end:
            end, val = sf.is_optional_game_end(self.name, fen, moves, self.c960)
        return val if end else None


class Engine:
    def __init__(self, path, variant, hash_mb):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.send("uci")
        self.send(f"setoption name Hash value {hash_mb}")
        if variant == "shatranj":
            self.send("setoption name UCI_Variant value shatranj")
        if variant == "chess960":
            self.send("setoption name UCI_Chess960 value true")
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


def start_position(variant, rnd, book):
    if variant == "shatranj":
        return rnd.choice(SHATRANJ_ARRAYS)
    if variant == "chess960":
        return chess.Board.from_chess960_pos(rnd.randrange(960)).fen()
    return rnd.choice(book) if book else chess.STARTING_FEN


def play(engine, rules, rnd, args, book):
    """One game; returns the start FEN, the moves, the sampled (ply, white score) and the result."""
    fen = start_position(args.variant, rnd, book)
    moves = []
    for _ in range(args.random_plies):
        legal = rules.legal(fen, moves)
        if not legal:
            break
        moves.append(rnd.choice(legal))
    engine.send("ucinewgame")
    engine.sync()
    samples = []
    streak_side, streak = 0, 0
    while True:
        white = (len(moves) % 2 == 0) == (fen.split()[1] == "w")
        legal = rules.legal(fen, moves)
        val = rules.outcome(fen, moves, legal)
        if val is not None:
            result = 0.5 if val == 0 else (1.0 if (val > 0) == white else 0.0)
            return fen, moves, samples, result
        if len(moves) >= args.max_plies:
            return fen, moves, samples, 0.5
        move, score = engine.go(fen, moves, args.nodes)
        if move not in legal:
            raise RuntimeError(f"engine played illegal {move} after {fen} moves {' '.join(moves)}")
        white_score = score if white else -score
        # Adjudicate clear wins (both sides agree for several plies) to save time.
        side = 0 if abs(white_score) < 1200 else (1 if white_score > 0 else -1)
        streak = streak + 1 if side != 0 and side == streak_side else (1 if side != 0 else 0)
        streak_side = side
        if streak >= 8:
            return fen, moves, samples, 1.0 if side > 0 else 0.0
        in_check = bool(moves) and rules.gives_check(fen, moves)
        if (
            len(moves) >= args.random_plies + 4
            and abs(white_score) < MATE
            and not in_check
            and not is_capture(rules, fen, moves, move)
        ):
            samples.append((len(moves), white_score))
        moves.append(move)


def is_capture(rules, fen, moves, move):
    """Whether `move` takes a piece (counted on the board, so en passant counts and castling
    king-takes-rook does not)."""
    count = lambda board: sum(c.isalpha() for c in board)
    return count(rules.fen(fen, moves + [move]).split()[0]) < count(rules.fen(fen, moves).split()[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", choices=["chess", "chess960", "shatranj"], required=True)
    ap.add_argument("--engine", default="/usr/games/stockfish")
    ap.add_argument("--book", help="EPD/FEN lines to start chess games from")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--nodes", type=int, default=3000)
    ap.add_argument("--hash", type=int, default=16, help="teacher's hash in MiB")
    ap.add_argument("--random-plies", type=int, default=8)
    ap.add_argument("--max-plies", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    book = []
    if args.book:
        with open(args.book) as f:
            # EPD lines hold four FEN fields; the move counters are added.
            book = [" ".join(line.split()[:4]) + " 0 1" for line in f if line.strip()]
    rnd = random.Random(args.seed)
    rules = Rules(args.variant)
    engine = Engine(args.engine, args.variant, args.hash)
    tmp = args.out + ".tmp"
    written, score_sum = 0, 0.0
    with open(tmp, "w") as out:
        for g in range(args.games):
            fen, moves, samples, result = play(engine, rules, rnd, args, book)
            for ply, white_score in samples:
                out.write(f"{rules.fen(fen, moves[:ply])} | {white_score} | {result}\n")
            written += len(samples)
            score_sum += result
            if (g + 1) % 50 == 0:
                out.flush()
                print(f"{g + 1} games, {written} positions, white score {score_sum / (g + 1):.3f}", flush=True)
    os.replace(tmp, args.out)
    print(f"done: {args.games} games, {written} positions -> {args.out}")


if __name__ == "__main__":
    main()
