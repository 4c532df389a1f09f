//! One game: its stream, our moves, draws, takebacks, aborts, claims, chat and the PGN.
//!
//! The task rebuilds the position from the start position and the full move list on every
//! state (a takeback shortens the list; differences are never applied), moves only on our
//! turn and only once per ply, and survives a dropped stream by reopening it: the server
//! answers a new stream with `gameFull`, which carries the current state.
//!
//! A correspondence (or unlimited) game is not followed for its whole life: once the opponent
//! has been silent for `[correspondence] disconnect_s` on their turn (or the bot is stopping),
//! the task sets the game aside and ends; the bot's check-in opens a new task when it is our
//! turn again. Its searches take turns with the other correspondence games' ([`seats`]): the
//! task holds a thinking seat, and an engine, only from its search to its move.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ferz_chess::{Color, Game, GameResult, Move, Outcome};
use ferz_engine::Score;
use ferz_lichess::models::{ChatLine, GameEventInfo, OpponentGone, Player};
use ferz_lichess::{
    Backoff, ChatRoom, Endpoint, Error, GameEvent, GameFull, GameState, Platform, RetryPolicy, StreamItem,
};
use futures_util::StreamExt;
use tokio::sync::watch;

use crate::chat::{self, Command, EvalNote, Extension, Facts, GameChat, Parsed, Speaker};
use crate::clock::{NO_CLOCK_MS, search_limits};
use crate::config::{CorrespondenceConfig, EngineVariant};
use crate::decisions::Decisions;
use crate::ending::{Ending, GaveUp, MoverClock, PyChessEnd};
use crate::player::{NoMove, Search, SearchEnd, SearchRequest, Thought};
use crate::record::{Eval, GameLog, LoggedMove, game_result, san_line};
use crate::resume::Urgency;
use crate::setup::{Rules, SetupError, server_move};
use crate::timers::Timers;
use phase::{ClockSeen, End, Phase, PlyRecord, Rejections, SentMove, Table};
use seats::Ticket;
use talk::AfterGame;

pub(crate) mod context;
mod phase;
pub(crate) mod seats;
mod talk;
mod thinking;

pub(crate) use context::GameContext;

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
    /// A correspondence game set aside while the opponent thinks: it goes on, and the bot's
    /// check-in opens it again on our turn.
    pub set_aside: bool,
    /// The task gave up (`error`) for a reason that may pass, such as a stream that kept
    /// failing, not because the game cannot be played: the game goes on, and the bot opens it
    /// again while the server lists it as ongoing. No PGN is written for it yet.
    pub retry: bool,
}

/// The longest a task keeps reopening the stream of a game that never answers.
const MAX_STREAM_FAILURES: u32 = 30;
/// Move requests the server may reject at one ply before we give the game up.
const MAX_REJECTIONS: u32 = 3;

/// Why the task reopens the game stream: its view of the game may be stale, and a new
/// stream's `gameFull` says where the game stands.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Resync {
    /// A `gameState` came before the `gameFull` that sets the game up.
    #[error("a state before gameFull")]
    StateBeforeFull,
    /// The game's set-up is one we cannot play (the task gives the game up).
    #[error("{0}")]
    Unplayable(SetupError),
    /// The server's move list does not replay from the start position.
    #[error("cannot follow the game: {0}")]
    CannotFollow(SetupError),
    /// Neither `gameFull` nor `gameStart` said which side we play.
    #[error("our colour is unknown")]
    ColourUnknown,
    /// The server keeps refusing our move at this ply.
    #[error("move {uci} rejected: {error}")]
    MoveRejected {
        /// The move, as sent.
        uci: String,
        /// The server's answer.
        error: String,
    },
}

/// Plays game `id` to its end, or, a correspondence game, until it is set aside. `reopened`:
/// the game was set aside before (no second greeting). `seat`: the thinking seat the bot asked
/// for a correspondence game on our turn, in the order of the games it opens.
pub(crate) async fn play(
    ctx: Arc<GameContext>,
    id: String,
    hint: GameEventInfo,
    reopened: bool,
    seat: Option<Ticket>,
) -> GameSummary {
    let mut task = GameTask::new(ctx, id, &hint);
    task.greeted = reopened;
    task.seat = seat;
    task.run().await;
    let after = task.after_game();
    let ctx = Arc::clone(&task.ctx);
    let summary = task.finish().await;
    // Commands after the game are answered without holding the game's slot.
    if let Some(after) = after {
        tokio::spawn(talk::after_game(ctx, summary.id.clone(), after));
    }
    summary
}

/// A search's (or a tablebase's) evaluation of the move we are about to play, our side's view.
#[derive(Clone, Copy, Debug)]
struct Searched {
    score: Score,
    depth: u32,
}

/// Whether a game is correspondence or unlimited: Lichess's speed or days per move say so, or
/// (servers that send neither) a state without a clock.
fn is_correspondence(full: &GameFull) -> bool {
    full.speed == Some(ferz_lichess::models::Speed::Correspondence)
        || full.days_per_turn.is_some()
        || full.state.wtime >= NO_CLOCK_MS
}

/// One game's task: what `gameStart` said (corrected by `gameFull`), the phase with what exists
/// in it ([`Phase`]), the engine, and the bookkeeping of our moves, offers and chat.
struct GameTask {
    ctx: Arc<GameContext>,
    id: String,
    platform: Platform,
    /// Before `gameFull`, playing, done.
    phase: Phase,
    /// Our colour, from `gameFull` (or the `gameStart` hint until then).
    us: Option<Color>,
    /// `gameStart`'s Chess960 flag (PyChess's only way to tell Chess960 from chess).
    chess960_hint: bool,
    opponent_name: String,
    /// A correspondence or unlimited game (from `gameStart`, then `gameFull`): thought over at
    /// `[correspondence]`'s pace, never pondered nor aborted by our timer, and set aside while
    /// the opponent is silent.
    correspondence: bool,
    /// The engine ([`crate::player`]), from `gameFull` on (a correspondence game's only while
    /// it holds a thinking seat).
    player: Option<crate::player::Player>,
    /// The search running: for our move, or on the expected reply while pondering.
    search: Option<Search>,
    /// The thinking seat of a correspondence game: asked for on our turn, held from the search
    /// to the move (with the engine, made when the seat is taken and ended when it is freed).
    seat: Option<Ticket>,
    decisions: Decisions,
    /// Abort and claim deadlines, and the offers already answered.
    timers: Timers,
    /// The server's latest state (empty before the first) and when it came.
    state: GameState,
    state_at: Instant,
    /// This game's chat reply budget.
    chat_budget: GameChat,
    /// The ply we have sent a move for.
    moved_at_ply: Option<usize>,
    /// The last move the server took from us.
    last_sent: Option<SentMove>,
    /// Our moves the server refused at the latest ply it refused one.
    rejections: Rejections,
    takebacks_granted: u32,
    greeted: bool,
    /// We resigned or aborted (the server took it).
    gave_up: Option<GaveUp>,
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
        let platform = ctx.client.platform();
        let claims = config.abort.claim_victory && platform.supports(Endpoint::ClaimVictory);
        let chat_budget = GameChat::new(&config.chat);
        let correspondence = hint.speed == Some(ferz_lichess::models::Speed::Correspondence);
        GameTask {
            platform,
            phase: Phase::Starting,
            decisions: Decisions::new(config.draw.clone(), config.resign.clone()),
            timers: Timers::new(config.abort.abort_s, claims, Instant::now()),
            correspondence,
            seat: None,
            ctx,
            id,
            us,
            chess960_hint: hint.chess960.unwrap_or(false),
            opponent_name,
            player: None,
            search: None,
            state: GameState::default(),
            state_at: Instant::now(),
            chat_budget,
            moved_at_ply: None,
            last_sent: None,
            rejections: Rejections::default(),
            takebacks_granted: 0,
            greeted: false,
            gave_up: None,
        }
    }

    /// The game's set-up and position, from the first `gameFull` on.
    fn table(&self) -> Option<&Table> {
        match &self.phase {
            Phase::Starting => None,
            Phase::Playing(table) | Phase::Done { table: Some(table), .. } => Some(table),
            Phase::Done { table: None, .. } => None,
        }
    }

    fn table_mut(&mut self) -> Option<&mut Table> {
        match &mut self.phase {
            Phase::Starting => None,
            Phase::Playing(table) | Phase::Done { table: Some(table), .. } => Some(table),
            Phase::Done { table: None, .. } => None,
        }
    }

    fn rules(&self) -> Option<&Rules> {
        self.table().map(|t| &t.rules)
    }

    /// The position of the latest state that replayed.
    fn game(&self) -> Option<&Game> {
        self.table().and_then(|t| t.game.as_ref())
    }

    /// Why the task stopped following the game (`None` while it follows it).
    fn end(&self) -> Option<&End> {
        match &self.phase {
            Phase::Done { end, .. } => Some(end),
            _ => None,
        }
    }

    /// How the game ended, once it is over.
    fn over(&self) -> Option<&Ending> {
        match self.end() {
            Some(End::Over(ending)) => Some(ending),
            _ => None,
        }
    }

    /// Stops following the game for `end`, keeping what is known of it.
    fn stop_following(&mut self, end: End) {
        let table = match std::mem::replace(&mut self.phase, Phase::Starting) {
            Phase::Starting => None,
            Phase::Playing(table) => Some(table),
            Phase::Done { table, .. } => table,
        };
        self.phase = Phase::Done { end, table };
    }

    /// Gives the game up for `error`; `retry`: the reason may pass.
    fn fail(&mut self, error: impl Into<String>, retry: bool) {
        self.stop_following(End::Failed { error: error.into(), retry });
    }

    /// Streams the game until it is over, reopening the stream when it drops.
    async fn run(&mut self) {
        let mut backoff = Backoff::new(RetryPolicy::default());
        let mut failures = 0;
        let mut exit_now = self.ctx.exit_now.clone();
        while self.end().is_none() {
            if *exit_now.borrow() {
                self.fail("the bot is exiting", false);
                break;
            }
            let opened = self.ctx.client.stream_game(&self.id).await;
            if opened.is_err() {
                // Without a stream no search starts: a held or awaited seat goes to another game.
                self.release_seat().await;
            }
            let stream = match opened {
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
                // PyChess drops a finished game at once when the human leaves it (and deletes
                // one under three plies), sometimes before its `gameEnd` went out: the game is
                // over.
                Err(e) if self.platform == Platform::PyChess && e.status() == Some(404) && self.game().is_some() => {
                    tracing::info!(game = %self.id, "the server no longer has the game: it is over");
                    let ending = self.pychess_end().await;
                    self.stop_following(End::Over(ending));
                    break;
                }
                Err(e) if e.is_final() => {
                    // 404 and friends: the game is gone (finished while we were away, or not
                    // ours). Should the server still list it as ongoing, the bot tries again.
                    self.fail(format!("cannot stream the game: {e}"), true);
                    break;
                }
                Err(e) => {
                    failures += 1;
                    if failures > MAX_STREAM_FAILURES {
                        self.fail(format!("gave up reopening the game stream: {e}"), true);
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
            self.release_seat().await;
            if reconnect && !matches!(self.end(), Some(End::Over(_) | End::SetAside)) {
                failures += 1;
                if failures > MAX_STREAM_FAILURES {
                    self.fail("the game stream kept dropping", true);
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
            if matches!(self.end(), Some(End::Over(_) | End::SetAside)) {
                return false;
            }
            if self.seat.is_some() && !self.needs_seat() {
                self.release_seat().await;
            }
            let searching = self.search.is_some();
            // Owned, so that the branch does not borrow the task the other branches change.
            let seat_wait = self.seat.as_ref().filter(|seat| !searching && !seat.seated()).map(Ticket::waiter);
            let awaiting_seat = seat_wait.is_some();
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
                end = async { self.search.as_mut().expect("guarded").finished().await }, if searching => {
                    let search = self.search.take().expect("guarded");
                    if let Err(resync) = self.on_search_done(&search, end).await {
                        tracing::info!(game = %self.id, reason = %resync, "resynchronising with the server");
                        return true;
                    }
                }
                () = async { seat_wait.as_ref().expect("guarded").wait().await }, if awaiting_seat => {
                    if let Err(resync) = self.on_seat().await {
                        tracing::info!(game = %self.id, reason = %resync, "resynchronising with the server");
                        return true;
                    }
                }
                _ = tick.tick() => self.on_tick().await,
                _ = exit_now.changed() => {
                    self.fail("the bot is exiting", false);
                    return false;
                }
            }
        }
    }

    async fn on_event(&mut self, event: GameEvent) -> Result<(), Resync> {
        match event {
            GameEvent::GameFull(full) => {
                let state = full.state.clone();
                self.on_full(*full)?;
                self.greet().await;
                self.on_state(state).await
            }
            GameEvent::GameState(state) => self.on_state(state).await,
            GameEvent::OpponentGone(gone) => {
                self.on_gone(gone);
                Ok(())
            }
            GameEvent::ChatLine(line) => {
                self.on_chat(line).await;
                Ok(())
            }
            GameEvent::GameEnd { .. } => {
                let ending = self.pychess_end().await;
                self.stop_following(End::Over(ending));
                Ok(())
            }
            GameEvent::Unknown { kind, .. } => {
                tracing::debug!(game = %self.id, kind, "ignoring an unknown game message");
                Ok(())
            }
        }
    }

    /// How a PyChess game ended. Its `gameEnd` names no result, its states always say
    /// `started`, and the move that ended the game never comes: the server's record of the
    /// game (its page) gives the status, the result and every move. Without the record, the
    /// task adds the last move it sent (when the server took it) and judges from the board.
    async fn pychess_end(&mut self) -> Ending {
        let mut gone = false;
        match self.ctx.client.pychess_game_record(&self.id).await {
            Ok(record) if record.status.is_over() => {
                if record.moves != self.state.moves {
                    self.take_final_moves(&record.moves);
                }
                return Ending::reported(record.status, record.winner.as_ref());
            }
            Ok(record) => {
                tracing::warn!(game = %self.id, status = %record.status.as_str(), "the server's record of an ended game says it goes on");
            }
            Err(e) => {
                gone = e.status() == Some(404);
                tracing::warn!(game = %self.id, error = %e, "cannot read the server's record of the game");
            }
        }
        if let Some(SentMove { ply, uci }) = self.last_sent.clone()
            && ply == self.state.ply()
        {
            let moves = if self.state.moves.is_empty() { uci } else { format!("{} {uci}", self.state.moves) };
            self.take_final_moves(&moves);
        }
        // A game the server deleted before both sides moved, ended by nothing on the board
        // nor by us: the opponent aborted it (PyChess deletes games under three plies).
        let on_board = self.game().is_some_and(|g| g.outcome().is_some());
        if gone && self.gave_up.is_none() && self.state.ply() < 2 && !on_board {
            return Ending::reported(ferz_lichess::GameStatus::Aborted, None);
        }
        self.pychess_ending()
    }

    /// The end the side to move cannot escape: every legal reply ends the game the same way
    /// (a bared king that cannot bare back, which PyChess rules over at once, before the
    /// reply).
    fn forced_outcome(game: &Game) -> Option<Outcome> {
        let pos = game.position();
        let moves = pos.legal_moves();
        let mut replies = moves.iter().map(|&m| pos.play(m).ok().and_then(|next| next.outcome()));
        let first = replies.next()??;
        replies.all(|o| o == Some(first)).then_some(first)
    }

    /// Takes the moves of a finished game that no state showed (PyChess's last move); moves
    /// that do not replay leave the game as it was.
    fn take_final_moves(&mut self, moves: &str) {
        let Some(table) = self.table_mut() else { return };
        match table.rules.replay(moves) {
            Ok(game) => {
                table.plies.resize(game.moves().len(), PlyRecord::default());
                table.game = Some(game);
                self.state.moves = moves.to_owned();
            }
            Err(e) => tracing::warn!(game = %self.id, error = %e, "the final moves do not replay; keeping ours"),
        }
    }

    /// How a PyChess game ended by the task's own reckoning (see [`Ending::pychess`]).
    fn pychess_ending(&self) -> Ending {
        let clock = self.rules().map(|rules| {
            let plies = self.state.ply();
            let mover = rules.turn_after(plies);
            MoverClock {
                mover,
                plies,
                left_ms: if mover == Color::White { self.state.wtime } else { self.state.btime },
                elapsed_ms: i64::try_from(self.state_at.elapsed().as_millis()).unwrap_or(i64::MAX),
            }
        });
        let outcome = self.game().and_then(|g| g.outcome().or_else(|| Self::forced_outcome(g)));
        Ending::pychess(PyChessEnd { outcome, gave_up: self.gave_up, us: self.us, clock })
    }

    /// A `gameFull`: the first sets the game up (the phase turns to playing); each says who
    /// plays and how.
    fn on_full(&mut self, full: GameFull) -> Result<(), Resync> {
        if let Phase::Starting = self.phase {
            // PyChess names Chess960 `chess` and says so only in `gameStart`'s flag.
            let rules = match Rules::new(full.variant.key_or_name(), self.chess960_hint, &full.initial_fen) {
                Ok(rules) => rules,
                Err(e) => {
                    self.fail(e.to_string(), false);
                    return Err(Resync::Unplayable(e));
                }
            };
            let table = Table { rules, full: full.clone(), game: None, plies: Vec::new(), clock_seen: None };
            self.phase = Phase::Playing(Box::new(table));
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
        self.correspondence |= is_correspondence(&full);
        if let Some(name) = them.name.clone().or_else(|| them.ai_level.map(|l| format!("Stockfish level {l}"))) {
            self.opponent_name = name;
        }
        let pychess = self.platform == Platform::PyChess;
        let Some(table) = self.table_mut() else { return Ok(()) };
        // PyChess's gameFull has no clock, but before the third ply neither clock has run: the
        // states show the initial time. (Lichess sends the clock; its correspondence games
        // have none and must not get one from their days.)
        let state = &full.state;
        if pychess && table.clock_seen.is_none() && state.ply() < 2 && state.wtime < NO_CLOCK_MS {
            table.clock_seen = Some(ClockSeen { initial_ms: state.wtime.max(state.btime), increment_ms: state.winc });
        }
        let variant = full.variant.key_or_name().to_owned();
        table.full = full;
        // A correspondence game's engine is made when it takes a thinking seat.
        if self.player.is_none() && !self.correspondence {
            self.player = self.new_player();
        }
        tracing::info!(game = %self.id, opponent = %self.opponent_name, variant = %variant, us = ?self.us, "game opened");
        Ok(())
    }

    /// The engine for this game's variant; a correspondence game's searches on one thread.
    fn new_player(&self) -> Option<crate::player::Player> {
        let rules = self.rules()?;
        let engine = &self.ctx.config.engine;
        let choice = self.ctx.tablebases.equip(engine.choice(EngineVariant::of_key(&rules.key)));
        let variant = rules.start.variant();
        Some(if self.correspondence {
            let (engine, choice) = CorrespondenceConfig::one_thread(engine, choice);
            crate::player::Player::new(&self.id, choice, &engine, variant)
        } else {
            crate::player::Player::new(&self.id, choice, engine, variant)
        })
    }

    fn fill(&self, text: &str) -> String {
        text.replace("{me}", &self.ctx.my_name).replace("{opponent}", &self.opponent_name)
    }

    async fn chat(&self, room: ChatRoom, text: &str) {
        talk::send(&self.ctx, &self.id, room, &self.fill(text)).await;
    }

    /// A chat line: the commands `[chat]` allows are answered, within the reply limits; our
    /// own lines, the server's and ordinary chat are not.
    async fn on_chat(&mut self, line: ChatLine) {
        let speaker = Speaker::of(&line.username, &line.room, &self.ctx.me, &self.opponent_name);
        // Debug-quoted: the text is someone else's and may hold line breaks or escape codes.
        tracing::debug!(game = %self.id, user = %line.username, room = %line.room.as_str(), text = ?line.text, "chat");
        if matches!(speaker, Speaker::Us | Speaker::Server) || !self.ctx.config.chat.commands {
            return;
        }
        let command = match Command::parse(&line.text) {
            Parsed::Chat => return,
            Parsed::Unknown(word) => {
                talk::ignore_unknown(&self.id, &mut self.chat_budget, &line.username, &word);
                return;
            }
            Parsed::Known(command) => command,
        };
        let config = &self.ctx.config.chat;
        let extension = match (command, speaker) {
            (Command::Wait, Speaker::Opponent) => {
                self.timers.extend_abort(self.state.ply(), Duration::from_secs(config.wait_s))
            }
            _ => Extension::NotWaiting,
        };
        if extension == Extension::Granted {
            tracing::info!(game = %self.id, wait_s = config.wait_s, "!wait: waiting longer for the first move");
        }
        let eval = self.eval_note();
        let queue = self.ctx.chat.queue();
        let name = self.name_line();
        let facts = Facts {
            name: &name,
            eval: eval.as_ref(),
            game_over: self.over().is_some(),
            extension,
            wait_s: config.wait_s,
            queue: &queue,
        };
        let reply = chat::reply(command, speaker, config.eval, &facts);
        talk::answer(&self.ctx, &self.id, &mut self.chat_budget, line.room, &line.username, command, &reply).await;
    }

    /// What the opponent's commands after the game need, when they are to be answered: the game
    /// ended (not given up), on a server with a chat to read, with `[chat] after_game_s` set.
    fn after_game(&self) -> Option<AfterGame> {
        let config = &self.ctx.config.chat;
        (self.over().is_some()
            && config.commands
            && config.after_game_s > 0
            && self.platform.supports(Endpoint::ReadChat))
        .then(|| AfterGame {
            budget: self.chat_budget.clone(),
            eval: self.eval_note(),
            opponent: self.opponent_name.clone(),
            name: self.name_line(),
        })
    }

    /// The `!name` answer for this game: the engine its variant plays with.
    fn name_line(&self) -> String {
        let engine = &self.ctx.config.engine;
        let variant = self.rules().map_or(EngineVariant::Standard, |rules| EngineVariant::of_key(&rules.key));
        chat::name_line(&self.ctx.my_name, &engine.choice(variant), engine, !self.ctx.books.is_empty())
    }

    /// Our last searched evaluation, with its principal variation in SAN.
    fn eval_note(&self) -> Option<EvalNote> {
        let table = self.table()?;
        let game = table.game.as_ref()?;
        let (ply, record) = table.plies.iter().enumerate().rev().find(|(_, record)| record.eval.is_some())?;
        let Eval { white_score, depth } = record.eval?;
        // The move may not be back from the server yet: then the position is the current one.
        let played = game.moves();
        let mut position = *game.start();
        for &mv in &played[..ply.min(played.len())] {
            position = position.play(mv).ok()?;
        }
        let pv = Some(&record.pv)
            .filter(|pv| played.get(ply).is_none_or(|mv| pv.first() == Some(mv)))
            .map(|pv| san_line(&position, pv))
            .unwrap_or_default();
        Some(EvalNote { white_score, depth, pv })
    }

    /// Greets once per game, and only at its start: a bot restarted in the middle of a game
    /// does not say hello again.
    async fn greet(&mut self) {
        if self.greeted {
            return;
        }
        self.greeted = true;
        if self.table().is_some_and(|t| t.full.state.ply() >= 2) {
            return;
        }
        let greeting = self.ctx.config.greeting.clone();
        self.chat(ChatRoom::Player, &greeting.hello).await;
        self.chat(ChatRoom::Spectator, &greeting.hello_spectators).await;
    }

    fn opponent_color(&self) -> Option<ferz_lichess::Color> {
        self.us.map(|c| if c == Color::White { ferz_lichess::Color::Black } else { ferz_lichess::Color::White })
    }

    async fn on_state(&mut self, state: GameState) -> Result<(), Resync> {
        let now = Instant::now();
        let Some(rules) = self.rules().cloned() else {
            return Err(Resync::StateBeforeFull);
        };
        let plies = state.ply();
        let changed = state.moves != self.state.moves || self.game().is_none();
        let mut ponder_hit = false;
        if changed {
            let game = rules.replay(&state.moves).map_err(Resync::CannotFollow)?;
            ponder_hit = self.meet_ponder(&game, now);
            self.stop_search_unless_for(&game).await;
            // The plies of the previous state: fewer now is a takeback.
            let taken_back = plies < self.state.ply();
            if taken_back {
                self.timers.taken_back();
                let ours = self.us.map_or(0, |us| rules.moves_by(us, plies));
                self.decisions.truncate(ours);
            }
            if self.moved_at_ply.is_some_and(|p| p != plies) {
                self.moved_at_ply = None;
            }
            let Some(table) = self.table_mut() else { return Ok(()) };
            // What was taken back is forgotten; a record beyond the state (our move not yet
            // shown) is dropped when the state does not show it.
            table.plies.resize(plies, PlyRecord::default());
            if plies > 0 {
                let mover_white = rules.turn_after(plies - 1) == Color::White;
                table.plies[plies - 1].clock_ms = Some(if mover_white { state.wtime } else { state.btime });
            }
            table.game = Some(game);
            self.timers.moved(now);
        }
        self.state_at = now;
        self.state = state;
        if self.state.status.is_over() {
            self.stop_search().await;
            let ending = Ending::reported(self.state.status.clone(), self.state.winner.as_ref());
            self.stop_following(End::Over(ending));
            return Ok(());
        }
        let Some(them) = self.opponent_color() else { return Err(Resync::ColourUnknown) };
        let our_turn = Some(rules.turn_after(plies)) == self.us;
        if self.platform.supports(Endpoint::Takeback) {
            self.answer_takeback(&them).await;
        }
        if self.platform.supports(Endpoint::Draw) && !our_turn {
            self.answer_draw_now(&them, plies).await;
        }
        if our_turn && ponder_hit && self.moved_at_ply != Some(plies) {
            // The ponder search goes on as our move's while the books, online sources and
            // tablebases are asked, as on every move; one that knows the move stops it.
            if let (Some(game), Some(us)) = (self.game().cloned(), self.us) {
                self.move_from_sources(plies, &game, self.our_clock(us), self.state_at).await?;
            }
        } else if our_turn && self.search.is_none() && self.moved_at_ply != Some(plies) {
            self.start_move(plies).await?;
        } else if !our_turn && self.search.is_none() {
            self.start_pondering();
        }
        Ok(())
    }

    async fn answer_takeback(&mut self, them: &ferz_lichess::Color) {
        if !self.timers.answer_takeback(self.state.proposes_takeback(them)) {
            return;
        }
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
        if !self.state.offers_draw(them) || !self.timers.answer_draw(plies) {
            return;
        }
        let accept = self.decisions.should_accept_draw(self.decisions.last());
        tracing::info!(game = %self.id, accept, score = ?self.decisions.last(), "draw offered");
        if let Err(e) = self.ctx.client.handle_draw(&self.id, accept).await {
            tracing::warn!(game = %self.id, error = %e, "draw answer failed");
        }
    }

    /// Our turn at `plies`: a book move at once; else what the tablebases say (resign when
    /// lost, their move when the online tablebase gave one); else a search on a blocking
    /// thread.
    async fn start_move(&mut self, plies: usize) -> Result<(), Resync> {
        let Some(game) = self.game().cloned() else { return Ok(()) };
        let Some(us) = self.us else { return Ok(()) };
        let clock = self.our_clock(us);
        let mut state_at = self.state_at;
        if self.correspondence {
            // A correspondence move (books, online sources, tablebases, search) waits for the
            // game's thinking seat: the follow loop comes back here once it is free, so a game
            // waiting in line asks no source twice, and its move time counts from then.
            let seconds_left = self.our_clock_ms(us).map(|ms| ms / 1000);
            let seats = &self.ctx.seats;
            let id = &self.id;
            if !self.seat.get_or_insert_with(|| seats.ask(id, Urgency::of(seconds_left))).seated() {
                return Ok(());
            }
            state_at = Instant::now();
        }
        if self.move_from_sources(plies, &game, clock, state_at).await? {
            return Ok(());
        }
        if self.player.is_none() {
            self.player = self.new_player();
        }
        let config = &self.ctx.config.engine;
        let ours_made = self.rules().map_or(0, |rules| rules.moves_by(us, plies));
        // The time an online source took comes off this move's clock here.
        let correspondence = self.correspondence.then_some(&self.ctx.config.correspondence);
        let limits = search_limits(self.clocks_now(), us, ours_made, state_at.elapsed(), config, correspondence);
        let request = SearchRequest { game, limits, clock, state_at };
        self.search = self.player.as_mut().and_then(|player| player.think(request));
        Ok(())
    }

    /// Our move at `plies` from the books and online sources, else the tablebases (which may
    /// also resign the game), as lichess-bot asks them before every search; `state_at` is when
    /// the position arrived. A move found stops a search still running for this ply (a ponder
    /// hit's). Returns whether the move was made (or the game resigned).
    async fn move_from_sources(
        &mut self,
        plies: usize,
        game: &Game,
        clock: Option<Duration>,
        state_at: Instant,
    ) -> Result<bool, Resync> {
        let asked = Instant::now();
        let choice = match self.rules() {
            Some(rules) => self.ctx.books.choose(&self.id, rules, game, clock).await,
            None => None,
        };
        if let Some(choice) = choice {
            tracing::info!(game = %self.id, mv = %game.position().uci(choice.mv), source = %choice.source, "book move");
            // An online source's answer time is the source's, like a search's, not overhead.
            let online = matches!(choice.source, crate::book::BookSource::Online(_));
            let since = if online { state_at + asked.elapsed() } else { state_at };
            self.stop_search().await;
            self.send_move(plies, choice.mv, None, since).await?;
            return Ok(true);
        }
        let looked = Instant::now();
        let known = self
            .ctx
            .tablebases
            .consult(&self.ctx.client, &self.id, game, clock.map(|c| c.saturating_sub(state_at.elapsed())))
            .await;
        self.decisions.record_tablebase(known.and_then(|k| k.verdict));
        if let Some(known) = known {
            tracing::debug!(game = %self.id, source = %known.source, verdict = ?known.verdict, "tablebase position");
            if self.decisions.should_resign_by_tablebase()
                && self.resign(plies, "the tablebase says the game is lost").await
            {
                self.stop_search().await;
                return Ok(true);
            }
            if let Some(mv) = known.mv {
                tracing::info!(game = %self.id, mv = %game.position().uci(mv), source = %known.source, verdict = ?known.verdict, "tablebase move");
                let eval = known.verdict.map(|v| Searched { score: v.score(), depth: 0 });
                // The online tablebase's answer time is the source's, like a search's.
                self.stop_search().await;
                self.send_move(plies, mv, eval, state_at + looked.elapsed()).await?;
                return Ok(true);
            }
        }
        Ok(false)
    }

    async fn on_search_done(&mut self, search: &Search, end: SearchEnd) -> Result<(), Resync> {
        let searched = search.started.elapsed();
        let thought = match self.player.as_mut().map(|player| player.settle(end)) {
            Some(Ok(thought)) => thought,
            Some(Err(NoMove::Failed)) => return self.search_again_if_due(search.ply).await,
            _ => return Ok(()),
        };
        let plies = self.state.ply();
        if search.ply != plies || self.over().is_some() || self.moved_at_ply == Some(plies) {
            return Ok(()); // the game moved on while we thought
        }
        if let Some(table) = self.table_mut() {
            table.ply_mut(plies).pv.clone_from(&thought.pv);
        }
        let Thought { best, score, depth, .. } = thought;
        if let Some(player) = self.player.as_mut() {
            player.ponder_plan(plies, best, &thought);
        }
        let Some(score) = score else {
            // An external engine that reported no score: no eval for the PGN or the decisions.
            return self.send_move(plies, best, None, search.state_at + searched).await;
        };
        let result = Searched { score, depth };
        self.decisions.record(score);
        if self.decisions.should_resign() && self.resign(plies, &format!("score {score:?}")).await {
            return Ok(());
        }
        tracing::debug!(game = %self.id, depth, nodes = thought.nodes, search_ms = searched.as_millis() as u64, ponder_hit = search.was_hit(), "searched");
        let overhead_from = search.state_at + searched;
        self.send_move(plies, best, Some(result), overhead_from).await
    }

    /// Sends our move (with a draw offer or acceptance when due). `since` is when the state
    /// arrived, moved forward by the search time: what remains is the bot's own overhead.
    async fn send_move(
        &mut self,
        plies: usize,
        mv: Move,
        eval: Option<Searched>,
        since: Instant,
    ) -> Result<(), Resync> {
        let Some(game) = self.game() else { return Ok(()) };
        let pos = *game.position();
        let uci = server_move(&pos, mv);
        let draws = self.platform.supports(Endpoint::Draw);
        let them = self.opponent_color();
        let opponent_offers = them.as_ref().is_some_and(|t| self.state.offers_draw(t));
        let current = eval.map(|e| e.score.centipawns());
        let accept = opponent_offers && self.decisions.should_accept_draw(current);
        if opponent_offers && self.timers.answer_draw(plies) {
            tracing::info!(game = %self.id, accept, score = ?current, "draw offered");
            if draws
                && !accept
                && let Err(e) = self.ctx.client.handle_draw(&self.id, false).await
            {
                tracing::warn!(game = %self.id, error = %e, "draw answer failed");
            }
        }
        let pieces = pos.board().occupied().count();
        let offer = draws && eval.is_some() && (accept || self.decisions.should_offer_draw(pieces));
        let white_view = |s: Score| match (self.us, s) {
            (Some(Color::Black), Score::Cp(cp)) => Score::Cp(-cp),
            (Some(Color::Black), Score::Mate(n)) => Score::Mate(-n),
            (_, s) => s,
        };
        let eval = eval.map(|e| Eval { white_score: white_view(e.score), depth: e.depth });
        if let Some(table) = self.table_mut() {
            table.ply_mut(plies).eval = eval;
        }
        self.moved_at_ply = Some(plies);
        let overhead = since.elapsed();
        let mut attempts = 0;
        loop {
            attempts += 1;
            match self.ctx.client.make_move(&self.id, &uci, offer).await {
                Ok(()) => {
                    tracing::info!(game = %self.id, mv = %uci, offer_draw = offer, overhead_us = overhead.as_micros() as u64, "moved");
                    self.last_sent = Some(SentMove { ply: plies, uci });
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

    /// Resigns at ply `plies` (not before the second: the server would abort instead) for the
    /// reason `why`; `true` when the server took it. A failed resignation forgets the scores
    /// and the verdict that led to it, and the game goes on.
    async fn resign(&mut self, plies: usize, why: &str) -> bool {
        if plies < 2 {
            return false;
        }
        tracing::info!(game = %self.id, why, "resigning");
        self.moved_at_ply = Some(plies);
        if let Err(e) = self.ctx.client.resign(&self.id).await {
            tracing::warn!(game = %self.id, error = %e, "resign failed; playing on");
            self.moved_at_ply = None;
            self.decisions.truncate(0);
            return false;
        }
        self.gave_up_on_the_server(GaveUp::Resigned);
        true
    }

    /// The server took our resignation or abort. PyChess says nothing more after a
    /// resignation (no `gameEnd`, its stream stays open): the game is over now, lost.
    fn gave_up_on_the_server(&mut self, how: GaveUp) {
        self.gave_up = Some(how);
        if self.platform == Platform::PyChess && how == GaveUp::Resigned {
            self.stop_following(End::Over(Ending::WeGaveUp { how, us: self.us }));
        }
    }

    async fn move_rejected(&mut self, plies: usize, uci: &str, e: &Error) -> Result<(), Resync> {
        self.moved_at_ply = None;
        let rejections = self.rejections.add(plies);
        tracing::warn!(game = %self.id, mv = %uci, error = %e, rejections, "move not accepted");
        if rejections >= MAX_REJECTIONS {
            // The server and we disagree for good: end the game rather than hang in it.
            self.moved_at_ply = Some(plies);
            let gave_up =
                if plies < 2 { self.ctx.client.abort(&self.id).await } else { self.ctx.client.resign(&self.id).await };
            match gave_up {
                Ok(()) if plies < 2 => self.gave_up_on_the_server(GaveUp::Aborted),
                Ok(()) => self.gave_up_on_the_server(GaveUp::Resigned),
                Err(e) => tracing::warn!(game = %self.id, error = %e, "could not end the game"),
            }
            return Ok(());
        }
        // Our view may be stale: reopen the stream, whose gameFull says where the game stands.
        Err(Resync::MoveRejected { uci: uci.to_owned(), error: e.to_string() })
    }

    fn on_gone(&mut self, gone: OpponentGone) {
        if !gone.gone {
            self.timers.opponent_back();
            return;
        }
        if let Some(secs) = gone.claim_win_in_seconds {
            self.timers.opponent_gone(Instant::now(), Duration::from_secs(secs.max(0).unsigned_abs()));
            tracing::info!(game = %self.id, claim_in_s = secs, "opponent left");
        }
    }

    /// Timers: abort a game the opponent does not start, claim a game the opponent left.
    async fn on_tick(&mut self) {
        if self.over().is_some() || self.rules().is_none() {
            return;
        }
        let plies = self.state.ply();
        let our_turn = self.rules().map(|r| r.turn_after(plies)) == self.us;
        // PyChess lists no ongoing games (`/api/account/playing` is always empty): a game set
        // aside there would never be found again, so its stream stays open.
        if self.correspondence && self.platform == Platform::Lichess && self.search.is_none() {
            let stopping = *self.ctx.stopping.borrow();
            let silent = self.state_at.elapsed();
            // On a stop, a game still waiting for a thinking seat waits for the next run
            // instead (its clock is days; the start-up check-in resumes it).
            let waiting_for_seat = our_turn && self.seat.as_ref().is_some_and(|s| !s.seated());
            let opponents_turn = !our_turn && (stopping || silent >= self.ctx.config.correspondence.disconnect_after());
            if opponents_turn || (stopping && waiting_for_seat) {
                tracing::info!(game = %self.id, silent_s = silent.as_secs(), stopping, "correspondence game set aside until our turn");
                self.stop_following(End::SetAside);
                return;
            }
        }
        let due = self.timers.due(Instant::now(), plies, our_turn);
        // The opponent of a correspondence game has days for a move: only the server aborts.
        if due.abort && !self.correspondence {
            self.timers.abort_sent();
            tracing::info!(game = %self.id, waited_s = self.ctx.config.abort.abort_s, "opponent did not move; aborting");
            match self.ctx.client.abort(&self.id).await {
                Ok(()) => self.gave_up = Some(GaveUp::Aborted),
                Err(e) => tracing::warn!(game = %self.id, error = %e, "abort failed"),
            }
        }
        if due.claim {
            self.timers.claim_sent();
            tracing::info!(game = %self.id, "claiming victory");
            if let Err(e) = self.ctx.client.claim_victory(&self.id).await {
                tracing::warn!(game = %self.id, error = %e, "claim failed");
                self.timers.claim_failed(Instant::now());
            }
        }
    }

    async fn stop_search_unless_for(&mut self, game: &Game) {
        if self.search.as_ref().is_some_and(|s| !s.is_for(game)) {
            self.stop_search().await;
        }
    }

    async fn stop_search(&mut self) {
        if let Some(search) = self.search.take()
            && let Some(player) = self.player.as_mut()
        {
            player.stop(search).await;
        }
    }

    /// Whether the game still needs its thinking seat: its position is not known yet, or a
    /// search runs, or our move is due.
    fn needs_seat(&self) -> bool {
        self.game().is_none() || self.search.is_some() || self.move_due(self.state.ply())
    }

    /// Gives the thinking seat back (or leaves the line), after ending the correspondence
    /// engine, so that its memory is free before the next game's engine is made.
    async fn release_seat(&mut self) {
        if self.seat.is_none() {
            return;
        }
        if self.correspondence {
            self.stop_search().await;
            if let Some(player) = self.player.take() {
                player.quit().await;
            }
        }
        self.seat = None;
    }

    /// Goodbye, PGN, summary.
    async fn finish(mut self) -> GameSummary {
        self.stop_search().await;
        self.release_seat().await;
        let ponder = self.player.as_ref().map(crate::player::Player::ponder_stats).unwrap_or_default();
        if let Some(player) = self.player.take() {
            player.quit().await;
        }
        // A game the task gave up on has no ending it knows of.
        let status = self.over().map_or("unknown", Ending::status).to_owned();
        let result =
            self.over().map_or_else(|| GameResult::pgn_of(game_result(None, &status)), Ending::result).to_owned();
        let plies = self.state.ply();
        if self.over().is_some() {
            let greeting = self.ctx.config.greeting.clone();
            self.chat(ChatRoom::Player, &greeting.goodbye).await;
            self.chat(ChatRoom::Spectator, &greeting.goodbye_spectators).await;
        }
        let error = match self.end() {
            Some(End::SetAside) => {
                tracing::info!(game = %self.id, plies, "game stream closed until our turn");
                let (id, pgn, error) = (self.id, None, None);
                return GameSummary { id, result, status, plies, pgn, error, set_aside: true, retry: false };
            }
            Some(End::Failed { error, retry: true }) => {
                let error = Some(error.clone());
                tracing::warn!(game = %self.id, plies, error = ?error, "gave up following the game for now; it goes on and is opened again while the server lists it");
                return GameSummary {
                    id: self.id,
                    result,
                    status,
                    plies,
                    pgn: None,
                    error,
                    set_aside: false,
                    retry: true,
                };
            }
            Some(End::Failed { error, retry: false }) => Some(error.clone()),
            Some(End::Over(_)) | None => None,
        };
        let pgn_config = &self.ctx.config.pgn;
        let mut pgn = None;
        if !pgn_config.dir.as_os_str().is_empty()
            && (status != "aborted" || pgn_config.aborted)
            && let Some(log) = self.log(&status, &result)
        {
            match log.write(&pgn_config.dir, pgn_config, &self.ctx.my_name) {
                Ok(path) => pgn = Some(path),
                Err(e) => tracing::error!(game = %self.id, error = %e, "PGN not written"),
            }
        }
        tracing::info!(
            game = %self.id,
            result,
            status,
            plies,
            ponder_hits = ponder.hits,
            ponder_misses = ponder.misses,
            pondered_ms = ponder.pondered.as_millis() as u64,
            error = ?error,
            "game over"
        );
        GameSummary { id: self.id, result, status, plies, pgn, error, set_aside: false, retry: false }
    }

    fn log(&self, status: &str, result: &str) -> Option<GameLog> {
        let table = self.table()?;
        let (rules, full) = (&table.rules, &table.full);
        let game = table.game.as_ref()?;
        let name = |p: &Player| {
            p.name.clone().or_else(|| p.ai_level.map(|l| format!("Stockfish level {l}"))).unwrap_or_else(|| "?".into())
        };
        let moves = game
            .moves()
            .iter()
            .enumerate()
            .map(|(i, &mv)| {
                let record = table.plies.get(i).cloned().unwrap_or_default();
                LoggedMove {
                    mv,
                    clock_ms: record.clock_ms,
                    eval: record.eval,
                    pv: if record.pv.first() == Some(&mv) { record.pv } else { Vec::new() },
                }
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
            time_control: full
                .clock
                .map(|c| ClockSeen { initial_ms: c.initial, increment_ms: c.increment })
                .or(table.clock_seen)
                .map_or_else(
                    || "-".to_owned(),
                    |clock| format!("{}+{}", clock.initial_ms / 1000, clock.increment_ms / 1000),
                ),
            start: rules.start,
            moves,
            result: result.to_owned(),
            termination: status.to_owned(),
            date: ferz_chess::pgn_date_today(),
        })
    }
}

#[cfg(test)]
mod tests {
    //! The task's bookkeeping, fed the messages a server sends. Every case here keeps the
    //! task off the network: it is never our turn (or the search stops before the move),
    //! greetings are empty and no PGN is written; on PyChess the game's page, read at its end,
    //! is refused at once (nothing listens on the client's port).

    use ferz_lichess::{Client, ClientConfig, GameStatus, Token};
    use serde_json::json;

    use super::*;
    use crate::book::Books;
    use crate::config::BotConfig;
    use crate::tablebase::Tablebases;
    use seats::ThinkingSeats;

    /// A task on `platform` for a game where we (`ferzbot`) play white.
    fn task(platform: Platform) -> GameTask {
        let mut client = ClientConfig::new("http://127.0.0.1:9", Token::new("unused"));
        client.platform = platform;
        // PyChess's game page, read at a game's end, is not there: fail at once.
        client.retry.max_retries = 0;
        let mut config = BotConfig::default();
        config.engine.hash_mb = 1;
        config.greeting.hello = String::new();
        config.greeting.goodbye = String::new();
        config.pgn.dir = std::path::PathBuf::new();
        let (_exit, exit_now) = watch::channel(false);
        let (chat, _queue) = crate::chat::hub();
        let (_stop, stopping) = watch::channel(false);
        let ctx = GameContext {
            client: Client::new(client).unwrap(),
            config: Arc::new(config),
            me: "ferzbot".into(),
            my_name: "ferzbot".into(),
            books: Books::default(),
            tablebases: Tablebases::default(),
            exit_now,
            chat,
            stopping,
            seats: ThinkingSeats::new(1),
        };
        GameTask::new(Arc::new(ctx), "game0001".into(), &GameEventInfo::default())
    }

    fn state(moves: &str, status: &str, winner: Option<&str>) -> GameState {
        serde_json::from_value(json!({
            "type": "gameState", "moves": moves, "wtime": 60_000, "btime": 60_000, "winc": 0, "binc": 0,
            "status": status, "winner": winner,
        }))
        .unwrap()
    }

    fn full(moves: &str) -> GameEvent {
        let full: GameFull = serde_json::from_value(json!({
            "id": "game0001", "variant": {"key": "standard"}, "initialFen": "startpos",
            "white": {"id": "ferzbot", "name": "ferzbot"}, "black": {"id": "alice", "name": "alice"},
            "state": state(moves, "started", None),
        }))
        .unwrap();
        GameEvent::GameFull(Box::new(full))
    }

    fn plies(task: &GameTask) -> usize {
        task.game().map_or(0, |g| g.moves().len())
    }

    /// The clocks of the task's ply records.
    fn clocks(task: &GameTask) -> Vec<Option<i64>> {
        task.table().unwrap().plies.iter().map(|record| record.clock_ms).collect()
    }

    /// Gives ply `ply` our evaluation and principal variation.
    fn searched(task: &mut GameTask, ply: usize, eval: Option<(Score, u32)>, pv: Vec<Move>) {
        let record = task.table_mut().unwrap().ply_mut(ply);
        record.eval = eval.map(|(white_score, depth)| Eval { white_score, depth });
        record.pv = pv;
    }

    #[tokio::test]
    async fn the_position_follows_the_full_move_list_through_a_takeback() {
        let mut task = task(Platform::Lichess);
        task.on_event(full("e2e4")).await.unwrap();
        assert_eq!((task.us, task.opponent_name.as_str(), plies(&task)), (Some(Color::White), "alice", 1));
        task.on_event(GameEvent::GameState(state("e2e4 e7e5 g1f3", "started", None))).await.unwrap();
        assert_eq!((plies(&task), clocks(&task).len()), (3, 3));
        assert_eq!(clocks(&task)[2], Some(60_000), "the mover's clock after its move");
        // A takeback shortens the list; what was taken back is forgotten.
        task.on_event(GameEvent::GameState(state("e2e4", "started", None))).await.unwrap();
        assert_eq!((plies(&task), clocks(&task).len()), (1, 1));
        assert!(task.end().is_none());
    }

    #[tokio::test]
    async fn what_the_task_cannot_follow_is_a_resync() {
        let mut task = task(Platform::Lichess);
        let early = task.on_event(GameEvent::GameState(state("e2e4", "started", None))).await.unwrap_err();
        assert!(matches!(early, Resync::StateBeforeFull), "{early}");
        task.on_event(full("e2e4")).await.unwrap();
        let illegal = task.on_event(GameEvent::GameState(state("e2e4 e7e4", "started", None))).await.unwrap_err();
        assert!(matches!(illegal, Resync::CannotFollow(_)), "{illegal}");
        assert!(illegal.to_string().starts_with("cannot follow the game: "), "{illegal}");
        assert_eq!(plies(&task), 1, "the last good position stays");
    }

    #[tokio::test]
    async fn a_finished_state_is_the_servers_ending() {
        let mut task = task(Platform::Lichess);
        task.on_event(full("f2f3")).await.unwrap();
        let mate = state("f2f3 e7e5 g2g4 d8h4", "mate", Some("black"));
        task.on_event(GameEvent::GameState(mate)).await.unwrap();
        assert_eq!(task.over(), Some(&Ending::Reported { status: GameStatus::Mate, winner: Some(Color::Black) }));
        let summary = task.finish().await;
        assert_eq!((summary.result.as_str(), summary.status.as_str(), summary.plies), ("0-1", "mate", 4));
        assert_eq!((summary.pgn, summary.error), (None, None));
    }

    #[tokio::test]
    async fn pychess_game_ends_are_judged_from_the_board() {
        let mut task = task(Platform::PyChess);
        task.on_event(full("f2f3 e7e5 g2g4")).await.unwrap();
        // The states say `started` to the end; the mate is on the board.
        task.on_event(GameEvent::GameState(state("f2f3 e7e5 g2g4 d8h4", "started", None))).await.unwrap();
        assert!(task.over().is_none());
        task.on_event(GameEvent::GameEnd { id: None }).await.unwrap();
        let summary = task.finish().await;
        assert_eq!((summary.result.as_str(), summary.status.as_str()), ("0-1", "mate"));
        // Our own mating move is never shown: without the server's record, the task adds the
        // move the server took from us.
        let mut task = super::tests::task(Platform::PyChess);
        task.on_event(full("e2e4 f7f6 d2d4 g7g5")).await.unwrap();
        task.last_sent = Some(SentMove { ply: 4, uci: "d1h5".into() });
        task.on_event(GameEvent::GameEnd { id: None }).await.unwrap();
        let summary = task.finish().await;
        assert_eq!((summary.result.as_str(), summary.status.as_str(), summary.plies), ("1-0", "mate", 5));
        // Nothing on the board, nobody out of time: the result is unknown, not a guess.
        let mut task = super::tests::task(Platform::PyChess);
        task.on_event(full("e2e4 e7e5")).await.unwrap();
        task.on_event(GameEvent::GameEnd { id: None }).await.unwrap();
        assert_eq!(task.over(), Some(&Ending::Unknown));
    }

    #[tokio::test]
    async fn eval_notes_give_the_last_score_and_the_pv_of_the_move_played() {
        let mut task = task(Platform::Lichess);
        task.on_event(full("e2e4 e7e5")).await.unwrap();
        assert_eq!(task.eval_note(), None, "nothing searched yet");
        let game = task.game().cloned().unwrap();
        let (e4, e5) = (game.moves()[0], game.moves()[1]);
        let nf3 = game.position().parse_uci("g1f3").unwrap();
        searched(&mut task, 0, Some((Score::Cp(20), 9)), vec![e4, e5, nf3]);
        let note = task.eval_note().unwrap();
        assert_eq!((note.white_score, note.depth), (Score::Cp(20), 9));
        assert_eq!(note.pv, ["1. e4", "e5", "2. Nf3"]);
        // A PV of another move (a takeback replaced it) is not shown; the score is.
        let d4 = ferz_chess::Position::new(ferz_chess::Variant::Chess).parse_uci("d2d4").unwrap();
        searched(&mut task, 0, Some((Score::Cp(20), 9)), vec![d4]);
        assert!(task.eval_note().unwrap().pv.is_empty());
        // The move sent but not yet back from the server: the PV starts from the current position.
        searched(&mut task, 2, Some((Score::Mate(2), 12)), vec![nf3]);
        let note = task.eval_note().unwrap();
        assert_eq!((note.white_score, note.pv), (Score::Mate(2), vec!["2. Nf3".to_owned()]));
    }

    /// A three-day correspondence game where we play white, as Lichess streams it.
    fn correspondence_full(moves: &str) -> GameEvent {
        let mut state = state(moves, "started", None);
        (state.wtime, state.btime) = (259_200_000, 259_200_000);
        let full: GameFull = serde_json::from_value(json!({
            "id": "game0001", "variant": {"key": "standard"}, "initialFen": "startpos", "speed": "correspondence",
            "daysPerTurn": 3, "white": {"id": "ferzbot", "name": "ferzbot"}, "black": {"id": "alice", "name": "alice"},
            "state": state,
        }))
        .unwrap();
        GameEvent::GameFull(Box::new(full))
    }

    #[tokio::test]
    async fn a_correspondence_game_is_set_aside_after_the_opponents_silence_only() {
        let long_ago = || Instant::now().checked_sub(Duration::from_secs(400)).unwrap();
        // The opponent to move and silent past disconnect_s (300 s): set aside.
        let mut task = task(Platform::Lichess);
        task.on_event(correspondence_full("e2e4")).await.unwrap();
        assert!(task.correspondence);
        task.on_tick().await;
        assert!(task.end() != Some(&End::SetAside), "not silent long enough yet");
        task.state_at = long_ago();
        task.on_tick().await;
        assert_eq!(task.end(), Some(&End::SetAside));
        let summary = task.finish().await;
        assert!(summary.set_aside && summary.pgn.is_none() && summary.error.is_none(), "{summary:?}");
        // A real-time game, and a correspondence game on PyChess (which lists no ongoing games),
        // stay open.
        let mut live = task_with_full(Platform::Lichess, full("e2e4")).await;
        let mut pychess = task_with_full(Platform::PyChess, correspondence_full("e2e4")).await;
        for task in [&mut live, &mut pychess] {
            task.state_at = long_ago();
            task.on_tick().await;
            assert!(task.end() != Some(&End::SetAside));
        }
    }

    #[tokio::test]
    async fn a_correspondence_search_waits_for_its_seat_and_has_an_engine_only_while_seated() {
        let mut task = task(Platform::Lichess);
        let other = task.ctx.seats.ask("other", Urgency::of(Some(10)));
        // Our move (we play white, no book): the seat is taken, so the task waits in line.
        task.on_event(correspondence_full("")).await.unwrap();
        assert!(task.seat.as_ref().is_some_and(|seat| !seat.seated()));
        assert!(task.search.is_none() && task.player.is_none(), "no engine while waiting");
        drop(other);
        assert!(task.seat.as_ref().is_some_and(Ticket::seated), "the freed seat is ours");
        task.on_seat().await.unwrap();
        assert!(task.search.is_some() && task.player.is_some(), "searching with its own engine");
        assert!(task.needs_seat());
        // Given back (here before the move): the search stops and the engine is ended.
        task.release_seat().await;
        assert!(task.seat.is_none() && task.search.is_none() && task.player.is_none());
        assert!(task.ctx.seats.ask("next", Urgency::of(None)).seated());
    }

    async fn task_with_full(platform: Platform, full: GameEvent) -> GameTask {
        let mut task = task(platform);
        task.on_event(full).await.unwrap();
        task
    }

    #[tokio::test]
    async fn a_leaving_opponent_is_claimed_only_where_the_platform_can() {
        let gone = OpponentGone { gone: true, claim_win_in_seconds: Some(0) };
        for (platform, claims) in [(Platform::Lichess, true), (Platform::PyChess, false)] {
            let mut task = task(platform);
            task.on_event(full("e2e4")).await.unwrap();
            task.on_event(GameEvent::OpponentGone(gone)).await.unwrap();
            assert_eq!(task.timers.due(Instant::now(), 1, false).claim, claims, "{platform}");
            task.on_event(GameEvent::OpponentGone(OpponentGone { gone: false, ..gone })).await.unwrap();
            assert!(!task.timers.due(Instant::now(), 1, false).claim, "{platform}: came back");
        }
    }
}
