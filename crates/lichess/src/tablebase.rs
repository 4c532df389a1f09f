//! The Lichess tablebase server (`tablebase.lichess.org`, standard chess up to 7 pieces): its
//! answer's shape, and the one lookup a bot makes, `GET {base}/standard?fen=…`.
//!
//! It is a service beside the Bot API, asked through [`Client::get_service_json`]: one attempt
//! within the caller's timeout, never retried, a 429 holds it like a Bot API endpoint, and the
//! token is never sent (it needs none).

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::client::Client;
use crate::endpoint::Endpoint;
use crate::error::Error;

/// A tablebase result, from the side to move's point of view (in a move's entry: from the
/// point of view of the side to move after it, that is the opponent's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Won, within the 50-move rule.
    Win,
    /// Won, unless a move since the last capture or pawn move strayed from the table's line:
    /// DTZ is rounded in these tables and the 50-move rule may then decide.
    SyzygyWin,
    /// Won, but whether within the 50-move rule is unknown (DTZ unknown; the DTC table does not
    /// promise the quickest zeroing move).
    MaybeWin,
    /// Won only without the 50-move rule: a draw under it.
    CursedWin,
    /// Drawn.
    Draw,
    /// Lost only without the 50-move rule: a draw under it.
    BlessedLoss,
    /// Lost, but whether within the 50-move rule is unknown (the mirror of `MaybeWin`).
    MaybeLoss,
    /// Lost or a blessed loss (rounded DTZ; the mirror of `SyzygyWin`).
    SyzygyLoss,
    /// Lost, within the 50-move rule.
    Loss,
    /// The server does not know (no table for the material), or a category newer than this
    /// client: the specification may grow, and one unknown entry must not spoil the answer.
    #[serde(other)]
    Unknown,
}

impl Category {
    /// The same result seen from the other side.
    #[must_use]
    pub fn flip(self) -> Category {
        match self {
            Category::Win => Category::Loss,
            Category::SyzygyWin => Category::SyzygyLoss,
            Category::MaybeWin => Category::MaybeLoss,
            Category::CursedWin => Category::BlessedLoss,
            Category::Draw => Category::Draw,
            Category::BlessedLoss => Category::CursedWin,
            Category::MaybeLoss => Category::MaybeWin,
            Category::SyzygyLoss => Category::SyzygyWin,
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

impl Client {
    /// Looks up a standard chess position given as FEN in the tablebase at `base_url`
    /// (`https://tablebase.lichess.org`): `GET {base_url}/standard?fen=…`, within `timeout`.
    ///
    /// # Errors
    /// As [`Client::get_service_json`]: [`Error::RateLimited`] on a 429 or while one holds,
    /// [`Error::Status`] (404: not a tablebase position), [`Error::Timeout`],
    /// [`Error::Network`], [`Error::Decode`] for an answer that is not the promised JSON.
    pub async fn tablebase_standard(
        &self,
        base_url: &str,
        fen: &str,
        timeout: Duration,
    ) -> Result<TablebaseAnswer, Error> {
        let url = format!("{}/standard", base_url.trim().trim_end_matches('/'));
        self.get_service_json(Endpoint::Tablebase, &url, &[("fen", fen.to_owned())], timeout).await
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
        // A category this client does not know reads as unknown; a missing one is still an error.
        let answer: TablebaseAnswer = serde_json::from_str(r#"{"category": "won"}"#).unwrap();
        assert_eq!(answer.category, Category::Unknown);
        assert!(serde_json::from_str::<TablebaseAnswer>(r#"{"moves": []}"#).is_err());
    }

    #[tokio::test]
    async fn a_lookup_sends_no_token_and_a_429_holds_the_next() {
        let server = ferz_testserver::Server::start("tb", |request, exchange| {
            let response = if request.header("authorization").is_some() {
                ferz_testserver::Response::error(400, "a token went to the tablebase")
            } else if request.path == "/tb/standard" && request.query_param("fen").is_some() {
                ferz_testserver::Response::error(429, "slow down").header("Retry-After", "30")
            } else {
                ferz_testserver::Response::error(404, "no")
            };
            exchange.respond(&response);
        })
        .unwrap();
        let client = Client::new(crate::ClientConfig::new(server.url(), crate::Token::new("lip_secret"))).unwrap();
        let tb = format!("{}/tb", server.url());
        let fen = "8/8/8/8/8/2k5/8/KQ6 w - - 0 1";
        let first = client.tablebase_standard(&tb, fen, Duration::from_secs(5)).await.unwrap_err();
        assert_eq!(first.retry_after(), Some(Duration::from_secs(30)), "{first}");
        let second = client.tablebase_standard(&tb, fen, Duration::from_secs(5)).await.unwrap_err();
        assert!(matches!(second, Error::RateLimited { ref body, .. } if body.is_empty()), "{second}");
        assert_eq!(server.request_count(), 1, "the held lookup was refused locally");
        assert!(client.held_for(Endpoint::Tablebase).is_some());
    }
}
