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
use crate::models::{Color, GameRecord, GameStatus};

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
                    | Endpoint::GamePage
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
                // `""` is its standard start.
                if value.get("initialFen").and_then(Value::as_str) == Some("") {
                    value["initialFen"] = Value::from("startpos");
                }
                if let Some(state) = value.get_mut("state") {
                    clocks_to_whole_millis(state);
                }
            }
            Some("gameState") => clocks_to_whole_millis(value),
            _ => {}
        }
    }
}

/// PyChess sends `winc`/`binc` in seconds, and its times as decimals for bases under a minute
/// (`"wtime": 30000.0`); Lichess (and our models) use whole milliseconds.
fn clocks_to_whole_millis(state: &mut Value) {
    for (key, millis_per_unit) in [("winc", 1000.0), ("binc", 1000.0), ("wtime", 1.0), ("btime", 1.0)] {
        if let Some(field) = state.get_mut(key)
            && let Some(number) = field.as_f64()
        {
            *field = Value::from((number * millis_per_unit).round() as i64);
        }
    }
}

/// Reads PyChess's record of a game from its page (`GET /{gameId}`): the page's `data-board`
/// attribute holds the board message its browser client starts from, with the status code,
/// the result and every move (`steps`, the first being the start). The error says what is
/// missing.
pub(crate) fn pychess_game_record(page: &str) -> Result<GameRecord, String> {
    const ATTRIBUTE: &str = "data-board=\"";
    let start = page.find(ATTRIBUTE).ok_or("the page has no data-board attribute")? + ATTRIBUTE.len();
    let len = page[start..].find('"').ok_or("the data-board attribute is not closed")?;
    let board: Value = serde_json::from_str(&html_unescape(&page[start..start + len]))
        .map_err(|e| format!("the data-board attribute is not JSON: {e}"))?;
    let code = board.get("status").and_then(Value::as_i64).ok_or("the board has no status")?;
    let result = board.get("result").and_then(Value::as_str).ok_or("the board has no result")?;
    let steps = board.get("steps").and_then(Value::as_array).ok_or("the board has no steps")?;
    let moves: Vec<&str> = steps.iter().filter_map(|step| step.get("move").and_then(Value::as_str)).collect();
    let winner = match result {
        "1-0" => Some(Color::White),
        "0-1" => Some(Color::Black),
        _ => None,
    };
    Ok(GameRecord { status: pychess_status(code), winner, moves: moves.join(" ") })
}

/// PyChess's status codes (`GameStatus` in its `const.py`) in Lichess's names.
fn pychess_status(code: i64) -> GameStatus {
    match code {
        -2 => GameStatus::Created,
        -1 => GameStatus::Started,
        0 => GameStatus::Aborted,
        1 => GameStatus::Mate,
        2 => GameStatus::Resign,
        3 => GameStatus::Stalemate,
        // ABANDON: a player left, as Lichess's `timeout`.
        4 | 7 => GameStatus::Timeout,
        // CLAIM: a claimed draw (repetition, the move-count rules).
        5 | 13 => GameStatus::Draw,
        6 => GameStatus::OutOfTime,
        8 => GameStatus::Cheat,
        12 => GameStatus::VariantEnd,
        // BYEGAME, INVALIDMOVE, UNKNOWNFINISH and any code added later.
        _ => GameStatus::UnknownFinish,
    }
}

/// Undoes the HTML escaping of an attribute value (Jinja's: `&amp;`, `&lt;`, `&gt;`, `&#34;`,
/// `&#39;`, and the named and hex spellings of the quotes).
fn html_unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = rest.find(';').map(|end| (&rest[1..end], end + 1));
        let decoded = entity.and_then(|(name, len)| {
            let ch = match name {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                _ => {
                    let number = name.strip_prefix('#')?;
                    let code = match number.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => number.parse().ok()?,
                    };
                    char::from_u32(code)?
                }
            };
            Some((ch, len))
        });
        match decoded {
            Some((ch, len)) => {
                out.push(ch);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
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

    #[test]
    fn pychess_game_page_gives_status_result_and_every_move() {
        let page = r#"<div id="pychess-variants" data-gameid="abcd1234" data-board="{&#34;type&#34;: &#34;board&#34;, &#34;status&#34;: 1, &#34;result&#34;: &#34;0-1&#34;, &#34;steps&#34;: [{&#34;fen&#34;: &#34;x&#34;, &#34;san&#34;: null}, {&#34;move&#34;: &#34;e2e3&#34;}, {&#34;move&#34;: &#34;d7d6&#34;, &#34;san&#34;: &#34;a&amp;b&#34;}]}" data-result="0-1">"#;
        let record = pychess_game_record(page).unwrap();
        assert_eq!(
            record,
            GameRecord { status: GameStatus::Mate, winner: Some(Color::Black), moves: "e2e3 d7d6".into() }
        );
        let aborted = page.replace("&#34;status&#34;: 1", "&#34;status&#34;: 0").replace("0-1", "*");
        let record = pychess_game_record(&aborted).unwrap();
        assert_eq!((record.status, record.winner), (GameStatus::Aborted, None));
        let err = pychess_game_record("<html></html>").unwrap_err();
        assert!(err.contains("data-board"), "{err}");
        assert_eq!(html_unescape("a &amp;&lt;&#x27;&bogus; &"), "a &<'&bogus; &");
    }

    #[test]
    fn pychess_clocks_become_whole_milliseconds_and_its_empty_fen_the_start() {
        let mut full = serde_json::json!({
            "type": "gameFull", "initialFen": "", "createdAt": 2,
            "state": { "wtime": 30000.0, "btime": 29999.6, "winc": 2, "binc": 0.5 },
        });
        Platform::PyChess.normalize_game(&mut full);
        assert_eq!(full["initialFen"], "startpos");
        assert_eq!(full["createdAt"], 2000);
        let state = &full["state"];
        assert_eq!(
            (&state["wtime"], &state["btime"], &state["winc"], &state["binc"]),
            (&30000.into(), &30000.into(), &2000.into(), &500.into())
        );
        let mut lichess = serde_json::json!({ "type": "gameState", "wtime": 30000, "winc": 2 });
        Platform::Lichess.normalize_game(&mut lichess);
        assert_eq!(lichess["winc"], 2);
    }
}
