//! Chat commands through the real `ferz bot` against the fake Lichess server: every command in
//! both rooms, `!eval` withheld from the opponent during the game and answered after it,
//! `!wait` pushing the abort back, unknown commands and ordinary chat ignored, and a flood held to the reply limits
//! while the game goes on to its end.

use std::time::{Duration, Instant};

use ferz_tests::bot_process::BotProcess;
use ferz_tests::fake_lichess::{ChallengeSpec, ChallengeState, ChatEntry, FakeConfig, FakeLichess, GameView, Opponent};

use super::bot::{accepted_game, wait_over};

const BOT: &str = "ferzbot";
/// The bot keeps its replies to four lines in ten seconds per account (Lichess drops the sixth).
const ACCOUNT_WINDOW: Duration = Duration::from_secs(10);

/// The bot's own chat lines in game `id`, oldest first (the test's lines in the bot's name,
/// all commands, left out; no reply starts with `!`).
fn bot_lines(server: &FakeLichess, id: &str) -> Vec<ChatEntry> {
    server
        .game(id)
        .map(|g| g.chat_log.into_iter().filter(|l| l.user == BOT && !l.text.starts_with('!')).collect())
        .unwrap_or_default()
}

/// The bot's lines in every game, oldest first: the account's limit counts them all (the
/// greetings of the game that takes the slot next too).
fn account_lines(server: &FakeLichess) -> Vec<ChatEntry> {
    let mut lines: Vec<ChatEntry> = server
        .games()
        .into_iter()
        .flat_map(|g| g.chat_log)
        .filter(|l| l.user == BOT && !l.text.starts_with('!'))
        .collect();
    lines.sort_by_key(|l| l.at);
    lines
}

/// Sleeps until a reply in `room` would pass the bot's limits: the room's `interval` since its
/// last line there, and fewer than four lines of the account in the last ten seconds.
fn wait_for_budget(server: &FakeLichess, id: &str, room: &str, interval: Duration) {
    let lines = bot_lines(server, id);
    let margin = Duration::from_millis(600);
    let mut ready = Instant::now();
    if let Some(last) = lines.iter().rev().find(|l| l.room == room) {
        ready = ready.max(last.at + interval + margin);
    }
    let account = account_lines(server);
    if account.len() >= 4 {
        ready = ready.max(account[account.len() - 4].at + ACCOUNT_WINDOW + margin);
    }
    std::thread::sleep(ready.saturating_duration_since(Instant::now()));
}

/// `user` says `text` in `room` once the bot may answer; returns its reply there.
fn ask(server: &FakeLichess, id: &str, user: &str, room: &str, text: &str, interval: Duration) -> String {
    wait_for_budget(server, id, room, interval);
    let before = bot_lines(server, id).len();
    server.say(id, user, room, text);
    server.wait_until(Duration::from_secs(10), &format!("the bot answers {text:?} in the {room} room"), |s| {
        bot_lines(s, id).len() > before
    });
    let reply = bot_lines(server, id).remove(before);
    assert_eq!(reply.room, room, "{reply:?}");
    assert!(reply.text.chars().count() <= 140, "{reply:?}");
    reply.text
}

/// `user` says `text` in `room` once the bot may answer; asserts that it does not.
fn ignored(bot: &BotProcess, server: &FakeLichess, id: &str, user: &str, room: &str, text: &str, interval: Duration) {
    wait_for_budget(server, id, room, interval);
    let before = bot_lines(server, id).len();
    server.say(id, user, room, text);
    // The game task handles its chat lines one at a time, answering (or not) before it reads
    // the next: once it has logged the line after `text`, `text` got all the reply it gets.
    let marker = format!("chat line {before} after {text}");
    server.say(id, "carol", "spectator", &marker);
    server.wait_until(Duration::from_secs(10), "the bot reads the line after it", |_| {
        bot.log().contains(&format!("text={marker:?}"))
    });
    let after = bot_lines(server, id);
    assert_eq!(after.len(), before, "{text:?} got a reply: {:?}", after.last());
}

fn still_running(server: &FakeLichess, id: &str) -> GameView {
    let view = server.game(id).expect("the game exists");
    assert!(!view.is_over(), "the game ended too early for this check: {view:?}");
    view
}

#[test]
fn every_command_answers_in_both_rooms_and_eval_is_withheld_from_the_opponent_mid_game() {
    let server = FakeLichess::start(FakeConfig::default());
    let interval = Duration::from_secs(1);
    let bot = BotProcess::connected(
        &server,
        &[
            ("chat", "reply_interval_s = 1\nwait_s = 60"),
            ("abort", "abort_s = 2"),
            ("challenge", "concurrency = 1\nmax_waiting = 2"),
            ("resign", "enabled = false"),
            ("draw", "offer = false"),
        ],
    );
    // Alice (white) moves only when the test lets her: the game cannot end under the commands
    // below, however quickly the bot would mate her random moves. Her first move takes 5 s,
    // longer than the 2 s abort, so only `!wait` keeps the game alive.
    let challenge = server.send_challenge(ChallengeSpec::standard("alice", 300, 3).color("white").opponent(
        Opponent::random(61).held().first_move_after(Duration::from_secs(5)).think(Duration::from_millis(300)),
    ));
    let game = accepted_game(&server, &challenge);
    // Bob's challenge waits for the only slot.
    let waiting = server.send_challenge(ChallengeSpec::standard("bob", 180, 2).opponent(Opponent::random(62)));
    server.wait_until(Duration::from_secs(10), "the game stream is open", |s| {
        s.game(&game)
            .is_some_and(|g| g.game_stream_connections > 0 && g.chat.iter().any(|(_, t)| t.contains("Good luck")))
    });
    // !wait before alice's first move: the 2 s abort is pushed back by 60 s.
    let wait = ask(&server, &game, "alice", "player", "!wait", interval);
    assert_eq!(wait, "OK, I'll wait 60 more seconds for the first move.");
    server.release_moves(&game, 1);
    server.wait_until(Duration::from_secs(15), "alice makes her first move", |s| {
        s.game(&game).is_some_and(|g| g.ply() >= 2 || g.is_over())
    });
    assert_eq!(still_running(&server, &game).status, "started", "not aborted");
    // Spectators: help, name, eval (with a PV in SAN), queue; any case.
    let help = ask(&server, &game, "carol", "spectator", "!HELP", interval);
    for command in ["!name", "!eval", "!wait", "!queue"] {
        assert!(help.contains(command), "{help}");
    }
    let name = ask(&server, &game, "carol", "spectator", "!Name", interval);
    assert!(name.starts_with("ferzbot runs the ferz engine ") && name.contains("4 MB hash, 1 thread"), "{name}");
    let eval = ask(&server, &game, "dave", "spectator", "!eval", interval);
    assert!(eval.starts_with("Eval ") && eval.contains("(white's view), depth "), "{eval}");
    assert!(eval.contains(": ") && eval.split(": ").nth(1).is_some_and(|pv| pv.contains('.')), "a PV in SAN: {eval}");
    still_running(&server, &game);
    // The opponent asks for the evaluation mid-game: withheld.
    let withheld = ask(&server, &game, "alice", "player", "!eval", interval);
    assert_eq!(withheld, "I'll tell you my evaluation after the game.");
    still_running(&server, &game);
    let queue = ask(&server, &game, "carol", "spectator", "!queue", interval);
    assert_eq!(queue, "Playing 1 game; 1 waiting: bob (3+2)");
    let late = ask(&server, &game, "alice", "player", "!commands", interval);
    assert_eq!(late, help, "!commands is !help");
    // Unknown commands, ordinary chat and the bot's own lines get no reply.
    ignored(&bot, &server, &game, "carol", "spectator", "!dance", interval);
    ignored(&bot, &server, &game, "alice", "player", "good luck!", interval);
    ignored(&bot, &server, &game, BOT, "spectator", "!name", interval);
    // Alice plays on until the game ends.
    server.release_moves(&game, 1000);
    let view = wait_over(&server, &game);
    assert!(view.status != "aborted", "{view:?}");
    // After the game (its stream closed) the opponent's !eval is read from the chat, and answered.
    server.wait_until(Duration::from_secs(10), "the goodbye", |s| {
        s.game(&game).is_some_and(|g| g.chat.iter().any(|(_, t)| t.contains("Good game")))
    });
    // The slot frees and bob's game is played; its greetings count against the account's chat
    // limit too, so the reply below waits until they are all written.
    let bob = accepted_game(&server, &waiting);
    assert!(matches!(server.challenge_state(&waiting), ChallengeState::Accepted { .. }));
    wait_over(&server, &bob);
    server.wait_until(Duration::from_secs(10), "bob's goodbye", |s| {
        s.game(&bob).is_some_and(|g| g.chat.iter().any(|(_, t)| t.contains("Good game")))
    });
    let after = ask(&server, &game, "alice", "player", "!eval", interval);
    assert!(after.starts_with("Eval ") && after.contains("depth "), "{after}");
    let reads = server.requests().into_iter().filter(|r| r.method == "GET" && r.path.ends_with("/chat")).count();
    assert!(reads >= 2, "the chat was read after the game: {reads} reads");
    assert!(
        bot.log().contains("ignoring an unknown chat command") && bot.log().contains("command=\"dance\""),
        "{}",
        bot.log()
    );
}

#[test]
fn a_flood_of_chat_lines_is_held_to_the_limits_and_the_game_finishes() {
    let server = FakeLichess::start(FakeConfig::default());
    let bot = BotProcess::connected(&server, &[("chat", "reply_interval_s = 2\nmax_replies_per_game = 6")]);
    let challenge = server.send_challenge(
        ChallengeSpec::standard("erin", 300, 3)
            .color("white")
            // Held, so that the game lasts through the flood whatever the bot plays: a random
            // mover can walk into a mate in a few moves.
            .opponent(Opponent::random(63).think(Duration::from_millis(150)).held()),
    );
    let game = accepted_game(&server, &challenge);
    server.wait_until(Duration::from_secs(10), "the game stream is open", |s| {
        s.game(&game).is_some_and(|g| g.game_stream_connections > 0)
    });
    let started = Instant::now();
    let lines = ["!eval", "!name", "!help", "!queue", "!wait", "!nonsense", "spam spam spam", "!EVAL now"];
    let mut sent = 0;
    // Three hundred lines in three seconds, from the opponent and from spectators, while the game
    // goes on: a move of the opponent's every fifty lines (no mate comes before its second).
    while sent < 300 && server.game(&game).is_some_and(|g| !g.is_over()) {
        if sent % 50 == 49 {
            server.release_moves(&game, 1);
        }
        let (user, room) = if sent % 3 == 0 { ("erin", "player") } else { ("spectator", "spectator") };
        let user = if room == "spectator" { format!("{user}{}", sent % 7) } else { user.to_owned() };
        server.say(&game, &user, room, lines[sent % lines.len()]);
        sent += 1;
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(sent >= 100, "the game ended before the flood: {sent} lines");
    server.release_moves(&game, 1000);
    let view = wait_over(&server, &game);
    assert!(view.status != "aborted" && view.ply() > 2, "{view:?}");
    let replies: Vec<ChatEntry> = bot_lines(&server, &game)
        .into_iter()
        .filter(|l| l.at >= started && !l.text.contains("Good game") && !l.text.starts_with("Hi "))
        .collect();
    assert!(!replies.is_empty() && replies.len() <= 6, "{} replies: {replies:?}", replies.len());
    for room in ["player", "spectator"] {
        let times: Vec<Instant> = replies.iter().filter(|l| l.room == room).map(|l| l.at).collect();
        for pair in times.windows(2) {
            assert!(pair[1] - pair[0] >= Duration::from_millis(1900), "{room}: replies {:?} apart", pair[1] - pair[0]);
        }
    }
    // Replies: never a fifth within ten seconds; with the greetings, never Lichess's sixth.
    for five in replies.windows(5) {
        assert!(five[4].at - five[0].at >= Duration::from_millis(9800), "{five:?}");
    }
    for six in bot_lines(&server, &game).windows(6) {
        assert!(six[5].at - six[0].at >= Duration::from_millis(9800), "{six:?}");
    }
    let log = bot.log();
    assert!(log.contains("chat reply held back"), "{log}");
    assert!(log.contains("ignoring an unknown chat command"), "{log}");
    server.wait_until(Duration::from_secs(5), "the PGN is written", |_| bot.pgns().len() == 1);
}
