//! Draws and resignation: what our evaluations over the last moves say about offering,
//! accepting or giving up, and what a tablebase says, which, when it knows the position,
//! comes first. Pure state, fed one score per move of ours and the tablebase's verdict.

use ferz_engine::Score;

use crate::config::{DrawConfig, ResignConfig};
use crate::tablebase::Verdict;

/// The scores of our moves in one game, and the decisions they lead to.
#[derive(Clone, Debug)]
pub(crate) struct Decisions {
    draw: DrawConfig,
    resign: ResignConfig,
    /// Our scores, one per move we searched (book moves leave no score), oldest first.
    scores: Vec<i32>,
    /// What a tablebase said about our latest position (`None`: it did not know).
    tablebase: Option<Verdict>,
}

impl Decisions {
    /// Empty history with these settings.
    #[must_use]
    pub(crate) fn new(draw: DrawConfig, resign: ResignConfig) -> Decisions {
        Decisions { draw, resign, scores: Vec::new(), tablebase: None }
    }

    /// Records the score of the move we are about to play.
    pub(crate) fn record(&mut self, score: Score) {
        self.scores.push(score.centipawns());
    }

    /// Forgets the scores of moves a takeback removed (`our_moves` of ours remain).
    pub(crate) fn truncate(&mut self, our_moves: usize) {
        self.scores.truncate(our_moves);
        self.tablebase = None;
    }

    /// Records what a tablebase says about the position we are to move in (`None`: it does
    /// not know), replacing the previous verdict.
    pub(crate) fn record_tablebase(&mut self, verdict: Option<Verdict>) {
        self.tablebase = verdict;
    }

    /// The tablebase's verdict on our latest position, when the draw rules follow it.
    fn draw_verdict(&self) -> Option<Verdict> {
        self.tablebase.filter(|_| self.draw.tablebase)
    }

    /// Our latest score.
    #[must_use]
    pub(crate) fn last(&self) -> Option<i32> {
        self.scores.last().copied()
    }

    fn last_n(&self, n: usize) -> Option<&[i32]> {
        (n > 0 && self.scores.len() >= n).then(|| &self.scores[self.scores.len() - n..])
    }

    /// Resign now: resignation is on, and a tablebase says we are lost (with `tablebase`;
    /// a loss the 50-move rule saves is not one) or our last `moves` scores were all at or
    /// below the threshold.
    #[must_use]
    pub(crate) fn should_resign(&self) -> bool {
        self.should_resign_by_tablebase()
            || (self.resign.enabled
                && self.last_n(self.resign.moves).is_some_and(|s| s.iter().all(|&cp| cp <= self.resign.score_cp)))
    }

    /// Resign now because a tablebase says we are lost (`enabled` and `tablebase` on), before
    /// any search.
    #[must_use]
    pub(crate) fn should_resign_by_tablebase(&self) -> bool {
        self.resign.enabled && self.resign.tablebase && self.tablebase == Some(Verdict::Loss)
    }

    /// Offer a draw with this move: offers are on, and a tablebase says the position is drawn
    /// (with `tablebase`; cursed wins and blessed losses are draws) or, when no tablebase
    /// knows it, at most `offer_max_pieces` pieces are left and our last `offer_moves` scores
    /// were all within `offer_score_cp` of equal.
    #[must_use]
    pub(crate) fn should_offer_draw(&self, pieces: u32) -> bool {
        if let Some(verdict) = self.draw_verdict() {
            return self.draw.offer && verdict.is_drawn();
        }
        self.draw.offer
            && pieces <= self.draw.offer_max_pieces
            && self
                .last_n(self.draw.offer_moves)
                .is_some_and(|s| s.iter().all(|&cp| cp.abs() <= self.draw.offer_score_cp))
    }

    /// Accept the opponent's offer: accepting is on, and a tablebase says we cannot win (with
    /// `tablebase`) or, when no tablebase knows the position, our current evaluation is within
    /// `accept_score_cp` of equal (`None`: we have none yet, and decline).
    #[must_use]
    pub(crate) fn should_accept_draw(&self, current: Option<i32>) -> bool {
        if let Some(verdict) = self.draw_verdict() {
            return self.draw.accept && verdict != Verdict::Win;
        }
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
            ResignConfig { enabled: true, moves: 2, score_cp: -500, tablebase: true },
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

    #[test]
    fn a_tablebase_verdict_comes_before_the_scores() {
        // Lost by the tables: resign at once, whatever the score says.
        let mut d = decisions();
        d.record(Score::Cp(50));
        d.record_tablebase(Some(Verdict::Loss));
        assert!(d.should_resign());
        // A blessed loss is a draw: no resignation; offer and accept.
        d.record_tablebase(Some(Verdict::BlessedLoss));
        assert!(!d.should_resign() && d.should_offer_draw(5) && d.should_accept_draw(Some(-900)));
        // Drawn: offer at once (no streak of level scores needed, any piece count), accept.
        d.record_tablebase(Some(Verdict::Draw));
        assert!(d.should_offer_draw(32) && d.should_accept_draw(None));
        // Won: neither offer nor accept, even with a level score.
        d.record_tablebase(Some(Verdict::Win));
        assert!(!d.should_offer_draw(3) && !d.should_accept_draw(Some(0)) && !d.should_resign());
        // A takeback forgets the verdict: the scores decide again.
        d.truncate(1);
        assert!(d.should_accept_draw(Some(0)));
        // The settings switch each rule off.
        let mut off = Decisions::new(
            DrawConfig { tablebase: false, ..DrawConfig::default() },
            ResignConfig { tablebase: false, ..ResignConfig::default() },
        );
        off.record_tablebase(Some(Verdict::Loss));
        assert!(!off.should_resign());
        off.record_tablebase(Some(Verdict::Draw));
        assert!(!off.should_offer_draw(3) && !off.should_accept_draw(None));
        let mut no_offers =
            Decisions::new(DrawConfig { offer: false, ..DrawConfig::default() }, ResignConfig::default());
        no_offers.record_tablebase(Some(Verdict::Draw));
        assert!(!no_offers.should_offer_draw(3) && no_offers.should_accept_draw(None));
        let mut never =
            Decisions::new(DrawConfig::default(), ResignConfig { enabled: false, ..ResignConfig::default() });
        never.record_tablebase(Some(Verdict::Loss));
        assert!(!never.should_resign(), "enabled = false: never resign");
    }
}
