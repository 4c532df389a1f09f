//! The self-play settings: what `config/selfplay.toml` holds, with its defaults.
//!
//! Every section rejects unknown keys, so a typo fails at start instead of being ignored, and
//! [`SelfplayConfig::validate`] checks the values once, with messages that name the key.

use std::collections::BTreeMap;
use std::path::PathBuf;

use ferz_engine::MAX_DEPTH;
use ferz_engine::uci::{self, OptionId};
use ferz_settings::{at_least, check, in_range, within_limits};
use serde::{Deserialize, Serialize};

/// A value that cannot work, with the key that holds it: the error of every ferz settings file.
pub use ferz_settings::InvalidSetting;

/// Everything a self-play run needs to know.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfplayConfig {
    /// How much to play, where to write, and the seed.
    pub run: RunConfig,
    /// Which variants to play, by weight.
    pub variants: VariantMix,
    /// The per-move search.
    pub search: SearchConfig,
    /// How games open.
    pub opening: OpeningConfig,
    /// When games end early.
    pub adjudication: AdjudicationConfig,
    /// Which positions go into the dataset.
    pub filter: FilterConfig,
    /// Which files a shard writes.
    pub output: OutputConfig,
    /// The shared opening cache.
    pub cache: CacheConfig,
}

/// `[run]`: size, threads, output directory and seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunConfig {
    /// Games this process plays (one shard).
    pub games: u64,
    /// Worker threads, each playing its own games with its own engine; 0 = one per CPU.
    pub threads: usize,
    /// The dataset directory; each shard writes `shard-<index>` inside it.
    pub out: PathBuf,
    /// The run's seed; each shard and game derives its own from it.
    pub seed: u64,
    /// Seconds between checkpoints (0: after every game). A killed shard resumes from its last
    /// checkpoint and replays the games after it.
    pub checkpoint_seconds: u64,
}

impl Default for RunConfig {
    fn default() -> RunConfig {
        RunConfig { games: 100, threads: 0, out: PathBuf::from("data/selfplay"), seed: 1, checkpoint_seconds: 2 }
    }
}

/// `[variants]`: relative weights of the variants; a game's variant is drawn by weight.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VariantMix {
    /// Standard chess.
    pub chess: u32,
    /// Chess960 from random Scharnagl numbers.
    pub chess960: u32,
    /// Shatranj from both start arrays.
    pub shatranj: u32,
}

impl Default for VariantMix {
    fn default() -> VariantMix {
        VariantMix { chess: 1, chess960: 0, shatranj: 0 }
    }
}

/// What limits each move's search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveLimit {
    /// A fixed node count (`search.nodes`): the same effort on every machine.
    Nodes,
    /// A fixed depth (`search.depth`).
    Depth,
}

/// `[search]`: the per-move search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Whether `nodes` or `depth` limits a move.
    pub limit: MoveLimit,
    /// Nodes per move when `limit = "nodes"`.
    pub nodes: u64,
    /// Depth per move when `limit = "depth"`.
    pub depth: u32,
    /// Transposition table per worker thread, in MiB.
    pub hash_mb: usize,
    /// Keep the table from game to game (faster, less independent) instead of clearing it.
    pub keep_hash: bool,
    /// Evaluate as the engine does by default: with a net named by `eval_file` /
    /// `eval_file_shatranj`, or with the embedded net of a variant whose net won its match;
    /// `false`: the hand-tuned evaluation everywhere (the engine's `UseNNUE false`).
    pub use_nnue: bool,
    /// A chess and Chess960 net file instead of the embedded one (empty: the embedded net).
    pub eval_file: PathBuf,
    /// A Shatranj net file instead of the embedded one (empty: the embedded net, if any).
    pub eval_file_shatranj: PathBuf,
    /// Search parameter values by name (as `ferz spsa params` lists them) in place of the
    /// build's defaults; the others keep theirs. They hold for the whole process, so every
    /// shard it plays uses them. Left out of the record when empty, so that the settings of a
    /// shard played without them read as they always did.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, i32>,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            limit: MoveLimit::Nodes,
            nodes: 5000,
            depth: 8,
            hash_mb: 16,
            keep_hash: false,
            use_nnue: true,
            eval_file: PathBuf::new(),
            eval_file_shatranj: PathBuf::new(),
            params: BTreeMap::new(),
        }
    }
}

/// `[opening]`: the start of each game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OpeningConfig {
    /// EPD or FEN file of standard-chess start positions (one a line); empty: the start position.
    pub book: PathBuf,
    /// Uniformly random legal plies played after the MultiPV plies.
    pub random_plies: u32,
    /// Plies from the start position chosen among the MultiPV candidates within `margin_cp` of
    /// the best (through the opening cache), preferring the less played.
    pub multipv_plies: u32,
    /// Candidates the MultiPV search reports.
    pub multipv: usize,
    /// Candidates within this many centipawns of the best are eligible.
    pub margin_cp: i32,
    /// Nodes of each MultiPV opening search.
    pub multipv_nodes: u64,
    /// Openings whose score after the opening plies exceeds this are replaced by another.
    pub max_start_cp: i32,
}

impl Default for OpeningConfig {
    fn default() -> OpeningConfig {
        OpeningConfig {
            book: PathBuf::new(),
            random_plies: 2,
            multipv_plies: 8,
            multipv: 4,
            margin_cp: 40,
            multipv_nodes: 50_000,
            max_start_cp: 400,
        }
    }
}

/// `[adjudication]`: ending games early once the result is clear.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdjudicationConfig {
    /// A side wins when every score (both sides agreeing) is beyond this for `win_plies` plies.
    pub win_cp: i32,
    /// Consecutive plies for a win adjudication.
    pub win_plies: u32,
    /// A draw when every score is within this for `draw_plies` plies ...
    pub draw_cp: i32,
    /// ... consecutive plies ...
    pub draw_plies: u32,
    /// ... from this ply on.
    pub draw_min_ply: u32,
    /// A game still running at this ply is a draw.
    pub max_plies: u32,
}

impl Default for AdjudicationConfig {
    fn default() -> AdjudicationConfig {
        AdjudicationConfig { win_cp: 1500, win_plies: 6, draw_cp: 8, draw_plies: 12, draw_min_ply: 80, max_plies: 500 }
    }
}

/// `[filter]`: which positions of a game become records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FilterConfig {
    /// Skip positions before this ply.
    pub min_ply: u32,
    /// Skip positions where the side to move is in check.
    pub skip_check: bool,
    /// Skip positions whose best move is a capture or promotion.
    pub skip_tactical: bool,
    /// Skip positions with a mate score.
    pub skip_mate: bool,
    /// Skip positions whose score is beyond this.
    pub max_cp: i32,
    /// Write each position (zobrist key) at most once per shard.
    pub dedup: bool,
}

impl Default for FilterConfig {
    fn default() -> FilterConfig {
        FilterConfig { min_ply: 16, skip_check: true, skip_tactical: true, skip_mate: true, max_cp: 3000, dedup: true }
    }
}

/// `[output]`: the files of a shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OutputConfig {
    /// `<variant>.txt`: `<FEN> | <score> | <result>`, white-relative.
    pub text: bool,
    /// `<variant>.marlin`: 32-byte packed records.
    pub marlin: bool,
    /// `games.pgn`: every game with its scores.
    pub pgn: bool,
}

impl Default for OutputConfig {
    fn default() -> OutputConfig {
        OutputConfig { text: true, marlin: true, pgn: true }
    }
}

/// `[cache]`: the sled opening cache shared by the threads of a process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheConfig {
    /// Use the cache for the MultiPV opening plies.
    pub enabled: bool,
    /// The sled directory. Empty: `opening-cache` inside the shard's directory. sled lets one
    /// process open a database, so processes on one machine need one directory each.
    pub path: PathBuf,
    /// A cached entry is used when its search went at least this deep.
    pub min_depth: u32,
}

impl Default for CacheConfig {
    fn default() -> CacheConfig {
        CacheConfig { enabled: true, path: PathBuf::new(), min_depth: 1 }
    }
}

impl SelfplayConfig {
    /// Worker threads to start: `run.threads`, or one per CPU when it is 0.
    #[must_use]
    pub fn worker_threads(&self) -> usize {
        if self.run.threads > 0 {
            self.run.threads
        } else {
            std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
        }
    }

    /// Checks the values that serde cannot: ranges and combinations.
    ///
    /// # Errors
    /// The first value that cannot work, with its key and what to change.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        // No games would write an empty shard and report it complete.
        at_least("run.games", self.run.games, 1, "use at least 1 game")?;
        in_range("run.threads", self.run.threads, 0..=1024, "use 0 (one per CPU) to 1024")?;
        let weights = [self.variants.chess, self.variants.chess960, self.variants.shatranj];
        check(
            weights.iter().any(|&w| w > 0),
            "variants",
            format!("{weights:?}"),
            "give at least one of chess, chess960, shatranj a weight above 0",
        )?;
        match self.search.limit {
            MoveLimit::Nodes => {
                in_range("search.nodes", self.search.nodes, 1..=1_000_000_000, "use 1 to 1000000000 nodes")?;
            }
            MoveLimit::Depth => {
                in_range(
                    "search.depth",
                    self.search.depth,
                    1..=MAX_DEPTH,
                    format!("use a depth from 1 to {MAX_DEPTH}"),
                )?;
            }
        }
        within_limits(
            "search.hash_mb",
            self.search.hash_mb,
            uci::spin_limits(OptionId::Hash),
            "MiB (the engine's Hash option)",
        )?;
        check(
            ferz_engine::tt::hash_limit_mb().is_none_or(|limit| self.search.hash_mb <= limit),
            "search.hash_mb",
            self.search.hash_mb,
            "more than this machine can spare (three quarters of its available memory); use less",
        )?;
        check_search_params("search.params", &self.search.params)?;
        within_limits(
            "opening.multipv",
            self.opening.multipv,
            uci::spin_limits(OptionId::MultiPv),
            "candidates (the engine's MultiPV option)",
        )?;
        at_least("opening.margin_cp", self.opening.margin_cp, 0, "use 0 or more")?;
        if self.opening.multipv_plies > 0 {
            at_least("opening.multipv_nodes", self.opening.multipv_nodes, 1, "use at least 1 node")?;
        }
        at_least("adjudication.win_plies", self.adjudication.win_plies, 1, "use at least 1 ply")?;
        at_least("adjudication.draw_plies", self.adjudication.draw_plies, 1, "use at least 1 ply")?;
        in_range("adjudication.max_plies", self.adjudication.max_plies, 1..=10_000, "use 1 to 10000 plies")?;
        check(
            self.output.text || self.output.marlin || self.output.pgn,
            "output",
            "text = marlin = pgn = false",
            "enable at least one output",
        )
    }
}

/// Checks a table of search parameter values (`table` is its dotted key): each name must be a
/// tunable of the engine and each value in its range.
///
/// # Errors
/// The first bad entry, keyed `table.NAME`.
pub fn check_search_params(table: &str, params: &BTreeMap<String, i32>) -> Result<(), InvalidSetting> {
    for (name, &value) in params {
        let key = format!("{table}.{name}");
        let Some(tunable) = ferz_engine::params::find(name) else {
            return Err(InvalidSetting::new(key, value, "not a search parameter (`ferz spsa params` lists them)"));
        };
        tunable.check(i64::from(value)).map_err(|range| InvalidSetting::new(key, value, range))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        SelfplayConfig::default().validate().unwrap();
    }

    #[test]
    fn bad_values_name_their_key() {
        let config =
            SelfplayConfig { variants: VariantMix { chess: 0, chess960: 0, shatranj: 0 }, ..SelfplayConfig::default() };
        assert_eq!(config.validate().unwrap_err().key, "variants");
        let mut config = SelfplayConfig::default();
        config.search.limit = MoveLimit::Depth;
        config.search.depth = 0;
        assert_eq!(config.validate().unwrap_err().key, "search.depth");
        let mut config = SelfplayConfig::default();
        config.run.threads = 5000;
        assert!(config.validate().unwrap_err().to_string().contains("run.threads = 5000"));
        config.run.threads = 0;
        assert!(config.worker_threads() >= 1);
    }

    #[test]
    fn search_params_must_be_tunables_within_their_ranges() {
        let lmr = ferz_engine::params::find("LMR_BASE").unwrap();
        let with = |name: &str, value: i32| {
            let mut config = SelfplayConfig::default();
            config.search.params.insert(name.to_owned(), value);
            config.validate()
        };
        with("lmr_base", lmr.max).unwrap();
        let err = with("LMR_BASE", lmr.max + 1).unwrap_err();
        assert_eq!(
            (err.key.as_ref(), err.reason.contains("outside LMR_BASE's range")),
            ("search.params.LMR_BASE", true)
        );
        let err = with("NO_SUCH", 1).unwrap_err();
        assert_eq!(
            err.to_string(),
            "search.params.NO_SUCH = 1: not a search parameter (`ferz spsa params` lists them)"
        );
        let json = |config: &SelfplayConfig| serde_json::to_value(config).unwrap()["search"].clone();
        assert!(json(&SelfplayConfig::default()).get("params").is_none(), "a shard's record without them is unchanged");
    }

    /// The limits of the engine's spin option `id`, read from its option table.
    fn spin_limits(id: OptionId) -> (usize, usize) {
        let limits = uci::spin_limits(id);
        (usize::try_from(*limits.start()).unwrap(), usize::try_from(*limits.end()).unwrap())
    }

    #[test]
    fn engine_settings_accept_exactly_what_the_engine_accepts() {
        let refused = |config: &SelfplayConfig, key: &str, limit: usize| {
            let err = config.validate().unwrap_err();
            assert_eq!(err.key, key, "{err}");
            assert!(err.reason.contains(&limit.to_string()), "the reason names the limit: {err}");
        };

        let (min, max) = spin_limits(OptionId::Hash);
        let mut config = SelfplayConfig::default();
        config.search.hash_mb = max + 1;
        refused(&config, "search.hash_mb", max);
        config.search.hash_mb = min - 1;
        refused(&config, "search.hash_mb", max);
        config.search.hash_mb = min;
        config.validate().unwrap();

        let (min, max) = spin_limits(OptionId::MultiPv);
        let mut config = SelfplayConfig::default();
        config.opening.multipv = max;
        config.validate().unwrap();
        config.opening.multipv = max + 1;
        refused(&config, "opening.multipv", max);
        config.opening.multipv = min - 1;
        refused(&config, "opening.multipv", max);

        let mut config = SelfplayConfig::default();
        config.search.limit = MoveLimit::Depth;
        config.search.depth = MAX_DEPTH;
        config.validate().unwrap();
        config.search.depth = MAX_DEPTH + 1;
        refused(&config, "search.depth", MAX_DEPTH as usize);
    }
}
