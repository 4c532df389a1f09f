//! Files written whole.
//!
//! Every file ferz replaces (a net, a book, a ledger, a training checkpoint, a tuner's state, a
//! PGN rewritten on resume) goes through [`write_with`]: the bytes go to a temporary file in the
//! same directory, are flushed to disk, and the temporary file is renamed over the target. A
//! reader sees the old file or the new one; a crash or SIGKILL at any moment leaves one of them.
//!
//! The temporary file's name is the writer's own (process and call), so that processes and
//! threads writing one file at once (the tasks of a scheduler's job array) never write into
//! each other's temporary file.
//!
//! A writer killed between creating its temporary file and the rename leaves that file behind;
//! the next successful write of the same target removes such leftovers once they are
//! [`STALE_AFTER`] old, so a loop or a bot killed many times does not fill its directory.
//!
//! It knows nothing of what the files hold: each caller names the file in its own error.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// How long a temporary file goes unmodified before it is taken for a killed writer's leftover.
/// Every write here takes seconds and touches its file as it goes; an hour leaves a wide margin
/// for slow disks and for clocks of other machines writing to a shared directory.
pub const STALE_AFTER: Duration = Duration::from_secs(3600);

/// Writes `bytes` as the whole of `path`, through a synced temporary file renamed over it.
///
/// # Errors
/// Any error creating, writing, syncing or renaming the file; the temporary file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(path, |out| out.write_all(bytes))
}

/// Copies the file `from` to `to`, through a synced temporary file renamed over `to`. The
/// directory of `to` is created when missing.
///
/// # Errors
/// Any error reading `from` or writing `to`; the temporary file is removed.
pub fn copy_atomic(from: &Path, to: &Path) -> io::Result<()> {
    if let Some(parent) = to.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    let mut source = File::open(from)?;
    write_with(to, |out| io::copy(&mut source, out).map(drop))
}

/// Writes the whole of `path` with `fill`, which gets a buffered writer into a temporary file
/// beside `path`; once `fill` succeeds, the file is flushed to disk and renamed over `path`.
///
/// # Errors
/// An error from `fill`, or from creating, syncing or renaming the file; the temporary file is
/// removed and `path` is left as it was.
pub fn write_with(path: &Path, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let tmp = temporary_beside(path);
    let written = write_synced(&tmp, fill).and_then(|()| std::fs::rename(&tmp, path));
    match written {
        Ok(()) => {
            sync_parent(path);
            remove_stale_temporaries(path);
            Ok(())
        }
        Err(error) => {
            let _ = std::fs::remove_file(&tmp);
            Err(error)
        }
    }
}

/// Writes `bytes` to `path` only if no file is there, atomically even against other processes
/// doing the same: the first writer's file stays. Returns whether this call wrote it.
///
/// # Errors
/// Any error writing the temporary file or linking it; an existing `path` is not an error.
pub fn write_if_absent(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    let tmp = temporary_beside(path);
    if let Err(error) = write_synced(&tmp, |out| out.write_all(bytes)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(error);
    }
    // A hard link, unlike a rename, fails when the name exists: whole file or none, first wins.
    let linked = std::fs::hard_link(&tmp, path);
    std::fs::remove_file(&tmp)?;
    let wrote = match linked {
        Ok(()) => {
            sync_parent(path);
            true
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
        Err(e) => return Err(e),
    };
    remove_stale_temporaries(path);
    Ok(wrote)
}

/// A name beside `path` that no other writer uses: `<name>.<process>-<call>.tmp`.
fn temporary_beside(path: &Path) -> PathBuf {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(format!(".{}-{call}.tmp", std::process::id()));
    path.with_file_name(name)
}

/// Whether `file_name` is one of [`temporary_beside`]'s names for the target named `target`.
fn is_temporary_of(file_name: &std::ffi::OsStr, target: &std::ffi::OsStr) -> bool {
    let (Some(name), Some(target)) = (file_name.to_str(), target.to_str()) else { return false };
    let Some(writer) = name.strip_prefix(target).and_then(|rest| rest.strip_prefix('.')) else { return false };
    let Some((process, call)) = writer.strip_suffix(".tmp").and_then(|w| w.split_once('-')) else { return false };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(process) && digits(call)
}

/// Removes the temporary files of `path`'s target that no writer has touched for
/// [`STALE_AFTER`]: leftovers of writers killed before their rename. Best effort: a file that
/// cannot be listed, dated or removed is left for the next write.
fn remove_stale_temporaries(path: &Path) {
    let (Some(target), dir) = (path.file_name(), path.parent().filter(|p| !p.as_os_str().is_empty())) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir.unwrap_or(Path::new("."))) else { return };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        if !is_temporary_of(&entry.file_name(), target) {
            continue;
        }
        let modified = entry.metadata().and_then(|m| m.modified());
        if modified.is_ok_and(|m| now.duration_since(m).is_ok_and(|age| age >= STALE_AFTER)) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn write_synced(tmp: &Path, fill: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
    let mut out = BufWriter::new(File::create(tmp)?);
    fill(&mut out)?;
    out.into_inner().map_err(io::IntoInnerError::into_error)?.sync_all()
}

/// Syncs the directory that holds `path`, so that a new entry in it (a rename, a file created
/// there) survives a power cut. Best effort: some file systems cannot open a directory for
/// syncing, and the file's own bytes are on disk anyway.
pub fn sync_parent(path: &Path) {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_write_replaces_the_file_whole_and_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(names(dir.path()), ["state.json"]);
    }

    #[test]
    fn a_failed_fill_leaves_the_old_file_and_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.bin");
        write_atomic(&path, b"old").unwrap();
        let error = write_with(&path, |out| {
            out.write_all(b"half of a new")?;
            Err(io::Error::other("the source ran dry"))
        })
        .unwrap_err();
        assert_eq!(error.to_string(), "the source ran dry");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(names(dir.path()), ["book.bin"]);
    }

    #[test]
    fn a_copy_creates_the_directory_and_copies_every_byte() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("net.nnue");
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&from, &bytes).unwrap();
        let to = dir.path().join("best").join("gen-0001.nnue");
        copy_atomic(&from, &to).unwrap();
        assert_eq!(std::fs::read(&to).unwrap(), bytes);
        assert!(copy_atomic(&dir.path().join("missing"), &to).is_err());
        assert_eq!(std::fs::read(&to).unwrap(), bytes, "a failed copy leaves the old file");
        assert_eq!(names(&dir.path().join("best")), ["gen-0001.nnue"]);
    }

    /// Creates `name` in `dir`, last modified `age` ago.
    fn file_aged(dir: &Path, name: &str, age: Duration) {
        let file = File::create(dir.join(name)).unwrap();
        file.set_modified(SystemTime::now() - age).unwrap();
    }

    #[test]
    fn a_write_removes_its_targets_stale_temporary_files_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        let old = STALE_AFTER + Duration::from_secs(60);
        file_aged(dir.path(), "state.json.4242-0.tmp", old);
        file_aged(dir.path(), "state.json.4243-17.tmp", old);
        // A live writer's file, another target's leftover, and names that only look alike.
        file_aged(dir.path(), "state.json.4244-3.tmp", Duration::from_secs(5));
        file_aged(dir.path(), "ledger.json.4242-0.tmp", old);
        file_aged(dir.path(), "state.json.tmp", old);
        file_aged(dir.path(), "state.json.x-1.tmp", old);
        file_aged(dir.path(), "state.json.bak", old);
        write_atomic(&path, b"new").unwrap();
        assert_eq!(
            names(dir.path()),
            [
                "ledger.json.4242-0.tmp",
                "state.json",
                "state.json.4244-3.tmp",
                "state.json.bak",
                "state.json.tmp",
                "state.json.x-1.tmp"
            ]
        );
        file_aged(dir.path(), "state.json.4245-0.tmp", old);
        assert!(!write_if_absent(&path, b"other").unwrap());
        assert!(
            !names(dir.path()).contains(&"state.json.4245-0.tmp".to_owned()),
            "also after a write that found the file"
        );
    }

    #[test]
    fn the_first_writer_of_an_absent_file_wins_among_threads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let wins: Vec<bool> = std::thread::scope(|scope| {
            let writers: Vec<_> = (0..8u8)
                .map(|i| {
                    let path = &path;
                    scope.spawn(move || write_if_absent(path, &[i; 1000]).unwrap())
                })
                .collect();
            writers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        assert_eq!(wins.iter().filter(|&&w| w).count(), 1);
        let file = std::fs::read(&path).unwrap();
        assert!(file.len() == 1000 && file.iter().all(|&b| b == file[0]), "one writer's whole file");
        assert_eq!(names(dir.path()), ["settings.json"]);
    }
}
