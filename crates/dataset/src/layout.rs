//! The layout of a shard or dataset directory: its file names and what each holds.
//!
//! A complete directory holds `manifest.json` and the data files it lists: `<variant>.txt`
//! (text records), `<variant>.marlin` (marlin records) and `games.pgn`. A shard that is still
//! being written holds `checkpoint.json` and `.part` files instead; shards of a run live in
//! `<out>/shard-<index>` (five digits).

use std::path::{Path, PathBuf};

use ferz_chess::Variant;

/// The PGN file of a shard or dataset.
pub const PGN_FILE: &str = "games.pgn";
/// The manifest of a complete shard or dataset.
pub const MANIFEST_FILE: &str = "manifest.json";
/// The checkpoint of an unfinished shard.
pub const CHECKPOINT_FILE: &str = "checkpoint.json";

/// The directory of shard `index` of a run written to `out`.
#[must_use]
pub fn shard_dir(out: &Path, index: u32) -> PathBuf {
    out.join(format!("shard-{index:05}"))
}

/// The name of a variant in file names and manifests.
#[must_use]
pub const fn variant_name(variant: Variant) -> &'static str {
    match variant {
        Variant::Chess => "chess",
        Variant::Chess960 => "chess960",
        Variant::Shatranj => "shatranj",
    }
}

/// The kind of a data file, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// `<variant>.txt`: one text record a line.
    Text(Variant),
    /// `<variant>.marlin`: 32-byte marlin records.
    Marlin(Variant),
    /// `games.pgn`: every game of the shard.
    Pgn,
}

impl FileKind {
    /// The kind of a file name, if it is one of ours.
    #[must_use]
    pub fn of_name(name: &str) -> Option<FileKind> {
        if name == PGN_FILE {
            return Some(FileKind::Pgn);
        }
        let (stem, ext) = name.rsplit_once('.')?;
        let variant =
            [Variant::Chess, Variant::Chess960, Variant::Shatranj].into_iter().find(|&v| variant_name(v) == stem)?;
        match ext {
            "txt" => Some(FileKind::Text(variant)),
            "marlin" => Some(FileKind::Marlin(variant)),
            _ => None,
        }
    }

    /// The file name of this kind.
    #[must_use]
    pub fn file_name(self) -> String {
        match self {
            FileKind::Text(v) => format!("{}.txt", variant_name(v)),
            FileKind::Marlin(v) => format!("{}.marlin", variant_name(v)),
            FileKind::Pgn => PGN_FILE.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_kinds_round_trip() {
        for kind in [
            FileKind::Pgn,
            FileKind::Text(Variant::Chess960),
            FileKind::Marlin(Variant::Shatranj),
            FileKind::Marlin(Variant::Chess),
        ] {
            assert_eq!(FileKind::of_name(&kind.file_name()), Some(kind));
        }
        assert_eq!(FileKind::of_name("chess.bin"), None);
        assert_eq!(FileKind::of_name("xiangqi.marlin"), None);
        assert_eq!(shard_dir(Path::new("d"), 7), Path::new("d/shard-00007"));
    }
}
