//! The bot's settings: what `config/bot.toml` holds, with its defaults.
//!
//! Every section rejects unknown keys, and names (the platform, variants, speeds, time
//! controls) are typed ([`values`], [`Platform`]), so a typo fails while the file is read,
//! with the key. [`BotConfig::validate`] then checks ranges and rules between keys once, with
//! messages that name the key. The token is deliberately not a setting: it comes from the
//! environment only (`LICHESS_BOT_TOKEN`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use ferz_engine::uci::{OptionId, spin_limits};
use ferz_lichess::Platform;
use ferz_settings::{at_least, check, in_range, within_limits};
use serde::{Deserialize, Serialize};

pub mod correspondence;
pub mod engine;
pub mod matchmaking;
pub mod online;
pub mod tablebase;
pub mod values;

pub use correspondence::CorrespondenceConfig;
pub use engine::{EngineChoice, EngineKind, EngineOverride, EngineVariant, OptionValue, UciOptions, VariantEngines};
pub use matchmaking::{LICHESS_DAYS, MatchMode, MatchOverride, OverrideOrder, RemovedRated};
pub use tablebase::TablebaseConfig;

/// A setting with a value the bot cannot use: the error of every ferz settings file.
pub use ferz_settings::InvalidSetting;
pub use values::{BookSelection, EvalAudience, PgnGrouping, Speed, TimeControl, Variant};

/// Everything the bot needs to know besides the token.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BotConfig {
    /// The server.
    pub lichess: LichessConfig,
    /// The engine and how it spends its clock.
    pub engine: EngineConfig,
    /// Opening books: Polyglot files, then the self-play opening cache.
    pub book: BookConfig,
    /// Online move sources, asked between the Polyglot books and the cache.
    pub online: online::OnlineConfig,
    /// Endgame tablebases: Syzygy tables on disk, the Lichess online tablebase.
    pub tablebase: TablebaseConfig,
    /// Which challenges to accept.
    pub challenge: ChallengeConfig,
    /// The check-in cycle of correspondence and unlimited games.
    pub correspondence: CorrespondenceConfig,
    /// Draw offers, ours and the opponent's.
    pub draw: DrawConfig,
    /// Resigning lost games.
    pub resign: ResignConfig,
    /// Aborting games the opponent never starts, and claiming games the opponent left.
    pub abort: AbortConfig,
    /// Takebacks the opponent asks for.
    pub takeback: TakebackConfig,
    /// Chat at the start and the end of a game.
    pub greeting: GreetingConfig,
    /// Challenging other bots when idle.
    pub matchmaking: MatchmakingConfig,
    /// PGN records of finished games.
    pub pgn: PgnConfig,
    /// Chat commands.
    pub chat: ChatConfig,
    /// The log file.
    pub log: LogConfig,
}

/// `[lichess]`: the server and its streams.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LichessConfig {
    /// Server root: `https://lichess.org`, or `https://www.pychess.org` with `platform = "pychess"`.
    pub url: String,
    /// `lichess` or `pychess`: the API dialect.
    pub platform: Platform,
    /// Seconds without a byte after which a stream counts as dead and is reopened (the server
    /// sends a keep-alive every 6–7 s).
    pub stream_idle_s: u64,
    /// Seconds an ordinary request may take.
    pub request_timeout_s: u64,
}

impl Default for LichessConfig {
    fn default() -> LichessConfig {
        LichessConfig {
            url: "https://lichess.org".to_owned(),
            platform: Platform::Lichess,
            stream_idle_s: 20,
            request_timeout_s: 10,
        }
    }
}

/// `[engine]`: which engine plays ([`engine`]: the in-process ferz engine or any UCI engine,
/// per variant), pondering, and its time use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EngineConfig {
    /// `ferz` (in process) or `uci` (an external engine, `command`).
    pub kind: EngineKind,
    /// The external engine's program (`kind = "uci"`), a path or a name on `PATH`.
    pub command: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// The directory it runs in (empty: the bot's).
    pub working_dir: PathBuf,
    /// `[engine.options]`: UCI options of the external engine, name → value.
    pub options: UciOptions,
    /// Think on the opponent's time in real-time games (never in correspondence).
    pub ponder: bool,
    /// Seconds the external engine may take to start (`uciok`, `readyok`).
    pub handshake_timeout_s: u64,
    /// Milliseconds an external engine with a move time or a node or depth limit may run past
    /// the time its move should take before it is stopped, then killed and restarted (on the
    /// clock it is stopped only at the danger line, see `player::budget::allowance`).
    pub stall_ms: u64,
    /// `[engine.variant.standard|chess960|shatranj]`: another engine or options per variant.
    pub variant: VariantEngines,
    /// Transposition table per game, MiB.
    pub hash_mb: usize,
    /// Search threads per game.
    pub threads: usize,
    /// Milliseconds kept back from every move for network lag.
    pub move_overhead_ms: u64,
    /// The longest the first move of each side may take, in ms (Lichess aborts a game whose
    /// first move does not come within 30 s, and the clock does not run yet).
    pub first_move_ms: u64,
    /// Retired: the time per correspondence move is `[correspondence] move_time_s`. Read
    /// only to say so.
    #[serde(skip_serializing)]
    pub correspondence_move_s: Option<u64>,
    /// Nodes per move instead of the clock (0: use the clock). For testing and benchmarks.
    pub nodes: u64,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig {
            kind: EngineKind::Ferz,
            command: PathBuf::new(),
            args: Vec::new(),
            working_dir: PathBuf::new(),
            options: UciOptions::new(),
            ponder: true,
            handshake_timeout_s: 20,
            stall_ms: 2000,
            variant: VariantEngines::default(),
            hash_mb: 64,
            threads: 1,
            move_overhead_ms: 300,
            first_move_ms: 3000,
            correspondence_move_s: None,
            nodes: 0,
        }
    }
}

/// `[book]`: where opening moves come from before the engine searches. Polyglot books first
/// (per variant, in order: the first book with a move for the position wins), then the
/// self-play opening cache.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BookConfig {
    /// Polyglot `.bin` files for standard and From Position games, consulted in order.
    pub chess: Vec<PathBuf>,
    /// Polyglot `.bin` files for Chess960 games, consulted in order.
    pub chess960: Vec<PathBuf>,
    /// How a Polyglot move is picked among a position's entries.
    pub selection: BookSelection,
    /// Polyglot entries weighing less are ignored (weight 0 often marks a deleted entry).
    pub min_weight: u16,
    /// Polyglot books are consulted while the game has fewer than this many plies.
    pub max_depth: u32,
    /// A self-play opening cache directory (`ferz selfplay` writes one), consulted after the
    /// Polyglot books; empty for none.
    pub cache: PathBuf,
    /// Only cache positions searched at least this deep are used.
    pub cache_min_depth: u8,
    /// The cache is consulted while the game has fewer than this many plies.
    pub cache_max_ply: u32,
    /// Cache moves within this many centipawns of the best one are chosen at random.
    pub cache_margin_cp: i32,
}

impl Default for BookConfig {
    fn default() -> BookConfig {
        BookConfig {
            chess: Vec::new(),
            chess960: Vec::new(),
            selection: BookSelection::Weighted,
            min_weight: 1,
            max_depth: 40,
            cache: PathBuf::new(),
            cache_min_depth: 8,
            cache_max_ply: 16,
            cache_margin_cp: 15,
        }
    }
}

/// `[challenge]`: which challenges to accept. A challenge failing several rules is declined
/// with the reason of the first.
///
/// The keys apply on every platform; `[challenge.lichess]` and `[challenge.pychess]` override
/// the variants and time controls for one platform ([`ChallengeConfig::for_platform`] merges
/// them). PyChess has its own variant list by default, since its variants are not Lichess's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChallengeConfig {
    /// Games played at once.
    pub concurrency: usize,
    /// Challenges that arrive while every slot is busy wait for a slot, up to this many; the
    /// rest are declined with `later`.
    pub max_waiting: usize,
    /// Variants: `standard`, `chess960`, `fromPosition` (and `shatranj` on PyChess).
    pub variants: Vec<Variant>,
    /// Speeds: `ultraBullet`, `bullet`, `blitz`, `rapid`, `classical`.
    pub speeds: Vec<Speed>,
    /// Shortest initial time, seconds.
    pub min_base_s: u64,
    /// Longest initial time, seconds.
    pub max_base_s: u64,
    /// Smallest increment, seconds.
    pub min_increment_s: u64,
    /// Largest increment, seconds.
    pub max_increment_s: u64,
    /// Accept correspondence and unlimited games.
    pub correspondence: bool,
    /// Accept rated games.
    pub rated: bool,
    /// Accept casual games.
    pub casual: bool,
    /// Accept challenges from bots.
    pub bots: bool,
    /// Accept challenges from humans.
    pub humans: bool,
    /// If not empty, only these users (case-insensitive) may challenge.
    pub allow_list: Vec<String>,
    /// These users may not challenge.
    pub block_list: Vec<String>,
    /// Lowest challenger rating.
    pub min_rating: i64,
    /// Highest challenger rating.
    pub max_rating: i64,
    /// Games at once against one opponent.
    pub max_games_per_opponent: usize,
    /// Slots of `concurrency` that bots cannot take: a bot's challenge finds the bot busy once
    /// `concurrency - reserved_for_humans` games run.
    pub reserved_for_humans: usize,
    /// Games against bots started within `recent_bot_window_s` after which challenges from
    /// bots are declined with `later` (0: no limit). Our matchmaking games count too.
    pub recent_bot_limit: usize,
    /// The window of `recent_bot_limit`, seconds.
    pub recent_bot_window_s: u64,
    /// Largest difference between the challenger's rating and ours in the challenge's perf
    /// (else `generic`); `None`: any. Our ratings are read again every `rating_refresh_s`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating_difference: Option<u32>,
    /// Seconds between two reads of our own ratings (`/api/account`), for `rating_difference`
    /// and matchmaking.
    pub rating_refresh_s: u64,
    /// Fewest days per move of a correspondence challenge (fewer: `tooFast`).
    pub min_days: u32,
    /// Most days per move of a correspondence challenge (more, or unlimited: `tooSlow`);
    /// `None`: any, unlimited games included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_days: Option<u32>,
    /// Decline bullet (and ultra-bullet) challenges without increment (`timeControl`).
    pub bullet_requires_increment: bool,
    /// Addresses of text files with one user name per line, declined with `generic`: read at
    /// start and every `online_block_list_refresh_s`; a list that cannot be read keeps its
    /// last contents.
    pub online_block_list: Vec<String>,
    /// Seconds between two reads of the online block lists.
    pub online_block_list_refresh_s: u64,
    /// `[challenge.lichess]`: what changes on Lichess.
    pub lichess: PlatformChallenge,
    /// `[challenge.pychess]`: what changes on PyChess.
    pub pychess: PlatformChallenge,
}

/// `[challenge.lichess]` and `[challenge.pychess]`: the variants and time controls of one
/// platform. A key left out takes the `[challenge]` value, except PyChess's `variants`, which
/// defaults to [`PYCHESS_VARIANTS`] (the `[challenge]` list names Lichess variants).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlatformChallenge {
    /// Variants (PyChess's `chess` is accepted for `standard`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variants: Option<Vec<Variant>>,
    /// Speeds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speeds: Option<Vec<Speed>>,
    /// Shortest initial time, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_base_s: Option<u64>,
    /// Longest initial time, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_base_s: Option<u64>,
    /// Smallest increment, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_increment_s: Option<u64>,
    /// Largest increment, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_increment_s: Option<u64>,
    /// Accept correspondence and unlimited games.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correspondence: Option<bool>,
}

/// What the bot plays on PyChess unless `[challenge.pychess] variants` says otherwise.
pub const PYCHESS_VARIANTS: [Variant; 3] = [Variant::Standard, Variant::Chess960, Variant::Shatranj];

impl ChallengeConfig {
    /// The table of `platform`: `[challenge.lichess]` or `[challenge.pychess]`.
    #[must_use]
    pub fn table(&self, platform: Platform) -> &PlatformChallenge {
        match platform {
            Platform::Lichess => &self.lichess,
            Platform::PyChess => &self.pychess,
        }
    }

    /// The policy on `platform`: the `[challenge]` keys with that platform's table applied.
    #[must_use]
    pub fn for_platform(&self, platform: Platform) -> ChallengeConfig {
        let table = self.table(platform);
        let mut policy = self.clone();
        policy.variants = match (&table.variants, platform) {
            (Some(list), _) => list.clone(),
            (None, Platform::PyChess) => PYCHESS_VARIANTS.to_vec(),
            (None, Platform::Lichess) => self.variants.clone(),
        };
        // `chess` and `standard` side by side are one variant.
        policy.variants.dedup();
        if let Some(speeds) = &table.speeds {
            policy.speeds = speeds.clone();
        }
        policy.min_base_s = table.min_base_s.unwrap_or(self.min_base_s);
        policy.max_base_s = table.max_base_s.unwrap_or(self.max_base_s);
        policy.min_increment_s = table.min_increment_s.unwrap_or(self.min_increment_s);
        policy.max_increment_s = table.max_increment_s.unwrap_or(self.max_increment_s);
        policy.correspondence = table.correspondence.unwrap_or(self.correspondence);
        policy
    }

    /// The names announced to PyChess in `X-PyChess-Bot-Capabilities`: exactly the variants
    /// this policy accepts there, in PyChess's spelling (`chess`, `chess960`, `shatranj`), so
    /// that PyChess never offers the bot a game it would decline.
    #[must_use]
    pub fn pychess_capabilities(&self) -> Vec<String> {
        let policy = self.for_platform(Platform::PyChess);
        policy.variants.iter().filter_map(|v| v.pychess_name()).map(str::to_owned).collect()
    }
}

impl Default for ChallengeConfig {
    fn default() -> ChallengeConfig {
        ChallengeConfig {
            concurrency: 1,
            max_waiting: 2,
            variants: vec![Variant::Standard, Variant::Chess960, Variant::FromPosition],
            speeds: vec![Speed::Bullet, Speed::Blitz, Speed::Rapid, Speed::Classical],
            min_base_s: 0,
            max_base_s: 10_800,
            min_increment_s: 0,
            max_increment_s: 180,
            correspondence: false,
            rated: true,
            casual: true,
            bots: true,
            humans: true,
            allow_list: Vec::new(),
            block_list: Vec::new(),
            min_rating: 0,
            max_rating: 4000,
            max_games_per_opponent: 1,
            reserved_for_humans: 0,
            recent_bot_limit: 0,
            recent_bot_window_s: 3600,
            rating_difference: None,
            rating_refresh_s: 300,
            min_days: 1,
            max_days: None,
            bullet_requires_increment: false,
            online_block_list: Vec::new(),
            online_block_list_refresh_s: 1800,
            lichess: PlatformChallenge::default(),
            pychess: PlatformChallenge { variants: Some(PYCHESS_VARIANTS.to_vec()), ..PlatformChallenge::default() },
        }
    }
}

/// `[draw]`: answering and making draw offers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DrawConfig {
    /// Accept the opponent's offers when our evaluation is within `accept_score_cp` of equal
    /// (else decline them).
    pub accept: bool,
    /// See `accept`.
    pub accept_score_cp: i32,
    /// Offer draws.
    pub offer: bool,
    /// Offer after this many consecutive moves of ours scored within `offer_score_cp`.
    pub offer_moves: usize,
    /// See `offer_moves`.
    pub offer_score_cp: i32,
    /// Offer only when at most this many pieces (kings and pawns included) remain.
    pub offer_max_pieces: u32,
    /// When a tablebase (`[tablebase]`) knows the position, its result replaces the score
    /// rules: offer (with `offer`) and accept (with `accept`) when it is drawn, decline when we
    /// win.
    pub tablebase: bool,
}

impl Default for DrawConfig {
    fn default() -> DrawConfig {
        DrawConfig {
            accept: true,
            accept_score_cp: 25,
            offer: true,
            offer_moves: 10,
            offer_score_cp: 10,
            offer_max_pieces: 10,
            tablebase: true,
        }
    }
}

/// `[resign]`: giving up lost games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ResignConfig {
    /// Resign at all.
    pub enabled: bool,
    /// After this many consecutive moves of ours scored at or below `score_cp`.
    pub moves: usize,
    /// See `moves` (negative: we are worse).
    pub score_cp: i32,
    /// Resign at once (with `enabled`) when a tablebase (`[tablebase]`) says the position is
    /// lost, not merely a loss the 50-move rule would save.
    pub tablebase: bool,
}

impl Default for ResignConfig {
    fn default() -> ResignConfig {
        ResignConfig { enabled: true, moves: 3, score_cp: -1000, tablebase: true }
    }
}

/// `[abort]`: games that do not start, and opponents who leave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AbortConfig {
    /// Abort a game the opponent has not moved in within this many seconds while it can still
    /// be aborted (0: never).
    pub abort_s: u64,
    /// Claim the win when the opponent left and the server's countdown ran out.
    pub claim_victory: bool,
}

impl Default for AbortConfig {
    fn default() -> AbortConfig {
        AbortConfig { abort_s: 30, claim_victory: true }
    }
}

/// `[takeback]`: the opponent's takeback requests.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TakebackConfig {
    /// Takebacks granted per game; further requests are declined.
    pub max_per_game: u32,
}

/// `[greeting]`: chat messages; `{me}` and `{opponent}` are replaced by the names. Empty
/// messages are not sent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GreetingConfig {
    /// To the opponent at the start.
    pub hello: String,
    /// To the opponent at the end.
    pub goodbye: String,
    /// To spectators at the start.
    pub hello_spectators: String,
    /// To spectators at the end.
    pub goodbye_spectators: String,
}

impl Default for GreetingConfig {
    fn default() -> GreetingConfig {
        GreetingConfig {
            hello: "Hi {opponent}! I'm {me}, running the ferz engine. Good luck!".to_owned(),
            goodbye: "Good game, {opponent}!".to_owned(),
            hello_spectators: String::new(),
            goodbye_spectators: String::new(),
        }
    }
}

/// `[matchmaking]`: challenging online bots when idle (off by default).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MatchmakingConfig {
    /// Challenge bots at all.
    pub enabled: bool,
    /// Seconds without a game before challenging.
    pub idle_s: u64,
    /// Time controls as `seconds+increment` (Lichess allows 0, 15, 30, 45, 60, 90 and multiples
    /// of 60 up to 10800 seconds, and increments up to 60).
    pub time_controls: Vec<TimeControl>,
    /// Correspondence challenges, days per move (1, 2, 3, 5, 7, 10 or 14), chosen alongside
    /// `time_controls`.
    pub days: Vec<u32>,
    /// Variants to challenge in: `standard`, `chess960`.
    pub variants: Vec<Variant>,
    /// Rated, casual, or either at random.
    pub mode: MatchMode,
    /// The former `rated = true|false`: reading it fails with a message naming `mode`.
    #[serde(default, skip_serializing)]
    pub rated: Option<RemovedRated>,
    /// Other sets of time controls, variants and mode, by name; each challenge uses one set
    /// (the keys above count as the first).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub overrides: BTreeMap<String, MatchOverride>,
    /// How the sets take turns: `random` or `sequential`.
    pub override_order: OverrideOrder,
    /// Lowest opponent rating in the challenge's speed.
    pub min_rating: i64,
    /// Highest opponent rating.
    pub max_rating: i64,
    /// Largest rating difference to us (0: any within the range).
    pub max_rating_diff: i64,
    /// Seconds before an unanswered challenge is cancelled.
    pub challenge_timeout_s: u64,
    /// Seconds before a bot that declined is challenged again.
    pub decline_backoff_s: u64,
    /// At least this many seconds between two challenges.
    pub min_interval_s: u64,
    /// Never challenge these bots.
    pub block_list: Vec<String>,
}

impl Default for MatchmakingConfig {
    fn default() -> MatchmakingConfig {
        MatchmakingConfig {
            enabled: false,
            idle_s: 60,
            time_controls: vec![
                TimeControl { initial_s: 180, increment_s: 2 },
                TimeControl { initial_s: 300, increment_s: 3 },
            ],
            days: Vec::new(),
            variants: vec![Variant::Standard],
            mode: MatchMode::Casual,
            rated: None,
            overrides: BTreeMap::new(),
            override_order: OverrideOrder::Random,
            min_rating: 0,
            max_rating: 4000,
            max_rating_diff: 300,
            challenge_timeout_s: 25,
            decline_backoff_s: 3600,
            min_interval_s: 60,
            block_list: Vec::new(),
        }
    }
}

/// `[pgn]`: game records.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PgnConfig {
    /// Directory for the PGN files (empty: none).
    pub dir: PathBuf,
    /// Which games share a file: one per game, per opponent, or one for all.
    pub grouping: PgnGrouping,
    /// Write our evaluation and depth after each of our moves.
    pub evals: bool,
    /// Write the clock after each move.
    pub clocks: bool,
    /// Write the depth and principal variation after each of our searched moves.
    pub pv: bool,
    /// Record aborted games too (result `*`, `Termination "aborted"`).
    pub aborted: bool,
}

impl Default for PgnConfig {
    fn default() -> PgnConfig {
        PgnConfig {
            dir: PathBuf::from("games"),
            grouping: PgnGrouping::Game,
            evals: true,
            clocks: true,
            pv: false,
            aborted: false,
        }
    }
}

/// `[chat]`: commands in the player and spectator rooms, and how often the bot answers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChatConfig {
    /// Answer `!help`, `!name`, `!eval`, `!wait` and `!queue` at all.
    pub commands: bool,
    /// Who sees `!eval`: `spectators` (and the opponent after the game), `everyone`, `nobody`.
    pub eval: EvalAudience,
    /// At most one reply per room every this many seconds.
    pub reply_interval_s: u64,
    /// At most this many replies per game.
    pub max_replies_per_game: u32,
    /// Seconds `!wait` adds to the abort timer (once per game).
    pub wait_s: u64,
    /// Seconds after a game during which the opponent's commands are still answered (the
    /// player room's chat is read every 3 s; 0: not at all).
    pub after_game_s: u64,
}

impl Default for ChatConfig {
    fn default() -> ChatConfig {
        ChatConfig {
            commands: true,
            eval: EvalAudience::Spectators,
            reply_interval_s: 5,
            max_replies_per_game: 20,
            wait_s: 60,
            after_game_s: 30,
        }
    }
}

/// `[log]`: a log file besides stderr (`ferz bot --log-file` sets `file` too).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    /// The log file (empty: stderr only). A new file starts every day (UTC), named with the
    /// date before the extension: `logs/bot.log` writes `logs/bot.2026-11-24.log`.
    pub file: PathBuf,
    /// Daily files kept; older ones are deleted.
    pub keep_days: usize,
}

impl Default for LogConfig {
    fn default() -> LogConfig {
        LogConfig { file: PathBuf::new(), keep_days: 14 }
    }
}

impl BotConfig {
    /// Checks the values serde cannot: ranges, and rules between keys. Once, at start.
    ///
    /// # Errors
    /// The first setting the bot cannot use, with what to change.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        self.lichess.validate()?;
        self.engine.validate()?;
        self.book.validate()?;
        self.online.validate()?;
        self.tablebase.validate()?;
        self.challenge.validate(self.lichess.platform)?;
        self.correspondence.validate()?;
        self.draw.validate()?;
        self.resign.validate()?;
        self.matchmaking.validate()?;
        self.chat.validate()?;
        self.log.validate()
    }
}

impl LichessConfig {
    fn validate(&self) -> Result<(), InvalidSetting> {
        let url = &self.url;
        check(
            url.starts_with("http://") || url.starts_with("https://"),
            "lichess.url",
            url,
            "use an http:// or https:// address",
        )?;
        at_least("lichess.stream_idle_s", self.stream_idle_s, 1, "use at least 1 second")?;
        at_least("lichess.request_timeout_s", self.request_timeout_s, 1, "use at least 1 second")
    }
}

impl EngineConfig {
    fn validate(&self) -> Result<(), InvalidSetting> {
        within_limits("engine.hash_mb", self.hash_mb, spin_limits(OptionId::Hash), "MiB (the engine's Hash option)")?;
        check(
            ferz_engine::tt::hash_limit_mb().is_none_or(|limit| self.hash_mb <= limit),
            "engine.hash_mb",
            self.hash_mb,
            "more than this machine can spare (three quarters of its available memory); use less",
        )?;
        within_limits(
            "engine.threads",
            self.threads,
            spin_limits(OptionId::Threads),
            "threads (the engine's Threads option)",
        )?;
        in_range(
            "engine.first_move_ms",
            self.first_move_ms,
            100..=25_000,
            "use 100 to 25000 ms (Lichess aborts after 30 s)",
        )?;
        in_range("engine.move_overhead_ms", self.move_overhead_ms, 0..=10_000, "use 0 to 10000 ms")?;
        self.validate_choice()?;
        check(
            self.correspondence_move_s.is_none(),
            "engine.correspondence_move_s",
            self.correspondence_move_s.unwrap_or_default(),
            "this key moved: set [correspondence] move_time_s instead",
        )
    }
}

impl BookConfig {
    fn validate(&self) -> Result<(), InvalidSetting> {
        for (key, files) in [("book.chess", &self.chess), ("book.chess960", &self.chess960)] {
            for file in files {
                check(!file.as_os_str().is_empty(), key, "\"\"", "give the path of a Polyglot .bin file")?;
            }
        }
        at_least("book.max_depth", self.max_depth, 1, "use at least 1 ply (or list no books)")?;
        at_least("book.cache_margin_cp", self.cache_margin_cp, 0, "use 0 or more")
    }
}

impl ChallengeConfig {
    /// The checks of `[challenge]` for a bot on `platform`: the policy there (its table
    /// applied) must be one the platform can play. A key is blamed in the platform's table
    /// when the table sets it, else in `[challenge]`.
    fn validate(&self, platform: Platform) -> Result<(), InvalidSetting> {
        in_range("challenge.concurrency", self.concurrency, 1..=256, "use 1 to 256")?;
        let p = self.for_platform(platform);
        let table = self.table(platform);
        let key = |in_table: bool, base: &'static str, lichess: &'static str, pychess: &'static str| match platform {
            _ if !in_table => base,
            Platform::Lichess => lichess,
            Platform::PyChess => pychess,
        };
        // PyChess's variants come from its table even when it is left out.
        let variants_key = key(
            table.variants.is_some() || platform == Platform::PyChess,
            "challenge.variants",
            "challenge.lichess.variants",
            "challenge.pychess.variants",
        );
        for &v in &p.variants {
            match (platform, v) {
                (Platform::Lichess, Variant::Shatranj) => Err(InvalidSetting::new(
                    variants_key,
                    v,
                    "Lichess has no Shatranj; list it under [challenge.pychess] variants",
                )),
                (Platform::PyChess, Variant::FromPosition) => Err(InvalidSetting::new(
                    variants_key,
                    v,
                    "PyChess has no fromPosition variant; use chess, chess960 or shatranj",
                )),
                _ => Ok(()),
            }?;
        }
        check(
            p.min_base_s <= p.max_base_s,
            key(
                table.min_base_s.is_some() || table.max_base_s.is_some(),
                "challenge.min_base_s",
                "challenge.lichess.min_base_s",
                "challenge.pychess.min_base_s",
            ),
            p.min_base_s,
            "must not exceed max_base_s",
        )?;
        check(
            p.min_increment_s <= p.max_increment_s,
            key(
                table.min_increment_s.is_some() || table.max_increment_s.is_some(),
                "challenge.min_increment_s",
                "challenge.lichess.min_increment_s",
                "challenge.pychess.min_increment_s",
            ),
            p.min_increment_s,
            "must not exceed max_increment_s",
        )?;
        check(
            platform != Platform::PyChess || p.casual,
            "challenge.casual",
            p.casual,
            "PyChess creates every BOT challenge unrated: keep casual = true there",
        )?;
        check(
            self.min_rating <= self.max_rating,
            "challenge.min_rating",
            self.min_rating,
            "must not exceed max_rating",
        )?;
        at_least("challenge.max_games_per_opponent", self.max_games_per_opponent, 1, "use at least 1")?;
        check(
            self.reserved_for_humans < self.concurrency,
            "challenge.reserved_for_humans",
            self.reserved_for_humans,
            "must be less than concurrency (or bots = false to keep every slot for humans)",
        )?;
        at_least("challenge.recent_bot_window_s", self.recent_bot_window_s, 1, "use at least 1 second")?;
        at_least(
            "challenge.rating_refresh_s",
            self.rating_refresh_s,
            2,
            "use at least 2 seconds (a few minutes is plenty)",
        )?;
        in_range("challenge.min_days", self.min_days, 1..=14, "use 1 to 14 days (Lichess offers 1 to 14)")?;
        if let Some(max_days) = self.max_days {
            check(max_days >= self.min_days, "challenge.max_days", max_days, "must not be below min_days")?;
        }
        for url in &self.online_block_list {
            check(
                url.starts_with("http://") || url.starts_with("https://"),
                "challenge.online_block_list",
                url,
                "use an http:// or https:// address of a text file with one user name per line",
            )?;
        }
        at_least(
            "challenge.online_block_list_refresh_s",
            self.online_block_list_refresh_s,
            2,
            "use at least 2 seconds (an hour is plenty)",
        )
    }
}

impl DrawConfig {
    fn validate(&self) -> Result<(), InvalidSetting> {
        at_least("draw.offer_moves", self.offer_moves, 1, "use at least 1 (or offer = false)")?;
        at_least("draw.accept_score_cp", self.accept_score_cp, 0, "use 0 or more")?;
        at_least("draw.offer_score_cp", self.offer_score_cp, 0, "use 0 or more")
    }
}

impl ResignConfig {
    fn validate(&self) -> Result<(), InvalidSetting> {
        at_least("resign.moves", self.moves, 1, "use at least 1 (or enabled = false)")?;
        check(self.score_cp < 0, "resign.score_cp", self.score_cp, "use a negative score (we are worse)")
    }
}

impl MatchmakingConfig {
    fn validate(&self) -> Result<(), InvalidSetting> {
        for &v in &self.variants {
            check(
                matches!(v, Variant::Standard | Variant::Chess960),
                "matchmaking.variants",
                v,
                "use standard or chess960",
            )?;
        }
        check(
            !self.enabled || ((!self.time_controls.is_empty() || !self.days.is_empty()) && !self.variants.is_empty()),
            "matchmaking",
            "enabled",
            "give at least one time control (or days) and one variant",
        )?;
        check_days("matchmaking.days", &self.days)?;
        for (name, set) in &self.overrides {
            for &v in set.variants.iter().flatten() {
                check(
                    matches!(v, Variant::Standard | Variant::Chess960),
                    "matchmaking.overrides.variants",
                    format!("{name}: {v}"),
                    "use standard or chess960",
                )?;
            }
            check_days("matchmaking.overrides.days", set.days.as_deref().unwrap_or_default())?;
            let clocks = set.time_controls.as_ref().map_or(self.time_controls.len(), Vec::len);
            let days = if set.time_controls.is_some() || set.days.is_some() {
                set.days.as_ref().map_or(0, Vec::len)
            } else {
                self.days.len()
            };
            let variants = set.variants.as_ref().unwrap_or(&self.variants);
            check(
                !self.enabled || (clocks + days > 0 && !variants.is_empty()),
                "matchmaking.overrides",
                name,
                "give the override at least one time control (or days) and one variant",
            )?;
        }
        check(
            self.min_rating <= self.max_rating,
            "matchmaking.min_rating",
            self.min_rating,
            "must not exceed max_rating",
        )
    }
}

/// Correspondence days must be ones Lichess offers.
fn check_days(key: &'static str, days: &[u32]) -> Result<(), InvalidSetting> {
    for &d in days {
        check(LICHESS_DAYS.contains(&d), key, d, "use 1, 2, 3, 5, 7, 10 or 14 days per move")?;
    }
    Ok(())
}

impl ChatConfig {
    fn validate(&self) -> Result<(), InvalidSetting> {
        at_least(
            "chat.reply_interval_s",
            self.reply_interval_s,
            1,
            "use at least 1 second: Lichess mutes bots that flood the chat",
        )?;
        in_range("chat.max_replies_per_game", self.max_replies_per_game, 0..=100, "use 0 to 100")?;
        in_range("chat.wait_s", self.wait_s, 1..=600, "use 1 to 600 seconds")?;
        in_range("chat.after_game_s", self.after_game_s, 0..=600, "use 0 to 600 seconds")
    }
}

impl LogConfig {
    fn validate(&self) -> Result<(), InvalidSetting> {
        let name = self.file.file_name().and_then(|n| n.to_str()).unwrap_or("");
        check(
            self.file.as_os_str().is_empty() || !name.is_empty(),
            "log.file",
            self.file.display(),
            "name a file, e.g. logs/bot.log",
        )?;
        at_least("log.keep_days", self.keep_days, 1, "keep at least 1 daily file")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::Path;

    use super::*;

    /// Settings as the settings file's tables arrive (the same serde path as TOML).
    fn from_json(value: serde_json::Value) -> Result<BotConfig, serde_json::Error> {
        serde_json::from_value(value)
    }

    #[test]
    fn a_hash_beyond_what_the_machine_can_spare_is_refused() {
        // Only where the machine reports its memory and spares less than the engine's cap.
        let cap = usize::try_from(*spin_limits(OptionId::Hash).end()).unwrap();
        if let Some(limit) = ferz_engine::tt::hash_limit_mb().filter(|&limit| limit < cap) {
            let mut config = BotConfig::default();
            config.engine.hash_mb = limit + 1;
            let err = config.validate().unwrap_err();
            assert_eq!(err.key, "engine.hash_mb");
            assert!(err.reason.contains("more than this machine can spare"), "{err}");
        }
    }

    #[test]
    fn defaults_are_valid() {
        BotConfig::default().validate().unwrap();
    }

    #[test]
    fn bad_values_name_their_key() {
        let mut config = BotConfig::default();
        config.lichess.url = "lichess.org".into();
        assert_eq!(
            config.validate().unwrap_err().to_string(),
            "lichess.url = lichess.org: use an http:// or https:// address"
        );
        let mut config = BotConfig::default();
        config.engine.threads = 0;
        assert_eq!(
            config.validate().unwrap_err().to_string(),
            "engine.threads = 0: use 1 to 256 threads (the engine's Threads option)"
        );
        config.engine.threads = 257;
        assert_eq!(config.validate().unwrap_err().key, "engine.threads", "the engine's Threads limit");
        let mut config = BotConfig::default();
        config.engine.hash_mb = 0;
        assert_eq!(
            config.validate().unwrap_err().to_string(),
            "engine.hash_mb = 0: use 1 to 65536 MiB (the engine's Hash option)"
        );
        let mut config = BotConfig::default();
        config.challenge.variants.push(Variant::Shatranj);
        let err = config.validate().unwrap_err();
        assert_eq!((err.key.as_ref(), err.value.as_str()), ("challenge.variants", "shatranj"));
        let mut config = BotConfig::default();
        config.matchmaking.variants = vec![Variant::FromPosition];
        let err = config.validate().unwrap_err();
        assert_eq!((err.key.as_ref(), err.value.as_str()), ("matchmaking.variants", "fromPosition"));
        let mut config = BotConfig::default();
        config.resign.score_cp = 100;
        assert_eq!(config.validate().unwrap_err().key, "resign.score_cp");
        let mut config = BotConfig::default();
        config.book.chess = vec!["a.bin".into(), PathBuf::new()];
        assert_eq!(
            config.validate().unwrap_err().to_string(),
            "book.chess = \"\": give the path of a Polyglot .bin file"
        );
        let mut config = BotConfig::default();
        config.book.max_depth = 0;
        assert_eq!(config.validate().unwrap_err().key, "book.max_depth");
        let mut config = BotConfig::default();
        config.draw.accept_score_cp = -1;
        assert_eq!(config.validate().unwrap_err().to_string(), "draw.accept_score_cp = -1: use 0 or more");
        let mut config = BotConfig::default();
        config.chat.reply_interval_s = 0;
        let err = config.validate().unwrap_err().to_string();
        assert_eq!(err, "chat.reply_interval_s = 0: use at least 1 second: Lichess mutes bots that flood the chat");
        let mut config = BotConfig::default();
        config.chat.after_game_s = 3600;
        assert_eq!(config.validate().unwrap_err().key, "chat.after_game_s");
        let mut config = BotConfig::default();
        config.log.keep_days = 0;
        assert_eq!(config.validate().unwrap_err().key, "log.keep_days");
        config.log.keep_days = 1;
        config.log.file = PathBuf::from("logs/..");
        assert_eq!(config.validate().unwrap_err().key, "log.file");
        config.log.file = PathBuf::from("logs/bot.log");
        config.validate().unwrap();
    }

    #[test]
    fn the_old_correspondence_key_points_to_its_new_home() {
        let config = from_json(serde_json::json!({ "engine": { "correspondence_move_s": 60 } })).unwrap();
        assert_eq!(
            config.validate().unwrap_err().to_string(),
            "engine.correspondence_move_s = 60: this key moved: set [correspondence] move_time_s instead"
        );
        let config =
            from_json(serde_json::json!({ "correspondence": { "move_time_s": 60, "disconnect_s": 0 } })).unwrap();
        assert_eq!(config.correspondence.move_time_s, 60);
        assert_eq!(config.validate().unwrap_err().key, "correspondence.disconnect_s");
        let err = from_json(serde_json::json!({ "correspondence": { "checkin_s": 5 } })).unwrap_err().to_string();
        assert!(err.contains("unknown field `checkin_s`"), "{err}");
    }

    #[test]
    fn names_are_typed_when_the_file_is_read() {
        let config = from_json(serde_json::json!({
            "lichess": { "platform": "pychess" },
            "challenge": { "variants": ["chess", "chess960"], "speeds": ["ultraBullet"] },
            "matchmaking": { "time_controls": ["60+0", "900+10"] },
        }))
        .unwrap();
        assert_eq!(config.lichess.platform, Platform::PyChess);
        assert_eq!(config.challenge.variants, [Variant::Standard, Variant::Chess960]);
        assert_eq!(config.challenge.speeds, [Speed::UltraBullet]);
        assert_eq!(config.matchmaking.time_controls[1], TimeControl { initial_s: 900, increment_s: 10 });
        let wrong = |value: serde_json::Value| from_json(value).unwrap_err().to_string();
        let err = wrong(serde_json::json!({ "lichess": { "platform": "chesscom" } }));
        assert!(err.contains("unknown platform `chesscom` (expected `lichess` or `pychess`)"), "{err}");
        let err = wrong(serde_json::json!({ "challenge": { "variants": ["atomic"] } }));
        assert!(err.contains("\"atomic\" is not a variant the bot plays"), "{err}");
        let err = wrong(serde_json::json!({ "challenge": { "pychess": { "speeds": ["fast"] } } }));
        assert!(err.contains("\"fast\" is not a speed"), "{err}");
        let err = wrong(serde_json::json!({ "chat": { "eval": "opponent" } }));
        assert!(err.contains("\"opponent\" is not an eval audience"), "{err}");
        let err = wrong(serde_json::json!({ "pgn": { "grouping": "daily" } }));
        assert!(err.contains("\"daily\" is not a PGN grouping"), "{err}");
        let config =
            from_json(serde_json::json!({ "chat": { "eval": "nobody" }, "pgn": { "grouping": "all" } })).unwrap();
        assert_eq!((config.chat.eval, config.pgn.grouping), (EvalAudience::Nobody, PgnGrouping::All));
        let err = wrong(serde_json::json!({ "matchmaking": { "time_controls": ["100+1"] } }));
        assert!(err.contains("\"100+1\" is not a Lichess clock"), "{err}");
    }

    #[test]
    fn bad_names_in_a_file_name_the_key_and_the_value() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.toml");
        let load_err = |text: &str| {
            std::fs::write(&path, text).unwrap();
            ferz_settings::load::<BotConfig>(Some(&path), Path::new("x"), &HashMap::new()).unwrap_err().to_string()
        };
        let err = load_err("[matchmaking]\ntime_controls = [\"180+2\", \"100+1\"]\n");
        assert!(err.contains("bot.toml: matchmaking.time_controls: \"100+1\" is not a Lichess clock"), "{err}");
        let err = load_err("[lichess]\nplatform = \"chesscom\"\n");
        assert!(
            err.contains("lichess.platform: unknown platform `chesscom` (expected `lichess` or `pychess`)"),
            "{err}"
        );
        let err = load_err("[challenge.pychess]\nvariants = [\"makruk\"]\n");
        assert!(err.contains("challenge.pychess.variants: \"makruk\" is not a variant the bot plays"), "{err}");
        let err = load_err("[challenge]\nspeeds = [\"blitz\", \"fast\"]\n");
        assert!(err.contains("challenge.speeds: \"fast\" is not a speed: use ultraBullet"), "{err}");
        // The settings file's spelling of PyChess's standard chess, and the platform in capitals.
        std::fs::write(&path, "[lichess]\nplatform = \"PyChess\"\n[challenge.pychess]\nvariants = [\"chess\"]\n")
            .unwrap();
        let (config, _) = ferz_settings::load::<BotConfig>(Some(&path), Path::new("x"), &HashMap::new()).unwrap();
        assert_eq!(
            (config.lichess.platform, config.challenge.pychess.variants),
            (Platform::PyChess, Some(vec![Variant::Standard]))
        );
    }

    #[test]
    fn each_platform_has_its_policy() {
        let config = ChallengeConfig::default();
        let lichess = config.for_platform(Platform::Lichess);
        assert_eq!(lichess.variants, [Variant::Standard, Variant::Chess960, Variant::FromPosition]);
        let pychess = config.for_platform(Platform::PyChess);
        assert_eq!(pychess.variants, [Variant::Standard, Variant::Chess960, Variant::Shatranj]);
        assert_eq!(config.pychess_capabilities(), ["chess", "chess960", "shatranj"]);
        assert_eq!((pychess.speeds, pychess.max_base_s), (config.speeds.clone(), config.max_base_s));
    }

    #[test]
    fn a_platform_table_overrides_only_what_it_sets() {
        let config = from_json(serde_json::json!({
            "challenge": {
                "speeds": ["blitz"],
                "max_base_s": 600,
                "pychess": { "speeds": ["rapid", "classical"], "min_base_s": 600, "max_base_s": 1800 },
                "lichess": { "variants": ["standard"] },
            }
        }))
        .unwrap();
        let c = &config.challenge;
        // PyChess: its own speeds and base range, its default variants (the table sets none).
        let pychess = c.for_platform(Platform::PyChess);
        assert_eq!(pychess.variants, [Variant::Standard, Variant::Chess960, Variant::Shatranj]);
        assert_eq!(pychess.speeds, [Speed::Rapid, Speed::Classical]);
        assert_eq!((pychess.min_base_s, pychess.max_base_s), (600, 1800));
        // Lichess: its variants, the [challenge] speeds and range.
        let lichess = c.for_platform(Platform::Lichess);
        assert_eq!(lichess.variants, [Variant::Standard]);
        assert_eq!(lichess.speeds, [Speed::Blitz]);
        assert_eq!((lichess.min_base_s, lichess.max_base_s), (0, 600));
        // Applying the table twice changes nothing.
        assert_eq!(pychess.for_platform(Platform::PyChess), pychess);
        let mut config = config;
        config.lichess.platform = Platform::PyChess;
        config.validate().unwrap();
    }

    #[test]
    fn the_capability_header_lists_only_what_pychess_accepts() {
        let mut config = ChallengeConfig::default();
        config.pychess.variants = Some(vec![Variant::Shatranj]);
        assert_eq!(config.pychess_capabilities(), ["shatranj"]);
        config.pychess.variants = Some(vec![Variant::Standard, Variant::Chess960]);
        assert_eq!(config.pychess_capabilities(), ["chess", "chess960"]);
    }

    #[test]
    fn platform_tables_are_checked() {
        let pychess = |edit: &dyn Fn(&mut BotConfig)| {
            let mut config = BotConfig::default();
            config.lichess.platform = Platform::PyChess;
            edit(&mut config);
            config.validate()
        };
        pychess(&|_| {}).unwrap();
        let err = pychess(&|c| c.challenge.pychess.variants = Some(vec![Variant::FromPosition])).unwrap_err();
        assert_eq!((err.key.as_ref(), err.value.as_str()), ("challenge.pychess.variants", "fromPosition"));
        let err = pychess(&|c| c.challenge.pychess.min_base_s = Some(20_000)).unwrap_err();
        assert_eq!(err.key, "challenge.pychess.min_base_s");
        let err = pychess(&|c| c.challenge.casual = false).unwrap_err();
        assert_eq!(err.key, "challenge.casual");
        // The PyChess table does not bother a Lichess bot; Shatranj on Lichess does.
        let mut config = BotConfig::default();
        config.challenge.pychess.min_base_s = Some(20_000);
        config.validate().unwrap();
        config.challenge.lichess.variants = Some(vec![Variant::Shatranj]);
        let err = config.validate().unwrap_err();
        assert_eq!((err.key.as_ref(), err.value.as_str()), ("challenge.lichess.variants", "shatranj"));
        let typo = serde_json::json!({ "challenge": { "pychess": { "variant": ["chess"] } } });
        let err = from_json(typo).unwrap_err().to_string();
        assert!(err.contains("unknown field `variant`"), "{err}");
    }

    #[test]
    fn the_shipped_settings_file_lists_the_policy_defaults() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/bot.toml");
        let (config, _) = ferz_settings::load::<BotConfig>(Some(&path), Path::new("x"), &HashMap::new()).unwrap();
        let defaults = BotConfig::default();
        assert_eq!((config.challenge, config.matchmaking), (defaults.challenge, defaults.matchmaking));
        assert_eq!(config.online, defaults.online, "[online] in config/bot.toml");
    }

    #[test]
    fn the_removed_rated_key_names_its_replacement() {
        let err = from_json(serde_json::json!({ "matchmaking": { "rated": true } })).unwrap_err().to_string();
        assert!(err.contains("`rated` was replaced by `mode`: write mode = \"rated\""), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bot.toml");
        std::fs::write(&path, "[matchmaking]\nrated = false\n").unwrap();
        let err = ferz_settings::load::<BotConfig>(Some(&path), Path::new("x"), &HashMap::new()).unwrap_err();
        assert!(err.to_string().contains("matchmaking.rated"), "{err}");
    }

    #[test]
    fn policy_and_override_settings_are_checked() {
        let config = from_json(serde_json::json!({
            "challenge": { "rating_difference": 250, "max_days": 7, "online_block_list": ["https://example.org/b.txt"] },
            "matchmaking": {
                "enabled": true, "mode": "random", "days": [3], "override_order": "sequential",
                "overrides": { "blitz960": { "time_controls": ["180+2"], "variants": ["chess960"], "mode": "rated" } }
            }
        }))
        .unwrap();
        config.validate().unwrap();
        assert_eq!((config.challenge.rating_difference, config.challenge.max_days), (Some(250), Some(7)));
        assert_eq!(config.matchmaking.overrides["blitz960"].mode, Some(MatchMode::Rated));
        let key = |edit: &dyn Fn(&mut BotConfig)| {
            let mut c = config.clone();
            edit(&mut c);
            c.validate().unwrap_err().key
        };
        assert_eq!(key(&|c| c.challenge.reserved_for_humans = 1), "challenge.reserved_for_humans");
        assert_eq!(key(&|c| c.challenge.max_days = Some(0)), "challenge.max_days");
        assert_eq!(key(&|c| c.challenge.min_days = 20), "challenge.min_days");
        assert_eq!(key(&|c| c.challenge.rating_refresh_s = 0), "challenge.rating_refresh_s");
        assert_eq!(key(&|c| c.challenge.online_block_list = vec!["list.txt".into()]), "challenge.online_block_list");
        assert_eq!(key(&|c| c.matchmaking.days = vec![4]), "matchmaking.days");
        let bad_variant = |c: &mut BotConfig| {
            c.matchmaking.overrides.get_mut("blitz960").unwrap().variants = Some(vec![Variant::FromPosition]);
        };
        assert_eq!(key(&bad_variant), "matchmaking.overrides.variants");
        let empty = |c: &mut BotConfig| {
            c.matchmaking.overrides.get_mut("blitz960").unwrap().time_controls = Some(Vec::new());
        };
        assert_eq!(key(&empty), "matchmaking.overrides");
        // Days alone are enough to challenge with.
        let mut corr = config.clone();
        corr.matchmaking.time_controls.clear();
        corr.validate().unwrap();
        let typo = serde_json::json!({ "matchmaking": { "overrides": { "x": { "rated": true } } } });
        assert!(from_json(typo).unwrap_err().to_string().contains("unknown field `rated`"));
    }

    #[test]
    fn matchmaking_needs_something_to_challenge_with() {
        let mut config = BotConfig::default();
        config.matchmaking.enabled = true;
        config.validate().unwrap();
        config.matchmaking.time_controls.clear();
        assert_eq!(config.validate().unwrap_err().key, "matchmaking");
        config.matchmaking.enabled = false;
        config.validate().unwrap();
        config.matchmaking.min_rating = 5000;
        assert_eq!(config.validate().unwrap_err().key, "matchmaking.min_rating");
    }
}
