//! Material signatures: which pieces each side has, and the table file names that spell them.

use std::fmt;

use ferz_chess::{Color, Position, Role};

/// Piece letters in the order table names list them (strongest first).
const NAME_ORDER: [(Role, char); 6] = [
    (Role::King, 'K'),
    (Role::Queen, 'Q'),
    (Role::Rook, 'R'),
    (Role::Bishop, 'B'),
    (Role::Knight, 'N'),
    (Role::Pawn, 'P'),
];

/// How many pieces of each role each side has: `counts[color][role]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Material {
    counts: [[u8; 6]; 2],
}

impl Material {
    /// The material on a position's board.
    #[must_use]
    pub fn of(position: &Position) -> Material {
        let board = position.board();
        let mut counts = [[0u8; 6]; 2];
        for color in [Color::White, Color::Black] {
            for role in Role::ALL {
                counts[color.index()][role as usize] = board.pieces(color, role).count() as u8;
            }
        }
        Material { counts }
    }

    /// Parses a table name such as `KQvKR` (white's pieces, `v`, black's pieces); `None` when
    /// it is not one (each side needs exactly one king).
    #[must_use]
    pub fn parse(name: &str) -> Option<Material> {
        let (white, black) = name.split_once('v')?;
        let mut counts = [[0u8; 6]; 2];
        for (side, letters) in [white, black].into_iter().enumerate() {
            for letter in letters.chars() {
                let role = NAME_ORDER.iter().find(|(_, c)| *c == letter)?.0;
                counts[side][role as usize] += 1;
            }
            if counts[side][Role::King as usize] != 1 {
                return None;
            }
        }
        Some(Material { counts })
    }

    /// The same material with the colours exchanged.
    #[must_use]
    pub fn flipped(self) -> Material {
        Material { counts: [self.counts[1], self.counts[0]] }
    }

    /// Pieces of `role` that `color` has.
    #[must_use]
    pub fn count(&self, color: Color, role: Role) -> u8 {
        self.counts[color.index()][role as usize]
    }

    /// All pieces, kings included.
    #[must_use]
    pub fn total(&self) -> u32 {
        self.counts.iter().flatten().map(|&n| u32::from(n)).sum()
    }

    /// Whether both sides have the same pieces (a symmetric table stores one side to move).
    #[must_use]
    pub fn is_symmetric(&self) -> bool {
        self.counts[0] == self.counts[1]
    }

    /// Whether either side has a pawn.
    #[must_use]
    pub fn has_pawns(&self) -> bool {
        self.count(Color::White, Role::Pawn) + self.count(Color::Black, Role::Pawn) > 0
    }
}

impl fmt::Display for Material {
    /// The table name: `KQvKR`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (side, color) in [Color::White, Color::Black].into_iter().enumerate() {
            if side == 1 {
                f.write_str("v")?;
            }
            for (role, letter) in NAME_ORDER {
                for _ in 0..self.count(color, role) {
                    write!(f, "{letter}")?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_flip() {
        let material = Material::parse("KRPvKB").unwrap();
        assert_eq!(material.to_string(), "KRPvKB");
        assert_eq!(material.flipped().to_string(), "KBvKRP");
        assert_eq!(material.total(), 5);
        assert!(material.has_pawns());
        assert!(Material::parse("KNvKN").unwrap().is_symmetric());
    }

    #[test]
    fn rejects_names_that_are_not_materials() {
        for name in ["KQK", "QvK", "KKvK", "KXvK", ""] {
            assert_eq!(Material::parse(name), None, "{name}");
        }
    }
}
