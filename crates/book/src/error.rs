//! The one error of a book that cannot be used: Polyglot books and opening files alike.

use std::path::PathBuf;

/// Why a book (Polyglot, or EPD/FEN/PGN openings) cannot be used, with the file.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// The file cannot be opened or mapped.
    #[error("{}: {error}", path.display())]
    Io {
        /// The book file.
        path: PathBuf,
        /// What the system reported (part of the message, not a separate cause).
        error: std::io::Error,
    },
    /// The size is not a multiple of 16 bytes.
    #[error(
        "{}: truncated: {len} bytes is not a whole number of 16-byte entries (the entry at byte offset {offset} is cut short)",
        path.display()
    )]
    Truncated {
        /// The book file.
        path: PathBuf,
        /// Its size in bytes.
        len: u64,
        /// Where the incomplete entry starts.
        offset: u64,
    },
    /// An opening (a line of an EPD/FEN file, a game of a PGN file) is not a legal position or
    /// game of the variant.
    #[error("{}, {location}: {reason}", path.display())]
    Entry {
        /// The book file.
        path: PathBuf,
        /// `line N` or `game N`.
        location: String,
        /// What is wrong.
        reason: String,
    },
    /// The file holds no opening.
    #[error("{}: no positions", path.display())]
    Empty {
        /// The book file.
        path: PathBuf,
    },
    /// An entry's key is smaller than the one before it: lookups would miss moves.
    #[error(
        "{}: not sorted by key: the entry at byte offset {offset} has key {key:016x}, below the previous entry's {previous:016x} (not a Polyglot book, or a damaged one)",
        path.display()
    )]
    Unsorted {
        /// The book file.
        path: PathBuf,
        /// Where the out-of-order entry starts.
        offset: u64,
        /// Its key.
        key: u64,
        /// The key before it.
        previous: u64,
    },
}
