//! The quantised net file, through the inference crate's quantisation and format.

use std::path::Path;

use crate::TrainError;
use crate::config::NetVariant;
use crate::model::Network;

/// The inference crate's name for a net variant.
#[must_use]
pub const fn nnue_variant(variant: NetVariant) -> ferz_nnue::NetVariant {
    match variant {
        NetVariant::Chess => ferz_nnue::NetVariant::Chess,
        NetVariant::Shatranj => ferz_nnue::NetVariant::Shatranj,
    }
}

/// Quantises `net` and writes it to `path` (atomically: a temporary file, then a rename).
pub fn write_net(net: &Network, variant: NetVariant, path: &Path) -> Result<(), TrainError> {
    let error = |reason: String| TrainError::Net { path: path.to_path_buf(), reason };
    let quantised = net.to_float().quantise(nnue_variant(variant)).map_err(|e| error(e.to_string()))?;
    ferz_nnue::format::save(&quantised, path).map_err(|e| error(e.to_string()))
}
