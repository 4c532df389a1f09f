//! Which of the account's ongoing games to open, and in which order: a pure function of
//! `/api/account/playing`'s list, used at start-up and at every correspondence check-in.
//!
//! Real-time games come first (their clocks run), then correspondence games where it is our
//! turn; within each, the game with the least time left first. A correspondence game where it
//! is the opponent's turn is set aside: no stream is open for it until a later check-in finds
//! it is our turn.
//!
//! Correspondence searches then take turns ([`ThinkingOrder`]): at most `[correspondence]
//! max_thinking` at once, the waiting game with the least time left next. Real-time games never
//! wait for them.

use std::collections::BTreeSet;

use ferz_lichess::models::{GameEventInfo, Speed};

/// How soon a game needs our move: the seconds left on our clock, least first; a game without
/// a clock (unlimited) comes last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Urgency(i64);

impl Urgency {
    /// The urgency of a game with `seconds_left` on our clock (`None`: no clock).
    #[must_use]
    pub fn of(seconds_left: Option<i64>) -> Urgency {
        Urgency(seconds_left.unwrap_or(i64::MAX))
    }
}

/// What to do with the account's ongoing games.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// Games to open now (indices into the list), in the order to open them.
    pub open: Vec<usize>,
    /// Correspondence games waiting for the opponent, not running: set aside.
    pub set_aside: Vec<usize>,
}

/// Whether an ongoing game is correspondence or unlimited (Lichess gives unlimited games the
/// correspondence speed too).
#[must_use]
pub fn is_correspondence(game: &GameEventInfo) -> bool {
    game.speed == Some(Speed::Correspondence)
}

/// The plan for `games`, as `/api/account/playing` lists them; `known` says which games
/// already have a task (or ended in this run) and are left alone. Entries without an id are
/// skipped. A game whose turn the server does not say is opened (the task finds out).
#[must_use]
pub fn plan(games: &[GameEventInfo], known: impl Fn(&str) -> bool) -> Plan {
    let mut open: Vec<usize> = Vec::new();
    let mut set_aside = Vec::new();
    for (i, game) in games.iter().enumerate() {
        if game.id().is_empty() || known(game.id()) {
            continue;
        }
        if is_correspondence(game) && game.is_my_turn == Some(false) {
            set_aside.push(i);
        } else {
            open.push(i);
        }
    }
    // A stable sort: games the server lists with equal urgency keep its order.
    open.sort_by_key(|&i| {
        let game = &games[i];
        (is_correspondence(game), Urgency::of(game.seconds_left))
    });
    Plan { open, set_aside }
}

/// Which correspondence searches may run: at most `seats` at once; when a seat frees, the
/// waiting request with the least time left takes it (the one that asked first among equals).
/// Requests are numbered in the order they are made. A pure state machine: the game tasks'
/// side of it (locks, wake-ups, log lines) is `crate::game::seats`.
#[derive(Clone, Debug)]
pub struct ThinkingOrder {
    seats: usize,
    /// Requests holding a seat.
    holding: BTreeSet<u64>,
    /// Requests waiting, most urgent first.
    waiting: BTreeSet<(Urgency, u64)>,
    next: u64,
}

impl ThinkingOrder {
    /// `seats` searches at once (at least one).
    #[must_use]
    pub fn new(seats: usize) -> ThinkingOrder {
        ThinkingOrder { seats: seats.max(1), holding: BTreeSet::new(), waiting: BTreeSet::new(), next: 0 }
    }

    /// A new request for a game with `urgency`: its number, and whether it holds a seat at once
    /// (a free seat means nobody is waiting).
    pub fn ask(&mut self, urgency: Urgency) -> (u64, bool) {
        let n = self.next;
        self.next += 1;
        if self.holding.len() < self.seats {
            self.holding.insert(n);
            (n, true)
        } else {
            self.waiting.insert((urgency, n));
            (n, false)
        }
    }

    /// Whether request `n` holds a seat.
    #[must_use]
    pub fn holds(&self, n: u64) -> bool {
        self.holding.contains(&n)
    }

    /// Requests waiting before `n` (0 when it holds a seat or is unknown).
    #[must_use]
    pub fn ahead_of(&self, n: u64) -> usize {
        self.waiting.iter().position(|&(_, m)| m == n).unwrap_or(0)
    }

    /// Request `n` is done, whether it held a seat or was still waiting: the requests that take
    /// the seats it frees, in order.
    pub fn leave(&mut self, n: u64) -> Vec<u64> {
        if !self.holding.remove(&n) {
            self.waiting.retain(|&(_, m)| m != n);
        }
        let mut granted = Vec::new();
        while self.holding.len() < self.seats {
            let Some((_, m)) = self.waiting.pop_first() else { break };
            self.holding.insert(m);
            granted.push(m);
        }
        granted
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn game(id: &str, speed: &str, my_turn: Option<bool>, seconds_left: Option<i64>) -> GameEventInfo {
        let mut value = json!({"gameId": id, "speed": speed});
        if let Some(turn) = my_turn {
            value["isMyTurn"] = turn.into();
        }
        if let Some(left) = seconds_left {
            value["secondsLeft"] = left.into();
        }
        serde_json::from_value(value).unwrap()
    }

    fn ids(games: &[GameEventInfo], indices: &[usize]) -> Vec<String> {
        indices.iter().map(|&i| games[i].id().to_owned()).collect()
    }

    #[test]
    fn real_time_games_first_then_correspondence_each_shortest_time_first() {
        let games = [
            game("corrLong", "correspondence", Some(true), Some(200_000)),
            game("blitz", "blitz", Some(false), Some(120)),
            game("corrShort", "correspondence", Some(true), Some(3_000)),
            game("bullet", "bullet", Some(true), Some(20)),
            game("unlimited", "correspondence", Some(true), None),
            game("classical", "classical", None, Some(1_500)),
        ];
        let plan = plan(&games, |_| false);
        assert_eq!(ids(&games, &plan.open), ["bullet", "blitz", "classical", "corrShort", "corrLong", "unlimited"]);
        assert!(plan.set_aside.is_empty());
    }

    #[test]
    fn correspondence_searches_take_turns_least_time_left_first() {
        let mut order = ThinkingOrder::new(1);
        let day = Urgency::of(Some(86_400));
        // The first request takes the free seat, whatever its urgency.
        let (slow, seated) = order.ask(Urgency::of(Some(200_000)));
        assert!(seated && order.holds(slow));
        let (unlimited, seated) = order.ask(Urgency::of(None));
        assert!(!seated);
        let (late_day, _) = order.ask(day);
        let (short, _) = order.ask(Urgency::of(Some(3_000)));
        let (early_day, _) = order.ask(Urgency::of(Some(86_400)));
        assert_eq!(order.ahead_of(short), 0);
        assert_eq!(order.ahead_of(unlimited), 3, "no clock: last");
        // A waiting request that gives up frees nothing and leaves the queue.
        assert_eq!(order.leave(early_day), Vec::<u64>::new());
        let (again_day, _) = order.ask(day);
        // Least time left next; equal urgency in the order asked; unlimited last.
        let mut turns = Vec::new();
        let mut holder = slow;
        loop {
            let next = order.leave(holder);
            assert!(next.len() <= 1, "one seat: {next:?}");
            let Some(&n) = next.first() else { break };
            assert!(order.holds(n) && !order.holds(holder));
            turns.push(n);
            holder = n;
        }
        assert_eq!(turns, [short, late_day, again_day, unlimited]);
        assert!(order.ask(day).1, "all done: the seat is free again");
    }

    #[test]
    fn more_seats_let_more_searches_run_and_a_freed_seat_goes_to_the_most_urgent() {
        let mut order = ThinkingOrder::new(2);
        let (a, _) = order.ask(Urgency::of(Some(500)));
        let (b, _) = order.ask(Urgency::of(Some(400)));
        let (c, c_seated) = order.ask(Urgency::of(Some(300)));
        let (d, _) = order.ask(Urgency::of(Some(100)));
        assert!(order.holds(a) && order.holds(b) && !c_seated && !order.holds(d));
        assert_eq!(order.leave(b), [d]);
        assert!(order.holds(a) && order.holds(d));
        assert_eq!(order.leave(a), [c]);
        assert_eq!(order.leave(c), Vec::<u64>::new());
        assert_eq!(order.leave(99), Vec::<u64>::new(), "an unknown request changes nothing");
        assert!(order.ask(Urgency::of(None)).1);
        assert!(ThinkingOrder::new(0).ask(Urgency::of(None)).1, "at least one seat");
    }

    #[test]
    fn correspondence_games_on_the_opponents_turn_are_set_aside_and_known_games_left_alone() {
        let games = [
            game("theirTurn", "correspondence", Some(false), Some(100)),
            game("running", "correspondence", Some(true), Some(50)),
            game("ours", "correspondence", Some(true), Some(90_000)),
            game("rapid", "rapid", Some(false), Some(600)),
            game("", "blitz", Some(true), Some(1)),
            game("noTurn", "correspondence", None, Some(10)),
        ];
        let plan = plan(&games, |id| id == "running");
        // Real-time games are opened whoever is to move; a correspondence game whose turn is
        // not given is opened rather than forgotten.
        assert_eq!(ids(&games, &plan.open), ["rapid", "noTurn", "ours"]);
        assert_eq!(ids(&games, &plan.set_aside), ["theirTurn"]);
    }
}
