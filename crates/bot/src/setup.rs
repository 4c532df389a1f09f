//! From the server's description of a game to ferz's rules: the variant, the start position,
//! the moves (in either castling notation), and our moves in the notation the server wants.

use ferz_chess::{Color, Game, Move, Position, UciMoveError, Variant};

/// A game the bot cannot follow.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SetupError {
    /// The variant is not one ferz plays.
    #[error("variant {0:?} is not one ferz plays (standard, chess960, fromPosition, shatranj)")]
    Variant(String),
    /// The start position does not parse.
    #[error("initial position {fen:?}: {reason}")]
    Fen {
        /// The FEN as sent.
        fen: String,
        /// Why it is rejected.
        reason: String,
    },
    /// A move of the game is not legal (or not a move).
    #[error("move {index} ({uci:?}) of the game: {reason}")]
    Move {
        /// 1-based index in the move list.
        index: usize,
        /// The move as sent.
        uci: String,
        /// Why it is rejected.
        reason: String,
    },
}

/// The rules of one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rules {
    /// The variant key as the server names it (`standard`, `chess960`, `fromPosition`, `shatranj`).
    pub key: String,
    /// The start position; its variant is the rule set. `fromPosition` games use the Chess960
    /// rule set: the same rules as chess, castling rights that may name rook files (`AFaf`), and
    /// castling written king-takes-rook, as Lichess writes it in those games.
    pub start: Position,
}

impl Rules {
    /// The rules for a variant key (PyChess's `chess` with its Chess960 flag included) and an
    /// initial position (`startpos` or empty for the variant's start).
    ///
    /// # Errors
    /// An unknown variant or a FEN that does not parse.
    pub(crate) fn new(key: &str, chess960: bool, initial_fen: &str) -> Result<Rules, SetupError> {
        let key = match (key, chess960) {
            ("standard" | "chess", true) => "chess960",
            ("chess", false) => "standard",
            (key, _) => key,
        };
        let variant = match key {
            "standard" => Variant::Chess,
            "chess960" | "fromPosition" => Variant::Chess960,
            "shatranj" => Variant::Shatranj,
            other => return Err(SetupError::Variant(other.to_owned())),
        };
        let fen = initial_fen.trim();
        let start = if fen.is_empty() || fen == "startpos" {
            // A chess960 game always sends its FEN; `startpos` there is the standard array.
            Position::new(if variant == Variant::Chess960 { Variant::Chess } else { variant })
                .with_variant(variant)
                .ok_or_else(|| SetupError::Fen { fen: fen.to_owned(), reason: "no start position".into() })?
        } else {
            Position::from_fen(fen, variant)
                .map_err(|e| SetupError::Fen { fen: fen.to_owned(), reason: e.to_string() })?
        };
        Ok(Rules { key: key.to_owned(), start })
    }

    /// The game after `moves` (space-separated UCI, as in `gameState.moves`).
    ///
    /// # Errors
    /// The first move that is not legal.
    pub(crate) fn replay(&self, moves: &str) -> Result<Game, SetupError> {
        let mut game = Game::new(self.start);
        for (index, uci) in moves.split_whitespace().enumerate() {
            let m = parse_server_move(game.position(), uci).map_err(|e| SetupError::Move {
                index: index + 1,
                uci: uci.to_owned(),
                reason: e.to_string(),
            })?;
            game.play(m).map_err(|e| SetupError::Move {
                index: index + 1,
                uci: uci.to_owned(),
                reason: e.to_string(),
            })?;
        }
        Ok(game)
    }

    /// The colour to move after `moves`.
    #[must_use]
    pub(crate) fn turn_after(&self, plies: usize) -> Color {
        if plies.is_multiple_of(2) { self.start.turn() } else { !self.start.turn() }
    }

    /// How many of the game's first `plies` moves `color` made.
    #[must_use]
    pub(crate) fn moves_by(&self, color: Color, plies: usize) -> usize {
        if self.start.turn() == color { plies.div_ceil(2) } else { plies / 2 }
    }
}

/// Reads a move as a server writes it. Castling comes as king-takes-rook (`e1h1`, what Lichess
/// sends in every variant today) or, in standard chess, as the king's two-square step (`e1g1`,
/// the legacy form); both are accepted in every game where they are unambiguous.
///
/// # Errors
/// Malformed text or an illegal move.
pub(crate) fn parse_server_move(pos: &Position, uci: &str) -> Result<Move, UciMoveError> {
    match pos.parse_uci(uci) {
        Ok(m) => Ok(m),
        Err(err) if pos.variant() == Variant::Chess960 => {
            // fromPosition games run under the Chess960 rule set; a server may still write a
            // castle there as the king's two-square step.
            let as_standard = pos.with_variant(Variant::Chess).ok_or(err.clone())?;
            match as_standard.parse_uci(uci) {
                Ok(m) if m.is_castle() => Ok(m),
                _ => Err(err),
            }
        }
        Err(err) => Err(err),
    }
}

/// Our move in the notation the server expects: `e1g1` in standard games, king-takes-rook
/// (`e1h1`) in Chess960 and fromPosition games.
#[must_use]
pub(crate) fn server_move(pos: &Position, m: Move) -> String {
    pos.uci(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_and_start_positions() {
        let rules = Rules::new("standard", false, "startpos").unwrap();
        assert_eq!(rules.start, Position::new(Variant::Chess));
        let rules = Rules::new("chess", true, "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1").unwrap();
        assert_eq!((rules.key.as_str(), rules.start.variant()), ("chess960", Variant::Chess960));
        let rules = Rules::new("shatranj", false, "").unwrap();
        assert_eq!(rules.start, Position::new(Variant::Shatranj));
        assert!(matches!(Rules::new("atomic", false, "startpos"), Err(SetupError::Variant(_))));
        let err = Rules::new("fromPosition", false, "not a fen").unwrap_err();
        assert!(err.to_string().contains("not a fen"), "{err}");
    }

    #[test]
    fn both_castling_notations_in_and_the_right_one_out() {
        let standard = Rules::new("standard", false, "startpos").unwrap();
        let moves = "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6";
        for castle in ["e1g1", "e1h1"] {
            let game = standard.replay(&format!("{moves} {castle}")).unwrap();
            let last = *game.moves().last().unwrap();
            assert!(last.is_castle());
        }
        let before = standard.replay(moves).unwrap();
        let castle = parse_server_move(before.position(), "e1h1").unwrap();
        assert_eq!(server_move(before.position(), castle), "e1g1");

        // fromPosition with Shredder-letter rights: both notations in, king-takes-rook out.
        let fen = "rbqnk2r/pppppppp/8/8/8/8/PPPPPPPP/RBQNK2R w AHah - 0 1";
        let from = Rules::new("fromPosition", false, fen).unwrap();
        for castle in ["e1h1", "e1g1"] {
            let game = from.replay(castle).unwrap();
            assert!(game.moves()[0].is_castle(), "{castle}");
            assert_eq!(server_move(from.replay("").unwrap().position(), game.moves()[0]), "e1h1");
        }
        let err = from.replay("e1h1 a7a5 e1e2").unwrap_err();
        assert!(matches!(err, SetupError::Move { index: 3, .. }), "{err}");
    }

    #[test]
    fn turns() {
        let rules = Rules::new("fromPosition", false, "4k3/8/8/8/8/8/8/4K2R b K - 0 1").unwrap();
        assert_eq!(rules.turn_after(0), Color::Black);
        assert_eq!(rules.turn_after(1), Color::White);
        // Black moved first: after 3 plies black made 2 moves and white 1.
        assert_eq!((rules.moves_by(Color::Black, 3), rules.moves_by(Color::White, 3)), (2, 1));
        assert_eq!((rules.moves_by(Color::Black, 0), rules.moves_by(Color::White, 4)), (0, 2));
        for plies in 0..7 {
            let counted = (0..plies).filter(|&p| rules.turn_after(p) == Color::White).count();
            assert_eq!(rules.moves_by(Color::White, plies), counted, "{plies}");
        }
    }
}
