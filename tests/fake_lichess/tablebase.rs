//! The online tablebase's route: `GET /tablebase/standard?fen=…` (the bot's
//! `[tablebase] online_url` is `{server}/tablebase`), with answers scripted per position and
//! a default for the others: JSON, 404, 429, a malformed body, or any of these late.
//!
//! It is answered outside the simulation's lock, so a slow answer holds nobody else up.

use std::collections::BTreeMap;
use std::time::Duration;

use ferz_testserver::{Request, Response};

use super::Shared;

/// How the fake tablebase answers a lookup.
#[derive(Debug, Clone)]
pub enum TablebaseReply {
    /// 200 with this JSON body.
    Json(serde_json::Value),
    /// 404, as the real server for a position it has no table for.
    NotFound,
    /// 429 with `Retry-After` in seconds.
    RateLimited(u64),
    /// 200 with this body as it is (not the promised JSON).
    Malformed(String),
    /// The same reply after this delay.
    Slow(Duration, Box<TablebaseReply>),
}

/// The scripted answers and the lookups seen.
#[derive(Debug, Default)]
pub(crate) struct FakeTablebase {
    /// Answers by position: the FEN's board and side to move (`8/8/…/KQ6 w`).
    by_position: BTreeMap<String, TablebaseReply>,
    /// The answer for every other position (default 404).
    default: Option<TablebaseReply>,
    /// The `fen` of every lookup, oldest first.
    pub(crate) lookups: Vec<String>,
}

impl FakeTablebase {
    /// Scripts the answer for the position of `fen` (only its board and side to move count).
    pub(crate) fn script(&mut self, fen: &str, reply: TablebaseReply) {
        self.by_position.insert(position_key(fen), reply);
    }

    /// Sets the answer for unscripted positions.
    pub(crate) fn set_default(&mut self, reply: TablebaseReply) {
        self.default = Some(reply);
    }
}

/// The board and side to move of a FEN (the counters differ between a game and its script).
fn position_key(fen: &str) -> String {
    fen.split(['_', ' ']).take(2).collect::<Vec<_>>().join(" ")
}

/// The answer when `request` is a tablebase lookup; `None` for every other request.
pub(crate) fn answer(shared: &Shared, request: &Request) -> Option<Response> {
    let rest = request.path.strip_prefix("/tablebase")?;
    if request.method != "GET" || rest != "/standard" {
        return Some(Response::error(404, "Not found."));
    }
    let Some(fen) = request.query_param("fen") else {
        return Some(Response::error(400, "fen is required"));
    };
    let reply = {
        let mut tablebase = shared.tablebase.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        tablebase.lookups.push(fen.clone());
        tablebase.by_position.get(&position_key(&fen)).or(tablebase.default.as_ref()).cloned()
    };
    Some(respond(reply.unwrap_or(TablebaseReply::NotFound), shared))
}

fn respond(reply: TablebaseReply, shared: &Shared) -> Response {
    match reply {
        TablebaseReply::Json(value) => Response::json(200, value),
        TablebaseReply::NotFound => Response::error(404, "Not found."),
        TablebaseReply::RateLimited(seconds) => {
            Response::error(429, "Too many requests").header("Retry-After", &seconds.to_string())
        }
        TablebaseReply::Malformed(body) => Response::new(200, "application/json", body),
        TablebaseReply::Slow(delay, reply) => {
            // In steps, so that a stopping server does not wait for the whole delay.
            let deadline = std::time::Instant::now() + delay;
            while std::time::Instant::now() < deadline && !shared.is_shutdown() {
                std::thread::sleep(Duration::from_millis(20));
            }
            respond(*reply, shared)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_keyed_by_board_and_side() {
        assert_eq!(position_key("8/8/8/8/8/2k5/8/KQ6 w - - 3 40"), "8/8/8/8/8/2k5/8/KQ6 w");
        assert_eq!(position_key("8/8/8/8/8/2k5/8/KQ6_b_-_-_0_1"), "8/8/8/8/8/2k5/8/KQ6 b");
    }
}
