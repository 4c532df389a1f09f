//! Helpers for ferz's system tests: building, locating and running the real `ferz` binary.

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
        build.args(["build", "--quiet", "-p", "ferz", "--bin", "ferz"]);
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
