//! Players: what the arbiter talks to, and the UCI engine process that implements it.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::time::{Duration, Instant};

use ferz_chess::{Game, Variant};

use crate::spec::EngineConfig;

/// An engine's evaluation from its own point of view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EngineScore {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl EngineScore {
    /// Centipawns, with mates as ±100,000 so that adjudication treats them as decisive.
    #[must_use]
    pub fn centipawns(self) -> i32 {
        match self {
            EngineScore::Cp(cp) => cp,
            EngineScore::Mate(n) if n > 0 => 100_000 - n,
            EngineScore::Mate(n) => -100_000 - n,
        }
    }
}

impl fmt::Display for EngineScore {
    /// The PGN comment form: `+0.35`, `-1.20`, `+M3`, `-M2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EngineScore::Cp(cp) => {
                let sign = if cp < 0 { '-' } else { '+' };
                write!(f, "{sign}{}.{:02}", cp.unsigned_abs() / 100, cp.unsigned_abs() % 100)
            }
            EngineScore::Mate(n) if n > 0 => write!(f, "+M{n}"),
            EngineScore::Mate(n) => write!(f, "-M{}", n.unsigned_abs()),
        }
    }
}

/// The limit of one `go`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Go {
    /// Both clocks and increments.
    Clock {
        /// White's remaining time.
        wtime: Duration,
        /// Black's remaining time.
        btime: Duration,
        /// White's increment.
        winc: Duration,
        /// Black's increment.
        binc: Duration,
    },
    /// `go nodes N`.
    Nodes(u64),
    /// `go movetime MS`.
    MoveTime(Duration),
    /// `go depth D`.
    Depth(u32),
}

impl fmt::Display for Go {
    /// The UCI command.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Go::Clock { wtime, btime, winc, binc } => write!(
                f,
                "go wtime {} btime {} winc {} binc {}",
                wtime.as_millis(),
                btime.as_millis(),
                winc.as_millis(),
                binc.as_millis()
            ),
            Go::Nodes(n) => write!(f, "go nodes {n}"),
            Go::MoveTime(t) => write!(f, "go movetime {}", t.as_millis()),
            Go::Depth(d) => write!(f, "go depth {d}"),
        }
    }
}

/// What the arbiter asks of the side to move.
#[derive(Copy, Clone, Debug)]
pub struct MoveRequest<'a> {
    /// The game so far (start position and every move, for the repetition rule).
    pub game: &'a Game,
    /// The search limit.
    pub go: Go,
    /// How long to wait for `bestmove` before giving up.
    pub timeout: Duration,
}

/// A player's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveReply {
    /// The move as sent, not yet checked.
    pub bestmove: String,
    /// From sending `go` to receiving `bestmove`.
    pub elapsed: Duration,
    /// The last score reported for the first principal variation.
    pub score: Option<EngineScore>,
    /// The depth of that report.
    pub depth: Option<u32>,
}

/// Why a player did not answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerError {
    /// The process is gone or its pipes are closed.
    #[error("{0}")]
    Disconnected(String),
    /// No answer within the allowed time.
    #[error("no answer within {} ms", .0.as_millis())]
    Timeout(Duration),
}

/// Something that plays moves: a UCI engine process, or a scripted player in tests.
pub trait Player {
    /// The name for the PGN.
    fn name(&self) -> &str;
    /// Prepares for a new game (`ucinewgame`).
    ///
    /// # Errors
    /// When the player does not answer.
    fn new_game(&mut self) -> Result<(), PlayerError>;
    /// Asks for a move.
    ///
    /// # Errors
    /// When the player does not answer in time or is gone.
    fn play(&mut self, request: &MoveRequest<'_>) -> Result<MoveReply, PlayerError>;
}

/// An engine that could not be started or set up.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The program could not be run.
    #[error("cannot start {program}: {error}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        error: std::io::Error,
    },
    /// The UCI handshake failed.
    #[error("{program}: {reason}")]
    Handshake {
        /// The program.
        program: String,
        /// What went wrong.
        reason: String,
    },
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

/// How long an engine that ran out of time has to answer `stop` before it is restarted.
const STOP_GRACE: Duration = Duration::from_secs(1);

/// A line from the engine and when it was read.
type Line = (Instant, String);

/// A UCI engine running as a child process.
pub struct UciEngine {
    program: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    name: String,
    timeouts: Timeouts,
    /// Set when the process died or stopped answering; the match restarts it before the next game.
    broken: bool,
}

impl UciEngine {
    /// Starts `program` with `args`, performs the handshake (`uci`, the variant options, the
    /// user's options, `isready`) and returns the engine ready for `ucinewgame`.
    ///
    /// # Errors
    /// When the program cannot be run, does not answer in time, lacks the variant, or does not
    /// list an option the user set.
    pub fn start(
        program: &Path,
        args: &[String],
        config: &EngineConfig,
        variant: Variant,
        timeouts: Timeouts,
    ) -> Result<UciEngine, EngineError> {
        let program_name = program.display().to_string();
        let mut command = Command::new(program);
        command.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        // Its own process group keeps a terminal's Ctrl-C from killing the engine mid-game: the
        // match decides what an interrupt means (finish the games in progress) and quits the
        // engines itself. An engine whose match dies sees its stdin close and exits.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|error| EngineError::Spawn { program: program_name.clone(), error })?;
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, lines) = std::sync::mpsc::channel();
        // Reading on a thread lets the arbiter wait with a deadline; the time stamp is taken as
        // the line arrives, so a busy arbiter does not charge its own delay to the engine.
        std::thread::Builder::new()
            .name(format!("uci-reader {program_name}"))
            .spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    if sender.send((Instant::now(), line)).is_err() {
                        break;
                    }
                }
            })
            .map_err(|error| EngineError::Spawn { program: program_name.clone(), error })?;
        let mut engine = UciEngine {
            program: program_name,
            stdin: child.stdin.take(),
            child,
            lines,
            name: String::new(),
            timeouts,
            broken: false,
        };
        engine.handshake(config, variant).map_err(|reason| {
            engine.kill();
            EngineError::Handshake { program: engine.program.clone(), reason }
        })?;
        Ok(engine)
    }

    fn handshake(&mut self, config: &EngineConfig, variant: Variant) -> Result<(), String> {
        self.send("uci").map_err(|e| e.to_string())?;
        let mut options: Vec<String> = Vec::new();
        let deadline = Instant::now() + self.timeouts.handshake;
        loop {
            let line = self.next_line(deadline).map_err(|e| self.handshake_failure("uciok", &e))?;
            if let Some(name) = line.strip_prefix("id name ") {
                self.name = name.trim().to_owned();
            } else if let Some(option) = line.strip_prefix("option name ") {
                options.push(option.to_owned());
            } else if line.trim() == "uciok" {
                break;
            }
        }
        let has_option = |name: &str| {
            options.iter().find(|o| {
                o.to_ascii_lowercase().starts_with(&format!("{} type ", name.to_ascii_lowercase()))
                    || o.eq_ignore_ascii_case(name)
            })
        };
        match variant {
            Variant::Chess => {}
            Variant::Chess960 => {
                if has_option("UCI_Chess960").is_none() {
                    return Err("does not support Chess960 (no UCI_Chess960 option)".to_owned());
                }
                self.send("setoption name UCI_Chess960 value true").map_err(|e| e.to_string())?;
            }
            Variant::Shatranj => {
                let supported = has_option("UCI_Variant")
                    .is_some_and(|o| o.to_ascii_lowercase().split_whitespace().any(|w| w == "shatranj"));
                if !supported {
                    return Err("does not support Shatranj (no UCI_Variant option with var shatranj)".to_owned());
                }
                self.send("setoption name UCI_Variant value shatranj").map_err(|e| e.to_string())?;
            }
        }
        for option in &config.options {
            if has_option(&option.name).is_none() {
                return Err(format!("has no option {:?} (it lists: {})", option.name, option_names(&options)));
            }
            let command = if option.value.is_empty() {
                format!("setoption name {}", option.name)
            } else {
                format!("setoption name {} value {}", option.name, option.value)
            };
            self.send(&command).map_err(|e| e.to_string())?;
        }
        if self.name.is_empty() {
            self.name = self.program.clone();
        }
        self.wait_ready(self.timeouts.handshake).map_err(|e| self.handshake_failure("readyok", &e))
    }

    fn handshake_failure(&self, expected: &str, error: &PlayerError) -> String {
        match error {
            PlayerError::Timeout(_) => {
                format!("no {expected} within {} s of the handshake", self.timeouts.handshake.as_secs_f64())
            }
            PlayerError::Disconnected(why) => format!("no {expected}: {why}"),
        }
    }

    /// The engine's `id name`, or its program path when it gave none.
    #[must_use]
    pub fn id_name(&self) -> &str {
        &self.name
    }

    /// Whether the engine died or stopped answering and must be restarted.
    #[must_use]
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    fn send(&mut self, command: &str) -> Result<(), PlayerError> {
        let result = match self.stdin.as_mut() {
            Some(stdin) => writeln!(stdin, "{command}").and_then(|()| stdin.flush()),
            None => Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
        };
        result.map_err(|_| {
            self.broken = true;
            PlayerError::Disconnected(self.exit_description())
        })
    }

    /// The next line before `deadline`.
    fn next_line_at(&mut self, deadline: Instant) -> Result<Line, PlayerError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(PlayerError::Timeout(wait)),
            Err(RecvTimeoutError::Disconnected) => {
                self.broken = true;
                Err(PlayerError::Disconnected(self.exit_description()))
            }
        }
    }

    fn next_line(&mut self, deadline: Instant) -> Result<String, PlayerError> {
        self.next_line_at(deadline).map(|(_, line)| line)
    }

    fn wait_ready(&mut self, timeout: Duration) -> Result<(), PlayerError> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        while self.next_line(deadline)?.trim() != "readyok" {}
        Ok(())
    }

    /// How the process ended, for reports: its exit status when it has exited.
    fn exit_description(&mut self) -> String {
        // The pipe closes a moment before the process is reaped.
        for _ in 0..20 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return format!("the engine exited ({status})");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        "the engine closed its output".to_owned()
    }

    /// Sends `quit` and gives the engine a moment to exit before killing it.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }

    fn kill(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}

impl Player for UciEngine {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_game(&mut self) -> Result<(), PlayerError> {
        self.send("ucinewgame")?;
        let timeout = self.timeouts.ready;
        self.wait_ready(timeout).inspect_err(|_| self.broken = true)
    }

    fn play(&mut self, request: &MoveRequest<'_>) -> Result<MoveReply, PlayerError> {
        // Lines left from an earlier search (late info after bestmove) must not be read as
        // this search's answer.
        loop {
            match self.lines.try_recv() {
                Ok(_) => {}
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    self.broken = true;
                    return Err(PlayerError::Disconnected(self.exit_description()));
                }
            }
        }
        self.send(&position_command(request.game))?;
        self.send(&request.go.to_string())?;
        let started = Instant::now();
        let deadline = started + request.timeout;
        let mut score = None;
        let mut depth = None;
        loop {
            let (at, line) = match self.next_line_at(deadline) {
                Ok(line) => line,
                Err(PlayerError::Timeout(_)) => {
                    self.recover_from_timeout();
                    return Err(PlayerError::Timeout(request.timeout));
                }
                Err(e) => return Err(e),
            };
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => {
                    let info = parse_info(&line);
                    if info.multipv.unwrap_or(1) == 1 {
                        score = info.score.or(score);
                        depth = info.depth.or(depth);
                    }
                }
                Some("bestmove") => {
                    let bestmove = words.next().unwrap_or("").to_owned();
                    return Ok(MoveReply { bestmove, elapsed: at.saturating_duration_since(started), score, depth });
                }
                _ => {}
            }
        }
    }
}

impl UciEngine {
    /// After a timeout: `stop`, and the engine stays usable only if its `bestmove` follows.
    fn recover_from_timeout(&mut self) {
        if self.send("stop").is_err() {
            return;
        }
        // A healthy engine answers `stop` at once; one that does not is restarted.
        let deadline = Instant::now() + STOP_GRACE;
        loop {
            match self.next_line(deadline) {
                Ok(line) if line.starts_with("bestmove") => return,
                Ok(_) => {}
                Err(_) => {
                    self.broken = true;
                    return;
                }
            }
        }
    }
}

fn option_names(options: &[String]) -> String {
    let names: Vec<&str> = options.iter().map(|o| o.split(" type ").next().unwrap_or(o)).collect();
    names.join(", ")
}

/// `position fen <start> moves ...` in the notation of the game's variant (castling as `e1g1`
/// in chess, king-takes-rook in Chess960). A FEN is always sent, because `startpos` is
/// ambiguous for Shatranj and book positions are not start positions.
#[must_use]
pub fn position_command(game: &Game) -> String {
    let mut command = format!("position fen {}", game.start().fen());
    if !game.moves().is_empty() {
        command.push_str(" moves");
        let mut position = *game.start();
        for &m in game.moves() {
            command.push(' ');
            command.push_str(&position.uci(m));
            position.play_unchecked(m);
        }
    }
    command
}

/// The fields of an `info` line the arbiter uses.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// `depth`.
    pub depth: Option<u32>,
    /// `score cp` or `score mate`.
    pub score: Option<EngineScore>,
    /// `multipv`.
    pub multipv: Option<u32>,
}

/// Reads depth, score and multipv from an `info` line; anything after `string` or `pv` is
/// free text or moves.
#[must_use]
pub fn parse_info(line: &str) -> Info {
    let mut info = Info::default();
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut i = 1;
    while i < words.len() {
        match words[i] {
            "string" | "pv" => break,
            "depth" => info.depth = words.get(i + 1).and_then(|w| w.parse().ok()),
            "multipv" => info.multipv = words.get(i + 1).and_then(|w| w.parse().ok()),
            "score" => {
                let value = words.get(i + 2).and_then(|w| w.parse::<i32>().ok());
                info.score = match (words.get(i + 1), value) {
                    (Some(&"cp"), Some(cp)) => Some(EngineScore::Cp(cp)),
                    (Some(&"mate"), Some(n)) => Some(EngineScore::Mate(n)),
                    _ => info.score,
                };
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::Position;

    #[test]
    fn info_lines() {
        let info = parse_info("info depth 12 seldepth 18 multipv 1 score cp -35 nodes 1000 pv e2e4 e7e5");
        assert_eq!(info, Info { depth: Some(12), score: Some(EngineScore::Cp(-35)), multipv: Some(1) });
        let mate = parse_info("info depth 5 score mate -3 lowerbound time 4");
        assert_eq!(mate.score, Some(EngineScore::Mate(-3)));
        assert_eq!(parse_info("info string depth 99 score cp 5"), Info::default());
        assert_eq!(parse_info("info nodes 5 pv a2a3 depth 3").depth, None);
    }

    #[test]
    fn scores_print_like_cutechess() {
        assert_eq!(EngineScore::Cp(35).to_string(), "+0.35");
        assert_eq!(EngineScore::Cp(-120).to_string(), "-1.20");
        assert_eq!(EngineScore::Cp(-5).to_string(), "-0.05");
        assert_eq!(EngineScore::Cp(0).to_string(), "+0.00");
        assert_eq!(EngineScore::Mate(3).to_string(), "+M3");
        assert_eq!(EngineScore::Mate(-2).to_string(), "-M2");
        assert!(EngineScore::Mate(-2).centipawns() < -90_000);
    }

    #[test]
    fn go_commands() {
        let clock = Go::Clock {
            wtime: Duration::from_millis(9500),
            btime: Duration::from_secs(10),
            winc: Duration::from_millis(100),
            binc: Duration::from_millis(100),
        };
        assert_eq!(clock.to_string(), "go wtime 9500 btime 10000 winc 100 binc 100");
        assert_eq!(Go::Nodes(5000).to_string(), "go nodes 5000");
        assert_eq!(Go::MoveTime(Duration::from_millis(250)).to_string(), "go movetime 250");
    }

    #[test]
    fn position_commands_use_the_variants_castling_notation() {
        let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
        for (variant, castle) in [(Variant::Chess, "e1g1"), (Variant::Chess960, "e1h1")] {
            let mut game = Game::new(Position::from_fen(fen, variant).unwrap());
            game.play_uci("e1h1").unwrap();
            assert_eq!(position_command(&game), format!("position fen {fen} moves {castle}"));
        }
        let game = Game::new(Position::new(Variant::Shatranj));
        assert_eq!(position_command(&game), "position fen rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1");
    }
}
