//! The ferz bot: plays a Lichess (or PyChess) BOT account with the ferz engine in process or
//! any UCI engine.
//!
//! What the `ferz` binary uses is all that is public: the settings ([`config`], [`BotConfig`]),
//! [`run`] and [`upgrade`], their summaries and errors, and [`check_pgn_dir`]. Everything else
//! is private to the crate (`unreachable_pub` keeps it so); its modules, by file:
//!
//! - `bot.rs`: start-up checks (token, scope, BOT account), the event loop (challenges, games,
//!   replays after reconnects), the correspondence check-in, matchmaking and the graceful stop.
//! - `resume.rs`: which ongoing games to open at start-up and at each check-in, in which order.
//! - `challenge.rs`: the challenge policy, a pure function with Lichess's decline reasons.
//! - `game.rs`: one task per game, a state machine: `game/phase.rs` holds its phases (before
//!   `gameFull`, playing, done) and what each owns, one record per ply (clock, evaluation, PV);
//!   `game/context.rs` what every game shares; `game/seats.rs` the correspondence searches'
//!   turns; `game/talk.rs` the game's side of chat; `game/thinking.rs` pondering.
//! - `player.rs`, `player/`: the engine of a game, in process or any UCI engine: searches,
//!   pondering, and recovery from crashes, hangs and panics.
//! - `chat.rs`: the chat commands and the limits that keep replies from flooding.
//! - `book/`: the moves before the engine, in their order: Polyglot books, then `online/`
//!   (chessdb.cn, Lichess cloud evaluations, the opening explorer), then the self-play cache.
//! - `tablebase.rs`: endgame tablebases: local Syzygy tables for the engine and the verdicts
//!   (which `decisions.rs`, the draw and resignation rules, read), the Lichess online
//!   tablebase's moves.
//! - `record.rs`, `pgn_file.rs`: a game's PGN, and files that a crash mid-write cannot corrupt.
//! - `setup.rs`, `clock.rs`, `timers.rs`, `ending.rs`, `matchmaking.rs`, `ratings.rs`,
//!   `refresh.rs`, `block_list.rs`: the pieces a game and the loop are made of, each testable
//!   on its own.
//!
//! Transport lives in `ferz-lichess` (the online sources' requests too); nothing here speaks
//! HTTP directly.

#![warn(unreachable_pub)]

mod block_list;
mod book;
mod bot;
mod challenge;
mod chat;
mod clock;
pub mod config;
mod decisions;
mod ending;
mod game;
mod matchmaking;
mod online;
mod pgn_file;
mod player;
mod ratings;
mod record;
mod refresh;
mod resume;
mod setup;
mod tablebase;
mod timers;

pub use bot::{BotError, RunSummary, run, upgrade};
pub use config::BotConfig;
pub use game::GameSummary;
pub use pgn_file::check_dir as check_pgn_dir;
