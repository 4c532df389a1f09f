//! Polyglot keys: Zobrist hashing with the format's 781 published random numbers.

use ferz_chess::attacks::pawn_attacks;
use ferz_chess::{Color, Game, Move, Position, Role, Square};

use super::random::RANDOM;

/// The Polyglot key of a position whose history is unknown.
///
/// Polyglot hashes the en passant file whenever a pawn of the side to move stands beside a
/// pawn that has just advanced two squares, legal capture or not; a [`Position`] keeps the en
/// passant square only when the capture is legal. So this key is the book's key except right
/// after a double push whose capture is illegal (a pinned capturer, a discovered check): use
/// [`polyglot_key_after`] or [`game_key`] when the last move is known.
#[must_use]
pub fn polyglot_key(pos: &Position) -> u64 {
    key_with_en_passant(pos, pos.ep_square())
}

/// The Polyglot key of `pos` reached by `last` (the move just played, if any): exact in every
/// position, the en passant case included.
#[must_use]
pub fn polyglot_key_after(pos: &Position, last: Option<Move>) -> u64 {
    let skipped = last.and_then(|m| double_push_square(pos, m)).or(pos.ep_square());
    key_with_en_passant(pos, skipped)
}

/// The Polyglot key of a game's current position.
#[must_use]
pub fn game_key(game: &Game) -> u64 {
    polyglot_key_after(game.position(), game.moves().last().copied())
}

/// The square a pawn skipped if `last`, just played to reach `pos`, was a double push.
fn double_push_square(pos: &Position, last: Move) -> Option<Square> {
    let (from, to) = (last.from(), last.to());
    if last.is_castle() || from.index().abs_diff(to.index()) != 16 {
        return None;
    }
    // Only a pawn moves two ranks straight ahead; the mover now stands on `to`.
    let piece = pos.board().piece_at(to)?;
    if piece.role != Role::Pawn || piece.color == pos.turn() {
        return None;
    }
    Square::new(((from.index() + to.index()) / 2) as u32)
}

/// The key, hashing the file of `skipped` (the square a pawn just skipped) when a pawn of the
/// side to move could take it.
fn key_with_en_passant(pos: &Position, skipped: Option<Square>) -> u64 {
    let board = pos.board();
    let mut key = 0;
    for (sq, piece) in board.iter() {
        // Polyglot orders kinds black pawn, white pawn, black knight, ... white king.
        let kind = 2 * piece.role.index() + usize::from(piece.color == Color::White);
        key ^= RANDOM[64 * kind + sq.index()];
    }
    for rook in pos.castling_rooks() {
        let color = if rook.index() < 8 { Color::White } else { Color::Black };
        let king_side = board.king_of(color).is_some_and(|k| rook > k);
        key ^= RANDOM[768 + 2 * usize::from(color == Color::Black) + usize::from(!king_side)];
    }
    let us = pos.turn();
    if let Some(ep) = skipped
        && (pawn_attacks(!us, ep) & board.pieces(us, Role::Pawn)).is_nonempty()
    {
        key ^= RANDOM[772 + ep.file().index()];
    }
    if us == Color::White {
        key ^= RANDOM[780];
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::Variant;

    /// The keys published with the Polyglot format for a short game.
    #[test]
    fn keys_match_the_published_values() {
        let mut game = Game::new(Position::new(Variant::Chess));
        assert_eq!(game_key(&game), 0x463B_9618_1691_FC9C);
        let expected = [
            ("e2e4", 0x823C_9B50_FD11_4196),
            ("d7d5", 0x0756_B944_61C5_0FB0),
            ("e4e5", 0x662F_AFB9_65DB_29D4),
            ("f7f5", 0x22A4_8B5A_8E47_FF78),
            ("e1e2", 0x652A_607C_A3F2_42C1),
            ("e8f7", 0x00FD_D303_C946_BDD9),
        ];
        for (uci, key) in expected {
            game.play_uci(uci).unwrap();
            assert_eq!(game_key(&game), key, "after {uci}");
            assert_eq!(polyglot_key(game.position()), key, "after {uci}, without the history");
        }
        let mut game = Game::new(Position::new(Variant::Chess));
        for uci in ["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"] {
            game.play_uci(uci).unwrap();
        }
        assert_eq!(game_key(&game), 0x3C81_23EA_7B06_7637);
        for uci in ["b4c3", "a1a3"] {
            game.play_uci(uci).unwrap();
        }
        assert_eq!(game_key(&game), 0x5C3F_9B82_9B27_9560);
    }

    #[test]
    fn an_illegal_en_passant_capture_still_counts() {
        // After d2d4 the black pawn on e4 stands beside it but is pinned along the fourth rank:
        // the position has no en passant square, the Polyglot key still hashes the d-file.
        let start = Position::from_fen("8/8/8/8/k3p2R/8/3P4/4K3 w - - 0 1", Variant::Chess).unwrap();
        let mut game = Game::new(start);
        game.play_uci("d2d4").unwrap();
        assert_eq!(game.position().ep_square(), None);
        let with = game_key(&game);
        assert_eq!(with ^ polyglot_key(game.position()), RANDOM[772 + 3]);
        // A pawn move of one square or a piece move is no double push.
        let mut quiet = Game::new(start);
        quiet.play_uci("d2d3").unwrap();
        assert_eq!(game_key(&quiet), polyglot_key(quiet.position()));
    }
}
