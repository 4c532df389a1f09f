//! The real `ferz bot` against the fake Lichess server: challenges, whole games, draws,
//! resignations, aborts, claims, takebacks, concurrency and network faults.

use std::time::Duration;

use ferz_chess::{Game, Position, Variant};
use ferz_tests::bot_process::BotProcess;
use ferz_tests::fake_lichess::{
    Castling, ChallengeSpec, ChallengeState, FAKE_TOKEN, FakeConfig, FakeLichess, Fault, GameView, Opponent,
};

const GAME_TIMEOUT: Duration = Duration::from_secs(60);

fn server(config: FakeConfig) -> FakeLichess {
    FakeLichess::start(config)
}

/// Settings that make the bot check in every second: [`loop_round`] watches its main loop by
/// its check-ins.
pub(super) const CHECK_IN_EVERY_SECOND: (&str, &str) = ("correspondence", "checkin_period_s = 1");

/// The bot's check-ins so far (`/api/account/playing`).
fn check_ins(server: &FakeLichess) -> usize {
    server.requests().iter().filter(|r| r.path == "/api/account/playing").count()
}

/// Returns once the bot's main loop has gone round again since the call, seen by two more
/// check-ins (the bot must check in every second: `[correspondence] checkin_period_s = 1`).
/// Each round reads what is due, fills its slots and checks in, then asks for a matchmaking
/// challenge: by the second check-in a round that began after the call has read, and the round
/// before it has challenged, whatever was due. Tests whose claim is that nothing happens wait
/// for this instead of sleeping.
pub(super) fn loop_round(server: &FakeLichess) {
    let seen = check_ins(server);
    server
        .wait_until(Duration::from_secs(30), "the bot's loop goes round (two check-ins)", |s| check_ins(s) >= seen + 2);
}

pub(super) fn accepted_game(server: &FakeLichess, challenge: &str) -> String {
    server.wait_until(Duration::from_secs(10), "the challenge is accepted", |s| {
        matches!(s.challenge_state(challenge), ChallengeState::Accepted { .. })
    });
    match server.challenge_state(challenge) {
        ChallengeState::Accepted { game_id } => game_id,
        other => panic!("{other:?}"),
    }
}

pub(super) fn wait_over(server: &FakeLichess, game: &str) -> GameView {
    server.wait_until(GAME_TIMEOUT, &format!("game {game} ends"), |s| s.game(game).is_some_and(|g| g.is_over()));
    server.game(game).expect("game exists")
}

/// Replays the server's record with our rules: every move legal, and the final status agrees
/// with the position when the game ended on the board.
pub(super) fn assert_legal(view: &GameView) {
    assert!(view.illegal_moves_from_bot.is_empty(), "illegal moves from the bot: {:?}", view.illegal_moves_from_bot);
    let variant = if view.variant == "standard" { Variant::Chess } else { Variant::Chess960 };
    let start = if view.initial_fen == "startpos" {
        Position::new(Variant::Chess).with_variant(variant).unwrap()
    } else {
        Position::from_fen(&view.initial_fen, variant).unwrap()
    };
    let mut game = Game::new(start);
    for uci in &view.moves {
        game.play_uci(uci).unwrap_or_else(|e| panic!("{uci}: {e} in {view:?}"));
    }
    if view.status == "mate" {
        assert!(game.outcome().is_some(), "mate on the server but not on the board: {view:?}");
    }
}

#[test]
fn plays_whole_standard_games_as_white_and_black_and_writes_pgns() {
    let server = server(FakeConfig { standard_castling: Castling::TwoStep, ..FakeConfig::default() });
    let bot = BotProcess::connected(&server, &[]);
    // The challenger asks for black: the bot is white; then the other way round. The opponent
    // castles, in the server's legacy notation (e1g1 / e8g8).
    let as_white = server.send_challenge(
        ChallengeSpec::standard("alice", 180, 2)
            .color("black")
            .opponent(Opponent::random(1).moves(&["e7e5", "g8f6", "f8c5", "e8g8"])),
    );
    let game = accepted_game(&server, &as_white);
    let view = wait_over(&server, &game);
    assert_eq!(view.bot_color, "white");
    assert_legal(&view);
    let as_black = server.send_challenge(
        ChallengeSpec::standard("bob", 180, 2)
            .color("white")
            .opponent(Opponent::random(2).moves(&["e2e4", "g1f3", "f1c4", "e1g1"])),
    );
    let game2 = accepted_game(&server, &as_black);
    let view2 = wait_over(&server, &game2);
    assert_eq!(view2.bot_color, "black");
    assert_legal(&view2);
    for view in [&view, &view2] {
        assert!(view.bot_won() || view.winner.is_none(), "the bot lost to random moves: {view:?}");
        assert!(view.chat.iter().any(|(room, text)| room == "player" && text.contains("Good luck")), "{:?}", view.chat);
    }
    server.wait_until(Duration::from_secs(5), "PGNs are written", |_| bot.pgns().len() == 2);
    if std::env::var_os("FERZ_TEST_SHOW_LOG").is_some() {
        eprintln!("{}", bot.log());
    }
    let pgns = bot.pgns();
    assert!(pgns.iter().any(|p| p.contains("[White \"ferzbot\"]") && p.contains("[Black \"alice\"]")), "{pgns:?}");
    assert!(pgns.iter().all(|p| p.contains("[%eval") && p.contains("[%clk")), "{pgns:?}");
}

#[test]
fn chess960_and_from_position_games_with_both_castling_notations() {
    for castling in [Castling::KingToRook, Castling::TwoStep] {
        let server = server(FakeConfig { standard_castling: castling, ..FakeConfig::default() });
        let _bot = BotProcess::connected(&server, &[]);
        // Chess960 from the standard array: the opponent castles king-takes-rook on both sides
        // (e1h1 in one game, e8a8 in the other).
        let fen960 = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1";
        let kingside = server.send_challenge(
            ChallengeSpec::standard("carol", 300, 3)
                .variant("chess960")
                .fen(fen960)
                .color("white")
                .opponent(Opponent::random(3).moves(&["e2e4", "g1f3", "f1c4", "e1h1"])),
        );
        let queenside = server.send_challenge(
            ChallengeSpec::standard("dave", 300, 3)
                .variant("chess960")
                .fen(fen960)
                .color("black")
                .opponent(Opponent::random(4).moves(&["d7d5", "b8c6", "c8f5", "d8d7", "e8a8"])),
        );
        // fromPosition with Shredder-letter rights (rooks on b and g files).
        let shredder = "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1";
        let from_pos = server.send_challenge(
            ChallengeSpec::standard("erin", 300, 3).fen(shredder).color("white").opponent(Opponent::random(5)),
        );
        for challenge in [kingside, queenside, from_pos] {
            let game = accepted_game(&server, &challenge);
            let view = wait_over(&server, &game);
            assert_legal(&view);
            assert!(view.bot_won() || view.winner.is_none(), "{view:?}");
        }
    }
}

#[test]
fn declines_with_each_reason() {
    let server = server(FakeConfig::default());
    let reasons = |server: &FakeLichess, specs: Vec<(ChallengeSpec, &str)>| {
        let ids: Vec<(String, &str)> =
            specs.into_iter().map(|(spec, want)| (server.send_challenge(spec), want)).collect();
        for (id, want) in ids {
            server.wait_until(Duration::from_secs(10), &format!("challenge {id} is declined with {want}"), |s| {
                s.challenge_state(&id) == ChallengeState::Declined { reason: want.to_lowercase() }
            });
        }
    };
    {
        // One slot, nobody waits; no bots; casual only; blitz and rapid, increments up to 5 s.
        let _bot = BotProcess::connected(
            &server,
            &[(
                "challenge",
                "concurrency = 1\nmax_waiting = 0\nbots = false\nrated = false\nspeeds = [\"blitz\", \"rapid\"]\nmax_increment_s = 5\nblock_list = [\"mallory\"]\nmin_rating = 1000",
            )],
        );
        // Occupy the only slot with an opponent who never moves (abort is 30 s away).
        let busy = server.send_challenge(
            ChallengeSpec::standard("olga", 300, 0).color("white").opponent(Opponent::random(6).never_move()),
        );
        accepted_game(&server, &busy);
        reasons(
            &server,
            vec![
                (ChallengeSpec::standard("botty", 300, 0).bot(), "noBot"),
                (ChallengeSpec::standard("a", 300, 0).variant("atomic"), "variant"),
                (ChallengeSpec::standard("b", 60, 0), "tooFast"),
                (ChallengeSpec::standard("c", 3600, 0), "tooSlow"),
                (ChallengeSpec::standard("c2", 300, 0).days(3), "tooSlow"),
                (ChallengeSpec::standard("d", 300, 8), "timeControl"),
                (ChallengeSpec::standard("e", 300, 0).rated(), "casual"),
                (ChallengeSpec::standard("mallory", 300, 0), "generic"),
                (ChallengeSpec::standard("weak", 300, 0).rating(800), "generic"),
                (ChallengeSpec::standard("f", 300, 0), "later"),
            ],
        );
    }
    let server = self::server(FakeConfig::default());
    let _bot =
        BotProcess::connected(&server, &[("challenge", "humans = false\ncasual = false\nvariants = [\"standard\"]")]);
    reasons(
        &server,
        vec![
            (ChallengeSpec::standard("human", 300, 0).rated(), "onlyBot"),
            (ChallengeSpec::standard("robo", 300, 0).bot(), "rated"),
            (ChallengeSpec::standard("robo2", 300, 0).bot().rated().variant("chess960"), "standard"),
        ],
    );
}

#[test]
fn draw_offers_accepted_when_level_declined_when_winning_and_made_by_us() {
    let server = server(FakeConfig::default());
    let _bot = BotProcess::connected(
        &server,
        &[
            ("draw", "accept_score_cp = 80\noffer_moves = 2\noffer_score_cp = 60\noffer_max_pieces = 4"),
            ("resign", "enabled = false"),
        ],
    );
    // Level: a symmetrical pawn ending with more pieces than our own offers allow, where a
    // random first move changes nothing; the opponent offers with it and the bot (white)
    // accepts. (From the start position a random opponent soon hangs a pawn, and whether that
    // stays within 80 cp depends on the evaluation.)
    let level = server.send_challenge(
        ChallengeSpec::standard("fay", 300, 3)
            .fen("4k3/pp4pp/8/8/8/8/PP4PP/4K3 w - - 0 1")
            .color("black")
            .opponent(Opponent::random(7).offer_draw_at(1)),
    );
    let view = wait_over(&server, &accepted_game(&server, &level));
    assert_eq!(view.status, "draw", "{view:?}");
    // Winning: a queen up; the offer is declined and the bot goes on to win.
    let won = server.send_challenge(
        ChallengeSpec::standard("gus", 300, 3)
            .fen("4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1")
            .color("black")
            .opponent(Opponent::random(8).offer_draw_at(1)),
    );
    let view = wait_over(&server, &accepted_game(&server, &won));
    assert!(view.draw_offers_declined_by_bot >= 1, "{view:?}");
    assert!(view.bot_won(), "{view:?}");
    // Our offer: a locked pawn ending; the opponent accepts.
    let ours = server.send_challenge(
        ChallengeSpec::standard("hal", 300, 3)
            .fen("4k3/8/8/4p3/4P3/8/8/4K3 w - - 0 1")
            .color("black")
            .opponent(Opponent::random(9).accepts_draws(true)),
    );
    let view = wait_over(&server, &accepted_game(&server, &ours));
    assert!(view.bot_draw_offers >= 1, "{view:?}");
    assert_eq!(view.status, "draw", "{view:?}");
}

#[test]
fn resigns_lost_games_and_sees_opponents_resign() {
    let server = server(FakeConfig::default());
    let _bot = BotProcess::connected(&server, &[("resign", "moves = 2\nscore_cp = -500")]);
    let lost = server.send_challenge(
        ChallengeSpec::standard("ivan", 300, 3)
            .fen("3qk3/8/8/8/8/8/8/4K3 w - - 0 1")
            .color("black")
            .opponent(Opponent::random(10).think(Duration::from_millis(5))),
    );
    let view = wait_over(&server, &accepted_game(&server, &lost));
    assert_eq!((view.status.as_str(), view.winner.as_deref()), ("resign", Some("black")), "{view:?}");
    let theirs = server.send_challenge(
        ChallengeSpec::standard("judy", 300, 3).color("black").opponent(Opponent::random(11).resign_at(5)),
    );
    let view = wait_over(&server, &accepted_game(&server, &theirs));
    assert_eq!(view.status, "resign");
    assert!(view.bot_won(), "{view:?}");
}

#[test]
fn aborts_games_the_opponent_never_starts_and_claims_abandoned_ones() {
    let server = server(FakeConfig::default());
    let _bot = BotProcess::connected(&server, &[("abort", "abort_s = 1")]);
    // As black: white never moves. As white: the bot moves, black never answers.
    for color in ["white", "black"] {
        let ch = server.send_challenge(
            // One challenger per game: the bot may still be wrapping up the first game (goodbye,
            // PGN) when the second challenge comes, and one game per opponent is the default.
            ChallengeSpec::standard(&format!("kim-{color}"), 300, 3)
                .color(color)
                .opponent(Opponent::random(12).never_move()),
        );
        let view = wait_over(&server, &accepted_game(&server, &ch));
        assert_eq!(view.status, "aborted", "{view:?}");
        assert!(view.ply() < 2);
    }
    let gone = server.send_challenge(
        ChallengeSpec::standard("lea", 300, 3)
            .color("black")
            .opponent(Opponent::random(13).gone_at(4, Duration::from_millis(800))),
    );
    let view = wait_over(&server, &accepted_game(&server, &gone));
    assert_eq!(view.status, "timeout", "{view:?}");
    assert!(view.bot_won(), "{view:?}");
}

#[test]
fn grants_takebacks_up_to_the_limit() {
    // The answers reach the game late, so our next move lands while a proposal still shows: the
    // bot must answer each proposal once, not once per state that shows it.
    let server = server(FakeConfig { takeback_answer_delay: Duration::from_millis(150), ..FakeConfig::default() });
    let _bot = BotProcess::connected(&server, &[("takeback", "max_per_game = 1")]);
    let ch = server.send_challenge(
        ChallengeSpec::standard("max", 300, 3)
            .color("black")
            .opponent(Opponent::random(14).takeback_at(3).takeback_at(7)),
    );
    let view = wait_over(&server, &accepted_game(&server, &ch));
    assert_eq!(view.takebacks_granted, 1, "{view:?}");
    assert_legal(&view);
    let answers: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.path.contains("/takeback/"))
        .map(|r| r.path.rsplit('/').next().unwrap_or("").to_owned())
        .collect();
    assert_eq!(answers, ["yes", "no"], "one granted, the next declined");
}

#[test]
fn concurrency_slots_waiting_and_eight_games_at_once() {
    let server = server(FakeConfig::default());
    let _bot = BotProcess::connected(
        &server,
        &[("challenge", "concurrency = 2\nmax_waiting = 1\nmax_games_per_opponent = 8")],
    );
    let slow = || Opponent::random(15).think(Duration::from_millis(30));
    let ids: Vec<String> = (0..4)
        .map(|i| server.send_challenge(ChallengeSpec::standard(&format!("p{i}"), 300, 3).opponent(slow())))
        .collect();
    server.wait_until(Duration::from_secs(10), "one challenge is declined with later", |s| {
        ids.iter().filter(|id| s.challenge_state(id) == ChallengeState::Declined { reason: "later".into() }).count()
            == 1
    });
    server.wait_until(GAME_TIMEOUT, "three games are played, two at a time", |s| {
        ids.iter().filter(|id| matches!(s.challenge_state(id), ChallengeState::Accepted { .. })).count() == 3
            && s.games().iter().all(GameView::is_over)
    });
    drop(_bot);

    let server = self::server(FakeConfig::default());
    let _bot = BotProcess::connected(&server, &[("challenge", "concurrency = 8\nmax_games_per_opponent = 8")]);
    let ids: Vec<String> = (0..8)
        .map(|i| {
            server.send_challenge(
                ChallengeSpec::standard("many", 300, 3)
                    .opponent(Opponent::random(20 + i).think(Duration::from_millis(10))),
            )
        })
        .collect();
    server.wait_until(Duration::from_secs(10), "eight games run at once", |s| {
        s.games().iter().filter(|g| !g.is_over()).count() == 8
            || s.games().iter().filter(|g| g.is_over()).count() > 0 && s.games().len() == 8
    });
    for id in &ids {
        let view = wait_over(&server, &accepted_game(&server, id));
        assert_legal(&view);
    }
}

#[test]
fn survives_stream_faults_errors_and_rate_limits() {
    let server = server(FakeConfig::default());
    let _bot = BotProcess::connected(&server, &[]);
    // The event stream closes, then goes silent: the bot reconnects both times.
    server.inject(Fault::CloseEventStream);
    server.wait_until(Duration::from_secs(10), "reconnect after close", |s| {
        s.event_stream_connections() >= 2 && s.event_stream_open()
    });
    server.inject(Fault::SilenceEventStream(Duration::from_secs(5)));
    server.wait_until(Duration::from_secs(10), "reconnect after silence", |s| s.event_stream_connections() >= 3);
    // A malformed line and an unknown event type are skipped.
    server.inject(Fault::EventLine("{not json".into()));
    server.inject(Fault::EventLine(r#"{"type":"somethingNew","x":1}"#.into()));
    // 5xx on accept is retried; a 429 with an HTML page holds the endpoint, then works.
    server.inject(Fault::ServerError { path_contains: "/accept".into(), times: 1, status: 502 });
    let first = server.send_challenge(
        ChallengeSpec::standard("nina", 300, 3)
            .color("black")
            .opponent(Opponent::random(30).think(Duration::from_millis(20))),
    );
    let game = accepted_game(&server, &first);
    // Mid-game: a duplicate gameStart, a dropped game stream and a rejected move.
    server.wait_until(Duration::from_secs(10), "a few moves", |s| s.game(&game).is_some_and(|g| g.ply() >= 4));
    server.inject(Fault::DuplicateGameStart { game_id: game.clone() });
    server.inject(Fault::DropGameStream { game_id: game.clone() });
    server.inject(Fault::RejectMove { game_id: game.clone(), times: 1 });
    let view = wait_over(&server, &game);
    assert_legal(&view);
    assert!(view.game_stream_connections >= 2, "the stream was reopened: {view:?}");
    assert!(view.bot_won() || view.winner.is_none(), "{view:?}");
    server.inject(Fault::RateLimit { path_contains: "/accept".into(), times: 1, retry_after: Some(1) });
    let second =
        server.send_challenge(ChallengeSpec::standard("otto", 300, 3).color("black").opponent(Opponent::random(31)));
    let game2 = accepted_game(&server, &second);
    assert_legal(&wait_over(&server, &game2));
    let accepts = server.requests().iter().filter(|r| r.path.ends_with("/accept")).count();
    assert!(accepts >= 4, "{accepts} accept requests: 502 then ok, 429 then ok");
    let starts = server.requests().iter().filter(|r| r.path == format!("/api/bot/game/stream/{game}")).count();
    assert!(starts <= 4, "no runaway reconnects: {starts}");
}

#[test]
fn graceful_stop_finishes_the_running_game_then_exits() {
    let server = server(FakeConfig::default());
    let mut bot = BotProcess::connected(&server, &[]);
    let ch = server.send_challenge(
        ChallengeSpec::standard("pia", 300, 3)
            .color("black")
            .opponent(Opponent::random(40).think(Duration::from_millis(40))),
    );
    let game = accepted_game(&server, &ch);
    server
        .wait_until(Duration::from_secs(10), "the game is under way", |s| s.game(&game).is_some_and(|g| g.ply() >= 2));
    bot.interrupt();
    // New challenges are declined while the running game is finished.
    let late = server.send_challenge(ChallengeSpec::standard("quinn", 300, 3));
    let code = bot.wait(GAME_TIMEOUT);
    assert_eq!(code, Some(0), "{}", bot.log());
    assert!(server.game(&game).unwrap().is_over(), "the running game was played to its end");
    assert!(!matches!(server.challenge_state(&late), ChallengeState::Accepted { .. }), "no new game while stopping");
}

#[test]
fn start_up_errors_are_clear_and_name_the_fix() {
    // Not a BOT account: the bot refuses and points to `ferz bot upgrade`, which upgrades it.
    let server = server(FakeConfig { bot_is_bot: false, ..FakeConfig::default() });
    let mut bot = BotProcess::start(&server.url(), FAKE_TOKEN, &[]);
    assert_eq!(bot.wait(Duration::from_secs(20)), Some(1));
    assert!(bot.log().contains("ferz bot upgrade"), "{}", bot.log());
    let config = bot.dir.path().join("bot.toml");
    let out = std::process::Command::new(ferz_tests::ferz_binary())
        .args(["bot", "upgrade", "--config"])
        .arg(&config)
        .env("LICHESS_BOT_TOKEN", FAKE_TOKEN)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("is now a BOT account"));
    assert!(server.bot_is_bot());
    // A wrong token: a clear message, and the token itself never appears in the output.
    let mut bad = BotProcess::start(&server.url(), "lip_WrongSecret123", &[]);
    assert_eq!(bad.wait(Duration::from_secs(20)), Some(1));
    let log = bad.log();
    assert!(log.contains("not valid") && !log.contains("lip_WrongSecret123"), "{log}");
    // No token at all.
    let mut none = BotProcess::start(&server.url(), "", &[]);
    assert_eq!(none.wait(Duration::from_secs(20)), Some(1));
    assert!(none.log().contains("LICHESS_BOT_TOKEN"), "{}", none.log());
    // An unknown key names the key and the file.
    let mut typo = BotProcess::start(&server.url(), FAKE_TOKEN, &[("challenge", "concurency = 2")]);
    assert_eq!(typo.wait(Duration::from_secs(20)), Some(1));
    assert!(typo.log().contains("concurency") && typo.log().contains("bot.toml"), "{}", typo.log());
}

/// The `overhead_us` of every "moved" line of the bot's log: time from a game state's arrival
/// to the move request leaving, minus the search.
fn overheads_us(log: &str) -> Vec<u64> {
    log.lines()
        .filter(|l| l.contains("moved"))
        .filter_map(|l| l.split("overhead_us").nth(1))
        .filter_map(|rest| {
            rest.trim_start_matches(|c: char| !c.is_ascii_digit())
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        })
        .collect()
}

fn percentile(sorted: &[u64], p: f64) -> u64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Peak resident memory of a process, KiB (Linux `VmHWM`).
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find(|l| l.starts_with("VmHWM:"))?.split_whitespace().nth(1)?.parse().ok()
}

/// Benchmark (run on demand): the bot's own overhead per move over at least 1,000 moves at a
/// fixed tiny node limit. `cargo test --release -p ferz-tests --test it bench_bot_overhead -- --ignored --nocapture`
#[test]
#[ignore = "benchmark; run on demand"]
fn bench_bot_overhead() {
    bot_overhead(&[], &|seed| ChallengeSpec::standard("bench", 300, 3).opponent(Opponent::random(seed)));
}

/// Benchmark (run on demand): the same with Debian's gnuchess Polyglot book consulted on every
/// move (`max_depth` past any game's length), the bot's worst case with books on. The opponent
/// follows the book's main line (heaviest moves), and so does the bot (`selection = "best"`),
/// for about ten book moves a game before the opponent's random moves leave the book.
/// `cargo test --release -p ferz-tests --test it bench_bot_overhead_with_books -- --ignored --nocapture`
#[test]
#[ignore = "benchmark; run on demand"]
fn bench_bot_overhead_with_books() {
    let path = std::path::Path::new("/usr/share/games/gnuchess/book.bin");
    if !path.exists() {
        eprintln!("skipped: {} is absent (Debian package gnuchess-book)", path.display());
        return;
    }
    let book = ferz_book::polyglot::PolyglotBook::open(path).unwrap();
    let mut line = Game::new(Position::new(Variant::Chess));
    let mut ucis = Vec::new();
    while let Some(best) = book.moves(&line).iter().max_by_key(|m| m.weight).copied() {
        let best = book.moves(&line).into_iter().find(|m| m.weight == best.weight).unwrap();
        ucis.push(line.position().uci(best.mv));
        line.play(best.mv).unwrap();
        if ucis.len() >= 24 {
            break;
        }
    }
    let (white, black): (Vec<&str>, Vec<&str>) = {
        let (w, b): (Vec<_>, Vec<_>) = ucis.iter().enumerate().partition(|(i, _)| i % 2 == 0);
        (w.into_iter().map(|(_, m)| m.as_str()).collect(), b.into_iter().map(|(_, m)| m.as_str()).collect())
    };
    let settings = format!("chess = [\"{}\"]\nmax_depth = 100000\nselection = \"best\"", path.display());
    let spec = |seed: u64| {
        let (bot_color_asked, moves) = if seed.is_multiple_of(2) { ("black", &black) } else { ("white", &white) };
        ChallengeSpec::standard("bench", 300, 3).color(bot_color_asked).opponent(Opponent::random(seed).moves(moves))
    };
    let log = bot_overhead(&[("book", &settings)], &spec);
    let mut from_book = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    for l in log.lines() {
        let game = l.split("game=").nth(1).and_then(|r| r.split_whitespace().next()).unwrap_or("").to_owned();
        if l.contains("book move") {
            pending.push(game);
        } else if l.contains(" moved ")
            && let Some(i) = pending.iter().position(|g| *g == game)
        {
            pending.remove(i);
            from_book.extend(overheads_us(l));
        }
    }
    from_book.sort_unstable();
    println!(
        "book moves ({} of the line's {} plies): {}, overhead median {} us, p99 {} us",
        ucis.join(" "),
        ucis.len(),
        from_book.len(),
        percentile(&from_book, 0.5),
        percentile(&from_book, 0.99)
    );
}

/// Plays at least 1000 moves, four games at a time, and prints the bot's overhead per move;
/// returns the bot's log.
pub(super) fn bot_overhead(extra: &[(&str, &str)], challenge: &dyn Fn(u64) -> ChallengeSpec) -> String {
    let server = server(FakeConfig::default());
    let mut sections = vec![
        ("engine", "nodes = 50\nhash_mb = 1"),
        ("challenge", "concurrency = 4\nmax_games_per_opponent = 4"),
        ("resign", "enabled = false"),
        ("draw", "offer = false"),
    ];
    sections.extend_from_slice(extra);
    let bot = BotProcess::connected(&server, &sections);
    let mut total = 0;
    let mut seed = 100;
    while total < 1000 {
        let ids: Vec<String> = (0..4)
            .map(|_| {
                seed += 1;
                server.send_challenge(challenge(seed))
            })
            .collect();
        for id in &ids {
            let view = wait_over(&server, &accepted_game(&server, id));
            assert_legal(&view);
        }
        server
            .wait_until(Duration::from_secs(10), "the bot logs its moves", |_| overheads_us(&bot.log()).len() > total);
        // The next batch only once every game's task has ended (short games would otherwise find
        // the slots still held and be declined `later`).
        let games = server.games().len();
        server.wait_until(Duration::from_secs(20), "the bot ends the games' tasks", |_| {
            bot.log().matches("game over").count() >= games
        });
        total = overheads_us(&bot.log()).len();
    }
    let mut overhead = overheads_us(&bot.log());
    overhead.sort_unstable();
    let mut latency: Vec<u64> = server.move_latencies().iter().map(|d| d.as_micros() as u64).collect();
    latency.sort_unstable();
    println!(
        "bot overhead over {} moves: median {} us, p99 {} us, max {} us; server-side state-to-move (with a 50-node search and HTTP): median {} us, p99 {} us",
        overhead.len(),
        percentile(&overhead, 0.5),
        percentile(&overhead, 0.99),
        overhead.last().unwrap(),
        percentile(&latency, 0.5),
        percentile(&latency, 0.99),
    );
    bot.log()
}

/// Benchmark (run on demand): 32 games at once at 1+1 on the real clock; all must end legally
/// without a time loss. Prints the bot's peak memory.
#[test]
#[ignore = "benchmark; run on demand"]
fn bench_32_games_at_one_plus_one() {
    let server = server(FakeConfig::default());
    let bot = BotProcess::connected(
        &server,
        &[
            ("engine", "nodes = 0\nhash_mb = 16\nmove_overhead_ms = 100"),
            ("challenge", "concurrency = 32\nmax_games_per_opponent = 32"),
        ],
    );
    let start = std::time::Instant::now();
    let ids: Vec<String> = (0..32)
        .map(|i| {
            server.send_challenge(
                ChallengeSpec::standard("bench", 60, 1)
                    .opponent(Opponent::random(500 + i).think(Duration::from_millis(200))),
            )
        })
        .collect();
    let peak = std::sync::atomic::AtomicU64::new(0);
    let games: Vec<String> = ids.iter().map(|id| accepted_game(&server, id)).collect();
    server.wait_until(Duration::from_secs(900), "all 32 games end", |s| {
        peak.fetch_max(peak_rss_kib(bot.pid()).unwrap_or(0), std::sync::atomic::Ordering::Relaxed);
        games.iter().all(|g| s.game(g).is_some_and(|v| v.is_over()))
    });
    let peak = peak.into_inner().max(peak_rss_kib(bot.pid()).unwrap_or(0));
    let mut statuses = std::collections::BTreeMap::new();
    for g in &games {
        let view = server.game(g).unwrap();
        assert_legal(&view);
        assert!(view.status != "outoftime" || view.bot_won(), "the bot lost on time: {view:?}");
        *statuses
            .entry(format!(
                "{} {}",
                view.status,
                if view.bot_won() {
                    "won"
                } else if view.winner.is_none() {
                    "drawn"
                } else {
                    "lost"
                }
            ))
            .or_insert(0) += 1;
    }
    println!(
        "32 games at 1+1 in {:.0} s: {statuses:?}; bot peak RSS {} MiB",
        start.elapsed().as_secs_f64(),
        peak / 1024
    );
}

#[test]
fn matchmaking_challenges_online_bots_and_backs_off() {
    use ferz_tests::fake_lichess::{ChallengeAnswer, OnlineBot};
    let server = server(FakeConfig::default());
    server.set_online_bots(vec![
        OnlineBot::new("ferzbot").perf("blitz", 2000, 100),
        OnlineBot::new("Grumpy").perf("blitz", 2050, 100),
        OnlineBot::new("Friendly").perf("blitz", 1950, 100),
        OnlineBot::new("Giant").perf("blitz", 3200, 100),
    ]);
    server.set_challenge_answer("grumpy", ChallengeAnswer::Decline("later".into()));
    server.set_challenge_answer("friendly", ChallengeAnswer::Accept(Opponent::random(77)));
    let _bot = BotProcess::connected(
        &server,
        &[
            (
                "matchmaking",
                "enabled = true\nidle_s = 0\nmin_interval_s = 1\ntime_controls = [\"180+2\"]\nmax_rating_diff = 300\ndecline_backoff_s = 3600",
            ),
            CHECK_IN_EVERY_SECOND,
        ],
    );
    // Both near-rated bots get challenged (the decliner once: it is then left alone), never
    // ourselves or the 3200 giant; the friendly one's game is played.
    server.wait_until(Duration::from_secs(30), "a matchmaking game is played", |s| {
        s.games().iter().any(|g| g.opponent == "friendly" && g.is_over())
    });
    server.wait_until(Duration::from_secs(30), "the decliner was asked too", |s| {
        s.outgoing_challenges().iter().any(|c| c.dest.eq_ignore_ascii_case("grumpy"))
    });
    let out = server.outgoing_challenges();
    assert!(
        out.iter().all(|c| !c.dest.eq_ignore_ascii_case("giant") && !c.dest.eq_ignore_ascii_case("ferzbot")),
        "{out:?}"
    );
    assert_eq!(out.iter().filter(|c| c.dest.eq_ignore_ascii_case("grumpy")).count(), 1, "{out:?}");
    let first = &out[0];
    assert_eq!(
        (first.field("clock.limit"), first.field("clock.increment"), first.field("rated")),
        (Some("180"), Some("2"), Some("false"))
    );
    // The daily limit pauses matchmaking: after the 429 no further challenge goes out.
    server.set_challenge_answer("friendly", ChallengeAnswer::DailyLimit);
    server.wait_until(Duration::from_secs(30), "the daily limit is hit", |s| {
        s.outgoing_challenges().iter().any(|c| matches!(c.state, ChallengeState::Refused { status: 429 }))
    });
    let after = server.outgoing_challenges().len();
    // Unpaused, the next round would challenge again (min_interval_s = 1 has long passed).
    loop_round(&server);
    assert_eq!(server.outgoing_challenges().len(), after, "no challenges while paused");
}

#[test]
fn plays_from_the_self_play_opening_cache() {
    // A cache that knows one move for the start position, one no engine would choose.
    let cache_dir = ferz_tests::TempDir::new("bot-book");
    let path = cache_dir.path().join("cache");
    {
        let cache = ferz_book::cache::OpeningCache::open(&path).unwrap();
        let start = Position::new(Variant::Chess);
        cache.record_search(&start, 12, &[(start.parse_uci("a2a3").unwrap(), 0)]).unwrap();
        cache.flush().unwrap();
    }
    let server = server(FakeConfig::default());
    let book = format!("cache = \"{}\"\ncache_min_depth = 10", path.display());
    let _bot = BotProcess::connected(&server, &[("book", &book)]);
    let ch =
        server.send_challenge(ChallengeSpec::standard("ursula", 300, 3).color("black").opponent(Opponent::random(50)));
    let view = wait_over(&server, &accepted_game(&server, &ch));
    assert_eq!(view.moves.first().map(String::as_str), Some("a2a3"), "{view:?}");
    assert_legal(&view);
}

/// A Polyglot entry: `uci` (weight `weight`) in the position after `line` from `start`.
fn polyglot_entry(start: &Position, line: &[&str], uci: &str, weight: u16) -> ferz_book::polyglot::Entry {
    let mut game = Game::new(*start);
    for m in line {
        game.play_uci(m).unwrap();
    }
    let mv = game.position().parse_uci(uci).unwrap();
    ferz_book::polyglot::Entry {
        key: ferz_book::polyglot::game_key(&game),
        raw_move: ferz_book::polyglot::polyglot_move(mv),
        weight,
        learn: 0,
    }
}

#[test]
fn plays_its_polyglot_book_moves_first() {
    let dir = ferz_tests::TempDir::new("bot-polyglot");
    let standard = Position::new(Variant::Chess);
    let castling_fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
    let castling = Position::from_fen(castling_fen, Variant::Chess).unwrap();
    // The chess book: moves no engine would choose, a heavier entry than the rest, a zero
    // weight that min_weight drops, and castling written king-takes-rook (e1h1).
    let chess_book = dir.path().join("chess.bin");
    ferz_book::polyglot::write_book(
        &chess_book,
        &mut [
            polyglot_entry(&standard, &[], "a2a3", 10),
            polyglot_entry(&standard, &[], "b2b4", 0),
            polyglot_entry(&standard, &[], "g2g4", 3),
            polyglot_entry(&standard, &["a2a3", "e7e5"], "h2h3", 7),
            polyglot_entry(&castling, &[], "e1g1", 4),
        ],
    )
    .unwrap();
    // The Chess960 book knows the same start position (the standard array) with another move.
    let chess960_book = dir.path().join("960.bin");
    ferz_book::polyglot::write_book(&chess960_book, &mut [polyglot_entry(&standard, &[], "b1a3", 1)]).unwrap();
    let server = server(FakeConfig::default());
    let settings = format!(
        "chess = [\"{}\"]\nchess960 = [\"{}\"]\nselection = \"best\"\nmin_weight = 1\nmax_depth = 4",
        chess_book.display(),
        chess960_book.display()
    );
    let bot = BotProcess::connected(
        &server,
        &[("book", &settings), ("challenge", "concurrency = 3\nmax_games_per_opponent = 3")],
    );
    let standard_game = server.send_challenge(
        ChallengeSpec::standard("vera", 300, 3).color("black").opponent(Opponent::random(60).moves(&["e7e5"])),
    );
    let from_position = server.send_challenge(
        ChallengeSpec::standard("vera", 300, 3).fen(castling_fen).color("black").opponent(Opponent::random(61)),
    );
    let chess960 = server.send_challenge(
        ChallengeSpec::standard("vera", 300, 3)
            .variant("chess960")
            .fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1")
            .color("black")
            .opponent(Opponent::random(62)),
    );
    let view = wait_over(&server, &accepted_game(&server, &standard_game));
    assert_legal(&view);
    assert_eq!(view.moves[..3], ["a2a3", "e7e5", "h2h3"], "{view:?}");
    let view = wait_over(&server, &accepted_game(&server, &from_position));
    assert_legal(&view);
    // From Position games use the chess books; the bot writes castling king-takes-rook there.
    assert_eq!(view.moves.first().map(String::as_str), Some("e1h1"), "{view:?}");
    let view = wait_over(&server, &accepted_game(&server, &chess960));
    assert_legal(&view);
    assert_eq!(view.moves.first().map(String::as_str), Some("b1a3"), "{view:?}");
    let log = bot.log();
    assert_eq!(log.matches("Polyglot book opened").count(), 2, "{log}");
    let book_moves: Vec<&str> = log.lines().filter(|l| l.contains("book move")).collect();
    assert_eq!(book_moves.len(), 4, "{log}");
    assert!(book_moves.iter().all(|l| l.contains("polyglot") && l.contains(".bin (weight")), "{book_moves:?}");
}

#[test]
fn an_unusable_book_stops_the_bot_at_start() {
    let dir = ferz_tests::TempDir::new("bot-bad-book");
    let truncated = dir.path().join("truncated.bin");
    std::fs::write(&truncated, [0u8; 24]).unwrap();
    let server = server(FakeConfig::default());
    for (setting, needle) in [
        (format!("chess960 = [\"{}\"]", truncated.display()), "book.chess960[0]: "),
        (format!("chess = [\"{}\"]", dir.path().join("missing.bin").display()), "missing.bin"),
    ] {
        let mut bot = BotProcess::start(&server.url(), FAKE_TOKEN, &[("book", &setting)]);
        assert_eq!(bot.wait(Duration::from_secs(20)), Some(1));
        let log = bot.log();
        assert!(log.contains(needle), "{log}");
        assert!(log.contains("truncated.bin: truncated: 24 bytes") || log.contains("book.chess[0]: "), "{log}");
        assert!(!server.event_stream_open(), "the bot stopped before connecting");
    }
}
