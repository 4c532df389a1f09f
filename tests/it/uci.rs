//! The UCI engine as a GUI drives it: the real binary over pipes.

use ferz_chess::{Position, Variant};
use ferz_tests::{UciProcess, run_ferz};

fn bestmove(lines: &[String]) -> &str {
    let last = lines.last().expect("lines");
    assert!(last.starts_with("bestmove "), "{last}");
    last.split_whitespace().nth(1).expect("a move")
}

fn count_bestmoves(lines: &[String]) -> usize {
    lines.iter().filter(|l| l.starts_with("bestmove")).count()
}

#[test]
fn handshake_lists_every_option() {
    let mut engine = UciProcess::start(&[]);
    engine.send("uci");
    let lines = engine.read_until(10, |l| l == "uciok");
    assert!(lines[0].starts_with("id name ferz"), "{lines:?}");
    for option in [
        "Hash",
        "Threads",
        "MultiPV",
        "Ponder",
        "Move Overhead",
        "Clear Hash",
        "UCI_Chess960",
        "UCI_Variant",
        "UCI_ShowWDL",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(&format!("option name {option} type"))), "{option} missing");
    }
    assert!(lines.iter().any(|l| l.contains("var chess var shatranj")));
    engine.send("isready");
    engine.read_until(10, |l| l == "readyok");
}

#[test]
fn go_depth_reports_info_and_one_bestmove() {
    let mut engine = UciProcess::start(&[]);
    engine.send("position startpos moves e2e4 e7e5");
    engine.send("go depth 6");
    let lines = engine.read_until(30, |l| l.starts_with("bestmove"));
    let info: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
    assert!(info.len() >= 6, "{lines:?}");
    for field in ["seldepth", "multipv", "score cp", "nodes", "nps", "hashfull", "time", "pv"] {
        assert!(info.last().unwrap().contains(&format!(" {field} ")), "{field} in {}", info.last().unwrap());
    }
    let position =
        Position::from_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", Variant::Chess).unwrap();
    assert!(position.parse_uci(bestmove(&lines)).is_ok());
    assert_eq!(count_bestmoves(&lines), 1);
    assert!(engine.read_for(300).is_empty(), "nothing after bestmove");
}

#[test]
fn every_time_control_ends_in_a_legal_bestmove() {
    let mut engine = UciProcess::start(&[]);
    for go in [
        "go movetime 200",
        "go wtime 1000 btime 1000 winc 10 binc 10",
        "go wtime 1500 btime 1500 movestogo 1",
        "go wtime 5 btime 5",
        "go wtime -20 btime 100",
        "go nodes 2000",
        "go depth 3 searchmoves a2a3 h2h3",
    ] {
        engine.send("position startpos");
        engine.send(go);
        let lines = engine.read_until(20, |l| l.starts_with("bestmove"));
        assert_eq!(count_bestmoves(&lines), 1, "{go}");
        assert!(Position::new(Variant::Chess).parse_uci(bestmove(&lines)).is_ok(), "{go}: {lines:?}");
        if go.contains("searchmoves") {
            assert!(["a2a3", "h2h3"].contains(&bestmove(&lines)), "{lines:?}");
        }
    }
}

#[test]
fn go_mate_finds_the_mate() {
    let mut engine = UciProcess::start(&[]);
    engine.send("position fen kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1");
    engine.send("go mate 2");
    let lines = engine.read_until(20, |l| l.starts_with("bestmove"));
    assert_eq!(bestmove(&lines), "a1a6");
    assert!(lines.iter().any(|l| l.contains("score mate 2")), "{lines:?}");
}

#[test]
fn infinite_search_answers_isready_and_stops_on_stop() {
    let mut engine = UciProcess::start(&[]);
    engine.send("position startpos");
    engine.send("go infinite");
    engine.send("isready");
    let lines = engine.read_until(10, |l| l == "readyok");
    assert_eq!(count_bestmoves(&lines), 0, "no bestmove before stop");
    assert!(engine.read_for(300).iter().all(|l| !l.starts_with("bestmove")));
    engine.send("stop");
    let lines = engine.read_until(10, |l| l.starts_with("bestmove"));
    assert_eq!(count_bestmoves(&lines), 1);
    engine.send("stop");
    assert!(engine.read_for(300).is_empty(), "a second stop prints nothing");
}

#[test]
fn ponder_then_ponderhit_plays() {
    let mut engine = UciProcess::start(&[]);
    engine.send("setoption name Ponder value true");
    engine.send("position startpos moves e2e4");
    engine.send("go ponder wtime 2000 btime 2000");
    assert!(engine.read_for(400).iter().all(|l| !l.starts_with("bestmove")), "pondering waits");
    engine.send("ponderhit");
    let lines = engine.read_until(10, |l| l.starts_with("bestmove"));
    assert_eq!(count_bestmoves(&lines), 1);
}

#[test]
fn bad_input_is_reported_and_the_last_position_kept() {
    let mut engine = UciProcess::start(&[]);
    engine.send("position startpos moves e2e4");
    engine.send("position startpos moves e2e4 e7e9");
    engine.send("position fen 8/8/8/8/8/8/8/8 w - - 0 1");
    engine.send("position fen rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    engine.send("position");
    engine.send("xyzzy plugh");
    engine.send("go depth banana");
    engine.send("");
    engine.send("setoption name Hash value lots");
    engine.send("setoption name NoSuchOption value 1");
    engine.send("d");
    let lines = engine.read_until(10, |l| l.starts_with("info string chess "));
    let strings: Vec<&String> = lines.iter().filter(|l| l.starts_with("info string")).collect();
    assert!(strings.iter().any(|l| l.contains("e7e9")), "{strings:?}");
    assert!(strings.iter().any(|l| l.contains("no white king")), "{strings:?}");
    assert!(strings.iter().any(|l| l.contains("rank 6 has 9 squares")), "{strings:?}");
    assert!(strings.iter().any(|l| l.contains("unknown command")), "{strings:?}");
    assert!(strings.iter().any(|l| l.contains("NoSuchOption")), "{strings:?}");
    assert!(strings.iter().any(|l| l.contains("invalid value")), "{strings:?}");
    // The `go depth banana` searched anyway and answered.
    assert_eq!(count_bestmoves(&lines), 1, "{lines:?}");
    // The position after 1. e4 survived all of it.
    assert_eq!(lines.last().unwrap(), "info string chess rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
}

#[test]
fn options_change_the_output() {
    let mut engine = UciProcess::start(&[]);
    engine.send("setoption name MultiPV value 3");
    engine.send("setoption name UCI_ShowWDL value true");
    engine.send("setoption name Hash value 1");
    engine.send("setoption name Threads value 2");
    engine.send("setoption name Move Overhead value 50");
    engine.send("setoption name Clear Hash");
    engine.send("ucinewgame");
    engine.send("position startpos");
    engine.send("go depth 5");
    let lines = engine.read_until(30, |l| l.starts_with("bestmove"));
    let last_depth: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth 5 ")).collect();
    assert_eq!(last_depth.len(), 3, "{lines:?}");
    assert!(last_depth.iter().all(|l| l.contains(" wdl ")), "{last_depth:?}");
    for (i, line) in last_depth.iter().enumerate() {
        assert!(line.contains(&format!(" multipv {} ", i + 1)), "{line}");
    }
}

#[test]
fn a_helper_thread_does_not_cut_a_multipv_search_short() {
    // A helper searches one line; it used to end a `go depth 6` as soon as it got there, long
    // before the main thread had searched its twenty lines to depth 6.
    let mut engine = UciProcess::start(&[]);
    engine.send("setoption name MultiPV value 20");
    engine.send("setoption name Threads value 2");
    for _ in 0..3 {
        engine.send("ucinewgame");
        engine.send("position startpos");
        engine.send("go depth 6");
        let lines = engine.read_until(30, |l| l.starts_with("bestmove"));
        let last_depth = lines.iter().filter(|l| l.starts_with("info depth 6 ")).count();
        assert_eq!(last_depth, 20, "{lines:?}");
    }
}

#[test]
fn variants_and_castling_notation() {
    let mut engine = UciProcess::start(&[]);
    engine.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    engine.send("go perft 1");
    let standard = engine.read_until(10, |l| l.starts_with("Nodes searched"));
    assert!(standard.iter().any(|l| l == "e1g1: 1"), "{standard:?}");
    engine.send("setoption name UCI_Chess960 value true");
    engine.send("position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1h1");
    engine.send("d");
    let lines = engine.read_until(10, |l| l.starts_with("info string chess960"));
    assert!(lines.last().unwrap().contains("r3k2r/8/8/8/8/8/8/R4RK1 b kq"), "{lines:?}");
    engine.send("setoption name UCI_Variant value shatranj");
    engine.send("position startpos");
    engine.send("go perft 4");
    let lines = engine.read_until(10, |l| l.starts_with("Nodes searched"));
    assert_eq!(lines.last().unwrap(), "Nodes searched: 68122");
    engine.send("position startpos moves e2e3 e7e6");
    engine.send("go depth 4");
    let lines = engine.read_until(20, |l| l.starts_with("bestmove"));
    let shatranj = Position::new(Variant::Shatranj);
    let after = shatranj.play(shatranj.parse_uci("e2e3").unwrap()).unwrap();
    let after = after.play(after.parse_uci("e7e6").unwrap()).unwrap();
    assert!(after.parse_uci(bestmove(&lines)).is_ok(), "{lines:?}");
    engine.send("setoption name UCI_Variant value chess");
    engine.send("setoption name UCI_Chess960 value false");
    engine.send("position startpos");
    engine.send("go perft 3");
    let lines = engine.read_until(10, |l| l.starts_with("Nodes searched"));
    assert_eq!(lines.last().unwrap(), "Nodes searched: 8902");
    engine.send("go perft 0");
    let lines = engine.read_until(10, |l| l.starts_with("Nodes searched"));
    assert_eq!(lines, ["", "Nodes searched: 1"]);
}

#[test]
fn quit_during_a_search_still_answers() {
    let mut engine = UciProcess::start(&[]);
    engine.send("position startpos");
    engine.send("go infinite");
    engine.send("quit");
    let (status, rest) = engine.finish();
    assert!(status.success());
    let all: Vec<String> = rest;
    assert!(all.iter().filter(|l| l.starts_with("bestmove")).count() <= 1);
}

#[test]
fn game_over_positions_answer_bestmove_none() {
    let mut engine = UciProcess::start(&[]);
    engine.send("position fen k7/1Q6/1K6/8/8/8/8/8 b - - 0 1");
    engine.send("go depth 5");
    let lines = engine.read_until(10, |l| l.starts_with("bestmove"));
    assert_eq!(lines.last().unwrap(), "bestmove (none)");
}

#[test]
fn commands_as_arguments_fall_back_to_uci() {
    let output = run_ferz(&["isready"]);
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "readyok");
}

#[test]
fn bench_is_deterministic_with_the_openbench_last_line() {
    let nodes = |output: std::process::Output| {
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let last = text.lines().last().unwrap().to_owned();
        let fields: Vec<&str> = last.split_whitespace().collect();
        assert_eq!((fields.len(), fields[1], fields[3]), (4, "nodes", "nps"), "{last}");
        fields[0].parse::<u64>().unwrap()
    };
    let first = nodes(run_ferz(&["bench", "5"]));
    assert_eq!(first, nodes(run_ferz(&["bench", "5"])));
    assert!(first > 10_000);
}
