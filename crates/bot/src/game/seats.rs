//! Thinking seats: the game tasks' side of [`ThinkingOrder`]. A correspondence game takes a
//! seat before it searches and gives it back once its move is sent; `[correspondence]
//! max_thinking` seats exist, and a freed seat goes to the waiting game with the least time
//! left. Real-time games never take one.
//!
//! The log lines say who holds a seat and are written while the seats are locked, so the log
//! shows them in the order they happened: a seat is taken only after the line saying the
//! previous holder freed it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

use crate::resume::{ThinkingOrder, Urgency};

/// The seats every game task shares (cheap to clone).
#[derive(Clone, Debug)]
pub struct ThinkingSeats {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Debug)]
struct Inner {
    order: ThinkingOrder,
    /// Each live request's game and wake-up.
    requests: HashMap<u64, (String, Arc<Notify>)>,
}

impl ThinkingSeats {
    /// `seats` correspondence searches at once.
    #[must_use]
    pub fn new(seats: usize) -> ThinkingSeats {
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
    pub fn ask(&self, game: &str, urgency: Urgency) -> Ticket {
        let notify = Arc::new(Notify::new());
        let mut inner = self.lock();
        let (n, seated) = inner.order.ask(urgency);
        inner.requests.insert(n, (game.to_owned(), Arc::clone(&notify)));
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
pub struct Ticket {
    seats: ThinkingSeats,
    n: u64,
    notify: Arc<Notify>,
}

impl Ticket {
    /// Whether the ticket holds a seat.
    #[must_use]
    pub fn seated(&self) -> bool {
        self.seats.lock().order.holds(self.n)
    }

    /// A handle that waits for the seat, for a `select!` that also needs the game task.
    #[must_use]
    pub fn waiter(&self) -> Waiter {
        Waiter { seats: self.seats.clone(), n: self.n, notify: Arc::clone(&self.notify) }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut inner = self.seats.lock();
        let held = inner.order.holds(self.n);
        let game = inner.requests.remove(&self.n).map(|(game, _)| game).unwrap_or_default();
        if held {
            tracing::info!(game = %game, "correspondence search over: thinking seat freed");
        }
        for next in inner.order.leave(self.n) {
            if let Some((game, notify)) = inner.requests.get(&next) {
                tracing::info!(game = %game, "correspondence search: thinking seat taken");
                notify.notify_one();
            }
        }
    }
}

/// Waits for a ticket's seat ([`Ticket::waiter`]).
#[derive(Debug)]
pub struct Waiter {
    seats: ThinkingSeats,
    n: u64,
    notify: Arc<Notify>,
}

impl Waiter {
    /// Returns once the ticket holds its seat (cancel safe).
    pub async fn wait(&self) {
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
