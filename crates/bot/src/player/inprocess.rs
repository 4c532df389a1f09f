//! The ferz engine in process: a search on a blocking thread that follows the game's signals,
//! repeated with a fresh engine and a short limit after a panic.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use ferz_chess::Game;
use ferz_engine::{Engine, SearchInfo, SearchLimits, SearchResult, Signals};
use tokio::sync::watch;

use super::{Context, NoMove, Progress, SearchRequest, Signal, SignalWatch, Thought, budget, last_resort};

/// How a search is run: [`Engine::search`], or in tests one that panics on cue.
pub(super) type Searcher = fn(&mut Engine, &Game, &SearchLimits, &Signals, &mut dyn FnMut(&SearchInfo)) -> SearchResult;

/// The searcher of the game: the engine's own.
pub(super) const ENGINE: Searcher = Engine::search;

/// One search of `request` with `engine`: the engine back (a fresh one after a panic) and the
/// move.
pub(super) async fn search(
    mut engine: Box<Engine>,
    request: &SearchRequest,
    receiver: watch::Receiver<Signal>,
    ctx: &Context,
    searcher: Searcher,
) -> (Box<Engine>, Result<Thought, NoMove>) {
    let mut watch = SignalWatch::new(receiver);
    let progress = Progress::default();
    let mut limits = request.limits.clone();
    for attempt in 1..=2 {
        match run(engine, &request.game, limits, &mut watch, &progress, searcher).await {
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
    searcher: Searcher,
) -> Result<(Box<Engine>, SearchResult), String> {
    let signals = Arc::new(Signals::default());
    signals.ponderhit.store(watch.hit_at.is_some(), Ordering::Relaxed);
    signals.stop.store(watch.stopped, Ordering::Relaxed);
    let (game, thread_signals, thread_progress) = (game.clone(), Arc::clone(&signals), Arc::clone(progress));
    let mut task = tokio::task::spawn_blocking(move || {
        let mut engine = engine;
        let result = searcher(&mut engine, &game, &limits, &thread_signals, &mut |info| {
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

#[cfg(test)]
mod tests {
    //! Panics are injected through the searcher; the engine, the threads and the recovery are
    //! the real ones.

    use std::sync::atomic::AtomicU32;
    use std::time::Duration;

    use ferz_chess::{Position, Variant};

    use super::*;
    use crate::config::{EngineConfig, EngineVariant};

    fn ctx() -> Context {
        let config = EngineConfig { hash_mb: 1, move_overhead_ms: 10, ..EngineConfig::default() };
        Context {
            game_id: "test0001".into(),
            choice: Arc::new(config.choice(EngineVariant::Standard)),
            config: Arc::new(config),
            variant: Variant::Chess,
        }
    }

    fn request(limits: SearchLimits) -> SearchRequest {
        let mut game = Game::new(Position::new(Variant::Chess));
        game.play_uci("e2e4").unwrap();
        SearchRequest { game, limits, clock: Some(Duration::from_secs(10)), state_at: Instant::now() }
    }

    static FIRST_PANICS: AtomicU32 = AtomicU32::new(0);

    fn first_search_panics(
        engine: &mut Engine,
        game: &Game,
        limits: &SearchLimits,
        signals: &Signals,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        if FIRST_PANICS.fetch_add(1, Ordering::SeqCst) == 0 {
            panic!("injected");
        }
        engine.search(game, limits, signals, info)
    }

    fn always_panics_after_reporting(
        engine: &mut Engine,
        game: &Game,
        _: &SearchLimits,
        signals: &Signals,
        info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        // A depth-2 search reports its line, then the search dies.
        engine.search(game, &SearchLimits::depth(2), signals, info);
        panic!("injected after a report");
    }

    #[tokio::test]
    async fn a_panicking_search_is_repeated_with_a_fresh_engine_and_a_short_limit() {
        let ctx = ctx();
        let (_signal, receiver) = watch::channel(Signal::Run);
        let request = request(SearchLimits::nodes(2000));
        let (_, outcome) = search(ctx.fresh_engine(), &request, receiver, &ctx, first_search_panics).await;
        let thought = outcome.unwrap();
        assert!(request.game.position().legal_moves().contains(&thought.best));
        assert!(thought.score.is_some() && thought.depth >= 1, "a real search gave the move: {thought:?}");
        assert_eq!(FIRST_PANICS.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn when_every_search_panics_the_last_line_reported_gives_the_move() {
        let ctx = ctx();
        let (_signal, receiver) = watch::channel(Signal::Run);
        let request = request(SearchLimits::nodes(2000));
        let (_, outcome) = search(ctx.fresh_engine(), &request, receiver, &ctx, always_panics_after_reporting).await;
        let thought = outcome.unwrap();
        let mut engine = ctx.fresh_engine();
        let reported = engine.search(&request.game, &SearchLimits::depth(2), &Signals::default(), &mut |_| {});
        assert_eq!(Some(thought.best), reported.best, "the move of the line the dying search reported");
        assert_eq!((thought.score, thought.depth), (None, 0));
    }

    #[tokio::test]
    async fn a_stopped_ponder_search_has_no_move_and_a_hit_one_does() {
        let ctx = ctx();
        let pondering = SearchLimits { ponder: true, ..SearchLimits::nodes(500) };
        let (signal, receiver) = watch::channel(Signal::Run);
        let request = request(pondering.clone());
        let stopper = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            signal.send(Signal::Stop).unwrap();
        });
        let (_, outcome) = search(ctx.fresh_engine(), &request, receiver, &ctx, ENGINE).await;
        stopper.await.unwrap();
        assert_eq!(outcome, Err(NoMove::Stopped));
        let (signal, receiver) = watch::channel(Signal::Run);
        let request = self::request(pondering);
        let hitter = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            signal.send(Signal::PonderHit(Instant::now())).unwrap();
            signal
        });
        let (_, outcome) = search(ctx.fresh_engine(), &request, receiver, &ctx, ENGINE).await;
        drop(hitter.await.unwrap());
        assert!(outcome.is_ok(), "{outcome:?}");
    }
}
