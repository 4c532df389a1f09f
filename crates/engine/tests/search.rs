//! Search behaviour: mates in all variants, stalemate rules, bare-king races, mate distances,
//! limits and stopping.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use ferz_chess::{Game, Outcome, Position, Variant, WinReason};
use ferz_engine::{Engine, EngineOptions, Score, SearchLimits, SearchResult, Signals};

/// Searches `fen` with the hand-tuned evaluation. These tests check the search's own logic (mate
/// scores and distances, PVs, stalemate rules, limits) at small fixed depths, where which moves
/// get reduced or pruned depends on the evaluation's numbers; pinning the hand-tuned evaluation
/// keeps them independent of the shipped net. `tests/nnue.rs` checks the default net on the same
/// mates.
fn search(fen: &str, variant: Variant, limits: SearchLimits) -> (Position, SearchResult) {
    let position = Position::from_fen(fen, variant).expect("valid FEN");
    let mut engine = Engine::new(EngineOptions::default());
    engine.nets_mut().set_use_nnue(false);
    let result = engine.search(&Game::new(position), &limits, &Signals::default(), &mut |_| {});
    (position, result)
}

/// Whether the side to move can win at once (checkmate, or in Shatranj stalemate or bare king).
fn has_immediate_win(position: &Position) -> bool {
    position.legal_moves().into_iter().any(|m| {
        let mut next = *position;
        next.play_unchecked(m);
        next.outcome().and_then(Outcome::winner) == Some(position.turn())
    })
}

/// Plays the principal variation and checks that it ends the game with a win for the side
/// to move at the root after exactly `plies` plies, and that no shorter win exists at ply 1.
fn assert_pv_wins_in(position: &Position, result: &SearchResult, plies: usize) {
    assert!(result.pv.len() >= plies, "pv {:?} shorter than {plies} plies", result.pv);
    let mut pos = *position;
    for (i, &m) in result.pv.iter().take(plies).enumerate() {
        assert!(pos.is_legal(m), "pv move {i} {m:?} illegal in {}", pos.fen());
        pos.play_unchecked(m);
        if i + 1 < plies {
            assert_eq!(pos.outcome(), None, "game over early at ply {}", i + 1);
        }
    }
    assert_eq!(pos.outcome().and_then(Outcome::winner), Some(position.turn()), "pv does not win: {}", pos.fen());
    if plies > 1 {
        assert!(!has_immediate_win(position), "a shorter win exists");
    }
}

#[test]
fn finds_mate_in_one_and_two_in_chess() {
    let (pos, result) = search(
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
        Variant::Chess,
        SearchLimits::depth(4),
    );
    assert_eq!(result.score, Score::Mate(1));
    assert_eq!(pos.uci(result.best.unwrap()), "h5f7");
    // 1. Ra6! bxa6 2. b7#, or any other reply and 2. Rxa7# / b7#.
    let (pos, result) = search("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", Variant::Chess, SearchLimits::depth(6));
    assert_eq!(result.score, Score::Mate(2));
    assert_eq!(pos.uci(result.best.unwrap()), "a1a6");
    assert_pv_wins_in(&pos, &result, 3);
}

#[test]
fn finds_mate_in_three_and_reports_its_distance() {
    // Queen and king against a bare king in the corner: mate is at most a few moves away.
    let (pos, result) = search("7k/8/5K2/8/8/8/8/1Q6 w - - 0 1", Variant::Chess, SearchLimits::depth(8));
    let Score::Mate(moves) = result.score else { panic!("no mate found: {:?}", result.score) };
    assert!((1..=3).contains(&moves), "{moves}");
    assert_pv_wins_in(&pos, &result, 2 * moves as usize - 1);
}

#[test]
fn finds_mates_in_chess960() {
    let (pos, result) = search("kbK5/pp6/1P6/8/8/8/8/R7 w - - 0 1", Variant::Chess960, SearchLimits::depth(6));
    assert_eq!(result.score, Score::Mate(2));
    assert_pv_wins_in(&pos, &result, 3);
    // A Chess960 array where the best move is to castle with the king standing still.
    let (pos, result) = search("1r4k1/5ppp/8/8/8/8/5PPP/1R4KR w H - 0 1", Variant::Chess960, SearchLimits::depth(4));
    assert!(pos.is_legal(result.best.unwrap()));
}

#[test]
fn finds_mate_in_shatranj() {
    let (pos, result) = search("7k/7p/5K2/8/8/8/8/R7 w - - 0 1", Variant::Shatranj, SearchLimits::depth(4));
    assert_eq!(result.score, Score::Mate(1));
    assert_eq!(pos.uci(result.best.unwrap()), "a1a8");
}

#[test]
fn stalemate_is_avoided_in_chess_and_sought_in_shatranj() {
    // Kc7 stalemates black. In chess that throws away the win (Rh8 mates); in Shatranj the
    // stalemated side loses, so Kc7 wins at once.
    let (pos, result) = search("k7/p2K4/P7/8/8/8/8/7R w - - 0 1", Variant::Chess, SearchLimits::depth(5));
    assert_ne!(pos.uci(result.best.unwrap()), "d7c7");
    assert_eq!(result.score, Score::Mate(1));
    let (pos, result) = search("k7/p2K4/P7/8/8/8/8/8 w - - 0 1", Variant::Shatranj, SearchLimits::depth(5));
    assert_eq!(pos.uci(result.best.unwrap()), "d7c7");
    assert_eq!(result.score, Score::Mate(1));
    let mut after = pos;
    after.play_unchecked(result.best.unwrap());
    assert_eq!(
        after.outcome(),
        Some(Outcome::Decisive { winner: ferz_chess::Color::White, reason: WinReason::Stalemate })
    );
    // The same stalemate in chess is only a draw when nothing better exists.
    let (_, result) = search("k7/p2K4/P7/8/8/8/8/8 w - - 0 1", Variant::Chess, SearchLimits::depth(8));
    assert!(matches!(result.score, Score::Cp(_)), "{:?}", result.score);
}

#[test]
fn bare_king_races_in_shatranj() {
    // Taking the last black piece wins when black cannot take back.
    let (pos, result) = search("q6k/8/8/8/8/8/8/R3K3 w - - 0 1", Variant::Shatranj, SearchLimits::depth(4));
    assert_eq!(pos.uci(result.best.unwrap()), "a1a8");
    assert!(matches!(result.score, Score::Mate(m) if m > 0), "{:?}", result.score);
    // Here the black king takes back: K v K is a draw, so the capture scores exactly 0 ...
    let fen = "q7/1k6/8/8/8/8/8/R3K3 w - - 0 1";
    let position = Position::from_fen(fen, Variant::Shatranj).unwrap();
    let capture = position.parse_uci("a1a8").unwrap();
    let limits = SearchLimits { searchmoves: vec![capture], ..SearchLimits::depth(6) };
    let (_, result) = search(fen, Variant::Shatranj, limits);
    assert_eq!(result.score, Score::Cp(0));
    // ... and the engine keeps its rook instead.
    let (pos, result) = search(fen, Variant::Shatranj, SearchLimits::depth(6));
    assert_ne!(pos.uci(result.best.unwrap()), "a1a8");
    assert!(matches!(result.score, Score::Cp(cp) if cp > 0) || matches!(result.score, Score::Mate(m) if m > 0));
}

#[test]
fn losing_side_reports_negative_mate() {
    // Black to move is mated next move whatever it does.
    let (_, result) = search("k7/8/1K6/8/8/8/8/7R b - - 0 1", Variant::Chess, SearchLimits::depth(6));
    assert_eq!(result.score, Score::Mate(-1));
}

#[test]
fn finished_games_have_no_best_move() {
    let (_, result) = search("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", Variant::Chess, SearchLimits::depth(3));
    assert_eq!(result.best, None);
    assert_eq!(result.score, Score::Mate(0));
    // Shatranj: black is bare and white keeps a rook, so the game is over and white, to move,
    // has won.
    let (_, result) = search("7k/8/8/8/8/8/8/R3K3 w - - 0 1", Variant::Shatranj, SearchLimits::depth(3));
    assert_eq!(result.best, None);
    assert_eq!(result.score, Score::Mate(1));
    let (_, result) = search("7k/8/8/8/8/8/8/R3K3 b - - 0 1", Variant::Shatranj, SearchLimits::depth(3));
    assert!(result.best.is_some(), "black may still try to take the rook back");
}

#[test]
fn draws_by_repetition_and_material_are_scored_zero() {
    // Insufficient material: only kings and a knight.
    let (_, result) = search("8/8/4k3/8/8/3NK3/8/8 w - - 0 1", Variant::Chess, SearchLimits::depth(6));
    assert_eq!(result.score, Score::Cp(0));
    // Shatranj K v K.
    let (_, result) = search("8/8/4k3/8/8/4K3/8/8 w - - 0 1", Variant::Shatranj, SearchLimits::depth(6));
    assert_eq!(result.score, Score::Cp(0));
}

#[test]
fn node_and_depth_limits_are_exact_for_one_thread() {
    let (_, result) = search(ferz_chess::STANDARD_FEN, Variant::Chess, SearchLimits::nodes(5000));
    assert!(result.nodes >= 5000 && result.nodes < 5000 + 64, "{}", result.nodes);
    let (_, a) = search(ferz_chess::STANDARD_FEN, Variant::Chess, SearchLimits::depth(7));
    let (_, b) = search(ferz_chess::STANDARD_FEN, Variant::Chess, SearchLimits::depth(7));
    assert_eq!(a.depth, 7);
    assert_eq!((a.nodes, a.best), (b.nodes, b.best), "a fixed-depth search is deterministic");
}

#[test]
fn searchmoves_restricts_the_root() {
    let position = Position::new(Variant::Chess);
    let only = position.parse_uci("a2a3").unwrap();
    let limits = SearchLimits { searchmoves: vec![only], ..SearchLimits::depth(5) };
    let (_, result) = search(ferz_chess::STANDARD_FEN, Variant::Chess, limits);
    assert_eq!(result.best, Some(only));
}

#[test]
fn stop_flag_ends_an_infinite_search() {
    let signals = Arc::new(Signals::default());
    let handle = {
        let signals = Arc::clone(&signals);
        std::thread::spawn(move || {
            let mut engine = Engine::new(EngineOptions { threads: 2, ..EngineOptions::default() });
            let limits = SearchLimits { infinite: true, ..SearchLimits::default() };
            engine.search(&Game::new(Position::new(Variant::Chess)), &limits, &signals, &mut |_| {})
        })
    };
    std::thread::sleep(Duration::from_millis(200));
    assert!(!handle.is_finished(), "an infinite search waits for stop");
    signals.stop.store(true, Ordering::Relaxed);
    // Generous: this checks that the search stops at all, not how fast.
    for _ in 0..500 {
        if handle.is_finished() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(handle.is_finished(), "search did not stop within 5 s");
    let result = handle.join().unwrap();
    assert!(result.best.is_some());
}

#[test]
fn multipv_reports_distinct_lines() {
    let position = Position::new(Variant::Chess);
    let mut engine = Engine::new(EngineOptions { multi_pv: 3, ..EngineOptions::default() });
    let mut last = Vec::new();
    engine.search(&Game::new(position), &SearchLimits::depth(5), &Signals::default(), &mut |info| {
        if info.depth == 5 {
            last.push(info.pv[0]);
        }
    });
    assert_eq!(last.len(), 3);
    assert!(last[0] != last[1] && last[1] != last[2] && last[0] != last[2]);
}

#[test]
fn bench_is_deterministic() {
    let a = ferz_engine::bench::run(4, |_, _, _| {});
    let b = ferz_engine::bench::run(4, |_, _, _| {});
    assert_eq!(a.nodes, b.nodes);
    assert!(a.nodes > 1000);
}

#[test]
fn lazy_smp_depth_searches_end_at_the_requested_depth_with_a_sound_move() {
    // Whichever thread completes the depth first supplies the result; it must be that depth,
    // legal, and as good as one thread's (a forced mate is still found).
    let mate_in_two = "r1bq2r1/b4pk1/p1pp1p2/1p2pP2/1P2P1PB/3P4/1PPQ2P1/R3K2R w - - 0 1";
    for fen in [ferz_chess::STANDARD_FEN, mate_in_two] {
        let position = Position::from_fen(fen, Variant::Chess).unwrap();
        let mut engine = Engine::new(EngineOptions { threads: 4, ..EngineOptions::default() });
        let mut reported = Vec::new();
        let result = engine.search(&Game::new(position), &SearchLimits::depth(7), &Signals::default(), &mut |info| {
            reported.push(info.depth);
        });
        assert_eq!(result.depth, 7, "{fen}");
        assert_eq!(reported.iter().max(), Some(&7), "the deepest line is reported: {reported:?}");
        assert!(position.legal_moves().contains(&result.best.unwrap()));
        if fen == mate_in_two {
            assert_eq!(result.score, Score::Mate(2), "{fen}");
        }
    }
}

/// Every line the search reports, in every `info` and in its result, is legal move by move:
/// a GUI plays it out, and the bot takes its second move as the one to ponder on. The bench
/// positions in all three variants, with the default nets, stopped by node limits in the
/// middle of iterations, where a move that failed high has not yet been searched as the PV.
#[test]
fn every_reported_line_is_legal() {
    let mut engine = Engine::new(EngineOptions::default());
    for &(variant, fen) in ferz_engine::bench::POSITIONS {
        let position = Position::from_fen(fen, variant).expect("valid FEN");
        for nodes in [3_000, 20_000, 70_000] {
            engine.clear();
            let mut lines = Vec::new();
            let limits = SearchLimits::nodes(nodes);
            let result = engine.search(&Game::new(position), &limits, &Signals::default(), &mut |info| {
                lines.push(info.pv.clone());
            });
            lines.push(result.pv.clone());
            for line in lines {
                let mut pos = position;
                for (i, &m) in line.iter().enumerate() {
                    assert!(
                        pos.is_legal(m),
                        "{fen} at {nodes} nodes: move {i} of {line:?} is illegal in {}",
                        pos.fen()
                    );
                    pos.play_unchecked(m);
                }
            }
        }
    }
}
