//! `ferz data import` and `ferz data convert` as processes: PGN files with `[%eval]` comments
//! (a Lichess export, the bot's own files) become a dataset that `data stats` verifies and
//! `train` trains on; bad PGN is refused with the file, the game and the move, leaving nothing
//! behind; the dataset reads with bullet's own crate, and `convert --to bullet` writes records
//! bullet's loader reads back.

use std::path::{Path, PathBuf};

use bulletformat::{BulletFormat, ChessBoard, DataLoader, chess::MarlinFormat};
use ferz_chess::{Color, GameResult, Position, Variant};
use ferz_dataset::marlin;
use ferz_tests::{TempDir, run_ferz};

fn test_data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/import").join(name)
}

fn ferz(args: &[&str]) -> (bool, String, String) {
    let out = run_ferz(args);
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn import(out: &Path, files: &[&Path], extra: &[&str]) -> (bool, String, String) {
    let mut args = vec!["data", "import"];
    args.extend(files.iter().map(|f| f.to_str().unwrap()));
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend(extra);
    ferz(&args)
}

fn records(path: &Path) -> Vec<marlin::MarlinRecord> {
    std::fs::read(path)
        .unwrap()
        .chunks_exact(marlin::RECORD_SIZE)
        .map(|c| marlin::decode(c.try_into().unwrap()).unwrap())
        .collect()
}

#[test]
fn imports_lichess_and_bot_games_that_stats_and_train_accept() {
    let dir = TempDir::new("import");
    let data = dir.path().join("data");
    let (ok, stdout, stderr) = import(&data, &[&test_data("lichess.pgn"), &test_data("ferzbot.pgn")], &[]);
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("games 4 "), "{stdout}");
    assert!(stdout.contains("5 games read, 1 without a result and 0 unreadable skipped"), "{stdout}");
    let (ok, stats, stderr) = ferz(&["data", "stats", data.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert!(stats.contains("chess: 2 games, 9 positions"), "{stats}");
    assert!(stats.contains("chess960: 1 games, 4 positions"), "{stats}");
    assert!(stats.contains("shatranj: 1 games, 2 positions"), "{stats}");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(data.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["format"], "ferz-import/1");
    assert_eq!(manifest["sources"][0]["unfinished"], 1);
    assert_eq!(manifest["skipped"]["moves_without_eval"], 6);

    // The Lichess game: the position after each evaluated move, white-relative, 1-0.
    let chess = records(&data.join("chess.marlin"));
    let after_e4 =
        Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", Variant::Chess).unwrap();
    assert_eq!(chess[0].position, after_e4);
    assert_eq!((chess[0].white_score, chess[0].result), (36, GameResult::Win(Color::White)));
    // 3... Nf6?? {#1}: white to move mates in one ply, the search's mate score.
    assert_eq!(chess[5].white_score, 31_999);
    // The bot's game: only its own moves carry evaluations (0.31,12 = 31 cp at depth 12).
    assert_eq!(chess[6..].iter().map(|r| r.white_score).collect::<Vec<_>>(), [31, 28, 30]);
    assert!(chess[6..].iter().all(|r| r.result == GameResult::Draw));
    let c960 = records(&data.join("chess960.marlin"));
    assert_eq!(c960[3].white_score, -31_994, "#-3 with white to move: black mates six plies on");
    assert!(c960.iter().all(|r| r.variant == Variant::Chess960));
    let shatranj = records(&data.join("shatranj.marlin"));
    assert_eq!(shatranj.iter().map(|r| r.white_score).collect::<Vec<_>>(), [-5, -12]);

    // A tiny training run on the imported data.
    let run = dir.path().join("run");
    let (ok, stdout, stderr) = ferz(&[
        "train",
        data.to_str().unwrap(),
        "--out",
        run.to_str().unwrap(),
        "--epochs",
        "1",
        "--hidden",
        "8",
        "--batch-size",
        "4",
        "--threads",
        "1",
    ]);
    assert!(ok, "{stdout}{stderr}");
    assert_eq!(&std::fs::read(run.join("net.nnue")).unwrap()[..8], b"FERZNNUE");

    // A hand-edited game count is refused.
    let text = std::fs::read_to_string(data.join("manifest.json")).unwrap();
    std::fs::write(data.join("manifest.json"), text.replacen("\"imported\": 2", "\"imported\": 3", 1)).unwrap();
    let (ok, _, stderr) = ferz(&["data", "stats", data.to_str().unwrap()]);
    assert!(!ok && stderr.contains("its sources imported 5"), "{stderr}");
}

#[test]
fn imported_mates_score_as_selfplay_records_them() {
    use ferz_dataset::import::Eval;
    use ferz_engine::Score;
    let white = Position::new(Variant::Chess);
    let black =
        Position::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", Variant::Chess).unwrap();
    for pos in [white, black] {
        for n in 1..=40 {
            for white_mates in [true, false] {
                // [%eval #n] is white's view; the search's Score::Mate is the side to move's.
                let eval = Eval::Mate(if white_mates { n } else { -n });
                let mover_mates = white_mates == (pos.turn() == Color::White);
                let score = Score::Mate(if mover_mates { n } else { -n });
                let selfplay = ferz_selfplay::game::white_cp(score, pos.turn());
                assert_eq!(eval.white_cp(&pos), Some(selfplay), "#{n} white mates {white_mates} {}", pos.fen());
            }
        }
    }
}

const GOOD_GAME: &str =
    "[Event \"ok\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 {[%eval 0.3]} e5 1-0\n\n";

#[test]
fn bad_pgn_names_the_file_the_game_and_the_move_and_writes_nothing() {
    let dir = TempDir::new("import-bad");
    let cases = [
        (
            "broken-tag.pgn",
            format!("{GOOD_GAME}[Event \"x\"]\n[White \"cut short]\n\n1. e4 {{[%eval 0.2]}} 1-0\n"),
            "game 2 (line 8",
            "tag [White \"cut short]",
        ),
        (
            "illegal.pgn",
            format!(
                "{GOOD_GAME}[Event \"x\"]\n[White \"carol\"]\n[Black \"dave\"]\n\n1. e4 {{[%eval 0.2]}} e5 2. Ke3 1-0\n"
            ),
            "game 2 (line 8, carol - dave)",
            "move 2. Ke3",
        ),
        (
            "truncated.pgn",
            format!("{GOOD_GAME}[Event \"x\"]\n\n1. e4 {{[%eval 0.2]}} e5 2. Nf3 {{[%ev"),
            "game 2",
            "no result marker",
        ),
        (
            "early-eval.pgn",
            "[Event \"x\"]\n\n{[%eval 0.2]} 1. e4 e5 1-0\n".to_owned(),
            "game 1",
            "before the first move",
        ),
        (
            "bad-eval.pgn",
            "[Event \"x\"]\n\n1. e4 {[%eval +-1]} e5 1-0\n".to_owned(),
            "game 1",
            "move 1. e4: evaluation",
        ),
        (
            "mate-not-mate.pgn",
            "[Event \"x\"]\n\n1. e4 {[%eval #0]} e5 1-0\n".to_owned(),
            "game 1",
            "move 1. e4: a mate on the board",
        ),
        (
            "atomic.pgn",
            "[Event \"x\"]\n[Variant \"Atomic\"]\n\n1. e4 {[%eval 0.2]} 1-0\n".to_owned(),
            "game 1",
            "\"Atomic\"",
        ),
    ];
    for (name, text, game, what) in cases {
        let file = dir.path().join(name);
        std::fs::write(&file, &text).unwrap();
        let out = dir.path().join(format!("out-{name}"));
        let (ok, stdout, stderr) = import(&out, &[&file], &[]);
        assert!(!ok, "{name}: {stdout}");
        assert!(stderr.contains(name) && stderr.contains(game) && stderr.contains(what), "{name}: {stderr}");
        assert!(!out.exists(), "{name}: the failed import left {}", out.display());
    }
    // An existing directory keeps only what it had.
    let out = dir.path().join("existing");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let (ok, ..) = import(&out, &[&dir.path().join("illegal.pgn")], &[]);
    assert!(!ok);
    let left: Vec<_> = std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left, ["notes.txt"]);

    // --skip-bad imports the good game and counts the bad one.
    let skipped = dir.path().join("skipped");
    let (ok, stdout, stderr) = import(&skipped, &[&dir.path().join("illegal.pgn")], &["--skip-bad"]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("skipped") && stderr.contains("move 2. Ke3"), "{stderr}");
    assert!(stdout.contains("0 without a result and 1 unreadable skipped"), "{stdout}");
    let (ok, stats, _) = ferz(&["data", "stats", skipped.to_str().unwrap()]);
    assert!(ok && stats.contains("chess: 1 games, 1 positions"), "{stats}");
}

/// The pieces of a position as bullet's boards list them: side-to-move relative (black to move
/// flips the board and the colours), piece 0..5 with 8 for the opponent's, by square.
fn stm_features(pos: &Position) -> Vec<(u8, u8)> {
    let flip = pos.turn() == Color::Black;
    let board = pos.board();
    let mut features: Vec<(u8, u8)> = board
        .occupied()
        .map(|sq| {
            let piece = board.piece_at(sq).unwrap();
            let theirs = (piece.color == Color::Black) != flip;
            let square = sq.index() as u8 ^ if flip { 56 } else { 0 };
            (piece.role.index() as u8 | if theirs { 8 } else { 0 }, square)
        })
        .collect();
    features.sort_by_key(|f| f.1);
    features
}

#[test]
fn bullet_reads_ferz_datasets_and_converted_files() {
    let dir = TempDir::new("import-bullet");
    let data = dir.path().join("data");
    let (ok, _, stderr) = import(&data, &[&test_data("lichess.pgn"), &test_data("ferzbot.pgn")], &[]);
    assert!(ok, "{stderr}");
    let mut ours = records(&data.join("chess.marlin"));
    ours.extend(records(&data.join("chess960.marlin")));

    // bulletformat's marlinformat loader reads ferz's marlin files as they are.
    let mut theirs = Vec::new();
    for name in ["chess.marlin", "chess960.marlin"] {
        DataLoader::<MarlinFormat>::new(data.join(name), 1).unwrap().map_positions(|p| theirs.push(*p));
    }
    assert_eq!(theirs.len(), ours.len());
    for (record, packed) in ours.iter().zip(&theirs) {
        let stm = if record.position.turn() == Color::White { 1 } else { -1 };
        assert_eq!(i32::from(packed.score()), stm * i32::from(record.white_score));
        let white_result = match record.result {
            GameResult::Win(Color::White) => 1.0,
            GameResult::Draw => 0.5,
            GameResult::Win(Color::Black) => 0.0,
        };
        let stm_result = if stm == 1 { white_result } else { 1.0 - white_result };
        assert!((packed.result() - stm_result).abs() < 1e-6);
        assert_eq!(packed.occ(), record.position.board().occupied().0);
    }

    // convert --to bullet: ChessBoard records that bullet's loader reads back, Shatranj left out.
    let out = dir.path().join("data.bullet");
    let (ok, stdout, stderr) =
        ferz(&["data", "convert", data.to_str().unwrap(), "--to", "bullet", "--out", out.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains(&format!("wrote {} records", ours.len())), "{stdout}");
    assert!(stderr.contains("left out 2 Shatranj records"), "{stderr}");
    let mut boards = Vec::new();
    DataLoader::<ChessBoard>::new(&out, 1).unwrap().map_positions(|b| boards.push(*b));
    assert_eq!(boards.len(), ours.len());
    for (record, board) in ours.iter().zip(&boards) {
        let stm = if record.position.turn() == Color::White { 1 } else { -1 };
        assert_eq!(i32::from(board.score()), stm * i32::from(record.white_score));
        assert_eq!(board.into_iter().collect::<Vec<_>>(), stm_features(&record.position), "{}", record.position.fen());
        let king = record.position.board().king_of(record.position.turn()).unwrap().index() as u8;
        assert_eq!(board.our_ksq(), if stm == 1 { king } else { king ^ 56 });
    }
    // bullet's own conversion of its marlinformat records agrees with ferz's boards except for
    // rooks that carry castling rights: bulletformat 1.8 turns marlinformat's code 6 into a
    // bishop (2), where ferz's convert writes the rook (3) the position has.
    let mut castling_rooks = 0;
    for ((packed, board), record) in theirs.iter().zip(&boards).zip(&ours) {
        let bullets_own = ChessBoard::from(*packed);
        assert_eq!((bullets_own.score(), bullets_own.occ()), (board.score(), board.occ()));
        let flip = if record.position.turn() == Color::Black { 56 } else { 0 };
        let rights: Vec<u8> = record.position.castling_rooks().map(|sq| sq.index() as u8 ^ flip).collect();
        for ((own, square), (ferz, _)) in bullets_own.into_iter().zip(*board) {
            if rights.contains(&square) {
                assert_eq!((own & 7, ferz & 7), (2, 3));
                castling_rooks += 1;
            } else {
                assert_eq!(own, ferz);
            }
        }
    }
    assert!(castling_rooks > 0);
}

/// A position a chain's move is played from: marlinformat bytes 0..24 (occupancy and pieces),
/// black to move, and the move's evaluation.
type ChainPosition = ([u8; 24], bool, i16);
/// A chain's positions and its result (0 black won, 1 draw, 2 white won).
type Chain = (Vec<ChainPosition>, u8);

/// The chains of a viriformat file: per game each position played from (its marlinformat
/// occupancy and pieces, bytes 0..24, and side to move) with its evaluation, and the result.
fn read_chains(path: &Path) -> Vec<Chain> {
    let bytes = std::fs::read(path).unwrap();
    let mut reader = std::io::BufReader::new(bytes.as_slice());
    let mut games = Vec::new();
    while !std::io::BufRead::fill_buf(&mut reader).unwrap().is_empty() {
        let game = viriformat::dataformat::Game::deserialise_from(&mut reader, Vec::new()).unwrap();
        let mut positions = Vec::new();
        game.visit_positions(|board, eval| {
            let packed = board.to_marlinformat(0, 0, 0).as_bytes();
            positions.push((packed[..24].try_into().unwrap(), packed[24] & 0x80 != 0, eval as i16));
        });
        let wdl = match game.outcome() {
            viriformat::dataformat::WDL::Win => 2,
            viriformat::dataformat::WDL::Draw => 1,
            viriformat::dataformat::WDL::Loss => 0,
        };
        games.push((positions, wdl));
    }
    games
}

/// How many marlin records of `marlin_path` are positions of some chain with the same
/// evaluation and result, and how many are not.
fn records_in_chains(marlin_path: &Path, chains: &[Chain]) -> (usize, usize) {
    let bytes = std::fs::read(marlin_path).unwrap();
    let (mut found, mut missing) = (0, 0);
    for record in bytes.chunks_exact(32) {
        let key: [u8; 24] = record[..24].try_into().unwrap();
        let black = record[24] & 0x80 != 0;
        let score = i16::from_le_bytes([record[28], record[29]]);
        let hit = chains.iter().any(|(positions, wdl)| {
            *wdl == record[30] && positions.iter().any(|&(k, b, e)| k == key && b == black && e == score)
        });
        if hit {
            found += 1;
        } else {
            missing += 1;
        }
    }
    (found, missing)
}

#[test]
fn viriformat_chains_hold_imported_games() {
    let dir = TempDir::new("import-viri");
    let data = dir.path().join("data");
    let (ok, _, stderr) = import(&data, &[&test_data("lichess.pgn"), &test_data("ferzbot.pgn")], &[]);
    assert!(ok, "{stderr}");
    let out = dir.path().join("data.viri");
    let (ok, stdout, stderr) =
        ferz(&["data", "convert", data.to_str().unwrap(), "--to", "viriformat", "--out", out.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    assert!(stderr.contains("left out 1 Shatranj games"), "{stderr}");
    assert!(stdout.contains("wrote 17 moves"), "{stdout}");
    let chains = read_chains(&out);
    assert_eq!(chains.len(), 3);
    // The Lichess game: the first move has no evaluation; 3... Nf6?? is played from the
    // position 3. Qh5 {-0.3} scores.
    let lichess: Vec<i16> = chains[0].0.iter().map(|p| p.2).collect();
    assert_eq!(lichess, [i16::MAX, 36, 25, 10, 20, -30, 31_999]);
    assert_eq!(chains[0].1, 2);
    // Every record is a position of a chain, but for an evaluation after a game's last move (no
    // move is played from it): the Chess960 game's 10... Ne7 {#-3} (with castling rights as
    // viriformat reads them); in both chess games a move follows the last evaluation.
    assert_eq!(records_in_chains(&data.join("chess960.marlin"), &chains), (3, 1));
    assert_eq!(records_in_chains(&data.join("chess.marlin"), &chains), (9, 0));
}

const SELFPLAY: &str = r#"
[run]
games = 4
threads = 1
seed = 5

[variants]
chess = 1
chess960 = 1

[search]
nodes = 200
hash_mb = 1

[opening]
multipv_plies = 0
random_plies = 4

[filter]
min_ply = 4

[cache]
enabled = false
"#;

#[test]
fn viriformat_chains_hold_selfplay_records() {
    let dir = TempDir::new("selfplay-viri");
    let settings = dir.path().join("selfplay.toml");
    std::fs::write(&settings, SELFPLAY).unwrap();
    let data = dir.path().join("data");
    let (ok, _, stderr) = ferz(&["selfplay", "--config", settings.to_str().unwrap(), "--out", data.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let shard = data.join("shard-00000");
    let out = dir.path().join("shard.viri");
    let (ok, _, stderr) =
        ferz(&["data", "convert", shard.to_str().unwrap(), "--to", "viriformat", "--out", out.to_str().unwrap()]);
    assert!(ok, "{stderr}");
    let chains = read_chains(&out);
    assert_eq!(chains.len(), 4);
    // Self-play records are positions moves were searched from: all are in the chains.
    let mut records = 0;
    for name in ["chess.marlin", "chess960.marlin"] {
        let (found, missing) = records_in_chains(&shard.join(name), &chains);
        assert_eq!(missing, 0, "{name}");
        records += found;
    }
    assert!(records > 0);
    let (ok, _, stderr) =
        ferz(&["data", "convert", shard.to_str().unwrap(), "--to", "bullet", "--out", out.to_str().unwrap()]);
    assert!(ok, "{stderr}");
}
