//! An external UCI engine in a game: its process (started in the background, restarted after a
//! crash or a hang), one search at a time with a watchdog, and the in-process engine standing
//! in when the external one cannot answer in time.

use std::time::{Duration, Instant};

use ferz_chess::Game;
use ferz_engine::{Engine, EngineOptions, Score};
use ferz_uci::{EngineScore, Reply, Setup, Timeouts, UciEngine, UciError};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::{Context, NoMove, Progress, SearchRequest, Signal, SignalWatch, Thought, budget, inprocess, last_resort};

/// Searches an engine that failed gets at one move before the in-process engine plays it.
const MAX_FAILURES: u32 = 2;
/// The stand-in's hash table: it plays only short searches.
const FALLBACK_HASH_MB: usize = 16;

/// The external engine of one game and its stand-in.
pub(super) struct Seat {
    /// The running engine, between searches.
    engine: Option<UciEngine>,
    /// A start under way (at the game's start, or a restart after a failure).
    starting: Option<JoinHandle<Result<UciEngine, UciError>>>,
    /// The in-process engine that stands in, made when first needed.
    fallback: Option<Box<Engine>>,
}

impl Seat {
    /// A seat whose engine starts now, in the background.
    pub(super) fn starting(ctx: &Context) -> Seat {
        Seat { engine: None, starting: Some(spawn_start(ctx)), fallback: None }
    }

    /// A running engine, waiting at most `budget` for one that is starting (a start that takes
    /// longer goes on in the background, for the next move).
    async fn ready(&mut self, ctx: &Context, budget: Duration) -> Result<UciEngine, String> {
        if let Some(engine) = self.engine.take().filter(|e| !e.is_broken()) {
            return Ok(engine);
        }
        let start = self.starting.get_or_insert_with(|| spawn_start(ctx));
        let started = Instant::now();
        let joined = match tokio::time::timeout(budget, &mut *start).await {
            Ok(joined) => joined,
            Err(_) => return Err(format!("not ready within {} ms; still starting", budget.as_millis())),
        };
        self.starting = None;
        match joined {
            Ok(Ok(engine)) => {
                tracing::info!(game = %ctx.game_id, engine = %engine.id_name(), waited_ms = started.elapsed().as_millis() as u64, "external engine ready");
                Ok(engine)
            }
            Ok(Err(e)) => Err(e.to_string()),
            Err(e) => Err(format!("the start failed: {e}")),
        }
    }

    /// Starts the engine again in the background unless it runs or is starting.
    fn restart_in_background(&mut self, ctx: &Context) {
        if self.engine.as_ref().is_none_or(UciEngine::is_broken) && self.starting.is_none() {
            self.engine = None;
            self.starting = Some(spawn_start(ctx));
        }
    }

    /// `quit` to the engine (blocking: up to a second before it is killed).
    pub(super) fn quit(self) {
        if let Some(engine) = self.engine {
            engine.quit();
        }
    }
}

/// Starts the engine (handshake, options, `ucinewgame`) on a blocking thread.
fn spawn_start(ctx: &Context) -> JoinHandle<Result<UciEngine, UciError>> {
    let choice = ctx.choice.clone();
    let variant = ctx.variant;
    let handshake = Duration::from_secs(ctx.config.handshake_timeout_s);
    tokio::task::spawn_blocking(move || {
        let setup = Setup { variant, options: &choice.options, ponder: choice.ponder };
        let mut engine = UciEngine::start(&choice.launch, &setup, Timeouts { handshake, ready: handshake })?;
        engine.new_game()?;
        Ok(engine)
    })
}

/// One search of `request` with the seat's engine, restarting it after a crash or a hang, and
/// with the in-process engine when it cannot answer in time.
pub(super) async fn search(
    mut seat: Seat,
    request: &SearchRequest,
    receiver: watch::Receiver<Signal>,
    ctx: &Context,
) -> (Seat, Result<Thought, NoMove>) {
    let mut watch = SignalWatch::new(receiver);
    let progress = Progress::default();
    let game = &request.game;
    let handshake = Duration::from_secs(ctx.config.handshake_timeout_s);
    let engine_name = ctx.choice.describe();
    let mut failures = 0;
    while failures < MAX_FAILURES {
        if watch.stopped {
            return (seat, Err(NoMove::Stopped));
        }
        let now = Instant::now();
        let budget = if watch.clock_runs(request) {
            budget::restart_budget(watch.clock(request).remaining(now), handshake)
        } else {
            Some(handshake)
        };
        let Some(budget) = budget else {
            tracing::warn!(game = %ctx.game_id, engine = %engine_name, "no time left to start the engine");
            break;
        };
        let clock_ran = watch.clock_runs(request);
        let ready = {
            // A start can take seconds: the game's stop (a ponder miss) must not wait for it,
            // and a ponder hit cuts the wait to what the clock allows (the start goes on).
            let ready = seat.ready(ctx, budget);
            tokio::pin!(ready);
            loop {
                tokio::select! {
                    ready = &mut ready => break Some(ready),
                    _ = watch.next(), if !watch.stopped => {
                        if watch.stopped || watch.clock_runs(request) != clock_ran {
                            break None;
                        }
                    }
                }
            }
        };
        let engine = match ready {
            None => continue,
            Some(Ok(engine)) => engine,
            Some(Err(why)) => {
                tracing::error!(game = %ctx.game_id, engine = %engine_name, error = %why, "the external engine is not available");
                break;
            }
        };
        match attempt(engine, request, &mut watch, &progress, ctx, failures).await {
            Attempt::Answered(answer) => {
                let (engine, reply) = *answer;
                seat.engine = Some(engine);
                if watch.stopped {
                    return (seat, Err(NoMove::Stopped));
                }
                match thought_of(&reply, game) {
                    Some(thought) => return (seat, Ok(thought)),
                    None if game.position().legal_moves().is_empty() => return (seat, Err(NoMove::GameOver)),
                    None => {
                        // The same engine would likely say it again: the stand-in plays.
                        tracing::error!(game = %ctx.game_id, engine = %engine_name, mv = %reply.bestmove, "the external engine answered a move that is not legal here");
                        break;
                    }
                }
            }
            Attempt::Lost(how) => {
                if watch.stopped {
                    tracing::error!(game = %ctx.game_id, engine = %engine_name, failure = %how, "the external engine failed while its search was stopped; restarting it in the background");
                    seat.restart_in_background(ctx);
                    return (seat, Err(NoMove::Stopped));
                }
                failures += 1;
                tracing::error!(game = %ctx.game_id, engine = %engine_name, failure = %how, attempt = failures, "the external engine failed during its search; restarting it");
            }
        }
    }
    seat.restart_in_background(ctx);
    let outcome = stand_in(&mut seat, request, &mut watch, &progress, ctx).await;
    (seat, outcome)
}

/// How one search with a running engine ended.
enum Attempt {
    /// `bestmove` came (perhaps only after `stop`).
    Answered(Box<(UciEngine, Reply)>),
    /// The engine is gone: it crashed, or it hung and was killed.
    Lost(String),
}

/// One `go` to `engine`: the request's own at first (`go ponder` for pondering), after a
/// failure what is left of the clock. A watchdog stops an engine that runs past its allowance
/// and kills one that does not answer `stop`.
async fn attempt(
    mut engine: UciEngine,
    request: &SearchRequest,
    watch: &mut SignalWatch,
    progress: &Progress,
    ctx: &Context,
    failures: u32,
) -> Attempt {
    let game = request.game.clone();
    let us = game.position().turn();
    let now = Instant::now();
    let ponder = request.limits.ponder && watch.hit_at.is_none();
    let limits = if failures == 0 && (ponder || !request.limits.ponder) {
        request.limits.clone()
    } else {
        budget::resumed(&request.limits, us, &watch.clock(request), now)
    };
    let (overhead, stall) = (ctx.overhead(), Duration::from_millis(ctx.config.stall_ms));
    let allowance = |at: Instant, watch: &SignalWatch| {
        budget::allowance(&limits, request.game.position(), overhead, stall, watch.clock(request).remaining(at))
    };
    let go = budget::go_for(&limits, us, overhead);
    // `go` reaches the engine before any `ponderhit` or `stop` can: the signals below are read
    // only once it is written. (Written from the waiting thread, a `ponderhit` that came within
    // a millisecond could overtake `go ponder`, and the engine pondered until stopped.)
    let started = tokio::task::spawn_blocking(move || {
        let sent = engine.go(&game, &go, ponder);
        (engine, game, sent)
    })
    .await;
    let (mut engine, game) = match started {
        Ok((engine, game, Ok(()))) => (engine, game),
        Ok((_, _, Err(e))) => return Attempt::Lost(format!("crashed: {e}")),
        Err(e) => return Attempt::Lost(format!("its thread failed: {e}")),
    };
    let control = engine.control();
    let thread_progress = Progress::clone(progress);
    let mut task = tokio::task::spawn_blocking(move || {
        let result = engine.wait_bestmove(None, &mut |info| {
            if info.multipv.unwrap_or(1) == 1 && !info.pv.is_empty() {
                let mut position = *game.position();
                let pv = info.pv.iter().map_while(|text| {
                    let m = position.parse_uci(text).ok()?;
                    position.play_unchecked(m);
                    Some(m)
                });
                *thread_progress.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = pv.collect();
            }
        });
        (engine, result)
    });
    let mut deadline = (!ponder).then(|| now + allowance(now, watch));
    let mut stop_sent = false;
    let mut killed = false;
    let joined = loop {
        let wake = deadline.unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
        tokio::select! {
            joined = &mut task => break joined,
            signal = watch.next(), if !watch.stopped => match signal {
                Signal::PonderHit(at) if ponder => {
                    let _ = control.ponderhit();
                    deadline = Some(at + allowance(at, watch));
                }
                Signal::Stop if !stop_sent => {
                    let _ = control.stop();
                    stop_sent = true;
                    deadline = Some(Instant::now() + budget::stop_grace(None));
                }
                _ => {}
            },
            () = tokio::time::sleep_until(wake.into()), if deadline.is_some() => {
                let now = Instant::now();
                if stop_sent {
                    tracing::warn!(game = %ctx.game_id, engine = %ctx.choice.describe(), "the external engine does not answer stop; killing it");
                    control.kill();
                    killed = true;
                    deadline = None;
                } else {
                    let remaining = watch.clock(request).remaining(now);
                    tracing::warn!(game = %ctx.game_id, engine = %ctx.choice.describe(), remaining_ms = remaining.map(|r| r.as_millis() as u64), "no bestmove from the external engine in time; sending stop");
                    let _ = control.stop();
                    stop_sent = true;
                    deadline = Some(now + budget::stop_grace(remaining));
                }
            }
        }
    };
    match joined {
        Ok((engine, Ok(reply))) => Attempt::Answered(Box::new((engine, reply))),
        Ok((_, Err(e))) if killed => Attempt::Lost(format!("hung (no bestmove, no answer to stop; killed): {e}")),
        Ok((_, Err(e))) => Attempt::Lost(format!("crashed: {e}")),
        Err(e) => Attempt::Lost(format!("its thread failed: {e}")),
    }
}

/// The in-process engine's move after a short search, once the external engine could not give
/// one. While pondering it waits for the opponent's move first: the move is wanted only then.
async fn stand_in(
    seat: &mut Seat,
    request: &SearchRequest,
    watch: &mut SignalWatch,
    progress: &Progress,
    ctx: &Context,
) -> Result<Thought, NoMove> {
    while !watch.stopped && !watch.clock_runs(request) {
        watch.next().await;
    }
    if watch.stopped {
        return Err(NoMove::Stopped);
    }
    let limits = budget::emergency(watch.clock(request).remaining(Instant::now()), ctx.overhead());
    tracing::warn!(
        game = %ctx.game_id,
        search_ms = limits.movetime.map(|t| t.saturating_sub(ctx.overhead()).as_millis() as u64),
        "playing the in-process engine's move instead"
    );
    let engine = seat.fallback.take().unwrap_or_else(|| {
        let options = EngineOptions {
            hash_mb: FALLBACK_HASH_MB,
            move_overhead: ctx.overhead(),
            syzygy: ctx.choice.syzygy.clone(),
            ..EngineOptions::default()
        };
        Box::new(Engine::new(options))
    });
    match inprocess::run(engine, &request.game, limits, watch, progress, inprocess::ENGINE).await {
        Ok((engine, result)) => {
            seat.fallback = Some(engine);
            if watch.stopped { Err(NoMove::Stopped) } else { inprocess::thought_of(result) }
        }
        Err(panic) => {
            let thought = last_resort(&request.game, progress).ok_or(NoMove::GameOver)?;
            tracing::error!(game = %ctx.game_id, panic = %panic, mv = %request.game.position().uci(thought.best), "the stand-in search panicked too; playing the last principal variation's move");
            Ok(thought)
        }
    }
}

/// The move of a `bestmove` answer, if it is legal in the game's position, with the legal
/// prefix of the principal variation and the ponder move.
fn thought_of(reply: &Reply, game: &Game) -> Option<Thought> {
    let position = game.position();
    let best = position.parse_uci(&reply.bestmove).ok()?;
    let mut line = Vec::new();
    let mut after = *position;
    if reply.pv.first().is_some_and(|first| position.parse_uci(first).ok() == Some(best)) {
        for text in &reply.pv {
            let Ok(m) = after.parse_uci(text) else { break };
            line.push(m);
            after.play_unchecked(m);
        }
    } else {
        line.push(best);
    }
    let mut after_best = *position;
    after_best.play_unchecked(best);
    let ponder =
        reply.ponder.as_deref().and_then(|text| after_best.parse_uci(text).ok()).or_else(|| line.get(1).copied());
    Some(Thought {
        best,
        ponder,
        score: reply.score.map(|score| match score {
            EngineScore::Cp(cp) => Score::Cp(cp),
            EngineScore::Mate(n) => Score::Mate(n),
        }),
        depth: reply.depth.unwrap_or(0),
        nodes: reply.nodes.unwrap_or(0),
        pv: line,
    })
}

#[cfg(test)]
mod tests {
    use ferz_chess::{Position, Variant};

    use super::*;

    #[test]
    fn answers_become_moves_with_their_legal_line() {
        let game = Game::new(Position::new(Variant::Chess));
        let reply = Reply {
            bestmove: "e2e4".into(),
            ponder: Some("c7c5".into()),
            score: Some(EngineScore::Mate(-3)),
            depth: Some(9),
            pv: vec!["e2e4".into(), "e7e5".into(), "e1e8".into(), "g1f3".into()],
            ..Reply::default()
        };
        let thought = thought_of(&reply, &game).unwrap();
        assert_eq!(thought.pv_uci(game.position()), ["e2e4", "e7e5"], "the line stops at its first illegal move");
        assert_eq!(game.position().uci(thought.best), "e2e4");
        let after: Vec<String> = thought
            .ponder
            .map(|m| {
                let mut p = *game.position();
                p.play_unchecked(thought.best);
                p.uci(m)
            })
            .into_iter()
            .collect();
        assert_eq!(after, ["c7c5"], "bestmove's ponder move wins over the line's");
        assert_eq!((thought.score, thought.depth), (Some(Score::Mate(-3)), 9));
        // A line for another move is not this move's line; no ponder word: the line's second move.
        let other = Reply { bestmove: "d2d4".into(), ponder: None, ..reply.clone() };
        let thought = thought_of(&other, &game).unwrap();
        assert_eq!((thought.pv.len(), thought.ponder), (1, None));
        assert!(thought_of(&Reply { bestmove: "e2e5".into(), ..reply.clone() }, &game).is_none());
        assert!(thought_of(&Reply { bestmove: "(none)".into(), ..reply }, &game).is_none());
    }
}
