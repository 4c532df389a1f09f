//! The float training state on disk, so `ferz train --resume` continues where a run stopped.
//!
//! Little-endian: magic `FERZTRN1`, the shape (hidden u32, activation u8, variant u8), the
//! position (epoch u32, batch within it u64, AdamW step u64, the running loss sum f64 and its
//! count u64), the parameters, AdamW's first and second moments (f32 each), and a CRC-32 of
//! everything before it. The file is written under a temporary name, synced and renamed, so a
//! kill leaves the previous checkpoint or the new one, never half of one.

use std::path::Path;

use crate::TrainError;
use crate::config::{Activation, NetVariant};
use crate::model::{Layout, Network};
use crate::optimizer::AdamW;

const MAGIC: &[u8; 8] = b"FERZTRN1";
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
        let mut out = Vec::with_capacity(HEADER + 12 * len + 4);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.net.layout.hidden as u32).to_le_bytes());
        out.push(match self.net.activation {
            Activation::Crelu => 0,
            Activation::Screlu => 1,
        });
        out.push(match self.variant {
            NetVariant::Chess => 0,
            NetVariant::Shatranj => 1,
        });
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
        if bytes.len() < HEADER + 4 || &bytes[..8] != MAGIC {
            return Err("not a ferz training checkpoint (bad magic or too short)".into());
        }
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
        let layout = Layout { hidden };
        let len = layout.len();
        if body.len() != HEADER + 12 * len {
            return Err(format!("{} bytes, but hidden size {hidden} needs {}", bytes.len(), HEADER + 12 * len + 4));
        }
        let floats = |block: usize| -> Vec<f32> {
            body[HEADER + 4 * len * block..HEADER + 4 * len * (block + 1)]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
                .collect()
        };
        Ok(Checkpoint {
            variant,
            net: Network { layout, activation, params: floats(0) },
            adam: AdamW { m: floats(1), v: floats(2), step: u64_at(26) },
            epoch: u32_at(14),
            batch: u64_at(18),
            loss_sum: f64::from_le_bytes(body[34..42].try_into().expect("8 bytes")),
            loss_count: u64_at(42),
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
        let net = Network::random(4, Activation::Screlu, 5);
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
        bytes[100] ^= 1;
        assert!(Checkpoint::from_bytes(&bytes).unwrap_err().contains("checksum"));
        assert!(Checkpoint::from_bytes(&bytes[..bytes.len() - 8]).is_err());
        assert!(Checkpoint::from_bytes(b"FERZNNUE").unwrap_err().contains("magic"));
    }
}
