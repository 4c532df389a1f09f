//! The game task's own deadlines and once-only answers: aborting a game the opponent does not
//! start, claiming a game the opponent left, and answering each draw offer and takeback
//! proposal once.
//!
//! [`Timers::due`] only looks; the task acts on what is due and reports back
//! ([`Timers::abort_sent`], [`Timers::claim_sent`], [`Timers::claim_failed`]), so every rule
//! is tested here with made-up instants.

use std::time::{Duration, Instant};

/// How long a failed claim waits before it is tried again.
const CLAIM_RETRY: Duration = Duration::from_secs(2);

/// What a tick should do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Due {
    /// Abort the game: the opponent has not made their first move in time.
    pub abort: bool,
    /// Claim the win: the opponent left and the server's countdown ran out.
    pub claim: bool,
}

/// Deadlines and answered offers of one game.
#[derive(Clone, Debug)]
pub(crate) struct Timers {
    /// Abort after waiting this long for the opponent's first move (`None`: never).
    abort_after: Option<Duration>,
    /// Claim victory at all (the setting, and a platform with the endpoint).
    claims: bool,
    /// Since when we wait for the opponent's move.
    waiting_since: Instant,
    abort_sent: bool,
    /// When the server lets us claim the game the opponent left.
    claim_at: Option<Instant>,
    claim_sent: bool,
    /// The ply at which we answered the opponent's draw offer.
    draw_answered_at: Option<usize>,
    /// Whether we answered the takeback proposal the stream still shows. A proposal is
    /// identified by its lifetime, not by a ply: our own move can land while it is pending, and
    /// the state that carries that move still shows it (answering it again would decline the
    /// proposal we just granted).
    takeback_answered: bool,
    /// `!wait` pushed the abort back (once per game).
    abort_extended: bool,
}

impl Timers {
    /// Timers of a game that starts at `now`: abort after `abort_s` seconds without the
    /// opponent's first move (0: never); claim games the opponent left when `claims`.
    #[must_use]
    pub(crate) fn new(abort_s: u64, claims: bool, now: Instant) -> Timers {
        Timers {
            abort_after: (abort_s > 0).then(|| Duration::from_secs(abort_s)),
            claims,
            waiting_since: now,
            abort_sent: false,
            claim_at: None,
            claim_sent: false,
            draw_answered_at: None,
            takeback_answered: false,
            abort_extended: false,
        }
    }

    /// `!wait` with `plies` played: the abort waits `by` longer, once per game, and only while
    /// the game can still be aborted by the timer.
    pub(crate) fn extend_abort(&mut self, plies: usize, by: Duration) -> crate::chat::Extension {
        use crate::chat::Extension;
        let Some(after) = self.abort_after.filter(|_| plies < 2 && !self.abort_sent) else {
            return Extension::NotWaiting;
        };
        if std::mem::replace(&mut self.abort_extended, true) {
            return Extension::AlreadyGranted;
        }
        self.abort_after = Some(after + by);
        Extension::Granted
    }

    /// What is due at `now` with `plies` played and `our_turn` or not. Looks only.
    #[must_use]
    pub(crate) fn due(&self, now: Instant, plies: usize, our_turn: bool) -> Due {
        let abort = !self.abort_sent
            && plies < 2
            && !our_turn
            && self.abort_after.is_some_and(|after| now.saturating_duration_since(self.waiting_since) >= after);
        let claim = self.claims && !self.claim_sent && self.claim_at.is_some_and(|at| now >= at);
        Due { abort, claim }
    }

    /// The move list changed at `now`: the wait for the opponent starts over, and a claim
    /// countdown no longer holds (the opponent, or we, moved).
    pub(crate) fn moved(&mut self, now: Instant) {
        self.waiting_since = now;
        self.claim_at = None;
    }

    /// The abort went out; it is not sent twice.
    pub(crate) fn abort_sent(&mut self) {
        self.abort_sent = true;
    }

    /// The claim went out.
    pub(crate) fn claim_sent(&mut self) {
        self.claim_sent = true;
    }

    /// The claim failed at `now` (too early by the server's clock, a network error): try again
    /// shortly.
    pub(crate) fn claim_failed(&mut self, now: Instant) {
        self.claim_sent = false;
        self.claim_at = Some(now + CLAIM_RETRY);
    }

    /// The opponent left at `now`, and the server lets us claim the game after `claim_in`.
    /// The earliest deadline announced is kept.
    pub(crate) fn opponent_gone(&mut self, now: Instant, claim_in: Duration) {
        let at = now + claim_in;
        self.claim_at = Some(self.claim_at.map_or(at, |old| old.min(at)));
    }

    /// The opponent came back: nothing to claim.
    pub(crate) fn opponent_back(&mut self) {
        self.claim_at = None;
    }

    /// Whether to answer the opponent's draw offer standing at `plies`: `true` once per ply
    /// (the answer is then taken as given).
    pub(crate) fn answer_draw(&mut self, plies: usize) -> bool {
        if self.draw_answered_at == Some(plies) {
            return false;
        }
        self.draw_answered_at = Some(plies);
        true
    }

    /// Whether to answer a takeback proposal, given whether the stream shows one: `true` once
    /// per proposal.
    pub(crate) fn answer_takeback(&mut self, proposed: bool) -> bool {
        if !proposed {
            self.takeback_answered = false;
            return false;
        }
        !std::mem::replace(&mut self.takeback_answered, true)
    }

    /// Moves were taken back: a proposal the stream shows from now on is a new one.
    pub(crate) fn taken_back(&mut self) {
        self.takeback_answered = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn abort_only_before_the_opponents_first_move_and_once() {
        let start = Instant::now();
        let mut timers = Timers::new(30, true, start);
        assert_eq!(timers.due(start + 29 * S, 0, false), Due::default());
        assert!(timers.due(start + 30 * S, 0, false).abort);
        assert!(timers.due(start + 30 * S, 1, false).abort, "black has not moved yet");
        assert!(!timers.due(start + 30 * S, 0, true).abort, "our turn: the wait is ours");
        assert!(!timers.due(start + 30 * S, 2, false).abort, "both moved: too late to abort");
        // A move restarts the wait.
        timers.moved(start + 10 * S);
        assert!(!timers.due(start + 30 * S, 1, false).abort);
        assert!(timers.due(start + 40 * S, 1, false).abort);
        timers.abort_sent();
        assert!(!timers.due(start + 100 * S, 1, false).abort);
        // 0 seconds: never.
        let never = Timers::new(0, true, start);
        assert!(!never.due(start + 10_000 * S, 0, false).abort);
        // An instant before the start (a clock read early) is no wait at all.
        assert!(!Timers::new(1, true, start + S).due(start, 0, false).abort);
    }

    #[test]
    fn wait_extends_the_abort_once_while_it_can_abort() {
        use crate::chat::Extension;
        let start = Instant::now();
        let mut timers = Timers::new(30, true, start);
        assert_eq!(timers.extend_abort(0, 60 * S), Extension::Granted);
        assert!(!timers.due(start + 89 * S, 0, false).abort, "waits 30 + 60 s");
        assert!(timers.due(start + 90 * S, 0, false).abort);
        assert_eq!(timers.extend_abort(1, 60 * S), Extension::AlreadyGranted);
        assert!(timers.due(start + 90 * S, 1, false).abort, "the second !wait adds nothing");
        assert_eq!(timers.extend_abort(2, 60 * S), Extension::NotWaiting, "both sides moved");
        assert_eq!(Timers::new(0, true, start).extend_abort(0, 60 * S), Extension::NotWaiting, "never aborts");
        let mut sent = Timers::new(30, true, start);
        sent.abort_sent();
        assert_eq!(sent.extend_abort(0, 60 * S), Extension::NotWaiting);
    }

    #[test]
    fn claims_follow_the_servers_countdown() {
        let start = Instant::now();
        let mut timers = Timers::new(30, true, start);
        assert!(!timers.due(start + 1000 * S, 10, true).claim, "nobody left");
        timers.opponent_gone(start, 20 * S);
        timers.opponent_gone(start, 60 * S);
        assert!(!timers.due(start + 19 * S, 10, true).claim);
        assert!(timers.due(start + 20 * S, 10, false).claim, "the earliest deadline holds");
        timers.claim_sent();
        assert!(!timers.due(start + 21 * S, 10, true).claim);
        timers.claim_failed(start + 21 * S);
        assert!(!timers.due(start + 22 * S, 10, true).claim);
        assert!(timers.due(start + 23 * S, 10, true).claim, "retried after two seconds");
        timers.opponent_back();
        assert!(!timers.due(start + 100 * S, 10, true).claim);
        timers.opponent_gone(start, 5 * S);
        timers.moved(start + 3 * S);
        assert!(!timers.due(start + 100 * S, 10, true).claim, "a move ends the countdown");
        // Claims off (the setting, or a platform without the endpoint).
        let mut off = Timers::new(30, false, start);
        off.opponent_gone(start, S);
        assert!(!off.due(start + 100 * S, 10, true).claim);
    }

    #[test]
    fn each_offer_is_answered_once() {
        let mut timers = Timers::new(30, true, Instant::now());
        assert!(timers.answer_draw(12));
        assert!(!timers.answer_draw(12));
        assert!(timers.answer_draw(14));
        assert!(!timers.answer_takeback(false));
        assert!(timers.answer_takeback(true));
        assert!(!timers.answer_takeback(true), "the same proposal, still shown after our move");
        assert!(!timers.answer_takeback(false));
        assert!(timers.answer_takeback(true), "a new proposal");
        timers.taken_back();
        assert!(timers.answer_takeback(true), "after a takeback a shown proposal is new");
    }
}
