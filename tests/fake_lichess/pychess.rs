//! PyChess's dialect of the Bot API: its routes, status codes and JSON shapes, written from
//! the API reference (`ref-lichess-api.md` §5.1, pychess-variants' `server/bot_api.py` and
//! `server/game.py`) and checked against the real server (`scripts/pychess-real.sh`): a bare
//! `gameEnd` and never the move that ended the game, the game's page as the record, a silent
//! resignation, decimal clocks under a minute, a broken second stream. The simulation
//! underneath (games, clocks, opponents, rules) is the one the Lichess mode uses.

use std::time::Instant;

use ferz_testserver::{Request, Response};
use serde_json::{Value, json};

use super::endpoints::{self, Answer, Target};

use super::pychess_json::{game_end, game_full, status_code, variant_name};
use super::world::{End, GameSim, Out, Slot, State, Status};
use super::{ChatEntry, Shared};

/// `expires` of every `/api/token/test` answer (a constant in PyChess's `bot_accounts.py`).
const TOKEN_TEST_EXPIRES_MS: i64 = 1_358_509_698_620;
/// The longest capability header PyChess reads.
const MAX_CAPABILITIES: usize = 6 * 1024;
/// Variant names PyChess knows (a part of its `ALL_VARIANTS`; enough to tell a known name from
/// an unknown one).
const PYCHESS_VARIANTS: [&str; 24] = [
    "chess",
    "chess960",
    "crazyhouse",
    "atomic",
    "kingofthehill",
    "3check",
    "placement",
    "duck",
    "makruk",
    "makpong",
    "cambodian",
    "sittuyin",
    "asean",
    "shatranj",
    "shogi",
    "minishogi",
    "xiangqi",
    "janggi",
    "minixiangqi",
    "capablanca",
    "seirawan",
    "grand",
    "shako",
    "orda",
];

/// A plain-text answer, as aiohttp's `HTTPForbidden` and friends send it.
fn text(status: u16, body: &str) -> Response {
    Response::new(status, "text/plain; charset=utf-8", body)
}

/// A game's page (`GET /{gameId}`, open to anyone): like PyChess's, its `data-board` attribute
/// holds the board message (status code, result, every move as `steps`), HTML-escaped.
fn game_page(g: &GameSim) -> Response {
    let result = match (g.status, g.winner) {
        (Status::Started | Status::Aborted, _) => "*",
        (_, Some(ferz_chess::Color::White)) => "1-0",
        (_, Some(ferz_chess::Color::Black)) => "0-1",
        (_, None) => "1/2-1/2",
    };
    let mut steps = vec![json!({ "fen": g.start.fen(), "san": null })];
    steps.extend(g.notation.iter().map(|m| json!({ "move": m })));
    let board = json!({
        "type": "board",
        "gameId": g.id,
        "variant": variant_name(&g.variant),
        "status": status_code(g.status),
        "result": result,
        "steps": steps,
    });
    let escaped =
        board.to_string().replace('&', "&amp;").replace('"', "&#34;").replace('<', "&lt;").replace('>', "&gt;");
    let html = format!(
        "<!DOCTYPE html>\n<html><body><div id=\"pychess-variants\" data-gameid=\"{}\" data-board=\"{escaped}\" data-result=\"{result}\" data-status=\"{}\"></div></body></html>\n",
        g.id,
        status_code(g.status)
    );
    Response::new(200, "text/html; charset=utf-8", &html)
}

/// Reads `X-PyChess-Bot-Capabilities`: the PyChess variant names announced (`standard` is
/// `chess`), or the 400 message.
fn capabilities(header: Option<&str>) -> Result<Vec<String>, &'static str> {
    let header = header.ok_or("Missing X-PyChess-Bot-Capabilities header.")?;
    if header.len() > MAX_CAPABILITIES {
        return Err("X-PyChess-Bot-Capabilities header is too large.");
    }
    let value: Value = serde_json::from_str(header).map_err(|_| "Invalid X-PyChess-Bot-Capabilities header.")?;
    let list = value.get("variants").and_then(Value::as_array).ok_or("Invalid X-PyChess-Bot-Capabilities header.")?;
    let mut names: Vec<String> = Vec::new();
    for name in list.iter().filter_map(Value::as_str) {
        let name = if name == "standard" { "chess" } else { name };
        if PYCHESS_VARIANTS.contains(&name) && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    if names.is_empty() {
        return Err("BOT does not advertise any PyChess-supported variants.");
    }
    Ok(names)
}

/// Answers one request the way PyChess does; `conn` is the connection id (for streams).
pub(crate) fn handle(st: &mut State, shared: &Shared, req: &Request, conn: u64, now: Instant) -> Answer {
    if let Some(full) = st.http.answer(&req.path) {
        return Answer::Whole(full);
    }
    let segs = req.segments();
    let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
    let method = req.method.as_str();
    // A game the server dropped is unknown everywhere.
    let game_in_path = match segs.as_slice() {
        [id] | ["api", "bot", "game", "stream", id] | ["api", "bot", "game", id, ..] => Some(*id),
        _ => None,
    };
    if let Some(gi) = game_in_path.and_then(|id| st.game_index(id))
        && st.games[gi].forgotten_when_over
        && st.games[gi].status != Status::Started
    {
        return Answer::Whole(text(404, "404: Not Found"));
    }
    if let ("POST", ["api", "token", "test"]) = (method, segs.as_slice()) {
        return Answer::Whole(token_test(shared, req));
    }
    // A game's page, open to anyone.
    if let ("GET", [id]) = (method, segs.as_slice()) {
        return Answer::Whole(match st.game_index(id) {
            Some(gi) => game_page(&st.games[gi]),
            None => text(404, "404: Not Found"),
        });
    }
    // Endpoints PyChess does not have: 404, whoever asks.
    let missing = matches!(
        (method, segs.as_slice()),
        ("POST", ["api", "bot", "game", _, "draw" | "takeback", _])
            | ("POST", ["api", "bot", "game", _, "claim-victory" | "claim-draw" | "berserk"])
            | ("GET", ["api", "bot", "game", _, "chat"])
            | ("GET", ["api", "bot", "online"])
            | ("GET", ["api", "challenge"])
            | ("POST", ["api", "challenge", _, "cancel"])
            | ("GET", ["game", "export", _])
    );
    if missing {
        st.missing_calls.push(format!("{method} {}", req.path));
        return Answer::Whole(text(404, "404: Not Found"));
    }
    // Everything else needs a valid bearer token: 403 otherwise, not lila's 401.
    let token = req.header("authorization").and_then(|a| a.strip_prefix("Bearer ")).map(str::trim);
    if token != Some(shared.config.token.as_str()) {
        return Answer::Whole(text(403, "403: Forbidden"));
    }
    let full = match (method, segs.as_slice()) {
        ("GET", ["api", "account"]) => Response::json(200, account(st, shared)),
        ("GET", ["api", "account", "playing"]) => Response::json(200, json!({ "nowPlaying": [] })),
        ("POST", ["api", "bot", "account", "upgrade"]) => {
            st.bot_is_bot = true;
            Response::ok()
        }
        ("POST", ["api", "challenge", _username]) => text(403, "BOT accounts cannot create challenges on PyChess."),
        _ if !st.bot_is_bot => text(403, "403: Forbidden"),
        ("GET", ["api", "stream", "event"]) => match capabilities(req.header("x-pychess-bot-capabilities")) {
            Ok(variants) => {
                open_event_stream(st, shared, conn, now, variants);
                return Answer::Stream(Target::Event);
            }
            Err(message) => text(400, message),
        },
        ("GET", ["api", "bot", "game", "stream", id]) => return open_game_stream(st, shared, id, conn, now),
        ("POST", ["api", "bot", "game", id, "move", uci]) => endpoints::make_move(st, shared, req, id, uci, now),
        ("POST", ["api", "bot", "game", id, command]) => game_command(st, shared, req, id, command, now),
        ("POST", ["api", "challenge", id, "accept"]) => endpoints::accept(st, shared, id, now),
        ("POST", ["api", "challenge", id, "decline"]) => endpoints::decline(st, req, id),
        _ => text(404, "404: Not Found"),
    };
    Answer::Whole(full)
}

fn token_test(shared: &Shared, req: &Request) -> Response {
    let mut answer = serde_json::Map::new();
    for token in req.body.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let info = if token == shared.config.token {
            json!({ "scopes": "bot:play", "userId": shared.config.bot_id, "expires": TOKEN_TEST_EXPIRES_MS })
        } else {
            Value::Null
        };
        answer.insert(token.to_owned(), info);
    }
    Response::json(200, Value::Object(answer))
}

fn account(st: &State, shared: &Shared) -> Value {
    let name = shared.config.bot_id.as_str();
    json!({ "id": name, "username": name, "title": if st.bot_is_bot { "BOT" } else { "" } })
}

fn open_event_stream(st: &mut State, shared: &Shared, conn: u64, now: Instant, variants: Vec<String>) {
    st.event_stream_connections += 1;
    st.advertised.push(variants);
    // Ongoing games whose stream is not open (`send_bot_game_start_unless_streaming`), then
    // whatever waited in the user's queue.
    let mut lines: Vec<String> = (0..st.games.len())
        .filter(|&gi| st.games[gi].status == Status::Started && st.games[gi].slot.is_none())
        .map(|gi| st.game_event_line("gameStart", gi, shared, now))
        .collect();
    lines.append(&mut st.pending_event_lines);
    let mut slot = Slot::new(conn);
    slot.queue.extend(lines.into_iter().map(|line| Out { line, prompt: None }));
    st.event_slot = Some(slot);
}

/// Opens a game stream: 404 for an unknown game; for a stream already open, the new one
/// starts (200) and breaks at once: PyChess answers before it checks for a duplicate.
fn open_game_stream(st: &mut State, shared: &Shared, id: &str, conn: u64, now: Instant) -> Answer {
    let Some(gi) = st.game_index(id) else {
        return Answer::Whole(text(404, "404: Not Found"));
    };
    let g = &mut st.games[gi];
    if g.status != Status::Started {
        g.streams_requested_after_end += 1;
    }
    // An abruptly cut stream is gone at once; any other counts until a write to it fails.
    if g.slot.as_ref().is_some_and(|s| s.end != Some(End::Abrupt)) {
        g.duplicate_game_streams += 1;
        return Answer::BrokenStream;
    }
    g.game_stream_connections += 1;
    let mut slot = Slot::new(conn);
    slot.queue.push_back(Out { line: game_full(g, shared, now).to_string(), prompt: g.prompt() });
    if g.status != Status::Started {
        // Still waiting in the game's queue.
        slot.queue.push_back(Out { line: game_end(g).to_string(), prompt: None });
    }
    g.slot = Some(slot);
    Answer::Stream(Target::Game(id.to_owned()))
}

/// `abort`, `resign`, `chat`.
fn game_command(st: &mut State, shared: &Shared, req: &Request, id: &str, command: &str, now: Instant) -> Response {
    let Some(gi) = st.game_index(id) else {
        return text(404, "404: Not Found");
    };
    let g = &mut st.games[gi];
    let started = g.status == Status::Started;
    let opp = !g.bot_color;
    match command {
        // PyChess aborts at any ply.
        "abort" => {
            if started {
                st.finish(gi, Status::Aborted, None, shared, now);
            }
            Response::ok()
        }
        // The status and result are set, and nobody is told: no `gameEnd`, the stream stays.
        "resign" => {
            if started {
                g.times = g.times_now(now);
                g.status = Status::Resign;
                g.winner = Some(opp);
                g.opp.due = None;
                g.bot_prompted_at = None;
            }
            Response::ok()
        }
        "chat" => {
            let fields = req.fields();
            let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()).unwrap_or_default();
            let (room, message) = (field("room"), field("text"));
            // Relayed to a human opponent, never echoed on the bot's own stream.
            g.chat.push((room.clone(), message.clone()));
            g.chat_log.push(ChatEntry { user: shared.config.bot_id.clone(), room, text: message, at: Instant::now() });
            Response::ok()
        }
        _ => text(404, "404: Not Found"),
    }
}

#[cfg(test)]
mod tests {
    use super::capabilities;

    #[test]
    fn capability_header() {
        assert_eq!(
            capabilities(Some(r#"{"version":1,"variants":["standard","chess960","shatranj","nope"]}"#)),
            Ok(vec!["chess".to_owned(), "chess960".to_owned(), "shatranj".to_owned()])
        );
        assert!(capabilities(None).is_err());
        assert!(capabilities(Some("{")).is_err());
        assert_eq!(
            capabilities(Some(r#"{"version":1,"variants":["nope"]}"#)),
            Err("BOT does not advertise any PyChess-supported variants.")
        );
    }
}
