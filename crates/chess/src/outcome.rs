//! How games end.

use std::fmt;

use crate::{Bitboard, Color, Position, Role};

/// The end of a game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// One side won.
    Decisive {
        /// The winner.
        winner: Color,
        /// Why.
        reason: WinReason,
    },
    /// Nobody won.
    Draw(DrawReason),
}

/// Why a game was won.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum WinReason {
    /// The loser is in check with no legal move.
    Checkmate,
    /// Shatranj: the loser is not in check but has no legal move.
    Stalemate,
    /// Shatranj: the loser's last piece besides the king is gone and it cannot bare the
    /// winner's king in return.
    BareKing,
}

/// Why a game was drawn.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    /// Chess: the side to move is not in check and has no legal move.
    Stalemate,
    /// Chess: neither side can ever checkmate.
    InsufficientMaterial,
    /// Shatranj: only the two kings are left (after a counter-baring capture, for example).
    BareKings,
    /// 50 moves (chess) or 70 moves (Shatranj) by each side without a capture or pawn move.
    MoveRule,
    /// The same position occurred three times with the same side to move and the same rights.
    ThreefoldRepetition,
}

impl Outcome {
    /// The winner, if any.
    #[must_use]
    pub const fn winner(self) -> Option<Color> {
        match self {
            Outcome::Decisive { winner, .. } => Some(winner),
            Outcome::Draw(_) => None,
        }
    }

    /// The PGN result: `1-0`, `0-1` or `1/2-1/2`.
    #[must_use]
    pub const fn result(self) -> &'static str {
        match self.winner() {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Decisive { winner, reason } => {
                let how = match reason {
                    WinReason::Checkmate => "checkmate",
                    WinReason::Stalemate => "stalemate",
                    WinReason::BareKing => "bare king",
                };
                write!(f, "{} ({winner} wins by {how})", self.result())
            }
            Outcome::Draw(reason) => {
                let why = match reason {
                    DrawReason::Stalemate => "stalemate",
                    DrawReason::InsufficientMaterial => "insufficient material",
                    DrawReason::BareKings => "bare kings",
                    DrawReason::MoveRule => "move rule",
                    DrawReason::ThreefoldRepetition => "threefold repetition",
                };
                write!(f, "1/2-1/2 (draw by {why})")
            }
        }
    }
}

impl Position {
    /// How the game stands decided by this position alone: mate, stalemate, bare king,
    /// insufficient material or the move rule. Repetition needs the game's history; see
    /// [`crate::Game::outcome`]. A mate on the move that completes the move rule is a mate.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        if let Some(winner) = self.variant.is_shatranj().then(|| self.shatranj_bare_king_winner()).flatten() {
            return Some(Outcome::Decisive { winner, reason: WinReason::BareKing });
        }
        if self.count_legal_moves() == 0 {
            return Some(match (self.is_check(), self.variant.is_shatranj()) {
                (true, _) => Outcome::Decisive { winner: !self.turn, reason: WinReason::Checkmate },
                (false, true) => Outcome::Decisive { winner: !self.turn, reason: WinReason::Stalemate },
                (false, false) => Outcome::Draw(DrawReason::Stalemate),
            });
        }
        if self.variant.is_shatranj() {
            if self.board.occupied().count() == 2 {
                return Some(Outcome::Draw(DrawReason::BareKings));
            }
        } else if self.is_insufficient_material() {
            return Some(Outcome::Draw(DrawReason::InsufficientMaterial));
        }
        if self.halfmoves >= self.variant.move_rule_plies() {
            return Some(Outcome::Draw(DrawReason::MoveRule));
        }
        None
    }

    /// Chess: whether no sequence of legal moves can end in checkmate (kings only, a single
    /// knight or bishop, or only bishops all on squares of one colour).
    #[must_use]
    pub fn is_insufficient_material(&self) -> bool {
        let b = &self.board;
        if (b.by_role(Role::Pawn) | b.by_role(Role::Rook) | b.by_role(Role::Queen)).is_nonempty() {
            return false;
        }
        let minors = b.by_role(Role::Knight) | b.by_role(Role::Bishop);
        if minors.count() <= 1 {
            return true;
        }
        let bishops = b.by_role(Role::Bishop);
        b.by_role(Role::Knight).is_empty()
            && ((bishops & Bitboard::LIGHT).is_empty() || (bishops & Bitboard::DARK).is_empty())
    }
}
