//! Players: what the arbiter talks to. A UCI engine process (driven by `ferz-uci`) is one; the
//! arbiter's tests script others.

use std::time::Duration;

use ferz_chess::Game;
use ferz_uci::{Go, Reply, STOP_GRACE, UciEngine, UciError};

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
    /// Starts thinking on the opponent's time about `game`, which ends with the reply the
    /// player expects, under `go` (`go ponder`). `false` when the player does not ponder.
    ///
    /// # Errors
    /// When the player is gone.
    fn ponder(&mut self, game: &Game, go: &Go) -> Result<bool, PlayerError> {
        let _ = (game, go);
        Ok(false)
    }
    /// The opponent played the expected move: the ponder search becomes the search for the
    /// move (`ponderhit`), answered within `timeout` from now; the reply's time counts from now.
    ///
    /// # Errors
    /// When the player does not answer in time or is gone.
    fn ponder_hit(&mut self, timeout: Duration) -> Result<Reply, PlayerError> {
        Err(PlayerError::Timeout(timeout))
    }
    /// The opponent played another move (or the game ended): the ponder search is stopped and
    /// its answer dropped.
    ///
    /// # Errors
    /// When the player does not answer `stop` or is gone.
    fn ponder_miss(&mut self) -> Result<(), PlayerError> {
        Ok(())
    }
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

    fn ponder(&mut self, game: &Game, go: &Go) -> Result<bool, PlayerError> {
        self.go(game, go, true)?;
        Ok(true)
    }

    fn ponder_hit(&mut self, timeout: Duration) -> Result<Reply, PlayerError> {
        self.ponderhit()?;
        match self.wait_bestmove(Some(std::time::Instant::now() + timeout), &mut |_| {}) {
            Err(UciError::Timeout(_)) => {
                // As after an ordinary search: an engine that does not answer `stop` either is
                // broken and restarted before its next game.
                let _ = self.stop(STOP_GRACE);
                Err(PlayerError::Timeout(timeout))
            }
            other => Ok(other?),
        }
    }

    fn ponder_miss(&mut self) -> Result<(), PlayerError> {
        self.stop(STOP_GRACE)?;
        Ok(())
    }
}
