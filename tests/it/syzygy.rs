//! Syzygy tablebases in the UCI engine: the options, and won endgames converted against
//! Stockfish (which also has the tables) within the DTZ bound.

use std::path::PathBuf;

use ferz_chess::{Color, Outcome, WinReason};
use ferz_tests::UciProcess;

use crate::endings::{EngineGame, start};

/// The 3- and 4-piece tables the prober's tests use.
fn tables_dir() -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../crates/syzygy/tests/data/syzygy");
    dir.canonicalize().expect("test tables present").to_string_lossy().into_owned()
}

/// Starts a UCI session with the test tables as `SyzygyPath`.
fn start_with_tables(engine: UciProcess) -> (UciProcess, Vec<String>) {
    start(engine, &[("SyzygyPath", &tables_dir())])
}

#[test]
fn syzygy_options_are_listed_and_checked() {
    let mut engine = UciProcess::start(&[]);
    engine.send("uci");
    let lines = engine.read_until(10, |l| l == "uciok");
    for option in [
        "option name SyzygyPath type string default <empty>",
        "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
        "option name Syzygy50MoveRule type check default true",
        "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
    ] {
        assert!(lines.iter().any(|l| l == option), "{option} missing: {lines:?}");
    }
    for (command, reply) in [
        ("setoption name SyzygyPath value no/such/tables", "info string SyzygyPath: no/such/tables"),
        (
            "setoption name SyzygyProbeDepth value deep",
            "info string invalid value \"deep\" for option SyzygyProbeDepth",
        ),
        (
            "setoption name Syzygy50MoveRule value maybe",
            "info string invalid value \"maybe\" for option Syzygy50MoveRule",
        ),
        (
            "setoption name SyzygyProbeLimit value nine",
            "info string invalid value \"nine\" for option SyzygyProbeLimit",
        ),
    ] {
        engine.send(command);
        engine.send("isready");
        let lines = engine.read_until(10, |l| l == "readyok");
        assert!(lines.iter().any(|l| l.starts_with(reply)), "{command}: {lines:?}");
    }
    let (mut engine, lines) = start_with_tables(engine);
    assert!(
        lines.iter().any(|l| l == "info string Syzygy tablebases: 35 WDL and 35 DTZ tables, up to 4 pieces"),
        "{lines:?}"
    );
    for command in [
        "setoption name SyzygyProbeDepth value 4",
        "setoption name Syzygy50MoveRule value false",
        "setoption name SyzygyProbeLimit value 3",
    ] {
        engine.send(command);
    }
    engine.send("isready");
    let lines = engine.read_until(10, |l| l == "readyok");
    assert!(lines.iter().all(|l| !l.contains("invalid") && !l.contains("unknown")), "{lines:?}");

    // A drawn KRvKR: the root is ranked, the score is a draw and tbhits are reported.
    engine.send("setoption name SyzygyProbeLimit value 7");
    engine.send("position fen 8/8/3k4/3r4/8/3K4/3R4/8 w - - 0 1");
    engine.send("go depth 8");
    let lines = engine.read_until(30, |l| l.starts_with("bestmove"));
    let info = lines.iter().rev().find(|l| l.starts_with("info depth")).expect("info");
    assert!(info.contains(" score cp 0 ") && info.contains(" tbhits "), "{info}");
    // Turning tables off again.
    engine.send("setoption name SyzygyPath value <empty>");
    engine.send("isready");
    let lines = engine.read_until(10, |l| l == "readyok");
    assert!(lines.iter().any(|l| l == "info string Syzygy tablebases off"), "{lines:?}");
}

/// Won positions (winner to move) and their DTZ in plies, from python-chess's prober.
const WINS: [(&str, u32); 9] = [
    ("8/8/7Q/K7/8/6k1/8/8 w - - 0 1", 15),
    ("8/3k4/8/8/8/8/8/2K4Q w - - 0 1", 17),
    ("5q2/8/8/3K2k1/8/8/8/8 b - - 0 1", 13),
    ("5R1K/8/8/8/8/4k3/8/8 w - - 0 1", 29),
    ("8/1K6/8/1R6/8/8/4k3/8 w - - 0 1", 25),
    ("8/k7/8/8/5K2/8/8/3r4 b - - 0 1", 27),
    ("B7/8/6N1/8/8/8/7K/1k6 w - - 0 1", 58),
    ("K7/3k4/8/8/3B4/8/7N/8 w - - 0 1", 50),
    ("k7/8/7K/2b5/8/8/1n6/8 b - - 0 1", 54),
];

#[test]
fn ferz_mates_stockfish_within_the_dtz_bound_in_kqk_krk_and_kbnk() {
    let Some(stockfish) = ferz_testserver::oracle::stockfish() else { return };
    let (mut ferz, _) = start_with_tables(UciProcess::start(&[]));
    let (mut opponent, _) = start_with_tables(UciProcess::start_program(&stockfish, &[]));
    let mut report = Vec::new();
    for (fen, dtz) in WINS {
        let mut game = EngineGame::new(fen, [&mut ferz, &mut opponent]);
        let winner = game.winner;
        let mut tb_hits_seen = false;
        while game.game.outcome().is_none() && game.moves.len() <= dtz as usize + 20 {
            if game.game.position().turn() != winner {
                game.play(&mut opponent, "go nodes 20000");
                continue;
            }
            let lines = game.play(&mut ferz, "go nodes 20000");
            tb_hits_seen |= lines.iter().any(|l| l.split(" tbhits ").nth(1).is_some_and(|n| !n.starts_with('0')));
            let info = lines.iter().rev().find(|l| l.starts_with("info depth")).expect("info line");
            let winning = info.contains(" score mate ")
                || info.split(" score cp ").nth(1).and_then(|s| s.split(' ').next()?.parse::<i32>().ok())
                    > Some(19_000);
            assert!(winning, "{fen}, up to {:?}: ferz does not report the win: {info}", game.moves);
        }
        let (game, moves) = (game.game, game.moves);
        let expected = Outcome::Decisive { winner, reason: WinReason::Checkmate };
        assert_eq!(game.outcome(), Some(expected), "{fen}: {moves:?}");
        assert!(moves.len() as u32 <= dtz, "{fen}: mate after {} plies, DTZ {dtz}: {moves:?}", moves.len());
        assert!(tb_hits_seen, "{fen}: no tbhits reported");
        let side = if winner == Color::White { "white" } else { "black" };
        report.push(format!("{fen} ({side} wins): mate in {} plies, DTZ {dtz}", moves.len()));
    }
    eprintln!("{}", report.join("\n"));
}
