//! Writing the opening cache as a Polyglot book, for programs that read that format.

use std::path::Path;

use ferz_chess::{Move, Variant};

use super::file::{Entry, write_book};
use super::key::polyglot_key;
use super::moves::polyglot_move;
use crate::cache::{CacheError, OpeningCache};

/// Writes the cache's standard-chess positions as a Polyglot book: every candidate within
/// `margin_cp` of the position's best, weighted by how often games played it (plus one).
/// Only standard chess is exported: the format knows no other variant. Returns the number of
/// entries.
///
/// # Errors
/// A cache that cannot be read or a book that cannot be written.
pub fn export(cache: &OpeningCache, out: &Path, margin_cp: i32) -> Result<usize, ExportError> {
    let mut entries: Vec<Entry> = Vec::new();
    for item in cache.entries() {
        let (variant, _, entry) = item?;
        if variant != Variant::Chess {
            continue;
        }
        let (Some(pos), Some(best)) = (entry.position(), entry.best_score()) else { continue };
        // The cache keeps positions without their history: the key misses the en passant
        // file only after a double push whose capture is illegal, where a book lookup with
        // the last move known would differ.
        let key = polyglot_key(&pos);
        for c in &entry.candidates {
            let Some(m) = Move::from_u16(c.mv).filter(|&m| pos.is_legal(m)) else { continue };
            if i32::from(c.score) >= i32::from(best) - margin_cp {
                let weight = c.plays.saturating_add(1).min(u32::from(u16::MAX)) as u16;
                entries.push(Entry { key, raw_move: polyglot_move(m), weight, learn: 0 });
            }
        }
    }
    write_book(out, &mut entries).map_err(|source| ExportError::Io { path: out.display().to_string(), source })?;
    Ok(entries.len())
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// Reading the cache failed.
    #[error(transparent)]
    Cache(#[from] CacheError),
    /// Writing the book failed.
    #[error("{path}: {source}")]
    Io {
        /// The book file.
        path: String,
        /// What the system reported.
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::polyglot::PolyglotBook;
    use ferz_chess::{Game, Position};

    #[test]
    fn export_writes_a_book_the_reader_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let cache = OpeningCache::open(&dir.path().join("cache")).unwrap();
        let start = Position::new(Variant::Chess);
        let e4 = start.parse_uci("e2e4").unwrap();
        let d4 = start.parse_uci("d2d4").unwrap();
        let a4 = start.parse_uci("a2a4").unwrap();
        cache.record_search(&start, 10, &[(e4, 30), (d4, 25), (a4, -40)]).unwrap();
        cache.record_play(Variant::Chess, start.key(), d4).unwrap();
        let shatranj = Position::new(Variant::Shatranj);
        let m = shatranj.legal_moves()[0];
        cache.record_search(&shatranj, 10, &[(m, 0)]).unwrap();
        let out = dir.path().join("book.bin");
        assert_eq!(export(&cache, &out, 20).unwrap(), 2);
        let bytes = std::fs::read(&out).unwrap();
        assert_eq!(bytes.len(), 32);
        assert_eq!(u64::from_be_bytes(bytes[0..8].try_into().unwrap()), 0x463B_9618_1691_FC9C);
        // d4 was played once: weight 2, first; e4 weight 1.
        let book = PolyglotBook::open(&out).unwrap();
        let moves: Vec<(Move, u16)> = book.moves(&Game::new(start)).iter().map(|b| (b.mv, b.weight)).collect();
        assert_eq!(moves, [(d4, 2), (e4, 1)]);
    }
}
