//! The ferz engine in process: a search on a blocking thread that follows the game's signals,
//! repeated with a fresh engine and a short limit after a panic.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use ferz_chess::Game;
use ferz_engine::{Engine, SearchLimits, SearchResult};
use tokio::sync::watch;

use super::{Context, NoMove, Progress, SearchRequest, Signal, SignalWatch, Thought, budget, last_resort};

/// One search of `request` with `engine`: the engine back (a fresh one after a panic) and the
/// move.
pub(super) async fn search(
    mut engine: Box<Engine>,
    request: &SearchRequest,
    receiver: watch::Receiver<Signal>,
    ctx: &Context,
) -> (Box<Engine>, Result<Thought, NoMove>) {
    let mut watch = SignalWatch::new(receiver);
    let progress = Progress::default();
    let mut limits = request.limits.clone();
    for attempt in 1..=2 {
        match run(engine, &request.game, limits, &mut watch, &progress).await {
            Ok((engine, result)) => {
                let outcome = if watch.stopped { Err(NoMove::Stopped) } else { thought_of(result) };
                return (engine, outcome);
            }
            Err(panic) => {
                engine = ctx.fresh_engine();
                if watch.stopped {
                    tracing::error!(game = %ctx.game_id, panic = %panic, "the in-process search panicked while stopping; the engine is replaced");
                    return (engine, Err(NoMove::Stopped));
                }
                // Pondering without a hit: our clock does not run, the same search again.
                // Otherwise a short one in what is left.
                limits = if watch.clock_runs(request) {
                    budget::emergency(watch.clock(request).remaining(Instant::now()), ctx.overhead())
                } else {
                    request.limits.clone()
                };
                tracing::error!(
                    game = %ctx.game_id,
                    panic = %panic,
                    attempt,
                    movetime_ms = limits.movetime.map(|t| t.as_millis() as u64),
                    "the in-process search panicked; searching again with a fresh engine"
                );
            }
        }
    }
    let outcome = last_resort(&request.game, &progress).ok_or(NoMove::GameOver);
    if let Ok(thought) = &outcome {
        tracing::error!(game = %ctx.game_id, mv = %request.game.position().uci(thought.best), "the in-process search panicked twice; playing the last principal variation's move");
    }
    (engine, outcome)
}

/// Runs one search on a blocking thread, passing the game's ponder hit and stop on to it.
/// Returns the engine and the result, or the panic's message (the engine is then lost).
pub(super) async fn run(
    engine: Box<Engine>,
    game: &Game,
    limits: SearchLimits,
    watch: &mut SignalWatch,
    progress: &Progress,
) -> Result<(Box<Engine>, SearchResult), String> {
    let signals = Arc::new(ferz_engine::Signals::default());
    signals.ponderhit.store(watch.hit_at.is_some(), Ordering::Relaxed);
    signals.stop.store(watch.stopped, Ordering::Relaxed);
    let (game, thread_signals, thread_progress) = (game.clone(), Arc::clone(&signals), Arc::clone(progress));
    let mut task = tokio::task::spawn_blocking(move || {
        let mut engine = engine;
        let result = engine.search(&game, &limits, &thread_signals, &mut |info| {
            if info.multipv == 1 {
                thread_progress.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone_from(&info.pv);
            }
        });
        (engine, result)
    });
    loop {
        tokio::select! {
            joined = &mut task => return joined.map_err(panic_message),
            signal = watch.next(), if !watch.stopped => match signal {
                Signal::PonderHit(_) => signals.ponderhit.store(true, Ordering::Relaxed),
                Signal::Stop => signals.stop.store(true, Ordering::Relaxed),
                Signal::Run => {}
            },
        }
    }
}

/// The move of a finished search.
pub(super) fn thought_of(result: SearchResult) -> Result<Thought, NoMove> {
    let best = result.best.ok_or(NoMove::GameOver)?;
    Ok(Thought {
        best,
        ponder: result.ponder,
        score: Some(result.score),
        depth: result.depth,
        nodes: result.nodes,
        pv: if result.pv.first() == Some(&best) { result.pv } else { vec![best] },
    })
}

/// What a panicking search said.
fn panic_message(error: tokio::task::JoinError) -> String {
    match error.try_into_panic() {
        Ok(payload) => payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned()),
        Err(error) => error.to_string(),
    }
}
