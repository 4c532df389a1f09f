//! Fuzz target `uci_move`: move-text parsing against arbitrary positions.
//!
//! Input: a FEN, a newline, then move text. For every variant in which the FEN parses, the move
//! text goes through `parse_uci`, `parse_san` and `UciMove::from_str` (+ `to_move`); every move
//! they accept must be legal in the position.
#![no_main]

use ferz_chess::{Position, UciMove, Variant};
use libfuzzer_sys::fuzz_target;

const VARIANTS: [Variant; 3] = [Variant::Chess, Variant::Chess960, Variant::Shatranj];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (fen, move_text) = text.split_once('\n').unwrap_or((text, ""));

    let uci = move_text.parse::<UciMove>();
    if let Ok(uci) = uci {
        // Display must produce text that parses back to the same move.
        assert_eq!(uci.to_string().parse::<UciMove>(), Ok(uci), "UciMove {move_text:?} does not round-trip");
    }

    for variant in VARIANTS {
        let Ok(pos) = Position::from_fen(fen, variant) else { continue };
        if let Ok(m) = pos.parse_uci(move_text) {
            assert!(pos.is_legal(m), "{variant:?}: parse_uci({move_text:?}) gave illegal {m:?} in {}", pos.fen());
        }
        if let Ok(m) = pos.parse_san(move_text) {
            assert!(pos.is_legal(m), "{variant:?}: parse_san({move_text:?}) gave illegal {m:?} in {}", pos.fen());
        }
        if let Ok(uci) = uci
            && let Some(m) = uci.to_move(&pos)
        {
            assert!(pos.is_legal(m), "{variant:?}: UciMove {move_text:?} gave illegal {m:?} in {}", pos.fen());
        }
    }
});
