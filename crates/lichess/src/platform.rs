//! Which server the client talks to, and what its dialect of the Bot API changes.
//!
//! PyChess implements a subset of the Lichess Bot API with different shapes. Everything that
//! differs is decided here, so the client and the models stay one code path: a header on the
//! event stream, which endpoints exist, and a rewrite of each stream message into the Lichess
//! shape before it is decoded.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::endpoint::Endpoint;

/// The server family. In settings it reads from its name (`"lichess"`, `"pychess"`, any case)
/// through [`std::str::FromStr`], whose error lists the choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum Platform {
    /// lichess.org (or any lila server).
    #[default]
    Lichess,
    /// pychess.org.
    PyChess,
}

impl Platform {
    /// The configuration spelling: `lichess` or `pychess`.
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Lichess => "lichess",
            Platform::PyChess => "pychess",
        }
    }

    /// Whether the platform implements `endpoint`. The client refuses the others locally with
    /// [`crate::Error::Unsupported`] instead of sending a request bound to fail.
    pub fn supports(self, endpoint: Endpoint) -> bool {
        match self {
            Platform::Lichess => true,
            Platform::PyChess => matches!(
                endpoint,
                Endpoint::EventStream
                    | Endpoint::GameStream
                    | Endpoint::Move
                    | Endpoint::Chat
                    | Endpoint::Abort
                    | Endpoint::Resign
                    | Endpoint::AcceptChallenge
                    | Endpoint::DeclineChallenge
                    | Endpoint::Account
                    | Endpoint::Playing
                    | Endpoint::TokenTest
                    | Endpoint::Upgrade
            ),
        }
    }

    /// The `X-PyChess-Bot-Capabilities` value for the event stream, if the platform wants one.
    /// PyChess refuses the stream without it and offers the bot only the variants listed.
    pub(crate) fn capabilities(self, variants: &[String]) -> Option<String> {
        match self {
            Platform::Lichess => None,
            Platform::PyChess => Some(serde_json::json!({ "version": 1, "variants": variants }).to_string()),
        }
    }

    /// Rewrites an event-stream message into the Lichess shape.
    pub(crate) fn normalize_event(self, value: &mut Value) {
        if self != Platform::PyChess {
            return;
        }
        // PyChess's gameStart carries `"chess960": "True"` (Python's str(bool)).
        if let Some(flag) = value.pointer_mut("/game/chess960")
            && let Some(s) = flag.as_str()
        {
            *flag = Value::Bool(s.eq_ignore_ascii_case("true"));
        }
    }

    /// Rewrites a game-stream message into the Lichess shape.
    pub(crate) fn normalize_game(self, value: &mut Value) {
        if self != Platform::PyChess {
            return;
        }
        match value.get("type").and_then(Value::as_str) {
            Some("gameFull") => {
                // `createdAt` is in seconds there.
                if let Some(created) = value.get_mut("createdAt")
                    && let Some(secs) = created.as_i64()
                {
                    *created = Value::from(secs.saturating_mul(1000));
                }
                if let Some(state) = value.get_mut("state") {
                    increments_to_millis(state);
                }
            }
            Some("gameState") => increments_to_millis(value),
            _ => {}
        }
    }
}

/// PyChess sends `winc`/`binc` in seconds; Lichess (and our models) use milliseconds.
fn increments_to_millis(state: &mut Value) {
    for key in ["winc", "binc"] {
        if let Some(inc) = state.get_mut(key)
            && let Some(secs) = inc.as_f64()
        {
            *inc = Value::from((secs * 1000.0).round() as i64);
        }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for Platform {
    type Error = String;

    fn try_from(name: String) -> Result<Platform, String> {
        name.parse()
    }
}

impl From<Platform> for &'static str {
    fn from(platform: Platform) -> &'static str {
        platform.as_str()
    }
}

impl std::str::FromStr for Platform {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "lichess" => Ok(Platform::Lichess),
            "pychess" => Ok(Platform::PyChess),
            other => Err(format!("unknown platform `{other}` (expected `lichess` or `pychess`)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_name_the_platform_in_any_case() {
        let read = |name: &str| serde_json::from_value::<Platform>(serde_json::json!(name));
        assert_eq!(read("pychess").unwrap(), Platform::PyChess);
        assert_eq!(read("Lichess").unwrap(), Platform::Lichess);
        let err = read("chesscom").unwrap_err().to_string();
        assert!(err.contains("unknown platform `chesscom` (expected `lichess` or `pychess`)"), "{err}");
        assert_eq!(serde_json::to_value(Platform::PyChess).unwrap(), serde_json::json!("pychess"));
    }
}
