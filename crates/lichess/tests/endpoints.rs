//! Every endpoint's method, path, query, body and headers, and the request policy (retries,
//! final 4xx, 429 holds, redaction), over real HTTP on 127.0.0.1.

mod support;

use std::time::Duration;

use ferz_lichess::models::ChallengeColor;
use ferz_lichess::{
    ChallengeRequest, ChallengeTime, ChatRoom, Client, Color, DeclineReason, Endpoint, Error, Platform, Token,
};
use serde_json::json;
use support::{FakeServer, Reply, Request, TOKEN, fixture};

/// Answers like Lichess for every endpoint a bot uses.
fn lichess(req: &Request, _: usize) -> Reply {
    match (req.method.as_str(), req.path.as_str()) {
        ("GET", "/api/account") => Reply::json(200, fixture("account-getMyProfile.json")),
        ("GET", "/api/account/playing") => {
            Reply::json(200, json!({"nowPlaying": [{"gameId": "g1", "fullId": "g1xxxxxx"}], "nbMyTurn": 0}))
        }
        ("POST", "/api/token/test") => Reply::json(
            200,
            json!({ TOKEN: {"userId": "ferzbot", "scopes": "bot:play,challenge:read", "expires": null}, "lip_other": null }),
        ),
        ("GET", "/api/bot/online") => Reply::json(
            200,
            format!(
                "{}\n{}\nnot json\n\n",
                fixture("bot-getOnlineBots.json"),
                json!({"id": "b2", "username": "B2", "title": "BOT"})
            ),
        ),
        ("GET", "/api/users/status") => {
            Reply::json(200, json!([{"id": "ferzbot", "name": "FerzBot", "title": "BOT", "online": true}]))
        }
        ("GET", "/game/export/game0001") => {
            Reply::Full { status: 200, headers: vec![], body: "[Event \"x\"]\n\n1. e4 *\n".into() }
        }
        ("GET", "/api/bot/game/game0001/chat") => Reply::json(200, fixture("schema-example-PlayerGameChat.json")),
        ("POST", "/api/challenge/bobby") => Reply::json(200, fixture("challenges-createChallenge.json")),
        ("POST", _) => Reply::ok(),
        _ => Reply::json(404, json!({"error": "Not found."})),
    }
}

#[tokio::test]
async fn every_endpoint_sends_the_right_request() {
    let server = FakeServer::start(lichess);
    let client = server.client();
    let g = "game0001";

    client.make_move(g, "e2e4", false).await.unwrap();
    client.make_move(g, "e7e8q", true).await.unwrap();
    client.chat(g, ChatRoom::Player, "good luck & have fun").await.unwrap();
    client.chat(g, ChatRoom::Spectator, "hi").await.unwrap();
    let chat = client.read_chat(g).await.unwrap();
    client.abort(g).await.unwrap();
    client.resign(g).await.unwrap();
    client.handle_draw(g, true).await.unwrap();
    client.handle_draw(g, false).await.unwrap();
    client.handle_takeback(g, true).await.unwrap();
    client.handle_takeback(g, false).await.unwrap();
    client.claim_victory(g).await.unwrap();
    client.claim_draw(g).await.unwrap();
    client.accept_challenge("chal0001", None).await.unwrap();
    client.accept_challenge("chal0002", Some(Color::Black)).await.unwrap();
    client.decline_challenge("chal0003", DeclineReason::TooFast).await.unwrap();
    let mut request = ChallengeRequest::clock(180, 2);
    request.rated = true;
    let created = client.create_challenge("bobby", &request).await.unwrap();
    client.cancel_challenge("chal0004").await.unwrap();
    let account = client.account().await.unwrap();
    let playing = client.playing(50).await.unwrap();
    let token = client.test_token().await.unwrap().unwrap();
    client.upgrade_to_bot().await.unwrap();
    let bots = client.online_bots(512).await.unwrap();
    let status = client.users_status(&["ferzbot", "other"]).await.unwrap();
    let pgn = client.export_game(g).await.unwrap();

    // The answers decoded.
    assert_eq!(chat.len(), 3);
    assert_eq!(created.id, "uGK4MHaQ");
    assert!(!account.id.is_empty());
    assert_eq!(playing.now_playing[0].id(), "g1");
    assert!(token.has_scope("bot:play"));
    assert_eq!(token.user_id.as_deref(), Some("ferzbot"));
    assert_eq!(bots.iter().map(|b| b.id.as_str()).collect::<Vec<_>>(), ["bernstein-2ply", "b2"], "bad line skipped");
    assert!(status[0].online);
    assert!(pgn.starts_with("[Event"));

    let form = "application/x-www-form-urlencoded";
    #[rustfmt::skip]
    let expected: Vec<(&str, &str, &str, Option<&str>, String)> = vec![
        ("POST", "/api/bot/game/game0001/move/e2e4", "offeringDraw=false", None, String::new()),
        ("POST", "/api/bot/game/game0001/move/e7e8q", "offeringDraw=true", None, String::new()),
        ("POST", "/api/bot/game/game0001/chat", "", Some(form), "room=player&text=good+luck+%26+have+fun".into()),
        ("POST", "/api/bot/game/game0001/chat", "", Some(form), "room=spectator&text=hi".into()),
        ("GET", "/api/bot/game/game0001/chat", "", None, String::new()),
        ("POST", "/api/bot/game/game0001/abort", "", None, String::new()),
        ("POST", "/api/bot/game/game0001/resign", "", None, String::new()),
        ("POST", "/api/bot/game/game0001/draw/yes", "", None, String::new()),
        ("POST", "/api/bot/game/game0001/draw/no", "", None, String::new()),
        ("POST", "/api/bot/game/game0001/takeback/yes", "", None, String::new()),
        ("POST", "/api/bot/game/game0001/takeback/no", "", None, String::new()),
        ("POST", "/api/bot/game/game0001/claim-victory", "", None, String::new()),
        ("POST", "/api/bot/game/game0001/claim-draw", "", None, String::new()),
        ("POST", "/api/challenge/chal0001/accept", "", None, String::new()),
        ("POST", "/api/challenge/chal0002/accept", "color=black", None, String::new()),
        ("POST", "/api/challenge/chal0003/decline", "", Some(form), "reason=tooFast".into()),
        ("POST", "/api/challenge/bobby", "", Some(form),
            "rated=true&clock.limit=180&clock.increment=2&color=random&variant=standard".into()),
        ("POST", "/api/challenge/chal0004/cancel", "", None, String::new()),
        ("GET", "/api/account", "", None, String::new()),
        ("GET", "/api/account/playing", "nb=50", None, String::new()),
        ("POST", "/api/token/test", "", Some("text/plain"), TOKEN.into()),
        ("POST", "/api/bot/account/upgrade", "", None, String::new()),
        ("GET", "/api/bot/online", "nb=512", None, String::new()),
        ("GET", "/api/users/status", "ids=ferzbot%2Cother", None, String::new()),
        ("GET", "/game/export/game0001", "", None, String::new()),
    ];
    let seen = server.requests();
    assert_eq!(seen.len(), expected.len());
    let user_agent = format!("ferz/{} user:FerzBot", env!("CARGO_PKG_VERSION"));
    for (req, (method, path, query, content_type, body)) in seen.iter().zip(&expected) {
        let what = format!("{} {}", req.method, req.path);
        assert_eq!((req.method.as_str(), req.path.as_str(), req.query.as_str()), (*method, *path, *query), "{what}");
        assert_eq!(req.header("content-type"), *content_type, "{what}");
        assert_eq!(&req.body, body, "{what}");
        assert_eq!(req.header("authorization"), Some(format!("Bearer {TOKEN}").as_str()), "{what}");
        assert_eq!(req.header("user-agent"), Some(user_agent.as_str()), "{what}");
        if req.method == "POST" && req.body.is_empty() {
            assert_eq!(req.header("content-length"), Some("0"), "{what}: empty POSTs say so, like curl -d ''");
        }
        assert_eq!(req.header("x-pychess-bot-capabilities"), None, "{what}");
    }
}

#[test]
fn client_and_streams_can_move_between_tasks() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Client>();
    send_sync::<Error>();
    send::<ferz_lichess::EventStream>();
    send::<ferz_lichess::GameStream>();
}

#[tokio::test]
async fn with_username_changes_only_the_user_agent() {
    let server =
        FakeServer::start(|req, _| if req.path.contains("/move/") { Reply::html_429(Some("30")) } else { Reply::ok() });
    let mut config = server.config(Platform::Lichess);
    config.username = None;
    let anonymous = Client::new(config).unwrap();
    anonymous.abort("g").await.unwrap();
    let _ = anonymous.make_move("g", "e2e4", false).await;
    let named = anonymous.with_username("NewName").unwrap();
    named.abort("g").await.unwrap();
    let agents: Vec<_> = server.requests().iter().map(|r| r.header("user-agent").unwrap().to_owned()).collect();
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(agents, [format!("ferz/{version}"), format!("ferz/{version}"), format!("ferz/{version} user:NewName")]);
    assert!(named.held_for(Endpoint::Move).is_some(), "the 429 hold is shared");
    assert_eq!(named.config().username.as_deref(), Some("NewName"));
}

#[tokio::test]
async fn every_decline_reason_is_sent_in_the_form() {
    let server = FakeServer::start(lichess);
    let client = server.client();
    for reason in DeclineReason::ALL {
        client.decline_challenge("c", reason).await.unwrap();
    }
    let sent: Vec<String> = server.requests().iter().map(|r| r.form()[0].1.clone()).collect();
    assert_eq!(
        sent,
        [
            "generic",
            "later",
            "tooFast",
            "tooSlow",
            "timeControl",
            "rated",
            "casual",
            "standard",
            "variant",
            "noBot",
            "onlyBot"
        ]
    );
}

#[tokio::test]
async fn challenge_forms_for_each_time_control() {
    let server = FakeServer::start(lichess);
    let client = server.client();
    let mut request = ChallengeRequest::clock(60, 1);
    request.time = ChallengeTime::Correspondence { days: 2 };
    request.color = ChallengeColor::Black;
    request.variant = "fromPosition".into();
    request.fen = Some("rbqnkrbn/pppppppp/8/8/8/8/PPPPPPPP/RBQ1KRBN w AFaf - 0 1".into());
    client.create_challenge("bobby", &request).await.unwrap();
    request.time = ChallengeTime::Unlimited;
    request.fen = None;
    request.rules = vec!["noAbort".into()];
    client.create_challenge("bobby", &request).await.unwrap();
    let forms: Vec<_> = server.requests().iter().map(Request::form).collect();
    let pairs = |v: &[(&str, &str)]| v.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>();
    assert_eq!(
        forms[0],
        pairs(&[
            ("rated", "false"),
            ("days", "2"),
            ("color", "black"),
            ("variant", "fromPosition"),
            ("fen", "rbqnkrbn/pppppppp/8/8/8/8/PPPPPPPP/RBQ1KRBN w AFaf - 0 1")
        ])
    );
    assert_eq!(
        forms[1],
        pairs(&[("rated", "false"), ("color", "black"), ("variant", "fromPosition"), ("rules", "noAbort")])
    );
}

#[tokio::test]
async fn path_segments_are_escaped() {
    let server = FakeServer::start(lichess);
    server.client().accept_challenge("../../account/x", None).await.unwrap();
    assert_eq!(server.requests()[0].path, "/api/challenge/..%2F..%2Faccount%2Fx/accept");
}

#[tokio::test]
async fn a_base_url_path_prefix_is_kept() {
    let server = FakeServer::start(lichess);
    let mut config = server.config(Platform::Lichess);
    config.base_url = format!("{}/prefix/", server.url());
    Client::new(config).unwrap().abort("g").await.unwrap();
    assert_eq!(server.requests()[0].path, "/prefix/api/bot/game/g/abort");
}

#[tokio::test]
async fn client_errors_are_final_and_carry_status_and_body() {
    let server = FakeServer::start(|_, _| Reply::json(400, json!({"error": "Not your turn, or game already over"})));
    let err = server.client().make_move("g", "e2e4", false).await.unwrap_err();
    assert_eq!(server.count(), 1, "a 4xx is not retried");
    assert_eq!(err.status(), Some(400));
    assert_eq!(err.endpoint(), Some(Endpoint::Move));
    assert!(err.is_final());
    assert_eq!(err.api_message().as_deref(), Some("Not your turn, or game already over"));
    assert!(err.body().unwrap().contains("Not your turn"));
    assert!(err.to_string().contains("move: HTTP 400"), "{err}");
}

#[tokio::test]
async fn not_found_and_forbidden_are_final() {
    for status in [401, 403, 404] {
        let server = FakeServer::start(move |_, _| Reply::json(status, json!({"error": "No such game"})));
        let err = server.client().stream_game("nogame00").await.unwrap_err();
        assert_eq!((err.status(), server.count()), (Some(status), 1));
        assert_eq!(err.api_message().as_deref(), Some("No such game"));
    }
}

#[tokio::test]
async fn server_errors_are_retried_then_succeed() {
    let server = FakeServer::start(|_, i| if i < 2 { Reply::json(503, "<html>busy</html>") } else { Reply::ok() });
    server.client().make_move("g", "e2e4", false).await.unwrap();
    assert_eq!(server.count(), 3);
    // Each retry resends the same request.
    let reqs = server.requests();
    assert!(reqs.iter().all(|r| r.path == reqs[0].path && r.query == reqs[0].query));
}

#[tokio::test]
async fn server_errors_give_up_after_the_retries() {
    let server = FakeServer::start(|_, _| Reply::json(502, "bad gateway"));
    let err = server.client().account().await.unwrap_err();
    assert_eq!(server.count(), 4, "1 attempt + 3 retries");
    assert!(matches!(&err, Error::Status { status: 502, body, .. } if body == "bad gateway"), "{err:?}");
    assert!(!err.is_final());
}

#[tokio::test]
async fn network_errors_are_retried() {
    let server = FakeServer::start(|_, i| if i == 0 { Reply::Hangup } else { Reply::ok() });
    server.client().resign("g").await.unwrap();
    assert_eq!(server.count(), 2);

    let server = FakeServer::start(|_, _| Reply::Hangup);
    let err = server.client().resign("g").await.unwrap_err();
    assert!(matches!(err, Error::Network { endpoint: Endpoint::Resign, .. }), "{err:?}");
    assert_eq!(server.count(), 4);
}

#[tokio::test]
async fn retries_back_off_with_jitter() {
    let server = FakeServer::start(|_, _| Reply::json(500, ""));
    let mut config = server.config(Platform::Lichess);
    config.retry.initial_backoff = Duration::from_millis(40);
    config.retry.max_backoff = Duration::from_millis(80);
    let start = std::time::Instant::now();
    let _ = Client::new(config).unwrap().abort("g").await;
    // Backoffs 20–40, 40–80, 40–80 ms: at least 100 ms in all.
    assert!(start.elapsed() >= Duration::from_millis(100), "{:?}", start.elapsed());
}

#[tokio::test]
async fn html_429_holds_the_endpoint_for_retry_after() {
    let server =
        FakeServer::start(|req, _| if req.path.contains("/move/") { Reply::html_429(Some("7")) } else { Reply::ok() });
    let client = server.client();
    let err = client.make_move("g", "e2e4", false).await.unwrap_err();
    let Error::RateLimited { endpoint, retry_after, body } = &err else { panic!("{err:?}") };
    assert_eq!((*endpoint, *retry_after), (Endpoint::Move, Duration::from_secs(7)));
    assert!(body.contains("too many requests"));
    assert_eq!((err.status(), err.retry_after()), (Some(429), Some(Duration::from_secs(7))));
    assert_eq!(server.count(), 1, "a 429 is not retried");

    // The endpoint is held: no request leaves, in any game.
    let held = client.make_move("other", "d2d4", false).await.unwrap_err();
    assert!(matches!(held, Error::RateLimited { endpoint: Endpoint::Move, retry_after, .. }
        if retry_after > Duration::from_secs(6) && retry_after <= Duration::from_secs(7)));
    assert_eq!(server.count(), 1);
    assert!(client.held_for(Endpoint::Move).is_some());
    // Clones share the holds.
    assert!(client.clone().make_move("g", "e2e4", false).await.is_err());
    assert_eq!(server.count(), 1);

    // Other endpoints are not held.
    client.chat("g", ChatRoom::Player, "still here").await.unwrap();
    assert_eq!(server.count(), 2);
    assert_eq!(client.held_for(Endpoint::Chat), None);
}

#[tokio::test]
async fn a_429_without_retry_after_holds_for_the_configured_default() {
    let server = FakeServer::start(|_, _| Reply::html_429(None));
    let err = server.client().account().await.unwrap_err();
    assert!(matches!(err, Error::RateLimited { retry_after, .. } if retry_after == Duration::from_secs(60)), "{err:?}");

    // The daily bot-game limit says how long in its JSON body.
    let server = FakeServer::start(|_, _| {
        Reply::json(
            429,
            json!({"error": "You played 100 games against other bots today, please wait before challenging another bot.",
            "ratelimit": {"key": "bot.vsBot.day", "seconds": 86398}}),
        )
    });
    let err = server.client().create_challenge("bobby", &ChallengeRequest::clock(60, 1)).await.unwrap_err();
    assert!(
        matches!(err, Error::RateLimited { retry_after, .. } if retry_after == Duration::from_secs(86398)),
        "{err:?}"
    );
    assert!(err.api_message().unwrap().starts_with("You played 100 games"));
}

#[tokio::test]
async fn the_token_never_shows() {
    // A server that echoes the Authorization header in its error body.
    let server = FakeServer::start(|req, _| {
        Reply::json(401, json!({"error": format!("bad token: {}", req.header("authorization").unwrap_or(""))}))
    });
    let client = server.client();
    let err = client.account().await.unwrap_err();
    assert_eq!(err.status(), Some(401));
    for text in [format!("{err}"), format!("{err:?}"), format!("{client:?}"), format!("{:?}", client.config())] {
        assert!(!text.contains(TOKEN), "token leaked: {text}");
    }
    assert!(err.body().unwrap().contains("<redacted>"));
    assert!(format!("{client:?}").contains("<redacted>"));

    // A token-test answer that is not JSON as expected, echoing the token.
    let server = FakeServer::start(|_, _| Reply::json(200, format!("{{\"{TOKEN}\": [oops")));
    let err = server.client().test_token().await.unwrap_err();
    assert!(matches!(err, Error::Decode { .. }));
    assert!(!format!("{err} {err:?}").contains(TOKEN));
}

#[tokio::test]
async fn an_invalid_token_tests_as_none() {
    let server = FakeServer::start(|_, _| Reply::json(200, json!({ TOKEN: null })));
    assert_eq!(server.client().test_token().await.unwrap(), None);
}

#[tokio::test]
async fn bad_configuration_is_refused() {
    let mut config = ferz_lichess::ClientConfig::new("ftp://example.invalid", Token::new(TOKEN));
    assert!(matches!(Client::new(config.clone()), Err(Error::Config(_))));
    config.base_url = "not a url".into();
    assert!(matches!(Client::new(config.clone()), Err(Error::Config(_))));
    config.base_url = "http://127.0.0.1:9".into();
    config.token = Token::new("bad\ntoken");
    let err = Client::new(config).unwrap_err();
    assert!(!err.to_string().contains("bad\ntoken"));
}

#[tokio::test]
async fn pychess_refuses_missing_endpoints_without_a_request() {
    let server = FakeServer::start(lichess);
    let client = Client::new(server.config(Platform::PyChess)).unwrap();
    let results = [
        client.handle_draw("g", true).await,
        client.handle_takeback("g", false).await,
        client.claim_victory("g").await,
        client.claim_draw("g").await,
        client.cancel_challenge("c").await,
        client.create_challenge("bobby", &ChallengeRequest::clock(60, 0)).await.map(drop),
        client.online_bots(10).await.map(drop),
        client.users_status(&["a"]).await.map(drop),
        client.export_game("g").await.map(drop),
        client.read_chat("g").await.map(drop),
    ];
    for result in results {
        let err = result.unwrap_err();
        assert!(matches!(err, Error::Unsupported { platform: Platform::PyChess, .. }), "{err:?}");
        assert!(err.is_final());
    }
    assert_eq!(server.count(), 0);
    // What PyChess has still works.
    client.make_move("g", "e2e4", false).await.unwrap();
    client.accept_challenge("c", None).await.unwrap();
    client.decline_challenge("c", DeclineReason::Variant).await.unwrap();
    assert_eq!(server.count(), 3);
}

#[tokio::test]
async fn services_answer_once_within_their_timeout_and_429_holds_them() {
    let server = FakeServer::start(|req, _| match req.path.as_str() {
        "/api/cloud-eval" => Reply::json(200, json!({"fen": "x", "depth": 30, "pvs": []})),
        "/unknown" => Reply::json(404, json!({"error": "Not found."})),
        "/garbled" => Reply::json(200, "{\"pvs\": ["),
        "/busy" => Reply::html_429(Some("9")),
        "/flaky" => Reply::json(503, "{}"),
        _ => Reply::Silence,
    });
    let client = server.client();
    let url = |path: &str| format!("{}{path}", server.url());
    let second = Duration::from_secs(1);
    let query = [("fen", "8/8/8/8 w - - 0 1".to_owned()), ("multiPv", "2".to_owned())];
    let answer: serde_json::Value =
        client.get_service_json(Endpoint::CloudEval, &url("/api/cloud-eval"), &query, second).await.unwrap();
    assert_eq!(answer["depth"], 30);
    let sent = &server.requests()[0];
    assert_eq!(sent.query_param("fen").as_deref(), Some("8/8/8/8 w - - 0 1"));
    assert_eq!(sent.query_param("multiPv").as_deref(), Some("2"));
    assert_eq!(sent.header("authorization"), Some(format!("Bearer {TOKEN}").as_str()), "the server's own host");
    assert!(sent.header("user-agent").unwrap().starts_with("ferz/"));

    // Another host (here `localhost` for the base's 127.0.0.1) never sees the token, nor does
    // chessdb.cn on any host.
    let foreign = url("/api/cloud-eval").replace("127.0.0.1", "localhost");
    let _: serde_json::Value = client.get_service_json(Endpoint::CloudEval, &foreign, &[], second).await.unwrap();
    assert_eq!(server.requests()[1].header("authorization"), None);
    let _: serde_json::Value =
        client.get_service_json(Endpoint::ChessDb, &url("/api/cloud-eval"), &[], second).await.unwrap();
    assert_eq!(server.requests()[2].header("authorization"), None);

    let get = |path: &'static str, endpoint: Endpoint| {
        let client = client.clone();
        let url = url(path);
        async move { client.get_service_json::<serde_json::Value>(endpoint, &url, &[], second).await.unwrap_err() }
    };
    assert_eq!(get("/unknown", Endpoint::ExplorerMasters).await.status(), Some(404));
    assert!(matches!(get("/garbled", Endpoint::ExplorerMasters).await, Error::Decode { .. }));
    let count = server.count();
    assert_eq!(get("/flaky", Endpoint::ExplorerMasters).await.status(), Some(503));
    assert_eq!(server.count(), count + 1, "a service is never retried");
    let start = std::time::Instant::now();
    let slow = client
        .get_service_json::<serde_json::Value>(
            Endpoint::ExplorerLichess,
            &url("/slow"),
            &[],
            Duration::from_millis(200),
        )
        .await
        .unwrap_err();
    assert!(matches!(slow, Error::Timeout { endpoint: Endpoint::ExplorerLichess, .. }), "{slow:?}");
    assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
    assert_eq!(slow.to_string(), "explorer-lichess: no answer within 200 ms");

    // A 429 holds that service only, for its Retry-After, without a request.
    assert_eq!(get("/busy", Endpoint::ChessDb).await.retry_after(), Some(Duration::from_secs(9)));
    let count = server.count();
    let held = get("/api/cloud-eval", Endpoint::ChessDb).await;
    assert!(matches!(held, Error::RateLimited { endpoint: Endpoint::ChessDb, .. }), "{held:?}");
    assert_eq!(server.count(), count);
    let _: serde_json::Value =
        client.get_service_json(Endpoint::CloudEval, &url("/api/cloud-eval"), &[], second).await.unwrap();
}
