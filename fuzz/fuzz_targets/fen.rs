//! Fuzz target `fen`: FEN parsing and the invariants of every position that parses.
//!
//! For each variant, a FEN that parses must: print back (standard and Shredder castling
//! notation) to a FEN that reparses to the same position, have an incremental Zobrist key equal
//! to the one computed from scratch, keep that equality after every legal move, and round-trip
//! every legal move through UCI and SAN.
#![no_main]

use ferz_chess::{CastlingNotation, Position, Setup, Variant};
use libfuzzer_sys::fuzz_target;

const VARIANTS: [Variant; 3] = [Variant::Chess, Variant::Chess960, Variant::Shatranj];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = text.parse::<Setup>();
    for variant in VARIANTS {
        if let Ok(pos) = Position::from_fen(text, variant) {
            check_position(&pos, variant);
        }
    }
});

fn check_position(pos: &Position, variant: Variant) {
    assert_eq!(pos.variant(), variant);

    for notation in [None, Some(CastlingNotation::Shredder)] {
        let fen = match notation {
            None => pos.fen(),
            Some(notation) => pos.fen_with(notation),
        };
        let again = Position::from_fen(&fen, variant)
            .unwrap_or_else(|e| panic!("{variant:?}: {fen:?} (from {:?}) does not reparse: {e}", pos.fen()));
        assert_eq!(&again, pos, "{variant:?}: {fen:?} reparses to a different position");
        assert_eq!(again.variant(), variant);
    }

    assert_eq!(pos.key(), pos.compute_key(), "{variant:?}: incremental key != computed key in {}", pos.fen());

    for m in pos.legal_moves() {
        let mut next = *pos;
        next.play_unchecked(m);
        assert_eq!(
            next.key(),
            next.compute_key(),
            "{variant:?}: key mismatch after {} from {} (now {})",
            pos.uci(m),
            pos.fen(),
            next.fen()
        );
        let san = pos.san(m);
        assert_eq!(pos.parse_san(&san), Ok(m), "{variant:?}: SAN {san:?} does not round-trip in {}", pos.fen());
        let uci = pos.uci(m);
        assert_eq!(pos.parse_uci(&uci), Ok(m), "{variant:?}: UCI {uci:?} does not round-trip in {}", pos.fen());
    }
}
