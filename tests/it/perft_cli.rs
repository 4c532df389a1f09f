//! `ferz perft` as a user runs it.

use ferz_tests::{TempDir, run_ferz};

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The `nodes <N> time <ms> nps <nps>` line, which must be the last line of stdout.
fn last_line_nodes(output: &std::process::Output) -> u64 {
    let text = stdout(output);
    let last = text.lines().last().expect("some output");
    let fields: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(fields.len(), 6, "last line {last:?}");
    assert_eq!((fields[0], fields[2], fields[4]), ("nodes", "time", "nps"), "last line {last:?}");
    fields[3].parse::<u64>().expect("time in ms");
    fields[5].parse::<u64>().expect("nps");
    fields[1].parse().expect("node count")
}

#[test]
fn counts_each_variant_start() {
    for (variant, depth, nodes) in [("chess", "4", 197_281), ("chess960", "3", 8902), ("shatranj", "4", 68_122)] {
        let output = run_ferz(&["perft", "--variant", variant, "--depth", depth]);
        assert!(output.status.success(), "{variant}: {}", stderr(&output));
        assert_eq!(last_line_nodes(&output), nodes, "{variant}");
    }
}

#[test]
fn counts_without_bulk_counting_agree() {
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let bulk = run_ferz(&["perft", "--fen", kiwipete, "--depth", "3"]);
    let make_all = run_ferz(&["perft", "--fen", kiwipete, "--depth", "3", "--no-bulk"]);
    assert_eq!(last_line_nodes(&bulk), 97_862);
    assert_eq!(last_line_nodes(&make_all), 97_862);
}

#[test]
fn threads_split_the_root_and_agree() {
    let single = run_ferz(&["perft", "--variant", "shatranj", "--depth", "4", "--divide"]);
    let parallel = run_ferz(&["perft", "--variant", "shatranj", "--depth", "4", "--divide", "--threads", "3"]);
    assert!(parallel.status.success(), "{}", stderr(&parallel));
    let lines = |o: &std::process::Output| {
        stdout(o).lines().filter(|l| !l.starts_with("nodes")).map(str::to_owned).collect::<Vec<_>>()
    };
    assert_eq!(lines(&single), lines(&parallel));
    assert_eq!(last_line_nodes(&parallel), 68_122);
    let no_bulk = run_ferz(&["perft", "--depth", "4", "--threads", "2", "--no-bulk"]);
    assert_eq!(last_line_nodes(&no_bulk), 197_281);
}

#[test]
fn divide_lists_each_move_then_the_total() {
    let output = run_ferz(&["perft", "--depth", "2", "--divide"]);
    assert!(output.status.success());
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 21, "{text}");
    assert!(lines.contains(&"e2e4 20"), "{text}");
    let sum: u64 = lines[..20].iter().map(|l| l.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(sum, 400);
    assert_eq!(last_line_nodes(&output), 400);
}

#[test]
fn divide_writes_castling_per_variant() {
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let standard = stdout(&run_ferz(&["perft", "--fen", fen, "--depth", "1", "--divide"]));
    assert!(standard.lines().any(|l| l == "e1g1 1") && standard.lines().any(|l| l == "e1c1 1"), "{standard}");
    let chess960 = stdout(&run_ferz(&["perft", "--variant", "chess960", "--fen", fen, "--depth", "1", "--divide"]));
    assert!(chess960.lines().any(|l| l == "e1h1 1") && chess960.lines().any(|l| l == "e1a1 1"), "{chess960}");
}

#[test]
fn bad_fen_exits_2_with_the_reason() {
    for (fen, reason) in [
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "rank 6 has 9 squares"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w - - 0 1", "two white kings"),
        ("8/8/8/8/8/8/8/8 w - - 0 1", "no white king"),
        ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq - 0 1", "castling right K but no white rook"),
        ("", "empty FEN"),
        ("8/8/8/8/8/8/8/7x w - - 0 1", "unknown letter 'x' on rank 1"),
        ("x", "board has 1 rank,"),
    ] {
        let output = run_ferz(&["perft", "--fen", fen, "--depth", "1"]);
        assert_eq!(output.status.code(), Some(2), "{fen:?}");
        assert!(stderr(&output).contains(reason), "{fen:?}: {}", stderr(&output));
        assert!(!stderr(&output).contains("panicked"), "{fen:?}");
    }
}

#[test]
fn suite_passes_and_reports_mismatches() {
    let dir = TempDir::new("suite");
    let good = dir.path().join("good.perft");
    std::fs::write(&good, "id start\nepd rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nperft 1 20\nperft 2 400\nperft 5 4865609\n")
        .unwrap();
    let output = run_ferz(&["perft", "--suite", good.to_str().unwrap(), "--max-nodes", "1000"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("1 positions, 2 checks, 0 mismatches, 1 skipped"), "{}", stdout(&output));
    assert_eq!(last_line_nodes(&output), 420);

    let bad = dir.path().join("bad.epd");
    std::fs::write(&bad, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ;D1 20 ;D2 401\n").unwrap();
    let output = run_ferz(&["perft", "--suite", bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("depth 2: expected 401, got 400"), "{}", stdout(&output));

    let shatranj = dir.path().join("cases.txt");
    std::fs::write(&shatranj, "fen rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1|3|4176|false\n").unwrap();
    let output = run_ferz(&["perft", "--variant", "shatranj", "--suite", shatranj.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stdout(&output));
}

#[test]
fn broken_suites_exit_2() {
    let dir = TempDir::new("broken");
    let broken = dir.path().join("broken.perft");
    std::fs::write(&broken, "id x\nepd 8/8/8/8/8/8/8/8 w - -\nperft two 1\n").unwrap();
    let output = run_ferz(&["perft", "--suite", broken.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("line 3"), "{}", stderr(&output));
    let missing = run_ferz(&["perft", "--suite", dir.path().join("missing.perft").to_str().unwrap()]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("cannot read suite"), "{}", stderr(&missing));
    let illegal = dir.path().join("illegal.perft");
    std::fs::write(&illegal, "id x\nepd 8/8/8/8/8/8/8/8 w - -\nperft 1 1\n").unwrap();
    let output = run_ferz(&["perft", "--suite", illegal.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("no white king"), "{}", stdout(&output));
}
