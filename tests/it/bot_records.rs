//! The bot's records through the real `ferz bot` against the fake Lichess server: PGN files
//! grouped per opponent and for all games, several games in one file, aborted games, a torn
//! file repaired without losing earlier games; and the log file, which never holds the token.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ferz_chess::parse_pgn;
use ferz_tests::TempDir;
use ferz_tests::bot_process::BotProcess;
use ferz_tests::fake_lichess::{ChallengeSpec, FAKE_TOKEN, FakeConfig, FakeLichess, Opponent};

use super::bot::{accepted_game, wait_over};

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// A game written earlier (by a previous run), and the start of one a crash cut short.
const EARLIER: &str = "[Event \"Casual blitz game\"]\n[Site \"http://127.0.0.1/earlier1\"]\n[Date \"2026.01.01\"]\n[Round \"-\"]\n[White \"ferzbot\"]\n[Black \"zoe\"]\n[Result \"1/2-1/2\"]\n[GameId \"earlier1\"]\n[TimeControl \"180+2\"]\n[Termination \"draw\"]\n\n1. e4 e5 2. Nf3 Nc6 1/2-1/2\n\n";
const TORN: &str = "[Event \"Casual blitz game\"]\n[Site \"http://127.0.0.1/torn0001\"]\n[Date \"2026.01.02\"]\n[Round \"-\"]\n[White \"ferzbot\"]\n[Black \"zoe\"]\n[Result \"1-0\"]\n\n1. d4 {[%eval 0.20,9] [%clk 0:03:00]} 1... d5 2. c4 {[%ev";

#[test]
fn one_file_for_all_games_appends_aborted_games_and_repairs_a_torn_tail() {
    let server = FakeLichess::start(FakeConfig::default());
    let bot = BotProcess::connected(
        &server,
        &[
            ("pgn", "grouping = \"all\"\naborted = true\npv = true"),
            ("abort", "abort_s = 1"),
            ("challenge", "concurrency = 3\nmax_games_per_opponent = 3"),
        ],
    );
    // What a crash left: an earlier complete game, then a torn one.
    let file = bot.pgn_dir().join("ferzbot-games.pgn");
    std::fs::create_dir_all(bot.pgn_dir()).unwrap();
    std::fs::write(&file, format!("{EARLIER}{TORN}")).unwrap();
    // Three games at once: two played, one aborted (the opponent never moves).
    let ids = [
        server.send_challenge(ChallengeSpec::standard("alice", 300, 3).color("black").opponent(Opponent::random(71))),
        server.send_challenge(ChallengeSpec::standard("bob", 300, 3).color("white").opponent(Opponent::random(72))),
        server.send_challenge(
            ChallengeSpec::standard("kim", 300, 3).color("white").opponent(Opponent::random(73).never_move()),
        ),
    ];
    let views: Vec<_> = ids.iter().map(|id| wait_over(&server, &accepted_game(&server, id))).collect();
    assert_eq!(views[2].status, "aborted", "{:?}", views[2]);
    server
        .wait_until(Duration::from_secs(10), "the three games are in the file", |_| parse_pgn(&read(&file)).len() == 4);
    let text = read(&file);
    assert!(text.starts_with(EARLIER), "the earlier game is untouched:\n{text}");
    assert!(!text.contains("torn0001"), "the torn game is cut off:\n{text}");
    assert_eq!(read(&file.with_extension("pgn.torn")), TORN, "and kept aside");
    let games = parse_pgn(&text);
    for view in &views {
        let game =
            games.iter().find(|g| g.header("GameId") == Some(view.id.as_str())).unwrap_or_else(|| panic!("{text}"));
        assert_eq!(game.header("Termination"), Some(view.status.as_str()));
        assert_eq!(game.moves.len(), view.ply(), "{text}");
    }
    let aborted = games.iter().find(|g| g.header("GameId") == Some(views[2].id.as_str())).unwrap();
    assert_eq!(aborted.header("Result"), Some("*"));
    assert!(text.contains("depth "), "PV comments: {text}");
    assert!(bot.log().contains("the PGN file ended in a torn game"), "{}", bot.log());
    assert_eq!(bot.pgns().len(), 1, "one file for all games");
}

#[test]
fn one_file_per_opponent_and_no_aborted_games_by_default() {
    let server = FakeLichess::start(FakeConfig::default());
    let bot = BotProcess::connected(&server, &[("pgn", "grouping = \"opponent\""), ("abort", "abort_s = 1")]);
    for (who, seed) in [("alice", 81), ("bob", 82), ("alice", 83)] {
        let id = server.send_challenge(ChallengeSpec::standard(who, 300, 3).opponent(Opponent::random(seed)));
        wait_over(&server, &accepted_game(&server, &id));
    }
    let never = server.send_challenge(
        ChallengeSpec::standard("bob", 300, 3).color("white").opponent(Opponent::random(84).never_move()),
    );
    let aborted = accepted_game(&server, &never);
    assert_eq!(wait_over(&server, &aborted).status, "aborted");
    let alice = bot.pgn_dir().join("ferzbot-vs-alice.pgn");
    let bob = bot.pgn_dir().join("ferzbot-vs-bob.pgn");
    server.wait_until(Duration::from_secs(10), "two games against alice", |_| parse_pgn(&read(&alice)).len() == 2);
    // The task logs "game over" after it has written its PGN, or decided not to.
    server.wait_until(Duration::from_secs(10), "the aborted game's task ends", |_| {
        bot.log().lines().any(|l| l.contains("game over") && l.contains(&aborted))
    });
    assert_eq!(parse_pgn(&read(&bob)).len(), 1, "the aborted game is not recorded: {}", read(&bob));
    assert_eq!(bot.pgns().len(), 2);
    assert!(!read(&alice).contains("depth "), "no PV comments unless asked");
}

/// Every file under `dir`.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    found.sort();
    found
}

#[test]
fn the_log_file_rotates_keeps_its_days_and_never_holds_the_token() {
    let logs = TempDir::new("bot-logs");
    // Five days of old logs; two days are kept, today's included.
    for day in 1..=5 {
        std::fs::write(logs.path().join(format!("bot.2026-01-0{day}.log")), "old\n").unwrap();
        // The appender prunes the oldest files by creation time, not by name: each day's file
        // gets a later time than the day before (not a wait for the bot).
        std::thread::sleep(Duration::from_millis(20));
    }
    let server = FakeLichess::start(FakeConfig::default());
    let log_file = logs.path().join("bot.log");
    let mut bot = BotProcess::start_with(
        &server.url(),
        FAKE_TOKEN,
        &[("log", "keep_days = 2"), ("chat", "reply_interval_s = 1")],
        "trace",
        &[std::ffi::OsStr::new("--log-file"), log_file.as_os_str()],
    );
    server.wait_until(Duration::from_secs(20), "the bot opens its event stream", |s| s.event_stream_open());
    let id = server.send_challenge(
        ChallengeSpec::standard("alice", 300, 3)
            .color("white")
            .opponent(Opponent::random(91).first_move_after(Duration::from_secs(2))),
    );
    let game = accepted_game(&server, &id);
    server.wait_until(Duration::from_secs(10), "the game stream is open", |s| {
        s.game(&game).is_some_and(|g| g.game_stream_connections > 0)
    });
    server.say(&game, "carol", "spectator", "!name");
    wait_over(&server, &game);
    bot.interrupt();
    assert_eq!(bot.wait(Duration::from_secs(30)), Some(0));
    let kept = files(logs.path());
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(kept.iter().any(|f| f.ends_with("bot.2026-01-05.log")), "{kept:?}");
    let today = kept.iter().find(|f| !f.ends_with("bot.2026-01-05.log")).expect("today's file");
    let name = today.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("bot.20") && name.ends_with(".log") && name.len() == "bot.2026-11-24.log".len(), "{name}");
    let written = read(today);
    // Everything up to the last line, flushed on exit; the trace level was on.
    for expected in ["starting the bot", "answering a chat command", "game over", "bot stopped", "TRACE"] {
        assert!(written.contains(expected), "{expected:?} missing from {name}:\n{written}");
    }
    assert!(!written.contains("\u{1b}["), "no colour codes in the file");
    // The token: nowhere in stderr or any log file, not even in part.
    let secret = FAKE_TOKEN.trim_start_matches("lip_");
    for (what, text) in
        std::iter::once(("stderr".to_owned(), bot.log())).chain(kept.iter().map(|f| (f.display().to_string(), read(f))))
    {
        assert!(!text.contains(secret) && !text.contains(&secret[..12]), "the token is in {what}");
    }
    assert!(bot.log().contains("bot stopped"), "stderr logs as before");
}
