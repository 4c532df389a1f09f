//! A game: a start position and the moves played, with repetition detection.

use crate::outcome::{DrawReason, Outcome};
use crate::{IllegalMoveError, Move, Position, UciMoveError};

/// A game from a start position, remembering every position's key for the repetition rule.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// Keys of the start position and of every position after it.
    keys: Vec<u64>,
}

impl Game {
    /// A game starting at `start`.
    #[must_use]
    pub fn new(start: Position) -> Game {
        Game { start, position: start, moves: Vec::new(), keys: vec![start.key()] }
    }

    /// The start position.
    #[must_use]
    pub const fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    #[must_use]
    pub const fn position(&self) -> &Position {
        &self.position
    }

    /// The moves played so far.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Plays a legal move.
    ///
    /// # Errors
    /// [`IllegalMoveError`] if the move is not legal; the game is unchanged.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMoveError> {
        self.position = self.position.play(m)?;
        self.moves.push(m);
        self.keys.push(self.position.key());
        Ok(())
    }

    /// Plays a move given in UCI notation.
    ///
    /// # Errors
    /// [`UciMoveError`] if the text is malformed or the move illegal; the game is unchanged.
    pub fn play_uci(&mut self, text: &str) -> Result<Move, UciMoveError> {
        let m = self.position.parse_uci(text)?;
        self.play(m).expect("parse_uci returns legal moves");
        Ok(m)
    }

    /// The zobrist keys of the start position and of every position after it, oldest first
    /// (what a search needs to recognise repetitions of positions before its root).
    #[must_use]
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// How often the current position has occurred, counting this occurrence. Only positions
    /// since the last capture or pawn move can repeat, so the search stops there.
    #[must_use]
    pub fn repetitions(&self) -> usize {
        let current = self.position.key();
        let reversible = (self.position.halfmoves() as usize).min(self.keys.len() - 1);
        self.keys[self.keys.len() - 1 - reversible..].iter().rev().step_by(2).filter(|&&k| k == current).count()
    }

    /// The outcome: anything [`Position::outcome`] decides, then threefold repetition.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        self.position
            .outcome()
            .or_else(|| (self.repetitions() >= 3).then_some(Outcome::Draw(DrawReason::ThreefoldRepetition)))
    }
}
