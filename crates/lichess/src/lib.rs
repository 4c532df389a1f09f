//! A typed client for the Lichess Bot API, and for PyChess's dialect of it.
//!
//! The crate knows HTTP, JSON and the API's rules of conduct, and nothing of chess: moves are
//! UCI strings and positions FEN strings, for the bot to interpret.
//!
//! - [`Client`]: one method per endpoint a bot uses. Every request carries
//!   `Authorization: Bearer <token>` and one stable `User-Agent` (`ferz/<version> user:<name>`).
//! - Streams ([`Client::stream_events`], [`Client::stream_game`]) are [`futures_util::Stream`]s of
//!   [`StreamItem`]s: messages and keep-alive ticks. A watchdog ends a stream that has been silent
//!   for [`ClientConfig::idle_timeout`] with [`Error::Idle`], so the caller reconnects instead of
//!   hanging on a dead socket.
//! - Policy: a 4xx is final; 5xx and network errors are retried with jittered exponential
//!   backoff ([`RetryPolicy`]); a 429 holds its endpoint for `Retry-After` (else 60 s) and
//!   requests to it fail at once with [`Error::RateLimited`] until then; event-stream opens stay
//!   under Lichess's 30 per 10 minutes ([`ReconnectLimiter`]).
//! - Models ([`models`]) ignore unknown fields, default missing optional ones, keep unknown enum
//!   values and unknown message types instead of failing.
//! - [`Platform`] switches the dialect: PyChess's capability header, JSON pings, string flags,
//!   units, and the endpoints it lacks.
//! - The token is never shown: [`Token`]'s `Debug` redacts it and error bodies are scrubbed.

mod client;
mod config;
mod endpoint;
mod error;
pub mod models;
mod platform;
mod policy;
mod stream;
mod token;

pub use client::Client;
pub use config::ClientConfig;
pub use endpoint::Endpoint;
pub use error::Error;
pub use models::{
    Challenge, ChallengeRequest, ChallengeTime, ChatRoom, Color, DeclineReason, Event, GameEvent, GameEventInfo,
    GameFull, GameState, GameStatus,
};
pub use platform::Platform;
pub use policy::{Backoff, ReconnectLimiter, RetryPolicy};
pub use stream::{EventStream, GameStream, NdjsonStream, StreamItem};
pub use token::{REDACTED, Token};
