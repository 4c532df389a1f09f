//! Datasets made of shards: checking them, merging them, summarising them.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::manifest::{
    DATASET_FORMAT, DatasetManifest, FileEntry, SHARD_FORMAT, ShardManifest, Tally, read_json, sha256_file,
    verify_files, write_json_atomic,
};
use crate::shard::{FileKind, MANIFEST_FILE};
use ferz_book::marlin::RECORD_SIZE;
use ferz_chess::SplitMix64;

/// A dataset or shard that cannot be used, with the path and the reason.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct DatasetError {
    /// The directory or file.
    pub path: String,
    /// What is wrong, and what to do.
    pub reason: String,
}

fn error(path: &Path, reason: impl Into<String>) -> DatasetError {
    DatasetError { path: path.display().to_string(), reason: reason.into() }
}

/// A directory's manifest: a shard's or a merged dataset's.
#[derive(Clone, Debug)]
pub enum AnyManifest {
    /// A shard written by `ferz selfplay`.
    Shard(Box<ShardManifest>),
    /// A dataset written by `ferz data merge`.
    Dataset(DatasetManifest),
}

impl AnyManifest {
    /// The totals.
    #[must_use]
    pub fn tally(&self) -> &Tally {
        match self {
            AnyManifest::Shard(m) => &m.tally,
            AnyManifest::Dataset(m) => &m.tally,
        }
    }

    /// The files.
    #[must_use]
    pub fn files(&self) -> &[FileEntry] {
        match self {
            AnyManifest::Shard(m) => &m.files,
            AnyManifest::Dataset(m) => &m.files,
        }
    }
}

#[derive(Deserialize)]
struct FormatOnly {
    format: String,
}

/// Reads a directory's manifest and checks every file against its size and checksum.
pub fn open_verified(dir: &Path) -> Result<AnyManifest, DatasetError> {
    let path = dir.join(MANIFEST_FILE);
    if !path.exists() {
        let hint = if dir.join(crate::shard::CHECKPOINT_FILE).exists() {
            "the shard is not complete (it has a checkpoint but no manifest.json); finish it with --resume"
        } else {
            "no manifest.json: not a ferz shard or dataset"
        };
        return Err(error(dir, hint));
    }
    let format: FormatOnly = read_json(&path).map_err(|reason| error(dir, reason))?;
    let manifest = match format.format.as_str() {
        SHARD_FORMAT => AnyManifest::Shard(Box::new(read_json(&path).map_err(|reason| error(dir, reason))?)),
        DATASET_FORMAT => AnyManifest::Dataset(read_json(&path).map_err(|reason| error(dir, reason))?),
        other => return Err(error(dir, format!("unknown manifest format {other:?}"))),
    };
    verify_files(dir, manifest.files()).map_err(|reason| error(dir, reason))?;
    Ok(manifest)
}

/// Merges complete shards into `out`: every file kind concatenated in shard order, or its
/// records shuffled with `shuffle_seed`; PGN games are concatenated. Each input is verified
/// first and a shard given twice is refused. The output appears under temporary names and the
/// manifest is written last.
pub fn merge(out: &Path, inputs: &[PathBuf], shuffle_seed: Option<u64>) -> Result<DatasetManifest, DatasetError> {
    if inputs.is_empty() {
        return Err(error(out, "no shards to merge"));
    }
    if out.join(MANIFEST_FILE).exists() {
        return Err(error(out, "already holds a dataset; choose another output directory"));
    }
    let mut shards = Vec::new();
    let mut seen = HashSet::new();
    let mut tally = Tally::default();
    let mut names: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for dir in inputs {
        let manifest = match open_verified(dir)? {
            AnyManifest::Shard(m) => *m,
            AnyManifest::Dataset(_) => return Err(error(dir, "is a merged dataset; merge shards")),
        };
        if !seen.insert((manifest.seed, manifest.shard_index, manifest.shard_count)) {
            return Err(error(
                dir,
                format!(
                    "shard {}/{} of seed {} is given twice",
                    manifest.shard_index, manifest.shard_count, manifest.seed
                ),
            ));
        }
        shards.push(format!("{}/{} seed {}", manifest.shard_index, manifest.shard_count, manifest.seed));
        tally.add(&manifest.tally);
        for file in &manifest.files {
            names.entry(file.name.clone()).or_default().push(dir.join(&file.name));
        }
    }
    std::fs::create_dir_all(out).map_err(|e| error(out, e.to_string()))?;
    let mut files = Vec::new();
    for (name, sources) in &names {
        let kind = FileKind::of_name(name).ok_or_else(|| error(out, format!("unknown file kind {name}")))?;
        let part = out.join(format!("{name}.part"));
        let records = match (kind, shuffle_seed) {
            (FileKind::Pgn, _) | (_, None) => concatenate(&part, sources, kind)?,
            (FileKind::Text(_), Some(seed)) => {
                let mut lines = Vec::new();
                for source in sources {
                    let text = std::fs::read_to_string(source).map_err(|e| error(source, e.to_string()))?;
                    lines.extend(text.lines().map(str::to_owned));
                }
                shuffle(&mut lines, seed);
                let text: String = lines.iter().flat_map(|l| [l.as_str(), "\n"]).collect();
                std::fs::write(&part, text).map_err(|e| error(&part, e.to_string()))?;
                lines.len() as u64
            }
            (FileKind::Marlin(_), Some(seed)) => {
                let mut records: Vec<[u8; RECORD_SIZE]> = Vec::new();
                for source in sources {
                    let bytes = std::fs::read(source).map_err(|e| error(source, e.to_string()))?;
                    records.extend(
                        bytes.chunks_exact(RECORD_SIZE).map(|c| <[u8; RECORD_SIZE]>::try_from(c).expect("32 bytes")),
                    );
                }
                shuffle(&mut records, seed);
                std::fs::write(&part, records.concat()).map_err(|e| error(&part, e.to_string()))?;
                records.len() as u64
            }
        };
        let target = out.join(name);
        std::fs::rename(&part, &target).map_err(|e| error(&target, e.to_string()))?;
        let (sha256, bytes) = sha256_file(&target).map_err(|e| error(&target, e.to_string()))?;
        files.push(FileEntry { name: name.clone(), bytes, records, sha256 });
    }
    let manifest = DatasetManifest { format: DATASET_FORMAT.to_owned(), shards, shuffle_seed, tally, files };
    write_json_atomic(&out.join(MANIFEST_FILE), &manifest).map_err(|e| error(out, e.to_string()))?;
    Ok(manifest)
}

/// Appends `sources` to `target`; returns the records copied.
fn concatenate(target: &Path, sources: &[PathBuf], kind: FileKind) -> Result<u64, DatasetError> {
    let mut out = BufWriter::new(File::create(target).map_err(|e| error(target, e.to_string()))?);
    let mut records = 0;
    for source in sources {
        let mut input = BufReader::new(File::open(source).map_err(|e| error(source, e.to_string()))?);
        let mut buffer = vec![0; 1 << 16];
        loop {
            let n = input.read(&mut buffer).map_err(|e| error(source, e.to_string()))?;
            if n == 0 {
                break;
            }
            records += match kind {
                FileKind::Text(_) => buffer[..n].iter().filter(|&&b| b == b'\n').count() as u64,
                FileKind::Pgn => count_games(&buffer[..n]),
                FileKind::Marlin(_) => 0,
            };
            out.write_all(&buffer[..n]).map_err(|e| error(target, e.to_string()))?;
        }
    }
    out.flush().map_err(|e| error(target, e.to_string()))?;
    let file = out.into_inner().map_err(|e| error(target, e.to_string()))?;
    file.sync_all().map_err(|e| error(target, e.to_string()))?;
    if let FileKind::Marlin(_) = kind {
        records = file.metadata().map_err(|e| error(target, e.to_string()))?.len() / RECORD_SIZE as u64;
    }
    Ok(records)
}

/// Games in a chunk of PGN: each starts with an `[Event ` tag at the start of a line.
fn count_games(chunk: &[u8]) -> u64 {
    chunk.windows(8).filter(|w| w == b"[Event \"").count() as u64
}

/// Fisher–Yates with the reproducible generator.
fn shuffle<T>(items: &mut [T], seed: u64) {
    SplitMix64::new(seed).shuffle(items);
}

/// A human-readable summary of a verified shard or dataset.
#[must_use]
pub fn summary(manifest: &AnyManifest) -> String {
    use std::fmt::Write as _;
    let t = manifest.tally();
    let mut s = String::new();
    let games = t.games.max(1) as f64;
    let _ = writeln!(
        s,
        "games {} (white {:.1}%, draws {:.1}%, black {:.1}%), plies {}, positions {}, duplicates skipped {}",
        t.games,
        100.0 * t.white_wins as f64 / games,
        100.0 * t.draws as f64 / games,
        100.0 * t.black_wins as f64 / games,
        t.plies,
        t.positions(),
        t.duplicates_skipped
    );
    for (variant, n) in &t.games_by_variant {
        let _ = writeln!(s, "  {variant}: {n} games, {} positions", t.positions_by_variant.get(variant).unwrap_or(&0));
    }
    let endings: Vec<String> = t.terminations.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(s, "endings: {}", endings.join(", "));
    match manifest {
        AnyManifest::Shard(m) => {
            let _ = writeln!(
                s,
                "shard {}/{} seed {}, {} nodes in {:.1} s; opening cache: {} of {} lookups hit, ~{:.1} s of search saved",
                m.shard_index,
                m.shard_count,
                m.seed,
                m.nodes,
                m.seconds,
                m.cache.hits,
                m.cache.lookups,
                m.cache.estimated_seconds_saved
            );
        }
        AnyManifest::Dataset(m) => {
            let _ = writeln!(
                s,
                "merged from {} shards{}",
                m.shards.len(),
                if m.shuffle_seed.is_some() { ", shuffled" } else { "" }
            );
        }
    }
    for f in manifest.files() {
        let _ = writeln!(s, "  {} {} bytes, {} records, sha256 {} (verified)", f.name, f.bytes, f.records, f.sha256);
    }
    s
}
