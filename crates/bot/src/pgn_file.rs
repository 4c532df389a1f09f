//! PGN files that survive a crash: a game's own file is written whole and renamed into place;
//! a shared file (per opponent, or one for all games) only ever grows by appends.
//!
//! Why appends rather than rewriting a shared file through a temporary copy: a copy costs the
//! whole file for every game (thousands of games in `all`), and two games ending together
//! would each copy the file without the other's game. An append writes only the new game, in
//! one `write` on a file opened with `O_APPEND` under an exclusive lock, then `fsync`s; the
//! bytes of earlier games are never touched. A crash can therefore only leave a torn copy of
//! the game being written at the very end. The next append sees that the file does not end
//! with a result token (every game the bot writes ends with one, and no strict prefix of a
//! game does), cuts the file back to the end of the last complete game, and keeps the cut
//! bytes in `<file>.torn` so that nothing is thrown away.

use std::fs::{File, OpenOptions};
use std::io::{self, Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

/// What [`append`] cut off a file that ended in a torn game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Repair {
    /// Bytes removed from the end of the file.
    pub removed_bytes: u64,
    /// Where they were kept.
    pub kept_in: PathBuf,
}

/// The tokens that end a game's movetext.
const RESULTS: [&[u8]; 4] = [b"1-0", b"0-1", b"1/2-1/2", b"*"];
/// How much of the end of a file is read to see whether it ends with a complete game.
const TAIL_BYTES: u64 = 64;

/// Writes `text` as the whole of `path`: into a temporary file beside it, flushed to disk,
/// then renamed over `path`, so that `path` is never half written.
///
/// # Errors
/// The I/O error.
pub(crate) fn replace(path: &Path, text: &str) -> io::Result<()> {
    std::fs::create_dir_all(parent(path))?;
    ferz_files::write_atomic(path, text.as_bytes())
}

/// Appends the game `text` to `path` (created if missing), after cutting off a torn game a
/// crash left at its end (returned as [`Repair`]). Games are separated by a blank line.
///
/// # Errors
/// The I/O error; the file is then as it was, or ends in a torn copy of `text` that the next
/// append repairs.
pub(crate) fn append(path: &Path, text: &str) -> io::Result<Option<Repair>> {
    let dir = parent(path);
    std::fs::create_dir_all(dir)?;
    let mut file = OpenOptions::new().read(true).append(true).create(true).open(path)?;
    // Games of one bot end together now and then; another process may share the directory.
    file.lock()?;
    let mut repair = None;
    let mut len = file.metadata()?.len();
    let tail = read_from(&mut file, len.saturating_sub(TAIL_BYTES))?;
    if !ends_with_complete_game(&tail) {
        let whole = read_from(&mut file, 0)?;
        let keep = last_complete_end(&whole);
        let kept_in = path.with_extension("pgn.torn");
        let mut torn = OpenOptions::new().append(true).create(true).open(&kept_in)?;
        torn.write_all(&whole[keep..])?;
        torn.sync_all()?;
        file.set_len(keep as u64)?;
        file.sync_all()?;
        repair = Some(Repair { removed_bytes: len - keep as u64, kept_in });
        len = keep as u64;
    }
    let tail = read_from(&mut file, len.saturating_sub(TAIL_BYTES))?;
    let separator = match len {
        0 => "",
        _ if tail.ends_with(b"\n\n") => "",
        _ if tail.ends_with(b"\n") => "\n",
        _ => "\n\n",
    };
    // One write: an append of a few kilobytes lands whole or, after a crash, as a prefix.
    file.write_all(format!("{separator}{text}").as_bytes())?;
    file.sync_all()?;
    if len == 0 {
        ferz_files::sync_parent(path);
    }
    Ok(repair)
}

/// Whether `bytes` (a file, or its end) is empty or ends with a game's result token, after
/// trailing white space: `… 1-0`, `…\n1/2-1/2`.
#[must_use]
pub(crate) fn ends_with_complete_game(bytes: &[u8]) -> bool {
    let trimmed = bytes.trim_ascii_end();
    trimmed.is_empty()
        || RESULTS.iter().any(|result| {
            trimmed.len() > result.len()
                && trimmed.ends_with(result)
                && trimmed[trimmed.len() - result.len() - 1].is_ascii_whitespace()
        })
}

/// Where the last complete game of `bytes` ends: the start of the last line that opens a tag
/// section (`[` at the start of a line) right after a complete game; 0 when no game is
/// complete.
#[must_use]
pub(crate) fn last_complete_end(bytes: &[u8]) -> usize {
    (1..bytes.len())
        .rev()
        .find(|&at| bytes[at] == b'[' && bytes[at - 1] == b'\n' && ends_with_complete_game(&bytes[..at]))
        .unwrap_or(0)
}

fn read_from(file: &mut File, from: u64) -> io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn parent(path: &Path) -> &Path {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Checks at start-up that PGN files can be written in `dir`: creates it if missing, then
/// creates and removes a probe file, so a bad `[pgn] dir` stops the bot before its first game
/// instead of failing when that game ends.
///
/// # Errors
/// The I/O error of creating the directory or the probe file.
pub fn check_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let probe = dir.join(format!(".ferz-write-check-{}", std::process::id()));
    File::create(&probe)?;
    std::fs::remove_file(&probe)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAME1: &str = "[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n";
    const GAME2: &str = "[Event \"b\"]\n[Result \"*\"]\n\n*\n\n";
    const GAME3: &str = "[Event \"c\"]\n[Result \"1/2-1/2\"]\n\n1. d4 {[%eval 0.20,9]} d5\n1/2-1/2\n\n";

    #[test]
    fn a_directory_that_cannot_hold_files_is_found_at_start_up() {
        let dir = tempfile::tempdir().unwrap();
        check_dir(&dir.path().join("new").join("games")).unwrap();
        assert!(dir.path().join("new/games").is_dir());
        let file = dir.path().join("a-file");
        std::fs::write(&file, "x").unwrap();
        assert!(check_dir(&file.join("games")).is_err());
        #[cfg(target_os = "linux")]
        assert!(check_dir(Path::new("/proc/nope")).is_err());
    }

    #[test]
    fn complete_ends_are_result_tokens_after_white_space() {
        for complete in ["", "\n", GAME1, GAME2, GAME3, "1. e4 0-1", "x\n*\n"] {
            assert!(ends_with_complete_game(complete.as_bytes()), "{complete:?}");
        }
        // Every strict prefix of a game, but the game less its last blank line, is torn.
        for game in [GAME1, GAME2, GAME3] {
            let body = game.trim_end();
            for cut in 1..body.len() {
                assert!(!ends_with_complete_game(&game.as_bytes()[..cut]), "{:?}", &game[..cut]);
            }
        }
        assert!(!ends_with_complete_game(b"[Result \"1-0"), "a tag value is not a result");
    }

    #[test]
    fn appends_games_and_repairs_a_torn_tail_without_losing_earlier_games() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("all.pgn");
        assert_eq!(append(&path, GAME1).unwrap(), None);
        assert_eq!(append(&path, GAME2).unwrap(), None);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{GAME1}{GAME2}"));
        // A crash in the middle of the third game's write.
        let torn = &GAME3[..30];
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(torn.as_bytes()).unwrap();
        let repair = append(&path, GAME1).unwrap().expect("a repair");
        assert_eq!(repair.removed_bytes, torn.len() as u64);
        assert_eq!(std::fs::read_to_string(&repair.kept_in).unwrap(), torn);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{GAME1}{GAME2}{GAME1}"));
        // A file with only a torn game is cut to nothing; one whose last blank line is missing,
        // or that another tool wrote without blank lines, is complete and gets a separator.
        std::fs::write(&path, &GAME1[..10]).unwrap();
        assert!(append(&path, GAME2).unwrap().is_some());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), GAME2);
        std::fs::write(&path, GAME1.trim_end()).unwrap();
        assert_eq!(append(&path, GAME2).unwrap(), None);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), format!("{}\n\n{GAME2}", GAME1.trim_end()));
        // replace() writes a file whole, over an old one, leaving no temporary behind.
        let own = dir.path().join("own.pgn");
        replace(&own, GAME1).unwrap();
        replace(&own, GAME3).unwrap();
        assert_eq!(std::fs::read_to_string(&own).unwrap(), GAME3);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.iter().all(|name| !name.to_string_lossy().ends_with(".tmp")), "{left:?}");
    }

    #[test]
    fn the_last_complete_end_is_found_after_several_games() {
        let text = format!("{GAME1}{GAME3}{}", &GAME2[..12]);
        assert_eq!(last_complete_end(text.as_bytes()), GAME1.len() + GAME3.len());
        assert_eq!(last_complete_end(&text.as_bytes()[..GAME1.len() + 5]), GAME1.len());
        assert_eq!(last_complete_end(b"[Event \"x\"]\n[Res"), 0);
    }

    #[test]
    fn games_appended_from_many_threads_all_arrive_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("all.pgn");
        std::thread::scope(|scope| {
            for i in 0..8 {
                let path = &path;
                scope.spawn(move || {
                    for j in 0..10 {
                        let game = format!("[Event \"{i}-{j}\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n");
                        assert_eq!(append(path, &game).unwrap(), None);
                    }
                });
            }
        });
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(ferz_chess::parse_pgn(&text).len(), 80);
        assert_eq!(text.matches("[Event ").count(), 80);
    }

    /// Benchmark (run on demand): appending versus rewriting a shared file through a copy, per
    /// game, as the file grows to 2,000 games.
    /// `cargo test -p ferz-bot bench_append -- --ignored --nocapture`
    #[test]
    #[ignore = "benchmark; run on demand"]
    fn bench_append_against_copy_and_rename() {
        let dir = tempfile::tempdir().unwrap();
        let game = GAME1.repeat(20); // about 1.6 KB, a short game's size with comments
        let (append_path, copy_path) = (dir.path().join("append.pgn"), dir.path().join("copy.pgn"));
        let start = std::time::Instant::now();
        for _ in 0..2000 {
            append(&append_path, &game).unwrap();
        }
        let appended = start.elapsed();
        let start = std::time::Instant::now();
        let mut text = String::new();
        for _ in 0..2000 {
            text = std::fs::read_to_string(&copy_path).unwrap_or_default();
            text.push_str(&game);
            replace(&copy_path, &text).unwrap();
        }
        let copied = start.elapsed();
        println!(
            "2000 games into one {} KB file: append {:.2} ms a game, copy and rename {:.2} ms a game",
            text.len() / 1024,
            appended.as_secs_f64() / 2.0,
            copied.as_secs_f64() / 2.0
        );
    }
}
