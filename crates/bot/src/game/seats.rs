//! Thinking seats: who may search ([`ThinkingOrder`], pure) and the game tasks' side of it
//! ([`ThinkingSeats`], [`Ticket`]). A correspondence game takes a
//! seat before it searches and gives it back once its move is sent; `[correspondence]
//! max_thinking` seats exist, and a freed seat goes to the waiting game with the least time
//! left. Real-time games never take one.
//!
//! The log lines say who holds a seat and are written while the seats are locked, so the log
//! shows them in the order they happened: a seat is taken only after the line saying the
//! previous holder freed it.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

use crate::resume::Urgency;

/// Which correspondence searches may run: at most `seats` at once; when a seat frees, the
/// waiting request with the least time left takes it (the one that asked first among equals).
/// Requests are numbered in the order they are made. A pure state machine: [`ThinkingSeats`] is
/// the game tasks' side of it (locks, wake-ups, log lines).
#[derive(Clone, Debug)]
pub(crate) struct ThinkingOrder {
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
    pub(crate) fn new(seats: usize) -> ThinkingOrder {
        ThinkingOrder { seats: seats.max(1), holding: BTreeSet::new(), waiting: BTreeSet::new(), next: 0 }
    }

    /// A new request for a game with `urgency`: its number, and whether it holds a seat at once
    /// (a free seat means nobody is waiting).
    pub(crate) fn ask(&mut self, urgency: Urgency) -> (u64, bool) {
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
    pub(crate) fn holds(&self, n: u64) -> bool {
        self.holding.contains(&n)
    }

    /// Requests waiting before `n` (0 when it holds a seat or is unknown).
    #[must_use]
    pub(crate) fn ahead_of(&self, n: u64) -> usize {
        self.waiting.iter().position(|&(_, m)| m == n).unwrap_or(0)
    }

    /// Request `n` is done, whether it held a seat or was still waiting: the requests that take
    /// the seats it frees, in order.
    pub(crate) fn leave(&mut self, n: u64) -> Vec<u64> {
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

/// The seats every game task shares (cheap to clone).
#[derive(Clone, Debug)]
pub(crate) struct ThinkingSeats {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Debug)]
struct Inner {
    order: ThinkingOrder,
    /// Each live request, by its number.
    requests: HashMap<u64, Request>,
}

/// A live request for a seat.
#[derive(Debug)]
struct Request {
    /// The game asking (for the log lines).
    game: String,
    /// Woken when the request takes a seat.
    wake: Arc<Notify>,
}

impl ThinkingSeats {
    /// `seats` correspondence searches at once.
    #[must_use]
    pub(crate) fn new(seats: usize) -> ThinkingSeats {
        ThinkingSeats {
            inner: Arc::new(Mutex::new(Inner { order: ThinkingOrder::new(seats), requests: HashMap::new() })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic elsewhere while locked leaves the queue consistent (every change is one call).
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Asks for a seat for `game`, whose urgency is `urgency`: the ticket holds it at once when
    /// one is free, or waits in line ([`Ticket::waiter`]). Dropping the ticket gives the seat back
    /// or leaves the line.
    #[must_use]
    pub(crate) fn ask(&self, game: &str, urgency: Urgency) -> Ticket {
        let notify = Arc::new(Notify::new());
        let mut inner = self.lock();
        let (n, seated) = inner.order.ask(urgency);
        inner.requests.insert(n, Request { game: game.to_owned(), wake: Arc::clone(&notify) });
        if seated {
            tracing::info!(game = %game, "correspondence search: thinking seat taken");
        } else {
            let ahead = inner.order.ahead_of(n);
            tracing::info!(game = %game, ahead, "correspondence search waits for a thinking seat");
        }
        drop(inner);
        Ticket { seats: self.clone(), n, notify }
    }
}

/// A game's request for a thinking seat: held, or waiting for one.
#[derive(Debug)]
pub(crate) struct Ticket {
    seats: ThinkingSeats,
    n: u64,
    notify: Arc<Notify>,
}

impl Ticket {
    /// Whether the ticket holds a seat.
    #[must_use]
    pub(crate) fn seated(&self) -> bool {
        self.seats.lock().order.holds(self.n)
    }

    /// A handle that waits for the seat, for a `select!` that also needs the game task.
    #[must_use]
    pub(crate) fn waiter(&self) -> Waiter {
        Waiter { seats: self.seats.clone(), n: self.n, notify: Arc::clone(&self.notify) }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut inner = self.seats.lock();
        let held = inner.order.holds(self.n);
        let game = inner.requests.remove(&self.n).map(|request| request.game).unwrap_or_default();
        if held {
            tracing::info!(game = %game, "correspondence search over: thinking seat freed");
        }
        for next in inner.order.leave(self.n) {
            if let Some(request) = inner.requests.get(&next) {
                tracing::info!(game = %request.game, "correspondence search: thinking seat taken");
                request.wake.notify_one();
            }
        }
    }
}

/// Waits for a ticket's seat ([`Ticket::waiter`]).
#[derive(Debug)]
pub(crate) struct Waiter {
    seats: ThinkingSeats,
    n: u64,
    notify: Arc<Notify>,
}

impl Waiter {
    /// Returns once the ticket holds its seat (cancel safe).
    pub(crate) async fn wait(&self) {
        loop {
            // Registered before the check: a seat granted in between still wakes us.
            let notified = self.notify.notified();
            if self.seats.lock().order.holds(self.n) {
                return;
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

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

    #[tokio::test]
    async fn a_waiting_ticket_wakes_when_the_seat_is_freed_and_a_dropped_one_leaves_the_line() {
        let seats = ThinkingSeats::new(1);
        let first = seats.ask("a", Urgency::of(Some(1000)));
        assert!(first.seated());
        let later = seats.ask("b", Urgency::of(Some(500)));
        let gone = seats.ask("c", Urgency::of(Some(10)));
        assert!(!later.seated() && !gone.seated());
        let waiter = later.waiter();
        let waiting = tokio::spawn(async move { waiter.wait().await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "the seat is still held");
        // "c" is more urgent but gives up before the seat frees: "b" gets it.
        drop(gone);
        drop(first);
        tokio::time::timeout(Duration::from_secs(10), waiting).await.expect("woken").unwrap();
        assert!(later.seated());
        drop(later);
        assert!(seats.ask("d", Urgency::of(None)).seated(), "free again");
    }
}
