//! One HTTP/1.1 test server for ferz's tests: the Lichess client's tests and the fake Lichess
//! that the system tests run the real `ferz bot` against both serve through it.
//!
//! It speaks just enough HTTP/1.1 for a Bot API client, on `127.0.0.1` only:
//!
//! - [`Request`]: requests read from keep-alive connections, bodies by `Content-Length` or
//!   chunked, with percent-decoding of path segments, query and form fields, and JSON fields.
//!   A head over 64 KiB, a body over 1 MiB or a request that is not HTTP/1.x is answered 400 and
//!   the connection closed.
//! - [`Response`]: whole responses with status, headers and body.
//! - [`ChunkedWriter`]: chunked streams written chunk by chunk, which can pause, stall, end
//!   cleanly or break off in the middle of a chunk.
//! - [`Server`]: the accept loop on `127.0.0.1:0`, one thread per connection, a log of every
//!   request and the status it got, and a clean stop when dropped.
//!
//! The model is blocking threads: a handler may block (a stalled stream, a long poll) without
//! holding up other connections, and async tests use the server as they use any other peer.
//!
//! It knows nothing of Lichess or chess: the fake Lichess builds its endpoints on top of it.
//!
//! ```
//! use ferz_testserver::{Response, Server};
//!
//! let server = Server::start("echo", |request, exchange| {
//!     exchange.respond(&Response::json(200, serde_json::json!({ "path": request.path })));
//! })
//! .unwrap();
//! assert!(server.url().starts_with("http://127.0.0.1:"));
//! ```

pub mod oracle;
mod read;
mod request;
mod response;
mod server;
mod signal;

pub use read::{MAX_BODY, MAX_HEAD};
pub use request::{Request, decode_pairs, percent_decode};
pub use response::{ChunkedWriter, Response};
pub use server::{Exchange, Listener, Recorded, Server};
