//! Static evaluation, one per rule set.
//!
//! [`evaluate`] scores a position in centipawns for the side to move. Chess and Chess960 share
//! one tapered evaluation (module `chess`); Shatranj has its own (module `shatranj`) because its
//! pieces, its pawn promotion and its way of winning (bare king, stalemate) differ too much to
//! share weights. Each module's documentation says where its weights come from.
//!
//! The evaluation never detects the end of the game (mate, stalemate, draws by rule): the search
//! does that before it asks for a static score. Scores stay within ±[`EVAL_LIMIT`], far from mate
//! scores.
//!
//! Both evaluations work on packed middlegame/endgame pairs (`Score`, written `S(mg, eg)`) and
//! keep every weight in one `Params` table per variant (`chess_params.rs`, `shatranj_params.rs`:
//! the fields, below both the evaluators and the weights). The tables in use are generated source
//! (`chess_weights.rs`, `shatranj_weights.rs`) written by the Texel tuner `ferz-tune`, which sees
//! the weights through the `tuning` module (cargo feature `tuning`, off by default); see
//! `docs/tuning.md`.

mod chess;
mod chess_params;
mod chess_weights;
mod shatranj;
mod shatranj_params;
mod shatranj_weights;
#[cfg(feature = "tuning")]
pub mod tuning;
#[cfg(feature = "tuning")]
mod visit;

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

use ferz_chess::{Color, Position, Role, Square, Variant};

/// The largest magnitude [`evaluate`] returns; mate scores start far above it.
pub const EVAL_LIMIT: i32 = 15_000;

/// Scores `pos` in centipawns from the point of view of the side to move.
///
/// Deterministic, allocation-free and bounded by ±[`EVAL_LIMIT`]. It does not look for mate,
/// stalemate or draws by rule; the search handles the end of the game.
#[must_use]
#[inline]
pub fn evaluate(pos: &Position) -> i32 {
    // The evaluation counts bits about sixty times. Builds for baseline x86-64 have no
    // `popcnt` instruction and emulate it, which makes the whole evaluation about 50% slower;
    // so such builds pick a copy compiled with `popcnt` when the CPU has it (nearly all x86-64
    // CPUs since 2008). Builds with `-C target-cpu=x86-64-v2` or newer skip this.
    #[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // Safety: `evaluate_popcnt` only differs from `evaluate_portable` by using the
        // `popcnt` instruction, which the CPU was just checked to support.
        #[allow(unsafe_code)]
        return unsafe { evaluate_popcnt(pos) };
    }
    evaluate_portable(pos)
}

/// [`evaluate_portable`] compiled with the `popcnt` instruction.
#[cfg(all(target_arch = "x86_64", not(target_feature = "popcnt")))]
#[target_feature(enable = "popcnt")]
fn evaluate_popcnt(pos: &Position) -> i32 {
    evaluate_portable(pos)
}

/// The evaluation proper; always inlined so that each caller compiles it for its own target
/// features.
#[inline(always)]
fn evaluate_portable(pos: &Position) -> i32 {
    match pos.variant() {
        Variant::Chess | Variant::Chess960 => chess::evaluate(pos),
        Variant::Shatranj => shatranj::evaluate(pos),
    }
}

/// The material value of a piece in centipawns, roughly its middlegame worth, for exchange
/// evaluation (SEE), MVV-LVA ordering and delta pruning. The king is worth 0.
///
/// In Shatranj [`Role::Queen`] is the ferz and [`Role::Bishop`] the alfil.
#[must_use]
#[inline]
pub const fn piece_value(variant: Variant, role: Role) -> i32 {
    match variant {
        Variant::Chess | Variant::Chess960 => chess::PIECE_VALUES[role.index()],
        Variant::Shatranj => shatranj::PIECE_VALUES[role.index()],
    }
}

/// A middlegame and an endgame value packed into one `i32`, so that one addition updates both.
///
/// The endgame half lives in the upper 16 bits and the middlegame half in the lower 16 bits,
/// borrowing from the upper half when negative (the Stockfish layout). Each half must stay within
/// `i16`; the evaluations keep their sums far below that.
#[derive(Copy, Clone, Default, PartialEq, Eq)]
pub(crate) struct Score(i32);

/// Builds a [`Score`] from its middlegame and endgame values; named like a tuple constructor so
/// that weight tables read `S(mg, eg)`.
#[allow(non_snake_case)]
#[must_use]
pub(crate) const fn S(mg: i32, eg: i32) -> Score {
    Score(((eg as u32) << 16).wrapping_add(mg as u32) as i32)
}

impl Score {
    /// Zero in both phases.
    pub(crate) const ZERO: Score = Score(0);

    /// The middlegame half.
    #[must_use]
    #[inline(always)]
    pub(crate) const fn mg(self) -> i32 {
        self.0 as i16 as i32
    }

    /// The endgame half, undoing the borrow that a negative middlegame half took from it.
    #[must_use]
    #[inline(always)]
    pub(crate) const fn eg(self) -> i32 {
        ((self.0.wrapping_add(0x8000) as u32 >> 16) as u16) as i16 as i32
    }

    /// Blends the two halves by game phase: `phase == max` is pure middlegame, `0` pure endgame.
    /// The endgame half is first multiplied by `scale / 64` (drawish endings).
    #[must_use]
    #[inline(always)]
    pub(crate) const fn taper(self, phase: i32, max: i32, scale: i32) -> i32 {
        let eg = self.eg() * scale / 64;
        (self.mg() * phase + eg * (max - phase)) / max
    }
}

impl std::fmt::Debug for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "S({}, {})", self.mg(), self.eg())
    }
}

impl Add for Score {
    type Output = Score;
    #[inline(always)]
    fn add(self, rhs: Score) -> Score {
        Score(self.0.wrapping_add(rhs.0))
    }
}

impl Sub for Score {
    type Output = Score;
    #[inline(always)]
    fn sub(self, rhs: Score) -> Score {
        Score(self.0.wrapping_sub(rhs.0))
    }
}

impl Neg for Score {
    type Output = Score;
    #[inline(always)]
    fn neg(self) -> Score {
        Score(self.0.wrapping_neg())
    }
}

impl Mul<i32> for Score {
    type Output = Score;
    /// Multiplies both halves; the packing is linear, so one multiplication does it.
    #[inline(always)]
    fn mul(self, rhs: i32) -> Score {
        Score(self.0.wrapping_mul(rhs))
    }
}

impl AddAssign for Score {
    #[inline(always)]
    fn add_assign(&mut self, rhs: Score) {
        *self = *self + rhs;
    }
}

impl SubAssign for Score {
    #[inline(always)]
    fn sub_assign(&mut self, rhs: Score) {
        *self = *self - rhs;
    }
}

// Set-wise bitboard helpers on raw `u64` masks (a1 = bit 0). The pawn-structure terms are
// computed for all pawns at once with shifts and fills instead of square by square: that is
// both faster and free of branches.

/// The a-file.
pub(crate) const FILE_A: u64 = 0x0101_0101_0101_0101;
/// The h-file.
pub(crate) const FILE_H: u64 = FILE_A << 7;

/// Every square one file towards h (squares on the h-file fall off).
#[inline(always)]
pub(crate) const fn east(b: u64) -> u64 {
    (b & !FILE_H) << 1
}

/// Every square one file towards a.
#[inline(always)]
pub(crate) const fn west(b: u64) -> u64 {
    (b & !FILE_A) >> 1
}

/// Every square one rank towards `color`'s promotion rank.
#[inline(always)]
pub(crate) const fn forward(color: Color, b: u64) -> u64 {
    match color {
        Color::White => b << 8,
        Color::Black => b >> 8,
    }
}

/// `b` and every square in front of it from `color`'s point of view.
#[inline(always)]
pub(crate) const fn fill_forward(color: Color, mut b: u64) -> u64 {
    match color {
        Color::White => {
            b |= b << 8;
            b |= b << 16;
            b |= b << 32;
        }
        Color::Black => {
            b |= b >> 8;
            b |= b >> 16;
            b |= b >> 32;
        }
    }
    b
}

/// Every square of every file that holds a square of `b`.
#[inline(always)]
pub(crate) const fn fill_files(b: u64) -> u64 {
    fill_forward(Color::White, b) | fill_forward(Color::Black, b)
}

/// Squares attacked by `color`'s pawns on `pawns`.
#[inline(always)]
pub(crate) const fn pawn_attack_set(color: Color, pawns: u64) -> u64 {
    forward(color, east(pawns) | west(pawns))
}

/// `color`'s passed pawns: no enemy pawn in front of them on their own or a neighbouring file,
/// and no own pawn in front of them (of two doubled pawns only the front one counts).
#[inline(always)]
pub(crate) const fn passed_pawns(color: Color, ours: u64, theirs: u64) -> u64 {
    let them = match color {
        Color::White => Color::Black,
        Color::Black => Color::White,
    };
    let their_span = fill_forward(them, forward(them, theirs));
    let stoppers = their_span | east(their_span) | west(their_span);
    let behind_own = fill_forward(them, forward(them, ours));
    ours & !stoppers & !behind_own
}

/// King distances between all pairs of squares: one load instead of a dozen instructions in
/// the passed-pawn loop.
static DISTANCE: [[u8; 64]; 64] = {
    let mut table = [[0u8; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            let df = (a % 8) as i32 - (b % 8) as i32;
            let dr = (a / 8) as i32 - (b / 8) as i32;
            let (df, dr) = (df.abs(), dr.abs());
            table[a][b] = if df > dr { df as u8 } else { dr as u8 };
            b += 1;
        }
        a += 1;
    }
    table
};

/// The king distance (Chebyshev distance) between two squares.
#[inline(always)]
pub(crate) fn distance(a: Square, b: Square) -> i32 {
    i32::from(DISTANCE[a.index()][b.index()])
}

/// The square's rank counted from `color`'s side, 0 (own back rank) to 7.
#[inline(always)]
pub(crate) const fn relative_rank(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq.rank().index(),
        Color::Black => 7 - sq.rank().index(),
    }
}

/// The square as seen from white when it belongs to `color` (flipped vertically for black), so
/// one white-oriented table serves both sides.
#[inline(always)]
pub(crate) const fn relative_index(color: Color, sq: Square) -> usize {
    match color {
        Color::White => sq.index(),
        Color::Black => sq.index() ^ 56,
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    //! Helpers shared by the evaluation tests.

    use ferz_chess::{Position, Variant};

    /// Mirrors a FEN top to bottom and swaps the colours (and the side to move, castling rights
    /// and en passant square), giving the same position seen from the other side.
    pub(crate) fn mirror_fen(fen: &str) -> String {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let swap_case = |c: char| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() };
        let board: Vec<String> = fields[0].split('/').rev().map(|rank| rank.chars().map(swap_case).collect()).collect();
        let turn = if fields.get(1) == Some(&"w") { "b" } else { "w" };
        let castling = match fields.get(2) {
            Some(&"-") | None => "-".to_string(),
            Some(c) => {
                // Upper-case rights come first in FEN; after swapping colours, re-sort them.
                let swapped: String = c.chars().map(swap_case).collect();
                // Order: white before black, and `K` before `Q` before rook files.
                let order = |c: char| (c.is_ascii_lowercase(), "KQkq".find(c).unwrap_or(4), c);
                let mut rights: Vec<char> = swapped.chars().collect();
                rights.sort_by_key(|&c| order(c));
                rights.into_iter().collect()
            }
        };
        let ep = match fields.get(3) {
            Some(&"-") | None => "-".to_string(),
            Some(sq) => {
                let mut chars = sq.chars();
                let file = chars.next().unwrap_or('a');
                let rank = chars.next().and_then(|r| r.to_digit(10)).unwrap_or(1);
                format!("{file}{}", 9 - rank)
            }
        };
        let rest: Vec<&str> = fields.iter().skip(4).copied().collect();
        let mut out = format!("{} {turn} {castling} {ep}", board.join("/"));
        for field in rest {
            out.push(' ');
            out.push_str(field);
        }
        out
    }

    /// Parses a FEN of `variant`, panicking with the FEN on error.
    pub(crate) fn pos(fen: &str, variant: Variant) -> Position {
        Position::from_fen(fen, variant).unwrap_or_else(|e| panic!("bad test FEN {fen}: {e}"))
    }

    /// The same position with the other side to move (only for positions where that is legal).
    pub(crate) fn flip_turn(fen: &str) -> String {
        let mut fields: Vec<&str> = fen.split_whitespace().collect();
        fields[1] = if fields[1] == "w" { "b" } else { "w" };
        if fields.len() > 3 {
            fields[3] = "-";
        }
        fields.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::test_util::{mirror_fen, pos};
    use super::*;

    #[test]
    fn score_packing_round_trips() {
        for (mg, eg) in [(0, 0), (1, -1), (-1, 1), (-300, -7000), (12000, -12000), (-32000, 32000)] {
            let s = S(mg, eg);
            assert_eq!((s.mg(), s.eg()), (mg, eg));
            assert_eq!(((-s).mg(), (-s).eg()), (-mg, -eg));
        }
        let s = S(10, -20) * 3 + S(-5, 7) - S(1, 1);
        assert_eq!((s.mg(), s.eg()), (24, -54));
    }

    #[test]
    fn fen_mirroring() {
        assert_eq!(
            mirror_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
            "r3k2r/pppbbppp/2n2q1P/1P2p3/3pn3/BN2PNP1/P1PPQPB1/R3K2R b KQkq - 0 1"
        );
        assert_eq!(mirror_fen("8/8/8/3pP3/8/8/8/K6k w - d6 0 1"), "k6K/8/8/8/3Pp3/8/8/8 b - d3 0 1");
    }

    #[test]
    fn pawn_sets() {
        let white = Square::from_coords(ferz_chess::File::E, ferz_chess::Rank::FOURTH);
        let b = 1u64 << white.index();
        assert_eq!(pawn_attack_set(Color::White, b).count_ones(), 2);
        assert_eq!(fill_files(b), FILE_A << 4);
        // A black pawn on d6 stops a white pawn on e4; one on b6 does not.
        let d6 = 1u64 << 43;
        let b6 = 1u64 << 41;
        assert_eq!(passed_pawns(Color::White, b, d6), 0);
        assert_eq!(passed_pawns(Color::White, b, b6), b);
        // Of doubled passers only the front one is passed.
        let e5 = 1u64 << 36;
        assert_eq!(passed_pawns(Color::White, b | e5, 0), e5);
    }

    #[test]
    fn piece_values() {
        assert_eq!(piece_value(Variant::Chess, Role::King), 0);
        assert_eq!(piece_value(Variant::Shatranj, Role::King), 0);
        assert!(piece_value(Variant::Chess, Role::Queen) > piece_value(Variant::Chess, Role::Rook));
        assert!(piece_value(Variant::Shatranj, Role::Rook) > piece_value(Variant::Shatranj, Role::Knight));
        assert!(piece_value(Variant::Shatranj, Role::Knight) > piece_value(Variant::Shatranj, Role::Queen));
        assert_eq!(piece_value(Variant::Chess960, Role::Pawn), piece_value(Variant::Chess, Role::Pawn));
    }

    #[test]
    fn dispatch_and_bounds() {
        for variant in Variant::ALL {
            let p = Position::new(variant);
            assert!(evaluate(&p).abs() < 50, "{variant}: {}", evaluate(&p));
        }
        // A silly material surplus stays inside the limit.
        let p = pos("QQQQQQQQ/QQQQQQQQ/8/8/8/8/PPPPPPPP/K6k w - - 0 1", Variant::Chess);
        assert!(evaluate(&p) > 3000 && evaluate(&p) <= EVAL_LIMIT);
    }
}
