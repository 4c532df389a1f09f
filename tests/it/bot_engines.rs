//! `ferz bot` with other engines and on the opponent's time: Stockfish as an external UCI
//! engine, external engines that crash, hang or cannot be restarted mid-game (the game goes
//! on, never lost on time), and pondering with the in-process and with a UCI engine.

use std::time::Duration;

use ferz_tests::bot_process::BotProcess;
use ferz_tests::fake_lichess::{
    ChallengeSpec, EngineOpponent, FAKE_TOKEN, FakeConfig, FakeLichess, GameView, Opponent,
};
use ferz_tests::{TempDir, ferz_binary};

use super::bot::{accepted_game, assert_legal, wait_over};

/// The scriptable fake engine built from `tests/fake_uci.rs`.
const FAKE_UCI: &str = env!("CARGO_BIN_EXE_fake-uci");

/// Plays one challenge to its end and checks that it was legal and not lost on time.
fn play(server: &FakeLichess, bot: &BotProcess, spec: ChallengeSpec) -> GameView {
    let game = accepted_game(server, &server.send_challenge(spec));
    let view = wait_over(server, &game);
    assert_legal(&view);
    let lost_on_time = view.status == "outoftime" && !view.bot_won();
    assert!(!lost_on_time, "the bot lost on time: {view:?}\n{}", bot.log());
    // The game-over line comes after the PGN and the engine's quit.
    server.wait_until(Duration::from_secs(10), "the bot logs the game's end", |_| bot.log().contains("game over"));
    view
}

/// The value of `key=` in the log's `game over` line.
fn game_over_field(log: &str, key: &str) -> u64 {
    let line = log.lines().find(|l| l.contains("game over")).expect("a game over line");
    let value = line.split(&format!("{key}=")).nth(1).unwrap_or_else(|| panic!("no {key} in {line}"));
    value.split_whitespace().next().and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{key} in {line}"))
}

#[test]
fn stockfish_plays_a_whole_game_as_the_bots_engine() {
    let Some(stockfish) = ferz_testserver::oracle::stockfish() else { return };
    let server = FakeLichess::start(FakeConfig::default());
    let engine = format!("kind = \"uci\"\ncommand = \"{}\"\nnodes = 3000", stockfish.display());
    let bot = BotProcess::connected(&server, &[("engine", &engine), ("engine.options", "Hash = 16\nthreads = 1")]);
    let view =
        play(&server, &bot, ChallengeSpec::standard("alice", 60, 1).color("black").opponent(Opponent::random(21)));
    assert!(view.bot_won(), "Stockfish should beat random moves: {view:?}");
    let log = bot.log();
    assert!(log.contains("external engine ready") && log.contains("engine=Stockfish"), "{log}");
    assert!(!log.contains("restarting it"), "no failure expected: {log}");
    server.wait_until(Duration::from_secs(5), "the PGN is written", |_| bot.pgns().len() == 1);
    assert!(bot.pgns()[0].contains("[%eval"), "Stockfish's scores reach the PGN: {}", bot.pgns()[0]);
}

#[test]
fn an_external_engine_that_crashes_or_hangs_is_restarted_and_the_game_goes_on() {
    // Without pondering every failure falls in a search for our move; with it, some fall in a
    // ponder search that a miss stops (a hung engine does not answer the stop).
    for (mode, ponder, failure) in
        [("crash-after", false, "crashed"), ("hang-after", false, "hung"), ("hang-after", true, "hung")]
    {
        let server = FakeLichess::start(FakeConfig { max_plies: 40, ..FakeConfig::default() });
        let engine = format!(
            "kind = \"uci\"\ncommand = \"{FAKE_UCI}\"\nargs = [\"{mode}\", \"3\"]\nponder = {ponder}\nstall_ms = 300\nhandshake_timeout_s = 5"
        );
        let bot = BotProcess::connected(&server, &[("engine", &engine)]);
        let view =
            play(&server, &bot, ChallengeSpec::standard("bob", 60, 0).color("black").opponent(Opponent::random(22)));
        assert_eq!(view.status, "draw", "the game reached the server's ply limit: {view:?}");
        let log = bot.log();
        let failures = log.lines().filter(|l| l.contains("ERROR the external engine failed")).count();
        let described =
            log.lines().filter(|l| l.contains("ERROR") && l.contains(&format!("failure={failure}"))).count();
        assert!(failures >= 3 && described == failures, "{mode}: {failures} failures, {described} {failure}:\n{log}");
        if !ponder {
            let in_search = log.matches("failed during its search; restarting it").count();
            assert_eq!(in_search, failures, "{log}");
        }
        // Every failure was followed by a working engine: restarts, not stand-in moves.
        assert!(log.matches("external engine ready").count() > failures, "{log}");
        assert!(!log.contains("playing the in-process engine's move instead"), "{log}");
    }
}

/// A rematch that arrives as a game ends is judged on the games really going on: the event
/// stream's `gameFinish` frees the seat, though the game's task still waits for its engine to
/// quit (here the whole second the bot gives an engine before killing it).
#[test]
fn a_rematch_sent_as_the_game_ends_is_accepted_while_the_engine_still_quits() {
    let server = FakeLichess::start(FakeConfig { max_plies: 6, ..FakeConfig::default() });
    let engine = format!("kind = \"uci\"\ncommand = \"{FAKE_UCI}\"\nargs = [\"slow-quit\", \"1\", \"5000\"]");
    let bot = BotProcess::connected(&server, &[("engine", &engine)]);
    let spec = || ChallengeSpec::standard("dora", 60, 0).color("black").opponent(Opponent::random(24));
    let first = accepted_game(&server, &server.send_challenge(spec()));
    wait_over(&server, &first);
    let rematch = server.send_challenge(spec());
    let second = accepted_game(&server, &rematch);
    let log = bot.log();
    let accepted_at = log.find(&format!("challenge={rematch}")).expect("the rematch is judged");
    let first_over_at = log.find(&format!("game over game={first}"));
    assert!(
        first_over_at.is_none_or(|at| at > accepted_at),
        "the rematch came after the first game's task had ended, so the test proves nothing:\n{log}"
    );
    assert!(log[accepted_at..].lines().next().unwrap().contains("verdict=Accept"), "{log}");
    let view = wait_over(&server, &second);
    assert_legal(&view);
}

#[test]
fn an_engine_that_cannot_be_restarted_in_time_is_replaced_by_the_in_process_engine() {
    // Starts are counted in a file in the working directory: the bot's check at start and the
    // game's first start work, every later start hangs in its handshake. The count is renamed
    // into place, so that a start killed at the game's end, or the test reading it meanwhile,
    // never sees the file truncated and not yet written.
    let dir = TempDir::new("restart");
    let script = format!(
        "n=$(cat starts 2>/dev/null || echo 0); echo $((n + 1)) > starts.$$; mv starts.$$ starts; if [ $n -ge 2 ]; then exec sleep 60; fi; exec {FAKE_UCI} crash-after 2"
    );
    let engine = format!(
        "kind = \"uci\"\ncommand = \"sh\"\nargs = [\"-c\", \"{script}\"]\nworking_dir = \"{}\"\nhandshake_timeout_s = 1",
        dir.path().display()
    );
    let server = FakeLichess::start(FakeConfig { max_plies: 30, ..FakeConfig::default() });
    let bot = BotProcess::connected(&server, &[("engine", &engine), ("challenge", "variants = [\"standard\"]")]);
    let view =
        play(&server, &bot, ChallengeSpec::standard("carol", 60, 0).color("black").opponent(Opponent::random(23)));
    // The game ends on the board or at the ply limit, never on our clock.
    assert!(matches!(view.status.as_str(), "draw" | "mate"), "{view:?}");
    assert!(view.winner.as_deref().is_none_or(|w| w == view.bot_color), "{view:?}");
    let starts: u32 = std::fs::read_to_string(dir.path().join("starts")).unwrap().trim().parse().unwrap();
    assert!(starts >= 3, "the engine ran in its working directory, and restarts were tried: {starts}");
    let log = bot.log();
    assert!(log.contains("crashed: the engine exited (exit status: 3)"), "{log}");
    assert!(log.contains("the external engine is not available"), "{log}");
    let stand_ins = log.matches("playing the in-process engine's move instead").count();
    assert!(stand_ins >= 5, "the in-process engine played the rest of the game: {stand_ins}\n{log}");
}

#[test]
fn pondering_in_process_hits_and_the_game_goes_on() {
    let server = FakeLichess::start(FakeConfig { max_plies: 60, ..FakeConfig::default() });
    let bot = BotProcess::connected(&server, &[("engine", "ponder = true")]);
    // The opponent is ferz too (a separate UCI process at the same node count): it often plays
    // the reply the bot expects.
    let ferz = EngineOpponent::new(&ferz_binary(), &[], 1500);
    let view = play(
        &server,
        &bot,
        ChallengeSpec::standard("dave", 120, 1).color("black").opponent(Opponent::random(24).engine(ferz)),
    );
    let log = bot.log();
    let (hits, misses) = (game_over_field(&log, "ponder_hits"), game_over_field(&log, "ponder_misses"));
    assert!(hits >= 3, "{hits} hits, {misses} misses in {} plies:\n{log}", view.ply());
    assert_eq!(log.matches("ponder hit").count() as u64, hits, "each hit is logged");
    assert!(log.matches("pondering").count() as u64 >= hits + misses);
}

#[test]
fn pondering_with_a_uci_engine_uses_ponderhit() {
    // The fake engine expects its first legal reply, and the opponent (the same fake) plays
    // exactly that: every ponder search is a hit, answered after `ponderhit`.
    let server = FakeLichess::start(FakeConfig { max_plies: 30, ..FakeConfig::default() });
    let engine = format!("kind = \"uci\"\ncommand = \"{FAKE_UCI}\"\nponder = true");
    let bot = BotProcess::connected(&server, &[("engine", &engine)]);
    let opponent = EngineOpponent::new(std::path::Path::new(FAKE_UCI), &[], 1);
    play(
        &server,
        &bot,
        ChallengeSpec::standard("erin", 60, 0).color("black").opponent(Opponent::random(25).engine(opponent)),
    );
    let log = bot.log();
    let (hits, misses) = (game_over_field(&log, "ponder_hits"), game_over_field(&log, "ponder_misses"));
    // The shuffling fakes repeat the position: the server ends the game after a few moves.
    assert!(hits >= 5 && misses == 0, "{hits} hits, {misses} misses:\n{log}");
}

#[test]
fn a_missing_engine_program_stops_the_bot_at_start_with_the_key() {
    let server = FakeLichess::start(FakeConfig::default());
    let mut bot = BotProcess::start(
        &server.url(),
        FAKE_TOKEN,
        &[("engine", "kind = \"uci\"\ncommand = \"/nonexistent/engine\"")],
    );
    let code = bot.wait(Duration::from_secs(20));
    assert_ne!(code, Some(0));
    let log = bot.log();
    assert!(log.contains("engine.command") && log.contains("cannot start /nonexistent/engine"), "{log}");
}

/// What one configuration's games showed: per move of the bot, the time its clock ran.
#[derive(Default)]
struct PonderSample {
    hits: Vec<u64>,
    others: Vec<u64>,
    ponder_hits: u64,
    ponder_misses: u64,
    pondered_ms: u64,
    points: f64,
    games: usize,
}

fn mean(values: &[u64]) -> f64 {
    if values.is_empty() { 0.0 } else { values.iter().sum::<u64>() as f64 / values.len() as f64 }
}

/// A `key=value` field of a log line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.split_whitespace().find_map(|word| word.strip_prefix(key)?.strip_prefix('='))
}

/// Pondering on and off over a series of games against an engine opponent that thinks like a
/// player (Stockfish when installed, else ferz, a fixed node count and a pause per move): the
/// hit rate and the clock time per move. Run on demand:
/// `cargo test -p ferz-tests --test it measure_pondering -- --ignored --nocapture`
/// (`FERZ_PONDER_GAMES`, default 10 per configuration).
#[test]
#[ignore = "measurement; run on demand"]
fn measure_pondering() {
    let games: usize = std::env::var("FERZ_PONDER_GAMES").ok().and_then(|n| n.parse().ok()).unwrap_or(10);
    let stockfish = ferz_testserver::oracle::stockfish_path();
    let (program, name) = if stockfish.exists() { (stockfish, "Stockfish") } else { (ferz_binary(), "ferz") };
    let mut report = Vec::new();
    for ponder in [true, false] {
        let server = FakeLichess::start(FakeConfig::default());
        let engine = format!("nodes = 0\nponder = {ponder}\nhash_mb = 32");
        let bot = BotProcess::connected(&server, &[("engine", &engine), ("resign", "enabled = false")]);
        let mut sample = PonderSample::default();
        for i in 0..games {
            let opponent = Opponent::random(100 + i as u64)
                .engine(EngineOpponent::new(&program, &[], 20_000))
                .think(Duration::from_millis(700));
            let color = if i % 2 == 0 { "black" } else { "white" };
            let spec = ChallengeSpec::standard(&format!("opp{i}"), 60, 1).color(color).opponent(opponent);
            let game = accepted_game(&server, &server.send_challenge(spec));
            let view = server_wait(&server, &game);
            sample.points += if view.bot_won() {
                1.0
            } else if view.winner.is_none() {
                0.5
            } else {
                0.0
            };
            sample.games += 1;
            let finished = i + 1;
            server.wait_until(Duration::from_secs(10), "the game-over line", |_| {
                bot.log().matches("game over").count() == finished
            });
        }
        for line in bot.log().lines() {
            if line.contains(" searched ") {
                let ms = field(line, "search_ms").and_then(|v| v.parse().ok()).unwrap_or(0);
                if field(line, "ponder_hit") == Some("true") { sample.hits.push(ms) } else { sample.others.push(ms) }
            } else if line.contains("game over") {
                sample.ponder_hits += field(line, "ponder_hits").and_then(|v| v.parse().ok()).unwrap_or(0);
                sample.ponder_misses += field(line, "ponder_misses").and_then(|v| v.parse().ok()).unwrap_or(0);
                sample.pondered_ms += field(line, "pondered_ms").and_then(|v| v.parse().ok()).unwrap_or(0);
            }
        }
        report.push((ponder, sample));
    }
    println!("pondering against {name} (20000 nodes + 700 ms a move), ferz bot at 60+1, {games} games each:");
    for (ponder, s) in &report {
        let all: Vec<u64> = s.hits.iter().chain(&s.others).copied().collect();
        let rate = s.ponder_hits as f64 / (s.ponder_hits + s.ponder_misses).max(1) as f64;
        println!(
            "ponder {:<5} score {:.1}/{}  moves {:>4}  hits {:>3} misses {:>3} (hit rate {:.0}%)  pondered before a hit {:.0} ms (saved per move {:.0} ms)  clock per move: all {:.0} ms, on hits {:.0} ms, others {:.0} ms",
            ponder,
            s.points,
            s.games,
            all.len(),
            s.ponder_hits,
            s.ponder_misses,
            rate * 100.0,
            s.pondered_ms as f64 / s.ponder_hits.max(1) as f64,
            s.pondered_ms as f64 / all.len().max(1) as f64,
            mean(&all),
            mean(&s.hits),
            mean(&s.others)
        );
    }
}

/// Waits for a game of the measurement, which may run long.
fn server_wait(server: &FakeLichess, game: &str) -> GameView {
    server.wait_until(Duration::from_secs(600), &format!("game {game} ends"), |s| {
        s.game(game).is_some_and(|g| g.is_over())
    });
    server.game(game).expect("game exists")
}

/// An external engine on the clock plans its own time: a move that takes longer than ferz's
/// own time management would allow (12 s with a minute left, where ferz's hard limit is about
/// 9.5 s) but far from the danger line is waited for, with no `stop` and no warning.
#[test]
fn an_external_engine_on_the_clock_is_not_stopped_before_the_danger_line() {
    let server = FakeLichess::start(FakeConfig { max_plies: 12, ..FakeConfig::default() });
    // The second search (the first on the clock; the first move is a move-time search) is slow;
    // `nodes = 0` puts the engine on the clock instead of the harness's node limit.
    let engine = format!(
        "kind = \"uci\"\ncommand = \"{FAKE_UCI}\"\nargs = [\"slow\", \"2\", \"12000\"]\nponder = false\nstall_ms = 100\nnodes = 0"
    );
    let bot = BotProcess::connected(&server, &[("engine", &engine)]);
    let view =
        play(&server, &bot, ChallengeSpec::standard("dave", 60, 0).color("black").opponent(Opponent::random(24)));
    assert_eq!(view.status, "draw", "the game reached the server's ply limit: {view:?}");
    let log = bot.log();
    assert!(!log.contains("sending stop") && !log.contains("WARN"), "{log}");
}

/// Stockfish at 1+1, on its own clock for the whole game: no stop, no warning.
#[test]
fn stockfish_on_its_own_clock_plays_a_bullet_game_without_warnings() {
    let Some(stockfish) = ferz_testserver::oracle::stockfish() else { return };
    let server = FakeLichess::start(FakeConfig { max_plies: 40, ..FakeConfig::default() });
    // `nodes = 0`: on the clock, not the harness's node limit.
    let engine = format!("kind = \"uci\"\ncommand = \"{}\"\nnodes = 0", stockfish.display());
    let bot = BotProcess::connected(&server, &[("engine", &engine), ("engine.options", "Hash = 16\nthreads = 1")]);
    let view =
        play(&server, &bot, ChallengeSpec::standard("erin", 60, 1).color("black").opponent(Opponent::random(25)));
    assert!(view.bot_won() || view.status == "draw", "{view:?}");
    let log = bot.log();
    assert!(!log.contains("sending stop") && !log.contains("WARN"), "{log}");
}
