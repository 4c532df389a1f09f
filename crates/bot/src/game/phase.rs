//! Where a game task stands: the phases of a game's life and what exists in each.
//!
//! A task starts [`Phase::Starting`], knowing only what `gameStart` said (kept on the task,
//! corrected by `gameFull`). The first `gameFull` sets the game up: [`Phase::Playing`] holds its
//! [`Table`] (rules, players, position, one [`PlyRecord`] per ply). The task leaves the game in
//! [`Phase::Done`], saying why ([`End`]) and keeping the table for the PGN and the summary.

use ferz_chess::{Game, Move};
use ferz_lichess::GameFull;

use crate::ending::Ending;
use crate::record::Eval;
use crate::setup::Rules;

/// Where the task stands in the game's life.
#[derive(Debug)]
pub(super) enum Phase {
    /// Before the first `gameFull`: a state now is a resync, nothing can be played.
    Starting,
    /// From the first `gameFull` on, until the task stops following the game.
    Playing(Box<Table>),
    /// The task stopped following the game; the table, when the game got that far.
    Done {
        /// Why.
        end: End,
        /// What the task knew of the game.
        table: Option<Box<Table>>,
    },
}

/// What the first `gameFull` sets up, and the game as the task follows it.
#[derive(Debug)]
pub(super) struct Table {
    /// The variant and start position (from the first `gameFull`; a later one does not change them).
    pub rules: Rules,
    /// The latest `gameFull`: players, ratings, speed, clock.
    pub full: GameFull,
    /// The position of the latest state that replayed (`None` until one did).
    pub game: Option<Game>,
    /// One record per ply of the latest state, and one more for our move sent but not yet shown.
    pub plies: Vec<PlyRecord>,
    /// The clock as the first states showed it, for servers whose `gameFull` has none (PyChess).
    pub clock_seen: Option<ClockSeen>,
}

impl Table {
    /// The record of ply `ply`, made (empty) when the list is shorter.
    pub(super) fn ply_mut(&mut self, ply: usize) -> &mut PlyRecord {
        if self.plies.len() <= ply {
            self.plies.resize(ply + 1, PlyRecord::default());
        }
        &mut self.plies[ply]
    }
}

/// What the task noted about one ply.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct PlyRecord {
    /// The mover's clock after the ply, ms, when a state showed it.
    pub clock_ms: Option<i64>,
    /// Our evaluation, white's view, for a ply of ours that a search (or a tablebase) chose.
    pub eval: Option<Eval>,
    /// The principal variation of the search for this ply, its move first (checked against the
    /// move played before use: the search may have been for a move that was never played).
    pub pv: Vec<Move>,
}

/// Why the task stopped following the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum End {
    /// The game is over.
    Over(Ending),
    /// A correspondence game set aside while the opponent thinks (it goes on).
    SetAside,
    /// The task gave up on the game.
    Failed {
        /// Why.
        error: String,
        /// The reason may pass: the game is to be opened again ([`super::GameSummary::retry`]).
        retry: bool,
    },
}

/// The clock as a game's first states showed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ClockSeen {
    /// The initial time, ms.
    pub initial_ms: i64,
    /// The increment, ms.
    pub increment_ms: i64,
}

/// The last move the server took from us: PyChess never shows the move that ends a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SentMove {
    /// The ply it was played at.
    pub ply: usize,
    /// The move as sent.
    pub uci: String,
}

/// Moves the server refused at one ply; at [`super::MAX_REJECTIONS`] the task gives the game up.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Rejections {
    /// The ply of the refused moves.
    pub ply: usize,
    /// How many were refused at it.
    pub count: u32,
}

impl Rejections {
    /// Counts one more refusal at `ply` (a refusal at another ply starts again at one).
    pub(super) fn add(&mut self, ply: usize) -> u32 {
        *self = if self.ply == ply { Rejections { ply, count: self.count + 1 } } else { Rejections { ply, count: 1 } };
        self.count
    }
}
