//! Opening and searching a Polyglot book file.

use std::fmt;
use std::path::{Path, PathBuf};

use ferz_chess::{Game, Move, Position};
use memmap2::Mmap;

use super::file::{ENTRY_SIZE, Entry};
use super::key::polyglot_key_after;
use super::moves::matches;
use crate::BookError;

/// A book move of a position: the legal move, its weight and its learn field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move, legal in the position it was looked up for.
    pub mv: Move,
    /// The entry's weight.
    pub weight: u16,
    /// The entry's learn field.
    pub learn: u32,
}

/// An open, validated Polyglot book.
///
/// The file is memory-mapped: only the pages a lookup touches stay resident, and books of
/// hundreds of megabytes cost no heap. Replace a book in use by renaming a new file over it
/// (the map keeps the old one); truncating it in place would pull pages from under the map.
pub struct PolyglotBook {
    path: PathBuf,
    bytes: Bytes,
}

/// The book's bytes; an empty file cannot be mapped.
enum Bytes {
    Mapped(Mmap),
    Empty,
}

impl PolyglotBook {
    /// Opens the book at `path` and checks it: a whole number of 16-byte entries, sorted by
    /// key.
    ///
    /// # Errors
    /// A file that cannot be read, is truncated or is not sorted, with the file and the byte
    /// offset of the first bad entry.
    pub fn open(path: &Path) -> Result<PolyglotBook, BookError> {
        let io = |error| BookError::Io { path: path.to_owned(), error };
        let file = std::fs::File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let bytes = if len == 0 {
            Bytes::Empty
        } else {
            // SAFETY: the map is read only and private to this process; the type's doc says
            // that the file must be replaced by rename rather than rewritten in place.
            #[allow(unsafe_code)]
            let map = unsafe { Mmap::map(&file) }.map_err(io)?;
            Bytes::Mapped(map)
        };
        let book = PolyglotBook { path: path.to_owned(), bytes };
        book.validate()?;
        Ok(book)
    }

    fn data(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(map) => map,
            Bytes::Empty => &[],
        }
    }

    fn validate(&self) -> Result<(), BookError> {
        let data = self.data();
        let whole = data.len() / ENTRY_SIZE * ENTRY_SIZE;
        if whole != data.len() {
            return Err(BookError::Truncated { path: self.path.clone(), len: data.len() as u64, offset: whole as u64 });
        }
        let mut previous = 0;
        for index in 0..self.len() {
            let key = self.key_at(index);
            if key < previous {
                return Err(BookError::Unsorted {
                    path: self.path.clone(),
                    offset: (index * ENTRY_SIZE) as u64,
                    key,
                    previous,
                });
            }
            previous = key;
        }
        Ok(())
    }

    /// The file the book was opened from.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of entries.
    #[must_use]
    pub fn len(&self) -> usize {
        self.data().len() / ENTRY_SIZE
    }

    /// Whether the book has no entries.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn key_at(&self, index: usize) -> u64 {
        let at = index * ENTRY_SIZE;
        let mut key = [0; 8];
        key.copy_from_slice(&self.data()[at..at + 8]);
        u64::from_be_bytes(key)
    }

    fn entry_at(&self, index: usize) -> Entry {
        let at = index * ENTRY_SIZE;
        let mut bytes = [0; ENTRY_SIZE];
        bytes.copy_from_slice(&self.data()[at..at + ENTRY_SIZE]);
        Entry::from_bytes(&bytes)
    }

    /// Every entry stored under `key`, in file order (a binary search, then a scan).
    pub fn entries(&self, key: u64) -> impl Iterator<Item = Entry> + '_ {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let mid = low + (high - low) / 2;
            if self.key_at(mid) < key { low = mid + 1 } else { high = mid }
        }
        (low..self.len()).map_while(move |i| Some(self.entry_at(i)).filter(|e| e.key == key))
    }

    /// The book moves of `pos`, reached by the move `last` (`None` at the start of a game; it
    /// decides the en passant part of the key), in file order. Entries whose move is not
    /// legal in `pos` are left out.
    #[must_use]
    pub fn moves_after(&self, pos: &Position, last: Option<Move>) -> Vec<BookMove> {
        let mut entries = self.entries(polyglot_key_after(pos, last)).peekable();
        if entries.peek().is_none() {
            return Vec::new();
        }
        let legal = pos.legal_moves();
        entries
            .filter_map(|e| {
                let mv = legal.iter().copied().find(|&m| matches(pos, m, e.raw_move))?;
                Some(BookMove { mv, weight: e.weight, learn: e.learn })
            })
            .collect()
    }

    /// The book moves of a game's current position.
    #[must_use]
    pub fn moves(&self, game: &Game) -> Vec<BookMove> {
        self.moves_after(game.position(), game.moves().last().copied())
    }
}

impl fmt::Debug for PolyglotBook {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PolyglotBook").field("path", &self.path).field("entries", &self.len()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::polyglot::{polyglot_key, polyglot_move, write_book};
    use ferz_chess::Variant;

    fn book_of(dir: &Path, entries: &mut [Entry]) -> PolyglotBook {
        let path = dir.join("book.bin");
        write_book(&path, entries).unwrap();
        PolyglotBook::open(&path).unwrap()
    }

    fn entry(pos: &Position, uci: &str, weight: u16) -> Entry {
        Entry { key: polyglot_key(pos), raw_move: polyglot_move(pos.parse_uci(uci).unwrap()), weight, learn: 0 }
    }

    #[test]
    fn looks_up_every_entry_of_a_key_and_only_those() {
        let dir = tempfile::tempdir().unwrap();
        let start = Position::new(Variant::Chess);
        let e4 = start.play(start.parse_uci("e2e4").unwrap()).unwrap();
        // Neighbouring keys on both sides, so the search must stop at the key's edges.
        let mut entries = vec![
            entry(&start, "e2e4", 10),
            entry(&start, "d2d4", 8),
            Entry { learn: 77, ..entry(&start, "g1f3", 3) },
            entry(&e4, "c7c5", 5),
            Entry { key: polyglot_key(&start) - 1, raw_move: 1, weight: 1, learn: 0 },
            Entry { key: polyglot_key(&start) + 1, raw_move: 1, weight: 1, learn: 0 },
        ];
        let book = book_of(dir.path(), &mut entries);
        assert_eq!(book.len(), 6);
        let moves = book.moves(&Game::new(start));
        let shown: Vec<(String, u16, u32)> = moves.iter().map(|m| (start.uci(m.mv), m.weight, m.learn)).collect();
        assert_eq!(shown, [("e2e4".into(), 10, 0), ("d2d4".into(), 8, 0), ("g1f3".into(), 3, 77)]);
        assert_eq!(book.moves_after(&e4, None).len(), 1);
        let nowhere = e4.play(e4.parse_uci("a7a6").unwrap()).unwrap();
        assert!(book.moves_after(&nowhere, None).is_empty());
        assert_eq!(book.entries(0).count(), 0);
        assert_eq!(book.entries(u64::MAX).count(), 0);
    }

    #[test]
    fn illegal_moves_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let start = Position::new(Variant::Chess);
        let key = polyglot_key(&start);
        let e2e5 = (4 | 4 << 3) | (4 << 6 | 1 << 9);
        let e1h1 = 7 | (4 << 6);
        let mut entries = vec![
            Entry { key, raw_move: e2e5, weight: 50, learn: 0 },
            Entry { key, raw_move: e1h1, weight: 40, learn: 0 },
            entry(&start, "b1c3", 1),
        ];
        let book = book_of(dir.path(), &mut entries);
        assert_eq!(book.entries(key).count(), 3);
        let moves = book.moves(&Game::new(start));
        assert_eq!(moves.iter().map(|m| start.uci(m.mv)).collect::<Vec<_>>(), ["b1c3"]);
    }

    #[test]
    fn castling_entries_become_ferz_castles_in_chess_and_chess960() {
        let dir = tempfile::tempdir().unwrap();
        let chess = Position::from_fen("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1", Variant::Chess).unwrap();
        let c960 =
            Position::from_fen("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1", Variant::Chess960).unwrap();
        let mut entries = vec![
            Entry { key: polyglot_key(&chess), raw_move: 7 | (4 << 6), weight: 2, learn: 0 },
            Entry { key: polyglot_key(&chess), raw_move: 4 << 6, weight: 1, learn: 0 },
            Entry { key: polyglot_key(&c960), raw_move: 6 | (4 << 6), weight: 1, learn: 0 },
            Entry { key: polyglot_key(&c960), raw_move: 1 | (4 << 6), weight: 1, learn: 0 },
        ];
        let book = book_of(dir.path(), &mut entries);
        let chess_moves = book.moves_after(&chess, None);
        assert!(chess_moves.iter().all(|m| m.mv.is_castle()));
        assert_eq!(chess_moves.iter().map(|m| chess.uci(m.mv)).collect::<Vec<_>>(), ["e1g1", "e1c1"]);
        let c960_moves = book.moves_after(&c960, None);
        assert!(c960_moves.iter().all(|m| m.mv.is_castle()));
        assert_eq!(c960_moves.iter().map(|m| c960.uci(m.mv)).collect::<Vec<_>>(), ["e1b1", "e1g1"]);
    }

    #[test]
    fn truncated_and_unsorted_files_are_refused_with_the_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.bin");
        let a = Entry { key: 5, raw_move: 1, weight: 1, learn: 0 }.to_bytes();
        let b = Entry { key: 3, raw_move: 1, weight: 1, learn: 0 }.to_bytes();
        std::fs::write(&path, [&a[..], &a[..], &b[..]].concat()).unwrap();
        let err = PolyglotBook::open(&path).unwrap_err().to_string();
        assert!(err.contains("bad.bin") && err.contains("not sorted") && err.contains("byte offset 32"), "{err}");
        std::fs::write(&path, [&b[..], &a[..], &a[..7]].concat()).unwrap();
        let err = PolyglotBook::open(&path).unwrap_err().to_string();
        assert!(err.contains("bad.bin: truncated: 39 bytes") && err.contains("byte offset 32"), "{err}");
        let err = PolyglotBook::open(&dir.path().join("missing.bin")).unwrap_err().to_string();
        assert!(err.contains("missing.bin"), "{err}");
        std::fs::write(&path, []).unwrap();
        let empty = PolyglotBook::open(&path).unwrap();
        assert!(empty.is_empty() && empty.moves(&Game::new(Position::new(Variant::Chess))).is_empty());
    }
}
