//! What a PyChess server writes about the simulated world: its events and game lines, in its
//! JSON shapes (see `pychess.rs` for the dialect's routes).

use std::time::Instant;

use ferz_chess::Position;
use serde_json::{Value, json};

use super::Shared;
use super::world::{ChallengeRec, GameSim, Status, TimeControl, color_name};

/// PyChess's name of a game's variant as the lobby and the capability header use it:
/// `chess` (standard, also from a position), `chess960`, `shatranj`, …
pub(crate) fn variant_name(key: &str) -> String {
    match key {
        "standard" | "fromPosition" => "chess".to_owned(),
        other => other.to_owned(),
    }
}

/// The variant as `gameFull` names it: Chess960 is `chess` there (only `gameStart` tells).
fn board_variant_name(key: &str) -> String {
    match key {
        "chess960" => "chess".to_owned(),
        other => variant_name(other),
    }
}

/// The `challenge` event (`server/seek.py challenge()`).
pub(crate) fn challenge_event(ch: &ChallengeRec) -> Value {
    let key = match ch.variant.as_str() {
        "standard" | "fromPosition" | "chess960" => "standard",
        other => other,
    };
    let time_control = match ch.tc {
        TimeControl::Clock { limit, inc } => json!({ "type": "clock", "limit": limit, "increment": inc }),
        TimeControl::Correspondence { days } => json!({ "type": "correspondence", "daysPerTurn": days }),
        TimeControl::Unlimited => json!({ "type": "unlimited" }),
    };
    json!({
        "type": "challenge",
        "challenge": {
            "id": ch.id,
            "challenger": {
                "name": ch.challenger.name,
                "rating": ch.challenger.rating,
                "title": ch.challenger.title.clone().unwrap_or_default(),
            },
            "variant": { "key": key },
            // BOT challenges from humans are created unrated.
            "rated": false,
            "timeControl": time_control,
            "color": ch.color,
            // Decided only when the game is made: a random colour reads `white` here.
            "finalColor": if ch.color == "random" { "white" } else { color_name(ch.final_color) },
            "speed": ch.tc.speed(),
            "perf": { "name": variant_name(&ch.variant) },
            "level": 0,
            "chess960": ch.variant == "chess960",
        },
    })
}

/// `gameStart`: id, skill level and Python's `str(bool)` of the Chess960 flag.
pub(crate) fn game_start(g: &GameSim) -> Value {
    let chess960 = if g.variant == "chess960" { "True" } else { "False" };
    json!({ "type": "gameStart", "game": { "id": g.id, "skill_level": "0", "chess960": chess960 } })
}

/// `gameEnd`, the only sign on the game stream that a game is over.
pub(crate) fn game_end(g: &GameSim) -> Value {
    json!({ "type": "gameEnd", "game": { "id": g.id } })
}

/// `gameState`: increments in seconds, flags always false, status always `started`. Times are
/// decimals for a base that is not a whole number of minutes (PyChess keeps the base in
/// minutes: ¼, ½ and ¾ make `30000.0`).
pub(crate) fn game_state(g: &GameSim, now: Instant) -> Value {
    let times = g.times_now(now);
    let (inc, decimal) = match g.tc {
        TimeControl::Clock { limit, inc } => (inc, limit % 60 != 0),
        _ => (0, false),
    };
    let time = |ms: i64| if decimal { json!(ms.max(0) as f64) } else { json!(ms.max(0)) };
    json!({
        "type": "gameState",
        "moves": g.notation.join(" "),
        "wtime": time(times[0]),
        "btime": time(times[1]),
        "winc": inc,
        "binc": inc,
        "wdraw": false,
        "bdraw": false,
        "wtakeback": false,
        "btakeback": false,
        "status": "started",
    })
}

/// `gameFull`: names only, `createdAt` in seconds, the initial FEN (`""` for the variant's
/// own start).
pub(crate) fn game_full(g: &GameSim, shared: &Shared, now: Instant) -> Value {
    let bot = shared.config.bot_id.as_str();
    let opponent = g.opp_user.name.as_str();
    let (white, black) = if g.bot_color == ferz_chess::Color::White { (bot, opponent) } else { (opponent, bot) };
    let initial_fen = initial_fen(g);
    json!({
        "type": "gameFull",
        "id": g.id,
        "variant": { "name": board_variant_name(&g.variant) },
        "white": { "name": white },
        "black": { "name": black },
        "initialFen": initial_fen,
        "createdAt": g.created_at_ms / 1000,
        "state": game_state(g, now),
    })
}

/// The FEN a game started from as PyChess keeps it: empty for the variant's own start (Chess960
/// games always name theirs).
fn initial_fen(g: &GameSim) -> String {
    let default_start = g.variant != "chess960"
        && (g.initial_fen == "startpos" || Position::new(g.start.variant()).fen() == g.initial_fen);
    if default_start { String::new() } else { g.initial_fen.clone() }
}

/// PyChess's status code (`GameStatus` in its `const.py`).
pub(crate) fn status_code(status: Status) -> i64 {
    match status {
        Status::Started => -1,
        Status::Aborted => 0,
        Status::Mate => 1,
        Status::Resign => 2,
        Status::Stalemate => 3,
        Status::Timeout => 7,
        Status::Draw => 5,
        Status::OutOfTime => 6,
        Status::VariantEnd => 12,
    }
}
