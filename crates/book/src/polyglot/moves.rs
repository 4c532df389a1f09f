//! Polyglot's 16-bit moves, to and from ferz's [`Move`].

use ferz_chess::{File, Move, Position, Role, Square};

/// Bits 0..15 of a Polyglot move: squares and promotion. Bit 15 is unused by the format.
const MOVE_BITS: u16 = 0x7FFF;

/// A move in Polyglot's 16-bit form. Castling is written as the king taking its own rook
/// (`e1h1`), in chess and in Chess960 alike: exactly ferz's own castling move.
#[must_use]
pub fn polyglot_move(m: Move) -> u16 {
    encode(m.from(), m.to(), m.promotion_role())
}

fn encode(from: Square, to: Square, promotion: Option<Role>) -> u16 {
    let (from, to) = (from.index() as u16, to.index() as u16);
    let promotion = match promotion {
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(Role::Queen) => 4,
        _ => 0,
    };
    (to % 8) | ((to / 8) << 3) | ((from % 8) << 6) | ((from / 8) << 9) | (promotion << 12)
}

/// The legal move of `pos` that the book move `raw` stands for, or `None` when it is illegal
/// there (a key collision or a broken book).
///
/// Besides the king-takes-rook form, a castle with the king on the e-file and the rook in the
/// corner is also recognised as the king's two-square step (`e1g1`), which some book writers
/// use and python-chess reads the same way; that step is never an ordinary king move, so the
/// reading is unambiguous.
#[must_use]
pub fn decode_move(pos: &Position, raw: u16) -> Option<Move> {
    pos.legal_moves().into_iter().find(|&m| matches(pos, m, raw))
}

/// Whether the legal move `m` of `pos` is written `raw` in a book.
pub(crate) fn matches(pos: &Position, m: Move, raw: u16) -> bool {
    let raw = raw & MOVE_BITS;
    polyglot_move(m) == raw || two_step_castle(pos, m) == Some(raw)
}

/// The king's two-square step of a castle from the classical squares (king on the e-file, rook
/// in the corner), in Polyglot's form.
fn two_step_castle(pos: &Position, m: Move) -> Option<u16> {
    let (king, rook) = (m.from(), m.to());
    if !m.is_castle() || king.file() != File::E || !(rook.file() == File::A || rook.file() == File::H) {
        return None;
    }
    let color = pos.board().piece_at(king)?.color;
    let (king_to, _) = pos.castling_side(rook).destinations(color);
    Some(encode(king, king_to, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::Variant;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn moves_use_polyglot_bits_and_king_takes_rook_castling() {
        let pos = Position::new(Variant::Chess);
        assert_eq!(polyglot_move(pos.parse_uci("e2e4").unwrap()), (4 | 3 << 3) | (4 << 6 | 1 << 9));
        let castle = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", Variant::Chess).unwrap();
        assert_eq!(polyglot_move(castle.parse_uci("e1g1").unwrap()), 7 | (4 << 6));
    }

    #[test]
    fn decoding_finds_the_legal_move_or_none() {
        let uci = |pos: &Position, raw: u16| decode_move(pos, raw).map(|m| pos.uci(m));
        let start = Position::new(Variant::Chess);
        let e2e4 = polyglot_move(start.parse_uci("e2e4").unwrap());
        assert_eq!(uci(&start, e2e4).as_deref(), Some("e2e4"));
        // Bit 15 is ignored; e2e5 is no move.
        assert_eq!(uci(&start, e2e4 | 0x8000).as_deref(), Some("e2e4"));
        assert_eq!(uci(&start, encode(sq("e2"), sq("e5"), None)), None);
        // Castling, both forms, in chess; king-takes-rook written back in ferz's notation.
        let castle = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", Variant::Chess).unwrap();
        assert_eq!(uci(&castle, encode(Square::E1, Square::H1, None)).as_deref(), Some("e1g1"));
        assert_eq!(uci(&castle, encode(Square::E1, Square::G1, None)).as_deref(), Some("e1g1"));
        assert_eq!(uci(&castle, encode(Square::E1, Square::A1, None)).as_deref(), Some("e1c1"));
        assert_eq!(uci(&castle, encode(Square::E1, Square::C1, None)).as_deref(), Some("e1c1"));
        // Without the right, the same entry is illegal.
        let no_rights = Position::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1", Variant::Chess).unwrap();
        assert_eq!(uci(&no_rights, encode(Square::E1, Square::H1, None)), None);
        // Chess960: the king on b1 castles queen side onto the rook on a1 (king to c1).
        let c960 = Position::from_fen("rk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w AGag - 0 1", Variant::Chess960).unwrap();
        let queen_side = decode_move(&c960, encode(sq("b1"), Square::A1, None)).unwrap();
        assert!(queen_side.is_castle());
        assert_eq!(c960.uci(queen_side), "b1a1");
        assert_eq!(c960.uci(decode_move(&c960, encode(sq("b1"), Square::G1, None)).unwrap()), "b1g1");
        // b1c1 is an ordinary king step there, not a castle.
        let step = decode_move(&c960, encode(sq("b1"), Square::C1, None)).unwrap();
        assert!(!step.is_castle());
        // Promotions: the role is part of the move.
        let promo = Position::from_fen("8/4P3/8/8/8/k7/8/K7 w - - 0 1", Variant::Chess).unwrap();
        let e8 = sq("e8");
        let e7 = sq("e7");
        assert_eq!(uci(&promo, encode(e7, e8, Some(Role::Knight))).as_deref(), Some("e7e8n"));
        assert_eq!(uci(&promo, encode(e7, e8, Some(Role::Queen))).as_deref(), Some("e7e8q"));
        assert_eq!(uci(&promo, encode(e7, e8, None)), None);
        assert_eq!(uci(&promo, encode(e7, e8, None) | 5 << 12), None);
    }
}
