//! Every payload example of the API specification decodes, and so do payloads with unknown
//! types, unknown values, extra fields and missing optional fields.

use serde_json::{Value, json};

use super::*;
use crate::platform::Platform;

macro_rules! fixture {
    ($name:literal) => {
        serde_json::from_str::<Value>(include_str!(concat!("../../tests/data/", $name))).unwrap()
    };
}

fn event(value: Value) -> Event {
    Event::from_value(value).unwrap().unwrap()
}

fn game(value: Value) -> GameEvent {
    GameEvent::from_value(value).unwrap().unwrap()
}

#[test]
fn event_stream_examples() {
    let Event::GameStart(g) = event(fixture!("stream-gameStart.json")) else { panic!() };
    assert_eq!(g.id(), "0FgNPGRz");
    assert_eq!(g.full_id.as_deref(), Some("0FgNPGRzhDaW"));
    assert_eq!(g.color, Some(Color::White));
    assert_eq!(g.status.as_ref().map(|s| s.name.clone()), Some(GameStatus::Started));
    assert_eq!(g.variant.as_ref().map(|v| v.key.as_str()), Some("standard"));
    assert_eq!(g.speed, Some(Speed::Blitz));
    assert_eq!(g.opponent.as_ref().unwrap().id.as_deref(), Some("aaron"));
    assert_eq!(g.is_my_turn, Some(true));
    assert_eq!(g.seconds_left, Some(300));
    assert_eq!(g.compat, Some(Compat { bot: false, board: true }));

    let Event::GameFinish(g) = event(fixture!("stream-gameFinish.json")) else { panic!() };
    assert_eq!(g.winner, Some(Color::Black));
    assert_eq!(g.status.as_ref().unwrap().id, Some(31));
    assert!(g.status.as_ref().unwrap().name.is_over());
    assert_eq!(g.rating_diff, Some(-9));
    assert_eq!(g.last_move.as_deref(), Some("e7e5"));

    let Event::GameStart(g) = event(fixture!("stream-gameStart-ai.json")) else { panic!() };
    let opponent = g.opponent.unwrap();
    assert_eq!((opponent.id, opponent.ai), (None, Some(1)));
    assert_eq!(g.seconds_left, None);
    let Event::GameFinish(g) = event(fixture!("stream-gameFinish-ai.json")) else { panic!() };
    assert_eq!(g.status.unwrap().name, GameStatus::Aborted);

    let Event::Challenge { challenge, compat } = event(fixture!("stream-challenge.json")) else { panic!() };
    assert_eq!(challenge.id, "jWAgu6ga");
    assert_eq!(challenge.status, Some(ChallengeStatus::Created));
    assert_eq!(challenge.challenger.user_id(), "adriana");
    assert_eq!(challenge.dest_user.as_ref().unwrap().provisional, Some(true));
    assert_eq!(challenge.time_control, Some(TimeControl::Unlimited));
    assert_eq!(challenge.color, Some(ChallengeColor::Random));
    assert_eq!(challenge.final_color, Some(Color::Black));
    assert_eq!(challenge.speed, Some(Speed::Correspondence));
    assert_eq!(challenge.perf.unwrap().icon.as_deref(), Some("\u{e019}"));
    assert_eq!(compat, Some(Compat { bot: false, board: true }));

    let Event::ChallengeCanceled(c) = event(fixture!("stream-challengeCanceled.json")) else { panic!() };
    assert_eq!(c.status, Some(ChallengeStatus::Canceled));
    assert_eq!(c.challenger.title.as_deref(), Some("WNM"));

    let Event::ChallengeDeclined(c) = event(fixture!("stream-challengeDeclined.json")) else { panic!() };
    assert_eq!(c.decline_reason_key.as_deref(), Some("generic"));
    assert_eq!(DeclineReason::from_key(c.decline_reason_key.as_deref().unwrap()), Some(DeclineReason::Generic));
    assert_eq!(c.decline_reason.as_deref(), Some("I'm not accepting challenges at the moment."));
}

#[test]
fn game_stream_examples() {
    let GameEvent::GameFull(full) = game(fixture!("schema-example-GameFullEvent.json")) else { panic!() };
    assert_eq!(full.id, "BEOucQJo");
    assert_eq!(full.initial_fen, "startpos");
    assert_eq!(full.clock, Some(Clock { initial: 900_000, increment: 0 }));
    assert_eq!(full.created_at, Some(1_745_112_707_998));
    assert!(full.white.is("Bobby") && full.black.is("mary") && !full.white.is("mary"));
    assert_eq!(full.white.title, None);
    assert_eq!(full.state.moves, "d2d3");
    assert_eq!(full.state.ply(), 1);
    assert_eq!(full.speed, Some(Speed::Rapid));
    assert_eq!(full.perf.unwrap().name.as_deref(), Some("Rapid"));

    let GameEvent::GameState(state) = game(fixture!("schema-example-GameStateEvent.json")) else { panic!() };
    assert_eq!(state.move_list().nth(10), Some("e1g1"));
    assert_eq!((state.wtime, state.btime, state.winc, state.binc), (7_598_040, 8_395_220, 10_000, 10_000));
    assert!(!state.offers_draw(&Color::White) && !state.proposes_takeback(&Color::Black));
    assert_eq!(state.status, GameStatus::Started);
    assert!(!state.status.is_over());

    let GameEvent::ChatLine(line) = game(fixture!("schema-example-ChatLineEvent.json")) else { panic!() };
    assert_eq!(
        (line.username.as_str(), line.text.as_str(), line.room),
        ("thibault", "Good luck, have fun", ChatRoom::Player)
    );

    let GameEvent::OpponentGone(gone) = game(fixture!("schema-example-OpponentGoneEvent.json")) else { panic!() };
    assert_eq!(gone, OpponentGone { gone: true, claim_win_in_seconds: Some(8) });
    let GameEvent::OpponentGone(back) = game(json!({"type": "opponentGone", "gone": false})) else { panic!() };
    assert_eq!(back, OpponentGone { gone: false, claim_win_in_seconds: None });
}

#[test]
fn response_examples() {
    let account: User = serde_json::from_value(fixture!("account-getMyProfile.json")).unwrap();
    assert!(!account.id.is_empty() && !account.username.is_empty());
    let bot: User = serde_json::from_value(fixture!("bot-getOnlineBots.json")).unwrap();
    assert_eq!(bot.id, "bernstein-2ply");
    assert!(bot.is_bot());
    assert_eq!(bot.perfs["blitz"].rating, Some(1121.0));
    assert_eq!(bot.perfs["correspondence"].prov, Some(true));

    let challenge: Challenge = serde_json::from_value(fixture!("challenges-createChallenge.json")).unwrap();
    assert_eq!(challenge.id, "uGK4MHaQ");
    let challenge: Challenge = serde_json::from_value(fixture!("schema-example-ChallengeJson.json")).unwrap();
    assert_eq!(challenge.direction, Some(Direction::Out));
    assert!(challenge.challenger.is_bot());
    assert_eq!(
        challenge.time_control,
        Some(TimeControl::Clock { limit: Some(600), increment: Some(0), show: Some("10+0".into()) })
    );
    let list = fixture!("challenges-listYourChallenges.json");
    for dir in ["in", "out"] {
        let _: Vec<Challenge> = serde_json::from_value(list[dir].clone()).unwrap();
    }
    let chat: Vec<ChatMessage> = serde_json::from_value(fixture!("schema-example-PlayerGameChat.json")).unwrap();
    assert_eq!(chat.len(), 3);
    assert_eq!(chat[2].user, "thibault");

    let playing: Playing = serde_json::from_value(json!({"nbMyTurn": 1, "nowPlaying": [{"gameId": "rCRw1AuO",
        "fullId": "rCRw1AuOvonq", "color": "black", "fen": "8/8/8/8/8/8/8/8 w - - 0 1", "hasMoved": true,
        "isMyTurn": false, "lastMove": "b8c6", "opponent": {"id": "philippe", "rating": 1790,
        "username": "Philippe"}, "perf": "correspondence", "rated": false, "secondsLeft": 1209600,
        "source": "friend", "speed": "correspondence", "variant": {"key": "standard", "name": "Standard"}}]}))
    .unwrap();
    assert_eq!(playing.now_playing[0].id(), "rCRw1AuO");
    assert_eq!(playing.nb_my_turn, Some(1));

    let info: TokenInfo =
        serde_json::from_value(json!({"userId": "jose", "scopes": "board:play,bot:play", "expires": null})).unwrap();
    assert!(info.has_scope("bot:play") && !info.has_scope("bot"));
}

#[test]
fn unknown_types_values_and_extra_fields_are_tolerated() {
    // Unknown message types are kept, not errors.
    let Event::Unknown { kind, raw } = event(json!({"type": "newKind", "x": 1})) else { panic!() };
    assert_eq!((kind.as_str(), &raw["x"]), ("newKind", &json!(1)));
    let Event::Unknown { kind, .. } = event(json!({"no_type": true})) else { panic!() };
    assert_eq!(kind, "");
    assert!(matches!(game(json!({"type": "reaction"})), GameEvent::Unknown { .. }));

    // Unknown enum values are kept verbatim; an unknown status counts as over.
    let GameEvent::GameState(s) =
        game(json!({"type": "gameState", "moves": "", "wtime": 1, "btime": 1, "winc": 0, "binc": 0,
            "status": "brandNewEnding", "winner": "purple", "surprise": {"nested": [1, 2]}}))
    else {
        panic!()
    };
    assert_eq!(s.status, GameStatus::Other("brandNewEnding".into()));
    assert!(s.status.is_over());
    assert_eq!(s.winner, Some(Color::Other("purple".into())));
    assert_eq!(s.status.to_string(), "brandNewEnding");

    let mut challenge = fixture!("stream-challenge.json");
    challenge["challenge"]["timeControl"] = json!({"type": "hourglass", "sand": 3});
    challenge["challenge"]["status"] = json!("pondering");
    challenge["challenge"]["speed"] = json!("warp");
    challenge["challenge"]["extra"] = json!({"a": "b"});
    challenge["compat"] = json!("not an object");
    let Event::Challenge { challenge, compat } = event(challenge) else { panic!() };
    assert_eq!(challenge.time_control, Some(TimeControl::Other));
    assert_eq!(challenge.status, Some(ChallengeStatus::Other("pondering".into())));
    assert_eq!(challenge.speed, Some(Speed::Other("warp".into())));
    assert_eq!(compat, None, "a malformed compat is dropped, the challenge kept");
}

#[test]
fn missing_optional_fields_default() {
    // lichess-bot's minimal fake payloads.
    let Event::GameStart(g) = event(
        json!({"type": "gameStart", "game": {"id": "zzzzzzzz", "source": "friend", "compat": {"bot": true, "board": true}}}),
    ) else {
        panic!()
    };
    assert_eq!(g.id(), "zzzzzzzz");
    assert_eq!(g.color, None);
    let GameEvent::GameFull(full) = game(json!({"id": "zzzzzzzz", "variant": {"key": "standard", "name": "Standard",
        "short": "Std"}, "clock": {"initial": 60000, "increment": 2000}, "speed": "bullet", "perf": {"name": "Bullet"},
        "rated": true, "createdAt": 1600000000000i64, "white": {"id": "bo", "name": "bo", "title": "BOT", "rating": 3000},
        "black": {"id": "b", "name": "b", "title": "BOT", "rating": 3000, "provisional": true}, "initialFen": "startpos",
        "type": "gameFull", "state": {"type": "gameState", "moves": "", "wtime": 10000, "btime": 10000, "winc": 100,
        "binc": 100, "status": "started"}}))
    else {
        panic!()
    };
    assert_eq!(full.state.ply(), 0);
    assert_eq!(full.black.provisional, Some(true));

    // A real gameState omits false flags; an unlimited game has Int.MaxValue clocks; an AI has
    // only aiLevel; correspondence has daysPerTurn and no clock.
    let GameEvent::GameFull(full) = game(json!({"type": "gameFull", "id": "abcdefgh", "variant": {"key": "chess960"},
        "speed": "correspondence", "perf": {"name": "Correspondence"}, "rated": false, "createdAt": 1,
        "white": {"aiLevel": 3}, "black": {"id": "ferz", "name": "ferz", "title": "BOT"}, "daysPerTurn": 3,
        "initialFen": "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "state": {"type": "gameState", "moves": "e2e4", "wtime": 2147483647, "btime": 2147483647, "winc": 0, "binc": 0,
            "status": "started", "bdraw": true}}))
    else {
        panic!()
    };
    assert_eq!(full.clock, None);
    assert_eq!(full.days_per_turn, Some(3));
    assert_eq!(full.white.ai_level, Some(3));
    assert_eq!(full.state.wtime, 2_147_483_647);
    assert!(full.state.offers_draw(&Color::Black) && !full.state.wdraw && !full.state.wtakeback);

    let GameEvent::GameState(minimal) = game(json!({"type": "gameState"})) else { panic!() };
    assert_eq!(minimal, GameState::default());

    // Required parts missing: a decode error, not a panic or a wrong variant.
    assert!(Event::from_value(json!({"type": "gameStart"})).is_err());
    assert!(Event::from_value(json!({"type": "challenge", "challenge": {"no_id": 1}})).is_err());
    assert!(GameEvent::from_value(json!({"type": "chatLine", "text": "hi"})).is_err(), "room is required");
}

#[test]
fn json_ping_is_a_keep_alive() {
    assert!(Event::from_value(json!({"type": "ping"})).unwrap().is_none());
    assert!(GameEvent::from_value(json!({"type": "ping"})).unwrap().is_none());
}

#[test]
fn pychess_shapes_are_rewritten() {
    use crate::stream::StreamMessage;
    let p = Platform::PyChess;
    let start = json!({"type": "gameStart", "game": {"id": "pyGame01", "skill_level": "0", "chess960": "True"}});
    let Some(Event::GameStart(g)) = Event::decode(p, start.clone()).unwrap() else { panic!() };
    assert_eq!((g.id(), g.chess960), ("pyGame01", Some(true)));
    // On Lichess the same string flag is not rewritten and cannot decode as a bool.
    assert!(Event::decode(Platform::Lichess, start).is_err());

    let challenge = json!({"type": "challenge", "challenge": {"id": "pyChal01", "challenger": {"name": "Alice",
        "rating": 1500, "title": ""}, "variant": {"key": "shatranj"}, "rated": false, "timeControl": {"type": "clock",
        "limit": 300, "increment": 3}, "color": "random", "finalColor": "white", "speed": "blitz",
        "perf": {"name": "shatranj"}, "level": 0, "chess960": false}});
    let Some(Event::Challenge { challenge, compat }) = Event::decode(p, challenge).unwrap() else { panic!() };
    assert_eq!(challenge.challenger.user_id(), "alice");
    assert!(!challenge.challenger.is_bot());
    assert_eq!(challenge.variant.key, "shatranj");
    assert_eq!(challenge.time_control, Some(TimeControl::Clock { limit: Some(300), increment: Some(3), show: None }));
    assert_eq!((challenge.dest_user, challenge.status, compat, challenge.chess960), (None, None, None, Some(false)));

    let full = json!({"type": "gameFull", "id": "pyGame01", "variant": {"name": "shatranj"}, "white": {"name": "Alice"},
        "black": {"name": "ferzbot"}, "initialFen": "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1",
        "createdAt": 1700000000, "state": {"type": "gameState", "moves": "", "wtime": 300000, "btime": 300000,
        "winc": 3, "binc": 3, "wdraw": false, "bdraw": false, "wtakeback": false, "btakeback": false, "status": "started"}});
    let Some(GameEvent::GameFull(full)) = GameEvent::decode(p, full).unwrap() else { panic!() };
    assert_eq!(full.created_at, Some(1_700_000_000_000));
    assert_eq!((full.state.winc, full.state.binc), (3000, 3000));
    assert_eq!(full.variant.key_or_name(), "shatranj");
    assert!(full.black.is("ferzbot") && full.clock.is_none());

    let state = json!({"type": "gameState", "moves": "e2e3", "wtime": 1, "btime": 2, "winc": 2, "binc": 2, "status": "started"});
    let Some(GameEvent::GameState(s)) = GameEvent::decode(p, state.clone()).unwrap() else { panic!() };
    assert_eq!(s.winc, 2000);
    let Some(GameEvent::GameState(s)) = GameEvent::decode(Platform::Lichess, state).unwrap() else { panic!() };
    assert_eq!(s.winc, 2, "Lichess increments are already milliseconds");

    let end = json!({"type": "gameEnd", "game": {"id": "pyGame01"}});
    assert_eq!(GameEvent::decode(p, end).unwrap(), Some(GameEvent::GameEnd { id: Some("pyGame01".into()) }));
}

#[test]
fn decline_reasons_and_challenge_form() {
    let wire: Vec<_> = DeclineReason::ALL.iter().map(|r| r.as_str()).collect();
    assert_eq!(
        wire,
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
    for reason in DeclineReason::ALL {
        assert_eq!(DeclineReason::from_key(reason.as_str()), Some(reason));
        assert_eq!(DeclineReason::from_key(&reason.as_str().to_lowercase()), Some(reason));
    }
    assert_eq!(DeclineReason::from_key("nope"), None);

    let mut request = ChallengeRequest::clock(180, 2);
    assert_eq!(
        request.form(),
        [
            ("rated", "false"),
            ("clock.limit", "180"),
            ("clock.increment", "2"),
            ("color", "random"),
            ("variant", "standard")
        ]
        .map(|(k, v)| (k, v.to_owned()))
    );
    request.time = ChallengeTime::Correspondence { days: 3 };
    request.rated = true;
    request.color = ChallengeColor::White;
    request.variant = "chess960".into();
    request.fen = Some("fen".into());
    request.rules = vec!["noAbort".into(), "noRematch".into()];
    assert_eq!(
        request.form(),
        [
            ("rated", "true"),
            ("days", "3"),
            ("color", "white"),
            ("variant", "chess960"),
            ("fen", "fen"),
            ("rules", "noAbort,noRematch")
        ]
        .map(|(k, v)| (k, v.to_owned()))
    );
    request.time = ChallengeTime::Unlimited;
    assert!(!request.form().iter().any(|(k, _)| k.starts_with("clock") || *k == "days"));
}
