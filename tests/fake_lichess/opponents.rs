//! Scripted opponents: the other side of every game.

use std::time::{Duration, Instant};

use ferz_chess::SplitMix64;

/// How the opponent plays. Built from [`Opponent::random`] and refined with the builder
/// methods; `ply` always counts the plies played so far (0 before the first move).
#[derive(Debug, Clone)]
pub struct Opponent {
    pub(crate) seed: u64,
    pub(crate) script: Vec<String>,
    pub(crate) think: Option<Duration>,
    pub(crate) first_think: Option<Duration>,
    pub(crate) offer_draw_at: Option<usize>,
    pub(crate) accepts_draws: bool,
    pub(crate) resign_at: Option<usize>,
    pub(crate) abort_at: Option<usize>,
    pub(crate) never_move: bool,
    pub(crate) held: bool,
    pub(crate) gone: Option<(usize, Duration)>,
    pub(crate) takeback_at: Vec<usize>,
    pub(crate) takeback_wait: Duration,
    pub(crate) engine: Option<super::EngineOpponent>,
}

impl Opponent {
    /// Plays uniformly random legal moves chosen with `seed`.
    pub fn random(seed: u64) -> Opponent {
        Opponent {
            seed,
            script: Vec::new(),
            think: None,
            first_think: None,
            offer_draw_at: None,
            accepts_draws: false,
            resign_at: None,
            abort_at: None,
            never_move: false,
            held: false,
            gone: None,
            takeback_at: Vec::new(),
            takeback_wait: Duration::from_secs(1),
            engine: None,
        }
    }

    /// Plays these moves first (the n-th on its n-th turn, when legal there; otherwise a random
    /// move), then random ones.
    #[must_use]
    pub fn moves(mut self, uci: &[&str]) -> Opponent {
        self.script = uci.iter().map(|m| m.to_string()).collect();
        self
    }

    /// Plays the moves of a UCI engine (after any scripted ones; a random move if it fails).
    #[must_use]
    pub fn engine(mut self, engine: super::EngineOpponent) -> Opponent {
        self.engine = Some(engine);
        self
    }

    /// Waits this long before each move (default: a random 0–20 ms).
    #[must_use]
    pub fn think(mut self, d: Duration) -> Opponent {
        self.think = Some(d);
        self
    }

    /// Waits this long before its first move only (a player slow to start).
    #[must_use]
    pub fn first_move_after(mut self, d: Duration) -> Opponent {
        self.first_think = Some(d);
        self
    }

    /// Offers a draw when on move at this ply (then moves as usual). The offer shows as
    /// `wdraw`/`bdraw` until the bot answers: `/draw/yes` or a move with `offeringDraw=true`
    /// accept (draw), `/draw/no` or a move without it decline.
    #[must_use]
    pub fn offer_draw_at(mut self, ply: usize) -> Opponent {
        self.offer_draw_at = Some(ply);
        self
    }

    /// How the opponent answers the bot's draw offers, on its next turn: accept (the game ends
    /// `draw`) or decline (the flag is gone from the next state). Default: decline.
    #[must_use]
    pub fn accepts_draws(mut self, yes: bool) -> Opponent {
        self.accepts_draws = yes;
        self
    }

    /// Resigns when on move at this ply.
    #[must_use]
    pub fn resign_at(mut self, ply: usize) -> Opponent {
        self.resign_at = Some(ply);
        self
    }

    /// Aborts the game when on move at this ply (before its first move: PyChess lets a player
    /// abort until each side has moved).
    #[must_use]
    pub fn abort_at(mut self, ply: usize) -> Opponent {
        self.abort_at = Some(ply);
        self
    }

    /// Never moves.
    #[must_use]
    pub fn never_move(mut self) -> Opponent {
        self.never_move = true;
        self
    }

    /// Moves only when the test allows it ([`super::FakeLichess::release_moves`]): one move per
    /// release, each after the usual think time. For correspondence games, whose opponent may
    /// take days: the test decides when the days have passed.
    #[must_use]
    pub fn held(mut self) -> Opponent {
        self.held = true;
        self
    }

    /// Leaves when on move at this ply: stops moving and the game stream gets `opponentGone`
    /// (`claimWinInSeconds` counting down on each keep-alive tick). `claim-victory` (and
    /// `claim-draw`) succeed once `claim_after` has passed.
    #[must_use]
    pub fn gone_at(mut self, ply: usize, claim_after: Duration) -> Opponent {
        self.gone = Some((ply, claim_after));
        self
    }

    /// After playing its move at this ply, proposes a takeback (calls add up: one proposal per
    /// ply given, each made once even if a takeback brings the game back to that ply) (`wtakeback`/`btakeback`). The
    /// bot's `/takeback/yes` takes back the opponent's move (and the bot's reply, if it already
    /// moved), `/takeback/no` declines; then the opponent plays again. If the bot moves without
    /// answering, the opponent waits [`Opponent::takeback_wait`] for an answer, then withdraws
    /// the proposal and plays on.
    #[must_use]
    pub fn takeback_at(mut self, ply: usize) -> Opponent {
        self.takeback_at.push(ply);
        self
    }

    /// How long the opponent waits for an answer to its takeback proposal once the bot has
    /// moved (default 1 s).
    #[must_use]
    pub fn takeback_wait(mut self, d: Duration) -> Opponent {
        self.takeback_wait = d;
        self
    }
}

impl Default for Opponent {
    fn default() -> Self {
        Opponent::random(1)
    }
}

/// An opponent in a running game.
#[derive(Debug, Clone)]
pub(crate) struct OpponentRun {
    pub(crate) script: Opponent,
    pub(crate) rng: SplitMix64,
    /// How many of its own moves it has played (the index into the script).
    pub(crate) played: usize,
    /// When it acts next, if it has something to do.
    pub(crate) due: Option<Instant>,
    pub(crate) offered_draw: bool,
    pub(crate) proposed_takeback: Vec<usize>,
    /// Since when it is gone.
    pub(crate) gone_since: Option<Instant>,
    /// Moves a held opponent may still make.
    pub(crate) released: usize,
}

impl OpponentRun {
    pub(crate) fn new(script: Opponent) -> OpponentRun {
        let rng = SplitMix64::new(script.seed);
        OpponentRun {
            script,
            rng,
            played: 0,
            due: None,
            offered_draw: false,
            proposed_takeback: Vec::new(),
            gone_since: None,
            released: 0,
        }
    }

    /// The delay before its next action.
    pub(crate) fn think_time(&mut self) -> Duration {
        if self.played == 0
            && let Some(first) = self.script.first_think
        {
            return first;
        }
        match self.script.think {
            Some(d) => d,
            None => Duration::from_millis(self.rng.below(21)),
        }
    }

    /// Seconds until the bot may claim the win, while gone.
    pub(crate) fn claim_in(&self, now: Instant) -> Option<u64> {
        let since = self.gone_since?;
        let (_, after) = self.script.gone?;
        let left = super::clock::after(since, after).saturating_duration_since(now);
        Some(left.as_millis().div_ceil(1000) as u64)
    }

    /// Whether the bot may claim now.
    pub(crate) fn claimable(&self, now: Instant) -> bool {
        self.claim_in(now) == Some(0)
    }
}
