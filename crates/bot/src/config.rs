//! The bot's settings: what `config/bot.toml` holds, with its defaults.
//!
//! Every section rejects unknown keys, so a typo fails at start instead of being ignored, and
//! [`BotConfig::validate`] checks the values once, with messages that name the key. The token
//! is deliberately not a setting: it comes from the environment only (`LICHESS_BOT_TOKEN`).

use std::path::PathBuf;

use ferz_lichess::Platform;
use ferz_settings::check;
use serde::{Deserialize, Serialize};

/// Everything the bot needs to know besides the token.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BotConfig {
    /// The server.
    pub lichess: LichessConfig,
    /// The engine and how it spends its clock.
    pub engine: EngineConfig,
    /// Which challenges to accept.
    pub challenge: ChallengeConfig,
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
}

/// `[lichess]`: the server and its streams.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LichessConfig {
    /// Server root: `https://lichess.org`, or `https://www.pychess.org` with `platform = "pychess"`.
    pub url: String,
    /// `lichess` or `pychess`.
    pub platform: String,
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
            platform: "lichess".to_owned(),
            stream_idle_s: 20,
            request_timeout_s: 10,
        }
    }
}

impl LichessConfig {
    /// The platform named by `platform`.
    ///
    /// # Errors
    /// The name, when it is neither `lichess` nor `pychess`.
    pub fn platform(&self) -> Result<Platform, InvalidSetting> {
        match self.platform.as_str() {
            "lichess" => Ok(Platform::Lichess),
            "pychess" => Ok(Platform::PyChess),
            other => Err(InvalidSetting::new("lichess.platform", other, "use \"lichess\" or \"pychess\"")),
        }
    }
}

/// `[engine]`: the in-process engine and its time use.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EngineConfig {
    /// Transposition table per game, MiB.
    pub hash_mb: usize,
    /// Search threads per game.
    pub threads: usize,
    /// Milliseconds kept back from every move for network lag.
    pub move_overhead_ms: u64,
    /// The longest the first move of each side may take, in ms (Lichess aborts a game whose
    /// first move does not come within 30 s, and the clock does not run yet).
    pub first_move_ms: u64,
    /// Seconds per move in correspondence and unlimited games.
    pub correspondence_move_s: u64,
    /// Nodes per move instead of the clock (0: use the clock). For testing and benchmarks.
    pub nodes: u64,
    /// An opening book: a self-play opening cache directory (`ferz selfplay` writes one); empty
    /// for none. Read only; the bot plays without a book if it cannot open it.
    pub book: PathBuf,
    /// Only book positions searched at least this deep are used.
    pub book_min_depth: u8,
    /// The book is consulted during the first this many plies of a game.
    pub book_max_ply: u32,
    /// Book moves within this many centipawns of the best one are chosen at random.
    pub book_margin_cp: i32,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig {
            hash_mb: 64,
            threads: 1,
            move_overhead_ms: 300,
            first_move_ms: 3000,
            correspondence_move_s: 30,
            nodes: 0,
            book: PathBuf::new(),
            book_min_depth: 8,
            book_max_ply: 16,
            book_margin_cp: 15,
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
    /// Variant keys: `standard`, `chess960`, `fromPosition` (and `shatranj` on PyChess).
    pub variants: Vec<String>,
    /// Speeds: `ultraBullet`, `bullet`, `blitz`, `rapid`, `classical`.
    pub speeds: Vec<String>,
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
    /// Variant keys (PyChess's `chess` is accepted for `standard`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variants: Option<Vec<String>>,
    /// Speeds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speeds: Option<Vec<String>>,
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
pub const PYCHESS_VARIANTS: [&str; 3] = ["chess", "chess960", "shatranj"];

impl ChallengeConfig {
    /// The policy on `platform`: the `[challenge]` keys with that platform's table applied.
    /// Variant names come out as the bot's keys (PyChess's `chess` becomes `standard`).
    #[must_use]
    pub fn for_platform(&self, platform: Platform) -> ChallengeConfig {
        let table = match platform {
            Platform::Lichess => &self.lichess,
            Platform::PyChess => &self.pychess,
        };
        let mut policy = self.clone();
        policy.variants = match (&table.variants, platform) {
            (Some(list), _) => list.clone(),
            (None, Platform::PyChess) => PYCHESS_VARIANTS.map(str::to_owned).to_vec(),
            (None, Platform::Lichess) => self.variants.clone(),
        };
        policy.variants = policy.variants.iter().map(|v| canonical_variant(v).to_owned()).collect();
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
        policy
            .variants
            .iter()
            .filter_map(|v| match v.as_str() {
                "standard" => Some("chess".to_owned()),
                "chess960" | "shatranj" => Some(v.clone()),
                _ => None,
            })
            .collect()
    }
}

/// The bot's key of a variant name: PyChess's `chess` is `standard`.
fn canonical_variant(name: &str) -> &str {
    if name == "chess" { "standard" } else { name }
}

impl Default for ChallengeConfig {
    fn default() -> ChallengeConfig {
        ChallengeConfig {
            concurrency: 1,
            max_waiting: 2,
            variants: vec!["standard".into(), "chess960".into(), "fromPosition".into()],
            speeds: vec!["bullet".into(), "blitz".into(), "rapid".into(), "classical".into()],
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
            lichess: PlatformChallenge::default(),
            pychess: PlatformChallenge {
                variants: Some(PYCHESS_VARIANTS.map(str::to_owned).to_vec()),
                ..PlatformChallenge::default()
            },
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
}

impl Default for ResignConfig {
    fn default() -> ResignConfig {
        ResignConfig { enabled: true, moves: 3, score_cp: -1000 }
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
    pub time_controls: Vec<String>,
    /// Variant keys to challenge in: `standard`, `chess960`.
    pub variants: Vec<String>,
    /// Rated challenges (else casual).
    pub rated: bool,
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
            time_controls: vec!["180+2".into(), "300+3".into()],
            variants: vec!["standard".into()],
            rated: false,
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
    /// Directory for one PGN file per finished game (empty: none).
    pub dir: PathBuf,
    /// Write our evaluation and depth after each of our moves.
    pub evals: bool,
    /// Write the clock after each move.
    pub clocks: bool,
}

impl Default for PgnConfig {
    fn default() -> PgnConfig {
        PgnConfig { dir: PathBuf::from("games"), evals: true, clocks: true }
    }
}

/// A setting with a value the bot cannot use: the error of every ferz settings file.
pub use ferz_settings::InvalidSetting;

/// Variant keys a challenge or a game may carry that the bot can play.
pub const PLAYABLE_VARIANTS: [&str; 4] = ["standard", "chess960", "fromPosition", "shatranj"];
/// Lichess speed names.
pub const SPEEDS: [&str; 5] = ["ultraBullet", "bullet", "blitz", "rapid", "classical"];

/// A time control `seconds+increment` of `[matchmaking] time_controls`.
///
/// # Errors
/// A description of what is wrong with the text.
pub fn parse_time_control(text: &str) -> Result<(u32, u32), String> {
    let (base, inc) = text.split_once('+').ok_or_else(|| format!("{text:?} is not seconds+increment"))?;
    let base: u32 = base.trim().parse().map_err(|_| format!("{text:?}: bad seconds"))?;
    let inc: u32 = inc.trim().parse().map_err(|_| format!("{text:?}: bad increment"))?;
    let base_ok = matches!(base, 0 | 15 | 30 | 45 | 60 | 90) || (base.is_multiple_of(60) && base <= 10_800);
    if !base_ok || inc > 60 || base + inc == 0 {
        return Err(format!("{text:?} is not a Lichess clock"));
    }
    Ok((base, inc))
}

impl BotConfig {
    /// Checks every value once, at start.
    ///
    /// # Errors
    /// The first setting the bot cannot use, with what to change.
    pub fn validate(&self) -> Result<(), InvalidSetting> {
        self.lichess.platform()?;
        let url = &self.lichess.url;
        check(
            url.starts_with("http://") || url.starts_with("https://"),
            "lichess.url",
            url.clone(),
            "use an http:// or https:// address",
        )?;
        check(self.lichess.stream_idle_s >= 1, "lichess.stream_idle_s", "0", "use at least 1 second")?;
        check(self.lichess.request_timeout_s >= 1, "lichess.request_timeout_s", "0", "use at least 1 second")?;
        let e = &self.engine;
        check((1..=65_536).contains(&e.hash_mb), "engine.hash_mb", e.hash_mb.to_string(), "use 1 to 65536 MiB")?;
        check((1..=256).contains(&e.threads), "engine.threads", e.threads.to_string(), "use 1 to 256 threads")?;
        check(
            (100..=25_000).contains(&e.first_move_ms),
            "engine.first_move_ms",
            e.first_move_ms.to_string(),
            "use 100 to 25000 ms (Lichess aborts after 30 s)",
        )?;
        check(
            e.move_overhead_ms <= 10_000,
            "engine.move_overhead_ms",
            e.move_overhead_ms.to_string(),
            "use 0 to 10000 ms",
        )?;
        check(e.correspondence_move_s >= 1, "engine.correspondence_move_s", "0", "use at least 1 second")?;
        let c = &self.challenge;
        check((1..=256).contains(&c.concurrency), "challenge.concurrency", c.concurrency.to_string(), "use 1 to 256")?;
        let tables = [
            ("challenge.variants", "challenge.speeds", Some(&c.variants), Some(&c.speeds)),
            (
                "challenge.lichess.variants",
                "challenge.lichess.speeds",
                c.lichess.variants.as_ref(),
                c.lichess.speeds.as_ref(),
            ),
            (
                "challenge.pychess.variants",
                "challenge.pychess.speeds",
                c.pychess.variants.as_ref(),
                c.pychess.speeds.as_ref(),
            ),
        ];
        for (variants_key, speeds_key, variants, speeds) in tables {
            for v in variants.into_iter().flatten() {
                check(
                    PLAYABLE_VARIANTS.contains(&canonical_variant(v)),
                    variants_key,
                    v.clone(),
                    "use standard (PyChess: chess), chess960, fromPosition or shatranj",
                )?;
            }
            for s in speeds.into_iter().flatten() {
                check(
                    SPEEDS.contains(&s.as_str()),
                    speeds_key,
                    s.clone(),
                    "use ultraBullet, bullet, blitz, rapid or classical",
                )?;
            }
        }
        // The policy of the platform the bot plays on, with that platform's table applied.
        let platform = self.lichess.platform()?;
        let p = c.for_platform(platform);
        let table = if platform == Platform::PyChess { &c.pychess } else { &c.lichess };
        // The key to blame: the platform's table when it sets the value, else `[challenge]`.
        let key = |in_table: bool, base: &'static str, lichess: &'static str, pychess: &'static str| match platform {
            _ if !in_table => base,
            Platform::Lichess => lichess,
            Platform::PyChess => pychess,
        };
        for v in &p.variants {
            let (ok, reason) = match platform {
                Platform::Lichess => {
                    (v != "shatranj", "Lichess has no Shatranj; list it under [challenge.pychess] variants")
                }
                Platform::PyChess => {
                    (v != "fromPosition", "PyChess has no fromPosition variant; use chess, chess960 or shatranj")
                }
            };
            let in_table = table.variants.is_some() || platform == Platform::PyChess;
            check(
                ok,
                key(in_table, "challenge.variants", "challenge.lichess.variants", "challenge.pychess.variants"),
                v.clone(),
                reason,
            )?;
        }
        check(
            p.min_base_s <= p.max_base_s,
            key(
                table.min_base_s.is_some() || table.max_base_s.is_some(),
                "challenge.min_base_s",
                "challenge.lichess.min_base_s",
                "challenge.pychess.min_base_s",
            ),
            p.min_base_s.to_string(),
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
            p.min_increment_s.to_string(),
            "must not exceed max_increment_s",
        )?;
        check(
            platform != Platform::PyChess || p.casual,
            "challenge.casual",
            "false",
            "PyChess creates every BOT challenge unrated: keep casual = true there",
        )?;
        check(
            c.min_rating <= c.max_rating,
            "challenge.min_rating",
            c.min_rating.to_string(),
            "must not exceed max_rating",
        )?;
        check(c.max_games_per_opponent >= 1, "challenge.max_games_per_opponent", "0", "use at least 1")?;
        check(self.draw.offer_moves >= 1, "draw.offer_moves", "0", "use at least 1 (or offer = false)")?;
        check(
            self.draw.accept_score_cp >= 0,
            "draw.accept_score_cp",
            self.draw.accept_score_cp.to_string(),
            "use 0 or more",
        )?;
        check(
            self.draw.offer_score_cp >= 0,
            "draw.offer_score_cp",
            self.draw.offer_score_cp.to_string(),
            "use 0 or more",
        )?;
        check(self.resign.moves >= 1, "resign.moves", "0", "use at least 1 (or enabled = false)")?;
        check(
            self.resign.score_cp < 0,
            "resign.score_cp",
            self.resign.score_cp.to_string(),
            "use a negative score (we are worse)",
        )?;
        let m = &self.matchmaking;
        for tc in &m.time_controls {
            if parse_time_control(tc).is_err() {
                return Err(InvalidSetting::new(
                    "matchmaking.time_controls",
                    tc,
                    "use seconds+increment, e.g. \"180+2\" (0, 15, 30, 45, 60, 90 or multiples of 60 up to 10800; increment up to 60)",
                ));
            }
        }
        for v in &m.variants {
            check(v == "standard" || v == "chess960", "matchmaking.variants", v.clone(), "use standard or chess960")?;
        }
        check(
            !m.enabled || (!m.time_controls.is_empty() && !m.variants.is_empty()),
            "matchmaking",
            "enabled",
            "give at least one time control and one variant",
        )?;
        check(
            m.min_rating <= m.max_rating,
            "matchmaking.min_rating",
            m.min_rating.to_string(),
            "must not exceed max_rating",
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid() {
        BotConfig::default().validate().unwrap();
    }

    #[test]
    fn bad_values_name_their_key() {
        let mut config = BotConfig::default();
        config.lichess.platform = "chesscom".into();
        assert_eq!(config.validate().unwrap_err().key, "lichess.platform");
        let mut config = BotConfig::default();
        config.challenge.variants.push("atomic".into());
        let err = config.validate().unwrap_err();
        assert_eq!((err.key, err.value.as_str()), ("challenge.variants", "atomic"));
        let mut config = BotConfig::default();
        config.matchmaking.time_controls = vec!["100+1".into()];
        assert_eq!(config.validate().unwrap_err().key, "matchmaking.time_controls");
        let mut config = BotConfig::default();
        config.resign.score_cp = 100;
        assert_eq!(config.validate().unwrap_err().key, "resign.score_cp");
    }

    #[test]
    fn each_platform_has_its_policy() {
        let config = ChallengeConfig::default();
        let lichess = config.for_platform(Platform::Lichess);
        assert_eq!(lichess.variants, ["standard", "chess960", "fromPosition"]);
        let pychess = config.for_platform(Platform::PyChess);
        // PyChess's `chess` is the bot's `standard`.
        assert_eq!(pychess.variants, ["standard", "chess960", "shatranj"]);
        assert_eq!(config.pychess_capabilities(), ["chess", "chess960", "shatranj"]);
        assert_eq!((pychess.speeds, pychess.max_base_s), (config.speeds.clone(), config.max_base_s));
    }

    #[test]
    fn a_platform_table_overrides_only_what_it_sets() {
        // As the settings file's tables arrive (the same serde path as TOML).
        let config: BotConfig = serde_json::from_value(serde_json::json!({
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
        assert_eq!(pychess.variants, ["standard", "chess960", "shatranj"]);
        assert_eq!(pychess.speeds, ["rapid", "classical"]);
        assert_eq!((pychess.min_base_s, pychess.max_base_s), (600, 1800));
        // Lichess: its variants, the [challenge] speeds and range.
        let lichess = c.for_platform(Platform::Lichess);
        assert_eq!(lichess.variants, ["standard"]);
        assert_eq!(lichess.speeds, ["blitz"]);
        assert_eq!((lichess.min_base_s, lichess.max_base_s), (0, 600));
        // Applying the table twice changes nothing.
        assert_eq!(pychess.for_platform(Platform::PyChess), pychess);
        let mut config = config;
        config.lichess.platform = "pychess".into();
        config.validate().unwrap();
    }

    #[test]
    fn the_capability_header_lists_only_what_pychess_accepts() {
        let mut config = ChallengeConfig::default();
        config.pychess.variants = Some(vec!["shatranj".into()]);
        assert_eq!(config.pychess_capabilities(), ["shatranj"]);
        config.pychess.variants = Some(vec!["standard".into(), "chess960".into()]);
        assert_eq!(config.pychess_capabilities(), ["chess", "chess960"]);
    }

    #[test]
    fn platform_tables_are_checked() {
        let pychess = |edit: &dyn Fn(&mut BotConfig)| {
            let mut config = BotConfig::default();
            config.lichess.platform = "pychess".into();
            edit(&mut config);
            config.validate()
        };
        pychess(&|_| {}).unwrap();
        let err = pychess(&|c| c.challenge.pychess.variants = Some(vec!["fromPosition".into()])).unwrap_err();
        assert_eq!((err.key, err.value.as_str()), ("challenge.pychess.variants", "fromPosition"));
        let err = pychess(&|c| c.challenge.pychess.variants = Some(vec!["makruk".into()])).unwrap_err();
        assert_eq!((err.key, err.value.as_str()), ("challenge.pychess.variants", "makruk"));
        let err = pychess(&|c| c.challenge.pychess.speeds = Some(vec!["fast".into()])).unwrap_err();
        assert_eq!(err.key, "challenge.pychess.speeds");
        let err = pychess(&|c| c.challenge.pychess.min_base_s = Some(20_000)).unwrap_err();
        assert_eq!(err.key, "challenge.pychess.min_base_s");
        let err = pychess(&|c| c.challenge.casual = false).unwrap_err();
        assert_eq!(err.key, "challenge.casual");
        // The PyChess table does not bother a Lichess bot; Shatranj on Lichess does.
        let mut config = BotConfig::default();
        config.challenge.pychess.min_base_s = Some(20_000);
        config.validate().unwrap();
        config.challenge.variants.push("shatranj".into());
        let err = config.validate().unwrap_err();
        assert_eq!((err.key, err.value.as_str()), ("challenge.variants", "shatranj"));
        let typo = serde_json::json!({ "challenge": { "pychess": { "variant": ["chess"] } } });
        let err = serde_json::from_value::<BotConfig>(typo).unwrap_err().to_string();
        assert!(err.contains("unknown field `variant`"), "{err}");
    }

    #[test]
    fn time_controls_parse() {
        assert_eq!(parse_time_control("180+2"), Ok((180, 2)));
        assert_eq!(parse_time_control("15+0"), Ok((15, 0)));
        assert!(parse_time_control("0+0").is_err());
        assert!(parse_time_control("61+0").is_err());
        assert!(parse_time_control("60+61").is_err());
        assert!(parse_time_control("3").is_err());
    }
}
