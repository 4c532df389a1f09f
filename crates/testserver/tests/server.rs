//! The server over real sockets on 127.0.0.1: answers, keep-alive, streams, the log, the stop.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use ferz_testserver::{MAX_HEAD, Response, Server};

/// Echoes the request as JSON; `/stream` streams three lines, `/cut` breaks off mid-chunk,
/// `/hangup` closes without an answer, `/hold` never answers.
fn echo_server() -> Server {
    Server::start("echo", |request, exchange| match request.path.as_str() {
        "/stream" => {
            let Ok(mut writer) = exchange.stream("application/x-ndjson") else { return };
            for line in ["one\n", "", "two\n"] {
                if writer.chunk(line).is_err() {
                    return;
                }
                writer.pause(Duration::from_millis(20));
            }
            let _ = writer.finish();
        }
        "/cut" => {
            let Ok(mut writer) = exchange.stream("application/x-ndjson") else { return };
            let _ = writer.chunk("whole\n");
            writer.cut_mid_chunk("{\"type\":\"gameSt");
        }
        "/hangup" => exchange.hang_up(),
        "/hold" => exchange.hold(),
        _ => exchange.respond(&Response::json(
            200,
            serde_json::json!({
                "method": request.method,
                "path": request.path,
                "query": request.query,
                "body": request.body,
                "connection": exchange.connection(),
                "index": exchange.index(),
            }),
        )),
    })
    .expect("start the server")
}

fn connect(server: &Server) -> TcpStream {
    let socket = TcpStream::connect(server.addr()).expect("connect");
    socket.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    socket
}

/// Reads one response with a `Content-Length` body: (status, lower-cased head, body).
fn read_response(socket: &mut TcpStream) -> (u16, String, String) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(socket.read(&mut byte).expect("read the head"), 1, "closed in the head: {head:?}");
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap().to_ascii_lowercase();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status");
    let length: usize =
        head.lines().find_map(|l| l.strip_prefix("content-length:")).map_or(0, |v| v.trim().parse().unwrap());
    let mut body = vec![0u8; length];
    socket.read_exact(&mut body).expect("read the body");
    (status, head, String::from_utf8(body).unwrap())
}

/// Everything until the server closes the connection.
fn read_to_close(socket: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let _ = socket.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[test]
fn keep_alive_serves_two_requests_on_one_connection() {
    let server = echo_server();
    let mut socket = connect(&server);
    socket.write_all(b"POST /a?x=1 HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello").unwrap();
    let (status, head, first) = read_response(&mut socket);
    assert_eq!(status, 200);
    assert!(!head.contains("connection: close"), "{head}");
    socket.write_all(b"GET /b HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").unwrap();
    let (status, head, second) = read_response(&mut socket);
    assert_eq!(status, 200);
    assert!(head.contains("connection: close"), "{head}");
    assert_eq!(read_to_close(&mut socket), "", "closed after the request that asked for it");

    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    let second: serde_json::Value = serde_json::from_str(&second).unwrap();
    assert_eq!((&first["path"], &first["query"], &first["body"]), (&"/a".into(), &"x=1".into(), &"hello".into()));
    assert_eq!((&second["method"], &second["index"]), (&"GET".into(), &1.into()));
    assert_eq!(first["connection"], second["connection"], "one connection");

    let log = server.recorded();
    assert_eq!(
        log.iter().map(|r| (r.request.path.as_str(), r.status)).collect::<Vec<_>>(),
        [("/a", Some(200)), ("/b", Some(200))]
    );
    assert_eq!(server.request_count(), 2);
}

#[test]
fn a_chunked_request_body_is_read_whole() {
    let server = echo_server();
    let mut socket = connect(&server);
    socket
        .write_all(b"POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nrate\r\n3\r\nd=1\r\n0\r\n\r\n")
        .unwrap();
    let (status, _, body) = read_response(&mut socket);
    assert_eq!(status, 200);
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["body"], "rated=1");
}

#[test]
fn a_malformed_request_line_is_answered_400_and_the_server_lives_on() {
    let server = echo_server();
    let mut socket = connect(&server);
    socket.write_all(b"NONSENSE\r\n\r\n").unwrap();
    let (status, head, body) = read_response(&mut socket);
    assert_eq!((status, body.as_str()), (400, r#"{"error":"bad request line"}"#));
    assert!(head.contains("connection: close"), "{head}");
    assert_eq!(read_to_close(&mut socket), "");
    assert_eq!(server.request_count(), 0, "nothing to record");

    let mut socket = connect(&server);
    socket.write_all(b"GET /after HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!(read_response(&mut socket).0, 200);
}

#[test]
fn a_head_over_the_size_limit_is_answered_400() {
    let server = echo_server();
    let mut socket = connect(&server);
    let mut request = b"GET / HTTP/1.1\r\nX-Big: ".to_vec();
    request.extend(std::iter::repeat_n(b'a', MAX_HEAD + 10));
    request.extend_from_slice(b"\r\n\r\n");
    socket.write_all(&request).unwrap();
    let (status, _, body) = read_response(&mut socket);
    assert_eq!((status, body.as_str()), (400, r#"{"error":"request head too long"}"#));
}

#[test]
fn streams_pause_finish_and_break_off_mid_chunk() {
    let server = echo_server();
    let mut socket = connect(&server);
    socket.write_all(b"GET /stream HTTP/1.1\r\n\r\n").unwrap();
    let started = Instant::now();
    let all = read_to_close(&mut socket);
    assert!(started.elapsed() >= Duration::from_millis(50), "three pauses of 20 ms");
    let (head, body) = all.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200 OK") && head.contains("Transfer-Encoding: chunked"), "{head}");
    assert!(head.contains("Content-Type: application/x-ndjson"), "{head}");
    assert_eq!(body, "4\r\none\n\r\n4\r\ntwo\n\r\n0\r\n\r\n", "the empty line is not sent: it would end the body");

    let mut socket = connect(&server);
    socket.write_all(b"GET /cut HTTP/1.1\r\n\r\n").unwrap();
    let all = read_to_close(&mut socket);
    let body = all.split_once("\r\n\r\n").unwrap().1;
    assert_eq!(body, "6\r\nwhole\n\r\n1f\r\n{\"type\":\"gameSt", "a chunk of 31 bytes announced, 15 sent");
    let statuses: Vec<_> = server.recorded().iter().map(|r| r.status).collect();
    assert_eq!(statuses, [Some(200), Some(200)]);
}

#[test]
fn hang_up_closes_without_an_answer_and_hold_lasts_until_the_server_stops() {
    let server = echo_server();
    let mut socket = connect(&server);
    socket.write_all(b"GET /hangup HTTP/1.1\r\n\r\n").unwrap();
    assert_eq!(read_to_close(&mut socket), "");

    let mut held = connect(&server);
    held.set_read_timeout(Some(Duration::from_millis(300))).unwrap();
    held.write_all(b"GET /hold HTTP/1.1\r\n\r\n").unwrap();
    let mut byte = [0u8; 1];
    let err = held.read(&mut byte).expect_err("nothing is answered");
    assert!(matches!(err.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut), "{err}");
    let statuses: Vec<_> = server.recorded().iter().map(|r| (r.request.path.clone(), r.status)).collect();
    assert_eq!(statuses, [("/hangup".to_owned(), None), ("/hold".to_owned(), None)]);

    let started = Instant::now();
    drop(server);
    assert!(started.elapsed() < Duration::from_secs(2), "the stop took {:?}", started.elapsed());
    held.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    assert_eq!(held.read(&mut byte).unwrap_or(0), 0, "the held connection is closed");
}
