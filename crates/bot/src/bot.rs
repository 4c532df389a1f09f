//! The event loop: start-up checks, the event stream, challenges, game tasks, the
//! correspondence check-in, matchmaking and the graceful stop.
//!
//! Real-time games hold the `[challenge] concurrency` slots; correspondence and unlimited games
//! are counted apart (`[correspondence] max_games`). At start-up and every
//! `[correspondence] checkin_period_s` the loop lists the account's ongoing games
//! (`/api/account/playing`) and opens those that have no task and need one ([`crate::resume`]):
//! that is how the bot resumes its games after a restart, returns to a correspondence game
//! whose task set it aside while the opponent was thinking, and opens again a game whose task
//! gave up on it for a reason that may pass (a stream that kept failing, a task that failed).
//! A game that ended is remembered and never reopened, and a game with a running task is never
//! opened twice. Correspondence searches take turns ([`crate::game::seats`]): the bot asks for
//! their thinking seats as it opens the games, least time left first.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ferz_lichess::models::{Compat, GameEventInfo, TimeControl, User};
use ferz_lichess::{
    Backoff, Challenge, Client, ClientConfig, DeclineReason, Endpoint, Event, Platform, RetryPolicy, StreamItem, Token,
};
use futures_util::StreamExt;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::block_list::OnlineBlockList;
use crate::book::{Books, BooksError};
use crate::challenge::{Load, RecentBotGames, Verdict, check_bot_compat, judge, perf_of};
use crate::chat::{QueuePublisher, QueueView};
use crate::config::BotConfig;
use crate::game::seats::ThinkingSeats;
use crate::game::{GameContext, GameSummary, play};
use crate::matchmaking::{Dice, Matchmaker, limit_wait};
use crate::ratings::Ratings;
use crate::refresh::{Kind, Refreshed, Refreshes};
use crate::resume::Urgency;

/// Why the bot cannot run.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// A setting is unusable.
    #[error("invalid setting {0}")]
    Config(#[from] crate::config::InvalidSetting),
    /// An opening book cannot be used.
    #[error(transparent)]
    Book(#[from] BooksError),
    /// A tablebase cannot be used.
    #[error(transparent)]
    Tablebase(#[from] crate::tablebase::TablebaseError),
    /// The token is missing, invalid or lacks `bot:play`.
    #[error("{0}")]
    Token(String),
    /// An external engine the settings choose cannot play.
    #[error("engine setting {0}")]
    Engine(crate::player::EngineCheckError),
    /// The account is not a bot account.
    #[error(
        "the account {0} is not a BOT account. Run `ferz bot upgrade` to turn it into one (irreversible, and only possible for an account that never played a game)"
    )]
    NotBot(String),
    /// The server refused something the bot cannot do without.
    #[error("{context}: {source}")]
    Api {
        /// What the bot was doing.
        context: &'static str,
        /// The error.
        source: ferz_lichess::Error,
    },
}

/// Where Lichess's token page is, for error messages.
const TOKEN_URL: &str = "https://lichess.org/account/oauth/token/create?scopes[]=bot:play&description=ferz";

/// Where to create a token on `platform`: Lichess's OAuth page, or PyChess's BOT account page
/// (`/account/bot` on the configured server), where BOT tokens are issued.
fn token_url(config: &BotConfig, platform: Platform) -> String {
    match platform {
        Platform::Lichess => TOKEN_URL.to_owned(),
        Platform::PyChess => format!("{}/account/bot", config.lichess.url.trim_end_matches('/')),
    }
}

/// The client settings for the bot's configuration and token.
#[must_use]
pub(crate) fn client_config(config: &BotConfig, token: Token, platform: Platform) -> ClientConfig {
    let mut client = ClientConfig::new(config.lichess.url.trim_end_matches('/'), token);
    client.platform = platform;
    client.idle_timeout = Duration::from_secs(config.lichess.stream_idle_s);
    client.request_timeout = Duration::from_secs(config.lichess.request_timeout_s);
    // PyChess offers the bot only what it announces: exactly what the policy accepts there.
    client.pychess_variants = config.challenge.pychess_capabilities();
    client
}

/// Checks the token and the account and returns a client that names the account in its
/// `User-Agent`, with the account.
///
/// # Errors
/// A clear message when the token is missing, invalid or lacks `bot:play`, or (with
/// `require_bot`) when the account is not a BOT account.
pub(crate) async fn connect(config: &BotConfig, token: Token, require_bot: bool) -> Result<(Client, User), BotError> {
    config.validate()?;
    let platform = config.lichess.platform;
    let token_page = token_url(config, platform);
    if token.is_empty() {
        return Err(BotError::Token(format!(
            "no token: set LICHESS_BOT_TOKEN to a token with the bot:play scope (create one at {token_page})"
        )));
    }
    let client = Client::new(client_config(config, token, platform))
        .map_err(|source| BotError::Api { context: "setting up the client", source })?;
    let info = client.test_token().await.map_err(|source| BotError::Api { context: "testing the token", source })?;
    let Some(info) = info else {
        return Err(BotError::Token(format!(
            "the token in LICHESS_BOT_TOKEN is not valid (revoked or expired); create one at {token_page}"
        )));
    };
    if !info.has_scope("bot:play") {
        return Err(BotError::Token(format!(
            "the token lacks the bot:play scope (it has: {}); create one at {token_page}",
            if info.scopes.is_empty() { "none" } else { &info.scopes }
        )));
    }
    let account = client.account().await.map_err(|source| BotError::Api { context: "reading the account", source })?;
    if require_bot && !account.is_bot() {
        return Err(BotError::NotBot(account.username));
    }
    let client = client
        .with_username(&account.username)
        .map_err(|source| BotError::Api { context: "naming the client", source })?;
    Ok((client, account))
}

/// Turns the token's account into a BOT account (irreversible). `Ok(false)` when it already is one.
///
/// # Errors
/// Token problems, or the server's refusal (an account that played games cannot be upgraded).
pub async fn upgrade(config: &BotConfig, token: Token) -> Result<(String, bool), BotError> {
    let (client, account) = connect(config, token, false).await?;
    if account.is_bot() {
        return Ok((account.username, false));
    }
    client.upgrade_to_bot().await.map_err(|source| BotError::Api { context: "upgrading the account", source })?;
    Ok((account.username, true))
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunSummary {
    /// Every game played to its end (or given up for good), in the order they ended; a game
    /// whose task gave up for a reason that may pass is not one of them: it goes on.
    pub games: Vec<GameSummary>,
}

/// Runs the bot until `signals` counts one stop request (then no new games; returns when the
/// running ones are over) or two (returns at once).
///
/// # Errors
/// Start-up failures (token, account, settings) and an event stream the server refuses for
/// good (the token was revoked).
pub async fn run(config: BotConfig, token: Token, signals: watch::Receiver<u32>) -> Result<RunSummary, BotError> {
    let books = Books::open(&config.book)?;
    let tablebases = crate::tablebase::Tablebases::open(&config.tablebase)?;
    let (client, account) = connect(&config, token, true).await?;
    let books = books.with_online(crate::online::Online::new(&config.online, &client));
    let platform = client.platform();
    tracing::info!(account = %account.username, url = %config.lichess.url, platform = %platform, "connected");
    let mut config = config;
    // From here on `[challenge]` is the policy of this platform, its table applied.
    config.challenge = config.challenge.for_platform(platform);
    let variants: Vec<&str> = config.challenge.variants.iter().map(|v| v.key()).collect();
    let speeds: Vec<&str> = config.challenge.speeds.iter().map(|s| s.as_str()).collect();
    tracing::info!(variants = ?variants, speeds = ?speeds, "challenge policy");
    let mut engine_variants = variants.clone();
    engine_variants.extend(config.matchmaking.variants.iter().filter(|_| config.matchmaking.enabled).map(|v| v.key()));
    for engine in
        crate::player::check_engines(&config.engine, &tablebases, &engine_variants).await.map_err(BotError::Engine)?
    {
        tracing::info!(engine = %engine, "external engine checked");
    }
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    if let Some(warning) = crate::player::ponder_warning(&config.engine, config.challenge.concurrency, cores) {
        tracing::warn!("{warning}");
    }
    if !platform.supports(Endpoint::CreateChallenge) && config.matchmaking.enabled {
        tracing::warn!(
            "matchmaking is not available on PyChess (BOT accounts cannot create challenges there); it stays off: players challenge the bot from the PyChess lobby"
        );
        config.matchmaking.enabled = false;
    }
    let matchmaker = Matchmaker::new(config.matchmaking.clone(), &account.id);
    let mut block_list = OnlineBlockList::new(&config.challenge.online_block_list);
    block_list.refresh(&client).await;
    let (exit_tx, exit_rx) = watch::channel(false);
    let (chat, queue) = crate::chat::hub();
    let (stopping_tx, stopping_rx) = watch::channel(false);
    let seats = ThinkingSeats::new(config.correspondence.max_thinking);
    let ctx = Arc::new(GameContext {
        client,
        config: Arc::new(config),
        me: account.id.to_lowercase(),
        my_name: account.username.clone(),
        books,
        tablebases,
        exit_now: exit_rx,
        chat,
        stopping: stopping_rx,
        seats,
    });
    let mut dispatcher = Dispatcher {
        ctx,
        games: HashMap::new(),
        tasks: JoinSet::new(),
        task_games: HashMap::new(),
        list_full_logged: false,
        accepted: HashMap::new(),
        set_aside: HashMap::new(),
        next_checkin: Instant::now(),
        stopping_tx,
        waiting: VecDeque::new(),
        finished: VecDeque::new(),
        matchmaker,
        stopping: false,
        idle_since: Instant::now(),
        accept_hold_until: None,
        summary: RunSummary::default(),
        queue,
        ratings: Ratings::of(&account),
        ratings_read: Instant::now(),
        block_list,
        block_list_read: Instant::now(),
        refreshes: Refreshes::default(),
        recent_bots: RecentBotGames::default(),
    };
    dispatcher.run(signals, exit_tx).await?;
    Ok(dispatcher.summary)
}

/// How long an accepted challenge may wait for its `gameStart` before its slot is freed.
const ACCEPT_GRACE: Duration = Duration::from_secs(20);
/// Finished game ids remembered to ignore replays.
const FINISHED_MEMORY: usize = 256;
/// The most ongoing games `/api/account/playing` lists (its `nb` goes up to 50); it lists the
/// most urgent first.
const PLAYING_LIMIT: u32 = 50;

/// Who a game is against and whether it is correspondence (outside the real-time slots).
#[derive(Clone, Debug)]
struct Seat {
    /// The opponent's id.
    opponent: String,
    /// A correspondence or unlimited game.
    correspondence: bool,
    /// The event stream announced the game's end (`gameFinish`) while its task still winds up
    /// (the PGN, the engine's quit): the seat no longer counts, so that a rematch the server
    /// sends right after the end is judged on the games that are really going on.
    over: bool,
}

struct Dispatcher {
    ctx: Arc<GameContext>,
    /// Running game tasks: id → seat.
    games: HashMap<String, Seat>,
    tasks: JoinSet<GameSummary>,
    /// Which game each task plays, to know the game of a task that failed.
    task_games: HashMap<tokio::task::Id, String>,
    /// The check-in's list came back full once (logged once a run).
    list_full_logged: bool,
    /// Challenges accepted whose game has not started yet: id → (when, seat).
    accepted: HashMap<String, (Instant, Seat)>,
    /// Correspondence games going on without a task: set aside while the opponent thinks, or
    /// given up by their task for a reason that may pass; id → opponent. The check-in opens
    /// them on our turn.
    set_aside: HashMap<String, String>,
    /// When to list the account's games next.
    next_checkin: Instant,
    /// Tells game tasks that the bot takes no new games (correspondence games are set aside).
    stopping_tx: watch::Sender<bool>,
    /// Challenges waiting for a free slot.
    waiting: VecDeque<Challenge>,
    finished: VecDeque<String>,
    matchmaker: Matchmaker,
    stopping: bool,
    idle_since: Instant,
    accept_hold_until: Option<Instant>,
    summary: RunSummary,
    /// What `!queue` shows game tasks: the games and the challenges waiting.
    queue: QueuePublisher,
    /// Our ratings, read again every `rating_refresh_s`.
    ratings: Ratings,
    ratings_read: Instant,
    /// `[challenge] online_block_list`, read again every `online_block_list_refresh_s`.
    block_list: OnlineBlockList,
    block_list_read: Instant,
    /// The rating and block-list reads out, beside the loop.
    refreshes: Refreshes,
    /// Games against bots we accepted or started, for `recent_bot_limit`.
    recent_bots: RecentBotGames,
}

impl Dispatcher {
    /// The seats of games going on (not those announced over) and of accepted challenges.
    fn live_seats(&self) -> impl Iterator<Item = &Seat> {
        self.games.values().chain(self.accepted.values().map(|(_, s)| s)).filter(|s| !s.over)
    }

    /// Real-time slots in use: running games and accepted challenges.
    fn busy(&self) -> usize {
        self.live_seats().filter(|s| !s.correspondence).count()
    }

    /// Correspondence games: running, set aside, and accepted.
    fn correspondence_games(&self) -> usize {
        self.live_seats().filter(|s| s.correspondence).count() + self.set_aside.len()
    }

    /// Every game of the account this run knows of, for `!queue`.
    fn playing(&self) -> usize {
        self.live_seats().count() + self.set_aside.len()
    }

    /// The slots taken: games, accepted challenges, and our matchmaking challenge while it is
    /// out (its game needs a slot too).
    fn slots_taken(&self) -> usize {
        self.busy() + usize::from(self.matchmaker.pending.is_some())
    }

    fn recent_bot_window(&self) -> Duration {
        Duration::from_secs(self.ctx.config.challenge.recent_bot_window_s)
    }

    async fn run(&mut self, mut signals: watch::Receiver<u32>, exit_now: watch::Sender<bool>) -> Result<(), BotError> {
        let client = self.ctx.client.clone();
        let mut backoff = Backoff::new(RetryPolicy::default());
        let mut events: Option<ferz_lichess::EventStream> = None;
        let mut tick = tokio::time::interval(Duration::from_millis(500));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // Resume the account's games before new challenges arrive: real-time games first.
        self.check_in().await;
        loop {
            if self.stopping && self.games.is_empty() && self.accepted.is_empty() {
                tracing::info!("all games finished; stopping");
                return Ok(());
            }
            if events.is_none() && !self.stopping {
                match client.stream_events().await {
                    Ok(stream) => {
                        tracing::info!("event stream open");
                        events = Some(stream);
                    }
                    Err(e) if e.is_final() && e.retry_after().is_none() => {
                        return Err(BotError::Api { context: "opening the event stream", source: e });
                    }
                    Err(e) => {
                        let wait = e.retry_after().unwrap_or_else(|| backoff.next_delay());
                        tracing::warn!(error = %e, wait_ms = wait.as_millis() as u64, "event stream failed; retrying");
                        tokio::select! {
                            () = tokio::time::sleep(wait) => {}
                            changed = signals.changed() => if changed.is_ok() && self.on_signal(*signals.borrow(), &exit_now).await { return Ok(()); },
                        }
                        continue;
                    }
                }
            }
            let has_events = events.is_some();
            // Biased, in this order: a stop request first, then the game tasks that ended, so
            // that an event (a rematch challenge) is judged after the games that are over have
            // given their seats back; the event stream last (the others are ready only now and
            // then, so they cannot starve it).
            tokio::select! {
                biased;
                changed = signals.changed() => {
                    if changed.is_err() || self.on_signal(*signals.borrow(), &exit_now).await {
                        return Ok(());
                    }
                    if self.stopping {
                        events = None; // no new challenges; game tasks have their own streams
                    }
                }
                Some(joined) = self.tasks.join_next_with_id(), if !self.tasks.is_empty() => {
                    match joined {
                        Ok((task, summary)) => {
                            self.task_games.remove(&task);
                            self.on_game_done(summary).await;
                        }
                        Err(e) => self.on_task_failed(&e).await,
                    }
                }
                Some(refreshed) = self.refreshes.next(), if !self.refreshes.is_empty() => self.on_refreshed(refreshed),
                _ = tick.tick() => self.on_tick().await,
                item = async { events.as_mut().expect("guarded").next().await }, if has_events => match item {
                    Some(Ok(StreamItem::Message(event))) => {
                        backoff.reset();
                        self.on_event(event).await;
                    }
                    Some(Ok(StreamItem::KeepAlive)) => {}
                    Some(Err(e)) if !e.ends_stream() => tracing::warn!(error = %e, "skipping a bad line of the event stream"),
                    Some(Err(e)) => {
                        tracing::warn!(error = %e, "event stream broke; reconnecting");
                        events = None;
                        tokio::time::sleep(backoff.next_delay()).await;
                    }
                    None => {
                        tracing::info!("event stream closed by the server; reconnecting");
                        events = None;
                        tokio::time::sleep(backoff.next_delay()).await;
                    }
                },
            }
            self.queue.publish(QueueView::of(self.playing(), &self.waiting));
        }
    }

    /// Handles the n-th stop request; `true` when the loop must end now.
    async fn on_signal(&mut self, count: u32, exit_now: &watch::Sender<bool>) -> bool {
        if count >= 2 {
            tracing::warn!(games = self.games.len(), "second stop request: exiting now");
            let _ = exit_now.send(true);
            // Game tasks see the flag, stop their searches and write what they have.
            let deadline = tokio::time::sleep(Duration::from_secs(3));
            tokio::pin!(deadline);
            loop {
                tokio::select! {
                    joined = self.tasks.join_next() => match joined {
                        Some(Ok(summary)) if !summary.set_aside => self.summary.games.push(summary),
                        Some(Ok(_)) => {}
                        Some(Err(_)) => {}
                        None => break,
                    },
                    () = &mut deadline => break,
                }
            }
            return true;
        }
        if count == 1 && !self.stopping {
            self.stopping = true;
            let _ = self.stopping_tx.send(true);
            tracing::info!(
                games = self.games.len(),
                "stop requested: no new games; finishing the running ones (stop again to exit now)"
            );
            for challenge in std::mem::take(&mut self.waiting) {
                self.decline(&challenge.id, DeclineReason::Later).await;
            }
            if let Some(pending) = self.matchmaker.stop() {
                let _ = self.ctx.client.cancel_challenge(&pending.id).await;
            }
        }
        false
    }

    async fn on_event(&mut self, event: Event) {
        match event {
            Event::GameStart(info) => {
                let id = info.id().to_owned();
                if id.is_empty() || self.games.contains_key(&id) || self.finished.contains(&id) {
                    tracing::debug!(game = %id, "gameStart for a game we know; ignored");
                    return;
                }
                if self.set_aside.contains_key(&id) && info.is_my_turn == Some(false) {
                    // Replayed on a reconnect: the check-in opens it on our turn.
                    tracing::debug!(game = %id, "gameStart for a correspondence game set aside; ignored");
                    return;
                }
                if self.matchmaker.pending.as_ref().is_some_and(|p| p.id == id) {
                    // Our matchmaking challenge was accepted: a game against a bot.
                    self.recent_bots.record(Instant::now(), self.recent_bot_window());
                }
                self.matchmaker.started(&id);
                self.start_game(info, "game started");
            }
            Event::GameFinish(info) => {
                tracing::debug!(game = %info.id(), "gameFinish");
                if let Some(seat) = self.games.get_mut(info.id()) {
                    seat.over = true;
                    self.seat_freed().await;
                }
            }
            Event::Challenge { challenge, compat } => self.on_challenge(challenge, compat).await,
            Event::ChallengeCanceled(challenge) => {
                self.waiting.retain(|c| c.id != challenge.id);
                tracing::info!(challenge = %challenge.id, "challenge cancelled by the challenger");
            }
            Event::ChallengeDeclined(challenge) => {
                tracing::info!(challenge = %challenge.id, reason = ?challenge.decline_reason_key, "our challenge was declined");
                self.matchmaker.declined(&challenge.id, Instant::now());
            }
            Event::Unknown { kind, .. } => tracing::debug!(kind, "ignoring an unknown event"),
        }
    }

    /// Starts the task of game `info` (from `gameStart` or the check-in); `what` is logged.
    fn start_game(&mut self, info: GameEventInfo, what: &str) {
        let id = info.id().to_owned();
        let accepted = self.accepted.remove(&id).map(|(_, seat)| seat);
        let opponent = info
            .opponent
            .as_ref()
            .map(|o| o.id.clone().unwrap_or_else(|| o.username.to_lowercase()))
            .or_else(|| accepted.as_ref().map(|s| s.opponent.clone()))
            .unwrap_or_default();
        let correspondence = crate::resume::is_correspondence(&info) || accepted.is_some_and(|s| s.correspondence);
        let reopened = self.set_aside.remove(&id).is_some();
        tracing::info!(game = %id, opponent = %opponent, correspondence, reopened, "{what}");
        // Asked for here, in the order the games are opened, not when each stream answers.
        let seat = (correspondence && info.is_my_turn == Some(true))
            .then(|| self.ctx.seats.ask(&id, Urgency::of(info.seconds_left)));
        self.games.insert(id.clone(), Seat { opponent, correspondence, over: false });
        let ctx = Arc::clone(&self.ctx);
        let task = self.tasks.spawn(play(ctx, id.clone(), info, reopened, seat));
        self.task_games.insert(task.id(), id);
    }

    /// Lists the account's ongoing games and opens those that need a task: at start-up every
    /// game not running (real-time first), later the correspondence games where it is our
    /// turn (and any real-time game whose `gameStart` was missed). A failed or malformed answer
    /// is logged and changes nothing: the next check-in tries again.
    async fn check_in(&mut self) {
        let config = &self.ctx.config.correspondence;
        self.next_checkin = Instant::now() + config.checkin_period();
        let playing = match self.ctx.client.playing(PLAYING_LIMIT).await {
            Ok(playing) => playing,
            Err(e) => {
                tracing::warn!(error = %e, retry_in_s = config.checkin_period_s, "cannot read the account's ongoing games (/api/account/playing); trying again at the next check-in");
                return;
            }
        };
        let plan = crate::resume::plan(&playing.now_playing, |id| {
            self.games.contains_key(id) || self.finished.iter().any(|f| f == id)
        });
        tracing::debug!(
            listed = playing.now_playing.len(),
            open = plan.open.len(),
            set_aside = plan.set_aside.len(),
            "check-in"
        );
        let full = playing.now_playing.len() >= PLAYING_LIMIT as usize;
        if full && !self.list_full_logged {
            self.list_full_logged = true;
            tracing::warn!(
                listed = PLAYING_LIMIT,
                "the account plays {PLAYING_LIMIT} games or more and Lichess lists only the {PLAYING_LIMIT} most urgent: the others are opened once they are among them"
            );
        }
        // The server's list is the truth: a game that ended while set aside drops out.
        let mut set_aside = HashMap::new();
        for &i in &plan.set_aside {
            let game = &playing.now_playing[i];
            let opponent = game.opponent.as_ref().map(|o| o.id.clone().unwrap_or_else(|| o.username.to_lowercase()));
            set_aside.insert(game.id().to_owned(), opponent.unwrap_or_default());
        }
        for &i in &plan.open {
            let id = playing.now_playing[i].id();
            if let Some(opponent) = self.set_aside.remove(id) {
                // Kept for `start_game`, which takes it out and so knows it reopens the game.
                set_aside.insert(id.to_owned(), opponent);
            }
        }
        if full {
            // A game beyond a full list may go on: it stays set aside (and counted).
            let listed: HashSet<&str> = playing.now_playing.iter().map(GameEventInfo::id).collect();
            set_aside.extend(self.set_aside.drain().filter(|(id, _)| !listed.contains(id.as_str())));
        }
        // Games that ended while set aside: what the books kept for them goes.
        for id in self.set_aside.keys().filter(|id| !set_aside.contains_key(*id)) {
            self.ctx.books.game_over(id);
        }
        self.set_aside = set_aside;
        for i in plan.open {
            self.start_game(playing.now_playing[i].clone(), "resuming the game");
        }
    }

    fn load_for(&self, challenge: &Challenge, correspondence: bool) -> Load<'_> {
        let challenger = challenge.challenger.user_id();
        Load {
            // Correspondence games have their own cap, checked apart from the real-time slots.
            games: if correspondence { 0 } else { self.slots_taken() },
            waiting: if correspondence { 0 } else { self.waiting.len() },
            games_with_challenger: self
                .live_seats()
                .map(|s| &s.opponent)
                .chain(self.set_aside.values())
                .filter(|o| o.eq_ignore_ascii_case(&challenger))
                .count(),
            stopping: self.stopping,
            recent_bot_games: self.recent_bots.count(Instant::now(), self.recent_bot_window()),
            my_rating: self.ratings.get(&perf_of(challenge)),
            blocked: self.block_list.names(),
        }
    }

    async fn on_challenge(&mut self, challenge: Challenge, compat: Option<Compat>) {
        let challenger = challenge.challenger.user_id();
        if challenger.eq_ignore_ascii_case(&self.ctx.me) {
            return; // our own (matchmaking) challenge, echoed
        }
        if let Some(dest) = &challenge.dest_user
            && !dest.user_id().eq_ignore_ascii_case(&self.ctx.me)
        {
            return;
        }
        let id = challenge.id.clone();
        if self.accepted.contains_key(&id) || self.games.contains_key(&id) || self.waiting.iter().any(|c| c.id == id) {
            return; // replayed after a reconnect
        }
        let correspondence = is_correspondence_challenge(&challenge);
        let verdict = match check_bot_compat(&challenge, compat.as_ref())
            .map(|()| judge(&challenge, &self.ctx.config.challenge, self.load_for(&challenge, correspondence)))
            .unwrap_or_else(Verdict::Decline)
        {
            Verdict::Accept
                if correspondence && self.correspondence_games() >= self.ctx.config.correspondence.max_games =>
            {
                Verdict::Decline(DeclineReason::Later)
            }
            verdict => verdict,
        };
        tracing::info!(challenge = %id, from = %challenge.challenger.name, variant = %challenge.variant.key_or_name(), rated = challenge.rated, verdict = ?verdict, "challenge");
        match verdict {
            Verdict::Accept => self.accept(challenge).await,
            Verdict::Wait => self.waiting.push_back(challenge),
            Verdict::Decline(reason) => self.decline(&id, reason).await,
        }
    }

    async fn accept(&mut self, challenge: Challenge) {
        let id = challenge.id.clone();
        match self.ctx.client.accept_challenge(&id, None).await {
            Ok(()) => {
                if challenge.challenger.is_bot() {
                    // Its game starts at once; counted now for `recent_bot_limit`.
                    self.recent_bots.record(Instant::now(), self.recent_bot_window());
                }
                let seat = Seat {
                    opponent: challenge.challenger.user_id(),
                    correspondence: is_correspondence_challenge(&challenge),
                    over: false,
                };
                self.accepted.insert(id, (Instant::now(), seat));
            }
            Err(e) if e.retry_after().is_some() => {
                // Held by a 429: keep it first in line and try when the hold ends.
                tracing::warn!(challenge = %id, error = %e, "accept rate-limited; will retry");
                self.accept_hold_until = Some(Instant::now() + e.retry_after().unwrap_or_default());
                self.waiting.push_front(challenge);
            }
            Err(e) => tracing::warn!(challenge = %id, error = %e, "accept failed; skipping the challenge"),
        }
    }

    async fn decline(&self, id: &str, reason: DeclineReason) {
        if let Err(e) = self.ctx.client.decline_challenge(id, reason).await {
            tracing::warn!(challenge = %id, error = %e, "decline failed");
        }
    }

    async fn on_game_done(&mut self, summary: GameSummary) {
        let seat = self.games.remove(&summary.id);
        if summary.set_aside {
            // Going on without us while the opponent thinks; the check-in comes back to it.
            self.set_aside.insert(summary.id, seat.map(|s| s.opponent).unwrap_or_default());
            return;
        }
        if summary.retry {
            self.open_again_later(summary.id, seat);
        } else {
            self.ctx.books.game_over(&summary.id);
            self.finished.push_back(summary.id.clone());
            while self.finished.len() > FINISHED_MEMORY {
                self.finished.pop_front();
            }
            self.summary.games.push(summary);
        }
        self.seat_freed().await;
    }

    /// A game's seat came free: the idle clock of matchmaking starts when none is taken, and
    /// waiting challenges may take the seat.
    async fn seat_freed(&mut self) {
        if self.busy() == 0 {
            self.idle_since = Instant::now();
        }
        self.fill_slots().await;
    }

    /// A game task that failed (a bug): its game goes on without a task until it is opened
    /// again, like a game its task gave up on.
    async fn on_task_failed(&mut self, error: &tokio::task::JoinError) {
        let Some(id) = self.task_games.remove(&error.id()) else {
            tracing::error!(error = %error, "a game task failed");
            return;
        };
        tracing::error!(game = %id, error = %error, "the game's task failed");
        let seat = self.games.remove(&id);
        self.open_again_later(id, seat);
        self.seat_freed().await;
    }

    /// A game without a task that did not end: it is not remembered as finished, so the next
    /// check-in (or a replayed `gameStart`) opens it again while the server lists it as ongoing;
    /// a correspondence game stays counted against `max_games` meanwhile.
    fn open_again_later(&mut self, id: String, seat: Option<Seat>) {
        let checkin_in = self.next_checkin.saturating_duration_since(Instant::now());
        tracing::warn!(game = %id, checkin_in_s = checkin_in.as_secs(), "the game goes on without a task; the next check-in opens it again");
        if let Some(seat) = seat
            && seat.correspondence
        {
            self.set_aside.insert(id, seat.opponent);
        }
    }

    /// Accepts waiting challenges, in order, while slots are free. One that must wait longer
    /// (a bot's, when only the slots reserved for humans are free) keeps its place and lets
    /// the next one through.
    async fn fill_slots(&mut self) {
        let held = |d: &Dispatcher| d.accept_hold_until.is_some_and(|t| Instant::now() < t);
        if held(self) {
            return;
        }
        let mut kept = VecDeque::new();
        while let Some(challenge) = self.waiting.pop_front() {
            if self.stopping || self.slots_taken() >= self.ctx.config.challenge.concurrency || held(self) {
                kept.push_back(challenge);
                continue;
            }
            // Only real-time challenges wait: correspondence ones are accepted or declined at once.
            let load = Load { waiting: 0, ..self.load_for(&challenge, false) };
            match judge(&challenge, &self.ctx.config.challenge, load) {
                // A 429 on the accept puts it back at the front of `waiting`: the next turn keeps it.
                Verdict::Accept => self.accept(challenge).await,
                Verdict::Wait => kept.push_back(challenge),
                Verdict::Decline(reason) => self.decline(&challenge.id, reason).await,
            }
        }
        self.waiting = kept;
    }

    /// Sends out the reads of our ratings and of the online block lists when their time has
    /// come, each in its own task ([`crate::refresh`]): a slow server never holds the loop up.
    /// A read of a kind still out is not sent again; the next is due a period after this one.
    fn refresh(&mut self, now: Instant) {
        let config = &self.ctx.config;
        let uses_ratings = config.challenge.rating_difference.is_some()
            || (config.matchmaking.enabled && config.matchmaking.max_rating_diff > 0);
        if uses_ratings
            && now.duration_since(self.ratings_read) >= Duration::from_secs(config.challenge.rating_refresh_s)
            && !self.refreshes.is_out(Kind::Ratings)
        {
            self.ratings_read = now;
            let client = self.ctx.client.clone();
            self.refreshes.start(Kind::Ratings, async move {
                Refreshed::Ratings(
                    client.account().await.map(|account| Ratings::of(&account)).map_err(|e| e.to_string()),
                )
            });
        }
        let every = Duration::from_secs(config.challenge.online_block_list_refresh_s);
        if !self.block_list.is_empty()
            && now.duration_since(self.block_list_read) >= every
            && !self.refreshes.is_out(Kind::BlockList)
        {
            self.block_list_read = now;
            let (client, urls) = (self.ctx.client.clone(), self.block_list.urls());
            self.refreshes.start(Kind::BlockList, async move {
                Refreshed::BlockList(crate::block_list::read(&client, &urls).await)
            });
        }
    }

    /// Applies a read that came back; a failed one keeps what we had.
    fn on_refreshed(&mut self, refreshed: Refreshed) {
        match refreshed {
            Refreshed::Ratings(Ok(ratings)) => {
                self.ratings = ratings;
                tracing::debug!("our ratings read again");
            }
            Refreshed::Ratings(Err(e)) => {
                tracing::warn!(error = %e, "cannot read our ratings again; keeping the last ones");
            }
            Refreshed::BlockList(reads) => self.block_list.apply_all(reads),
        }
    }

    async fn on_tick(&mut self) {
        let now = Instant::now();
        let before = self.accepted.len();
        self.accepted.retain(|id, (at, _)| {
            let keep = now.duration_since(*at) < ACCEPT_GRACE;
            if !keep {
                tracing::warn!(challenge = %id, "accepted challenge never started; freeing its slot");
            }
            keep
        });
        if self.accepted.len() != before && self.busy() == 0 {
            self.idle_since = now;
        }
        self.refresh(now);
        self.fill_slots().await;
        if !self.stopping && now >= self.next_checkin {
            self.check_in().await;
        }
        if let Some(expired) = self.matchmaker.expired(now) {
            tracing::info!(challenge = %expired.id, opponent = %expired.opponent, "our challenge went unanswered; cancelling");
            let _ = self.ctx.client.cancel_challenge(&expired.id).await;
        }
        let busy = self.busy() > 0 || !self.waiting.is_empty() || self.stopping;
        if self.matchmaker.due(now, self.idle_since, busy) {
            self.matchmake(now).await;
        }
    }

    async fn matchmake(&mut self, now: Instant) {
        let client = self.ctx.client.clone();
        let bots = match client.online_bots(200).await {
            Ok(bots) => bots,
            Err(e) => {
                tracing::warn!(error = %e, "cannot list online bots");
                self.matchmaker.failed(now);
                return;
            }
        };
        let Some(plan) = self.matchmaker.pick(&bots, now, &self.ratings, Dice::roll()) else {
            tracing::info!(online = bots.len(), "no online bot fits the matchmaking settings");
            self.matchmaker.failed(now);
            return;
        };
        match client.create_challenge(&plan.opponent, &plan.request).await {
            Ok(challenge) => {
                tracing::info!(challenge = %challenge.id, opponent = %plan.opponent, variant = %plan.request.variant, rated = plan.request.rated, set = %plan.set, "challenged");
                self.matchmaker.sent(&challenge.id, &plan.opponent, now);
            }
            Err(e) => {
                let wait = limit_wait(&e);
                match (e.status(), wait) {
                    (Some(429), wait) => {
                        let wait = wait.unwrap_or(Duration::from_secs(60));
                        tracing::warn!(wait_s = wait.as_secs(), error = %e, "challenge limit reached; matchmaking paused");
                        self.matchmaker.pause(now, wait);
                    }
                    (Some(400), Some(wait)) => {
                        tracing::info!(opponent = %plan.opponent, wait_s = wait.as_secs(), "opponent reached its daily limit");
                        self.matchmaker.leave_alone(&plan.opponent, now, wait);
                        self.matchmaker.failed(now);
                    }
                    _ => {
                        tracing::warn!(opponent = %plan.opponent, error = %e, "challenge failed");
                        self.matchmaker.leave_alone(
                            &plan.opponent,
                            now,
                            Duration::from_secs(self.ctx.config.matchmaking.decline_backoff_s),
                        );
                        self.matchmaker.failed(now);
                    }
                }
            }
        }
    }
}

/// Whether a challenge is for a correspondence or unlimited game: the server's speed, or a time
/// control without a clock.
fn is_correspondence_challenge(challenge: &Challenge) -> bool {
    challenge.speed == Some(ferz_lichess::models::Speed::Correspondence)
        || matches!(challenge.time_control, Some(TimeControl::Correspondence { .. } | TimeControl::Unlimited))
}
