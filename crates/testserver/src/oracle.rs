//! The reference programs and data that tests compare ferz against (Stockfish, python-chess,
//! Debian's gnuchess book): where to find them, and what a test does without one.
//!
//! Without its oracle a test cannot check anything, so it must not pass quietly where the
//! oracle belongs: under CI (`CI=true`, set by `.ci/run`, which installs every oracle) a missing
//! one fails the test; elsewhere the test says it is skipped and why.

use std::path::PathBuf;

/// Reports that a test's oracle is missing: panics under CI, else prints why it is skipped.
///
/// # Panics
/// When the environment has `CI=true`.
pub fn missing(what: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{what}: CI=true, where .ci/run installs every oracle, so the test cannot be skipped"
    );
    eprintln!("skipped: {what}");
}

/// Where Stockfish is looked for: `FERZ_STOCKFISH`, else `/usr/games/stockfish` (Debian's).
#[must_use]
pub fn stockfish_path() -> PathBuf {
    std::env::var_os("FERZ_STOCKFISH").map_or_else(|| PathBuf::from("/usr/games/stockfish"), PathBuf::from)
}

/// Stockfish at [`stockfish_path`], or `None` after [`missing`].
#[must_use]
pub fn stockfish() -> Option<PathBuf> {
    let path = stockfish_path();
    if path.exists() {
        Some(path)
    } else {
        missing("Stockfish is not installed (apt package `stockfish`, or set FERZ_STOCKFISH)");
        None
    }
}
