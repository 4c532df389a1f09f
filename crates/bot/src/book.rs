//! The opening book: the self-play opening cache, read by the bot.

use std::path::Path;

use ferz_book::cache::OpeningCache;
use ferz_chess::{Move, Position};

/// A book move and the cache's score for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move.
    pub mv: Move,
    /// Centipawns for the side to move.
    pub score: i32,
    /// Depth of the search behind it.
    pub depth: u32,
}

/// An opened opening cache.
#[derive(Clone, Debug)]
pub struct Book {
    cache: OpeningCache,
    min_depth: u8,
    margin_cp: i32,
}

impl Book {
    /// Opens the cache at `path`.
    ///
    /// # Errors
    /// Why it cannot be opened (missing, or held by a running self-play process).
    pub fn open(path: &Path, min_depth: u8, margin_cp: i32) -> Result<Book, String> {
        if !path.exists() {
            return Err(format!("no opening cache at {}", path.display()));
        }
        let cache = OpeningCache::open(path).map_err(|e| e.to_string())?;
        Ok(Book { cache, min_depth, margin_cp })
    }

    /// A move for `pos`: among the cached candidates within the margin of the best, one at
    /// random (`pick` in `0..1`), so that the bot does not repeat one line forever.
    #[must_use]
    pub fn choose(&self, pos: &Position, pick: f64) -> Option<BookMove> {
        let entry = self.cache.get(pos.variant(), pos.key()).ok().flatten()?;
        if entry.depth < self.min_depth {
            return None;
        }
        let candidates: Vec<BookMove> = entry
            .candidates
            .iter()
            .filter(|c| c.score != i16::MIN)
            .filter_map(|c| {
                let mv = Move::from_u16(c.mv).filter(|&m| pos.is_legal(m))?;
                Some(BookMove { mv, score: i32::from(c.score), depth: u32::from(entry.depth) })
            })
            .collect();
        let best = candidates.iter().map(|c| c.score).max()?;
        let near: Vec<&BookMove> = candidates.iter().filter(|c| c.score >= best - self.margin_cp).collect();
        let index = ((pick.clamp(0.0, 0.999_999)) * near.len() as f64) as usize;
        near.get(index).copied().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::Variant;

    #[test]
    fn picks_only_moves_near_the_best_from_deep_entries() {
        let dir = std::env::temp_dir().join(format!("ferz-bot-book-{}", std::process::id()));
        let pos = Position::new(Variant::Chess);
        {
            let cache = OpeningCache::open(&dir).unwrap();
            let m = |uci: &str| pos.parse_uci(uci).unwrap();
            cache.record_search(&pos, 10, &[(m("e2e4"), 30), (m("d2d4"), 25), (m("a2a3"), -40)]).unwrap();
            cache.flush().unwrap();
        }
        let book = Book::open(&dir, 8, 10).unwrap();
        let chosen: Vec<String> = [0.0, 0.99].iter().map(|&p| pos.uci(book.choose(&pos, p).unwrap().mv)).collect();
        assert_eq!(chosen, ["e2e4", "d2d4"]);
        assert!(book.choose(&pos.play(pos.parse_uci("e2e4").unwrap()).unwrap(), 0.0).is_none());
        drop(book);
        let shallow = Book::open(&dir, 12, 10).unwrap();
        assert!(shallow.choose(&pos, 0.0).is_none());
        drop(shallow);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(Book::open(&dir, 8, 10).is_err());
    }
}
