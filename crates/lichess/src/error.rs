//! Errors of the client: every one names the endpoint, HTTP errors carry status and body.

use std::time::Duration;

use crate::endpoint::Endpoint;
use crate::platform::Platform;

/// The longest response body kept in an error; a 429 from the network edge is a whole HTML page.
pub(crate) const MAX_ERROR_BODY: usize = 2048;

/// Everything that can go wrong talking to the server.
///
/// No variant ever contains the token: bodies are redacted before they are stored.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server answered with a non-success status: a 4xx at once (final), a 5xx after the
    /// retries ran out.
    #[error("{endpoint}: HTTP {status}: {}", escaped(body))]
    Status {
        /// Which endpoint answered.
        endpoint: Endpoint,
        /// The HTTP status code.
        status: u16,
        /// The response body (redacted, cut to about 2 KiB, lossy UTF-8).
        body: String,
    },
    /// HTTP 429, or a request refused locally because an earlier 429 still holds the endpoint.
    #[error("{endpoint}: rate limited, retry in {}s", retry_after.as_secs_f32())]
    RateLimited {
        /// The endpoint that is held.
        endpoint: Endpoint,
        /// How long the endpoint stays held from now.
        retry_after: Duration,
        /// The 429 body (often an HTML page); empty when refused locally.
        body: String,
    },
    /// Connecting, sending or reading failed (after the retries ran out, or mid-stream).
    #[error("{endpoint}: network error: {source}")]
    Network {
        /// The endpoint being called.
        endpoint: Endpoint,
        /// The transport error.
        #[source]
        source: reqwest::Error,
    },
    /// The server was silent (no byte, not even a keep-alive) for longer than the idle timeout.
    /// The stream ends after this item: reconnect.
    #[error("{endpoint}: no data for {}s, connection presumed dead", idle.as_secs_f32())]
    Idle {
        /// The stream that went silent.
        endpoint: Endpoint,
        /// The idle timeout that expired.
        idle: Duration,
    },
    /// A service ([`crate::Client::get_service_json`]) did not answer within the caller's
    /// timeout; the request was dropped.
    #[error("{endpoint}: no answer within {} ms", after.as_millis())]
    Timeout {
        /// The service asked.
        endpoint: Endpoint,
        /// The timeout that expired.
        after: Duration,
    },
    /// A response or stream line is not the JSON the endpoint promises. On a stream this item
    /// is not fatal: the next line is read as usual.
    #[error("{endpoint}: cannot decode response ({}): {}", escaped(message), escaped(body))]
    Decode {
        /// The endpoint that sent it.
        endpoint: Endpoint,
        /// What the JSON parser said.
        message: String,
        /// The offending text (redacted, cut).
        body: String,
    },
    /// The platform (PyChess) does not implement this endpoint; no request was sent.
    #[error("{endpoint} is not available on {platform}")]
    Unsupported {
        /// The endpoint asked for.
        endpoint: Endpoint,
        /// The platform the client talks to.
        platform: Platform,
    },
    /// The client configuration cannot work (bad base URL, header value, TLS setup).
    #[error("invalid client configuration: {0}")]
    Config(String),
}

impl Error {
    /// The endpoint involved, if the error is about one.
    pub fn endpoint(&self) -> Option<Endpoint> {
        match self {
            Error::Status { endpoint, .. }
            | Error::RateLimited { endpoint, .. }
            | Error::Network { endpoint, .. }
            | Error::Idle { endpoint, .. }
            | Error::Timeout { endpoint, .. }
            | Error::Decode { endpoint, .. }
            | Error::Unsupported { endpoint, .. } => Some(*endpoint),
            Error::Config(_) => None,
        }
    }

    /// The HTTP status: the server's for [`Error::Status`], 429 for [`Error::RateLimited`] (also
    /// when refused locally during a hold).
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Status { status, .. } => Some(*status),
            Error::RateLimited { .. } => Some(429),
            _ => None,
        }
    }

    /// How long to wait before calling the endpoint again, for [`Error::RateLimited`].
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Error::RateLimited { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }

    /// The response body, for errors that came with one.
    pub fn body(&self) -> Option<&str> {
        match self {
            Error::Status { body, .. } | Error::RateLimited { body, .. } | Error::Decode { body, .. } => Some(body),
            _ => None,
        }
    }

    /// The `error` field of a Lichess JSON error body (`{"error": "Not your turn, or game
    /// already over"}`), when there is one.
    pub fn api_message(&self) -> Option<String> {
        let body = match self {
            Error::Status { body, .. } | Error::RateLimited { body, .. } => body,
            _ => return None,
        };
        let value: serde_json::Value = serde_json::from_str(body).ok()?;
        value.get("error")?.as_str().map(str::to_owned)
    }

    /// Whether a stream yielding this error has ended (everything but a bad line ends it).
    pub fn ends_stream(&self) -> bool {
        !matches!(self, Error::Decode { .. })
    }

    /// Whether the error is a client error (4xx other than 429): repeating the same request
    /// will fail the same way.
    pub fn is_final(&self) -> bool {
        matches!(self, Error::Status { status, .. } if (400..500).contains(status))
            || matches!(self, Error::Unsupported { .. } | Error::Config(_))
    }
}

/// A server's text as it may be printed: control characters (a newline that would forge a
/// log line, NUL, escape sequences) written as escapes, the rest as it is. Bytes that were not
/// UTF-8 are already U+FFFD (the body is read lossily).
#[must_use]
pub(crate) fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// Cuts a body for an error message, on a character boundary.
pub(crate) fn truncate_body(mut body: String) -> String {
    if body.len() > MAX_ERROR_BODY {
        let mut cut = MAX_ERROR_BODY;
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        body.truncate(cut);
        body.push('…');
    }
    body
}

#[cfg(test)]
mod escape_tests {
    use super::*;

    #[test]
    fn a_servers_body_cannot_forge_log_lines_or_send_control_bytes() {
        let body = String::from_utf8_lossy(b"oops\n2026-01-01 INFO fake line\x00\x1b[31m\xff").into_owned();
        let error = Error::Status { endpoint: Endpoint::Account, status: 500, body };
        let text = error.to_string();
        assert!(!text.chars().any(char::is_control), "{text:?}");
        assert!(text.contains("oops\\n2026-01-01 INFO fake line\\u{0}\\u{1b}[31m\u{fffd}"), "{text:?}");
    }
}
