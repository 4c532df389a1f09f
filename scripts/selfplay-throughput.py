#!/usr/bin/env python3
"""Self-play throughput: the in-process worker against the same engine driven over UCI.

  scripts/selfplay-throughput.py [--ferz target/release/ferz] [--games 40] [--nodes 5000]
                                 [--parallel 1] [--rounds 2]

Runs, alternately and `--rounds` times each so that a change in machine load hits both sides:
  - `ferz selfplay` with `--threads P`, nodes per move, 6 random opening plies, no MultiPV
    opening choice and no adjudication (games end by the rules or at 400 plies);
  - `ferz match --vs ferz --nodes N --concurrency P` with the same random plies and ply cap,
    where each move is a `position ... moves ...` / `go nodes N` round trip to a child process.
Plies are counted from each run's PGN. Prints plies/s (wall) and plies per CPU-second (the
children's user+system time) for each side and the in-process/UCI ratios.
"""
import argparse
import os
import re
import resource
import subprocess
import tempfile
import time

SELFPLAY_TOML = """[run]
games = {games}
threads = {parallel}
seed = {seed}
[search]
nodes = {nodes}
[opening]
multipv_plies = 0
random_plies = 6
[adjudication]
win_cp = 30000
draw_plies = 10000
max_plies = 400
[filter]
dedup = false
"""


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def plies_in(pgn):
    with open(pgn) as f:
        return sum(int(n) for n in re.findall(r'\[PlyCount "(\d+)"\]', f.read()))


def timed(command):
    cpu, wall = children_cpu(), time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - wall, children_cpu() - cpu


def run_selfplay(args, work, round_index):
    out = os.path.join(work, f"selfplay-{round_index}")
    config = os.path.join(work, "throughput.toml")
    with open(config, "w") as f:
        f.write(SELFPLAY_TOML.format(games=args.games, parallel=args.parallel, seed=round_index + 1, nodes=args.nodes))
    wall, cpu = timed([args.ferz, "selfplay", "--config", config, "--out", out])
    return plies_in(os.path.join(out, "shard-00000", "games.pgn")), wall, cpu


def run_uci(args, work, round_index):
    pgn = os.path.join(work, f"match-{round_index}.pgn")
    wall, cpu = timed([
        args.ferz, "match", "--vs", "ferz", "--nodes", str(args.nodes), "--games", str(args.games),
        "--concurrency", str(args.parallel), "--random-plies", "6", "--max-plies", "400",
        "--seed", str(round_index + 1), "--no-pgn-comments", "--pgn", pgn,
    ])
    return plies_in(pgn), wall, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ferz", default="target/release/ferz")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--parallel", type=int, default=1, help="selfplay threads = match concurrency")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    totals = {"in-process": [0, 0.0, 0.0], "UCI": [0, 0.0, 0.0]}
    with tempfile.TemporaryDirectory(prefix="ferz-throughput-") as work:
        for round_index in range(args.rounds):
            for name, run in (("in-process", run_selfplay), ("UCI", run_uci)):
                plies, wall, cpu = run(args, work, round_index)
                print(f"round {round_index + 1} {name:10}: {plies} plies in {wall:.1f} s "
                      f"({plies / wall:.0f} plies/s), {cpu:.1f} CPU-s ({plies / cpu:.0f} plies/CPU-s)", flush=True)
                for i, value in enumerate((plies, wall, cpu)):
                    totals[name][i] += value
    (p1, w1, c1), (p2, w2, c2) = totals["in-process"], totals["UCI"]
    print(f"in-process {p1 / w1:.0f} plies/s, {p1 / c1:.0f} plies/CPU-s; "
          f"UCI {p2 / w2:.0f} plies/s, {p2 / c2:.0f} plies/CPU-s; "
          f"ratio {p1 / w1 / (p2 / w2):.2f}x wall, {p1 / c1 / (p2 / c2):.2f}x CPU "
          f"({args.nodes} nodes a move, parallel {args.parallel})")


if __name__ == "__main__":
    main()
