//! `Position::is_legal` generates only the moves of the piece a move starts from; it must agree
//! with the full list for every one of the 28,672 move codes, in the perft suites' positions
//! (castling in every Chess960 shape, en passant beside pins, promotions, checks and double
//! checks, Shatranj), in the positions one move after each of the tricky ones, and along random
//! games of the three variants.

mod common;

use ferz_chess::{Move, Position, ShatranjArray, SplitMix64, Variant};

/// Every value a move code can take (`Move::from_u16` refuses the rest).
fn every_move() -> Vec<Move> {
    (0..=u16::MAX).filter_map(Move::from_u16).collect()
}

/// Asserts that `is_legal` and the listing agree on every move in `pos`; returns how many of
/// the codes were legal, so that callers can check the positions were not all trivial.
fn check(pos: &Position, all: &[Move]) -> usize {
    let legal = pos.legal_moves();
    for &m in all {
        assert_eq!(pos.is_legal(m), legal.contains(&m), "{m:?} in {}", pos.fen());
    }
    legal.len()
}

fn positions(name: &str, text: &str, variant: Variant, first: usize) -> Vec<Position> {
    common::suite_positions(name, text, variant).into_iter().take(first).collect()
}

/// Positions along random games from each variant's start: every eighth ply, and every ply
/// where en passant is possible (rare in the suites).
fn random_game_positions() -> Vec<Position> {
    let mut rng = SplitMix64::derive(2026, 0);
    let mut out = Vec::new();
    for game in 0..60 {
        let mut pos = match game % 3 {
            0 => Position::new(Variant::Chess),
            1 => Position::random_chess960(|| rng.next_u64()),
            _ => Position::shatranj(if game % 2 == 0 { ShatranjArray::KingOnD } else { ShatranjArray::KingOnE }),
        };
        for ply in 0..160 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            if ply % 8 == 0 || moves.iter().any(|m| m.is_en_passant()) {
                out.push(pos);
            }
            pos = pos.play(moves[rng.index(moves.len())]).expect("legal move plays");
        }
    }
    out
}

#[test]
fn is_legal_agrees_with_the_move_list_on_every_move_code() {
    let all = every_move();
    assert_eq!(all.len(), 7 * 4096, "normal, en passant, castling and four promotion kinds");
    let mut tricky = positions("tricky.perft", include_str!("data/tricky.perft"), Variant::Chess960, usize::MAX);
    tricky.extend(positions(
        "chess960-castling-cases.txt",
        include_str!("data/chess960-castling-cases.txt"),
        Variant::Chess,
        usize::MAX,
    ));
    let children: Vec<Position> = tricky
        .iter()
        .flat_map(|pos| pos.legal_moves().into_iter().map(|m| pos.play(m).expect("legal move plays")))
        .collect();
    let mut checked = tricky;
    checked.extend(children);
    checked.extend(positions("shatranj.perft", include_str!("data/shatranj.perft"), Variant::Shatranj, usize::MAX));
    checked.extend(positions("random.perft", include_str!("data/random.perft"), Variant::Chess, 200));
    checked.extend(positions(
        "chess960-midgame.perft",
        include_str!("data/chess960-midgame.perft"),
        Variant::Chess960,
        200,
    ));
    checked.extend(random_game_positions());
    let legal: usize = checked.iter().map(|pos| check(pos, &all)).sum();
    let castles_seen = checked.iter().filter(|pos| pos.legal_moves().iter().any(|m| m.is_castle())).count();
    let en_passant_seen = checked.iter().filter(|pos| pos.legal_moves().iter().any(|m| m.is_en_passant())).count();
    assert!(checked.len() > 1_500 && legal > 40_000, "{} positions, {legal} legal moves", checked.len());
    assert!(castles_seen > 100 && en_passant_seen >= 15, "castling in {castles_seen}, en passant in {en_passant_seen}");
}
