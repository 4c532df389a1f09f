//! `ferz bot` with endgame tablebases: local Syzygy tables for the in-process engine and for
//! Stockfish, resigning lost and drawing drawn tablebase positions, and the Lichess online
//! tablebase (served by the fake server) with its failures: slow, 429, malformed answers.
//!
//! The tables are the project's 3-4 piece test set (`crates/syzygy/tests/data/syzygy`); every
//! move the server receives in a tablebase position is checked with the prober.

use std::path::PathBuf;
use std::time::Duration;

use ferz_chess::{Game, Position, Variant};
use ferz_syzygy::{Tablebases, Wdl};
use ferz_tests::TempDir;
use ferz_tests::bot_process::BotProcess;
use ferz_tests::fake_lichess::{
    ChallengeSpec, FAKE_TOKEN, FakeConfig, FakeLichess, GameView, Opponent, TablebaseReply,
};
use serde_json::json;

use super::bot::{accepted_game, assert_legal, wait_over};

/// KRvK, white to move and win (DTZ 25).
const KRVK: &str = "8/1K6/8/1R6/8/8/4k3/8 w - - 0 1";
/// KQvK with white to move; black (the bot) is lost whatever it does.
const KVKQ: &str = "8/8/4k3/8/8/8/8/Q6K w - - 0 1";
/// KRvKR, white to move: drawn.
const KRVKR: &str = "r7/8/3k4/8/8/8/8/3K3R w - - 0 1";
/// A 5-piece position (beyond the local test tables) for the online tablebase.
const FIVE: &str = "8/8/8/4k3/8/8/1PP5/1K1Q4 w - - 0 1";

fn tables_dir() -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../crates/syzygy/tests/data/syzygy");
    dir.canonicalize().expect("the test tables").to_string_lossy().into_owned()
}

fn tables() -> Tablebases {
    Tablebases::open(&[tables_dir()]).expect("open the test tables")
}

/// Plays one challenge to its end, and waits for the bot to finish the game's task (its slot
/// is free only then: a challenge sent earlier would be declined `later`).
fn play(server: &FakeLichess, bot: &BotProcess, spec: ChallengeSpec) -> GameView {
    let finished = bot.log().matches("game over").count();
    let game = accepted_game(server, &server.send_challenge(spec));
    let view = wait_over(server, &game);
    assert_legal(&view);
    server.wait_until(Duration::from_secs(20), "the bot ends the game's task", |_| {
        bot.log().matches("game over").count() > finished
    });
    view
}

/// The game's positions before each of its moves, with the rules the server plays it by.
fn positions(view: &GameView) -> Vec<(Position, ferz_chess::Move)> {
    let start = Position::from_fen(&view.initial_fen, Variant::Chess960).unwrap();
    let mut game = Game::new(start);
    let mut out = Vec::new();
    for uci in &view.moves {
        let position = *game.position();
        let mv = position.parse_uci(uci).unwrap();
        out.push((position, mv));
        game.play(mv).unwrap();
    }
    out
}

/// Every move of the bot keeps the tablebase win; with `dtz_optimal`, each is also among the
/// best-ranked moves by DTZ (what the in-process engine restricts its root to).
fn assert_tablebase_wins(view: &GameView, dtz_optimal: bool, log: &str) {
    let tables = tables();
    let bot_white = view.bot_color == "white";
    for (ply, (position, mv)) in positions(view).into_iter().enumerate() {
        if (position.turn() == ferz_chess::Color::White) != bot_white {
            continue;
        }
        let ranked = tables.rank_root_moves(&position, true).unwrap();
        let played = ranked.iter().find(|r| r.mv == mv).unwrap();
        assert_eq!(played.wdl, Wdl::Win, "ply {ply}: {} keeps no win in {}\n{log}", position.uci(mv), position.fen());
        if dtz_optimal {
            assert_eq!(
                played.rank,
                ranked[0].rank,
                "ply {ply}: {} (DTZ {}) is not DTZ-optimal in {} (best DTZ {})\n{log}",
                position.uci(mv),
                played.dtz,
                position.fen(),
                ranked[0].dtz
            );
        }
    }
}

fn syzygy_section() -> String {
    format!("syzygy_path = \"{}\"", tables_dir())
}

#[test]
fn local_tables_convert_a_won_ending_with_dtz_optimal_moves() {
    let server = FakeLichess::start(FakeConfig::default());
    let tablebase = syzygy_section();
    let bot = BotProcess::connected(&server, &[("tablebase", &tablebase)]);
    let view = play(
        &server,
        &bot,
        ChallengeSpec::standard("alice", 120, 1).fen(KRVK).color("black").opponent(Opponent::random(5)),
    );
    let log = bot.log();
    assert_eq!((view.status.as_str(), view.bot_won()), ("mate", true), "{view:?}\n{log}");
    assert!(view.ply() <= 25, "mate within the start position's DTZ of 25 plies: {view:?}");
    assert_tablebase_wins(&view, true, &log);
    assert!(log.contains("Syzygy tablebases: "), "the tables were opened: {log}");
}

#[test]
fn a_lost_tablebase_position_is_resigned_only_with_the_setting() {
    // White (the opponent) plays king moves the bot cannot stop; the bot is black in KvKQ.
    let opponent = || Opponent::random(6).moves(&["h1g1", "g1h1", "h1g1", "g1h1", "h1g1"]);
    let tablebase = syzygy_section();
    let server = FakeLichess::start(FakeConfig { max_plies: 10, ..FakeConfig::default() });
    // The score rule cannot fire here: it would need 20 bad moves.
    let bot = BotProcess::connected(&server, &[("tablebase", &tablebase), ("resign", "moves = 20\ntablebase = true")]);
    let view =
        play(&server, &bot, ChallengeSpec::standard("bob", 120, 1).fen(KVKQ).color("white").opponent(opponent()));
    let log = bot.log();
    // Not at ply 1 (the server would abort a game resigned before its second ply): at ply 3.
    assert_eq!(
        (view.status.as_str(), view.winner.as_deref(), view.ply()),
        ("resign", Some("white"), 3),
        "{view:?}\n{log}"
    );
    assert!(log.contains("the tablebase says the game is lost"), "{log}");
    drop(bot);
    let server = FakeLichess::start(FakeConfig { max_plies: 10, ..FakeConfig::default() });
    let bot = BotProcess::connected(&server, &[("tablebase", &tablebase), ("resign", "moves = 20\ntablebase = false")]);
    let view =
        play(&server, &bot, ChallengeSpec::standard("bob", 120, 1).fen(KVKQ).color("white").opponent(opponent()));
    assert_ne!(view.status, "resign", "tablebase = false: the bot plays on\n{}", bot.log());
}

#[test]
fn a_drawn_tablebase_position_is_offered_and_an_offer_accepted() {
    assert_eq!(tables().probe_wdl(&Position::from_fen(KRVKR, Variant::Chess).unwrap()).unwrap(), Wdl::Draw);
    let server = FakeLichess::start(FakeConfig::default());
    let tablebase = syzygy_section();
    let bot = BotProcess::connected(&server, &[("tablebase", &tablebase)]);
    // The bot offers from its second move on (the server ignores offers before ply 2): the
    // score rule would need ten level moves first.
    let accepting = Opponent::random(7).moves(&["a8a7", "a7a8"]).accepts_draws(true);
    let view =
        play(&server, &bot, ChallengeSpec::standard("carol", 120, 1).fen(KRVKR).color("black").opponent(accepting));
    let log = bot.log();
    assert_eq!(view.status, "draw", "{view:?}\n{log}");
    assert!(view.bot_draw_offers >= 1 && view.ply() <= 4, "offered at once: {view:?}\n{log}");
    assert!(log.contains("offer_draw=true"), "{log}");
    // The opponent offers on its first move; the bot accepts on its next turn.
    let offering = Opponent::random(8).moves(&["a8a7", "a7a8"]).offer_draw_at(1);
    let view =
        play(&server, &bot, ChallengeSpec::standard("dave", 120, 1).fen(KRVKR).color("black").opponent(offering));
    let log = bot.log();
    // Accepted while the opponent is on move (`/draw/yes`) or with the bot's next move.
    assert!(view.status == "draw" && view.ply() <= 2, "{view:?}\n{log}");
    assert!(log.contains("draw offered") && log.contains("accept=true"), "{log}");
}

/// The online tablebase's answer for [`FIVE`]: `b2b3` wins (fastest, by DTZ), the server's
/// first-listed move only draws, and `d1d3` wins more slowly.
fn five_answer() -> serde_json::Value {
    let entry = |uci: &str, category: &str, dtz: i32| {
        json!({ "uci": uci, "san": "?", "category": category, "dtz": dtz, "precise_dtz": dtz, "dtm": null,
                "zeroing": uci.starts_with('b') || uci.starts_with('c'), "checkmate": false, "stalemate": false,
                "insufficient_material": false })
    };
    json!({ "category": "win", "dtz": 3, "precise_dtz": 3, "dtm": null, "checkmate": false, "stalemate": false,
            "insufficient_material": false,
            "moves": [entry("c2c3", "draw", 0), entry("d1d3", "loss", -14), entry("b2b3", "loss", -2)] })
}

#[test]
fn the_online_tablebase_gives_the_move_where_local_tables_do_not_reach() {
    let server = FakeLichess::start(FakeConfig { max_plies: 6, ..FakeConfig::default() });
    server.script_tablebase(FIVE, TablebaseReply::Json(five_answer()));
    let online = format!("online = true\nonline_url = \"{}\"", server.tablebase_url());
    // Without pondering every move of ours is looked up (a ponder hit goes straight on).
    let bot = BotProcess::connected(&server, &[("tablebase", &online), ("engine", "ponder = false")]);
    let view = play(
        &server,
        &bot,
        ChallengeSpec::standard("erin", 120, 1).fen(FIVE).color("black").opponent(Opponent::random(9)),
    );
    let log = bot.log();
    assert_eq!(view.moves.first().map(String::as_str), Some("b2b3"), "the fastest win of the answer: {view:?}\n{log}");
    assert!(log.contains("tablebase move") && log.contains("source=online"), "{log}");
    let lookups = server.tablebase_lookups();
    assert!(lookups.first().is_some_and(|fen| fen.starts_with("8/8/8/4k3/8/8/1PP5/1K1Q4 w")), "{lookups:?}");
    // Later positions are unscripted (404): the engine plays them, one lookup each.
    assert_eq!(lookups.len(), view.ply().div_ceil(2), "{lookups:?}\n{log}");
    assert!(log.contains("not a tablebase position; the engine plays"), "{log}");
    // The Bot API token never goes to the tablebase's host.
    let lookups_sent: Vec<_> = server.requests().into_iter().filter(|r| r.path == "/tablebase/standard").collect();
    assert!(!lookups_sent.is_empty());
    assert!(lookups_sent.iter().all(|r| r.header("authorization").is_none()), "{lookups_sent:?}");
    assert!(!log.contains(FAKE_TOKEN));
}

#[test]
fn online_tablebase_failures_cost_a_log_line_and_never_the_move() {
    let server = FakeLichess::start(FakeConfig { max_plies: 6, ..FakeConfig::default() });
    let online = format!("online = true\nonline_url = \"{}\"\nonline_timeout_ms = 300", server.tablebase_url());
    // Without pondering every move of ours is looked up (a ponder hit goes straight on).
    let bot = BotProcess::connected(&server, &[("tablebase", &online), ("engine", "ponder = false")]);
    let cases = [
        (
            TablebaseReply::Slow(Duration::from_secs(3), Box::new(TablebaseReply::Json(five_answer()))),
            "online tablebase timed out",
        ),
        (TablebaseReply::Malformed("<html>upstream error</html>".into()), "cannot decode response"),
        (
            TablebaseReply::Json(json!({ "category": "win", "moves": [{ "uci": "h8h1", "category": "loss" }] })),
            "h8h1 is not a legal move here",
        ),
        // Last: the 429 holds the lookups for the rest of the run.
        (TablebaseReply::RateLimited(60), "HTTP 429: endpoint held"),
    ];
    for (round, (reply, logged)) in cases.into_iter().enumerate() {
        server.set_tablebase_default(reply);
        let before = server.tablebase_lookups().len();
        let spec = ChallengeSpec::standard("frank", 60, 0)
            .fen(FIVE)
            .color("black")
            .opponent(Opponent::random(10 + round as u64));
        let view = play(&server, &bot, spec);
        let log = bot.log();
        let finished = view.status == "draw" || (view.status == "mate" && view.bot_won());
        assert!(finished, "round {round}: the game reached the ply limit or the bot mated: {view:?}\n{log}");
        assert!(log.contains(logged), "round {round}: {logged}\n{log}");
        let lookups = server.tablebase_lookups().len() - before;
        let expected = if logged.contains("429") { 1 } else { view.ply().div_ceil(2) };
        assert_eq!(lookups, expected, "round {round}: one lookup per move of ours, none while a 429 holds\n{log}");
    }
    assert!(!bot.log().contains("tablebase move"), "no answer was usable");
}

/// Stockfish, the `[engine]`, gets the tables as its `SyzygyPath` and converts KRvK.
#[test]
fn stockfish_gets_the_syzygy_path_and_keeps_the_win() {
    let Some(stockfish) = ferz_testserver::oracle::stockfish() else { return };
    // The engine's input is copied to a file on its way.
    let dir = TempDir::new("tb-stockfish");
    let engine = format!(
        "kind = \"uci\"\ncommand = \"sh\"\nargs = [\"-c\", \"tee -a input.log | {}\"]\nworking_dir = \"{}\"\nnodes = 3000",
        stockfish.display(),
        dir.path().display()
    );
    let server = FakeLichess::start(FakeConfig::default());
    let tablebase = syzygy_section();
    let bot = BotProcess::connected(
        &server,
        &[("engine", &engine), ("engine.options", "Hash = 16\nThreads = 1"), ("tablebase", &tablebase)],
    );
    let view = play(
        &server,
        &bot,
        ChallengeSpec::standard("gina", 120, 1).fen(KRVK).color("black").opponent(Opponent::random(11)),
    );
    let log = bot.log();
    assert_eq!((view.status.as_str(), view.bot_won()), ("mate", true), "{view:?}\n{log}");
    assert_tablebase_wins(&view, false, &log);
    let input = std::fs::read_to_string(dir.path().join("input.log")).unwrap();
    assert!(input.contains(&format!("setoption name SyzygyPath value {}", tables_dir())), "{input}");
}

/// Benchmark (run on demand): the bot's overhead per move in tablebase endings with the local
/// tables on (every move probes the verdict before the search), KQvK, KRvK and KRvKR from the
/// bot's side. `cargo test --release -p ferz-tests --test it bench_bot_overhead_with_tablebases -- --ignored --nocapture`
#[test]
#[ignore = "benchmark; run on demand"]
fn bench_bot_overhead_with_tablebases() {
    let tablebase = syzygy_section();
    let starts = [KRVK, "8/8/8/8/8/2k5/8/KQ6 w - - 0 1", KRVKR];
    super::bot::bot_overhead(&[("tablebase", &tablebase)], &|seed| {
        let start = starts[(seed % 3) as usize];
        ChallengeSpec::standard("bench", 300, 3).fen(start).color("black").opponent(Opponent::random(seed))
    });
}
