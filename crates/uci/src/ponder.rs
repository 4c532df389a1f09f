//! How a player's thinking on the opponent's time went: the one tally that `ferz match` reports
//! per engine and the bot logs per game.

use std::time::Duration;

/// Ponder searches resolved by the opponent's move, and what the hits saved.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PonderStats {
    /// Moves the player searched (the denominator of the time saved per move).
    pub moves: u32,
    /// The opponent played the expected reply (`ponderhit`).
    pub hits: u32,
    /// The opponent played another move (`stop`, then a fresh search).
    pub misses: u32,
    /// Time spent pondering before the hits: the thinking a hit gives for free, on top of the
    /// time the clock then grants.
    pub pondered: Duration,
}

impl PonderStats {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: PonderStats) {
        self.moves += other.moves;
        self.hits += other.hits;
        self.misses += other.misses;
        self.pondered += other.pondered;
    }

    /// Hits per ponder search that was resolved, `None` before the first.
    #[must_use]
    pub fn hit_rate(&self) -> Option<f64> {
        let resolved = self.hits + self.misses;
        (resolved > 0).then(|| f64::from(self.hits) / f64::from(resolved))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_add_and_rate_their_hits() {
        let mut total = PonderStats::default();
        assert_eq!(total.hit_rate(), None);
        total.add(PonderStats { moves: 10, hits: 3, misses: 1, pondered: Duration::from_millis(900) });
        total.add(PonderStats { moves: 5, hits: 1, misses: 3, pondered: Duration::from_millis(100) });
        assert_eq!((total.moves, total.hits, total.misses), (15, 4, 4));
        assert_eq!(total.pondered, Duration::from_secs(1));
        assert_eq!(total.hit_rate(), Some(0.5));
    }
}
