//! The self-play opening cache as a move source, after the Polyglot books.

use std::path::Path;

use ferz_book::cache::OpeningCache;
use ferz_chess::{Move, Position};

/// A cache move and the cache's score for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CacheMove {
    /// The move.
    pub mv: Move,
    /// Centipawns for the side to move.
    pub score: i32,
    /// Depth of the search behind it.
    pub depth: u32,
}

/// An opened opening cache with the bot's rules for using it.
#[derive(Clone)]
pub(crate) struct CacheBook {
    cache: OpeningCache,
    min_depth: u8,
    margin_cp: i32,
}

impl std::fmt::Debug for CacheBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CacheBook").field("min_depth", &self.min_depth).field("margin_cp", &self.margin_cp).finish()
    }
}

impl CacheBook {
    /// Opens the cache at `path`, which must exist.
    ///
    /// # Errors
    /// Why it cannot be opened (held by a running self-play process, damaged).
    pub(crate) fn open(path: &Path, min_depth: u8, margin_cp: i32) -> Result<CacheBook, String> {
        let cache = OpeningCache::open(path).map_err(|e| e.to_string())?;
        Ok(CacheBook { cache, min_depth, margin_cp })
    }

    /// A move for `pos`: among the cached candidates within the margin of the best, the one
    /// `pick` (in `0..1`) lands on, so that the bot does not repeat one line forever.
    #[must_use]
    pub(crate) fn choose(&self, pos: &Position, pick: f64) -> Option<CacheMove> {
        let entry = self.cache.get(pos.variant(), pos.key()).ok().flatten()?;
        if entry.depth < self.min_depth {
            return None;
        }
        let candidates: Vec<CacheMove> = entry
            .candidates
            .iter()
            .filter(|c| c.score != i16::MIN)
            .filter_map(|c| {
                let mv = Move::from_u16(c.mv).filter(|&m| pos.is_legal(m))?;
                Some(CacheMove { mv, score: i32::from(c.score), depth: u32::from(entry.depth) })
            })
            .collect();
        let best = candidates.iter().map(|c| c.score).max()?;
        let near: Vec<&CacheMove> = candidates.iter().filter(|c| c.score >= best - self.margin_cp).collect();
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
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache");
        let pos = Position::new(Variant::Chess);
        {
            let cache = OpeningCache::open(&path).unwrap();
            let m = |uci: &str| pos.parse_uci(uci).unwrap();
            cache.record_search(&pos, 10, &[(m("e2e4"), 30), (m("d2d4"), 25), (m("a2a3"), -40)]).unwrap();
            cache.flush().unwrap();
        }
        let book = CacheBook::open(&path, 8, 10).unwrap();
        let chosen: Vec<String> = [0.0, 0.99].iter().map(|&p| pos.uci(book.choose(&pos, p).unwrap().mv)).collect();
        assert_eq!(chosen, ["e2e4", "d2d4"]);
        assert!(book.choose(&pos.play(pos.parse_uci("e2e4").unwrap()).unwrap(), 0.0).is_none());
        drop(book);
        let shallow = CacheBook::open(&path, 12, 10).unwrap();
        assert!(shallow.choose(&pos, 0.0).is_none());
    }
}
