//! The endpoints the client calls, as names for rate-limit holds, errors and platform support.

use std::fmt;

/// One Bot API endpoint (a path template, not a concrete URL), or one service beside it that
/// the bot asks for moves at a configured URL ([`crate::Client::get_service_json`]).
///
/// A 429 holds the whole template: a rate limit on moves in one game holds moves in every game,
/// because Lichess counts them per account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Endpoint {
    /// `GET /api/stream/event`
    EventStream,
    /// `GET /api/bot/game/stream/{gameId}`
    GameStream,
    /// `POST /api/bot/game/{gameId}/move/{move}`
    Move,
    /// `POST /api/bot/game/{gameId}/chat`
    Chat,
    /// `GET /api/bot/game/{gameId}/chat`
    ReadChat,
    /// `POST /api/bot/game/{gameId}/abort`
    Abort,
    /// `POST /api/bot/game/{gameId}/resign`
    Resign,
    /// `POST /api/bot/game/{gameId}/draw/{yes|no}`
    Draw,
    /// `POST /api/bot/game/{gameId}/takeback/{yes|no}`
    Takeback,
    /// `POST /api/bot/game/{gameId}/claim-victory`
    ClaimVictory,
    /// `POST /api/bot/game/{gameId}/claim-draw`
    ClaimDraw,
    /// `POST /api/challenge/{challengeId}/accept`
    AcceptChallenge,
    /// `POST /api/challenge/{challengeId}/decline`
    DeclineChallenge,
    /// `POST /api/challenge/{username}`
    CreateChallenge,
    /// `POST /api/challenge/{challengeId}/cancel`
    CancelChallenge,
    /// `GET /api/account`
    Account,
    /// `GET /api/account/playing`
    Playing,
    /// `POST /api/token/test`
    TokenTest,
    /// `GET /api/bot/online`
    OnlineBots,
    /// `GET /api/users/status`
    UsersStatus,
    /// `GET /game/export/{gameId}`
    ExportGame,
    /// `POST /api/bot/account/upgrade`
    Upgrade,
    /// `GET /{gameId}`: PyChess's page of a game, whose record the bot reads when a game ends.
    GamePage,
    /// `GET` of a text file at any address (an online block list): not a Bot API endpoint.
    TextFile,
    /// Lichess cloud evaluation, `GET /api/cloud-eval` (a service: its URL is the caller's).
    CloudEval,
    /// The Lichess opening explorer's masters database, `GET /masters` (a service).
    ExplorerMasters,
    /// The Lichess opening explorer's Lichess games database, `GET /lichess` (a service).
    ExplorerLichess,
    /// chessdb.cn's query API, `GET /cdb.php` (a service).
    ChessDb,
    /// The Lichess tablebase, `GET /standard` (a service: [`crate::Client::tablebase_standard`]).
    Tablebase,
}

impl Endpoint {
    /// A short stable name, used in errors and log fields.
    pub fn name(self) -> &'static str {
        match self {
            Endpoint::EventStream => "event-stream",
            Endpoint::GameStream => "game-stream",
            Endpoint::Move => "move",
            Endpoint::Chat => "chat",
            Endpoint::ReadChat => "read-chat",
            Endpoint::Abort => "abort",
            Endpoint::Resign => "resign",
            Endpoint::Draw => "draw",
            Endpoint::Takeback => "takeback",
            Endpoint::ClaimVictory => "claim-victory",
            Endpoint::ClaimDraw => "claim-draw",
            Endpoint::AcceptChallenge => "accept-challenge",
            Endpoint::DeclineChallenge => "decline-challenge",
            Endpoint::CreateChallenge => "create-challenge",
            Endpoint::CancelChallenge => "cancel-challenge",
            Endpoint::Account => "account",
            Endpoint::Playing => "account-playing",
            Endpoint::TokenTest => "token-test",
            Endpoint::OnlineBots => "online-bots",
            Endpoint::UsersStatus => "users-status",
            Endpoint::ExportGame => "export-game",
            Endpoint::Upgrade => "account-upgrade",
            Endpoint::GamePage => "game-page",
            Endpoint::TextFile => "text-file",
            Endpoint::CloudEval => "cloud-eval",
            Endpoint::ExplorerMasters => "explorer-masters",
            Endpoint::ExplorerLichess => "explorer-lichess",
            Endpoint::ChessDb => "chessdb",
            Endpoint::Tablebase => "tablebase",
        }
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
