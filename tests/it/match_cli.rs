//! `ferz match`: the real binary plays matches against a second `ferz` process and against a
//! misbehaving fake engine, and its PGN is read back with `ferz-chess`.

use std::path::Path;

use ferz_chess::{Game, Position, Variant};
use ferz_tests::{TempDir, run_ferz};

/// The fake engine built from `tests/fake_uci.rs`.
fn fake(mode: &str) -> String {
    format!("uci:{} {mode}", env!("CARGO_BIN_EXE_fake-uci"))
}

fn run(args: &[&str]) -> (i32, String, String) {
    let output = run_ferz(args);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code().unwrap_or(-1), stdout, stderr)
}

/// A game read back from the PGN, checked move by move.
struct ReadGame {
    tags: Vec<(String, String)>,
    game: Game,
    result: String,
}

impl ReadGame {
    fn tag(&self, key: &str) -> &str {
        self.tags.iter().find(|(k, _)| k == key).map_or("", |(_, v)| v)
    }
}

/// Reads the PGN with its own small parser (not the writer's library) and replays every move
/// with `ferz-chess`'s SAN reader, so an illegal or mis-written move fails the test.
fn read_pgn(path: &Path) -> Vec<ReadGame> {
    let text = std::fs::read_to_string(path).expect("PGN written");
    let mut games = Vec::new();
    let mut tags = Vec::new();
    let mut movetext = String::new();
    for line in text.lines() {
        if let Some(tag) = line.strip_prefix('[') {
            let (key, value) = tag.trim_end_matches(']').split_once(' ').expect("tag");
            tags.push((key.to_owned(), value.trim_matches('"').to_owned()));
            continue;
        }
        movetext.push_str(line);
        movetext.push(' ');
        let last = line.split_whitespace().last().unwrap_or("");
        if !matches!(last, "1-0" | "0-1" | "1/2-1/2" | "*") {
            continue;
        }
        let tags_done = std::mem::take(&mut tags);
        let variant = match tags_done.iter().find(|(k, _)| k == "Variant").map(|(_, v)| v.as_str()) {
            Some("Chess960") => Variant::Chess960,
            Some("Shatranj") => Variant::Shatranj,
            None => Variant::Chess,
            Some(other) => panic!("unexpected variant {other}"),
        };
        let start = match tags_done.iter().find(|(k, _)| k == "FEN") {
            Some((_, fen)) => Position::from_fen(fen, variant).expect("FEN tag is legal"),
            None => Position::new(variant),
        };
        let mut game = Game::new(start);
        let mut uncommented = String::new();
        let mut depth = 0;
        for c in std::mem::take(&mut movetext).chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                c if depth == 0 => uncommented.push(c),
                _ => {}
            }
        }
        let tokens: Vec<&str> = uncommented.split_whitespace().collect();
        let (result, moves) = tokens.split_last().expect("result");
        for san in moves.iter().filter(|t| !t.ends_with('.')) {
            let m = game.position().parse_san(san).unwrap_or_else(|e| panic!("{e} in {}", game.position().fen()));
            game.play(m).expect("legal");
        }
        games.push(ReadGame { tags: tags_done, game, result: (*result).to_owned() });
    }
    games
}

fn check_games(games: &[ReadGame]) {
    for g in games {
        assert_eq!(g.result, g.tag("Result"));
        assert_eq!(g.game.moves().len().to_string(), g.tag("PlyCount"));
        if g.tag("Termination") == "normal" {
            let outcome = g.game.outcome().expect("a game ended by the rules has an outcome");
            assert_eq!(outcome.result(), g.result);
        } else {
            assert!(g.game.outcome().is_none(), "{}", g.tag("Termination"));
        }
    }
}

#[test]
fn ferz_against_a_second_ferz_process_with_sprt_and_pgn() {
    let dir = TempDir::new("match-sprt");
    let pgn = dir.path().join("games.pgn");
    let pgn_arg = pgn.to_str().unwrap();
    let (code, stdout, stderr) = run(&[
        "match",
        "--engine-a",
        "ferz",
        "--engine-b",
        "ferz",
        "--option-a",
        "Hash=8",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--nodes",
        "1500",
        "--max-plies",
        "160",
        "--sprt",
        "0,10",
        "--pgn",
        pgn_arg,
        "--seed",
        "7",
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("SPRT elo0=0 elo1=10 alpha=0.05 beta=0.05 (normalized Elo), bounds (-2.94, 2.94)"),
        "{stdout}"
    );
    assert_eq!(stdout.matches("Finished game").count(), 4, "{stdout}");
    let progress: Vec<&str> = stdout.lines().filter(|l| l.starts_with("Games ")).collect();
    assert_eq!(progress.len(), 2, "{stdout}");
    assert!(progress[1].starts_with("Games 4/4: +"), "{stdout}");
    for field in [", score ", ", Elo ", "(LOS ", ", penta [", ", LLR ", "(-2.94, 2.94) [0, 10]"] {
        assert!(progress[1].contains(field), "{field} in {}", progress[1]);
    }
    for line in [
        "Match finished: 4 of 4 games",
        "A: ferz",
        "Score of A vs B: +",
        "Pentanomial [LL, LD, DD+WL, WD, WW]: [",
        "SPRT elo0=0",
        "Endings: ",
    ] {
        assert!(stdout.contains(line), "{line} in {stdout}");
    }
    assert!(!stdout.contains("illegal"), "{stdout}");
    // The counts alone give the same statistics (how runs on several machines are pooled).
    let between = |line: &str, from: &str, to: &str| {
        let start = line.find(from).unwrap() + from.len();
        line[start..start + line[start..].find(to).unwrap()].to_owned()
    };
    let counts = between(progress[1], "penta [", "]").replace(' ', "");
    let (code, pooled, stderr) = run(&["match", "--pentanomial", &counts, "--sprt", "0,10"]);
    assert_eq!(code, 0, "{stderr}");
    let elo = between(progress[1], ", Elo ", ", penta");
    let llr = between(progress[1], ", LLR ", " (");
    assert!(pooled.starts_with(&format!("Pairs 2 (4 games): Elo {elo}, penta [")), "{elo}: {pooled}");
    assert!(pooled.contains(&format!(": LLR {llr} (-2.94, 2.94), ")), "{llr}: {pooled}");
    let games = read_pgn(&pgn);
    assert_eq!(games.len(), 4);
    check_games(&games);
    // Colour-swapped pairs: the same opening, A white in one game and black in the other.
    let mut rounds: Vec<&ReadGame> = games.iter().collect();
    rounds.sort_by_key(|g| g.tag("Round").parse::<u32>().unwrap());
    for pair in rounds.chunks(2) {
        assert_eq!(pair[0].tag("White"), pair[1].tag("Black"));
        assert!(pair[0].tag("White").ends_with("(A)"), "{}", pair[0].tag("White"));
        assert_eq!(pair[0].game.moves()[..6], pair[1].game.moves()[..6], "six random opening plies shared");
    }
}

/// `--pentanomial` pools counts without playing: the chess SPRT of docs/measurements.md#tuning,
/// whose figures an independent implementation of fishtest's formulas gives too, and bad counts.
#[test]
fn pooled_pair_counts_give_the_elo_and_the_sprt_verdict() {
    let (code, stdout, stderr) = run(&["match", "--pentanomial", "20,154,383,223,54", "--sprt", "0,5"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "Pairs 834 (1668 games): Elo +28.6 ± 10.5 (LOS 100.0%), penta [20, 154, 383, 223, 54]\n\
         SPRT elo0=0 elo1=5 alpha=0.05 beta=0.05 (normalized Elo): LLR 2.95 (-2.94, 2.94), H1 accepted\n"
    );
    let (_, stdout, _) = run(&["match", "--pentanomial", "19,143,344,200,50", "--sprt", "0,5"]);
    assert!(stdout.contains("Elo +27.4 ± 11.1") && stdout.contains("LLR 2.53 (-2.94, 2.94), continue"), "{stdout}");
    for (counts, error) in [
        ("1,2,3", "expected five counts LL,LD,DD,WD,WW, got 3"),
        ("1,2,3,4,-5", "\"-5\" is not a count of pairs"),
        ("1,2,,4,5", "\"\" is not a count of pairs"),
    ] {
        let (code, stdout, stderr) = run(&["match", "--pentanomial", counts]);
        assert_eq!(code, 2, "{counts}: {stdout}");
        assert!(stderr.contains(error), "{counts}: {stderr}");
    }
}

#[test]
fn chess960_and_shatranj_games_are_legal_in_both_notations() {
    for variant in ["chess960", "shatranj"] {
        let dir = TempDir::new("match-variants");
        let pgn = dir.path().join("games.pgn");
        let (code, stdout, stderr) = run(&[
            "match",
            "--vs",
            "ferz",
            "--games",
            "2",
            "--nodes",
            "800",
            "--variant",
            variant,
            "--max-plies",
            "80",
            "--pgn",
            pgn.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stdout}\n{stderr}");
        assert!(!stdout.contains("illegal") && !stdout.contains("disconnects"), "{stdout}");
        let games = read_pgn(&pgn);
        assert_eq!(games.len(), 2);
        check_games(&games);
        let tag = if variant == "chess960" { "Chess960" } else { "Shatranj" };
        assert!(games.iter().all(|g| g.tag("Variant") == tag && g.tag("SetUp") == "1"));
    }
}

#[test]
fn an_engine_that_crashes_loses_and_is_restarted() {
    let dir = TempDir::new("match-crash");
    let pgn = dir.path().join("games.pgn");
    let (code, stdout, stderr) = run(&[
        "match",
        "--engine-a",
        &fake(""),
        "--engine-b",
        &fake("crash 2"),
        "--games",
        "4",
        "--nodes",
        "100",
        "--max-plies",
        "40",
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("Score of A vs B: +4 =0 -0"), "{stdout}");
    assert!(stdout.contains("Endings: abandoned 4"), "{stdout}");
    assert!(stdout.contains("disconnects: the engine exited"), "{stdout}");
    assert_eq!(stdout.matches("Engine B stopped working; restarting it").count(), 3, "{stdout}");
    let games = read_pgn(&pgn);
    assert_eq!(games.len(), 4);
    check_games(&games);
    assert!(games.iter().all(|g| g.tag("Termination") == "abandoned"));
}

#[test]
fn an_illegal_move_loses_and_is_reported_with_the_move_and_position() {
    let (code, stdout, stderr) = run(&[
        "match",
        "--engine-a",
        &fake(""),
        "--vs",
        &fake("illegal 1"),
        "--games",
        "2",
        "--nodes",
        "100",
        "--max-plies",
        "40",
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // The fake counts searches over its life: only its first move is illegal, in game 1.
    let line = stdout.lines().find(|l| l.starts_with("Finished game 1 ")).expect("game 1");
    let expected = "Finished game 1 (fake-uci (A) vs fake-uci (B)): 1-0 {Black makes an illegal move: \"";
    assert!(line.starts_with(expected), "{line}");
    // The move, then the position it was played in (after the six random opening plies).
    assert!(line.contains("\" in ") && line.contains(" b ") && line.ends_with('}'), "{line}");
    assert!(stdout.contains("Endings: illegal move 1"), "{stdout}");
}

#[test]
fn stalls_and_time_losses_lose() {
    let (code, stdout, stderr) = run(&[
        "match",
        "--engine-a",
        &fake(""),
        "--vs",
        &fake("hang 1"),
        "--games",
        "2",
        "--nodes",
        "100",
        "--stall-timeout-s",
        "1",
        "--max-plies",
        "40",
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("'s connection stalls (no move in 1 s)"), "{stdout}");
    assert!(stdout.contains("Engine B stopped working; restarting it"), "{stdout}");
    assert!(stdout.contains("Score of A vs B: +2 =0 -0"), "{stdout}");

    let (code, stdout, stderr) = run(&[
        "match",
        "--engine-a",
        &fake(""),
        "--vs",
        &fake("slow 1 700"),
        "--games",
        "2",
        "--tc",
        "0.3+0.05",
        "--max-plies",
        "20",
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("loses on time"), "{stdout}");
    assert!(stdout.contains("time forfeit 1"), "{stdout}");
    // The slow engine answered after `stop`, so it was not restarted.
    assert!(!stdout.contains("restarting"), "{stdout}");
}

#[test]
fn an_engine_that_never_finishes_the_handshake_is_an_error() {
    let (code, stdout, stderr) =
        run(&["match", "--vs", &fake("no-uciok"), "--games", "2", "--nodes", "100", "--handshake-timeout-s", "1"]);
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert!(stderr.contains("engine B") && stderr.contains("no uciok"), "{stderr}");
    let (code, _, stderr) = run(&["match", "--vs", "uci:/nonexistent/engine", "--games", "2"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot start /nonexistent/engine"), "{stderr}");
    let (code, _, stderr) = run(&["match", "--vs", "ferz", "--option-b", "NoSuchOption=1", "--games", "2"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("has no option \"NoSuchOption\""), "{stderr}");
    let (code, _, stderr) = run(&["match", "--vs", "ferz", "--sprt", "5,0"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("elo0 (5) must be less than elo1 (0)"), "{stderr}");
}

#[test]
fn the_sprt_stops_the_match_when_it_decides() {
    // B crashes in every game, so every pair is WW; with bounds 0 and 200 normalized Elo the
    // LLR passes ln(0.95/0.05) = 2.944 at the seventh pair (scripts/sprt_reference.py: 2.936 after
    // six, 3.426 after seven).
    let (code, stdout, stderr) = run(&[
        "match",
        "--engine-a",
        &fake(""),
        "--vs",
        &fake("crash 1"),
        "--games",
        "100",
        "--nodes",
        "100",
        "--sprt",
        "0,200,0.05,0.05",
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("Match finished: 14 of 100 games"), "{stdout}");
    assert!(stdout.contains("penta [0, 0, 0, 0, 7], LLR 3.43 (-2.94, 2.94) [0, 200]"), "{stdout}");
    assert!(stdout.contains("LLR 3.43 (-2.94, 2.94), H1 accepted"), "{stdout}");
}

#[test]
fn book_openings_are_played_once_per_pair_with_colours_swapped() {
    let dir = TempDir::new("match-book");
    let book = dir.path().join("book.epd");
    let fens = [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -",
        "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -",
        "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq -",
    ];
    std::fs::write(&book, fens.iter().map(|f| format!("{f} id \"x\";\n")).collect::<String>()).unwrap();
    let pgn = dir.path().join("games.pgn");
    let (code, stdout, stderr) = run(&[
        "match",
        "--engine-a",
        &fake(""),
        "--vs",
        &fake(""),
        "--games",
        "6",
        "--nodes",
        "100",
        "--max-plies",
        "10",
        "--book",
        book.to_str().unwrap(),
        "--book-order",
        "random",
        "--pgn",
        pgn.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let games = read_pgn(&pgn);
    check_games(&games);
    let mut used: Vec<&str> = games.iter().map(|g| g.tag("FEN")).collect();
    used.sort_unstable();
    let mut expected: Vec<String> = fens.iter().flat_map(|f| [format!("{f} 0 1"), format!("{f} 0 1")]).collect();
    expected.sort_unstable();
    assert_eq!(used, expected);
}

#[test]
fn ctrl_c_finishes_the_games_in_progress_and_resume_plays_only_the_rest() {
    let dir = TempDir::new("match-resume");
    let pgn = dir.path().join("games.pgn");
    let pgn_arg = pgn.to_str().unwrap();
    // Every move takes 20 ms, so a 12-ply game lasts about a quarter of a second.
    let args = |seed: &'static str| {
        let paced = fake("pace 0 20");
        [
            "match",
            "--engine-a",
            &paced,
            "--vs",
            &paced,
            "--games",
            "12",
            "--nodes",
            "100",
            "--max-plies",
            "12",
            "--seed",
            seed,
            "--pgn",
            pgn_arg,
        ]
        .map(str::to_owned)
    };
    let child = std::process::Command::new(ferz_tests::ferz_binary())
        .args(args("4"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start ferz match");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_to_string(&pgn).map_or(0, |t| t.matches("[Event ").count()) < 2 {
        assert!(std::time::Instant::now() < deadline, "no game finished within a minute");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let signal = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(signal.success());
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(stderr.contains("finishing the games in progress"), "{stderr}");
    assert!(stdout.contains("Match stopped") && stdout.contains("--resume"), "{stdout}");
    let first_run = read_pgn(&pgn);
    check_games(&first_run);
    let played = first_run.len();
    assert!((2..12).contains(&played), "{played} games before the stop");
    // The game in progress was finished, not dropped: no unfinished result in the file.
    assert!(first_run.iter().all(|g| g.result != "*"));

    // A crash while a game was being written leaves a cut game at the end; resume removes it.
    let mut text = std::fs::read_to_string(&pgn).unwrap();
    text.push_str("[Event \"ferz match\"]\n[Site \"?\"]\n[Round \"99\"]\n\n1. e4 e5 2. Nf");
    std::fs::write(&pgn, text).unwrap();

    // Another seed schedules other openings: its games do not belong to this PGN.
    let mut foreign = args("5").to_vec();
    foreign.push("--resume".into());
    let (code, stdout, stderr) = run(&foreign.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert!(stderr.contains("opening scheduled for pair"), "{stderr}");

    let mut resumed = args("4").to_vec();
    resumed.push("--resume".into());
    let (code, stdout, stderr) = run(&resumed.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains(&format!("Resuming: {played} games read back")), "{stdout}");
    assert!(stdout.contains("Match finished: 12 of 12 games"), "{stdout}");
    assert!(stdout.contains(&format!("({played} of them from the earlier run)")), "{stdout}");
    assert_eq!(stdout.matches("Finished game").count(), 12 - played, "only the missing games are played: {stdout}");
    let games = read_pgn(&pgn);
    check_games(&games);
    let mut rounds: Vec<u64> = games.iter().map(|g| g.tag("Round").parse().unwrap()).collect();
    rounds.sort_unstable();
    assert_eq!(rounds, (1..=12).collect::<Vec<u64>>(), "every game once");
    // The first run's games are still there, unchanged and first.
    for (before, after) in first_run.iter().zip(&games) {
        assert_eq!(before.tags, after.tags);
        assert_eq!(before.game.moves(), after.game.moves());
    }
}

/// The move times of the PGN's comments (`{+0.00/1 0.312s}`), game by game.
fn comment_times(pgn: &Path) -> Vec<Vec<f64>> {
    let text = std::fs::read_to_string(pgn).expect("PGN written");
    text.split("[Event ")
        .skip(1)
        .map(|game| {
            game.split('{')
                .skip(1)
                .filter_map(|c| c.split('}').next()?.split_whitespace().last()?.strip_suffix('s')?.parse().ok())
                .collect()
        })
        .collect()
}

#[test]
fn a_pondering_engine_answers_a_hit_from_its_ponder_search() {
    // A searches 300 ms a move, B 500 ms and plays the first legal move: exactly the reply A
    // expects. Pondering, A has its answer ready when B moves; without, it takes its 300 ms.
    for ponder in [true, false] {
        let dir = TempDir::new("match-ponder");
        let pgn = dir.path().join("games.pgn");
        let (a, b) = (fake("pace 1 300"), fake("pace 1 500"));
        let mut args = vec!["match", "--engine-a", &a, "--engine-b", &b, "--games", "2", "--tc", "60+0"];
        args.extend(["--max-plies", "12", "--random-plies", "0", "--pgn", pgn.to_str().unwrap()]);
        if ponder {
            args.push("--ponder-a");
        }
        let (code, stdout, stderr) = run(&args);
        assert_eq!(code, 0, "{stdout}\n{stderr}");
        assert_eq!(stdout.matches("Finished game").count(), 2, "{stdout}");
        let games = comment_times(&pgn);
        // A has white in the first game and black in the second; its first move has nothing
        // pondered before it.
        let a_times: Vec<f64> =
            games[0].iter().step_by(2).skip(1).chain(games[1].iter().skip(1).step_by(2).skip(1)).copied().collect();
        assert!(a_times.len() >= 8, "{games:?}");
        let slow = a_times.iter().filter(|&&t| t >= 0.25).count();
        if ponder {
            assert_eq!(slow, 0, "every hit answered at once: {a_times:?}");
            // The summary counts the hits (12 plies a game: A's 6 moves, the last pondered
            // search stopped by the ply limit) and the time pondered before each, B's 500 ms.
            let line = stdout.lines().find(|l| l.starts_with("Pondering A: ")).expect("a pondering line");
            assert!(line.starts_with("Pondering A: 10 hits, 0 misses (100.0% hits), "), "{line}");
            let per_hit: f64 = line.split(", ").nth(2).and_then(|s| s.split(' ').next()).unwrap().parse().unwrap();
            assert!((450.0..5000.0).contains(&per_hit), "{line}");
            assert!(!stdout.contains("Pondering B"), "{stdout}");
        } else {
            assert_eq!(slow, a_times.len(), "each move searched: {a_times:?}");
            assert!(!stdout.contains("Pondering"), "{stdout}");
        }
    }
}
