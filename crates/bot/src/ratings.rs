//! Our own ratings by perf, as `/api/account` reports them. The bot reads them at start and
//! again every `[challenge] rating_refresh_s`, so that `rating_difference` and matchmaking
//! compare opponents with the rating we have now, not the one we started with.

use std::collections::HashMap;

use ferz_lichess::models::User;

/// Our rating in each perf (`blitz`, `chess960`, `correspondence`, …).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ratings {
    by_perf: HashMap<String, i64>,
}

impl Ratings {
    /// The ratings of an account's profile; perfs without a rating are left out.
    #[must_use]
    pub(crate) fn of(account: &User) -> Ratings {
        let by_perf = account.perfs.iter().filter_map(|(k, v)| Some((k.clone(), v.rating? as i64))).collect();
        Ratings { by_perf }
    }

    /// Ratings from (perf, rating) pairs.
    #[cfg(test)]
    #[must_use]
    pub(crate) fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, i64)>) -> Ratings {
        Ratings { by_perf: pairs.into_iter().map(|(k, r)| (k.to_owned(), r)).collect() }
    }

    /// Our rating in `perf`, if we have one.
    #[must_use]
    pub(crate) fn get(&self, perf: &str) -> Option<i64> {
        self.by_perf.get(perf).copied()
    }
}

/// The perf that rates a game: the variant's own for variants that have one (`chess960`), the
/// speed's for standard chess and set-up positions (`blitz`, `correspondence`).
#[must_use]
pub(crate) fn perf_key<'a>(variant: &'a str, speed: &'a str) -> &'a str {
    match variant {
        "standard" | "chess" | "fromPosition" | "" => speed,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratings_by_perf_from_the_profile() {
        let account: User = serde_json::from_value(serde_json::json!({
            "id": "me", "username": "Me",
            "perfs": {"blitz": {"rating": 2011, "games": 5}, "puzzle": {"games": 3}}
        }))
        .unwrap();
        let ratings = Ratings::of(&account);
        assert_eq!((ratings.get("blitz"), ratings.get("puzzle"), ratings.get("bullet")), (Some(2011), None, None));
        assert_eq!(perf_key("standard", "blitz"), "blitz");
        assert_eq!(perf_key("fromPosition", "correspondence"), "correspondence");
        assert_eq!(perf_key("chess960", "blitz"), "chess960");
    }
}
