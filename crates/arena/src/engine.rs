//! Players: what the arbiter talks to. A UCI engine process (driven by `ferz-uci`) is one; the
//! arbiter's tests script others.

use std::time::Duration;

use ferz_chess::Game;
use ferz_uci::{Go, Reply, UciEngine, UciError};

/// What the arbiter asks of the side to move.
#[derive(Copy, Clone, Debug)]
pub struct MoveRequest<'a> {
    /// The game so far (start position and every move, for the repetition rule).
    pub game: &'a Game,
    /// The search limit.
    pub go: Go,
    /// How long to wait for `bestmove` before giving up.
    pub timeout: Duration,
}

/// Why a player did not answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerError {
    /// The process is gone or its pipes are closed.
    #[error("{0}")]
    Disconnected(String),
    /// No answer within the allowed time.
    #[error("no answer within {} ms", .0.as_millis())]
    Timeout(Duration),
}

impl From<UciError> for PlayerError {
    fn from(error: UciError) -> PlayerError {
        match error {
            UciError::Timeout(after) => PlayerError::Timeout(after),
            other => PlayerError::Disconnected(other.to_string()),
        }
    }
}

/// Something that plays moves: a UCI engine process, or a scripted player in tests.
pub trait Player {
    /// The name for the PGN.
    fn name(&self) -> &str;
    /// Prepares for a new game (`ucinewgame`).
    ///
    /// # Errors
    /// When the player does not answer.
    fn new_game(&mut self) -> Result<(), PlayerError>;
    /// Asks for a move.
    ///
    /// # Errors
    /// When the player does not answer in time or is gone.
    fn play(&mut self, request: &MoveRequest<'_>) -> Result<Reply, PlayerError>;
}

impl Player for UciEngine {
    fn name(&self) -> &str {
        self.id_name()
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        Ok(UciEngine::new_game(self)?)
    }

    fn play(&mut self, request: &MoveRequest<'_>) -> Result<Reply, PlayerError> {
        Ok(self.search(request.game, &request.go, request.timeout)?)
    }
}
