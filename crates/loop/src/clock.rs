//! The stage times of a generation in progress, kept in its `stages.json` across runs.
//!
//! A running stage's time is added to the file at least every [`SAVE_INTERVAL`] as well as when
//! the stage ends, so that a run killed in the middle of a long stage (self-play takes hours)
//! loses at most that much of the time it worked, not all of it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ferz_dataset::manifest::{read_json, write_json_atomic};

use crate::cpu::{StageTime, Stopwatch};
use crate::{LoopError, Stage};

/// The file in a generation's directory.
pub const STAGES_FILE: &str = "stages.json";

/// How often a running stage's time is saved.
pub const SAVE_INTERVAL: Duration = Duration::from_secs(30);

/// The stage times of one generation: those saved by earlier runs plus the running stage's.
pub struct StageClock {
    path: PathBuf,
    times: BTreeMap<Stage, StageTime>,
    running: Option<(Stage, Stopwatch)>,
    interval: Duration,
    /// The first failed save of [`tick`](Self::tick), reported by [`stop`](Self::stop).
    failed: Option<LoopError>,
}

impl StageClock {
    /// Reads the times saved in `gen_dir` (none when the generation is new).
    ///
    /// # Errors
    /// An unreadable `stages.json`, naming it.
    pub fn open(gen_dir: &Path, interval: Duration) -> Result<StageClock, LoopError> {
        let path = gen_dir.join(STAGES_FILE);
        let times = if path.exists() {
            read_json(&path).map_err(|reason| LoopError::Ledger { path: path.clone(), reason })?
        } else {
            BTreeMap::new()
        };
        Ok(StageClock { path, times, running: None, interval, failed: None })
    }

    /// Starts timing `stage` (ending any stage still running first).
    ///
    /// # Errors
    /// As [`stop`](Self::stop).
    pub fn start(&mut self, stage: Stage) -> Result<(), LoopError> {
        self.stop()?;
        self.running = Some((stage, Stopwatch::start()));
        Ok(())
    }

    /// Saves the running stage's time when the last save is [`SAVE_INTERVAL`] old; called on
    /// every progress event. A failed save is kept and returned by [`stop`](Self::stop).
    pub fn tick(&mut self) {
        let due = self.running.as_ref().is_some_and(|(_, watch)| watch.wall_elapsed() >= self.interval);
        if due && let Err(e) = self.save() {
            self.failed.get_or_insert(e);
        }
    }

    /// Ends the running stage, if any, and saves the times.
    ///
    /// # Errors
    /// A save that failed now or during [`tick`](Self::tick), naming the file.
    pub fn stop(&mut self) -> Result<(), LoopError> {
        if self.running.is_some() {
            self.save()?;
            self.running = None;
        }
        self.failed.take().map_or(Ok(()), Err)
    }

    /// The times so far, the running stage's included.
    #[must_use]
    pub fn times(&self) -> BTreeMap<Stage, StageTime> {
        let mut times = self.times.clone();
        if let Some((stage, watch)) = &self.running {
            times.entry(*stage).or_default().add(watch.elapsed());
        }
        times
    }

    /// Adds the running stage's time since its last save to the saved times, writes them and
    /// restarts the stage's stopwatch.
    fn save(&mut self) -> Result<(), LoopError> {
        if let Some((stage, watch)) = &mut self.running {
            let now = Stopwatch::start();
            self.times.entry(*stage).or_default().add(watch.elapsed());
            *watch = now;
        }
        write_json_atomic(&self.path, &self.times).map_err(|source| LoopError::Io { path: self.path.clone(), source })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin(watch_for: Duration) {
        let start = std::time::Instant::now();
        while start.elapsed() < watch_for {
            std::hint::spin_loop();
        }
    }

    #[test]
    fn a_killed_run_keeps_the_time_saved_while_its_stage_ran() {
        let dir = tempfile::tempdir().unwrap();
        let mut clock = StageClock::open(dir.path(), Duration::ZERO).unwrap();
        clock.start(Stage::Selfplay).unwrap();
        spin(Duration::from_millis(20));
        clock.tick();
        // A kill: the clock is dropped without `stop`.
        drop(clock);
        let saved = StageClock::open(dir.path(), Duration::ZERO).unwrap().times();
        let selfplay = saved[&Stage::Selfplay];
        assert!(selfplay.wall_seconds >= 0.02, "{selfplay:?}");

        // The next run adds its own time to what was saved.
        let mut clock = StageClock::open(dir.path(), Duration::ZERO).unwrap();
        clock.start(Stage::Selfplay).unwrap();
        spin(Duration::from_millis(20));
        clock.start(Stage::Merge).unwrap();
        clock.stop().unwrap();
        let times = StageClock::open(dir.path(), Duration::ZERO).unwrap().times();
        assert!(times[&Stage::Selfplay].wall_seconds >= selfplay.wall_seconds + 0.02, "{times:?}");
        assert!(times.contains_key(&Stage::Merge));
    }

    #[test]
    fn ticks_save_only_when_the_interval_has_passed() {
        let dir = tempfile::tempdir().unwrap();
        let mut clock = StageClock::open(dir.path(), Duration::from_secs(3600)).unwrap();
        clock.start(Stage::Gate).unwrap();
        clock.tick();
        assert!(!dir.path().join(STAGES_FILE).exists());
        clock.stop().unwrap();
        assert!(dir.path().join(STAGES_FILE).exists());
    }

    #[test]
    fn a_failed_save_is_reported_when_the_stage_stops() {
        let dir = tempfile::tempdir().unwrap();
        let mut clock = StageClock::open(&dir.path().join("missing"), Duration::ZERO).unwrap();
        clock.start(Stage::Train).unwrap();
        clock.tick();
        let error = clock.stop().unwrap_err().to_string();
        assert!(error.contains(STAGES_FILE), "{error}");
    }
}
