//! Where a loop keeps its files, and how it reads and writes them: every record is written
//! whole (a temporary file and a rename) and named in its error when it cannot be read.

use std::path::{Path, PathBuf};

use ferz_dataset::manifest::{read_json, sha256_file, write_json_atomic};
use serde::{Deserialize, Serialize};

use crate::LoopError;

/// The directory of generation `g`.
#[must_use]
pub fn generation_dir(loop_dir: &Path, g: u32) -> PathBuf {
    loop_dir.join(format!("gen-{g:04}"))
}

/// Where a generation's self-play shards are.
#[must_use]
pub fn selfplay_dir(gen_dir: &Path) -> PathBuf {
    gen_dir.join("selfplay")
}

/// Where a generation's training run is.
#[must_use]
pub fn train_dir(gen_dir: &Path) -> PathBuf {
    gen_dir.join("train")
}

/// The recipe a generation is made with: written when it begins, its training and gate
/// settings rewritten by a later run until those stages begin.
pub(crate) const RECIPE_FILE: &str = "recipe.json";

/// Copies `from` to `to` through a temporary file and a rename.
pub(crate) fn copy_atomically(from: &Path, to: &Path) -> Result<(), LoopError> {
    ferz_files::copy_atomic(from, to).map_err(|source| LoopError::Io { path: to.to_path_buf(), source })
}

/// The SHA-256 of a file.
pub(crate) fn hash(path: &Path) -> Result<String, LoopError> {
    sha256_file(path).map(|(sha, _)| sha).map_err(|source| LoopError::Io { path: path.to_path_buf(), source })
}

/// Reads a JSON record, naming the file when it cannot.
pub(crate) fn read<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, LoopError> {
    read_json(path).map_err(|reason| LoopError::Ledger { path: path.to_path_buf(), reason })
}

/// Writes a JSON record through a temporary file and a rename.
pub(crate) fn write<T: Serialize>(path: &Path, value: &T) -> Result<(), LoopError> {
    write_json_atomic(path, value).map_err(|source| LoopError::Io { path: path.to_path_buf(), source })
}
