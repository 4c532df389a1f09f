//! Bad tables and positions the tables do not cover give clear errors, never panics.

use std::path::{Path, PathBuf};

use ferz_chess::{Position, Variant};
use ferz_syzygy::{OpenError, ProbeError, Tablebases, Wdl};

fn tables_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy")
}

fn position(fen: &str) -> Position {
    Position::from_fen(fen, Variant::Chess).unwrap()
}

/// A temporary directory holding copies of the named test tables.
fn dir_with(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for file in files {
        std::fs::write(dir.path().join(file), std::fs::read(tables_dir().join(file)).unwrap()).unwrap();
    }
    dir
}

fn open_error(dir: &Path) -> String {
    match Tablebases::open(&[dir]) {
        Ok(_) => panic!("{} opened", dir.display()),
        Err(error) => error.to_string(),
    }
}

#[test]
fn a_missing_directory_is_an_io_error_naming_it() {
    let error = Tablebases::open(&["no/such/syzygy/dir"]).unwrap_err();
    assert!(matches!(error, OpenError::Io { .. }));
    assert!(error.to_string().contains("no/such/syzygy/dir"), "{error}");
}

#[test]
fn a_truncated_table_is_reported_when_opening() {
    for name in ["KRvK.rtbw", "KRPvK.rtbz"] {
        let dir = dir_with(&[name]);
        let path = dir.path().join(name);
        let bytes = std::fs::read(&path).unwrap();
        // Files end with a 16-byte checksum that probing never reads; any cut into the tables
        // themselves is found.
        for keep in [0, 3, 7, 20, bytes.len() / 2, bytes.len() - 17] {
            std::fs::write(&path, &bytes[..keep]).unwrap();
            let error = open_error(dir.path());
            assert!(error.contains(name) && error.contains("truncated"), "{keep} bytes: {error}");
        }
    }
}

#[test]
fn a_wrong_magic_number_is_reported() {
    let dir = dir_with(&["KQvK.rtbz"]);
    let path = dir.path().join("KQvK.rtbz");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[0] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    let error = open_error(dir.path());
    assert!(error.contains("KQvK.rtbz") && error.contains("magic"), "{error}");
}

#[test]
fn a_table_under_another_name_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(tables_dir().join("KRvK.rtbw"), dir.path().join("KQvK.rtbw")).unwrap();
    std::fs::copy(tables_dir().join("KPvK.rtbw"), dir.path().join("KNvK.rtbw")).unwrap();
    let error = open_error(dir.path());
    assert!(error.contains("does not match the file name"), "{error}");
}

#[test]
fn corrupt_table_bytes_never_panic() {
    // Flip bytes all over a table (header and data) and probe positions of every kind: each
    // probe gives a value or an error, and opening may refuse the file.
    let positions: Vec<Position> = [
        "8/8/8/8/8/2k5/8/KR6 w - - 0 1",
        "8/8/8/8/8/2k5/8/KR6 b - - 0 1",
        "7k/8/8/3R4/8/8/8/K7 w - - 0 1",
        "R6k/8/8/8/8/8/8/7K b - - 0 1",
        "8/8/3k4/8/3K4/8/8/3R4 w - - 0 1",
    ]
    .iter()
    .map(|fen| position(fen))
    .collect();
    let original = std::fs::read(tables_dir().join("KRvK.rtbw")).unwrap();
    let original_dtz = std::fs::read(tables_dir().join("KRvK.rtbz")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut opened, mut errors) = (0, 0);
    for round in 0..300 {
        let mut wdl = original.clone();
        let mut dtz = original_dtz.clone();
        let flips = 1 + (round % 8);
        for _ in 0..flips {
            // Half the rounds hit the headers, where damage matters most.
            let limit = if round % 2 == 0 { 64.min(wdl.len()) } else { wdl.len() };
            let at = (next() % limit as u64) as usize;
            wdl[at] ^= 1 << (next() % 8);
            let at = (next() % dtz.len() as u64) as usize;
            dtz[at] ^= 1 << (next() % 8);
        }
        std::fs::write(dir.path().join("KRvK.rtbw"), &wdl).unwrap();
        std::fs::write(dir.path().join("KRvK.rtbz"), &dtz).unwrap();
        let Ok(tables) = Tablebases::open(&[dir.path()]) else {
            errors += 1;
            continue;
        };
        opened += 1;
        for position in &positions {
            let _ = tables.probe_wdl(position);
            let _ = tables.probe_dtz(position);
            let _ = tables.rank_root_moves(position, true);
        }
    }
    assert!(opened > 0 && errors > 0, "opened {opened}, refused {errors}");
}

#[test]
fn missing_tables_are_named() {
    let dir = dir_with(&["KQvK.rtbw"]);
    let tables = Tablebases::open(&[dir.path()]).unwrap();
    assert_eq!(tables.table_counts(), (1, 0));
    let krk = position("8/8/8/8/8/2k5/8/KR6 w - - 0 1");
    assert_eq!(tables.probe_wdl(&krk), Err(ProbeError::MissingTable { kind: "WDL", material: "KRvK".into() }));
    let kqk = position("8/8/8/8/8/2k5/8/KQ6 w - - 0 1");
    assert_eq!(tables.probe_wdl(&kqk), Ok(Wdl::Win));
    assert_eq!(tables.probe_dtz(&kqk), Err(ProbeError::MissingTable { kind: "DTZ", material: "KQvK".into() }));
    // Black's queen: the same table with the colours exchanged.
    let kkq = position("8/8/8/8/8/2K5/8/kq6 b - - 0 1");
    assert_eq!(tables.probe_wdl(&kkq), Ok(Wdl::Win));
}

#[test]
fn positions_outside_the_tables_are_refused() {
    let tables = Tablebases::open(&[tables_dir()]).unwrap();
    let castling = position("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    assert_eq!(tables.probe_wdl(&castling), Err(ProbeError::CastlingRights));
    let five = position("4k3/8/8/8/8/8/PPP5/4K3 w - - 0 1");
    assert_eq!(tables.probe_wdl(&five), Err(ProbeError::TooManyPieces { pieces: 5, max: 4 }));
    let shatranj = Position::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", Variant::Shatranj).unwrap();
    assert_eq!(tables.probe_wdl(&shatranj), Err(ProbeError::Shatranj));
    // Chess960 without castling rights is ordinary chess for the tables.
    let chess960 = Position::from_fen("8/8/8/8/8/2k5/8/KR6 w - - 0 1", Variant::Chess960).unwrap();
    assert_eq!(tables.probe_wdl(&chess960), Ok(Wdl::Win));
}
