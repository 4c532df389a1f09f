//! Where self-play games start: the variant drawn by weight and the start position (a book
//! line, a Chess960 array, a Shatranj array). Opening files and random plies are
//! `ferz_book::openings`'.

use std::path::Path;

pub use ferz_book::BookError;
use ferz_book::openings::{Opening, load};
use ferz_chess::{Position, ShatranjArray, SplitMix64, Variant};

use crate::config::VariantMix;

/// Standard-chess start positions: the exit positions of an opening file's entries.
#[derive(Clone, Debug, Default)]
pub struct Book {
    positions: Vec<Position>,
}

impl Book {
    /// Reads an opening file (EPD/FEN lines or PGN games, see `ferz_book::openings::load`).
    ///
    /// # Errors
    /// The file cannot be read, an entry is not a legal chess position or game, or it is empty.
    pub fn load(path: &Path) -> Result<Book, BookError> {
        let openings = load(path, Variant::Chess, None)?;
        Ok(Book { positions: openings.iter().map(Opening::exit_position).collect() })
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
pub struct GameStart {
    /// The variant.
    pub variant: Variant,
    /// The position the game record starts from (book line or array).
    pub start: Position,
}

/// Draws the opening of a game.
///
/// `slot` picks the book line (the shard's offset plus the game's number), so shards given
/// disjoint slot ranges walk disjoint parts of the book; the variant and array come from `rng`.
pub fn draw_opening(mix: &VariantMix, book: &Book, slot: u64, rng: &mut SplitMix64) -> GameStart {
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
    GameStart { variant, start }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(text: &str) -> Book {
        let openings = ferz_book::openings::parse_epd(text, Variant::Chess).unwrap();
        Book { positions: openings.iter().map(Opening::exit_position).collect() }
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
            let (a_start, b_start) = (Opening::at(a.start), Opening::at(b.start));
            let moves = a_start.with_random_plies(4, &mut SplitMix64::derive(6, game)).moves;
            assert_eq!(moves, b_start.with_random_plies(4, &mut SplitMix64::derive(6, game)).moves);
            assert_eq!(moves.len(), 4);
            counts[ferz_dataset::marlin::variant_tag(a.variant) as usize] += 1;
        }
        assert!(counts[2] > counts[0] && counts[2] > counts[1], "{counts:?}");
        assert!(counts.iter().all(|&c| c > 50), "{counts:?}");
    }

    #[test]
    fn book_slots_walk_the_book() {
        let book = book(
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\nrnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -\n",
        );
        let mix = VariantMix::default();
        let a = draw_opening(&mix, &book, 0, &mut SplitMix64::new(1));
        let b = draw_opening(&mix, &book, 1, &mut SplitMix64::new(1));
        let c = draw_opening(&mix, &book, 2, &mut SplitMix64::new(1));
        assert_ne!(a.start, b.start);
        assert_eq!(a.start, c.start);
    }
}
