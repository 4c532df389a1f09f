//! Real child processes driven through the protocol: small `sh` engines that answer, crash,
//! fall silent or wait for `ponderhit`, and Stockfish when it is installed.

#![cfg(unix)]

use std::time::{Duration, Instant};

use ferz_chess::{Game, Position, Variant};
use ferz_uci::{EngineOption, EngineScore, Go, Launch, Setup, Timeouts, UciEngine, UciError};

/// An engine in `sh`: `go_action` runs on every `go` line (in `$line`).
fn shell_engine(go_action: &str) -> Launch {
    let script = format!(
        r#"while read -r line; do
  case "$line" in
    uci) echo "id name shell engine"; echo "option name Hash type spin default 1 min 1 max 16";
         echo "option name Ponder type check default false";
         echo "option name UCI_Chess960 type check default false"; echo uciok;;
    isready) echo readyok;;
    setoption*) echo "info string got $line";;
    go*) {go_action};;
    quit) exit 0;;
  esac
done"#
    );
    Launch::new("sh", &["-c".to_owned(), script])
}

const ANSWER: &str = r#"echo "info depth 3 score cp 12 nodes 50 pv e2e4 e7e5"; echo "bestmove e2e4 ponder e7e5""#;

fn quick() -> Timeouts {
    Timeouts { handshake: Duration::from_secs(5), ready: Duration::from_secs(5) }
}

fn chess() -> Setup<'static> {
    Setup { variant: Variant::Chess, options: &[], ponder: false }
}

fn start_game() -> Game {
    Game::new(Position::new(Variant::Chess))
}

#[test]
fn a_search_returns_the_move_the_ponder_move_and_the_last_info() {
    let options = [EngineOption::new("hash", "8")];
    let setup = Setup { variant: Variant::Chess960, options: &options, ponder: true };
    let mut engine = UciEngine::start(&shell_engine(ANSWER), &setup, quick()).unwrap();
    assert_eq!(engine.id_name(), "shell engine");
    engine.new_game().unwrap();
    let mut infos = Vec::new();
    engine.go(&start_game(), &Go::Nodes(100), false).unwrap();
    let reply =
        engine.wait_bestmove(Some(Instant::now() + Duration::from_secs(5)), &mut |i| infos.push(i.clone())).unwrap();
    assert_eq!((reply.bestmove.as_str(), reply.ponder.as_deref()), ("e2e4", Some("e7e5")));
    assert_eq!((reply.score, reply.depth, reply.nodes), (Some(EngineScore::Cp(12)), Some(3), Some(50)));
    assert_eq!(reply.pv, ["e2e4", "e7e5"]);
    assert_eq!(infos.len(), 1);
    engine.quit();
}

#[test]
fn options_go_out_in_the_engines_spelling_and_unknown_ones_are_refused() {
    // The engine keeps the set-up lines it received, joined by `_`, and answers them as its move.
    let script = r#"seen=""
while read -r line; do
  case "$line" in
    uci) echo "option name Hash type spin default 1 min 1 max 16";
         echo "option name Move Overhead type spin default 10 min 0 max 5000";
         echo "option name UCI_Chess960 type check default false"; echo uciok;;
    isready) echo readyok;;
    setoption*) seen="$seen/$(echo "$line" | tr ' ' '_')";;
    go*) echo "bestmove $seen";;
  esac
done"#;
    let launch = Launch::new("sh", &["-c".to_owned(), script.to_owned()]);
    let options = [EngineOption::new("HASH", "8"), EngineOption::new("move overhead", "100")];
    let setup = Setup { variant: Variant::Chess960, options: &options, ponder: true };
    let mut engine = UciEngine::start(&launch, &setup, quick()).unwrap();
    assert_eq!(engine.id_name(), "sh", "no id name: the program stands for it");
    let reply = engine.search(&start_game(), &Go::Nodes(1), Duration::from_secs(5)).unwrap();
    assert_eq!(
        reply.bestmove,
        "/setoption_name_UCI_Chess960_value_true/setoption_name_Hash_value_8/setoption_name_Move_Overhead_value_100",
        "the variant first, no Ponder (not listed), then the user's options in the engine's spelling"
    );
    engine.quit();
    let echo = r#"echo "bestmove e2e4""#;
    let options = [EngineOption::new("Threads", "2")];
    let setup = Setup { variant: Variant::Chess, options: &options, ponder: false };
    let err = UciEngine::start(&shell_engine(echo), &setup, quick()).err().unwrap().to_string();
    assert!(err.contains("has no option \"Threads\" (it lists: Hash, Ponder, UCI_Chess960)"), "{err}");
    let shatranj = Setup { variant: Variant::Shatranj, options: &[], ponder: false };
    let err = UciEngine::start(&shell_engine(echo), &shatranj, quick()).err().unwrap().to_string();
    assert!(err.contains("does not support Shatranj"), "{err}");
}

#[test]
fn a_missing_program_and_a_silent_one_are_clear_errors() {
    let missing = Launch::new("/nonexistent/engine", &[]);
    let err = UciEngine::start(&missing, &chess(), quick()).err().unwrap();
    assert!(matches!(err, UciError::Spawn { .. }), "{err}");
    assert!(err.to_string().starts_with("cannot start /nonexistent/engine: "), "{err}");
    let silent = Launch::new("sh", &["-c".to_owned(), "sleep 30".to_owned()]);
    let started = Instant::now();
    let timeouts = Timeouts { handshake: Duration::from_millis(300), ready: Duration::from_millis(300) };
    let err = UciEngine::start(&silent, &chess(), timeouts).err().unwrap().to_string();
    assert_eq!(err, "sh: no uciok within 0.3 s of the handshake");
    assert!(started.elapsed() < Duration::from_secs(5), "the silent engine was killed, not waited for");
    let quits = Launch::new("sh", &["-c".to_owned(), "read line; exit 4".to_owned()]);
    let err = UciEngine::start(&quits, &chess(), quick()).err().unwrap().to_string();
    assert!(err.contains("no uciok: the engine exited (exit status: 4)"), "{err}");
}

#[test]
fn a_crash_mid_search_says_how_the_engine_ended() {
    let mut engine = UciEngine::start(&shell_engine("exit 3"), &chess(), quick()).unwrap();
    engine.go(&start_game(), &Go::Nodes(100), false).unwrap();
    let err = engine.wait_bestmove(None, &mut |_| {}).unwrap_err();
    assert_eq!(err.to_string(), "the engine exited (exit status: 3)");
    assert!(engine.is_broken());
}

#[test]
fn a_hung_engine_times_out_ignores_stop_and_can_be_killed_from_another_thread() {
    let mut engine = UciEngine::start(&shell_engine("sleep 60"), &chess(), quick()).unwrap();
    let err = engine.search(&start_game(), &Go::Nodes(100), Duration::from_millis(200)).unwrap_err();
    assert!(matches!(err, UciError::Timeout(t) if t == Duration::from_millis(200)), "{err}");
    assert!(engine.is_broken(), "no bestmove after stop: broken");
    // A waiter without a deadline is woken by a kill through the control handle.
    let mut engine = UciEngine::start(&shell_engine("sleep 60"), &chess(), quick()).unwrap();
    engine.go(&start_game(), &Go::Nodes(100), false).unwrap();
    let control = engine.control();
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        control.kill();
    });
    let started = Instant::now();
    let err = engine.wait_bestmove(None, &mut |_| {}).unwrap_err();
    killer.join().unwrap();
    assert!(matches!(err, UciError::Disconnected(_)), "{err}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn pondering_waits_for_ponderhit_or_stop() {
    // `go ponder` answers only after `ponderhit` or `stop`, as the protocol requires.
    let ponder = r#"case "$line" in *ponder*) while read -r next; do case "$next" in ponderhit) echo "bestmove d2d4 ponder d7d5"; break;; stop) echo "bestmove a2a3"; break;; esac; done;; *) echo "bestmove e2e4";; esac"#;
    let setup = Setup { variant: Variant::Chess, options: &[], ponder: true };
    let mut engine = UciEngine::start(&shell_engine(ponder), &setup, quick()).unwrap();
    let mut game = start_game();
    game.play_uci("e2e4").unwrap();
    game.play_uci("e7e5").unwrap();
    for (signal, expected) in [("ponderhit", "d2d4"), ("stop", "a2a3")] {
        engine.go(&game, &Go::Nodes(100), true).unwrap();
        let early = engine.wait_bestmove(Some(Instant::now() + Duration::from_millis(200)), &mut |_| {});
        assert!(matches!(early, Err(UciError::Timeout(_))), "no answer while pondering");
        let control = engine.control();
        if signal == "ponderhit" {
            control.ponderhit().unwrap()
        } else {
            control.stop().unwrap()
        }
        let reply = engine.wait_bestmove(Some(Instant::now() + Duration::from_secs(5)), &mut |_| {}).unwrap();
        assert_eq!(reply.bestmove, expected);
    }
    let reply = engine.search(&game, &Go::Nodes(100), Duration::from_secs(5)).unwrap();
    assert_eq!(reply.bestmove, "e2e4");
    engine.quit();
}

#[test]
fn stockfish_searches_and_ponders() {
    let Some(path) = ferz_testserver::oracle::stockfish() else { return };
    let options = [EngineOption::new("Hash", "16"), EngineOption::new("threads", "1")];
    let setup = Setup { variant: Variant::Chess960, options: &options, ponder: true };
    let mut engine = UciEngine::start(&Launch::new(path, &[]), &setup, Timeouts::default()).unwrap();
    assert!(engine.id_name().starts_with("Stockfish"), "{}", engine.id_name());
    engine.new_game().unwrap();
    let game = Game::new(
        Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1", Variant::Chess960).unwrap(),
    );
    let reply = engine.search(&game, &Go::Nodes(20_000), Duration::from_secs(10)).unwrap();
    game.position().parse_uci(&reply.bestmove).unwrap();
    assert!(reply.depth.is_some() && reply.score.is_some() && !reply.pv.is_empty(), "{reply:?}");
    // Ponder on the expected reply, then hit: the search continues under the clock.
    let mut pondered = game.clone();
    pondered.play_uci(&reply.bestmove).unwrap();
    let expected =
        reply.ponder.clone().unwrap_or_else(|| pondered.position().uci(pondered.position().legal_moves()[0]));
    pondered.play_uci(&expected).unwrap();
    let clock = Go::Clock {
        wtime: Duration::from_secs(2),
        btime: Duration::from_secs(2),
        winc: Duration::ZERO,
        binc: Duration::ZERO,
    };
    engine.go(&pondered, &clock, true).unwrap();
    std::thread::sleep(Duration::from_millis(100));
    engine.control().ponderhit().unwrap();
    let hit = engine.wait_bestmove(Some(Instant::now() + Duration::from_secs(5)), &mut |_| {}).unwrap();
    pondered.position().parse_uci(&hit.bestmove).unwrap();
    engine.quit();
}
