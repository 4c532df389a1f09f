//! Opening knowledge for ferz, shared by the self-play worker (which writes it) and the bot
//! (which plays from it).
//!
//! It owns the sled [`cache::OpeningCache`] of searched opening positions, the Polyglot book
//! format (keys, reader, writer, export: [`polyglot`]), and the 32-byte marlin position codec
//! ([`marlin`]) that the cache stores positions in and datasets store training records in.
//!
//! It knows positions and moves (`ferz-chess`) and nothing of search, games in progress, dataset
//! files or the network.

pub mod cache;
pub mod marlin;
pub mod polyglot;
