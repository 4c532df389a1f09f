//! The float training state on disk, so `ferz train --resume` continues where a run stopped.
//!
//! Little-endian: magic `FERZTRN1`, the shape (hidden u32, activation u8, variant u8), the
//! position (epoch u32, batch within it u64, AdamW step u64, the running loss sum f64 and its
//! count u64), the parameters, AdamW's first and second moments (f32 each), and a CRC-32 of
//! everything before it. A net of several output buckets has the magic `FERZTRN2` and one more
//! byte in its shape, the bucket count, after the variant; a net whose inputs are not plain has
//! the magic `FERZTRN3` and two more bytes there, the bucket count and the input layout's code
//! (`ferz_nnue::InputLayout::code`). A plain one-bucket checkpoint is written as before buckets
//! and layouts existed. The file is written under a temporary name, synced and renamed, so a
//! kill leaves the previous checkpoint or the new one, never half of one.

use std::path::Path;

use ferz_nnue::InputLayout;

use crate::TrainError;
use crate::config::{Activation, NetVariant};
use crate::model::{Layout, Network};
use crate::optimizer::AdamW;

/// The magic of a checkpoint of a one-bucket net.
const MAGIC: &[u8; 8] = b"FERZTRN1";
/// The magic of a checkpoint whose shape holds an output bucket count.
const MAGIC_BUCKETS: &[u8; 8] = b"FERZTRN2";
/// The magic of a checkpoint whose shape holds an output bucket count and an input layout.
const MAGIC_LAYOUT: &[u8; 8] = b"FERZTRN3";
/// The header of a `FERZTRN1` checkpoint; `FERZTRN2` adds one byte, `FERZTRN3` two.
const HEADER: usize = 8 + 4 + 1 + 1 + 4 + 8 + 8 + 8 + 8;

/// Everything needed to continue a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The net's variant.
    pub variant: NetVariant,
    /// The float network.
    pub net: Network,
    /// The optimiser's state.
    pub adam: AdamW,
    /// The epoch in progress (0-based); `epoch == epochs` when the run is complete.
    pub epoch: u32,
    /// Batches of that epoch already trained.
    pub batch: u64,
    /// Summed training loss of those batches, and the positions it covers.
    pub loss_sum: f64,
    /// Positions in `loss_sum`.
    pub loss_count: u64,
}

impl Checkpoint {
    /// The bytes of the file.
    #[must_use]
    pub fn to_bytes(&self) -> Vec<u8> {
        let len = self.net.params.len();
        let (buckets, inputs) = (self.net.layout.output_buckets, self.net.layout.inputs);
        let plain = inputs == InputLayout::Plain;
        let mut out = Vec::with_capacity(HEADER + 2 + 12 * len + 4);
        out.extend_from_slice(match (plain, buckets) {
            (true, 1) => MAGIC,
            (true, _) => MAGIC_BUCKETS,
            (false, _) => MAGIC_LAYOUT,
        });
        out.extend_from_slice(&(self.net.layout.hidden as u32).to_le_bytes());
        out.push(match self.net.activation {
            Activation::Crelu => 0,
            Activation::Screlu => 1,
        });
        out.push(match self.variant {
            NetVariant::Chess => 0,
            NetVariant::Shatranj => 1,
        });
        if !plain || buckets != 1 {
            // The layout keeps the bucket count within 1..=8.
            out.push(buckets as u8);
        }
        if !plain {
            out.push(inputs.code());
        }
        out.extend_from_slice(&self.epoch.to_le_bytes());
        out.extend_from_slice(&self.batch.to_le_bytes());
        out.extend_from_slice(&self.adam.step.to_le_bytes());
        out.extend_from_slice(&self.loss_sum.to_le_bytes());
        out.extend_from_slice(&self.loss_count.to_le_bytes());
        for block in [&self.net.params, &self.adam.m, &self.adam.v] {
            for x in block {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// Parses a checkpoint; the error says what is wrong.
    pub fn from_bytes(bytes: &[u8]) -> Result<Checkpoint, String> {
        // The shape's bytes after the variant: the bucket count, then the input layout.
        let shape_bytes = match bytes.get(..8) {
            Some(magic) if magic == MAGIC => Some(0),
            Some(magic) if magic == MAGIC_BUCKETS => Some(1),
            Some(magic) if magic == MAGIC_LAYOUT => Some(2),
            _ => None,
        };
        let Some(shape_bytes) = shape_bytes.filter(|b| bytes.len() >= HEADER + b + 4) else {
            return Err("not a ferz training checkpoint (bad magic or too short)".into());
        };
        let header = HEADER + shape_bytes;
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        if crc32fast::hash(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
            return Err("checksum mismatch: the file is damaged".into());
        }
        let u32_at = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().expect("4 bytes"));
        let u64_at = |at: usize| u64::from_le_bytes(body[at..at + 8].try_into().expect("8 bytes"));
        let hidden = u32_at(8) as usize;
        if !(1..=4096).contains(&hidden) {
            return Err(format!("hidden size {hidden} is out of range"));
        }
        let activation = match body[12] {
            0 => Activation::Crelu,
            1 => Activation::Screlu,
            other => return Err(format!("unknown activation {other}")),
        };
        let variant = match body[13] {
            0 => NetVariant::Chess,
            1 => NetVariant::Shatranj,
            other => return Err(format!("unknown variant {other}")),
        };
        let output_buckets = if shape_bytes >= 1 { usize::from(body[14]) } else { 1 };
        if !(1..=ferz_nnue::MAX_OUTPUT_BUCKETS).contains(&output_buckets) {
            return Err(format!("{output_buckets} output buckets is out of range"));
        }
        let inputs = if shape_bytes == 2 {
            InputLayout::from_code(body[15]).ok_or(format!("unknown input layout code {}", body[15]))?
        } else {
            InputLayout::Plain
        };
        let layout = Layout { inputs, hidden, output_buckets };
        let len = layout.len();
        if body.len() != header + 12 * len {
            return Err(format!(
                "{} bytes, but hidden size {hidden}, {output_buckets} output buckets and {inputs} inputs need {}",
                bytes.len(),
                header + 12 * len + 4
            ));
        }
        // The position fields follow the shape.
        let at = |offset: usize| offset + shape_bytes;
        let floats = |block: usize| -> Vec<f32> {
            body[header + 4 * len * block..header + 4 * len * (block + 1)]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect()
        };
        Ok(Checkpoint {
            variant,
            net: Network { layout, activation, params: floats(0) },
            adam: AdamW { m: floats(1), v: floats(2), step: u64_at(at(26)) },
            epoch: u32_at(at(14)),
            batch: u64_at(at(18)),
            loss_sum: f64::from_le_bytes(body[at(34)..at(42)].try_into().expect("8 bytes")),
            loss_count: u64_at(at(42)),
        })
    }

    /// Writes the checkpoint to `path` atomically.
    pub fn save(&self, path: &Path) -> Result<(), TrainError> {
        write_atomic(path, &self.to_bytes())
    }

    /// Reads the checkpoint at `path`.
    pub fn load(path: &Path) -> Result<Checkpoint, TrainError> {
        let bytes = std::fs::read(path).map_err(|source| TrainError::Io { path: path.to_path_buf(), source })?;
        Checkpoint::from_bytes(&bytes).map_err(|reason| TrainError::Checkpoint { path: path.to_path_buf(), reason })
    }
}

/// Writes `bytes` as the whole of `path` ([`ferz_files::write_atomic`]), naming `path` in the error.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), TrainError> {
    ferz_files::write_atomic(path, bytes).map_err(|source| TrainError::Io { path: path.to_path_buf(), source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_round_trip_and_detect_damage() {
        for (inputs, buckets, magic) in [
            (InputLayout::Plain, 1, b"FERZTRN1"),
            (InputLayout::Plain, 8, b"FERZTRN2"),
            (InputLayout::King4, 1, b"FERZTRN3"),
            (InputLayout::Mirrored, 8, b"FERZTRN3"),
        ] {
            round_trip_and_damage(Layout { inputs, hidden: 4, output_buckets: buckets }, magic);
        }
    }

    fn round_trip_and_damage(layout: Layout, magic: &[u8; 8]) {
        let net = Network::random(layout, Activation::Screlu, 5);
        let mut adam = AdamW::new(net.params.len());
        adam.m[3] = 0.25;
        adam.v[7] = 0.5;
        adam.step = 42;
        let checkpoint =
            Checkpoint { variant: NetVariant::Shatranj, net, adam, epoch: 3, batch: 17, loss_sum: 1.5, loss_count: 99 };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("checkpoint.bin");
        checkpoint.save(&path).unwrap();
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["checkpoint.bin"], "no temporary file is left");
        assert_eq!(Checkpoint::load(&path).unwrap(), checkpoint);
        let mut bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], magic);
        bytes[100] ^= 1;
        assert!(Checkpoint::from_bytes(&bytes).unwrap_err().contains("checksum"));
        assert!(Checkpoint::from_bytes(&bytes[..bytes.len() - 8]).is_err());
        assert!(Checkpoint::from_bytes(b"FERZNNUE").unwrap_err().contains("magic"));
    }

    /// A checkpoint's bytes with byte `at` set to `value`, its checksum made to match.
    fn edited(layout: Layout, at: usize, value: u8) -> Vec<u8> {
        let net = Network::random(layout, Activation::Screlu, 5);
        let adam = AdamW::new(net.params.len());
        let checkpoint =
            Checkpoint { variant: NetVariant::Chess, net, adam, epoch: 0, batch: 0, loss_sum: 0.0, loss_count: 0 };
        let mut bytes = checkpoint.to_bytes();
        bytes[at] = value;
        let end = bytes.len() - 4;
        let crc = crc32fast::hash(&bytes[..end]);
        bytes[end..].copy_from_slice(&crc.to_le_bytes());
        bytes
    }

    #[test]
    fn a_bucket_count_or_input_layout_out_of_range_is_named() {
        let bytes = edited(Layout::plain(4, 2), 14, 9);
        assert_eq!(Checkpoint::from_bytes(&bytes).unwrap_err(), "9 output buckets is out of range");
        let king4 = Layout { inputs: InputLayout::King4, ..Layout::plain(4, 2) };
        let bytes = edited(king4, 15, 7);
        assert_eq!(Checkpoint::from_bytes(&bytes).unwrap_err(), "unknown input layout code 7");
        // A layout the parameters do not fit.
        let bytes = edited(king4, 15, 1);
        assert!(Checkpoint::from_bytes(&bytes).unwrap_err().contains("mirrored inputs need"));
    }
}
