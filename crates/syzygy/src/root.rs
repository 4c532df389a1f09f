//! Ranking the moves of a root position by their tablebase result, so that an engine keeps
//! only the moves that convert a win (fastest to zeroing first), hold a draw, or resist a loss
//! longest, within the 50-move rule when asked.

use ferz_chess::{Move, Position};

use crate::error::ProbeError;
use crate::probe::Tablebases;
use crate::value::{Dtz, Wdl};

/// Above any rank a win within the 50-move rule can get below it (ranks are relative to it).
const MAX_DTZ: i32 = 1 << 18;

/// A root move with its tablebase verdict.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RankedMove {
    /// The move.
    pub mv: Move,
    /// Plies to zeroing after this move, counted from the root (1 for a zeroing or mating move).
    pub dtz: Dtz,
    /// Higher is better: wins with fewer plies to zeroing, then draws, then the longest losses.
    pub rank: i32,
    /// The move's result: with the 50-move rule on, counting the root's halfmove clock.
    pub wdl: Wdl,
}

impl Tablebases {
    /// Ranks every legal move of `position` (best first) by DTZ. With `rule50`, wins that the
    /// 50-move rule would turn into draws (counting the position's halfmove clock) rank below
    /// real wins and report [`Wdl::CursedWin`], and losses it would save report
    /// [`Wdl::BlessedLoss`]. Needs the DTZ tables of the position's material.
    pub fn rank_root_moves(&self, position: &Position, rule50: bool) -> Result<Vec<RankedMove>, ProbeError> {
        self.check(position)?;
        let clock = position.halfmoves() as i32;
        let mut ranked = Vec::new();
        for m in position.legal_moves() {
            let mut next = *position;
            next.play_unchecked(m);
            let mated = next.is_check() && next.legal_moves().is_empty();
            let dtz = if mated {
                1
            } else if next.halfmoves() == 0 {
                Dtz::before_zeroing(self.probe_wdl(&next)?.flip()).0
            } else if next.halfmoves() >= 100 {
                0
            } else {
                let after = -self.probe_dtz(&next)?.0;
                after + after.signum()
            };
            let (rank, wdl) = rank_of(dtz, clock, rule50);
            ranked.push(RankedMove { mv: m, dtz: Dtz(dtz), rank, wdl });
        }
        ranked.sort_by_key(|r| std::cmp::Reverse(r.rank));
        Ok(ranked)
    }
}

/// The rank and 50-move-aware result of a move with `dtz` plies to zeroing, played at halfmove
/// clock `clock`.
fn rank_of(dtz: i32, clock: i32, rule50: bool) -> (i32, Wdl) {
    // Zeroing (or mating) within the 50-move rule: the counter reaches at most 100 there.
    let in_time = |plies: i32| plies + clock <= 100;
    match dtz.signum() {
        1 => {
            let rank = MAX_DTZ - (dtz + clock);
            let wdl = if !rule50 || in_time(dtz) { Wdl::Win } else { Wdl::CursedWin };
            (rank, wdl)
        }
        -1 => {
            let rank = -MAX_DTZ + (-dtz + clock);
            let wdl = if !rule50 || in_time(-dtz) { Wdl::Loss } else { Wdl::BlessedLoss };
            (rank, wdl)
        }
        _ => (0, Wdl::Draw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_wins_by_speed_then_draws_then_long_losses() {
        let (fast, _) = rank_of(3, 0, true);
        let (slow, _) = rank_of(41, 0, true);
        let (draw, _) = rank_of(0, 0, true);
        let (short_loss, _) = rank_of(-2, 0, true);
        let (long_loss, _) = rank_of(-40, 0, true);
        assert!(fast > slow && slow > draw && draw > long_loss && long_loss > short_loss);
    }

    #[test]
    fn the_50_move_rule_curses_late_wins_only_when_asked() {
        assert_eq!(rank_of(30, 80, true).1, Wdl::CursedWin);
        assert_eq!(rank_of(30, 80, false).1, Wdl::Win);
        assert_eq!(rank_of(20, 80, true).1, Wdl::Win);
        assert_eq!(rank_of(-30, 80, true).1, Wdl::BlessedLoss);
        assert_eq!(rank_of(-130, 0, false).1, Wdl::Loss);
    }
}
