//! What the user asks for on the command line: engines, their options and the time control.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use ferz_uci::EngineOption;

/// How to start an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineCommand {
    /// This `ferz` binary, as a child process speaking UCI.
    Ferz,
    /// Any UCI engine: a program and its arguments.
    External {
        /// The executable.
        program: PathBuf,
        /// Arguments, split at whitespace.
        args: Vec<String>,
    },
}

/// A malformed engine specification, option, time control or adjudication rule.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SpecError(pub String);

impl FromStr for EngineCommand {
    type Err = SpecError;

    /// `ferz`, or `uci:<program> [args...]`.
    fn from_str(s: &str) -> Result<EngineCommand, SpecError> {
        let s = s.trim();
        if s == "ferz" {
            return Ok(EngineCommand::Ferz);
        }
        let Some(command) = s.strip_prefix("uci:") else {
            return Err(SpecError(format!(
                "engine {s:?}: expected `ferz` or `uci:<path> [args]`, like uci:/usr/games/stockfish"
            )));
        };
        let mut words = command.split_whitespace();
        let Some(program) = words.next() else {
            return Err(SpecError(format!("engine {s:?}: no program after `uci:`")));
        };
        Ok(EngineCommand::External { program: PathBuf::from(program), args: words.map(str::to_owned).collect() })
    }
}

impl fmt::Display for EngineCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineCommand::Ferz => f.write_str("ferz"),
            EngineCommand::External { program, args } => {
                write!(f, "uci:{}", program.display())?;
                args.iter().try_for_each(|a| write!(f, " {a}"))
            }
        }
    }
}

impl EngineCommand {
    /// The program and arguments to run, with `ferz` resolved to `self_exe`.
    #[must_use]
    pub fn resolve<'a>(&'a self, self_exe: &'a Path) -> (&'a Path, &'a [String]) {
        match self {
            // `ferz` without arguments speaks UCI.
            EngineCommand::Ferz => (self_exe, &[]),
            EngineCommand::External { program, args } => (program, args),
        }
    }
}

/// One side of the match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// How to start it.
    pub command: EngineCommand,
    /// Options set after the handshake, in order.
    pub options: Vec<EngineOption>,
    /// The name in the PGN and reports; the engine's `id name` when absent.
    pub name: Option<String>,
    /// Think on the opponent's time (`go ponder` on the expected reply, then `ponderhit` or
    /// `stop`).
    pub ponder: bool,
}

impl EngineConfig {
    /// An engine with no options and its own name.
    #[must_use]
    pub fn new(command: EngineCommand) -> EngineConfig {
        EngineConfig { command, options: Vec::new(), name: None, ponder: false }
    }
}

impl fmt::Display for EngineConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.command)?;
        for option in &self.options {
            write!(f, " {option}")?;
        }
        if self.ponder {
            write!(f, " (pondering)")?;
        }
        Ok(())
    }
}

/// How long each move may take.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    /// A clock per side: base time plus an increment per move (`go wtime btime winc binc`).
    Clock {
        /// Time at the start of the game.
        base: Duration,
        /// Added after each move.
        increment: Duration,
    },
    /// A node count per move (`go nodes`).
    Nodes(u64),
    /// A fixed time per move (`go movetime`).
    MoveTime(Duration),
    /// A fixed depth per move (`go depth`).
    Depth(u32),
}

impl Limit {
    /// The PGN `TimeControl` tag: `base+increment` in seconds, `-` for limits without a clock.
    #[must_use]
    pub fn pgn_tag(&self) -> String {
        match *self {
            Limit::Clock { base, increment } if increment.is_zero() => seconds(base),
            Limit::Clock { base, increment } => format!("{}+{}", seconds(base), seconds(increment)),
            Limit::MoveTime(time) => format!("1/{}", seconds(time)),
            Limit::Nodes(_) | Limit::Depth(_) => "-".to_owned(),
        }
    }

    /// Parses a clock, `base[+increment]` in seconds, like `10+0.1` or `60`.
    ///
    /// # Errors
    /// When the text is not two non-negative numbers of seconds.
    pub fn parse_clock(s: &str) -> Result<Limit, SpecError> {
        let error = || SpecError(format!("time control {s:?}: expected seconds[+increment], like 10+0.1"));
        let (base, increment) = s.split_once('+').unwrap_or((s, "0"));
        let parse = |text: &str| {
            text.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0 && *x < 1e7)
                .map(Duration::from_secs_f64)
                .ok_or_else(error)
        };
        let (base, increment) = (parse(base)?, parse(increment)?);
        if base.is_zero() && increment.is_zero() {
            return Err(error());
        }
        Ok(Limit::Clock { base, increment })
    }
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Limit::Clock { .. } => write!(f, "tc {}", self.pgn_tag()),
            Limit::Nodes(n) => write!(f, "{n} nodes per move"),
            Limit::MoveTime(t) => write!(f, "{} ms per move", t.as_millis()),
            Limit::Depth(d) => write!(f, "depth {d} per move"),
        }
    }
}

/// Seconds without trailing zeros: `10`, `0.1`.
fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) { (ms / 1000).to_string() } else { format!("{}", ms as f64 / 1000.0) }
}

/// Parses `key=value` pairs separated by commas or spaces; a bare word is a flag.
fn key_values(s: &str) -> Vec<(String, Option<String>)> {
    s.split([',', ' '])
        .filter(|w| !w.is_empty())
        .map(|w| match w.split_once('=') {
            Some((k, v)) => (k.trim().to_ascii_lowercase(), Some(v.trim().to_owned())),
            None => (w.trim().to_ascii_lowercase(), None),
        })
        .collect()
}

/// Draw adjudication (the rule cutechess and fastchess call `-draw`): once `move_number` full
/// moves have been played, a game is drawn when both engines' scores stay within `score`
/// centipawns of zero for `move_count` consecutive moves each.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DrawAdjudication {
    /// Earliest full move number at which the rule applies.
    pub move_number: u32,
    /// Consecutive moves per engine.
    pub move_count: u32,
    /// Largest absolute score in centipawns that counts as drawn.
    pub score: i32,
}

impl FromStr for DrawAdjudication {
    type Err = SpecError;

    /// `movenumber=N,movecount=M,score=S`.
    fn from_str(s: &str) -> Result<DrawAdjudication, SpecError> {
        let mut rule = DrawAdjudication { move_number: 0, move_count: 0, score: -1 };
        let error = |what: &str| {
            SpecError(format!("draw adjudication {s:?}: {what}; expected movenumber=N,movecount=M,score=CP"))
        };
        for (key, value) in key_values(s) {
            let number = value.as_deref().and_then(|v| v.parse::<u32>().ok()).ok_or_else(|| error(&key))?;
            match key.as_str() {
                "movenumber" => rule.move_number = number,
                "movecount" => rule.move_count = number,
                "score" => rule.score = number as i32,
                _ => return Err(error(&format!("unknown key {key:?}"))),
            }
        }
        if rule.move_count == 0 || rule.score < 0 {
            return Err(error("movecount and score are required"));
        }
        Ok(rule)
    }
}

/// Resign adjudication (`-resign`): an engine loses when its own score is at least `score`
/// centipawns below zero for `move_count` consecutive moves; `two_sided` also requires the
/// opponent's score to agree.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ResignAdjudication {
    /// Consecutive moves of the losing engine.
    pub move_count: u32,
    /// Score threshold in centipawns.
    pub score: i32,
    /// Whether the winner must see the same advantage.
    pub two_sided: bool,
}

impl FromStr for ResignAdjudication {
    type Err = SpecError;

    /// `movecount=M,score=S[,twosided]`.
    fn from_str(s: &str) -> Result<ResignAdjudication, SpecError> {
        let mut rule = ResignAdjudication { move_count: 0, score: 0, two_sided: false };
        let error = |what: &str| {
            SpecError(format!("resign adjudication {s:?}: {what}; expected movecount=M,score=CP[,twosided]"))
        };
        for (key, value) in key_values(s) {
            if key == "twosided" {
                rule.two_sided = value.as_deref().is_none_or(|v| v == "true");
                continue;
            }
            let number = value.as_deref().and_then(|v| v.parse::<u32>().ok()).ok_or_else(|| error(&key))?;
            match key.as_str() {
                "movecount" => rule.move_count = number,
                "score" => rule.score = number as i32,
                _ => return Err(error(&format!("unknown key {key:?}"))),
            }
        }
        if rule.move_count == 0 || rule.score <= 0 {
            return Err(error("movecount and a positive score are required"));
        }
        Ok(rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_specs() {
        assert_eq!("ferz".parse(), Ok(EngineCommand::Ferz));
        assert_eq!(
            "uci:/usr/games/stockfish".parse(),
            Ok(EngineCommand::External { program: "/usr/games/stockfish".into(), args: vec![] })
        );
        let with_args: EngineCommand = "uci:/opt/e --uci -v".parse().unwrap();
        assert_eq!(with_args.to_string(), "uci:/opt/e --uci -v");
        assert!("stockfish".parse::<EngineCommand>().unwrap_err().0.contains("uci:<path>"));
        assert!("uci:".parse::<EngineCommand>().is_err());
        let (program, args) = EngineCommand::Ferz.resolve(Path::new("/bin/ferz"));
        assert_eq!((program, args.len()), (Path::new("/bin/ferz"), 0));
    }

    #[test]
    fn clocks() {
        let tc = Limit::parse_clock("10+0.1").unwrap();
        assert_eq!(tc, Limit::Clock { base: Duration::from_secs(10), increment: Duration::from_millis(100) });
        assert_eq!(tc.pgn_tag(), "10+0.1");
        assert_eq!(Limit::parse_clock("60").unwrap().pgn_tag(), "60");
        assert_eq!(Limit::parse_clock("0.5+0.01").unwrap().pgn_tag(), "0.5+0.01");
        for bad in ["", "x", "10+", "-1+0", "0+0", "inf"] {
            assert!(Limit::parse_clock(bad).is_err(), "{bad}");
        }
        assert_eq!(Limit::Nodes(5000).pgn_tag(), "-");
    }

    #[test]
    fn adjudication_rules() {
        let draw: DrawAdjudication = "movenumber=40,movecount=8,score=10".parse().unwrap();
        assert_eq!(draw, DrawAdjudication { move_number: 40, move_count: 8, score: 10 });
        assert!("movenumber=40".parse::<DrawAdjudication>().is_err());
        assert!("movecount=8,score=10,foo=1".parse::<DrawAdjudication>().is_err());
        let resign: ResignAdjudication = "movecount=3 score=600 twosided".parse().unwrap();
        assert_eq!(resign, ResignAdjudication { move_count: 3, score: 600, two_sided: true });
        assert!(!"movecount=3,score=600".parse::<ResignAdjudication>().unwrap().two_sided);
        assert!("score=600".parse::<ResignAdjudication>().is_err());
    }
}
