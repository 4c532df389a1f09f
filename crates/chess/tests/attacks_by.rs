//! `Position::attacks_by` against `is_attacked_by` asked square by square, and
//! `Position::pawn_attacks_by` and `Position::attack_layers` against each piece's own attacks:
//! over the trees of the perft suites' positions (chess with its pawns on every file, Chess960,
//! Shatranj with its short-range bishops and queens), both sides' attack maps must name exactly
//! the squares attacked, and the walk must meet pawns attacking from the a- and h-files, where a
//! shifted set would wrap around the board.

mod common;

use ferz_chess::{Bitboard, Color, File, Position, Role, Square, Variant, attacks};

/// The squares the piece of `color` on `sq` attacks, by the rules of `pos`'s variant.
fn piece_attacks(pos: &Position, color: Color, sq: Square) -> Bitboard {
    let occupied = pos.board().occupied();
    let shatranj = pos.variant() == Variant::Shatranj;
    match pos.board().piece_at(sq).expect("a piece").role {
        Role::Pawn => attacks::pawn_attacks(color, sq),
        Role::Knight => attacks::knight_attacks(sq),
        Role::Bishop if shatranj => attacks::alfil_attacks(sq),
        Role::Bishop => attacks::bishop_attacks(sq, occupied),
        Role::Rook => attacks::rook_attacks(sq, occupied),
        Role::Queen if shatranj => attacks::ferz_attacks(sq),
        Role::Queen => attacks::queen_attacks(sq, occupied),
        Role::King => attacks::king_attacks(sq),
    }
}

/// Compares both sides' maps in `pos` and below it, `depth` plies deep; counts the positions
/// with a pawn on an edge file.
fn walk(pos: &Position, depth: u32, edge_pawns: &mut usize) {
    for color in [Color::White, Color::Black] {
        let expected: Bitboard = Bitboard::FULL.filter(|&sq| pos.is_attacked_by(sq, color)).collect();
        assert_eq!(pos.attacks_by(color), expected, "{color:?}'s attacks in {}", pos.fen());
        let pawns = pos.board().pieces(color, Role::Pawn);
        let by_pawns = pawns.fold(Bitboard::EMPTY, |set, sq| set | attacks::pawn_attacks(color, sq));
        assert_eq!(pos.pawn_attacks_by(color), by_pawns, "{color:?}'s pawn attacks in {}", pos.fen());
        let by = |roles: &[Role]| {
            let from: Bitboard = roles.iter().fold(Bitboard::EMPTY, |set, &r| set | pos.board().pieces(color, r));
            from.fold(Bitboard::EMPTY, |set, sq| set | piece_attacks(pos, color, sq))
        };
        let layers = pos.attack_layers(color);
        assert_eq!(layers.pawns, by_pawns, "{color:?}'s pawn layer in {}", pos.fen());
        assert_eq!(
            layers.minors,
            by(&[Role::Pawn, Role::Knight, Role::Bishop]),
            "{color:?}'s minor layer in {}",
            pos.fen()
        );
        assert_eq!(
            layers.rooks,
            by(&[Role::Pawn, Role::Knight, Role::Bishop, Role::Rook]),
            "{color:?}'s rook layer in {}",
            pos.fen()
        );
        assert_eq!(layers.all, expected, "{color:?}'s whole layer in {}", pos.fen());
        let edges = Bitboard::from_file(File::A) | Bitboard::from_file(File::H);
        if (pos.board().pieces(color, Role::Pawn) & edges).is_nonempty() {
            *edge_pawns += 1;
        }
    }
    if depth == 0 {
        return;
    }
    for &m in &pos.legal_moves() {
        let mut child = *pos;
        child.play_unchecked(m);
        walk(&child, depth - 1, edge_pawns);
    }
}

fn walk_suite(name: &str, text: &str, variant: Variant, depth: u32) -> usize {
    let mut edge_pawns = 0;
    for pos in common::suite_positions(name, text, variant) {
        walk(&pos, depth, &mut edge_pawns);
    }
    edge_pawns
}

#[test]
fn tricky_positions_two_plies_deep() {
    assert!(walk_suite("tricky.perft", include_str!("data/tricky.perft"), Variant::Chess960, 2) > 100);
}

#[test]
fn shatranj_positions_two_plies_deep() {
    assert!(walk_suite("shatranj.perft", include_str!("data/shatranj.perft"), Variant::Shatranj, 2) > 100);
}
