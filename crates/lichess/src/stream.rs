//! ndjson streams: line splitting across chunks, keep-alive ticks and the idle watchdog.

use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use serde_json::Value;

use crate::endpoint::Endpoint;
use crate::error::{Error, truncate_body};
use crate::models::{Event, GameEvent};
use crate::platform::Platform;
use crate::token::Token;

/// A line longer than this is dropped with a decode error instead of growing the buffer
/// without bound (a real message is a few KiB at most).
const MAX_LINE: usize = 1 << 20;

/// One item of an ndjson stream.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamItem<T> {
    /// The server's keep-alive (an empty line; `{"type":"ping"}` on PyChess). The stream is
    /// alive; a bot can use the tick to run its timers.
    KeepAlive,
    /// A message.
    Message(T),
}

/// A message type that can arrive on an ndjson stream.
pub(crate) trait StreamMessage: Sized + Send + 'static {
    /// Decodes one JSON line, rewriting the platform's dialect first; `Ok(None)` for a JSON
    /// keep-alive.
    fn decode(platform: Platform, value: Value) -> Result<Option<Self>, serde_json::Error>;
}

impl StreamMessage for Event {
    fn decode(platform: Platform, mut value: Value) -> Result<Option<Self>, serde_json::Error> {
        platform.normalize_event(&mut value);
        Event::from_value(value)
    }
}

impl StreamMessage for GameEvent {
    fn decode(platform: Platform, mut value: Value) -> Result<Option<Self>, serde_json::Error> {
        platform.normalize_game(&mut value);
        GameEvent::from_value(value)
    }
}

type BoxedItems<T> = Pin<Box<dyn Stream<Item = Result<StreamItem<T>, Error>> + Send>>;

/// A live ndjson stream.
///
/// Items are `Ok(KeepAlive)`, `Ok(Message(_))`, or `Err(_)`. An `Err(Error::Decode { .. })` is
/// one bad line and the stream goes on; any other error ([`Error::Idle`] when the server was
/// silent for the idle timeout, [`Error::Network`] when the connection broke) is the last item.
/// A stream that simply ends was closed by the server: for the event stream, reconnect; for a
/// game stream, the game is over or the stream should be reopened.
pub struct NdjsonStream<T> {
    inner: BoxedItems<T>,
}

/// The incoming event stream.
pub type EventStream = NdjsonStream<Event>;
/// A bot game stream.
pub type GameStream = NdjsonStream<GameEvent>;

impl<T> fmt::Debug for NdjsonStream<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NdjsonStream").finish_non_exhaustive()
    }
}

impl<T> Stream for NdjsonStream<T> {
    type Item = Result<StreamItem<T>, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.as_mut().poll_next(cx)
    }
}

/// Everything the line decoder needs besides the bytes.
#[derive(Clone)]
pub(crate) struct LineContext {
    pub(crate) endpoint: Endpoint,
    pub(crate) platform: Platform,
    pub(crate) token: Token,
}

impl LineContext {
    /// Decodes one line (without its `\n`).
    fn decode<T: StreamMessage>(&self, line: &[u8]) -> Result<StreamItem<T>, Error> {
        let text = String::from_utf8_lossy(line);
        let text = text.trim();
        if text.is_empty() {
            return Ok(StreamItem::KeepAlive);
        }
        let decoded = serde_json::from_str::<Value>(text).and_then(|v| T::decode(self.platform, v));
        match decoded {
            Ok(Some(message)) => Ok(StreamItem::Message(message)),
            Ok(None) => Ok(StreamItem::KeepAlive),
            Err(e) => Err(Error::Decode {
                endpoint: self.endpoint,
                message: e.to_string(),
                body: truncate_body(self.token.redact(text)),
            }),
        }
    }
}

/// Splits a byte stream into lines and decodes them; `idle` is the watchdog: no byte for that
/// long ends the stream with [`Error::Idle`]. Any byte counts as life, even half a line.
pub(crate) fn ndjson<T, S>(body: S, ctx: LineContext, idle: Duration) -> NdjsonStream<T>
where
    T: StreamMessage,
    S: Stream<Item = reqwest::Result<Bytes>> + Send + 'static,
{
    struct State<T> {
        body: Pin<Box<dyn Stream<Item = reqwest::Result<Bytes>> + Send>>,
        ctx: LineContext,
        idle: Duration,
        buf: Vec<u8>,
        /// Inside an over-long line: drop bytes until its end.
        discarding: bool,
        ready: VecDeque<Result<StreamItem<T>, Error>>,
        done: bool,
    }

    impl<T: StreamMessage> State<T> {
        fn push_bytes(&mut self, bytes: &[u8]) {
            self.buf.extend_from_slice(bytes);
            let mut start = 0;
            while let Some(pos) = self.buf[start..].iter().position(|&b| b == b'\n') {
                let end = start + pos;
                if self.discarding {
                    self.discarding = false;
                } else {
                    let item = self.ctx.decode(&self.buf[start..end]);
                    self.ready.push_back(item);
                }
                start = end + 1;
            }
            self.buf.drain(..start);
            if self.buf.len() > MAX_LINE {
                if !self.discarding {
                    self.ready.push_back(Err(Error::Decode {
                        endpoint: self.ctx.endpoint,
                        message: format!("line longer than {MAX_LINE} bytes"),
                        body: String::new(),
                    }));
                }
                self.buf.clear();
                self.discarding = true;
            }
        }
    }

    let state = State::<T> {
        body: Box::pin(body),
        ctx,
        idle,
        buf: Vec::new(),
        discarding: false,
        ready: VecDeque::new(),
        done: false,
    };

    let items = futures_util::stream::unfold(state, |mut st| async move {
        loop {
            if let Some(item) = st.ready.pop_front() {
                return Some((item, st));
            }
            if st.done {
                return None;
            }
            match tokio::time::timeout(st.idle, st.body.next()).await {
                Err(_) => {
                    st.done = true;
                    tracing::warn!(endpoint = %st.ctx.endpoint, idle_ms = st.idle.as_millis() as u64, "stream silent; giving up on it");
                    st.ready.push_back(Err(Error::Idle { endpoint: st.ctx.endpoint, idle: st.idle }));
                }
                Ok(None) => {
                    st.done = true;
                    // A last line without its newline is still a whole message.
                    if !st.discarding && !st.buf.iter().all(u8::is_ascii_whitespace) {
                        let line = std::mem::take(&mut st.buf);
                        let item = st.ctx.decode(&line);
                        st.ready.push_back(item);
                    }
                    tracing::debug!(endpoint = %st.ctx.endpoint, "stream closed by the server");
                }
                Ok(Some(Err(source))) => {
                    // A partial line before a broken connection is truncated: drop it.
                    st.done = true;
                    tracing::warn!(endpoint = %st.ctx.endpoint, error = %source, "stream broken");
                    st.ready.push_back(Err(Error::Network { endpoint: st.ctx.endpoint, source }));
                }
                Ok(Some(Ok(bytes))) => st.push_bytes(&bytes),
            }
        }
    });
    NdjsonStream { inner: Box::pin(items) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> LineContext {
        LineContext { endpoint: Endpoint::EventStream, platform: Platform::Lichess, token: Token::new("lip_secret") }
    }

    fn chunks(parts: &[&str]) -> impl Stream<Item = reqwest::Result<Bytes>> + Send + 'static {
        let parts: Vec<reqwest::Result<Bytes>> = parts.iter().map(|p| Ok(Bytes::from(p.to_string()))).collect();
        futures_util::stream::iter(parts)
    }

    #[tokio::test]
    async fn lines_split_across_chunks_and_keep_alives() {
        let body = chunks(&[
            "\n{\"type\":\"gameSt",
            "art\",\"game\":{\"id\":\"abc\"}}\n\n",
            "{\"type\":\"ping\"}\r\n{\"type\":\"newThing\",\"x\":1}\n",
            "not json\n",
            "{\"type\":\"gameFinish\",\"game\":{\"gameId\":\"abc\"}}",
        ]);
        let items: Vec<_> = ndjson::<Event, _>(body, ctx(), Duration::from_secs(5)).collect().await;
        assert_eq!(items.len(), 7, "{items:?}");
        assert!(matches!(items[0], Ok(StreamItem::KeepAlive)));
        assert!(matches!(&items[1], Ok(StreamItem::Message(Event::GameStart(g))) if g.id() == "abc"));
        assert!(matches!(items[2], Ok(StreamItem::KeepAlive)));
        assert!(matches!(items[3], Ok(StreamItem::KeepAlive)), "JSON ping is a keep-alive");
        assert!(matches!(&items[4], Ok(StreamItem::Message(Event::Unknown { kind, .. })) if kind == "newThing"));
        assert!(matches!(&items[5], Err(e @ Error::Decode { .. }) if !e.ends_stream()));
        assert!(matches!(&items[6], Ok(StreamItem::Message(Event::GameFinish(g))) if g.id() == "abc"));
    }

    #[tokio::test]
    async fn over_long_line_is_dropped_and_the_stream_goes_on() {
        let long = "x".repeat(MAX_LINE + 10);
        let body = chunks(&[&long, "still the long line\n", "\n"]);
        let items: Vec<_> = ndjson::<Event, _>(body, ctx(), Duration::from_secs(5)).collect().await;
        assert_eq!(items.len(), 2, "{items:?}");
        assert!(matches!(&items[0], Err(Error::Decode { .. })));
        assert!(matches!(items[1], Ok(StreamItem::KeepAlive)));
    }

    #[tokio::test]
    async fn decode_errors_never_show_the_token() {
        let body = chunks(&["{\"lip_secret\": oops}\n"]);
        let items: Vec<_> = ndjson::<Event, _>(body, ctx(), Duration::from_secs(5)).collect().await;
        let err = items[0].as_ref().unwrap_err();
        assert!(!format!("{err} {err:?}").contains("lip_secret"));
    }

    #[tokio::test(start_paused = true)]
    async fn silent_stream_ends_with_idle() {
        let body = chunks(&["\n"]).chain(futures_util::stream::pending());
        let start = tokio::time::Instant::now();
        let items: Vec<_> = ndjson::<Event, _>(body, ctx(), Duration::from_secs(20)).collect().await;
        assert_eq!(items.len(), 2);
        assert!(matches!(items[1], Err(Error::Idle { endpoint: Endpoint::EventStream, .. })));
        assert_eq!(start.elapsed(), Duration::from_secs(20));
    }
}
