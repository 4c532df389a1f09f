//! An opponent that asks a real UCI engine (Stockfish, or `ferz` itself) for its moves, so that
//! the bot meets moves a program would choose: what pondering needs to be tested and measured.

use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ferz_chess::{Game, Move};
use ferz_uci::{Go, Launch, Setup, Timeouts, UciEngine};

/// A UCI engine searching a fixed number of nodes per move. Clones share the process, which is
/// started at the first move and restarted after a failure.
#[derive(Clone)]
pub struct EngineOpponent(Arc<Shared>);

/// What the clones share (behind one pointer, so that an [`super::Opponent`] stays small).
struct Shared {
    launch: Launch,
    nodes: u64,
    engine: Mutex<Option<UciEngine>>,
}

impl fmt::Debug for EngineOpponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EngineOpponent({}, {} nodes)", self.0.launch.program.display(), self.0.nodes)
    }
}

impl EngineOpponent {
    /// `program` with `args`, `nodes` per move.
    pub fn new(program: &Path, args: &[&str], nodes: u64) -> EngineOpponent {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        EngineOpponent(Arc::new(Shared { launch: Launch::new(program, &args), nodes, engine: Mutex::default() }))
    }

    /// The engine's move in `game`, `None` when it fails (the opponent then plays at random).
    pub(crate) fn choose(&self, game: &Game) -> Option<Move> {
        let shared = &self.0;
        let mut slot = shared.engine.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if slot.is_none() {
            let setup = Setup { variant: game.start().variant(), options: &[], ponder: false };
            *slot = UciEngine::start(&shared.launch, &setup, Timeouts::default()).ok();
        }
        let engine = slot.as_mut()?;
        let chosen = engine
            .search(game, &Go::Nodes(shared.nodes), Duration::from_secs(10))
            .ok()
            .and_then(|reply| game.position().parse_uci(&reply.bestmove).ok());
        if chosen.is_none() {
            *slot = None;
        }
        chosen
    }
}
