//! The ferz dataset format: what a self-play shard or a merged dataset holds on disk and how a
//! reader trusts it.
//!
//! - [`marlin`]: the 32-byte position record (the codec the opening cache shares for its keys);
//! - [`layout`]: the file names of a shard or dataset directory and their kinds;
//! - [`manifest`]: `manifest.json` (totals, files with sizes and SHA-256) and the atomic JSON and
//!   checksum helpers every writer uses;
//! - `convert` (feature `convert`): a dataset as another trainer's files (bullet's `ChessBoard`
//!   records, viriformat's game chains);
//! - [`import`]: PGN games with `[%eval]` comments as a dataset (`ferz data import`);
//! - [`error`]: [`DatasetError`], the file or directory and what is wrong with it, for every module;
//! - [`sample`]: an even sample of a dataset's positions (to compare nets' scores on);
//! - [`verify`]: opening a directory (every byte checked against the manifest, and the manifest's
//!   counts against what the files hold), merging shards, and the summary `ferz data stats` prints.
//!
//! Self-play writes this format, `ferz data` and the trainer read it. It knows positions
//! (`ferz-chess`) and nothing of search, the opening cache's store or the network.

#[cfg(feature = "convert")]
pub mod convert;
pub mod error;
pub mod import;
pub mod layout;
pub mod manifest;
pub mod marlin;
pub mod sample;
pub mod verify;

pub use error::DatasetError;
pub use layout::FileKind;
pub use manifest::{DatasetManifest, FileEntry, ShardManifest, Tally};
pub use verify::{AnyManifest, open_verified};
