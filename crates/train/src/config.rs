//! The training settings: what `config/train.toml` holds, with its defaults.
//!
//! Every section rejects unknown keys, so a typo fails at start instead of being ignored, and
//! [`TrainConfig::validate`] checks the values once, with messages that name the key.

use std::path::PathBuf;

use ferz_nnue::InputLayout;
use serde::{Deserialize, Serialize};

/// Everything a training run needs to know.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// Which datasets, which variant, and the validation split.
    pub data: DataConfig,
    /// The network's shape.
    pub net: NetConfig,
    /// Epochs, batches, threads and the loss.
    pub train: LoopConfig,
    /// AdamW and the learning-rate schedule.
    pub optimizer: OptimizerConfig,
    /// Where checkpoints and nets go.
    pub output: OutputConfig,
}

/// Which rule family a net evaluates: the value of the net file's variant byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NetVariant {
    /// Standard chess and Chess960 (records with variant byte 0 or 1).
    Chess,
    /// Shatranj (records with variant byte 2).
    Shatranj,
}

/// `[data]`: the inputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DataConfig {
    /// Shard or merged-dataset directories written by `ferz selfplay` / `ferz data merge`.
    pub inputs: Vec<PathBuf>,
    /// The variant the net is for; records of other variants are skipped (and counted).
    pub variant: NetVariant,
    /// Share of the games held out for the validation loss.
    pub validation_fraction: f64,
    /// Seed of the validation split, the weight initialisation and the shuffles.
    #[serde(deserialize_with = "seed_from_number_or_digits")]
    pub seed: u64,
}

/// Reads a seed written as a number or as a string of digits: TOML's integers are signed, so a
/// seed above `i64::MAX` (half of those `ferz loop` derives) can be written only as digits.
fn seed_from_number_or_digits<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Seed {
        Number(u64),
        Digits(String),
    }
    match Seed::deserialize(deserializer)? {
        Seed::Number(seed) => Ok(seed),
        Seed::Digits(digits) => digits.parse().map_err(|_| {
            serde::de::Error::custom(format!("seed {digits:?} is not a whole number from 0 to {}", u64::MAX))
        }),
    }
}

impl Default for DataConfig {
    fn default() -> DataConfig {
        DataConfig { inputs: Vec::new(), variant: NetVariant::Chess, validation_fraction: 0.05, seed: 1 }
    }
}

/// The hidden layer's activation: the net file's activation byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Activation {
    /// Clipped ReLU: `clamp(x, 0, 1)`.
    Crelu,
    /// Squared clipped ReLU: `clamp(x, 0, 1)^2`.
    Screlu,
}

/// `[net]`: the shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NetConfig {
    /// Hidden neurons per perspective (N of 768·K -> N x 2 -> 1).
    pub hidden: usize,
    /// How the inputs depend on each side's king: `"plain"`, `"mirrored"` or `"king4"` (four
    /// king buckets, mirrored; `ferz_nnue::InputLayout`). Left out of the run record when
    /// plain, so records of plain runs read as before.
    #[serde(with = "input_layout_name", skip_serializing_if = "is_plain")]
    pub input_layout: InputLayout,
    /// Output layers, one per bucket of piece counts (1..=8; `ferz_nnue::output_bucket`).
    /// Left out of the run record when 1, so records of one-bucket runs read as before.
    #[serde(skip_serializing_if = "is_one_bucket")]
    pub output_buckets: usize,
    /// The activation of the hidden layer.
    pub activation: Activation,
    /// A net file to start from instead of random weights (fine-tuning): its activation must
    /// be `activation`, its variant the data's; a smaller hidden layer is widened to `hidden`
    /// and a single output layer copied into every bucket. Empty: random weights.
    pub init: PathBuf,
}

/// Whether an input layout is the plain one, which settings written as JSON leave out (as
/// [`is_one_bucket`] does for output buckets).
#[must_use]
#[allow(clippy::trivially_copy_pass_by_ref)]
pub fn is_plain(inputs: &InputLayout) -> bool {
    *inputs == InputLayout::Plain
}

/// Settings write an input layout by its name (`ferz_nnue::InputLayout::name`): for serde's
/// `with` attribute.
pub mod input_layout_name {
    use ferz_nnue::InputLayout;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the layout's name.
    ///
    /// # Errors
    /// Those of the serializer.
    #[allow(clippy::trivially_copy_pass_by_ref)]
    pub fn serialize<S: Serializer>(inputs: &InputLayout, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(inputs.name())
    }

    /// Reads a layout's name.
    ///
    /// # Errors
    /// A name that is no layout ([`ferz_nnue::features::UnknownInputLayout`]).
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<InputLayout, D::Error> {
        String::deserialize(deserializer)?.parse().map_err(serde::de::Error::custom)
    }
}

/// Whether an output bucket count is one. Settings written as JSON (the run record, the loop's
/// recipes) leave such a count out, so that those of one-bucket nets read as they did before
/// buckets existed. (A reference, as serde's `skip_serializing_if` passes one.)
#[must_use]
#[allow(clippy::trivially_copy_pass_by_ref)]
pub fn is_one_bucket(buckets: &usize) -> bool {
    *buckets == 1
}

impl Default for NetConfig {
    fn default() -> NetConfig {
        NetConfig {
            hidden: 128,
            input_layout: InputLayout::Plain,
            output_buckets: 1,
            activation: Activation::Screlu,
            init: PathBuf::new(),
        }
    }
}

/// `[train]`: the loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LoopConfig {
    /// Passes over the training positions.
    pub epochs: u32,
    /// Positions per optimiser step.
    pub batch_size: usize,
    /// Threads computing each batch's gradient; 0 = one per CPU.
    pub threads: usize,
    /// Weight of the game result in the target; the rest is the search score's sigmoid.
    pub lambda: f64,
    /// Train on a random half of the positions mirrored left to right each epoch.
    pub mirror: bool,
}

impl Default for LoopConfig {
    fn default() -> LoopConfig {
        LoopConfig { epochs: 20, batch_size: 16_384, threads: 0, lambda: 0.1, mirror: true }
    }
}

/// How the learning rate falls over the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Schedule {
    /// Cosine from `lr` down to `lr * final_lr_fraction` over all steps of the run.
    Cosine,
    /// `lr` times `step_gamma` after every `step_epochs` epochs.
    Step,
}

/// `[optimizer]`: AdamW and the schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OptimizerConfig {
    /// Peak learning rate.
    pub lr: f64,
    /// Adam's first-moment decay.
    pub beta1: f64,
    /// Adam's second-moment decay.
    pub beta2: f64,
    /// Adam's epsilon.
    pub epsilon: f64,
    /// Decoupled weight decay (AdamW), per step, times the learning rate.
    pub weight_decay: f64,
    /// Weights are clipped to `[-clip, clip]` after every step so the quantised i16 values
    /// (x 255) cannot overflow.
    pub clip: f64,
    /// The learning-rate schedule.
    pub schedule: Schedule,
    /// Cosine: the last step's rate as a share of `lr`.
    pub final_lr_fraction: f64,
    /// Step: epochs between drops.
    pub step_epochs: u32,
    /// Step: the factor of each drop.
    pub step_gamma: f64,
}

impl Default for OptimizerConfig {
    fn default() -> OptimizerConfig {
        OptimizerConfig {
            lr: 0.002,
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            weight_decay: 0.01,
            clip: 1.98,
            schedule: Schedule::Cosine,
            final_lr_fraction: 0.05,
            step_epochs: 8,
            step_gamma: 0.3,
        }
    }
}

/// `[output]`: files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OutputConfig {
    /// Directory of the run: `checkpoint.bin`, `net.nnue`, `net-epoch<k>.nnue` and `loss.csv`.
    pub dir: PathBuf,
    /// Keep the quantised net of every epoch (`net-epoch<k>.nnue`) besides the latest.
    pub keep_epoch_nets: bool,
}

impl Default for OutputConfig {
    fn default() -> OutputConfig {
        OutputConfig { dir: PathBuf::from("nets/run"), keep_epoch_nets: false }
    }
}

/// A setting out of range, with the key that holds it.
#[derive(Debug, thiserror::Error)]
#[error("{key}: {reason}")]
pub struct ConfigError {
    /// `section.key`.
    pub key: &'static str,
    /// What is wrong with the value.
    pub reason: String,
}

fn check(ok: bool, key: &'static str, reason: impl Into<String>) -> Result<(), ConfigError> {
    if ok { Ok(()) } else { Err(ConfigError { key, reason: reason.into() }) }
}

impl TrainConfig {
    /// Checks every value; the error names the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let (d, n, t, o) = (&self.data, &self.net, &self.train, &self.optimizer);
        check(!d.inputs.is_empty(), "data.inputs", "no dataset given (list shard or dataset directories)")?;
        check((0.0..1.0).contains(&d.validation_fraction), "data.validation_fraction", "must be in [0, 1)")?;
        check((1..=4096).contains(&n.hidden), "net.hidden", "must be 1 ..= 4096 (the net file's limit)")?;
        check(
            (1..=ferz_nnue::MAX_OUTPUT_BUCKETS).contains(&n.output_buckets),
            "net.output_buckets",
            "must be 1 ..= 8 (the net file's limit)",
        )?;
        check(t.epochs >= 1, "train.epochs", "must be at least 1")?;
        check(t.batch_size >= 1, "train.batch_size", "must be at least 1")?;
        check((0.0..=1.0).contains(&t.lambda), "train.lambda", "must be in [0, 1]")?;
        check(o.lr > 0.0 && o.lr.is_finite(), "optimizer.lr", "must be positive")?;
        check((0.0..1.0).contains(&o.beta1), "optimizer.beta1", "must be in [0, 1)")?;
        check((0.0..1.0).contains(&o.beta2), "optimizer.beta2", "must be in [0, 1)")?;
        check(o.epsilon > 0.0, "optimizer.epsilon", "must be positive")?;
        check((0.0..1.0).contains(&o.weight_decay), "optimizer.weight_decay", "must be in [0, 1)")?;
        check(o.clip > 0.0 && o.clip <= 1.98, "optimizer.clip", "must be in (0, 1.98] (i16 safety after x 255)")?;
        check((0.0..=1.0).contains(&o.final_lr_fraction), "optimizer.final_lr_fraction", "must be in [0, 1]")?;
        check(o.step_epochs >= 1, "optimizer.step_epochs", "must be at least 1")?;
        check(o.step_gamma > 0.0 && o.step_gamma <= 1.0, "optimizer.step_gamma", "must be in (0, 1]")?;
        check(!self.output.dir.as_os_str().is_empty(), "output.dir", "must not be empty")?;
        Ok(())
    }

    /// Gradient threads: the setting, or one per CPU.
    #[must_use]
    pub fn threads(&self) -> usize {
        match self.train.threads {
            0 => std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            n => n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_need_only_inputs() {
        let mut config = TrainConfig::default();
        assert_eq!(config.validate().unwrap_err().key, "data.inputs");
        config.data.inputs.push(PathBuf::from("data"));
        config.validate().unwrap();
        config.optimizer.clip = 3.0;
        assert_eq!(config.validate().unwrap_err().key, "optimizer.clip");
        config.optimizer.clip = 1.0;
        config.net.hidden = 0;
        assert_eq!(config.validate().unwrap_err().key, "net.hidden");
        config.net.hidden = 128;
        config.net.output_buckets = 9;
        assert_eq!(config.validate().unwrap_err().key, "net.output_buckets");
    }

    /// The run record keeps the settings as JSON: a one-bucket run's reads as it did before
    /// buckets existed, a bucketed one's names its buckets.
    #[test]
    fn one_output_bucket_is_left_out_of_the_record() {
        let mut net = NetConfig::default();
        assert!(!serde_json::to_string(&net).unwrap().contains("output_buckets"));
        net.output_buckets = 8;
        assert!(serde_json::to_string(&net).unwrap().contains("\"output_buckets\":8"));
        let read: NetConfig = serde_json::from_str(r#"{"hidden": 64}"#).unwrap();
        assert_eq!(read.output_buckets, 1);
    }

    /// The input layout is written by name and left out when plain; an unknown name is
    /// refused with the names there are.
    #[test]
    fn the_input_layout_is_named_and_plain_is_left_out() {
        let mut net = NetConfig::default();
        assert!(!serde_json::to_string(&net).unwrap().contains("input_layout"));
        net.input_layout = InputLayout::King4;
        assert!(serde_json::to_string(&net).unwrap().contains("\"input_layout\":\"king4\""));
        let read: NetConfig = serde_json::from_str(r#"{"input_layout": "mirrored"}"#).unwrap();
        assert_eq!(read.input_layout, InputLayout::Mirrored);
        let e = serde_json::from_str::<NetConfig>(r#"{"input_layout": "king8"}"#).unwrap_err();
        assert!(
            e.to_string().contains("unknown input layout \"king8\", expected one of plain, mirrored, king4"),
            "{e}"
        );
    }
}
