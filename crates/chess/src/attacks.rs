//! Attack tables, computed at compile time by `const fn` into `static`s.
//!
//! Sliders use "fancy" magic bitboards: the relevant blockers of a square are multiplied by a
//! constant and shifted to index a shared table. This is portable (any x86-64, aarch64) and about
//! as fast as PEXT where PEXT is fast, and much faster where it is microcoded (older AMD).

use crate::{Bitboard, Color, Square};

const fn leaper_table(deltas: &[(i32, i32)]) -> [u64; 64] {
    let mut table = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let (file, rank) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut i = 0;
        while i < deltas.len() {
            let (f, r) = (file + deltas[i].0, rank + deltas[i].1);
            if f >= 0 && f < 8 && r >= 0 && r < 8 {
                table[sq] |= 1 << (r * 8 + f);
            }
            i += 1;
        }
        sq += 1;
    }
    table
}

static KNIGHT: [u64; 64] = leaper_table(&[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]);
static KING: [u64; 64] = leaper_table(&[(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]);
static FERZ: [u64; 64] = leaper_table(&[(1, 1), (-1, 1), (-1, -1), (1, -1)]);
static ALFIL: [u64; 64] = leaper_table(&[(2, 2), (-2, 2), (-2, -2), (2, -2)]);
static PAWN: [[u64; 64]; 2] = [leaper_table(&[(1, 1), (-1, 1)]), leaper_table(&[(1, -1), (-1, -1)])];

const ROOK_DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Squares a slider on `sq` reaches along `dirs`, stopping at (and including) the first blocker.
const fn slide(sq: usize, occupied: u64, dirs: &[(i32, i32); 4]) -> u64 {
    let mut attacks = 0u64;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let (mut f, mut r) = ((sq % 8) as i32 + df, (sq / 8) as i32 + dr);
        while f >= 0 && f < 8 && r >= 0 && r < 8 {
            let bit = 1u64 << (r * 8 + f);
            attacks |= bit;
            if occupied & bit != 0 {
                break;
            }
            f += df;
            r += dr;
        }
        d += 1;
    }
    attacks
}

/// Blockers that matter for a slider on `sq`: its rays without the board edge at their ends.
const fn relevant_mask(sq: usize, dirs: &[(i32, i32); 4]) -> u64 {
    let mut mask = 0u64;
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let (mut f, mut r) = ((sq % 8) as i32 + df, (sq / 8) as i32 + dr);
        while f + df >= 0 && f + df < 8 && r + dr >= 0 && r + dr < 8 {
            mask |= 1u64 << (r * 8 + f);
            f += df;
            r += dr;
        }
        d += 1;
    }
    mask
}

#[derive(Copy, Clone)]
struct Magic {
    mask: u64,
    factor: u64,
    shift: u32,
    offset: usize,
}

/// Multipliers for the rook tables (found by a sparse random search; any value without
/// destructive collisions works).
const ROOK_FACTORS: [u64; 64] = [
    0x2080002080400010,
    0x00c0002001401000,
    0x2100110008402002,
    0x0880080081041000,
    0x0200020020041008,
    0x2300040008010012,
    0x0c00283004008201,
    0x0180010000407a80,
    0x0168800080400020,
    0x0010400040201000,
    0x1001002001001048,
    0x1001002408100100,
    0x0801000408010012,
    0x4001000209000400,
    0x08a20004c8020001,
    0x2002801145002280,
    0x0080860021004200,
    0x001000c009402002,
    0x00b0002004002800,
    0x100a808010020800,
    0x8101010008000410,
    0x0244008002000480,
    0x0000040010810208,
    0x2000020000448534,
    0x4104400480008033,
    0x0000810100204000,
    0x0440430900200010,
    0x4600240900100100,
    0x0060080080040080,
    0x0001000300080400,
    0x0004084400011002,
    0x0023040200008041,
    0x0580050043002080,
    0x0400804002802008,
    0x0001002001004010,
    0x1000200901001000,
    0x4410800801800c00,
    0xa012003806001004,
    0x0020100104008802,
    0x0004808402000041,
    0x0010400170898000,
    0x0080500020004004,
    0x1040408012020020,
    0x8010040008004040,
    0x2001080100110004,
    0x0000020004008080,
    0x0021010810040002,
    0x0800008c43020024,
    0x0000800021005100,
    0x0070201040008080,
    0x0000d04282006a00,
    0x0010014400080240,
    0x0001080110050100,
    0x0012000810240600,
    0x0402000801040200,
    0x028100108a004100,
    0x0050800300102045,
    0x8208210040120882,
    0x8010600101183441,
    0x020b000910006045,
    0x0241001002480005,
    0x0081000400880241,
    0x0000009008024124,
    0x0048122980410402,
];

/// Multipliers for the bishop tables.
const BISHOP_FACTORS: [u64; 64] = [
    0x0848020822040013,
    0x8010a40085821200,
    0x0008008430840822,
    0x0808048108040000,
    0x1304042100008104,
    0x5001012010204023,
    0x81048801b8200420,
    0x200a008084012000,
    0x0040102001042084,
    0x840a505042428020,
    0x0000700102202920,
    0x44101c0c10800002,
    0x0040040422000000,
    0x0180020802090202,
    0x4020020811041202,
    0x000104308c042000,
    0x4140661002424400,
    0x0028012008010460,
    0x0188062102002a00,
    0x0014004840102008,
    0x0105000290400002,
    0x8001022200410400,
    0x104a041918013446,
    0x008a000082008238,
    0x04a0060008100430,
    0x0008220008820801,
    0x2508041208005010,
    0x4008080200202020,
    0x2441001013004000,
    0x0030008060407000,
    0x4008108000420800,
    0x0012021050290100,
    0x0210080482200500,
    0xcc01112048100480,
    0x0020402806500440,
    0x00048e0080580080,
    0x0040102020020080,
    0x0028010440080807,
    0x4601041108008800,
    0x8040810e04104200,
    0x901210110400088a,
    0xa003080212081050,
    0x00c1004048401004,
    0x900000a014400800,
    0x0008021040405401,
    0x4020008206002090,
    0x0004190424030100,
    0x0424008a02026250,
    0x8004088250900040,
    0x1c00430088a04200,
    0x0001020094040001,
    0x8040210020880061,
    0x2010040450442032,
    0x0800840850044001,
    0x0004040802140004,
    0x0004080a04222020,
    0x8088802110022000,
    0x1081a10416114400,
    0x0205010a24060820,
    0x0000000720411080,
    0x1008000208430400,
    0x580c026028810840,
    0x802020441020a110,
    0x12c0022401020018,
];

const fn magics(dirs: &[(i32, i32); 4], factors: &[u64; 64], start: usize) -> ([Magic; 64], usize) {
    let mut out = [Magic { mask: 0, factor: 0, shift: 0, offset: 0 }; 64];
    let mut offset = start;
    let mut sq = 0;
    while sq < 64 {
        let mask = relevant_mask(sq, dirs);
        let bits = mask.count_ones();
        out[sq] = Magic { mask, factor: factors[sq], shift: 64 - bits, offset };
        offset += 1 << bits;
        sq += 1;
    }
    (out, offset)
}

const ROOK_MAGICS_AND_END: ([Magic; 64], usize) = magics(&ROOK_DIRS, &ROOK_FACTORS, 0);
static ROOK_MAGICS: [Magic; 64] = ROOK_MAGICS_AND_END.0;
const BISHOP_MAGICS_AND_END: ([Magic; 64], usize) = magics(&BISHOP_DIRS, &BISHOP_FACTORS, ROOK_MAGICS_AND_END.1);
static BISHOP_MAGICS: [Magic; 64] = BISHOP_MAGICS_AND_END.0;
const SLIDER_TABLE_LEN: usize = BISHOP_MAGICS_AND_END.1;

const fn fill_slider_table(table: &mut [u64; SLIDER_TABLE_LEN], magics: &[Magic; 64], dirs: &[(i32, i32); 4]) {
    let mut sq = 0;
    while sq < 64 {
        let m = magics[sq];
        // Enumerate every subset of the mask (Carry-Rippler), including the empty one.
        let mut subset = 0u64;
        loop {
            let index = m.offset + (subset.wrapping_mul(m.factor) >> m.shift) as usize;
            table[index] = slide(sq, subset, dirs);
            subset = subset.wrapping_sub(m.mask) & m.mask;
            if subset == 0 {
                break;
            }
        }
        sq += 1;
    }
}

const fn slider_table() -> [u64; SLIDER_TABLE_LEN] {
    let mut table = [0u64; SLIDER_TABLE_LEN];
    fill_slider_table(&mut table, &ROOK_MAGICS_AND_END.0, &ROOK_DIRS);
    fill_slider_table(&mut table, &BISHOP_MAGICS_AND_END.0, &BISHOP_DIRS);
    table
}

#[allow(long_running_const_eval)]
static SLIDER_ATTACKS: [u64; SLIDER_TABLE_LEN] = slider_table();

/// `LINES[a][b]`: the whole line through `a` and `b` (edge to edge) if they share a rank, file or
/// diagonal, else empty. `BETWEEN[a][b]`: the squares strictly between them on that line.
const fn line_tables() -> ([[u64; 64]; 64], [[u64; 64]; 64]) {
    let mut lines = [[0u64; 64]; 64];
    let mut between = [[0u64; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut b = 0;
        while b < 64 {
            if a != b {
                let bit_b = 1u64 << b;
                let bit_a = 1u64 << a;
                let ortho = slide(a, 0, &ROOK_DIRS);
                let diag = slide(a, 0, &BISHOP_DIRS);
                if ortho & bit_b != 0 {
                    lines[a][b] = (slide(a, 0, &ROOK_DIRS) & slide(b, 0, &ROOK_DIRS)) | bit_a | bit_b;
                    between[a][b] = slide(a, bit_b, &ROOK_DIRS) & slide(b, bit_a, &ROOK_DIRS);
                } else if diag & bit_b != 0 {
                    lines[a][b] = (slide(a, 0, &BISHOP_DIRS) & slide(b, 0, &BISHOP_DIRS)) | bit_a | bit_b;
                    between[a][b] = slide(a, bit_b, &BISHOP_DIRS) & slide(b, bit_a, &BISHOP_DIRS);
                }
            }
            b += 1;
        }
        a += 1;
    }
    (lines, between)
}

const LINE_TABLES: ([[u64; 64]; 64], [[u64; 64]; 64]) = line_tables();
static LINES: [[u64; 64]; 64] = LINE_TABLES.0;
static BETWEEN: [[u64; 64]; 64] = LINE_TABLES.1;

/// Squares a knight on `sq` attacks.
#[must_use]
#[inline(always)]
pub fn knight_attacks(sq: Square) -> Bitboard {
    Bitboard(KNIGHT[sq.index()])
}

/// Squares a king on `sq` attacks.
#[must_use]
#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}

/// Squares a Shatranj ferz on `sq` attacks (one step diagonally).
#[must_use]
#[inline(always)]
pub fn ferz_attacks(sq: Square) -> Bitboard {
    Bitboard(FERZ[sq.index()])
}

/// Squares a Shatranj alfil on `sq` attacks (two steps diagonally, leaping).
#[must_use]
#[inline(always)]
pub fn alfil_attacks(sq: Square) -> Bitboard {
    Bitboard(ALFIL[sq.index()])
}

/// Squares a pawn of `color` on `sq` attacks (its diagonal capture squares).
#[must_use]
#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.index()][sq.index()])
}

#[inline(always)]
fn magic_lookup(magic: &Magic, occupied: Bitboard) -> Bitboard {
    let index = magic.offset + ((occupied.0 & magic.mask).wrapping_mul(magic.factor) >> magic.shift) as usize;
    Bitboard(SLIDER_ATTACKS[index])
}

/// Squares a rook on `sq` attacks with `occupied` blocking.
#[must_use]
#[inline(always)]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&ROOK_MAGICS[sq.index()], occupied)
}

/// Squares a bishop on `sq` attacks with `occupied` blocking.
#[must_use]
#[inline(always)]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&BISHOP_MAGICS[sq.index()], occupied)
}

/// Squares a queen on `sq` attacks with `occupied` blocking.
#[must_use]
#[inline(always)]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// The full line through `a` and `b` if they are aligned, else empty.
#[must_use]
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES[a.index()][b.index()])
}

/// The squares strictly between `a` and `b` if they are aligned, else empty.
#[must_use]
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(BETWEEN[a.index()][b.index()])
}

/// Whether `a`, `b` and `c` lie on one line.
#[must_use]
#[inline(always)]
pub fn aligned(a: Square, b: Square, c: Square) -> bool {
    line(a, b).contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_lookups_match_ray_walks() {
        let mut state = 0x1234_5678_9abc_def1u64;
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let occupied = state & (state >> 3) & (state >> 11);
            for sq in Square::all() {
                let i = sq.index();
                assert_eq!(rook_attacks(sq, Bitboard(occupied)).0, slide(i, occupied, &ROOK_DIRS));
                assert_eq!(bishop_attacks(sq, Bitboard(occupied)).0, slide(i, occupied, &BISHOP_DIRS));
            }
        }
    }

    #[test]
    fn lines_and_between() {
        assert_eq!(between(Square::A1, Square::H8).count(), 6);
        assert_eq!(line(Square::A1, Square::H8).count(), 8);
        assert!(between(Square::A1, Square::B1).is_empty());
        assert!(line(Square::A1, "b3".parse().unwrap()).is_empty());
        assert!(aligned(Square::A1, Square::H1, Square::E1));
    }

    #[test]
    fn leapers() {
        assert_eq!(alfil_attacks(Square::A1).count(), 1);
        assert_eq!(ferz_attacks(Square::E1).count(), 2);
        assert_eq!(knight_attacks(Square::A1).count(), 2);
        assert_eq!(king_attacks(Square::E1).count(), 5);
        assert_eq!(pawn_attacks(Color::White, Square::A8).count(), 0);
    }
}
