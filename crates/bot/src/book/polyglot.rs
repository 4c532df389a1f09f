//! Polyglot books as a move source: the books of each variant, consulted in order, and the
//! selection among a position's entries.

use std::path::PathBuf;

use ferz_book::polyglot::{BookMove, PolyglotBook};
use ferz_chess::Game;

use crate::config::BookSelection;

/// The opened Polyglot books of one variant, in the order the settings list them.
#[derive(Debug, Default)]
pub(crate) struct BookList {
    books: Vec<PolyglotBook>,
}

/// A move from a Polyglot book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PolyglotChoice {
    /// The entry chosen.
    pub chosen: BookMove,
    /// The book it came from.
    pub file: PathBuf,
    /// Sum of the weights of the entries it was chosen from.
    pub total_weight: u32,
    /// How many entries it was chosen from.
    pub candidates: usize,
}

impl BookList {
    /// A list of opened books.
    #[must_use]
    pub(crate) fn new(books: Vec<PolyglotBook>) -> BookList {
        BookList { books }
    }

    /// Whether the list holds no book.
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.books.is_empty()
    }

    /// A move for the game's position from the first book that has one weighing at least
    /// `min_weight`, picked by `selection` with `rng`.
    pub(crate) fn choose(
        &self,
        game: &Game,
        selection: BookSelection,
        min_weight: u16,
        rng: &mut fastrand::Rng,
    ) -> Option<PolyglotChoice> {
        self.books.iter().find_map(|book| {
            let moves: Vec<BookMove> = book.moves(game).into_iter().filter(|m| m.weight >= min_weight).collect();
            let chosen = select(&moves, selection, rng)?;
            Some(PolyglotChoice {
                chosen,
                file: book.path().to_owned(),
                total_weight: moves.iter().map(|m| u32::from(m.weight)).sum(),
                candidates: moves.len(),
            })
        })
    }
}

/// One of `moves` by `selection`: the heaviest (the first on ties), one in proportion to the
/// weights (uniformly when all weigh zero), or any with the same chance.
#[must_use]
pub(crate) fn select(moves: &[BookMove], selection: BookSelection, rng: &mut fastrand::Rng) -> Option<BookMove> {
    if moves.is_empty() {
        return None;
    }
    let total: u32 = moves.iter().map(|m| u32::from(m.weight)).sum();
    match selection {
        BookSelection::Best => {
            let best = moves.iter().map(|m| m.weight).max()?;
            moves.iter().find(|m| m.weight == best).copied()
        }
        BookSelection::Weighted if total > 0 => {
            let mut ticket = rng.u32(0..total);
            moves
                .iter()
                .find(|m| {
                    let weight = u32::from(m.weight);
                    if ticket < weight {
                        return true;
                    }
                    ticket -= weight;
                    false
                })
                .copied()
        }
        BookSelection::Weighted | BookSelection::Uniform => Some(moves[rng.usize(0..moves.len())]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_book::polyglot::{Entry, game_key, polyglot_move, write_book};
    use ferz_chess::{Position, Variant};

    fn moves(weights: &[u16]) -> Vec<BookMove> {
        let pos = Position::new(Variant::Chess);
        pos.legal_moves().iter().zip(weights).map(|(&mv, &weight)| BookMove { mv, weight, learn: 0 }).collect()
    }

    /// How often each of `moves` is picked in `n` draws.
    fn counts(moves: &[BookMove], selection: BookSelection, n: usize) -> Vec<usize> {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut counts = vec![0; moves.len()];
        for _ in 0..n {
            let chosen = select(moves, selection, &mut rng).unwrap();
            counts[moves.iter().position(|m| *m == chosen).unwrap()] += 1;
        }
        counts
    }

    #[test]
    fn best_takes_the_first_heaviest() {
        assert_eq!(counts(&moves(&[3, 9, 9, 1]), BookSelection::Best, 100), [0, 100, 0, 0]);
        assert_eq!(select(&[], BookSelection::Best, &mut fastrand::Rng::with_seed(1)), None);
    }

    #[test]
    fn weighted_follows_the_weights_and_uniform_ignores_them() {
        let n = 20_000;
        let weighted = counts(&moves(&[1, 3, 0, 6]), BookSelection::Weighted, n);
        assert_eq!(weighted[2], 0, "a weight of zero is never drawn");
        for (count, share) in weighted.iter().zip([0.1, 0.3, 0.0, 0.6]) {
            assert!((*count as f64 / n as f64 - share).abs() < 0.02, "{weighted:?}");
        }
        let uniform = counts(&moves(&[1, 3, 0, 6]), BookSelection::Uniform, n);
        assert!(uniform.iter().all(|&c| (c as f64 / n as f64 - 0.25).abs() < 0.02), "{uniform:?}");
        // All weights zero: weighted falls back to uniform rather than to nothing.
        let zeros = counts(&moves(&[0, 0]), BookSelection::Weighted, 1000);
        assert!(zeros.iter().all(|&c| c > 400), "{zeros:?}");
        // The same seed gives the same choices.
        assert_eq!(
            counts(&moves(&[1, 3, 6]), BookSelection::Weighted, 50),
            counts(&moves(&[1, 3, 6]), BookSelection::Weighted, 50)
        );
    }

    #[test]
    fn the_first_book_with_a_heavy_enough_move_wins() {
        let dir = tempfile::tempdir().unwrap();
        let game = Game::new(Position::new(Variant::Chess));
        let pos = *game.position();
        let entry = |uci: &str, weight: u16| Entry {
            key: game_key(&game),
            raw_move: polyglot_move(pos.parse_uci(uci).unwrap()),
            weight,
            learn: 0,
        };
        let open = |name: &str, entries: &mut [Entry]| {
            let path = dir.path().join(name);
            write_book(&path, entries).unwrap();
            PolyglotBook::open(&path).unwrap()
        };
        // The first book has only a light move, the second a heavy one.
        let light = open("light.bin", &mut [entry("a2a3", 1)]);
        let heavy = open("heavy.bin", &mut [entry("e2e4", 50), entry("d2d4", 40)]);
        let list = BookList::new(vec![light, heavy]);
        let mut rng = fastrand::Rng::with_seed(3);
        let first = list.choose(&game, BookSelection::Best, 1, &mut rng).unwrap();
        assert_eq!((pos.uci(first.chosen.mv), first.file.ends_with("light.bin")), ("a2a3".into(), true));
        let second = list.choose(&game, BookSelection::Best, 2, &mut rng).unwrap();
        assert_eq!(pos.uci(second.chosen.mv), "e2e4");
        assert_eq!((second.total_weight, second.candidates), (90, 2));
        assert!(second.file.ends_with("heavy.bin"));
        assert_eq!(list.choose(&game, BookSelection::Weighted, 51, &mut rng), None);
        let mut out = game.clone();
        out.play_uci("h2h4").unwrap();
        assert_eq!(list.choose(&out, BookSelection::Uniform, 0, &mut rng), None);
    }
}
