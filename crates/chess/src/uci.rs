//! UCI move notation (`e2e4`, `e7e8q`, `e1g1` or `e1h1`).

use std::fmt;
use std::str::FromStr;

use crate::position::CastlingSide;
use crate::{CastlingMode, Move, MoveKind, Position, Role, Square};

/// A move as written in UCI, not yet checked against a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UciMove {
    /// From, to and an optional promotion letter.
    Normal {
        /// Origin square.
        from: Square,
        /// Target square.
        to: Square,
        /// Promotion role, if a fifth letter was given.
        promotion: Option<Role>,
    },
    /// The null move `0000`.
    Null,
}

/// The text is not a UCI move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a UCI move: expected from and to squares and an optional promotion letter, like e2e4 or e7e8q")]
pub struct ParseUciMoveError(pub String);

/// A UCI move that cannot be played in a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UciMoveError {
    /// The text is not a UCI move.
    #[error(transparent)]
    Syntax(#[from] ParseUciMoveError),
    /// The move is well formed but not legal here.
    #[error("illegal move {uci} in {fen}")]
    Illegal {
        /// The move as given.
        uci: String,
        /// The position, as FEN.
        fen: String,
    },
}

impl FromStr for UciMove {
    type Err = ParseUciMoveError;

    fn from_str(s: &str) -> Result<UciMove, ParseUciMoveError> {
        let error = || ParseUciMoveError(s.chars().take(16).collect());
        if s == "0000" {
            return Ok(UciMove::Null);
        }
        if !s.is_ascii() || !(4..=5).contains(&s.len()) {
            return Err(error());
        }
        let from = s[0..2].parse().map_err(|_| error())?;
        let to = s[2..4].parse().map_err(|_| error())?;
        let promotion = match s[4..].chars().next() {
            None => None,
            // `f` is the ferz letter some Shatranj programs use.
            Some('f') => Some(Role::Queen),
            Some(c) => match Role::from_char(c) {
                Some(role @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen)) => Some(role),
                _ => return Err(error()),
            },
        };
        if from == to {
            return Err(error());
        }
        Ok(UciMove::Normal { from, to, promotion })
    }
}

impl fmt::Display for UciMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            UciMove::Null => f.write_str("0000"),
            UciMove::Normal { from, to, promotion } => {
                write!(f, "{from}{to}")?;
                if let Some(role) = promotion {
                    write!(f, "{}", role.char())?;
                }
                Ok(())
            }
        }
    }
}

impl UciMove {
    /// The UCI form of a move: castling as the king's two-square step (`e1g1`) in standard mode
    /// and as king-takes-rook in Chess960 mode, or whenever the king does not move two squares.
    #[must_use]
    pub fn from_move(m: Move, mode: CastlingMode) -> UciMove {
        let to = match (m.kind(), mode) {
            (MoveKind::Castle, CastlingMode::Standard) => {
                let side =
                    if m.to().file() > m.from().file() { CastlingSide::KingSide } else { CastlingSide::QueenSide };
                let color =
                    if m.from().rank() == crate::Rank::FIRST { crate::Color::White } else { crate::Color::Black };
                let king_to = side.destinations(color).0;
                // In other arrays the king may stand one square from its destination (f1g1 would
                // read as a plain king step) or on it (g1g1 is no move), and `to_move` reads only
                // the two-square step as castling: king takes rook is the unambiguous form.
                if m.from().file().index().abs_diff(king_to.file().index()) == 2 { king_to } else { m.to() }
            }
            _ => m.to(),
        };
        UciMove::Normal { from: m.from(), to, promotion: m.promotion_role() }
    }

    /// The legal move this denotes in `pos`, if any. Castling is accepted as king-takes-rook in
    /// every mode and, in standard mode, also as the king's two-square step (`e1g1`).
    #[must_use]
    pub fn to_move(self, pos: &Position) -> Option<Move> {
        let UciMove::Normal { from, to, promotion } = self else { return None };
        let standard = pos.variant().castling_mode() == CastlingMode::Standard;
        pos.legal_moves().into_iter().find(|&m| {
            if m.from() != from {
                return false;
            }
            match m.kind() {
                MoveKind::Castle => {
                    let king_to = UciMove::from_move(m, CastlingMode::Standard);
                    let two_step = matches!(king_to, UciMove::Normal { to: k, .. } if k == to)
                        && from.file().index().abs_diff(to.file().index()) == 2;
                    promotion.is_none() && (m.to() == to || (standard && two_step))
                }
                // Shatranj has one promotion, so its letter may be left out.
                MoveKind::Promotion(role) => {
                    m.to() == to && (promotion == Some(role) || (promotion.is_none() && pos.variant().is_shatranj()))
                }
                MoveKind::Normal | MoveKind::EnPassant => m.to() == to && promotion.is_none(),
            }
        })
    }
}

impl Position {
    /// Writes `m` in UCI notation for this position's variant.
    #[must_use]
    pub fn uci(&self, m: Move) -> String {
        UciMove::from_move(m, self.variant.castling_mode()).to_string()
    }

    /// Reads a UCI move and checks that it is legal here.
    ///
    /// # Errors
    /// [`UciMoveError::Syntax`] for malformed text, [`UciMoveError::Illegal`] for a move that
    /// cannot be played (including the null move).
    pub fn parse_uci(&self, text: &str) -> Result<Move, UciMoveError> {
        let uci: UciMove = text.parse()?;
        uci.to_move(self).ok_or_else(|| UciMoveError::Illegal { uci: text.to_owned(), fen: self.fen() })
    }
}
