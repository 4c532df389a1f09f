//! Wall and CPU time of a stage, for the ledger's cost figures.

use std::time::Instant;

use serde::{Deserialize, Serialize};

/// Seconds a stage took, summed over the runs of the loop that worked on it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StageTime {
    /// Wall-clock seconds.
    pub wall_seconds: f64,
    /// CPU seconds of this process and of the child processes it waited for (the gate's
    /// engines).
    pub cpu_seconds: f64,
}

impl StageTime {
    /// Adds another run's time.
    pub fn add(&mut self, other: StageTime) {
        self.wall_seconds += other.wall_seconds;
        self.cpu_seconds += other.cpu_seconds;
    }
}

/// A running measurement.
#[derive(Clone, Copy, Debug)]
pub struct Stopwatch {
    wall: Instant,
    cpu: f64,
}

impl Stopwatch {
    /// Starts measuring.
    #[must_use]
    pub fn start() -> Stopwatch {
        Stopwatch { wall: Instant::now(), cpu: process_cpu_seconds() }
    }

    /// Wall-clock time since the start.
    #[must_use]
    pub fn wall_elapsed(&self) -> std::time::Duration {
        self.wall.elapsed()
    }

    /// The time since the start.
    #[must_use]
    pub fn elapsed(&self) -> StageTime {
        StageTime {
            wall_seconds: self.wall.elapsed().as_secs_f64(),
            cpu_seconds: (process_cpu_seconds() - self.cpu).max(0.0),
        }
    }
}

/// CPU seconds (user and system) of this process and its waited-for children, from
/// `/proc/self/stat`; 0 where that file does not exist (not Linux).
#[must_use]
pub fn process_cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/stat").ok().and_then(|stat| cpu_seconds_of_stat(&stat)).unwrap_or(0.0)
}

/// Clock ticks per second of `/proc` times: `USER_HZ`, which Linux fixes at 100 on every
/// architecture it exposes to user space.
const USER_HZ: f64 = 100.0;

/// `utime + stime + cutime + cstime` of a `/proc/<pid>/stat` line, in seconds.
fn cpu_seconds_of_stat(stat: &str) -> Option<f64> {
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name, field 3 (state) is index 0, so fields 14..=17 are indices 11..=14.
    let ticks: f64 = fields.get(11..15)?.iter().map(|f| f.parse::<f64>().ok()).sum::<Option<f64>>()?;
    Some(ticks / USER_HZ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines_are_read_after_the_command_name() {
        let stat = "4242 (a (b) c) R 1 2 3 4 5 6 7 8 9 10 150 50 30 20 20 0 1 0 100 200 300";
        assert_eq!(cpu_seconds_of_stat(stat), Some(2.5));
        assert_eq!(cpu_seconds_of_stat("garbage"), None);
    }

    #[test]
    fn spinning_shows_as_cpu_time() {
        if !std::path::Path::new("/proc/self/stat").exists() {
            return;
        }
        let spin = Stopwatch::start();
        let mut x = 0u64;
        // Spin until the kernel has counted some CPU time (a tick is 10 ms) or give up late.
        while spin.elapsed().cpu_seconds < 0.03 && spin.wall.elapsed().as_secs() < 30 {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let time = spin.elapsed();
        assert!(time.cpu_seconds >= 0.03, "{time:?}");
        // The process's CPU time also counts the other tests' threads, which run beside this one:
        // it is bounded by the wall time on every core (plus a tick of rounding), not by one.
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get) as f64;
        assert!(time.cpu_seconds <= time.wall_seconds * cores + 0.02, "{time:?}");
    }
}
