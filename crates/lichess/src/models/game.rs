//! The bot game stream (`GET /api/bot/game/stream/{gameId}`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::common::{Color, GameStatus, Perf, Speed, Variant};

/// One message of a game stream.
#[derive(Debug, Clone, PartialEq)]
pub enum GameEvent {
    /// Full game data; always the first message. Everything but `state` is immutable.
    GameFull(Box<GameFull>),
    /// The state after a move, a draw or takeback offer, a takeback, or the end of the game.
    GameState(GameState),
    /// A chat message (from a player, a spectator, or the system user `lichess`).
    ChatLine(ChatLine),
    /// The opponent left (or came back).
    OpponentGone(OpponentGone),
    /// PyChess only: the game is over (its `gameState` always says `started`).
    GameEnd {
        /// The game id, if sent.
        id: Option<String>,
    },
    /// A message type this client does not know, kept whole.
    Unknown {
        /// The `type` field (empty if there was none).
        kind: String,
        /// The whole message.
        raw: Value,
    },
}

/// `gameFull`: the immutable facts of a game plus its current state.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GameFull {
    /// Game id.
    pub id: String,
    /// Variant (PyChess sends only its name).
    pub variant: Variant,
    /// Clock; absent for correspondence, unlimited, and on PyChess.
    pub clock: Option<Clock>,
    /// Speed category.
    pub speed: Option<Speed>,
    /// Rating category.
    pub perf: Option<Perf>,
    /// Rated or casual.
    pub rated: bool,
    /// Creation time, ms since the epoch (PyChess's seconds are converted).
    pub created_at: Option<i64>,
    /// White player.
    pub white: Player,
    /// Black player.
    pub black: Player,
    /// Starting position: a FEN, or `startpos` for the standard start.
    pub initial_fen: String,
    /// Current state.
    pub state: GameState,
    /// Days per move for correspondence games.
    pub days_per_turn: Option<i64>,
    /// Tournament id, for arena games.
    pub tournament_id: Option<String>,
}

/// A player of a game stream.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Player {
    /// User id (absent for the Lichess AI and on PyChess).
    pub id: Option<String>,
    /// Display name.
    pub name: Option<String>,
    /// Title (`BOT`, `GM`, …).
    pub title: Option<String>,
    /// Rating.
    pub rating: Option<i64>,
    /// Whether the rating is provisional.
    pub provisional: Option<bool>,
    /// Lichess AI level, when the player is the AI.
    pub ai_level: Option<i64>,
}

impl Player {
    /// Whether this player is the account with id `user_id` (ids compare case-insensitively;
    /// where the platform sends no id, the name is used).
    pub fn is(&self, user_id: &str) -> bool {
        self.id.as_deref().or(self.name.as_deref()).is_some_and(|id| id.eq_ignore_ascii_case(user_id))
    }
}

/// The clock of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Clock {
    /// Initial time in ms.
    pub initial: i64,
    /// Increment in ms.
    pub increment: i64,
}

/// `gameState`: the mutable part of a game.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct GameState {
    /// Every move since the start, UCI, space-separated. A takeback makes it shorter: rebuild
    /// the position from the start, never apply a difference.
    pub moves: String,
    /// White's remaining time in ms (`2147483647` without a clock).
    pub wtime: i64,
    /// Black's remaining time in ms.
    pub btime: i64,
    /// White's increment in ms (PyChess's seconds are converted).
    pub winc: i64,
    /// Black's increment in ms.
    pub binc: i64,
    /// Game status.
    pub status: GameStatus,
    /// Winner, when there is one.
    pub winner: Option<Color>,
    /// White offers a draw.
    pub wdraw: bool,
    /// Black offers a draw.
    pub bdraw: bool,
    /// White proposes a takeback.
    pub wtakeback: bool,
    /// Black proposes a takeback.
    pub btakeback: bool,
    /// First-move timer, while the game can still be aborted.
    pub expiration: Option<Expiration>,
    /// Id of the rematch game, once one was accepted.
    pub rematch: Option<String>,
}

impl GameState {
    /// The moves as separate UCI strings.
    pub fn move_list(&self) -> impl Iterator<Item = &str> {
        self.moves.split_whitespace()
    }

    /// How many half-moves have been played.
    pub fn ply(&self) -> usize {
        self.move_list().count()
    }

    /// Whether `color` offers a draw.
    pub fn offers_draw(&self, color: &Color) -> bool {
        match color {
            Color::White => self.wdraw,
            Color::Black => self.bdraw,
            Color::Other(_) => false,
        }
    }

    /// Whether `color` proposes a takeback.
    pub fn proposes_takeback(&self, color: &Color) -> bool {
        match color {
            Color::White => self.wtakeback,
            Color::Black => self.btakeback,
            Color::Other(_) => false,
        }
    }
}

/// The first-move timer of a `gameState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Expiration {
    /// How long the game has been idle, ms.
    pub idle_millis: i64,
    /// How long the side to move has to make its first move, ms.
    pub millis_to_move: i64,
}

string_enum! {
    /// A chat room of a game.
    ChatRoom {
        /// `player`: the players' chat
        Player = "player",
        /// `spectator`: the spectators' chat
        Spectator = "spectator",
    }
}

/// `chatLine`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    /// Author (`lichess` for system messages).
    #[serde(default)]
    pub username: String,
    /// The message.
    #[serde(default)]
    pub text: String,
    /// The room.
    pub room: ChatRoom,
}

/// `opponentGone`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct OpponentGone {
    /// Whether the opponent is gone (false: they came back).
    pub gone: bool,
    /// Seconds until we may claim the win (or a draw); 0 means now.
    pub claim_win_in_seconds: Option<i64>,
}

/// A finished game as the server keeps it: PyChess's record, for the end its bare `gameEnd`
/// does not tell (read by [`crate::Client::pychess_game_record`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRecord {
    /// The status, in Lichess's names (`started` while the game goes on).
    pub status: GameStatus,
    /// The winner, if any.
    pub winner: Option<Color>,
    /// Every move, UCI, space-separated, as a `gameState` would list them.
    pub moves: String,
}

impl GameEvent {
    /// Decodes one JSON message; `Ok(None)` for a JSON keep-alive (`{"type":"ping"}`).
    pub(crate) fn from_value(value: Value) -> Result<Option<GameEvent>, serde_json::Error> {
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
        Ok(Some(match kind.as_str() {
            "ping" => return Ok(None),
            "gameFull" => GameEvent::GameFull(Box::new(serde_json::from_value(value)?)),
            "gameState" => GameEvent::GameState(serde_json::from_value(value)?),
            "chatLine" => GameEvent::ChatLine(serde_json::from_value(value)?),
            "opponentGone" => GameEvent::OpponentGone(serde_json::from_value(value)?),
            "gameEnd" => GameEvent::GameEnd {
                id: value.pointer("/game/id").or_else(|| value.get("id")).and_then(Value::as_str).map(str::to_owned),
            },
            _ => GameEvent::Unknown { kind, raw: value },
        }))
    }
}
