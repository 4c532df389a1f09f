//! The real `ferz bot` on PyChess: the fake server in PyChess mode, Shatranj games from both
//! start arrays and from positions that force each ending (checkmate, the stalemate win, the
//! bare king, the counter-bare draw), a Chess960 game, dropped streams, the per-platform
//! challenge policy and its capability header, and the endpoints the bot must not call there.
//! Like the real server, the fake never shows the bot the move that ends a game (only a bare
//! `gameEnd`), tells nobody of the bot's resignation, sends decimal clocks for bases under a
//! minute, and answers a second stream of a game with 200 and a broken body.

use std::time::Duration;

use ferz_chess::{DrawReason, Game, Outcome, Position, Variant, WinReason};
use ferz_tests::bot_process::BotProcess;
use ferz_tests::fake_lichess::{
    ChallengeSpec, ChallengeState, FAKE_TOKEN, FakeConfig, FakeLichess, Fault, GameView, Opponent,
};

use super::bot::{accepted_game, wait_over};

/// Shatranj with the kings on the d-file: PyChess's start position.
const SHATRANJ_D: &str = "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1";
/// Shatranj with the kings on the e-file, the other historical array.
const SHATRANJ_E: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";
/// White mates at once: Ra8# (the black king is walled in by its own pawns).
const MATE_IN_ONE: &str = "7k/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
/// Black to move wins by stalemate only: Kc2 leaves the white king no move (and there is no
/// mate). In chess this move would throw the win away.
const STALEMATE_WIN: &str = "8/8/8/8/8/p1k5/P7/K7 b - - 0 1";
/// White wins by baring the black king: Rxa5 takes its last piece, and with two rooks left
/// white cannot be bared back. No mate in one.
const BARE_KING_WIN: &str = "7k/8/8/n7/8/8/1R6/R5K1 w - - 0 1";
/// White's rook takes black's last piece (Rxd7) and stands next to the black king: black is
/// bared, but takes the rook back at once (counter-bare): king against king, a draw. Any other
/// black reply loses to the bare king.
const COUNTER_BARE: &str = "4k3/3b4/8/8/8/8/8/3R3K w - - 0 1";
/// White takes black's last piece by promoting, bxa8=Q (Shatranj's only promotion, to a ferz,
/// `b7a8q` in UCI): black is bared and cannot bare back, so white wins after black's reply.
const PROMOTION_BARES: &str = "n6k/1P6/8/8/8/8/8/6K1 w - - 0 1";

/// A PyChess bot's settings on top of the harness's: the platform, plus `extra`.
fn pychess_bot(server: &FakeLichess, extra: &[(&str, &str)]) -> BotProcess {
    let mut sections = vec![("lichess", "platform = \"pychess\"")];
    sections.extend_from_slice(extra);
    BotProcess::connected(server, &sections)
}

/// The bot's PGN of a game (the file whose `GameId` tag names it), once written.
fn pgn_of(server: &FakeLichess, bot: &BotProcess, game: &str) -> String {
    let tag = format!("[GameId \"{game}\"]");
    server.wait_until(Duration::from_secs(10), &format!("the PGN of {game}"), |_| {
        bot.pgns().iter().any(|p| p.contains(&tag))
    });
    bot.pgns().into_iter().find(|p| p.contains(&tag)).expect("PGN written")
}

/// The PGN result of the server's record.
fn server_result(view: &GameView) -> &'static str {
    match view.winner.as_deref() {
        Some("white") => "1-0",
        Some("black") => "0-1",
        _ => "1/2-1/2",
    }
}

/// The rules of a game on the server, from its variant.
fn variant_of(view: &GameView) -> Variant {
    match view.variant.as_str() {
        "shatranj" => Variant::Shatranj,
        "chess960" => Variant::Chess960,
        _ => Variant::Chess,
    }
}

/// Replays the server's record with ferz's rules: every move legal, and when the server says
/// the board ended the game, the board agrees, with the same winner.
fn assert_replays(view: &GameView) -> Game {
    assert!(view.illegal_moves_from_bot.is_empty(), "illegal moves from the bot: {view:?}");
    let start = Position::from_fen(&view.initial_fen, variant_of(view)).expect("initial FEN");
    let mut game = Game::new(start);
    for uci in &view.moves {
        game.play_uci(uci).unwrap_or_else(|e| panic!("{uci}: {e} in {view:?}"));
    }
    if let Some(outcome) = view.outcome {
        assert_eq!(game.outcome(), Some(outcome), "{view:?}");
        let winner = outcome.winner().map(|c| if c.is_white() { "white" } else { "black" });
        assert_eq!(winner, view.winner.as_deref(), "{view:?}");
    }
    game
}

/// The bot's PGN of a finished game agrees with the server: result, variant, start position.
fn assert_pgn_matches(server: &FakeLichess, bot: &BotProcess, view: &GameView, termination: &str) {
    let pgn = pgn_of(server, bot, &view.id);
    let result = server_result(view);
    assert!(pgn.contains(&format!("[Result \"{result}\"]")), "{view:?}\n{pgn}");
    assert!(pgn.trim_end().ends_with(result), "{pgn}");
    assert!(pgn.contains(&format!("[Termination \"{termination}\"]")), "{pgn}");
    match variant_of(view) {
        Variant::Shatranj => assert!(pgn.contains("[Variant \"Shatranj\"]"), "{pgn}"),
        Variant::Chess960 => assert!(pgn.contains("[Variant \"Chess960\"]"), "{pgn}"),
        Variant::Chess => assert!(!pgn.contains("[Variant "), "{pgn}"),
    }
    // The start position (the FEN may spell castling rights differently: compare positions).
    let variant = variant_of(view);
    let start = Position::from_fen(&view.initial_fen, variant).expect("initial FEN");
    if variant != Variant::Chess || view.initial_fen != ferz_chess::STANDARD_FEN {
        assert!(pgn.contains("[SetUp \"1\"]"), "{pgn}");
        let fen = tag(&pgn, "FEN").unwrap_or_else(|| panic!("no FEN tag: {pgn}"));
        assert_eq!(Position::from_fen(&fen, variant).expect("PGN FEN"), start, "{pgn}");
    }
    assert!(pgn.contains("[Site \"http://127.0.0.1:"), "{pgn}");
    // Every move, the one that ended the game included.
    assert_eq!(pgn_plies(&pgn), view.ply(), "{view:?}\n{pgn}");
}

/// How many moves a PGN's movetext holds.
fn pgn_plies(pgn: &str) -> usize {
    let movetext: String = pgn.lines().filter(|l| !l.starts_with('[')).collect::<Vec<_>>().join(" ");
    // Comments out ({...}), then move numbers and the result.
    let mut plain = String::new();
    let mut depth = 0;
    for c in movetext.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    plain
        .split_whitespace()
        .filter(|t| !matches!(*t, "1-0" | "0-1" | "1/2-1/2" | "*"))
        .filter(|t| !t.trim_end_matches('.').chars().all(|c| c.is_ascii_digit()))
        .count()
}

/// A PGN tag's value.
fn tag(pgn: &str, name: &str) -> Option<String> {
    let prefix = format!("[{name} \"");
    pgn.lines().find_map(|l| l.strip_prefix(&prefix)?.strip_suffix("\"]").map(str::to_owned))
}

/// PyChess has no draw, takeback or claim endpoints: the bot never calls them, and never
/// offers a draw with a move.
fn assert_no_lichess_only_calls(server: &FakeLichess) {
    assert!(server.missing_endpoint_calls().is_empty(), "{:?}", server.missing_endpoint_calls());
    let offers: Vec<String> =
        server.requests().iter().filter(|r| r.query.contains("offeringDraw=true")).map(|r| r.path.clone()).collect();
    assert!(offers.is_empty(), "draw offers sent on PyChess: {offers:?}");
}

/// A challenge from `who` in Shatranj from `fen`, the challenger playing `color`.
fn shatranj(who: &str, fen: &str, color: &str, opponent: Opponent) -> ChallengeSpec {
    ChallengeSpec::standard(who, 300, 3).variant("shatranj").fen(fen).color(color).opponent(opponent)
}

/// The endings are what the tests claim, by ferz's rules alone: otherwise a test could pass
/// while the bot proved nothing.
#[test]
fn the_ending_positions_force_what_the_tests_claim() {
    let position = |fen| Position::from_fen(fen, Variant::Shatranj).unwrap();
    // Moves that end the game at once, with how.
    let finishers = |pos: &Position| -> Vec<(String, Outcome)> {
        pos.legal_moves().iter().filter_map(|&m| pos.play(m).unwrap().outcome().map(|o| (pos.uci(m), o))).collect()
    };
    let won = |reason| Outcome::Decisive { winner: ferz_chess::Color::White, reason };
    assert_eq!(finishers(&position(MATE_IN_ONE)), [("a1a8".to_owned(), won(WinReason::Checkmate))]);
    assert_eq!(
        finishers(&position(STALEMATE_WIN)),
        [("c3c2".to_owned(), Outcome::Decisive { winner: ferz_chess::Color::Black, reason: WinReason::Stalemate })]
    );
    assert_eq!(finishers(&position(BARE_KING_WIN)), [("a1a5".to_owned(), won(WinReason::BareKing))]);
    // Counter-bare: after Rxd7 nothing is decided yet; Kxd7 draws, the other reply (there is
    // one, Kf8) loses.
    let after = position(COUNTER_BARE).play(position(COUNTER_BARE).parse_uci("d1d7").unwrap()).unwrap();
    assert_eq!(after.outcome(), None);
    assert_eq!(after.legal_moves().len(), 2);
    // Promotion: bxa8=Q bares black for good; whatever black replies, white has won.
    let promotion = position(PROMOTION_BARES);
    assert!(finishers(&promotion).is_empty());
    let bared = promotion.play(promotion.parse_uci("b7a8q").unwrap()).unwrap();
    assert!(bared.legal_moves().iter().all(|&m| bared.play(m).unwrap().outcome() == Some(won(WinReason::BareKing))));
    for &m in after.legal_moves().iter() {
        let next = after.play(m).unwrap();
        if after.uci(m) == "e8d7" {
            assert_eq!(next.outcome(), Some(Outcome::Draw(DrawReason::BareKings)));
        } else {
            // Black did not bare back: white, with its rook left, has won.
            assert_eq!(next.outcome(), Some(won(WinReason::BareKing)), "{}", after.uci(m));
        }
    }
}

#[test]
fn shatranj_endings_checkmate_stalemate_win_bare_king_and_counter_bare_draw() {
    let server = FakeLichess::start(FakeConfig::pychess());
    // Draw offers would be made on Lichess in these endings: none may go out on PyChess.
    let bot = pychess_bot(
        &server,
        &[
            ("challenge", "concurrency = 5\nmax_games_per_opponent = 5"),
            ("draw", "offer_moves = 1\noffer_score_cp = 100000\noffer_max_pieces = 32"),
        ],
    );
    let slow = |seed| Opponent::random(seed).think(Duration::from_millis(30));
    // (start, challenger's colour, opponent, status, winner, board verdict, termination tag)
    let cases = [
        (
            MATE_IN_ONE,
            "black",
            slow(61),
            "mate",
            Some("white"),
            Outcome::Decisive { winner: ferz_chess::Color::White, reason: WinReason::Checkmate },
            "mate",
        ),
        (
            STALEMATE_WIN,
            "white",
            slow(62),
            "stalemate",
            Some("black"),
            Outcome::Decisive { winner: ferz_chess::Color::Black, reason: WinReason::Stalemate },
            "stalemate",
        ),
        (
            BARE_KING_WIN,
            "black",
            slow(63),
            "variantEnd",
            Some("white"),
            Outcome::Decisive { winner: ferz_chess::Color::White, reason: WinReason::BareKing },
            "variantEnd",
        ),
        (COUNTER_BARE, "white", slow(64).moves(&["d1d7"]), "draw", None, Outcome::Draw(DrawReason::BareKings), "draw"),
        (
            PROMOTION_BARES,
            "black",
            slow(65),
            "variantEnd",
            Some("white"),
            Outcome::Decisive { winner: ferz_chess::Color::White, reason: WinReason::BareKing },
            "variantEnd",
        ),
    ];
    let ids: Vec<String> = cases
        .iter()
        .enumerate()
        .map(|(i, (fen, color, opponent, ..))| {
            server.send_challenge(shatranj(&format!("sh{i}"), fen, color, opponent.clone()))
        })
        .collect();
    for (id, (fen, _, _, status, winner, outcome, termination)) in ids.iter().zip(&cases) {
        let view = wait_over(&server, &accepted_game(&server, id));
        assert_eq!(view.initial_fen, *fen);
        assert_eq!((view.status.as_str(), view.winner.as_deref()), (*status, *winner), "{view:?}");
        assert_eq!(view.outcome, Some(*outcome), "{view:?}");
        assert_replays(&view);
        assert_pgn_matches(&server, &bot, &view, termination);
    }
    // The counter-bare draw: the bot's only saving move.
    let drawn = server.game(&ids[3]).unwrap();
    assert_eq!(drawn.moves, ["d1d7", "e8d7"], "{drawn:?}");
    // The promotion went out with the ferz's letter, and the PGN writes it like PyChess.
    let promoted = server.game(&ids[4]).unwrap();
    assert_eq!((promoted.moves.first().map(String::as_str), promoted.ply()), (Some("b7a8q"), 2), "{promoted:?}");
    assert!(pgn_of(&server, &bot, &promoted.id).contains("1. bxa8=Q"), "{}", pgn_of(&server, &bot, &promoted.id));
    assert_no_lichess_only_calls(&server);
}

#[test]
fn shatranj_games_from_both_arrays_played_to_the_end() {
    let server = FakeLichess::start(FakeConfig::pychess());
    let bot = pychess_bot(&server, &[("challenge", "concurrency = 2\nmax_games_per_opponent = 2")]);
    // PyChess's array (no FEN: the server sends its start) with the bot as white; the e-file
    // array with the bot as black. The opponent plays random legal moves.
    let d_file = server.send_challenge(
        ChallengeSpec::standard("ali", 300, 3).variant("shatranj").color("black").opponent(Opponent::random(71)),
    );
    let e_file = server.send_challenge(shatranj("zaid", SHATRANJ_E, "white", Opponent::random(72)));
    for (id, start, bot_color) in [(d_file, SHATRANJ_D, "white"), (e_file, SHATRANJ_E, "black")] {
        let view = wait_over(&server, &accepted_game(&server, &id));
        assert_eq!((view.initial_fen.as_str(), view.bot_color.as_str()), (start, bot_color));
        // Ended by the rules (not the fake's ply cap), won by the bot.
        assert!(view.outcome.is_some() && view.bot_won(), "{view:?}");
        assert_replays(&view);
        let termination = view.status.clone();
        assert_pgn_matches(&server, &bot, &view, &termination);
    }
    assert_no_lichess_only_calls(&server);
}

#[test]
fn chess960_and_chess_from_a_position_on_pychess() {
    let server = FakeLichess::start(FakeConfig::pychess());
    let bot = pychess_bot(&server, &[("challenge", "concurrency = 2\nmax_games_per_opponent = 2")]);
    // Chess960 is `chess` in gameFull; only gameStart's "True" tells. The opponent castles
    // king-takes-rook on the queen side with its first move, which no first move of the bot
    // can prevent (a later castling would depend on the bot's play).
    let fen960 = "r3kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1";
    let c960 = server.send_challenge(
        ChallengeSpec::standard("fischer", 300, 3)
            .variant("chess960")
            .fen(fen960)
            .color("black")
            .opponent(Opponent::random(81).moves(&["e8a8"])),
    );
    // Plain chess from a position (PyChess's custom FEN): a queen up, the bot mates.
    let queen_up = "4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1";
    let chess = server.send_challenge(
        ChallengeSpec::standard("morphy", 300, 3).fen(queen_up).color("black").opponent(Opponent::random(82)),
    );
    let view = wait_over(&server, &accepted_game(&server, &c960));
    assert_eq!(view.variant, "chess960");
    assert!(view.bot_won() || view.winner.is_none(), "{view:?}");
    let game = assert_replays(&view);
    if view.outcome.is_some() {
        assert_pgn_matches(&server, &bot, &view, &view.status);
    }
    assert!(game.moves().get(1).is_some_and(|m| m.is_castle()), "the opponent castled: {view:?}");
    let pgn = pgn_of(&server, &bot, &view.id);
    assert_eq!(tag(&pgn, "Variant").as_deref(), Some("Chess960"), "{pgn}");
    let view = wait_over(&server, &accepted_game(&server, &chess));
    assert_eq!((view.status.as_str(), view.bot_won()), ("mate", true), "{view:?}");
    assert_replays(&view);
    assert_pgn_matches(&server, &bot, &view, "mate");
    assert_no_lichess_only_calls(&server);
}

#[test]
fn recovers_from_dropped_streams_on_pychess() {
    // Keep-alives every 1.5 s: a stream the bot dropped stays "active" on the server until a
    // keep-alive to it fails, so reopening at once meets PyChess's 409.
    let server = FakeLichess::start(FakeConfig { keep_alive: Duration::from_millis(1500), ..FakeConfig::pychess() });
    let _bot = pychess_bot(&server, &[("lichess", "stream_idle_s = 5")]);
    let first = server.send_challenge(
        ChallengeSpec::standard("nina", 300, 3)
            .variant("shatranj")
            .color("black")
            .opponent(Opponent::random(91).think(Duration::from_millis(40))),
    );
    let game = accepted_game(&server, &first);
    server.wait_until(Duration::from_secs(10), "a few moves", |s| s.game(&game).is_some_and(|g| g.ply() >= 4));
    // The server cuts the game stream: the bot reopens it and gets gameFull with the moves.
    server.inject(Fault::DropGameStream { game_id: game.clone() });
    server.wait_until(Duration::from_secs(10), "the stream is reopened", |s| {
        s.game(&game).is_some_and(|g| g.game_stream_connections >= 2 && g.ply() >= 8)
    });
    // A refused move: the bot drops its stream to resynchronise and reopens it while the server
    // still holds the old one (409), then again until it gets in.
    server.inject(Fault::RejectMove { game_id: game.clone(), times: 1 });
    let view = wait_over(&server, &game);
    assert!(view.outcome.is_some() && view.bot_won(), "{view:?}");
    assert_replays(&view);
    let stream_path = format!("/api/bot/game/stream/{game}");
    let statuses: Vec<u16> = server.requests().iter().filter(|r| r.path == stream_path).map(|r| r.status).collect();
    // PyChess answers a second stream with 200 and a body that breaks at once.
    assert!(view.duplicate_game_streams >= 1, "the old stream was still held: {statuses:?} {view:?}");
    assert!(statuses.iter().all(|&s| s == 200), "{statuses:?}");
    assert!(view.game_stream_connections >= 3, "{view:?}");
    assert!(statuses.len() <= 12, "no runaway reconnects: {statuses:?}");
    assert!(view.streams_requested_after_end <= 1, "{view:?}");

    // The event stream closes and the server refuses it twice: a challenge sent meanwhile waits
    // in PyChess's queue and is played once the bot is back.
    server.inject(Fault::ServerError { path_contains: "/api/stream/event".into(), times: 2, status: 502 });
    server.inject(Fault::CloseEventStream);
    server.wait_until(Duration::from_secs(10), "the event stream is down", |s| !s.event_stream_open());
    let second = server
        .send_challenge(ChallengeSpec::standard("otto", 300, 3).variant("shatranj").fen(BARE_KING_WIN).color("black"));
    let view = wait_over(&server, &accepted_game(&server, &second));
    assert_eq!((view.status.as_str(), view.bot_won()), ("variantEnd", true), "{view:?}");
    let advertised = server.advertised_variants();
    assert!(advertised.len() >= 2, "the bot reconnected: {advertised:?}");
    assert!(advertised.iter().all(|v| v == &["chess", "chess960", "shatranj"]), "{advertised:?}");
    assert_no_lichess_only_calls(&server);
}

#[test]
fn results_of_resignations_aborts_and_flags_on_pychess() {
    let server = FakeLichess::start(FakeConfig::pychess());
    let bot = pychess_bot(
        &server,
        &[
            ("resign", "moves = 1\nscore_cp = -500"),
            ("abort", "abort_s = 1"),
            ("challenge", "speeds = [\"ultraBullet\", \"bullet\", \"blitz\", \"rapid\"]"),
        ],
    );
    // The bot (white) has a pawn against two rooks and a ferz: it resigns. PyChess tells
    // nobody (no gameEnd): the bot knows it resigned.
    let lost =
        server.send_challenge(shatranj("rooks", "r2rk3/4q3/8/8/8/8/4P3/4K3 w - - 0 1", "black", Opponent::random(101)));
    let view = wait_over(&server, &accepted_game(&server, &lost));
    assert_eq!((view.status.as_str(), view.winner.as_deref()), ("resign", Some("black")), "{view:?}");
    assert_pgn_matches(&server, &bot, &view, "resign");
    // The opponent runs out of time (it stops moving after its second move; clocks run from
    // the third ply): the bot reads the flag from the clock.
    let flag = server.send_challenge(
        ChallengeSpec::standard("slowpoke", 3, 0)
            .variant("shatranj")
            .color("black")
            .opponent(Opponent::random(102).gone_at(4, Duration::from_secs(3600))),
    );
    let view = wait_over(&server, &accepted_game(&server, &flag));
    assert_eq!((view.status.as_str(), view.winner.as_deref()), ("outoftime", Some("white")), "{view:?}");
    assert_pgn_matches(&server, &bot, &view, "outoftime");
    // PyChess's gameFull has no clock: the PGN takes it from the first state.
    let pgn = pgn_of(&server, &bot, &view.id);
    assert_eq!(tag(&pgn, "TimeControl").as_deref(), Some("3+0"), "{pgn}");
    // The opponent resigns: the bare gameEnd does not say so; the server's record does.
    let resigns = server.send_challenge(
        ChallengeSpec::standard("quitter", 300, 3)
            .variant("shatranj")
            .color("black")
            .opponent(Opponent::random(103).resign_at(5)),
    );
    let view = wait_over(&server, &accepted_game(&server, &resigns));
    assert_eq!((view.status.as_str(), view.winner.as_deref()), ("resign", Some("white")), "{view:?}");
    assert_pgn_matches(&server, &bot, &view, "resign");
    // The opponent never starts: the bot aborts (and writes no PGN of it).
    let idle = server.send_challenge(
        ChallengeSpec::standard("ghost", 300, 3)
            .variant("shatranj")
            .color("white")
            .opponent(Opponent::random(104).never_move()),
    );
    let view = wait_over(&server, &accepted_game(&server, &idle));
    assert_eq!(view.status, "aborted", "{view:?}");
    server.wait_until(Duration::from_secs(10), "the bot logs the abort", |_| {
        bot.log().lines().any(|l| l.contains("game over") && l.contains(&view.id) && l.contains("aborted"))
    });
    let game_tag = format!("[GameId \"{}\"]", view.id);
    assert!(!bot.pgns().iter().any(|p| p.contains(&game_tag)), "no PGN of an aborted game");
    assert_no_lichess_only_calls(&server);
}

#[test]
fn challenge_policy_per_platform_and_the_capability_header() {
    let server = FakeLichess::start(FakeConfig::pychess());
    // Shatranj only on PyChess, rapid and slower; matchmaking asked for but impossible there.
    let bot = pychess_bot(
        &server,
        &[
            ("challenge.pychess", "variants = [\"shatranj\"]\nspeeds = [\"rapid\", \"classical\"]"),
            ("matchmaking", "enabled = true\nidle_s = 0\nmin_interval_s = 1"),
        ],
    );
    let header = server
        .requests()
        .iter()
        .find(|r| r.path == "/api/stream/event")
        .and_then(|r| r.header("x-pychess-bot-capabilities").map(str::to_owned))
        .expect("the capability header");
    let header: serde_json::Value = serde_json::from_str(&header).expect("JSON header");
    assert_eq!(header, serde_json::json!({ "version": 1, "variants": ["shatranj"] }));
    assert_eq!(server.advertised_variants(), [["shatranj"]]);
    // Chess is never offered; blitz Shatranj is declined by the bot, rapid accepted.
    let chess = server.send_challenge(ChallengeSpec::standard("carl", 600, 0));
    let blitz = server.send_challenge(ChallengeSpec::standard("bea", 180, 2).variant("shatranj"));
    let rapid = server.send_challenge(shatranj("ron", BARE_KING_WIN, "black", Opponent::random(111)).clock(600, 5));
    assert_eq!(server.challenge_state(&chess), ChallengeState::NotOffered);
    server.wait_until(Duration::from_secs(10), "blitz is declined", |s| {
        s.challenge_state(&blitz) == ChallengeState::Declined { reason: "toofast".into() }
    });
    let view = wait_over(&server, &accepted_game(&server, &rapid));
    assert!(view.bot_won(), "{view:?}");
    // No challenge of ours, no list of online bots: matchmaking said at start why it stays
    // off, and the bot's loop went round many times while the game was played.
    let log = bot.log();
    assert!(log.contains("matchmaking is not available on PyChess"), "{log}");
    let made: Vec<String> = server
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.starts_with("/api/challenge/") && r.path.matches('/').count() == 3)
        .map(|r| r.path.clone())
        .collect();
    assert!(made.is_empty(), "{made:?}");
    assert_no_lichess_only_calls(&server);
    drop(bot);

    // The defaults: chess, Chess960 and Shatranj announced; a Lichess-only variant key in the
    // PyChess table stops the bot at start with the key.
    let server = FakeLichess::start(FakeConfig::pychess());
    let _bot = pychess_bot(&server, &[]);
    assert_eq!(server.advertised_variants(), [["chess", "chess960", "shatranj"]]);
    let mut bad = BotProcess::start(
        &server.url(),
        FAKE_TOKEN,
        &[("lichess", "platform = \"pychess\""), ("challenge.pychess", "variants = [\"fromPosition\"]")],
    );
    assert_eq!(bad.wait(Duration::from_secs(20)), Some(1));
    assert!(bad.log().contains("challenge.pychess.variants"), "{}", bad.log());
}

#[test]
fn start_up_on_pychess_token_and_bot_account_errors() {
    let server = FakeLichess::start(FakeConfig { bot_is_bot: false, ..FakeConfig::pychess() });
    let pychess = [("lichess", "platform = \"pychess\"")];
    // A wrong token: PyChess's token test says null; the message points to PyChess's page.
    let mut bad = BotProcess::start(&server.url(), "WrongSecret123", &pychess);
    assert_eq!(bad.wait(Duration::from_secs(20)), Some(1));
    let log = bad.log();
    assert!(log.contains("not valid") && log.contains("/account/bot") && !log.contains("WrongSecret123"), "{log}");
    // Not a BOT account yet: the bot says how to upgrade, and the upgrade works there.
    let mut not_bot = BotProcess::start(&server.url(), FAKE_TOKEN, &pychess);
    assert_eq!(not_bot.wait(Duration::from_secs(20)), Some(1));
    assert!(not_bot.log().contains("ferz bot upgrade"), "{}", not_bot.log());
    let out = std::process::Command::new(ferz_tests::ferz_binary())
        .args(["bot", "upgrade", "--config"])
        .arg(not_bot.dir.path().join("bot.toml"))
        .env("LICHESS_BOT_TOKEN", FAKE_TOKEN)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(server.bot_is_bot());
    let _bot = pychess_bot(&server, &[]);
}

/// A Shatranj game on ¼ to ¾ of a minute: PyChess's times are decimals there (`30000.0`).
#[test]
fn a_thirty_second_base_with_decimal_clocks_is_played_to_the_end() {
    let server = FakeLichess::start(FakeConfig::pychess());
    let bot = pychess_bot(
        &server,
        &[("challenge", "speeds = [\"ultraBullet\", \"bullet\", \"blitz\"]\nmax_games_per_opponent = 2")],
    );
    // The bot moves first; the challenger leaves the colour to chance the second time (PyChess
    // then says `finalColor: white` whatever the draw gives).
    for (i, color) in ["black", "random"].into_iter().enumerate() {
        let id = server.send_challenge(
            ChallengeSpec::standard("hasty", 30, 2)
                .variant("shatranj")
                .color(color)
                .opponent(Opponent::random(120 + i as u64)),
        );
        let view = wait_over(&server, &accepted_game(&server, &id));
        assert!(view.outcome.is_some() && view.bot_won(), "{view:?}");
        assert_replays(&view);
        assert_pgn_matches(&server, &bot, &view, &view.status.clone());
        let pgn = pgn_of(&server, &bot, &view.id);
        assert_eq!(tag(&pgn, "TimeControl").as_deref(), Some("30+2"), "{pgn}");
    }
    assert!(!bot.log().contains("skipping a bad line"), "{}", bot.log());
}

/// The move that ends a game never reaches the bot (only `gameEnd`, without a result): the
/// mate it gives, the opponent's last move, the opponent's resignation and abort are all read
/// from the server's record, and the tally at the end counts them.
#[test]
fn ends_the_bot_is_not_shown_are_read_from_the_servers_record() {
    let server = FakeLichess::start(FakeConfig::pychess());
    let bot = pychess_bot(
        &server,
        &[("challenge", "concurrency = 4\nmax_games_per_opponent = 4"), ("abort", "abort_s = 60")],
    );
    let slow = |seed| Opponent::random(seed).think(Duration::from_millis(30));
    // The bot (white) mates with its first move; it promotes and bares the black king, which
    // the opponent's reply (never shown) makes final; the opponent resigns; it aborts.
    let mate = server.send_challenge(shatranj("mated", MATE_IN_ONE, "black", slow(131)));
    let bared = server.send_challenge(shatranj("bared", PROMOTION_BARES, "black", slow(132)));
    let resigns = server.send_challenge(
        ChallengeSpec::standard("quits", 300, 3).variant("shatranj").color("black").opponent(slow(133).resign_at(7)),
    );
    let aborts = server.send_challenge(
        ChallengeSpec::standard("leaves", 300, 3).variant("shatranj").color("white").opponent(slow(134).abort_at(0)),
    );
    for (id, status, plies) in
        [(&mate, "mate", Some(1)), (&bared, "variantEnd", Some(2)), (&resigns, "resign", Some(7))]
    {
        let view = wait_over(&server, &accepted_game(&server, id));
        assert_eq!((view.status.as_str(), view.winner.as_deref()), (status, Some("white")), "{view:?}");
        assert_eq!(Some(view.ply()), plies, "{view:?}");
        assert_pgn_matches(&server, &bot, &view, status);
    }
    let mate_pgn = pgn_of(&server, &bot, &accepted_game(&server, &mate));
    assert!(mate_pgn.contains("1. Ra8#"), "{mate_pgn}");
    // The abort: recorded as such, and no PGN (`[pgn] aborted` is off).
    let view = wait_over(&server, &accepted_game(&server, &aborts));
    assert_eq!(view.status, "aborted", "{view:?}");
    server.wait_until(Duration::from_secs(10), "the bot logs the abort", |_| {
        bot.log().lines().any(|l| l.contains("game over") && l.contains(&view.id) && l.contains("aborted"))
    });
    let game_tag = format!("[GameId \"{}\"]", view.id);
    assert!(!bot.pgns().iter().any(|p| p.contains(&game_tag)), "no PGN of an aborted game");
    // One TERM stops the bot; its tally counts the three wins.
    let mut bot = bot;
    bot.terminate();
    assert_eq!(bot.wait(Duration::from_secs(20)), Some(0));
    let log = bot.log();
    assert!(log.contains("white_won=3 black_won=0 drawn=0"), "{log}");
    for game in server.games() {
        assert!(game.streams_requested_after_end <= 1, "{game:?}");
    }
    assert_no_lichess_only_calls(&server);
}

/// PyChess takes a resignation and tells nobody: the bot counts the game lost at once, writes
/// its PGN, frees its only slot for the next challenge, and does not come back to the game.
#[test]
fn after_resigning_the_bot_frees_its_slot_for_the_next_challenge() {
    let server = FakeLichess::start(FakeConfig::pychess());
    let mut bot = pychess_bot(
        &server,
        &[("challenge", "concurrency = 1\nmax_games_per_opponent = 2"), ("resign", "moves = 1\nscore_cp = -500")],
    );
    let lost =
        server.send_challenge(shatranj("rooks", "r2rk3/4q3/8/8/8/8/4P3/4K3 w - - 0 1", "black", Opponent::random(141)));
    let lost = accepted_game(&server, &lost);
    server.wait_until(Duration::from_secs(30), "the bot resigns", |s| {
        s.game(&lost).is_some_and(|g| g.status == "resign")
    });
    // The next challenge comes as soon as the server has the resignation: the slot is free.
    let next = server.send_challenge(shatranj("rooks", BARE_KING_WIN, "black", Opponent::random(142)));
    let view = wait_over(&server, &accepted_game(&server, &next));
    assert!(view.bot_won(), "{view:?}");
    let resigned = server.game(&lost).unwrap();
    assert_eq!(resigned.winner.as_deref(), Some("black"), "{resigned:?}");
    assert_pgn_matches(&server, &bot, &resigned, "resign");
    assert!(resigned.streams_requested_after_end == 0, "the resigned game is left alone: {resigned:?}");
    bot.terminate();
    assert_eq!(bot.wait(Duration::from_secs(20)), Some(0));
    let log = bot.log();
    assert!(log.contains("white_won=1 black_won=1 drawn=0"), "{log}");
}

/// PyChess drops a finished game at once when the human leaves it (deleting one under three
/// plies), sometimes before the bot's `gameEnd` goes out: the bot's own mating move ends a game
/// that then falls silent and is gone, and an opponent's abort leaves no page to read. Both are
/// still recorded: the mate with its move and result, the abort as an abort without a PGN.
#[test]
fn games_the_server_drops_at_once_are_still_recorded() {
    let server = FakeLichess::start(FakeConfig::pychess());
    let bot = pychess_bot(
        &server,
        &[
            ("lichess", "stream_idle_s = 3"),
            ("challenge", "concurrency = 2\nmax_games_per_opponent = 2"),
            ("abort", "abort_s = 60"),
        ],
    );
    let mate = shatranj("mated", MATE_IN_ONE, "black", Opponent::random(151));
    let aborts = ChallengeSpec::standard("leaves", 300, 3)
        .variant("shatranj")
        .color("white")
        .opponent(Opponent::random(152).think(Duration::from_millis(300)).abort_at(0));
    let ids: Vec<String> = [mate, aborts]
        .into_iter()
        .map(|spec| {
            let id = server.send_challenge(spec);
            server.inject(Fault::ForgetGameWhenOver { game_id: id.clone() });
            id
        })
        .collect();
    let mated = wait_over(&server, &accepted_game(&server, &ids[0]));
    assert_eq!((mated.status.as_str(), mated.ply()), ("mate", 1), "{mated:?}");
    assert_pgn_matches(&server, &bot, &mated, "mate");
    let aborted = wait_over(&server, &accepted_game(&server, &ids[1]));
    assert_eq!(aborted.status, "aborted", "{aborted:?}");
    server.wait_until(Duration::from_secs(10), "the bot logs the abort", |_| {
        bot.log().lines().any(|l| l.contains("game over") && l.contains(&aborted.id) && l.contains("aborted"))
    });
    let game_tag = format!("[GameId \"{}\"]", aborted.id);
    assert!(!bot.pgns().iter().any(|p| p.contains(&game_tag)), "no PGN of an aborted game");
    assert!(mated.streams_requested_after_end <= 1 && aborted.streams_requested_after_end <= 1);
}

/// A rematch the human asks for is made by PyChess at once: the bot gets the new game's
/// `gameStart` with no challenge before it, and plays it.
#[test]
fn a_rematch_arrives_as_a_bare_game_start_and_is_played() {
    let server = FakeLichess::start(FakeConfig::pychess());
    let bot = pychess_bot(&server, &[]);
    let first = server.send_challenge(shatranj("again", BARE_KING_WIN, "black", Opponent::random(161)));
    let view = wait_over(&server, &accepted_game(&server, &first));
    assert!(view.bot_won(), "{view:?}");
    // Now the bot is black, and wins by stalemate.
    let rematch = server.start_game(shatranj("again", STALEMATE_WIN, "white", Opponent::random(162)));
    let view = wait_over(&server, &rematch);
    assert_eq!((view.status.as_str(), view.bot_won()), ("stalemate", true), "{view:?}");
    assert_pgn_matches(&server, &bot, &view, "stalemate");
}
