//! Opening a shard or dataset directory so that its contents can be trusted, merging shards,
//! summarising them.
//!
//! [`open_verified`] checks bytes and meaning: every file's size and SHA-256 against the
//! manifest, then what the files hold against what the manifest says they hold (records per
//! file, every marlin record decodable and of its file's variant, text records well formed,
//! games in the PGN) and the totals against each other. A manifest edited by hand, or a file
//! whose checksum was recomputed after it was damaged, is refused with the file and the count
//! or record that disagrees.

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::DatasetError;
use crate::import::{IMPORT_FORMAT, ImportManifest};
use crate::layout::{CHECKPOINT_FILE, FileKind, MANIFEST_FILE, variant_name};
use crate::manifest::{
    DATASET_FORMAT, DatasetManifest, FileEntry, SHARD_FORMAT, ShardManifest, Tally, read_json, sha256_file,
    verify_files, write_json_atomic,
};
use crate::marlin::{self, RECORD_SIZE};
use ferz_chess::SplitMix64;

fn error(path: &Path, reason: impl Into<String>) -> DatasetError {
    DatasetError::new(path, reason)
}

/// A directory's manifest: a shard's or a merged dataset's.
#[derive(Clone, Debug)]
pub enum AnyManifest {
    /// A shard written by `ferz selfplay`.
    Shard(Box<ShardManifest>),
    /// A dataset written by `ferz data merge`.
    Dataset(DatasetManifest),
    /// A dataset written by `ferz data import`.
    Import(Box<ImportManifest>),
}

impl AnyManifest {
    /// The totals.
    #[must_use]
    pub fn tally(&self) -> &Tally {
        match self {
            AnyManifest::Shard(m) => &m.tally,
            AnyManifest::Dataset(m) => &m.tally,
            AnyManifest::Import(m) => &m.tally,
        }
    }

    /// The files.
    #[must_use]
    pub fn files(&self) -> &[FileEntry] {
        match self {
            AnyManifest::Shard(m) => &m.files,
            AnyManifest::Dataset(m) => &m.files,
            AnyManifest::Import(m) => &m.files,
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
        let hint = if dir.join(CHECKPOINT_FILE).exists() {
            "the shard is not complete (it has a checkpoint but no manifest.json); finish it with --resume"
        } else {
            "no manifest.json: not a ferz shard or dataset"
        };
        return Err(error(dir, hint));
    }
    let format: FormatOnly = read_json(&path).map_err(|reason| error(&path, reason))?;
    let manifest = match format.format.as_str() {
        SHARD_FORMAT => AnyManifest::Shard(Box::new(read_json(&path).map_err(|reason| error(&path, reason))?)),
        DATASET_FORMAT => AnyManifest::Dataset(read_json(&path).map_err(|reason| error(&path, reason))?),
        IMPORT_FORMAT => AnyManifest::Import(Box::new(read_json(&path).map_err(|reason| error(&path, reason))?)),
        other => return Err(error(&path, format!("unknown manifest format {other:?}"))),
    };
    verify_files(dir, manifest.files())?;
    check_meaning(dir, &manifest)?;
    Ok(manifest)
}

/// Checks what the files hold against what the manifest says: each file's record count, each
/// record's form, and the totals against each other and against the files.
fn check_meaning(dir: &Path, manifest: &AnyManifest) -> Result<(), DatasetError> {
    let tally = manifest.tally();
    let disagree = |what: String| error(&dir.join(MANIFEST_FILE), what);
    let outcomes = tally.white_wins + tally.draws + tally.black_wins;
    if outcomes != tally.games {
        return Err(disagree(format!(
            "{} games, but {} white wins + {} draws + {} black wins = {outcomes}",
            tally.games, tally.white_wins, tally.draws, tally.black_wins
        )));
    }
    for (what, sum) in [
        ("games_by_variant", tally.games_by_variant.values().sum::<u64>()),
        ("terminations", tally.terminations.values().sum()),
    ] {
        if sum != tally.games {
            return Err(disagree(format!("{} games, but {what} adds up to {sum}", tally.games)));
        }
    }
    if let AnyManifest::Import(m) = manifest {
        let imported: u64 = m.sources.iter().map(|s| s.imported).sum();
        if imported != tally.games {
            return Err(disagree(format!("{} games, but its sources imported {imported}", tally.games)));
        }
    }
    for entry in manifest.files() {
        let path = dir.join(&entry.name);
        let kind = FileKind::of_name(&entry.name)
            .ok_or_else(|| disagree(format!("lists {:?}, which is not a dataset file", entry.name)))?;
        let found = count_records(&path, kind)?;
        if found != entry.records {
            return Err(error(&path, format!("holds {found} records, the manifest says {}", entry.records)));
        }
        let expected = match kind {
            FileKind::Pgn => tally.games,
            FileKind::Text(v) | FileKind::Marlin(v) => {
                tally.positions_by_variant.get(variant_name(v)).copied().unwrap_or(0)
            }
        };
        if found != expected {
            let what = if kind == FileKind::Pgn { "games" } else { "positions of its variant" };
            return Err(error(&path, format!("holds {found} records, the manifest's totals say {expected} {what}")));
        }
    }
    Ok(())
}

/// Counts a file's records, checking each: marlin records must decode and be of the file's
/// variant, text lines must read `<FEN> | <score> | <result>`, PGN games are counted by their
/// `[Event` tags.
fn count_records(path: &Path, kind: FileKind) -> Result<u64, DatasetError> {
    let io = |e: std::io::Error| error(path, e.to_string());
    let mut reader = BufReader::with_capacity(1 << 16, File::open(path).map_err(io)?);
    match kind {
        FileKind::Marlin(variant) => {
            let mut record = [0u8; RECORD_SIZE];
            let mut index = 0u64;
            loop {
                match read_record(&mut reader, &mut record).map_err(io)? {
                    0 => return Ok(index),
                    RECORD_SIZE => {}
                    n => return Err(error(path, format!("ends {n} bytes into record {index} (records are 32 bytes)"))),
                }
                let decoded = marlin::decode(&record).map_err(|e| error(path, format!("record {index}: {e}")))?;
                if decoded.variant != variant {
                    return Err(error(
                        path,
                        format!(
                            "record {index} is a {} position in the {} file",
                            variant_name(decoded.variant),
                            variant_name(variant)
                        ),
                    ));
                }
                index += 1;
            }
        }
        FileKind::Text(_) => {
            let mut count = 0u64;
            for line in std::io::BufRead::lines(reader) {
                let line = line.map_err(io)?;
                count += 1;
                check_text_record(&line).map_err(|reason| error(path, format!("line {count}: {reason}")))?;
            }
            Ok(count)
        }
        FileKind::Pgn => pgn_games(reader).map_err(io),
    }
}

/// The games of a PGN file: its `[Event "` tags at the start of a line (every game ferz writes
/// has one).
///
/// # Errors
/// The file cannot be read or is not UTF-8.
pub fn count_pgn_games(path: &Path) -> std::io::Result<u64> {
    pgn_games(BufReader::with_capacity(1 << 16, File::open(path)?))
}

fn pgn_games(reader: impl std::io::BufRead) -> std::io::Result<u64> {
    let mut count = 0u64;
    for line in reader.lines() {
        count += u64::from(line?.starts_with("[Event \""));
    }
    Ok(count)
}

/// Fills `record` from `reader`; returns the bytes read (fewer than 32 only at the end).
fn read_record(reader: &mut impl Read, record: &mut [u8; RECORD_SIZE]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < RECORD_SIZE {
        match reader.read(&mut record[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// Checks the form of a text record: `<FEN> | <score> | <result>`.
fn check_text_record(line: &str) -> Result<(), String> {
    let mut fields = line.split(" | ");
    let (Some(fen), Some(score), Some(result), None) = (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err(format!("{line:?} is not `<FEN> | <score> | <result>`"));
    };
    if fen.split(' ').count() != 6 {
        return Err(format!("{fen:?} is not a six-field FEN"));
    }
    score.parse::<i32>().map_err(|_| format!("score {score:?} is not a whole number of centipawns"))?;
    if !matches!(result, "1.0" | "0.5" | "0.0") {
        return Err(format!("result {result:?} is not 1.0, 0.5 or 0.0"));
    }
    Ok(())
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
            AnyManifest::Import(_) => {
                return Err(error(dir, "is an imported dataset; merge shards (give both to ferz train instead)"));
            }
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
        let mut games = GameCounter::default();
        loop {
            let n = input.read(&mut buffer).map_err(|e| error(source, e.to_string()))?;
            if n == 0 {
                break;
            }
            records += match kind {
                FileKind::Text(_) => buffer[..n].iter().filter(|&&b| b == b'\n').count() as u64,
                FileKind::Pgn => games.feed(&buffer[..n]),
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

/// Counts the games of a PGN file read in chunks: each starts with an `[Event "` tag at the
/// start of a line, as [`open_verified`] counts them. A tag may be split between two chunks, so
/// the end of the previous chunk is carried over.
struct GameCounter {
    /// The last bytes seen, fewer than a whole `\n[Event "`; a newline before the file's first.
    carry: Vec<u8>,
}

impl Default for GameCounter {
    fn default() -> GameCounter {
        GameCounter { carry: vec![b'\n'] }
    }
}

impl GameCounter {
    /// What starts a game after the first.
    const TAG: &[u8] = b"\n[Event \"";

    /// The games that start in `chunk`.
    fn feed(&mut self, chunk: &[u8]) -> u64 {
        let mut data = std::mem::take(&mut self.carry);
        data.extend_from_slice(chunk);
        // The carry is shorter than the tag, so no match lies wholly in what was counted before.
        let games = data.windows(Self::TAG.len()).filter(|w| *w == Self::TAG).count() as u64;
        self.carry = data[data.len().saturating_sub(Self::TAG.len() - 1)..].to_vec();
        games
    }
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
        AnyManifest::Import(m) => {
            let read: u64 = m.sources.iter().map(|s| s.games).sum();
            let _ = writeln!(
                s,
                "imported from {} PGN files: {read} games read, {} without a result and {} unreadable skipped; \
                 {} moves without an evaluation, {} evaluated positions without a legal move",
                m.sources.len(),
                m.skipped.unfinished_games,
                m.skipped.bad_games,
                m.skipped.moves_without_eval,
                m.skipped.terminal_positions
            );
        }
    }
    for f in manifest.files() {
        let _ = writeln!(s, "  {} {} bytes, {} records, sha256 {} (verified)", f.name, f.bytes, f.records, f.sha256);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_counted_however_the_file_is_cut_into_chunks() {
        let game = "[Event \"g\"]\n[Site \"?\"]\n\n1. e4 {[Event \"not a tag\"]} e5 1-0\n\n";
        let text = game.repeat(7);
        for size in 1..=text.len() {
            let mut counter = GameCounter::default();
            let games: u64 = text.as_bytes().chunks(size).map(|chunk| counter.feed(chunk)).sum();
            assert_eq!(games, 7, "chunks of {size} bytes");
        }
    }
}
