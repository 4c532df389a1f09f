//! The real `ferz bot` as a child process, pointed at a fake server.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::fake_lichess::{FAKE_TOKEN, FakeLichess};
use crate::{TempDir, ferz_binary};

/// Settings every system test starts from: fast timers, tiny searches, PGNs in the temp dir.
/// `sections` are `(section, "key = value\n...")`: a key given there replaces this harness's
/// default for it, and new sections are added.
#[must_use]
pub fn bot_toml(url: &str, pgn_dir: &Path, sections: &[(&str, &str)]) -> String {
    let mut base: Vec<(String, String)> = vec![
        ("lichess".into(), format!("url = \"{url}\"\nstream_idle_s = 2\nrequest_timeout_s = 5\n")),
        ("engine".into(), "hash_mb = 4\nnodes = 1500\nmove_overhead_ms = 50\n".into()),
        ("pgn".into(), format!("dir = \"{}\"\n", pgn_dir.display())),
        ("abort".into(), "abort_s = 30\n".into()),
    ];
    for (section, body) in sections {
        if let Some(entry) = base.iter_mut().find(|(s, _)| s == section) {
            // Keys given by the test replace the defaults of this harness.
            let keys: Vec<&str> = body.lines().filter_map(|l| l.split('=').next()).map(str::trim).collect();
            let kept: String = entry
                .1
                .lines()
                .filter(|l| !keys.contains(&l.split('=').next().unwrap_or("").trim()))
                .map(|l| format!("{l}\n"))
                .collect();
            entry.1 = format!("{kept}{body}\n");
        } else {
            base.push(((*section).to_owned(), format!("{body}\n")));
        }
    }
    base.iter().map(|(s, b)| format!("[{s}]\n{b}\n")).collect()
}

/// A running `ferz bot`; killed when dropped. Its log is kept in a file and printed when a
/// test fails, so a failure shows what the bot saw.
pub struct BotProcess {
    child: Child,
    log: PathBuf,
    /// The temporary directory with the settings, the log and the PGNs.
    pub dir: TempDir,
}

impl BotProcess {
    /// Starts `ferz bot` against `url` with the token `token` and these settings sections.
    ///
    /// # Panics
    /// If the process cannot be started.
    pub fn start(url: &str, token: &str, sections: &[(&str, &str)]) -> BotProcess {
        BotProcess::start_with(url, token, sections, "debug", &[])
    }

    /// Starts `ferz bot` against the fake `server` with its token and these settings sections,
    /// and waits until the bot has opened its event stream: from then on it sees what the test
    /// sends.
    ///
    /// # Panics
    /// If the process cannot be started, or opens no event stream within 20 s.
    pub fn connected(server: &FakeLichess, sections: &[(&str, &str)]) -> BotProcess {
        let bot = BotProcess::start(&server.url(), FAKE_TOKEN, sections);
        server.wait_until(Duration::from_secs(20), "the bot opens its event stream", |s| s.event_stream_open());
        bot
    }

    /// [`BotProcess::start`] at `log_level` (`trace`, …) with more arguments for `ferz bot`.
    ///
    /// # Panics
    /// If the process cannot be started.
    pub fn start_with(
        url: &str,
        token: &str,
        sections: &[(&str, &str)],
        log_level: &str,
        args: &[&std::ffi::OsStr],
    ) -> BotProcess {
        let dir = TempDir::new("bot");
        let config = dir.path().join("bot.toml");
        std::fs::write(&config, bot_toml(url, &dir.path().join("games"), sections)).expect("write bot.toml");
        let log = dir.path().join("bot.log");
        let log_file = std::fs::File::create(&log).expect("create log");
        let child = Command::new(ferz_binary())
            .args(["bot", "--log-level", log_level])
            .args(args)
            .arg("--config")
            .arg(&config)
            .env("LICHESS_BOT_TOKEN", token)
            .env_remove("FERZ__LICHESS__TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .expect("start ferz bot");
        BotProcess { child, log, dir }
    }

    /// The log so far.
    #[must_use]
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The directory the PGN files go to.
    #[must_use]
    pub fn pgn_dir(&self) -> PathBuf {
        self.dir.path().join("games")
    }

    /// The PGN files written so far.
    #[must_use]
    pub fn pgns(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self.dir.path().join("games")) else { return Vec::new() };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "pgn"))
            .collect();
        files.sort();
        files.iter().map(|p| std::fs::read_to_string(p).unwrap_or_default()).collect()
    }

    /// Sends SIGINT (what Ctrl-C sends).
    pub fn interrupt(&self) {
        let status = Command::new("kill").args(["-INT", &self.child.id().to_string()]).status().expect("run kill");
        assert!(status.success());
    }

    /// Sends SIGTERM (what a service manager sends).
    pub fn terminate(&self) {
        let status = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().expect("run kill");
        assert!(status.success());
    }

    /// Waits for the process to exit and returns its exit code.
    ///
    /// # Panics
    /// If it runs longer than `timeout` (the log is printed).
    pub fn wait(&mut self, timeout: Duration) -> Option<i32> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("poll bot") {
                return status.code();
            }
            assert!(Instant::now() < deadline, "the bot did not exit within {timeout:?}; log:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The child's process id.
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("---- ferz bot log ----\n{}\n---- end of log ----", self.log());
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
