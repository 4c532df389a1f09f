//! Opening knowledge for ferz, shared by the self-play worker, the match runner and the bot.
//!
//! It owns the sled [`cache::OpeningCache`] of searched opening positions, the Polyglot book
//! format (keys, reader, writer, export: [`polyglot`]), and the openings games start from
//! ([`openings`]: EPD/FEN and PGN opening files, random plies), with one [`BookError`]. The
//! cache stores its positions as marlin records, the dataset format's codec
//! (`ferz_dataset::marlin`).
//!
//! It knows positions and moves (`ferz-chess`) and the record codec, and nothing of search,
//! games in progress, dataset files or the network.

pub mod cache;
mod error;
pub mod openings;
pub mod polyglot;

pub use error::BookError;
