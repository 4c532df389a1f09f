//! What can go wrong opening or probing tablebases.

use std::path::PathBuf;

/// Opening a tablebase directory failed.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// A directory or file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The directory or file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A table file is not a valid Syzygy table (wrong magic, truncated, inconsistent header).
    #[error("{path}: not a valid Syzygy table: {reason}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

/// A probe could not give a value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// Tablebases describe standard chess only (Chess960 positions without castling rights
    /// included), never Shatranj.
    #[error("tablebases do not cover Shatranj")]
    Shatranj,
    /// Positions with castling rights are not in the tables.
    #[error("tablebases do not cover positions with castling rights")]
    CastlingRights,
    /// More pieces than the largest table holds.
    #[error("{pieces} pieces, but the tables hold at most {max}")]
    TooManyPieces {
        /// Pieces on the board.
        pieces: u32,
        /// The largest table's piece count.
        max: u32,
    },
    /// The table for this material (or for one reached by a capture) is not installed.
    #[error("no {kind} table for {material}")]
    MissingTable {
        /// `WDL` or `DTZ`.
        kind: &'static str,
        /// The material, e.g. `KQvKR`.
        material: String,
    },
    /// A table's compressed data is inconsistent where the probe read it.
    #[error("{table}: corrupt data: {reason}")]
    Corrupt {
        /// The table file name, e.g. `KQvKR.rtbw`.
        table: String,
        /// What was wrong.
        reason: &'static str,
    },
}
