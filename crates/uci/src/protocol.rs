//! The text of the protocol: the commands sent (`position`, `go`, `setoption`) and the lines
//! read back (`info`, `bestmove`), without any process around them.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use ferz_chess::Game;

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

impl Go {
    /// The command: `go ...`, or `go ponder ...` for a search on the opponent's time that
    /// becomes an ordinary one with `ponderhit`.
    #[must_use]
    pub fn command(&self, ponder: bool) -> String {
        let limit = match *self {
            Go::Clock { wtime, btime, winc, binc } => format!(
                "wtime {} btime {} winc {} binc {}",
                wtime.as_millis(),
                btime.as_millis(),
                winc.as_millis(),
                binc.as_millis()
            ),
            Go::Nodes(n) => format!("nodes {n}"),
            Go::MoveTime(t) => format!("movetime {}", t.as_millis()),
            Go::Depth(d) => format!("depth {d}"),
        };
        if ponder { format!("go ponder {limit}") } else { format!("go {limit}") }
    }
}

impl fmt::Display for Go {
    /// The UCI command of an ordinary search.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.command(false))
    }
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

/// The fields of an `info` line that a match or a bot uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// `depth`.
    pub depth: Option<u32>,
    /// `score cp` or `score mate`.
    pub score: Option<EngineScore>,
    /// `multipv`.
    pub multipv: Option<u32>,
    /// `nodes`.
    pub nodes: Option<u64>,
    /// `pv`: the principal variation in UCI notation (empty when the line has none).
    pub pv: Vec<String>,
}

/// Reads depth, score, multipv, nodes and the PV from an `info` line; anything after
/// `string` is free text, and `pv` is always last.
#[must_use]
pub fn parse_info(line: &str) -> Info {
    let mut info = Info::default();
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut i = 1;
    while i < words.len() {
        match words[i] {
            "string" => break,
            "pv" => {
                info.pv = words[i + 1..].iter().map(|w| (*w).to_owned()).collect();
                break;
            }
            "depth" => info.depth = words.get(i + 1).and_then(|w| w.parse().ok()),
            "multipv" => info.multipv = words.get(i + 1).and_then(|w| w.parse().ok()),
            "nodes" => info.nodes = words.get(i + 1).and_then(|w| w.parse().ok()),
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

/// A `bestmove` line: the move (`(none)` or `0000` when there is none) and the expected reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BestMove {
    /// The move as sent, not yet checked.
    pub mv: String,
    /// The `ponder` move, if the engine named one.
    pub ponder: Option<String>,
}

/// Reads `bestmove <move> [ponder <move>]`; `None` for any other line.
#[must_use]
pub fn parse_bestmove(line: &str) -> Option<BestMove> {
    let mut words = line.split_whitespace();
    if words.next() != Some("bestmove") {
        return None;
    }
    let mv = words.next().unwrap_or("").to_owned();
    let ponder = match (words.next(), words.next()) {
        (Some("ponder"), Some(reply)) => Some(reply.to_owned()),
        _ => None,
    };
    Some(BestMove { mv, ponder })
}

/// A UCI option to set: `Name=Value`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOption {
    /// The option's name as the engine lists it (matched without regard to case).
    pub name: String,
    /// Its value, sent as text (empty for a button).
    pub value: String,
}

impl EngineOption {
    /// An option `name` set to `value`.
    #[must_use]
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> EngineOption {
        EngineOption { name: name.into(), value: value.into() }
    }
}

/// An option written other than `Name=Value`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("option {0:?}: expected Name=Value, like Hash=64")]
pub struct OptionSyntaxError(pub String);

impl FromStr for EngineOption {
    type Err = OptionSyntaxError;

    fn from_str(s: &str) -> Result<EngineOption, OptionSyntaxError> {
        match s.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => Ok(EngineOption::new(name.trim(), value.trim())),
            _ => Err(OptionSyntaxError(s.to_owned())),
        }
    }
}

impl fmt::Display for EngineOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.name, self.value)
    }
}

/// The options an engine listed in its handshake (`option name <Name> type ...`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptionList {
    /// Each listed option's text after `option name `.
    lines: Vec<String>,
}

impl OptionList {
    /// Records one `option name ...` line (without the `option name ` prefix).
    pub fn push(&mut self, listed: &str) {
        self.lines.push(listed.to_owned());
    }

    /// The engine's spelling of option `name` (matched without regard to case), if it lists it.
    #[must_use]
    pub fn find(&self, name: &str) -> Option<&str> {
        self.lines.iter().map(|line| option_name(line)).find(|listed| listed.eq_ignore_ascii_case(name.trim()))
    }

    /// Whether option `name` is a combo that offers `value` (`var <value>`).
    #[must_use]
    pub fn offers(&self, name: &str, value: &str) -> bool {
        self.lines.iter().filter(|line| option_name(line).eq_ignore_ascii_case(name)).any(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            words.windows(2).any(|w| w[0] == "var" && w[1].eq_ignore_ascii_case(value))
        })
    }

    /// Whether `value` is one the engine's listing of option `name` allows: a `spin` takes a
    /// whole number within its `min`/`max`, a `check` `true` or `false`, a `combo` one of its
    /// `var`s, a `button` no value. `Err` says what the listing allows.
    ///
    /// # Errors
    /// A sentence naming the option, the value and what it allows.
    pub fn check_value(&self, name: &str, value: &str) -> Result<(), String> {
        let Some(line) = self.lines.iter().find(|line| option_name(line).eq_ignore_ascii_case(name.trim())) else {
            return Ok(());
        };
        let words: Vec<&str> = line.split(" type ").nth(1).unwrap_or("").split_whitespace().collect();
        let after = |key: &str| words.windows(2).find(|w| w[0] == key).map(|w| w[1]);
        let name = option_name(line);
        match words.first().copied() {
            Some("spin") => {
                let (min, max) = (
                    after("min").and_then(|m| m.parse::<i64>().ok()),
                    after("max").and_then(|m| m.parse::<i64>().ok()),
                );
                let range = format!(
                    "{} to {}",
                    min.map_or("?".into(), |m| m.to_string()),
                    max.map_or("?".into(), |m| m.to_string())
                );
                match value.parse::<i64>() {
                    Err(_) => Err(format!("option {name} takes a whole number from {range}, not {value:?}")),
                    Ok(n) if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) => {
                        Err(format!("option {name} takes {range}; {n} is out of range"))
                    }
                    Ok(_) => Ok(()),
                }
            }
            Some("check") if !value.eq_ignore_ascii_case("true") && !value.eq_ignore_ascii_case("false") => {
                Err(format!("option {name} takes true or false, not {value:?}"))
            }
            Some("combo") if !words.windows(2).any(|w| w[0] == "var" && w[1].eq_ignore_ascii_case(value)) => {
                Err(format!("option {name} takes one of its listed values, not {value:?}"))
            }
            _ => Ok(()),
        }
    }

    /// The listed names, for error messages.
    #[must_use]
    pub fn names(&self) -> String {
        let names: Vec<&str> = self.lines.iter().map(|line| option_name(line)).collect();
        names.join(", ")
    }
}

/// The name in `<Name> type ...` (names may contain spaces: `Move Overhead`).
fn option_name(listed: &str) -> &str {
    listed.split(" type ").next().unwrap_or(listed).trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::{Position, Variant};

    #[test]
    fn info_lines() {
        let info = parse_info("info depth 12 seldepth 18 multipv 1 score cp -35 nodes 1000 pv e2e4 e7e5");
        assert_eq!(
            info,
            Info {
                depth: Some(12),
                score: Some(EngineScore::Cp(-35)),
                multipv: Some(1),
                nodes: Some(1000),
                pv: vec!["e2e4".into(), "e7e5".into()],
            }
        );
        let mate = parse_info("info depth 5 score mate -3 lowerbound time 4");
        assert_eq!(mate.score, Some(EngineScore::Mate(-3)));
        assert_eq!(parse_info("info string depth 99 score cp 5"), Info::default());
        let tail = parse_info("info nodes 5 pv a2a3 depth 3");
        assert_eq!((tail.depth, tail.pv.len()), (None, 3), "everything after pv is the line");
    }

    #[test]
    fn bestmove_lines() {
        assert_eq!(parse_bestmove("bestmove e2e4"), Some(BestMove { mv: "e2e4".into(), ponder: None }));
        assert_eq!(
            parse_bestmove("bestmove e7e8q ponder a2a1n"),
            Some(BestMove { mv: "e7e8q".into(), ponder: Some("a2a1n".into()) })
        );
        assert_eq!(parse_bestmove("bestmove (none)").unwrap().mv, "(none)");
        assert_eq!(parse_bestmove("bestmove").unwrap().mv, "");
        assert_eq!(parse_bestmove("bestmove e2e4 ponder").unwrap().ponder, None);
        assert_eq!(parse_bestmove("info pv e2e4"), None);
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
        assert_eq!(clock.command(true), "go ponder wtime 9500 btime 10000 winc 100 binc 100");
        assert_eq!(Go::Nodes(5000).to_string(), "go nodes 5000");
        assert_eq!(Go::MoveTime(Duration::from_millis(250)).to_string(), "go movetime 250");
        assert_eq!(Go::Depth(7).command(true), "go ponder depth 7");
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

    #[test]
    fn options_are_found_by_name_in_any_case() {
        let mut list = OptionList::default();
        list.push("Move Overhead type spin default 10 min 0 max 5000");
        list.push("UCI_Variant type combo default chess var chess var shatranj");
        list.push("Clear Hash type button");
        assert_eq!(list.find("move overhead"), Some("Move Overhead"));
        assert_eq!(list.find("clear hash"), Some("Clear Hash"));
        assert_eq!(list.find("Move"), None);
        assert!(list.offers("uci_variant", "Shatranj"));
        assert!(!list.offers("UCI_Variant", "makruk"));
        assert_eq!(list.names(), "Move Overhead, UCI_Variant, Clear Hash");
        assert_eq!(list.check_value("Move Overhead", "20"), Ok(()));
        assert!(list.check_value("move overhead", "abc").unwrap_err().contains("whole number from 0 to 5000"));
        assert!(list.check_value("Move Overhead", "999999").unwrap_err().contains("out of range"));
        assert!(list.check_value("UCI_Variant", "makruk").is_err());
        assert_eq!(list.check_value("UCI_Variant", "Shatranj"), Ok(()));
        assert_eq!("Move Overhead = 20".parse::<EngineOption>().unwrap(), EngineOption::new("Move Overhead", "20"));
        assert!("Hash".parse::<EngineOption>().is_err());
        assert_eq!("Clear Hash=".parse::<EngineOption>().unwrap().value, "");
        assert!("=3".parse::<EngineOption>().unwrap_err().to_string().contains("expected Name=Value"));
    }
}
