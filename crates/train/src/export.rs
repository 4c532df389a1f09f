//! The quantised net file (nnue-spec version 1), written atomically.

use std::path::Path;

use crate::TrainError;
use crate::checkpoint::write_atomic;
use crate::config::{Activation, NetVariant};
use crate::model::Network;

const QA: f32 = 255.0;
const QB: f32 = 64.0;

/// Quantises `net` and writes it to `path` (through a temporary file and a rename).
pub fn write_net(net: &Network, variant: NetVariant, path: &Path) -> Result<(), TrainError> {
    let layout = net.layout;
    let p = &net.params;
    let mut out = Vec::new();
    out.extend_from_slice(b"FERZNNUE");
    out.extend_from_slice(&1u32.to_le_bytes());
    out.push(match variant {
        NetVariant::Chess => 0,
        NetVariant::Shatranj => 1,
    });
    out.push(match net.activation {
        Activation::Crelu => 0,
        Activation::Screlu => 1,
    });
    for v in [layout.hidden as u16, 255, 64, 400] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&[0; 10]);
    for &w in &p[layout.feature_weights().start..layout.feature_bias().end] {
        out.extend_from_slice(&((w * QA).round() as i16).to_le_bytes());
    }
    for &w in &p[layout.output_weights()] {
        out.extend_from_slice(&((w * QB).round() as i16).to_le_bytes());
    }
    out.extend_from_slice(&((p[layout.output_bias()] * QA * QB).round() as i32).to_le_bytes());
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    write_atomic(path, &out)
}
