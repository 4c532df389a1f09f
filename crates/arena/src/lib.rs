//! Engine-vs-engine matches for ferz: `ferz match`.
//!
//! Two engines (`ferz` itself as a child process, or any UCI engine) play colour-swapped pairs
//! of games from the same openings, several games at once. Every move is checked by
//! `ferz-chess`: an illegal move, a crash, a stalled search or an overstepped clock loses the
//! game, and the rules (mate, stalemate, the Shatranj bare king, repetition, the move rules,
//! insufficient material) end it. Finished games are appended to a PGN file as they end. The
//! score is reported as Elo with a 95% interval from the pentanomial pair statistics, and an
//! optional SPRT stops the match when it decides ([`stats`] documents the formulas).
//!
//! It knows the rules (`ferz-chess`) and engines as UCI processes (`ferz-uci`); nothing of the
//! in-process engine, datasets or the network.
//!
//! ```no_run
//! use ferz_arena::{EngineCommand, EngineConfig, GameSettings, Limit, MatchConfig, OpeningSettings, run_match, schedule};
//! use ferz_chess::Variant;
//!
//! let openings = schedule(None, &OpeningSettings {
//!     variant: Variant::Chess, order: Default::default(), seed: 1, start: 0, random_plies: 6,
//! }, 5);
//! let config = MatchConfig {
//!     engines: [EngineConfig::new(EngineCommand::Ferz), EngineConfig::new("uci:/usr/games/stockfish".parse()?)],
//!     variant: Variant::Chess,
//!     openings,
//!     concurrency: 2,
//!     game: GameSettings { limit: Limit::Nodes(5000), ..GameSettings::default() },
//!     timeouts: Default::default(),
//!     pgn: None,
//!     pgn_comments: true,
//!     sprt: None,
//!     event: "ferz match".into(),
//!     self_exe: std::env::current_exe()?,
//! };
//! let summary = run_match(&config, &[], &Default::default(), &mut std::io::stdout())?;
//! print!("{}", summary.report());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod engine;
pub mod game;
pub mod openings;
pub mod pgn;
pub mod resume;
mod runner;
pub mod spec;
pub mod stats;

pub use engine::{MoveRequest, Player, PlayerError};
// The UCI process layer lives in `ferz-uci`; these are the parts a match's caller names.
pub use ferz_uci::{EngineOption, EngineScore, PonderStats, Reply, Timeouts, UciEngine, UciError};
pub use game::{GameRecord, GameSettings, Termination, play_game};
pub use openings::{BookOrder, Opening, OpeningSettings, load_book, schedule};
pub use resume::{PlayedGame, ResumeError, load_played};
pub use runner::{MatchConfig, MatchControl, MatchError, MatchSummary, run_match};
pub use spec::{DrawAdjudication, EngineCommand, EngineConfig, Limit, ResignAdjudication, SpecError};
pub use stats::{Pentanomial, Sprt, SprtModel, SprtStatus, Wdl};
