//! The record of a game as the bot saw it, and its PGN text and file.

use std::path::{Path, PathBuf};

use ferz_chess::{Color, GameResult, Move, PgnMove, Position, write_pgn};
use ferz_engine::Score;

use crate::config::{PgnConfig, PgnGrouping};
use crate::pgn_file;

/// A search's evaluation of a move we played, from white's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Eval {
    /// The score, from white's point of view.
    pub white_score: Score,
    /// The depth the search reached (0: a tablebase's verdict, not a search).
    pub depth: u32,
}

/// One move of the record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LoggedMove {
    /// The move.
    pub mv: Move,
    /// The mover's clock after the move, ms, when a state showed it.
    pub clock_ms: Option<i64>,
    /// Our evaluation of our moves, from white's view (as `[%eval]` is read); `None` for book
    /// moves and the opponent's moves.
    pub eval: Option<Eval>,
    /// The principal variation of the search that chose the move, the move first; empty for
    /// book moves and the opponent's moves.
    pub pv: Vec<Move>,
}

/// Everything a PGN of the game needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GameLog {
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
    pub(crate) fn pgn(&self, config: &PgnConfig) -> String {
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
        let mut position = self.start;
        let moves: Vec<PgnMove> = self
            .moves
            .iter()
            .map(|m| {
                position = position.play(m.mv).unwrap_or(position);
                let mut parts = Vec::new();
                if config.evals
                    && let Some(Eval { white_score: score, depth }) = m.eval
                {
                    parts.push(format!("[%eval {},{depth}]", eval_text(score)));
                }
                if config.clocks
                    && let Some(ms) = m.clock_ms
                {
                    parts.push(format!("[%clk {}]", clock_text(ms)));
                }
                if config.pv
                    && let Some(Eval { depth, .. }) = m.eval
                    && m.pv.first() == Some(&m.mv)
                {
                    // The line after the move: what the engine expected next.
                    let line = san_line(&position, &m.pv[1..]).join(" ");
                    parts.push(if line.is_empty() {
                        format!("depth {depth}")
                    } else {
                        format!("depth {depth}: {line}")
                    });
                }
                PgnMove { mv: m.mv, comment: (!parts.is_empty()).then(|| parts.join(" ")) }
            })
            .collect();
        write_pgn(&tags, &self.start, &moves, None, &self.result)
    }

    /// Writes the game to its file under `dir`, as `config.grouping` says ([`GameLog::path`]):
    /// a file of its own through a temporary file renamed into place, or appended to a shared
    /// file ([`pgn_file::append`]). Either way a crash never leaves half a game behind an
    /// earlier one.
    ///
    /// # Errors
    /// The I/O error, with the path.
    pub(crate) fn write(&self, dir: &Path, config: &PgnConfig, me: &str) -> Result<PathBuf, String> {
        let path = self.path(dir, config.grouping, me);
        let text = self.pgn(config);
        let written = match config.grouping {
            PgnGrouping::Game => pgn_file::replace(&path, &text),
            PgnGrouping::Opponent | PgnGrouping::All => pgn_file::append(&path, &text).map(|repair| {
                if let Some(repair) = repair {
                    tracing::warn!(file = %path.display(), removed_bytes = repair.removed_bytes, kept_in = %repair.kept_in.display(), "the PGN file ended in a torn game (a crash mid-write); cut it back to the last complete game");
                }
            }),
        };
        written.map(|()| path.clone()).map_err(|e| format!("writing {}: {e}", path.display()))
    }

    /// The file of this game: `<date>-<white>-vs-<black>-<id>.pgn` (grouping `game`),
    /// `<me>-vs-<opponent>.pgn` (`opponent`) or `<me>-games.pgn` (`all`). Names keep ASCII
    /// letters, digits, `-` and `_`.
    #[must_use]
    pub(crate) fn path(&self, dir: &Path, grouping: PgnGrouping, me: &str) -> PathBuf {
        let clean = |s: &str| {
            s.chars()
                .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
                .collect::<String>()
        };
        let name = match grouping {
            PgnGrouping::Game => format!(
                "{}-{}-vs-{}-{}.pgn",
                self.date.replace('.', ""),
                clean(&self.white),
                clean(&self.black),
                clean(&self.id)
            ),
            PgnGrouping::Opponent => {
                let opponent = if self.white.eq_ignore_ascii_case(me) { &self.black } else { &self.white };
                format!("{}-vs-{}.pgn", clean(me), clean(opponent))
            }
            PgnGrouping::All => format!("{}-games.pgn", clean(me)),
        };
        dir.join(name)
    }
}

/// A line of moves in SAN from `start`, with the move number before each white move and
/// before the first: `["14... Nf6", "15. Bc4", "e5"]`. It stops before the first move that is
/// not legal (a line is advice, not a record).
#[must_use]
pub(crate) fn san_line(start: &Position, moves: &[Move]) -> Vec<String> {
    let mut position = *start;
    let mut line = Vec::with_capacity(moves.len());
    for (i, &mv) in moves.iter().enumerate() {
        let Ok(next) = position.play(mv) else { break };
        let san = position.san(mv);
        let number = position.fullmoves();
        line.push(match (position.turn().is_white(), i) {
            (true, _) => format!("{number}. {san}"),
            (false, 0) => format!("{number}... {san}"),
            (false, _) => san,
        });
        position = next;
    }
    line
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
pub(crate) fn game_result(winner: Option<Color>, status: &str) -> Option<GameResult> {
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
    fn san_lines_number_their_moves_and_stop_at_an_illegal_one() {
        let start = Position::new(Variant::Chess);
        let mv = |pos: &Position, uci: &str| pos.parse_uci(uci).unwrap();
        let e4 = mv(&start, "e2e4");
        let after = start.play(e4).unwrap();
        let e5 = mv(&after, "e7e5");
        let nf3 = mv(&after.play(e5).unwrap(), "g1f3");
        assert_eq!(san_line(&start, &[e4, e5, nf3]), ["1. e4", "e5", "2. Nf3"]);
        assert_eq!(san_line(&after, &[e5, nf3]), ["1... e5", "2. Nf3"]);
        assert_eq!(san_line(&start, &[e4, nf3, e5]), ["1. e4"], "Nf3 is not black's move");
        assert!(san_line(&start, &[]).is_empty());
    }

    #[test]
    fn pgn_has_headers_clocks_and_evals() {
        let start = Position::new(Variant::Chess);
        let e4 = start.parse_uci("e2e4").unwrap();
        let after = start.play(e4).unwrap();
        let e5 = after.parse_uci("e7e5").unwrap();
        let nf3 = after.play(e5).unwrap().parse_uci("g1f3").unwrap();
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
                LoggedMove {
                    mv: e4,
                    clock_ms: Some(180_000),
                    eval: Some(Eval { white_score: Score::Cp(31), depth: 12 }),
                    pv: vec![e4, e5, nf3],
                },
                LoggedMove { mv: e5, clock_ms: Some(179_500), eval: None, pv: Vec::new() },
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
        assert!(!text.contains("depth 12"), "no PV unless asked: {text}");
        let with_pv = log.pgn(&PgnConfig { pv: true, clocks: false, ..PgnConfig::default() });
        assert!(with_pv.contains("1. e4 {[%eval 0.31,12] depth 12: 1... e5 2. Nf3} 1... e5 1-0"), "{with_pv}");
        let path = log.write(&dir, &PgnConfig::default(), "ferzbot").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        assert!(path.ends_with("20261121-ferzbot-vs-Alice-abcd1234.pgn"));
        // Grouped files: games are appended, each whole, and parse back.
        for (grouping, name) in
            [(PgnGrouping::Opponent, "ferzbot-vs-Alice.pgn"), (PgnGrouping::All, "ferzbot-games.pgn")]
        {
            let config = PgnConfig { grouping, ..PgnConfig::default() };
            let first = log.write(&dir, &config, "FerzBot").unwrap();
            let second = log.write(&dir, &config, "FerzBot").unwrap();
            assert_eq!(first, second);
            assert!(first.ends_with(name.replace("ferzbot", "FerzBot")), "{}", first.display());
            let games = ferz_chess::parse_pgn(&std::fs::read_to_string(&first).unwrap());
            assert_eq!(games.len(), 2);
        }
        std::fs::remove_dir_all(dir).unwrap();
        let black = GameLog { white: "Alice".into(), black: "ferzbot".into(), ..log };
        assert!(black.path(Path::new("g"), PgnGrouping::Opponent, "ferzbot").ends_with("ferzbot-vs-Alice.pgn"));
        assert_eq!(game_result(None, "aborted"), None);
        assert_eq!(game_result(None, "unknown"), None, "a game the task gave up on");
        assert_eq!(game_result(None, "stalemate"), Some(GameResult::Draw));
        assert_eq!(game_result(Some(Color::Black), "mate"), Some(GameResult::Win(Color::Black)));
    }
}
