//! Reading requests from a connection: the head, then a body by `Content-Length` or chunked.

use std::io::{self, Read};
use std::time::Instant;

use crate::request::Request;
use crate::signal::Signal;

/// The longest request head accepted (request line and headers), in bytes.
pub const MAX_HEAD: usize = 64 * 1024;
/// The longest request body accepted, in bytes.
pub const MAX_BODY: usize = 1024 * 1024;

/// Why no request could be read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ReadError {
    /// The peer closed the connection, the server stops, or the socket failed.
    Closed,
    /// The bytes are not a request we accept: answer 400 with this reason and close.
    Malformed(&'static str),
}

/// The reading side of a connection: the source and the bytes read past the last request.
pub(crate) struct Conn<S> {
    source: S,
    buf: Vec<u8>,
}

impl<S: Read> Conn<S> {
    /// Reads from `source`. A source with a read timeout lets a blocked read notice the stop
    /// signal: timeouts are retried after checking it.
    pub(crate) fn new(source: S) -> Conn<S> {
        Conn { source, buf: Vec::new() }
    }

    /// The source, to answer on.
    pub(crate) fn source_mut(&mut self) -> &mut S {
        &mut self.source
    }

    /// Reads more bytes into the buffer.
    fn fill(&mut self, stop: &Signal) -> Result<(), ReadError> {
        let mut chunk = [0u8; 8192];
        loop {
            if stop.is_set() {
                return Err(ReadError::Closed);
            }
            match self.source.read(&mut chunk) {
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
    fn take(&mut self, n: usize, stop: &Signal) -> Result<Vec<u8>, ReadError> {
        while self.buf.len() < n {
            self.fill(stop)?;
        }
        Ok(self.buf.drain(..n).collect())
    }

    /// Takes one CRLF-terminated line, without the CRLF.
    fn line(&mut self, stop: &Signal) -> Result<Vec<u8>, ReadError> {
        loop {
            if let Some(pos) = self.buf.windows(2).position(|w| w == b"\r\n") {
                return Ok(self.buf.drain(..pos + 2).take(pos).collect());
            }
            if self.buf.len() > MAX_HEAD {
                return Err(ReadError::Malformed("line too long"));
            }
            self.fill(stop)?;
        }
    }

    /// Reads the next request.
    pub(crate) fn read_request(&mut self, stop: &Signal) -> Result<Request, ReadError> {
        let head_end = loop {
            // Stray blank lines between requests are allowed (RFC 9112, 2.2).
            while self.buf.starts_with(b"\r\n") {
                self.buf.drain(..2);
            }
            if let Some(pos) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break pos;
            }
            if self.buf.len() > MAX_HEAD {
                return Err(ReadError::Malformed("request head too long"));
            }
            self.fill(stop)?;
        };
        if head_end > MAX_HEAD {
            return Err(ReadError::Malformed("request head too long"));
        }
        let at = Instant::now();
        let head_bytes: Vec<u8> = self.buf.drain(..head_end + 4).take(head_end).collect();
        let head = String::from_utf8_lossy(&head_bytes);
        let mut lines = head.split("\r\n");
        let mut parts = lines.next().unwrap_or("").split(' ');
        let (Some(method), Some(target), Some(version), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
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
        let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        let chunked = header("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
        let body = if chunked {
            self.read_chunked_body(stop)?
        } else {
            let length = match header("content-length") {
                None => 0,
                Some(v) => v.parse::<usize>().map_err(|_| ReadError::Malformed("bad Content-Length"))?,
            };
            if length > MAX_BODY {
                return Err(ReadError::Malformed("body too large"));
            }
            self.take(length, stop)?
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

    fn read_chunked_body(&mut self, stop: &Signal) -> Result<Vec<u8>, ReadError> {
        let mut body = Vec::new();
        loop {
            let size_line = self.line(stop)?;
            let size_text = String::from_utf8_lossy(&size_line);
            // Chunk extensions (`;name=value`) carry nothing a Bot API client sends.
            let size_text = size_text.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size_text, 16).map_err(|_| ReadError::Malformed("bad chunk size"))?;
            if size == 0 {
                // Trailers, up to the empty line.
                while !self.line(stop)?.is_empty() {}
                return Ok(body);
            }
            if size > MAX_BODY || body.len() + size > MAX_BODY {
                return Err(ReadError::Malformed("body too large"));
            }
            body.extend(self.take(size, stop)?);
            if !self.line(stop)?.is_empty() {
                return Err(ReadError::Malformed("bad chunk end"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: &[u8]) -> Vec<Result<Request, ReadError>> {
        let stop = Signal::default();
        let mut conn = Conn::new(bytes);
        let mut out = Vec::new();
        loop {
            let result = conn.read_request(&stop);
            let last = result.is_err();
            out.push(result);
            if last {
                return out;
            }
        }
    }

    fn one(bytes: &[u8]) -> Result<Request, ReadError> {
        read_all(bytes).remove(0)
    }

    #[test]
    fn a_request_with_query_headers_and_a_content_length_body() {
        let r = one(b"POST /api/bot/game/abc/move/e2e4?offeringDraw=true HTTP/1.1\r\nHost: x\r\n\
                      Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 11\r\n\r\nreason=late")
        .unwrap();
        assert_eq!(
            (r.method.as_str(), r.path.as_str(), r.query.as_str()),
            ("POST", "/api/bot/game/abc/move/e2e4", "offeringDraw=true")
        );
        assert_eq!(r.header("content-type"), Some("application/x-www-form-urlencoded"));
        assert_eq!(r.header("host"), Some("x"));
        assert_eq!(r.body, "reason=late");
    }

    #[test]
    fn a_chunked_body_with_an_extension_and_trailers() {
        let r = one(b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\
                      5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: y\r\n\r\n")
        .unwrap();
        assert_eq!(r.body, "hello, world");
    }

    #[test]
    fn bad_chunks_are_malformed() {
        let bad_size = b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n";
        assert_eq!(one(bad_size).unwrap_err(), ReadError::Malformed("bad chunk size"));
        let bad_end = b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhello\r\n0\r\n\r\n";
        assert_eq!(one(bad_end).unwrap_err(), ReadError::Malformed("bad chunk end"));
        let huge = b"POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nfffffff\r\n";
        assert_eq!(one(huge).unwrap_err(), ReadError::Malformed("body too large"));
    }

    #[test]
    fn two_requests_on_one_connection_then_the_close() {
        let results = read_all(
            b"POST /a HTTP/1.1\r\nContent-Length: 3\r\n\r\none\
              \r\nGET /b?q=1 HTTP/1.1\r\nConnection: close\r\n\r\n",
        );
        assert_eq!(results.len(), 3);
        let (a, b) = (results[0].as_ref().unwrap(), results[1].as_ref().unwrap());
        assert_eq!((a.path.as_str(), a.body.as_str()), ("/a", "one"));
        assert_eq!((b.path.as_str(), b.query.as_str(), b.body.as_str()), ("/b", "q=1", ""));
        assert!(a.keeps_alive() && !b.keeps_alive());
        assert_eq!(results[2].as_ref().unwrap_err(), &ReadError::Closed);
    }

    #[test]
    fn a_head_over_the_limit_is_malformed() {
        let mut bytes = b"GET / HTTP/1.1\r\nX-Big: ".to_vec();
        bytes.extend(std::iter::repeat_n(b'a', MAX_HEAD));
        bytes.extend_from_slice(b"\r\n\r\n");
        assert_eq!(one(&bytes).unwrap_err(), ReadError::Malformed("request head too long"));
        // Just under the limit is fine.
        let mut bytes = b"GET / HTTP/1.1\r\nX-Big: ".to_vec();
        bytes.extend(std::iter::repeat_n(b'a', MAX_HEAD - 100));
        bytes.extend_from_slice(b"\r\n\r\n");
        assert_eq!(one(&bytes).unwrap().header("x-big").map(str::len), Some(MAX_HEAD - 100));
    }

    #[test]
    fn malformed_request_lines_and_headers() {
        for bytes in [
            &b"NONSENSE\r\n\r\n"[..],
            b"GET /\r\n\r\n",
            b"GET / SPDY/3\r\n\r\n",
            b"GET http://x/ HTTP/1.1\r\n\r\n",
            b"GET / HTTP/1.1 extra\r\n\r\n",
        ] {
            assert_eq!(one(bytes).unwrap_err(), ReadError::Malformed("bad request line"), "{bytes:?}");
        }
        assert_eq!(one(b"GET / HTTP/1.1\r\nno colon\r\n\r\n").unwrap_err(), ReadError::Malformed("bad header line"));
        assert_eq!(
            one(b"POST / HTTP/1.1\r\nContent-Length: ten\r\n\r\n").unwrap_err(),
            ReadError::Malformed("bad Content-Length")
        );
        let too_long = format!("POST / HTTP/1.1\r\nContent-Length: {}\r\n\r\n", MAX_BODY + 1);
        assert_eq!(one(too_long.as_bytes()).unwrap_err(), ReadError::Malformed("body too large"));
    }

    #[test]
    fn a_connection_closed_in_the_middle_is_closed_not_malformed() {
        assert_eq!(one(b"GET / HTTP/1.1\r\nHost:").unwrap_err(), ReadError::Closed);
        assert_eq!(one(b"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc").unwrap_err(), ReadError::Closed);
        assert_eq!(one(b"").unwrap_err(), ReadError::Closed);
    }
}
