//! Helpers for ferz's system tests: building, locating and running the real `ferz` binary.

pub mod bot_process;
pub mod fake_lichess;

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// The path of the `ferz` binary of this build profile, built once per test run.
///
/// The system tests live in their own package, so Cargo does not hand them the binary's path;
/// it sits next to the test executable's `deps` directory, and is built there if missing.
///
/// # Panics
/// If the binary cannot be built.
pub fn ferz_binary() -> PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable path");
        let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>/deps");
        let binary = profile_dir.join(format!("ferz{}", std::env::consts::EXE_SUFFIX));
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        // The features `cargo test --workspace` compiled the libraries with, so that they are
        // reused and only the binary is linked: the whole workspace's (with `-p ferz` alone the
        // engine lacks `ferz-tune`'s `tuning` view), and the dev-dependencies' (tokio's
        // `test-util`), which Cargo adds only when a test target is among those built; the
        // suite's own target is, and is already built.
        build.args(["build", "--quiet", "--workspace", "--bin", "ferz", "--test", "it"]);
        // Cargo runs this test with the test package's variables (CARGO_MANIFEST_DIR, …). Some
        // build scripts (ring's) rerun when such a variable changes, so handing them down made
        // this build and the next `cargo test` rebuild ring and everything above it each time.
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy();
            let set_for_tests = ["CARGO_MANIFEST_", "CARGO_PKG_", "CARGO_BIN_", "CARGO_CRATE_", "CARGO_PRIMARY_"]
                .iter()
                .any(|prefix| name.starts_with(prefix))
                || name == "CARGO_TARGET_TMPDIR"
                || name == "CARGO_RUSTC_CURRENT_DIR";
            if set_for_tests {
                build.env_remove(name.as_ref());
            }
        }
        if profile_dir.file_name().is_some_and(|name| name == "release") {
            build.arg("--release");
        }
        // Always build: a stale binary from an earlier change would test old code.
        let status = build.status().expect("run cargo build");
        assert!(status.success(), "cargo build -p ferz failed");
        assert!(binary.exists(), "no binary at {}", binary.display());
        binary
    })
    .clone()
}

/// Runs `ferz` with `args` to completion and returns its output.
///
/// # Panics
/// If the process cannot be started.
pub fn run_ferz(args: &[&str]) -> Output {
    Command::new(ferz_binary())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run ferz {args:?}: {e}"))
}

/// A fresh temporary directory, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates a directory named after `label` under the system temporary directory.
    ///
    /// # Panics
    /// If the directory cannot be created.
    pub fn new(label: &str) -> TempDir {
        static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ferz-test-{label}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    /// The directory's path.
    #[must_use]
    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A running `ferz` speaking UCI, with its output collected line by line.
pub struct UciProcess {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    /// Every line received so far.
    pub transcript: Vec<String>,
}

impl UciProcess {
    /// Starts `ferz` with `args` (none for plain UCI).
    ///
    /// # Panics
    /// If the process cannot be started.
    pub fn start(args: &[&str]) -> UciProcess {
        UciProcess::start_program(&ferz_binary(), args)
    }

    /// Starts another UCI engine, `program` with `args` (Stockfish as an opponent).
    ///
    /// # Panics
    /// If the process cannot be started.
    pub fn start_program(program: &std::path::Path, args: &[&str]) -> UciProcess {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        UciProcess { stdin: child.stdin.take(), child, lines, transcript: Vec::new() }
    }

    /// Sends one command line.
    ///
    /// # Panics
    /// If the engine's input is closed.
    pub fn send(&mut self, command: &str) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{command}").expect("write to ferz");
        stdin.flush().expect("flush");
    }

    /// Sends raw bytes as they are (no newline added): invalid UTF-8, control characters.
    ///
    /// # Panics
    /// If the engine's input is closed.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to ferz");
        stdin.flush().expect("flush");
    }

    /// Reads lines until one satisfies `done`, returning all lines read (the last one
    /// included). Fails after `seconds` without such a line.
    ///
    /// # Panics
    /// On timeout or when the engine's output ends first.
    pub fn read_until(&mut self, seconds: u64, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
        let mut read = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.transcript.push(line.clone());
                    let finished = done(&line);
                    read.push(line);
                    if finished {
                        return read;
                    }
                }
                Err(e) => {
                    panic!("no expected line within {seconds} s ({e}); transcript:\n{}", self.transcript.join("\n"))
                }
            }
        }
    }

    /// Lines that arrive within `millis` milliseconds.
    pub fn read_for(&mut self, millis: u64) -> Vec<String> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(millis);
        let mut read = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())) {
            self.transcript.push(line.clone());
            read.push(line);
        }
        read
    }

    /// Closes the engine's input and waits for it to exit; returns the remaining output.
    ///
    /// # Panics
    /// If the process does not exit within 10 s.
    pub fn finish(mut self) -> (std::process::ExitStatus, Vec<String>) {
        drop(self.stdin.take());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                let rest: Vec<String> = self.lines.try_iter().collect();
                return (status, rest);
            }
            assert!(std::time::Instant::now() < deadline, "ferz did not exit");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

impl Drop for UciProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
