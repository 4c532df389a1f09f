//! Accounts, users, tokens and chat history.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::event::GameEventInfo;

/// A user: our own account (`/api/account`) or an online bot (`/api/bot/online`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct User {
    /// Lower-case id.
    pub id: String,
    /// Display name.
    pub username: String,
    /// Title; `BOT` for bot accounts.
    pub title: Option<String>,
    /// Whether the user is online.
    pub online: Option<bool>,
    /// Ratings per perf key (`bullet`, `blitz`, `chess960`, …).
    pub perfs: BTreeMap<String, PerfStats>,
    /// Account creation, ms since the epoch.
    pub created_at: Option<i64>,
    /// Last seen, ms since the epoch.
    pub seen_at: Option<i64>,
    /// Whether the account is closed.
    pub disabled: Option<bool>,
    /// Whether the account violated the terms of service.
    pub tos_violation: Option<bool>,
    /// Profile page.
    pub url: Option<String>,
}

impl User {
    /// Whether the account is a bot account.
    pub fn is_bot(&self) -> bool {
        self.title.as_deref() == Some("BOT")
    }
}

/// Rating facts of one perf.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PerfStats {
    /// Games played.
    pub games: Option<i64>,
    /// Rating (an integer on Lichess; `f64` keeps odd servers decodable).
    pub rating: Option<f64>,
    /// Rating deviation.
    pub rd: Option<f64>,
    /// Recent progress.
    pub prog: Option<i64>,
    /// Whether the rating is provisional.
    pub prov: Option<bool>,
}

/// What `/api/token/test` says about one token.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TokenInfo {
    /// The account the token belongs to.
    pub user_id: Option<String>,
    /// Granted scopes, comma-separated.
    pub scopes: String,
    /// Expiry, ms since the epoch; `None` for no expiry.
    pub expires: Option<i64>,
}

impl TokenInfo {
    /// Whether the token has `scope` (e.g. `bot:play`).
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.split(',').any(|s| s.trim() == scope)
    }
}

/// `/api/account/playing`: our ongoing games.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Playing {
    /// The games.
    pub now_playing: Vec<GameEventInfo>,
    /// How many of them wait for our move.
    pub nb_my_turn: Option<i64>,
}

/// One entry of `/api/users/status`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct UserStatus {
    /// User id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Title.
    pub title: Option<String>,
    /// Whether the user is online (absent means offline).
    pub online: bool,
    /// Whether the user is playing.
    pub playing: bool,
}

/// One message of `GET /api/bot/game/{gameId}/chat`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ChatMessage {
    /// The message.
    pub text: String,
    /// Author.
    pub user: String,
}
