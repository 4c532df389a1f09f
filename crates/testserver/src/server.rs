//! The accept loop, one thread per connection, the request log, and the stop.

use std::collections::HashMap;
use std::io::{self, Read};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::read::{Conn, ReadError};
use crate::request::Request;
use crate::response::{ChunkedWriter, Response};
use crate::signal::Signal;

/// How often a connection blocked in a read looks at the stop signal.
const READ_POLL: Duration = Duration::from_millis(100);
/// How long a write may wait for a peer that does not read.
const WRITE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a connection answered 400 is drained before it closes, so the peer reads the
/// answer instead of a reset.
const LINGER: Duration = Duration::from_millis(500);

/// A request in the log, with the status it was answered with.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The request.
    pub request: Request,
    /// The status answered: `None` while unanswered, or if the connection was closed or held
    /// without an answer.
    pub status: Option<u16>,
}

type Handler = dyn Fn(&Request, &mut Exchange<'_>) + Send + Sync;

/// What the accept loop and the connection threads share.
struct Inner {
    stop: Signal,
    log: Mutex<Vec<Recorded>>,
    connections: Mutex<Connections>,
}

/// The open connections, to unblock and join them when the server stops.
#[derive(Default)]
struct Connections {
    next_id: u64,
    sockets: HashMap<u64, TcpStream>,
    threads: Vec<JoinHandle<()>>,
}

impl Inner {
    fn log(&self) -> MutexGuard<'_, Vec<Recorded>> {
        // A panicking handler must not hide the log from the test.
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn connections(&self) -> MutexGuard<'_, Connections> {
        self.connections.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A socket bound on `127.0.0.1` and not yet serving: its URL is known before the handler is
/// built.
pub struct Listener {
    listener: TcpListener,
    addr: SocketAddr,
}

impl Listener {
    /// Binds `127.0.0.1` on a free port.
    ///
    /// # Errors
    /// If no port can be bound.
    pub fn bind() -> io::Result<Listener> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        Ok(Listener { listener, addr })
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Starts serving: `handler` answers each request through its [`Exchange`], on the
    /// connection's own thread; threads are named after `name`.
    ///
    /// # Errors
    /// If the accept thread cannot be spawned.
    pub fn serve(
        self,
        name: &str,
        handler: impl Fn(&Request, &mut Exchange<'_>) + Send + Sync + 'static,
    ) -> io::Result<Server> {
        let inner = Arc::new(Inner {
            stop: Signal::default(),
            log: Mutex::new(Vec::new()),
            connections: Mutex::new(Connections { next_id: 1, ..Connections::default() }),
        });
        let handler: Arc<Handler> = Arc::new(handler);
        let accept = {
            let inner = Arc::clone(&inner);
            let name = name.to_owned();
            let listener = self.listener;
            std::thread::Builder::new()
                .name(format!("{name}-accept"))
                .spawn(move || accept_loop(&inner, &handler, &listener, &name))?
        };
        Ok(Server { addr: self.addr, inner, accept: Some(accept) })
    }
}

/// A running server. Dropping it stops it: held and streaming connections are closed, and
/// every thread is joined.
pub struct Server {
    addr: SocketAddr,
    inner: Arc<Inner>,
    accept: Option<JoinHandle<()>>,
}

impl Server {
    /// Binds `127.0.0.1` on a free port and serves with `handler` (see [`Listener::serve`]).
    ///
    /// # Errors
    /// If no port can be bound or no thread spawned.
    pub fn start(
        name: &str,
        handler: impl Fn(&Request, &mut Exchange<'_>) + Send + Sync + 'static,
    ) -> io::Result<Server> {
        Listener::bind()?.serve(name, handler)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, in the order they arrived, with the status each got.
    pub fn recorded(&self) -> Vec<Recorded> {
        self.inner.log().clone()
    }

    /// How many requests have arrived.
    pub fn request_count(&self) -> usize {
        self.inner.log().len()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.inner.stop.set();
        // The accept loop blocks in `accept`: a connection wakes it to see the signal.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        let (sockets, threads) = {
            let mut connections = self.inner.connections();
            (std::mem::take(&mut connections.sockets), std::mem::take(&mut connections.threads))
        };
        for socket in sockets.values() {
            let _ = socket.shutdown(Shutdown::Both);
        }
        for thread in threads {
            let _ = thread.join();
        }
    }
}

/// Accepts connections until the server stops; one thread per connection.
fn accept_loop(inner: &Arc<Inner>, handler: &Arc<Handler>, listener: &TcpListener, name: &str) {
    for socket in listener.incoming() {
        if inner.stop.is_set() {
            return;
        }
        let Ok(socket) = socket else { continue };
        let mut connections = inner.connections();
        let id = connections.next_id;
        connections.next_id += 1;
        let Ok(clone) = socket.try_clone() else { continue };
        connections.sockets.insert(id, clone);
        connections.threads.retain(|t| !t.is_finished());
        let thread_inner = Arc::clone(inner);
        let handler = Arc::clone(handler);
        let spawned = std::thread::Builder::new()
            .name(format!("{name}-conn-{id}"))
            .spawn(move || serve_connection(&thread_inner, &*handler, socket, id));
        match spawned {
            Ok(thread) => connections.threads.push(thread),
            Err(_) => {
                connections.sockets.remove(&id);
            }
        }
    }
}

/// Serves requests on one connection until it closes, turns into a stream, or the server
/// stops.
fn serve_connection(inner: &Inner, handler: &Handler, socket: TcpStream, id: u64) {
    let _ = socket.set_read_timeout(Some(READ_POLL));
    let _ = socket.set_write_timeout(Some(WRITE_TIMEOUT));
    let _ = socket.set_nodelay(true);
    let mut conn = Conn::new(socket);
    loop {
        let request = match conn.read_request(&inner.stop) {
            Ok(request) => request,
            Err(ReadError::Closed) => break,
            Err(ReadError::Malformed(why)) => {
                let socket = conn.source_mut();
                if Response::error(400, why).write_to(socket, true).is_ok() {
                    linger(socket, &inner.stop);
                }
                break;
            }
        };
        let index = {
            let mut log = inner.log();
            log.push(Recorded { request: request.clone(), status: None });
            log.len() - 1
        };
        let mut exchange = Exchange {
            socket: conn.source_mut(),
            inner,
            connection: id,
            index,
            keep_alive: request.keeps_alive(),
            answered: false,
        };
        handler(&request, &mut exchange);
        if !(exchange.answered && exchange.keep_alive) {
            break;
        }
    }
    let _ = conn.source_mut().shutdown(Shutdown::Both);
    inner.connections().sockets.remove(&id);
}

/// After an answer that closes the connection: stop writing and read what the peer still
/// sends, so that closing does not reset the connection before the peer read the answer.
fn linger(socket: &mut TcpStream, stop: &Signal) {
    let _ = socket.shutdown(Shutdown::Write);
    let deadline = Instant::now() + LINGER;
    let mut sink = [0u8; 8192];
    while Instant::now() < deadline && !stop.is_set() {
        match socket.read(&mut sink) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// One request's answer: the handler answers exactly once, by one of the methods below. A
/// handler that returns without answering closes the connection.
pub struct Exchange<'a> {
    socket: &'a mut TcpStream,
    inner: &'a Inner,
    connection: u64,
    index: usize,
    /// Whether the connection may serve another request after this answer.
    keep_alive: bool,
    /// Whether a whole response was written.
    answered: bool,
}

impl Exchange<'_> {
    /// The connection's id: unique in this server, counted from 1.
    pub fn connection(&self) -> u64 {
        self.connection
    }

    /// The request's 0-based index in the server's log.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Whether the server is stopping (a handler that waits should give up).
    pub fn stopping(&self) -> bool {
        self.inner.stop.is_set()
    }

    fn record_status(&self, status: u16) {
        if let Some(entry) = self.inner.log().get_mut(self.index) {
            entry.status = Some(status);
        }
    }

    /// Answers with a whole response; the connection serves the next request unless the client
    /// asked to close it. A failed write closes the connection.
    pub fn respond(&mut self, response: &Response) {
        self.record_status(response.status);
        let close = !self.keep_alive;
        self.answered = response.write_to(self.socket, close).is_ok();
    }

    /// Answers with a whole response and `Connection: close`, then closes the connection.
    pub fn respond_and_close(&mut self, response: &Response) {
        self.keep_alive = false;
        self.respond(response);
    }

    /// Answers `200` with a chunked body of `content_type`, to be written through the returned
    /// writer; the connection closes after the stream.
    ///
    /// # Errors
    /// If the head cannot be written (the peer is gone).
    pub fn stream(&mut self, content_type: &str) -> io::Result<ChunkedWriter<'_>> {
        self.record_status(200);
        self.keep_alive = false;
        ChunkedWriter::start(self.socket, &self.inner.stop, content_type)
    }

    /// Closes the connection without an answer.
    pub fn hang_up(&mut self) {
        self.keep_alive = false;
        let _ = self.socket.shutdown(Shutdown::Both);
    }

    /// Never answers: keeps the connection open and silent until the server stops.
    pub fn hold(&mut self) {
        self.keep_alive = false;
        self.inner.stop.wait();
    }
}
