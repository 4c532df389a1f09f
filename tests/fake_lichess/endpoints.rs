//! Routing and the endpoints: what each request does to the state and what it answers.

use std::collections::BTreeMap;
use std::time::Instant;

use ferz_chess::{Color, UciMove};
use ferz_testserver::{Request, Response};
use serde_json::{Value, json};

use super::clock::after;
use super::world::{ChallengeRec, End, GameSim, Out, Slot, State, Status, TimeControl, UserInfo, start_position};
use super::{ChallengeAnswer, ChallengeState, ChatEntry, Shared, json};

/// What a stream connection writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// `/api/stream/event`.
    Event,
    /// `/api/bot/game/stream/{id}`.
    Game(String),
}

/// How to answer a request.
pub(crate) enum Answer {
    /// A whole response.
    Whole(Response),
    /// A chunked ndjson stream, written from the slot of `target` that belongs to this connection.
    Stream(Target),
    /// PyChess's answer to a second stream of a game: the stream starts (200), then the
    /// connection is cut before any line.
    BrokenStream,
}

const NOT_YOUR_TURN: &str = "Not your turn, or game already over";
const BOT_ONLY: &str =
    "This endpoint can only be used with a Bot account. See https://lichess.org/api#operation/botAccountUpgrade";

/// lila's `trueish`.
fn trueish(value: &str) -> bool {
    matches!(value, "1" | "true" | "True" | "on" | "yes")
}

/// Answers one request; `conn` is the connection id (for streams).
pub(crate) fn handle(st: &mut State, shared: &Shared, req: &Request, conn: u64, now: Instant) -> Answer {
    if let Some(full) = st.http.answer(&req.path) {
        return Answer::Whole(full);
    }
    let segs = req.segments();
    let segs: Vec<&str> = segs.iter().map(String::as_str).collect();
    let method = req.method.as_str();

    // Public endpoints.
    match (method, segs.as_slice()) {
        ("POST", ["api", "token", "test"]) => return Answer::Whole(token_test(shared, req)),
        ("GET", ["api", "bot", "online"]) => return Answer::Whole(online_bots(st, req)),
        ("GET", ["api", "users", "status"]) => return Answer::Whole(users_status(st, shared, req)),
        ("GET", ["game", "export", id]) => return Answer::Whole(export(st, shared, id)),
        ("GET", ["files", name]) => return Answer::Whole(text_file(st, name)),
        _ => {}
    }

    // Everything else needs the token.
    match req.header("authorization").map(str::trim) {
        None => return Answer::Whole(Response::error(401, "Login required")),
        Some(auth) => {
            let token = auth.strip_prefix("Bearer ").or_else(|| auth.strip_prefix("bearer ")).unwrap_or("").trim();
            if token != shared.config.token {
                return Answer::Whole(Response::error(401, "No such token"));
            }
        }
    }
    let scopes: Vec<&str> = shared.config.scopes.split(',').map(str::trim).collect();
    let has_scope = |any: &[&str]| any.iter().any(|s| scopes.contains(s));
    let bot_path = segs.starts_with(&["api", "bot"]);
    if bot_path && !has_scope(&["bot:play"]) {
        return Answer::Whole(Response::error(403, "Missing scope"));
    }
    if bot_path && segs != ["api", "bot", "account", "upgrade"] && !st.bot_is_bot {
        return Answer::Whole(Response::error(400, BOT_ONLY));
    }
    if segs.starts_with(&["api", "challenge"]) && !has_scope(&["bot:play", "board:play", "challenge:write"]) {
        return Answer::Whole(Response::error(403, "Missing scope"));
    }

    let full = match (method, segs.as_slice()) {
        ("GET", ["api", "account"]) => Response::json(200, json::account(st, shared)),
        ("GET", ["api", "account", "playing"]) => playing(st, req, now),
        ("POST", ["api", "bot", "account", "upgrade"]) => upgrade(st),
        ("GET", ["api", "stream", "event"]) => {
            if !has_scope(&["bot:play", "board:play", "challenge:read"]) {
                return Answer::Whole(Response::error(403, "Missing scope"));
            }
            open_event_stream(st, shared, conn, now);
            return Answer::Stream(Target::Event);
        }
        ("GET", ["api", "bot", "game", "stream", id]) => match open_game_stream(st, shared, id, conn, now) {
            Some(error) => error,
            None => return Answer::Stream(Target::Game((*id).to_owned())),
        },
        ("POST", ["api", "bot", "game", id, "move", uci]) => make_move(st, shared, req, id, uci, now),
        ("GET", ["api", "bot", "game", id, "chat"]) => read_chat(st, id),
        ("POST", ["api", "bot", "game", id, command @ ..]) => game_command(st, shared, req, id, command, now),
        ("GET", ["api", "challenge"]) => list_challenges(st, shared),
        ("POST", ["api", "challenge", id, "accept"]) => accept(st, shared, id, now),
        ("POST", ["api", "challenge", id, "decline"]) => decline(st, req, id),
        ("POST", ["api", "challenge", id, "cancel"]) => cancel(st, shared, id, now),
        ("POST", ["api", "challenge", username]) => create_challenge(st, shared, req, username, now),
        _ => Response::error(404, "Not found."),
    };
    Answer::Whole(full)
}

/// `GET /files/{name}`: a text file set by [`super::FakeLichess::set_text_file`], as any web
/// server would serve an online block list.
fn text_file(st: &State, name: &str) -> Response {
    match st.text_files.get(name) {
        Some(text) => Response::new(200, "text/plain; charset=utf-8", text.clone()),
        None => Response::new(404, "text/plain", "not found"),
    }
}

// ---- account ----

fn token_test(shared: &Shared, req: &Request) -> Response {
    let mut answer = serde_json::Map::new();
    for token in req.body.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let info = if token == shared.config.token {
            json!({ "userId": shared.config.bot_id.to_lowercase(), "scopes": shared.config.scopes, "expires": null })
        } else {
            Value::Null
        };
        answer.insert(token.to_owned(), info);
    }
    Response::json(200, Value::Object(answer))
}

fn upgrade(st: &mut State) -> Response {
    if st.bot_is_bot {
        return Response::error(400, "This account is already a bot account.");
    }
    st.bot_is_bot = true;
    Response::ok()
}

fn playing(st: &State, req: &Request, now: Instant) -> Response {
    let nb = req.query_param("nb").and_then(|n| n.parse::<usize>().ok()).unwrap_or(9).clamp(1, 50);
    let mut games: Vec<&GameSim> = st.games.iter().filter(|g| g.status == Status::Started).collect();
    // lila lists the games where it is our turn first.
    games.sort_by_key(|g| g.turn() != g.bot_color);
    let my_turn = games.iter().filter(|g| g.turn() == g.bot_color).count();
    let now_playing: Vec<Value> = games
        .iter()
        .take(nb)
        .map(|g| {
            let gi = st.game_index(&g.id).expect("listed game exists");
            json::game_info(&st.games[gi], st, now)
        })
        .collect();
    Response::json(200, json!({ "nowPlaying": now_playing, "nbMyTurn": my_turn }))
}

fn online_bots(st: &State, req: &Request) -> Response {
    let nb = req.query_param("nb").and_then(|n| n.parse::<usize>().ok()).unwrap_or(100).clamp(1, 512);
    let body: String = st.online_bots.iter().take(nb).map(|b| format!("{}\n", json::online_bot(b))).collect();
    Response::new(200, "application/x-ndjson", body)
}

fn users_status(st: &State, shared: &Shared, req: &Request) -> Response {
    let ids = req.query_param("ids").unwrap_or_default();
    let bot_id = shared.config.bot_id.to_lowercase();
    let users: Vec<Value> = ids
        .split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .take(100)
        .map(|name| {
            let id = name.to_lowercase();
            let mut v = json!({ "id": id, "name": name });
            let (online, playing, title) = if id == bot_id {
                let playing = st.games.iter().any(|g| g.status == Status::Started);
                (st.event_slot.is_some(), playing, st.bot_is_bot.then_some("BOT"))
            } else {
                let bot = st.online_bots.iter().any(|b| b.username.to_lowercase() == id);
                let playing = st.games.iter().any(|g| g.status == Status::Started && g.opp_user.id == id);
                (bot || playing, playing, bot.then_some("BOT"))
            };
            if let Some(title) = title {
                v["title"] = title.into();
            }
            if online {
                v["online"] = true.into();
            }
            if playing {
                v["playing"] = true.into();
            }
            v
        })
        .collect();
    Response::json(200, Value::Array(users))
}

/// `/game/export/{id}`: a PGN of the game.
fn export(st: &State, shared: &Shared, id: &str) -> Response {
    let Some(g) = st.games.iter().find(|g| g.id == id) else {
        return Response::error(404, "Not found.");
    };
    let result = match (g.status, g.winner) {
        (Status::Started, _) => "*",
        (_, Some(Color::White)) => "1-0",
        (_, Some(Color::Black)) => "0-1",
        (_, None) => "1/2-1/2",
    };
    let mut position = g.start;
    let mut text = String::new();
    for (i, &m) in g.moves.iter().enumerate() {
        if position.turn() == Color::White {
            text.push_str(&format!("{}. ", position.fullmoves()));
        } else if i == 0 {
            text.push_str(&format!("{}... ", position.fullmoves()));
        }
        text.push_str(&position.san(m));
        text.push(' ');
        position = position.play(m).expect("stored moves are legal");
    }
    text.push_str(result);
    let opponent = g.opp_user.name.as_str();
    let bot = shared.config.bot_id.as_str();
    let (white, black) = if g.bot_color == Color::White { (bot, opponent) } else { (opponent, bot) };
    let mut pgn = format!(
        "[Event \"Casual game\"]\n[Site \"fake-lichess/{}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n[Variant \"{}\"]\n",
        g.id, g.variant
    );
    if g.initial_fen != "startpos" {
        pgn.push_str(&format!("[FEN \"{}\"]\n[SetUp \"1\"]\n", g.initial_fen));
    }
    pgn.push('\n');
    pgn.push_str(&text);
    pgn.push('\n');
    Response::new(200, "application/x-chess-pgn", pgn)
}

// ---- streams ----

fn open_event_stream(st: &mut State, shared: &Shared, conn: u64, now: Instant) {
    st.event_stream_connections += 1;
    let mut lines = Vec::new();
    for gi in 0..st.games.len() {
        if st.games[gi].status == Status::Started {
            lines.push(st.game_event_line("gameStart", gi, shared, now));
        }
    }
    for ch in st.challenges.iter().filter(|c| !c.outgoing && c.state == ChallengeState::Pending) {
        lines.push(json::challenge_event(ch, st, shared));
    }
    lines.append(&mut st.pending_event_lines);
    let mut slot = Slot::new(conn);
    for line in lines {
        slot.queue.push_back(Out { line, prompt: None });
    }
    // The previous connection sees that its slot is gone and ends.
    st.event_slot = Some(slot);
}

/// Opens a game stream; an error response if there is no such game.
fn open_game_stream(st: &mut State, shared: &Shared, id: &str, conn: u64, now: Instant) -> Option<Response> {
    let Some(gi) = st.game_index(id) else {
        return Some(Response::error(404, "No such game"));
    };
    let full = json::game_full(&st.games[gi], st, shared, now).to_string();
    let g = &mut st.games[gi];
    g.game_stream_connections += 1;
    let mut slot = Slot::new(conn);
    slot.queue.push_back(Out { line: full, prompt: g.prompt() });
    if g.status == Status::Started && g.opp.gone_since.is_some() {
        slot.queue.push_back(Out { line: g.opponent_gone_line(now), prompt: None });
    }
    if g.status != Status::Started {
        slot.end = Some(End::Clean);
    }
    g.slot = Some(slot);
    None
}

// ---- playing ----

pub(crate) fn make_move(st: &mut State, shared: &Shared, req: &Request, id: &str, uci: &str, now: Instant) -> Response {
    let Some(gi) = st.game_index(id) else {
        return Response::error(404, "No such game");
    };
    let parsed = match uci.parse::<UciMove>() {
        Ok(UciMove::Normal { from, to, .. }) => (from, to),
        _ => return Response::error(400, &format!("Invalid UCI: {uci}")),
    };
    let g = &mut st.games[gi];
    if g.reject_moves > 0 {
        g.reject_moves -= 1;
        return Response::error(400, NOT_YOUR_TURN);
    }
    if g.status != Status::Started || g.turn() != g.bot_color {
        return Response::error(400, NOT_YOUR_TURN);
    }
    let bot = g.bot_color;
    let opp = !bot;
    let offering = req.query_param("offeringDraw").map(|v| trueish(&v));
    if offering == Some(true) {
        g.bot_draw_offers += 1;
        if g.draw_offer[opp.index()] {
            // Accepting ends the game before the move; lila swallows the move's failure.
            st.finish(gi, Status::Draw, None, shared, now);
            return Response::ok();
        }
    }
    let position = *g.board.position();
    let m = match position.parse_uci(uci) {
        Ok(m) => m,
        Err(_) => {
            g.illegal_moves_from_bot.push(uci.to_owned());
            let (from, to) = parsed;
            let message = match position.piece_at(from) {
                Some(piece) if piece.color == bot => format!("Piece on {from} cannot move to {to}"),
                _ => format!("No piece on {from}"),
            };
            return Response::error(400, &message);
        }
    };
    g.prompt_provisional = false;
    if let Some(at) = g.bot_prompted_at.take() {
        st.latencies.push(req.at.saturating_duration_since(at));
    }
    let g = &mut st.games[gi];
    match offering {
        Some(false) => g.draw_offer[bot.index()] = false,
        Some(true) => {
            let ply = g.ply();
            let recently = g.last_bot_offer_ply.is_some_and(|p| ply < p + 20);
            if ply >= 2 && !recently && !g.draw_offer[bot.index()] {
                g.draw_offer[bot.index()] = true;
                g.last_bot_offer_ply = Some(ply);
            }
        }
        None => {}
    }
    st.apply_move(gi, m, shared, now);
    Response::ok()
}

fn read_chat(st: &State, id: &str) -> Response {
    let Some(g) = st.games.iter().find(|g| g.id == id) else {
        return Response::error(404, "No such game");
    };
    let lines: Vec<Value> = g
        .chat_log
        .iter()
        .filter(|line| line.room == "player")
        .map(|line| json!({ "text": line.text, "user": line.user }))
        .collect();
    Response::json(200, Value::Array(lines))
}

/// `POST /api/bot/game/{id}/{command}`: abort, resign, draw, takeback, claims, chat.
fn game_command(st: &mut State, shared: &Shared, req: &Request, id: &str, command: &[&str], now: Instant) -> Response {
    let Some(gi) = st.game_index(id) else {
        return Response::error(404, "No such game");
    };
    let g = &mut st.games[gi];
    let bot = g.bot_color;
    let opp = !bot;
    let started = g.status == Status::Started;
    match command {
        ["abort"] => {
            if !started || g.ply() >= 2 {
                return Response::error(400, "This game can no longer be aborted");
            }
            st.finish(gi, Status::Aborted, None, shared, now);
            Response::ok()
        }
        ["resign"] => {
            if !started {
                return Response::error(400, "This game cannot be resigned");
            }
            // lila aborts a game that can still be aborted.
            let status = if g.ply() < 2 { Status::Aborted } else { Status::Resign };
            let winner = (status == Status::Resign).then_some(opp);
            st.finish(gi, status, winner, shared, now);
            Response::ok()
        }
        ["draw", answer] => {
            if !started {
                return Response::ok();
            }
            if trueish(answer) {
                if g.draw_offer[opp.index()] {
                    st.finish(gi, Status::Draw, None, shared, now);
                } else {
                    let ply = g.ply();
                    let recently = g.last_bot_offer_ply.is_some_and(|p| ply < p + 20);
                    if ply >= 2 && !recently && !g.draw_offer[bot.index()] {
                        g.draw_offer[bot.index()] = true;
                        g.last_bot_offer_ply = Some(ply);
                        g.push_state(shared, now);
                    }
                }
            } else if g.draw_offer[opp.index()] {
                g.draw_offer[opp.index()] = false;
                g.draw_offers_declined_by_bot += 1;
                g.push_state(shared, now);
            }
            Response::ok()
        }
        ["takeback", answer] => {
            if !started {
                return Response::ok();
            }
            let grant = trueish(answer);
            let delay = shared.config.takeback_answer_delay;
            if delay.is_zero() {
                st.apply_takeback_answer(gi, grant, shared, now);
            } else {
                let id = g.id.clone();
                st.takeback_answer_due.push((after(now, delay), id, grant));
            }
            Response::ok()
        }
        ["claim-victory"] => {
            if started && g.opp.claimable(now) {
                st.finish(gi, Status::Timeout, Some(bot), shared, now);
                Response::ok()
            } else {
                Response::error(400, "You cannot claim the win on this game")
            }
        }
        ["claim-draw"] => {
            if started && g.opp.claimable(now) {
                st.finish(gi, Status::Draw, None, shared, now);
                Response::ok()
            } else {
                Response::error(400, "You cannot claim draw on this game")
            }
        }
        ["berserk"] => Response::error(400, "Cannot berserk"),
        ["chat"] => {
            let fields = req.fields();
            let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
            let room = field("room").unwrap_or_default();
            let text = field("text").unwrap_or_default();
            if room != "player" && room != "spectator" {
                return Response::json(400, json!({ "error": { "room": ["error.required"] } }));
            }
            if text.trim().is_empty() {
                return Response::json(400, json!({ "error": { "text": ["error.required"] } }));
            }
            if text.chars().count() > 140 {
                return Response::json(400, json!({ "error": { "text": ["error.maxLength"] } }));
            }
            let user = shared.config.bot_id.clone();
            g.chat.push((room.clone(), text.clone()));
            g.chat_log.push(ChatEntry { user: user.clone(), room: room.clone(), text: text.clone(), at: now });
            let line = json!({ "type": "chatLine", "room": room, "username": user, "text": text }).to_string();
            g.push_line(line, None);
            Response::ok()
        }
        _ => Response::error(404, "No such command"),
    }
}

// ---- challenges ----

fn list_challenges(st: &State, shared: &Shared) -> Response {
    let pending = |outgoing: bool| -> Vec<Value> {
        st.challenges
            .iter()
            .filter(|c| c.outgoing == outgoing && c.state == ChallengeState::Pending)
            .map(|c| json::challenge(c, st, shared, Some(if outgoing { "out" } else { "in" })))
            .collect()
    };
    Response::json(200, json!({ "in": pending(false), "out": pending(true) }))
}

pub(crate) fn accept(st: &mut State, shared: &Shared, id: &str, now: Instant) -> Response {
    let Some(ci) = st.challenge_index(id) else {
        return Response::error(404, "Not found.");
    };
    let ch = st.challenges[ci].clone();
    if ch.outgoing || ch.state != ChallengeState::Pending {
        return Response::error(404, "Not found.");
    }
    match st.create_game(&ch, shared, now) {
        Ok(gi) => {
            let game_id = st.games[gi].id.clone();
            st.challenges[ci].state = ChallengeState::Accepted { game_id };
            Response::ok()
        }
        Err(e) => Response::error(400, &e),
    }
}

pub(crate) fn decline(st: &mut State, req: &Request, id: &str) -> Response {
    let Some(ci) = st.challenge_index(id) else {
        return Response::error(404, "Not found.");
    };
    let ch = &mut st.challenges[ci];
    if ch.outgoing || ch.state != ChallengeState::Pending {
        return Response::error(404, "Not found.");
    }
    let reason = req.fields().into_iter().find(|(k, _)| k == "reason").map(|(_, v)| v).unwrap_or_default();
    ch.state = ChallengeState::Declined { reason: json::decline_key(&reason).to_owned() };
    Response::ok()
}

fn cancel(st: &mut State, shared: &Shared, id: &str, now: Instant) -> Response {
    let Some(ci) = st.challenge_index(id) else {
        return Response::error(404, "Not found.");
    };
    match st.challenges[ci].state.clone() {
        ChallengeState::Pending if st.challenges[ci].outgoing => {
            st.challenges[ci].state = ChallengeState::Canceled;
            Response::ok()
        }
        ChallengeState::Pending => {
            st.challenges[ci].state = ChallengeState::Declined { reason: "generic".into() };
            Response::ok()
        }
        ChallengeState::Accepted { game_id } => match st.game_index(&game_id) {
            Some(gi) if st.games[gi].status == Status::Started && st.games[gi].ply() < 2 => {
                st.finish(gi, Status::Aborted, None, shared, now);
                Response::ok()
            }
            _ => Response::error(404, "Not found."),
        },
        _ => Response::error(404, "Not found."),
    }
}

/// `POST /api/challenge/{username}`: the bot challenges someone (form or JSON body).
fn create_challenge(st: &mut State, shared: &Shared, req: &Request, username: &str, now: Instant) -> Response {
    let fields: BTreeMap<String, String> = req.fields().into_iter().collect();
    let dest_id = username.to_lowercase();
    if dest_id == shared.config.bot_id.to_lowercase() {
        return Response::error(400, "You cannot challenge yourself");
    }
    let number = |name: &str| -> Result<Option<u32>, Response> {
        match fields.get(name) {
            None => Ok(None),
            Some(v) => {
                v.trim().parse::<u32>().map(Some).map_err(|_| Response::error(400, &format!("Invalid {name}: {v}")))
            }
        }
    };
    let limit = match number("clock.limit") {
        Ok(v) => v,
        Err(e) => return e,
    };
    let increment = match number("clock.increment") {
        Ok(v) => v,
        Err(e) => return e,
    };
    let days = match number("days") {
        Ok(v) => v,
        Err(e) => return e,
    };
    let tc = match (limit, increment, days) {
        (Some(limit), inc, _) => TimeControl::Clock { limit, inc: inc.unwrap_or(0) },
        (None, _, Some(days)) => TimeControl::Correspondence { days },
        _ => TimeControl::Unlimited,
    };
    let online = st.online_bots.iter().find(|b| b.username.to_lowercase() == dest_id).cloned();
    if online.is_some() && fields.get("rules").is_some_and(|r| !r.trim().is_empty()) {
        return Response::error(400, "Rules not applicable for bots");
    }
    let mut variant = fields.get("variant").cloned().unwrap_or_else(|| "standard".into());
    let fen = fields.get("fen").cloned().filter(|f| !f.trim().is_empty());
    if fen.is_some() && variant == "standard" {
        variant = "fromPosition".into();
    }
    if let Some(fen) = &fen
        && start_position(&variant, Some(fen), &mut ferz_chess::SplitMix64::new(0)).is_err()
    {
        return Response::error(400, &format!("Invalid FEN: {fen}"));
    }
    let answer = st.answers.get(&dest_id).cloned().unwrap_or(ChallengeAnswer::Ignore);
    let id = st.new_id();
    let color = fields.get("color").cloned().unwrap_or_else(|| "random".into());
    let final_color = st.final_color(&color);
    let (perf_key, _) = json::perf(&variant, tc);
    let rating = online
        .as_ref()
        .and_then(|b| b.perfs.iter().find(|(k, _, _)| *k == perf_key).map(|(_, r, _)| *r))
        .unwrap_or(1500);
    let ch = ChallengeRec {
        id: id.clone(),
        outgoing: true,
        challenger: st.bot_user(shared),
        dest: UserInfo {
            id: dest_id.clone(),
            name: username.to_owned(),
            title: online.as_ref().map(|_| "BOT".to_owned()),
            rating,
        },
        variant,
        initial_fen: fen,
        tc,
        rated: fields.get("rated").is_some_and(|r| trueish(r)),
        color,
        final_color,
        state: ChallengeState::Pending,
        opponent: super::Opponent::random(st.rng.next_u64()),
        fields,
        dest_name_in_url: username.to_owned(),
    };
    if matches!(answer, ChallengeAnswer::DailyLimit) {
        let mut refused = ch;
        refused.state = ChallengeState::Refused { status: 429 };
        st.challenges.push(refused);
        let body = json!({
            "error": "You played 100 games against other bots today, please wait before challenging another bot.",
            "ratelimit": { "key": "bot.vsBot.day", "seconds": 86_398 },
        });
        return Response::json(429, body);
    }
    let body = json::challenge(&ch, st, shared, Some("out"));
    let event = json::challenge_event(&ch, st, shared);
    st.challenges.push(ch);
    st.emit_event(event);
    if !matches!(answer, ChallengeAnswer::Ignore) {
        st.answer_due.push((after(now, shared.config.challenge_answer_delay), id));
    }
    Response::json(200, body)
}
