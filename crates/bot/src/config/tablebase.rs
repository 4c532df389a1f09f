//! `[tablebase]`: Syzygy endgame tables on disk and the Lichess online tablebase.
//!
//! One section rather than keys in `[engine]`: the tables serve three users — the engine
//! (in process: handed over directly; a UCI engine: as its `SyzygyPath` option), the bot's own
//! decisions (`[resign] tablebase`, `[draw] tablebase`) and, for the online tablebase, the
//! bot's move choice before any engine searches — and the online source is no engine setting
//! at all.

use std::path::PathBuf;

use ferz_settings::{InvalidSetting, check, in_range};
use serde::{Deserialize, Serialize};

/// The largest positions the online tablebase knows (kings included).
pub const ONLINE_MAX_PIECES: u32 = 7;

/// `[tablebase]`: where endgame results come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TablebaseConfig {
    /// Directories of Syzygy tables (`.rtbw`, `.rtbz`), separated as in `PATH`; empty: none.
    pub syzygy_path: String,
    /// The in-process engine's `SyzygyProbeDepth`: interior nodes with as many pieces as the
    /// largest table are probed only this deep or deeper.
    pub probe_depth: i32,
    /// Count wins and losses that the 50-move rule turns into draws as draws (the in-process
    /// engine's `Syzygy50MoveRule`, and the bot's own verdicts).
    pub rule50: bool,
    /// Ask the Lichess online tablebase for standard chess positions of up to `online_max_pieces`
    /// pieces that the local tables do not cover, and play its best move.
    pub online: bool,
    /// The online tablebase server.
    pub online_url: String,
    /// Milliseconds a lookup may take; then the engine plays.
    pub online_timeout_ms: u64,
    /// Ask only positions with at most this many pieces (kings included, 3 to 7).
    pub online_max_pieces: u32,
    /// Skip the online tablebase when our clock shows less than this many seconds.
    pub min_time_s: u64,
}

impl Default for TablebaseConfig {
    fn default() -> TablebaseConfig {
        TablebaseConfig {
            syzygy_path: String::new(),
            probe_depth: 1,
            rule50: true,
            online: false,
            online_url: "https://tablebase.lichess.org".to_owned(),
            online_timeout_ms: 1500,
            online_max_pieces: ONLINE_MAX_PIECES,
            min_time_s: 20,
        }
    }
}

impl TablebaseConfig {
    /// The directories of `syzygy_path`.
    #[must_use]
    pub fn syzygy_dirs(&self) -> Vec<PathBuf> {
        std::env::split_paths(self.syzygy_path.trim()).filter(|d| !d.as_os_str().is_empty()).collect()
    }

    pub(super) fn validate(&self) -> Result<(), InvalidSetting> {
        for dir in self.syzygy_dirs() {
            check(dir.is_dir(), "tablebase.syzygy_path", dir.display(), "not a directory")?;
        }
        in_range("tablebase.probe_depth", self.probe_depth, 1..=100, "use 1 to 100")?;
        let url = self.online_url.trim();
        check(
            url.starts_with("http://") || url.starts_with("https://"),
            "tablebase.online_url",
            url,
            "use an http:// or https:// address",
        )?;
        in_range("tablebase.online_timeout_ms", self.online_timeout_ms, 100..=10_000, "use 100 to 10000 ms")?;
        in_range("tablebase.online_max_pieces", self.online_max_pieces, 3..=ONLINE_MAX_PIECES, "use 3 to 7")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::BotConfig;

    #[test]
    fn bad_tablebase_settings_name_their_key() {
        let err = |edit: &dyn Fn(&mut TablebaseConfig)| {
            let mut config = BotConfig::default();
            edit(&mut config.tablebase);
            config.validate().unwrap_err()
        };
        let e = err(&|t| t.syzygy_path = "/nonexistent/syzygy".into());
        assert_eq!((e.key.as_ref(), e.value.as_str()), ("tablebase.syzygy_path", "/nonexistent/syzygy"));
        assert_eq!(err(&|t| t.online_url = "tablebase.lichess.org".into()).key, "tablebase.online_url");
        assert_eq!(err(&|t| t.online_timeout_ms = 0).key, "tablebase.online_timeout_ms");
        assert_eq!(err(&|t| t.online_max_pieces = 8).key, "tablebase.online_max_pieces");
        assert_eq!(err(&|t| t.probe_depth = 0).key, "tablebase.probe_depth");
        let typo = serde_json::json!({ "tablebase": { "syzygy": "x" } });
        let e = serde_json::from_value::<BotConfig>(typo).unwrap_err().to_string();
        assert!(e.contains("unknown field `syzygy`"), "{e}");
    }

    #[test]
    fn the_path_lists_directories_like_path() {
        let dir = tempfile::tempdir().unwrap();
        let joined = std::env::join_paths([dir.path(), dir.path()]).unwrap();
        let config =
            TablebaseConfig { syzygy_path: joined.to_string_lossy().into_owned(), ..TablebaseConfig::default() };
        assert_eq!(config.syzygy_dirs().len(), 2);
        BotConfig { tablebase: config, ..BotConfig::default() }.validate().unwrap();
    }
}
