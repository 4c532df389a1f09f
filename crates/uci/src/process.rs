//! A UCI engine running as a child process: start and handshake, searches with deadlines,
//! `stop` and `ponderhit` from another thread, and a clear error when the process dies or falls
//! silent.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use ferz_chess::{Game, Variant};

use crate::protocol::{EngineOption, EngineScore, Go, Info, OptionList, parse_bestmove, parse_info, position_command};

/// How to run an engine: the program, its arguments and the directory it runs in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The directory it runs in (`None`: ours). Engines that load nets or books by relative
    /// path need their own.
    pub working_dir: Option<PathBuf>,
}

impl Launch {
    /// `program` with `args`, run in our directory.
    #[must_use]
    pub fn new(program: impl Into<PathBuf>, args: &[String]) -> Launch {
        Launch { program: program.into(), args: args.to_vec(), working_dir: None }
    }
}

/// What the handshake sets up besides the engine's defaults.
#[derive(Clone, Copy, Debug)]
pub struct Setup<'a> {
    /// The rules of the games to come: Chess960 sets `UCI_Chess960`, Shatranj
    /// `UCI_Variant shatranj` (an engine without them is refused).
    pub variant: Variant,
    /// The user's options, in order; an option the engine does not list is an error.
    pub options: &'a [EngineOption],
    /// Whether searches will ponder: sets the engine's `Ponder` option when it has one.
    pub ponder: bool,
}

/// How long the UCI protocol steps may take.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// For `uciok` and the first `readyok` (slow starts happen when many engines load at once).
    pub handshake: Duration,
    /// For `readyok` after `ucinewgame`.
    pub ready: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts { handshake: Duration::from_secs(20), ready: Duration::from_secs(10) }
    }
}

/// Why an engine could not be started or did not answer.
#[derive(Debug, thiserror::Error)]
pub enum UciError {
    /// The program could not be run.
    #[error("cannot start {program}: {error}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        error: std::io::Error,
    },
    /// The handshake failed: no `uciok`/`readyok` in time, a missing variant or option.
    #[error("{program}: {reason}")]
    Handshake {
        /// The program.
        program: String,
        /// What went wrong.
        reason: String,
    },
    /// The process is gone or its pipes are closed; says how it ended when it has.
    #[error("{0}")]
    Disconnected(String),
    /// No answer within the allowed time (the process still runs).
    #[error("no answer within {} ms", .0.as_millis())]
    Timeout(Duration),
}

/// The answer to one `go`: `bestmove` with what the last `info` lines said.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    /// The move as sent, not yet checked (`(none)` or `0000` when the engine has none).
    pub bestmove: String,
    /// The expected reply, from `bestmove ... ponder <move>`.
    pub ponder: Option<String>,
    /// From sending `go` to receiving `bestmove`.
    pub elapsed: Duration,
    /// The last score reported for the first principal variation.
    pub score: Option<EngineScore>,
    /// The depth of the last report.
    pub depth: Option<u32>,
    /// The node count of the last report.
    pub nodes: Option<u64>,
    /// The last principal variation reported, in UCI notation.
    pub pv: Vec<String>,
}

impl Reply {
    /// Folds one `info` line of the first principal variation into the reply.
    fn absorb(&mut self, info: &Info) {
        if info.multipv.unwrap_or(1) != 1 {
            return;
        }
        self.score = info.score.or(self.score);
        self.depth = info.depth.or(self.depth);
        self.nodes = info.nodes.or(self.nodes);
        if !info.pv.is_empty() {
            self.pv.clone_from(&info.pv);
        }
    }
}

/// How long an engine that ran out of time has to answer `stop` before it counts as broken.
pub const STOP_GRACE: Duration = Duration::from_secs(1);

/// A line from the engine and when it was read.
type Line = (Instant, String);

/// The process and its input: shared between the engine and its [`UciControl`]s.
struct Pipe {
    program: String,
    stdin: Mutex<Option<ChildStdin>>,
    child: Mutex<Child>,
    /// Set when the process died or stopped answering.
    broken: AtomicBool,
    /// Set when it was killed: a waiter stops waiting even if something still holds the pipe.
    killed: AtomicBool,
}

/// A lock that a panicking holder did not make useless: the data is a pipe or a process
/// handle, valid whatever the holder was doing.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Pipe {
    fn send(&self, command: &str) -> Result<(), UciError> {
        let result = match lock(&self.stdin).as_mut() {
            Some(stdin) => writeln!(stdin, "{command}").and_then(|()| stdin.flush()),
            None => Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
        };
        result.map_err(|_| {
            self.broken.store(true, Ordering::Relaxed);
            UciError::Disconnected(self.exit_description())
        })
    }

    /// How the process ended, for reports: its exit status when it has exited.
    fn exit_description(&self) -> String {
        // The pipe closes a moment before the process is reaped.
        for _ in 0..20 {
            if let Ok(Some(status)) = lock(&self.child).try_wait() {
                return format!("the engine exited ({status})");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        "the engine closed its output".to_owned()
    }

    fn kill(&self) {
        self.broken.store(true, Ordering::Relaxed);
        self.killed.store(true, Ordering::Relaxed);
        drop(lock(&self.stdin).take());
        let mut child = lock(&self.child);
        if matches!(child.try_wait(), Ok(None)) {
            #[cfg(unix)]
            kill_group(child.id());
        }
        let _ = child.kill();
        let _ = child.wait();
    }

    fn running(&self) -> bool {
        matches!(lock(&self.child).try_wait(), Ok(None))
    }
}

/// Kills the process group `leader` leads: the engine and any helper it started, which would
/// otherwise keep the engine's output open after the engine is gone.
#[cfg(unix)]
#[allow(unsafe_code)]
fn kill_group(leader: u32) {
    if let Ok(pid) = i32::try_from(leader) {
        // SAFETY: kill(2) with a negative pid signals a process group and touches no memory. The
        // leader is not reaped yet (checked under the lock), so its group id is not reused.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

/// A handle that reaches a running search from another thread: `ponderhit`, `stop`, or
/// killing an engine that no longer answers. The thread that owns the [`UciEngine`] keeps
/// waiting for `bestmove` meanwhile (a killed engine ends that wait with
/// [`UciError::Disconnected`]).
#[derive(Clone)]
pub struct UciControl {
    pipe: Arc<Pipe>,
}

impl UciControl {
    /// Sends `stop`: the engine answers `bestmove` at once.
    ///
    /// # Errors
    /// When the engine's input is closed.
    pub fn stop(&self) -> Result<(), UciError> {
        self.pipe.send("stop")
    }

    /// Sends `ponderhit`: the opponent played the expected move and the engine's clock runs.
    ///
    /// # Errors
    /// When the engine's input is closed.
    pub fn ponderhit(&self) -> Result<(), UciError> {
        self.pipe.send("ponderhit")
    }

    /// Kills the process (an engine that answers nothing, not even `stop`).
    pub fn kill(&self) {
        self.pipe.kill();
    }
}

/// A UCI engine running as a child process.
pub struct UciEngine {
    pipe: Arc<Pipe>,
    /// In a mutex only so that the engine is `Sync` (async tasks hold it across awaits); the
    /// engine's own methods reach it through `&mut self`, without locking.
    lines: Mutex<Receiver<Line>>,
    name: String,
    options: OptionList,
    timeouts: Timeouts,
    /// When the running search's `go` went out.
    search_started: Instant,
}

impl UciEngine {
    /// Starts the engine, performs the handshake (`uci`, the variant, `Ponder`, the user's
    /// options, `isready`) and returns it ready for `ucinewgame`.
    ///
    /// # Errors
    /// When the program cannot be run, does not answer in time, lacks the variant, or does not
    /// list an option the user set.
    pub fn start(launch: &Launch, setup: &Setup<'_>, timeouts: Timeouts) -> Result<UciEngine, UciError> {
        let program = launch.program.display().to_string();
        let mut command = Command::new(&launch.program);
        command.args(&launch.args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        if let Some(dir) = &launch.working_dir {
            command.current_dir(dir);
        }
        // Its own process group keeps a terminal's Ctrl-C from killing the engine mid-game: the
        // caller decides what an interrupt means (finish the games in progress) and quits the
        // engine itself. An engine whose parent dies sees its stdin close and exits.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|error| UciError::Spawn { program: program.clone(), error })?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stdin = child.stdin.take();
        let pipe = Arc::new(Pipe {
            program: program.clone(),
            stdin: Mutex::new(stdin),
            child: Mutex::new(child),
            broken: AtomicBool::new(false),
            killed: AtomicBool::new(false),
        });
        let (sender, lines) = std::sync::mpsc::channel();
        // Reading on a thread lets the caller wait with a deadline; the time stamp is taken as
        // the line arrives, so a busy caller does not charge its own delay to the engine.
        let reader = std::thread::Builder::new().name(format!("uci-reader {program}")).spawn(move || {
            let mut stdout = BufReader::new(stdout);
            let mut bytes = Vec::new();
            // Bytes, not `lines()`: one line of bad UTF-8 must not read as the end of the output.
            while matches!(stdout.read_until(b'\n', &mut bytes), Ok(n) if n > 0) {
                let line = String::from_utf8_lossy(&bytes).trim_end_matches(['\r', '\n']).to_owned();
                bytes.clear();
                if sender.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        if let Err(error) = reader {
            pipe.kill();
            return Err(UciError::Spawn { program, error });
        }
        let mut engine = UciEngine {
            pipe,
            lines: Mutex::new(lines),
            name: String::new(),
            options: OptionList::default(),
            timeouts,
            search_started: Instant::now(),
        };
        engine.handshake(setup).map_err(|reason| {
            engine.kill();
            UciError::Handshake { program, reason }
        })?;
        Ok(engine)
    }

    fn handshake(&mut self, setup: &Setup<'_>) -> Result<(), String> {
        self.send("uci").map_err(|e| e.to_string())?;
        let deadline = Instant::now() + self.timeouts.handshake;
        loop {
            let line = self.next_line(deadline).map_err(|e| self.handshake_failure("uciok", &e))?;
            if let Some(name) = line.strip_prefix("id name ") {
                self.name = name.trim().to_owned();
            } else if let Some(option) = line.strip_prefix("option name ") {
                self.options.push(option);
            } else if line.trim() == "uciok" {
                break;
            }
        }
        let mut commands = Vec::new();
        match setup.variant {
            Variant::Chess => {}
            Variant::Chess960 => {
                let name =
                    self.options.find("UCI_Chess960").ok_or("does not support Chess960 (no UCI_Chess960 option)")?;
                commands.push(format!("setoption name {name} value true"));
            }
            Variant::Shatranj => {
                if !self.options.offers("UCI_Variant", "shatranj") {
                    return Err("does not support Shatranj (no UCI_Variant option with var shatranj)".to_owned());
                }
                let name = self.options.find("UCI_Variant").unwrap_or("UCI_Variant");
                commands.push(format!("setoption name {name} value shatranj"));
            }
        }
        if setup.ponder
            && let Some(name) = self.options.find("Ponder")
        {
            commands.push(format!("setoption name {name} value true"));
        }
        for option in setup.options {
            let Some(name) = self.options.find(&option.name) else {
                return Err(format!("has no option {:?} (it lists: {})", option.name, self.options.names()));
            };
            self.options.check_value(name, &option.value)?;
            // The engine's own spelling: the protocol's names are case-sensitive for some engines.
            commands.push(if option.value.is_empty() {
                format!("setoption name {name}")
            } else {
                format!("setoption name {name} value {}", option.value)
            });
        }
        for command in commands {
            self.send(&command).map_err(|e| e.to_string())?;
        }
        if self.name.is_empty() {
            self.name = self.pipe.program.clone();
        }
        self.wait_ready(self.timeouts.handshake).map_err(|e| self.handshake_failure("readyok", &e))
    }

    fn handshake_failure(&self, expected: &str, error: &UciError) -> String {
        match error {
            UciError::Timeout(_) => {
                format!("no {expected} within {} s of the handshake", self.timeouts.handshake.as_secs_f64())
            }
            other => format!("no {expected}: {other}"),
        }
    }

    /// The engine's `id name`, or its program path when it gave none.
    #[must_use]
    pub fn id_name(&self) -> &str {
        &self.name
    }

    /// The options the engine listed.
    #[must_use]
    pub fn options(&self) -> &OptionList {
        &self.options
    }

    /// Whether the engine died or stopped answering and must be restarted.
    #[must_use]
    pub fn is_broken(&self) -> bool {
        self.pipe.broken.load(Ordering::Relaxed)
    }

    /// A handle for `stop`, `ponderhit` and killing the process from another thread.
    #[must_use]
    pub fn control(&self) -> UciControl {
        UciControl { pipe: Arc::clone(&self.pipe) }
    }

    fn send(&mut self, command: &str) -> Result<(), UciError> {
        self.pipe.send(command)
    }

    fn lines(&mut self) -> &mut Receiver<Line> {
        self.lines.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The next line before `deadline` (`None`: no deadline).
    fn next_line_at(&mut self, deadline: Option<Instant>) -> Result<Line, UciError> {
        let killed = &self.pipe.killed;
        let lines = self.lines.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        let received = match deadline {
            Some(deadline) => {
                let wait = deadline.saturating_duration_since(Instant::now());
                match lines.recv_timeout(wait) {
                    Err(RecvTimeoutError::Timeout) => return Err(UciError::Timeout(wait)),
                    other => other.map_err(|_| ()),
                }
            }
            // In slices, so that a kill through a control handle ends the wait even when a
            // stray process still holds the pipe open.
            None => loop {
                match lines.recv_timeout(Duration::from_millis(50)) {
                    Err(RecvTimeoutError::Timeout) if killed.load(Ordering::Relaxed) => break Err(()),
                    Err(RecvTimeoutError::Timeout) => {}
                    other => break other.map_err(|_| ()),
                }
            },
        };
        received.map_err(|()| {
            self.pipe.broken.store(true, Ordering::Relaxed);
            UciError::Disconnected(self.pipe.exit_description())
        })
    }

    fn next_line(&mut self, deadline: Instant) -> Result<String, UciError> {
        self.next_line_at(Some(deadline)).map(|(_, line)| line)
    }

    fn wait_ready(&mut self, timeout: Duration) -> Result<(), UciError> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        while self.next_line(deadline)?.trim() != "readyok" {}
        Ok(())
    }

    /// Prepares for a new game: `ucinewgame`, then `isready` within the ready timeout.
    ///
    /// # Errors
    /// When the engine does not confirm in time (it then counts as broken).
    pub fn new_game(&mut self) -> Result<(), UciError> {
        self.send("ucinewgame")?;
        let timeout = self.timeouts.ready;
        self.wait_ready(timeout).inspect_err(|_| self.pipe.broken.store(true, Ordering::Relaxed))
    }

    /// Starts a search of the game's current position: `position ...` and `go ...` (or
    /// `go ponder ...`, where the game ends with the move expected from the opponent). Read the
    /// answer with [`UciEngine::wait_bestmove`].
    ///
    /// # Errors
    /// When the engine is gone.
    pub fn go(&mut self, game: &Game, go: &Go, ponder: bool) -> Result<(), UciError> {
        // Lines left from an earlier search (late info after bestmove) must not be read as
        // this search's answer.
        loop {
            match self.lines().try_recv() {
                Ok(_) => {}
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.pipe.broken.store(true, Ordering::Relaxed);
                    return Err(UciError::Disconnected(self.pipe.exit_description()));
                }
            }
        }
        self.send(&position_command(game))?;
        self.send(&go.command(ponder))?;
        self.search_started = Instant::now();
        Ok(())
    }

    /// Sends `ponderhit` to the running `go ponder`: the search goes on under the clock, and
    /// [`Reply::elapsed`] counts from now (the time the clock ran, not the time pondered).
    ///
    /// # Errors
    /// When the engine is gone.
    pub fn ponderhit(&mut self) -> Result<(), UciError> {
        self.send("ponderhit")?;
        self.search_started = Instant::now();
        Ok(())
    }

    /// Reads the running search's `info` lines (each handed to `on_info`) until `bestmove`,
    /// or until `deadline` (`None`: as long as it takes, for pondering; a [`UciControl`] can
    /// still stop or kill the engine).
    ///
    /// # Errors
    /// [`UciError::Timeout`] at the deadline (the search still runs), or
    /// [`UciError::Disconnected`] when the process is gone.
    pub fn wait_bestmove(
        &mut self,
        deadline: Option<Instant>,
        on_info: &mut dyn FnMut(&Info),
    ) -> Result<Reply, UciError> {
        let mut reply = Reply::default();
        loop {
            let (at, line) = self.next_line_at(deadline)?;
            if line.starts_with("info ") {
                let info = parse_info(&line);
                reply.absorb(&info);
                on_info(&info);
            } else if let Some(best) = parse_bestmove(&line) {
                reply.bestmove = best.mv;
                reply.ponder = best.ponder;
                reply.elapsed = at.saturating_duration_since(self.search_started);
                return Ok(reply);
            }
        }
    }

    /// Sends `stop` and waits up to `grace` for the `bestmove`; an engine that does not answer
    /// in time counts as broken.
    ///
    /// # Errors
    /// When no `bestmove` comes in time or the engine is gone.
    pub fn stop(&mut self, grace: Duration) -> Result<Reply, UciError> {
        self.send("stop")?;
        self.wait_bestmove(Some(Instant::now() + grace), &mut |_| {})
            .inspect_err(|_| self.pipe.broken.store(true, Ordering::Relaxed))
    }

    /// One search to its end: [`UciEngine::go`], then `bestmove` within `timeout`. After a
    /// timeout the engine is stopped, and counts as broken unless `bestmove` follows within
    /// [`STOP_GRACE`].
    ///
    /// # Errors
    /// [`UciError::Timeout`] after `timeout`, [`UciError::Disconnected`] when the engine is gone.
    pub fn search(&mut self, game: &Game, go: &Go, timeout: Duration) -> Result<Reply, UciError> {
        self.go(game, go, false)?;
        match self.wait_bestmove(Some(self.search_started + timeout), &mut |_| {}) {
            Err(UciError::Timeout(_)) => {
                // A healthy engine answers `stop` at once; one that does not is restarted.
                let _ = self.stop(STOP_GRACE);
                Err(UciError::Timeout(timeout))
            }
            other => other,
        }
    }

    /// Sends `quit` and gives the engine a moment to exit before killing it.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        drop(lock(&self.pipe.stdin).take());
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            if !self.pipe.running() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }

    /// Kills the process at once.
    pub fn kill(&mut self) {
        self.pipe.kill();
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        if self.pipe.running() {
            self.pipe.kill();
        }
    }
}
