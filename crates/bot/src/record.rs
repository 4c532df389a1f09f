//! The record of a game as the bot saw it, and its PGN file.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use ferz_chess::{Color, GameResult, Move, PgnMove, Position, write_pgn};
use ferz_engine::Score;

use crate::config::PgnConfig;

/// One move of the record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoggedMove {
    /// The move.
    pub mv: Move,
    /// The mover's clock after the move, ms, when a state showed it.
    pub clock_ms: Option<i64>,
    /// Our evaluation of our moves, from white's view (as `[%eval]` is read), and its depth;
    /// `None` for book moves and the opponent's moves.
    pub eval: Option<(Score, u32)>,
}

/// Everything a PGN of the game needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameLog {
    /// Game id.
    pub id: String,
    /// The game's web address.
    pub site: String,
    /// White's name.
    pub white: String,
    /// Black's name.
    pub black: String,
    /// White's rating, when known.
    pub white_elo: Option<i64>,
    /// Black's rating.
    pub black_elo: Option<i64>,
    /// Rated game.
    pub rated: bool,
    /// Speed name (`blitz`), when known.
    pub speed: Option<String>,
    /// Clock as `initial+increment` in seconds (`-` without one).
    pub time_control: String,
    /// Start position (its variant gives the `Variant` tag).
    pub start: Position,
    /// The moves.
    pub moves: Vec<LoggedMove>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// How it ended (the server's status name: `mate`, `resign`, `outoftime`, …).
    pub termination: String,
    /// `YYYY.MM.DD`.
    pub date: String,
}

impl GameLog {
    /// The game as PGN text.
    #[must_use]
    pub fn pgn(&self, config: &PgnConfig) -> String {
        let mode = if self.rated { "Rated" } else { "Casual" };
        let event = match &self.speed {
            Some(speed) => format!("{mode} {speed} game"),
            None => format!("{mode} game"),
        };
        let mut tags = vec![
            ("Event", event),
            ("Site", self.site.clone()),
            ("Date", self.date.clone()),
            ("Round", "-".to_owned()),
            ("White", self.white.clone()),
            ("Black", self.black.clone()),
            ("Result", self.result.clone()),
            ("GameId", self.id.clone()),
        ];
        if let Some(elo) = self.white_elo {
            tags.push(("WhiteElo", elo.to_string()));
        }
        if let Some(elo) = self.black_elo {
            tags.push(("BlackElo", elo.to_string()));
        }
        tags.push(("TimeControl", self.time_control.clone()));
        tags.push(("Termination", self.termination.clone()));
        let moves: Vec<PgnMove> = self
            .moves
            .iter()
            .map(|m| {
                let mut parts = Vec::new();
                if config.evals
                    && let Some((score, depth)) = m.eval
                {
                    parts.push(format!("[%eval {},{depth}]", eval_text(score)));
                }
                if config.clocks
                    && let Some(ms) = m.clock_ms
                {
                    parts.push(format!("[%clk {}]", clock_text(ms)));
                }
                PgnMove { mv: m.mv, comment: (!parts.is_empty()).then(|| parts.join(" ")) }
            })
            .collect();
        write_pgn(&tags, &self.start, &moves, None, &self.result)
    }

    /// Writes the PGN to `<dir>/<date>-<white>-vs-<black>-<id>.pgn`, through a temporary file
    /// renamed into place, so a crash never leaves half a game.
    ///
    /// # Errors
    /// The I/O error, with the path.
    pub fn write(&self, dir: &Path, config: &PgnConfig) -> Result<PathBuf, String> {
        let clean = |s: &str| {
            s.chars()
                .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
                .collect::<String>()
        };
        let name = format!(
            "{}-{}-vs-{}-{}.pgn",
            self.date.replace('.', ""),
            clean(&self.white),
            clean(&self.black),
            clean(&self.id)
        );
        let path = dir.join(name);
        let tmp = dir.join(format!(".{}.tmp", clean(&self.id)));
        let text = self.pgn(config);
        let written = std::fs::create_dir_all(dir)
            .and_then(|()| {
                let mut file = std::fs::File::create(&tmp)?;
                file.write_all(text.as_bytes())?;
                file.sync_all()
            })
            .and_then(|()| std::fs::rename(&tmp, &path));
        written.map(|()| path.clone()).map_err(|e| format!("writing {}: {e}", path.display()))
    }
}

/// `[%eval]` text of a white-view score: pawns with two decimals, mates as `#n`.
fn eval_text(score: Score) -> String {
    match score {
        Score::Cp(cp) => format!("{:.2}", f64::from(cp) / 100.0),
        Score::Mate(n) => format!("#{n}"),
    }
}

/// `H:MM:SS` (tenths when under a minute are not worth the noise).
fn clock_text(ms: i64) -> String {
    let secs = ms.max(0) / 1000;
    format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

/// The result of a game from its winner and the server's status: `None` for a game that did
/// not finish (aborted, never started, or an end the bot does not know, such as a task that
/// gave up on its game), which PGN writes `*`.
#[must_use]
pub fn game_result(winner: Option<Color>, status: &str) -> Option<GameResult> {
    match (winner, status) {
        (Some(color), _) => Some(GameResult::Win(color)),
        (None, "aborted" | "noStart" | "created" | "started" | "unknownFinish" | "cheat" | "unknown") => None,
        (None, _) => Some(GameResult::Draw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::Variant;

    #[test]
    fn pgn_has_headers_clocks_and_evals() {
        let start = Position::new(Variant::Chess);
        let e4 = start.parse_uci("e2e4").unwrap();
        let after = start.play(e4).unwrap();
        let e5 = after.parse_uci("e7e5").unwrap();
        let log = GameLog {
            id: "abcd1234".into(),
            site: "https://lichess.org/abcd1234".into(),
            white: "ferzbot".into(),
            black: "Alice".into(),
            white_elo: Some(2000),
            black_elo: None,
            rated: false,
            speed: Some("blitz".into()),
            time_control: "180+2".into(),
            start,
            moves: vec![
                LoggedMove { mv: e4, clock_ms: Some(180_000), eval: Some((Score::Cp(31), 12)) },
                LoggedMove { mv: e5, clock_ms: Some(179_500), eval: None },
            ],
            result: "1-0".into(),
            termination: "resign".into(),
            date: "2026.11.21".into(),
        };
        let text = log.pgn(&PgnConfig::default());
        assert!(text.contains("[Event \"Casual blitz game\"]\n"), "{text}");
        assert!(text.contains("[WhiteElo \"2000\"]\n[TimeControl \"180+2\"]"), "{text}");
        assert!(text.contains("1. e4 {[%eval 0.31,12] [%clk 0:03:00]} 1... e5 {[%clk 0:02:59]} 1-0"), "{text}");
        let dir = std::env::temp_dir().join(format!("ferz-bot-pgn-{}", std::process::id()));
        let path = log.write(&dir, &PgnConfig::default()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert!(path.ends_with("20261121-ferzbot-vs-Alice-abcd1234.pgn"));
        std::fs::remove_dir_all(dir).unwrap();
        assert_eq!(game_result(None, "aborted"), None);
        assert_eq!(game_result(None, "unknown"), None, "a game the task gave up on");
        assert_eq!(game_result(None, "stalemate"), Some(GameResult::Draw));
        assert_eq!(game_result(Some(Color::Black), "mate"), Some(GameResult::Win(Color::Black)));
    }
}
