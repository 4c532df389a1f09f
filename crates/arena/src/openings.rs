//! A match's openings: one per pair of games, from an opening file (read by `ferz_book::openings`)
//! or generated start positions, with random plies.

use std::str::FromStr;

pub use ferz_book::BookError;
pub use ferz_book::openings::{Opening, load as load_book, parse_epd};
use ferz_chess::{Position, ShatranjArray, SplitMix64, Variant};

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
                Opening::at(start)
            })
            .collect(),
    };
    base.into_iter().map(|opening| opening.with_random_plies(settings.random_plies, &mut rng)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(variant: Variant) -> OpeningSettings {
        OpeningSettings { variant, order: BookOrder::Sequential, seed: 1, start: 0, random_plies: 0 }
    }

    /// Three first moves as a book (the reading of EPD itself is ferz-book's to test).
    const EPD: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1
rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1
rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1";

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
}
