//! The challenge policy and matchmaking of the real `ferz bot` against the fake Lichess server:
//! a burst of challenges that meets each rule of the policy (the online block list, the rating
//! difference to our current rating, bullet without increment, days per move, the slots kept
//! for humans, the recent games against bots), our rating read again while the bot runs, the
//! online block list read again (and kept when unreachable), the outgoing matchmaking
//! challenge holding its slot, and matchmaking's sets (an override with correspondence days and
//! its own mode) taken in turn.

use std::time::Duration;

use ferz_tests::bot_process::BotProcess;
use ferz_tests::fake_lichess::{ChallengeSpec, ChallengeState, FakeConfig, FakeLichess, Fault, OnlineBot, Opponent};

use super::bot::{CHECK_IN_EVERY_SECOND, accepted_game, loop_round};

const WAIT: Duration = Duration::from_secs(20);

/// A human rated 2000 (the fake's rating for the bot) who plays white and never moves, so that
/// an accepted game holds its slot (the harness's abort timer is off in these tests).
fn human(name: &str) -> ChallengeSpec {
    ChallengeSpec::standard(name, 300, 3).rating(2000).color("white").opponent(Opponent::random(9).never_move())
}

/// [`human`], a bot account.
fn robot(name: &str) -> ChallengeSpec {
    human(name).bot()
}

fn declined_with(server: &FakeLichess, id: &str, reason: &str) {
    server.wait_until(WAIT, &format!("challenge {id} is declined with {reason}"), |s| {
        s.challenge_state(id) == ChallengeState::Declined { reason: reason.to_lowercase() }
    });
}

const NO_ABORT: (&str, &str) = ("abort", "abort_s = 0");

#[test]
fn a_challenge_burst_meets_each_rule_with_its_decline_reason() {
    let server = FakeLichess::start(FakeConfig::default());
    let list = server.set_text_file("blocked.txt", "# trolls of the week\nTroll\n");
    let challenge = format!(
        "concurrency = 2\nreserved_for_humans = 1\nmax_waiting = 0\nrating_difference = 300\ncorrespondence = true\n\
         min_days = 2\nmax_days = 7\nbullet_requires_increment = true\nonline_block_list = [\"{list}\"]"
    );
    let bot = BotProcess::connected(&server, &[("challenge", &challenge), NO_ABORT]);
    // Every rule of the challenge alone, each failing one rule only.
    let burst = [
        (human("troll"), "generic"),
        (human("faraway").rating(2400), "generic"),
        (human("nodelay").clock(60, 0), "timeControl"),
        (human("hasty").days(1), "tooFast"),
        (human("patient").days(10), "tooSlow"),
        (human("forever").unlimited(), "tooSlow"),
    ];
    let ids: Vec<(String, &str)> = burst.into_iter().map(|(spec, want)| (server.send_challenge(spec), want)).collect();
    for (id, want) in &ids {
        declined_with(&server, id, want);
    }
    // Two slots, one kept for humans: a bot takes the first, a second bot finds the bot busy,
    // a human takes the kept slot.
    accepted_game(&server, &server.send_challenge(robot("robota")));
    declined_with(&server, &server.send_challenge(robot("robotb")), "later");
    accepted_game(&server, &server.send_challenge(human("carol")));
    assert!(bot.log().contains("online block list read"), "{}", bot.log());
}

#[test]
fn games_against_bots_are_limited_over_the_window() {
    let server = FakeLichess::start(FakeConfig::default());
    let _bot = BotProcess::connected(
        &server,
        &[
            ("challenge", "concurrency = 3\nmax_waiting = 0\nrecent_bot_limit = 1\nrecent_bot_window_s = 3600"),
            NO_ABORT,
        ],
    );
    accepted_game(&server, &server.send_challenge(robot("robota")));
    // A slot is free, but one game against a bot started within the hour.
    declined_with(&server, &server.send_challenge(robot("robotb")), "later");
    accepted_game(&server, &server.send_challenge(human("carol")));
}

#[test]
fn our_rating_is_read_again_and_moves_the_window() {
    let server = FakeLichess::start(FakeConfig::default());
    let _bot =
        BotProcess::connected(&server, &[("challenge", "rating_difference = 300\nrating_refresh_s = 2"), NO_ABORT]);
    // 2400 is 400 above our 2000.
    declined_with(&server, &server.send_challenge(human("climber").rating(2400)), "generic");
    // We climb to 2300; once the bot has read its account again, 2400 is within 300.
    server.set_bot_rating(2300);
    let reads = server.account_reads();
    server.wait_until(WAIT, "the bot reads its account twice more", |s| s.account_reads() >= reads + 2);
    accepted_game(&server, &server.send_challenge(human("climber2").rating(2400)));
}

#[test]
fn the_online_block_list_is_read_again_and_kept_when_unreachable() {
    let server = FakeLichess::start(FakeConfig::default());
    let list = server.set_text_file("list.txt", "troll\n");
    let challenge = format!("concurrency = 4\nonline_block_list = [\"{list}\"]\nonline_block_list_refresh_s = 2");
    let bot = BotProcess::connected(&server, &[("challenge", &challenge), NO_ABORT]);
    let list_reads = |s: &FakeLichess, status: u16| {
        s.requests().iter().filter(|r| r.path == "/files/list.txt" && r.status == status).count()
    };
    declined_with(&server, &server.send_challenge(human("troll")), "generic");
    // The list grows: after the next read, the newcomer is declined too.
    server.set_text_file("list.txt", "troll\nnewcomer\n");
    // Two reads after the change: a read already under way when the list changed can still be
    // counted after it, with the old list (seen on a loaded machine).
    let reads = list_reads(&server, 200);
    server.wait_until(WAIT, "the list is read again", |s| list_reads(s, 200) > reads + 1);
    declined_with(&server, &server.send_challenge(human("newcomer")), "generic");
    // The list's server fails: the bot says so and keeps the names it has.
    server.inject(Fault::ServerError { path_contains: "/files/list.txt".into(), times: 1000, status: 500 });
    server.wait_until(WAIT, "two reads of the list fail", |s| list_reads(s, 500) >= 2);
    declined_with(&server, &server.send_challenge(human("newcomer")), "generic");
    accepted_game(&server, &server.send_challenge(human("friend")));
    let log = bot.log();
    assert!(log.contains("cannot read the online block list; keeping its last contents"), "{log}");
}

#[test]
fn the_outgoing_matchmaking_challenge_holds_its_slot() {
    let server = FakeLichess::start(FakeConfig::default());
    // A bot that never answers our challenge: it waits out its timeout.
    server.set_online_bots(vec![OnlineBot::new("Silent").perf("blitz", 2000, 100)]);
    let _bot = BotProcess::connected(
        &server,
        &[
            (
                "matchmaking",
                "enabled = true\nidle_s = 0\nmin_interval_s = 1\ntime_controls = [\"180+2\"]\nchallenge_timeout_s = 6",
            ),
            NO_ABORT,
            CHECK_IN_EVERY_SECOND,
        ],
    );
    server.wait_until(WAIT, "the bot challenges Silent", |s| !s.outgoing_challenges().is_empty());
    let ours = server.outgoing_challenges()[0].id.clone();
    // One slot, taken by our challenge: the human waits for it (lichess-bot issue #1163).
    let alice = server.send_challenge(human("alice"));
    let game = accepted_game(&server, &alice);
    assert_eq!(server.challenge_state(&ours), ChallengeState::Canceled);
    let requests = server.requests();
    let at = |path: String| requests.iter().position(|r| r.method == "POST" && r.path == path);
    let cancelled = at(format!("/api/challenge/{ours}/cancel")).expect("our challenge was cancelled");
    let accepted = at(format!("/api/challenge/{alice}/accept")).expect("alice's challenge was accepted");
    assert!(cancelled < accepted, "alice took the slot of our outgoing challenge:\n{}", server.dump());
    // Her game fills the slot: no challenge goes out while it runs.
    server.wait_until(WAIT, "alice's game starts", |s| s.game(&game).is_some());
    // Without her game in the slot, the next round would challenge (min_interval_s = 1).
    loop_round(&server);
    assert_eq!(server.outgoing_challenges().len(), 1, "{:?}", server.outgoing_challenges());
}

#[test]
fn matchmaking_takes_its_sets_in_turn_with_their_mode_and_days() {
    use ferz_tests::fake_lichess::ChallengeAnswer;
    let server = FakeLichess::start(FakeConfig::default());
    let online = |name: &str| OnlineBot::new(name).perf("blitz", 2000, 100).perf("correspondence", 2000, 10);
    server.set_online_bots(vec![online("Nay"), online("Never")]);
    for name in ["nay", "never"] {
        server.set_challenge_answer(name, ChallengeAnswer::Decline("later".into()));
    }
    let _bot = BotProcess::connected(
        &server,
        &[(
            "matchmaking",
            "enabled = true\nidle_s = 0\nmin_interval_s = 1\ntime_controls = [\"180+2\"]\nmode = \"casual\"\n\
             override_order = \"sequential\"\n[matchmaking.overrides.corr]\ndays = [3]\nmode = \"rated\"",
        )],
    );
    // The [matchmaking] keys first, then the override; each decliner is then left alone.
    server.wait_until(WAIT, "two challenges went out", |s| s.outgoing_challenges().len() >= 2);
    let out = server.outgoing_challenges();
    let fields = |i: usize| {
        let c = &out[i];
        (c.field("clock.limit"), c.field("days"), c.field("rated"))
    };
    assert_eq!(fields(0), (Some("180"), None, Some("false")), "{out:?}");
    assert_eq!(fields(1), (None, Some("3"), Some("true")), "{out:?}");
}
