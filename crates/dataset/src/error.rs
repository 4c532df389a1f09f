//! The one error of reading or writing the dataset format: which file or directory, and why.

use std::path::Path;

/// A dataset or shard that cannot be used, with the path and the reason.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct DatasetError {
    /// The directory or file.
    pub path: String,
    /// What is wrong, and what to do.
    pub reason: String,
}

impl DatasetError {
    /// The error of `path`.
    pub fn new(path: &Path, reason: impl Into<String>) -> DatasetError {
        DatasetError { path: path.display().to_string(), reason: reason.into() }
    }
}
