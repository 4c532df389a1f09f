//! The fake's side of the HTTP exchange: answering each request from the state, writing
//! streams from their slots, and the ticker that moves opponents and clocks on. The HTTP itself
//! (connections, parsing, chunked writing) is `ferz-testserver`'s.

use std::time::{Duration, Instant};

use ferz_testserver::{ChunkedWriter, Exchange, Request};

use super::Shared;
use super::clock::after;
use super::endpoints::{self, Answer, Target};
use super::world::{End, Out, Slot, State, Status};

/// The content type of both stream kinds.
const NDJSON: &str = "application/x-ndjson";

/// Answers one request: the endpoint acts on the state, then its whole response is written, or
/// the connection turns into a stream written from the endpoint's slot.
pub(crate) fn answer(shared: &Shared, request: &Request, exchange: &mut Exchange<'_>) {
    if let Some(response) = super::tablebase::answer(shared, request) {
        exchange.respond(&response);
        return;
    }
    if super::online::answer(shared, request, exchange) {
        return;
    }
    let delay = shared.lock().http.delay(&request.path);
    if let Some(delay) = delay {
        shared.changed.notify_all();
        // Held outside the lock: the rest of the server goes on.
        let until = Instant::now() + delay;
        while Instant::now() < until && !exchange.stopping() {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    let now = Instant::now();
    let conn = exchange.connection();
    let answer = {
        let mut st = shared.lock();
        st.tick(now, shared);
        if shared.config.is_pychess() {
            super::pychess::handle(&mut st, shared, request, conn, now)
        } else {
            endpoints::handle(&mut st, shared, request, conn, now)
        }
    };
    shared.changed.notify_all();
    match answer {
        Answer::Whole(response) => exchange.respond(&response),
        Answer::Stream(target) => match exchange.stream(NDJSON) {
            Ok(writer) => write_stream(shared, writer, &target, conn),
            Err(_) => drop_my_slot(&mut shared.lock(), &target, conn),
        },
        Answer::BrokenStream => {
            if let Ok(writer) = exchange.stream(NDJSON) {
                writer.cut_mid_chunk("");
            }
        }
    }
}

/// The slot of `target` if it still belongs to connection `conn`.
fn my_slot<'a>(st: &'a mut State, target: &Target, conn: u64) -> Option<&'a mut Slot> {
    let slot = match target {
        Target::Event => st.event_slot.as_mut(),
        Target::Game(id) => {
            let gi = st.game_index(id)?;
            st.games[gi].slot.as_mut()
        }
    };
    slot.filter(|s| s.conn == conn)
}

fn drop_my_slot(st: &mut State, target: &Target, conn: u64) {
    match target {
        Target::Event => {
            if st.event_slot.as_ref().is_some_and(|s| s.conn == conn) {
                st.event_slot = None;
            }
        }
        Target::Game(id) => {
            if let Some(gi) = st.game_index(id)
                && st.games[gi].slot.as_ref().is_some_and(|s| s.conn == conn)
            {
                st.games[gi].slot = None;
            }
        }
    }
}

/// What the writer does next.
enum Step {
    Write(Vec<Out>),
    KeepAlive(Option<String>),
    End(End),
    /// The server stops: just drop the socket.
    Quit,
}

/// Writes a stream from its slot: queued lines, keep-alives, and its end.
fn write_stream(shared: &Shared, mut writer: ChunkedWriter<'_>, target: &Target, conn: u64) {
    let keep_alive = shared.config.keep_alive;
    let mut last_write = Instant::now();
    loop {
        let step = next_step(shared, target, conn, last_write, keep_alive);
        let result = match step {
            Step::Quit => return,
            Step::End(End::Clean) => {
                let _ = writer.finish();
                return;
            }
            Step::End(End::Abrupt) => {
                writer.cut_mid_chunk("{\"type\":\"gameSt");
                return;
            }
            Step::KeepAlive(extra) => {
                // lila: an empty line; PyChess: a JSON ping.
                let mut data = if shared.config.is_pychess() { "{\"type\":\"ping\"}\n" } else { "\n" }.to_owned();
                if let Some(line) = extra {
                    data.push_str(&line);
                    data.push('\n');
                }
                writer.chunk(&data)
            }
            Step::Write(lines) => write_lines(shared, &mut writer, target, &lines),
        };
        if result.is_err() {
            drop_my_slot(&mut shared.lock(), target, conn);
            return;
        }
        last_write = Instant::now();
    }
}

/// Waits until the stream has something to do.
fn next_step(shared: &Shared, target: &Target, conn: u64, last_write: Instant, keep_alive: Duration) -> Step {
    let mut st = shared.lock();
    loop {
        if shared.is_shutdown() {
            return Step::Quit;
        }
        let now = Instant::now();
        let game_gone_line = match target {
            Target::Game(id) if !st.pychess => st.game_index(id).and_then(|gi| {
                let g = &st.games[gi];
                (g.status == Status::Started && g.opp.gone_since.is_some()).then(|| g.opponent_gone_line(now))
            }),
            Target::Game(_) => None,
            Target::Event => None,
        };
        let Some(slot) = my_slot(&mut st, target, conn) else {
            // Replaced by a newer connection, or removed: end cleanly.
            return Step::End(End::Clean);
        };
        let mut wake = after(last_write, keep_alive);
        match slot.silent_until {
            Some(until) if until > now => wake = until,
            _ => {
                slot.silent_until = None;
                if !slot.queue.is_empty() {
                    let lines: Vec<Out> = slot.queue.drain(..).collect();
                    note_prompts(&mut st, target, &lines, now);
                    return Step::Write(lines);
                }
                if let Some(end) = slot.end {
                    drop_my_slot(&mut st, target, conn);
                    return Step::End(end);
                }
                if now >= wake {
                    return Step::KeepAlive(game_gone_line);
                }
            }
        }
        let wait = wake.saturating_duration_since(now).max(Duration::from_millis(1));
        st = shared.changed.wait_timeout(st, wait).map(|(guard, _)| guard).unwrap_or_else(|e| e.into_inner().0);
    }
}

/// Before writing: the lines that put the bot on move get a provisional time, so that a move
/// arriving before the writer is done still has a reference.
fn note_prompts(st: &mut State, target: &Target, lines: &[Out], now: Instant) {
    let Target::Game(id) = target else { return };
    let Some(gi) = st.game_index(id) else { return };
    let g = &mut st.games[gi];
    let current = g.prompt();
    if g.bot_prompted_at.is_none() && lines.iter().any(|out| out.prompt.is_some() && out.prompt == current) {
        g.bot_prompted_at = Some(now);
        g.prompt_provisional = true;
    }
}

/// Writes lines one chunk each; after the line that puts the bot on move, notes the time.
fn write_lines(shared: &Shared, writer: &mut ChunkedWriter<'_>, target: &Target, lines: &[Out]) -> std::io::Result<()> {
    for out in lines {
        writer.chunk(&format!("{}\n", out.line))?;
        if let (Some(ply), Target::Game(id)) = (out.prompt, target) {
            let written = Instant::now();
            let mut st = shared.lock();
            if let Some(gi) = st.game_index(id) {
                let g = &mut st.games[gi];
                if g.prompt() == Some(ply) && g.prompt_provisional {
                    g.bot_prompted_at = Some(written);
                    g.prompt_provisional = false;
                }
            }
        }
    }
    Ok(())
}

/// Runs the simulation clock: opponents' moves, flags, timers, answers to challenges.
pub(crate) fn ticker(shared: &Shared) {
    let mut st = shared.lock();
    loop {
        if shared.is_shutdown() {
            return;
        }
        let now = Instant::now();
        st.tick(now, shared);
        shared.changed.notify_all();
        let wake = st.next_wake(Instant::now(), shared);
        let wait = wake.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
        st = shared.changed.wait_timeout(st, wait).map(|(guard, _)| guard).unwrap_or_else(|e| e.into_inner().0);
    }
}
