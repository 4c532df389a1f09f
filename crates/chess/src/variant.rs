//! The rule sets ferz plays, chosen at run time.

use std::fmt;
use std::str::FromStr;

/// A rule set. Chess960 shares every rule with chess; it differs in notation (castling is written
/// king-takes-rook, FEN castling rights name rook files) and in its start positions.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    /// Standard chess (FIDE), also Lichess `fromPosition`.
    #[default]
    Chess,
    /// Fischer random chess.
    Chess960,
    /// The medieval game: ferz, alfil, no castling, bare king and stalemate win.
    Shatranj,
}

/// How castling moves are written in UCI and how castling rights are written in FEN.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CastlingMode {
    /// `e1g1`; `KQkq` in FEN.
    Standard,
    /// King takes own rook, `e1h1`; rook-file letters in FEN where `KQkq` would be ambiguous.
    Chess960,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 3] = [Variant::Chess, Variant::Chess960, Variant::Shatranj];

    /// The name used on the command line, in config files and in `UCI_Variant`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Chess => "chess",
            Variant::Chess960 => "chess960",
            Variant::Shatranj => "shatranj",
        }
    }

    /// Whether the Shatranj rules apply.
    #[must_use]
    #[inline(always)]
    pub const fn is_shatranj(self) -> bool {
        matches!(self, Variant::Shatranj)
    }

    /// How this variant writes castling.
    #[must_use]
    pub const fn castling_mode(self) -> CastlingMode {
        match self {
            Variant::Chess960 => CastlingMode::Chess960,
            Variant::Chess | Variant::Shatranj => CastlingMode::Standard,
        }
    }

    /// Halfmoves without capture or pawn move after which the game is drawn
    /// (50-move rule in chess, 70-move rule in Shatranj).
    #[must_use]
    pub const fn move_rule_plies(self) -> u32 {
        match self {
            Variant::Chess | Variant::Chess960 => 100,
            Variant::Shatranj => 140,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The name is not a variant ferz plays.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {0:?}: expected chess, chess960 or shatranj")]
pub struct ParseVariantError(pub String);

impl FromStr for Variant {
    type Err = ParseVariantError;

    /// Accepts the names used by UCI GUIs and servers: `chess`/`standard`/`fromPosition`,
    /// `chess960`/`fischerandom`/`frc`, `shatranj`, in any case.
    fn from_str(s: &str) -> Result<Variant, ParseVariantError> {
        match s.to_ascii_lowercase().as_str() {
            "chess" | "standard" | "normal" | "fromposition" => Ok(Variant::Chess),
            "chess960" | "fischerandom" | "frc" | "960" => Ok(Variant::Chess960),
            "shatranj" => Ok(Variant::Shatranj),
            _ => Err(ParseVariantError(s.chars().take(32).collect())),
        }
    }
}
