//! A scriptable HTTP/1.1 server on 127.0.0.1 standing in for Lichess: it records every request
//! and answers from a handler, with whole responses, chunked ndjson streams that can pause,
//! stall or break, and connections dropped before any answer.

#![allow(dead_code)] // each test file uses a different part

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferz_lichess::{Client, ClientConfig, Platform, RetryPolicy, Token};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The token every test client uses.
pub const TOKEN: &str = "lip_FakeToken_0123456789";

/// A request as the server saw it.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The raw query string (`""` if none).
    pub query: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: String,
}

impl Request {
    /// A header by (lower-case) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The url-decoded form body.
    pub fn form(&self) -> Vec<(String, String)> {
        decode_pairs(&self.body)
    }

    /// The url-decoded query.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        decode_pairs(&self.query)
    }
}

fn decode_pairs(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap();
                out.push(u8::from_str_radix(hex, 16).unwrap());
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

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
}

type Handler = dyn Fn(&Request, usize) -> Reply + Send + Sync;

/// The fake server.
pub struct FakeServer {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Request>>>,
    task: tokio::task::JoinHandle<()>,
}

impl FakeServer {
    /// Starts a server; `handler` gets each request and its 0-based index.
    pub async fn start(handler: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let log = Arc::clone(&requests);
        let task = tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else { return };
                let handler = Arc::clone(&handler);
                let log = Arc::clone(&log);
                tokio::spawn(async move { serve(socket, handler, log).await });
            }
        });
        FakeServer { addr, requests, task }
    }

    /// The base URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// How many requests so far.
    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
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

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(mut socket: TcpStream, handler: Arc<Handler>, log: Arc<Mutex<Vec<Request>>>) {
    let Some(request) = read_request(&mut socket).await else { return };
    let index = {
        let mut log = log.lock().unwrap();
        log.push(request.clone());
        log.len() - 1
    };
    match handler(&request, index) {
        Reply::Hangup => {}
        Reply::Silence => std::future::pending::<()>().await,
        Reply::Full { status, headers, body } => {
            let mut head = format!("HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
            for (name, value) in headers {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
            let _ = socket.shutdown().await;
        }
        Reply::Stream(steps) => {
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\
                        Connection: close\r\n\r\n";
            if socket.write_all(head.as_bytes()).await.is_err() {
                return;
            }
            for step in steps {
                match step {
                    Step::Data(data) => {
                        let chunk = format!("{:x}\r\n{data}\r\n", data.len());
                        if socket.write_all(chunk.as_bytes()).await.is_err() {
                            return;
                        }
                        let _ = socket.flush().await;
                    }
                    Step::Sleep(d) => tokio::time::sleep(d).await,
                    Step::Stall => std::future::pending::<()>().await,
                    Step::Break => return,
                }
            }
            let _ = socket.write_all(b"0\r\n\r\n").await;
            let _ = socket.shutdown().await;
        }
    }
}

async fn read_request(socket: &mut TcpStream) -> Option<Request> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_owned();
    let target = first.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize =
        headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    Some(Request {
        method,
        path: path.to_owned(),
        query: query.to_owned(),
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// A fixture from `tests/data`, as one line.
pub fn fixture(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value.to_string()
}
