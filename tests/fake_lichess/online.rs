//! The online move sources the bot may ask, served beside the Bot API: Lichess cloud
//! evaluation (`GET /api/cloud-eval`), the opening explorer (`GET /masters`, `GET /lichess`)
//! and chessdb.cn (`GET /cdb.php`), answering from a script.
//!
//! A position's answer is set per service with [`FakeLichess::script_online`]; answers queued
//! with [`FakeLichess::queue_online`] come first, whatever the position (faults: 429, slow
//! answers, malformed JSON). Unscripted positions are unknown: 404 from Lichess's services,
//! `{"status":"unknown"}` from chessdb, as the real ones answer.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use ferz_testserver::{Exchange, Request, Response};
use serde_json::{Value, json};

use super::{FakeLichess, Shared};

/// One service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OnlineService {
    /// `GET /api/cloud-eval`.
    CloudEval,
    /// `GET /masters`.
    Masters,
    /// `GET /lichess`.
    Lichess,
    /// `GET /cdb.php`.
    ChessDb,
}

impl OnlineService {
    /// The path it is served at.
    #[must_use]
    pub fn path(self) -> &'static str {
        match self {
            OnlineService::CloudEval => "/api/cloud-eval",
            OnlineService::Masters => "/masters",
            OnlineService::Lichess => "/lichess",
            OnlineService::ChessDb => "/cdb.php",
        }
    }

    fn of_path(path: &str) -> Option<OnlineService> {
        [OnlineService::CloudEval, OnlineService::Masters, OnlineService::Lichess, OnlineService::ChessDb]
            .into_iter()
            .find(|s| s.path() == path)
    }

    /// The query parameter that holds the FEN.
    fn fen_param(self) -> &'static str {
        if self == OnlineService::ChessDb { "board" } else { "fen" }
    }
}

/// What a service answers.
#[derive(Clone, Debug)]
pub enum OnlineAnswer {
    /// `200` with this JSON.
    Json(Value),
    /// `404 {"error":"Not found."}`.
    NotFound,
    /// `429` (an HTML page, as the network edge sends), with `Retry-After` seconds if given.
    RateLimited(Option<u64>),
    /// The answer, after a delay.
    Slow(Duration, Box<OnlineAnswer>),
    /// `200` with this text, which is not the JSON the service promises.
    Malformed(String),
}

impl OnlineAnswer {
    /// A cloud evaluation of `depth` with these lines: (moves, centipawns for white).
    #[must_use]
    pub fn cloud(depth: u32, lines: &[(&str, i32)]) -> OnlineAnswer {
        let pvs: Vec<Value> = lines.iter().map(|(moves, cp)| json!({"moves": moves, "cp": cp})).collect();
        OnlineAnswer::Json(json!({"fen": "", "knodes": 100_000, "depth": depth, "pvs": pvs}))
    }

    /// An explorer answer with these moves: (uci, white wins, draws, black wins).
    #[must_use]
    pub fn explorer(moves: &[(&str, u64, u64, u64)]) -> OnlineAnswer {
        let list: Vec<Value> = moves
            .iter()
            .map(|(uci, w, d, b)| json!({"uci": uci, "san": "?", "white": w, "draws": d, "black": b, "averageRating": 2400}))
            .collect();
        let sum = |f: fn(&(&str, u64, u64, u64)) -> u64| moves.iter().map(f).sum::<u64>();
        OnlineAnswer::Json(json!({"white": sum(|m| m.1), "draws": sum(|m| m.2), "black": sum(|m| m.3), "moves": list}))
    }

    /// chessdb's `querypv` answer: this line, its score for the side to move and its depth.
    #[must_use]
    pub fn chessdb(pv: &[&str], score: i32, depth: u32) -> OnlineAnswer {
        OnlineAnswer::Json(json!({"status": "ok", "score": score, "depth": depth, "pv": pv, "pvSAN": []}))
    }

    /// This answer after `delay`.
    #[must_use]
    pub fn slow(self, delay: Duration) -> OnlineAnswer {
        OnlineAnswer::Slow(delay, Box::new(self))
    }
}

/// The script of every service.
#[derive(Debug, Default)]
pub(crate) struct OnlineScript {
    by_position: HashMap<(OnlineService, String), OnlineAnswer>,
    next: HashMap<OnlineService, VecDeque<OnlineAnswer>>,
}

/// A FEN without its move counters: the services' answers do not depend on them.
fn position_key(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

/// Answers a request to a service, or leaves it (`false`) to the Bot API's routes.
pub(crate) fn answer(shared: &Shared, request: &Request, exchange: &mut Exchange<'_>) -> bool {
    let Some(service) = OnlineService::of_path(&request.path).filter(|_| request.method == "GET") else {
        return false;
    };
    let fen = request.query_param(service.fen_param()).unwrap_or_default();
    let scripted = {
        let mut script = shared.online.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let queued = script.next.get_mut(&service).and_then(VecDeque::pop_front);
        queued.or_else(|| script.by_position.get(&(service, position_key(&fen))).cloned())
    };
    let mut answer = scripted.unwrap_or(if service == OnlineService::ChessDb {
        OnlineAnswer::Json(json!({"status": "unknown"}))
    } else {
        OnlineAnswer::NotFound
    });
    loop {
        let response = match answer {
            OnlineAnswer::Slow(delay, then) => {
                let until = Instant::now() + delay;
                while Instant::now() < until && !exchange.stopping() {
                    std::thread::sleep(Duration::from_millis(10));
                }
                answer = *then;
                continue;
            }
            OnlineAnswer::Json(value) => Response::json(200, value),
            OnlineAnswer::NotFound => Response::error(404, "Not found."),
            OnlineAnswer::RateLimited(after) => {
                let page =
                    Response::new(429, "text/html", "<html><title>lichess.org - too many requests</title></html>");
                match after {
                    Some(secs) => page.header("Retry-After", &secs.to_string()),
                    None => page,
                }
            }
            OnlineAnswer::Malformed(text) => Response::new(200, "application/json", text),
        };
        exchange.respond(&response);
        return true;
    }
}

impl FakeLichess {
    /// `service` answers `answer` for the position `fen` (move counters ignored).
    pub fn script_online(&self, service: OnlineService, fen: &str, answer: OnlineAnswer) {
        let mut script = self.shared.online.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        script.by_position.insert((service, position_key(fen)), answer);
    }

    /// `service` answers `answer` to its next request, whatever the position (after the answers
    /// queued before).
    pub fn queue_online(&self, service: OnlineService, answer: OnlineAnswer) {
        let mut script = self.shared.online.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        script.next.entry(service).or_default().push_back(answer);
    }

    /// The answered requests to `service`, oldest first.
    pub fn online_requests(&self, service: OnlineService) -> Vec<super::RecordedRequest> {
        self.requests().into_iter().filter(|r| r.path == service.path()).collect()
    }
}
