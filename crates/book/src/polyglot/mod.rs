//! Polyglot opening books (`.bin`): the one implementation of the format in ferz.
//!
//! A book is an array of 16-byte big-endian entries sorted by key: the position's Polyglot key
//! (u64, [`key`]), the move (u16, [`moves`]: to-file, to-rank, from-file, from-rank in 3 bits
//! each, then the promotion piece; castling as king takes own rook), a weight (u16) and a learn
//! field (u32). [`file`](mod@file) reads and writes entries, [`reader`] opens and searches a book, and
//! [`export()`] writes the opening cache as one.

pub mod export;
pub mod file;
pub mod key;
pub mod moves;
mod random;
pub mod reader;

pub use crate::BookError;
pub use export::{ExportError, export};
pub use file::{ENTRY_SIZE, Entry, write_book};
pub use key::{game_key, polyglot_key, polyglot_key_after};
pub use moves::{decode_move, polyglot_move};
pub use reader::{BookMove, PolyglotBook};
