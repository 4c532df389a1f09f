//! Chess endings that material alone says are won but that seldom or never are: how much of its
//! score the side ahead keeps there, out of 64.
//!
//! Both evaluations use these rules. The hand-tuned one scales its endgame half by them (beside
//! its own opposite-coloured-bishop rule); the net's score is scaled as a whole, since a net
//! trained on self-play positions sees a lone extra knight or a wrong-coloured bishop too rarely
//! to learn that they do not win, and scores such an ending like the material it counts (+3 to
//! +7 pawns in the games that showed it: docs/measurements.md).

use ferz_chess::{Bitboard, Board, Color, Rank, Role, Square};

use super::chess::PIECE_VALUES;
use super::distance;

/// The share a score keeps when nothing below applies.
pub(crate) const FULL_SCALE: i32 = 64;

/// How much of its score `strong` keeps in this chess position, out of [`FULL_SCALE`]:
/// - no pawns and less than a minor piece ahead: a lone minor piece cannot mate (0); rook
///   against a minor piece seldom wins (4), nor rook and minor against rook (14);
/// - two knights against a bare king cannot force mate (2);
/// - bishop and rook's pawns against a bare king whose king holds the corner the bishop does not
///   cover: a draw (0).
#[must_use]
#[inline]
pub(crate) fn drawish_scale(board: &Board, strong: Color) -> i32 {
    let weak = !strong;
    let strong_pawns = board.pieces(strong, Role::Pawn);
    let count = |color: Color, role: Role| board.pieces(color, role).count() as i32;
    let non_pawn_material = |color: Color| {
        [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
            .iter()
            .map(|&role| count(color, role) * PIECE_VALUES[role.index()])
            .sum::<i32>()
    };
    let (strong_npm, weak_npm) = (non_pawn_material(strong), non_pawn_material(weak));
    let bishop = PIECE_VALUES[Role::Bishop.index()];
    let knight = PIECE_VALUES[Role::Knight.index()];
    if strong_pawns.is_empty() {
        if strong_npm - weak_npm <= bishop {
            return if strong_npm < PIECE_VALUES[Role::Rook.index()] {
                0
            } else if weak_npm <= bishop {
                4
            } else {
                14
            };
        }
        if weak_npm == 0 && count(strong, Role::Knight) == 2 && strong_npm == 2 * knight {
            return 2;
        }
        return FULL_SCALE;
    }
    if strong_npm == bishop
        && count(strong, Role::Bishop) == 1
        && weak_npm == 0
        && board.pieces(weak, Role::Pawn).is_empty()
        && wrong_bishop_holds(board, strong, strong_pawns)
    {
        return 0;
    }
    FULL_SCALE
}

/// Whether `strong`'s pawns are all on one rook's file, its bishop cannot cover their promotion
/// square and the other king stands on or next to that square: it cannot be driven out.
fn wrong_bishop_holds(board: &Board, strong: Color, pawns: Bitboard) -> bool {
    const FILE_A: Bitboard = Bitboard(0x0101_0101_0101_0101);
    const FILE_H: Bitboard = Bitboard(0x8080_8080_8080_8080);
    let file = if (pawns & !FILE_A).is_empty() {
        FILE_A
    } else if (pawns & !FILE_H).is_empty() {
        FILE_H
    } else {
        return false;
    };
    let (Some(bishop), Some(pawn), Some(defender)) =
        (board.pieces(strong, Role::Bishop).first(), pawns.first(), board.king_of(!strong))
    else {
        return false;
    };
    let promotion_rank = if strong.is_white() { Rank::EIGHTH } else { Rank::FIRST };
    let promotion = Square::from_coords(pawn.file(), promotion_rank);
    debug_assert!((file & Bitboard::from_square(promotion)).is_nonempty());
    bishop.is_light() != promotion.is_light() && distance(defender, promotion) <= 1
}

#[cfg(test)]
mod tests {
    use ferz_chess::Variant;

    use super::super::test_util::pos;
    use super::*;

    fn scale(fen: &str, strong: Color) -> i32 {
        drawish_scale(pos(fen, Variant::Chess).board(), strong)
    }

    #[test]
    fn pawnless_endings_with_a_small_lead_scale_down() {
        // A lone minor piece.
        assert_eq!(scale("8/8/4k3/8/8/2B5/8/4K3 w - - 0 1", Color::White), 0);
        // Rook and knight against rook, as in the gauntlet's drawn games.
        assert_eq!(scale("8/8/5KN1/2k5/8/4R3/8/1r6 b - - 0 1", Color::White), 14);
        // Rook against bishop.
        assert_eq!(scale("8/8/4k3/3b4/8/8/8/R3K3 w - - 0 1", Color::White), 4);
        // Two knights.
        assert_eq!(scale("8/8/4k3/8/8/2NN4/8/4K3 w - - 0 1", Color::White), 2);
        // Rook against a bare king wins.
        assert_eq!(scale("8/8/4k3/8/8/8/8/R3K3 w - - 0 1", Color::White), FULL_SCALE);
        // Queen against rook wins.
        assert_eq!(scale("8/8/4k3/3r4/8/8/8/Q3K3 w - - 0 1", Color::White), FULL_SCALE);
    }

    #[test]
    fn the_wrong_bishop_with_rook_pawns_is_a_draw_only_when_the_king_holds_the_corner() {
        // White's light-squared bishop (f5) cannot cover h8, and Black's king is next to it.
        assert_eq!(scale("8/6kP/8/5B2/8/8/8/4K3 b - - 0 1", Color::White), 0);
        // The same with Black as the strong side: a light-squared bishop (f5) cannot cover a1.
        assert_eq!(scale("4k3/8/8/5b2/8/8/p7/1K6 w - - 0 1", Color::Black), 0);
        // A dark-squared one (f4) can.
        assert_eq!(scale("4k3/8/8/8/5b2/8/p7/1K6 w - - 0 1", Color::Black), FULL_SCALE);
        // The right bishop (dark-squared, e5) covers h8.
        assert_eq!(scale("8/6kP/8/4B3/8/8/8/4K3 b - - 0 1", Color::White), FULL_SCALE);
        // The defending king is too far from the corner.
        assert_eq!(scale("8/7P/8/5B2/8/1k6/8/4K3 b - - 0 1", Color::White), FULL_SCALE);
        // Pawns on two files.
        assert_eq!(scale("8/6kP/8/5B2/P7/8/8/4K3 b - - 0 1", Color::White), FULL_SCALE);
        // A pawn that is not a rook's pawn.
        assert_eq!(scale("8/6k1/6P1/5B2/8/8/8/4K3 b - - 0 1", Color::White), FULL_SCALE);
    }

    #[test]
    fn material_with_pawns_keeps_its_score() {
        assert_eq!(scale("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", Color::White), FULL_SCALE);
        assert_eq!(scale("8/5pk1/6p1/8/8/1b2B3/5PPP/6K1 w - - 0 1", Color::White), FULL_SCALE);
    }
}
