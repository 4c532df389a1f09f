//! The incoming event stream (`GET /api/stream/event`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::challenge::Challenge;
use super::common::{Color, Compat, StatusInfo, Variant};

/// One message of the event stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A game started (also replayed for every ongoing game when the stream opens).
    GameStart(GameEventInfo),
    /// A game finished.
    GameFinish(GameEventInfo),
    /// A challenge to us (replayed on open), or one we sent, or a rematch offer.
    Challenge {
        /// The challenge.
        challenge: Challenge,
        /// Whether the Bot and Board APIs can play it.
        compat: Option<Compat>,
    },
    /// A challenge was cancelled by its challenger.
    ChallengeCanceled(Challenge),
    /// Our challenge was declined (`decline_reason_key` says why).
    ChallengeDeclined(Challenge),
    /// A message type this client does not know, kept whole.
    Unknown {
        /// The `type` field (empty if there was none).
        kind: String,
        /// The whole message.
        raw: Value,
    },
}

/// The `game` object of `gameStart` and `gameFinish`, and an entry of `/api/account/playing`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GameEventInfo {
    /// Game id + our player id (12 characters).
    pub full_id: Option<String>,
    /// Game id (8 characters).
    pub game_id: Option<String>,
    /// The game id again, kept by Lichess for old clients; the only id PyChess and minimal
    /// servers send. Use [`GameEventInfo::id`].
    #[serde(rename = "id")]
    pub legacy_id: Option<String>,
    /// Current position.
    pub fen: Option<String>,
    /// Our colour.
    pub color: Option<Color>,
    /// Last move in UCI, `""` if none.
    pub last_move: Option<String>,
    /// Where the game comes from (`friend`, `ai`, `arena`, …).
    pub source: Option<String>,
    /// Game status.
    pub status: Option<StatusInfo>,
    /// Variant.
    pub variant: Option<Variant>,
    /// Speed category.
    pub speed: Option<super::common::Speed>,
    /// Rating category name.
    pub perf: Option<String>,
    /// Rated or casual.
    pub rated: Option<bool>,
    /// Whether we have moved.
    pub has_moved: Option<bool>,
    /// The opponent.
    pub opponent: Option<Opponent>,
    /// Whether it is our turn.
    pub is_my_turn: Option<bool>,
    /// Our remaining time in seconds.
    pub seconds_left: Option<i64>,
    /// Winner (`gameFinish` only, if any).
    pub winner: Option<Color>,
    /// Our rating.
    pub rating: Option<i64>,
    /// Our rating change (`gameFinish` only).
    pub rating_diff: Option<i64>,
    /// Which APIs can play the game.
    pub compat: Option<Compat>,
    /// Tournament id, for arena games.
    pub tournament_id: Option<String>,
    /// PyChess: whether the game is Chess960 (sent there as the string `"True"`/`"False"`).
    pub chess960: Option<bool>,
}

impl GameEventInfo {
    /// The game id, from whichever of `gameId`, `id` and `fullId` the server sent.
    pub fn id(&self) -> &str {
        self.game_id
            .as_deref()
            .or(self.legacy_id.as_deref())
            .or_else(|| self.full_id.as_deref().map(|f| f.get(..8).unwrap_or(f)))
            .unwrap_or("")
    }
}

/// The opponent in a [`GameEventInfo`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Opponent {
    /// User id; `None` for the Lichess AI.
    pub id: Option<String>,
    /// Display name (`Stockfish level 1` for the AI).
    pub username: String,
    /// Rating.
    pub rating: Option<i64>,
    /// Rating change (`gameFinish`).
    pub rating_diff: Option<i64>,
    /// AI level 1–8, for games against the Lichess AI.
    pub ai: Option<i64>,
}

impl Event {
    /// Decodes one JSON message; `Ok(None)` for a JSON keep-alive (`{"type":"ping"}`).
    pub(crate) fn from_value(value: Value) -> Result<Option<Event>, serde_json::Error> {
        use serde::de::Error as _;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
        let field = |name: &str| {
            value.get(name).cloned().ok_or_else(|| serde_json::Error::custom(format!("{kind}: missing field `{name}`")))
        };
        Ok(Some(match kind.as_str() {
            "ping" => return Ok(None),
            "gameStart" => Event::GameStart(serde_json::from_value(field("game")?)?),
            "gameFinish" => Event::GameFinish(serde_json::from_value(field("game")?)?),
            "challenge" => Event::Challenge {
                challenge: serde_json::from_value(field("challenge")?)?,
                // A malformed compat should not cost us the challenge.
                compat: value.get("compat").and_then(|c| serde_json::from_value(c.clone()).ok()),
            },
            "challengeCanceled" => Event::ChallengeCanceled(serde_json::from_value(field("challenge")?)?),
            "challengeDeclined" => Event::ChallengeDeclined(serde_json::from_value(field("challenge")?)?),
            _ => Event::Unknown { kind, raw: value },
        }))
    }
}
