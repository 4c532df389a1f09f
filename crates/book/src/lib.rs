//! Opening knowledge for ferz, shared by the self-play worker (which writes it) and the bot
//! (which plays from it).
//!
//! It owns the sled [`cache::OpeningCache`] of searched opening positions, the Polyglot book
//! format (keys, reader, writer, export: [`polyglot`]). The cache stores its positions as
//! marlin records, the dataset format's codec (`ferz_dataset::marlin`).
//!
//! It knows positions and moves (`ferz-chess`) and the record codec, and nothing of search,
//! games in progress, dataset files or the network.

pub mod cache;
pub mod polyglot;
