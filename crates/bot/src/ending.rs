//! How a game ended: the server's status (on Lichess from the last state, on PyChess from the
//! game's record, read at its bare `gameEnd`), or, where PyChess's record cannot be read, our
//! own reckoning.

use ferz_chess::{Color, DrawReason, GameResult, Outcome, WinReason};
use ferz_lichess::GameStatus;

use crate::clock::NO_CLOCK_MS;
use crate::record::game_result;

/// How far from zero a clock may still read when a PyChess game ends for it to count as a
/// flag fall: our reading of the clock lags the server's by the network delay.
const FLAG_SLACK_MS: i64 = 500;

/// How we ended a game ourselves, once the server took it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GaveUp {
    /// We resigned.
    Resigned,
    /// We aborted.
    Aborted,
}

/// The end of a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The server said the game is over (a Lichess state, PyChess's record): its status and
    /// winner.
    Reported {
        /// The status (`mate`, `resign`, `outoftime`, …).
        status: GameStatus,
        /// The winner, if any.
        winner: Option<Color>,
    },
    /// PyChess: the rules ended it on the board.
    Board(Outcome),
    /// PyChess: we gave the game up.
    WeGaveUp {
        /// Resigned or aborted.
        how: GaveUp,
        /// Our colour, when known (the opponent wins a resigned game).
        us: Option<Color>,
    },
    /// PyChess: the side to move ran out of time by our reckoning.
    Flagged {
        /// Whose clock ran out.
        loser: Color,
    },
    /// PyChess: it ended some other way (the opponent resigned or aborted, a server
    /// decision); the result is unknown rather than a guess.
    Unknown,
}

/// What the PyChess game task knows when the server says the game is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PyChessEnd {
    /// The board's verdict, when the rules ended the game.
    pub outcome: Option<Outcome>,
    /// Whether we resigned or aborted.
    pub gave_up: Option<GaveUp>,
    /// Our colour.
    pub us: Option<Color>,
    /// The clock of the side to move, when the position is known.
    pub clock: Option<MoverClock>,
}

/// The side to move and its clock as the last state showed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MoverClock {
    /// The side to move.
    pub mover: Color,
    /// Plies played.
    pub plies: usize,
    /// Its remaining time in that state, ms.
    pub left_ms: i64,
    /// Milliseconds since that state arrived.
    pub elapsed_ms: i64,
}

impl Ending {
    /// The end a Lichess-style state reports.
    #[must_use]
    pub(crate) fn reported(status: GameStatus, winner: Option<&ferz_lichess::Color>) -> Ending {
        let winner = winner.and_then(|w| match w {
            ferz_lichess::Color::White => Some(Color::White),
            ferz_lichess::Color::Black => Some(Color::Black),
            ferz_lichess::Color::Other(_) => None,
        });
        Ending::Reported { status, winner }
    }

    /// How a PyChess game ended: the board's verdict when the rules ended it; our own
    /// resignation or abort; a flag fall when the clock of the side to move had run out by our
    /// reckoning; anything else is [`Ending::Unknown`].
    #[must_use]
    pub(crate) fn pychess(end: PyChessEnd) -> Ending {
        if let Some(outcome) = end.outcome {
            return Ending::Board(outcome);
        }
        if let Some(how) = end.gave_up {
            return Ending::WeGaveUp { how, us: end.us };
        }
        if let Some(clock) = end.clock
            // Clocks run from the third ply; "no clock" is 2^31 - 1 ms.
            && clock.plies >= 2
            && clock.left_ms < NO_CLOCK_MS
            && clock.elapsed_ms >= clock.left_ms - FLAG_SLACK_MS
        {
            return Ending::Flagged { loser: clock.mover };
        }
        Ending::Unknown
    }

    /// The status name, as the server spells it (and the PGN's `Termination` tag shows it).
    #[must_use]
    pub(crate) fn status(&self) -> &str {
        match self {
            Ending::Reported { status, .. } => status.as_str(),
            Ending::Board(Outcome::Decisive { reason: WinReason::Checkmate, .. }) => "mate",
            Ending::Board(
                Outcome::Decisive { reason: WinReason::Stalemate, .. } | Outcome::Draw(DrawReason::Stalemate),
            ) => "stalemate",
            Ending::Board(Outcome::Decisive { reason: WinReason::BareKing, .. }) => "variantEnd",
            Ending::Board(Outcome::Draw(_)) => "draw",
            Ending::WeGaveUp { how: GaveUp::Resigned, .. } => "resign",
            Ending::WeGaveUp { how: GaveUp::Aborted, .. } => "aborted",
            Ending::Flagged { .. } => "outoftime",
            Ending::Unknown => "unknownFinish",
        }
    }

    /// The winner, if there is one (and we know it).
    #[must_use]
    pub(crate) fn winner(&self) -> Option<Color> {
        match self {
            Ending::Reported { winner, .. } => *winner,
            Ending::Board(outcome) => outcome.winner(),
            Ending::WeGaveUp { how: GaveUp::Resigned, us } => us.map(|c| !c),
            Ending::Flagged { loser } => Some(!*loser),
            Ending::WeGaveUp { how: GaveUp::Aborted, .. } | Ending::Unknown => None,
        }
    }

    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    #[must_use]
    pub(crate) fn result(&self) -> &'static str {
        GameResult::pgn_of(game_result(self.winner(), self.status()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pychess(outcome: Option<Outcome>, gave_up: Option<GaveUp>, clock: Option<MoverClock>) -> Ending {
        Ending::pychess(PyChessEnd { outcome, gave_up, us: Some(Color::Black), clock })
    }

    fn clock(plies: usize, left_ms: i64, elapsed_ms: i64) -> Option<MoverClock> {
        Some(MoverClock { mover: Color::White, plies, left_ms, elapsed_ms })
    }

    #[test]
    fn reported_endings_keep_the_servers_words() {
        let won = Ending::reported(GameStatus::Mate, Some(&ferz_lichess::Color::Black));
        assert_eq!((won.status(), won.winner(), won.result()), ("mate", Some(Color::Black), "0-1"));
        let drawn = Ending::reported(GameStatus::Draw, None);
        assert_eq!((drawn.status(), drawn.result()), ("draw", "1/2-1/2"));
        let aborted = Ending::reported(GameStatus::Aborted, None);
        assert_eq!(aborted.result(), "*");
        let odd = Ending::reported(GameStatus::Resign, Some(&ferz_lichess::Color::Other("red".into())));
        assert_eq!(odd.winner(), None);
    }

    #[test]
    fn the_board_decides_first_on_pychess() {
        let mate = Outcome::Decisive { winner: Color::White, reason: WinReason::Checkmate };
        let ending = pychess(Some(mate), Some(GaveUp::Resigned), clock(40, 0, 10_000));
        assert_eq!((ending.status(), ending.result()), ("mate", "1-0"));
        let bare = Outcome::Decisive { winner: Color::Black, reason: WinReason::BareKing };
        assert_eq!(
            (pychess(Some(bare), None, None).status(), pychess(Some(bare), None, None).result()),
            ("variantEnd", "0-1")
        );
        let stalemate = Outcome::Draw(DrawReason::Stalemate);
        assert_eq!(pychess(Some(stalemate), None, None).status(), "stalemate");
        let repetition = Outcome::Draw(DrawReason::ThreefoldRepetition);
        assert_eq!(
            (pychess(Some(repetition), None, None).status(), pychess(Some(repetition), None, None).result()),
            ("draw", "1/2-1/2")
        );
    }

    #[test]
    fn our_own_resignation_or_abort_then_the_flag() {
        let resigned = pychess(None, Some(GaveUp::Resigned), clock(40, 0, 10_000));
        assert_eq!((resigned.status(), resigned.result()), ("resign", "1-0"), "we are black");
        let aborted = pychess(None, Some(GaveUp::Aborted), None);
        assert_eq!((aborted.status(), aborted.result()), ("aborted", "*"));
        let flagged = pychess(None, None, clock(10, 1_000, 600));
        assert_eq!((flagged.status(), flagged.result()), ("outoftime", "0-1"), "within the slack");
        assert_eq!(pychess(None, None, clock(10, 1_000, 400)), Ending::Unknown, "time was left");
        assert_eq!(pychess(None, None, clock(1, 0, 60_000)), Ending::Unknown, "no clock runs before the third ply");
        assert_eq!(pychess(None, None, clock(10, NO_CLOCK_MS, i64::MAX)), Ending::Unknown, "no clock at all");
        let unknown = pychess(None, None, None);
        assert_eq!((unknown.status(), unknown.result()), ("unknownFinish", "*"));
    }
}
