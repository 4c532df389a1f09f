//! One game: its stream, our moves, draws, takebacks, aborts, claims, chat and the PGN.
//!
//! The task rebuilds the position from the start position and the full move list on every
//! state (a takeback shortens the list; differences are never applied), moves only on our
//! turn and only once per ply, and survives a dropped stream by reopening it: the server
//! answers a new stream with `gameFull`, which carries the current state.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use ferz_chess::{Color, DrawReason, Game, Move, Outcome, WinReason};
use ferz_engine::{Engine, Score, SearchResult, Signals};
use ferz_lichess::models::{GameEventInfo, OpponentGone, Player};
use ferz_lichess::{
    Backoff, ChatRoom, Client, Error, GameEvent, GameFull, GameState, Platform, RetryPolicy, StreamItem,
};
use futures_util::StreamExt;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::book::Book;
use crate::clock::{Clocks, NO_CLOCK_MS, engine_options, search_limits};
use crate::config::BotConfig;
use crate::decisions::{Decisions, centipawns};
use crate::record::{GameLog, LoggedMove, result_text};
use crate::setup::{Rules, server_move};

/// What every game task shares.
pub struct GameContext {
    /// The API client.
    pub client: Client,
    /// The settings.
    pub config: Arc<BotConfig>,
    /// Our account id (lower case).
    pub me: String,
    /// Our display name.
    pub my_name: String,
    /// The opening book, if one is open.
    pub book: Option<Book>,
    /// Turns true when the bot must exit at once (second Ctrl-C).
    pub exit_now: watch::Receiver<bool>,
}

/// How a game task ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSummary {
    /// Game id.
    pub id: String,
    /// `1-0`, `0-1`, `1/2-1/2` or `*` (aborted or unknown).
    pub result: String,
    /// The server's final status.
    pub status: String,
    /// Plies played.
    pub plies: usize,
    /// Where the PGN went.
    pub pgn: Option<std::path::PathBuf>,
    /// Why the task gave up on the game, if it did.
    pub error: Option<String>,
}

/// The longest a task keeps reopening the stream of a game that never answers.
const MAX_STREAM_FAILURES: u32 = 30;
/// Move requests the server may reject at one ply before we give the game up.
const MAX_REJECTIONS: u32 = 3;
/// How far from zero a clock may still read when a PyChess game ends for it to count as a
/// flag fall: our reading of the clock lags the server's by the network delay.
const FLAG_SLACK_MS: i64 = 500;

/// Plays game `id` to its end.
pub async fn play(ctx: Arc<GameContext>, id: String, hint: GameEventInfo) -> GameSummary {
    let mut task = GameTask::new(ctx, id, &hint);
    task.run().await;
    task.finish().await
}

/// A search running on a blocking thread; the engine comes back with the result.
struct RunningSearch {
    handle: JoinHandle<(Engine, SearchResult)>,
    signals: Arc<Signals>,
    /// The ply it searches.
    ply: usize,
    /// When the state that started it arrived (for the overhead measurement).
    state_at: Instant,
    started: Instant,
}

struct GameTask {
    ctx: Arc<GameContext>,
    id: String,
    platform: Platform,
    rules: Option<Rules>,
    full: Option<GameFull>,
    /// Our colour, from `gameFull` (or the `gameStart` hint until then).
    us: Option<Color>,
    /// `gameStart`'s Chess960 flag (PyChess's only way to tell Chess960 from chess).
    chess960_hint: bool,
    opponent_name: String,
    engine: Option<Engine>,
    search: Option<RunningSearch>,
    decisions: Decisions,
    game: Option<Game>,
    state: GameState,
    state_at: Instant,
    /// The mover's clock after each ply, when a state showed it.
    clocks: Vec<Option<i64>>,
    /// Our evaluation of each of our plies, white's view.
    evals: Vec<Option<(Score, u32)>>,
    /// The ply we have sent a move for.
    moved_at_ply: Option<usize>,
    rejections: (usize, u32),
    takebacks_granted: u32,
    /// Ply at which we answered the opponent's draw offer.
    draw_answered_at: Option<usize>,
    /// Whether we answered the takeback proposal the stream still shows. A proposal is
    /// identified by its lifetime, not by a ply: our own move can land while it is pending, and
    /// the state that carries that move still shows it (answering it again would decline the
    /// proposal we just granted).
    takeback_answered: bool,
    greeted: bool,
    /// Since when we wait for the opponent's move.
    waiting_since: Instant,
    abort_sent: bool,
    /// We resigned (the server took it).
    resigned: bool,
    /// We aborted (the server took it).
    aborted: bool,
    /// The clock (initial ms, increment ms) as the first states showed it, for servers whose
    /// `gameFull` has no clock (PyChess).
    clock_seen: Option<(i64, i64)>,
    gone_claim_at: Option<Instant>,
    claim_sent: bool,
    /// The final status and winner, once the game is over.
    over: Option<(String, Option<String>)>,
    error: Option<String>,
}

impl GameTask {
    fn new(ctx: Arc<GameContext>, id: String, hint: &GameEventInfo) -> GameTask {
        let config = &ctx.config;
        let us = hint.color.as_ref().and_then(|c| match c {
            ferz_lichess::Color::White => Some(Color::White),
            ferz_lichess::Color::Black => Some(Color::Black),
            ferz_lichess::Color::Other(_) => None,
        });
        let opponent_name = hint.opponent.as_ref().map(|o| o.username.clone()).unwrap_or_default();
        GameTask {
            platform: ctx.client.platform(),
            decisions: Decisions::new(config.draw.clone(), config.resign.clone()),
            ctx,
            id,
            rules: None,
            full: None,
            us,
            chess960_hint: hint.chess960.unwrap_or(false),
            opponent_name,
            engine: None,
            search: None,
            game: None,
            state: GameState::default(),
            state_at: Instant::now(),
            clocks: Vec::new(),
            evals: Vec::new(),
            moved_at_ply: None,
            rejections: (0, 0),
            takebacks_granted: 0,
            draw_answered_at: None,
            takeback_answered: false,
            greeted: false,
            waiting_since: Instant::now(),
            abort_sent: false,
            resigned: false,
            aborted: false,
            clock_seen: None,
            gone_claim_at: None,
            claim_sent: false,
            over: None,
            error: None,
        }
    }

    /// Streams the game until it is over, reopening the stream when it drops.
    async fn run(&mut self) {
        let mut backoff = Backoff::new(RetryPolicy::default());
        let mut failures = 0;
        let mut exit_now = self.ctx.exit_now.clone();
        while self.over.is_none() && self.error.is_none() {
            if *exit_now.borrow() {
                self.error = Some("the bot is exiting".into());
                break;
            }
            let stream = match self.ctx.client.stream_game(&self.id).await {
                Ok(stream) => stream,
                // PyChess: our previous stream still counts as open until the server next writes
                // to it (a ping every few seconds); retry rather than give the game up.
                Err(e) if e.status() == Some(409) && failures < MAX_STREAM_FAILURES => {
                    failures += 1;
                    let wait = backoff.next_delay().max(Duration::from_millis(500));
                    tracing::info!(game = %self.id, wait_ms = wait.as_millis() as u64, "the server still holds our previous game stream; retrying");
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        _ = exit_now.changed() => {}
                    }
                    continue;
                }
                Err(e) if e.is_final() => {
                    // 404 and friends: the game is gone (finished while we were away, or not ours).
                    self.error = Some(format!("cannot stream the game: {e}"));
                    break;
                }
                Err(e) => {
                    failures += 1;
                    if failures > MAX_STREAM_FAILURES {
                        self.error = Some(format!("gave up reopening the game stream: {e}"));
                        break;
                    }
                    let wait = e.retry_after().unwrap_or_else(|| backoff.next_delay());
                    tracing::warn!(game = %self.id, error = %e, wait_ms = wait.as_millis() as u64, "game stream failed; retrying");
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        _ = exit_now.changed() => {}
                    }
                    continue;
                }
            };
            let reconnect = self.follow(stream, &mut exit_now).await;
            self.stop_search().await;
            if reconnect && self.over.is_none() {
                failures += 1;
                if failures > MAX_STREAM_FAILURES {
                    self.error = Some("the game stream kept dropping".into());
                    break;
                }
                let wait = backoff.next_delay();
                tracing::info!(game = %self.id, wait_ms = wait.as_millis() as u64, "game stream ended early; reopening");
                tokio::time::sleep(wait).await;
            } else {
                backoff.reset();
            }
        }
    }

    /// Reads one stream; `true` when it ended before the game did (reopen it).
    async fn follow(&mut self, mut stream: ferz_lichess::GameStream, exit_now: &mut watch::Receiver<bool>) -> bool {
        let mut tick = tokio::time::interval(Duration::from_millis(250));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            if self.over.is_some() {
                return false;
            }
            let searching = self.search.is_some();
            tokio::select! {
                item = stream.next() => match item {
                    Some(Ok(StreamItem::Message(event))) => {
                        if let Err(resync) = self.on_event(event).await {
                            tracing::info!(game = %self.id, reason = %resync, "resynchronising with the server");
                            return true;
                        }
                    }
                    Some(Ok(StreamItem::KeepAlive)) => self.on_tick().await,
                    Some(Err(e)) if !e.ends_stream() => tracing::warn!(game = %self.id, error = %e, "skipping a bad line of the game stream"),
                    Some(Err(e)) => {
                        tracing::warn!(game = %self.id, error = %e, "game stream broke");
                        return true;
                    }
                    None => return true,
                },
                joined = async { (&mut self.search.as_mut().expect("guarded").handle).await }, if searching => {
                    let search = self.search.take().expect("guarded");
                    match joined {
                        Ok((engine, result)) => {
                            self.engine = Some(engine);
                            if let Err(resync) = self.on_search_done(&search, result).await {
                                tracing::info!(game = %self.id, reason = %resync, "resynchronising with the server");
                                return true;
                            }
                        }
                        Err(e) => {
                            self.error = Some(format!("the search failed: {e}"));
                            return false;
                        }
                    }
                }
                _ = tick.tick() => self.on_tick().await,
                _ = exit_now.changed() => {
                    self.error = Some("the bot is exiting".into());
                    return false;
                }
            }
        }
    }

    async fn on_event(&mut self, event: GameEvent) -> Result<(), String> {
        match event {
            GameEvent::GameFull(full) => {
                let full = *full;
                self.on_full(&full)?;
                let state = full.state.clone();
                self.full = Some(full);
                self.greet().await;
                self.on_state(state).await
            }
            GameEvent::GameState(state) => self.on_state(state).await,
            GameEvent::OpponentGone(gone) => {
                self.on_gone(gone);
                Ok(())
            }
            GameEvent::ChatLine(line) => {
                tracing::debug!(game = %self.id, user = %line.username, text = %line.text, "chat");
                Ok(())
            }
            GameEvent::GameEnd { .. } => {
                self.over = Some(self.pychess_result());
                Ok(())
            }
            GameEvent::Unknown { kind, .. } => {
                tracing::debug!(game = %self.id, kind, "ignoring an unknown game message");
                Ok(())
            }
        }
    }

    /// How a PyChess game ended: its `gameEnd` names no result and its states always say
    /// `started`. The board's verdict when the rules ended it; our own resignation or abort;
    /// a flag fall when the clock of the side to move had run out by our reckoning; anything
    /// else (the opponent resigned or aborted, a server decision) is unknown, `*`, rather
    /// than a guess.
    fn pychess_result(&self) -> (String, Option<String>) {
        let name = |c: Color| if c == Color::White { "white" } else { "black" }.to_owned();
        if let Some(outcome) = self.game.as_ref().and_then(Game::outcome) {
            let status = match outcome {
                Outcome::Decisive { reason: WinReason::Checkmate, .. } => "mate",
                Outcome::Decisive { reason: WinReason::Stalemate, .. } | Outcome::Draw(DrawReason::Stalemate) => {
                    "stalemate"
                }
                Outcome::Decisive { reason: WinReason::BareKing, .. } => "variantEnd",
                Outcome::Draw(_) => "draw",
            };
            return (status.to_owned(), outcome.winner().map(name));
        }
        if self.resigned {
            return ("resign".to_owned(), self.us.map(|c| name(!c)));
        }
        if self.aborted {
            return ("aborted".to_owned(), None);
        }
        if let Some(rules) = &self.rules {
            let plies = self.state.ply();
            let mover = rules.turn_after(plies);
            let left = if mover == Color::White { self.state.wtime } else { self.state.btime };
            let elapsed = i64::try_from(self.state_at.elapsed().as_millis()).unwrap_or(i64::MAX);
            // Clocks run from the third ply; "no clock" is 2^31 - 1 ms.
            if plies >= 2 && left < NO_CLOCK_MS && elapsed >= left - FLAG_SLACK_MS {
                return ("outoftime".to_owned(), Some(name(!mover)));
            }
        }
        ("unknownFinish".to_owned(), None)
    }

    fn on_full(&mut self, full: &GameFull) -> Result<(), String> {
        if self.rules.is_none() {
            // PyChess names Chess960 `chess` and says so only in `gameStart`'s flag.
            let chess960 = self.chess960_hint;
            let rules = Rules::new(full.variant.key_or_name(), chess960, &full.initial_fen).map_err(|e| {
                self.error = Some(e.to_string());
                e.to_string()
            })?;
            self.rules = Some(rules);
        }
        let me = &self.ctx.me;
        let (us, them): (Option<Color>, &Player) = if full.white.is(me) {
            (Some(Color::White), &full.black)
        } else if full.black.is(me) {
            (Some(Color::Black), &full.white)
        } else {
            (self.us, if self.us == Some(Color::Black) { &full.white } else { &full.black })
        };
        self.us = us;
        // PyChess's gameFull has no clock, but before the third ply neither clock has run: the
        // states show the initial time. (Lichess sends the clock; its correspondence games
        // have none and must not get one from their days.)
        let state = &full.state;
        if self.platform == Platform::PyChess
            && self.clock_seen.is_none()
            && state.ply() < 2
            && state.wtime < NO_CLOCK_MS
        {
            self.clock_seen = Some((state.wtime.max(state.btime), state.winc));
        }
        if let Some(name) = them.name.clone().or_else(|| them.ai_level.map(|l| format!("Stockfish level {l}"))) {
            self.opponent_name = name;
        }
        if self.engine.is_none() {
            let mut engine = Engine::new(engine_options(&self.ctx.config.engine));
            engine.clear();
            self.engine = Some(engine);
        }
        tracing::info!(game = %self.id, opponent = %self.opponent_name, variant = %full.variant.key_or_name(), us = ?self.us, "game opened");
        Ok(())
    }

    fn fill(&self, text: &str) -> String {
        text.replace("{me}", &self.ctx.my_name).replace("{opponent}", &self.opponent_name)
    }

    async fn chat(&self, room: ChatRoom, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        let mut text = self.fill(text);
        // The server refuses longer lines.
        if text.chars().count() > 140 {
            text = text.chars().take(140).collect();
        }
        if let Err(e) = self.ctx.client.chat(&self.id, room.clone(), &text).await {
            tracing::warn!(game = %self.id, error = %e, "chat message not sent");
        }
    }

    /// Greets once per game, and only at its start: a bot restarted in the middle of a game
    /// does not say hello again.
    async fn greet(&mut self) {
        if self.greeted {
            return;
        }
        self.greeted = true;
        if self.full.as_ref().is_some_and(|f| f.state.ply() >= 2) {
            return;
        }
        let greeting = self.ctx.config.greeting.clone();
        self.chat(ChatRoom::Player, &greeting.hello).await;
        self.chat(ChatRoom::Spectator, &greeting.hello_spectators).await;
    }

    fn opponent_color(&self) -> Option<ferz_lichess::Color> {
        self.us.map(|c| if c == Color::White { ferz_lichess::Color::Black } else { ferz_lichess::Color::White })
    }

    async fn on_state(&mut self, state: GameState) -> Result<(), String> {
        let now = Instant::now();
        let Some(rules) = self.rules.clone() else {
            return Err("a state before gameFull".into());
        };
        let plies = state.ply();
        let changed = state.moves != self.state.moves || self.game.is_none();
        if changed {
            let game = rules.replay(&state.moves).map_err(|e| format!("cannot follow the game: {e}"))?;
            self.stop_search_if_not_at(plies).await;
            if plies < self.clocks.len() {
                // A takeback: forget what was taken back.
                self.takeback_answered = false;
                self.clocks.truncate(plies);
                self.evals.truncate(plies);
                let ours = (0..plies).filter(|&p| Some(rules.turn_after(p)) == self.us).count();
                self.decisions.truncate(ours);
            }
            self.clocks.resize(plies, None);
            self.evals.resize(plies, None);
            if plies > 0 {
                let mover_white = rules.turn_after(plies - 1) == Color::White;
                self.clocks[plies - 1] = Some(if mover_white { state.wtime } else { state.btime });
            }
            if self.moved_at_ply.is_some_and(|p| p != plies) {
                self.moved_at_ply = None;
            }
            self.game = Some(game);
            self.waiting_since = now;
            self.gone_claim_at = None;
        }
        self.state_at = now;
        self.state = state;
        if self.state.status.is_over() {
            self.stop_search().await;
            self.over = Some((
                self.state.status.as_str().to_owned(),
                self.state.winner.as_ref().map(|w| w.as_str().to_owned()),
            ));
            return Ok(());
        }
        let Some(them) = self.opponent_color() else { return Err("our colour is unknown".into()) };
        let our_turn = Some(rules.turn_after(plies)) == self.us;
        if self.platform == Platform::Lichess {
            self.answer_takeback(&them).await;
            if !our_turn {
                self.answer_draw_now(&them, plies).await;
            }
        }
        if our_turn && self.search.is_none() && self.moved_at_ply != Some(plies) {
            self.start_move(plies).await?;
        }
        Ok(())
    }

    async fn answer_takeback(&mut self, them: &ferz_lichess::Color) {
        if !self.state.proposes_takeback(them) {
            self.takeback_answered = false;
            return;
        }
        if self.takeback_answered {
            return;
        }
        self.takeback_answered = true;
        let grant = self.takebacks_granted < self.ctx.config.takeback.max_per_game;
        if grant {
            self.takebacks_granted += 1;
        }
        tracing::info!(game = %self.id, grant, "takeback requested");
        if let Err(e) = self.ctx.client.handle_takeback(&self.id, grant).await {
            tracing::warn!(game = %self.id, error = %e, "takeback answer failed");
        }
    }

    /// The opponent offers a draw while it is their turn: answer from our last evaluation.
    async fn answer_draw_now(&mut self, them: &ferz_lichess::Color, plies: usize) {
        if !self.state.offers_draw(them) || self.draw_answered_at == Some(plies) {
            return;
        }
        self.draw_answered_at = Some(plies);
        let accept = self.decisions.should_accept_draw(self.decisions.last());
        tracing::info!(game = %self.id, accept, score = ?self.decisions.last(), "draw offered");
        if let Err(e) = self.ctx.client.handle_draw(&self.id, accept).await {
            tracing::warn!(game = %self.id, error = %e, "draw answer failed");
        }
    }

    /// Our turn at `plies`: a book move at once, or a search on a blocking thread.
    async fn start_move(&mut self, plies: usize) -> Result<(), String> {
        let Some(game) = self.game.clone() else { return Ok(()) };
        let Some(us) = self.us else { return Ok(()) };
        let config = &self.ctx.config.engine;
        if let Some(book) = &self.ctx.book
            && plies < config.book_max_ply as usize
            && let Some(choice) = book.choose(game.position(), fastrand::f64())
        {
            tracing::debug!(game = %self.id, mv = %game.position().uci(choice.mv), "book move");
            return self.send_move(plies, choice.mv, None, self.state_at).await;
        }
        let Some(mut engine) = self.engine.take() else { return Ok(()) };
        let clocks =
            Clocks { wtime: self.state.wtime, btime: self.state.btime, winc: self.state.winc, binc: self.state.binc };
        let ours_made = (0..plies).filter(|&p| self.rules.as_ref().map(|r| r.turn_after(p)) == Some(us)).count();
        let limits = search_limits(clocks, us, ours_made, self.state_at.elapsed(), config);
        let signals = Arc::new(Signals::default());
        let thread_signals = Arc::clone(&signals);
        let handle = tokio::task::spawn_blocking(move || {
            let result = engine.search(&game, &limits, &thread_signals, &mut |_| {});
            (engine, result)
        });
        self.search =
            Some(RunningSearch { handle, signals, ply: plies, state_at: self.state_at, started: Instant::now() });
        Ok(())
    }

    async fn on_search_done(&mut self, search: &RunningSearch, result: SearchResult) -> Result<(), String> {
        let searched = search.started.elapsed();
        let plies = self.state.ply();
        if search.ply != plies || self.over.is_some() || self.moved_at_ply == Some(plies) {
            return Ok(()); // the game moved on while we thought
        }
        let Some(best) = result.best else { return Ok(()) };
        self.decisions.record(result.score);
        if self.decisions.should_resign() && plies >= 2 {
            tracing::info!(game = %self.id, score = ?result.score, "resigning");
            self.moved_at_ply = Some(plies);
            if let Err(e) = self.ctx.client.resign(&self.id).await {
                tracing::warn!(game = %self.id, error = %e, "resign failed; playing on");
                self.moved_at_ply = None;
                self.decisions.truncate(0);
            } else {
                self.resigned = true;
                return Ok(());
            }
        }
        tracing::debug!(game = %self.id, depth = result.depth, nodes = result.nodes, search_ms = searched.as_millis() as u64, "searched");
        let overhead_from = search.state_at + searched;
        self.send_move(plies, best, Some((result.score, result.depth)), overhead_from).await
    }

    /// Sends our move (with a draw offer or acceptance when due). `since` is when the state
    /// arrived, moved forward by the search time: what remains is the bot's own overhead.
    async fn send_move(
        &mut self,
        plies: usize,
        mv: Move,
        eval: Option<(Score, u32)>,
        since: Instant,
    ) -> Result<(), String> {
        let Some(game) = &self.game else { return Ok(()) };
        let pos = *game.position();
        let uci = server_move(&pos, mv);
        let lichess = self.platform == Platform::Lichess;
        let them = self.opponent_color();
        let opponent_offers = them.as_ref().is_some_and(|t| self.state.offers_draw(t));
        let current = eval.map(|(s, _)| centipawns(s));
        let accept = opponent_offers && self.decisions.should_accept_draw(current);
        if opponent_offers && self.draw_answered_at != Some(plies) {
            self.draw_answered_at = Some(plies);
            tracing::info!(game = %self.id, accept, score = ?current, "draw offered");
            if lichess
                && !accept
                && let Err(e) = self.ctx.client.handle_draw(&self.id, false).await
            {
                tracing::warn!(game = %self.id, error = %e, "draw answer failed");
            }
        }
        let pieces = pos.board().occupied().count();
        let offer = lichess && eval.is_some() && (accept || self.decisions.should_offer_draw(pieces));
        let white_view = |s: Score| match (self.us, s) {
            (Some(Color::Black), Score::Cp(cp)) => Score::Cp(-cp),
            (Some(Color::Black), Score::Mate(n)) => Score::Mate(-n),
            (_, s) => s,
        };
        self.evals.resize(plies + 1, None);
        self.evals[plies] = eval.map(|(s, d)| (white_view(s), d));
        self.moved_at_ply = Some(plies);
        let overhead = since.elapsed();
        let mut attempts = 0;
        loop {
            attempts += 1;
            match self.ctx.client.make_move(&self.id, &uci, offer).await {
                Ok(()) => {
                    tracing::info!(game = %self.id, mv = %uci, offer_draw = offer, overhead_us = overhead.as_micros() as u64, "moved");
                    return Ok(());
                }
                Err(e) if e.retry_after().is_some() && attempts < 3 => {
                    let wait = e.retry_after().unwrap_or_default();
                    tracing::warn!(game = %self.id, wait_ms = wait.as_millis() as u64, "move held by the rate limit; waiting");
                    tokio::time::sleep(wait).await;
                }
                Err(e) => return self.move_rejected(plies, &uci, &e).await,
            }
        }
    }

    async fn move_rejected(&mut self, plies: usize, uci: &str, e: &Error) -> Result<(), String> {
        self.moved_at_ply = None;
        self.rejections = if self.rejections.0 == plies { (plies, self.rejections.1 + 1) } else { (plies, 1) };
        tracing::warn!(game = %self.id, mv = %uci, error = %e, rejections = self.rejections.1, "move not accepted");
        if self.rejections.1 >= MAX_REJECTIONS {
            // The server and we disagree for good: end the game rather than hang in it.
            self.moved_at_ply = Some(plies);
            let gave_up =
                if plies < 2 { self.ctx.client.abort(&self.id).await } else { self.ctx.client.resign(&self.id).await };
            match gave_up {
                Ok(()) if plies < 2 => self.aborted = true,
                Ok(()) => self.resigned = true,
                Err(e) => tracing::warn!(game = %self.id, error = %e, "could not end the game"),
            }
            return Ok(());
        }
        // Our view may be stale: reopen the stream, whose gameFull says where the game stands.
        Err(format!("move {uci} rejected: {e}"))
    }

    fn on_gone(&mut self, gone: OpponentGone) {
        if !gone.gone {
            self.gone_claim_at = None;
            return;
        }
        if let Some(secs) = gone.claim_win_in_seconds {
            let at = Instant::now() + Duration::from_secs(secs.max(0).unsigned_abs());
            // Keep the earliest deadline the server announced.
            self.gone_claim_at = Some(self.gone_claim_at.map_or(at, |old| old.min(at)));
            tracing::info!(game = %self.id, claim_in_s = secs, "opponent left");
        }
    }

    /// Timers: abort a game the opponent does not start, claim a game the opponent left.
    async fn on_tick(&mut self) {
        if self.over.is_some() || self.rules.is_none() {
            return;
        }
        let plies = self.state.ply();
        let our_turn = self.rules.as_ref().map(|r| r.turn_after(plies)) == self.us;
        let abort_s = self.ctx.config.abort.abort_s;
        if abort_s > 0
            && !self.abort_sent
            && plies < 2
            && !our_turn
            && self.waiting_since.elapsed() >= Duration::from_secs(abort_s)
        {
            self.abort_sent = true;
            tracing::info!(game = %self.id, waited_s = abort_s, "opponent did not move; aborting");
            match self.ctx.client.abort(&self.id).await {
                Ok(()) => self.aborted = true,
                Err(e) => tracing::warn!(game = %self.id, error = %e, "abort failed"),
            }
        }
        if self.ctx.config.abort.claim_victory
            && self.platform == Platform::Lichess
            && !self.claim_sent
            && self.gone_claim_at.is_some_and(|at| Instant::now() >= at)
        {
            self.claim_sent = true;
            tracing::info!(game = %self.id, "claiming victory");
            if let Err(e) = self.ctx.client.claim_victory(&self.id).await {
                tracing::warn!(game = %self.id, error = %e, "claim failed");
                self.claim_sent = false;
                self.gone_claim_at = Some(Instant::now() + Duration::from_secs(2));
            }
        }
    }

    async fn stop_search_if_not_at(&mut self, plies: usize) {
        if self.search.as_ref().is_some_and(|s| s.ply != plies) {
            self.stop_search().await;
        }
    }

    async fn stop_search(&mut self) {
        if let Some(search) = self.search.take() {
            search.signals.stop.store(true, Ordering::Relaxed);
            if let Ok((engine, _)) = search.handle.await {
                self.engine = Some(engine);
            }
        }
    }

    /// Goodbye, PGN, summary.
    async fn finish(mut self) -> GameSummary {
        self.stop_search().await;
        let (status, winner) = self.over.clone().unwrap_or_else(|| ("unknown".into(), None));
        let result = result_text(winner.as_deref(), &status).to_owned();
        let plies = self.state.ply();
        if self.over.is_some() {
            let greeting = self.ctx.config.greeting.clone();
            self.chat(ChatRoom::Player, &greeting.goodbye).await;
            self.chat(ChatRoom::Spectator, &greeting.goodbye_spectators).await;
        }
        let pgn_config = &self.ctx.config.pgn;
        let mut pgn = None;
        if !pgn_config.dir.as_os_str().is_empty()
            && status != "aborted"
            && let Some(log) = self.log(&status, &result)
        {
            match log.write(&pgn_config.dir, pgn_config) {
                Ok(path) => pgn = Some(path),
                Err(e) => tracing::error!(game = %self.id, error = %e, "PGN not written"),
            }
        }
        tracing::info!(game = %self.id, result, status, plies, error = ?self.error, "game over");
        GameSummary { id: self.id, result, status, plies, pgn, error: self.error }
    }

    fn log(&self, status: &str, result: &str) -> Option<GameLog> {
        let rules = self.rules.as_ref()?;
        let game = self.game.as_ref()?;
        let full = self.full.as_ref()?;
        let name = |p: &Player| {
            p.name.clone().or_else(|| p.ai_level.map(|l| format!("Stockfish level {l}"))).unwrap_or_else(|| "?".into())
        };
        let moves = game
            .moves()
            .iter()
            .enumerate()
            .map(|(i, &mv)| LoggedMove {
                mv,
                clock_ms: self.clocks.get(i).copied().flatten(),
                eval: self.evals.get(i).copied().flatten(),
            })
            .collect();
        let base = self.ctx.client.config().base_url.trim_end_matches('/').to_owned();
        Some(GameLog {
            id: self.id.clone(),
            site: format!("{base}/{}", self.id),
            white: name(&full.white),
            black: name(&full.black),
            white_elo: full.white.rating,
            black_elo: full.black.rating,
            rated: full.rated,
            speed: full.speed.as_ref().map(|s| s.as_str().to_owned()),
            time_control: full.clock.map(|c| (c.initial, c.increment)).or(self.clock_seen).map_or_else(
                || "-".to_owned(),
                |(initial, increment)| format!("{}+{}", initial / 1000, increment / 1000),
            ),
            start: rules.start,
            moves,
            result: result.to_owned(),
            termination: status.to_owned(),
            date: ferz_chess::pgn_date_today(),
        })
    }
}
