//! Where games start: the variant and the start position (a book line, a Chess960 array, a
//! Shatranj array), and the random plies that spread games out.

use std::path::Path;

use ferz_chess::{Move, Position, ShatranjArray, SplitMix64, Variant, parse_positions};

use crate::config::VariantMix;

/// A book that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file could not be read.
    #[error("opening book {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the system reported.
        source: std::io::Error,
    },
    /// A line is not a legal chess position.
    #[error("opening book {path}, line {line}: {message}")]
    Position {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// The file has no positions.
    #[error("opening book {path} has no positions")]
    Empty {
        /// The file.
        path: String,
    },
}

/// Standard-chess start positions, one per non-empty line of an EPD or FEN file.
#[derive(Clone, Debug, Default)]
pub struct Book {
    positions: Vec<Position>,
}

impl Book {
    /// Reads an EPD file (the first four fields of a line are the position; operations after
    /// them are ignored) or a FEN file. Lines starting with `#` are comments.
    pub fn load(path: &Path) -> Result<Book, BookError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| BookError::Io { path: shown.clone(), source })?;
        Book::parse(&text)
            .map_err(|(line, message)| BookError::Position { path: shown.clone(), line, message })?
            .nonempty(&shown)
    }

    fn nonempty(self, path: &str) -> Result<Book, BookError> {
        if self.positions.is_empty() { Err(BookError::Empty { path: path.to_owned() }) } else { Ok(self) }
    }

    /// Parses book text; the error is the 1-based line and what is wrong.
    pub fn parse(text: &str) -> Result<Book, (usize, String)> {
        let positions = parse_positions(text, Variant::Chess).map_err(|e| (e.line, e.reason))?;
        Ok(Book { positions })
    }

    /// Positions in the book.
    #[must_use]
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the book is empty (no book: games start from the start position).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}

/// The start of one game: its variant and start position.
#[derive(Clone, Copy, Debug)]
pub struct Opening {
    /// The variant.
    pub variant: Variant,
    /// The position the game record starts from (book line or array).
    pub start: Position,
}

/// Draws the opening of a game.
///
/// `slot` picks the book line (the shard's offset plus the game's number), so shards given
/// disjoint slot ranges walk disjoint parts of the book; the variant and array come from `rng`.
pub fn draw_opening(mix: &VariantMix, book: &Book, slot: u64, rng: &mut SplitMix64) -> Opening {
    let weights = [(Variant::Chess, mix.chess), (Variant::Chess960, mix.chess960), (Variant::Shatranj, mix.shatranj)];
    let total: u64 = weights.iter().map(|&(_, w)| u64::from(w)).sum();
    let mut pick = rng.below(total.max(1));
    let variant = weights
        .iter()
        .find(|&&(_, w)| {
            let hit = pick < u64::from(w);
            pick = pick.saturating_sub(u64::from(w));
            hit
        })
        .map_or(Variant::Chess, |&(v, _)| v);
    let start = match variant {
        Variant::Chess if !book.is_empty() => book.positions[(slot % book.len() as u64) as usize],
        Variant::Chess => Position::new(Variant::Chess),
        Variant::Chess960 => Position::chess960(rng.below(960) as u32).expect("0..960 is a Scharnagl number"),
        Variant::Shatranj => {
            Position::shatranj(if rng.below(2) == 0 { ShatranjArray::KingOnD } else { ShatranjArray::KingOnE })
        }
    };
    Opening { variant, start }
}

/// Up to `count` uniformly random legal plies from `pos`. A sequence that ends the game is
/// drawn again; after a few tries the game gets no random plies rather than a finished game.
pub fn random_plies(pos: &Position, count: u32, rng: &mut SplitMix64) -> Vec<Move> {
    for _attempt in 0..8 {
        let mut moves = Vec::new();
        let mut current = *pos;
        for _ in 0..count {
            let legal = current.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.below(legal.len() as u64) as usize];
            current.play_unchecked(m);
            moves.push(m);
        }
        if !current.legal_moves().is_empty() && current.outcome().is_none() {
            return moves;
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn books_read_epd_and_fen_and_report_bad_lines() {
        let book = Book::parse(
            "# comment\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - c0 \"e4\";\n\n\
             rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n",
        )
        .unwrap();
        assert_eq!(book.len(), 2);
        let (line, message) = Book::parse("8/8/8/8/8/8/8/8 w - -\n").unwrap_err();
        assert_eq!(line, 1);
        assert!(message.contains("king"), "{message}");
        assert_eq!(Book::parse("rnbqkbnr w\n").unwrap_err().0, 1);
    }

    #[test]
    fn openings_follow_the_weights_and_are_reproducible() {
        let mix = VariantMix { chess: 1, chess960: 1, shatranj: 2 };
        let book = Book::default();
        let mut counts = [0; 3];
        for game in 0..400 {
            let a = draw_opening(&mix, &book, game, &mut SplitMix64::derive(5, game));
            let b = draw_opening(&mix, &book, game, &mut SplitMix64::derive(5, game));
            assert_eq!(a.start, b.start);
            let moves = random_plies(&a.start, 4, &mut SplitMix64::derive(6, game));
            assert_eq!(moves, random_plies(&b.start, 4, &mut SplitMix64::derive(6, game)));
            assert_eq!(moves.len(), 4);
            counts[ferz_dataset::marlin::variant_tag(a.variant) as usize] += 1;
        }
        assert!(counts[2] > counts[0] && counts[2] > counts[1], "{counts:?}");
        assert!(counts.iter().all(|&c| c > 50), "{counts:?}");
    }

    #[test]
    fn book_slots_walk_the_book() {
        let book = Book::parse(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\nrnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -\n",
        )
        .unwrap();
        let mix = VariantMix::default();
        let a = draw_opening(&mix, &book, 0, &mut SplitMix64::new(1));
        let b = draw_opening(&mix, &book, 1, &mut SplitMix64::new(1));
        let c = draw_opening(&mix, &book, 2, &mut SplitMix64::new(1));
        assert_ne!(a.start, b.start);
        assert_eq!(a.start, c.start);
    }
}
