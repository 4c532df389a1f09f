//! ndjson streams over real chunked HTTP: messages and keep-alive ticks, the idle watchdog,
//! broken connections, 429 on open, the reconnect limiter, and the PyChess dialect.

mod support;

use std::time::{Duration, Instant};

use ferz_lichess::{Client, Endpoint, Error, Event, GameEvent, GameStatus, NdjsonStream, Platform, StreamItem};
use futures_util::StreamExt;
use serde_json::json;
use support::{FakeServer, Reply, Step, fixture};

type Item<T> = Result<StreamItem<T>, Error>;

async fn collect<T>(stream: NdjsonStream<T>) -> Vec<Item<T>> {
    tokio::time::timeout(Duration::from_secs(5), stream.collect()).await.expect("stream did not end")
}

#[tokio::test]
async fn event_stream_yields_messages_and_keep_alive_ticks() {
    let game_start = fixture("stream-gameStart.json");
    let (head, tail) = game_start.split_at(40);
    let steps = vec![
        Step::Data("\n".into()),
        // A message split across chunks, and two messages in one chunk.
        Step::Data(head.into()),
        Step::Data(format!("{tail}\n")),
        Step::Data(format!("{}\n\n{}\n", fixture("stream-challenge.json"), fixture("stream-challengeCanceled.json"))),
        Step::Data(format!("{}\n", fixture("stream-challengeDeclined.json"))),
        Step::Data(format!("{}\n", fixture("stream-gameFinish.json"))),
        Step::Data("{\"type\":\"somethingNew\",\"x\":1}\n".into()),
        Step::Data("{broken json\n".into()),
        Step::Data(format!("{}\n", fixture("stream-gameStart-ai.json"))),
    ];
    let server = FakeServer::start(move |_, _| Reply::Stream(steps.clone()));
    let items = collect(server.client().stream_events().await.unwrap()).await;
    let kinds: Vec<String> = items
        .iter()
        .map(|item| match item {
            Ok(StreamItem::KeepAlive) => "keep-alive".into(),
            Ok(StreamItem::Message(Event::GameStart(g))) => format!("start {}", g.id()),
            Ok(StreamItem::Message(Event::GameFinish(g))) => format!("finish {}", g.id()),
            Ok(StreamItem::Message(Event::Challenge { challenge, .. })) => format!("challenge {}", challenge.id),
            Ok(StreamItem::Message(Event::ChallengeCanceled(c))) => format!("canceled {}", c.id),
            Ok(StreamItem::Message(Event::ChallengeDeclined(c))) => format!("declined {}", c.id),
            Ok(StreamItem::Message(Event::Unknown { kind, .. })) => format!("unknown {kind}"),
            Err(e) => format!("error ends={}", e.ends_stream()),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "keep-alive",
            "start 0FgNPGRz",
            "challenge jWAgu6ga",
            "keep-alive",
            "canceled BO2kXa9v",
            "declined jWAgu6ga",
            "finish 0FgNPGRz",
            "unknown somethingNew",
            "error ends=false",
            "start RwDo6DN6",
        ]
    );
    let req = &server.requests()[0];
    assert_eq!((req.method.as_str(), req.path.as_str()), ("GET", "/api/stream/event"));
    assert_eq!(req.header("x-pychess-bot-capabilities"), None);
}

#[tokio::test]
async fn game_stream_delivers_a_whole_game() {
    let steps = vec![
        Step::Data(format!("{}\n", fixture("schema-example-GameFullEvent.json"))),
        Step::Data("\n".into()),
        Step::Data(
            "{\"type\":\"gameState\",\"moves\":\"d2d3 e7e5\",\"wtime\":899000,\"btime\":898000,\"winc\":0,\"binc\":0,\"status\":\"started\",\"bdraw\":true}\n"
                .into(),
        ),
        Step::Data(format!("{}\n", fixture("schema-example-ChatLineEvent.json"))),
        Step::Data(format!("{}\n", fixture("schema-example-OpponentGoneEvent.json"))),
        Step::Data(
            "{\"type\":\"gameState\",\"moves\":\"d2d3 e7e5\",\"wtime\":1,\"btime\":2,\"winc\":0,\"binc\":0,\"status\":\"resign\",\"winner\":\"black\"}\n"
                .into(),
        ),
    ];
    let server = FakeServer::start(move |_, _| Reply::Stream(steps.clone()));
    let items = collect(server.client().stream_game("BEOucQJo").await.unwrap()).await;
    assert_eq!(server.requests()[0].path, "/api/bot/game/stream/BEOucQJo");
    assert_eq!(items.len(), 6, "{items:?}");
    let Ok(StreamItem::Message(GameEvent::GameFull(full))) = &items[0] else { panic!("{:?}", items[0]) };
    assert_eq!(full.id, "BEOucQJo");
    assert!(matches!(items[1], Ok(StreamItem::KeepAlive)));
    let Ok(StreamItem::Message(GameEvent::GameState(state))) = &items[2] else { panic!() };
    assert!(state.bdraw && !state.wdraw);
    assert_eq!(state.ply(), 2);
    assert!(matches!(&items[3], Ok(StreamItem::Message(GameEvent::ChatLine(c))) if c.username == "thibault"));
    assert!(matches!(&items[4], Ok(StreamItem::Message(GameEvent::OpponentGone(g))) if g.gone));
    let Ok(StreamItem::Message(GameEvent::GameState(last))) = &items[5] else { panic!() };
    assert_eq!(last.status, GameStatus::Resign);
    assert!(last.status.is_over());
}

#[tokio::test]
async fn the_watchdog_ends_a_silent_stream() {
    let server = FakeServer::start(|_, _| {
        Reply::Stream(vec![Step::Data(format!("{}\n", fixture("stream-gameStart.json"))), Step::Stall])
    });
    let mut stream = server.client().stream_events().await.unwrap();
    assert!(matches!(stream.next().await, Some(Ok(StreamItem::Message(Event::GameStart(_))))));
    let start = Instant::now();
    let err = stream.next().await.unwrap().unwrap_err();
    let waited = start.elapsed();
    assert!(matches!(err, Error::Idle { endpoint: Endpoint::EventStream, idle } if idle == Duration::from_millis(300)));
    assert!(err.ends_stream());
    assert!(waited >= Duration::from_millis(280) && waited < Duration::from_secs(2), "{waited:?}");
    assert!(stream.next().await.is_none(), "nothing after the watchdog fired");
}

#[tokio::test]
async fn keep_alives_keep_a_slow_stream_open() {
    // Keep-alives every 150 ms for 1.2 s, four times the 300 ms watchdog.
    let mut steps = Vec::new();
    for _ in 0..8 {
        steps.push(Step::Sleep(Duration::from_millis(150)));
        steps.push(Step::Data("\n".into()));
    }
    let server = FakeServer::start(move |_, _| Reply::Stream(steps.clone()));
    let items = collect(server.client().stream_game("g").await.unwrap()).await;
    assert_eq!(items.len(), 8);
    assert!(items.iter().all(|i| matches!(i, Ok(StreamItem::KeepAlive))), "{items:?}");
}

#[tokio::test]
async fn a_broken_connection_ends_the_stream_with_a_network_error() {
    let server = FakeServer::start(|_, _| {
        Reply::Stream(vec![
            Step::Data(format!("{}\n", fixture("schema-example-GameFullEvent.json"))),
            Step::Data("{\"type\":\"gameSta".into()),
            Step::Break,
        ])
    });
    let items = collect(server.client().stream_game("g").await.unwrap()).await;
    assert_eq!(items.len(), 2, "{items:?}");
    assert!(matches!(items[0], Ok(StreamItem::Message(GameEvent::GameFull(_)))));
    assert!(matches!(&items[1], Err(e @ Error::Network { endpoint: Endpoint::GameStream, .. }) if e.ends_stream()));
}

#[tokio::test]
async fn a_server_that_never_answers_a_stream_open_times_out() {
    let server = FakeServer::start(|_, _| Reply::Silence);
    let mut config = server.config(Platform::Lichess);
    config.retry.max_retries = 1;
    let start = Instant::now();
    let err = Client::new(config).unwrap().stream_game("g").await.unwrap_err();
    assert!(matches!(err, Error::Idle { endpoint: Endpoint::GameStream, .. }), "{err:?}");
    assert_eq!(server.count(), 2, "retried once");
    assert!(start.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn stream_opens_are_retried_on_5xx() {
    let server = FakeServer::start(|_, i| if i == 0 { Reply::json(502, "") } else { Reply::lines(&[""]) });
    let items = collect(server.client().stream_events().await.unwrap()).await;
    assert_eq!(items.len(), 1);
    assert_eq!(server.count(), 2);
}

#[tokio::test]
async fn retries_of_an_event_stream_open_count_against_the_limit() {
    let server = FakeServer::start(|_, i| if i < 2 { Reply::json(503, "") } else { Reply::lines(&[""]) });
    let mut config = server.config(Platform::Lichess);
    config.max_reconnects = 2;
    config.reconnect_window = Duration::from_millis(400);
    let start = Instant::now();
    collect(Client::new(config).unwrap().stream_events().await.unwrap()).await;
    assert_eq!(server.count(), 3);
    assert!(start.elapsed() >= Duration::from_millis(390), "the third attempt waited: {:?}", start.elapsed());
}

#[tokio::test]
async fn a_429_on_the_event_stream_holds_it() {
    let server = FakeServer::start(|_, _| {
        Reply::json(429, json!({"error": "Please don't poll this endpoint, it is intended to be streamed."}))
    });
    let client = server.client();
    let err = client.stream_events().await.unwrap_err();
    assert!(
        matches!(err, Error::RateLimited { endpoint: Endpoint::EventStream, retry_after, .. } if retry_after == Duration::from_secs(60))
    );
    let again = client.stream_events().await.unwrap_err();
    assert!(matches!(again, Error::RateLimited { .. }));
    assert_eq!(server.count(), 1, "no request while held");
    // Game streams are a different endpoint.
    assert!(client.held_for(Endpoint::GameStream).is_none());
}

#[tokio::test]
async fn event_stream_reconnects_are_limited() {
    // A server that closes every event stream at once: a naive reconnect loop would spin.
    let server = FakeServer::start(|_, _| Reply::lines(&[""]));
    let mut config = server.config(Platform::Lichess);
    config.max_reconnects = 3;
    config.reconnect_window = Duration::from_millis(400);
    let client = Client::new(config).unwrap();
    let start = Instant::now();
    let mut opened_at = Vec::new();
    for _ in 0..5 {
        let stream = client.stream_events().await.unwrap();
        opened_at.push(start.elapsed());
        collect(stream).await;
    }
    assert!(opened_at[2] < Duration::from_millis(300), "{opened_at:?}");
    assert!(opened_at[3] >= Duration::from_millis(390), "4th open waits for the window: {opened_at:?}");
    assert!(opened_at[4] >= Duration::from_millis(390), "{opened_at:?}");
    assert_eq!(server.count(), 5);
    // Game streams are not limited.
    let start = Instant::now();
    for _ in 0..5 {
        collect(client.stream_game("g").await.unwrap()).await;
    }
    assert!(start.elapsed() < Duration::from_millis(300));
}

#[tokio::test]
async fn pychess_event_stream_dialect() {
    let server = FakeServer::start(|_, _| {
        Reply::lines(&[
            "{\"type\":\"ping\"}",
            "{\"type\": \"gameStart\", \"game\": {\"id\": \"pyGame01\", \"skill_level\": \"0\", \"chess960\": \"True\"}}",
            "{\"type\": \"challenge\", \"challenge\": {\"id\": \"pyChal01\", \"challenger\": {\"name\": \"Alice\", \"rating\": 1500, \"title\": \"\"}, \"variant\": {\"key\": \"shatranj\"}, \"rated\": false, \"timeControl\": {\"type\": \"clock\", \"limit\": 300, \"increment\": 3}, \"color\": \"random\", \"finalColor\": \"white\", \"speed\": \"blitz\", \"perf\": {\"name\": \"shatranj\"}, \"level\": 0, \"chess960\": false}}",
        ])
    });
    let client = Client::new(server.config(Platform::PyChess)).unwrap();
    let items = collect(client.stream_events().await.unwrap()).await;
    assert!(matches!(items[0], Ok(StreamItem::KeepAlive)));
    assert!(
        matches!(&items[1], Ok(StreamItem::Message(Event::GameStart(g))) if g.id() == "pyGame01" && g.chess960 == Some(true))
    );
    assert!(
        matches!(&items[2], Ok(StreamItem::Message(Event::Challenge { challenge, .. })) if challenge.variant.key == "shatranj")
    );

    let caps = server.requests()[0].header("x-pychess-bot-capabilities").expect("capabilities header").to_owned();
    let caps: serde_json::Value = serde_json::from_str(&caps).unwrap();
    assert_eq!(caps, json!({"version": 1, "variants": ["chess", "chess960", "shatranj"]}));
}

#[tokio::test]
async fn pychess_game_stream_dialect() {
    let server = FakeServer::start(|_, _| {
        Reply::lines(&[
            "{\"type\": \"gameFull\", \"id\": \"pyGame01\", \"variant\": {\"name\": \"shatranj\"}, \"white\": {\"name\": \"Alice\"}, \"black\": {\"name\": \"FerzBot\"}, \"initialFen\": \"rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1\", \"createdAt\": 1700000000, \"state\": {\"type\": \"gameState\", \"moves\": \"\", \"wtime\": 300000, \"btime\": 300000, \"winc\": 3, \"binc\": 3, \"wdraw\": false, \"bdraw\": false, \"wtakeback\": false, \"btakeback\": false, \"status\": \"started\"}}",
            "{\"type\":\"ping\"}",
            "{\"type\": \"gameState\", \"moves\": \"e2e3\", \"wtime\": 299000, \"btime\": 300000, \"winc\": 3, \"binc\": 3, \"wdraw\": false, \"bdraw\": false, \"wtakeback\": false, \"btakeback\": false, \"status\": \"started\"}",
            "{\"type\": \"chatLine\", \"username\": \"Alice\", \"text\": \"hi\", \"room\": \"player\"}",
            "{\"type\": \"gameEnd\", \"game\": {\"id\": \"pyGame01\"}}",
        ])
    });
    let client = Client::new(server.config(Platform::PyChess)).unwrap();
    let items = collect(client.stream_game("pyGame01").await.unwrap()).await;
    assert_eq!(items.len(), 5, "{items:?}");
    let Ok(StreamItem::Message(GameEvent::GameFull(full))) = &items[0] else { panic!("{:?}", items[0]) };
    assert_eq!((full.created_at, full.state.winc), (Some(1_700_000_000_000), 3000));
    assert!(full.black.is("ferzbot"));
    assert!(matches!(items[1], Ok(StreamItem::KeepAlive)));
    assert!(
        matches!(&items[2], Ok(StreamItem::Message(GameEvent::GameState(s))) if s.binc == 3000 && s.moves == "e2e3")
    );
    assert!(matches!(&items[4], Ok(StreamItem::Message(GameEvent::GameEnd { id: Some(id) })) if id == "pyGame01"));
    // The capability header goes on the event stream only.
    assert_eq!(server.requests()[0].header("x-pychess-bot-capabilities"), None);
}

#[tokio::test]
async fn pychess_duplicate_game_stream_and_bad_token() {
    let server = FakeServer::start(|req, _| {
        if req.path.contains("stream") {
            Reply::json(409, json!({"error": "game stream already active"}))
        } else {
            Reply::json(403, json!({"error": "Invalid token"}))
        }
    });
    let client = Client::new(server.config(Platform::PyChess)).unwrap();
    let err = client.stream_game("g").await.unwrap_err();
    assert_eq!((err.status(), err.is_final()), (Some(409), true));
    let err = client.account().await.unwrap_err();
    assert_eq!(err.status(), Some(403));
    assert_eq!(server.count(), 2);
}
