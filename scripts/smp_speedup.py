#!/usr/bin/env python3
"""Lazy SMP speed-up of ferz: time to reach a fixed depth with 1 and with N threads.

  scripts/smp_speedup.py [--ferz target/release/ferz] [--depth 16] [--threads 2]

Searches a set of chess middlegame positions to --depth with Threads=1, then Threads=N, each
from a cleared hash, and prints the total wall time of each and the ratio. Needs only Python 3.
"""
import argparse, subprocess, time

POSITIONS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 3 8",
    "r2q1rk1/1b1nbppp/pp1ppn2/8/2PNP3/1PN1B3/P3BPPP/R2Q1RK1 w - - 2 12",
    "2r2rk1/pp1q1ppp/2n1pn2/3p4/3P4/P1NBPN2/1P3PPP/2RQ1RK1 b - - 4 15",
    "r1b2rk1/2q1bppp/p2p1n2/np2p3/3PP3/2P2N1P/PPB2PP1/RNBQR1K1 w - - 1 12",
]


def run(ferz, threads, depth):
    engine = subprocess.Popen([ferz], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line):
        engine.stdin.write(line + "\n")
        engine.stdin.flush()

    def wait(prefix):
        for line in engine.stdout:
            if line.startswith(prefix):
                return line
        raise EOFError("ferz exited")

    send(f"setoption name Threads value {threads}")
    send("setoption name Hash value 64")
    total = 0.0
    for fen in POSITIONS:
        send("ucinewgame")
        send(f"position fen {fen}")
        send("isready")
        wait("readyok")
        start = time.perf_counter()
        send(f"go depth {depth}")
        wait("bestmove")
        total += time.perf_counter() - start
    send("quit")
    engine.wait()
    return total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ferz", default="target/release/ferz")
    parser.add_argument("--depth", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    one = run(args.ferz, 1, args.depth)
    many = run(args.ferz, args.threads, args.depth)
    print(f"depth {args.depth}, {len(POSITIONS)} positions: 1 thread {one:.2f} s, "
          f"{args.threads} threads {many:.2f} s, speed-up {one / many:.2f}x")


if __name__ == "__main__":
    main()
