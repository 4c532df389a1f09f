//! Fuzz target `uci_command`: the UCI engine's command loop on arbitrary bytes.
//!
//! The input is fed to `Session::run` as standard input would be (bytes, lines of any
//! encoding). No command may panic or end the session early: after the input, `isready`
//! must still be answered with `readyok`. Lines that would make one run slow rather than
//! test the parser are dropped: a `Hash` above 64 MiB, a `SyzygyPath` (a directory walk) and
//! `go` without a depth or node limit (replaced by `go depth 2`).
#![no_main]

use std::io::{Cursor, Write};
use std::sync::{Arc, Mutex};

use ferz_engine::uci::Session;
use libfuzzer_sys::fuzz_target;

/// Collects the engine's output for the final check.
#[derive(Clone, Default)]
struct Output(Arc<Mutex<Vec<u8>>>);

impl Write for Output {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The line, or a cheaper stand-in for one that would only be slow.
fn tame(line: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(line).to_ascii_lowercase();
    let words: Vec<&str> = text.split_whitespace().collect();
    if text.contains("syzygypath") {
        return Vec::new();
    }
    if text.contains("hash") && words.iter().any(|w| w.parse::<i128>().is_ok_and(|n| n > 64)) {
        return Vec::new();
    }
    if words.first() == Some(&"go") && !words.iter().any(|w| *w == "depth" || *w == "nodes" || *w == "perft") {
        return b"go depth 2".to_vec();
    }
    if words.first() == Some(&"go") && words.iter().any(|w| w.parse::<i128>().is_ok_and(|n| n > 5)) {
        return b"go depth 2".to_vec();
    }
    line.to_vec()
}

fuzz_target!(|data: &[u8]| {
    let mut input = Vec::new();
    for line in data.split(|&b| b == b'\n') {
        input.extend(tame(line));
        input.push(b'\n');
    }
    input.extend_from_slice(b"isready\n");
    let output = Output::default();
    let mut session = Session::new(output.clone());
    session.run(Cursor::new(input));
    let text = String::from_utf8_lossy(&output.0.lock().unwrap()).into_owned();
    // `quit` ends the loop before the final `isready`; every other input must reach it.
    let quits = data.split(|&b| b == b'\n').any(|line| String::from_utf8_lossy(line).trim() == "quit");
    assert!(quits || text.lines().any(|l| l == "readyok"), "no readyok after the input:\n{text}");
});
