//! What several of the rules' integration tests share.

use ferz_chess::{PerftCase, Position, SuiteFormat, Variant, parse_suite};

/// The positions of a perft suite (`name` tells its format) in `variant`; a case the suite marks
/// as Chess960 is read as Chess960 when `variant` is chess.
pub fn suite_positions(name: &str, text: &str, variant: Variant) -> Vec<Position> {
    let cases: Vec<PerftCase> = parse_suite(text, SuiteFormat::detect(name, text)).expect("suite parses");
    cases
        .iter()
        .map(|case| {
            let variant = if case.chess960 && variant == Variant::Chess { Variant::Chess960 } else { variant };
            Position::from_fen(&case.fen, variant).expect("suite positions are legal")
        })
        .collect()
}
