//! Online move sources through the real `ferz bot` against the fake server's cloud evaluation,
//! opening explorer and chessdb routes: each source's moves in a game, in order, with a log
//! line naming the source; a slow source that times out while the engine moves; a 429 that
//! pauses one source; malformed and illegal answers that fall through to the next source; a
//! game that stops asking after `max_out_of_book_moves` positions the sources did not know.

use std::time::Duration;

use ferz_chess::{Game, Position, Variant};
use ferz_tests::bot_process::BotProcess;
use ferz_tests::fake_lichess::{
    ChallengeSpec, EngineOpponent, FAKE_TOKEN, FakeConfig, FakeLichess, OnlineAnswer, OnlineService, Opponent,
};
use ferz_tests::ferz_binary;

use super::bot::{accepted_game, assert_legal};

/// The settings table of one source, pointed at the fake server, asked at any clock.
fn source(server: &FakeLichess, table: &str, extra: &str) -> (String, String) {
    let url = server.url();
    let body = match table {
        "online.explorer" => {
            format!("masters_url = \"{url}/masters\"\nlichess_url = \"{url}/lichess\"\nmin_time_s = 0\n{extra}")
        }
        "online.chessdb" => format!("enabled = true\nurl = \"{url}/cdb.php\"\nmin_time_s = 0\n{extra}"),
        _ => format!("enabled = true\nurl = \"{url}/api/cloud-eval\"\nmin_time_s = 0\n{extra}"),
    };
    (table.to_owned(), body)
}

fn sections(list: &[(String, String)]) -> Vec<(&str, &str)> {
    list.iter().map(|(s, b)| (s.as_str(), b.as_str())).collect()
}

/// The FEN after `moves` from the start, as the bot sends it.
fn fen_after(moves: &[&str]) -> String {
    let mut game = Game::new(Position::new(Variant::Chess));
    for m in moves {
        game.play_uci(m).unwrap();
    }
    game.position().fen()
}

/// A game where the bot plays white against `opponent`; waits until it has `plies` plies.
fn game_as_white(server: &FakeLichess, opponent: Opponent, plies: usize) -> String {
    let challenge = server.send_challenge(ChallengeSpec::standard("alice", 300, 3).color("black").opponent(opponent));
    let game = accepted_game(server, &challenge);
    server.wait_until(Duration::from_secs(60), &format!("the game reaches ply {plies}"), |s| {
        s.game(&game).is_some_and(|g| g.ply() >= plies || g.is_over())
    });
    game
}

#[test]
fn each_source_gives_the_moves_it_knows_in_order_then_the_engine() {
    let server = FakeLichess::start(FakeConfig::default());
    // chessdb knows the start, the cloud the open game, the masters the Ruy Lopez and the
    // Lichess database its main line; nobody knows what follows.
    server.script_online(OnlineService::ChessDb, &fen_after(&[]), OnlineAnswer::chessdb(&["e2e4", "e7e5"], 30, 40));
    let open = ["e2e4", "e7e5"];
    server.script_online(OnlineService::CloudEval, &fen_after(&open), OnlineAnswer::cloud(45, &[("g1f3 b8c6", 35)]));
    let two_knights = ["e2e4", "e7e5", "g1f3", "b8c6"];
    let masters = OnlineAnswer::explorer(&[("f1b5", 500, 400, 300), ("f1c4", 300, 300, 300)]);
    server.script_online(OnlineService::Masters, &fen_after(&two_knights), masters);
    let morphy = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"];
    server.script_online(
        OnlineService::Lichess,
        &fen_after(&morphy),
        OnlineAnswer::explorer(&[("b5a4", 900, 500, 600)]),
    );
    let list = [
        source(&server, "online.chessdb", ""),
        source(&server, "online.cloud_eval", ""),
        source(&server, "online.explorer", "masters = true\nlichess = true\nselection = \"best\"\nmin_games = 1"),
    ];
    let bot = BotProcess::connected(&server, &sections(&list));
    let game = game_as_white(&server, Opponent::random(11).moves(&["e7e5", "b8c6", "a7a6"]), 9);
    let view = server.game(&game).unwrap();
    assert_legal(&view);
    assert_eq!(view.moves[..7], ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4"], "{view:?}");
    let log = bot.log();
    for (mv, source) in
        [("e2e4", "chessdb"), ("g1f3", "cloud-eval"), ("f1b5", "explorer-masters"), ("b5a4", "explorer-lichess")]
    {
        assert!(
            log.lines().any(|l| l.contains("book move") && l.contains(mv) && l.contains(&format!("online {source} ("))),
            "no book move {mv} from {source}:\n{log}"
        );
    }
    // The requests the services saw: the position, the variant, the bot's settings.
    let chessdb = &server.online_requests(OnlineService::ChessDb)[0];
    assert_eq!(chessdb.query_param("board"), Some(fen_after(&[])));
    assert_eq!(chessdb.query_param("action").as_deref(), Some("querypv"));
    assert_eq!(chessdb.header("authorization"), None, "chessdb never sees the token");
    let cloud = &server.online_requests(OnlineService::CloudEval)[0];
    assert_eq!(cloud.query_param("fen"), Some(fen_after(&open)));
    assert_eq!(
        (cloud.query_param("variant").as_deref(), cloud.query_param("multiPv").as_deref()),
        (Some("standard"), Some("1"))
    );
    let lichess = server.online_requests(OnlineService::Lichess);
    let last = lichess.last().unwrap();
    assert_eq!(last.query_param("speeds").as_deref(), Some("blitz,rapid,classical"));
    assert_eq!(last.query_param("ratings").as_deref(), Some("2200,2500"));
    assert!(last.header("authorization").is_some_and(|a| a.ends_with(FAKE_TOKEN)), "the explorer needs the token");
    // The first source that answers wins: the cloud was not asked about the start position.
    assert!(
        server.online_requests(OnlineService::CloudEval).iter().all(|r| r.query_param("fen") != Some(fen_after(&[])))
    );
}

#[test]
fn a_slow_source_times_out_and_the_engine_moves_in_time() {
    let server = FakeLichess::start(FakeConfig::default());
    // Whatever the position, the first answer takes 8 s; the bot waits 300 ms.
    server.queue_online(OnlineService::CloudEval, OnlineAnswer::cloud(50, &[("h2h4", 0)]).slow(Duration::from_secs(8)));
    let list = [source(&server, "online.cloud_eval", "timeout_ms = 300")];
    let bot = BotProcess::connected(&server, &sections(&list));
    let game = game_as_white(&server, Opponent::random(12), 3);
    let view = server.game(&game).unwrap();
    let log = bot.log();
    assert!(log.contains("online source timed out; the engine moves"), "{log}");
    assert!(!log.lines().any(|l| l.contains("book move")), "{log}");
    let first = server.move_latencies()[0];
    assert!(first < Duration::from_secs(6), "the engine moved after {first:?}, not after the slow answer");
    assert_legal(&view);
}

#[test]
fn a_429_pauses_that_source_only_and_the_game_goes_on() {
    let server = FakeLichess::start(FakeConfig::default());
    server.queue_online(OnlineService::Masters, OnlineAnswer::RateLimited(Some(120)));
    let list = [source(&server, "online.explorer", "masters = true"), source(&server, "online.cloud_eval", "")];
    let bot = BotProcess::connected(&server, &sections(&list));
    // The opponent is ferz too (a separate UCI process), so that it sometimes plays the reply
    // the bot ponders on. Both sides search 1,500 nodes, so every run plays the same game up to
    // the first ponder hit: with the embedded nets it comes on the bot's seventh move. Sixteen
    // moves leave room for a net that agrees with itself less often.
    let ferz = EngineOpponent::new(&ferz_binary(), &[], 1500);
    let game = game_as_white(&server, Opponent::random(13).engine(ferz), 31);
    let view = server.game(&game).unwrap();
    assert_legal(&view);
    // One request to the masters (the 429), none during the pause. The cloud knows no position,
    // so it was asked before each of our first ten moves (`max_out_of_book_moves`' default),
    // the seventh, after the ponder hit, among them, and then no more.
    assert_eq!(server.online_requests(OnlineService::Masters).len(), 1);
    let log = bot.log();
    let asked: Vec<String> =
        server.online_requests(OnlineService::CloudEval).iter().filter_map(|r| r.query_param("fen")).collect();
    assert!(view.ply() >= 19, "the bot made ten moves: {view:?}");
    let moves: Vec<&str> = view.moves.iter().map(String::as_str).collect();
    let ours: Vec<String> = (0..10).map(|turn| fen_after(&moves[..2 * turn])).collect();
    assert_eq!(asked, ours, "{log}");
    assert!(log.contains("ponder hit"), "{log}");
    assert!(log.contains("online source rate limited (HTTP 429); paused") && log.contains("paused_s=120"), "{log}");
}

#[test]
fn malformed_and_illegal_answers_fall_through_to_the_next_source() {
    let server = FakeLichess::start(FakeConfig::default());
    server.queue_online(OnlineService::ChessDb, OnlineAnswer::Malformed("{\"status\": \"ok\", \"pv\": [".into()));
    server.queue_online(OnlineService::ChessDb, OnlineAnswer::chessdb(&["e2e5"], 10, 40));
    // chessdb's first answer is garbled, its second illegal; the cloud knows the start only.
    server.script_online(OnlineService::CloudEval, &fen_after(&[]), OnlineAnswer::cloud(40, &[("d2d4 d7d5", 20)]));
    let list = [source(&server, "online.chessdb", ""), source(&server, "online.cloud_eval", "")];
    let bot = BotProcess::connected(&server, &sections(&list));
    let game = game_as_white(&server, Opponent::random(14).moves(&["d7d5"]), 3);
    let view = server.game(&game).unwrap();
    assert_legal(&view);
    assert_eq!(view.moves[0], "d2d4", "{view:?}");
    let log = bot.log();
    assert!(log.contains("online source sent a malformed answer; ignored"), "{log}");
    assert!(
        log.contains("online source proposed a move that is not legal here; ignored") && log.contains("e2e5"),
        "{log}"
    );
    assert!(log.lines().any(|l| l.contains("book move") && l.contains("online cloud-eval")), "{log}");
}

#[test]
fn sources_are_asked_only_for_the_variants_they_know() {
    let server = FakeLichess::start(FakeConfig::default());
    let list =
        [source(&server, "online.chessdb", ""), source(&server, "online.explorer", "masters = true\nlichess = true")];
    let bot = BotProcess::connected(&server, &sections(&list));
    let challenge = server.send_challenge(
        ChallengeSpec::standard("alice", 300, 3).variant("chess960").color("black").opponent(Opponent::random(15)),
    );
    let game = accepted_game(&server, &challenge);
    server.wait_until(Duration::from_secs(60), "the game reaches ply 5", |s| {
        s.game(&game).is_some_and(|g| g.ply() >= 5 || g.is_over())
    });
    // Chess960: only the Lichess database, with its variant.
    assert!(server.online_requests(OnlineService::ChessDb).is_empty());
    assert!(server.online_requests(OnlineService::Masters).is_empty());
    let lichess = server.online_requests(OnlineService::Lichess);
    assert!(!lichess.is_empty(), "{}", bot.log());
    assert!(lichess.iter().all(|r| r.query_param("variant").as_deref() == Some("chess960")));
}

#[test]
fn a_game_stops_asking_once_the_sources_knew_no_move_often_enough() {
    let server = FakeLichess::start(FakeConfig::default());
    // The cloud knows no position (404), but garbles its first two answers: failures, which
    // say nothing about the game having left the books, and do not count.
    for _ in 0..2 {
        server.queue_online(OnlineService::CloudEval, OnlineAnswer::Malformed("{\"depth\": ".into()));
    }
    let list =
        [("online".to_owned(), "max_out_of_book_moves = 3".to_owned()), source(&server, "online.cloud_eval", "")];
    let bot = BotProcess::connected(&server, &sections(&list));
    let game = game_as_white(&server, Opponent::random(16), 16);
    let view = server.game(&game).unwrap();
    assert_legal(&view);
    assert!(view.ply() >= 10, "the bot made at least five moves: {view:?}");
    // Two garbled answers and three "not found"; then the game asks no more.
    let asked = server.online_requests(OnlineService::CloudEval).len();
    assert_eq!(asked, 5, "{}", bot.log());
    let log = bot.log();
    assert!(
        log.contains("online sources knew no move for this many positions of the game; not asked again in it"),
        "{log}"
    );
    assert_eq!(log.matches("online source sent a malformed answer; ignored").count(), 2, "{log}");
}
