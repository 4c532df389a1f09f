//! Book entries as bytes, and writing a book file.

use std::path::Path;

/// Bytes per book entry.
pub const ENTRY_SIZE: usize = 16;

/// One book entry as stored: key, raw move, weight and learn field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// The position's Polyglot key.
    pub key: u64,
    /// The move in Polyglot's 16-bit form ([`super::polyglot_move`]).
    pub raw_move: u16,
    /// How good the move is; higher is better, zero often marks a deleted entry.
    pub weight: u16,
    /// A field some programs use for learning; carried through unchanged.
    pub learn: u32,
}

impl Entry {
    /// The entry stored in `bytes` (big-endian).
    #[must_use]
    pub fn from_bytes(bytes: &[u8; ENTRY_SIZE]) -> Entry {
        let [k0, k1, k2, k3, k4, k5, k6, k7, m0, m1, w0, w1, l0, l1, l2, l3] = *bytes;
        Entry {
            key: u64::from_be_bytes([k0, k1, k2, k3, k4, k5, k6, k7]),
            raw_move: u16::from_be_bytes([m0, m1]),
            weight: u16::from_be_bytes([w0, w1]),
            learn: u32::from_be_bytes([l0, l1, l2, l3]),
        }
    }

    /// The entry's 16 bytes.
    #[must_use]
    pub fn to_bytes(&self) -> [u8; ENTRY_SIZE] {
        let mut bytes = [0; ENTRY_SIZE];
        bytes[..8].copy_from_slice(&self.key.to_be_bytes());
        bytes[8..10].copy_from_slice(&self.raw_move.to_be_bytes());
        bytes[10..12].copy_from_slice(&self.weight.to_be_bytes());
        bytes[12..].copy_from_slice(&self.learn.to_be_bytes());
        bytes
    }
}

/// Writes `entries` as a book at `path`, sorted by key (within a key: highest weight first,
/// then by move), through a temporary file renamed into place, so that a reader never sees a
/// half-written book.
///
/// # Errors
/// What the file system reported.
pub fn write_book(path: &Path, entries: &mut [Entry]) -> std::io::Result<()> {
    entries.sort_by(|a, b| a.key.cmp(&b.key).then(b.weight.cmp(&a.weight)).then(a.raw_move.cmp(&b.raw_move)));
    ferz_files::write_with(path, |out| entries.iter().try_for_each(|entry| out.write_all(&entry.to_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_through_bytes_and_files_come_out_sorted() {
        let entry = Entry { key: 0x0102_0304_0506_0708, raw_move: 0x090A, weight: 0x0B0C, learn: 0x0D0E_0F10 };
        let bytes = entry.to_bytes();
        assert_eq!(bytes, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
        assert_eq!(Entry::from_bytes(&bytes), entry);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.bin");
        let mut entries = vec![
            Entry { key: 9, raw_move: 1, weight: 1, learn: 0 },
            Entry { key: 3, raw_move: 2, weight: 1, learn: 0 },
            Entry { key: 9, raw_move: 3, weight: 5, learn: 7 },
        ];
        write_book(&path, &mut entries).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let read: Vec<Entry> =
            bytes.chunks_exact(ENTRY_SIZE).map(|c| Entry::from_bytes(c.try_into().unwrap())).collect();
        assert_eq!(read.iter().map(|e| (e.key, e.raw_move)).collect::<Vec<_>>(), [(3, 2), (9, 3), (9, 1)]);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
    }
}
