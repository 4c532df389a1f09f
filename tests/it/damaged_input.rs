//! Every reader of a file a user hands ferz, fed damaged copies of a good file: bytes deleted,
//! inserted, overwritten, repeated or cut off. Each must answer with a value or an error and never
//! panic, and the dataset importer must leave nothing behind when it refuses a file. Checksummed
//! binary files (nets) are also tried with the checksum made right again, so that the damage
//! reaches the checks behind it.

use std::path::Path;

use ferz_chess::{Game, Position, ShatranjArray, Variant};
use ferz_chess::{SuiteFormat, parse_suite};
use ferz_tests::TempDir;
use proptest::prelude::*;

/// One change to a file's bytes; offsets and lengths are taken modulo the file's length.
#[derive(Clone, Debug)]
enum Edit {
    Delete { at: usize, len: usize },
    Insert { at: usize, bytes: Vec<u8> },
    Overwrite { at: usize, bytes: Vec<u8> },
    Repeat { at: usize, len: usize },
    Cut { at: usize },
}

/// Text that the readers give a meaning to, so that insertions reach past the first check.
const TOKENS: &[&str] = &[
    ",",
    ";",
    " ",
    "\n",
    "\r\n",
    "#",
    "-",
    "+",
    "=",
    ".",
    "/",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    "\"",
    "%eval",
    "#-3",
    "0",
    "1",
    "-1",
    "99999999999999999999",
    "1e308",
    "NaN",
    "inf",
    "int",
    "float",
    "1-0",
    "0-1",
    "1/2-1/2",
    "*",
    "O-O",
    "O-O-O",
    "e8=Q",
    "Nf3",
    "e2e4",
    "a7a8q",
    "0000",
    "K",
    "k",
    "8",
    "w",
    "b",
    "KQkq",
    "HFhf",
    "perft",
    "epd",
    "id",
    "D1",
    "fen",
    "startpos",
    "[FEN \"",
    "[SetUp \"1\"]",
    "[Variant \"Chess960\"]",
    "$1",
    "...",
    "é",
    "\u{0}",
    "score",
    "cp",
    "mate",
    "pv",
    "depth",
    "multipv",
    "nodes",
    "bestmove",
    "ponder",
];

fn edit() -> impl Strategy<Value = Edit> {
    let bytes = prop_oneof![
        prop::collection::vec(any::<u8>(), 1..12),
        prop::sample::select(TOKENS).prop_map(|t| t.as_bytes().to_vec()),
    ];
    prop_oneof![
        (any::<usize>(), 1usize..64).prop_map(|(at, len)| Edit::Delete { at, len }),
        (any::<usize>(), bytes.clone()).prop_map(|(at, bytes)| Edit::Insert { at, bytes }),
        (any::<usize>(), bytes).prop_map(|(at, bytes)| Edit::Overwrite { at, bytes }),
        (any::<usize>(), 1usize..64).prop_map(|(at, len)| Edit::Repeat { at, len }),
        any::<usize>().prop_map(|at| Edit::Cut { at }),
    ]
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(edit(), 1..5)
}

/// `good` with `edits` applied in order.
fn damage(good: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut bytes = good.to_vec();
    for edit in edits {
        let spot = |at: usize, len: usize| at % (len + 1);
        let n = bytes.len();
        match edit {
            Edit::Delete { at, len } => {
                let start = spot(*at, n);
                bytes.drain(start..(start + len).min(n));
            }
            Edit::Insert { at, bytes: new } => {
                let start = spot(*at, n);
                bytes.splice(start..start, new.iter().copied());
            }
            Edit::Overwrite { at, bytes: new } => {
                let start = spot(*at, n);
                for (i, b) in new.iter().enumerate() {
                    if let Some(slot) = bytes.get_mut(start + i) {
                        *slot = *b;
                    }
                }
            }
            Edit::Repeat { at, len } => {
                let start = spot(*at, n);
                let copy = bytes[start..(start + len).min(n)].to_vec();
                bytes.splice(start..start, copy);
            }
            Edit::Cut { at } => bytes.truncate(spot(*at, n)),
        }
    }
    bytes
}

/// Values a JSON file's fields are replaced with: each kind the readers must refuse or bear.
const ODD_VALUES: &[&str] = &[
    "null",
    "-1",
    "0",
    "1",
    "4294967296",
    "1e300",
    "-1e300",
    "0.5",
    "\"\"",
    "\"x\"",
    "[]",
    "{}",
    "true",
    "[0]",
    "\"accept-h1\"",
    "\"ferz-loop-ledger/1\"",
];

/// A change to one value of a JSON file: replaced (`Some`, an index into [`ODD_VALUES`]) or
/// removed from its object or array (`None`); `at` picks the value among all of them.
fn value_edits() -> impl Strategy<Value = Vec<(usize, Option<usize>)>> {
    prop::collection::vec((any::<usize>(), prop::option::of(0..ODD_VALUES.len())), 1..4)
}

/// `good` (JSON) with `edits` made to its values, written out again: the file still parses, so
/// the damage reaches the meaning of the fields.
fn damage_values(good: &str, edits: &[(usize, Option<usize>)]) -> String {
    fn pointers(value: &serde_json::Value, at: String, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => map.iter().for_each(|(k, v)| pointers(v, format!("{at}/{k}"), out)),
            serde_json::Value::Array(items) => {
                items.iter().enumerate().for_each(|(i, v)| pointers(v, format!("{at}/{i}"), out))
            }
            _ => {}
        }
        out.push(at);
    }
    let mut json: serde_json::Value = serde_json::from_str(good).unwrap();
    for &(at, replacement) in edits {
        let mut all = Vec::new();
        pointers(&json, String::new(), &mut all);
        let pointer = &all[at % all.len()];
        match replacement {
            Some(odd) => *json.pointer_mut(pointer).unwrap() = serde_json::from_str(ODD_VALUES[odd]).unwrap(),
            None => {
                let Some((parent, last)) = pointer.rsplit_once('/') else { continue };
                match json.pointer_mut(parent) {
                    Some(serde_json::Value::Object(map)) => drop(map.remove(last)),
                    Some(serde_json::Value::Array(items)) => drop(items.remove(last.parse::<usize>().unwrap())),
                    _ => {}
                }
            }
        }
    }
    serde_json::to_string_pretty(&json).unwrap()
}

fn damaged_text(good: &str, edits: &[Edit]) -> String {
    String::from_utf8_lossy(&damage(good.as_bytes(), edits)).into_owned()
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

const SPSA_PARAMS: &str = include_str!("../../docs/spsa-runs/search.params");
const IMPORT_PGN: &str = include_str!("../data/import/lichess.pgn");
const TRICKY_PERFT: &str = include_str!("../../crates/chess/tests/data/tricky.perft");
const CHESS960_CSV: &str = include_str!("../../crates/chess/tests/data/chess960-startpos.csv");
/// Each settings file as shipped, with how its values are checked after reading.
const SETTINGS_FILES: &[(&str, &str)] = &[
    ("bot.toml", include_str!("../../config/bot.toml")),
    ("loop.toml", include_str!("../../config/loop.toml")),
    ("selfplay.toml", include_str!("../../config/selfplay.toml")),
    ("spsa.toml", include_str!("../../config/spsa.toml")),
    ("train.toml", include_str!("../../config/train.toml")),
];

const EPD_BOOK: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1\n\
    r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - bm e2a6; id \"kiwipete\";\n\
    bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\n";

const UCI_LINES: &str = "info depth 12 seldepth 18 multipv 1 score cp 35 lowerbound nodes 123456 nps 1000000 \
    hashfull 12 tbhits 0 time 123 pv e2e4 e7e5 g1f3\ninfo depth 3 score mate -2 pv a7a8q\n\
    info string NNUE evaluation using chess.nnue\nbestmove e2e4 ponder e7e5\nbestmove (none)\n";

/// Reads `path` as `T`'s settings file and, if it reads, runs the settings' own checks (which
/// may refuse a value but must not panic); the error when the file does not read as settings.
fn settings_error<T>(path: &Path, check: impl Fn(&T)) -> Option<String>
where
    T: serde::de::DeserializeOwned + serde::Serialize + Default,
{
    match ferz_settings::load::<T>(Some(path), path, &Default::default()) {
        Err(error) => Some(error.to_string()),
        Ok((config, _)) => {
            check(&config);
            None
        }
    }
}

/// The net file with its trailing CRC-32 recomputed, so that damage meets the checks behind it.
fn with_checksum_mended(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() >= 4 {
        let body = bytes.len() - 4;
        let crc = crc32fast::hash(&bytes[..body]);
        bytes[body..].copy_from_slice(&crc.to_le_bytes());
    }
    bytes
}

/// Every position of a short game in each variant: what the net and the book are asked about.
fn probe_positions() -> Vec<Position> {
    let mut positions = Vec::new();
    for (start, moves) in [
        (Position::new(Variant::Chess), &["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"][..]),
        (Position::shatranj(ShatranjArray::KingOnE), &["e2e3", "e7e6", "b1c3"][..]),
    ] {
        let mut game = Game::new(start);
        positions.push(*game.position());
        for text in moves {
            let m = game.position().parse_uci(text).expect("a legal move");
            game.play(m).expect("a legal move");
            positions.push(*game.position());
        }
    }
    positions
}

proptest! {
    #![proptest_config(config(1024))]

    #[test]
    fn spsa_parameter_files(edits in edits()) {
        let text = damaged_text(SPSA_PARAMS, &edits);
        if let Err(error) = ferz_spsa::parse_openbench(&text, "search.params") {
            prop_assert!(error.to_string().starts_with("search.params line"), "{error}");
        }
    }

    #[test]
    fn epd_and_pgn_opening_books(edits in edits()) {
        let epd = damaged_text(EPD_BOOK, &edits);
        let pgn = damaged_text(IMPORT_PGN, &edits);
        for variant in [Variant::Chess, Variant::Chess960, Variant::Shatranj] {
            let _ = ferz_book::openings::parse_epd(&epd, variant);
            if let Ok(book) = ferz_book::openings::parse_pgn_book(&pgn, variant, Some(16)) {
                for opening in book {
                    let _ = opening.exit_position();
                }
            }
        }
    }

    #[test]
    fn perft_suites(edits in edits()) {
        let _ = parse_suite(&damaged_text(TRICKY_PERFT, &edits), SuiteFormat::Perft);
        let csv: String = CHESS960_CSV.lines().take(8).collect::<Vec<_>>().join("\n");
        let _ = parse_suite(&damaged_text(&csv, &edits), SuiteFormat::Csv);
        let epd = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - ;D1 48 ;D2 2039\n";
        let _ = parse_suite(&damaged_text(epd, &edits), SuiteFormat::Epd);
        let pipe = "startpos|3|8902|false\nfen 8/8/8/8/8/2k5/8/KQ6 w - - 0 1|1|21|false\n";
        let _ = parse_suite(&damaged_text(pipe, &edits), SuiteFormat::Pipe);
    }

    #[test]
    fn lines_from_a_uci_engine(edits in edits()) {
        for line in damaged_text(UCI_LINES, &edits).lines() {
            let _ = ferz_uci::parse_info(line);
            let _ = ferz_uci::parse_bestmove(line);
        }
    }

    #[test]
    fn settings_files(edits in edits(), which in 0..SETTINGS_FILES.len()) {
        let (name, good) = SETTINGS_FILES[which];
        let dir = TempDir::new("damaged-settings");
        let path = dir.path().join(name);
        std::fs::write(&path, damage(good.as_bytes(), &edits)).unwrap();
        let error = match name {
            "bot.toml" => settings_error::<ferz_bot::BotConfig>(&path, |c| drop(c.validate())),
            "loop.toml" => settings_error::<ferz_loop::LoopConfig>(&path, |c| drop(c.validate())),
            "selfplay.toml" => settings_error::<ferz_selfplay::SelfplayConfig>(&path, |c| drop(c.validate())),
            "spsa.toml" => settings_error::<ferz_spsa::SpsaConfig>(&path, |c| drop(c.validate())),
            _ => settings_error::<ferz_train::TrainConfig>(&path, |c| drop(c.validate())),
        };
        if let Some(error) = error {
            prop_assert!(error.contains(name), "{error}");
        }
    }
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn pgn_files_to_import_are_read_whole_or_not_at_all(edits in edits(), skip_bad in any::<bool>()) {
        let dir = TempDir::new("damaged-import");
        let input = dir.path().join("games.pgn");
        std::fs::write(&input, damage(IMPORT_PGN.as_bytes(), &edits)).unwrap();
        let out = dir.path().join("out");
        let options = ferz_dataset::import::ImportOptions { skip_bad };
        match ferz_dataset::import::import(&out, std::slice::from_ref(&input), options) {
            Ok(report) => prop_assert!(out.join("manifest.json").is_file(), "{report:?}"),
            Err(error) => {
                prop_assert!(error.to_string().contains("games.pgn") || error.to_string().contains("no position"), "{error}");
                let left: Vec<_> = std::fs::read_dir(&out).map(|d| d.flatten().map(|e| e.file_name()).collect()).unwrap_or_default();
                prop_assert!(left.is_empty(), "a refused import left {left:?}");
            }
        }
    }

    #[test]
    fn a_damaged_dataset_is_refused_or_reads_as_it_was(edits in edits(), which in 0usize..4) {
        let dir = TempDir::new("damaged-dataset");
        let input = dir.path().join("games.pgn");
        std::fs::write(&input, IMPORT_PGN).unwrap();
        let dataset = dir.path().join("dataset");
        ferz_dataset::import::import(&dataset, &[input], ferz_dataset::import::ImportOptions { skip_bad: false }).unwrap();
        let target = ferz_dataset::convert::Target::Bullet;
        let as_imported = dir.path().join("as-imported");
        ferz_dataset::convert::convert(&dataset, target, &as_imported).unwrap();
        let name = ["chess.marlin", "chess960.marlin", "games.pgn", "manifest.json"][which];
        let good = std::fs::read(dataset.join(name)).unwrap();
        let bad = damage(&good, &edits);
        prop_assume!(bad != good);
        std::fs::write(dataset.join(name), &bad).unwrap();
        let converted = dir.path().join("bullet");
        if ferz_dataset::verify::open_verified(&dataset).is_ok() {
            // Only the manifest's provenance (where the games came from, when) may change
            // unnoticed, and then every record reads as before.
            prop_assert_eq!(name, "manifest.json", "{} damaged, yet verified", name);
            ferz_dataset::convert::convert(&dataset, target, &converted).unwrap();
            prop_assert!(std::fs::read(&converted).unwrap() == std::fs::read(&as_imported).unwrap());
        } else {
            prop_assert!(ferz_dataset::convert::convert(&dataset, target, &converted).is_err());
            prop_assert!(!converted.exists(), "a refused conversion left {}", converted.display());
        }
    }

    #[test]
    fn polyglot_books(edits in edits()) {
        let dir = TempDir::new("damaged-polyglot");
        let path = dir.path().join("book.bin");
        let positions = probe_positions();
        let mut entries: Vec<_> = positions
            .iter()
            .filter(|p| p.variant() == Variant::Chess)
            .flat_map(|p| p.legal_moves().into_iter().take(3).map(move |m| (p, m)))
            .enumerate()
            .map(|(i, (p, m))| ferz_book::polyglot::Entry {
                key: ferz_book::polyglot::polyglot_key(p),
                raw_move: ferz_book::polyglot::polyglot_move(m),
                weight: i as u16 + 1,
                learn: 0,
            })
            .collect();
        ferz_book::polyglot::write_book(&path, &mut entries).unwrap();
        let good = std::fs::read(&path).unwrap();
        std::fs::write(&path, damage(&good, &edits)).unwrap();
        if let Ok(book) = ferz_book::polyglot::PolyglotBook::open(&path) {
            for position in positions.iter().filter(|p| p.variant() == Variant::Chess) {
                for found in book.moves(&Game::new(*position)) {
                    prop_assert!(position.is_legal(found.mv), "{found:?}");
                }
            }
        }
    }

    #[test]
    fn net_files(edits in edits(), mend in any::<bool>()) {
        let good = include_bytes!("../../crates/nnue/nets/shatranj.nnue");
        let mut bytes = damage(good, &edits);
        if mend {
            bytes = with_checksum_mended(bytes);
        }
        if let Ok(net) = ferz_nnue::format::parse(&bytes, None) {
            for position in probe_positions() {
                let mut acc = ferz_nnue::Accumulator::new(&net);
                acc.refresh(&net, &position);
                let _ = ferz_nnue::evaluate(&net, &acc, &position);
            }
        }
    }
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn syzygy_tables(edits in edits(), dtz in any::<bool>()) {
        let tables = Path::new(env!("CARGO_MANIFEST_DIR")).join("../crates/syzygy/tests/data/syzygy");
        let dir = TempDir::new("damaged-syzygy");
        let name = if dtz { "KRvK.rtbz" } else { "KRvK.rtbw" };
        for file in ["KRvK.rtbw", "KRvK.rtbz"] {
            std::fs::copy(tables.join(file), dir.path().join(file)).unwrap();
        }
        let good = std::fs::read(tables.join(name)).unwrap();
        std::fs::write(dir.path().join(name), damage(&good, &edits)).unwrap();
        if let Ok(tablebases) = ferz_syzygy::Tablebases::open(&[dir.path()]) {
            for fen in ["8/8/8/8/8/2k5/8/KR6 w - - 0 1", "8/8/8/8/8/2k5/8/KR6 b - - 0 1", "k7/8/1K6/8/8/8/8/7R w - - 0 1"] {
                let position = Position::from_fen(fen, Variant::Chess).unwrap();
                let _ = tablebases.probe_wdl(&position);
                let _ = tablebases.probe_dtz(&position);
            }
        }
    }
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn opening_caches(edits in edits(), which in 0usize..3) {
        let dir = TempDir::new("damaged-cache");
        let path = dir.path().join("cache");
        let positions = probe_positions();
        {
            let cache = ferz_book::cache::OpeningCache::open(&path).unwrap();
            for position in &positions {
                let candidates: Vec<_> = position.legal_moves().into_iter().take(4).map(|m| (m, 10)).collect();
                cache.record_search(position, 8, &candidates).unwrap();
            }
            cache.flush().unwrap();
        }
        let mut files: Vec<_> = walk(&path);
        files.sort();
        let file = &files[which % files.len()];
        let good = std::fs::read(file).unwrap();
        std::fs::write(file, damage(&good, &edits)).unwrap();
        if let Ok(cache) = ferz_book::cache::OpeningCache::open(&path) {
            for position in &positions {
                let _ = cache.get(position.variant(), position.key());
            }
            for entry in cache.entries() {
                let _ = entry;
            }
        }
    }
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() { files.extend(walk(&path)) } else { files.push(path) }
    }
    files
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn loop_ledgers(edits in edits(), values in value_edits(), by_value in any::<bool>()) {
        let good = include_str!("../../docs/loops/shatranj/ledger.json");
        let dir = TempDir::new("damaged-ledger");
        let bad = if by_value { damage_values(good, &values).into_bytes() } else { damage(good.as_bytes(), &edits) };
        std::fs::write(dir.path().join("ledger.json"), bad).unwrap();
        match ferz_loop::Ledger::load_existing(dir.path()) {
            Ok(ledger) => {
                let _ = ferz_loop::report::markdown(&ledger);
                let _ = ferz_loop::report::write(dir.path(), &ledger);
                let _ = ferz_loop::status::status(dir.path()).map(|s| s.to_string());
            }
            Err(error) => prop_assert!(error.to_string().contains("ledger.json"), "{error}"),
        }
    }
}

/// Values no run writes but a hand-edited ledger may hold, each of which once stopped the
/// report: an interval bound of 1e300 (plotters searched its tick marks for ever) and an epoch
/// number past `i32` pixels (the drawing overflowed).
#[test]
fn a_ledger_with_far_values_still_gets_its_report() {
    let good: serde_json::Value = serde_json::from_str(include_str!("../../docs/loops/shatranj/ledger.json")).unwrap();
    for (pointer, far) in [
        ("/generations/2/gate/elo_low", serde_json::json!(1e300)),
        ("/generations/0/gate/elo", serde_json::json!(-1e300)),
        ("/generations/1/train/epochs/0/epoch", serde_json::json!(4_000_000_000u32)),
        ("/generations/0/stages/selfplay/wall_seconds", serde_json::json!(1e300)),
        // Names are cut to 16 characters, not bytes.
        ("/start_net", serde_json::json!("€€€€€€€€€€€€€€€€€")),
        ("/generations/2/train/candidate", serde_json::json!("€€€€€€€€€€€€€€€€€")),
    ] {
        let mut ledger = good.clone();
        *ledger.pointer_mut(pointer).unwrap() = far;
        let dir = TempDir::new("far-ledger");
        std::fs::write(dir.path().join("ledger.json"), ledger.to_string()).unwrap();
        let read = ferz_loop::Ledger::load_existing(dir.path()).unwrap();
        ferz_loop::report::write(dir.path(), &read).unwrap();
        let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
        assert_eq!(html.matches("<svg").count(), 3, "{pointer}");
    }
}
