//! The client against the Lichess API specification (the OpenAPI document of lichess-org/api,
//! version 2.0.165): every enum value of the schemas the bot reads decodes to its variant,
//! values the specification may add later decode too, and every shape the specification
//! allows for a payload decodes. The payloads are written here from the schemas (field names
//! and enum values), not copied from the specification's examples.

use serde_json::{Value, json};

use super::*;
use crate::tablebase::{Category, TablebaseAnswer};

/// Each `enum` of a schema the client reads, as the specification lists it.
const GAME_STATUS_NAME: [&str; 14] = [
    "created",
    "started",
    "aborted",
    "mate",
    "resign",
    "stalemate",
    "timeout",
    "draw",
    "outoftime",
    "cheat",
    "noStart",
    "unknownFinish",
    "insufficientMaterialClaim",
    "variantEnd",
];
const SPEED: [&str; 6] = ["ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"];
const CHALLENGE_STATUS: [&str; 5] = ["created", "offline", "canceled", "declined", "accepted"];
const CHALLENGE_COLOR: [&str; 3] = ["white", "black", "random"];
const GAME_COLOR: [&str; 2] = ["white", "black"];
const DECLINE_REASON_KEY: [&str; 11] = [
    "generic",
    "later",
    "toofast",
    "tooslow",
    "timecontrol",
    "rated",
    "casual",
    "standard",
    "variant",
    "nobot",
    "onlybot",
];
const TABLEBASE_CATEGORY: [&str; 10] = [
    "win",
    "unknown",
    "syzygy-win",
    "maybe-win",
    "cursed-win",
    "draw",
    "blessed-loss",
    "maybe-loss",
    "syzygy-loss",
    "loss",
];
const CHAT_ROOM: [&str; 2] = ["player", "spectator"];

/// A value a string enum knows decodes to a named variant (not `Other`) and spells back the same.
fn known<T>(text: &str, is_other: impl Fn(&T) -> bool, spell: impl Fn(&T) -> String) -> T
where
    T: serde::de::DeserializeOwned,
{
    let value: T = serde_json::from_value(json!(text)).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert!(!is_other(&value), "{text} decoded as an unknown value");
    assert_eq!(spell(&value), text);
    value
}

#[test]
fn every_enum_value_of_the_specification_decodes_to_its_variant() {
    for text in GAME_STATUS_NAME {
        known::<GameStatus>(text, |v| matches!(v, GameStatus::Other(_)), |v| v.as_str().to_owned());
    }
    for text in SPEED {
        known::<Speed>(text, |v| matches!(v, Speed::Other(_)), |v| v.as_str().to_owned());
    }
    for text in CHALLENGE_STATUS {
        known::<ChallengeStatus>(text, |v| matches!(v, ChallengeStatus::Other(_)), |v| v.as_str().to_owned());
    }
    for text in CHALLENGE_COLOR {
        known::<ChallengeColor>(text, |v| matches!(v, ChallengeColor::Other(_)), |v| v.as_str().to_owned());
    }
    for text in GAME_COLOR {
        known::<Color>(text, |v| matches!(v, Color::Other(_)), |v| v.as_str().to_owned());
    }
    for text in CHAT_ROOM {
        known::<ChatRoom>(text, |v| matches!(v, ChatRoom::Other(_)), |v| v.as_str().to_owned());
    }
    for key in DECLINE_REASON_KEY {
        assert_eq!(DeclineReason::from_key(key).map(|r| r.as_str().to_ascii_lowercase()), Some(key.to_owned()));
    }
    for text in TABLEBASE_CATEGORY {
        let category: Category = serde_json::from_value(json!(text)).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(serde_json::to_value(category).unwrap(), json!(text), "{text} decoded as {category:?}");
        assert_eq!(category.flip().flip(), category);
    }
}

#[test]
fn values_the_specification_may_add_later_decode() {
    assert_eq!(
        serde_json::from_value::<GameStatus>(json!("newEnding")).unwrap(),
        GameStatus::Other("newEnding".into())
    );
    assert!(GameStatus::Other("newEnding".into()).is_over());
    assert_eq!(serde_json::from_value::<Speed>(json!("hyperBullet")).unwrap(), Speed::Other("hyperBullet".into()));
    let category: Category = serde_json::from_value(json!("tablebase-win-someday")).unwrap();
    assert_eq!(category, Category::Unknown);
}

/// A tablebase answer with every field of `TablebaseJson` and `TablebaseMove`, one move per
/// category.
fn tablebase_answer() -> Value {
    let moves: Vec<Value> = TABLEBASE_CATEGORY
        .iter()
        .enumerate()
        .map(|(i, category)| {
            json!({
                "uci": format!("a{}a{}", i % 7 + 1, i % 7 + 2), "san": "Ra2", "category": category,
                "dtz": null, "precise_dtz": null, "dtc": null, "dtm": null, "dtw": null,
                "zeroing": false, "conversion": false, "checkmate": false, "stalemate": false,
                "variant_win": false, "variant_loss": false, "insufficient_material": false
            })
        })
        .collect();
    json!({
        "category": "syzygy-win", "dtz": 5, "precise_dtz": null, "dtc": null, "dtm": 17, "dtw": null,
        "checkmate": false, "stalemate": false, "variant_win": false, "variant_loss": false,
        "insufficient_material": false, "moves": moves
    })
}

#[test]
fn a_tablebase_answer_with_every_category_decodes_whole() {
    let answer: TablebaseAnswer = serde_json::from_value(tablebase_answer()).unwrap();
    assert_eq!(answer.category, Category::SyzygyWin);
    assert_eq!(answer.moves.len(), TABLEBASE_CATEGORY.len());
    assert!(answer.moves.iter().any(|m| m.category == Category::SyzygyLoss));
    // A category newer than the client spoils only its own move.
    let mut future = tablebase_answer();
    future["moves"][0]["category"] = json!("a-category-from-the-future");
    let answer: TablebaseAnswer = serde_json::from_value(future).unwrap();
    assert_eq!((answer.moves[0].category, answer.moves.len()), (Category::Unknown, TABLEBASE_CATEGORY.len()));
}

#[test]
fn every_time_control_shape_decodes() {
    let challenge = |time_control: Value| {
        let value = json!({
            "id": "H9fIRZUk", "url": "https://lichess.org/H9fIRZUk", "status": "created",
            "challenger": {"id": "bot1", "name": "Bot1", "rating": 1500, "title": "BOT", "online": true, "lag": 4},
            "destUser": {"id": "bobby", "name": "Bobby", "rating": 1635, "provisional": true, "online": true},
            "variant": {"key": "standard", "name": "Standard", "short": "Std"},
            "rated": true, "speed": "rapid", "timeControl": time_control, "color": "random",
            "finalColor": "black", "perf": {"icon": "#", "name": "Rapid"}, "direction": "out",
            "initialFen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rematchOf": "abcdefgh",
            "rules": ["noAbort", "noRematch", "noGiveTime", "noClaimWin", "noEarlyDraw"]
        });
        serde_json::from_value::<Challenge>(value).unwrap_or_else(|e| panic!("{time_control}: {e}")).time_control
    };
    assert_eq!(
        challenge(json!({"type": "clock", "limit": 600, "increment": 5, "show": "10+5"})),
        Some(TimeControl::Clock { limit: Some(600), increment: Some(5), show: Some("10+5".into()) })
    );
    // `limit` and `increment` are optional in the specification.
    assert_eq!(
        challenge(json!({"type": "clock"})),
        Some(TimeControl::Clock { limit: None, increment: None, show: None })
    );
    assert_eq!(
        challenge(json!({"type": "correspondence", "daysPerTurn": 2})),
        Some(TimeControl::Correspondence { days_per_turn: Some(2) })
    );
    assert_eq!(challenge(json!({"type": "unlimited"})), Some(TimeControl::Unlimited));
}

#[test]
fn a_challenge_event_with_every_compat_decodes() {
    for (bot, board) in [(true, true), (false, true), (true, false), (false, false)] {
        let value = json!({"type": "challenge", "challenge": {"id": "x", "challenger": {"name": "A"},
            "variant": {"key": "standard"}, "speed": "ultraBullet",
            "timeControl": {"type": "clock", "limit": 15, "increment": 0}}, "compat": {"bot": bot, "board": board}});
        let Some(Event::Challenge { compat, .. }) = Event::from_value(value).unwrap() else { panic!() };
        assert_eq!(compat, Some(Compat { bot, board }));
    }
}

#[test]
fn a_playing_entry_with_its_status_as_a_string_or_an_object_decodes() {
    let entry = |status: Value| {
        json!({"gameId": "rCRw1AuO", "fullId": "rCRw1AuOvonq", "color": "black",
            "fen": "r1bqkbnr/pppp2pp/2n1pp2/8/8/3PP3/PPPB1PPP/RN1QKBNR w KQkq - 2 4", "hasMoved": true,
            "isMyTurn": false, "lastMove": "b8c6", "opponent": {"id": "philippe", "username": "Philippe", "rating": 1790},
            "perf": "correspondence", "rated": false, "secondsLeft": 1209600, "source": "friend", "status": status,
            "speed": "correspondence", "variant": {"key": "standard", "name": "Standard"}, "tournamentId": "x",
            "swissId": "y", "winner": "white", "ratingDiff": 0})
    };
    for name in GAME_STATUS_NAME {
        let playing: Playing = serde_json::from_value(json!({"nbMyTurn": 0, "nowPlaying": [entry(json!(name))]}))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(playing.now_playing[0].status, Some(StatusInfo { id: None, name: GameStatus::from(name) }));
    }
    let playing: Playing =
        serde_json::from_value(json!({"nbMyTurn": 0, "nowPlaying": [entry(json!({"id": 20, "name": "started"}))]}))
            .unwrap();
    assert_eq!(playing.now_playing[0].status, Some(StatusInfo { id: Some(20), name: GameStatus::Started }));
}
