//! Unvalidated positions and FEN parsing.
//!
//! A [`Setup`] is exactly what a FEN says, checked for syntax only. [`crate::Position::from_setup`]
//! validates it against the rules of a variant.

use std::fmt;
use std::str::FromStr;

use crate::{Board, Color, File, Piece, Rank, Square};

/// One castling right as written in FEN.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CastlingRight {
    /// Whose right it is (uppercase letters are white's).
    pub color: Color,
    /// Which rook it names.
    pub token: CastlingToken,
}

/// How a FEN names the rook of a castling right.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CastlingToken {
    /// `K`/`k` (X-FEN): the outermost rook on the h-side of the king.
    KingSide,
    /// `Q`/`q` (X-FEN): the outermost rook on the a-side of the king.
    QueenSide,
    /// A file letter (Shredder-FEN, or X-FEN for an inner rook): the rook on that file.
    File(File),
}

impl CastlingRight {
    /// The FEN letter of this right.
    #[must_use]
    pub fn char(self) -> char {
        let c = match self.token {
            CastlingToken::KingSide => 'k',
            CastlingToken::QueenSide => 'q',
            CastlingToken::File(file) => file.char(),
        };
        if self.color.is_white() { c.to_ascii_uppercase() } else { c }
    }
}

/// A position as a FEN describes it, before any rule is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The pieces.
    pub board: Board,
    /// Side to move.
    pub turn: Color,
    /// Castling rights in the order written.
    pub castling: Vec<CastlingRight>,
    /// The en passant target square, if the FEN gives one.
    pub ep_square: Option<Square>,
    /// Halfmoves since the last capture or pawn move.
    pub halfmoves: u32,
    /// The move number, starting at 1 and incremented after black moves.
    pub fullmoves: u32,
}

/// What is wrong with the text of a FEN.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseFenError {
    /// Nothing but whitespace.
    #[error("empty FEN")]
    Empty,
    /// The board field has too many or too few ranks.
    #[error("board has {found} rank{}, expected 8 separated by '/'", if *found == 1 { "" } else { "s" })]
    RankCount {
        /// How many ranks were found.
        found: usize,
    },
    /// A rank describes more or fewer than 8 squares.
    #[error("rank {rank} has {squares} squares, expected 8")]
    RankLength {
        /// The rank that is wrong.
        rank: Rank,
        /// How many squares it described.
        squares: u32,
    },
    /// A character in the board field is neither a piece letter nor a digit 1-8.
    #[error("unknown letter {letter:?} on rank {rank}: pieces are pnbrqk/PNBRQK, empty squares digits 1-8")]
    UnknownLetter {
        /// The offending character.
        letter: char,
        /// The rank it appeared on.
        rank: Rank,
    },
    /// The side-to-move field is not `w` or `b`.
    #[error("side to move {found:?} is not 'w' or 'b'")]
    Turn {
        /// The field as found.
        found: String,
    },
    /// A character of the castling field is not `KQkq`, a file letter or `-`.
    #[error("castling field {field:?}: {letter:?} is not K, Q, k, q, a file letter A-H/a-h or '-'")]
    Castling {
        /// The whole field.
        field: String,
        /// The offending character.
        letter: char,
    },
    /// The en passant field is not a square or `-`.
    #[error("en passant field {found:?} is not a square like e3 or '-'")]
    EnPassant {
        /// The field as found.
        found: String,
    },
    /// The halfmove clock is not a number.
    #[error("halfmove clock {found:?} is not a non-negative number")]
    Halfmoves {
        /// The field as found.
        found: String,
    },
    /// The move number is not a number.
    #[error("move number {found:?} is not a positive number")]
    Fullmoves {
        /// The field as found.
        found: String,
    },
    /// More than six fields.
    #[error("unexpected text after the move number: {found:?}")]
    TrailingText {
        /// The first extra field.
        found: String,
    },
}

fn clip(s: &str) -> String {
    s.chars().take(24).collect()
}

fn parse_board(field: &str) -> Result<Board, ParseFenError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(ParseFenError::RankCount { found: ranks.len() });
    }
    let mut board = Board::empty();
    for (i, text) in ranks.iter().enumerate() {
        let rank = Rank::new(7 - i as u32).expect("eight ranks");
        let mut file = 0u32;
        for c in text.chars() {
            // A 9 is not valid FEN, but "rank has 9 squares" says better what is wrong.
            if let Some(d) = c.to_digit(10).filter(|d| (1..=9).contains(d)) {
                file += d;
            } else if let Some(piece) = Piece::from_char(c) {
                if let Some(f) = File::new(file) {
                    board.set_piece_at(Square::from_coords(f, rank), piece);
                }
                file += 1;
            } else {
                return Err(ParseFenError::UnknownLetter { letter: c, rank });
            }
        }
        if file != 8 {
            return Err(ParseFenError::RankLength { rank, squares: file });
        }
    }
    Ok(board)
}

fn parse_castling(field: &str) -> Result<Vec<CastlingRight>, ParseFenError> {
    if field == "-" {
        return Ok(Vec::new());
    }
    let mut rights = Vec::new();
    for c in field.chars() {
        let color = Color::from_white(c.is_ascii_uppercase());
        let token = match c.to_ascii_lowercase() {
            'k' => CastlingToken::KingSide,
            'q' => CastlingToken::QueenSide,
            l @ 'a'..='h' => CastlingToken::File(File::from_char(l).expect("a-h")),
            _ => return Err(ParseFenError::Castling { field: clip(field), letter: c }),
        };
        let right = CastlingRight { color, token };
        if !rights.contains(&right) {
            rights.push(right);
        }
    }
    Ok(rights)
}

impl FromStr for Setup {
    type Err = ParseFenError;

    /// Parses a FEN. Missing trailing fields default to `w - - 0 1`, so EPD-style four-field
    /// positions and bare boards are accepted.
    fn from_str(fen: &str) -> Result<Setup, ParseFenError> {
        let mut fields = fen.split_ascii_whitespace();
        let board = parse_board(fields.next().ok_or(ParseFenError::Empty)?)?;
        let turn = match fields.next() {
            None | Some("w" | "W") => Color::White,
            Some("b" | "B") => Color::Black,
            Some(other) => return Err(ParseFenError::Turn { found: clip(other) }),
        };
        let castling = match fields.next() {
            None => Vec::new(),
            Some(field) => parse_castling(field)?,
        };
        let ep_square = match fields.next() {
            None | Some("-") => None,
            Some(field) => Some(field.parse().map_err(|_| ParseFenError::EnPassant { found: clip(field) })?),
        };
        let halfmoves = match fields.next() {
            None => 0,
            Some(field) => field.parse().map_err(|_| ParseFenError::Halfmoves { found: clip(field) })?,
        };
        let fullmoves = match fields.next() {
            None => 1,
            // Some writers emit move number 0; treat it as the first move rather than reject it.
            Some(field) => field.parse::<u32>().map_err(|_| ParseFenError::Fullmoves { found: clip(field) })?.max(1),
        };
        if let Some(extra) = fields.next() {
            return Err(ParseFenError::TrailingText { found: clip(extra) });
        }
        Ok(Setup { board, turn, castling, ep_square, halfmoves, fullmoves })
    }
}

/// Writes the board field of a FEN.
pub(crate) fn write_board(f: &mut impl fmt::Write, board: &Board) -> fmt::Result {
    for rank in (0..8u32).rev() {
        let mut empty = 0;
        for file in 0..8u32 {
            let sq = Square::new(rank * 8 + file).expect("on board");
            match board.piece_at(sq) {
                Some(piece) => {
                    if empty > 0 {
                        write!(f, "{empty}")?;
                        empty = 0;
                    }
                    f.write_char(piece.char())?;
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            write!(f, "{empty}")?;
        }
        if rank > 0 {
            f.write_char('/')?;
        }
    }
    Ok(())
}

impl fmt::Display for Setup {
    /// Writes the FEN with the castling rights as given.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_board(f, &self.board)?;
        write!(f, " {} ", self.turn.char())?;
        if self.castling.is_empty() {
            f.write_str("-")?;
        }
        for right in &self.castling {
            write!(f, "{}", right.char())?;
        }
        match self.ep_square {
            Some(sq) => write!(f, " {sq}")?,
            None => f.write_str(" -")?,
        }
        write!(f, " {} {}", self.halfmoves, self.fullmoves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(fen: &str) -> String {
        fen.parse::<Setup>().expect_err(fen).to_string()
    }

    #[test]
    fn syntax_errors_say_what_and_where() {
        assert_eq!(err(""), "empty FEN");
        assert_eq!(err("8/8/8/8/8/8/8 w - - 0 1"), "board has 7 ranks, expected 8 separated by '/'");
        assert_eq!(err("8/8/8/8/8/ppppppppp/8/8 w - - 0 1"), "rank 3 has 9 squares, expected 8");
        assert_eq!(err("8/8/8/8/8/7/8/8 w - - 0 1"), "rank 3 has 7 squares, expected 8");
        assert!(err("8/8/8/4x3/8/8/8/8 w - - 0 1").starts_with("unknown letter 'x' on rank 5"));
        assert!(err("8/8/8/8/8/8/8/8 x - - 0 1").starts_with("side to move \"x\""));
        assert!(err("8/8/8/8/8/8/8/8 w KZ - 0 1").contains("'Z' is not K, Q"));
        assert!(err("8/8/8/8/8/8/8/8 w - e9 0 1").starts_with("en passant field \"e9\""));
        assert!(err("8/8/8/8/8/8/8/8 w - - x 1").starts_with("halfmove clock"));
        assert!(err("8/8/8/8/8/8/8/8 w - - 0 -1").starts_with("move number"));
        assert!(err("8/8/8/8/8/8/8/8 w - - 0 1 extra").starts_with("unexpected text"));
        assert_eq!(err("9/8/8/8/8/8/8/8 w - - 0 1"), "rank 8 has 9 squares, expected 8");
        assert!(err("0/8/8/8/8/8/8/8 w - - 0 1").starts_with("unknown letter '0'"));
    }

    #[test]
    fn short_fens_default_their_fields() {
        let setup: Setup = "8/8/8/8/8/8/8/8".parse().expect("bare board");
        assert_eq!(setup.to_string(), "8/8/8/8/8/8/8/8 w - - 0 1");
        let setup: Setup = "r3k2r/8/8/8/8/8/8/R3K2R b KQkq -".parse().expect("epd");
        assert_eq!(setup.to_string(), "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    }
}
