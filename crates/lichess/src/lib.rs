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
//! - [`Client::tablebase_standard`]: the Lichess tablebase server (a service beside the Bot
//!   API: no token, the same 429 rule).
//! - The token is never shown: [`Token`]'s `Debug` redacts it and error bodies are scrubbed.
//!
//! The event loop a bot builds on it:
//!
//! ```no_run
//! use ferz_lichess::{Backoff, Client, ClientConfig, Error, Event, RetryPolicy, StreamItem, Token};
//! use futures_util::StreamExt;
//!
//! # async fn run() -> Result<(), Error> {
//! let token = Token::new(std::env::var("LICHESS_BOT_TOKEN").unwrap_or_default());
//! let mut config = ClientConfig::new("https://lichess.org", token);
//! config.username = Some("MyBot".into());
//! let client = Client::new(config)?;
//! let mut backoff = Backoff::new(RetryPolicy::default());
//! loop {
//!     // Opens are rate-limited inside the client; a 429 tells how long to wait.
//!     let mut events = match client.stream_events().await {
//!         Ok(events) => events,
//!         Err(e) => {
//!             let wait = e.retry_after().unwrap_or_else(|| backoff.next_delay());
//!             tokio::time::sleep(wait).await;
//!             continue;
//!         }
//!     };
//!     while let Some(item) = events.next().await {
//!         match item {
//!             Ok(StreamItem::KeepAlive) => {} // alive: a good moment for timers
//!             Ok(StreamItem::Message(Event::GameStart(game))) => {
//!                 backoff.reset();
//!                 // Start a task for this game unless one runs already (the stream replays
//!                 // ongoing games after every reconnect).
//!                 let _game_id = game.id();
//!             }
//!             Ok(StreamItem::Message(_)) => {}
//!             Err(e) if !e.ends_stream() => {} // one bad line: log it, read on
//!             Err(_) => break,                 // silent or broken: reconnect
//!         }
//!     }
//!     tokio::time::sleep(backoff.next_delay()).await;
//! }
//! # }
//! ```

mod client;
mod config;
mod endpoint;
mod error;
pub mod models;
mod platform;
mod policy;
mod stream;
mod tablebase;
mod token;

pub use client::Client;
pub use config::ClientConfig;
pub use endpoint::Endpoint;
pub use error::Error;
pub use models::{
    Challenge, ChallengeRequest, ChallengeTime, ChatRoom, Color, DeclineReason, Event, GameEvent, GameEventInfo,
    GameFull, GameRecord, GameState, GameStatus,
};
pub use platform::Platform;
pub use policy::{Backoff, ReconnectLimiter, RetryPolicy};
pub use stream::{EventStream, GameStream, NdjsonStream, StreamItem};
pub use tablebase::{Category, TablebaseAnswer, TablebaseMove};
pub use token::{REDACTED, Token};
