//! The prober against python-chess's `chess.syzygy` on the same tables: every WDL and DTZ
//! value of the committed fixture (random legal 3- and 4-piece positions, written by
//! `scripts/syzygy-oracle.py`) must agree.

use std::path::PathBuf;

use ferz_chess::{Position, Variant};
use ferz_syzygy::Tablebases;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

#[test]
fn every_wdl_and_dtz_value_agrees_with_python_chess() {
    let tables = Tablebases::open(&[data("syzygy")]).expect("open the test tables");
    assert_eq!(tables.max_pieces(), 4);
    let fixture = std::fs::read_to_string(data("oracle.txt")).expect("read the oracle fixture");
    let (mut checked, mut with_ep) = (0, 0);
    let mut mismatches = Vec::new();
    for (number, line) in fixture.lines().enumerate() {
        let fields: Vec<&str> = line.split(';').collect();
        let [fen, wdl, dtz] = fields[..] else { panic!("line {}: expected FEN;WDL;DTZ", number + 1) };
        let position = Position::from_fen(fen, Variant::Chess).unwrap_or_else(|e| panic!("line {}: {e}", number + 1));
        let expected_wdl: i32 = wdl.parse().unwrap();
        let expected_dtz: i32 = dtz.parse().unwrap();
        let got_wdl = tables.probe_wdl(&position).map(|w| w.to_i32());
        let got_dtz = tables.probe_dtz(&position).map(|d| d.0);
        if got_wdl != Ok(expected_wdl) || got_dtz != Ok(expected_dtz) {
            mismatches.push(format!(
                "{fen}: python-chess wdl {expected_wdl} dtz {expected_dtz}, ferz {got_wdl:?} {got_dtz:?}"
            ));
        }
        checked += 1;
        with_ep += usize::from(position.ep_square().is_some());
    }
    assert!(checked >= 4000, "only {checked} positions in the fixture");
    assert!(with_ep >= 100, "only {with_ep} en passant positions in the fixture");
    assert!(
        mismatches.is_empty(),
        "{} of {checked} positions disagree:\n{}",
        mismatches.len(),
        mismatches.iter().take(30).cloned().collect::<Vec<_>>().join("\n")
    );
}
