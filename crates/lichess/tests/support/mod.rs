//! A scriptable Lichess stand-in for the client's tests, on the shared test server: it records
//! every request and answers from a handler, with whole responses, chunked ndjson streams that
//! can pause, stall or break, and connections dropped before any answer.

#![allow(dead_code)] // each test file uses a different part

use std::time::Duration;

use ferz_lichess::{Client, ClientConfig, Platform, RetryPolicy, Token};
use ferz_testserver::{Exchange, Response, Server};

pub use ferz_testserver::Request;

/// The token every test client uses.
pub const TOKEN: &str = "lip_FakeToken_0123456789";

/// One step of a streamed (chunked) answer.
#[derive(Debug, Clone)]
pub enum Step {
    /// Send these bytes as one chunk.
    Data(String),
    /// Wait.
    Sleep(Duration),
    /// Send nothing more, keep the connection open (a dead stream).
    Stall,
    /// Close the connection without finishing the chunked body.
    Break,
}

/// What the server answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A whole response.
    Full { status: u16, headers: Vec<(String, String)>, body: String },
    /// A chunked `application/x-ndjson` 200 response, played step by step; it ends cleanly
    /// after the last step unless that step is `Stall` or `Break`.
    Stream(Vec<Step>),
    /// Close the connection before answering.
    Hangup,
    /// Accept the request and never answer.
    Silence,
}

impl Reply {
    /// A JSON response.
    pub fn json(status: u16, body: impl ToString) -> Reply {
        Reply::Full {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.to_string(),
        }
    }

    /// `200 {"ok":true}`.
    pub fn ok() -> Reply {
        Reply::json(200, r#"{"ok":true}"#)
    }

    /// The network edge's HTML 429 page, optionally with `Retry-After`.
    pub fn html_429(retry_after: Option<&str>) -> Reply {
        let mut headers = vec![("Content-Type".to_owned(), "text/html".to_owned())];
        if let Some(r) = retry_after {
            headers.push(("Retry-After".into(), r.into()));
        }
        let body = "<!DOCTYPE html><html><head><title>lichess.org - too many requests</title></head>\
                    <body>Your network has sent too many requests to lichess.</body></html>";
        Reply::Full { status: 429, headers, body: body.into() }
    }

    /// A stream of these lines (each gets its `\n`), sent as one chunk each.
    pub fn lines(lines: &[&str]) -> Reply {
        Reply::Stream(lines.iter().map(|l| Step::Data(format!("{l}\n"))).collect())
    }

    /// Plays the reply on the connection. Whole responses close the connection, so every
    /// request of the client opens a new one.
    fn play(self, exchange: &mut Exchange<'_>) {
        match self {
            Reply::Full { status, headers, body } => exchange.respond_and_close(&Response { status, headers, body }),
            Reply::Hangup => exchange.hang_up(),
            Reply::Silence => exchange.hold(),
            Reply::Stream(steps) => {
                let Ok(mut writer) = exchange.stream("application/x-ndjson") else { return };
                for step in steps {
                    match step {
                        Step::Data(data) => {
                            if writer.chunk(&data).is_err() {
                                return;
                            }
                        }
                        Step::Sleep(duration) => {
                            if !writer.pause(duration) {
                                return;
                            }
                        }
                        Step::Stall => {
                            writer.hold();
                            return;
                        }
                        Step::Break => {
                            writer.break_off();
                            return;
                        }
                    }
                }
                let _ = writer.finish();
            }
        }
    }
}

/// The fake server.
pub struct FakeServer {
    server: Server,
}

impl FakeServer {
    /// Starts a server; `handler` gets each request and its 0-based index.
    pub fn start(handler: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static) -> FakeServer {
        let server = Server::start("fake-lichess-client", move |request, exchange| {
            handler(request, exchange.index()).play(exchange);
        })
        .expect("start the test server on 127.0.0.1");
        FakeServer { server }
    }

    /// The base URL.
    pub fn url(&self) -> String {
        self.server.url()
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.server.recorded().into_iter().map(|r| r.request).collect()
    }

    /// How many requests so far.
    pub fn count(&self) -> usize {
        self.server.request_count()
    }

    /// A Lichess client for this server with test-speed timing.
    pub fn client(&self) -> Client {
        Client::new(self.config(Platform::Lichess)).unwrap()
    }

    /// The test configuration: fast retries, a 300 ms watchdog.
    pub fn config(&self, platform: Platform) -> ClientConfig {
        let mut config = ClientConfig::new(self.url(), Token::new(TOKEN));
        config.username = Some("FerzBot".into());
        config.platform = platform;
        config.request_timeout = Duration::from_secs(3);
        config.idle_timeout = Duration::from_millis(300);
        config.retry = RetryPolicy {
            max_retries: 3,
            initial_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(20),
        };
        config
    }
}

/// A fixture from `tests/data`, as one line.
pub fn fixture(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value.to_string()
}
