//! Draws and resignation: what our evaluations over the last moves say about offering,
//! accepting or giving up. Pure state, fed one score per move of ours.

use ferz_engine::Score;

use crate::config::{DrawConfig, ResignConfig};

/// The scores of our moves in one game, and the decisions they lead to.
#[derive(Clone, Debug)]
pub struct Decisions {
    draw: DrawConfig,
    resign: ResignConfig,
    /// Our scores, one per move we searched (book moves leave no score), oldest first.
    scores: Vec<i32>,
}

impl Decisions {
    /// Empty history with these settings.
    #[must_use]
    pub fn new(draw: DrawConfig, resign: ResignConfig) -> Decisions {
        Decisions { draw, resign, scores: Vec::new() }
    }

    /// Records the score of the move we are about to play.
    pub fn record(&mut self, score: Score) {
        self.scores.push(score.centipawns());
    }

    /// Forgets the scores of moves a takeback removed (`our_moves` of ours remain).
    pub fn truncate(&mut self, our_moves: usize) {
        self.scores.truncate(our_moves);
    }

    /// Our latest score.
    #[must_use]
    pub fn last(&self) -> Option<i32> {
        self.scores.last().copied()
    }

    fn last_n(&self, n: usize) -> Option<&[i32]> {
        (n > 0 && self.scores.len() >= n).then(|| &self.scores[self.scores.len() - n..])
    }

    /// Resign now: resignation is on and our last `moves` scores were all at or below the
    /// threshold.
    #[must_use]
    pub fn should_resign(&self) -> bool {
        self.resign.enabled
            && self.last_n(self.resign.moves).is_some_and(|s| s.iter().all(|&cp| cp <= self.resign.score_cp))
    }

    /// Offer a draw with this move: offers are on, at most `offer_max_pieces` pieces are left,
    /// and our last `offer_moves` scores were all within `offer_score_cp` of equal.
    #[must_use]
    pub fn should_offer_draw(&self, pieces: u32) -> bool {
        self.draw.offer
            && pieces <= self.draw.offer_max_pieces
            && self
                .last_n(self.draw.offer_moves)
                .is_some_and(|s| s.iter().all(|&cp| cp.abs() <= self.draw.offer_score_cp))
    }

    /// Accept the opponent's offer, given our current evaluation (`None`: we have none yet,
    /// and decline).
    #[must_use]
    pub fn should_accept_draw(&self, current: Option<i32>) -> bool {
        self.draw.accept && current.is_some_and(|cp| cp.abs() <= self.draw.accept_score_cp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decisions() -> Decisions {
        Decisions::new(
            DrawConfig {
                offer_moves: 3,
                offer_score_cp: 10,
                offer_max_pieces: 10,
                accept_score_cp: 25,
                ..DrawConfig::default()
            },
            ResignConfig { enabled: true, moves: 2, score_cp: -500 },
        )
    }

    #[test]
    fn resign_after_consecutive_bad_scores_only() {
        let mut d = decisions();
        d.record(Score::Cp(-600));
        assert!(!d.should_resign());
        d.record(Score::Cp(-400));
        d.record(Score::Cp(-700));
        assert!(!d.should_resign());
        d.record(Score::Mate(-3));
        assert!(d.should_resign());
        d.truncate(2);
        assert!(!d.should_resign());
        let mut off = Decisions::new(DrawConfig::default(), ResignConfig { enabled: false, ..ResignConfig::default() });
        for _ in 0..10 {
            off.record(Score::Mate(-1));
        }
        assert!(!off.should_resign());
    }

    #[test]
    fn draw_offers_need_level_scores_and_few_pieces() {
        let mut d = decisions();
        for cp in [5, -8, 10] {
            d.record(Score::Cp(cp));
        }
        assert!(d.should_offer_draw(10));
        assert!(!d.should_offer_draw(11));
        d.record(Score::Cp(11));
        assert!(!d.should_offer_draw(4));
        assert!(d.should_accept_draw(Some(-25)));
        assert!(!d.should_accept_draw(Some(26)));
        assert!(!d.should_accept_draw(None));
        assert_eq!(Score::Mate(2).centipawns(), 31_997);
    }
}
