//! Continuing a stopped match from its PGN file: which games are done and how they ended.
//!
//! The runner appends each game to the PGN as it ends and numbers it with the `Round` tag, so the
//! file is the match's journal. A resumed run reads it back, checks that every game belongs to
//! this match (its round exists, its start position and opening moves are the ones scheduled for
//! it) and plays only the games that are missing. A game cut off by a crash while it was being
//! written can only be the last one in the file; it is removed (the file is rewritten through a
//! temporary file) and played again.

use std::path::Path;

use ferz_chess::Variant;

use crate::game::Termination;
use crate::openings::Opening;
use ferz_chess::GameResult;
use ferz_chess::parse_pgn;

/// A game a previous run finished, as read back from the PGN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedGame {
    /// Its number in the match (the `Round` tag), from 1.
    pub number: u64,
    /// Name of the engine with white.
    pub white: String,
    /// Name of the engine with black.
    pub black: String,
    /// How it ended.
    pub result: GameResult,
    /// Why it ended.
    pub termination: Termination,
}

impl PlayedGame {
    /// The pair it belongs to (from 0).
    #[must_use]
    pub fn pair(&self) -> usize {
        ((self.number - 1) / 2) as usize
    }

    /// Whether engine A had white (A has white in the first game of each pair).
    #[must_use]
    pub fn a_white(&self) -> bool {
        self.number % 2 == 1
    }
}

/// A PGN that cannot be resumed from.
#[derive(Debug, thiserror::Error)]
pub enum ResumeError {
    /// The file cannot be read or rewritten.
    #[error("cannot {action} {path}: {error}")]
    Io {
        /// `read` or `rewrite`.
        action: &'static str,
        /// The file.
        path: String,
        /// Why.
        error: std::io::Error,
    },
    /// A game in the file does not belong to this match.
    #[error(
        "{path}, game {index} in the file (Round {round:?}): {reason}; resume with the same openings, seed and --games as the first run, or use a new --pgn file"
    )]
    Foreign {
        /// The file.
        path: String,
        /// Its position in the file, from 1.
        index: usize,
        /// Its `Round` tag as written.
        round: String,
        /// What does not match.
        reason: String,
    },
}

/// The games already played in `path` (none when the file does not exist), checked against the
/// match's `openings`. A truncated last game is cut from the file.
///
/// # Errors
/// When the file cannot be read or rewritten, or holds a game that is not one of this match's
/// (wrong round, start position or opening moves, duplicate round, an unfinished game that is not
/// the last one).
pub fn load_played(path: &Path, variant: Variant, openings: &[Opening]) -> Result<Vec<PlayedGame>, ResumeError> {
    let display = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(ResumeError::Io { action: "read", path: display, error }),
    };
    let chunks = split_games(&text);
    let mut played: Vec<PlayedGame> = Vec::with_capacity(chunks.len());
    let mut kept_bytes = 0;
    for (index, chunk) in chunks.iter().enumerate() {
        let last = index + 1 == chunks.len();
        match read_game(chunk, variant, openings) {
            Ok(game) => {
                if played.iter().any(|g| g.number == game.number) {
                    return Err(foreign(&display, index, chunk, "this round is in the file twice".to_owned()));
                }
                played.push(game);
                kept_bytes += chunk.len();
            }
            // Only the game being written when the run died can be incomplete.
            Err(Problem::Incomplete(_)) if last => {}
            Err(Problem::Incomplete(reason) | Problem::Foreign(reason)) => {
                return Err(foreign(&display, index, chunk, reason));
            }
        }
    }
    let leading = text.len() - chunks.iter().map(|c| c.len()).sum::<usize>();
    if leading + kept_bytes < text.len() {
        rewrite(path, &text[..leading + kept_bytes]).map_err(|error| ResumeError::Io {
            action: "rewrite",
            path: display.clone(),
            error,
        })?;
    }
    played.sort_by_key(|g| g.number);
    Ok(played)
}

fn foreign(path: &str, index: usize, chunk: &str, reason: String) -> ResumeError {
    let round = parse_pgn(chunk).first().and_then(|g| g.header("Round")).unwrap_or("none").to_owned();
    ResumeError::Foreign { path: path.to_owned(), index: index + 1, round, reason }
}

/// The file split before each `[Event ` line; text before the first game is not a chunk.
fn split_games(text: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with("[Event ") {
            starts.push(offset);
        }
        offset += line.len();
    }
    starts.iter().enumerate().map(|(i, &s)| &text[s..starts.get(i + 1).copied().unwrap_or(text.len())]).collect()
}

enum Problem {
    /// Cut off: no result marker, or moves that stop mid-token.
    Incomplete(String),
    /// Complete, but not a game of this match.
    Foreign(String),
}

fn read_game(chunk: &str, variant: Variant, openings: &[Opening]) -> Result<PlayedGame, Problem> {
    let games = parse_pgn(chunk);
    let [game] = games.as_slice() else {
        return Err(Problem::Incomplete(format!("expected one game, found {}", games.len())));
    };
    let result = match game.result.as_deref() {
        Some(token) => match GameResult::from_pgn(token) {
            Some(Some(result)) => result,
            _ => return Err(Problem::Foreign(format!("result {token:?} is not a finished game"))),
        },
        None => return Err(Problem::Incomplete("no result: the game was cut off".to_owned())),
    };
    if !chunk.trim_end().ends_with(game.result.as_deref().unwrap_or_default()) {
        return Err(Problem::Incomplete("text after the result".to_owned()));
    }
    let (start, moves) = game.replay(variant).map_err(Problem::Foreign)?;
    let number: u64 = game
        .header("Round")
        .and_then(|r| r.parse().ok())
        .filter(|&n| n >= 1)
        .ok_or_else(|| Problem::Foreign("no Round tag with a game number".to_owned()))?;
    let pair = ((number - 1) / 2) as usize;
    let opening = openings.get(pair).ok_or_else(|| {
        Problem::Foreign(format!("the match has only {} games (raise --games to keep it)", 2 * openings.len()))
    })?;
    if start.fen() != opening.start.fen() || !moves.starts_with(&opening.moves) {
        return Err(Problem::Foreign(format!(
            "it did not start from the opening scheduled for pair {} ({})",
            pair + 1,
            opening.exit_position().fen()
        )));
    }
    let termination = match game.header("Termination") {
        Some(tag) => {
            Termination::from_pgn(tag).ok_or_else(|| Problem::Foreign(format!("unknown Termination {tag:?}")))?
        }
        None => Termination::Normal,
    };
    let name = |key| game.header(key).unwrap_or("?").to_owned();
    Ok(PlayedGame { number, white: name("White"), black: name("Black"), result, termination })
}

/// Replaces `path` with `text` through a temporary file, so a crash leaves the old or new file.
fn rewrite(path: &Path, text: &str) -> std::io::Result<()> {
    ferz_files::write_atomic(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openings::{OpeningSettings, schedule};
    use ferz_chess::Color;

    fn openings(pairs: usize) -> Vec<Opening> {
        let settings =
            OpeningSettings { variant: Variant::Chess, order: Default::default(), seed: 7, start: 0, random_plies: 2 };
        schedule(None, &settings, pairs)
    }

    /// A finished game of pair `pair` written the way the runner writes it: the opening, then
    /// the first legal moves until `plies` are on the board, ending `result`.
    fn game_text(openings: &[Opening], number: u64, result: &str) -> String {
        let opening = &openings[((number - 1) / 2) as usize];
        let mut position = opening.exit_position();
        let mut sans = Vec::new();
        let mut replay = opening.start;
        for &m in &opening.moves {
            sans.push(replay.san(m));
            replay.play_unchecked(m);
        }
        for _ in 0..2 {
            let m = position.legal_moves()[0];
            sans.push(position.san(m));
            position.play_unchecked(m);
        }
        let mut moves = String::new();
        for (i, san) in sans.iter().enumerate() {
            if i % 2 == 0 {
                moves.push_str(&format!("{}. ", i / 2 + 1));
            }
            moves.push_str(san);
            moves.push(' ');
        }
        format!(
            "[Event \"t\"]\n[Round \"{number}\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"{result}\"]\n\
             [Termination \"time forfeit\"]\n\n{moves}{result}\n\n"
        )
    }

    fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ferz-resume-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.pgn");
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn a_missing_file_means_nothing_played() {
        let path = std::env::temp_dir().join("ferz-resume-does-not-exist.pgn");
        assert!(load_played(&path, Variant::Chess, &openings(2)).unwrap().is_empty());
    }

    #[test]
    fn finished_games_are_read_back_and_a_cut_tail_is_removed() {
        let openings = openings(3);
        let complete =
            [game_text(&openings, 1, "1-0"), game_text(&openings, 2, "1/2-1/2"), game_text(&openings, 4, "0-1")]
                .concat();
        let cut = &game_text(&openings, 3, "1-0")[..60];
        let path = temp_file("tail", &format!("{complete}{cut}"));
        let played = load_played(&path, Variant::Chess, &openings).unwrap();
        let numbers: Vec<u64> = played.iter().map(|g| g.number).collect();
        assert_eq!(numbers, [1, 2, 4]);
        assert_eq!(played[0].result, GameResult::Win(Color::White));
        assert_eq!(played[1].result, GameResult::Draw);
        assert_eq!(played[2].result, GameResult::Win(Color::Black));
        assert_eq!(played[2].termination, Termination::TimeForfeit);
        assert!(!played[2].a_white() && played[2].pair() == 1);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), complete, "the cut game is gone from the file");
    }

    #[test]
    fn games_of_another_match_are_refused() {
        let ours = openings(2);
        let other = schedule(
            None,
            &OpeningSettings { variant: Variant::Chess, order: Default::default(), seed: 8, start: 0, random_plies: 2 },
            2,
        );
        let path = temp_file("foreign", &game_text(&other, 1, "1-0"));
        let error = load_played(&path, Variant::Chess, &ours).unwrap_err().to_string();
        assert!(error.contains("game 1") && error.contains("opening scheduled for pair 1"), "{error}");

        let path = temp_file("beyond", &game_text(&ours, 3, "1-0"));
        let error = load_played(&path, Variant::Chess, &ours[..1]).unwrap_err().to_string();
        assert!(error.contains("only 2 games"), "{error}");

        let twice = game_text(&ours, 2, "1-0").repeat(2);
        let path = temp_file("twice", &twice);
        let error = load_played(&path, Variant::Chess, &ours).unwrap_err().to_string();
        assert!(error.contains("twice"), "{error}");

        // A cut game in the middle is damage, not a crash while writing.
        let cut = &game_text(&ours, 1, "1-0")[..60];
        let path = temp_file("middle", &format!("{cut}\n{}", game_text(&ours, 2, "1-0")));
        assert!(load_played(&path, Variant::Chess, &ours).is_err());
    }
}
