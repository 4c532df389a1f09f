//! Position indices: how a table orders the placements of its pieces.
//!
//! Syzygy tables reduce placements by symmetry before numbering them. Pawnless tables mirror
//! the board so that the first piece stands in the a1-d1-d4 triangle (and, when that piece is
//! on the diagonal, so that the next off-diagonal piece is below it); the first two or three
//! pieces are numbered together, each further group of identical pieces by the combinatorial
//! number system. Tables with pawns are split by the file of the "leading" pawn (a to d after
//! mirroring) and number the leading pawns so that the leader is the one nearest the a- or
//! h-file edge and then lowest. All tables here are computed at compile time from these rules.

/// Most pieces any Syzygy table holds.
pub(crate) const MAX_PIECES: usize = 7;

const fn rank(sq: usize) -> usize {
    sq >> 3
}

const fn file(sq: usize) -> usize {
    sq & 7
}

/// Reflects a square in the a1-h8 diagonal.
pub(crate) const fn flip_diagonal(sq: usize) -> usize {
    (sq >> 3) | ((sq & 7) << 3)
}

/// Above (rank > file, +1), on (0) or below (-1) the a1-h8 diagonal.
pub(crate) const fn off_diagonal(sq: usize) -> i32 {
    (rank(sq) as i32 - file(sq) as i32).signum()
}

/// `BINOMIAL[k][n]` = n choose k.
pub(crate) static BINOMIAL: [[u64; 64]; MAX_PIECES + 1] = {
    let mut table = [[0u64; 64]; MAX_PIECES + 1];
    let mut n = 0;
    while n < 64 {
        table[0][n] = 1;
        let mut k = 1;
        while k <= MAX_PIECES {
            table[k][n] = if n == 0 { 0 } else { table[k - 1][n - 1] + table[k][n - 1] };
            k += 1;
        }
        n += 1;
    }
    table
};

/// The a1-d1-d4 triangle numbered 0..10: off-diagonal squares first (b1, c1, d1, c2, d2, d3),
/// then the diagonal (a1, b2, c3, d4). Defined for the triangle's squares only.
pub(crate) static TRIANGLE: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut code = 0;
    let mut sq = 0;
    while sq < 28 {
        if file(sq) < 4 && off_diagonal(sq) < 0 {
            table[sq] = code;
            code += 1;
        }
        sq += 1;
    }
    sq = 0;
    while sq < 28 {
        if file(sq) < 4 && off_diagonal(sq) == 0 {
            table[sq] = code;
            code += 1;
        }
        sq += 1;
    }
    table
};

/// Squares below the a1-h8 diagonal numbered 0..28 in board order.
pub(crate) static LOWER: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut code = 0;
    let mut sq = 0;
    while sq < 64 {
        if off_diagonal(sq) < 0 {
            table[sq] = code;
            code += 1;
        }
        sq += 1;
    }
    table
};

const fn kings_adjacent_or_equal(a: usize, b: usize) -> bool {
    let df = file(a) as i32 - file(b) as i32;
    let dr = rank(a) as i32 - rank(b) as i32;
    df.abs() <= 1 && dr.abs() <= 1
}

/// The 462 placements of two kings with the first in the a1-d1-d4 triangle, by the first
/// king's triangle number and the second's square (-1: not a placement the tables use). When
/// the first king is on the diagonal the second is not above it; placements with both kings
/// on the diagonal come last.
pub(crate) static KK_INDEX: [[i16; 64]; 10] = {
    let mut table = [[-1i16; 64]; 10];
    let mut code = 0;
    let mut pass = 0;
    while pass < 2 {
        let mut t = 0;
        while t < 10 {
            let mut first = 0;
            while !(file(first) < 4 && off_diagonal(first) <= 0 && TRIANGLE[first] as usize == t) {
                first += 1;
            }
            {
                let mut second = 0;
                while second < 64 {
                    let both_on_diagonal = off_diagonal(first) == 0 && off_diagonal(second) == 0;
                    let usable = !kings_adjacent_or_equal(first, second)
                        && !(off_diagonal(first) == 0 && off_diagonal(second) > 0);
                    if usable && both_on_diagonal == (pass == 1) {
                        table[t][second] = code;
                        code += 1;
                    }
                    second += 1;
                }
            }
            t += 1;
        }
        pass += 1;
    }
    table
};

/// A pawn square's distance from the nearest edge file (0 for a/h .. 3 for d/e).
const fn edge_distance(sq: usize) -> usize {
    let f = file(sq);
    if f < 4 { f } else { 7 - f }
}

/// Leading-pawn order: the lowest value leads (nearest the edge file, then lowest rank).
/// Squares of ranks 2 to 7 map to 0..24 per edge distance, a and h files sharing values.
pub(crate) const fn flap(sq: usize) -> usize {
    edge_distance(sq) * 6 + rank(sq) - 1
}

/// The square of a flap value on the a- to d-file.
const fn inverse_flap(value: usize) -> usize {
    8 * (value % 6 + 1) + value / 6
}

/// Pawn squares of ranks 2 to 7 numbered 0..48 so that any pawn that could follow a leading
/// pawn on a square has a smaller number: edge files highest, lower ranks higher, and the
/// queen-side square of each mirrored pair one higher than the king-side one.
pub(crate) static PAWN_TWIST: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut sq = 8;
    while sq < 56 {
        let queen_side = if file(sq) < 4 { 1 } else { 0 };
        table[sq] = (12 * (3 - edge_distance(sq)) + 2 * (7 - rank(sq) - 1) + queen_side) as u8;
        sq += 1;
    }
    table
};

/// `(PAWN_INDEX[k - 1][flap], PAWN_FACTOR[k - 1][file])`: the index base of `k` leading
/// pawns whose leader has `flap` (restarting at each file), and each file's count.
pub(crate) static PAWN_TABLES: ([[u64; 24]; 6], [[u64; 4]; 6]) = {
    let mut index = [[0u64; 24]; 6];
    let mut factor = [[0u64; 4]; 6];
    let mut others = 0;
    while others < 6 {
        let mut sum = 0;
        let mut value = 0;
        while value < 24 {
            index[others][value] = sum;
            sum += BINOMIAL[others][PAWN_TWIST[inverse_flap(value)] as usize];
            if value % 6 == 5 {
                factor[others][value / 6] = sum;
                sum = 0;
            }
            value += 1;
        }
        others += 1;
    }
    (index, factor)
};

/// The first pieces' placements of a pawnless table: 462 with only the kings unique (kings
/// numbered together), 31332 otherwise (three unique pieces numbered together).
pub(crate) const fn piece_group_size(kings_only: bool) -> u64 {
    if kings_only { 462 } else { 31332 }
}

/// How one sub-table numbers its positions: the pieces in encoding order, the size of each
/// group of identically-numbered pieces (`norm`, at the group's first index) and each group's
/// multiplier.
#[derive(Clone, Debug, Default)]
pub(crate) struct EncInfo {
    /// Piece codes: colour bit 8 (black) plus 1..=6 for pawn, knight, bishop, rook, queen, king.
    pub pieces: [u8; MAX_PIECES],
    pub norm: [u8; MAX_PIECES],
    pub factor: [u64; MAX_PIECES],
}

/// What a table's encoding depends on beyond one sub-table.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Layout {
    /// Pieces in the table.
    pub pieces: usize,
    /// Pawnless and only the two kings unique.
    pub kings_only: bool,
    /// Leading pawns and pawns of the other colour (both 0 for pawnless tables).
    pub pawns: [u8; 2],
}

impl Layout {
    pub fn has_pawns(&self) -> bool {
        self.pawns[0] > 0
    }
}

/// Numbers `squares` (one per piece of `info.pieces`, in that order; the leading pawn first
/// for pawn tables, on files a-d or about to be mirrored there). Reorders `squares`.
pub(crate) fn encode(squares: &mut [usize], info: &EncInfo, layout: &Layout) -> u64 {
    let n = layout.pieces;
    let squares = &mut squares[..n];
    if squares[0] & 4 != 0 {
        squares.iter_mut().for_each(|sq| *sq ^= 7);
    }
    let (leading, mut k) =
        if layout.has_pawns() { encode_leading_pawns(squares, info) } else { encode_leading_pieces(squares, layout) };
    let mut index = leading.wrapping_mul(info.factor[0]);
    // Each further group by the combinatorial number system over the squares still free;
    // the other colour's pawns (right after the leading pawns) only over ranks 2 to 7.
    let mut pawn_offset = if layout.pawns[1] > 0 { 8 } else { 0 };
    while k < n {
        let group = usize::from(info.norm[k]).max(1);
        let end = (k + group).min(n);
        squares[k..end].sort_unstable();
        let mut sum = 0u64;
        for (i, &sq) in squares[k..end].iter().enumerate() {
            let skips = squares[..k].iter().filter(|&&placed| sq > placed).count();
            sum = sum.wrapping_add(BINOMIAL[i + 1][sq.saturating_sub(skips + pawn_offset)]);
        }
        index = index.wrapping_add(sum.wrapping_mul(info.factor[k]));
        pawn_offset = 0;
        k = end;
    }
    index
}

fn encode_leading_pieces(squares: &mut [usize], layout: &Layout) -> (u64, usize) {
    if squares[0] & 0x20 != 0 {
        squares.iter_mut().for_each(|sq| *sq ^= 0x38);
    }
    let leading = if layout.kings_only { 2 } else { 3 };
    if let Some(i) = squares.iter().position(|&sq| off_diagonal(sq) != 0)
        && i < leading
        && off_diagonal(squares[i]) > 0
    {
        squares.iter_mut().for_each(|sq| *sq = flip_diagonal(*sq));
    }
    let p = &squares[..];
    let index = if layout.kings_only {
        KK_INDEX[TRIANGLE[p[0]] as usize][p[1]].max(0) as u64
    } else {
        let s1 = usize::from(p[1] > p[0]);
        let s2 = usize::from(p[2] > p[0]) + usize::from(p[2] > p[1]);
        let diag = |sq: usize| rank(sq);
        (if off_diagonal(p[0]) != 0 {
            usize::from(TRIANGLE[p[0]]) * 63 * 62 + (p[1] - s1) * 62 + (p[2] - s2)
        } else if off_diagonal(p[1]) != 0 {
            6 * 63 * 62 + diag(p[0]) * 28 * 62 + usize::from(LOWER[p[1]]) * 62 + p[2] - s2
        } else if off_diagonal(p[2]) != 0 {
            6 * 63 * 62 + 4 * 28 * 62 + diag(p[0]) * 7 * 28 + (diag(p[1]) - s1) * 28 + usize::from(LOWER[p[2]])
        } else {
            6 * 63 * 62 + 4 * 28 * 62 + 4 * 7 * 28 + diag(p[0]) * 7 * 6 + (diag(p[1]) - s1) * 6 + (diag(p[2]) - s2)
        }) as u64
    };
    (index, leading)
}

/// The leading pawns: the leader (first) by its flap value, the others by the combinatorial
/// number system over the twist order.
fn encode_leading_pawns(squares: &mut [usize], info: &EncInfo) -> (u64, usize) {
    let leading = usize::from(info.norm[0]).clamp(1, 6);
    squares[1..leading].sort_unstable_by_key(|&sq| std::cmp::Reverse(PAWN_TWIST[sq]));
    let mut index = PAWN_TABLES.0[leading - 1][flap(squares[0]) % 24];
    for i in 1..leading {
        index += BINOMIAL[leading - i][usize::from(PAWN_TWIST[squares[i]])];
    }
    (index, leading)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn king_pairs_number_462() {
        let used: Vec<i16> = KK_INDEX.iter().flatten().copied().filter(|&v| v >= 0).collect();
        assert_eq!(used.len(), 462);
        assert_eq!(used.iter().max(), Some(&461));
        // b1 first: a1, b1, c1, a2, b2, c2 are next to it; d1 is the first placement.
        assert_eq!(KK_INDEX[0][3], 0);
        assert_eq!(KK_INDEX[0][0], -1);
    }

    #[test]
    fn triangle_and_lower_cover_their_squares() {
        assert_eq!(TRIANGLE[1], 0); // b1
        assert_eq!(TRIANGLE[0], 6); // a1
        assert_eq!(TRIANGLE[27], 9); // d4
        assert_eq!(LOWER[55], 27); // h7, the last square below the diagonal
        assert_eq!(*LOWER.iter().max().unwrap(), 27);
    }

    #[test]
    fn pawn_twist_orders_leaders() {
        assert_eq!(PAWN_TWIST[8], 47); // a2
        assert_eq!(PAWN_TWIST[15], 46); // h2
        assert_eq!(PAWN_TWIST[12], 10); // e2
        assert_eq!(PAWN_TWIST[51], 1); // d7
        assert_eq!(PAWN_TWIST[52], 0); // e7
        // One leading pawn: six squares per file.
        assert_eq!(PAWN_TABLES.1[0], [6, 6, 6, 6]);
    }
}
