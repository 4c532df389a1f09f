//! The engine a game plays with, whatever it is: the ferz engine in process or an external UCI
//! engine ([`crate::config::EngineChoice`]). A game asks for a search of a position under its
//! clock and gets back a [`Thought`]: the move, the expected reply, the score, the depth and the
//! principal variation.
//!
//! Each search runs in its own task, which keeps the game going whatever the engine does:
//! - an external engine that crashes, or hangs (no `bestmove` within its time and
//!   `stall_ms`, no answer to `stop`), is killed and restarted (handshake, options, position)
//!   and searches again with what is left of the clock; when a restart cannot finish in time,
//!   or fails, the in-process engine plays a move after a short search, and the external
//!   engine is restarted in the background for the next move;
//! - an in-process search that panics is repeated with a fresh engine and a short limit;
//! - should that fail too, the last principal variation's move (or any legal move) is played.
//!
//! Every recovery is logged as a warning or error naming the game.
//!
//! Pondering: after our move the game starts a search of the expected reply
//! ([`Player::ponder_plan`]); the opponent's move then makes it a hit (the search goes on with
//! our clock running: in process through `Signals::ponderhit`, over UCI with `ponderhit`) or a
//! miss (it is stopped). [`PonderStats`] counts both per game.

mod budget;
mod external;
mod inprocess;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferz_chess::{Game, Move};
use ferz_engine::{Engine, Score, SearchLimits};
use ferz_uci::PonderStats;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub(crate) use budget::OurClock;

use crate::clock::engine_options;
use crate::config::{EngineChoice, EngineConfig, EngineKind, EngineVariant};

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Thought {
    /// The move to play.
    pub best: Move,
    /// The reply the engine expects (the second move of the principal variation).
    pub ponder: Option<Move>,
    /// The score from our side, when the engine reported one.
    pub score: Option<Score>,
    /// The depth of the last completed iteration (0 when unknown).
    pub depth: u32,
    /// Nodes searched (0 when unknown).
    pub nodes: u64,
    /// The principal variation, starting with `best` (the legal prefix of what the engine said).
    pub pv: Vec<Move>,
}

impl Thought {
    /// The PV in UCI notation from `position` (where `best` is played).
    #[cfg(test)]
    #[must_use]
    pub(crate) fn pv_uci(&self, position: &ferz_chess::Position) -> Vec<String> {
        let mut position = *position;
        self.pv
            .iter()
            .map(|&m| {
                let text = position.uci(m);
                position.play_unchecked(m);
                text
            })
            .collect()
    }
}

/// Why a search ended without a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NoMove {
    /// The game stopped it (a ponder miss, a takeback, the game's end).
    #[error("stopped")]
    Stopped,
    /// The position has no legal move.
    #[error("no legal move")]
    GameOver,
    /// The search task itself failed (a bug); the engine is replaced and the game should
    /// search again.
    #[error("the search failed")]
    Failed,
}

/// How the game's search is told what happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Signal {
    /// Search on.
    Run,
    /// The expected move came at this instant: our clock runs.
    PonderHit(Instant),
    /// Stop; the result is not wanted.
    Stop,
}

/// The last principal variation a running search reported, for the case where it dies.
type Progress = Arc<Mutex<Vec<Move>>>;

/// What the search task hands back: the engine, and the outcome.
type Finished = (Brain, Result<Thought, NoMove>);

/// A search in progress for one game.
pub(crate) struct Search {
    task: JoinHandle<Finished>,
    signal: watch::Sender<Signal>,
    /// The game it searches (for pondering: with the expected reply played).
    moves: Vec<Move>,
    /// While pondering: since when.
    pondering_since: Option<Instant>,
    /// It was a ponder search and the opponent played the expected move.
    hit: bool,
    /// The ply it searches (the game's length).
    pub ply: usize,
    /// When the state it answers arrived (after a ponder hit: the state with that move).
    pub state_at: Instant,
    /// When it started to count for the move (after a ponder hit: the hit).
    pub started: Instant,
}

/// A ponder search met the opponent's move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PonderOutcome {
    /// It was the expected move: the search goes on, now under our clock.
    Hit,
    /// Another move: the search must be stopped.
    Miss,
}

impl Search {
    /// Whether it searches the position after exactly these moves.
    #[must_use]
    pub(crate) fn is_for(&self, game: &Game) -> bool {
        self.moves == game.moves()
    }

    /// Whether it is a ponder search still waiting for the opponent's move.
    #[cfg(test)]
    #[must_use]
    pub(crate) fn is_pondering(&self) -> bool {
        self.pondering_since.is_some()
    }

    /// A state with the opponent's move arrived at `at` with the game now `game`: a hit turns
    /// the ponder search into the search for our move (from `at` on), a miss is reported for
    /// the caller to stop it. `None` when it is not a ponder search.
    pub(crate) fn meet(&mut self, game: &Game, at: Instant, stats: &mut PonderStats) -> Option<PonderOutcome> {
        let since = self.pondering_since?;
        if game.moves().len() < self.moves.len() {
            return None; // a takeback: not the opponent's answer
        }
        self.pondering_since = None;
        if self.is_for(game) {
            stats.hits += 1;
            stats.pondered += at.saturating_duration_since(since);
            self.hit = true;
            self.state_at = at;
            self.started = at;
            let _ = self.signal.send(Signal::PonderHit(at));
            Some(PonderOutcome::Hit)
        } else {
            stats.misses += 1;
            Some(PonderOutcome::Miss)
        }
    }

    /// Whether it was a ponder search that the opponent's move made a hit.
    #[must_use]
    pub(crate) fn was_hit(&self) -> bool {
        self.hit
    }

    /// Asks the search to end; its result is not wanted.
    pub(crate) fn stop(&self) {
        let _ = self.signal.send(Signal::Stop);
    }

    /// Waits for the search's end (cancel safe: it only polls the task).
    pub(crate) async fn finished(&mut self) -> SearchEnd {
        SearchEnd((&mut self.task).await)
    }
}

/// The end of a search, for [`Player::settle`].
pub(crate) struct SearchEnd(Result<Finished, tokio::task::JoinError>);

/// What a search needs: the game, the limits, and our clock.
#[derive(Clone, Debug)]
pub(crate) struct SearchRequest {
    /// The game to search; for pondering, it ends with the move expected from the opponent.
    pub game: Game,
    /// Limits, from [`crate::clock::search_limits`]; `ponder` set for pondering.
    pub limits: SearchLimits,
    /// Our time left when the clock (re)starts (`None`: no clock).
    pub clock: Option<Duration>,
    /// When the state being answered arrived (for pondering: when the search starts).
    pub state_at: Instant,
}

/// The engine itself, moved into each search's task and back.
enum Brain {
    /// The ferz engine (`None` after a failure: a fresh one is made).
    Ferz(Option<Box<Engine>>),
    /// An external engine and its stand-in.
    Uci(external::Seat),
}

/// What a search task knows of the game and the settings.
#[derive(Clone)]
struct Context {
    game_id: Arc<str>,
    choice: Arc<EngineChoice>,
    config: Arc<EngineConfig>,
    /// The rules of the game (what the external engine is set up for).
    variant: ferz_chess::Variant,
}

impl Context {
    fn overhead(&self) -> Duration {
        Duration::from_millis(self.config.move_overhead_ms)
    }

    /// A fresh in-process engine with the settings' hash and threads.
    fn fresh_engine(&self) -> Box<Engine> {
        let options = ferz_engine::EngineOptions { syzygy: self.choice.syzygy.clone(), ..engine_options(&self.config) };
        let mut engine = Box::new(Engine::new(options));
        engine.clear();
        engine
    }
}

/// The engine of one game.
pub(crate) struct Player {
    ctx: Context,
    /// `None` while a search runs (or after a search task was lost: rebuilt on demand).
    brain: Option<Brain>,
    /// Our move and the reply it expects, at the ply of our move, until pondering starts.
    plan: Option<(usize, Move, Move)>,
    last: Option<Thought>,
    stats: PonderStats,
}

impl Player {
    /// The engine for game `game_id` played under `variant`'s rules with `choice`. An external
    /// engine starts at once in the background, so that it is ready for the first move.
    #[must_use]
    pub(crate) fn new(
        game_id: &str,
        choice: EngineChoice,
        config: &EngineConfig,
        variant: ferz_chess::Variant,
    ) -> Player {
        let ctx =
            Context { game_id: game_id.into(), choice: Arc::new(choice), config: Arc::new(config.clone()), variant };
        let brain = match ctx.choice.kind {
            EngineKind::Ferz => Brain::Ferz(Some(ctx.fresh_engine())),
            EngineKind::Uci => Brain::Uci(external::Seat::starting(&ctx)),
        };
        tracing::info!(game = %ctx.game_id, engine = %ctx.choice.describe(), ponder = ctx.choice.ponder, "engine chosen");
        Player { ctx, brain: Some(brain), plan: None, last: None, stats: PonderStats::default() }
    }

    /// Whether pondering is on for this game's engine.
    #[must_use]
    pub(crate) fn ponders(&self) -> bool {
        self.ctx.choice.ponder
    }

    /// Starts a search; `None` while another one runs.
    pub(crate) fn think(&mut self, request: SearchRequest) -> Option<Search> {
        let brain = self.brain.take()?;
        let (signal, receiver) = watch::channel(Signal::Run);
        let ctx = self.ctx.clone();
        let ply = request.game.moves().len();
        let moves = request.game.moves().to_vec();
        let pondering_since = request.limits.ponder.then_some(request.state_at);
        let state_at = request.state_at;
        let task = tokio::spawn(async move {
            match brain {
                Brain::Ferz(engine) => {
                    let engine = engine.unwrap_or_else(|| ctx.fresh_engine());
                    let (engine, outcome) =
                        inprocess::search(engine, &request, receiver, &ctx, inprocess::ENGINE).await;
                    (Brain::Ferz(Some(engine)), outcome)
                }
                Brain::Uci(seat) => {
                    let (seat, outcome) = external::search(seat, &request, receiver, &ctx).await;
                    (Brain::Uci(seat), outcome)
                }
            }
        });
        Some(Search { task, signal, moves, pondering_since, hit: false, ply, state_at, started: Instant::now() })
    }

    /// Takes the engine back from a finished search and returns its move. A search task that
    /// died (a bug) loses its engine: a new one is made, and the answer is [`NoMove::Failed`].
    ///
    /// # Errors
    /// Why there is no move.
    pub(crate) fn settle(&mut self, end: SearchEnd) -> Result<Thought, NoMove> {
        match end.0 {
            Ok((brain, outcome)) => {
                self.brain = Some(brain);
                let thought = outcome?;
                self.stats.moves += 1;
                self.last = Some(thought.clone());
                Ok(thought)
            }
            Err(e) => {
                tracing::error!(game = %self.ctx.game_id, error = %e, "the search task failed; starting a fresh engine");
                self.brain = Some(match self.ctx.choice.kind {
                    EngineKind::Ferz => Brain::Ferz(None),
                    EngineKind::Uci => Brain::Uci(external::Seat::starting(&self.ctx)),
                });
                Err(NoMove::Failed)
            }
        }
    }

    /// Stops `search` and takes the engine back.
    pub(crate) async fn stop(&mut self, mut search: Search) {
        search.stop();
        let end = search.finished().await;
        let _ = self.settle(end);
    }

    /// The last move the engine found, with its score, depth and principal variation.
    #[cfg(test)]
    #[must_use]
    pub(crate) fn last(&self) -> Option<&Thought> {
        self.last.as_ref()
    }

    /// Ponder hits and misses so far.
    #[must_use]
    pub(crate) fn ponder_stats(&self) -> PonderStats {
        self.stats
    }

    /// The counters, for [`Search::meet`].
    pub(crate) fn ponder_stats_mut(&mut self) -> &mut PonderStats {
        &mut self.stats
    }

    /// Remembers, as we play `ours` at ply `ply`, the reply `thought` expects, for
    /// [`Player::ponder_move`] once the server shows our move.
    pub(crate) fn ponder_plan(&mut self, ply: usize, ours: Move, thought: &Thought) {
        self.plan = thought.ponder.map(|expected| (ply, ours, expected));
    }

    /// The move to ponder on now that the game is `game`: the planned reply, if our planned
    /// move is the game's last one and the reply is legal. Each plan is used once.
    pub(crate) fn ponder_move(&mut self, game: &Game) -> Option<Move> {
        let (ply, ours, expected) = self.plan.take()?;
        let moves = game.moves();
        (moves.len() == ply + 1 && moves[ply] == ours && game.position().legal_moves().contains(&expected))
            .then_some(expected)
    }

    /// Ends the engine: `quit` to an external engine (which is killed if it does not exit).
    pub(crate) async fn quit(mut self) {
        if let Some(Brain::Uci(seat)) = self.brain.take() {
            let _ = tokio::task::spawn_blocking(move || seat.quit()).await;
        }
    }
}

/// A move when every engine failed: the first move of the last principal variation reported,
/// if legal, else the first legal move. `None` only without legal moves.
fn last_resort(game: &Game, progress: &Progress) -> Option<Thought> {
    let position = game.position();
    let legal = position.legal_moves();
    let pv = progress.lock().map(|pv| pv.clone()).unwrap_or_default();
    let best = pv.first().copied().filter(|m| legal.contains(m)).or_else(|| legal.first().copied())?;
    Some(Thought { best, ponder: None, score: None, depth: 0, nodes: 0, pv: vec![best] })
}

/// The game's signals as a search task follows them.
struct SignalWatch {
    receiver: watch::Receiver<Signal>,
    /// When the expected move came, if it did.
    hit_at: Option<Instant>,
    /// The game asked the search to stop (or dropped it).
    stopped: bool,
}

impl SignalWatch {
    fn new(receiver: watch::Receiver<Signal>) -> SignalWatch {
        let current = *receiver.borrow();
        let mut watch = SignalWatch { receiver, hit_at: None, stopped: false };
        watch.absorb(current);
        watch
    }

    fn absorb(&mut self, signal: Signal) {
        match signal {
            Signal::Run => {}
            Signal::PonderHit(at) => {
                self.hit_at.get_or_insert(at);
            }
            Signal::Stop => self.stopped = true,
        }
    }

    /// The next signal. A game that dropped its search counts as `Stop`; call this only
    /// while not stopped (after that it returns at once).
    async fn next(&mut self) -> Signal {
        let signal = match self.receiver.changed().await {
            Ok(()) => *self.receiver.borrow_and_update(),
            Err(_) => Signal::Stop,
        };
        self.absorb(signal);
        signal
    }

    /// Our clock as this search sees it: running since the state arrived, or, for a ponder
    /// search, since the hit (not at all before it).
    fn clock(&self, request: &SearchRequest) -> OurClock {
        let since = if request.limits.ponder { self.hit_at } else { Some(request.state_at) };
        OurClock { left: request.clock, since }
    }

    /// Whether our clock runs for this search.
    fn clock_runs(&self, request: &SearchRequest) -> bool {
        !request.limits.ponder || self.hit_at.is_some()
    }
}

/// An external engine that cannot play: it does not start, lacks a variant or an option.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {message}")]
pub struct EngineCheckError {
    /// The setting that chose the engine.
    pub key: &'static str,
    /// What went wrong.
    pub message: String,
}

/// Starts each external engine the settings choose, once per rule set the bot accepts games
/// in (`variants`: the game variant keys), and quits it: a wrong command, option or a missing
/// variant stops the bot at start rather than at its first game. The engines are set up as
/// games set them up, with `[tablebase]`'s `SyzygyPath`. Returns a line per engine.
///
/// # Errors
/// The first engine that cannot play, with the key that chose it.
pub(crate) async fn check_engines(
    config: &EngineConfig,
    tablebases: &crate::tablebase::Tablebases,
    variants: &[&str],
) -> Result<Vec<String>, EngineCheckError> {
    let mut checked: Vec<(EngineVariant, ferz_chess::Variant)> = Vec::new();
    let mut report = Vec::new();
    for &key in variants {
        let family = EngineVariant::of_key(key);
        let rules = match key {
            "chess960" | "fromPosition" => ferz_chess::Variant::Chess960,
            "shatranj" => ferz_chess::Variant::Shatranj,
            _ => ferz_chess::Variant::Chess,
        };
        let choice = tablebases.equip(config.choice(family));
        if choice.kind != EngineKind::Uci || checked.contains(&(family, rules)) {
            continue;
        }
        checked.push((family, rules));
        let timeouts = ferz_uci::Timeouts {
            handshake: Duration::from_secs(config.handshake_timeout_s),
            ready: Duration::from_secs(config.handshake_timeout_s),
        };
        let started = tokio::task::spawn_blocking(move || {
            let setup = ferz_uci::Setup { variant: rules, options: &choice.options, ponder: choice.ponder };
            let engine = ferz_uci::UciEngine::start(&choice.launch, &setup, timeouts)?;
            let name = engine.id_name().to_owned();
            engine.quit();
            Ok::<_, ferz_uci::UciError>(name)
        })
        .await;
        let name = match started {
            Ok(Ok(name)) => name,
            Ok(Err(e)) => return Err(EngineCheckError { key: config.command_key(family), message: e.to_string() }),
            Err(e) => return Err(EngineCheckError { key: config.command_key(family), message: e.to_string() }),
        };
        report.push(format!("{name} for {key}"));
    }
    Ok(report)
}

/// A warning when pondering games would compete for the cores: each pondering game keeps its
/// engine's threads busy on the opponent's time, so with more threads than cores the games'
/// own searches get less of the machine (their time use follows the wall clock: they play
/// weaker moves, not later ones).
#[must_use]
pub(crate) fn ponder_warning(config: &EngineConfig, concurrency: usize, cores: usize) -> Option<String> {
    let ponders = EngineVariant::ALL.iter().any(|&v| config.choice(v).ponder);
    let busy = concurrency.saturating_mul(config.threads);
    (ponders && busy > cores).then(|| {
        format!(
            "pondering with {concurrency} games of {} thread(s) on {cores} cores: the searches will compete for the cores (set [engine] ponder = false or lower the concurrency)",
            config.threads
        )
    })
}

#[cfg(test)]
mod tests {
    use ferz_chess::{Position, Variant};

    use super::*;

    #[test]
    fn pondering_more_games_than_cores_is_worth_a_warning() {
        let mut config = EngineConfig::default();
        assert_eq!(ponder_warning(&config, 2, 2), None);
        let warning = ponder_warning(&config, 4, 2).unwrap();
        assert!(warning.starts_with("pondering with 4 games of 1 thread(s) on 2 cores"), "{warning}");
        config.threads = 2;
        assert!(ponder_warning(&config, 2, 2).is_some());
        config.ponder = false;
        assert_eq!(ponder_warning(&config, 64, 2), None);
    }

    #[test]
    fn a_ponder_plan_is_used_once_and_only_after_our_move() {
        let config = EngineConfig { hash_mb: 1, ..EngineConfig::default() };
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let _guard = runtime.enter();
        let mut player = Player::new("g", config.choice(EngineVariant::Standard), &config, Variant::Chess);
        let mut game = Game::new(Position::new(Variant::Chess));
        let ours = game.position().parse_uci("e2e4").unwrap();
        let mut after = *game.position();
        after.play_unchecked(ours);
        let expected = after.parse_uci("e7e5").unwrap();
        let thought = Thought { best: ours, ponder: Some(expected), score: None, depth: 0, nodes: 0, pv: vec![ours] };
        player.ponder_plan(0, ours, &thought);
        assert_eq!(player.ponder_move(&game), None, "our move is not on the board yet: the plan is dropped");
        player.ponder_plan(0, ours, &thought);
        game.play(ours).unwrap();
        assert_eq!(player.ponder_move(&game), Some(expected));
        assert_eq!(player.ponder_move(&game), None, "used once");
    }

    #[test]
    fn a_ponder_search_meets_the_opponents_move() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let config = EngineConfig { hash_mb: 1, nodes: 300, ..EngineConfig::default() };
            let mut player = Player::new("g", config.choice(EngineVariant::Standard), &config, Variant::Chess);
            let mut game = Game::new(Position::new(Variant::Chess));
            game.play_uci("e2e4").unwrap();
            let mut pondered = game.clone();
            pondered.play_uci("e7e5").unwrap();
            let limits = SearchLimits { ponder: true, ..SearchLimits::nodes(300) };
            let request = SearchRequest { game: pondered.clone(), limits, clock: None, state_at: Instant::now() };
            let mut search = player.think(request.clone()).unwrap();
            assert!(player.think(request.clone()).is_none(), "one search at a time");
            let mut stats = PonderStats::default();
            let at = Instant::now();
            assert_eq!(search.meet(&game, at, &mut stats), None, "not the opponent's answer yet");
            assert_eq!(search.meet(&pondered, at, &mut stats), Some(PonderOutcome::Hit));
            assert!(search.was_hit() && !search.is_pondering() && search.started == at);
            let end = search.finished().await;
            let thought = player.settle(end).unwrap();
            assert!(pondered.position().legal_moves().contains(&thought.best));
            assert_eq!(player.last(), Some(&thought));
            // A miss: another reply; the caller stops the search, which ends without a move.
            let mut search = player.think(request).unwrap();
            let mut other = game.clone();
            other.play_uci("c7c5").unwrap();
            assert_eq!(search.meet(&other, Instant::now(), &mut stats), Some(PonderOutcome::Miss));
            assert!(!search.is_for(&other));
            player.stop(search).await;
            assert_eq!((stats.hits, stats.misses), (1, 1));
            assert!(
                player
                    .think(SearchRequest {
                        game,
                        limits: SearchLimits::nodes(100),
                        clock: None,
                        state_at: Instant::now()
                    })
                    .is_some(),
                "the engine is back after the stop"
            );
        });
    }
}
