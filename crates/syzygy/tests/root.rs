//! Root move ranking: DTZ order, 50-move awareness, drawing and losing moves.

use std::path::PathBuf;

use ferz_chess::{Position, Variant};
use ferz_syzygy::{Tablebases, Wdl};

fn tables() -> Tablebases {
    Tablebases::open(&[PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy")]).unwrap()
}

fn position(fen: &str) -> Position {
    Position::from_fen(fen, Variant::Chess).unwrap()
}

#[test]
fn root_ranking_keeps_the_fastest_wins_first() {
    let tables = tables();
    // Mate in one with the rook: the mating move ranks first with DTZ 1.
    let pos = position("7k/8/6K1/8/8/8/8/R7 w - - 0 1");
    let ranked = tables.rank_root_moves(&pos, true).unwrap();
    assert_eq!(pos.uci(ranked[0].mv), "a1a8");
    assert_eq!(ranked[0].dtz.0, 1);
    assert_eq!(ranked[0].wdl, Wdl::Win);
    assert!(ranked.windows(2).all(|w| w[0].rank >= w[1].rank));
    // Hanging the rook draws: such moves rank below every win.
    let pos = position("8/8/8/3k4/8/8/8/K3R3 w - - 0 1");
    let ranked = tables.rank_root_moves(&pos, true).unwrap();
    let hang = ranked.iter().position(|r| pos.uci(r.mv) == "e1e4").unwrap();
    assert_eq!(ranked[hang].wdl, Wdl::Draw);
    assert!(ranked[..hang].iter().all(|r| r.wdl == Wdl::Win));
    assert!(ranked[0].dtz.0 > 1 && ranked[0].dtz.0 < 40, "{:?}", ranked[0]);
}

#[test]
fn the_halfmove_clock_curses_slow_wins_only_under_the_50_move_rule() {
    let tables = tables();
    // KBNvK with DTZ 58 from a fresh clock: a win.
    let fresh = position("B7/8/6N1/8/8/8/7K/1k6 w - - 0 1");
    let best = tables.rank_root_moves(&fresh, true).unwrap()[0];
    assert_eq!((best.wdl, best.dtz.0), (Wdl::Win, 58));
    // Sixty halfmoves later the same conversion no longer fits in the 50-move rule.
    let late = position("B7/8/6N1/8/8/8/7K/1k6 w - - 60 31");
    let ranked = tables.rank_root_moves(&late, true).unwrap();
    assert_eq!(ranked[0].wdl, Wdl::CursedWin);
    assert_eq!(ranked[0].dtz.0, 58, "still the fastest conversion first");
    assert_eq!(tables.rank_root_moves(&late, false).unwrap()[0].wdl, Wdl::Win);
}

#[test]
fn a_lost_root_resists_longest() {
    let tables = tables();
    let pos = position("8/8/8/8/8/2k5/8/K1q5 w - - 0 1");
    let ranked = tables.rank_root_moves(&pos, true).unwrap();
    assert!(ranked.iter().all(|r| r.wdl == Wdl::Loss && r.dtz.0 < 0));
    let longest = ranked.iter().map(|r| r.dtz.0).min().unwrap();
    assert_eq!(ranked[0].dtz.0, longest);
}
