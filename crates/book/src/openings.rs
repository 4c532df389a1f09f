//! The openings games start from: opening files (one EPD/FEN position a line, or PGN games) and
//! the random plies that spread games out. `ferz match` schedules them in pairs, `ferz selfplay`
//! draws them per game; both read files and add random plies here.

use std::path::Path;

use ferz_chess::{Game, Move, Position, SplitMix64, Variant, parse_pgn, parse_positions};

use crate::BookError;

/// Where a game starts: a position and the moves the players do not choose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The start position (written as the PGN `FEN` tag when it is not the standard one).
    pub start: Position,
    /// Moves played from `start` before the players take over.
    pub moves: Vec<Move>,
}

impl Opening {
    /// An opening of no moves from `start`.
    #[must_use]
    pub fn at(start: Position) -> Opening {
        Opening { start, moves: Vec::new() }
    }

    /// The position the players start from.
    #[must_use]
    pub fn exit_position(&self) -> Position {
        let mut position = self.start;
        for &m in &self.moves {
            position.play_unchecked(m);
        }
        position
    }

    /// The opening with `count` uniformly random legal plies added, none of which ends the
    /// game (by the rules or by repetition); the opening as it is when 100 tries find no such
    /// line.
    #[must_use]
    pub fn with_random_plies(mut self, count: u32, rng: &mut SplitMix64) -> Opening {
        if count == 0 {
            return self;
        }
        let mut game = Game::new(self.start);
        for &m in &self.moves {
            game.play(m).expect("an opening's moves are legal");
        }
        self.moves.extend(random_plies(&game, count, rng));
        self
    }
}

/// `count` uniformly random legal plies after `game`, none of which ends it; empty when 100
/// tries find no such line.
#[must_use]
pub fn random_plies(game: &Game, count: u32, rng: &mut SplitMix64) -> Vec<Move> {
    'attempt: for _ in 0..100 {
        let mut line = game.clone();
        let mut moves = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let legal = line.position().legal_moves();
            if line.outcome().is_some() || legal.is_empty() {
                continue 'attempt;
            }
            let m = legal[rng.index(legal.len())];
            line.play(m).expect("a legal move");
            moves.push(m);
        }
        if line.outcome().is_none() {
            return moves;
        }
    }
    Vec::new()
}

/// Reads an opening file: PGN games (`.pgn`, each game's moves up to `max_plies`) or one FEN/EPD
/// position per line (other extensions; blank lines and `#` comments are skipped, EPD operations
/// after the fourth field are ignored).
///
/// # Errors
/// When the file cannot be read, an entry is not legal in `variant`, or the file holds none.
pub fn load(path: &Path, variant: Variant, max_plies: Option<usize>) -> Result<Vec<Opening>, BookError> {
    let text = std::fs::read_to_string(path).map_err(|error| BookError::Io { path: path.to_owned(), error })?;
    let is_pgn = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    let book = if is_pgn { parse_pgn_book(&text, variant, max_plies) } else { parse_epd(&text, variant) };
    let book = book.map_err(|(location, reason)| BookError::Entry { path: path.to_owned(), location, reason })?;
    if book.is_empty() {
        return Err(BookError::Empty { path: path.to_owned() });
    }
    Ok(book)
}

/// One position per line: a FEN, or an EPD whose first four fields are the position.
///
/// # Errors
/// `(location, reason)` of the first bad line.
pub fn parse_epd(text: &str, variant: Variant) -> Result<Vec<Opening>, (String, String)> {
    let positions = parse_positions(text, variant).map_err(|e| (format!("line {}", e.line), e.reason))?;
    Ok(positions.into_iter().map(Opening::at).collect())
}

/// PGN games, each up to `max_plies` of its moves.
///
/// # Errors
/// `(location, reason)` of the first game that is not legal in `variant`.
pub fn parse_pgn_book(
    text: &str,
    variant: Variant,
    max_plies: Option<usize>,
) -> Result<Vec<Opening>, (String, String)> {
    let mut book = Vec::new();
    for (index, game) in parse_pgn(text).iter().enumerate() {
        let (start, mut moves) = game.replay(variant).map_err(|reason| (format!("game {}", index + 1), reason))?;
        if let Some(max) = max_plies {
            moves.truncate(max);
        }
        book.push(Opening { start, moves });
    }
    Ok(book)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPD: &str = "\
# three openings
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"e4\";
rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1

rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq c3 0 1
";

    #[test]
    fn epd_and_fen_lines() {
        let book = parse_epd(EPD, Variant::Chess).unwrap();
        assert_eq!(book.len(), 3);
        assert_eq!(book[0].start.fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        let error = parse_epd("8/8/8/8/8/8/8/8 w - -\n", Variant::Chess).unwrap_err();
        assert_eq!(error.0, "line 1");
        assert!(error.1.contains("king"), "{}", error.1);
    }

    #[test]
    fn files_name_themselves_in_every_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = load(&dir.path().join("nope.epd"), Variant::Chess, None).unwrap_err();
        assert!(matches!(missing, BookError::Io { .. }) && missing.to_string().contains("nope.epd"), "{missing}");
        let bad = dir.path().join("bad.epd");
        std::fs::write(&bad, "# fine\nrnbqkbnr w\n").unwrap();
        let error = load(&bad, Variant::Chess, None).unwrap_err().to_string();
        assert!(error.contains("bad.epd, line 2"), "{error}");
        let empty = dir.path().join("empty.pgn");
        std::fs::write(&empty, "").unwrap();
        assert!(matches!(load(&empty, Variant::Chess, None), Err(BookError::Empty { .. })));
        let pgn = dir.path().join("book.pgn");
        std::fs::write(&pgn, "[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n[Event \"y\"]\n\n1. d4 Qxd7 *\n").unwrap();
        let error = load(&pgn, Variant::Chess, Some(2)).unwrap_err().to_string();
        assert!(error.contains("book.pgn, game 2"), "{error}");
    }

    #[test]
    fn random_plies_never_end_the_game_and_follow_the_seed() {
        for seed in 0..200 {
            let opening = Opening::at(Position::new(Variant::Chess)).with_random_plies(8, &mut SplitMix64::new(seed));
            assert_eq!(opening.moves.len(), 8);
            let mut game = Game::new(opening.start);
            for &m in &opening.moves {
                game.play(m).unwrap();
                assert!(game.outcome().is_none());
            }
            let again = Opening::at(Position::new(Variant::Chess)).with_random_plies(8, &mut SplitMix64::new(seed));
            assert_eq!(opening, again);
        }
        // Stalemate: no random line exists.
        let mated = Position::from_fen("7k/8/6QK/8/8/8/8/8 b - - 0 1", Variant::Chess).unwrap();
        assert!(random_plies(&Game::new(mated), 1, &mut SplitMix64::new(1)).is_empty());
    }

    #[test]
    fn pgn_books() {
        let text = "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n[Event \"b\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n[SetUp \"1\"]\n\n1. e3 Kd7 *\n";
        let book = parse_pgn_book(text, Variant::Chess, Some(3)).unwrap();
        assert_eq!(book.len(), 2);
        assert_eq!(book[0].moves.len(), 3);
        assert_eq!(book[0].exit_position().fen(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
        assert_eq!(book[1].start.fen(), "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
        assert!(parse_pgn_book("1. e4 e4 *", Variant::Chess, None).is_err());
    }
}
