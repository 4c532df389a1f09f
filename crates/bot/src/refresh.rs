//! The own-rating and online-block-list refreshes, run beside the event loop: each read goes
//! out in a task of its own, so a slow server never holds up challenges or game starts, and
//! the loop applies the result when it arrives. At most one read of each kind is out at a
//! time; a failed read is logged where it is applied and the last value kept.

use std::collections::HashMap;
use std::future::Future;

use tokio::task::{Id, JoinSet};

use crate::ratings::Ratings;

/// Which value a refresh reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Our ratings (`/api/account`).
    Ratings,
    /// `[challenge] online_block_list`.
    BlockList,
}

/// What a finished refresh read.
#[derive(Debug)]
pub(crate) enum Refreshed {
    /// Our ratings, or why they could not be read.
    Ratings(Result<Ratings, String>),
    /// Each block list's text, in the order of the addresses, or why it could not be read.
    BlockList(Vec<Result<String, String>>),
}

/// The refreshes out.
#[derive(Debug, Default)]
pub(crate) struct Refreshes {
    tasks: JoinSet<Refreshed>,
    /// The kind of each task, so that a task that fails still frees its kind.
    out: HashMap<Id, Kind>,
}

impl Refreshes {
    /// Whether a refresh of `kind` is out.
    #[must_use]
    pub(crate) fn is_out(&self, kind: Kind) -> bool {
        self.out.values().any(|k| *k == kind)
    }

    /// Whether no refresh is out.
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Sends `read` out as the refresh of `kind`, unless one of that kind is still out (then
    /// `false`: the next is due when it has come back).
    pub(crate) fn start(&mut self, kind: Kind, read: impl Future<Output = Refreshed> + Send + 'static) -> bool {
        if self.is_out(kind) {
            return false;
        }
        let task = self.tasks.spawn(read);
        self.out.insert(task.id(), kind);
        true
    }

    /// The next refresh that came back. `None` (logged) when its task failed: its kind is free
    /// again and the last value stays. Pending forever while none is out.
    pub(crate) async fn next(&mut self) -> Option<Refreshed> {
        match self.tasks.join_next_with_id().await? {
            Ok((id, refreshed)) => {
                self.out.remove(&id);
                Some(refreshed)
            }
            Err(error) => {
                let kind = self.out.remove(&error.id());
                tracing::warn!(kind = ?kind, error = %error, "a refresh task failed; keeping the last value");
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_refresh_of_each_kind_at_a_time() {
        let mut refreshes = Refreshes::default();
        let (release, held) = tokio::sync::oneshot::channel::<()>();
        assert!(refreshes.start(Kind::Ratings, async move {
            let _ = held.await;
            Refreshed::Ratings(Ok(Ratings::from_pairs([("blitz", 2100)])))
        }));
        assert!(!refreshes.start(Kind::Ratings, async { Refreshed::Ratings(Err("second".into())) }));
        assert!(refreshes.start(Kind::BlockList, async { Refreshed::BlockList(vec![Ok("troll".into())]) }));
        // The block list comes back while the ratings read is still out.
        let first = refreshes.next().await.expect("the block list read");
        assert!(matches!(first, Refreshed::BlockList(_)));
        assert!(refreshes.is_out(Kind::Ratings) && !refreshes.is_out(Kind::BlockList));
        release.send(()).unwrap();
        match refreshes.next().await {
            Some(Refreshed::Ratings(Ok(ratings))) => assert_eq!(ratings.get("blitz"), Some(2100)),
            other => panic!("the held ratings read, not {other:?}"),
        }
        assert!(refreshes.is_empty() && !refreshes.is_out(Kind::Ratings));
        assert!(refreshes.start(Kind::Ratings, async { Refreshed::Ratings(Err("again".into())) }));
    }

    #[tokio::test]
    async fn a_failed_task_frees_its_kind() {
        let mut refreshes = Refreshes::default();
        assert!(refreshes.start(Kind::Ratings, async { panic!("a read that panics") }));
        assert!(refreshes.next().await.is_none());
        assert!(!refreshes.is_out(Kind::Ratings));
    }
}
