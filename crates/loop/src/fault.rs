//! Fault points: where the kill tests stop the loop as SIGKILL would, at a chosen moment.
//!
//! `FERZ_LOOP_KILL_AT=<point>:<n>` makes the process send itself SIGKILL when the point is
//! reached for the `n`-th time in this run: `selfplay:<games>` (after that many self-play games
//! of this run), `merge:1` (the merged dataset written, not yet renamed into place), `train:<epoch>`
//! (after that epoch), `scale:1` (the candidate at the best net's scale written, the gate not yet
//! begun), `gate:<games>` (after that many gate games), `promote:1` (the net copied
//! to `best/`, the export and the ledger not yet written), `ledger:1` (the generation finished,
//! its record not yet written). Without the variable a point costs one comparison. A real
//! SIGKILL, not an exit: nothing is flushed or cleaned up, which is what the tests are about.

use std::sync::OnceLock;

/// The point and count the environment asks for, read once.
fn target() -> Option<&'static (String, u64)> {
    static TARGET: OnceLock<Option<(String, u64)>> = OnceLock::new();
    TARGET
        .get_or_init(|| {
            let value = std::env::var("FERZ_LOOP_KILL_AT").ok()?;
            let (point, n) = value.split_once(':').unwrap_or((&value, "1"));
            Some((point.to_owned(), n.parse().ok()?))
        })
        .as_ref()
}

/// Kills this process if the environment asks for `point` at its `n`-th arrival.
pub fn point(point: &str, n: u64) {
    if let Some((wanted, at)) = target()
        && wanted == point
        && *at == n
    {
        eprintln!("FERZ_LOOP_KILL_AT={point}:{n}: killing this process");
        let _ = std::process::Command::new("kill").args(["-KILL", &std::process::id().to_string()]).status();
        // `kill` is a shell builtin on some systems and missing on others: stop anyway, as
        // abruptly as the standard library allows.
        std::process::abort();
    }
}
