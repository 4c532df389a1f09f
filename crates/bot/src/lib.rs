//! The ferz bot: plays a Lichess (or PyChess) BOT account with the ferz engine in process or
//! any UCI engine.
//!
//! - [`config`]: `config/bot.toml`, every key with its default, validated once at start.
//! - [`bot`]: start-up checks (token, scope, BOT account), the event loop (challenges, games,
//!   replays after reconnects), the correspondence check-in, matchmaking and the graceful stop.
//! - [`resume`]: which ongoing games to open at start-up and at each check-in, in which order.
//! - [`challenge`]: the challenge policy, a pure function with Lichess's decline reasons.
//! - [`game`]: one task per game: position from the full move list, time use, draws,
//!   resignation, takebacks, abort, claiming victory, chat, PGN.
//! - [`player`]: the engine of a game, in process or any UCI engine: searches, pondering, and
//!   recovery from crashes, hangs and panics.
//! - [`chat`]: the chat commands and the limits that keep replies from flooding; the game's
//!   side of chat (sending, answering, commands after the game) is the game's `talk` module.
//! - [`online`]: moves from chessdb.cn, Lichess cloud evaluations and the opening explorer,
//!   asked between the Polyglot books and the cache ([`book`] decides the order).
//! - [`tablebase`]: endgame tablebases: local Syzygy tables for the engine and the verdicts,
//!   the Lichess online tablebase's moves.
//! - [`record`], [`pgn_file`]: a game's PGN, and files that a crash mid-write cannot corrupt.
//! - [`setup`], [`clock`], [`decisions`], [`timers`], [`ending`], [`book`], [`matchmaking`],
//!   [`ratings`], [`block_list`]: the pieces a game and the loop are made of, each testable on
//!   its own.
//!
//! Transport lives in `ferz-lichess` (the online sources' requests too); nothing here speaks
//! HTTP directly.

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
