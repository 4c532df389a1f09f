//! The ferz NNUE trainer: `ferz selfplay` datasets in, a quantised `(768 -> N) x 2 -> 1` net out.
//!
//! [`dataset::load`] reads shards and merged datasets (checksums verified, the variant byte
//! honoured, whole games held out for validation); [`record`] decodes marlin records straight
//! into feature indices; [`model`] is the float network with its sparse backward pass;
//! [`batch`] spreads a batch over all cores; [`optimizer`] is AdamW with a cosine or step
//! schedule; [`trainer::train`] runs the epochs, writing [`checkpoint`]s and quantised nets
//! through [`export`] and keeps the [`run`] record (inputs, settings, net hash). What the
//! trainer shares with the inference crate (the feature indices, the quantisation and the file
//! format) is taken from `ferz_nnue`; docs/train.md is the recipe.

pub mod batch;
pub mod checkpoint;
pub mod config;
pub mod dataset;
pub mod export;
pub mod model;
pub mod optimizer;
pub mod record;
pub mod run;
pub mod trainer;

use std::path::PathBuf;

pub use config::TrainConfig;
pub use trainer::{EpochReport, Observer, Outcome, train};

/// Why a training run cannot go on, with the file concerned.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A dataset directory failed its manifest or checksum check.
    #[error(transparent)]
    Dataset(#[from] ferz_dataset::DatasetError),
    /// A marlin record that cannot be decoded.
    #[error("{}: record {index}: {reason}", path.display())]
    Record {
        /// The marlin file.
        path: PathBuf,
        /// The record's 0-based index in the file.
        index: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A checkpoint that cannot be used.
    #[error("{}: {reason}", path.display())]
    Checkpoint {
        /// The checkpoint file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A run record that cannot be read, or a resume that would not continue its run.
    #[error("{}: {reason}", path.display())]
    Run {
        /// The run record, `run.json`.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The inputs hold nothing to train on.
    #[error("{0}")]
    NoData(String),
    /// The net cannot be quantised or written.
    #[error("{}: {reason}", path.display())]
    Net {
        /// The net file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}
