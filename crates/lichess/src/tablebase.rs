//! The Lichess tablebase server (`tablebase.lichess.ovh`, standard chess up to 7 pieces): one
//! lookup, `GET {base}/standard?fen=…`, under the same 429 rule as the Bot API.
//!
//! It is another host than the Bot API's, public, and needs no token: the client sends none
//! (the bot's token must never leave for a third host). A 429 holds the lookup for
//! `Retry-After` (else the configured hold) and lookups fail at once until then, as every Bot
//! API endpoint does ([`Error::RateLimited`]). Nothing is retried: the caller asks while its
//! own clock runs, and a move is never worth waiting for a second attempt.

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{RETRY_AFTER, USER_AGENT};
use reqwest::{Client as Http, Url};
use serde::{Deserialize, Serialize};

use crate::endpoint::Endpoint;
use crate::error::{Error, truncate_body};
use crate::policy::{Holds, rate_limit_hold};

/// A tablebase result, from the side to move's point of view (in a move's entry: from the
/// point of view of the side to move after it, that is the opponent's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Won, within the 50-move rule.
    Win,
    /// Won or a cursed win: DTZ is rounded in these tables and the 50-move rule may decide.
    MaybeWin,
    /// Won only without the 50-move rule: a draw under it.
    CursedWin,
    /// Drawn.
    Draw,
    /// Lost only without the 50-move rule: a draw under it.
    BlessedLoss,
    /// Lost or a blessed loss (rounded DTZ).
    MaybeLoss,
    /// Lost, within the 50-move rule.
    Loss,
    /// The server does not know (no table for the material).
    Unknown,
}

impl Category {
    /// The same result seen from the other side.
    #[must_use]
    pub fn flip(self) -> Category {
        match self {
            Category::Win => Category::Loss,
            Category::MaybeWin => Category::MaybeLoss,
            Category::CursedWin => Category::BlessedLoss,
            Category::Draw => Category::Draw,
            Category::BlessedLoss => Category::CursedWin,
            Category::MaybeLoss => Category::MaybeWin,
            Category::Loss => Category::Win,
            Category::Unknown => Category::Unknown,
        }
    }
}

/// The answer for one position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TablebaseAnswer {
    /// The position's result for the side to move.
    pub category: Category,
    /// DTZ50'' in plies (rounded in some tables), `None` when unknown.
    #[serde(default)]
    pub dtz: Option<i32>,
    /// Depth to mate in plies, `None` when unknown (7-piece positions have none).
    #[serde(default)]
    pub dtm: Option<i32>,
    /// Every legal move, best first.
    #[serde(default)]
    pub moves: Vec<TablebaseMove>,
}

/// One legal move of the position and the result after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TablebaseMove {
    /// The move in UCI notation (castling as the king's two-square step; tables have none).
    pub uci: String,
    /// The result for the side to move after it (the opponent).
    pub category: Category,
    /// DTZ of the position after it, opponent's view.
    #[serde(default)]
    pub dtz: Option<i32>,
    /// DTM of the position after it, opponent's view.
    #[serde(default)]
    pub dtm: Option<i32>,
    /// A capture or pawn move (the 50-move counter restarts).
    #[serde(default)]
    pub zeroing: bool,
    /// It mates.
    #[serde(default)]
    pub checkmate: bool,
}

/// A client of the tablebase server. Cheap to clone; clones share the 429 hold.
#[derive(Clone)]
pub struct TablebaseClient {
    http: Http,
    base: Url,
    timeout: Duration,
    hold: Duration,
    holds: Arc<Holds>,
}

impl TablebaseClient {
    /// A client of the server at `base_url` (`https://tablebase.lichess.ovh`); each lookup may
    /// take `timeout`, and a 429 without `Retry-After` holds lookups for `hold`.
    ///
    /// # Errors
    /// [`Error::Config`] for a URL that is not `http(s)://…`.
    pub fn new(base_url: &str, timeout: Duration, hold: Duration) -> Result<TablebaseClient, Error> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let base =
            Url::parse(base_url.trim()).map_err(|e| Error::Config(format!("tablebase URL `{base_url}`: {e}")))?;
        if !matches!(base.scheme(), "http" | "https") || base.cannot_be_a_base() {
            return Err(Error::Config(format!("tablebase URL `{base_url}` must start with http:// or https://")));
        }
        let http =
            Http::builder().connect_timeout(timeout).build().map_err(|e| Error::Config(format!("HTTP client: {e}")))?;
        Ok(TablebaseClient { http, base, timeout, hold, holds: Arc::default() })
    }

    /// How much longer an earlier 429 holds lookups, if it does.
    #[must_use]
    pub fn held_for(&self) -> Option<Duration> {
        self.holds.remaining(Endpoint::Tablebase)
    }

    /// Looks up a standard chess position given as FEN (`GET {base}/standard?fen=…`).
    ///
    /// # Errors
    /// [`Error::RateLimited`] on a 429 or while one holds, [`Error::Status`] for any other
    /// failure status (404: not a tablebase position), [`Error::Network`] (a timeout too),
    /// [`Error::Decode`] for an answer that is not the promised JSON.
    pub async fn standard(&self, fen: &str) -> Result<TablebaseAnswer, Error> {
        let endpoint = Endpoint::Tablebase;
        if let Some(retry_after) = self.holds.remaining(endpoint) {
            return Err(Error::RateLimited { endpoint, retry_after, body: String::new() });
        }
        let mut url = self.base.clone();
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop_if_empty().push("standard");
        }
        let user_agent = format!("ferz/{}", env!("CARGO_PKG_VERSION"));
        let request = self.http.get(url).query(&[("fen", fen)]).header(USER_AGENT, user_agent).timeout(self.timeout);
        tracing::debug!(%endpoint, fen, "request");
        let response = request.send().await.map_err(|source| Error::Network { endpoint, source })?;
        let status = response.status();
        let retry_after = response.headers().get(RETRY_AFTER).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body = response.bytes().await.map_err(|source| Error::Network { endpoint, source })?;
        let text = || truncate_body(String::from_utf8_lossy(&body).into_owned());
        if status.as_u16() == 429 {
            let hold = rate_limit_hold(retry_after.as_deref(), &text(), self.hold);
            self.holds.hold(endpoint, hold);
            tracing::warn!(%endpoint, hold_s = hold.as_secs(), "HTTP 429: endpoint held");
            return Err(Error::RateLimited { endpoint, retry_after: hold, body: text() });
        }
        if !status.is_success() {
            return Err(Error::Status { endpoint, status: status.as_u16(), body: text() });
        }
        serde_json::from_slice(&body).map_err(|e| Error::Decode { endpoint, message: e.to_string(), body: text() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_decode_with_unknown_fields_and_kebab_case_categories() {
        let text = r#"{"dtz": 1, "precise_dtz": 1, "dtm": 17, "checkmate": false, "category": "win",
            "moves": [{"uci": "h7h8q", "san": "h8=Q+", "dtz": -2, "dtm": -16, "zeroing": true,
            "checkmate": false, "stalemate": false, "category": "loss"},
            {"uci": "g7g6", "san": "Kg6", "dtz": null, "category": "blessed-loss"}]}"#;
        let answer: TablebaseAnswer = serde_json::from_str(text).unwrap();
        assert_eq!((answer.category, answer.dtz, answer.dtm), (Category::Win, Some(1), Some(17)));
        assert_eq!(answer.moves[0].uci, "h7h8q");
        assert!(answer.moves[0].zeroing && !answer.moves[1].zeroing);
        assert_eq!(answer.moves[1].category.flip(), Category::CursedWin);
        assert!(serde_json::from_str::<TablebaseAnswer>(r#"{"category": "won"}"#).is_err());
    }

    #[test]
    fn only_http_urls_make_a_client() {
        let ok = TablebaseClient::new("http://127.0.0.1:9/tb", Duration::from_secs(1), Duration::from_secs(60));
        assert!(ok.is_ok());
        let bad = TablebaseClient::new("tablebase.lichess.ovh", Duration::from_secs(1), Duration::from_secs(60));
        assert!(matches!(bad, Err(Error::Config(_))));
    }

    #[tokio::test]
    async fn a_429_holds_the_lookups() {
        let server = ferz_testserver::Server::start("tb", |request, exchange| {
            let response = if request.path == "/tb/standard" && request.query_param("fen").is_some() {
                ferz_testserver::Response::error(429, "slow down").header("Retry-After", "30")
            } else {
                ferz_testserver::Response::error(404, "no")
            };
            exchange.respond(&response);
        })
        .unwrap();
        let client =
            TablebaseClient::new(&format!("{}/tb", server.url()), Duration::from_secs(5), Duration::from_secs(60))
                .unwrap();
        let first = client.standard("8/8/8/8/8/2k5/8/KQ6 w - - 0 1").await.unwrap_err();
        assert_eq!(first.retry_after(), Some(Duration::from_secs(30)));
        let second = client.standard("8/8/8/8/8/2k5/8/KQ6 w - - 0 1").await.unwrap_err();
        assert!(matches!(second, Error::RateLimited { ref body, .. } if body.is_empty()), "{second}");
        assert_eq!(server.request_count(), 1, "the held lookup was refused locally");
    }
}
