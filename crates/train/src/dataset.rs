//! Loading self-play datasets for training: verified, filtered by variant, split by game.
//!
//! Inputs are shard or merged-dataset directories; each is opened with
//! [`ferz_dataset::verify::open_verified`], which checks every file against the manifest's
//! size and SHA-256 before a byte is used. Marlin files are streamed in blocks; every record
//! is decoded once here, so a corrupt record stops the run before training with its file and
//! index, and records whose variant byte is not the net's are skipped and counted.
//!
//! The records stay in memory as their 32 raw bytes (320 MB for ten million positions) and are
//! decoded again batch by batch in the worker threads, which is cheaper than storing the
//! decoded features (136 bytes a position).
//!
//! Validation holds out whole games. The marlin format has no game id, but a shard writes a
//! game's records together and in order, so a record whose ply does not rise, whose piece count
//! rises or whose result changes begins another game ([`GameMark`]). A missed boundary only
//! merges two games into one block; a game is never split. A dataset merged with `--shuffle`
//! has lost that order: its records are held out one by one and the summary says so.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use ferz_chess::{SplitMix64, Variant};
use ferz_dataset::layout::{FileKind, MANIFEST_FILE};
use ferz_dataset::manifest::sha256_file;
use ferz_dataset::marlin::RECORD_SIZE as MARLIN_SIZE;
use ferz_dataset::verify::{AnyManifest, open_verified};

use crate::TrainError;
use crate::config::{DataConfig, NetVariant};
use crate::record::{GameMark, Record, decode, variant_tag};

/// The loaded positions, split into training and validation.
#[derive(Debug, Default)]
pub struct Dataset {
    /// Records to train on.
    pub train: Vec<Record>,
    /// Held-out records (whole games) for the validation loss.
    pub validation: Vec<Record>,
    /// What was read and how it was split.
    pub summary: LoadSummary,
}

/// Counts of a load, for the run's log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadSummary {
    /// Marlin files read.
    pub files: usize,
    /// Records of the net's variant.
    pub records: u64,
    /// Records skipped because their variant byte is not the net's.
    pub other_variant: u64,
    /// Games found (contiguous blocks), over all unshuffled inputs.
    pub games: u64,
    /// Of those, held out.
    pub validation_games: u64,
    /// Inputs whose records were shuffled when merged, so held out record by record.
    pub shuffled_inputs: Vec<PathBuf>,
    /// Each input as read, in order: what pins the data of a run.
    pub inputs: Vec<InputDigest>,
}

/// One input directory as a run read it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputDigest {
    /// The directory as given.
    pub path: PathBuf,
    /// SHA-256 of its `manifest.json`, lower-case hex. The manifest holds every file's size and
    /// SHA-256, which were checked before use, so this one hash pins every byte read.
    pub manifest_sha256: String,
    /// Positions of the net's variant taken from it.
    pub positions: u64,
}

impl std::fmt::Display for LoadSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} positions from {} marlin files ({} of other variants skipped); {} games, {} held out for validation",
            self.records, self.files, self.other_variant, self.games, self.validation_games
        )?;
        for path in &self.shuffled_inputs {
            write!(f, "; {} was merged with --shuffle, so its positions are held out one by one", path.display())?;
        }
        Ok(())
    }
}

/// Whether a record's variant byte belongs to the net's variant.
fn belongs(tag: u8, variant: NetVariant) -> bool {
    match variant {
        NetVariant::Chess => tag <= 1,
        NetVariant::Shatranj => tag == 2,
    }
}

/// Whether a marlin file of `file_variant` can hold records for the net.
fn file_belongs(file_variant: Variant, variant: NetVariant) -> bool {
    match variant {
        NetVariant::Chess => matches!(file_variant, Variant::Chess | Variant::Chess960),
        NetVariant::Shatranj => file_variant == Variant::Shatranj,
    }
}

/// Records read per block.
const BLOCK_RECORDS: usize = 4096;

/// Loads the `[data]` inputs for a net of its variant, holding out about its
/// `validation_fraction` of the games (chosen with its seed).
pub fn load(config: &DataConfig) -> Result<Dataset, TrainError> {
    let DataConfig { inputs, variant, validation_fraction, seed } = config;
    let (variant, validation_fraction, seed) = (*variant, *validation_fraction, *seed);
    let mut data = Dataset::default();
    let mut rng = SplitMix64::new(seed ^ 0x05EE_D0F5_A11D);
    let held_out = |rng: &mut SplitMix64| ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < validation_fraction;
    for dir in inputs {
        let manifest = open_verified(dir)?;
        let manifest_path = dir.join(MANIFEST_FILE);
        let (manifest_sha256, _) =
            sha256_file(&manifest_path).map_err(|source| TrainError::Io { path: manifest_path, source })?;
        let records_before = data.summary.records;
        let shuffled = matches!(&manifest, AnyManifest::Dataset(m) if m.shuffle_seed.is_some());
        if shuffled {
            data.summary.shuffled_inputs.push(dir.clone());
        }
        for entry in manifest.files() {
            let Some(FileKind::Marlin(file_variant)) = FileKind::of_name(&entry.name) else { continue };
            let path = dir.join(&entry.name);
            if !file_belongs(file_variant, variant) {
                data.summary.other_variant += entry.records;
                continue;
            }
            data.summary.files += 1;
            let mut last: Option<GameMark> = None;
            let mut validation = false;
            for_each_record(&path, |index, record| {
                let tag = variant_tag(record);
                // Whether a record is sound does not depend on the net's input layout.
                decode(record, ferz_nnue::InputLayout::Plain).map_err(|reason| TrainError::Record {
                    path: path.clone(),
                    index,
                    reason,
                })?;
                if !belongs(tag, variant) {
                    data.summary.other_variant += 1;
                    return Ok(());
                }
                let mark = GameMark::of(record);
                if shuffled {
                    validation = held_out(&mut rng);
                } else if last.is_none_or(|last| last.starts_new_game(&mark)) {
                    validation = held_out(&mut rng);
                    data.summary.games += 1;
                    data.summary.validation_games += u64::from(validation);
                }
                last = Some(mark);
                data.summary.records += 1;
                if validation {
                    data.validation.push(*record)
                } else {
                    data.train.push(*record)
                }
                Ok(())
            })?;
        }
        let positions = data.summary.records - records_before;
        data.summary.inputs.push(InputDigest { path: dir.clone(), manifest_sha256, positions });
    }
    if data.train.len() >= crate::batch::MIRROR_BIT as usize {
        return Err(TrainError::NoData(format!(
            "{} training positions; at most {} fit one run",
            data.train.len(),
            crate::batch::MIRROR_BIT - 1
        )));
    }
    if data.train.is_empty() {
        let which = match variant {
            NetVariant::Chess => "chess or Chess960",
            NetVariant::Shatranj => "Shatranj",
        };
        return Err(TrainError::NoData(format!("the inputs hold no {which} training positions ({})", data.summary)));
    }
    Ok(data)
}

/// Streams the records of a marlin file in blocks, with their index.
fn for_each_record(
    path: &Path,
    mut visit: impl FnMut(u64, &Record) -> Result<(), TrainError>,
) -> Result<(), TrainError> {
    let io = |e: std::io::Error| TrainError::Io { path: path.to_path_buf(), source: e };
    let mut reader = BufReader::new(File::open(path).map_err(io)?);
    let mut block = vec![0u8; BLOCK_RECORDS * MARLIN_SIZE];
    let mut index = 0u64;
    loop {
        let mut filled = 0;
        while filled < block.len() {
            let n = reader.read(&mut block[filled..]).map_err(io)?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        if filled % MARLIN_SIZE != 0 {
            return Err(TrainError::Record {
                path: path.to_path_buf(),
                index: index + (filled / MARLIN_SIZE) as u64,
                reason: format!("the file ends {} bytes into a 32-byte record", filled % MARLIN_SIZE),
            });
        }
        for chunk in block[..filled].chunks_exact(MARLIN_SIZE) {
            visit(index, chunk.try_into().expect("32 bytes"))?;
            index += 1;
        }
        if filled < block.len() {
            return Ok(());
        }
    }
}
