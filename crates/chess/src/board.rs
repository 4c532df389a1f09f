//! Piece placement.

use crate::{Bitboard, ByColor, Color, Piece, Role, Square};

/// Where the pieces stand: one bitboard per role and per colour.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct Board {
    by_role: [Bitboard; 6],
    by_color: [Bitboard; 2],
    occupied: Bitboard,
}

impl Board {
    /// A board without pieces.
    #[must_use]
    pub const fn empty() -> Board {
        Board { by_role: [Bitboard::EMPTY; 6], by_color: [Bitboard::EMPTY; 2], occupied: Bitboard::EMPTY }
    }

    /// All occupied squares.
    #[must_use]
    #[inline(always)]
    pub const fn occupied(&self) -> Bitboard {
        self.occupied
    }

    /// Squares holding pieces of `role` (both colours).
    #[must_use]
    #[inline(always)]
    pub const fn by_role(&self, role: Role) -> Bitboard {
        self.by_role[role as usize]
    }

    /// Squares holding pieces of `color`.
    #[must_use]
    #[inline(always)]
    pub const fn by_color(&self, color: Color) -> Bitboard {
        self.by_color[color as usize]
    }

    /// Squares holding `color`'s pieces of `role`.
    #[must_use]
    #[inline(always)]
    pub const fn pieces(&self, color: Color, role: Role) -> Bitboard {
        Bitboard(self.by_role[role as usize].0 & self.by_color[color as usize].0)
    }

    /// The square of `color`'s king (the lowest one if a setup has several).
    #[must_use]
    #[inline(always)]
    pub const fn king_of(&self, color: Color) -> Option<Square> {
        self.pieces(color, Role::King).first()
    }

    /// The colour of the piece on `sq`, if any.
    #[must_use]
    #[inline(always)]
    pub const fn color_at(&self, sq: Square) -> Option<Color> {
        if self.by_color[0].contains(sq) {
            Some(Color::White)
        } else if self.by_color[1].contains(sq) {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The role of the piece on `sq`, if any.
    #[must_use]
    #[inline(always)]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        if !self.occupied.contains(sq) {
            return None;
        }
        Role::ALL.into_iter().find(|&role| self.by_role[role.index()].contains(sq))
    }

    /// The piece on `sq`, if any.
    #[must_use]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Some(Piece { color: self.color_at(sq)?, role: self.role_at(sq)? })
    }

    /// Puts `piece` on `sq`, replacing whatever stood there.
    pub fn set_piece_at(&mut self, sq: Square, piece: Piece) {
        self.remove_piece_at(sq);
        self.toggle(sq, piece.color, piece.role);
    }

    /// Removes and returns the piece on `sq`.
    pub fn remove_piece_at(&mut self, sq: Square) -> Option<Piece> {
        let piece = self.piece_at(sq)?;
        self.toggle(sq, piece.color, piece.role);
        Some(piece)
    }

    /// Adds or removes a piece that is known to be absent or present.
    #[inline(always)]
    pub(crate) fn toggle(&mut self, sq: Square, color: Color, role: Role) {
        let bit = Bitboard::from_square(sq);
        self.by_role[role.index()] ^= bit;
        self.by_color[color.index()] ^= bit;
        self.occupied ^= bit;
    }

    /// Moves a piece known to stand on `from` to the empty square `to`.
    #[inline(always)]
    pub(crate) fn shift(&mut self, from: Square, to: Square, color: Color, role: Role) {
        let bits = Bitboard::from_square(from) | Bitboard::from_square(to);
        self.by_role[role.index()] ^= bits;
        self.by_color[color.index()] ^= bits;
        self.occupied ^= bits;
    }

    /// The number of pieces of each colour.
    #[must_use]
    pub fn material_count(&self) -> ByColor<u32> {
        ByColor::new_with(|c| self.by_color(c).count())
    }

    /// Every piece with its square, a1 first.
    pub fn iter(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        self.occupied.filter_map(move |sq| Some((sq, self.piece_at(sq)?)))
    }
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for rank in (0..8u32).rev() {
            for file in 0..8u32 {
                let sq = Square::new(rank * 8 + file).expect("in range");
                let c = self.piece_at(sq).map_or('.', Piece::char);
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
