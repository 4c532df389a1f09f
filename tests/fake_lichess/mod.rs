//! A fake Lichess server for the bot's system tests.
//!
//! [`FakeLichess`] serves on `127.0.0.1` through `ferz-testserver`'s threaded HTTP/1.1 server
//! and simulates the part of Lichess a bot uses, with lila's semantics as described in the Bot
//! API reference: accounts and tokens, the event stream, challenges both ways, bot game streams
//! with `gameFull` and `gameState` lines, moves with clocks, draws, takebacks, aborts,
//! resignations, claims, chat, the daily bot-game limit. The other side of every game is a
//! scripted [`Opponent`], and [`Fault`]s break things on purpose (closed, silent or truncated
//! streams, 5xx, HTML 429s, duplicate events, refused moves). The online move sources (cloud
//! evaluation, the opening explorer, chessdb) are served beside it from a script
//! ([`FakeLichess::script_online`]).
//!
//! Everything a test may wait for is observable: [`FakeLichess::game`],
//! [`FakeLichess::challenge_state`], [`FakeLichess::requests`], … and
//! [`FakeLichess::wait_until`] polls a condition and, on timeout, panics with a dump of the whole
//! server state.
//!
//! ```no_run
//! use std::time::Duration;
//! use ferz_tests::fake_lichess::{ChallengeSpec, FakeConfig, FakeLichess, Opponent};
//!
//! let server = FakeLichess::start(FakeConfig::default());
//! // … start the bot with `server.url()` and `FAKE_TOKEN` …
//! let id = server.send_challenge(ChallengeSpec::standard("alice", 60, 1).opponent(Opponent::random(7)));
//! server.wait_until(Duration::from_secs(10), "the bot accepts", |s| s.game(&id).is_some());
//! ```
//!
//! Semantics worth knowing when writing a test:
//!
//! - Clocks follow lila: neither clock runs for its side's first move; from the third ply on the
//!   mover's clock loses the real time elapsed since the previous move and gains the increment.
//!   The side to move loses on time (`outoftime`) as soon as its clock reaches zero; the server
//!   checks on every request and on a timer. Unlimited games show `2147483647`.
//! - Castling: standard games accept `e1g1` and `e1h1` and write what
//!   [`FakeConfig::standard_castling`] says; `chess960` and `fromPosition` games (played with
//!   Chess960 rules, so Shredder castling rights work) accept and write king-takes-rook only.
//! - Draw offers follow lila's `BotPlayer`: a move with `offeringDraw=true` offers (allowed from
//!   ply 2, once per 20 plies, otherwise silently ignored) or accepts a pending offer (the game
//!   ends `draw` and the move is not played); a move with `offeringDraw=false` withdraws the
//!   bot's own pending offer and, like any move, declines the opponent's.
//! - Events written while no event stream is open are lost, as on lila; a new connection
//!   replays `gameStart` for ongoing games and `challenge` for pending incoming challenges.
//! - Challenges never expire. The bot's challenges are ignored unless
//!   [`FakeLichess::set_challenge_answer`] says otherwise.
//! - Variants the fake cannot simulate (`atomic`, …) can be challenged and accepted; their
//!   games are played with standard rules.
//! - The online tablebase is served too, at `/tablebase/standard` ([`FakeLichess::tablebase_url`]),
//!   with scripted answers ([`TablebaseReply`]); unscripted positions get 404.
//! - lila's first-move timer ([`FakeConfig::abort_on_no_first_move`]) ends the game `aborted`.
//! - Correspondence games ([`ChallengeSpec::days`]): speed `correspondence`, `daysPerTurn` in
//!   `gameFull`, the days left for the move as the mover's clock (ms), reset on every move;
//!   `/api/account/playing` lists `isMyTurn` and `secondsLeft`. A held opponent
//!   ([`Opponent::held`]) moves only when the test calls [`FakeLichess::release_moves`], so a
//!   test decides when the days have passed.
//! - Shatranj games (`ChallengeSpec::variant("shatranj")`) are refereed with ferz's Shatranj
//!   rules: checkmate, stalemate (the stalemated side loses), bare king (loses unless it bares
//!   back at once: then king against king, a draw), the 70-move rule, repetition.
//!
//! # PyChess
//!
//! [`FakeConfig::pychess`] (or `platform: FakePlatform::PyChess`) switches the server to
//! PyChess's dialect of the Bot API (pychess-variants' `server/bot_api.py`), on the same
//! simulation:
//!
//! - The event stream needs `X-PyChess-Bot-Capabilities: {"version": 1, "variants": [...]}`
//!   (missing, malformed, over 6 KiB or naming no PyChess variant: 400); the variants each
//!   connection announced are kept ([`FakeLichess::advertised_variants`]), and a challenge in a
//!   variant the bot did not announce is never offered to it ([`ChallengeState::NotOffered`]).
//! - Keep-alives are `{"type":"ping"}` lines. Events written while no event stream is open wait
//!   for the next one (PyChess keeps a queue per user); a new connection also gets `gameStart`
//!   for every ongoing game whose game stream is not open.
//! - A bad or missing token is 403 (not 401); `/api/token/test` reports `bot:play` and PyChess's
//!   fixed `expires`; `/api/account` is `{id, username, title}`; `/api/account/playing` is
//!   always `{"nowPlaying": []}`; a non-BOT account gets 403 on the BOT endpoints.
//! - `challenge` events have PyChess's shape (`variant.key` `standard` or the PyChess name, a
//!   separate `chess960` flag, no challenger id, always unrated); `gameStart` is
//!   `{"id", "skill_level", "chess960": "True"|"False"}`; there is no `gameFinish`.
//! - `gameFull` has no clock, speed, rating or ids, `variant.name` `chess` (Chess960 too) or
//!   `shatranj`, `createdAt` in seconds and the full `initialFen`; `gameState` has `winc`/`binc`
//!   in seconds, false flags and always `status: "started"`. The end of a game (on the board,
//!   resignation, abort, flag) is the final `gameState` followed by
//!   `{"type":"gameEnd","game":{"id":…}}`; the stream then stays open, as PyChess's does. A game
//!   stream opened on a finished game gets `gameFull` and `gameEnd`.
//! - A second stream of a game while one is open is 409 `game stream already active`: the old
//!   one counts as open until a write to it fails (the next keep-alive after the bot dropped
//!   it).
//! - Draw, takeback and claim endpoints, `/api/bot/online`, the challenge list and cancel, and
//!   `/game/export` are 404 and recorded ([`FakeLichess::missing_endpoint_calls`]);
//!   `POST /api/challenge/{user}` is 403 `BOT accounts cannot create challenges on PyChess.`.
//!   The opponent's draw offers and takeback proposals are invisible to the bot, and a gone
//!   opponent just stops moving (no `opponentGone`): its clock runs out.
//!
//! # Layout
//!
//! `world.rs` holds what the server knows (games, challenges, stream slots: data only) and
//! `state.rs` the rules that move it on (moves, clocks, the opponents' turns, the lines the
//! streams get, injected faults); `json.rs` and `pychess_json.rs` are what each dialect writes
//! about the world; `endpoints.rs` (Lichess) and `pychess.rs` answer requests, and `stream.rs`
//! serves the connections and picks the dialect. `clock.rs`, `faults.rs` and `opponents.rs` are
//! the vocabulary underneath; no module reaches back up.

mod clock;
mod endpoints;
mod engine_opponent;
mod faults;
mod json;
mod online;
mod opponents;
mod pychess;
mod pychess_json;
mod state;
mod stream;
mod tablebase;
mod world;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ferz_testserver::{Listener, Recorded, Server};

pub use engine_opponent::EngineOpponent;
pub use faults::Fault;
pub use online::{OnlineAnswer, OnlineService};
pub use opponents::Opponent;
pub use tablebase::TablebaseReply;

use world::State;

/// The token the fake accepts by default.
pub const FAKE_TOKEN: &str = "lip_FakeBotToken_0123456789abcdef";

/// How the server writes castling moves of standard games in `gameState.moves`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Castling {
    /// King takes own rook (`e1h1`): what lila writes today.
    #[default]
    KingToRook,
    /// The king's two-square step (`e1g1`): lila's legacy notation.
    TwoStep,
}

/// Which server the fake plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FakePlatform {
    /// lichess.org (lila).
    #[default]
    Lichess,
    /// pychess.org, with its dialect of the Bot API (see the module documentation).
    PyChess,
}

/// How the fake server behaves.
#[derive(Debug, Clone)]
pub struct FakeConfig {
    /// Lichess or PyChess.
    pub platform: FakePlatform,
    /// The bot's account id (also its user name), default `ferzbot`.
    pub bot_id: String,
    /// Whether the account is a bot account (`title: BOT`). If not, `/api/bot/*` answers 400
    /// with lila's message until `POST /api/bot/account/upgrade`.
    pub bot_is_bot: bool,
    /// The accepted token; any other bearer token gets 401 `{"error":"No such token"}` (PyChess:
    /// 403).
    pub token: String,
    /// The token's scopes, comma-separated, as `/api/token/test` reports them.
    pub scopes: String,
    /// Keep-alive period of both stream kinds (lila: 6–7 s).
    pub keep_alive: Duration,
    /// How castling is written in standard games (chess960 and fromPosition always king-to-rook).
    pub standard_castling: Castling,
    /// A game reaching this many plies ends as a draw (status `draw`).
    pub max_plies: usize,
    /// lila's first-move timer: a side that does not make its first move within this time
    /// gets the game aborted. `None`: no timer.
    pub abort_on_no_first_move: Option<Duration>,
    /// The bot's rating in every perf at start ([`FakeLichess::set_bot_rating`] changes it).
    pub bot_rating: i64,
    /// How long after a challenge from the bot the challenged user answers it.
    pub challenge_answer_delay: Duration,
    /// How long the bot's takeback answers take to reach the game (the endpoint answers at
    /// once). Zero: applied before the endpoint answers.
    pub takeback_answer_delay: Duration,
}

impl Default for FakeConfig {
    fn default() -> Self {
        FakeConfig {
            platform: FakePlatform::Lichess,
            bot_id: "ferzbot".into(),
            bot_is_bot: true,
            token: FAKE_TOKEN.into(),
            scopes: "bot:play".into(),
            keep_alive: Duration::from_millis(200),
            standard_castling: Castling::KingToRook,
            max_plies: 400,
            abort_on_no_first_move: None,
            bot_rating: 2000,
            challenge_answer_delay: Duration::from_millis(50),
            takeback_answer_delay: Duration::ZERO,
        }
    }
}

impl FakeConfig {
    /// A PyChess server: PyChess's dialect, standard castling written as the king's two-square
    /// step (`e1g1`, as PyChess's engine writes it), keep-alives every 500 ms.
    pub fn pychess() -> FakeConfig {
        FakeConfig {
            platform: FakePlatform::PyChess,
            standard_castling: Castling::TwoStep,
            keep_alive: Duration::from_millis(500),
            ..FakeConfig::default()
        }
    }

    /// Whether the server speaks PyChess's dialect.
    pub fn is_pychess(&self) -> bool {
        self.platform == FakePlatform::PyChess
    }
}

/// A challenge to the bot (or, with [`FakeLichess::start_game`], a game that starts at once).
#[derive(Debug, Clone)]
pub struct ChallengeSpec {
    /// The challenger's user name, e.g. `alice` (the id is its lower case).
    pub challenger: String,
    /// Whether the challenger is a bot account (title `BOT`).
    pub challenger_is_bot: bool,
    /// The challenger's rating.
    pub rating: i64,
    /// Variant key: `standard`, `chess960`, `fromPosition`, `shatranj`, or anything else (sent
    /// as is; a game of an unsupported variant is played with standard rules).
    pub variant: String,
    /// Starting position for `fromPosition` (and `chess960` if given; otherwise a random
    /// Chess960 position chosen with the opponent's seed). With `standard`: `fromPosition` on
    /// Lichess, a chess game from this position on PyChess. With `shatranj`: the Shatranj game
    /// starts there (default: PyChess's array, kings on the d-file).
    pub initial_fen: Option<String>,
    /// Real-time clock: (limit seconds, increment seconds).
    pub clock: Option<(u32, u32)>,
    /// Correspondence days per move (used when `clock` is `None`); neither means unlimited.
    pub days: Option<u32>,
    /// Rated or casual.
    pub rated: bool,
    /// The challenger's requested colour: `white`, `black` or `random`.
    pub color: String,
    /// How the challenger plays once the game starts.
    pub opponent: Opponent,
}

impl ChallengeSpec {
    /// A casual standard challenge from `challenger` with a `limit`+`inc` clock, random colour,
    /// rating 1500, a random-move opponent.
    pub fn standard(challenger: &str, limit: u32, inc: u32) -> Self {
        ChallengeSpec {
            challenger: challenger.into(),
            challenger_is_bot: false,
            rating: 1500,
            variant: "standard".into(),
            initial_fen: None,
            clock: Some((limit, inc)),
            days: None,
            rated: false,
            color: "random".into(),
            opponent: Opponent::random(1),
        }
    }

    /// Sets the variant key.
    #[must_use]
    pub fn variant(mut self, variant: &str) -> Self {
        self.variant = variant.into();
        self
    }

    /// Sets the starting position (for `standard` it turns the game into `fromPosition`, as
    /// lila does).
    #[must_use]
    pub fn fen(mut self, fen: &str) -> Self {
        self.initial_fen = Some(fen.into());
        self
    }

    /// Sets the challenger's requested colour (`white`, `black`, `random`).
    #[must_use]
    pub fn color(mut self, color: &str) -> Self {
        self.color = color.into();
        self
    }

    /// Makes the challenger a bot account.
    #[must_use]
    pub fn bot(mut self) -> Self {
        self.challenger_is_bot = true;
        self
    }

    /// Makes the challenge rated.
    #[must_use]
    pub fn rated(mut self) -> Self {
        self.rated = true;
        self
    }

    /// Sets the challenger's rating.
    #[must_use]
    pub fn rating(mut self, rating: i64) -> Self {
        self.rating = rating;
        self
    }

    /// Sets a real-time clock.
    #[must_use]
    pub fn clock(mut self, limit: u32, inc: u32) -> Self {
        self.clock = Some((limit, inc));
        self.days = None;
        self
    }

    /// Makes the challenge correspondence with `days` per move.
    #[must_use]
    pub fn days(mut self, days: u32) -> Self {
        self.clock = None;
        self.days = Some(days);
        self
    }

    /// Makes the challenge unlimited (no clock at all).
    #[must_use]
    pub fn unlimited(mut self) -> Self {
        self.clock = None;
        self.days = None;
        self
    }

    /// Sets how the challenger plays.
    #[must_use]
    pub fn opponent(mut self, opponent: Opponent) -> Self {
        self.opponent = opponent;
        self
    }
}

/// The state of a challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChallengeState {
    /// Waiting for an answer.
    Pending,
    /// Accepted; the game has the same id.
    Accepted {
        /// The game's id.
        game_id: String,
    },
    /// Declined, with lila's lower-case `declineReasonKey` (`generic`, `toofast`, `nobot`, …).
    Declined {
        /// The reason key.
        reason: String,
    },
    /// Canceled by the challenger.
    Canceled,
    /// Never created: the server refused it with this HTTP status (the daily bot-game limit).
    Refused {
        /// The status answered.
        status: u16,
    },
    /// PyChess: never offered to the bot, whose capability header does not list the variant.
    NotOffered,
}

/// How a user answers the challenges the bot sends them.
#[derive(Debug, Clone)]
pub enum ChallengeAnswer {
    /// Accepts (after [`FakeConfig::challenge_answer_delay`]) and plays like this.
    Accept(Opponent),
    /// Declines with this reason key (`generic`, `later`, `tooFast`, …).
    Decline(String),
    /// The bot has reached lila's 100 bot games a day: creating the challenge gets a 429 with
    /// lila's `bot.vsBot.day` JSON body.
    DailyLimit,
    /// Never answers.
    Ignore,
}

/// A challenge the bot created.
#[derive(Debug, Clone)]
pub struct OutgoingChallenge {
    /// Challenge id (the game id if accepted).
    pub id: String,
    /// The challenged user, as given in the URL.
    pub dest: String,
    /// The form or JSON fields as sent (`rated`, `clock.limit`, `clock.increment`, `days`,
    /// `variant`, `color`, …), decoded.
    pub fields: BTreeMap<String, String>,
    /// What became of it.
    pub state: ChallengeState,
}

impl OutgoingChallenge {
    /// A field by name.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields.get(name).map(String::as_str)
    }
}

/// A bot listed by `/api/bot/online`.
#[derive(Debug, Clone)]
pub struct OnlineBot {
    /// User name (the id is its lower case).
    pub username: String,
    /// Perfs as (key, rating, games): `("blitz", 1800, 500)`.
    pub perfs: Vec<(String, i64, i64)>,
}

impl OnlineBot {
    /// A bot with 1500 in bullet, blitz, rapid and classical (100 games each).
    pub fn new(username: &str) -> Self {
        let perfs = ["bullet", "blitz", "rapid", "classical"].iter().map(|p| (p.to_string(), 1500, 100)).collect();
        OnlineBot { username: username.into(), perfs }
    }

    /// Sets (or adds) one perf.
    #[must_use]
    pub fn perf(mut self, key: &str, rating: i64, games: i64) -> Self {
        self.perfs.retain(|(k, _, _)| k != key);
        self.perfs.push((key.into(), rating, games));
        self
    }
}

/// What a game looks like on the server.
#[derive(Debug, Clone)]
pub struct GameView {
    /// Game id.
    pub id: String,
    /// Variant key.
    pub variant: String,
    /// `startpos` or the starting FEN.
    pub initial_fen: String,
    /// The current position.
    pub fen: String,
    /// The bot's colour, `white` or `black`.
    pub bot_color: String,
    /// The opponent's user id.
    pub opponent: String,
    /// The moves in the server's own notation.
    pub moves: Vec<String>,
    /// Status name: `started`, `mate`, `resign`, `aborted`, `draw`, `stalemate`, `outoftime`,
    /// `timeout`, `variantEnd` (a Shatranj bare king), …
    pub status: String,
    /// The rules' verdict, when the game ended on the board (mate, stalemate, bare king, a draw
    /// by rule); `None` otherwise.
    pub outcome: Option<ferz_chess::Outcome>,
    /// `white` or `black`, when the game has a winner.
    pub winner: Option<String>,
    /// Bot moves sent with `offeringDraw=true`.
    pub bot_draw_offers: usize,
    /// Opponent draw offers the bot declined (`/draw/no`, or a move without `offeringDraw`).
    pub draw_offers_declined_by_bot: usize,
    /// Opponent takeback proposals the bot granted.
    pub takebacks_granted: usize,
    /// The bot's chat messages as (room, text).
    pub chat: Vec<(String, String)>,
    /// Every chat line of the game, the bot's and everyone else's, oldest first.
    pub chat_log: Vec<ChatEntry>,
    /// Illegal moves the bot sent (each answered 400).
    pub illegal_moves_from_bot: Vec<String>,
    /// White's remaining time in ms (2147483647 without a clock).
    pub wtime_ms: i64,
    /// Black's remaining time in ms.
    pub btime_ms: i64,
    /// How many times the game's stream was opened.
    pub game_stream_connections: usize,
    /// PyChess: requests for the stream answered 200 and then broken, as a second stream of
    /// the game is.
    pub duplicate_game_streams: usize,
    /// PyChess: requests for the game's stream after the game ended.
    pub streams_requested_after_end: usize,
    /// Whether the bot's stream of the game is open now (a stream the bot closed counts as
    /// open until the next keep-alive fails to reach it).
    pub game_stream_open: bool,
    /// Whether a draw offer of the opponent is pending.
    pub opponent_offers_draw: bool,
    /// Whether a draw offer of the bot is pending.
    pub bot_offers_draw: bool,
    /// Whether a takeback proposal of the opponent is pending.
    pub opponent_proposes_takeback: bool,
}

impl GameView {
    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.status != "started" && self.status != "created"
    }

    /// Whether the bot won.
    pub fn bot_won(&self) -> bool {
        self.winner.as_deref() == Some(self.bot_color.as_str())
    }

    /// How many plies were played.
    pub fn ply(&self) -> usize {
        self.moves.len()
    }
}

/// A line of a game's chat.
#[derive(Debug, Clone)]
pub struct ChatEntry {
    /// Who wrote it (the bot's id for its own lines).
    pub user: String,
    /// `player` or `spectator`.
    pub room: String,
    /// The text.
    pub text: String,
    /// When the server took it.
    pub at: Instant,
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path (as sent, percent-encoded).
    pub path: String,
    /// The raw query string.
    pub query: String,
    /// The body.
    pub body: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The status answered.
    pub status: u16,
    /// When the request arrived.
    pub at: Instant,
}

impl RecordedRequest {
    /// A header by lower-case name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// A query parameter, decoded.
    pub fn query_param(&self, name: &str) -> Option<String> {
        ferz_testserver::decode_pairs(&self.query).into_iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// The request as the server logged it, if it has been answered.
    fn answered(recorded: Recorded) -> Option<RecordedRequest> {
        let Recorded { request, status } = recorded;
        Some(RecordedRequest {
            method: request.method,
            path: request.path,
            query: request.query,
            body: request.body,
            headers: request.headers,
            status: status?,
            at: request.at,
        })
    }
}

/// What the server threads share.
pub(crate) struct Shared {
    pub(crate) state: Mutex<State>,
    /// Notified after every change of the state.
    pub(crate) changed: Condvar,
    pub(crate) shutdown: AtomicBool,
    pub(crate) config: FakeConfig,
    pub(crate) base_url: String,
    /// The online move sources' script ([`online`]), apart from the game state: their answers
    /// may be slow, and must not hold the games up.
    pub(crate) online: Mutex<online::OnlineScript>,
    /// The online tablebase's route (its own lock: slow answers are part of its script).
    pub(crate) tablebase: Mutex<tablebase::FakeTablebase>,
}

impl Shared {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking server thread must not hide the state from the test's dump.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn is_shutdown(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }
}

/// The running fake server. Dropping it stops every thread and closes every socket.
pub struct FakeLichess {
    shared: Arc<Shared>,
    /// Dropped after the simulation has stopped (see `Drop`): it closes the connections and
    /// joins their threads.
    server: Server,
    ticker: Option<JoinHandle<()>>,
}

impl FakeLichess {
    /// Starts a server on `127.0.0.1` on a free port.
    ///
    /// # Panics
    /// If no port can be bound or no thread spawned.
    pub fn start(config: FakeConfig) -> FakeLichess {
        let listener = Listener::bind().expect("bind 127.0.0.1:0");
        let base_url = listener.url();
        let shared = Arc::new(Shared {
            state: Mutex::new(State::new(&config)),
            changed: Condvar::new(),
            shutdown: AtomicBool::new(false),
            config,
            base_url,
            online: Mutex::default(),
            tablebase: Mutex::default(),
        });
        let server = {
            let shared = Arc::clone(&shared);
            listener
                .serve("fake-lichess", move |request, exchange| stream::answer(&shared, request, exchange))
                .expect("spawn the accept thread")
        };
        let ticker = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("fake-lichess-ticker".into())
                .spawn(move || stream::ticker(&shared))
                .expect("spawn ticker thread")
        };
        FakeLichess { shared, server, ticker: Some(ticker) }
    }

    /// The base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.shared.base_url.clone()
    }

    /// The configuration the server runs with.
    pub fn config(&self) -> &FakeConfig {
        &self.shared.config
    }

    fn with_state<T>(&self, f: impl FnOnce(&mut State, &Shared) -> T) -> T {
        let mut st = self.shared.lock();
        st.tick(Instant::now(), &self.shared);
        let out = f(&mut st, &self.shared);
        drop(st);
        self.shared.changed.notify_all();
        out
    }

    /// Someone challenges the bot: a `challenge` event goes to the open event stream (and is
    /// replayed on every new event-stream connection while pending). Returns the challenge id.
    ///
    /// # Panics
    /// If `spec.initial_fen` is not a valid position.
    pub fn send_challenge(&self, spec: ChallengeSpec) -> String {
        self.with_state(|st, shared| st.incoming_challenge(spec, shared))
    }

    /// The challenger cancels: `challengeCanceled` on the event stream.
    pub fn cancel_challenge(&self, id: &str) {
        self.with_state(|st, shared| st.cancel_incoming(id, shared));
    }

    /// The state of a challenge (incoming or outgoing).
    ///
    /// # Panics
    /// If there is no such challenge.
    pub fn challenge_state(&self, id: &str) -> ChallengeState {
        self.with_state(|st, _| st.challenge_state(id)).unwrap_or_else(|| panic!("no challenge {id}"))
    }

    /// Starts a game at once (as if a challenge had been accepted elsewhere): `gameStart` on
    /// the event stream. Returns the game id.
    ///
    /// # Panics
    /// If `spec.initial_fen` is not a valid position.
    pub fn start_game(&self, spec: ChallengeSpec) -> String {
        self.with_state(|st, shared| st.start_game_directly(spec, shared))
    }

    /// `user` writes `text` in the `room` (`player` or `spectator`) of game `id`: the line
    /// goes to the game's chat log and, while the bot's game stream is open, onto it as the
    /// `chatLine` lila sends (players' lines and, for bots, spectators' too).
    ///
    /// # Panics
    /// If there is no such game.
    pub fn say(&self, id: &str, user: &str, room: &str, text: &str) {
        self.with_state(|st, _| {
            let g = st.games.iter_mut().find(|g| g.id == id).unwrap_or_else(|| panic!("no game {id}"));
            g.chat_log.push(ChatEntry { user: user.into(), room: room.into(), text: text.into(), at: Instant::now() });
            let line = serde_json::json!({ "type": "chatLine", "room": room, "username": user, "text": text });
            g.push_line(line.to_string(), None);
        });
    }

    /// A game by id.
    pub fn game(&self, id: &str) -> Option<GameView> {
        self.with_state(|st, shared| st.game_view(id, shared))
    }

    /// Every game, oldest first.
    pub fn games(&self) -> Vec<GameView> {
        self.with_state(|st, shared| st.game_views(shared))
    }

    /// Polls `cond` every 20 ms until it holds.
    ///
    /// # Panics
    /// After `timeout`, with `what` and a dump of the server state (games, challenges, the last
    /// 30 requests).
    pub fn wait_until(&self, timeout: Duration, what: &str, cond: impl Fn(&FakeLichess) -> bool) {
        let deadline = Instant::now() + timeout;
        loop {
            if cond(self) {
                return;
            }
            if Instant::now() >= deadline {
                panic!("timed out after {timeout:?} waiting for: {what}\n{}", self.dump());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A readable dump of the server state: games, challenges, the last 30 requests.
    pub fn dump(&self) -> String {
        let requests = self.requests();
        self.with_state(|st, shared| st.dump(shared, &requests))
    }

    /// Every answered request so far, in the order they arrived.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.server.recorded().into_iter().filter_map(RecordedRequest::answered).collect()
    }

    /// Injects a fault.
    pub fn inject(&self, fault: Fault) {
        self.with_state(|st, shared| st.inject(fault, shared));
    }

    /// Lets the held opponent of game `id` ([`Opponent::held`]) make `moves` more moves.
    ///
    /// # Panics
    /// If there is no such game.
    pub fn release_moves(&self, id: &str, moves: usize) {
        self.with_state(|st, _| {
            let g = st.games.iter_mut().find(|g| g.id == id).unwrap_or_else(|| panic!("no game {id}"));
            g.opp.released += moves;
        });
    }

    /// Sets what `/api/bot/online` lists.
    pub fn set_online_bots(&self, bots: Vec<OnlineBot>) {
        self.with_state(|st, _| st.online_bots = bots);
    }

    /// Changes the bot's rating in every perf, as games would: `/api/account` reports it from now.
    pub fn set_bot_rating(&self, rating: i64) {
        self.with_state(|st, _| st.bot_rating = rating);
    }

    /// Serves `text` at `GET /files/{name}` (no token needed), as a web server would serve an
    /// online block list; returns its address.
    pub fn set_text_file(&self, name: &str, text: &str) -> String {
        self.with_state(|st, _| st.text_files.insert(name.to_owned(), text.to_owned()));
        format!("{}/files/{name}", self.url())
    }

    /// How many times `GET /api/account` was answered.
    pub fn account_reads(&self) -> usize {
        self.requests().iter().filter(|r| r.method == "GET" && r.path == "/api/account").count()
    }

    /// How many requests a [`Fault::Delay`] has held so far (counted as they arrive).
    pub fn delayed_requests(&self) -> usize {
        self.with_state(|st, _| st.http.delayed())
    }

    /// Sets how `user` answers the bot's challenges (default: [`ChallengeAnswer::Ignore`]).
    pub fn set_challenge_answer(&self, user: &str, answer: ChallengeAnswer) {
        self.with_state(|st, _| st.answers.insert(user.to_lowercase(), answer));
    }

    /// The challenges the bot created, oldest first.
    pub fn outgoing_challenges(&self) -> Vec<OutgoingChallenge> {
        self.with_state(|st, _| st.outgoing_views())
    }

    /// How many times `/api/stream/event` was opened.
    pub fn event_stream_connections(&self) -> usize {
        self.shared.lock().event_stream_connections
    }

    /// Whether an event stream is connected now.
    pub fn event_stream_open(&self) -> bool {
        self.shared.lock().event_slot.is_some()
    }

    /// Whether the account is a bot account now.
    pub fn bot_is_bot(&self) -> bool {
        self.shared.lock().bot_is_bot
    }

    /// PyChess: the variants each accepted event-stream connection announced in
    /// `X-PyChess-Bot-Capabilities`, after PyChess's mapping (`standard` → `chess`, unknown
    /// names dropped), oldest first.
    pub fn advertised_variants(&self) -> Vec<Vec<String>> {
        self.shared.lock().advertised.clone()
    }

    /// PyChess: the requests to endpoints PyChess does not have (draw, takeback, claims, …),
    /// answered 404, as `METHOD /path`.
    pub fn missing_endpoint_calls(&self) -> Vec<String> {
        self.shared.lock().missing_calls.clone()
    }

    /// The online tablebase's address on this server, for `[tablebase] online_url`.
    pub fn tablebase_url(&self) -> String {
        format!("{}/tablebase", self.shared.base_url)
    }

    /// Scripts the online tablebase's answer for the position of `fen` (its board and side
    /// to move; the move counters may differ).
    pub fn script_tablebase(&self, fen: &str, reply: TablebaseReply) {
        self.shared.tablebase.lock().unwrap_or_else(std::sync::PoisonError::into_inner).script(fen, reply);
    }

    /// Sets the online tablebase's answer for every unscripted position (default: 404).
    pub fn set_tablebase_default(&self, reply: TablebaseReply) {
        self.shared.tablebase.lock().unwrap_or_else(std::sync::PoisonError::into_inner).set_default(reply);
    }

    /// The `fen` of every online tablebase lookup so far, oldest first.
    pub fn tablebase_lookups(&self) -> Vec<String> {
        self.shared.tablebase.lock().unwrap_or_else(std::sync::PoisonError::into_inner).lookups.clone()
    }

    /// Per bot move: the time from the moment the server finished writing the game-stream line
    /// that put the bot on move to the moment the move request arrived.
    pub fn move_latencies(&self) -> Vec<Duration> {
        self.shared.lock().latencies.clone()
    }
}

impl Drop for FakeLichess {
    fn drop(&mut self) {
        // Streams and the ticker end on the simulation's signal; the server, dropped after
        // this, then closes the connections and joins their threads.
        {
            // Under the lock: a writer between its check and its wait cannot miss the wake-up.
            let _state = self.shared.lock();
            self.shared.shutdown.store(true, Ordering::SeqCst);
        }
        self.shared.changed.notify_all();
        if let Some(ticker) = self.ticker.take() {
            let _ = ticker.join();
        }
    }
}
