//! Which of the account's ongoing games to open, and in which order: a pure function of
//! `/api/account/playing`'s list, used at start-up and at every correspondence check-in.
//!
//! Real-time games come first (their clocks run), then correspondence games where it is our
//! turn; within each, the game with the least time left first. A correspondence game where it
//! is the opponent's turn is set aside: no stream is open for it until a later check-in finds
//! it is our turn.

use ferz_lichess::models::{GameEventInfo, Speed};

/// How soon a game needs our move: the seconds left on our clock, least first; a game without
/// a clock (unlimited) comes last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Urgency(i64);

impl Urgency {
    /// The urgency of a game with `seconds_left` on our clock (`None`: no clock).
    #[must_use]
    pub(crate) fn of(seconds_left: Option<i64>) -> Urgency {
        Urgency(seconds_left.unwrap_or(i64::MAX))
    }
}

/// What to do with the account's ongoing games.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Games to open now (indices into the list), in the order to open them.
    pub open: Vec<usize>,
    /// Correspondence games waiting for the opponent, not running: set aside.
    pub set_aside: Vec<usize>,
}

/// Whether an ongoing game is correspondence or unlimited (Lichess gives unlimited games the
/// correspondence speed too).
#[must_use]
pub(crate) fn is_correspondence(game: &GameEventInfo) -> bool {
    game.speed == Some(Speed::Correspondence)
}

/// The plan for `games`, as `/api/account/playing` lists them; `known` says which games
/// already have a task (or ended in this run) and are left alone. Entries without an id are
/// skipped. A game whose turn the server does not say is opened (the task finds out).
#[must_use]
pub(crate) fn plan(games: &[GameEventInfo], known: impl Fn(&str) -> bool) -> Plan {
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
