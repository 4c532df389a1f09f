//! Client configuration: where to connect, as whom, and the timing policy.

use std::time::Duration;

use crate::platform::Platform;
use crate::policy::RetryPolicy;
use crate::token::Token;

/// Everything a [`crate::Client`] needs. `Debug` shows the token as `<redacted>`.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Server root, e.g. `https://lichess.org` (a path prefix is kept).
    pub base_url: String,
    /// The account's API token.
    pub token: Token,
    /// The account name, for the `User-Agent` (`ferz/<version> user:<name>`). Lichess asks for
    /// it and de-duplicates game streams per User-Agent, so keep it the same for a whole run.
    pub username: Option<String>,
    /// Lichess or PyChess.
    pub platform: Platform,
    /// Variants announced to PyChess in `X-PyChess-Bot-Capabilities` (ignored on Lichess).
    pub pychess_variants: Vec<String>,
    /// Timeout of a whole ordinary request (not of streams).
    pub request_timeout: Duration,
    /// Timeout of establishing a connection.
    pub connect_timeout: Duration,
    /// The stream watchdog: no byte for this long ends a stream with [`crate::Error::Idle`].
    /// Lichess sends a keep-alive every 6–7 s.
    pub idle_timeout: Duration,
    /// Retries of 5xx answers and network errors.
    pub retry: RetryPolicy,
    /// How long a 429 without `Retry-After` holds its endpoint (Lichess: "waiting one minute
    /// … will be sufficient").
    pub rate_limit_hold: Duration,
    /// At most this many event-stream opens per `reconnect_window`.
    pub max_reconnects: usize,
    /// The window of `max_reconnects` (Lichess allows 30 per 10 minutes).
    pub reconnect_window: Duration,
}

impl ClientConfig {
    /// The defaults for `base_url` and `token`.
    pub fn new(base_url: impl Into<String>, token: Token) -> Self {
        ClientConfig {
            base_url: base_url.into(),
            token,
            username: None,
            platform: Platform::Lichess,
            pychess_variants: ["chess", "chess960", "shatranj"].map(str::to_owned).to_vec(),
            request_timeout: Duration::from_secs(15),
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(20),
            retry: RetryPolicy::default(),
            rate_limit_hold: Duration::from_secs(60),
            max_reconnects: 25,
            reconnect_window: Duration::from_secs(600),
        }
    }

    /// The `User-Agent` header value.
    pub fn user_agent(&self) -> String {
        let version = env!("CARGO_PKG_VERSION");
        match &self.username {
            Some(name) => format!("ferz/{version} user:{name}"),
            None => format!("ferz/{version}"),
        }
    }
}
