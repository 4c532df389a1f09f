//! Fault injection: broken streams, server errors, rate limits, odd events, refused moves
//! ([`Fault`]); the HTTP-level ones wait here ([`HttpFaults`]) for the requests they match, the
//! others are applied to the world by `State::inject` (`state.rs`).

use std::time::Duration;

use ferz_testserver::Response;

/// A fault to inject with [`super::FakeLichess::inject`].
#[derive(Debug, Clone)]
pub enum Fault {
    /// Ends the current event-stream connection now, cleanly (the last chunk is sent).
    CloseEventStream,
    /// PyChess: once the game (or the game a pending challenge becomes) is over, the server
    /// drops it at once, as the real one does when
    /// the human leaves a finished game (and deletes a game under three plies): no `gameEnd`
    /// reaches the bot, its stream gets nothing more (not even pings), and the game's page,
    /// stream and commands answer 404.
    ForgetGameWhenOver {
        /// The game.
        game_id: String,
    },
    /// Keeps the current event-stream connection open but sends nothing on it, not even
    /// keep-alives, for this long (events meant for it wait). A bot's idle watchdog should
    /// reconnect; a new connection is not silent.
    SilenceEventStream(Duration),
    /// The next `times` requests whose path contains `path_contains` get `status` with a small
    /// text body, and have no effect.
    ServerError {
        /// Matched against the request path.
        path_contains: String,
        /// How many requests fail.
        times: u32,
        /// The status, e.g. 502.
        status: u16,
    },
    /// The next `times` matching requests get 429 with lila's HTML "too many requests" page,
    /// with `Retry-After` when given, and have no effect.
    RateLimit {
        /// Matched against the request path.
        path_contains: String,
        /// How many requests are refused.
        times: u32,
        /// `Retry-After` seconds.
        retry_after: Option<u32>,
    },
    /// The next `times` requests whose path contains `path_contains` get 200 with a JSON body
    /// of the wrong shape (`{"nowPlaying": {"gameId": 42}}`: an object where a list belongs),
    /// and have no effect.
    Malformed {
        /// Matched against the request path.
        path_contains: String,
        /// How many requests get it.
        times: u32,
    },
    /// The next `times` requests whose path is exactly `path` are held for `delay` before they
    /// are answered (as usual), as a slow server would; [`super::FakeLichess::delayed_requests`]
    /// counts them as they arrive.
    Delay {
        /// The whole request path, e.g. `/api/account` (not `/api/account/playing`).
        path: String,
        /// How many requests are held.
        times: u32,
        /// How long each is held (less if the server stops).
        delay: Duration,
    },
    /// Writes this raw line into the open event stream (or the next one opened).
    EventLine(String),
    /// Sends the game's `gameStart` again on the event stream.
    DuplicateGameStart {
        /// The game.
        game_id: String,
    },
    /// Cuts the game's stream now, abruptly (the socket closes in the middle of a chunk).
    /// The game goes on; a reopened stream starts with `gameFull`.
    DropGameStream {
        /// The game.
        game_id: String,
    },
    /// The next `times` move requests of the game get 400 `Not your turn, or game already
    /// over`, and the move is not played.
    RejectMove {
        /// The game.
        game_id: String,
        /// How many moves are refused.
        times: u32,
    },
}

/// An HTTP-level fault waiting for matching requests.
#[derive(Debug, Clone)]
pub(crate) struct HttpFault {
    path_contains: String,
    times: u32,
    kind: HttpFaultKind,
}

#[derive(Debug, Clone)]
enum HttpFaultKind {
    ServerError(u16),
    RateLimit(Option<u32>),
    Malformed,
}

/// A [`Fault::Delay`] waiting for matching requests.
#[derive(Debug, Clone)]
pub(crate) struct HttpDelay {
    path: String,
    times: u32,
    delay: Duration,
}

/// lila's (network edge's) HTML page for a 429.
const TOO_MANY_REQUESTS_PAGE: &str = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<title>lichess.org - too many requests</title></head><body><h1>Too many requests</h1>\
<p>Your network has sent too many requests to lichess.org. Please wait a minute and try again.</p>\
</body></html>";

/// The HTTP-level faults armed, waiting for the requests they match.
#[derive(Debug, Default)]
pub(crate) struct HttpFaults {
    faults: Vec<HttpFault>,
    delays: Vec<HttpDelay>,
    /// Requests held by a [`Fault::Delay`] so far.
    delayed: usize,
}

impl HttpFaults {
    /// Arms `fault` when it is an HTTP-level one; any other comes back, for the world.
    pub(crate) fn arm(&mut self, fault: Fault) -> Option<Fault> {
        match fault {
            Fault::ServerError { path_contains, times, status } => {
                self.faults.push(HttpFault { path_contains, times, kind: HttpFaultKind::ServerError(status) });
            }
            Fault::RateLimit { path_contains, times, retry_after } => {
                self.faults.push(HttpFault { path_contains, times, kind: HttpFaultKind::RateLimit(retry_after) });
            }
            Fault::Malformed { path_contains, times } => {
                self.faults.push(HttpFault { path_contains, times, kind: HttpFaultKind::Malformed });
            }
            Fault::Delay { path, times, delay } => self.delays.push(HttpDelay { path, times, delay }),
            other => return Some(other),
        }
        None
    }

    /// Requests held by a [`Fault::Delay`] so far.
    pub(crate) fn delayed(&self) -> usize {
        self.delayed
    }

    /// How long to hold a request to `path`, if a [`Fault::Delay`] is armed for it (and counts
    /// it).
    pub(crate) fn delay(&mut self, path: &str) -> Option<Duration> {
        let index = self.delays.iter().position(|d| d.times > 0 && d.path == path)?;
        let armed = &mut self.delays[index];
        armed.times -= 1;
        let delay = armed.delay;
        if armed.times == 0 {
            self.delays.remove(index);
        }
        self.delayed += 1;
        Some(delay)
    }

    /// The answer of an HTTP fault matching `path`, if one is armed (and counts it).
    pub(crate) fn answer(&mut self, path: &str) -> Option<Response> {
        let index = self.faults.iter().position(|f| f.times > 0 && path.contains(&f.path_contains))?;
        let fault = &mut self.faults[index];
        fault.times -= 1;
        let kind = fault.kind.clone();
        if fault.times == 0 {
            self.faults.remove(index);
        }
        Some(match kind {
            HttpFaultKind::ServerError(status) => {
                Response::new(status, "text/plain; charset=utf-8", format!("fake server error {status}"))
            }
            HttpFaultKind::Malformed => Response::json(200, serde_json::json!({ "nowPlaying": { "gameId": 42 } })),
            HttpFaultKind::RateLimit(retry_after) => {
                let page = Response::new(429, "text/html; charset=utf-8", TOO_MANY_REQUESTS_PAGE);
                match retry_after {
                    Some(seconds) => page.header("Retry-After", &seconds.to_string()),
                    None => page,
                }
            }
        })
    }
}
