//! The values tablebases give: win/draw/loss and distance to zeroing.

use std::fmt;

/// Win, draw or loss for the side to move, with the 50-move rule distinctions Syzygy tables
/// make (the halfmove clock taken as zero).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    /// Lost, even with the 50-move rule.
    Loss,
    /// Lost without the 50-move rule, drawn with it.
    BlessedLoss,
    /// Drawn.
    Draw,
    /// Won without the 50-move rule, drawn with it.
    CursedWin,
    /// Won, even with the 50-move rule.
    Win,
}

impl Wdl {
    /// The value as the tables and python-chess write it: -2 (loss) to 2 (win).
    #[must_use]
    pub const fn to_i32(self) -> i32 {
        self as i32 - 2
    }

    /// Decodes [`Wdl::to_i32`]; `None` outside -2..=2.
    #[must_use]
    pub const fn from_i32(value: i32) -> Option<Wdl> {
        Some(match value {
            -2 => Wdl::Loss,
            -1 => Wdl::BlessedLoss,
            0 => Wdl::Draw,
            1 => Wdl::CursedWin,
            2 => Wdl::Win,
            _ => return None,
        })
    }

    /// The value for the other side.
    #[must_use]
    pub const fn flip(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Wdl::Loss => "loss",
            Wdl::BlessedLoss => "blessed loss",
            Wdl::Draw => "draw",
            Wdl::CursedWin => "cursed win",
            Wdl::Win => "win",
        })
    }
}

/// Distance to zeroing in plies: the number of plies until the next capture or pawn move
/// (or mate) with best play under the 50-move rule, counted with the halfmove clock at zero.
///
/// Positive when the side to move wins, negative when it loses, 0 when drawn. Wins and losses
/// that the 50-move rule turns into draws are beyond ±100. As with every Syzygy prober, a
/// value `n` may stand for `n + 1` plies (never at the edge of the 50-move rule).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dtz(pub i32);

impl Dtz {
    /// The DTZ value of a position whose best move is a zeroing move with the result `wdl`
    /// (the move itself is one ply).
    #[must_use]
    pub const fn before_zeroing(wdl: Wdl) -> Dtz {
        Dtz(match wdl {
            Wdl::Loss => -1,
            Wdl::BlessedLoss => -101,
            Wdl::Draw => 0,
            Wdl::CursedWin => 101,
            Wdl::Win => 1,
        })
    }
}

impl fmt::Display for Dtz {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}
