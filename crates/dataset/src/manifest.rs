//! `manifest.json` of a complete shard or merged dataset, and the file helpers that keep it
//! (and every other JSON record of ferz's runs) trustworthy: atomic writes and SHA-256.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::DatasetError;
use sha2::{Digest, Sha256};

/// The `format` value of shard manifests this build writes and reads.
pub const SHARD_FORMAT: &str = "ferz-selfplay-shard/1";
/// The `format` value of merged datasets.
pub const DATASET_FORMAT: &str = "ferz-selfplay-dataset/1";

/// Running totals of a shard.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Games written.
    pub games: u64,
    /// Games won by white.
    pub white_wins: u64,
    /// Drawn games.
    pub draws: u64,
    /// Games won by black.
    pub black_wins: u64,
    /// Games per variant (`chess`, `chess960`, `shatranj`).
    pub games_by_variant: BTreeMap<String, u64>,
    /// Positions written per variant.
    pub positions_by_variant: BTreeMap<String, u64>,
    /// Games per way of ending (`rules`, `adjudicated_win`, `adjudicated_draw`, `ply_cap`).
    pub terminations: BTreeMap<String, u64>,
    /// Positions dropped because the shard already had them.
    pub duplicates_skipped: u64,
    /// Plies played (all games).
    pub plies: u64,
}

impl Tally {
    /// Positions written in all variants.
    #[must_use]
    pub fn positions(&self) -> u64 {
        self.positions_by_variant.values().sum()
    }

    /// Adds another tally (merging shards).
    pub fn add(&mut self, other: &Tally) {
        self.games += other.games;
        self.white_wins += other.white_wins;
        self.draws += other.draws;
        self.black_wins += other.black_wins;
        for (map, theirs) in [
            (&mut self.games_by_variant, &other.games_by_variant),
            (&mut self.positions_by_variant, &other.positions_by_variant),
            (&mut self.terminations, &other.terminations),
        ] {
            for (key, n) in theirs {
                *map.entry(key.clone()).or_default() += n;
            }
        }
        self.duplicates_skipped += other.duplicates_skipped;
        self.plies += other.plies;
    }
}

/// One output file of a shard or dataset.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// The file name inside the directory.
    pub name: String,
    /// Its size.
    pub bytes: u64,
    /// Records (lines, marlin records or games) in it.
    pub records: u64,
    /// SHA-256 of its contents, lower-case hex.
    pub sha256: String,
}

/// Opening-cache figures of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CacheReport {
    /// Opening positions looked up.
    pub lookups: u64,
    /// Of those, answered by the cache.
    pub hits: u64,
    /// MultiPV searches run on misses.
    pub opening_searches: u64,
    /// Seconds those searches took.
    pub opening_search_seconds: f64,
    /// Hits times the average miss search: the search time the cache saved.
    pub estimated_seconds_saved: f64,
}

/// `manifest.json` of a complete shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardManifest {
    /// Always [`SHARD_FORMAT`].
    pub format: String,
    /// `ferz <version>`.
    pub engine: String,
    /// This shard's index.
    pub shard_index: u32,
    /// Shards in the run.
    pub shard_count: u32,
    /// The run's seed.
    pub seed: u64,
    /// The seed this shard derived from it.
    pub shard_seed: u64,
    /// Totals.
    pub tally: Tally,
    /// Opening-cache figures.
    pub cache: CacheReport,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds of play (summed over resumed sessions).
    pub seconds: f64,
    /// The settings the shard was played with, as its writer records them (`ferz selfplay`'s
    /// settings file as a tree), so that anyone can play the shard again.
    pub settings: serde_json::Value,
    /// The files, with sizes and checksums.
    pub files: Vec<FileEntry>,
}

/// `manifest.json` of a merged dataset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DatasetManifest {
    /// Always [`DATASET_FORMAT`].
    pub format: String,
    /// The shards merged, as `index/count` with their seeds.
    pub shards: Vec<String>,
    /// Whether the records were shuffled, and with which seed.
    pub shuffle_seed: Option<u64>,
    /// Totals over all shards.
    pub tally: Tally,
    /// The files, with sizes and checksums.
    pub files: Vec<FileEntry>,
}

/// Writes `value` as pretty JSON to `path` through a temporary file and a rename, so readers
/// see the old file or the new one, never half of one.
pub fn write_json_atomic<T: Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    ferz_files::write_atomic(path, &json_bytes(value)?)
}

/// Writes `value` as JSON to `path` only if no file is there, atomically even against other
/// processes doing the same (the tasks of a scheduler's job array): the first writer's file
/// stays. Returns whether this call wrote it.
pub fn write_json_if_absent<T: Serialize>(path: &Path, value: &T) -> std::io::Result<bool> {
    ferz_files::write_if_absent(path, &json_bytes(value)?)
}

/// `value` as pretty JSON with a final newline.
fn json_bytes<T: Serialize>(value: &T) -> std::io::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Reads a JSON file written by [`write_json_atomic`]. The error is the reason alone: every
/// caller names the file in its own error.
pub fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| e.to_string())
}

/// SHA-256 of a file, lower-case hex, and its size.
pub fn sha256_file(path: &Path) -> std::io::Result<(String, u64)> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 16];
    let mut size = 0;
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        size += n as u64;
    }
    Ok((hex(&hasher.finalize()), size))
}

/// SHA-256 of bytes in memory, lower-case hex (as [`sha256_file`] gives it for a file).
#[must_use]
pub fn sha256_bytes(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The first 16 characters of a SHA-256, as messages and reports name a file (whole characters:
/// a hand-edited ledger or state may hold any text there).
#[must_use]
pub fn short_sha(sha256: &str) -> String {
    sha256.chars().take(16).collect()
}

fn hex(digest: &[u8]) -> String {
    digest.iter().fold(String::with_capacity(64), |mut s, b| {
        use std::fmt::Write as _;
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// Checks every file of a manifest against its recorded size and checksum; the error names
/// the file.
pub fn verify_files(dir: &Path, files: &[FileEntry]) -> Result<(), DatasetError> {
    for entry in files {
        let path = dir.join(&entry.name);
        let (sha, size) = sha256_file(&path).map_err(|e| DatasetError::new(&path, e.to_string()))?;
        if size != entry.bytes {
            return Err(DatasetError::new(&path, format!("{size} bytes, the manifest says {}", entry.bytes)));
        }
        if sha != entry.sha256 {
            return Err(DatasetError::new(
                &path,
                format!("checksum {sha} differs from the manifest's {}", entry.sha256),
            ));
        }
    }
    Ok(())
}

/// The first leaf where two records of settings differ, as (dotted key, old value, new value):
/// what a resume that would not continue its run names. `key` is the prefix of the keys (empty
/// at the top).
pub fn first_difference(was: &Value, now: &Value, key: &str) -> Option<(String, String, String)> {
    differences(was, now, key).into_iter().next()
}

/// Every leaf where two records of settings differ, in key order, as (dotted key, old value,
/// new value); a key on one side only shows `(absent)` on the other.
pub fn differences(was: &Value, now: &Value, key: &str) -> Vec<(String, String, String)> {
    match (was, now) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter()
                .flat_map(|k| {
                    let child = if key.is_empty() { k.clone() } else { format!("{key}.{k}") };
                    match (a.get(k), b.get(k)) {
                        (Some(x), Some(y)) => differences(x, y, &child),
                        (x, y) => vec![(child, shown(x), shown(y))],
                    }
                })
                .collect()
        }
        _ if was == now => Vec::new(),
        _ => vec![(key.to_owned(), was.to_string(), now.to_string())],
    }
}

/// A value as a difference shows it: a table of more than a few entries that is on one side only
/// (a record that began to keep one) by its size, so that the line stays readable.
fn shown(value: Option<&Value>) -> String {
    const SPELLED_OUT: usize = 4;
    match value {
        None => "(absent)".to_owned(),
        Some(Value::Object(map)) if map.len() > SPELLED_OUT => format!("({} entries)", map.len()),
        Some(Value::Array(items)) if items.len() > SPELLED_OUT => format!("({} items)", items.len()),
        Some(value) => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_a_known_digest() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("abc");
        std::fs::write(&path, "abc").unwrap();
        let (sha, size) = sha256_file(&path).unwrap();
        assert_eq!(sha, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(size, 3);
        let entry = FileEntry { name: "abc".into(), bytes: 3, records: 1, sha256: sha };
        verify_files(dir.path(), std::slice::from_ref(&entry)).unwrap();
        std::fs::write(&path, "abd").unwrap();
        assert!(verify_files(dir.path(), &[entry]).unwrap_err().reason.contains("checksum"));
    }

    #[test]
    fn of_writers_racing_to_create_a_file_the_first_wins_and_no_temporary_stays() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("recipe.json");
        let winners: Vec<bool> = std::thread::scope(|scope| {
            let writers: Vec<_> = (0..8u32)
                .map(|i| {
                    scope.spawn({
                        let path = &path;
                        move || write_json_if_absent(path, &i).unwrap()
                    })
                })
                .collect();
            writers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        assert_eq!(winners.iter().filter(|&&won| won).count(), 1, "{winners:?}");
        let winner = winners.iter().position(|&won| won).unwrap() as u32;
        assert_eq!(read_json::<u32>(&path).unwrap(), winner);
        assert!(!write_json_if_absent(&path, &99u32).unwrap());
        assert_eq!(read_json::<u32>(&path).unwrap(), winner);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "temporary files left");
    }

    #[test]
    fn differences_are_every_leaf_that_changed_in_key_order() {
        let was = serde_json::json!({"b": {"x": 1, "y": [1, 2]}, "a": "s", "gone": 3});
        let now = serde_json::json!({"b": {"x": 2, "y": [1, 2]}, "a": "t", "new": true});
        let all = differences(&was, &now, "");
        let shown: Vec<String> = all.iter().map(|(k, w, n)| format!("{k}: {w} -> {n}")).collect();
        assert_eq!(shown, ["a: \"s\" -> \"t\"", "b.x: 1 -> 2", "gone: 3 -> (absent)", "new: (absent) -> true"]);
        assert_eq!(first_difference(&was, &now, ""), all.first().cloned());
        assert!(differences(&was, &was, "").is_empty());
        let began = serde_json::json!({"params": {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}, "list": [1, 2, 3, 4, 5]});
        let shown: Vec<String> = differences(&serde_json::json!({}), &began, "")
            .iter()
            .map(|(k, w, n)| format!("{k}: {w} -> {n}"))
            .collect();
        assert_eq!(shown, ["list: (absent) -> (5 items)", "params: (absent) -> (5 entries)"]);
    }

    #[test]
    fn json_is_replaced_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        write_json_atomic(&path, &Tally { games: 3, ..Tally::default() }).unwrap();
        let back: Tally = read_json(&path).unwrap();
        assert_eq!(back.games, 3);
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left, [std::ffi::OsString::from("t.json")], "a temporary file was left");
        std::fs::write(&path, "{").unwrap();
        assert!(read_json::<Tally>(&path).unwrap_err().contains("EOF"));
    }
}
