//! Zobrist hash keys, generated at compile time.

use crate::{Bitboard, Color, Role, Square};

const fn splitmix(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

struct Keys {
    pieces: [[[u64; 64]; 6]; 2],
    castling: [u64; 64],
    en_passant: [u64; 8],
    black_to_move: u64,
}

const fn make_keys() -> Keys {
    let mut keys = Keys { pieces: [[[0; 64]; 6]; 2], castling: [0; 64], en_passant: [0; 8], black_to_move: 0 };
    let mut state = 0x6665_727a_6b65_7973; // "ferzkeys"
    let mut c = 0;
    while c < 2 {
        let mut r = 0;
        while r < 6 {
            let mut s = 0;
            while s < 64 {
                let (next, key) = splitmix(state);
                state = next;
                keys.pieces[c][r][s] = key;
                s += 1;
            }
            r += 1;
        }
        c += 1;
    }
    let mut s = 0;
    while s < 64 {
        let (next, key) = splitmix(state);
        state = next;
        keys.castling[s] = key;
        s += 1;
    }
    let mut f = 0;
    while f < 8 {
        let (next, key) = splitmix(state);
        state = next;
        keys.en_passant[f] = key;
        f += 1;
    }
    keys.black_to_move = splitmix(state).1;
    keys
}

static KEYS: Keys = make_keys();

/// Key of `color`'s `role` standing on `sq`.
#[must_use]
#[inline(always)]
pub fn piece_key(color: Color, role: Role, sq: Square) -> u64 {
    KEYS.pieces[color.index()][role.index()][sq.index()]
}

/// Key of a set of castling rights, given as the squares of the rooks that may castle.
#[must_use]
#[inline(always)]
pub fn castling_key(rooks: Bitboard) -> u64 {
    rooks.fold(0, |key, sq| key ^ KEYS.castling[sq.index()])
}

/// Key of an en passant square (by file).
#[must_use]
#[inline(always)]
pub fn en_passant_key(sq: Square) -> u64 {
    KEYS.en_passant[sq.file().index()]
}

/// Key toggled when black is to move.
#[must_use]
#[inline(always)]
pub fn black_to_move_key() -> u64 {
    KEYS.black_to_move
}
