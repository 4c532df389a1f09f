//! The input features and the feature changes of a move.
//!
//! A feature is one piece (colour, role) on one square, seen from one perspective. For
//! perspective `p`, the piece's colour `c`, role `r` and square `sq` (a1 = 0 ... h8 = 63):
//!
//! ```text
//! index = (if c == p {0} else {384}) + role_index(r) * 64 + (if p == White {sq} else {sq ^ 56})
//! ```
//!
//! so each side sees its own pieces first and its own back rank as rank 1. Shatranj's alfil uses
//! the bishop planes and its ferz the queen planes (as [`Role`] names them). Castling rights, en
//! passant and the move counters are no input: one chess net serves chess and Chess960.

use arrayvec::ArrayVec;
use ferz_chess::{CastlingSide, Color, Move, MoveKind, Position, Role, Square};

/// The feature index of a `color` `role` on `square` for `perspective` (0..768).
#[must_use]
#[inline(always)]
pub const fn index(perspective: Color, color: Color, role: Role, square: Square) -> usize {
    let side = if color.index() == perspective.index() { 0 } else { 384 };
    let sq = match perspective {
        Color::White => square.index(),
        Color::Black => square.index() ^ 56,
    };
    side + role.index() * 64 + sq
}

/// One piece on one square, independent of perspective.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PieceSquare {
    /// The owner.
    pub color: Color,
    /// The piece kind.
    pub role: Role,
    /// Where it stands.
    pub square: Square,
}

impl PieceSquare {
    /// The feature index of this piece for `perspective`.
    #[must_use]
    #[inline(always)]
    pub const fn index(self, perspective: Color) -> usize {
        index(perspective, self.color, self.role, self.square)
    }
}

/// The active features of `pos` for `perspective`, one per piece, in square order.
pub fn active(pos: &Position, perspective: Color) -> impl Iterator<Item = usize> + '_ {
    pos.board().iter().map(move |(square, piece)| index(perspective, piece.color, piece.role, square))
}

/// The pieces a move takes off and puts on the board: at most two each way.
///
/// Applying it to the features of the position before the move gives the features of the
/// position after it. A piece removed and put back on the same square (a Chess960 king or rook
/// that castles onto its own square) appears in neither list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeatureDelta {
    /// Pieces put on the board.
    pub added: ArrayVec<PieceSquare, 2>,
    /// Pieces taken off the board.
    pub removed: ArrayVec<PieceSquare, 2>,
}

impl FeatureDelta {
    /// Whether the move changes no feature (only a null move does that).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }

    fn add(&mut self, color: Color, role: Role, square: Square) {
        let ps = PieceSquare { color, role, square };
        // Castling may put a piece back where it was taken from: the two cancel.
        if let Some(i) = self.removed.iter().position(|&r| r == ps) {
            self.removed.remove(i);
        } else {
            self.added.push(ps);
        }
    }

    fn remove(&mut self, color: Color, role: Role, square: Square) {
        self.removed.push(PieceSquare { color, role, square });
    }
}

/// The feature changes `m` makes when played in `pos`.
///
/// `m` must be legal in `pos` (as from `Position::legal_moves`); for anything else the result
/// describes no real move but is still at most two pieces each way.
#[must_use]
pub fn move_delta(pos: &Position, m: Move) -> FeatureDelta {
    let us = pos.turn();
    let them = !us;
    let board = pos.board();
    let (from, to) = (m.from(), m.to());
    let mut delta = FeatureDelta::default();
    match m.kind() {
        MoveKind::Castle => {
            // Encoded as king takes own rook; the destinations depend only on the side.
            let side = if to.file() > from.file() { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            let (king_to, rook_to) = side.destinations(us);
            delta.remove(us, Role::King, from);
            delta.remove(us, Role::Rook, to);
            delta.add(us, Role::King, king_to);
            delta.add(us, Role::Rook, rook_to);
        }
        MoveKind::EnPassant => {
            let captured = Square::from_coords(to.file(), from.rank());
            delta.remove(us, Role::Pawn, from);
            delta.remove(them, Role::Pawn, captured);
            delta.add(us, Role::Pawn, to);
        }
        MoveKind::Normal | MoveKind::Promotion(_) => {
            let role = board.role_at(from).unwrap_or(Role::Pawn);
            delta.remove(us, role, from);
            if let Some(captured) = board.piece_at(to).filter(|p| p.color == them) {
                delta.remove(them, captured.role, to);
            }
            let landed = m.promotion_role().unwrap_or(role);
            delta.add(us, landed, to);
        }
    }
    delta
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::Variant;

    #[test]
    fn index_follows_the_contract() {
        let w = Color::White;
        let b = Color::Black;
        assert_eq!(index(w, w, Role::Pawn, Square::A1), 0);
        assert_eq!(index(w, w, Role::King, Square::H8), 5 * 64 + 63);
        assert_eq!(index(w, b, Role::Pawn, Square::A1), 384);
        // Black sees its own pieces first and the board flipped vertically.
        assert_eq!(index(b, b, Role::Knight, Square::A8), 64);
        assert_eq!(index(b, w, Role::Queen, Square::D1), 384 + 4 * 64 + (3 ^ 56));
        let all: std::collections::HashSet<usize> = Color::ALL
            .iter()
            .flat_map(|&c| Role::ALL.iter().flat_map(move |&r| Square::all().map(move |s| index(w, c, r, s))))
            .collect();
        assert_eq!(all.len(), 768);
        assert!(all.iter().all(|&i| i < 768));
    }

    #[test]
    fn chess960_castling_onto_own_squares_cancels() {
        // King d1, rook c1, queen side: king to c1, rook to d1 (they swap squares).
        let pos = Position::from_fen("7k/8/8/8/8/8/8/2RK4 w C - 0 1", Variant::Chess960).unwrap();
        let m = Move::castle(Square::D1, Square::C1);
        assert!(pos.is_legal(m));
        let delta = move_delta(&pos, m);
        assert_eq!(delta.removed.len(), 2);
        assert_eq!(delta.added.len(), 2);
        // King f1, rook g1, king side: king to g1, rook to f1.
        let pos = Position::from_fen("7k/8/8/8/8/8/8/5KR1 w G - 0 1", Variant::Chess960).unwrap();
        let m = Move::castle(Square::F1, Square::G1);
        assert!(pos.is_legal(m));
        assert_eq!(move_delta(&pos, m).removed.len(), 2);
        // King g1, rook h1: the king stays on g1, only the rook moves.
        let pos = Position::from_fen("k7/8/8/8/8/8/8/6KR w H - 0 1", Variant::Chess960).unwrap();
        let m = Move::castle(Square::G1, Square::H1);
        assert!(pos.is_legal(m));
        let delta = move_delta(&pos, m);
        assert_eq!(
            delta.removed.as_slice(),
            &[PieceSquare { color: Color::White, role: Role::Rook, square: Square::H1 }]
        );
        assert_eq!(
            delta.added.as_slice(),
            &[PieceSquare { color: Color::White, role: Role::Rook, square: Square::F1 }]
        );
    }
}
