//! `checkpoint.json`: the writer's record of an unfinished shard (the finished shard's
//! `manifest.json` is the dataset format's, in `ferz_dataset::manifest`).

use std::collections::BTreeMap;

use ferz_dataset::manifest::{CacheReport, Tally};
use serde::{Deserialize, Serialize};

use crate::config::SelfplayConfig;

/// `checkpoint.json`: how far an unfinished shard got, to resume without duplicating a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The settings in force; a resume with other settings is refused.
    pub settings: SelfplayConfig,
    /// Shard index and count.
    pub shard: (u32, u32),
    /// Games written (games `0..games_done` are in the files).
    pub games_done: u64,
    /// Valid length and records of each part file at that point.
    pub files: BTreeMap<String, (u64, u64)>,
    /// Totals at that point.
    pub tally: Tally,
    /// Opening-cache figures at that point.
    pub cache: CacheReport,
    /// Nodes searched.
    pub nodes: u64,
    /// Seconds of play so far.
    pub seconds: f64,
    /// Names this run of the shard in its opening cache (see [`crate::journal`]); 0 in
    /// checkpoints written before the journal existed.
    #[serde(default)]
    pub cache_token: u64,
}
