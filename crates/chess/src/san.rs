//! Standard algebraic notation (`Nf3`, `exd5`, `e8=Q+`, `O-O-O#`).
//!
//! Shatranj uses the same letters as its FEN: `Q` for the ferz and `B` for the alfil.

use crate::position::CastlingSide;
use crate::{Bitboard, Move, MoveKind, Position, Rank, Role, Square};

/// A SAN move that cannot be played in a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SanError {
    /// The text is not SAN.
    #[error("{0:?} is not a SAN move like e4, Nf3, exd5, e8=Q or O-O")]
    Syntax(String),
    /// No legal move matches.
    #[error("illegal move {san} in {fen}")]
    Illegal {
        /// The move as given.
        san: String,
        /// The position, as FEN.
        fen: String,
    },
    /// Several legal moves match.
    #[error("ambiguous move {san} in {fen}: say which piece moves")]
    Ambiguous {
        /// The move as given.
        san: String,
        /// The position, as FEN.
        fen: String,
    },
}

impl Position {
    /// Writes a legal move in SAN, with `+` or `#` when it checks or mates.
    #[must_use]
    pub fn san(&self, m: Move) -> String {
        let mut san = self.san_without_suffix(m);
        let mut next = *self;
        next.play_unchecked(m);
        if next.is_check() {
            // A check that bares the last piece ends a Shatranj game, but it is a mate only if
            // the king truly has no move.
            san.push(if next.has_no_moves_by_movement() { '#' } else { '+' });
        }
        san
    }

    fn san_without_suffix(&self, m: Move) -> String {
        if m.is_castle() {
            return match self.castling_side(m.to()) {
                CastlingSide::KingSide => "O-O".to_owned(),
                CastlingSide::QueenSide => "O-O-O".to_owned(),
            };
        }
        let role = self.board.role_at(m.from()).unwrap_or(Role::Pawn);
        let capture = m.is_en_passant() || self.board.by_color(!self.turn).contains(m.to());
        let mut san = String::with_capacity(8);
        if role == Role::Pawn {
            if capture {
                san.push(m.from().file().char());
                san.push('x');
            }
            san.push_str(&m.to().to_string());
            if let Some(promoted) = m.promotion_role() {
                san.push('=');
                san.push(promoted.upper_char());
            }
            return san;
        }
        san.push(role.upper_char());
        let rivals: Bitboard = self
            .legal_moves()
            .into_iter()
            .filter(|&o| o.to() == m.to() && o.from() != m.from() && !o.is_castle())
            .filter(|o| self.board.role_at(o.from()) == Some(role))
            .map(Move::from)
            .collect();
        if rivals.is_nonempty() {
            let same_file = rivals.into_iter().any(|sq| sq.file() == m.from().file());
            let same_rank = rivals.into_iter().any(|sq| sq.rank() == m.from().rank());
            if !same_file {
                san.push(m.from().file().char());
            } else if !same_rank {
                san.push(m.from().rank().char());
            } else {
                san.push_str(&m.from().to_string());
            }
        }
        if capture {
            san.push('x');
        }
        san.push_str(&m.to().to_string());
        san
    }

    /// Reads a SAN move and finds the legal move it denotes. Accepts `0-0` for `O-O`, a
    /// promotion with or without `=`, and trailing `+`, `#`, `!` and `?`.
    ///
    /// # Errors
    /// [`SanError`] when the text is malformed, matches no legal move or matches several.
    pub fn parse_san(&self, text: &str) -> Result<Move, SanError> {
        let syntax = || SanError::Syntax(text.chars().take(16).collect());
        let illegal = || SanError::Illegal { san: text.to_owned(), fen: self.fen() };
        let core = text.trim().trim_end_matches(['+', '#', '!', '?']);
        if !core.is_ascii() || core.is_empty() {
            return Err(syntax());
        }
        let castle = match core {
            "O-O" | "0-0" => Some(CastlingSide::KingSide),
            "O-O-O" | "0-0-0" => Some(CastlingSide::QueenSide),
            _ => None,
        };
        if let Some(side) = castle {
            return self
                .legal_moves()
                .into_iter()
                .find(|&m| m.is_castle() && self.castling_side(m.to()) == side)
                .ok_or_else(illegal);
        }

        let mut rest = core;
        let role = match rest.chars().next() {
            Some(c @ ('N' | 'B' | 'R' | 'Q' | 'K')) => {
                rest = &rest[1..];
                Role::from_char(c).unwrap_or(Role::Pawn)
            }
            _ => Role::Pawn,
        };
        let mut promotion = None;
        if let Some(c) = rest.chars().last().filter(|c| matches!(c, 'N' | 'B' | 'R' | 'Q')) {
            promotion = Role::from_char(c);
            rest = rest[..rest.len() - 1].trim_end_matches('=');
        }
        if rest.len() < 2 {
            return Err(syntax());
        }
        let to: Square = rest[rest.len() - 2..].parse().map_err(|_| syntax())?;
        let mut prefix = rest[..rest.len() - 2].trim_end_matches(['x', ':', '-']);
        let mut from_file = None;
        let mut from_rank = None;
        while let Some(c) = prefix.chars().next() {
            if let Some(file) = crate::File::from_char(c) {
                from_file = Some(file);
            } else if let Some(rank) = Rank::from_char(c) {
                from_rank = Some(rank);
            } else {
                return Err(syntax());
            }
            prefix = &prefix[1..];
        }

        let mut found = None;
        for m in self.legal_moves() {
            if m.is_castle()
                || m.to() != to
                || self.board.role_at(m.from()) != Some(role)
                || from_file.is_some_and(|f| f != m.from().file())
                || from_rank.is_some_and(|r| r != m.from().rank())
            {
                continue;
            }
            let promotion_matches = match m.kind() {
                MoveKind::Promotion(r) => promotion == Some(r) || (promotion.is_none() && self.variant.is_shatranj()),
                _ => promotion.is_none(),
            };
            if !promotion_matches {
                continue;
            }
            if found.is_some() {
                return Err(SanError::Ambiguous { san: text.to_owned(), fen: self.fen() });
            }
            found = Some(m);
        }
        found.ok_or_else(illegal)
    }
}
