//! NNUE through the real binary: the UCI options, net files good and bad, and `ferz bench`
//! with a net.

use std::path::Path;

use ferz_nnue::{Activation, FloatNetwork, NetVariant, format};
use ferz_tests::{TempDir, UciProcess, run_ferz};

/// Writes a random net (hidden size 32) for `variant` into `dir`: the Shatranj one with eight
/// output buckets, so that the binary's searches also go through the bucket choice.
fn write_net(dir: &TempDir, name: &str, variant: NetVariant) -> String {
    let buckets = if variant == NetVariant::Shatranj { 8 } else { 1 };
    let net = FloatNetwork::random(Activation::SCReLU, 32, buckets, 5).quantise(variant).unwrap();
    let path = dir.path().join(name);
    format::save(&net, &path).unwrap();
    path.display().to_string()
}

fn info_strings(engine: &mut UciProcess) -> Vec<String> {
    engine.send("isready");
    let lines = engine.read_until(10, |l| l == "readyok");
    lines.into_iter().filter(|l| l.starts_with("info string")).collect()
}

#[test]
fn uci_options_load_nets_and_refuse_bad_files() {
    let dir = TempDir::new("nnue-uci");
    let chess = write_net(&dir, "chess.nnue", NetVariant::Chess);
    let shatranj = write_net(&dir, "shatranj.nnue", NetVariant::Shatranj);
    let mut corrupt = std::fs::read(&chess).unwrap();
    corrupt[1000] ^= 1;
    let corrupt_path = dir.path().join("corrupt.nnue");
    std::fs::write(&corrupt_path, corrupt).unwrap();

    let mut engine = UciProcess::start(&[]);
    engine.send("uci");
    let lines = engine.read_until(10, |l| l == "uciok");
    for option in ["UseNNUE type check default true", "EvalFile type string", "EvalFileShatranj type string"] {
        assert!(lines.iter().any(|l| l.starts_with(&format!("option name {option}"))), "{option}: {lines:?}");
    }

    engine.send(&format!("setoption name EvalFile value {chess}"));
    let info = info_strings(&mut engine);
    assert!(info.iter().any(|l| l.contains("using chess net") && l.contains("hidden 32")), "{info:?}");

    engine.send(&format!("setoption name EvalFile value {shatranj}"));
    let info = info_strings(&mut engine);
    assert!(info.iter().any(|l| l.contains("this is a shatranj net, expected a chess net")), "{info:?}");
    assert!(info.iter().any(|l| l.contains("keeping chess net") && l.contains("chess.nnue")), "{info:?}");

    engine.send(&format!("setoption name EvalFileShatranj value {}", corrupt_path.display()));
    let info = info_strings(&mut engine);
    assert!(info.iter().any(|l| l.contains("corrupt.nnue") && l.contains("checksum mismatch")), "{info:?}");

    engine.send(&format!("setoption name EvalFileShatranj value {}", dir.path().join("missing.nnue").display()));
    let info = info_strings(&mut engine);
    assert!(info.iter().any(|l| l.contains("missing.nnue") && l.contains("cannot read")), "{info:?}");

    // Searching with the net, in both variants, still ends in one legal bestmove.
    engine.send(&format!("setoption name EvalFileShatranj value {shatranj}"));
    let info = info_strings(&mut engine);
    assert!(info.iter().any(|l| l.contains("using shatranj net") && l.contains("8 output buckets")), "{info:?}");
    engine.send("setoption name UseNNUE value true");
    engine.send("position startpos moves e2e4");
    engine.send("go depth 6");
    let lines = engine.read_until(30, |l| l.starts_with("bestmove"));
    assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
    engine.send("setoption name UCI_Variant value shatranj");
    engine.send("position startpos");
    engine.send("go depth 6");
    let lines = engine.read_until(30, |l| l.starts_with("bestmove"));
    assert!(!lines.last().unwrap().contains("(none)"), "{lines:?}");

    engine.send("setoption name UseNNUE value maybe");
    let info = info_strings(&mut engine);
    assert!(info.iter().any(|l| l.contains("invalid value")), "{info:?}");
    engine.send("quit");
}

#[test]
fn bench_is_deterministic_with_a_net_and_use_nnue_false_is_the_hand_tuned_search() {
    let dir = TempDir::new("nnue-bench");
    let chess = write_net(&dir, "chess.nnue", NetVariant::Chess);
    let shatranj = write_net(&dir, "shatranj.nnue", NetVariant::Shatranj);
    let last_line = |args: &[&str]| {
        let out = run_ferz(args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().lines().last().unwrap().split(" nodes").next().unwrap().to_owned()
    };
    let nnue = ["bench", "5", "--use-nnue", "true", "--eval-file", &chess, "--eval-file-shatranj", &shatranj];
    let first = last_line(&nnue);
    assert_eq!(last_line(&nnue), first);
    let classic = last_line(&["bench", "5", "--use-nnue", "false"]);
    assert_ne!(first, classic);
    let off = ["bench", "5", "--use-nnue", "false", "--eval-file", &chess];
    assert_eq!(last_line(&off), classic);
    // The default is the embedded chess net (it won its SPRT), which is neither of the others.
    let default = last_line(&["bench", "5"]);
    assert_eq!(last_line(&["bench", "5", "--use-nnue", "true"]), default);
    assert_ne!(default, classic);
    assert_ne!(default, first);

    let out = run_ferz(&["bench", "2", "--eval-file", &shatranj]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("shatranj.nnue") && stderr.contains("expected a chess net"), "{stderr}");
}

/// `ferz net rescale` writes a copy that differs in its scale only, which `ferz net info` shows
/// and the search sees (another bench); bad input is named and writes nothing.
#[test]
fn net_rescale_writes_a_copy_in_another_scale_and_refuses_bad_input() {
    let dir = TempDir::new("nnue-rescale");
    let chess = write_net(&dir, "chess.nnue", NetVariant::Chess);
    let rescaled = dir.path().join("chess-300.nnue").display().to_string();
    let ok = |args: &[&str]| {
        let out = run_ferz(args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let failure = |args: &[&str]| {
        let out = run_ferz(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        String::from_utf8(out.stderr).unwrap()
    };

    let stdout = ok(&["net", "rescale", &chess, "--scale", "300", "--out", &rescaled]);
    assert!(stdout.contains("scale 300 (was 400)"), "{stdout}");
    let info = ok(&["net", "info", &chess, &rescaled]);
    let lines: Vec<&str> = info.lines().collect();
    assert_eq!(lines.len(), 2, "{info}");
    assert!(lines[0].contains("chess net, plain inputs, 32 hidden, SCReLU, 1 output bucket(s), scale 400"), "{info}");
    assert!(lines[1].contains("scale 300, sha256 "), "{info}");
    let (original, copy) = (std::fs::read(&chess).unwrap(), std::fs::read(&rescaled).unwrap());
    assert_eq!(original[..20], copy[..20]);
    assert_eq!(original[22..original.len() - 4], copy[22..copy.len() - 4]);
    let nodes = |net: &str| {
        ok(&["bench", "6", "--eval-file", net]).lines().last().unwrap().split(" nodes").next().unwrap().to_owned()
    };
    assert_ne!(nodes(&chess), nodes(&rescaled), "the search sees the scale");

    let stderr = failure(&[
        "net",
        "rescale",
        &chess,
        "--scale",
        "0",
        "--out",
        &dir.path().join("zero.nnue").display().to_string(),
    ]);
    assert!(stderr.contains("--scale: scale 0 is outside 1..=4000 (the trainer writes 400)"), "{stderr}");
    assert!(!dir.path().join("zero.nnue").exists());
    let stderr = failure(&["net", "rescale", &chess, "--scale", "300", "--out", &rescaled]);
    assert!(stderr.contains("chess-300.nnue exists"), "{stderr}");
    let mut corrupt = original.clone();
    corrupt[500] ^= 1;
    let corrupt_path = dir.path().join("corrupt.nnue");
    std::fs::write(&corrupt_path, corrupt).unwrap();
    let corrupt_path = corrupt_path.display().to_string();
    let stderr = failure(&["net", "info", &corrupt_path]);
    assert!(stderr.contains("corrupt.nnue") && stderr.contains("checksum mismatch"), "{stderr}");
    let stderr = failure(&[
        "net",
        "rescale",
        &corrupt_path,
        "--scale",
        "300",
        "--out",
        &dir.path().join("c.nnue").display().to_string(),
    ]);
    assert!(stderr.contains("corrupt.nnue") && stderr.contains("checksum mismatch"), "{stderr}");
    assert!(!dir.path().join("c.nnue").exists());

    // --like: the scale at which the copy scores a dataset's positions as the other net does.
    let data = dir.path().join("data").display().to_string();
    let pgn = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/import/lichess.pgn").display().to_string();
    ok(&["data", "import", &pgn, "--out", &data]);
    let matched = dir.path().join("matched.nnue").display().to_string();
    let stdout = ok(&["net", "rescale", &rescaled, "--like", &chess, "--data", &data, "--out", &matched]);
    let scale: i32 =
        stdout.split("scale ").nth(2).and_then(|s| s.split(' ').next()).and_then(|s| s.parse().ok()).unwrap();
    assert!((scale - 400).abs() <= 8, "{stdout}");
    assert!(stdout.contains("(was 300)") && stdout.contains("median |score|"), "{stdout}");
    let stderr = failure(&[
        "net",
        "rescale",
        &rescaled,
        "--like",
        &chess,
        "--out",
        &dir.path().join("l.nnue").display().to_string(),
    ]);
    assert!(stderr.contains("--data"), "{stderr}");
    let shatranj = write_net(&dir, "shatranj.nnue", NetVariant::Shatranj);
    let out = dir.path().join("s.nnue").display().to_string();
    let stderr = failure(&["net", "rescale", &rescaled, "--like", &shatranj, "--data", &data, "--out", &out]);
    assert!(stderr.contains("shatranj.nnue") && stderr.contains("expected a chess net"), "{stderr}");
    let stderr = failure(&["net", "rescale", &rescaled, "--like", &chess, "--data", &pgn, "--out", &out]);
    assert!(stderr.contains("lichess.pgn"), "{stderr}");
    assert!(!Path::new(&out).exists());
}
