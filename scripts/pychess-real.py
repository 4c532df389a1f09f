#!/usr/bin/env python3
"""Plays `ferz bot` against a real pychess-variants server, with a scripted human opponent.

The server is the source tree given on the command line (a checkout of gbtami/pychess-variants:
the directory holding `server/`); nothing is fetched. It runs in this process on 127.0.0.1 with
an in-memory MongoDB (mongomock-motor), its anonymous visitors turned into test users (`-a`),
and a BOT account whose token comes from the server's own `create_bot_token`. The server is an
oracle only: this script imports it and talks to it, and copies none of it.

The human opponent speaks the browser's websocket protocol: `/wsl` (lobby) to challenge the bot,
`/wsr/{gameId}` (round) to move, resign and abort. Each game gets a new guest, so that per-opponent
limits never get in the way. Its moves are picked among the server's own legal moves.

For each game the script prints the server's result, status and ply count beside what ferz wrote
(the PGN's result, termination and ply count, and the log's `game over` line); after a
resignation by ferz, how long until the next challenge was accepted; the game-stream requests
made after each game ended; and how ferz took one TERM at the end.

Needs: Python 3.13 with the server's requirements plus mongomock-motor (the server asks for 3.14;
on 3.13 its modules are compiled with postponed annotations, which this script arranges without
touching the files).

    pychess-real.py SERVER_SOURCE_DIR FERZ_BINARY [--port 18080] [--work DIR] [--only NAME ...]
"""

from __future__ import annotations

import __future__ as future_flags
import argparse
import asyncio
import importlib.machinery
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BOT = "ferz-bot"
# The bot's token, once made (the probe of a second stream uses it).
TOKEN: list[str] = []

# The server's status codes (its `const.py`), by name for the report.
STATUS_NAMES = {
    -2: "created",
    -1: "started",
    0: "aborted",
    1: "mate",
    2: "resign",
    3: "stalemate",
    4: "timeout",
    5: "draw",
    6: "flag",
    7: "abandon",
    8: "cheat",
    9: "byegame",
    10: "invalidmove",
    11: "unknownfinish",
    12: "variantend",
    13: "claim",
}


class PostponedAnnotationsLoader(importlib.machinery.SourceFileLoader):
    """Compiles the server's modules as `from __future__ import annotations` would (Python 3.13
    evaluates annotations eagerly; the server is written for 3.14's deferred ones)."""

    def source_to_code(self, data, path, *, _optimize=-1):  # noqa: D102
        flags = future_flags.annotations.compiler_flag
        return compile(data, path, "exec", flags=flags, dont_inherit=True, optimize=_optimize)


def import_server(source: Path):
    """Makes the server's modules importable from `source/server` and imports what is used."""
    server_dir = str((source / "server").resolve())
    if not Path(server_dir, "server.py").is_file():
        sys.exit(f"{source}: no server/server.py here (expected a pychess-variants checkout)")
    sys.dont_write_bytecode = True
    finder_hook = importlib.machinery.FileFinder.path_hook(
        (PostponedAnnotationsLoader, importlib.machinery.SOURCE_SUFFIXES)
    )

    def hook(path: str):
        if path.startswith(server_dir):
            return finder_hook(path)
        raise ImportError

    sys.path_hooks.insert(0, hook)
    sys.path_importer_cache.clear()
    sys.path.insert(0, server_dir)
    os.chdir(source)


@dataclass
class Scenario:
    """One game: the human's colour, the start, the clock, and how the human plays."""

    name: str
    human_color: str  # "white", "black", "random"
    fen: str = ""
    minutes: float = 2
    increment: int = 1
    script: list[str] = field(default_factory=list)  # the human's first moves, UCI
    resign_at_ply: int | None = None  # the human resigns when this many plies are played
    abort: bool = False
    seed: int = 1
    # Once the game is under way, open a second stream of it with the bot's token and report
    # how the server answers.
    probe_second_stream: bool = False
    # After the game, the human asks for a rematch (the server makes the game with the bot at
    # once, no challenge) and plays it; the row is the rematch's.
    rematch: bool = False


SCENARIOS = [
    Scenario("ferz black, start array", "white", seed=11),
    Scenario("ferz white, start array", "black", seed=12, probe_second_stream=True),
    Scenario("random colour", "random", seed=20),
    Scenario(
        "e-file array (custom FEN)",
        "white",
        fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        seed=13,
    ),
    # ferz (black) takes the knight on e4, the last white piece; the human's reply then ends
    # the game by the bare-king rule.
    Scenario("human's king bared", "white", fen="7k/1r6/8/8/r3N3/8/8/3K4 w - - 0 1", script=["d1c1"], seed=14),
    Scenario("human resigns", "black", resign_at_ply=8, seed=15),
    Scenario("rematch asked by the human", "white", resign_at_ply=6, rematch=True, seed=21),
    Scenario("human aborts", "white", abort=True, seed=16),
    Scenario("30-second base + 2", "white", minutes=0.5, increment=2, seed=17),
    # ferz (white) has a pawn against two rooks and a queen (ferz): it resigns at once.
    Scenario("ferz resigns", "black", fen="r2rk3/4q3/8/8/8/8/4P3/4K3 w - - 0 1", seed=18),
    Scenario("next challenge after the resignation", "white", seed=19),
]


def ferz_config(url: str, pgn_dir: Path) -> str:
    return f"""[lichess]
url = "{url}"
platform = "pychess"
stream_idle_s = 20

[engine]
hash_mb = 16
ponder = false
move_overhead_ms = 300

[challenge]
concurrency = 1
speeds = ["ultraBullet", "bullet", "blitz", "rapid", "classical"]
max_games_per_opponent = 20

[challenge.pychess]
variants = ["shatranj"]

[resign]
moves = 1
score_cp = -500

[abort]
abort_s = 20

[pgn]
dir = "{pgn_dir}"
aborted = false
"""


class Requests:
    """The bot's game-stream requests, with the game's status when each arrived."""

    def __init__(self):
        self.streams: list[tuple[float, str, int]] = []


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path, help="pychess-variants source directory (holds server/)")
    ap.add_argument("ferz", type=Path, help="the ferz binary")
    ap.add_argument("--port", type=int, default=18080)
    ap.add_argument("--work", type=Path, help="where ferz's config, log and PGNs go")
    ap.add_argument("--only", nargs="*", help="scenario names to play (default: all)")
    args = ap.parse_args()
    ferz = args.ferz.resolve()
    if not ferz.is_file():
        sys.exit(f"{ferz}: no such binary (cargo build --release)")
    work = (args.work or Path(tempfile.mkdtemp(prefix="pychess-real-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    base = f"http://127.0.0.1:{args.port}"
    os.environ["URI"] = base
    # The server's test mode (its `is_test_run()` looks for `unittest` on the command line):
    # what its own tests run, suited to the in-memory database.
    sys.argv = [sys.argv[0], "unittest"]
    import_server(args.source)

    import aiohttp
    from aiohttp import web
    from bot_accounts import create_bot_token
    from glicko2.glicko2 import new_default_perf_map
    from mongomock_motor import AsyncMongoMockClient
    from pychess_global_app_state_utils import get_app_state
    from user import User
    from variants import VARIANTS

    from server import make_app

    app = make_app(
        db_client=AsyncMongoMockClient(tz_aware=True),
        simple_cookie_storage=True,
        anon_as_test_users=True,
        with_openapi=False,
    )
    requests = Requests()

    @web.middleware
    async def record_streams(request, handler):
        m = re.fullmatch(r"/api/bot/game/stream/(\w+)", request.path)
        if m:
            game = get_app_state(request.app).games.get(m.group(1))
            requests.streams.append((time.monotonic(), m.group(1), game.status if game else -99))
        return await handler(request)

    app.middlewares.insert(0, record_streams)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", args.port)
    await site.start()
    app_state = get_app_state(app)

    bot = User(app_state, bot=True, username=BOT, title="BOT", perfs=new_default_perf_map(VARIANTS))
    app_state.users[BOT] = bot
    await app_state.db.user.insert_one(
        {
            "_id": BOT,
            "username_lower": BOT.lower(),
            "enabled": True,
            "title": "BOT",
            "count": {"game": 0, "win": 0, "loss": 0, "draw": 0, "rated": 0},
        }
    )
    _, token = await create_bot_token(app_state, BOT, "ferz")
    TOKEN.append(token)

    pgn_dir = work / "pgn"
    pgn_dir.mkdir(exist_ok=True)
    (work / "bot.toml").write_text(ferz_config(base, pgn_dir))
    log_path = work / "ferz.log"
    log_file = open(log_path, "w")
    env = dict(os.environ, LICHESS_BOT_TOKEN=token, RUST_LOG="info")
    proc = subprocess.Popen(
        [str(ferz), "bot", "--config", str(work / "bot.toml")],
        stdout=log_file,
        stderr=subprocess.STDOUT,
        env=env,
    )
    print(f"server {base}, ferz pid {proc.pid}, work dir {work}", flush=True)

    async def wait_for(what: str, check, timeout: float):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            value = check()
            if value:
                return value
            if proc.poll() is not None:
                raise RuntimeError(f"ferz exited ({proc.returncode}) while waiting for {what}")
            await asyncio.sleep(0.01)
        raise TimeoutError(what)

    await wait_for("ferz online", lambda: bot.bot_supported_variants is not None, 60)

    rows = []
    scenarios = [s for s in SCENARIOS if not args.only or s.name in args.only]
    resigned_at: float | None = None
    for sc in scenarios:
        row = await play(sc, base, app_state, wait_for, aiohttp)
        if resigned_at is not None:
            row["accepted_after_resign_s"] = row["accepted_at"] - resigned_at
            resigned_at = None
        if row.get("ferz_resigned_at"):
            resigned_at = row["ferz_resigned_at"]
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if not k.endswith("_at")}), flush=True)

    # Let late stream requests show, then stop ferz with one TERM.
    await asyncio.sleep(3)
    proc.send_signal(signal.SIGTERM)
    t0 = time.monotonic()
    try:
        code = await asyncio.to_thread(proc.wait, 30)
        stop = f"exited {code} {time.monotonic() - t0:.2f} s after one TERM"
    except subprocess.TimeoutExpired:
        proc.kill()
        stop = "still running 30 s after one TERM (killed)"
    log_file.close()
    await runner.cleanup()

    log = log_path.read_text(errors="replace")
    report(rows, requests, pgn_dir, log, stop)
    return 0


async def play(sc: Scenario, base: str, app_state, wait_for, aiohttp) -> dict:
    """Plays one scenario; the row of the report."""
    from const import STARTED

    rng = random.Random(sc.seed)
    jar = aiohttp.CookieJar(unsafe=True)
    async with aiohttp.ClientSession(cookie_jar=jar) as session:
        lobby = await session.ws_connect(f"{base}/wsl")
        username = None
        while username is None:
            msg = json.loads((await lobby.receive(timeout=10)).data)
            if msg.get("type") == "lobby_user_connected":
                username = msg["username"]
        await lobby.send_json(
            {
                "type": "create_bot_challenge",
                "profileid": BOT,
                "variant": "shatranj",
                "fen": sc.fen,
                # The challenger's side as the lobby spells it.
                "color": sc.human_color[0],
                "minutes": sc.minutes,
                "increment": sc.increment,
                "byoyomiPeriod": 0,
                "rated": False,
                "chess960": False,
                "target": "BOT_challenge",
            }
        )
        game_id = None
        while game_id is None:
            msg = json.loads((await lobby.receive(timeout=10)).data)
            if msg.get("type") == "bot_challenge_created":
                game_id = msg["gameId"]
            elif msg.get("type") == "error":
                raise RuntimeError(f"{sc.name}: {msg}")
        game = await wait_for(f"{sc.name}: the bot accepts", lambda: app_state.games.get(game_id), 30)
        accepted_at = time.monotonic()
        # The server's WHITE is 0.
        human = 0 if game.wplayer.username == username else 1
        bot_color = "black" if human == 0 else "white"
        round_ws = await session.ws_connect(f"{base}/wsr/{game_id}")

        drainer = asyncio.create_task(drain_ws(round_ws))
        await round_ws.send_json({"type": "ready", "gameId": game_id})
        script = list(sc.script)
        ferz_resigned_at = None
        if sc.rematch:
            # The first game, then the rematch the human asks for.
            await play_moves(sc, game, game_id, round_ws, human, rng, script, session, base, wait_for)
            first_id = game_id
            await round_ws.send_json({"type": "rematch", "gameId": game_id, "handicap": False})
            game_id = await wait_for(f"{sc.name}: the rematch", lambda: game.rematch_id, 10)
            game = await wait_for(f"{sc.name}: the rematch game", lambda: app_state.games.get(game_id), 10)
            drainer.cancel()
            await round_ws.close()
            round_ws = await session.ws_connect(f"{base}/wsr/{game_id}")
            drainer = asyncio.create_task(drain_ws(round_ws))
            human = 0 if game.wplayer.username == username else 1
            bot_color = "black" if human == 0 else "white"
            sc = Scenario(sc.name, sc.human_color, seed=sc.seed)
            print(f"{first_id}: rematch {game_id}", flush=True)
        second_stream = await play_moves(sc, game, game_id, round_ws, human, rng, script, session, base, wait_for)
        if game.status == 2 and game.result == ("0-1" if bot_color == "white" else "1-0"):
            # Set by the bot's own resignation (nothing else tells anyone).
            ferz_resigned_at = time.monotonic()
        drainer.cancel()
        await round_ws.close()
        await lobby.close()
    return {
        "game": sc.name,
        "id": game_id,
        "ferz": bot_color,
        "players": f"{game.wplayer.username} - {game.bplayer.username}",
        "server_result": game.result,
        "server_status": STATUS_NAMES.get(int(game.status), str(game.status)),
        "server_plies": game.board.ply,
        "accepted_at": accepted_at,
        "ferz_resigned_at": ferz_resigned_at,
        "ended_at": time.monotonic(),
        **({"second_stream": second_stream} if second_stream else {}),
    }


async def drain_ws(ws) -> None:
    """Reads (and drops) what the server sends on a websocket."""
    async for _ in ws:
        pass


async def play_moves(sc, game, game_id, round_ws, human, rng, script, session, base, wait_for):
    """The human's side of one game until it is over; how a second stream was answered, if
    probed."""
    from const import STARTED

    second_stream = None
    deadline = time.monotonic() + 600
    while game.status <= STARTED and time.monotonic() < deadline:
        ply = game.board.ply
        if sc.abort and ply <= 1:
            await round_ws.send_json({"type": "abort", "gameId": game_id})
            await wait_for(f"{sc.name}: abort", lambda: game.status > STARTED, 10)
            break
        if sc.resign_at_ply is not None and ply >= sc.resign_at_ply and game.board.color == human:
            await round_ws.send_json({"type": "resign", "gameId": game_id})
            await wait_for(f"{sc.name}: resign", lambda: game.status > STARTED, 10)
            break
        if sc.probe_second_stream and second_stream is None and ply >= 4:
            second_stream = await probe_stream(session, base, game_id)
        if game.board.color == human:
            moves = game.board.legal_moves()
            move = script.pop(0) if script else rng.choice(sorted(moves))
            await round_ws.send_json(
                {
                    "type": "move",
                    "gameId": game_id,
                    "move": move,
                    "clocks": list(game.clocks),
                    "ply": ply + 1,
                }
            )
            await wait_for(
                f"{sc.name}: the human's move {move}",
                lambda: game.board.ply != ply or game.status > STARTED,
                10,
            )
        else:
            await asyncio.sleep(0.005)
    return second_stream


async def probe_stream(session, base: str, game_id: str) -> str:
    """Opens a second stream of a game the bot streams; how the server answered."""
    headers = {"Authorization": f"Bearer {TOKEN[0]}"}
    try:
        async with session.get(f"{base}/api/bot/game/stream/{game_id}", headers=headers) as response:
            status = response.status
            try:
                body = await asyncio.wait_for(response.content.read(), 5)
                return f"{status}, body {body[:80]!r} then a clean end"
            except Exception as e:  # the broken body is what is looked for
                return f"{status}, then the body broke: {type(e).__name__}: {e}"
    except Exception as e:
        return f"no answer: {type(e).__name__}: {e}"


def pgn_of(pgn_dir: Path, game_id: str) -> tuple[str, str, int] | None:
    """(result, termination, plies) of ferz's PGN of a game."""
    for path in pgn_dir.rglob("*.pgn"):
        text = path.read_text(errors="replace")
        for game in re.split(r"\n(?=\[Event )", text):
            if f'[GameId "{game_id}"]' not in game:
                continue
            tag = lambda name: (re.search(rf'^\[{name} "([^"]*)"\]', game, re.M) or [None, "?"])[1]
            body = "\n".join(line for line in game.splitlines() if not line.startswith("["))
            body = re.sub(r"\{[^}]*\}", " ", body)
            tokens = [t for t in body.split() if not re.fullmatch(r"\d+\.+|1-0|0-1|1/2-1/2|\*", t)]
            return tag("Result"), tag("Termination"), len(tokens)
    return None


def report(rows, requests: Requests, pgn_dir: Path, log: str, stop: str) -> None:
    print("\n| game | ferz | server: result, status, plies | ferz's PGN: result, termination, plies | "
          "ferz's log | stream requests after the end |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        gid = row["id"]
        pgn = pgn_of(pgn_dir, gid)
        pgn_text = "no PGN" if pgn is None else f"{pgn[0]} {pgn[1]} {pgn[2]}"
        over = re.search(rf"game over.*game={gid}[^\n]*|game={gid}[^\n]*game over[^\n]*", log)
        summary = "-"
        if over:
            fields = dict(re.findall(r"(\w+)=(\"[^\"]*\"|\S+)", over.group(0)))
            summary = f"{fields.get('result', '?')} {fields.get('status', '?')} {fields.get('plies', '?')}"
        after = [t for (t, g, status) in requests.streams if g == gid and status > -1]
        line = (f"| {row['game']} | {row['ferz']} | {row['server_result']} {row['server_status']} "
                f"{row['server_plies']} | {pgn_text} | {summary} | {len(after)} |")
        print(line)
    for row in rows:
        if "second_stream" in row:
            print(f"\na second stream of {row['id']} while ferz streamed it: {row['second_stream']}")
    for row in rows:
        if "accepted_after_resign_s" in row:
            print(f"\nnext challenge accepted {row['accepted_after_resign_s']:.2f} s after ferz's resignation")
    counts = re.findall(r"white_won=(\d+) black_won=(\d+)[^\n]*", log)
    totals = re.findall(r"(white_won=\d+ black_won=\d+[^\n]*)", log)
    if totals:
        print(f"ferz's last tally: {totals[-1].strip()}")
    elif counts:
        print(f"ferz's tally: {counts[-1]}")
    skipped = log.count("skipping a bad line")
    print(f"'skipping a bad line' in ferz's log: {skipped}")
    print(f"shutdown: {stop}")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
