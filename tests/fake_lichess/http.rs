//! Just enough HTTP/1.1 for a Bot API client: requests on keep-alive connections (bodies by
//! `Content-Length` or chunked), whole responses with `Content-Length`, and chunked ndjson
//! streams.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The longest request head accepted.
const MAX_HEAD: usize = 64 * 1024;
/// The longest request body accepted.
const MAX_BODY: usize = 1024 * 1024;

/// A parsed request.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub(crate) method: String,
    /// The path as sent (still percent-encoded).
    pub(crate) path: String,
    /// The raw query string, `""` if none.
    pub(crate) query: String,
    /// Headers with lower-cased names.
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
    /// When the head arrived.
    pub(crate) at: Instant,
}

impl Request {
    /// A header by lower-case name.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The path split into percent-decoded segments (empty segments dropped).
    pub(crate) fn segments(&self) -> Vec<String> {
        self.path.split('/').filter(|s| !s.is_empty()).map(percent_decode).collect()
    }

    /// A query parameter, decoded.
    pub(crate) fn query_param(&self, name: &str) -> Option<String> {
        decode_pairs(&self.query).into_iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// The body's fields: url-encoded form or a JSON object (scalars written as text).
    pub(crate) fn fields(&self) -> Vec<(String, String)> {
        let json =
            self.header("content-type").is_some_and(|t| t.contains("json")) || self.body.trim_start().starts_with('{');
        if json {
            let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(&self.body) else {
                return Vec::new();
            };
            map.into_iter()
                .map(|(k, v)| {
                    let text = match v {
                        serde_json::Value::String(s) => s,
                        other => other.to_string(),
                    };
                    (k, text)
                })
                .collect()
        } else {
            decode_pairs(&self.body)
        }
    }

    /// Whether the client asked to close the connection after this request.
    fn wants_close(&self) -> bool {
        self.header("connection").is_some_and(|c| c.eq_ignore_ascii_case("close"))
    }
}

/// Decodes `a=1&b=x%20y` pairs.
pub(crate) fn decode_pairs(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

/// Decodes `%xx` escapes and `+`; invalid escapes are kept as they are.
pub(crate) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(b) => {
                        out.push(b);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Why no request could be read.
pub(crate) enum ReadError {
    /// The peer closed the connection, the server shuts down, or the socket failed.
    Closed,
    /// The bytes are not an HTTP request we accept; answer 400 and close.
    Malformed(&'static str),
}

/// A connection: the socket and the bytes read past the last request.
pub(crate) struct Conn {
    pub(crate) stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    /// Wraps an accepted socket. Reads time out every 100 ms so that the thread notices a
    /// shutdown; writes give up after 5 s of a peer that does not read.
    pub(crate) fn new(stream: TcpStream) -> Conn {
        let _ = stream.set_read_timeout(Some(std::time::Duration::from_millis(100)));
        let _ = stream.set_write_timeout(Some(std::time::Duration::from_secs(5)));
        let _ = stream.set_nodelay(true);
        Conn { stream, buf: Vec::new() }
    }

    /// Reads more bytes into the buffer; `Closed` on EOF, error or shutdown.
    fn fill(&mut self, shutdown: &AtomicBool) -> Result<(), ReadError> {
        let mut chunk = [0u8; 8192];
        loop {
            if shutdown.load(Ordering::SeqCst) {
                return Err(ReadError::Closed);
            }
            match self.stream.read(&mut chunk) {
                Ok(0) => return Err(ReadError::Closed),
                Ok(n) => {
                    self.buf.extend_from_slice(&chunk[..n]);
                    return Ok(());
                }
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Err(ReadError::Closed),
            }
        }
    }

    /// Takes `n` bytes from the buffer, reading as needed.
    fn take(&mut self, n: usize, shutdown: &AtomicBool) -> Result<Vec<u8>, ReadError> {
        while self.buf.len() < n {
            self.fill(shutdown)?;
        }
        Ok(self.buf.drain(..n).collect())
    }

    /// Takes one CRLF-terminated line (without the CRLF).
    fn line(&mut self, shutdown: &AtomicBool) -> Result<Vec<u8>, ReadError> {
        loop {
            if let Some(pos) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line: Vec<u8> = self.buf.drain(..pos + 2).take(pos).collect();
                return Ok(line);
            }
            if self.buf.len() > MAX_HEAD {
                return Err(ReadError::Malformed("line too long"));
            }
            self.fill(shutdown)?;
        }
    }

    /// Reads the next request.
    pub(crate) fn read_request(&mut self, shutdown: &AtomicBool) -> Result<Request, ReadError> {
        let head_end = loop {
            if let Some(pos) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break pos;
            }
            if self.buf.len() > MAX_HEAD {
                return Err(ReadError::Malformed("request head too long"));
            }
            // Tolerate stray blank lines between requests.
            while self.buf.starts_with(b"\r\n") {
                self.buf.drain(..2);
            }
            self.fill(shutdown)?;
        };
        let at = Instant::now();
        let head_bytes: Vec<u8> = self.buf.drain(..head_end + 4).take(head_end).collect();
        let head = String::from_utf8_lossy(&head_bytes).into_owned();
        let mut lines = head.split("\r\n");
        let first = lines.next().unwrap_or("");
        let mut parts = first.split(' ');
        let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(ReadError::Malformed("bad request line"));
        };
        if !version.starts_with("HTTP/1.") || method.is_empty() || !target.starts_with('/') {
            return Err(ReadError::Malformed("bad request line"));
        }
        let mut headers = Vec::new();
        for line in lines {
            let Some((name, value)) = line.split_once(':') else {
                return Err(ReadError::Malformed("bad header line"));
            };
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
        let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        let chunked = header("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        let body = if chunked {
            self.read_chunked_body(shutdown)?
        } else {
            let length = match header("content-length") {
                None => 0,
                Some(v) => v.parse::<usize>().map_err(|_| ReadError::Malformed("bad Content-Length"))?,
            };
            if length > MAX_BODY {
                return Err(ReadError::Malformed("body too large"));
            }
            self.take(length, shutdown)?
        };
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        Ok(Request {
            method: method.to_owned(),
            path: path.to_owned(),
            query: query.to_owned(),
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
            at,
        })
    }

    fn read_chunked_body(&mut self, shutdown: &AtomicBool) -> Result<Vec<u8>, ReadError> {
        let mut body = Vec::new();
        loop {
            let size_line = self.line(shutdown)?;
            let size_text = String::from_utf8_lossy(&size_line);
            let size_text = size_text.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size_text, 16).map_err(|_| ReadError::Malformed("bad chunk size"))?;
            if size == 0 {
                // Trailers, up to the empty line.
                while !self.line(shutdown)?.is_empty() {}
                return Ok(body);
            }
            if body.len() + size > MAX_BODY {
                return Err(ReadError::Malformed("body too large"));
            }
            body.extend(self.take(size, shutdown)?);
            if !self.line(shutdown)?.is_empty() {
                return Err(ReadError::Malformed("bad chunk end"));
            }
        }
    }
}

/// A whole response.
#[derive(Debug, Clone)]
pub(crate) struct Full {
    pub(crate) status: u16,
    pub(crate) content_type: &'static str,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Full {
    /// A JSON response.
    pub(crate) fn json(status: u16, body: impl ToString) -> Full {
        Full { status, content_type: "application/json", headers: Vec::new(), body: body.to_string() }
    }

    /// `{"error": message}` with `status`.
    pub(crate) fn error(status: u16, message: &str) -> Full {
        Full::json(status, serde_json::json!({ "error": message }))
    }

    /// `200 {"ok":true}`.
    pub(crate) fn ok() -> Full {
        Full::json(200, r#"{"ok":true}"#)
    }
}

/// The reason phrase of a status.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

/// Writes a whole response; `close` adds `Connection: close`.
pub(crate) fn write_full(stream: &mut TcpStream, response: &Full, close: bool) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n",
        response.status,
        reason(response.status),
        response.content_type,
        response.body.len()
    );
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if close {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(response.body.as_bytes());
    stream.write_all(&bytes)?;
    stream.flush()
}

/// Writes the head of a chunked ndjson stream (the connection closes after the stream).
pub(crate) fn write_stream_head(stream: &mut TcpStream) -> io::Result<()> {
    stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\
          Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
    )?;
    stream.flush()
}

/// Writes `data` as one chunk.
pub(crate) fn write_chunk(stream: &mut TcpStream, data: &str) -> io::Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    let chunk = format!("{:x}\r\n{data}\r\n", data.len());
    stream.write_all(chunk.as_bytes())?;
    stream.flush()
}

/// Ends a chunked body cleanly.
pub(crate) fn write_last_chunk(stream: &mut TcpStream) -> io::Result<()> {
    stream.write_all(b"0\r\n\r\n")?;
    stream.flush()
}

/// Cuts a chunked body in the middle of a chunk: announces a chunk, sends part of it, and
/// closes the socket.
pub(crate) fn write_truncated_chunk(stream: &mut TcpStream) {
    let _ = stream.write_all(b"40\r\n{\"type\":\"gameSt");
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// Whether a connection may serve another request after `request`.
pub(crate) fn keep_alive(request: &Request) -> bool {
    !request.wants_close()
}
