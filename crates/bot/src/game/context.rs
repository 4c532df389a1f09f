//! What every game task shares: the client, the settings, the move sources, the chat hub,
//! the thinking seats and the bot's stop signals. The bot makes one at start and hands it to
//! each game it opens.

use std::sync::Arc;

use ferz_lichess::Client;
use tokio::sync::watch;

use super::seats::ThinkingSeats;
use crate::book::Books;
use crate::chat::ChatHub;
use crate::config::BotConfig;
use crate::tablebase::Tablebases;

/// What every game task shares.
pub(crate) struct GameContext {
    /// The API client.
    pub client: Client,
    /// The settings.
    pub config: Arc<BotConfig>,
    /// Our account id (lower case).
    pub me: String,
    /// Our display name.
    pub my_name: String,
    /// The move sources before the engine: Polyglot files, online sources, the self-play cache.
    pub books: Books,
    /// Endgame tablebases: local Syzygy tables and the online tablebase.
    pub tablebases: Tablebases,
    /// Turns true when the bot must exit at once (second Ctrl-C).
    pub exit_now: watch::Receiver<bool>,
    /// The queue's view and the account's recent chat lines, for chat commands.
    pub chat: ChatHub,
    /// Turns true when the bot stops taking new games: correspondence games are set aside
    /// as soon as it is not our turn.
    pub stopping: watch::Receiver<bool>,
    /// The thinking seats of correspondence searches (`[correspondence] max_thinking`).
    pub seats: ThinkingSeats,
}
