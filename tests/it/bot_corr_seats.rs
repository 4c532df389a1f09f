//! Correspondence games that need the bot at once, through the real `ferz bot` against the fake
//! Lichess server: their searches take turns (`[correspondence] max_thinking`), least time left
//! first, while real-time games never wait; a game whose task gave up is opened again at the
//! next check-in; a full `/api/account/playing` list is said once. The check-in runs every
//! second and the opponents are held ([`Opponent::held`]): the test decides when they move.

use std::time::Duration;

use ferz_tests::fake_lichess::{ChallengeSpec, FakeLichess, Fault, Opponent};

use super::bot::{assert_legal, loop_round, wait_over};
use super::bot_corr::{server, start_with as start_bot};

/// Generous: the machine may be busy.
const STEP: Duration = Duration::from_secs(60);

/// A correspondence game of `days` a move already started, the bot white against a held
/// opponent (on the bot's move when `bot_to_move`, else the opponent plays white).
fn correspondence_game(server: &FakeLichess, who: &str, days: u32, bot_to_move: bool, seed: u64) -> String {
    let colour = if bot_to_move { "black" } else { "white" };
    let spec = ChallengeSpec::standard(who, 60, 0).days(days).color(colour);
    server.start_game(spec.opponent(Opponent::random(seed).held()))
}

/// The log lines about thinking seats, in order: (game, taken).
fn seat_events(log: &str, games: &[&str]) -> Vec<(String, bool)> {
    log.lines()
        .filter_map(|line| {
            let taken = line.contains("thinking seat taken");
            if !taken && !line.contains("thinking seat freed") {
                return None;
            }
            let game = games.iter().find(|g| line.contains(*g))?;
            Some(((*game).to_owned(), taken))
        })
        .collect()
}

#[test]
fn correspondence_searches_at_start_up_take_turns_least_time_left_first() {
    let server = server();
    // Created in another order than their urgency: three, one and two days left.
    let three = correspondence_game(&server, "carol", 3, true, 81);
    let one = correspondence_game(&server, "dave", 1, true, 82);
    let two = correspondence_game(&server, "erin", 2, true, 83);
    // A live game on the bot's move too; its opponent never moves.
    let live = server
        .start_game(ChallengeSpec::standard("alice", 20, 0).color("black").opponent(Opponent::random(84).never_move()));
    // Searches on the clock (1 s a correspondence move), so that the check-ins run while they do.
    let bot = start_bot(
        &server,
        &[
            ("engine", "nodes = 0"),
            ("correspondence", "checkin_period_s = 1\ndisconnect_s = 600\nmove_time_s = 1\nmax_thinking = 1"),
        ],
    );
    let corr = [one.as_str(), two.as_str(), three.as_str()];
    server.wait_until(STEP, "the bot moves in every correspondence game", |s| {
        corr.iter().all(|id| s.game(id).is_some_and(|g| g.ply() >= 1))
    });
    server.wait_until(STEP, "the bot moves in the live game", |s| s.game(&live).is_some_and(|g| g.ply() >= 1));
    server.wait_until(STEP, "every thinking seat is freed", |_| {
        seat_events(&bot.log(), &corr).iter().filter(|(_, taken)| !taken).count() >= 3
    });
    let log = bot.log();
    let events = seat_events(&log, &corr);
    // One search at a time: every seat taken is freed before the next is taken.
    let mut holding = 0_i32;
    for (game, taken) in &events {
        holding += if *taken { 1 } else { -1 };
        assert!((0..=1).contains(&holding), "{holding} seats held at {game}: {events:?}\n{log}");
    }
    let order: Vec<&str> = events.iter().filter(|(_, taken)| *taken).map(|(g, _)| g.as_str()).collect();
    assert_eq!(order, corr, "least time left first (one, two, three days):\n{log}");
    // The live game was resumed first and took no seat.
    let resumed: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("resuming the game"))
        .filter_map(|l| [live.as_str(), one.as_str(), two.as_str(), three.as_str()].into_iter().find(|g| l.contains(g)))
        .collect();
    assert_eq!(resumed.first(), Some(&live.as_str()), "{log}");
    assert!(!log.lines().any(|l| l.contains("thinking seat") && l.contains(&live)), "{log}");
    // Each game was opened once, however many check-ins ran meanwhile.
    for id in corr {
        let view = server.game(id).expect("the game exists");
        assert_eq!((view.ply(), view.game_stream_connections), (1, 1), "{id}: {view:?}");
    }
    assert!(server.requests().iter().filter(|r| r.path == "/api/account/playing").count() >= 3);
}

#[test]
fn a_correspondence_game_whose_task_gave_up_is_opened_again_at_the_next_check_in() {
    let server = server();
    let game = correspondence_game(&server, "carol", 3, true, 85);
    let bot = start_bot(&server, &[("correspondence", "checkin_period_s = 1\ndisconnect_s = 600")]);
    server.wait_until(STEP, "the bot moves", |s| s.game(&game).is_some_and(|g| g.ply() >= 1));
    // The stream breaks and the server refuses to reopen it: the task gives the game up.
    server.inject(Fault::ServerError { path_contains: format!("/api/bot/game/stream/{game}"), times: 1, status: 404 });
    server.inject(Fault::DropGameStream { game_id: game.clone() });
    server.wait_until(STEP, "the task gives the game up", |_| bot.log().contains("gave up following the game for now"));
    // Set aside: the check-ins see the opponent to move and open no stream.
    loop_round(&server);
    let view = server.game(&game).expect("the game exists");
    assert!(!view.game_stream_open && !view.is_over(), "{view:?}");
    let opened = view.game_stream_connections;
    // The opponent moves: the next check-in opens the game again and the bot answers.
    server.release_moves(&game, 1);
    server.wait_until(STEP, "the bot answers", |s| s.game(&game).is_some_and(|g| g.ply() >= 3 || g.is_over()));
    let log = bot.log();
    assert!(log.contains("the next check-in opens it again"), "{log}");
    assert!(log.lines().any(|l| l.contains("resuming the game") && l.contains("reopened=true")), "{log}");
    // While its task runs, the check-ins do not open it a second time.
    let view = server.game(&game).expect("the game exists");
    assert_eq!(view.game_stream_connections, opened + 1, "{view:?}");
    loop_round(&server);
    let view = server.game(&game).expect("the game exists");
    assert!(view.game_stream_open, "{view:?}");
    assert_eq!(view.game_stream_connections, opened + 1, "opened once: {view:?}");
    // Played to its end: one PGN, with the result (the given-up task wrote none).
    server.release_moves(&game, 100);
    assert_legal(&wait_over(&server, &game));
    server.wait_until(STEP, "the PGN is written", |_| !bot.pgns().is_empty());
    let pgns = bot.pgns();
    assert_eq!(pgns.len(), 1, "{pgns:?}");
    assert!(!pgns[0].contains("[Result \"*\"]"), "{}", pgns[0]);
}

#[test]
fn a_full_list_of_ongoing_games_is_logged_once() {
    let server = server();
    // Fifty correspondence games, all on the opponents' move: Lichess's whole list.
    let games: Vec<String> =
        (0..50).map(|i| correspondence_game(&server, &format!("player{i}"), 3, false, 100 + i)).collect();
    let bot = start_bot(&server, &[("correspondence", "checkin_period_s = 1")]);
    let checkins = |s: &FakeLichess| s.requests().iter().filter(|r| r.path == "/api/account/playing").count();
    server.wait_until(STEP, "three check-ins", |s| checkins(s) >= 3);
    let playing = server.requests().into_iter().find(|r| r.path == "/api/account/playing").expect("a check-in");
    assert!(playing.query.contains("nb=50"), "the most Lichess lists: {}", playing.query);
    let log = bot.log();
    let warnings = log.lines().filter(|l| l.contains("Lichess lists only the 50 most urgent")).count();
    assert_eq!(warnings, 1, "{log}");
    // None of them is on the bot's move: no stream is opened.
    for id in &games {
        assert_eq!(server.game(id).expect("the game exists").game_stream_connections, 0, "{id}");
    }
}
