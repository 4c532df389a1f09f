//! The server's stop signal, which blocked threads can wait on.

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Set once when the server stops; threads sleeping or holding on it wake at once.
#[derive(Debug, Default)]
pub(crate) struct Signal {
    set: Mutex<bool>,
    changed: Condvar,
}

impl Signal {
    /// Sets the signal and wakes every waiter.
    pub(crate) fn set(&self) {
        *self.set.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.changed.notify_all();
    }

    /// Whether the signal is set.
    pub(crate) fn is_set(&self) -> bool {
        *self.set.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sleeps for `duration` or until the signal is set; `false` if it was set.
    pub(crate) fn sleep(&self, duration: Duration) -> bool {
        let deadline = Instant::now() + duration;
        let mut set = self.set.lock().unwrap_or_else(PoisonError::into_inner);
        while !*set {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return true;
            }
            set = self.changed.wait_timeout(set, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        false
    }

    /// Waits until the signal is set.
    pub(crate) fn wait(&self) {
        let mut set = self.set.lock().unwrap_or_else(PoisonError::into_inner);
        while !*set {
            set = self.changed.wait(set).unwrap_or_else(PoisonError::into_inner);
        }
    }
}
