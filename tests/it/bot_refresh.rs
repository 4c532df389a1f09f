//! The own-rating and online-block-list refreshes of the real `ferz bot` go out beside its event
//! loop: while the fake Lichess server holds both reads (far longer than the test waits), a
//! challenge is still accepted and its game started, and no second read of either kind goes
//! out while the first is held.

use std::time::{Duration, Instant};

use ferz_tests::bot_process::BotProcess;
use ferz_tests::fake_lichess::{ChallengeSpec, ChallengeState, FakeConfig, FakeLichess, Fault, Opponent};

use super::bot::{CHECK_IN_EVERY_SECOND, loop_round};

const WAIT: Duration = Duration::from_secs(30);
/// How often each kind is read (`rating_refresh_s`, `online_block_list_refresh_s`).
const REFRESH: Duration = Duration::from_secs(2);
/// How long the server holds each read: far beyond `WAIT`, so that a loop waiting on a held
/// read cannot accept the challenge in time.
const HELD: Duration = Duration::from_secs(600);

#[test]
fn a_held_rating_and_block_list_read_holds_up_no_challenge() {
    let server = FakeLichess::start(FakeConfig::default());
    let list = server.set_text_file("list.txt", "troll\n");
    // Requests may take 15 minutes: nothing but the server's hold ends a read early.
    let challenge = format!(
        "rating_difference = 500\nrating_refresh_s = 2\nonline_block_list = [\"{list}\"]\nonline_block_list_refresh_s = 2"
    );
    let _bot = BotProcess::connected(
        &server,
        &[
            ("lichess", "request_timeout_s = 900"),
            ("challenge", &challenge),
            ("abort", "abort_s = 0"),
            CHECK_IN_EVERY_SECOND,
        ],
    );
    for path in ["/api/account", "/files/list.txt"] {
        server.inject(Fault::Delay { path: path.into(), times: 1, delay: HELD });
    }
    server.wait_until(WAIT, "both refreshes are held by the server", |s| s.delayed_requests() >= 2);
    let held_at = Instant::now();
    let reads = |s: &FakeLichess| {
        let requests = s.requests();
        (
            requests.iter().filter(|r| r.path == "/api/account").count(),
            requests.iter().filter(|r| r.path == "/files/list.txt").count(),
        )
    };
    let before = reads(&server);
    let spec =
        ChallengeSpec::standard("alice", 300, 3).rating(2000).color("white").opponent(Opponent::random(9).never_move());
    let id = server.send_challenge(spec);
    server.wait_until(WAIT, "the challenge is accepted while both reads are held", |s| {
        matches!(s.challenge_state(&id), ChallengeState::Accepted { .. })
    });
    let ChallengeState::Accepted { game_id } = server.challenge_state(&id) else { unreachable!() };
    server.wait_until(WAIT, "the game's stream opens", |s| {
        s.requests().iter().any(|r| r.path == format!("/api/bot/game/stream/{game_id}"))
    });
    // Refreshes are due every two seconds; none goes out while its kind's read is held. Both
    // are due again by `held_at + REFRESH` (the held reads went out before it): from then on,
    // a round of the bot's loop is where it would read again.
    std::thread::sleep((held_at + REFRESH).saturating_duration_since(Instant::now()));
    loop_round(&server);
    assert_eq!(reads(&server), before, "no second read while one is out:\n{}", server.dump());
    assert_eq!(server.delayed_requests(), 2);
}
