//! The ledger: one record per finished generation with the recipe it was made with, and the
//! loop's settings.
//!
//! `ledger.json` is the loop's commit point: a generation is finished exactly when its record is
//! in the ledger, and the file is replaced atomically, so a kill leaves the old ledger or the new
//! one. Everything a record names (shards, dataset, training run, candidate net, gate PGN) is in
//! the generation's directory; the hashes pin it, and the seeds with the settings regenerate it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ferz_dataset::manifest::{read_json, write_json_atomic};
use serde::{Deserialize, Serialize};

use crate::config::{LoopConfig, Recipe, StartingPoint};
use crate::cpu::StageTime;
use crate::layout::{RECIPE_FILE, generation_dir, hash, read};
use crate::{LoopError, Stage};

/// The ledger's file in the loop directory.
pub const LEDGER_FILE: &str = "ledger.json";
/// The `format` of ledgers this build reads and writes.
pub const LEDGER_FORMAT: &str = "ferz-loop-ledger/3";
/// The format before the ledger pinned generation 0's net; read and brought up to
/// [`LEDGER_FORMAT`] (the net is pinned when the loop is next opened).
const LEDGER_FORMAT_2: &str = "ferz-loop-ledger/2";
/// The format before generations recorded their recipes, when every generation was made with
/// the ledger's settings; read and brought up to [`LEDGER_FORMAT`].
const LEDGER_FORMAT_1: &str = "ferz-loop-ledger/1";

/// `ledger.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ledger {
    /// Always [`LEDGER_FORMAT`].
    pub format: String,
    /// The settings of the newest run, with the identity the loop began with (see
    /// [`LoopConfig::with_identity_of`]); each generation's recipe is in its record.
    pub settings: LoopConfig,
    /// SHA-256 of generation 0's net, kept as `best/gen-0000.nnue`: for `loop.start =
    /// "embedded"`, the net the binary embedded when the loop began, so that a later build
    /// with another default net continues the same loop; none for the hand-tuned start.
    pub start_net: Option<String>,
    /// The finished generations, from 1.
    pub generations: Vec<GenerationRecord>,
}

/// A net that plays: generation 0's (a net file, or the hand-tuned evaluation) or a promoted one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetRef {
    /// The generation that trained it (0: the starting point).
    pub generation: u32,
    /// Its file in `best/`, relative to the loop directory (none for the hand-tuned start).
    pub file: Option<PathBuf>,
    /// Its SHA-256 (none for the hand-tuned start).
    pub sha256: Option<String>,
}

impl NetRef {
    /// Its file in the loop directory `dir`; none for the hand-tuned start.
    #[must_use]
    pub fn path(&self, dir: &Path) -> Option<PathBuf> {
        self.file.as_ref().map(|file| dir.join(file))
    }

    /// Checks that its file in `dir` is the net the ledger names, before it plays.
    ///
    /// # Errors
    /// A file that cannot be read, or another net's, naming the file and both hashes.
    pub fn check(&self, dir: &Path) -> Result<(), LoopError> {
        let (Some(path), Some(sha256)) = (self.path(dir), &self.sha256) else { return Ok(()) };
        let found = hash(&path)?;
        if found != *sha256 {
            return Err(LoopError::Ledger {
                path,
                reason: format!("SHA-256 {found}, but the ledger's generation {} is {sha256}", self.generation),
            });
        }
        Ok(())
    }
}

/// What a generation's self-play wrote.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataRecord {
    /// The run seed of the generation's shards.
    pub seed: u64,
    /// SHA-256 of each shard's `manifest.json`, in shard order.
    pub shard_manifests: Vec<String>,
    /// SHA-256 of the merged dataset's `manifest.json`.
    pub dataset_manifest: String,
    /// Games played.
    pub games: u64,
    /// Positions written.
    pub positions: u64,
}

/// One epoch's losses, from the training run's `loss.csv`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpochLoss {
    /// 1-based epoch.
    pub epoch: u32,
    /// Mean training loss.
    pub train: f64,
    /// Validation loss after the epoch (null without validation data).
    pub validation: Option<f64>,
}

/// The epochs of a `loss.csv` (`epoch,train_loss,validation_loss,...`); the last line of an
/// epoch counts (a resumed run may have written one twice).
pub(crate) fn read_losses(path: &Path) -> Result<Vec<EpochLoss>, LoopError> {
    let text = std::fs::read_to_string(path).map_err(|source| LoopError::Io { path: path.to_path_buf(), source })?;
    let mut epochs = BTreeMap::new();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split(',').collect();
        let (Some(Ok(epoch)), Some(Ok(train))) =
            (fields.first().map(|f| f.parse::<u32>()), fields.get(1).map(|f| f.parse::<f64>()))
        else {
            continue; // the starting weights' line has no training loss
        };
        let validation = fields.get(2).and_then(|f| f.parse::<f64>().ok()).filter(|v| v.is_finite());
        epochs.insert(epoch, EpochLoss { epoch, train, validation });
    }
    Ok(epochs.into_values().collect())
}

/// What a generation's training made.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainRecord {
    /// The generations whose data it trained on (besides `train.extra_inputs`).
    pub data_generations: Vec<u32>,
    /// Positions it read (training and validation).
    pub positions: u64,
    /// SHA-256 of the run's `run.json` (inputs' manifest hashes, settings, the net's hash).
    pub run_record: String,
    /// SHA-256 of the candidate net, as its gate played it.
    pub candidate: String,
    /// The scale the candidate was set to (`train.scale = "best"`); none: the trained net's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<u16>,
    /// Losses per epoch.
    pub epochs: Vec<EpochLoss>,
}

/// How the gate decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// H1 accepted: the candidate is promoted.
    AcceptH1,
    /// H0 accepted: the candidate is kept out.
    AcceptH0,
    /// The game limit came first: kept out, as a failed test is.
    Inconclusive,
}

impl Verdict {
    /// How the reports name it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Verdict::AcceptH1 => "H1 (promoted)",
            Verdict::AcceptH0 => "H0",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// The gate's match of the candidate (A) against the best net (B).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateRecord {
    /// Games played.
    pub games: u64,
    /// The candidate's wins, draws and losses.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Logistic Elo of the candidate over the best net, from the pentanomial pair counts.
    pub elo: f64,
    /// Lower end of its 95% interval.
    pub elo_low: f64,
    /// Upper end of its 95% interval.
    pub elo_high: f64,
    /// The SPRT's log-likelihood ratio at the end.
    pub llr: f64,
    /// The SPRT's bounds.
    pub llr_bounds: (f64, f64),
    /// The decision.
    pub verdict: Verdict,
}

/// One finished generation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GenerationRecord {
    /// 1-based.
    pub generation: u32,
    /// The net that played the games and that the candidate met at the gate.
    pub player: NetRef,
    /// The self-play, training and gate settings it was made with.
    pub recipe: Recipe,
    /// The data.
    pub data: DataRecord,
    /// The training.
    pub train: TrainRecord,
    /// The gate.
    pub gate: GateRecord,
    /// Whether the candidate became the best net.
    pub promoted: bool,
    /// Time per stage.
    pub stages: BTreeMap<Stage, StageTime>,
}

impl GenerationRecord {
    /// One line: positions, the gate's Elo, games and LLR, and whether it was promoted.
    #[must_use]
    pub fn summary(&self) -> String {
        format!(
            "generation {}: {} positions, gate {}: {}",
            self.generation,
            self.data.positions,
            self.gate.elo_line(),
            if self.promoted { "promoted" } else { "not promoted" }
        )
    }
}

impl GateRecord {
    /// The Elo with half its 95% interval, the games and the LLR.
    #[must_use]
    pub fn elo_line(&self) -> String {
        format!(
            "{:+.1} ± {:.1} Elo over {} games, LLR {:.2}",
            self.elo,
            (self.elo_high - self.elo_low) / 2.0,
            self.games,
            self.llr
        )
    }

    /// One line: [`GateRecord::elo_line`], the results and what the SPRT decided.
    #[must_use]
    pub fn summary(&self) -> String {
        let decided = match self.verdict {
            Verdict::AcceptH1 => "H1 accepted, stronger than the best net",
            Verdict::AcceptH0 => "H0 accepted, not stronger",
            Verdict::Inconclusive => "inconclusive at the game limit",
        };
        format!("{} (+{} ={} -{}): {decided}", self.elo_line(), self.wins, self.draws, self.losses)
    }
}

impl Ledger {
    /// A new ledger for a loop with these settings.
    #[must_use]
    pub fn new(settings: LoopConfig) -> Ledger {
        Ledger { format: LEDGER_FORMAT.to_owned(), settings, start_net: None, generations: Vec::new() }
    }

    /// Reads the ledger of `dir`, if it has one.
    ///
    /// # Errors
    /// A ledger that cannot be read or is of another format.
    pub fn load(dir: &Path) -> Result<Option<Ledger>, LoopError> {
        let path = dir.join(LEDGER_FILE);
        if !path.exists() {
            return Ok(None);
        }
        let error = |reason: String| LoopError::Ledger { path: path.clone(), reason };
        let mut value: serde_json::Value = read_json(&path).map_err(error)?;
        let format = value.get("format").and_then(serde_json::Value::as_str).unwrap_or("(none)");
        match format {
            LEDGER_FORMAT => {}
            LEDGER_FORMAT_2 => upgrade_from_format_2(&mut value),
            LEDGER_FORMAT_1 => {
                upgrade_from_format_1(&mut value);
                upgrade_from_format_2(&mut value);
            }
            _ => return Err(error(format!("format {format:?}, this build reads {LEDGER_FORMAT:?}"))),
        }
        value["format"] = serde_json::Value::from(LEDGER_FORMAT);
        serde_json::from_value(value).map(Some).map_err(|e| error(e.to_string()))
    }

    /// Reads the ledger of `dir`, which must have one (the commands that read a loop).
    ///
    /// # Errors
    /// No ledger (not a loop directory), or one that cannot be read.
    pub fn load_existing(dir: &Path) -> Result<Ledger, LoopError> {
        Ledger::load(dir)?.ok_or_else(|| LoopError::Ledger {
            path: dir.join(LEDGER_FILE),
            reason: "missing: not a loop directory".to_owned(),
        })
    }

    /// Writes the ledger to `dir` (atomically).
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, dir: &Path) -> Result<(), LoopError> {
        let path = dir.join(LEDGER_FILE);
        write_json_atomic(&path, self).map_err(|source| LoopError::Io { path, source })
    }

    /// The settings generation `g` was, is or will be made with, read only: a finished generation's
    /// recipe from its record, one in progress from its `recipe.json`, a later one the ledger's
    /// newest settings; and the net that played (plays) it.
    ///
    /// # Errors
    /// A `recipe.json` that cannot be read.
    pub fn made_with(&self, dir: &Path, g: u32) -> Result<(LoopConfig, NetRef), LoopError> {
        if let Some(record) = self.generations.iter().find(|r| r.generation == g) {
            return Ok((self.settings.with_recipe(&record.recipe), record.player.clone()));
        }
        let recipe_path = generation_dir(dir, g).join(RECIPE_FILE);
        let settings = if recipe_path.exists() {
            self.settings.with_recipe(&read::<Recipe>(&recipe_path)?)
        } else {
            self.settings.clone()
        };
        Ok((settings, self.best()))
    }

    /// The best net now: the last promoted one, or generation 0.
    #[must_use]
    pub fn best(&self) -> NetRef {
        self.generations
            .iter()
            .rev()
            .find(|g| g.promoted)
            .map(|g| NetRef {
                generation: g.generation,
                file: Some(best_file(g.generation)),
                sha256: Some(g.train.candidate.clone()),
            })
            .unwrap_or_else(|| NetRef {
                generation: 0,
                file: self.start_net.as_ref().map(|_| best_file(0)),
                sha256: self.start_net.clone(),
            })
    }

    /// What generation 0 is: "the chess net embedded when the loop began (SHA-256
    /// 963c51a8dddee214…)", "the hand-tuned Shatranj evaluation".
    #[must_use]
    pub fn generation_zero(&self) -> String {
        match &self.start_net {
            Some(sha256) => format!(
                "the {} net embedded when the loop began (SHA-256 {}…)",
                self.settings.run.net_name(),
                ferz_dataset::manifest::short_sha(sha256)
            ),
            None => self.settings.run.generation_zero(),
        }
    }

    /// Generations in a row, at the end, whose candidate was not promoted.
    #[must_use]
    pub fn failures_in_a_row(&self) -> u32 {
        self.generations.iter().rev().take_while(|g| !g.promoted).count() as u32
    }

    /// What generation 0 is.
    #[must_use]
    pub fn start(&self) -> StartingPoint {
        self.settings.run.start
    }
}

/// Gives each generation of a format-1 ledger its recipe: the ledger's settings, which every
/// generation of such a loop was made with (format 1 refused any change of them).
fn upgrade_from_format_1(ledger: &mut serde_json::Value) {
    let settings = &ledger["settings"];
    let recipe = serde_json::json!({
        "selfplay": settings["selfplay"],
        "train": settings["train"],
        "gate": settings["gate"],
    });
    if let Some(generations) = ledger["generations"].as_array_mut() {
        for generation in generations.iter_mut().filter_map(serde_json::Value::as_object_mut) {
            generation.insert("recipe".to_owned(), recipe.clone());
        }
    }
}

/// Adds the pin of generation 0's net that format 2 did not have; opening the loop sets it.
fn upgrade_from_format_2(ledger: &mut serde_json::Value) {
    if let Some(fields) = ledger.as_object_mut() {
        fields.insert("start_net".to_owned(), serde_json::Value::Null);
    }
}

/// "1 generation", "2 generations": how reports count them.
#[must_use]
pub fn generations(count: usize) -> String {
    match count {
        1 => "1 generation".to_owned(),
        n => format!("{n} generations"),
    }
}

/// Where a promoted net of `generation` is kept, relative to the loop directory.
#[must_use]
pub fn best_file(generation: u32) -> PathBuf {
    PathBuf::from("best").join(format!("gen-{generation:04}.nnue"))
}
