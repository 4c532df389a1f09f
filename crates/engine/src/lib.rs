//! The ferz search engine.
//!
//! [`Engine`] searches a [`ferz_chess::Game`] (a position with the history that the repetition
//! rule needs) under [`SearchLimits`], reporting progress through a callback and returning a
//! [`SearchResult`]. The UCI front end, the Lichess bot and the self-play worker all drive it
//! through this API, in process.
//!
//! It knows the rules (`ferz-chess`) and nothing of files, datasets, matches or the network;
//! UCI ([`uci`]) is its only text protocol.
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
mod driver;
pub mod eval;
mod history;
mod limits;
mod movepick;
pub mod nnue;
pub mod params;
pub mod score;
mod search;
pub mod see;
pub mod tablebase;
mod time;
pub mod tt;
pub mod uci;

use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::{Duration, Instant};

use ferz_chess::{Game, Move};

pub use limits::SearchLimits;
pub use limits::{MAX_DEPTH, MAX_PLY};
pub use nnue::Nets;
pub use score::Score;
use search::{SharedSearch, Worker};
use tablebase::{RootTb, SyzygyOptions, TbSearch};
pub use time::{SearchProgress, TimeBudget};
pub use tt::Bound;
use tt::TranspositionTable;

/// What a resize of the transposition table got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashResize {
    /// The table's size now, in MiB.
    pub kept_mb: usize,
    /// The machine's limit the size was held to ([`tt::hash_limit_mb`]), where it says one.
    pub limit_mb: Option<usize>,
}

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
    /// Syzygy endgame tablebases.
    pub syzygy: SyzygyOptions,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        use uci::{OptionId, check_default, spin_default};
        // The UCI option table is the one home of the defaults.
        EngineOptions {
            hash_mb: spin_default(OptionId::Hash) as usize,
            threads: spin_default(OptionId::Threads) as usize,
            multi_pv: spin_default(OptionId::MultiPv) as usize,
            move_overhead: Duration::from_millis(spin_default(OptionId::MoveOverhead) as u64),
            show_wdl: check_default(OptionId::ShowWdl),
            syzygy: SyzygyOptions::default(),
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
    /// Tablebase probes that gave a result (root ranking included); `None` without tables.
    pub tbhits: Option<u64>,
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
        let tt = TranspositionTable::new(options.hash_mb);
        let mut engine = Engine {
            options: EngineOptions { hash_mb: tt.megabytes().max(1), ..options },
            tt,
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

    /// Resizes the transposition table (its contents are lost): `megabytes`, or less when the
    /// machine cannot spare that much (see [`tt::hash_limit_mb`]).
    pub fn set_hash_mb(&mut self, megabytes: usize) -> HashResize {
        // The old table goes first, so its memory counts as available for the new one; the
        // limit is read between the two, as the new table is sized by it.
        self.tt = TranspositionTable::new(1);
        let limit_mb = tt::hash_limit_mb();
        self.tt = TranspositionTable::within(megabytes, limit_mb);
        self.options.hash_mb = self.tt.megabytes().max(1);
        HashResize { kept_mb: self.options.hash_mb, limit_mb }
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

    /// Opens the Syzygy tables in `path` (directories separated like `PATH`; empty or
    /// `<empty>` turns them off). Returns a summary, or why the tables cannot be used (then
    /// none are used).
    pub fn set_syzygy_path(&mut self, path: &str) -> Result<String, String> {
        self.options.syzygy.set_path(path)
    }

    /// Interior nodes with as many pieces as the largest table are probed from this depth.
    pub fn set_syzygy_probe_depth(&mut self, depth: i32) {
        self.options.syzygy.probe_depth = depth.max(1);
    }

    /// Whether the 50-move rule turns cursed wins and blessed losses into draws.
    pub fn set_syzygy_rule50(&mut self, on: bool) {
        self.options.syzygy.rule50 = on;
    }

    /// Probe positions with at most this many pieces.
    pub fn set_syzygy_probe_limit(&mut self, pieces: u32) {
        self.options.syzygy.probe_limit = pieces;
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
        let mut moves = driver::root_moves(&root, limits);
        if moves.is_empty() {
            return driver::game_over(&root, limits, signals);
        }
        // A root in the tablebases: search only the moves that keep the best result.
        let root_tb = RootTb::rank(&self.options.syzygy, &root, &moves);
        if let Some(tb) = &root_tb {
            moves.clone_from(&tb.moves);
        }
        let tb_search = TbSearch::new(&self.options.syzygy, root_tb.as_ref(), &root);
        self.tt.new_search();
        let stop = AtomicBool::new(false);
        let nodes = AtomicU64::new(0);
        let budget = TimeBudget::new(limits, &root, self.options.move_overhead, start);
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
            tb: &tb_search,
        };
        let run = driver::SearchRun {
            root,
            limits,
            signals,
            start,
            multi_pv: self.options.multi_pv.min(moves.len()).max(1),
            max_depth: limits.depth.map_or(MAX_DEPTH as i32, |d| (d as i32).clamp(1, MAX_DEPTH as i32)),
            show_wdl: self.options.show_wdl,
            root_tb: root_tb.as_ref(),
        };
        let (main, helpers) = self.workers.split_first_mut().expect("at least one worker");
        let net = self.nets.active(root.variant());
        for worker in std::iter::once(&mut *main).chain(helpers.iter_mut()) {
            worker.prepare(&root, game.keys(), &moves);
            worker.nnue.prepare(net.clone(), &root);
        }
        std::thread::scope(|scope| {
            for helper in helpers.iter_mut() {
                let (run, shared) = (&run, &shared);
                scope.spawn(move || run.helper_loop(helper, shared));
            }
            run.main_loop(main, &shared, info);
        });
        run.choose_result(main, helpers, &shared, info)
    }
}
