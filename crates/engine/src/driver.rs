//! The search driver: what [`crate::Engine::search`] runs once the root is set up. Helper
//! threads' iterative deepening ([`SearchRun::helper_loop`]), the main thread's iterative
//! deepening with its reports and time checks ([`SearchRun::main_loop`]), and the choice of the
//! result among the threads ([`SearchRun::choose_result`]).

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use ferz_chess::{Move, Position};

use crate::search::{SharedSearch, Worker};
use crate::tablebase::{self, RootTb};
use crate::{Bound, Score, SearchInfo, SearchLimits, SearchProgress, SearchResult, Signals, score};

/// The legal root moves, restricted to `searchmoves` when that leaves any.
pub(crate) fn root_moves(root: &Position, limits: &SearchLimits) -> Vec<Move> {
    let moves: Vec<Move> = root.legal_moves().to_vec();
    if limits.searchmoves.is_empty() {
        return moves;
    }
    let restricted: Vec<Move> = moves.iter().copied().filter(|m| limits.searchmoves.contains(m)).collect();
    if restricted.is_empty() { moves } else { restricted }
}

/// The result for a root without legal moves: the game is over, nothing to search. An infinite
/// search still returns only when stopped.
pub(crate) fn game_over(root: &Position, limits: &SearchLimits, signals: &Signals) -> SearchResult {
    wait_for_stop(limits, signals);
    // Lost (mated, or in Shatranj stalemated or bared): mate 0. Won by the bare-king rule: the
    // shortest win there is. Drawn: 0.
    let score = match root.outcome().and_then(ferz_chess::Outcome::winner) {
        Some(winner) if winner == root.turn() => Score::Mate(1),
        Some(_) => Score::Mate(0),
        None => Score::Cp(0),
    };
    SearchResult {
        best: None,
        ponder: None,
        score,
        depth: 0,
        seldepth: 0,
        nodes: 0,
        pv: Vec::new(),
        wdl: score::wdl(score),
    }
}

/// One search's settings, shared by the main thread and the helpers.
pub(crate) struct SearchRun<'a> {
    /// The root position.
    pub root: Position,
    /// The caller's limits.
    pub limits: &'a SearchLimits,
    /// The caller's stop and ponder-hit flags.
    pub signals: &'a Signals,
    /// When the search started.
    pub start: Instant,
    /// Lines the main thread searches at every depth.
    pub multi_pv: usize,
    /// The deepest iteration.
    pub max_depth: i32,
    /// Whether reports carry win/draw/loss estimates.
    pub show_wdl: bool,
    /// The root's tablebase ranking, if it is in the tables.
    pub root_tb: Option<&'a RootTb>,
}

impl SearchRun<'_> {
    /// A helper thread (Lazy SMP): iterative deepening on the first line from a staggered
    /// depth, sharing only the transposition table, until the search stops.
    pub(crate) fn helper_loop(&self, helper: &mut Worker, shared: &SharedSearch<'_>) {
        // Helpers start at staggered depths so that threads spread over the tree.
        let mut depth = 1 + (helper.id % 2) as i32;
        while depth <= self.max_depth && !shared.should_stop() {
            helper.aspiration(&self.root, depth, 0, shared);
            if helper.stopped() {
                break;
            }
            helper.complete_iteration(depth);
            // A helper that reaches the depth limit first ends the search: its result is as
            // deep as asked (see `choose_result`). Not under MultiPV: a helper searches one
            // line, and the user asked for several at that depth, which only the main thread
            // provides.
            if depth == self.max_depth && self.limits.depth.is_some() && self.multi_pv == 1 {
                shared.stop.store(true, Ordering::Relaxed);
            }
            depth += 1;
        }
        helper.flush_nodes(shared);
    }

    /// The main thread: iterative deepening over every MultiPV line, a report after each
    /// iteration, and the decisions to stop (mate found, `go mate` reached, the time budget
    /// weighed by how settled the search looks). Stops the helpers when it ends.
    pub(crate) fn main_loop(&self, main: &mut Worker, shared: &SharedSearch<'_>, info: &mut dyn FnMut(&SearchInfo)) {
        let untimed = self.limits.infinite || self.limits.ponder;
        let mut best_changes = 0.0f64;
        let mut last_best = None;
        let mut last_score: Option<i32> = None;
        for depth in 1..=self.max_depth {
            for pv_index in 0..self.multi_pv {
                main.aspiration(&self.root, depth, pv_index, shared);
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
            let elapsed = self.start.elapsed();
            self.report(main, shared, self.multi_pv, depth, elapsed, info);

            let best = main.root_moves[0].clone();
            if last_best.is_some_and(|m| m != best.mv) {
                best_changes += 1.0;
            }
            best_changes *= 0.5;
            last_best = Some(best.mv);
            if let Some(mate) = self.limits.mate
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
            if shared.clock_running() && shared.budget.iteration_time_is_up(elapsed, &progress) {
                break;
            }
            if is_mate_found(best.score, depth) && !untimed {
                break;
            }
        }
        // An infinite search, or a ponder search without a hit, reports only when stopped.
        wait_for_stop(self.limits, self.signals);
        shared.stop.store(true, Ordering::Relaxed);
        main.flush_nodes(shared);
    }

    /// The search's result, from the thread with the deepest completed iteration: under Lazy
    /// SMP a helper that completed a deeper iteration than the main thread has the
    /// better-informed move (single-PV searches only; helpers search one line).
    pub(crate) fn choose_result(
        &self,
        main: &Worker,
        helpers: &[Worker],
        shared: &SharedSearch<'_>,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let chosen =
            match helpers.iter().filter(|h| h.completed_depth > main.completed_depth).max_by_key(|h| h.completed_depth)
            {
                Some(helper) if self.multi_pv == 1 => {
                    self.report(helper, shared, 1, helper.completed_depth, self.start.elapsed(), info);
                    helper
                }
                _ => main,
            };
        let best = &chosen.root_moves[0];
        // Stopped before the first move was searched (a tiny time budget): no score is known.
        let score = if best.score == -score::INFINITY {
            self.root_tb.map_or(Score::Cp(0), |tb| Score::from_internal(tb.score()))
        } else {
            Score::from_internal(tablebase::root_score(best.score, self.root_tb))
        };
        SearchResult {
            best: Some(best.mv),
            ponder: best.pv.get(1).copied(),
            score,
            depth: chosen.completed_depth.max(1) as u32,
            seldepth: best.seldepth as u32,
            nodes: shared.nodes.load(Ordering::Relaxed),
            pv: best.pv.clone(),
            wdl: score::wdl(score),
        }
    }

    /// One `info` report per searched line of `worker`.
    fn report(
        &self,
        worker: &Worker,
        shared: &SharedSearch<'_>,
        lines: usize,
        depth: i32,
        elapsed: Duration,
        info: &mut dyn FnMut(&SearchInfo),
    ) {
        let nodes = shared.nodes.load(Ordering::Relaxed).max(worker.nodes);
        let nps = (nodes as f64 / elapsed.as_secs_f64().max(1e-6)) as u64;
        let hashfull = shared.tt.hashfull();
        for (index, line) in worker.root_moves.iter().take(lines).enumerate() {
            if line.score == -score::INFINITY {
                continue;
            }
            let score = Score::from_internal(tablebase::root_score(line.score, self.root_tb));
            info(&SearchInfo {
                depth: depth as u32,
                seldepth: line.seldepth.max(1) as u32,
                multipv: index as u32 + 1,
                score,
                bound: (line.bound != Bound::Exact).then_some(line.bound),
                wdl: self.show_wdl.then(|| score::wdl(score)),
                nodes,
                nps,
                hashfull,
                time: elapsed,
                tbhits: shared.tb.hits(),
                pv: line.pv.clone(),
            });
        }
    }
}

/// Whether a mate has been proved deeply enough that more iterations cannot shorten it.
fn is_mate_found(score: i32, depth: i32) -> bool {
    score::is_mate(score) && (score::MATE - score.abs()) * 2 < depth
}

/// Waits for `stop` (or a ponder hit) when the search must not end on its own.
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
