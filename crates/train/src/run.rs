//! The run record, `run.json`: what a training run is made of and what it wrote.
//!
//! It holds the settings that shape the weights (every key of the settings file except the
//! input paths and `[output]`, with the thread count resolved), each input's manifest hash and
//! position count, and after every epoch (or stop) the SHA-256 of the net written. Two uses:
//!
//! - A net can be traced to the data and settings that made it: the manifests' SHA-256 pin every
//!   byte of the data, since every file was checked against its manifest before use.
//! - `--resume` refuses settings or data other than the run's. The shuffle of each epoch, the
//!   learning-rate schedule and the order in which per-thread gradients are summed all depend
//!   on them, so a resume with another batch size, thread count, epoch count or dataset would go
//!   on silently into a net that no unbroken run gives.

use std::path::Path;

use ferz_dataset::manifest::first_difference;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::TrainError;
use crate::config::TrainConfig;
use crate::dataset::{Dataset, InputDigest};

/// The run record's file name in the output directory.
pub const RUN_FILE: &str = "run.json";
/// The run record's `format` value.
pub const RUN_FORMAT: &str = "ferz-train-run/1";

/// What a run is made of, as `run.json` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    /// [`RUN_FORMAT`].
    pub format: String,
    /// The trainer that began the run: `ferz-train <version>`.
    pub trainer: String,
    /// The settings that shape the weights, keyed as in `config/train.toml`.
    pub settings: Value,
    /// The inputs in the order they were read (the order changes the shuffles).
    pub inputs: Vec<InputDigest>,
    /// Positions trained on.
    pub train_positions: u64,
    /// Positions held out for the validation loss.
    pub validation_positions: u64,
    /// The net written last, once one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<NetDigest>,
}

/// The net a run wrote last and where the run stood.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetDigest {
    /// The file's name in the output directory.
    pub file: String,
    /// Its SHA-256, lower-case hex.
    pub sha256: String,
    /// Epochs completed when it was written.
    pub epochs: u32,
    /// Batches of the next epoch trained when it was written (0 at the end of an epoch).
    pub batches: u64,
}

impl RunRecord {
    /// The record of a run of `config` on `data`, with no net yet.
    #[must_use]
    pub fn new(config: &TrainConfig, data: &Dataset) -> RunRecord {
        RunRecord {
            format: RUN_FORMAT.to_owned(),
            trainer: format!("ferz-train {}", env!("CARGO_PKG_VERSION")),
            settings: weight_settings(config),
            inputs: data.summary.inputs.clone(),
            train_positions: data.train.len() as u64,
            validation_positions: data.validation.len() as u64,
            net: None,
        }
    }

    /// Reads the record at `path`.
    pub fn load(path: &Path) -> Result<RunRecord, TrainError> {
        let error = |reason: String| TrainError::Run { path: path.to_path_buf(), reason };
        // The format first, so a record of another version says so rather than naming a field
        // this version does not know.
        let value: Value = ferz_dataset::manifest::read_json(path).map_err(error)?;
        let format = value.get("format").and_then(Value::as_str).unwrap_or("(none)");
        if format != RUN_FORMAT {
            return Err(error(format!("format {format:?}, this trainer reads {RUN_FORMAT:?}")));
        }
        serde_json::from_value(value).map_err(|e| error(e.to_string()))
    }

    /// Writes the record to `path` through a temporary file and a rename.
    pub fn save(&self, path: &Path) -> Result<(), TrainError> {
        ferz_dataset::manifest::write_json_atomic(path, self)
            .map_err(|source| TrainError::Io { path: path.to_path_buf(), source })
    }

    /// Whether `current` (the settings and data of a resume) continues this run: the first
    /// difference, named by its settings key or input, otherwise.
    pub fn check_resume(&self, current: &RunRecord) -> Result<(), String> {
        if let Some((key, was, now)) = first_difference(&self.settings, &current.settings, "") {
            return Err(format!(
                "the run was made with {key} = {was}, the settings say {now}; a resume must keep every setting \
                 that shapes the weights (start a new run in another output.dir to change it)"
            ));
        }
        if self.inputs.len() != current.inputs.len() {
            return Err(format!(
                "the run was made from {} inputs, {} were given; a resume must read the same data in the same order",
                self.inputs.len(),
                current.inputs.len()
            ));
        }
        for (index, (was, now)) in self.inputs.iter().zip(&current.inputs).enumerate() {
            if was.manifest_sha256 != now.manifest_sha256 {
                return Err(format!(
                    "input {} ({}) has manifest SHA-256 {}, the run read {} there ({}); a resume must read the same \
                     data in the same order",
                    index + 1,
                    now.path.display(),
                    now.manifest_sha256,
                    was.path.display(),
                    was.manifest_sha256
                ));
            }
        }
        Ok(())
    }
}

/// The settings that shape the weights, as a JSON tree keyed like the settings file.
fn weight_settings(config: &TrainConfig) -> Value {
    let mut config = config.clone();
    // `threads = 0` means one per CPU; the count itself is what sums the gradients.
    config.train.threads = config.threads();
    // Through JSON text and back, so a value read from `run.json` later compares equal to it
    // bit for bit (both went through the same float parsing).
    let text = serde_json::to_string(&config).expect("the settings serialise");
    let mut value: Value = serde_json::from_str(&text).expect("serde_json reads what it wrote");
    let map = value.as_object_mut().expect("the settings are a table");
    map.remove("output");
    if let Some(Value::Object(data)) = map.get_mut("data") {
        data.remove("inputs");
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(config: &TrainConfig, inputs: &[(&str, &str)]) -> RunRecord {
        let mut data = Dataset::default();
        data.summary.inputs = inputs
            .iter()
            .map(|(path, sha)| InputDigest { path: path.into(), manifest_sha256: (*sha).to_owned(), positions: 1 })
            .collect();
        RunRecord::new(config, &data)
    }

    #[test]
    fn a_resume_with_the_same_settings_and_data_is_accepted_whatever_the_paths() {
        let mut config = TrainConfig::default();
        config.train.threads = 2;
        let run = record(&config, &[("a", "11"), ("b", "22")]);
        config.output.dir = "elsewhere".into();
        config.output.keep_epoch_nets = true;
        config.data.inputs = vec!["moved/a".into()];
        assert_eq!(run.check_resume(&record(&config, &[("moved/a", "11"), ("moved/b", "22")])), Ok(()));
    }

    #[test]
    fn a_changed_setting_is_named_by_its_key() {
        let mut config = TrainConfig::default();
        config.train.threads = 2;
        let run = record(&config, &[("a", "11")]);
        let mut other = config.clone();
        other.train.batch_size = 8192;
        let err = run.check_resume(&record(&other, &[("a", "11")])).unwrap_err();
        assert!(err.contains("train.batch_size = 16384") && err.contains("say 8192"), "{err}");
        let mut other = config.clone();
        other.train.threads = 3;
        assert!(run.check_resume(&record(&other, &[("a", "11")])).unwrap_err().contains("train.threads"));
        let mut other = config.clone();
        other.optimizer.lr = 0.001;
        assert!(run.check_resume(&record(&other, &[("a", "11")])).unwrap_err().contains("optimizer.lr"));
        let mut other = config;
        other.data.variant = crate::config::NetVariant::Shatranj;
        assert!(run.check_resume(&record(&other, &[("a", "11")])).unwrap_err().contains("data.variant"));
    }

    #[test]
    fn other_data_or_another_order_is_refused() {
        let config = TrainConfig::default();
        let run = record(&config, &[("a", "11"), ("b", "22")]);
        let err = run.check_resume(&record(&config, &[("b", "22"), ("a", "11")])).unwrap_err();
        assert!(err.contains("input 1 (b)") && err.contains("22"), "{err}");
        let err = run.check_resume(&record(&config, &[("a", "11")])).unwrap_err();
        assert!(err.contains("2 inputs, 1 were given"), "{err}");
    }

    #[test]
    fn the_record_reads_back_equal_and_a_foreign_format_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RUN_FILE);
        let mut config = TrainConfig::default();
        config.optimizer.lr = 0.0013;
        config.train.lambda = 0.37;
        let mut run = record(&config, &[("a", "11")]);
        run.net = Some(NetDigest { file: "net.nnue".into(), sha256: "ab".into(), epochs: 2, batches: 0 });
        run.save(&path).unwrap();
        let back = RunRecord::load(&path).unwrap();
        assert_eq!(back, run);
        assert_eq!(back.check_resume(&record(&config, &[("a", "11")])), Ok(()));
        let newer = std::fs::read_to_string(&path).unwrap().replace(RUN_FORMAT, "ferz-train-run/9");
        std::fs::write(&path, newer.replacen('{', "{\"field_of_later_versions\": 1,", 1)).unwrap();
        let err = RunRecord::load(&path).unwrap_err().to_string();
        assert!(err.contains("ferz-train-run/9") && err.contains(RUN_FILE), "{err}");
        std::fs::write(&path, "{ not json").unwrap();
        assert!(RunRecord::load(&path).unwrap_err().to_string().contains(RUN_FILE));
    }
}
