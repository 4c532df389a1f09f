//! Files, ranks and squares.

use std::fmt;
use std::str::FromStr;

/// A file (column) of the board, `a` to `h`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct File(u8);

/// A rank (row) of the board, `1` to `8`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rank(u8);

/// One of the 64 squares, numbered a1 = 0, b1 = 1, ..., h8 = 63.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl File {
    /// The a-file.
    pub const A: File = File(0);
    /// The b-file.
    pub const B: File = File(1);
    /// The c-file.
    pub const C: File = File(2);
    /// The d-file.
    pub const D: File = File(3);
    /// The e-file.
    pub const E: File = File(4);
    /// The f-file.
    pub const F: File = File(5);
    /// The g-file.
    pub const G: File = File(6);
    /// The h-file.
    pub const H: File = File(7);
    /// All files from a to h.
    pub const ALL: [File; 8] = [File(0), File(1), File(2), File(3), File(4), File(5), File(6), File(7)];

    /// The file with index `index` (0 = a); `None` past h.
    #[must_use]
    pub const fn new(index: u32) -> Option<File> {
        if index < 8 { Some(File(index as u8)) } else { None }
    }

    /// The index 0..8 of this file.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file from its lowercase letter `a`..`h`.
    #[must_use]
    pub const fn from_char(c: char) -> Option<File> {
        match c {
            'a'..='h' => Some(File(c as u8 - b'a')),
            _ => None,
        }
    }

    /// The lowercase letter of this file.
    #[must_use]
    pub const fn char(self) -> char {
        (b'a' + self.0) as char
    }

    /// The uppercase letter of this file, as Shredder-FEN uses for white castling rights.
    #[must_use]
    pub const fn upper_char(self) -> char {
        (b'A' + self.0) as char
    }
}

impl Rank {
    /// The first rank.
    pub const FIRST: Rank = Rank(0);
    /// The second rank.
    pub const SECOND: Rank = Rank(1);
    /// The third rank.
    pub const THIRD: Rank = Rank(2);
    /// The fourth rank.
    pub const FOURTH: Rank = Rank(3);
    /// The fifth rank.
    pub const FIFTH: Rank = Rank(4);
    /// The sixth rank.
    pub const SIXTH: Rank = Rank(5);
    /// The seventh rank.
    pub const SEVENTH: Rank = Rank(6);
    /// The eighth rank.
    pub const EIGHTH: Rank = Rank(7);

    /// The rank with index `index` (0 = first rank); `None` past the eighth.
    #[must_use]
    pub const fn new(index: u32) -> Option<Rank> {
        if index < 8 { Some(Rank(index as u8)) } else { None }
    }

    /// The index 0..8 of this rank.
    #[must_use]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The rank from its digit `1`..`8`.
    #[must_use]
    pub const fn from_char(c: char) -> Option<Rank> {
        match c {
            '1'..='8' => Some(Rank(c as u8 - b'1')),
            _ => None,
        }
    }

    /// The digit of this rank.
    #[must_use]
    pub const fn char(self) -> char {
        (b'1' + self.0) as char
    }

    /// The same rank seen from black's side (rank 1 becomes rank 8).
    #[must_use]
    pub const fn flip(self) -> Rank {
        Rank(7 - self.0)
    }
}

impl fmt::Display for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

impl Square {
    /// The square a1.
    pub const A1: Square = Square(0);
    /// The square b1.
    pub const B1: Square = Square(1);
    /// The square c1.
    pub const C1: Square = Square(2);
    /// The square d1.
    pub const D1: Square = Square(3);
    /// The square e1.
    pub const E1: Square = Square(4);
    /// The square f1.
    pub const F1: Square = Square(5);
    /// The square g1.
    pub const G1: Square = Square(6);
    /// The square h1.
    pub const H1: Square = Square(7);
    /// The square a8.
    pub const A8: Square = Square(56);
    /// The square c8.
    pub const C8: Square = Square(58);
    /// The square d8.
    pub const D8: Square = Square(59);
    /// The square e8.
    pub const E8: Square = Square(60);
    /// The square f8.
    pub const F8: Square = Square(61);
    /// The square g8.
    pub const G8: Square = Square(62);
    /// The square h8.
    pub const H8: Square = Square(63);

    /// The square with index `index` (a1 = 0, h8 = 63); `None` past 63.
    #[must_use]
    pub const fn new(index: u32) -> Option<Square> {
        if index < 64 { Some(Square(index as u8)) } else { None }
    }

    /// The square with index `index & 63`; only for indices known to be in range.
    #[must_use]
    #[inline(always)]
    pub(crate) const fn from_index_unchecked(index: u32) -> Square {
        debug_assert!(index < 64);
        Square((index & 63) as u8)
    }

    /// The square on `file` and `rank`.
    #[must_use]
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square(rank.0 * 8 + file.0)
    }

    /// The index 0..64 of this square.
    #[must_use]
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file of this square.
    #[must_use]
    pub const fn file(self) -> File {
        File(self.0 & 7)
    }

    /// The rank of this square.
    #[must_use]
    pub const fn rank(self) -> Rank {
        Rank(self.0 >> 3)
    }

    /// The square mirrored vertically (a1 becomes a8).
    #[must_use]
    pub const fn flip_vertical(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// The square `delta` steps away in index order, if that stays on the board.
    #[must_use]
    pub const fn offset(self, delta: i32) -> Option<Square> {
        let i = self.0 as i32 + delta;
        if i >= 0 && i < 64 { Some(Square(i as u8)) } else { None }
    }

    /// Whether the square is light (h1 is light, a1 is dark).
    #[must_use]
    pub const fn is_light(self) -> bool {
        (self.0 / 8 + self.0 % 8) % 2 == 1
    }

    /// Every square from a1 to h8.
    pub fn all() -> impl DoubleEndedIterator<Item = Square> + ExactSizeIterator {
        (0..64u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

/// The text was not a square name such as `e4`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid square {0:?}: expected a file a-h and a rank 1-8, like e4")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let mut chars = s.chars();
        match (chars.next().and_then(File::from_char), chars.next().and_then(Rank::from_char), chars.next()) {
            (Some(file), Some(rank), None) => Ok(Square::from_coords(file, rank)),
            _ => Err(ParseSquareError(s.chars().take(16).collect())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
        }
        assert!("i1".parse::<Square>().is_err());
        assert!("a9".parse::<Square>().is_err());
        assert!("a1x".parse::<Square>().is_err());
        assert!("".parse::<Square>().is_err());
        assert!(Square::H1.is_light());
        assert!(!Square::A1.is_light());
    }
}
