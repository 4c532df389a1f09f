//! `[online] max_out_of_book_moves` (lichess-bot's): once the online sources have known no move
//! for that many of a game's positions, that game stops asking them; the Polyglot books and the
//! cache go on. A turn counts when at least one source answered that it knows no move and none
//! gave one; a turn whose sources only failed (a timeout, a 429, a server error) or were not
//! asked (their depth, our clock) says nothing about the game having left the books, and does
//! not count.
//!
//! The count belongs to the game, not to its task: a correspondence game is played by a new
//! task on each of our turns, so the counts live here, shared, until the game ends
//! ([`OutOfBook::forget`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// The games' counts of turns the online sources knew no move for.
#[derive(Clone, Debug, Default)]
pub(crate) struct OutOfBook {
    /// The count at which a game stops asking.
    limit: u32,
    /// Game id → turns without a move so far.
    misses: Arc<Mutex<HashMap<String, u32>>>,
}

impl OutOfBook {
    /// Counts for `limit` (`max_out_of_book_moves`).
    #[must_use]
    pub(crate) fn new(limit: u32) -> OutOfBook {
        OutOfBook { limit, misses: Arc::default() }
    }

    /// Whether the game still asks the online sources.
    #[must_use]
    pub(crate) fn asks(&self, game: &str) -> bool {
        self.count(game) < self.limit
    }

    /// The game's turns without a move so far.
    #[must_use]
    pub(crate) fn count(&self, game: &str) -> u32 {
        self.lock().get(game).copied().unwrap_or(0)
    }

    /// The sources knew no move on one more of the game's turns; the new count.
    pub(crate) fn missed(&self, game: &str) -> u32 {
        let mut misses = self.lock();
        let count = misses.entry(game.to_owned()).or_insert(0);
        *count += 1;
        *count
    }

    /// The game is over: its count goes.
    pub(crate) fn forget(&self, game: &str) {
        self.lock().remove(game);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, u32>> {
        // A count is a number: one left behind by a panicking holder is still good.
        self.misses.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_stops_asking_after_its_limit_of_misses() {
        let out = OutOfBook::new(2);
        assert!(out.asks("g1") && out.asks("g2"));
        assert_eq!(out.missed("g1"), 1);
        assert!(out.asks("g1"));
        assert_eq!(out.missed("g1"), 2);
        assert!(!out.asks("g1"), "two misses reach the limit");
        assert!(out.asks("g2"), "another game keeps its own count");
        let shared = out.clone();
        assert!(!shared.asks("g1"), "clones share the counts");
        out.forget("g1");
        assert!(shared.asks("g1") && shared.count("g1") == 0);
    }
}
