//! The game task's side of pondering and of searches that end without a move: when to
//! ponder, what the opponent's move means for a ponder search, and searching again.

use std::time::{Duration, Instant};

use ferz_chess::{Color, Game};

use super::{GameTask, Resync};
use crate::clock::{Clocks, NO_CLOCK_MS, search_limits};
use crate::player::{PonderOutcome, SearchRequest};

impl GameTask {
    /// The clocks of the last state.
    pub(super) fn clocks_now(&self) -> Clocks {
        Clocks { wtime: self.state.wtime, btime: self.state.btime, winc: self.state.winc, binc: self.state.binc }
    }

    /// Our clock in the last state, in ms; `None` without a clock (correspondence, unlimited).
    pub(super) fn our_clock_ms(&self, us: Color) -> Option<i64> {
        let ours = if us == Color::White { self.state.wtime } else { self.state.btime };
        (ours < NO_CLOCK_MS).then_some(ours)
    }

    /// Our clock in the last state as a duration (a negative one as zero); `None` without one.
    pub(super) fn our_clock(&self, us: Color) -> Option<Duration> {
        self.our_clock_ms(us).map(|ms| Duration::from_millis(ms.max(0).unsigned_abs()))
    }

    /// The server showed our move: search the reply our engine expects on the opponent's time,
    /// in real-time games with pondering on (a correspondence opponent may take days).
    pub(super) fn start_pondering(&mut self) {
        if self.correspondence {
            return;
        }
        let (Some(game), Some(us)) = (self.game().cloned(), self.us) else { return };
        let ours = self.our_clock(us);
        let clocks = self.clocks_now();
        let ours_made = self.rules().map_or(1, |rules| rules.moves_by(us, game.moves().len()));
        let over = self.over().is_some();
        let Some(player) = self.player.as_mut() else { return };
        // Taken now whether used or not: a plan is for the state that shows our move only.
        let expected = player.ponder_move(&game);
        let (Some(expected), Some(ours)) = (expected, ours) else { return };
        if !player.ponders() || over {
            return;
        }
        let uci = game.position().uci(expected);
        let mut pondered = game;
        if pondered.play(expected).is_err() {
            return;
        }
        let mut limits = search_limits(clocks, us, ours_made, Duration::ZERO, &self.ctx.config.engine, None);
        limits.ponder = true;
        let request = SearchRequest { game: pondered, limits, clock: Some(ours), state_at: Instant::now() };
        tracing::debug!(game = %self.id, expected = %uci, "pondering");
        self.search = player.think(request);
    }

    /// The opponent's move arrived at `now`, making the game `game`: a ponder hit lets the
    /// ponder search go on as the search for our move; a miss leaves it to be stopped.
    /// Returns whether it was a hit.
    pub(super) fn meet_ponder(&mut self, game: &Game, now: Instant) -> bool {
        let (Some(search), Some(player)) = (self.search.as_mut(), self.player.as_mut()) else { return false };
        match search.meet(game, now, player.ponder_stats_mut()) {
            Some(PonderOutcome::Hit) => {
                tracing::debug!(game = %self.id, "ponder hit");
                true
            }
            Some(PonderOutcome::Miss) => {
                tracing::debug!(game = %self.id, "ponder miss");
                false
            }
            None => false,
        }
    }

    /// Whether our move at ply `ply` is due and nothing is making it: it is the game's ply and
    /// our turn, the game goes on, no search runs and no move was sent for it.
    pub(super) fn move_due(&self, ply: usize) -> bool {
        let plies = self.state.ply();
        let our_turn = self.rules().map(|r| r.turn_after(plies)) == self.us;
        ply == plies && our_turn && self.over().is_none() && self.search.is_none() && self.moved_at_ply != Some(plies)
    }

    /// A search for ply `ply` ended without a move because its task failed: search again if
    /// that ply is still ours to play, so that the game never waits on a lost search.
    pub(super) async fn search_again_if_due(&mut self, ply: usize) -> Result<(), Resync> {
        if self.move_due(ply) {
            tracing::warn!(game = %self.id, "searching again after a failed search");
            self.start_move(ply).await?;
        }
        Ok(())
    }

    /// The correspondence game's thinking seat is free for it: search, if our move is still due.
    pub(super) async fn on_seat(&mut self) -> Result<(), Resync> {
        let plies = self.state.ply();
        if self.move_due(plies) {
            self.start_move(plies).await?;
        }
        Ok(())
    }
}
