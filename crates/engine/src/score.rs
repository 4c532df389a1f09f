//! Search scores: centipawns, with mates encoded near the ends of the range.

use std::fmt;

/// The score of delivering mate at the root (mate in 0 plies).
pub const MATE: i32 = 32_000;
/// Scores at or beyond this (in absolute value) are mates; plain evaluations stay far below.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// Above any score.
pub const INFINITY: i32 = MATE + 1;

/// The score of mating in `ply` plies from the root.
#[must_use]
#[inline]
pub const fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}

/// The score of being mated in `ply` plies from the root.
#[must_use]
#[inline]
pub const fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// Whether a score is a mate (won or lost).
#[must_use]
#[inline]
pub const fn is_mate(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// A score as reported to users: centipawns, or a mate distance in moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// Centipawns from the side to move's point of view.
    Cp(i32),
    /// Mate in this many moves; negative when the side to move is getting mated.
    Mate(i32),
}

impl Score {
    /// The score as one number of centipawns from the side to move's view, for thresholds and
    /// records: a mate becomes the search's own mate score, beyond every evaluation (at least
    /// 31,000 in absolute value, within an `i16`), a nearer mate further out. The inverse of
    /// [`Score::from_internal`].
    #[must_use]
    pub const fn centipawns(self) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Mate(moves) if moves > 0 => mate_in(2 * moves as usize - 1),
            Score::Mate(moves) => mated_in(2 * moves.unsigned_abs() as usize),
        }
    }

    /// Converts an internal search score.
    #[must_use]
    pub const fn from_internal(value: i32) -> Score {
        if value >= MATE_BOUND {
            Score::Mate((MATE - value + 1) / 2)
        } else if value <= -MATE_BOUND {
            Score::Mate(-(MATE + value) / 2)
        } else {
            Score::Cp(value)
        }
    }
}

impl fmt::Display for Score {
    /// The UCI form: `cp 23` or `mate -3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(moves) => write!(f, "mate {moves}"),
        }
    }
}

/// Converts a score to what the transposition table stores: mate scores relative to the
/// node, so that they stay right when the position is reached at another ply.
#[must_use]
#[inline]
pub const fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Undoes [`to_tt`] at `ply`.
#[must_use]
#[inline]
pub const fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// A win/draw/loss estimate in per mille for a centipawn score, from a logistic model of
/// game results (about 50% wins at +150 cp for the side to move, few losses).
#[must_use]
pub fn wdl(score: Score) -> (u32, u32, u32) {
    match score {
        Score::Mate(m) if m > 0 => (1000, 0, 0),
        Score::Mate(_) => (0, 0, 1000),
        Score::Cp(cp) => {
            let win = |x: f64| 1.0 / (1.0 + (-(x - 150.0) / 60.0).exp());
            let w = (win(f64::from(cp)) * 1000.0).round() as u32;
            let l = (win(-f64::from(cp)) * 1000.0).round() as u32;
            (w, 1000 - w - l, l)
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn centipawns_invert_the_internal_scores_and_order_mates_beyond_evaluations() {
        use super::*;
        // The side to move mates on odd plies and is mated on even ones.
        for value in [mate_in(1), mate_in(7), mated_in(0), mated_in(8), 0, 250, -30_999, 30_999] {
            assert_eq!(Score::from_internal(value).centipawns(), value);
        }
        assert!(Score::Mate(3).centipawns() > Score::Mate(4).centipawns());
        assert!(Score::Mate(40).centipawns() > Score::Cp(MATE_BOUND - 1).centipawns());
        assert!(Score::Mate(-1).centipawns() < Score::Mate(-2).centipawns());
        assert!(i16::try_from(Score::Mate(1).centipawns()).is_ok());
    }

    use super::*;

    #[test]
    fn mate_scores_convert_to_moves() {
        assert_eq!(Score::from_internal(mate_in(1)), Score::Mate(1));
        assert_eq!(Score::from_internal(mate_in(3)), Score::Mate(2));
        assert_eq!(Score::from_internal(mated_in(0)), Score::Mate(0));
        assert_eq!(Score::from_internal(mated_in(2)), Score::Mate(-1));
        assert_eq!(Score::from_internal(37), Score::Cp(37));
        assert_eq!(from_tt(to_tt(mate_in(7), 3), 5), mate_in(9));
        let (w, d, l) = wdl(Score::Cp(0));
        assert_eq!(w, l);
        assert_eq!(w + d + l, 1000);
    }
}
