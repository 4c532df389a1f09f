//! What a search may spend: the deepest ply any search reaches and the limits of one `go`.

use std::time::Duration;

use ferz_chess::Move;

/// Deepest ply the search reaches (extensions included): the size of the search's per-ply
/// stacks (its own and the NNUE accumulators') and the margin the tablebase scores keep below mate.
pub const MAX_PLY: usize = 128;

/// Deepest iteration of iterative deepening: a search without `go depth` stops here, and a larger
/// `go depth` is cut to it, leaving [`MAX_PLY`]'s last plies to extensions and the quiescence search.
pub const MAX_DEPTH: u32 = MAX_PLY as u32 - 8;

/// Limits of one search, as UCI `go` gives them. Without any limit the search runs until it
/// is stopped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// White's remaining clock time.
    pub wtime: Option<Duration>,
    /// Black's remaining clock time.
    pub btime: Option<Duration>,
    /// White's increment per move.
    pub winc: Duration,
    /// Black's increment per move.
    pub binc: Duration,
    /// Moves until the next time control; `None` for sudden death.
    pub movestogo: Option<u32>,
    /// Exactly this long for this move.
    pub movetime: Option<Duration>,
    /// Stop after this many plies of iterative deepening.
    pub depth: Option<u32>,
    /// Stop after about this many nodes.
    pub nodes: Option<u64>,
    /// Stop once a mate in at most this many moves is found.
    pub mate: Option<u32>,
    /// Search until stopped, whatever the other limits say.
    pub infinite: bool,
    /// Pondering: search until stopped or until a ponder hit starts the clock.
    pub ponder: bool,
    /// Only consider these root moves (all when empty).
    pub searchmoves: Vec<Move>,
}

impl SearchLimits {
    /// A search limited to `depth` plies.
    #[must_use]
    pub fn depth(depth: u32) -> SearchLimits {
        SearchLimits { depth: Some(depth), ..SearchLimits::default() }
    }

    /// A search limited to `nodes` nodes.
    #[must_use]
    pub fn nodes(nodes: u64) -> SearchLimits {
        SearchLimits { nodes: Some(nodes), ..SearchLimits::default() }
    }

    /// A search of exactly `time`.
    #[must_use]
    pub fn movetime(time: Duration) -> SearchLimits {
        SearchLimits { movetime: Some(time), ..SearchLimits::default() }
    }
}
