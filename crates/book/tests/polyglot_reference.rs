//! ferz's Polyglot keys and book reader against python-chess's `chess.polyglot`, the reference
//! implementation, through `scripts/polyglot-oracle.py`: keys of random chess and Chess960
//! positions (castling rights in every state, en passant legal and illegal), and the book moves
//! Debian's real book (`gnuchess-book`) holds for thousands of positions. Skipped, with a
//! message, where python-chess or the book is not installed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use ferz_book::polyglot::{PolyglotBook, game_key, polyglot_key};
use ferz_chess::{Game, Position, Role, SplitMix64, Variant};

/// Where Debian's gnuchess-book package installs its Polyglot book.
const GNUCHESS_BOOK: &str = "/usr/share/games/gnuchess/book.bin";

fn oracle_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/polyglot-oracle.py")
}

fn python_chess_available() -> bool {
    let found = Command::new("python3")
        .args(["-c", "import chess.polyglot"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        ferz_testserver::oracle::missing("python3 with python-chess (`import chess.polyglot`) is not available");
    }
    found
}

/// A game as the oracle reads it: variant, start FEN, moves.
fn oracle_line(game: &Game) -> String {
    let variant = if game.start().variant() == Variant::Chess960 { "chess960" } else { "chess" };
    let mut pos = *game.start();
    let mut moves = Vec::new();
    for &m in game.moves() {
        moves.push(pos.uci(m));
        pos.play_unchecked(m);
    }
    format!("{variant}|{}|{}", game.start().fen(), moves.join(" "))
}

/// The oracle's answer for every game: key and `move:weight:learn` entries.
fn ask_oracle(book: &str, games: &[Game]) -> Vec<(u64, Vec<String>)> {
    let input: String = games.iter().map(|g| oracle_line(g) + "\n").collect();
    let mut child = Command::new("python3")
        .arg(oracle_script())
        .arg(book)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start scripts/polyglot-oracle.py");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("oracle output");
    writer.join().expect("writer").expect("write games to the oracle");
    assert!(out.status.success(), "the oracle failed");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let answers: Vec<(u64, Vec<String>)> = text
        .lines()
        .map(|line| {
            let mut fields = line.split(' ');
            let key = u64::from_str_radix(fields.next().expect("key"), 16).expect("hex key");
            (key, fields.map(str::to_owned).collect())
        })
        .collect();
    assert_eq!(answers.len(), games.len(), "one answer per game");
    answers
}

/// A random game of up to `max_plies` plies from `start`.
fn random_game(start: Position, rng: &mut SplitMix64, max_plies: usize) -> Game {
    let mut game = Game::new(start);
    let plies = rng.index(max_plies + 1);
    for _ in 0..plies {
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            break;
        }
        game.play(moves[rng.index(moves.len())]).expect("legal");
    }
    game
}

/// Every position of a random game of up to `max_plies` plies that mostly moves pawns, so that
/// they meet: many en passant positions.
fn pawn_game(rng: &mut SplitMix64, max_plies: usize) -> Vec<Game> {
    let mut game = Game::new(Position::new(Variant::Chess));
    let mut positions = Vec::new();
    for _ in 0..rng.index(max_plies + 1) {
        let moves = game.position().legal_moves();
        if moves.is_empty() {
            break;
        }
        let pos = game.position();
        let pawn_moves: Vec<_> =
            moves.iter().filter(|m| pos.piece_at(m.from()).is_some_and(|p| p.role == Role::Pawn)).copied().collect();
        let m = if pawn_moves.is_empty() || rng.index(4) == 0 {
            moves[rng.index(moves.len())]
        } else {
            pawn_moves[rng.index(pawn_moves.len())]
        };
        game.play(m).expect("legal");
        positions.push(game.clone());
    }
    positions
}

/// Games ending right after a double push beside an enemy pawn whose capture is illegal.
fn illegal_en_passant_games() -> Vec<Game> {
    [
        // The capturer is pinned along its rank (both pawns would leave it).
        ("8/8/8/8/k3p2R/8/3P4/4K3 w - - 0 1", "d2d4"),
        // The capturer is pinned on a diagonal.
        ("B7/8/8/8/4p3/8/3P4/K6k w - - 0 1", "d2d4"),
        // The double push uncovers a check the capture does not answer.
        ("8/8/8/k7/4p3/8/3P4/4B1K1 w - - 0 1", "d2d4"),
        // Black pushes; White's capturer is pinned on its file.
        ("4r2k/5p2/8/4P3/8/8/8/4K3 b - - 0 1", "f7f5"),
    ]
    .into_iter()
    .map(|(fen, moves)| {
        let mut game = Game::new(Position::from_fen(fen, Variant::Chess).expect("fen"));
        for uci in moves.split(' ') {
            game.play_uci(uci).unwrap_or_else(|e| panic!("{fen} {uci}: {e}"));
        }
        game
    })
    .collect()
}

#[test]
fn keys_match_python_chess() {
    if !python_chess_available() {
        return;
    }
    let mut rng = SplitMix64::new(0x9011_6107);
    let mut games = illegal_en_passant_games();
    for i in 0..300 {
        games.push(random_game(Position::new(Variant::Chess), &mut rng, 80));
        // Chess960 arrays: castling with the rooks anywhere.
        let array = Position::chess960((i * 7 + 3) % 960).expect("0..960");
        games.push(random_game(array, &mut rng, 40));
        games.extend(pawn_game(&mut rng, 24));
    }
    // Every position of a few long games too: castling rights lost one by one.
    for _ in 0..20 {
        let long = random_game(Position::new(Variant::Chess), &mut rng, 120);
        for n in 0..=long.moves().len() {
            let mut prefix = Game::new(*long.start());
            for &m in &long.moves()[..n] {
                prefix.play(m).expect("legal");
            }
            games.push(prefix);
        }
    }
    let answers = ask_oracle("-", &games);
    let (mut en_passant, mut illegal_en_passant, mut castling) = (0, 0, 0);
    for (game, (key, _)) in games.iter().zip(&answers) {
        assert_eq!(game_key(game), *key, "key of {}", oracle_line(game));
        en_passant += usize::from(game.position().ep_square().is_some());
        illegal_en_passant += usize::from(polyglot_key(game.position()) != *key);
        castling += usize::from(game.position().castling_rooks().is_nonempty());
    }
    println!(
        "{} keys equal python-chess's ({en_passant} with a legal en passant capture, {illegal_en_passant} with an illegal one, {castling} with castling rights)",
        games.len()
    );
    assert!(en_passant >= 20 && illegal_en_passant >= 4 && castling >= 300, "the positions cover the cases");
}

#[test]
fn book_moves_match_python_chess_on_the_gnuchess_book() {
    if !Path::new(GNUCHESS_BOOK).exists() {
        ferz_testserver::oracle::missing(&format!("{GNUCHESS_BOOK} is absent (Debian package gnuchess-book)"));
        return;
    }
    if !python_chess_available() {
        return;
    }
    let book = PolyglotBook::open(Path::new(GNUCHESS_BOOK)).expect("open the gnuchess book");
    let mut rng = SplitMix64::new(0x600C_4E55);
    let mut games = vec![Game::new(Position::new(Variant::Chess))];
    // Walks along book lines, every position kept: the positions the book knows.
    for _ in 0..150 {
        let mut game = Game::new(Position::new(Variant::Chess));
        loop {
            games.push(game.clone());
            let moves = book.moves(&game);
            if moves.is_empty() || game.moves().len() >= 40 {
                break;
            }
            game.play(moves[rng.index(moves.len())].mv).expect("book moves are legal");
        }
    }
    // Random games: mostly out of book, some transpositions back into it.
    for _ in 0..1500 {
        games.push(random_game(Position::new(Variant::Chess), &mut rng, 12));
    }
    let answers = ask_oracle(GNUCHESS_BOOK, &games);
    let mut in_book = 0;
    let mut entries = 0;
    for (game, (key, expected)) in games.iter().zip(&answers) {
        assert_eq!(game_key(game), *key, "key of {}", oracle_line(game));
        let pos = game.position();
        let ours: Vec<String> =
            book.moves(game).iter().map(|b| format!("{}:{}:{}", pos.uci(b.mv), b.weight, b.learn)).collect();
        assert_eq!(&ours, expected, "book moves of {}", oracle_line(game));
        in_book += usize::from(!ours.is_empty());
        entries += ours.len();
    }
    println!(
        "{} positions ({in_book} in the book, {entries} entries) read as python-chess reads them from {GNUCHESS_BOOK} ({} entries)",
        games.len(),
        book.len()
    );
    assert!(in_book >= 1000, "the walks stay in the book");
}

/// Benchmark (run on demand, optimised): opening the gnuchess book memory-mapped against
/// reading it into memory, and the time per lookup (key, binary search, legal-move decoding)
/// over positions in and out of the book.
/// `cargo test --release -p ferz-book --test polyglot_reference bench -- --ignored --nocapture`
#[test]
#[ignore = "benchmark; run on demand"]
fn bench_gnuchess_lookups() {
    use std::time::Instant;
    let path = Path::new(GNUCHESS_BOOK);
    if !path.exists() {
        eprintln!("skipped: {GNUCHESS_BOOK} is absent (Debian package gnuchess-book)");
        return;
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[v.len() / 2], v[v.len() * 99 / 100])
    };
    let mut open_map = Vec::new();
    let mut open_read = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        let book = PolyglotBook::open(path).expect("open");
        open_map.push(t.elapsed().as_secs_f64() * 1e3);
        drop(book);
        // The alternative: the whole file on the heap, checked the same way.
        let t = Instant::now();
        let bytes = std::fs::read(path).expect("read");
        let sorted = bytes.chunks_exact(16).map(|c| u64::from_be_bytes(c[..8].try_into().unwrap())).is_sorted();
        assert!(sorted);
        open_read.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let book = PolyglotBook::open(path).expect("open");
    let mut rng = SplitMix64::new(5);
    let mut games = Vec::new();
    for _ in 0..300 {
        let mut game = Game::new(Position::new(Variant::Chess));
        loop {
            games.push(game.clone());
            let moves = book.moves(&game);
            if moves.is_empty() || game.moves().len() >= 30 {
                break;
            }
            game.play(moves[rng.index(moves.len())].mv).expect("legal");
        }
        games.push(random_game(Position::new(Variant::Chess), &mut rng, 40));
    }
    let (mut hit, mut miss) = (Vec::new(), Vec::new());
    for _ in 0..5 {
        for game in &games {
            let t = Instant::now();
            let found = std::hint::black_box(book.moves(std::hint::black_box(game)));
            let us = t.elapsed().as_secs_f64() * 1e6;
            if found.is_empty() { miss.push(us) } else { hit.push(us) }
        }
    }
    let (open_map, open_map99) = median(open_map);
    let (open_read, open_read99) = median(open_read);
    let (hit_n, miss_n) = (hit.len(), miss.len());
    let ((hit_med, hit99), (miss_med, miss99)) = (median(hit), median(miss));
    println!(
        "gnuchess book ({} entries): open+check mmap median {open_map:.2} ms (p99 {open_map99:.2}), read into memory median {open_read:.2} ms (p99 {open_read99:.2})",
        book.len()
    );
    println!(
        "lookup in book: median {hit_med:.2} us, p99 {hit99:.2} us ({hit_n} lookups); out of book: median {miss_med:.2} us, p99 {miss99:.2} us ({miss_n} lookups)"
    );
}
