//! Openings: a book (EPD/FEN lines or PGN games) or generated start positions, one per pair.

use std::path::Path;
use std::str::FromStr;

use ferz_chess::{Game, Move, Position, ShatranjArray, SplitMix64, Variant, parse_pgn, parse_positions};

/// Where a game starts: a position and the moves the engines do not choose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// The start position (written as the PGN `FEN` tag when it is not the standard one).
    pub start: Position,
    /// Moves played from `start` before the engines take over.
    pub moves: Vec<Move>,
}

impl Opening {
    /// The position the engines start from.
    #[must_use]
    pub fn exit_position(&self) -> Position {
        let mut position = self.start;
        for &m in &self.moves {
            position.play_unchecked(m);
        }
        position
    }
}

/// The order book entries are used in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum BookOrder {
    /// As in the file, from `--book-start` on.
    #[default]
    Sequential,
    /// Shuffled once by the seed, then taken in turn, so no opening repeats before the book is
    /// used up.
    Random,
}

impl FromStr for BookOrder {
    type Err = String;

    fn from_str(s: &str) -> Result<BookOrder, String> {
        match s {
            "sequential" => Ok(BookOrder::Sequential),
            "random" => Ok(BookOrder::Random),
            _ => Err(format!("unknown book order {s:?}: expected sequential or random")),
        }
    }
}

/// A book that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file cannot be read.
    #[error("cannot read book {path}: {error}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        error: std::io::Error,
    },
    /// An entry is not a legal position or game.
    #[error("book {path}, {location}: {reason}")]
    Entry {
        /// The file.
        path: String,
        /// `line N` or `game N`.
        location: String,
        /// What is wrong.
        reason: String,
    },
    /// Nothing usable in the file.
    #[error("book {0} has no positions")]
    Empty(String),
}

/// Reads a book: PGN games (`.pgn`, each game's moves up to `max_plies`) or one FEN/EPD position
/// per line (other extensions; blank lines and `#` comments are skipped, EPD operations after
/// the fourth field are ignored).
///
/// # Errors
/// When the file cannot be read, an entry is not legal in `variant`, or the book is empty.
pub fn load_book(path: &Path, variant: Variant, max_plies: Option<usize>) -> Result<Vec<Opening>, BookError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| BookError::Read { path: name.clone(), error })?;
    let is_pgn = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    let book = if is_pgn { parse_pgn_book(&text, variant, max_plies) } else { parse_epd(&text, variant) };
    let book = book.map_err(|(location, reason)| BookError::Entry { path: name.clone(), location, reason })?;
    if book.is_empty() {
        return Err(BookError::Empty(name));
    }
    Ok(book)
}

/// One position per line: a FEN, or an EPD whose first four fields are the position.
///
/// # Errors
/// `(location, reason)` of the first bad line.
pub fn parse_epd(text: &str, variant: Variant) -> Result<Vec<Opening>, (String, String)> {
    let positions = parse_positions(text, variant).map_err(|e| (format!("line {}", e.line), e.reason))?;
    Ok(positions.into_iter().map(|start| Opening { start, moves: Vec::new() }).collect())
}

fn parse_pgn_book(text: &str, variant: Variant, max_plies: Option<usize>) -> Result<Vec<Opening>, (String, String)> {
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

/// How openings are chosen for a match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningSettings {
    /// The rules.
    pub variant: Variant,
    /// Book order.
    pub order: BookOrder,
    /// Seed for the shuffle, random start positions and random plies.
    pub seed: u64,
    /// Index of the first book entry to use (0-based; the book wraps around).
    pub start: usize,
    /// Uniformly random legal moves added after the book entry or start position.
    pub random_plies: u32,
}

/// One opening per pair of games. With a book, entries in order (or shuffled) from `start`,
/// wrapping around; without one, the variant's start positions: a random Scharnagl number
/// per pair for Chess960, the two Shatranj arrays in turn, the standard array for chess.
/// Random plies then vary each pair's opening.
#[must_use]
pub fn schedule(book: Option<&[Opening]>, settings: &OpeningSettings, pairs: usize) -> Vec<Opening> {
    let mut rng = SplitMix64::new(settings.seed);
    let base: Vec<Opening> = match book {
        Some(book) if !book.is_empty() => {
            let mut order: Vec<usize> = (0..book.len()).collect();
            if settings.order == BookOrder::Random {
                rng.shuffle(&mut order);
            }
            (0..pairs).map(|i| book[order[(settings.start + i) % book.len()]].clone()).collect()
        }
        _ => (0..pairs)
            .map(|i| {
                let start = match settings.variant {
                    Variant::Chess => Position::new(Variant::Chess),
                    Variant::Chess960 => Position::random_chess960(|| rng.next_u64()),
                    Variant::Shatranj => {
                        let array = if i % 2 == 0 { ShatranjArray::KingOnD } else { ShatranjArray::KingOnE };
                        Position::shatranj(array)
                    }
                };
                Opening { start, moves: Vec::new() }
            })
            .collect(),
    };
    base.into_iter().map(|opening| add_random_plies(opening, settings.random_plies, &mut rng)).collect()
}

/// Extends an opening by `plies` random legal moves that do not end the game; keeps it as it
/// is if no such line is found.
fn add_random_plies(opening: Opening, plies: u32, rng: &mut SplitMix64) -> Opening {
    if plies == 0 {
        return opening;
    }
    for _ in 0..100 {
        let mut game = Game::new(opening.start);
        for &m in &opening.moves {
            game.play(m).expect("book moves are legal");
        }
        let mut moves = opening.moves.clone();
        let mut ok = true;
        for _ in 0..plies {
            let legal = game.position().legal_moves();
            if game.outcome().is_some() || legal.is_empty() {
                ok = false;
                break;
            }
            let m = legal[rng.index(legal.len())];
            game.play(m).expect("legal");
            moves.push(m);
        }
        if ok && game.outcome().is_none() {
            return Opening { start: opening.start, moves };
        }
    }
    opening
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(variant: Variant) -> OpeningSettings {
        OpeningSettings { variant, order: BookOrder::Sequential, seed: 1, start: 0, random_plies: 0 }
    }

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
    }

    #[test]
    fn sequential_books_wrap_and_random_books_use_every_entry_once() {
        let book = parse_epd(EPD, Variant::Chess).unwrap();
        let openings = schedule(Some(&book), &OpeningSettings { start: 1, ..settings(Variant::Chess) }, 4);
        let fens: Vec<String> = openings.iter().map(|o| o.start.fen()).collect();
        assert_eq!(fens[0], book[1].start.fen());
        assert_eq!(fens[1], book[2].start.fen());
        assert_eq!(fens[2], book[0].start.fen());
        assert_eq!(fens[3], book[1].start.fen());
        let random =
            schedule(Some(&book), &OpeningSettings { order: BookOrder::Random, ..settings(Variant::Chess) }, 3);
        let mut used: Vec<String> = random.iter().map(|o| o.start.fen()).collect();
        used.sort();
        let mut all: Vec<String> = book.iter().map(|o| o.start.fen()).collect();
        all.sort();
        assert_eq!(used, all);
        // The same seed gives the same schedule.
        let again = schedule(Some(&book), &OpeningSettings { order: BookOrder::Random, ..settings(Variant::Chess) }, 3);
        assert_eq!(random, again);
    }

    #[test]
    fn generated_openings_per_variant() {
        let c960 = schedule(None, &settings(Variant::Chess960), 20);
        let distinct: std::collections::HashSet<String> = c960.iter().map(|o| o.start.fen()).collect();
        assert!(distinct.len() >= 18, "{distinct:?}");
        assert!(c960.iter().all(|o| o.start.variant() == Variant::Chess960));
        let shatranj = schedule(None, &settings(Variant::Shatranj), 4);
        assert_eq!(shatranj[0].start, Position::shatranj(ShatranjArray::KingOnD));
        assert_eq!(shatranj[1].start, Position::shatranj(ShatranjArray::KingOnE));
        assert_eq!(shatranj[2].start, Position::shatranj(ShatranjArray::KingOnD));
        let chess = schedule(None, &OpeningSettings { random_plies: 6, ..settings(Variant::Chess) }, 10);
        assert!(chess.iter().all(|o| o.moves.len() == 6 && o.start == Position::new(Variant::Chess)));
        let distinct: std::collections::HashSet<String> = chess.iter().map(|o| o.exit_position().fen()).collect();
        assert_eq!(distinct.len(), 10);
        // Reproducible from the seed, different with another seed.
        assert_eq!(chess, schedule(None, &OpeningSettings { random_plies: 6, ..settings(Variant::Chess) }, 10));
        let other = schedule(None, &OpeningSettings { random_plies: 6, seed: 2, ..settings(Variant::Chess) }, 10);
        assert_ne!(chess, other);
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
