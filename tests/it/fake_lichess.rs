//! The fake Lichess server, tested through real HTTP with the bot's own client (`ferz-lichess`)
//! and, where the client cannot say it, with raw requests.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use ferz_lichess::models::{ChallengeColor, Direction, TimeControl};
use ferz_lichess::{
    ChallengeRequest, ChatRoom, Client, ClientConfig, Color, DeclineReason, Error, Event, GameEvent, GameState,
    GameStatus, NdjsonStream, RetryPolicy, StreamItem, Token,
};
use ferz_tests::fake_lichess::{
    Castling, ChallengeAnswer, ChallengeSpec, ChallengeState, FAKE_TOKEN, FakeConfig, FakeLichess, Fault, OnlineBot,
    Opponent,
};
use futures_util::StreamExt;

/// How long any single expected stream item may take.
const STEP: Duration = Duration::from_secs(5);

fn client_with(server: &FakeLichess, token: &str, tweak: impl FnOnce(&mut ClientConfig)) -> Client {
    let mut config = ClientConfig::new(server.url(), Token::new(token));
    config.username = Some("ferzbot".into());
    config.request_timeout = Duration::from_secs(5);
    config.idle_timeout = Duration::from_secs(2);
    config.retry = RetryPolicy {
        max_retries: 2,
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_millis(20),
    };
    tweak(&mut config);
    Client::new(config).expect("client")
}

fn client(server: &FakeLichess) -> Client {
    client_with(server, FAKE_TOKEN, |_| {})
}

async fn next_item<T: std::fmt::Debug>(stream: &mut NdjsonStream<T>) -> Option<Result<StreamItem<T>, Error>> {
    tokio::time::timeout(STEP, stream.next()).await.expect("a stream item within 5 s")
}

/// The next message, skipping keep-alives.
async fn next_msg<T: std::fmt::Debug>(stream: &mut NdjsonStream<T>) -> T {
    loop {
        match next_item(stream).await {
            Some(Ok(StreamItem::KeepAlive)) => {}
            Some(Ok(StreamItem::Message(m))) => return m,
            other => panic!("expected a message, got {other:?}"),
        }
    }
}

/// The next `gameState`, skipping other messages.
async fn next_state(game: &mut NdjsonStream<GameEvent>) -> GameState {
    loop {
        if let GameEvent::GameState(state) = next_msg(game).await {
            return state;
        }
    }
}

/// States until one satisfies `done`.
async fn state_where(game: &mut NdjsonStream<GameEvent>, done: impl Fn(&GameState) -> bool) -> GameState {
    loop {
        let state = next_state(game).await;
        if done(&state) {
            return state;
        }
    }
}

/// Polls `cond` for up to 5 s without blocking the runtime.
async fn wait_for(server: &FakeLichess, what: &str, cond: impl Fn(&FakeLichess) -> bool) {
    let deadline = Instant::now() + STEP;
    while !cond(server) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}\n{}", server.dump());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A started game with the bot as white and its stream open (after `gameFull`).
struct Table {
    client: Client,
    id: String,
    game: NdjsonStream<GameEvent>,
    /// The ply of the last state `play` returned.
    ply: usize,
}

async fn table(server: &FakeLichess, opponent: Opponent) -> Table {
    let client = client(server);
    let id = server.start_game(ChallengeSpec::standard("bob", 300, 2).color("black").opponent(opponent));
    let mut game = client.stream_game(&id).await.expect("game stream");
    match next_msg(&mut game).await {
        GameEvent::GameFull(full) => assert_eq!(full.id, id),
        other => panic!("expected gameFull, got {other:?}"),
    }
    Table { client, id, game, ply: 0 }
}

impl Table {
    /// Plays `uci` and returns the first state where the bot is on move again, or the game is over.
    async fn play(&mut self, uci: &str, offering_draw: bool) -> GameState {
        let target = self.ply + 2;
        self.client.make_move(&self.id, uci, offering_draw).await.unwrap_or_else(|e| panic!("move {uci}: {e}"));
        let state = state_where(&mut self.game, |s| s.status.is_over() || s.ply() >= target).await;
        self.ply = state.ply();
        state
    }
}

// ---- raw HTTP ----

fn addr(server: &FakeLichess) -> String {
    server.url().trim_start_matches("http://").to_owned()
}

/// Reads one response: status and body (Content-Length bodies only).
fn read_response(socket: &mut TcpStream) -> (u16, String) {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        assert_eq!(socket.read(&mut byte).expect("read"), 1, "connection closed in the head");
        buf.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&buf).into_owned();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("status");
    let length: usize = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap()))
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    socket.read_exact(&mut body).expect("body");
    (status, String::from_utf8_lossy(&body).into_owned())
}

fn raw(server: &FakeLichess, request: &str) -> (u16, String) {
    let mut socket = TcpStream::connect(addr(server)).expect("connect");
    socket.set_read_timeout(Some(STEP)).unwrap();
    socket.write_all(request.as_bytes()).unwrap();
    read_response(&mut socket)
}

fn authed(method: &str, path: &str, content_type: &str, body: &str) -> String {
    format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {FAKE_TOKEN}\r\nContent-Type: {content_type}\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

// ---- tests ----

/// Accept, `gameStart`, `gameFull`, moves against a scripted opponent, clocks, castling written
/// in the configured notation whatever the bot sent, mate, `gameFinish`, stream closed.
async fn castle_and_mate(castling: Castling, castle_sent: &str, castle_stored: &str) {
    let server = FakeLichess::start(FakeConfig { standard_castling: castling, ..FakeConfig::default() });
    let client = client(&server);
    let mut events = client.stream_events().await.unwrap();
    let opponent = Opponent::random(5).moves(&["a7a6", "h7h6", "b7b6", "a6a5", "b6b5"]);
    let id = server.send_challenge(ChallengeSpec::standard("Alice", 60, 0).color("black").rated().opponent(opponent));
    assert_eq!(id.len(), 8);
    match next_msg(&mut events).await {
        Event::Challenge { challenge, compat } => {
            assert_eq!(challenge.id, id);
            assert_eq!(challenge.challenger.user_id(), "alice");
            assert_eq!(challenge.dest_user.as_ref().map(|u| u.user_id()), Some("ferzbot".into()));
            assert_eq!(challenge.final_color, Some(Color::Black));
            assert_eq!(challenge.speed.as_ref().map(|s| s.as_str()), Some("bullet"));
            assert!(challenge.rated);
            assert_eq!(
                challenge.time_control,
                Some(TimeControl::Clock { limit: Some(60), increment: Some(0), show: Some("1+0".into()) })
            );
            assert!(compat.expect("compat").bot);
        }
        other => panic!("expected a challenge, got {other:?}"),
    }
    client.accept_challenge(&id, None).await.unwrap();
    assert_eq!(server.challenge_state(&id), ChallengeState::Accepted { game_id: id.clone() });
    match next_msg(&mut events).await {
        Event::GameStart(info) => {
            assert_eq!(info.id(), id);
            assert_eq!(info.color, Some(Color::White));
            assert_eq!(info.is_my_turn, Some(true));
            assert_eq!(info.opponent.as_ref().map(|o| o.username.as_str()), Some("Alice"));
            assert!(info.compat.expect("compat").bot);
        }
        other => panic!("expected gameStart, got {other:?}"),
    }
    let mut game = client.stream_game(&id).await.unwrap();
    match next_msg(&mut game).await {
        GameEvent::GameFull(full) => {
            assert!(full.white.is("ferzbot") && full.black.is("alice"), "{full:?}");
            assert_eq!(full.initial_fen, "startpos");
            assert_eq!(full.clock.map(|c| (c.initial, c.increment)), Some((60_000, 0)));
            assert_eq!(full.state.moves, "");
            assert_eq!((full.state.wtime, full.state.btime), (60_000, 60_000));
            assert!(full.rated);
        }
        other => panic!("expected gameFull, got {other:?}"),
    }
    let bot_moves = ["e2e4", "f1c4", "g1h3", castle_sent, "d1f3", "f3f7"];
    let mut last = None;
    for (i, uci) in bot_moves.iter().enumerate() {
        if i == 1 {
            // White's clock runs from its second move on.
            tokio::time::sleep(Duration::from_millis(60)).await;
        }
        client.make_move(&id, uci, false).await.unwrap_or_else(|e| panic!("{uci}: {e}"));
        let state = state_where(&mut game, |s| s.status.is_over() || s.ply() == 2 * (i + 1)).await;
        if i == 1 {
            assert!(state.wtime < 60_000 - 50 && state.wtime > 50_000, "white's clock ran: {state:?}");
        }
        last = Some(state);
    }
    let last = last.unwrap();
    assert_eq!(last.status, GameStatus::Mate);
    assert_eq!(last.winner, Some(Color::White));
    assert_eq!(last.move_list().nth(6), Some(castle_stored));
    assert_eq!(last.ply(), 11);
    // The stream closes after the final state.
    loop {
        match next_item(&mut game).await {
            None => break,
            Some(Ok(StreamItem::KeepAlive)) => {}
            other => panic!("expected the end of the game stream, got {other:?}"),
        }
    }
    match next_msg(&mut events).await {
        Event::GameFinish(info) => {
            assert_eq!(info.id(), id);
            assert_eq!(info.winner, Some(Color::White));
            assert_eq!(info.status.map(|s| s.name), Some(GameStatus::Mate));
            assert_eq!(info.rating_diff, Some(8));
        }
        other => panic!("expected gameFinish, got {other:?}"),
    }
    let view = server.game(&id).unwrap();
    assert_eq!(view.moves[6], castle_stored);
    assert_eq!((view.status.as_str(), view.winner.as_deref()), ("mate", Some("white")));
    assert!(view.bot_won());
    let latencies = server.move_latencies();
    assert!(latencies.len() >= 5 && latencies.iter().all(|l| *l < STEP), "{latencies:?}");
}

#[tokio::test]
async fn two_step_server_reads_king_to_rook_and_writes_two_step() {
    castle_and_mate(Castling::TwoStep, "e1h1", "e1g1").await;
}

#[tokio::test]
async fn king_to_rook_server_reads_two_step_and_writes_king_to_rook() {
    castle_and_mate(Castling::KingToRook, "e1g1", "e1h1").await;
}

#[tokio::test]
async fn decline_with_reason_and_stale_accept() {
    let server = FakeLichess::start(FakeConfig::default());
    let client = client(&server);
    let id = server.send_challenge(ChallengeSpec::standard("carol", 15, 0).variant("atomic").bot());
    client.decline_challenge(&id, DeclineReason::TooFast).await.unwrap();
    assert_eq!(server.challenge_state(&id), ChallengeState::Declined { reason: "toofast".into() });
    let error = client.accept_challenge(&id, None).await.unwrap_err();
    assert_eq!(error.status(), Some(404), "{error}");
    // A challenge the challenger canceled is gone too.
    let id = server.send_challenge(ChallengeSpec::standard("carol", 60, 0));
    server.cancel_challenge(&id);
    assert_eq!(server.challenge_state(&id), ChallengeState::Canceled);
    assert_eq!(client.accept_challenge(&id, None).await.unwrap_err().status(), Some(404));
}

#[tokio::test]
async fn event_stream_replays_games_and_pending_challenges_on_reconnect() {
    let server = FakeLichess::start(FakeConfig::default());
    let client = client(&server);
    let game_id = server.start_game(ChallengeSpec::standard("dave", 180, 0));
    let challenge_id = server.send_challenge(ChallengeSpec::standard("erin", 600, 5).days(3));
    let mut first = client.stream_events().await.unwrap();
    assert!(matches!(next_msg(&mut first).await, Event::GameStart(g) if g.id() == game_id));
    match next_msg(&mut first).await {
        Event::Challenge { challenge, .. } => {
            assert_eq!(challenge.id, challenge_id);
            assert_eq!(challenge.time_control, Some(TimeControl::Correspondence { days_per_turn: Some(3) }));
        }
        other => panic!("expected the pending challenge, got {other:?}"),
    }
    let mut second = client.stream_events().await.unwrap();
    // Only one event stream: the first one ends.
    loop {
        match next_item(&mut first).await {
            None => break,
            Some(Ok(StreamItem::KeepAlive)) => {}
            other => panic!("expected the first stream to end, got {other:?}"),
        }
    }
    assert!(matches!(next_msg(&mut second).await, Event::GameStart(g) if g.id() == game_id));
    assert!(matches!(next_msg(&mut second).await, Event::Challenge { challenge, .. } if challenge.id == challenge_id));
    server.cancel_challenge(&challenge_id);
    assert!(matches!(next_msg(&mut second).await, Event::ChallengeCanceled(c) if c.id == challenge_id));
    // Canceled challenges are not replayed.
    let mut third = client.stream_events().await.unwrap();
    assert!(matches!(next_msg(&mut third).await, Event::GameStart(g) if g.id() == game_id));
    server.inject(Fault::EventLine(r#"{"type":"marker"}"#.into()));
    assert!(matches!(next_msg(&mut third).await, Event::Unknown { kind, .. } if kind == "marker"));
    assert_eq!(server.event_stream_connections(), 3);
    // Keep-alives flow.
    assert!(matches!(next_item(&mut third).await, Some(Ok(StreamItem::KeepAlive))));
}

#[tokio::test]
async fn event_stream_faults() {
    let server = FakeLichess::start(FakeConfig::default());
    let client = client_with(&server, FAKE_TOKEN, |c| c.idle_timeout = Duration::from_millis(400));
    let game_id = server.start_game(ChallengeSpec::standard("frank", 300, 0));
    let mut events = client.stream_events().await.unwrap();
    assert!(matches!(next_msg(&mut events).await, Event::GameStart(_)));

    server.inject(Fault::EventLine("{not json".into()));
    server.inject(Fault::DuplicateGameStart { game_id: game_id.clone() });
    loop {
        match next_item(&mut events).await {
            Some(Ok(StreamItem::KeepAlive)) => {}
            Some(Err(e)) => {
                assert!(!e.ends_stream(), "a bad line is not fatal: {e}");
                break;
            }
            other => panic!("expected a decode error, got {other:?}"),
        }
    }
    assert!(matches!(next_msg(&mut events).await, Event::GameStart(g) if g.id() == game_id));

    server.inject(Fault::CloseEventStream);
    loop {
        match next_item(&mut events).await {
            None => break,
            Some(Ok(StreamItem::KeepAlive)) => {}
            other => panic!("expected a clean end, got {other:?}"),
        }
    }

    let mut events = client.stream_events().await.unwrap();
    assert!(matches!(next_msg(&mut events).await, Event::GameStart(_)));
    server.inject(Fault::SilenceEventStream(Duration::from_secs(2)));
    // Only a silence longer than the 400 ms watchdog ends the stream with `Idle`.
    loop {
        match next_item(&mut events).await {
            Some(Ok(StreamItem::KeepAlive)) => {}
            Some(Err(Error::Idle { .. })) => break,
            other => panic!("expected the idle watchdog, got {other:?}"),
        }
    }
    // A new connection is not silent.
    let mut events = client.stream_events().await.unwrap();
    assert!(matches!(next_msg(&mut events).await, Event::GameStart(_)));
    assert!(matches!(next_item(&mut events).await, Some(Ok(StreamItem::KeepAlive))));
    assert_eq!(server.event_stream_connections(), 3);
}

#[tokio::test]
async fn server_errors_and_rate_limits() {
    let server = FakeLichess::start(FakeConfig::default());
    let client = client(&server);
    server.inject(Fault::ServerError { path_contains: "/api/account".into(), times: 1, status: 502 });
    let account = client.account().await.expect("retried after one 502");
    assert!(account.is_bot());
    let statuses: Vec<u16> = server.requests().iter().filter(|r| r.path == "/api/account").map(|r| r.status).collect();
    assert_eq!(statuses, [502, 200]);

    server.inject(Fault::ServerError { path_contains: "/api/account/playing".into(), times: 5, status: 503 });
    let error = client.playing(9).await.unwrap_err();
    assert_eq!(error.status(), Some(503), "{error}");

    server.inject(Fault::RateLimit { path_contains: "/api/users/status".into(), times: 1, retry_after: Some(7) });
    match client.users_status(&["ferzbot"]).await.unwrap_err() {
        Error::RateLimited { retry_after, body, .. } => {
            assert_eq!(retry_after, Duration::from_secs(7));
            assert!(body.contains("too many requests"), "{body}");
        }
        other => panic!("expected a 429, got {other}"),
    }
    // Without effect: a rate-limited move is not played.
    let Table { client, id, .. } = table(&server, Opponent::random(1)).await;
    server.inject(Fault::RateLimit { path_contains: "/move/".into(), times: 1, retry_after: None });
    assert_eq!(client.make_move(&id, "e2e4", false).await.unwrap_err().status(), Some(429));
    assert!(server.game(&id).unwrap().moves.is_empty());
}

#[tokio::test]
async fn game_stream_faults() {
    let server = FakeLichess::start(FakeConfig::default());
    let mut t = table(&server, Opponent::random(2)).await;
    t.play("e2e4", false).await;
    server.inject(Fault::DropGameStream { game_id: t.id.clone() });
    loop {
        match next_item(&mut t.game).await {
            Some(Ok(StreamItem::KeepAlive)) => {}
            Some(Err(e)) => {
                assert!(e.ends_stream(), "{e}");
                break;
            }
            other => panic!("expected a broken stream, got {other:?}"),
        }
    }
    let mut game = t.client.stream_game(&t.id).await.unwrap();
    match next_msg(&mut game).await {
        GameEvent::GameFull(full) => assert_eq!(full.state.ply(), 2),
        other => panic!("expected gameFull, got {other:?}"),
    }
    assert_eq!(server.game(&t.id).unwrap().game_stream_connections, 2);

    // Reopening replaces the previous stream, which ends cleanly.
    let mut newest = t.client.stream_game(&t.id).await.unwrap();
    assert!(matches!(next_msg(&mut newest).await, GameEvent::GameFull(_)));
    loop {
        match next_item(&mut game).await {
            None => break,
            Some(Ok(StreamItem::KeepAlive)) => {}
            other => panic!("expected the replaced stream to end, got {other:?}"),
        }
    }

    server.inject(Fault::RejectMove { game_id: t.id.clone(), times: 1 });
    let error = t.client.make_move(&t.id, "d2d4", false).await.unwrap_err();
    assert_eq!(error.api_message().as_deref(), Some("Not your turn, or game already over"));
    assert_eq!(server.game(&t.id).unwrap().ply(), 2);
    t.client.make_move(&t.id, "d2d4", false).await.unwrap();
    let state = state_where(&mut newest, |s| s.ply() == 4).await;
    assert_eq!(state.move_list().nth(2), Some("d2d4"));
    let unknown = t.client.stream_game("nosuchgm").await.unwrap_err();
    assert_eq!((unknown.status(), unknown.api_message().as_deref()), (Some(404), Some("No such game")));
}

#[tokio::test]
async fn draws() {
    let server = FakeLichess::start(FakeConfig::default());

    // The opponent offers; the bot says no.
    let mut t = table(&server, Opponent::random(3).offer_draw_at(3)).await;
    t.play("e2e4", false).await;
    t.client.make_move(&t.id, "d2d4", false).await.unwrap();
    let state = state_where(&mut t.game, |s| s.bdraw).await;
    assert_eq!(state.ply(), 3, "offered when on move at ply 3");
    let state = state_where(&mut t.game, |s| s.ply() == 4).await;
    assert!(state.bdraw, "the offer stays after the opponent's move");
    t.client.handle_draw(&t.id, false).await.unwrap();
    let state = next_state(&mut t.game).await;
    assert!(!state.bdraw && state.status == GameStatus::Started);
    assert_eq!(server.game(&t.id).unwrap().draw_offers_declined_by_bot, 1);

    // The opponent offers; a move declines.
    let mut t = table(&server, Opponent::random(4).offer_draw_at(1)).await;
    assert!(t.play("e2e4", false).await.bdraw);
    let state = t.play("d2d4", false).await;
    assert!(!state.bdraw && state.status == GameStatus::Started);
    assert_eq!(server.game(&t.id).unwrap().draw_offers_declined_by_bot, 1);

    // The opponent offers; a move with offeringDraw=true accepts, and is not played.
    let mut t = table(&server, Opponent::random(5).offer_draw_at(1)).await;
    assert!(t.play("e2e4", false).await.bdraw);
    let state = t.play("d2d4", true).await;
    assert_eq!((state.status.clone(), state.ply()), (GameStatus::Draw, 2));
    assert_eq!(server.game(&t.id).unwrap().bot_draw_offers, 1);

    // The opponent offers; /draw/yes accepts.
    let mut t = table(&server, Opponent::random(6).offer_draw_at(1)).await;
    assert!(t.play("e2e4", false).await.bdraw);
    t.client.handle_draw(&t.id, true).await.unwrap();
    assert_eq!(next_state(&mut t.game).await.status, GameStatus::Draw);

    // The bot offers with a move; this opponent declines.
    let mut t = table(&server, Opponent::random(7).think(Duration::from_millis(50))).await;
    t.play("e2e4", false).await;
    t.client.make_move(&t.id, "d2d4", true).await.unwrap();
    let offered = next_state(&mut t.game).await;
    assert!(offered.wdraw && offered.ply() == 3, "{offered:?}");
    let replied = next_state(&mut t.game).await;
    assert!(!replied.wdraw && replied.ply() == 4 && replied.status == GameStatus::Started, "{replied:?}");
    assert_eq!(server.game(&t.id).unwrap().bot_draw_offers, 1);

    // The bot offers; this opponent accepts.
    let mut t = table(&server, Opponent::random(8).accepts_draws(true)).await;
    t.play("e2e4", false).await;
    let state = t.play("d2d4", true).await;
    assert_eq!((state.status.clone(), state.ply()), (GameStatus::Draw, 3));
    assert_eq!(server.game(&t.id).unwrap().status, "draw");
}

#[tokio::test]
async fn takebacks() {
    let server = FakeLichess::start(FakeConfig::default());

    // Granted at once: the opponent's move goes.
    let mut t = table(&server, Opponent::random(9).takeback_at(1)).await;
    t.play("e2e4", false).await;
    let proposal = state_where(&mut t.game, |s| s.btakeback).await;
    assert_eq!(proposal.ply(), 2);
    t.client.handle_takeback(&t.id, true).await.unwrap();
    let shorter = next_state(&mut t.game).await;
    assert_eq!((shorter.moves.as_str(), shorter.btakeback), ("e2e4", false));
    let again = next_state(&mut t.game).await;
    assert_eq!(again.ply(), 2, "the opponent plays again");
    assert_eq!(server.game(&t.id).unwrap().takebacks_granted, 1);

    // Granted after the bot moved: both moves go.
    let mut t = table(&server, Opponent::random(10).takeback_at(1).takeback_wait(Duration::from_secs(3))).await;
    t.play("e2e4", false).await;
    state_where(&mut t.game, |s| s.btakeback).await;
    t.client.make_move(&t.id, "d2d4", false).await.unwrap();
    assert_eq!(next_state(&mut t.game).await.ply(), 3);
    t.client.handle_takeback(&t.id, true).await.unwrap();
    assert_eq!(next_state(&mut t.game).await.moves, "e2e4");
    assert_eq!(next_state(&mut t.game).await.ply(), 2);

    // Declined.
    let mut t = table(&server, Opponent::random(11).takeback_at(1)).await;
    t.play("e2e4", false).await;
    state_where(&mut t.game, |s| s.btakeback).await;
    t.client.handle_takeback(&t.id, false).await.unwrap();
    let state = next_state(&mut t.game).await;
    assert!(!state.btakeback && state.ply() == 2);
    assert_eq!(server.game(&t.id).unwrap().takebacks_granted, 0);
}

#[tokio::test]
async fn aborts_resignations_and_the_first_move_timer() {
    let server = FakeLichess::start(FakeConfig::default());
    let client = client(&server);
    let mut events = client.stream_events().await.unwrap();

    // The opponent has white and never moves: the bot aborts.
    let id = server
        .start_game(ChallengeSpec::standard("gina", 60, 0).color("white").opponent(Opponent::random(1).never_move()));
    assert!(matches!(next_msg(&mut events).await, Event::GameStart(g) if g.is_my_turn == Some(false)));
    client.abort(&id).await.unwrap();
    assert!(
        matches!(next_msg(&mut events).await, Event::GameFinish(g) if g.status.as_ref().map(|s| &s.name) == Some(&GameStatus::Aborted))
    );
    assert_eq!(server.game(&id).unwrap().status, "aborted");

    // Resigning while the game can be aborted aborts it.
    let t = table(&server, Opponent::random(2)).await;
    t.client.resign(&t.id).await.unwrap();
    assert_eq!(server.game(&t.id).unwrap().status, "aborted");

    // After two plies: no abort, resign works.
    let mut t = table(&server, Opponent::random(3)).await;
    t.play("e2e4", false).await;
    let error = t.client.abort(&t.id).await.unwrap_err();
    assert_eq!(error.api_message().as_deref(), Some("This game can no longer be aborted"));
    t.client.resign(&t.id).await.unwrap();
    let state = next_state(&mut t.game).await;
    assert_eq!((state.status, state.winner), (GameStatus::Resign, Some(Color::Black)));
    assert_eq!(t.client.resign(&t.id).await.unwrap_err().status(), Some(400));

    // The opponent resigns.
    let mut t = table(&server, Opponent::random(4).resign_at(3)).await;
    t.play("e2e4", false).await;
    let state = t.play("d2d4", false).await;
    assert_eq!((state.status, state.winner), (GameStatus::Resign, Some(Color::White)));

    // lila's first-move timer.
    let timed = FakeLichess::start(FakeConfig {
        abort_on_no_first_move: Some(Duration::from_millis(300)),
        ..FakeConfig::default()
    });
    let timed_client = self::client(&timed);
    let id = timed.start_game(ChallengeSpec::standard("gina", 60, 0).color("black"));
    let mut game = timed_client.stream_game(&id).await.unwrap();
    match next_msg(&mut game).await {
        GameEvent::GameFull(full) if full.state.status == GameStatus::Started => {
            assert_eq!(full.state.expiration.map(|e| e.millis_to_move), Some(300));
            assert_eq!(next_state(&mut game).await.status, GameStatus::Aborted);
        }
        GameEvent::GameFull(full) => assert_eq!(full.state.status, GameStatus::Aborted),
        other => panic!("expected gameFull, got {other:?}"),
    }
    assert_eq!(timed.game(&id).unwrap().status, "aborted");
}

#[tokio::test]
async fn opponent_gone_and_claim_victory() {
    let server = FakeLichess::start(FakeConfig::default());
    let mut t = table(&server, Opponent::random(6).gone_at(1, Duration::from_millis(1500))).await;
    t.client.make_move(&t.id, "e2e4", false).await.unwrap();
    let first = loop {
        if let GameEvent::OpponentGone(gone) = next_msg(&mut t.game).await {
            break gone;
        }
    };
    assert!(first.gone);
    assert_eq!(first.claim_win_in_seconds, Some(2));
    let error = t.client.claim_victory(&t.id).await.unwrap_err();
    assert_eq!(error.api_message().as_deref(), Some("You cannot claim the win on this game"));
    // The countdown reaches 0 on a keep-alive tick.
    loop {
        if let GameEvent::OpponentGone(gone) = next_msg(&mut t.game).await
            && gone.claim_win_in_seconds == Some(0)
        {
            break;
        }
    }
    t.client.claim_victory(&t.id).await.unwrap();
    let state = next_state(&mut t.game).await;
    assert_eq!((state.status, state.winner), (GameStatus::Timeout, Some(Color::White)));
}

#[tokio::test]
async fn challenges_from_the_bot() {
    let server = FakeLichess::start(FakeConfig::default());
    let client = client(&server);
    server.set_online_bots(vec![
        OnlineBot::new("AcceptBot").perf("blitz", 1800, 10),
        OnlineBot::new("DeclineBot"),
        OnlineBot::new("LimitBot"),
    ]);
    server.set_challenge_answer("AcceptBot", ChallengeAnswer::Accept(Opponent::random(9)));
    server.set_challenge_answer("DeclineBot", ChallengeAnswer::Decline("tooFast".into()));
    server.set_challenge_answer("LimitBot", ChallengeAnswer::DailyLimit);
    let bots = client.online_bots(2).await.unwrap();
    assert_eq!(bots.iter().map(|b| b.username.as_str()).collect::<Vec<_>>(), ["AcceptBot", "DeclineBot"]);
    assert!(bots[0].is_bot() && bots[0].perfs["blitz"].rating == Some(1800.0));
    let mut events = client.stream_events().await.unwrap();

    let mut request = ChallengeRequest::clock(180, 2);
    request.color = ChallengeColor::White;
    request.rated = true;
    let challenge = client.create_challenge("AcceptBot", &request).await.unwrap();
    assert_eq!(challenge.direction, Some(Direction::Out));
    assert_eq!(challenge.challenger.user_id(), "ferzbot");
    assert_eq!(challenge.dest_user.as_ref().and_then(|u| u.rating), Some(1800));
    assert_eq!(challenge.speed.as_ref().map(|s| s.as_str()), Some("blitz"));
    // lila shows our own challenge on the event stream too.
    assert!(
        matches!(next_msg(&mut events).await, Event::Challenge { challenge: c, .. } if c.id == challenge.id && c.challenger.user_id() == "ferzbot")
    );
    match next_msg(&mut events).await {
        Event::GameStart(g) => {
            assert_eq!(g.id(), challenge.id);
            assert_eq!(g.color, Some(Color::White));
            assert_eq!(g.rated, Some(true));
        }
        other => panic!("expected gameStart, got {other:?}"),
    }
    let out = &server.outgoing_challenges()[0];
    assert_eq!(out.dest, "AcceptBot");
    assert_eq!(out.state, ChallengeState::Accepted { game_id: challenge.id.clone() });
    assert_eq!((out.field("clock.limit"), out.field("clock.increment")), (Some("180"), Some("2")));
    assert_eq!(
        (out.field("rated"), out.field("color"), out.field("variant")),
        (Some("true"), Some("white"), Some("standard"))
    );
    assert_eq!(server.game(&challenge.id).unwrap().opponent, "acceptbot");

    let declined = client.create_challenge("DeclineBot", &ChallengeRequest::clock(60, 0)).await.unwrap();
    assert!(matches!(next_msg(&mut events).await, Event::Challenge { .. }));
    match next_msg(&mut events).await {
        Event::ChallengeDeclined(c) => {
            assert_eq!(c.id, declined.id);
            assert_eq!(c.decline_reason_key.as_deref(), Some("toofast"));
            assert!(c.decline_reason.unwrap().contains("too fast"));
        }
        other => panic!("expected challengeDeclined, got {other:?}"),
    }
    assert_eq!(server.challenge_state(&declined.id), ChallengeState::Declined { reason: "toofast".into() });

    // A JSON body, as lichess-bot sends it.
    let (status, body) = raw(
        &server,
        &authed(
            "POST",
            "/api/challenge/AcceptBot",
            "application/json",
            r#"{"rated":false,"clock.limit":60,"clock.increment":1}"#,
        ),
    );
    assert_eq!(status, 200, "{body}");
    let json_challenge = server.outgoing_challenges().pop().unwrap();
    assert_eq!((json_challenge.field("clock.limit"), json_challenge.field("rated")), (Some("60"), Some("false")));

    // Cancel before the answer.
    server.set_challenge_answer("slowpoke", ChallengeAnswer::Ignore);
    let pending = client.create_challenge("slowpoke", &ChallengeRequest::clock(60, 0)).await.unwrap();
    client.cancel_challenge(&pending.id).await.unwrap();
    assert_eq!(server.challenge_state(&pending.id), ChallengeState::Canceled);

    // The daily bot-game limit: lila's exact body, and the client holds the endpoint.
    match client.create_challenge("LimitBot", &ChallengeRequest::clock(60, 0)).await.unwrap_err() {
        Error::RateLimited { body, retry_after, .. } => {
            let json: serde_json::Value = serde_json::from_str(&body).unwrap();
            assert_eq!(json["ratelimit"]["key"], "bot.vsBot.day");
            assert_eq!(
                json["error"],
                "You played 100 games against other bots today, please wait before challenging another bot."
            );
            assert_eq!(retry_after, Duration::from_secs(86_398));
        }
        other => panic!("expected the daily limit, got {other}"),
    }
    let refused = server.outgoing_challenges().pop().unwrap();
    assert_eq!((refused.dest.as_str(), refused.state), ("LimitBot", ChallengeState::Refused { status: 429 }));
}

#[tokio::test]
async fn accounts_tokens_and_plain_http() {
    let server = FakeLichess::start(FakeConfig { bot_is_bot: false, ..FakeConfig::default() });
    let client = client(&server);
    let info = client.test_token().await.unwrap().expect("the token is known");
    assert!(info.has_scope("bot:play"));
    assert_eq!(info.user_id.as_deref(), Some("ferzbot"));
    let wrong = client_with(&server, "lip_wrong", |_| {});
    assert_eq!(wrong.test_token().await.unwrap(), None);
    let error = wrong.account().await.unwrap_err();
    assert_eq!((error.status(), error.api_message().as_deref()), (Some(401), Some("No such token")));

    assert!(!client.account().await.unwrap().is_bot());
    let error = client.stream_game("anything").await.unwrap_err();
    assert_eq!(error.status(), Some(400));
    assert!(error.api_message().unwrap().starts_with("This endpoint can only be used with a Bot account."));
    client.upgrade_to_bot().await.unwrap();
    assert!(client.account().await.unwrap().is_bot());
    assert_eq!(client.upgrade_to_bot().await.unwrap_err().status(), Some(400));

    let id = server.start_game(ChallengeSpec::standard("hank", 300, 0).color("black"));
    let playing = client.playing(9).await.unwrap();
    assert_eq!(playing.now_playing.len(), 1);
    assert_eq!((playing.now_playing[0].id(), playing.nb_my_turn), (id.as_str(), Some(1)));
    let _events = client.stream_events().await.unwrap();
    wait_for(&server, "the event stream", |s| s.event_stream_open()).await;
    let status = client.users_status(&["ferzbot", "nobody"]).await.unwrap();
    assert!(status[0].online && status[0].playing && !status[1].online, "{status:?}");
    let ua = server.requests().iter().rev().find_map(|r| r.header("user-agent").map(str::to_owned)).unwrap();
    assert!(ua.contains("user:ferzbot"), "{ua}");

    // Keep-alive: two requests on one connection.
    let mut socket = TcpStream::connect(addr(&server)).unwrap();
    socket.set_read_timeout(Some(STEP)).unwrap();
    socket.write_all(authed("GET", "/api/account", "text/plain", "").as_bytes()).unwrap();
    let (status, body) = read_response(&mut socket);
    assert!(status == 200 && body.contains("\"BOT\""), "{status} {body}");
    socket.write_all(authed("GET", "/api/nothing/here", "text/plain", "").as_bytes()).unwrap();
    assert_eq!(read_response(&mut socket), (404, r#"{"error":"Not found."}"#.to_owned()));
    // Garbage gets a 400, not a dead server.
    assert_eq!(raw(&server, "NONSENSE\r\n\r\n").0, 400);
    let (status, _) = raw(&server, &authed("POST", "/api/bot/game/nosuchid/move/e2e4", "text/plain", ""));
    assert_eq!(status, 404);
    let (status, body) = raw(&server, "GET /api/account HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!((status, body.as_str()), (401, r#"{"error":"Login required"}"#));
}

#[tokio::test]
async fn chess960_and_positions_castle_king_to_rook() {
    let server = FakeLichess::start(FakeConfig::default());
    let client = client(&server);
    let mut events = client.stream_events().await.unwrap();

    let id = server
        .send_challenge(ChallengeSpec::standard("ivan", 300, 3).variant("chess960").opponent(Opponent::random(42)));
    let fen = match next_msg(&mut events).await {
        Event::Challenge { challenge, .. } => {
            assert_eq!(challenge.variant.key, "chess960");
            challenge.initial_fen.expect("a Chess960 challenge shows its position")
        }
        other => panic!("expected a challenge, got {other:?}"),
    };
    client.accept_challenge(&id, None).await.unwrap();
    let mut game = client.stream_game(&id).await.unwrap();
    match next_msg(&mut game).await {
        GameEvent::GameFull(full) => {
            assert_eq!((full.variant.key.as_str(), full.initial_fen.as_str()), ("chess960", fen.as_str()));
            assert_eq!(full.perf.and_then(|p| p.name).as_deref(), Some("Chess960"));
        }
        other => panic!("expected gameFull, got {other:?}"),
    }

    // fromPosition: e1g1 is not castling there.
    let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    let idle = Opponent::random(1).never_move();
    let id = server.start_game(ChallengeSpec::standard("judy", 300, 0).fen(fen).color("black").opponent(idle.clone()));
    let error = client.make_move(&id, "e1g1", false).await.unwrap_err();
    assert_eq!(error.status(), Some(400));
    assert_eq!(server.game(&id).unwrap().illegal_moves_from_bot, ["e1g1"]);
    client.make_move(&id, "e1h1", false).await.unwrap();
    let view = server.game(&id).unwrap();
    assert_eq!(
        (view.variant.as_str(), view.initial_fen.as_str(), view.moves[0].as_str()),
        ("fromPosition", fen, "e1h1")
    );

    // Shredder castling rights: the king takes its rook on g1.
    let fen = "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1";
    let spec = ChallengeSpec::standard("kate", 300, 0).variant("fromPosition").fen(fen).color("black").opponent(idle);
    let id = server.start_game(spec);
    client.make_move(&id, "e1g1", false).await.unwrap();
    let view = server.game(&id).unwrap();
    assert_eq!(view.moves[0], "e1g1");
    assert!(view.fen.starts_with("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R3RK1 b"), "{}", view.fen);
}

#[tokio::test]
async fn move_errors_chat_clocks_and_limits() {
    let server = FakeLichess::start(FakeConfig { max_plies: 6, ..FakeConfig::default() });
    let mut t = table(&server, Opponent::random(12).never_move()).await;
    let error = t.client.make_move(&t.id, "e2e9", false).await.unwrap_err();
    assert_eq!(error.api_message().as_deref(), Some("Invalid UCI: e2e9"));
    let error = t.client.make_move(&t.id, "e2e5", false).await.unwrap_err();
    assert_eq!(error.api_message().as_deref(), Some("Piece on e2 cannot move to e5"));
    assert_eq!(server.game(&t.id).unwrap().illegal_moves_from_bot, ["e2e5"]);

    t.client.chat(&t.id, ChatRoom::Player, "Good luck, have fun").await.unwrap();
    match next_msg(&mut t.game).await {
        GameEvent::ChatLine(line) => {
            assert_eq!((line.username.as_str(), line.text.as_str()), ("ferzbot", "Good luck, have fun"))
        }
        other => panic!("expected chatLine, got {other:?}"),
    }
    assert_eq!(t.client.chat(&t.id, ChatRoom::Spectator, &"x".repeat(141)).await.unwrap_err().status(), Some(400));
    let chat = t.client.read_chat(&t.id).await.unwrap();
    assert_eq!((chat.len(), chat[0].user.as_str()), (1, "ferzbot"));
    assert_eq!(server.game(&t.id).unwrap().chat, [("player".to_owned(), "Good luck, have fun".to_owned())]);

    // Not the bot's turn.
    t.client.make_move(&t.id, "e2e4", false).await.unwrap();
    let error = t.client.make_move(&t.id, "d2d4", false).await.unwrap_err();
    assert_eq!(error.api_message().as_deref(), Some("Not your turn, or game already over"));

    // max_plies = 6: a draw after the opponent's third move.
    let mut t = table(&server, Opponent::random(12)).await;
    t.play("e2e4", false).await;
    t.play("d2d4", false).await;
    let state = t.play("g1f3", false).await;
    assert_eq!((state.status.clone(), state.ply()), (GameStatus::Draw, 6));

    // Out of time: a one-second game whose bot does not move after the opening plies.
    let mut t = table_with_clock(&server, 1).await;
    t.play("e2e4", false).await;
    let state = next_state(&mut t.game).await;
    assert_eq!((state.status, state.winner), (GameStatus::OutOfTime, Some(Color::Black)));
    assert_eq!(state.wtime, 0);
}

async fn table_with_clock(server: &FakeLichess, limit: u32) -> Table {
    let client = client(server);
    let id = server.start_game(ChallengeSpec::standard("lena", limit, 0).color("black"));
    let mut game = client.stream_game(&id).await.unwrap();
    assert!(matches!(next_msg(&mut game).await, GameEvent::GameFull(_)));
    Table { client, id, game, ply: 0 }
}

#[tokio::test]
async fn dropping_the_server_ends_streams_and_threads() {
    let server = FakeLichess::start(FakeConfig::default());
    let t = table(&server, Opponent::random(13)).await;
    let client = client(&server);
    let mut events = client.stream_events().await.unwrap();
    let Table { mut game, .. } = t;
    let started = Instant::now();
    drop(server);
    assert!(started.elapsed() < Duration::from_secs(2), "drop took {:?}", started.elapsed());
    for _ in 0..20 {
        match next_item(&mut events).await {
            Some(Ok(_)) => {}
            _ => break,
        }
    }
    while let Some(Ok(_)) = next_item(&mut game).await {}
}

// ---- PyChess ----

/// A raw response whose body may be a chunked ndjson stream, read line by line.
struct RawResponse {
    socket: TcpStream,
    status: u16,
    /// Decoded body bytes not yet returned as lines.
    pending: Vec<u8>,
    chunked: bool,
    body: String,
}

impl RawResponse {
    fn send(server: &FakeLichess, request: &str) -> RawResponse {
        let mut socket = TcpStream::connect(addr(server)).expect("connect");
        socket.set_read_timeout(Some(STEP)).unwrap();
        socket.write_all(request.as_bytes()).unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            assert_eq!(socket.read(&mut byte).expect("read"), 1, "connection closed in the head");
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
        let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("status");
        let chunked = head.contains("transfer-encoding: chunked");
        let mut body = String::new();
        if !chunked {
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:").map(|v| v.trim().parse().unwrap()))
                .unwrap_or(0);
            let mut bytes = vec![0u8; length];
            socket.read_exact(&mut bytes).expect("body");
            body = String::from_utf8_lossy(&bytes).into_owned();
        }
        RawResponse { socket, status, pending: Vec::new(), chunked, body }
    }

    /// The next line of the stream (without its newline).
    fn line(&mut self) -> String {
        assert!(self.chunked, "not a stream: {} {}", self.status, self.body);
        loop {
            if let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                return String::from_utf8_lossy(&line[..end]).into_owned();
            }
            let mut size_line = Vec::new();
            let mut byte = [0u8; 1];
            while !size_line.ends_with(b"\r\n") {
                assert_eq!(self.socket.read(&mut byte).expect("read a chunk"), 1, "stream closed");
                size_line.push(byte[0]);
            }
            let size = usize::from_str_radix(String::from_utf8_lossy(&size_line).trim(), 16).expect("chunk size");
            assert!(size > 0, "the stream ended");
            let mut data = vec![0u8; size + 2];
            self.socket.read_exact(&mut data).expect("chunk data");
            self.pending.extend_from_slice(&data[..size]);
        }
    }

    /// The next line that is not PyChess's keep-alive, as JSON.
    fn message(&mut self) -> serde_json::Value {
        loop {
            let line = self.line();
            assert!(!line.is_empty(), "PyChess keep-alives are JSON pings, not empty lines");
            let value: serde_json::Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line}: {e}"));
            if value != serde_json::json!({ "type": "ping" }) {
                return value;
            }
        }
    }
}

fn pychess_get(path: &str, token: &str, extra: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n{extra}\r\n")
}

fn json_of(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{body}: {e}"))
}

/// The fake in PyChess mode, on the wire: status codes, the capability header, the shapes of
/// every line, pings, the bare gameEnd without the last move, the game page, the broken second
/// stream, the silent resignation, decimal clocks and the missing endpoints.
#[test]
fn pychess_dialect_on_the_wire() {
    use serde_json::json;
    let server = FakeLichess::start(FakeConfig::pychess());
    // Token test (no auth needed) and account.
    let body = format!("{FAKE_TOKEN},nope");
    let request = format!("POST /api/token/test HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}", body.len());
    let (status, text) = raw(&server, &request);
    assert_eq!(status, 200);
    assert_eq!(
        json_of(&text),
        json!({ FAKE_TOKEN: { "scopes": "bot:play", "userId": "ferzbot", "expires": 1_358_509_698_620_i64 }, "nope": null })
    );
    assert_eq!(raw(&server, &pychess_get("/api/account", "wrong", "")).0, 403);
    let (status, text) = raw(&server, &pychess_get("/api/account", FAKE_TOKEN, ""));
    assert_eq!((status, json_of(&text)), (200, json!({ "id": "ferzbot", "username": "ferzbot", "title": "BOT" })));
    let (_, text) = raw(&server, &pychess_get("/api/account/playing", FAKE_TOKEN, ""));
    assert_eq!(json_of(&text), json!({ "nowPlaying": [] }));
    // The event stream wants the capability header, with a variant PyChess knows.
    assert_eq!(raw(&server, &pychess_get("/api/stream/event", FAKE_TOKEN, "")).0, 400);
    let unknown = "X-PyChess-Bot-Capabilities: {\"version\":1,\"variants\":[\"fischerandom\"]}\r\n";
    let (status, text) = raw(&server, &pychess_get("/api/stream/event", FAKE_TOKEN, unknown));
    assert_eq!((status, text.as_str()), (400, "BOT does not advertise any PyChess-supported variants."));
    let caps = "X-PyChess-Bot-Capabilities: {\"version\":1,\"variants\":[\"standard\",\"shatranj\"]}\r\n";
    let mut events = RawResponse::send(&server, &pychess_get("/api/stream/event", FAKE_TOKEN, caps));
    assert_eq!(events.status, 200);
    assert_eq!(events.line(), r#"{"type":"ping"}"#, "a JSON keep-alive within 500 ms");
    assert_eq!(server.advertised_variants(), [["chess", "shatranj"]]);
    // Chess960 was not announced: never offered. Shatranj is, in PyChess's shape.
    let c960 = server.send_challenge(ChallengeSpec::standard("Carl", 300, 3).variant("chess960"));
    assert_eq!(server.challenge_state(&c960), ChallengeState::NotOffered);
    let fen = "7k/8/8/n7/8/8/1R6/R5K1 w - - 0 1";
    let spec = ChallengeSpec::standard("Alice", 300, 3).variant("shatranj").fen(fen).color("black").rated();
    let id = server.send_challenge(spec.opponent(Opponent::random(1).never_move()));
    assert_eq!(
        events.message(),
        json!({ "type": "challenge", "challenge": {
            "id": id, "challenger": { "name": "Alice", "rating": 1500, "title": "" },
            "variant": { "key": "shatranj" }, "rated": false,
            "timeControl": { "type": "clock", "limit": 300, "increment": 3 },
            "color": "black", "finalColor": "black", "speed": "blitz", "perf": { "name": "shatranj" },
            "level": 0, "chess960": false,
        } })
    );
    let accept = authed("POST", &format!("/api/challenge/{id}/accept"), "text/plain", "");
    assert_eq!(raw(&server, &accept), (200, r#"{"ok":true}"#.to_owned()));
    assert_eq!(
        events.message(),
        json!({ "type": "gameStart", "game": { "id": id, "skill_level": "0", "chess960": "False" } })
    );
    let (status, text) = raw(&server, &authed("POST", "/api/challenge/bob", "text/plain", ""));
    assert_eq!((status, text.as_str()), (403, "BOT accounts cannot create challenges on PyChess."));
    // gameFull: names, the full FEN, createdAt in seconds, the state with seconds and `started`.
    let mut game = RawResponse::send(&server, &pychess_get(&format!("/api/bot/game/stream/{id}"), FAKE_TOKEN, ""));
    let mut full = game.message();
    let created = full["createdAt"].take();
    let now_s = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    assert!((now_s - created.as_i64().unwrap()).abs() < 60, "createdAt in seconds: {created}");
    let state = json!({
        "type": "gameState", "moves": "", "wtime": 300_000, "btime": 300_000, "winc": 3, "binc": 3,
        "wdraw": false, "bdraw": false, "wtakeback": false, "btakeback": false, "status": "started",
    });
    assert_eq!(
        full,
        json!({
            "type": "gameFull", "id": id, "variant": { "name": "shatranj" }, "white": { "name": "ferzbot" },
            "black": { "name": "Alice" }, "initialFen": fen, "createdAt": null, "state": state,
        })
    );
    // One stream per game: a second one starts (200) and breaks at once.
    let (status, text) = raw(&server, &pychess_get(&format!("/api/bot/game/stream/{id}"), FAKE_TOKEN, ""));
    assert_eq!((status, text.as_str()), (200, ""));
    assert_eq!(server.game(&id).unwrap().duplicate_game_streams, 1);
    // No draws, takebacks or claims on PyChess.
    for command in ["draw/yes", "takeback/no", "claim-victory"] {
        let (status, _) = raw(&server, &authed("POST", &format!("/api/bot/game/{id}/{command}"), "text/plain", ""));
        assert_eq!(status, 404, "{command}");
    }
    assert_eq!(server.missing_endpoint_calls().len(), 3, "{:?}", server.missing_endpoint_calls());
    // Rxa5 bares the black king: no state shows the move; the bare gameEnd says it is over.
    let (status, _) = raw(&server, &authed("POST", &format!("/api/bot/game/{id}/move/a1a5"), "text/plain", ""));
    assert_eq!(status, 200);
    assert_eq!(game.message(), json!({ "type": "gameEnd", "game": { "id": id } }));
    let view = server.game(&id).unwrap();
    assert_eq!((view.status.as_str(), view.winner.as_deref()), ("variantEnd", Some("white")));
    // The game's page, open to anyone, holds the record: status code, result, every move.
    let (status, page) = raw(&server, &format!("GET /{id} HTTP/1.1\r\nHost: x\r\n\r\n"));
    assert_eq!(status, 200);
    let start = page.find("data-board=\"").expect("data-board") + "data-board=\"".len();
    let attribute = &page[start..start + page[start..].find('"').unwrap()];
    let board =
        json_of(&attribute.replace("&#34;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"));
    assert_eq!((board["status"].clone(), board["result"].clone()), (json!(12), json!("1-0")), "{board}");
    assert_eq!(board["steps"][1]["move"], json!("a1a5"), "{board}");
    assert_eq!(raw(&server, "GET /nosuchgame HTTP/1.1\r\nHost: x\r\n\r\n").0, 404);
    // Chess960 is `chess` in gameFull; gameStart's string flag tells.
    let c960 = server.start_game(ChallengeSpec::standard("Dora", 60, 1).variant("chess960").color("white"));
    assert_eq!(
        events.message(),
        json!({ "type": "gameStart", "game": { "id": c960, "skill_level": "0", "chess960": "True" } })
    );
    let mut game = RawResponse::send(&server, &pychess_get(&format!("/api/bot/game/stream/{c960}"), FAKE_TOKEN, ""));
    let full = game.message();
    assert_eq!(full["variant"], json!({ "name": "chess" }));
    let initial = full["initialFen"].as_str().unwrap();
    assert_eq!(initial, server.game(&c960).unwrap().initial_fen);
    assert_eq!(full["state"]["winc"], json!(1));
    // A resignation is taken and nobody is told: the stream only pings on.
    let resigned = server.start_game(
        ChallengeSpec::standard("Ed", 30, 2)
            .variant("shatranj")
            .color("random")
            .opponent(Opponent::random(2).never_move()),
    );
    let mut stream =
        RawResponse::send(&server, &pychess_get(&format!("/api/bot/game/stream/{resigned}"), FAKE_TOKEN, ""));
    let full = stream.message();
    // The variant's own start is `""`; a 30-second base gives decimal times.
    assert_eq!(full["initialFen"], json!(""), "{full}");
    assert_eq!((full["state"]["wtime"].clone(), full["state"]["winc"].clone()), (json!(30000.0), json!(2)), "{full}");
    let (status, _) = raw(&server, &authed("POST", &format!("/api/bot/game/{resigned}/resign"), "text/plain", ""));
    assert_eq!(status, 200);
    assert_eq!(server.game(&resigned).unwrap().status, "resign");
    assert_eq!(stream.line(), r#"{"type":"ping"}"#);
}
