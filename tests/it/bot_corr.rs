//! Correspondence games through the real `ferz bot` against the fake Lichess server: they take
//! no real-time slot, their stream closes while the opponent thinks and the check-in returns on
//! our turn, a restart resumes them, a stop request does not wait for them, and a malformed
//! `/api/account/playing` answer is logged and retried. The opponent is held ([`Opponent::held`]) and released by the test: its "days" pass
//! when the test says so, and the bot's check-in runs every second.

use std::time::Duration;

use ferz_tests::bot_process::BotProcess;
use ferz_tests::fake_lichess::{ChallengeSpec, ChallengeState, FakeConfig, FakeLichess, Fault, Opponent};

use super::bot::{accepted_game, assert_legal, loop_round, wait_over};

/// Generous: the machine may be busy.
const STEP: Duration = Duration::from_secs(30);

/// A server whose games end in a draw at ply 40, so that played-out games stay short.
pub(super) fn server() -> FakeLichess {
    FakeLichess::start(FakeConfig { max_plies: 40, ..FakeConfig::default() })
}

/// `ferz bot` with one real-time slot, no waiting room, correspondence accepted, no resigning
/// or draw offers, and `more` sections added; back once its event stream is open.
pub(super) fn start_with(server: &FakeLichess, more: &[(&str, &str)]) -> BotProcess {
    let mut sections: Vec<(&str, &str)> = vec![
        ("challenge", "concurrency = 1\nmax_waiting = 0\ncorrespondence = true"),
        ("resign", "enabled = false"),
        ("draw", "offer = false"),
    ];
    sections.extend_from_slice(more);
    BotProcess::connected(server, &sections)
}

/// [`start_with`] a check-in every `checkin_s` seconds, the stream closed after `disconnect_s`
/// of silence and one correspondence game at most.
fn start_bot(server: &FakeLichess, checkin_s: u64, disconnect_s: u64, more: &[(&str, &str)]) -> BotProcess {
    let correspondence = format!("checkin_period_s = {checkin_s}\ndisconnect_s = {disconnect_s}\nmax_games = 1");
    let mut sections = vec![("correspondence", correspondence.as_str())];
    sections.extend_from_slice(more);
    start_with(server, &sections)
}

/// A three-day correspondence challenge from `who`, the bot playing white against a held
/// opponent.
fn correspondence_challenge(who: &str, seed: u64) -> ChallengeSpec {
    ChallengeSpec::standard(who, 60, 0).days(3).color("black").opponent(Opponent::random(seed).held())
}

fn wait_ply(server: &FakeLichess, game: &str, ply: usize, what: &str) {
    server.wait_until(STEP, what, |s| s.game(game).is_some_and(|g| g.ply() >= ply || g.is_over()));
    let view = server.game(game).expect("the game exists");
    assert!(!view.is_over(), "{what}: the game ended: {view:?}");
}

fn wait_stream_closed(server: &FakeLichess, game: &str) {
    server.wait_until(STEP, "the bot closes the correspondence game's stream", |s| {
        s.game(game).is_some_and(|g| !g.game_stream_open)
    });
}

#[test]
fn a_correspondence_game_takes_no_real_time_slot() {
    let server = server();
    let bot = start_bot(&server, 1, 600, &[]);
    let corr = accepted_game(&server, &server.send_challenge(correspondence_challenge("carol", 71)));
    wait_ply(&server, &corr, 1, "the bot makes its first correspondence move");
    // The only real-time slot is free: a live challenge is accepted and played out.
    let live = accepted_game(&server, &server.send_challenge(ChallengeSpec::standard("alice", 60, 1)));
    // The correspondence cap (max_games = 1) is full: another one is declined with `later`.
    let second = server.send_challenge(correspondence_challenge("dave", 72));
    server.wait_until(STEP, "the second correspondence challenge is declined", |s| {
        s.challenge_state(&second) != ChallengeState::Pending
    });
    assert_eq!(server.challenge_state(&second), ChallengeState::Declined { reason: "later".into() });
    // Meanwhile carol's days pass: the bot answers in the correspondence game too.
    server.release_moves(&corr, 2);
    wait_ply(&server, &corr, 5, "the bot answers carol's moves during the live game");
    let view = wait_over(&server, &live);
    assert_legal(&view);
    let corr_view = server.game(&corr).expect("the correspondence game exists");
    assert!(!corr_view.is_over(), "the correspondence game goes on: {corr_view:?}");
    assert!(bot.log().contains("correspondence=true"), "the log says which game is correspondence");
}

#[test]
fn the_stream_closes_while_the_opponent_thinks_and_the_check_in_returns_on_our_turn() {
    let server = server();
    let bot = start_bot(&server, 1, 2, &[]);
    let corr = accepted_game(&server, &server.send_challenge(correspondence_challenge("carol", 73)));
    wait_ply(&server, &corr, 1, "the bot makes its first move");
    wait_stream_closed(&server, &corr);
    let opened = server.game(&corr).expect("the game exists").game_stream_connections;
    assert!(bot.log().contains("correspondence game set aside until our turn"), "{}", bot.log());
    // Nothing happens while the opponent thinks: no stream, no move, whatever the check-ins see.
    loop_round(&server);
    let view = server.game(&corr).expect("the game exists");
    assert_eq!((view.ply(), view.game_stream_connections, view.game_stream_open), (1, opened, false));
    // The opponent moves; a check-in finds it is our turn and the bot answers.
    server.release_moves(&corr, 1);
    wait_ply(&server, &corr, 3, "the bot returns and answers");
    assert!(server.game(&corr).expect("the game exists").game_stream_connections > opened);
    wait_stream_closed(&server, &corr);
    // The opponent plays on at once from here: the bot plays the game to its end and records it.
    server.release_moves(&corr, 100);
    let view = wait_over(&server, &corr);
    assert_legal(&view);
    server.wait_until(STEP, "the PGN is written", |_| !bot.pgns().is_empty());
    let pgns = bot.pgns();
    assert_eq!(pgns.len(), 1, "one PGN, for the finished game only: {pgns:?}");
    assert!(pgns[0].contains("[Result \"") && !pgns[0].contains("[Result \"*\"]"), "{}", pgns[0]);
}

#[test]
fn a_restart_mid_correspondence_resumes_the_game_and_plays_it_on() {
    let server = server();
    let first = start_bot(&server, 1, 600, &[]);
    let corr = accepted_game(&server, &server.send_challenge(correspondence_challenge("carol", 74)));
    wait_ply(&server, &corr, 1, "the bot makes its first move");
    drop(first);
    wait_stream_closed(&server, &corr);
    // The opponent moves while the bot is down.
    server.release_moves(&corr, 1);
    wait_ply(&server, &corr, 2, "carol moves");
    // Check-ins far apart: only the start-up resume brings the bot back to the game.
    let second = start_bot(&server, 600, 600, &[]);
    wait_ply(&server, &corr, 3, "the restarted bot answers");
    assert!(second.log().contains("resuming the game"), "{}", second.log());
    server.release_moves(&corr, 100);
    let view = wait_over(&server, &corr);
    assert_legal(&view);
}

#[test]
fn a_malformed_playing_answer_is_logged_and_retried_at_the_next_check_in() {
    let server = server();
    // At start-up too: the bot starts all the same.
    server.inject(Fault::Malformed { path_contains: "/api/account/playing".into(), times: 1 });
    let bot = start_bot(&server, 1, 2, &[]);
    let corr = accepted_game(&server, &server.send_challenge(correspondence_challenge("carol", 75)));
    wait_ply(&server, &corr, 1, "the bot makes its first move");
    wait_stream_closed(&server, &corr);
    let checkins = |s: &FakeLichess| s.requests().iter().filter(|r| r.path == "/api/account/playing").count();
    let before = checkins(&server);
    server.inject(Fault::Malformed { path_contains: "/api/account/playing".into(), times: 3 });
    server.release_moves(&corr, 1);
    server.wait_until(STEP, "three check-ins get the malformed answer", |s| checkins(s) >= before + 3);
    // The game is not lost: the next good answer brings the bot back.
    wait_ply(&server, &corr, 3, "the bot answers after the bad answers");
    let log = bot.log();
    let lines = log.lines().filter(|l| l.contains("cannot read the account's ongoing games")).count();
    assert!(lines >= 4, "one line per bad answer (start-up included): {lines}\n{log}");
    assert!(log.contains("/api/account/playing"), "{log}");
}

#[test]
fn a_stop_request_sets_correspondence_games_aside_and_exits() {
    let server = server();
    // The stream would stay open for ten minutes of silence: only the stop closes it.
    let mut bot = start_bot(&server, 600, 600, &[]);
    let corr = accepted_game(&server, &server.send_challenge(correspondence_challenge("carol", 76)));
    wait_ply(&server, &corr, 1, "the bot makes its first move");
    assert!(server.game(&corr).expect("the game exists").game_stream_open);
    bot.interrupt();
    assert_eq!(bot.wait(STEP), Some(0), "the bot exits without waiting for the opponent's days");
    let view = server.game(&corr).expect("the game exists");
    assert!(!view.is_over(), "the game goes on: {view:?}");
    assert!(bot.log().contains("all games finished; stopping"), "{}", bot.log());
}
