//! Every position of the reference perft suites, each up to a node limit that keeps the test
//! fast. `ferz perft --suite FILE` runs the same suites to full depth.

use ferz_chess::{PerftCase, SuiteFormat, Variant, check_case, parse_suite};

/// Checks every case of a suite, all depths whose count is at most `max_nodes`, and asserts
/// that at least `min_checks` counts were compared. Every position is parsed and validated even
/// when all its counts are over the limit.
fn check_suite(name: &str, text: &str, variant: Variant, max_nodes: u64, expected_positions: usize, min_checks: usize) {
    let cases: Vec<PerftCase> = parse_suite(text, SuiteFormat::detect(name, text)).expect("suite parses");
    assert_eq!(cases.len(), expected_positions, "{name}: number of positions");
    let mut problems = Vec::new();
    let mut checks = 0;
    for case in &cases {
        let report = check_case(case, variant, max_nodes);
        checks += report.checks;
        problems.extend(report.problems);
    }
    assert!(problems.is_empty(), "{name}: {} problems:\n{}", problems.len(), problems.join("\n"));
    assert!(checks >= min_checks, "{name}: only {checks} checks");
}

#[test]
fn random_standard_positions() {
    check_suite("random.perft", include_str!("data/random.perft"), Variant::Chess, 200_000, 6838, 6838 * 3);
}

#[test]
fn tricky_positions() {
    check_suite("tricky.perft", include_str!("data/tricky.perft"), Variant::Chess960, 2_000_000, 26, 88);
}

#[test]
fn chess960_midgame_positions() {
    check_suite(
        "chess960-midgame.perft",
        include_str!("data/chess960-midgame.perft"),
        Variant::Chess960,
        1_000_000,
        960,
        960 * 3,
    );
}

#[test]
fn chess960_start_positions() {
    check_suite(
        "chess960-startpos.csv",
        include_str!("data/chess960-startpos.csv"),
        Variant::Chess960,
        1_000_000,
        960,
        960 * 3,
    );
}

#[test]
fn chess960_castling_cases() {
    check_suite(
        "chess960-castling-cases.txt",
        include_str!("data/chess960-castling-cases.txt"),
        Variant::Chess,
        100_000_000,
        20,
        7,
    );
}

#[test]
fn shatranj_positions() {
    check_suite("shatranj.perft", include_str!("data/shatranj.perft"), Variant::Shatranj, 2_000_000, 211, 211);
}

#[test]
fn start_positions_to_depth_five() {
    use ferz_chess::{Position, ShatranjArray, perft, perft_make_all};

    let chess = Position::new(Variant::Chess);
    assert_eq!(perft(&chess, 5), 4_865_609);
    assert_eq!(perft_make_all(&chess, 4), 197_281);
    let shatranj = Position::shatranj(ShatranjArray::KingOnD);
    assert_eq!(perft(&shatranj, 5), 1_164_248);
    assert_eq!(perft_make_all(&shatranj, 4), 68_122);
}

#[test]
fn malformed_suites_name_the_line() {
    let error = parse_suite("id a\nepd 8/8/8/8/8/8/8/8 w - -\nperft x 1\n", SuiteFormat::Perft).unwrap_err();
    assert_eq!(error.to_string(), "line 3: depth \"x\" is not a number");
    let error = parse_suite("startpos|3|8902\n", SuiteFormat::Pipe).unwrap_err();
    assert_eq!(error.line, 1);
    let error = parse_suite("id lonely\nperft 1 20\n", SuiteFormat::Perft).unwrap_err();
    assert!(error.to_string().contains("has no epd line"), "{error}");
}

#[test]
fn wrong_counts_are_reported() {
    let cases = parse_suite(
        "id start\nepd rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nperft 2 401\n",
        SuiteFormat::Perft,
    )
    .expect("parses");
    let report = check_case(&cases[0], Variant::Chess, u64::MAX);
    assert_eq!(report.problems.len(), 1);
    assert!(report.problems[0].contains("expected 401, got 400"), "{:?}", report.problems);
}
