//! Bad input, as a hostile user or a broken GUI sends it: the engine reports it and goes on;
//! commands refuse it before doing anything. docs/robustness.md lists these promises.

use ferz_tests::{UciProcess, ferz_binary, run_ferz};

/// The `info string` lines among `lines`.
fn strings(lines: &[String]) -> Vec<&str> {
    lines.iter().filter_map(|l| l.strip_prefix("info string ")).collect()
}

#[test]
fn a_line_that_is_not_utf8_is_reported_and_the_session_goes_on() {
    let mut engine = UciProcess::start(&[]);
    engine.send("isready");
    engine.read_until(10, |l| l == "readyok");
    engine.send_bytes(b"setoption name EvalFile value /tmp/\xe9t\xe9.nnue\n\xff\xfe\n");
    engine.send("isready");
    let lines = engine.read_until(10, |l| l == "readyok");
    assert_eq!(strings(&lines).iter().filter(|s| s.contains("not UTF-8")).count(), 2, "{lines:?}");
    engine.send("position startpos");
    engine.send("go nodes 100");
    engine.read_until(10, |l| l.starts_with("bestmove "));
}

#[test]
fn out_of_range_spin_values_are_clamped_and_said() {
    let mut engine = UciProcess::start(&[]);
    for (option, value, said) in [
        ("Hash", "0", "Hash 0 is outside 1 to 65536; using 1"),
        ("Threads", "0", "Threads 0 is outside 1 to 256; using 1"),
        ("MultiPV", "0", "MultiPV 0 is outside 1 to 256; using 1"),
        ("SyzygyProbeDepth", "0", "SyzygyProbeDepth 0 is outside 1 to 100; using 1"),
        ("Move Overhead", "-5", "Move Overhead -5 is outside 0 to 5000; using 0"),
        ("Threads", "100000000000000000000", "Threads 100000000000000000000 is outside 1 to 256; using 256"),
    ] {
        engine.send(&format!("setoption name {option} value {value}"));
        engine.send("isready");
        let lines = engine.read_until(20, |l| l == "readyok");
        assert_eq!(strings(&lines), [said], "{option} {value}");
    }
}

/// `Hash` at and past its maximum under an address-space limit far below it: the table is
/// reserved fallibly and cut to what the machine grants, the engine says what it kept and
/// plays on (it used to abort on the failed allocation).
#[cfg(unix)]
#[test]
fn hash_beyond_what_the_machine_grants_is_cut_down_and_said() {
    let binary = ferz_binary();
    let mut engine = UciProcess::start_program(
        std::path::Path::new("/bin/sh"),
        &["-c", "ulimit -v 1500000 && exec \"$0\"", binary.to_str().unwrap()],
    );
    for value in ["65536", "999999"] {
        engine.send(&format!("setoption name Hash value {value}"));
        engine.send("isready");
        let lines = engine.read_until(60, |l| l == "readyok");
        let said = strings(&lines).join("\n");
        assert!(said.contains("Hash 65536 MiB is more than this machine can spare"), "{said}");
        let kept: u64 = said.rsplit("using ").next().unwrap().trim_end_matches(" MiB").parse().unwrap();
        assert!((1..1500).contains(&kept), "{said}");
        // The limit said is the one the table was sized by (read before it was made, not after).
        if let Some(limit) = said.split("(at most ").nth(1) {
            let limit: u64 = limit.split(' ').next().unwrap().parse().unwrap();
            assert!(kept <= limit, "{said}");
        }
    }
    engine.send("position startpos");
    engine.send("go nodes 1000");
    engine.read_until(20, |l| l.starts_with("bestmove "));
}

#[cfg(unix)]
#[test]
fn an_endless_eval_file_is_refused_at_once() {
    let mut engine = UciProcess::start(&[]);
    engine.send("setoption name EvalFile value /dev/zero");
    engine.send("isready");
    let lines = engine.read_until(10, |l| l == "readyok");
    let said = strings(&lines).join("\n");
    assert!(said.contains("/dev/zero") && said.contains("larger than any net file"), "{said}");
    assert!(said.contains("keeping chess net"), "{said}");
    let output = run_ferz(&["bench", "1", "--eval-file", "/dev/zero"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("/dev/zero") && stderr.contains("larger than any net file"), "{stderr}");
    // The cause is named once, not once per layer of the chain.
    assert_eq!(stderr.matches("larger than any net file").count(), 1, "{stderr}");
}

#[test]
fn a_mistyped_subcommand_is_an_error_and_uci_commands_still_run() {
    let output = run_ferz(&["selfpaly", "--games", "3"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("unrecognized subcommand 'selfpaly'") && stderr.contains("selfplay"), "{stderr}");
    let output = run_ferz(&["isready"]);
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "readyok");
}

#[test]
fn a_match_option_the_engine_does_not_allow_is_refused() {
    let binary = ferz_binary();
    let engine_b = format!("uci:{}", binary.display());
    for (value, says) in
        [("abc", "takes a whole number from 1 to 65536, not \"abc\""), ("999999", "999999 is out of range")]
    {
        let option = format!("Hash={value}");
        let output =
            run_ferz(&["match", "--engine-a", "ferz", "--engine-b", &engine_b, "--option-b", &option, "--games", "2"]);
        assert!(!output.status.success(), "{option}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("option Hash") && stderr.contains(says), "{option}: {stderr}");
    }
}

/// Garbage of every kind on the engine's standard input: random bytes, invalid UTF-8, control
/// characters, huge and negative numbers, every option at and past its limits. After all of
/// it the engine still answers `isready` and plays a legal move. (A `Hash` past the machine is
/// the test above; here it stays small so the test does not take the machine's memory.)
#[test]
fn garbage_on_standard_input_never_stops_the_engine() {
    let mut engine = UciProcess::start(&[]);
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..200 {
        let length = (next() % 120) as usize;
        let mut line: Vec<u8> = (0..length).map(|_| next() as u8).filter(|&b| b != b'\n').collect();
        line.push(b'\n');
        engine.send_bytes(&line);
    }
    engine.send_bytes(b"\xc3\x28\n\xed\xa0\x80\n\x00\x01\x02\x1b[31m\n\r\n\t \t\n");
    let numbers = ["-1", "0", "1", "-99999999999999999999999", "99999999999999999999999", "1e30", "1.5", "NaN", ""];
    let options: [(&str, &[&str]); 14] = [
        ("Hash", &["1", "64"]),
        ("Threads", &["1", "256", "257"]),
        ("MultiPV", &["1", "256", "257"]),
        ("Move Overhead", &["0", "5000", "5001"]),
        ("SyzygyProbeDepth", &["1", "100", "101"]),
        ("SyzygyProbeLimit", &["0", "7", "8"]),
        ("Ponder", &["true", "false", "maybe"]),
        ("UCI_Chess960", &["true", "false", "2"]),
        ("UCI_ShowWDL", &["true", "false", "yes"]),
        ("Syzygy50MoveRule", &["true", "false", "x"]),
        ("UseNNUE", &["true", "false", "x"]),
        ("UCI_Variant", &["chess", "shatranj", "makruk", "chess"]),
        ("EvalFile", &["/nonexistent.nnue", "/dev/null", "<embedded>"]),
        ("SyzygyPath", &["/nonexistent", "<empty>"]),
    ];
    for (option, values) in options {
        // A huge Hash is clamped to 65536 MiB, and then to what the machine can spare: the test
        // above checks that; here it would fill the machine's memory (half a minute of it).
        let numbers = numbers.iter().filter(|n| option != "Hash" || !n.starts_with("9999"));
        for value in values.iter().chain(numbers) {
            engine.send(&format!("setoption name {option} value {value}"));
        }
    }
    engine.send("setoption name Threads value 1");
    engine.send("setoption name UCI_Chess960 value false");
    engine.send("setoption name UCI_Variant value chess");
    for go in ["go depth -5", "go nodes -1", "go wtime 99999999999999999999 btime -3", "go movetime 1e9", "go perft -1"]
    {
        engine.send("position startpos moves e2e4 zz99 e7e5");
        engine.send(go);
    }
    engine.send("stop");
    engine.send("isready");
    engine.read_until(60, |l| l == "readyok");
    engine.send("position startpos");
    engine.send("go nodes 500");
    let lines = engine.read_until(30, |l| l.starts_with("bestmove "));
    let best = lines.last().unwrap().split_whitespace().nth(1).unwrap().to_owned();
    assert!(ferz_chess::Position::new(ferz_chess::Variant::Chess).parse_uci(&best).is_ok(), "{best}");
    engine.send("quit");
    let (status, _) = engine.finish();
    assert!(status.success(), "{status}");
}
