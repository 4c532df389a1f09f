//! The ferz search engine.
//!
//! [`Engine`] searches a [`ferz_chess::Game`] (a position with the history that the repetition
//! rule needs) under [`SearchLimits`], reporting progress through a callback and returning a
//! [`SearchResult`]. The UCI front end, the Lichess bot and the self-play worker all drive it
//! through this API, in process.
//!
//! ```
//! use ferz_chess::{Game, Position, Variant};
//! use ferz_engine::{Engine, EngineOptions, SearchLimits, Signals};
//!
//! let mut engine = Engine::new(EngineOptions::default());
//! let game = Game::new(Position::new(Variant::Chess));
//! let result = engine.search(&game, &SearchLimits::depth(6), &Signals::default(), &mut |_| {});
//! assert!(result.best.is_some());
//! ```

pub mod bench;
pub mod eval;
mod history;
mod limits;
mod movepick;
pub mod nnue;
pub mod score;
mod search;
pub mod see;
mod time;
pub mod tt;
pub mod uci;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ferz_chess::{Game, Move};

pub use limits::SearchLimits;
pub use nnue::Nets;
pub use score::Score;
pub use search::MAX_PLY;
use search::{SharedSearch, Worker};
pub use time::{SearchProgress, TimeBudget};
pub use tt::Bound;
use tt::TranspositionTable;

/// Engine settings (the UCI options that shape the search).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Search threads (Lazy SMP).
    pub threads: usize,
    /// Principal variations to report.
    pub multi_pv: usize,
    /// Time kept back per move for communication delays.
    pub move_overhead: Duration,
    /// Whether to report win/draw/loss estimates.
    pub show_wdl: bool,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            hash_mb: 16,
            threads: 1,
            multi_pv: 1,
            move_overhead: Duration::from_millis(10),
            show_wdl: false,
        }
    }
}

/// Flags the caller sets while a search runs.
#[derive(Debug, Default)]
pub struct Signals {
    /// Stop as soon as possible and return the best move so far.
    pub stop: AtomicBool,
    /// The opponent played the pondered move: start the clock.
    pub ponderhit: AtomicBool,
}

/// Progress of a search, reported after each iteration (or aspiration failure) per PV line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    /// Iteration depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// Which line, from 1.
    pub multipv: u32,
    /// The line's score.
    pub score: Score,
    /// `Some` when the score is only a bound (the aspiration window failed).
    pub bound: Option<Bound>,
    /// Win/draw/loss per mille, when requested.
    pub wdl: Option<(u32, u32, u32)>,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Per mille of the hash table used by this search.
    pub hashfull: u32,
    /// Time since the search started.
    pub time: Duration,
    /// The line, starting with its first move.
    pub pv: Vec<Move>,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The move to play; `None` only when the game is already over.
    pub best: Option<Move>,
    /// The expected reply.
    pub ponder: Option<Move>,
    /// The score of the best move.
    pub score: Score,
    /// The deepest completed iteration.
    pub depth: u32,
    /// The deepest ply reached.
    pub seldepth: u32,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// The principal variation.
    pub pv: Vec<Move>,
    /// Win/draw/loss per mille of the score.
    pub wdl: (u32, u32, u32),
}

/// A chess, Chess960 and Shatranj search engine.
pub struct Engine {
    options: EngineOptions,
    tt: TranspositionTable,
    workers: Vec<Worker>,
    nets: Nets,
}

impl Engine {
    /// An engine with the given options.
    #[must_use]
    pub fn new(options: EngineOptions) -> Engine {
        let mut engine = Engine {
            tt: TranspositionTable::new(options.hash_mb),
            options,
            workers: Vec::new(),
            nets: Nets::default(),
        };
        engine.set_threads(engine.options.threads);
        engine
    }

    /// The current options.
    #[must_use]
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }

    /// Resizes the transposition table (its contents are lost).
    pub fn set_hash_mb(&mut self, megabytes: usize) {
        self.options.hash_mb = megabytes.max(1);
        self.tt = TranspositionTable::new(self.options.hash_mb);
    }

    /// Sets the number of search threads.
    pub fn set_threads(&mut self, threads: usize) {
        self.options.threads = threads.max(1);
        self.workers.truncate(self.options.threads);
        while self.workers.len() < self.options.threads {
            self.workers.push(Worker::new(self.workers.len()));
        }
    }

    /// Sets the number of principal variations to report.
    pub fn set_multi_pv(&mut self, lines: usize) {
        self.options.multi_pv = lines.max(1);
    }

    /// Sets the time kept back per move.
    pub fn set_move_overhead(&mut self, overhead: Duration) {
        self.options.move_overhead = overhead;
    }

    /// Turns win/draw/loss reporting on or off.
    pub fn set_show_wdl(&mut self, show: bool) {
        self.options.show_wdl = show;
    }

    /// The NNUE nets and whether they are used (`UseNNUE`, `EvalFile`, `EvalFileShatranj`).
    #[must_use]
    pub fn nets(&self) -> &Nets {
        &self.nets
    }

    /// Changes the NNUE nets or whether they are used; applies from the next search.
    pub fn nets_mut(&mut self) -> &mut Nets {
        &mut self.nets
    }

    /// Forgets everything learnt: hash table and move-ordering statistics (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        for worker in &mut self.workers {
            worker.clear();
        }
    }

    /// Searches the game's current position and returns the best move found.
    ///
    /// Runs until a limit is reached or `signals.stop` is set; an infinite or pondering search
    /// (before a ponder hit) only ends on `stop`. `info` receives progress from the calling
    /// thread after every iteration.
    pub fn search(
        &mut self,
        game: &Game,
        limits: &SearchLimits,
        signals: &Signals,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let start = Instant::now();
        let root = *game.position();
        let mut moves: Vec<Move> = root.legal_moves().to_vec();
        if !limits.searchmoves.is_empty() {
            let restricted: Vec<Move> = moves.iter().copied().filter(|m| limits.searchmoves.contains(m)).collect();
            if !restricted.is_empty() {
                moves = restricted;
            }
        }
        let budget = TimeBudget::new(limits, root.turn(), self.options.move_overhead, start);
        let show_wdl = self.options.show_wdl;
        if moves.is_empty() {
            // The game is over: nothing to search. Still honour an infinite search's contract
            // of returning only when stopped.
            wait_for_stop(limits, signals);
            // Lost (mated, or in Shatranj stalemated or bared): mate 0. Won by the bare-king
            // rule: the shortest win there is. Drawn: 0.
            let score = match root.outcome().and_then(ferz_chess::Outcome::winner) {
                Some(winner) if winner == root.turn() => Score::Mate(1),
                Some(_) => Score::Mate(0),
                None => Score::Cp(0),
            };
            return SearchResult {
                best: None,
                ponder: None,
                score,
                depth: 0,
                seldepth: 0,
                nodes: 0,
                pv: Vec::new(),
                wdl: score::wdl(score),
            };
        }
        self.tt.new_search();
        let multi_pv = self.options.multi_pv.min(moves.len()).max(1);
        let stop = AtomicBool::new(false);
        let nodes = AtomicU64::new(0);
        let untimed = limits.infinite || limits.ponder;
        let shared = SharedSearch {
            tt: &self.tt,
            stop: &stop,
            user_stop: &signals.stop,
            ponderhit: &signals.ponderhit,
            nodes: &nodes,
            budget,
            infinite: limits.infinite,
            pondering: limits.ponder,
            node_limit: limits.nodes,
        };
        let max_depth = limits.depth.map_or(MAX_PLY as i32 - 8, |d| (d as i32).clamp(1, MAX_PLY as i32 - 8));
        let (main, helpers) = self.workers.split_first_mut().expect("at least one worker");
        let net = self.nets.active(root.variant());
        for worker in std::iter::once(&mut *main).chain(helpers.iter_mut()) {
            worker.prepare(&root, game.keys(), &moves);
            worker.nnue.prepare(net.clone(), &root);
        }

        std::thread::scope(|scope| {
            for helper in helpers.iter_mut() {
                let shared = &shared;
                scope.spawn(move || {
                    // Helpers start at staggered depths so that threads spread over the tree.
                    let mut depth = 1 + (helper.id % 2) as i32;
                    while depth <= max_depth && !shared.should_stop() {
                        helper.aspiration(&root, depth, 0, shared);
                        if helper.stopped() {
                            break;
                        }
                        helper.complete_iteration(depth);
                        // A helper that reaches the depth limit first ends the search: its
                        // result is as deep as asked (see `deepest` below). Not under MultiPV:
                        // a helper searches one line, and the user asked for several at that
                        // depth, which only the main thread provides.
                        if depth == max_depth && limits.depth.is_some() && multi_pv == 1 {
                            shared.stop.store(true, Ordering::Relaxed);
                        }
                        depth += 1;
                    }
                    helper.flush_nodes(shared);
                });
            }

            let mut best_changes = 0.0f64;
            let mut last_best = None;
            let mut last_score: Option<i32> = None;
            for depth in 1..=max_depth {
                for pv_index in 0..multi_pv {
                    main.aspiration(&root, depth, pv_index, &shared);
                    // A later line may have come out better than an earlier one.
                    main.root_moves[..=pv_index].sort_by_key(|m| std::cmp::Reverse(m.score));
                    if main.stopped() {
                        break;
                    }
                }
                if main.stopped() && depth > 1 {
                    break;
                }
                main.complete_iteration(depth);
                let elapsed = start.elapsed();
                report(main, &shared, multi_pv, depth, elapsed, show_wdl, info);

                let best = main.root_moves[0].clone();
                if last_best.is_some_and(|m| m != best.mv) {
                    best_changes += 1.0;
                }
                best_changes *= 0.5;
                last_best = Some(best.mv);
                if let Some(mate) = limits.mate
                    && matches!(Score::from_internal(best.score), Score::Mate(m) if m > 0 && m as u32 <= mate)
                {
                    break;
                }
                let progress = SearchProgress {
                    best_move_changes: best_changes,
                    best_move_share: best.nodes as f64 / main.nodes.max(1) as f64,
                    score_drop: last_score.map_or(0, |last| (last - best.score).max(0)),
                };
                last_score = Some(best.score);
                if shared.clock_running() && budget.iteration_time_is_up(elapsed, &progress) {
                    break;
                }
                if is_mate_found(best.score, depth) && !untimed {
                    break;
                }
            }
            // An infinite search, or a ponder search without a hit, reports only when stopped.
            wait_for_stop(limits, signals);
            stop.store(true, Ordering::Relaxed);
            main.flush_nodes(&shared);
        });

        // Lazy SMP: a helper that completed a deeper iteration than the main thread has the
        // better-informed move (single-PV searches only; helpers search one line).
        let chosen =
            match helpers.iter().filter(|h| h.completed_depth > main.completed_depth).max_by_key(|h| h.completed_depth)
            {
                Some(helper) if multi_pv == 1 => {
                    report(helper, &shared, 1, helper.completed_depth, start.elapsed(), show_wdl, info);
                    helper
                }
                _ => &*main,
            };
        let best = &chosen.root_moves[0];
        // Stopped before the first move was searched (a tiny time budget): no score is known.
        let score = if best.score == -score::INFINITY { Score::Cp(0) } else { Score::from_internal(best.score) };
        SearchResult {
            best: Some(best.mv),
            ponder: best.pv.get(1).copied(),
            score,
            depth: chosen.completed_depth.max(1) as u32,
            seldepth: best.seldepth as u32,
            nodes: nodes.load(Ordering::Relaxed),
            pv: best.pv.clone(),
            wdl: score::wdl(score),
        }
    }
}

/// Whether a mate has been proved deeply enough that more iterations cannot shorten it.
fn is_mate_found(score: i32, depth: i32) -> bool {
    score::is_mate(score) && (score::MATE - score.abs()) * 2 < depth
}

fn wait_for_stop(limits: &SearchLimits, signals: &Signals) {
    if !(limits.infinite || limits.ponder) {
        return;
    }
    loop {
        if signals.stop.load(Ordering::Relaxed) {
            return;
        }
        if limits.ponder && !limits.infinite && signals.ponderhit.load(Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn report(
    main: &Worker,
    shared: &SharedSearch<'_>,
    multi_pv: usize,
    depth: i32,
    elapsed: Duration,
    show_wdl: bool,
    info: &mut dyn FnMut(&SearchInfo),
) {
    let nodes = shared.nodes.load(Ordering::Relaxed).max(main.nodes);
    let nps = (nodes as f64 / elapsed.as_secs_f64().max(1e-6)) as u64;
    let hashfull = shared.tt.hashfull();
    for (index, line) in main.root_moves.iter().take(multi_pv).enumerate() {
        if line.score == -score::INFINITY {
            continue;
        }
        let score = Score::from_internal(line.score);
        info(&SearchInfo {
            depth: depth as u32,
            seldepth: line.seldepth.max(1) as u32,
            multipv: index as u32 + 1,
            score,
            bound: (line.bound != Bound::Exact).then_some(line.bound),
            wdl: show_wdl.then(|| score::wdl(score)),
            nodes,
            nps,
            hashfull,
            time: elapsed,
            pv: line.pv.clone(),
        });
    }
}
