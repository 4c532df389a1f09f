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

    /// The result this ending gives.
    #[must_use]
    pub const fn game_result(self) -> GameResult {
        GameResult::from_winner(self.winner())
    }

    /// The PGN result: `1-0`, `0-1` or `1/2-1/2`.
    #[must_use]
    pub const fn result(self) -> &'static str {
        self.game_result().pgn()
    }
}

/// The result of a finished game, however it ended (on the board, by adjudication, on time, by
/// resignation). An unfinished game has no result: `Option<GameResult>`, written `*` in PGN
/// (see [`GameResult::pgn_of`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// This side won.
    Win(Color),
    /// Drawn.
    Draw,
}

impl GameResult {
    /// `Win(winner)`, or `Draw` when nobody won.
    #[must_use]
    pub const fn from_winner(winner: Option<Color>) -> GameResult {
        match winner {
            Some(color) => GameResult::Win(color),
            None => GameResult::Draw,
        }
    }

    /// The winner, if any.
    #[must_use]
    pub const fn winner(self) -> Option<Color> {
        match self {
            GameResult::Win(color) => Some(color),
            GameResult::Draw => None,
        }
    }

    /// The PGN result token: `1-0`, `0-1` or `1/2-1/2`.
    #[must_use]
    pub const fn pgn(self) -> &'static str {
        match self {
            GameResult::Win(Color::White) => "1-0",
            GameResult::Win(Color::Black) => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// The PGN result token of a game that may be unfinished (`*`).
    #[must_use]
    pub const fn pgn_of(result: Option<GameResult>) -> &'static str {
        match result {
            Some(result) => result.pgn(),
            None => "*",
        }
    }

    /// Reads a PGN result token: `Some(Some(result))` for a finished game, `Some(None)` for `*`,
    /// `None` for anything else.
    #[must_use]
    pub fn from_pgn(token: &str) -> Option<Option<GameResult>> {
        match token {
            "1-0" => Some(Some(GameResult::Win(Color::White))),
            "0-1" => Some(Some(GameResult::Win(Color::Black))),
            "1/2-1/2" => Some(Some(GameResult::Draw)),
            "*" => Some(None),
            _ => None,
        }
    }

    /// White's score: 1, 0.5 or 0.
    #[must_use]
    pub const fn white_score(self) -> f32 {
        match self {
            GameResult::Win(Color::White) => 1.0,
            GameResult::Draw => 0.5,
            GameResult::Win(Color::Black) => 0.0,
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
