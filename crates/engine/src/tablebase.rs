//! Syzygy endgame tablebases in the search: the UCI settings, the win/draw/loss probe of
//! interior nodes, and the DTZ ranking of root moves.
//!
//! The search probes WDL tables only at nodes reached by a capture or pawn move (halfmove
//! clock 0, where the tables' values hold exactly) with few enough pieces, and cuts the node
//! with a score just below mate, stored in the transposition table like any search result. At
//! the root, when the position itself is in the tables, the moves are ranked by DTZ and only
//! the best-ranked ones are searched: the engine converts a win with the fewest plies to the
//! next zeroing move, keeps a draw, and resists a loss longest. Interior probes then stay off
//! (every line would score the same win). Tables describe standard chess; Chess960 positions
//! without castling rights are the same positions, and Shatranj is never probed.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use ferz_chess::{Move, Position};
use ferz_syzygy::{Tablebases, Wdl};

use crate::limits::MAX_PLY;
use crate::tt::{Bound, TranspositionTable, TtEntry};

/// The score of a tablebase win at the root; a win found `ply` plies deep scores `TB_WIN - ply`.
/// Above any evaluation, below every mate score (so mates found by search still rank first).
pub const TB_WIN: i32 = 20_000;
/// Tablebase scores lie within this distance of [`TB_WIN`].
const TB_RANGE: i32 = 1_000;
const _: () = assert!(TB_WIN < crate::score::MATE_BOUND && TB_WIN - TB_RANGE > 5_000);

/// Whether a score is a tablebase win or loss (not a mate).
#[must_use]
pub const fn is_tb_score(score: i32) -> bool {
    score.abs() > TB_WIN - TB_RANGE && score.abs() <= TB_WIN
}

/// The tablebase settings (UCI `SyzygyPath`, `SyzygyProbeDepth`, `Syzygy50MoveRule`,
/// `SyzygyProbeLimit`).
#[derive(Clone, Debug)]
pub struct SyzygyOptions {
    /// The opened tables; `None` when `SyzygyPath` is empty.
    pub tables: Option<Arc<Tablebases>>,
    /// Interior nodes with as many pieces as the largest usable table are probed only this
    /// deep or deeper (fewer pieces are always probed).
    pub probe_depth: i32,
    /// Whether wins and losses that the 50-move rule turns into draws count as draws.
    pub rule50: bool,
    /// Probe positions with at most this many pieces (kings included).
    pub probe_limit: u32,
}

impl Default for SyzygyOptions {
    fn default() -> SyzygyOptions {
        use crate::uci::{OptionId, check_default, spin_default};
        // The UCI option table is the one home of the defaults.
        SyzygyOptions {
            tables: None,
            probe_depth: spin_default(OptionId::SyzygyProbeDepth) as i32,
            rule50: check_default(OptionId::Syzygy50MoveRule),
            probe_limit: spin_default(OptionId::SyzygyProbeLimit) as u32,
        }
    }
}

impl PartialEq for SyzygyOptions {
    fn eq(&self, other: &SyzygyOptions) -> bool {
        let same_tables = match (&self.tables, &other.tables) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_tables
            && self.probe_depth == other.probe_depth
            && self.rule50 == other.rule50
            && self.probe_limit == other.probe_limit
    }
}

impl Eq for SyzygyOptions {}

impl SyzygyOptions {
    /// Opens the tables in `path`: directories separated as in the `PATH` environment
    /// variable (`:` on Unix, `;` on Windows). An empty path or `<empty>` turns tables off.
    /// Returns a summary for the user.
    pub fn set_path(&mut self, path: &str) -> Result<String, String> {
        let path = path.trim();
        if path.is_empty() || path == "<empty>" {
            self.tables = None;
            return Ok("Syzygy tablebases off".to_owned());
        }
        let dirs: Vec<_> = std::env::split_paths(path).filter(|d| !d.as_os_str().is_empty()).collect();
        let tables = Tablebases::open(&dirs).map_err(|e| format!("SyzygyPath: {e}"))?;
        let (wdl, dtz) = tables.table_counts();
        if wdl == 0 {
            self.tables = None;
            return Err(format!("SyzygyPath: no Syzygy tables (.rtbw) in {path}"));
        }
        let summary =
            format!("Syzygy tablebases: {wdl} WDL and {dtz} DTZ tables, up to {} pieces", tables.max_pieces());
        self.tables = Some(Arc::new(tables));
        Ok(summary)
    }
}

/// What the threads of one search use to probe.
pub struct TbSearch<'a> {
    tables: Option<&'a Tablebases>,
    /// Probe positions with at most this many pieces; 0 turns interior probes off.
    cardinality: u32,
    probe_depth: i32,
    rule50: bool,
    /// Successful probes of all threads.
    hits: AtomicU64,
}

impl<'a> TbSearch<'a> {
    /// Probing as `options` say, for a search of `position` whose root ranking came out as
    /// `root`.
    #[must_use]
    pub fn new(options: &'a SyzygyOptions, root: Option<&RootTb>, position: &Position) -> TbSearch<'a> {
        let tables = options.tables.as_deref();
        let mut cardinality = tables.map_or(0, |t| t.max_pieces().min(options.probe_limit));
        // With the root ranked by DTZ, or lost or drawn there, probes inside cannot help.
        if root.is_some_and(|r| r.dtz_ranked || r.wdl <= Wdl::Draw) {
            cardinality = 0;
        }
        // Ranking the root probed every legal move.
        let root_hits = if root.is_some() { position.legal_moves().len() as u64 } else { 0 };
        TbSearch {
            tables,
            cardinality,
            probe_depth: options.probe_depth,
            rule50: options.rule50,
            hits: AtomicU64::new(root_hits),
        }
    }

    /// Successful probes so far; `None` when no tables are open.
    #[must_use]
    pub fn hits(&self) -> Option<u64> {
        self.tables.map(|_| self.hits.load(Ordering::Relaxed))
    }

    /// Probes an interior node (not the root, no excluded move) after the hash table did not
    /// cut it. Returns the score to return from the node when the tables settle it within
    /// `alpha..beta`; the result is also stored in `tt`.
    #[allow(clippy::too_many_arguments)]
    pub fn probe(
        &self,
        pos: &Position,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        tt: &TranspositionTable,
    ) -> Option<i32> {
        let tables = self.tables?;
        let pieces = pos.board().occupied().count();
        if pieces > self.cardinality
            || (pieces == self.cardinality && depth < self.probe_depth)
            || pos.halfmoves() != 0
            || pos.castling_rooks().is_nonempty()
            || pos.variant().is_shatranj()
        {
            return None;
        }
        let wdl = tables.probe_wdl(pos).ok()?;
        self.hits.fetch_add(1, Ordering::Relaxed);
        let draw_margin = i32::from(self.rule50);
        let value = wdl.to_i32();
        let win = TB_WIN - ply as i32;
        let (score, bound) = if value < -draw_margin {
            (-win, Bound::Upper)
        } else if value > draw_margin {
            (win, Bound::Lower)
        } else {
            // Cursed wins and blessed losses: a draw, nudged towards the better side.
            (2 * value * draw_margin, Bound::Exact)
        };
        let cuts = match bound {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        };
        if !cuts {
            return None;
        }
        let depth = (depth + 6).min(MAX_PLY as i32 - 1);
        tt.store(pos.key(), TtEntry { mv: None, score, eval: crate::eval::evaluate(pos), depth, bound });
        Some(score)
    }
}

/// The tablebase verdict on the root position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootTb {
    /// The moves worth searching: those with the best rank.
    pub moves: Vec<Move>,
    /// The result they keep (50-move aware when `Syzygy50MoveRule` is on).
    pub wdl: Wdl,
    /// Plies to zeroing after the best move (DTZ ranking only).
    pub dtz: Option<i32>,
    /// Whether the ranking used DTZ tables (else WDL only).
    pub dtz_ranked: bool,
}

impl RootTb {
    /// Ranks `moves` (the legal moves searched, maybe restricted by `searchmoves`) of `root`
    /// if the position is in the tables. `None` when it is not, or a table is missing.
    #[must_use]
    pub fn rank(options: &SyzygyOptions, root: &Position, moves: &[Move]) -> Option<RootTb> {
        let tables = options.tables.as_deref()?;
        if root.board().occupied().count() > tables.max_pieces().min(options.probe_limit)
            || root.castling_rooks().is_nonempty()
            || root.variant().is_shatranj()
        {
            return None;
        }
        if let Ok(ranked) = tables.rank_root_moves(root, options.rule50) {
            let ranked: Vec<_> = ranked.into_iter().filter(|r| moves.contains(&r.mv)).collect();
            let best = ranked.first()?;
            return Some(RootTb {
                moves: ranked.iter().filter(|r| r.rank == best.rank).map(|r| r.mv).collect(),
                wdl: best.wdl,
                dtz: Some(best.dtz.0),
                dtz_ranked: true,
            });
        }
        // No DTZ table: keep the moves with the best WDL result.
        let mut scored = Vec::new();
        for &mv in moves {
            let mut child = *root;
            child.play_unchecked(mv);
            let mated = child.is_check() && child.legal_moves().is_empty();
            let wdl = if mated { Wdl::Win } else { tables.probe_wdl(&child).ok()?.flip() };
            let wdl = match wdl {
                Wdl::CursedWin if !options.rule50 => Wdl::Win,
                Wdl::BlessedLoss if !options.rule50 => Wdl::Loss,
                other => other,
            };
            scored.push((mv, wdl));
        }
        let best = scored.iter().map(|&(_, wdl)| wdl).max()?;
        Some(RootTb {
            moves: scored.iter().filter(|&&(_, wdl)| wdl == best).map(|&(mv, _)| mv).collect(),
            wdl: best,
            dtz: None,
            dtz_ranked: false,
        })
    }

    /// The score to report for the root when the search found no mate: a win or loss just
    /// below mate (closer with fewer plies to zeroing), or a draw.
    #[must_use]
    pub fn score(&self) -> i32 {
        let distance = self.dtz.map_or(0, |d| d.abs().min(TB_RANGE - 1 - MAX_PLY as i32));
        match self.wdl {
            Wdl::Win => TB_WIN - MAX_PLY as i32 - distance,
            Wdl::CursedWin => 2,
            Wdl::Draw => 0,
            Wdl::BlessedLoss => -2,
            Wdl::Loss => -(TB_WIN - MAX_PLY as i32 - distance),
        }
    }
}

/// The score to report for a root line: the search's, unless the root is in the tables and
/// the search found no mate, then the tables' verdict.
#[must_use]
pub fn root_score(score: i32, root: Option<&RootTb>) -> i32 {
    match root {
        Some(tb) if !crate::score::is_mate(score) => tb.score(),
        _ => score,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tablebase_scores_sit_between_evaluations_and_mates() {
        assert!(is_tb_score(TB_WIN - 30));
        assert!(is_tb_score(-(TB_WIN - MAX_PLY as i32)));
        assert!(!is_tb_score(900));
        assert!(!is_tb_score(crate::score::mate_in(5)));
    }

    #[test]
    fn an_empty_path_turns_tables_off_and_a_bad_one_is_an_error() {
        let mut options = SyzygyOptions::default();
        assert!(options.set_path("<empty>").is_ok());
        assert!(options.tables.is_none());
        let error = options.set_path("no/such/dir").unwrap_err();
        assert!(error.contains("SyzygyPath") && error.contains("no/such/dir"), "{error}");
        assert!(options.tables.is_none());
    }
}
