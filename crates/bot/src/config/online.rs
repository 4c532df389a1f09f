//! `[online]`: move sources on the network, asked after the Polyglot books and before the
//! self-play cache (the `book` module keeps that order): Lichess cloud evaluation, the Lichess opening explorer
//! (masters and Lichess games) and chessdb.cn. Every source is off by default.
//!
//! Each source has the same gate: `enabled` (the explorer has one switch per database), `url`
//! (any `http(s)://` address, so tests point it at a local server), `min_time_s` (not asked when
//! our clock is lower), `max_depth` (not asked from this many plies of the game on) and
//! `timeout_ms` (the longest the move waits for it; the engine then searches on what is left of
//! the clock). The `online` module asks them. `max_out_of_book_moves` (lichess-bot's)
//! stops asking them in a game once they have known no move for that many of its positions.

use ferz_settings::{InvalidSetting, at_least, check, in_range};
use serde::{Deserialize, Serialize};

use super::values::{BookSelection, Speed};

/// `[online]`: the three services, each in its own table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OnlineConfig {
    /// After this many of a game's turns on which the sources answered but knew no move
    /// (lichess-bot's `max_out_of_book_moves`), they are not asked again in that game.
    pub max_out_of_book_moves: u32,
    /// `[online.chessdb]`: chessdb.cn's best move (standard chess).
    pub chessdb: ChessDbConfig,
    /// `[online.cloud_eval]`: Lichess cloud evaluations (standard chess and Chess960).
    pub cloud_eval: CloudEvalConfig,
    /// `[online.explorer]`: the Lichess opening explorer (masters: standard chess; Lichess
    /// games: standard chess and Chess960).
    pub explorer: ExplorerConfig,
}

impl Default for OnlineConfig {
    fn default() -> OnlineConfig {
        OnlineConfig {
            max_out_of_book_moves: 10,
            chessdb: ChessDbConfig::default(),
            cloud_eval: CloudEvalConfig::default(),
            explorer: ExplorerConfig::default(),
        }
    }
}

impl OnlineConfig {
    /// Whether any source is on.
    #[must_use]
    pub fn any_enabled(&self) -> bool {
        self.chessdb.enabled || self.cloud_eval.enabled || self.explorer.masters || self.explorer.lichess
    }
}

/// `[online.chessdb]`: chessdb.cn's `querypv` (its best move and the line behind it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChessDbConfig {
    /// Ask chessdb.cn at all.
    pub enabled: bool,
    /// The query API's address.
    pub url: String,
    /// Not asked when our clock shows fewer seconds than this.
    pub min_time_s: u64,
    /// Not asked once the game has this many plies.
    pub max_depth: u32,
    /// The longest a move waits for the answer, ms.
    pub timeout_ms: u64,
    /// A move is used only when chessdb's line behind it is at least this deep.
    pub min_depth: u32,
}

impl Default for ChessDbConfig {
    fn default() -> ChessDbConfig {
        ChessDbConfig {
            enabled: false,
            url: "http://www.chessdb.cn/cdb.php".to_owned(),
            min_time_s: 20,
            max_depth: 30,
            timeout_ms: 1500,
            min_depth: 20,
        }
    }
}

/// `[online.cloud_eval]`: Lichess's stored cloud evaluations (`/api/cloud-eval`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CloudEvalConfig {
    /// Ask the cloud at all.
    pub enabled: bool,
    /// The endpoint's address.
    pub url: String,
    /// Not asked when our clock shows fewer seconds than this.
    pub min_time_s: u64,
    /// Not asked once the game has this many plies.
    pub max_depth: u32,
    /// The longest a move waits for the answer, ms.
    pub timeout_ms: u64,
    /// An evaluation is used only when it is at least this deep.
    pub min_depth: u32,
    /// Lines asked for (1–5); the move is chosen at random among those within
    /// `max_score_loss_cp` of the best.
    pub multipv: u32,
    /// See `multipv` (0: always the best line's move).
    pub max_score_loss_cp: i32,
}

impl Default for CloudEvalConfig {
    fn default() -> CloudEvalConfig {
        CloudEvalConfig {
            enabled: false,
            url: "https://lichess.org/api/cloud-eval".to_owned(),
            min_time_s: 20,
            max_depth: 30,
            timeout_ms: 1500,
            min_depth: 20,
            multipv: 1,
            max_score_loss_cp: 30,
        }
    }
}

/// `[online.explorer]`: the Lichess opening explorer, its masters database and its Lichess
/// games database (masters first). The explorer needs the bot's token, which is sent to
/// Lichess's own hosts only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExplorerConfig {
    /// Ask the masters database (standard chess).
    pub masters: bool,
    /// Ask the Lichess games database (standard chess and Chess960).
    pub lichess: bool,
    /// The masters database's address.
    pub masters_url: String,
    /// The Lichess games database's address.
    pub lichess_url: String,
    /// Not asked when our clock shows fewer seconds than this.
    pub min_time_s: u64,
    /// Not asked once the game has this many plies.
    pub max_depth: u32,
    /// The longest a move waits for each database's answer, ms.
    pub timeout_ms: u64,
    /// `best` (the best score for us), `weighted` (at random, in proportion to the games
    /// played) or `uniform` (at random).
    pub selection: BookSelection,
    /// Moves played in fewer games are not candidates.
    pub min_games: u64,
    /// Only the this many most played moves are candidates (1–50).
    pub max_moves: u32,
    /// Lichess database: the speeds of the games counted.
    pub speeds: Vec<Speed>,
    /// Lichess database: the rating groups of the games counted (0, 1000, 1200, 1400, 1600,
    /// 1800, 2000, 2200, 2500).
    pub ratings: Vec<u32>,
}

/// The rating groups the Lichess games database knows.
pub const EXPLORER_RATINGS: [u32; 9] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500];

impl Default for ExplorerConfig {
    fn default() -> ExplorerConfig {
        ExplorerConfig {
            masters: false,
            lichess: false,
            masters_url: "https://explorer.lichess.org/masters".to_owned(),
            lichess_url: "https://explorer.lichess.org/lichess".to_owned(),
            min_time_s: 20,
            max_depth: 20,
            timeout_ms: 1500,
            selection: BookSelection::Weighted,
            min_games: 10,
            max_moves: 12,
            speeds: vec![Speed::Blitz, Speed::Rapid, Speed::Classical],
            ratings: vec![2200, 2500],
        }
    }
}

/// The checks every source shares, with its keys (`$table` is the table's name).
macro_rules! check_gate {
    ($table:literal, $url_key:literal, $url:expr, $max_depth:expr, $timeout_ms:expr) => {{
        check(
            $url.starts_with("http://") || $url.starts_with("https://"),
            concat!("online.", $table, ".", $url_key),
            &$url,
            "use an http:// or https:// address",
        )?;
        at_least(concat!("online.", $table, ".max_depth"), $max_depth, 1, "use at least 1 ply (or enabled = false)")?;
        in_range(
            concat!("online.", $table, ".timeout_ms"),
            $timeout_ms,
            50..=10_000,
            "use 50 to 10000 ms: the move waits this long at most",
        )
    }};
}

impl OnlineConfig {
    /// Checks the values serde cannot.
    ///
    /// # Errors
    /// The first setting the bot cannot use.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        at_least(
            "online.max_out_of_book_moves",
            self.max_out_of_book_moves,
            1,
            "use 1 or more (turn the sources off with their `enabled` keys)",
        )?;
        let db = &self.chessdb;
        check_gate!("chessdb", "url", db.url, db.max_depth, db.timeout_ms)?;
        let cloud = &self.cloud_eval;
        check_gate!("cloud_eval", "url", cloud.url, cloud.max_depth, cloud.timeout_ms)?;
        in_range("online.cloud_eval.multipv", cloud.multipv, 1..=5, "use 1 to 5 lines")?;
        at_least("online.cloud_eval.max_score_loss_cp", cloud.max_score_loss_cp, 0, "use 0 or more")?;
        let ex = &self.explorer;
        check_gate!("explorer", "masters_url", ex.masters_url, ex.max_depth, ex.timeout_ms)?;
        check_gate!("explorer", "lichess_url", ex.lichess_url, ex.max_depth, ex.timeout_ms)?;
        in_range("online.explorer.max_moves", ex.max_moves, 1..=50, "use 1 to 50 moves")?;
        check(
            !ex.lichess || !ex.speeds.is_empty(),
            "online.explorer.speeds",
            "[]",
            "name at least one speed for the Lichess database",
        )?;
        check(
            !ex.lichess || !ex.ratings.is_empty(),
            "online.explorer.ratings",
            "[]",
            "name at least one rating group for the Lichess database",
        )?;
        for &rating in &ex.ratings {
            check(
                EXPLORER_RATINGS.contains(&rating),
                "online.explorer.ratings",
                rating,
                "use the explorer's groups: 0, 1000, 1200, 1400, 1600, 1800, 2000, 2200 or 2500",
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_off_and_valid() {
        let config = OnlineConfig::default();
        assert!(!config.any_enabled());
        assert_eq!(config.max_out_of_book_moves, 10, "lichess-bot's default");
        config.validate().unwrap();
    }

    #[test]
    fn bad_values_name_their_key() {
        let err = |edit: &dyn Fn(&mut OnlineConfig)| {
            let mut config = OnlineConfig::default();
            edit(&mut config);
            config.validate().unwrap_err()
        };
        let e = err(&|c| c.cloud_eval.url = "lichess.org/api/cloud-eval".into());
        assert_eq!(
            e.to_string(),
            "online.cloud_eval.url = lichess.org/api/cloud-eval: use an http:// or https:// address"
        );
        assert_eq!(err(&|c| c.max_out_of_book_moves = 0).key, "online.max_out_of_book_moves");
        assert_eq!(err(&|c| c.chessdb.timeout_ms = 20).key, "online.chessdb.timeout_ms");
        assert_eq!(err(&|c| c.chessdb.max_depth = 0).key, "online.chessdb.max_depth");
        assert_eq!(err(&|c| c.cloud_eval.multipv = 6).key, "online.cloud_eval.multipv");
        assert_eq!(err(&|c| c.cloud_eval.max_score_loss_cp = -1).key, "online.cloud_eval.max_score_loss_cp");
        assert_eq!(err(&|c| c.explorer.masters_url = "ftp://x".into()).key, "online.explorer.masters_url");
        assert_eq!(err(&|c| c.explorer.max_moves = 0).key, "online.explorer.max_moves");
        let e = err(&|c| c.explorer.ratings = vec![2200, 2300]);
        assert_eq!((e.key.as_ref(), e.value.as_str()), ("online.explorer.ratings", "2300"));
        let e = err(&|c| {
            c.explorer.lichess = true;
            c.explorer.speeds.clear();
        });
        assert_eq!(e.key, "online.explorer.speeds");
    }

    #[test]
    fn tables_reject_unknown_keys_and_read_typed_values() {
        let config: OnlineConfig = serde_json::from_value(serde_json::json!({
            "explorer": { "lichess": true, "selection": "best", "speeds": ["blitz"], "ratings": [2500] },
            "cloud_eval": { "enabled": true, "multipv": 3 },
        }))
        .unwrap();
        assert!(config.any_enabled());
        assert_eq!(
            (config.explorer.selection, config.explorer.speeds.as_slice()),
            (BookSelection::Best, &[Speed::Blitz][..])
        );
        let err = serde_json::from_value::<OnlineConfig>(serde_json::json!({ "chessdb": { "enable": true } }))
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `enable`"), "{err}");
    }
}
