//! `Position::gives_check` against the move played out: over the trees of the perft suites'
//! positions, every legal move's answer must equal `is_check` of the position it leads to. The
//! suites are chosen for their special moves (Kiwipete and its kin, Chess960 castling, Shatranj),
//! and the test asserts that each kind of check occurred, so a walk that misses one fails.

mod common;

use ferz_chess::{Move, Position, Variant};

/// How many checking moves of each kind the walk met.
#[derive(Default, Debug)]
struct Seen {
    direct: usize,
    discovered: usize,
    castling: usize,
    en_passant: usize,
    promotion: usize,
}

/// Compares every legal move of `pos` and, below it, of its subtree `depth` plies deep.
fn walk(pos: &Position, depth: u32, seen: &mut Seen) {
    for &m in &pos.legal_moves() {
        let mut child = *pos;
        child.play_unchecked(m);
        assert_eq!(pos.gives_check(m), child.is_check(), "{} gives check? in {}", pos.uci(m), pos.fen());
        if child.is_check() {
            count(pos, m, &child, seen);
        }
        if depth > 1 {
            walk(&child, depth - 1, seen);
        }
    }
}

/// Sorts a checking move into the kinds of [`Seen`].
fn count(pos: &Position, m: Move, child: &Position, seen: &mut Seen) {
    if m.is_castle() {
        seen.castling += 1;
    } else if m.is_en_passant() {
        seen.en_passant += 1;
    } else if m.promotion_role().is_some() {
        seen.promotion += 1;
    }
    let king = child.board().king_of(child.turn()).expect("both kings stay");
    let mover = if m.is_castle() { None } else { Some(m.to()) };
    let checkers = child.attackers_to(king, child.board().by_color(pos.turn()), child.board().occupied());
    if mover.is_some_and(|to| checkers.contains(to)) {
        seen.direct += 1;
    }
    if checkers.into_iter().any(|sq| Some(sq) != mover && pos.board().piece_at(sq) == child.board().piece_at(sq)) {
        seen.discovered += 1;
    }
}

fn walk_suite(name: &str, text: &str, variant: Variant, depth: u32) -> Seen {
    let mut seen = Seen::default();
    for pos in common::suite_positions(name, text, variant) {
        walk(&pos, depth, &mut seen);
    }
    seen
}

#[test]
fn tricky_positions_three_plies_deep() {
    let seen = walk_suite("tricky.perft", include_str!("data/tricky.perft"), Variant::Chess960, 3);
    assert!(seen.direct > 1000 && seen.discovered > 100, "{seen:?}");
    assert!(seen.castling > 0 && seen.promotion > 0, "{seen:?}");
}

#[test]
fn chess960_midgame_positions_two_plies_deep() {
    let seen = walk_suite("chess960-midgame.perft", include_str!("data/chess960-midgame.perft"), Variant::Chess960, 2);
    assert!(seen.direct > 1000 && seen.discovered > 100, "{seen:?}");
}

#[test]
fn shatranj_positions_two_plies_deep() {
    let seen = walk_suite("shatranj.perft", include_str!("data/shatranj.perft"), Variant::Shatranj, 2);
    assert!(seen.direct > 1000 && seen.discovered > 10 && seen.promotion > 0, "{seen:?}");
}

#[test]
fn random_standard_positions_one_ply_deep() {
    let seen = walk_suite("random.perft", include_str!("data/random.perft"), Variant::Chess, 1);
    assert!(seen.direct > 1000 && seen.discovered > 100 && seen.promotion > 0, "{seen:?}");
}

/// The moves the suites' trees seldom reach, each with whether it checks: en passant that
/// checks with the capturing pawn or by opening a rank or a diagonal, castling whose rook checks
/// (both sides, and a Chess960 castling whose king lands on the rook's square).
#[test]
fn special_moves() {
    let cases = [
        ("8/2k5/8/3pP3/8/8/8/4K3 w - d6 0 1", Variant::Chess, "e5d6", true),
        ("8/8/8/R2pP2k/8/8/8/4K3 w - d6 0 1", Variant::Chess, "e5d6", true),
        ("8/8/8/R2pP1pk/8/8/8/4K3 w - d6 0 1", Variant::Chess, "e5d6", false),
        ("6k1/8/8/3pP3/8/8/B7/4K3 w - d6 0 1", Variant::Chess, "e5d6", true),
        ("8/7k/8/4Pp2/8/8/8/1B2K3 w - f6 0 1", Variant::Chess, "e5f6", true),
        ("7k/8/8/4Pp2/8/8/8/B3K3 w - f6 0 1", Variant::Chess, "e5f6", false),
        ("5k2/8/8/8/8/8/8/4K2R w K - 0 1", Variant::Chess, "e1g1", true),
        ("3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", Variant::Chess, "e1c1", true),
        ("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", Variant::Chess, "e1c1", false),
        ("3k4/8/8/8/8/8/8/5RK1 w F - 0 1", Variant::Chess960, "g1f1", true),
        ("5k2/8/8/8/8/8/8/1K1R4 w D - 0 1", Variant::Chess960, "b1d1", true),
        ("5k2/8/8/8/8/8/8/5KR1 w G - 0 1", Variant::Chess960, "f1g1", true),
        ("7k/8/8/8/8/8/8/5KR1 w G - 0 1", Variant::Chess960, "f1g1", false),
    ];
    for (fen, variant, uci, checks) in cases {
        let pos = Position::from_fen(fen, variant).expect(fen);
        let m = pos.parse_uci(uci).expect(uci);
        let child = pos.play(m).expect(uci);
        assert_eq!(child.is_check(), checks, "{uci} in {fen}: the case itself");
        assert_eq!(pos.gives_check(m), checks, "{uci} in {fen}");
    }
}
