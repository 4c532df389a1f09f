//! The JSON shapes lila sends: game stream lines, game events, challenges, users.

use std::time::Instant;

use ferz_chess::Color;
use serde_json::{Value, json};

use super::clock::epoch_ms;
use super::world::{ChallengeRec, GameSim, State, Status, TimeControl, UserInfo, color_name};
use super::{ChallengeState, OnlineBot, Shared};

/// `{key, name, short}` of a variant key.
pub(crate) fn variant(key: &str) -> Value {
    let (name, short) = match key {
        "standard" => ("Standard", "Std"),
        "chess960" => ("Chess960", "960"),
        "fromPosition" => ("From Position", "FEN"),
        "kingOfTheHill" => ("King of the Hill", "KotH"),
        "threeCheck" => ("Three-check", "3check"),
        "antichess" => ("Antichess", "Anti"),
        "atomic" => ("Atomic", "Atom"),
        "horde" => ("Horde", "Horde"),
        "racingKings" => ("Racing Kings", "Racing"),
        "crazyhouse" => ("Crazyhouse", "Crazy"),
        other => (other, other),
    };
    json!({ "key": key, "name": name, "short": short })
}

/// The perf (rating category) of a game: key and display name.
pub(crate) fn perf(variant_key: &str, tc: TimeControl) -> (String, String) {
    match variant_key {
        "standard" | "fromPosition" => {
            let speed = tc.speed();
            let name = match speed {
                "ultraBullet" => "UltraBullet",
                "bullet" => "Bullet",
                "blitz" => "Blitz",
                "rapid" => "Rapid",
                "classical" => "Classical",
                _ => "Correspondence",
            };
            (speed.to_owned(), name.to_owned())
        }
        other => {
            let name = variant(other)["name"].as_str().unwrap_or(other).to_owned();
            (other.to_owned(), name)
        }
    }
}

/// A player of `gameFull`.
fn player(user: &UserInfo) -> Value {
    json!({ "id": user.id, "name": user.name, "title": user.title, "rating": user.rating })
}

/// The current `gameState` of a game (false flags omitted, as lila does).
pub(crate) fn game_state(g: &GameSim, shared: &Shared, now: Instant) -> Value {
    let times = g.times_now(now);
    let inc = match g.tc {
        TimeControl::Clock { inc, .. } => i64::from(inc) * 1000,
        _ => 0,
    };
    let (w, b) = (Color::White.index(), Color::Black.index());
    let mut state = json!({
        "type": "gameState",
        "moves": g.notation.join(" "),
        "wtime": times[w].max(0),
        "btime": times[b].max(0),
        "winc": inc,
        "binc": inc,
        "status": g.status.name(),
    });
    if let Some(winner) = g.winner {
        state["winner"] = color_name(winner).into();
    }
    for (flag, on) in [
        ("wdraw", g.draw_offer[w]),
        ("bdraw", g.draw_offer[b]),
        ("wtakeback", g.takeback_offer[w]),
        ("btakeback", g.takeback_offer[b]),
    ] {
        if on {
            state[flag] = true.into();
        }
    }
    if let Some(limit) = shared.config.abort_on_no_first_move
        && g.status == Status::Started
        && g.ply() < 2
    {
        state["expiration"] = json!({
            "idleMillis": now.saturating_duration_since(g.last_switch).as_millis() as i64,
            "millisToMove": limit.as_millis() as i64,
        });
    }
    state
}

/// The `gameFull` line of a game.
pub(crate) fn game_full(g: &GameSim, st: &State, shared: &Shared, now: Instant) -> Value {
    let bot = st.bot_user(shared);
    let (white, black) = if g.bot_color == Color::White { (&bot, &g.opp_user) } else { (&g.opp_user, &bot) };
    let (_, perf_name) = perf(&g.variant, g.tc);
    let mut full = json!({
        "type": "gameFull",
        "id": g.id,
        "variant": variant(&g.variant),
        "speed": g.tc.speed(),
        "perf": { "name": perf_name },
        "rated": g.rated,
        "createdAt": g.created_at_ms,
        "white": player(white),
        "black": player(black),
        "initialFen": g.initial_fen,
        "state": game_state(g, shared, now),
    });
    match g.tc {
        TimeControl::Clock { limit, inc } => {
            full["clock"] = json!({ "initial": i64::from(limit) * 1000, "increment": i64::from(inc) * 1000 });
        }
        TimeControl::Correspondence { days } => full["daysPerTurn"] = days.into(),
        TimeControl::Unlimited => {}
    }
    full
}

/// lila's `GameEventInfo` (the `game` of `gameStart`/`gameFinish`, an entry of `nowPlaying`).
pub(crate) fn game_info(g: &GameSim, st: &State, now: Instant) -> Value {
    let (perf_key, _) = perf(&g.variant, g.tc);
    let bot_moves = if g.bot_color == Color::White { g.ply().div_ceil(2) } else { g.ply() / 2 };
    let mut opponent = json!({ "id": g.opp_user.id, "username": g.opp_user.name, "rating": g.opp_user.rating });
    let mut info = json!({
        "fullId": format!("{}{}", g.id, "fk01"),
        "gameId": g.id,
        "id": g.id,
        "fen": g.board.position().fen(),
        "color": color_name(g.bot_color),
        "lastMove": g.notation.last().cloned().unwrap_or_default(),
        "source": "friend",
        "status": { "id": g.status.id(), "name": g.status.name() },
        "variant": { "key": g.variant, "name": variant(&g.variant)["name"] },
        "speed": g.tc.speed(),
        "perf": perf_key,
        "rated": g.rated,
        "hasMoved": bot_moves > 0,
        "isMyTurn": g.status == Status::Started && g.turn() == g.bot_color,
        "rating": st.bot_rating,
        "compat": compat(st, g.tc),
    });
    if g.tc != TimeControl::Unlimited {
        info["secondsLeft"] = (g.times_now(now)[g.bot_color.index()].max(0) / 1000).into();
    }
    if g.status != Status::Started {
        if let Some(winner) = g.winner {
            info["winner"] = color_name(winner).into();
        }
        if g.rated {
            let diff = match g.winner {
                Some(w) if w == g.bot_color => 8,
                Some(_) => -8,
                None => 0,
            };
            info["ratingDiff"] = diff.into();
            opponent["ratingDiff"] = (-diff).into();
        }
    }
    info["opponent"] = opponent;
    info
}

/// Which APIs may play a game with this time control.
fn compat(st: &State, tc: TimeControl) -> Value {
    let speed = tc.speed();
    json!({
        "bot": st.bot_is_bot && speed != "ultraBullet",
        "board": !matches!(speed, "ultraBullet" | "bullet"),
    })
}

/// A challenge user.
fn challenge_user(user: &UserInfo) -> Value {
    let mut v = json!({ "id": user.id, "name": user.name, "rating": user.rating, "online": true });
    if let Some(title) = &user.title {
        v["title"] = title.as_str().into();
    }
    v
}

/// `ChallengeJson`; `direction` only on the create and list endpoints.
pub(crate) fn challenge(ch: &ChallengeRec, _st: &State, shared: &Shared, direction: Option<&str>) -> Value {
    let status = match ch.state {
        ChallengeState::Pending | ChallengeState::Refused { .. } | ChallengeState::NotOffered => "created",
        ChallengeState::Accepted { .. } => "accepted",
        ChallengeState::Declined { .. } => "declined",
        ChallengeState::Canceled => "canceled",
    };
    let time_control = match ch.tc {
        TimeControl::Clock { limit, inc } => {
            let minutes = match limit {
                15 => "¼".to_owned(),
                30 => "½".to_owned(),
                45 => "¾".to_owned(),
                90 => "1.5".to_owned(),
                l => format!("{}", l / 60),
            };
            json!({ "type": "clock", "limit": limit, "increment": inc, "show": format!("{minutes}+{inc}") })
        }
        TimeControl::Correspondence { days } => json!({ "type": "correspondence", "daysPerTurn": days }),
        TimeControl::Unlimited => json!({ "type": "unlimited" }),
    };
    let (_, perf_name) = perf(&ch.variant, ch.tc);
    let mut v = json!({
        "id": ch.id,
        "url": format!("{}/{}", shared.base_url, ch.id),
        "status": status,
        "challenger": challenge_user(&ch.challenger),
        "destUser": challenge_user(&ch.dest),
        "variant": variant(&ch.variant),
        "rated": ch.rated,
        "speed": ch.tc.speed(),
        "timeControl": time_control,
        "color": ch.color,
        "finalColor": color_name(ch.final_color),
        "perf": { "icon": "\u{e017}", "name": perf_name },
    });
    if let Some(dir) = direction {
        v["direction"] = dir.into();
    }
    if let Some(fen) = &ch.initial_fen
        && matches!(ch.variant.as_str(), "fromPosition" | "chess960")
    {
        v["initialFen"] = fen.as_str().into();
    }
    if let ChallengeState::Declined { reason } = &ch.state {
        v["declineReason"] = decline_text(reason).into();
        v["declineReasonKey"] = reason.as_str().into();
    }
    v
}

/// The `challenge` event line.
pub(crate) fn challenge_event(ch: &ChallengeRec, st: &State, shared: &Shared) -> String {
    json!({ "type": "challenge", "challenge": challenge(ch, st, shared, None), "compat": compat(st, ch.tc) })
        .to_string()
}

/// lila's decline reason keys, lower case.
const DECLINE_REASONS: [(&str, &str); 11] = [
    ("generic", "I'm not accepting challenges at the moment."),
    ("later", "This is not the right time for me, please ask again later."),
    ("toofast", "This time control is too fast for me, please challenge again with a slower game."),
    ("tooslow", "This time control is too slow for me, please challenge again with a faster game."),
    ("timecontrol", "I'm not accepting challenges with this time control."),
    ("rated", "Please send me a rated challenge instead."),
    ("casual", "Please send me a casual challenge instead."),
    ("standard", "I'm not accepting variant challenges right now."),
    ("variant", "I'm not willing to play this variant right now."),
    ("nobot", "I'm not accepting challenges from bots."),
    ("onlybot", "I'm only accepting challenges from bots."),
];

/// The lower-case key of a decline reason given in any case (or as its English text);
/// anything else is `generic`, as in lila.
pub(crate) fn decline_key(reason: &str) -> &'static str {
    DECLINE_REASONS
        .iter()
        .find(|(key, text)| key.eq_ignore_ascii_case(reason) || *text == reason)
        .map_or("generic", |(key, _)| key)
}

/// The English text of a decline reason key.
pub(crate) fn decline_text(key: &str) -> &'static str {
    DECLINE_REASONS.iter().find(|(k, _)| *k == decline_key(key)).map_or(DECLINE_REASONS[0].1, |(_, text)| text)
}

/// `/api/account`.
pub(crate) fn account(st: &State, shared: &Shared) -> Value {
    let bot = st.bot_user(shared);
    let rating = st.bot_rating;
    let perf = json!({ "games": 100, "rating": rating, "rd": 60, "prog": 0 });
    let mut v = json!({
        "id": bot.id,
        "username": bot.name,
        "perfs": {
            "bullet": perf, "blitz": perf, "rapid": perf, "classical": perf,
            "correspondence": perf, "chess960": perf,
        },
        "createdAt": epoch_ms() - 86_400_000,
        "seenAt": epoch_ms(),
        "playTime": { "total": 0, "tv": 0 },
        "url": format!("{}/@/{}", shared.base_url, bot.name),
        "count": { "all": st.games.len(), "playing": st.games.iter().filter(|g| g.status == Status::Started).count() },
        "followable": true,
        "following": false,
        "blocking": false,
    });
    if let Some(title) = bot.title {
        v["title"] = title.into();
    }
    v
}

/// One line of `/api/bot/online`.
pub(crate) fn online_bot(bot: &OnlineBot) -> Value {
    let mut perfs = serde_json::Map::new();
    for (key, rating, games) in &bot.perfs {
        perfs.insert(key.clone(), json!({ "games": games, "rating": rating, "rd": 45, "prog": 0 }));
    }
    json!({
        "id": bot.username.to_lowercase(),
        "username": bot.username,
        "title": "BOT",
        "perfs": perfs,
        "createdAt": epoch_ms() - 86_400_000,
        "seenAt": epoch_ms(),
        "playTime": { "total": 3600, "tv": 0 },
    })
}
