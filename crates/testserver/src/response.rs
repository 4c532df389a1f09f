//! Writing answers: whole responses, and chunked streams written chunk by chunk.

use std::io::{self, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

use crate::signal::Signal;

/// A whole response, sent with `Content-Length`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// Headers as sent, `Content-Type` among them if any (`Content-Length` and `Connection` are
    /// the server's).
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

impl Response {
    /// A response with this content type and body.
    pub fn new(status: u16, content_type: &str, body: impl Into<String>) -> Response {
        Response { status, headers: vec![("Content-Type".into(), content_type.into())], body: body.into() }
    }

    /// A JSON response.
    pub fn json(status: u16, body: impl ToString) -> Response {
        Response::new(status, "application/json", body.to_string())
    }

    /// `{"error": message}` with `status`, as Lichess words its errors.
    pub fn error(status: u16, message: &str) -> Response {
        Response::json(status, serde_json::json!({ "error": message }))
    }

    /// `200 {"ok":true}`.
    pub fn ok() -> Response {
        Response::json(200, r#"{"ok":true}"#)
    }

    /// Adds a header.
    #[must_use]
    pub fn header(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Writes the response; `close` announces that the connection closes after it.
    pub(crate) fn write_to(&self, out: &mut impl Write, close: bool) -> io::Result<()> {
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\n", self.body.len()));
        if close {
            head.push_str("Connection: close\r\n");
        }
        head.push_str("\r\n");
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(self.body.as_bytes());
        out.write_all(&bytes)?;
        out.flush()
    }
}

/// The reason phrase of a status (clients ignore it; people reading a capture do not).
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        409 => "Conflict",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

/// A `200` chunked stream being written; the connection closes after it.
///
/// Every way of ending it takes the writer: [`finish`](Self::finish) ends the body cleanly,
/// [`break_off`](Self::break_off) and [`cut_mid_chunk`](Self::cut_mid_chunk) close the connection
/// with the body unfinished, [`hold`](Self::hold) keeps it open and silent until the server
/// stops. Dropping the writer closes the connection without the last chunk.
pub struct ChunkedWriter<'a> {
    socket: &'a mut TcpStream,
    stop: &'a Signal,
}

impl<'a> ChunkedWriter<'a> {
    /// Writes the head of a chunked `200` with this content type.
    pub(crate) fn start(socket: &'a mut TcpStream, stop: &'a Signal, content_type: &str) -> io::Result<Self> {
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n\
             Cache-Control: no-cache\r\nConnection: close\r\n\r\n"
        );
        socket.write_all(head.as_bytes())?;
        socket.flush()?;
        Ok(ChunkedWriter { socket, stop })
    }

    /// Sends `data` as one chunk (nothing if it is empty: an empty chunk would end the body).
    ///
    /// # Errors
    /// If the peer is gone or does not read for the socket's write timeout.
    pub fn chunk(&mut self, data: &str) -> io::Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let chunk = format!("{:x}\r\n{data}\r\n", data.len());
        self.socket.write_all(chunk.as_bytes())?;
        self.socket.flush()
    }

    /// Waits `duration` without writing; `false` if the server stopped meanwhile.
    pub fn pause(&self, duration: Duration) -> bool {
        self.stop.sleep(duration)
    }

    /// Whether the server is stopping (a long-running writer should end).
    pub fn stopping(&self) -> bool {
        self.stop.is_set()
    }

    /// Ends the body cleanly with the last chunk and closes the connection.
    ///
    /// # Errors
    /// If the peer is gone.
    pub fn finish(self) -> io::Result<()> {
        self.socket.write_all(b"0\r\n\r\n")?;
        self.socket.flush()?;
        let _ = self.socket.shutdown(Shutdown::Write);
        Ok(())
    }

    /// Closes the connection between two chunks, without the last chunk.
    pub fn break_off(self) {
        let _ = self.socket.shutdown(Shutdown::Both);
    }

    /// Announces a chunk longer than `partial`, sends `partial`, and closes the connection: the
    /// peer sees a body cut in the middle of a chunk.
    pub fn cut_mid_chunk(self, partial: &str) {
        let _ = write!(self.socket, "{:x}\r\n{partial}", partial.len() + 16);
        let _ = self.socket.flush();
        let _ = self.socket.shutdown(Shutdown::Both);
    }

    /// Sends nothing more and keeps the connection open until the server stops: a stream that
    /// went silent.
    pub fn hold(self) {
        self.stop.wait();
    }
}
