//! Piece placement.

use crate::{Bitboard, ByColor, Color, Piece, Role, Square};

/// Where the pieces stand: one bitboard per role and per colour, and a square-indexed copy.
///
/// The square-indexed copy (the "mailbox") answers "what stands on this square" with one load;
/// the search asks that for every move it orders, makes or exchanges, and finding the role
/// among six bitboards is a chain of hard-to-predict branches (the search is about 8% faster
/// with the mailbox, measured with `bench`).
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Board {
    by_role: [Bitboard; 6],
    by_color: [Bitboard; 2],
    occupied: Bitboard,
    /// Per square: [`EMPTY_SQUARE`] or [`square_code`] of the piece on it.
    mailbox: [u8; 64],
}

/// The mailbox code of an empty square.
const EMPTY_SQUARE: u8 = 0;

/// The mailbox code of a piece: the colour in bit 3, the role index plus one below it.
#[inline(always)]
const fn square_code(color: Color, role: Role) -> u8 {
    ((color as u8) << 3) | (role as u8 + 1)
}

impl Default for Board {
    fn default() -> Board {
        Board::empty()
    }
}

impl Board {
    /// A board without pieces.
    #[must_use]
    pub const fn empty() -> Board {
        Board {
            by_role: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            occupied: Bitboard::EMPTY,
            mailbox: [EMPTY_SQUARE; 64],
        }
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
        match self.mailbox[sq.index()] {
            EMPTY_SQUARE => None,
            code if code >> 3 == 0 => Some(Color::White),
            _ => Some(Color::Black),
        }
    }

    /// The role of the piece on `sq`, if any.
    #[must_use]
    #[inline(always)]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        match self.mailbox[sq.index()] & 7 {
            0 => None,
            role => Some(Role::ALL[usize::from(role) - 1]),
        }
    }

    /// The piece on `sq`, if any.
    #[must_use]
    #[inline(always)]
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
        // Toggling puts a piece on an empty square or takes it off its own square.
        self.mailbox[sq.index()] = if self.occupied.contains(sq) { square_code(color, role) } else { EMPTY_SQUARE };
    }

    /// Moves a piece known to stand on `from` to the empty square `to`.
    #[inline(always)]
    pub(crate) fn shift(&mut self, from: Square, to: Square, color: Color, role: Role) {
        let bits = Bitboard::from_square(from) | Bitboard::from_square(to);
        self.by_role[role.index()] ^= bits;
        self.by_color[color.index()] ^= bits;
        self.occupied ^= bits;
        self.mailbox[from.index()] = EMPTY_SQUARE;
        self.mailbox[to.index()] = square_code(color, role);
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
