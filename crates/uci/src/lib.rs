//! Driving a UCI engine as a child process: the one home of this in ferz, used by `ferz match`
//! (`ferz-arena`) and by the bot (`ferz-bot`).
//!
//! - [`protocol`]: the text of the protocol: `position` and `go` commands, `info` and
//!   `bestmove` lines, options.
//! - [`process`]: [`UciEngine`], the process: handshake with a timeout (`UCI_Chess960` and
//!   `UCI_Variant` for the variant, `Ponder`, the user's options), searches with deadlines,
//!   `go ponder` and `ponderhit`, `stop`, and [`UciError`]s that say how a dead process ended;
//!   [`UciControl`] reaches a running search from another thread.
//!
//! It knows the rules (`ferz-chess`, for positions and moves) and nothing of matches, bots or
//! the in-process engine.
//!
//! ```no_run
//! use std::time::Duration;
//! use ferz_chess::{Game, Position, Variant};
//! use ferz_uci::{Go, Launch, Setup, UciEngine};
//!
//! let launch = Launch::new("/usr/games/stockfish", &[]);
//! let setup = Setup { variant: Variant::Chess, options: &["Hash=16".parse()?], ponder: false };
//! let mut engine = UciEngine::start(&launch, &setup, Default::default())?;
//! engine.new_game()?;
//! let game = Game::new(Position::new(Variant::Chess));
//! let reply = engine.search(&game, &Go::Nodes(10_000), Duration::from_secs(5))?;
//! println!("{} plays {} ({:?})", engine.id_name(), reply.bestmove, reply.score);
//! engine.quit();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod ponder;
pub mod process;
pub mod protocol;

pub use ponder::PonderStats;
pub use process::{Launch, Reply, STOP_GRACE, Setup, Timeouts, UciControl, UciEngine, UciError};
pub use protocol::{
    BestMove, EngineOption, EngineScore, Go, Info, OptionList, OptionSyntaxError, parse_bestmove, parse_info,
    position_command,
};
