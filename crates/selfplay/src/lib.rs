//! The ferz self-play worker: the engine plays itself in-process to make training data.
//!
//! A run is one shard ([`shard::run_shard`]): worker threads, each with its own engine, play
//! games whose openings come from a book, random plies and MultiPV candidates shared through
//! the sled opening cache of `ferz-book`; one writer appends the filtered positions in text and
//! marlin form and every game as PGN, checkpointing so that a killed shard resumes without
//! duplicating a game. Shards of one run derive disjoint seeds and book slices from their
//! index; `ferz_dataset` owns the format they are written in and merges them back into one dataset.
//!
//! It knows the engine, the rules, the dataset format (`ferz-dataset`) and the opening cache
//! (`ferz-book`); nothing of UCI processes, the bot or the network.

pub mod checkpoint;
pub mod config;
pub mod formats;
pub mod game;
pub mod journal;
pub mod opening;
pub mod shard;

pub use config::SelfplayConfig;
pub use shard::{Progress, RunError, ShardOutcome, ShardSpec, run_shard};
