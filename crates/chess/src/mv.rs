//! Moves and move lists.

use std::fmt;
use std::num::NonZeroU16;

use arrayvec::ArrayVec;

use crate::{Role, Square};

/// What kind of move a [`Move`] is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// A quiet move or a capture (including pawn pushes).
    Normal,
    /// A pawn capturing en passant.
    EnPassant,
    /// Castling, encoded as the king capturing its own rook.
    Castle,
    /// A pawn promoting to the given role (the ferz slot, [`Role::Queen`], in Shatranj).
    Promotion(Role),
}

/// A move in 16 bits: from square, to square and kind.
///
/// Castling is stored as king-from and rook-square ("king takes own rook"), the form Chess960
/// needs; standard notation converts at the edge (see [`crate::CastlingMode`]). `Option<Move>` is
/// also 16 bits.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Move(NonZeroU16);

const KIND_NORMAL: u16 = 0;
const KIND_EN_PASSANT: u16 = 1;
const KIND_CASTLE: u16 = 2;
const KIND_PROMOTION: u16 = 4; // + role index - 1 (knight = 4 ... queen = 7)
/// Always set, so that no move is zero and `Option<Move>` stays 16 bits.
const TAG: u16 = 0x8000;

impl Move {
    #[inline(always)]
    const fn pack(from: Square, to: Square, kind: u16) -> Move {
        let bits = TAG | (kind << 12) | ((to.index() as u16) << 6) | from.index() as u16;
        match NonZeroU16::new(bits) {
            Some(nz) => Move(nz),
            None => unreachable!(),
        }
    }

    /// A normal move or capture from `from` to `to`.
    #[must_use]
    #[inline(always)]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move::pack(from, to, KIND_NORMAL)
    }

    /// An en passant capture landing on `to`.
    #[must_use]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move::pack(from, to, KIND_EN_PASSANT)
    }

    /// Castling with the king on `king` and the rook on `rook`.
    #[must_use]
    pub const fn castle(king: Square, rook: Square) -> Move {
        Move::pack(king, rook, KIND_CASTLE)
    }

    /// A pawn promotion to `role` (knight, bishop, rook or queen).
    #[must_use]
    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, role: Role) -> Move {
        debug_assert!(matches!(role, Role::Knight | Role::Bishop | Role::Rook | Role::Queen));
        Move::pack(from, to, KIND_PROMOTION + role.index() as u16 - 1)
    }

    /// The square the piece leaves (the king's square for castling).
    #[must_use]
    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::from_index_unchecked((self.0.get() & 63) as u32)
    }

    /// The target square (the rook's square for castling).
    #[must_use]
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::from_index_unchecked(((self.0.get() >> 6) & 63) as u32)
    }

    #[inline(always)]
    const fn kind_bits(self) -> u16 {
        (self.0.get() >> 12) & 7
    }

    /// The kind of move.
    #[must_use]
    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        match self.kind_bits() {
            KIND_NORMAL => MoveKind::Normal,
            KIND_EN_PASSANT => MoveKind::EnPassant,
            KIND_CASTLE => MoveKind::Castle,
            k => MoveKind::Promotion(Role::from_index((k - KIND_PROMOTION + 1) as usize)),
        }
    }

    /// The promotion role, if this is a promotion.
    #[must_use]
    #[inline(always)]
    pub const fn promotion_role(self) -> Option<Role> {
        match self.kind() {
            MoveKind::Promotion(role) => Some(role),
            _ => None,
        }
    }

    /// Whether this is castling.
    #[must_use]
    #[inline(always)]
    pub const fn is_castle(self) -> bool {
        self.kind_bits() == KIND_CASTLE
    }

    /// Whether this is an en passant capture.
    #[must_use]
    #[inline(always)]
    pub const fn is_en_passant(self) -> bool {
        self.kind_bits() == KIND_EN_PASSANT
    }

    /// The 16-bit encoding (never zero), for transposition tables and files.
    #[must_use]
    pub const fn to_u16(self) -> u16 {
        self.0.get()
    }

    /// Decodes [`Move::to_u16`]; `None` for values no move encodes.
    #[must_use]
    pub const fn from_u16(bits: u16) -> Option<Move> {
        if bits & TAG == 0 || (bits >> 12) & 7 == 3 {
            return None;
        }
        match NonZeroU16::new(bits) {
            Some(nz) => Some(Move(nz)),
            None => None,
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())?;
        match self.kind() {
            MoveKind::Normal => Ok(()),
            MoveKind::EnPassant => f.write_str("(ep)"),
            MoveKind::Castle => f.write_str("(castle)"),
            MoveKind::Promotion(role) => write!(f, "{}", role.char()),
        }
    }
}

/// Capacity of a [`MoveList`]: room for the legal moves of any position the validator accepts
/// (at most 32 pieces).
///
/// The most known in a reachable chess position is 218. A hill-climbing search over setups of
/// up to 32 pieces, mostly queens, found no position above 271 moves; 512 leaves wide headroom.
pub const MAX_MOVES: usize = 512;

/// A list of moves on the stack.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_round_trips() {
        for from in Square::all() {
            for to in Square::all() {
                let moves = [
                    Move::normal(from, to),
                    Move::en_passant(from, to),
                    Move::castle(from, to),
                    Move::promotion(from, to, Role::Knight),
                    Move::promotion(from, to, Role::Queen),
                ];
                for m in moves {
                    assert_eq!(m.from(), from);
                    assert_eq!(m.to(), to);
                    assert_eq!(Move::from_u16(m.to_u16()), Some(m));
                }
            }
        }
        assert_eq!(Move::promotion(Square::A1, Square::A8, Role::Rook).promotion_role(), Some(Role::Rook));
        assert_eq!(Move::from_u16(0), None);
        assert_eq!(std::mem::size_of::<Option<Move>>(), 2);
    }
}
