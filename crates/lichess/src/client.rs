//! The client: one method per Bot API endpoint, over one request path that applies the policy.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use reqwest::header::{AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, HeaderName, HeaderValue, RETRY_AFTER, USER_AGENT};
use reqwest::{Method, Response, Url};
use serde::de::DeserializeOwned;

use crate::config::ClientConfig;
use crate::endpoint::Endpoint;
use crate::error::{Error, MAX_ERROR_BODY, truncate_body};
use crate::models::{
    Challenge, ChallengeRequest, ChatMessage, ChatRoom, Color, DeclineReason, GameRecord, Playing, TokenInfo, User,
    UserStatus,
};
use crate::platform::Platform;
use crate::policy::{Holds, ReconnectLimiter, rate_limit_hold};
use crate::stream::{EventStream, GameStream, LineContext, ndjson};

/// A Bot API client. Cheap to clone; clones share the connection pool, the 429 holds and the
/// event-stream reconnect limiter.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    base: Url,
    config: ClientConfig,
    auth: HeaderValue,
    user_agent: HeaderValue,
    holds: Arc<Holds>,
    reconnects: Arc<tokio::sync::Mutex<ReconnectLimiter>>,
}

/// What to send as the request body.
enum Body {
    Empty,
    Form(Vec<(&'static str, String)>),
    Text(String),
}

/// One request, before the policy runs it.
struct Call<'a> {
    endpoint: Endpoint,
    method: Method,
    path: Vec<&'a str>,
    query: Vec<(&'static str, String)>,
    headers: Vec<(HeaderName, String)>,
    body: Body,
}

impl<'a> Call<'a> {
    fn new(endpoint: Endpoint, method: Method, path: Vec<&'a str>) -> Self {
        Call { endpoint, method, path, query: Vec::new(), headers: Vec::new(), body: Body::Empty }
    }

    fn get(endpoint: Endpoint, path: Vec<&'a str>) -> Self {
        Call::new(endpoint, Method::GET, path)
    }

    fn post(endpoint: Endpoint, path: Vec<&'a str>) -> Self {
        Call::new(endpoint, Method::POST, path)
    }

    fn query(mut self, key: &'static str, value: impl ToString) -> Self {
        self.query.push((key, value.to_string()));
        self
    }

    fn body(mut self, body: Body) -> Self {
        self.body = body;
        self
    }
}

impl Client {
    /// Builds a client. Fails on a base URL that is not `http(s)://…` or a token or user name
    /// that cannot be a header value.
    pub fn new(config: ClientConfig) -> Result<Client, Error> {
        // reqwest is built without a bundled crypto provider; ring is ours. An `Err` means a
        // provider is already installed (by us or the application), which is just as good.
        let _ = rustls::crypto::ring::default_provider().install_default();

        let base = Url::parse(config.base_url.trim())
            .map_err(|e| Error::Config(format!("base URL `{}`: {e}", config.base_url)))?;
        if !matches!(base.scheme(), "http" | "https") || base.cannot_be_a_base() {
            return Err(Error::Config(format!("base URL `{}` must start with http:// or https://", config.base_url)));
        }
        let mut auth = HeaderValue::from_str(&format!("Bearer {}", config.token.expose()))
            .map_err(|_| Error::Config("the token contains characters not allowed in a header".into()))?;
        // Keeps the header out of reqwest's and hyper's own Debug output.
        auth.set_sensitive(true);
        let user_agent = HeaderValue::from_str(&config.user_agent())
            .map_err(|_| Error::Config("the user name contains characters not allowed in a header".into()))?;
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| Error::Config(format!("HTTP client: {e}")))?;
        let reconnects = ReconnectLimiter::new(config.max_reconnects, config.reconnect_window);
        Ok(Client {
            inner: Arc::new(Inner {
                http,
                base,
                auth,
                user_agent,
                holds: Arc::default(),
                reconnects: Arc::new(tokio::sync::Mutex::new(reconnects)),
                config,
            }),
        })
    }

    /// The same client with a User-Agent that names `username` (learned from
    /// [`Client::account`] at start-up, before any stream is opened). It shares the connection
    /// pool, the 429 holds and the reconnect limiter with `self`.
    pub fn with_username(&self, username: &str) -> Result<Client, Error> {
        let mut config = self.inner.config.clone();
        config.username = Some(username.to_owned());
        let user_agent = HeaderValue::from_str(&config.user_agent())
            .map_err(|_| Error::Config("the user name contains characters not allowed in a header".into()))?;
        Ok(Client {
            inner: Arc::new(Inner {
                http: self.inner.http.clone(),
                base: self.inner.base.clone(),
                auth: self.inner.auth.clone(),
                user_agent,
                holds: Arc::clone(&self.inner.holds),
                reconnects: Arc::clone(&self.inner.reconnects),
                config,
            }),
        })
    }

    /// The configuration the client was built from.
    pub fn config(&self) -> &ClientConfig {
        &self.inner.config
    }

    /// The platform the client talks to.
    pub fn platform(&self) -> Platform {
        self.inner.config.platform
    }

    /// How much longer `endpoint` is held by an earlier 429, if it is.
    pub fn held_for(&self, endpoint: Endpoint) -> Option<std::time::Duration> {
        self.inner.holds.remaining(endpoint)
    }

    // ---- streams ----

    /// Opens the incoming event stream (`GET /api/stream/event`).
    ///
    /// Waits first if the reconnect limiter says so (this is where reconnect loops are kept
    /// under Lichess's 30 opens per 10 minutes; retries of a failed open count too). Opening it closes any other event stream of the
    /// account. On open the server replays ongoing games and pending challenges.
    pub async fn stream_events(&self) -> Result<EventStream, Error> {
        let mut call = Call::get(Endpoint::EventStream, vec!["api", "stream", "event"]);
        if let Some(caps) = self.platform().capabilities(&self.inner.config.pychess_variants) {
            call.headers.push((HeaderName::from_static("x-pychess-bot-capabilities"), caps));
        }
        let response = self.send(&call, true).await?;
        Ok(self.stream_from(Endpoint::EventStream, response))
    }

    /// Opens the stream of one game (`GET /api/bot/game/stream/{gameId}`); the first message is
    /// `gameFull`. Reopening it (same User-Agent) closes the previous stream of that game.
    pub async fn stream_game(&self, game_id: &str) -> Result<GameStream, Error> {
        let call = Call::get(Endpoint::GameStream, vec!["api", "bot", "game", "stream", game_id]);
        let response = self.send(&call, true).await?;
        Ok(self.stream_from(Endpoint::GameStream, response))
    }

    // ---- playing ----

    /// Plays `uci` (`e2e4`, `e7e8q`, king-to-rook castling in Chess960), offering (or
    /// accepting) a draw with it when `offering_draw`, withdrawing our pending offer otherwise.
    ///
    /// A 5xx is retried; if the first attempt did reach the server, the retry answers 400
    /// ("Not your turn"): the game stream is the truth about whether the move was played.
    pub async fn make_move(&self, game_id: &str, uci: &str, offering_draw: bool) -> Result<(), Error> {
        let call = Call::post(Endpoint::Move, vec!["api", "bot", "game", game_id, "move", uci])
            .query("offeringDraw", offering_draw);
        self.ok(call).await
    }

    /// Writes `text` in a game chat (Lichess drops messages over 140 characters with a 400).
    pub async fn chat(&self, game_id: &str, room: ChatRoom, text: &str) -> Result<(), Error> {
        let form = vec![("room", room.as_str().to_owned()), ("text", text.to_owned())];
        let call = Call::post(Endpoint::Chat, vec!["api", "bot", "game", game_id, "chat"]).body(Body::Form(form));
        self.ok(call).await
    }

    /// Reads the players' chat of a game.
    pub async fn read_chat(&self, game_id: &str) -> Result<Vec<ChatMessage>, Error> {
        self.json(Call::get(Endpoint::ReadChat, vec!["api", "bot", "game", game_id, "chat"])).await
    }

    /// Aborts a game (only while fewer than two moves were played).
    pub async fn abort(&self, game_id: &str) -> Result<(), Error> {
        self.ok(Call::post(Endpoint::Abort, vec!["api", "bot", "game", game_id, "abort"])).await
    }

    /// Resigns a game (Lichess aborts it instead while it is still abortable).
    pub async fn resign(&self, game_id: &str) -> Result<(), Error> {
        self.ok(Call::post(Endpoint::Resign, vec!["api", "bot", "game", game_id, "resign"])).await
    }

    /// Offers or accepts a draw (`accept`), or declines the opponent's offer (`!accept`).
    pub async fn handle_draw(&self, game_id: &str, accept: bool) -> Result<(), Error> {
        let answer = yes_no(accept);
        self.ok(Call::post(Endpoint::Draw, vec!["api", "bot", "game", game_id, "draw", answer])).await
    }

    /// Accepts (or proposes) a takeback, or declines the opponent's proposal.
    pub async fn handle_takeback(&self, game_id: &str, accept: bool) -> Result<(), Error> {
        let answer = yes_no(accept);
        self.ok(Call::post(Endpoint::Takeback, vec!["api", "bot", "game", game_id, "takeback", answer])).await
    }

    /// Claims the win after the opponent left (`opponentGone` with `claimWinInSeconds` 0).
    pub async fn claim_victory(&self, game_id: &str) -> Result<(), Error> {
        self.ok(Call::post(Endpoint::ClaimVictory, vec!["api", "bot", "game", game_id, "claim-victory"])).await
    }

    /// Claims a draw after the opponent left.
    pub async fn claim_draw(&self, game_id: &str) -> Result<(), Error> {
        self.ok(Call::post(Endpoint::ClaimDraw, vec!["api", "bot", "game", game_id, "claim-draw"])).await
    }

    // ---- challenges ----

    /// Accepts a challenge; `color` only matters for open challenges.
    pub async fn accept_challenge(&self, challenge_id: &str, color: Option<Color>) -> Result<(), Error> {
        let mut call = Call::post(Endpoint::AcceptChallenge, vec!["api", "challenge", challenge_id, "accept"]);
        if let Some(color) = color {
            call = call.query("color", color);
        }
        self.ok(call).await
    }

    /// Declines a challenge with a reason the challenger sees translated.
    pub async fn decline_challenge(&self, challenge_id: &str, reason: DeclineReason) -> Result<(), Error> {
        let form = vec![("reason", reason.as_str().to_owned())];
        let call = Call::post(Endpoint::DeclineChallenge, vec!["api", "challenge", challenge_id, "decline"])
            .body(Body::Form(form));
        self.ok(call).await
    }

    /// Challenges `username`. Real-time challenges expire after about 20 s unless accepted.
    pub async fn create_challenge(&self, username: &str, request: &ChallengeRequest) -> Result<Challenge, Error> {
        let call =
            Call::post(Endpoint::CreateChallenge, vec!["api", "challenge", username]).body(Body::Form(request.form()));
        self.json(call).await
    }

    /// Cancels our challenge (or declines one to us, or aborts the game it became if that is
    /// still abortable).
    pub async fn cancel_challenge(&self, challenge_id: &str) -> Result<(), Error> {
        self.ok(Call::post(Endpoint::CancelChallenge, vec!["api", "challenge", challenge_id, "cancel"])).await
    }

    // ---- account ----

    /// Our profile (`title` is `BOT` for a bot account).
    pub async fn account(&self) -> Result<User, Error> {
        self.json(Call::get(Endpoint::Account, vec!["api", "account"])).await
    }

    /// Our ongoing games, at most `nb` (1–50; the server's default of 9 is too few for a bot
    /// with more slots).
    pub async fn playing(&self, nb: u32) -> Result<Playing, Error> {
        self.json(Call::get(Endpoint::Playing, vec!["api", "account", "playing"]).query("nb", nb)).await
    }

    /// What the server knows about our token: `None` if it is invalid. Check
    /// [`TokenInfo::has_scope`]`("bot:play")` before playing.
    pub async fn test_token(&self) -> Result<Option<TokenInfo>, Error> {
        let call = Call::post(Endpoint::TokenTest, vec!["api", "token", "test"])
            .body(Body::Text(self.inner.config.token.expose().to_owned()));
        let mut answers: HashMap<String, Option<TokenInfo>> = self.json(call).await?;
        let mine = answers.remove(self.inner.config.token.expose());
        Ok(match mine {
            Some(info) => info,
            // A server that keys its answer differently but answers for one token only.
            None if answers.len() == 1 => answers.into_values().next().flatten(),
            None => None,
        })
    }

    /// Upgrades the account to a bot account. Irreversible; the account must have played no game.
    pub async fn upgrade_to_bot(&self) -> Result<(), Error> {
        self.ok(Call::post(Endpoint::Upgrade, vec!["api", "bot", "account", "upgrade"])).await
    }

    /// Bots online now, at most `nb` (1–512). Lines that do not decode are skipped (logged).
    pub async fn online_bots(&self, nb: u32) -> Result<Vec<User>, Error> {
        let call = Call::get(Endpoint::OnlineBots, vec!["api", "bot", "online"]).query("nb", nb);
        let body = self.text(call).await?;
        let mut bots = Vec::new();
        for line in body.lines().map(str::trim).filter(|l| !l.is_empty()) {
            match serde_json::from_str::<User>(line) {
                Ok(user) => bots.push(user),
                Err(e) => tracing::warn!(error = %e, "skipping an online bot that does not decode"),
            }
        }
        Ok(bots)
    }

    /// Online and playing status of up to 100 users (the bot checks it is seen as online).
    pub async fn users_status(&self, ids: &[&str]) -> Result<Vec<UserStatus>, Error> {
        let call = Call::get(Endpoint::UsersStatus, vec!["api", "users", "status"]).query("ids", ids.join(","));
        self.json(call).await
    }

    /// The PGN of a game.
    pub async fn export_game(&self, game_id: &str) -> Result<String, Error> {
        self.text(Call::get(Endpoint::ExportGame, vec!["game", "export", game_id])).await
    }

    /// PyChess's record of a game (status, result, every move), read from the game's page:
    /// its bot `gameEnd` names no result and the move that ended the game never reaches the
    /// bot.
    pub async fn pychess_game_record(&self, game_id: &str) -> Result<GameRecord, Error> {
        let endpoint = Endpoint::GamePage;
        let page = self.text(Call::get(endpoint, vec![game_id])).await?;
        crate::platform::pychess_game_record(&page).map_err(|message| Error::Decode {
            endpoint,
            message,
            body: truncate_body(self.inner.config.token.redact(&page)),
        })
    }

    /// A text file from any address, such as an online block list: a plain `GET` **without**
    /// the token (the address need not be the server's), within the request timeout. Not a Bot
    /// API call: no rate-limit holds, no retries (the caller keeps what it had and tries later).
    pub async fn fetch_text(&self, url: &str) -> Result<String, Error> {
        let endpoint = Endpoint::TextFile;
        let address = Url::parse(url.trim()).map_err(|e| Error::Config(format!("address `{url}`: {e}")))?;
        if !matches!(address.scheme(), "http" | "https") {
            return Err(Error::Config(format!("address `{url}` must start with http:// or https://")));
        }
        let response = self
            .inner
            .http
            .get(address)
            .header(USER_AGENT, self.inner.user_agent.clone())
            .timeout(self.inner.config.request_timeout)
            .send()
            .await
            .map_err(|source| Error::Network { endpoint, source })?;
        let status = response.status().as_u16();
        let body = response.text().await.map_err(|source| Error::Network { endpoint, source })?;
        if !(200..300).contains(&status) {
            return Err(Error::Status { endpoint, status, body: truncate_body(body) });
        }
        Ok(body)
    }

    // ---- services beside the Bot API ----

    /// GETs the JSON answer of a service beside the Bot API (cloud evaluation, the opening
    /// explorer, chessdb.cn) at `url` with `query`, held as `endpoint`.
    ///
    /// One attempt bounded by `timeout` as a whole (connecting, headers, body) and never
    /// retried: the caller has a move to make and asks its engine instead. A 429 holds
    /// `endpoint` as on the Bot API (`Retry-After`, else [`ClientConfig::rate_limit_hold`]), and
    /// calls during the hold fail at once with [`Error::RateLimited`]. Any other non-success
    /// status is [`Error::Status`] (a 404 is how these services say "not known"). The token goes
    /// with Lichess's services only (the explorer needs it), and only to the server's host and
    /// its subdomains (`explorer.lichess.org` for `lichess.org`); chessdb.cn never sees it. Platform support is not checked: the
    /// service is the caller's choice, not the platform's.
    pub async fn get_service_json<T: DeserializeOwned>(
        &self,
        endpoint: Endpoint,
        url: &str,
        query: &[(&str, String)],
        timeout: std::time::Duration,
    ) -> Result<T, Error> {
        if let Some(retry_after) = self.inner.holds.remaining(endpoint) {
            return Err(Error::RateLimited { endpoint, retry_after, body: String::new() });
        }
        let url = Url::parse(url.trim()).map_err(|e| Error::Config(format!("{endpoint} URL `{url}`: {e}")))?;
        let inner = &*self.inner;
        let mut request = inner.http.get(url.clone()).header(USER_AGENT, inner.user_agent.clone()).query(query);
        // chessdb.cn is a third party's, and the tablebase needs no token: they never see it,
        // wherever they are.
        if !matches!(endpoint, Endpoint::ChessDb | Endpoint::Tablebase) && self.may_carry_token(&url) {
            request = request.header(AUTHORIZATION, inner.auth.clone());
        }
        tracing::debug!(%endpoint, path = url.path(), "service request");
        let exchange = async {
            let response = self.outcome(endpoint, request.send().await).await??;
            let body = self.bytes(endpoint, response).await?;
            serde_json::from_slice(&body).map_err(|e| Error::Decode {
                endpoint,
                message: e.to_string(),
                body: truncate_body(inner.config.token.redact(&String::from_utf8_lossy(&body))),
            })
        };
        tokio::time::timeout(timeout, exchange).await.unwrap_or(Err(Error::Timeout { endpoint, after: timeout }))
    }

    /// Whether a request to `url` may carry the token: only to the server's own host and its
    /// subdomains.
    fn may_carry_token(&self, url: &Url) -> bool {
        match (url.host_str(), self.inner.base.host_str()) {
            (Some(host), Some(base)) => {
                host.eq_ignore_ascii_case(base)
                    || host.len() > base.len()
                        && host[host.len() - base.len()..].eq_ignore_ascii_case(base)
                        && host.as_bytes()[host.len() - base.len() - 1] == b'.'
            }
            _ => false,
        }
    }

    // ---- the request path ----

    /// Fails at once for an endpoint the platform lacks or a 429 still holds.
    fn precheck(&self, endpoint: Endpoint) -> Result<(), Error> {
        let platform = self.platform();
        if !platform.supports(endpoint) {
            return Err(Error::Unsupported { endpoint, platform });
        }
        if let Some(retry_after) = self.inner.holds.remaining(endpoint) {
            return Err(Error::RateLimited { endpoint, retry_after, body: String::new() });
        }
        Ok(())
    }

    fn url(&self, path: &[&str]) -> Url {
        let mut url = self.inner.base.clone();
        // `new` checked that the base can have path segments; each segment is percent-encoded,
        // so an id cannot change the path.
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop_if_empty().extend(path);
        }
        url
    }

    /// Sends `call` under the policy: 4xx final, 5xx and network errors retried with jittered
    /// backoff, 429 holds the endpoint. Returns only success responses. `stream` requests get
    /// no total timeout (they last for hours); the idle timeout bounds waiting for headers.
    async fn send(&self, call: &Call<'_>, stream: bool) -> Result<Response, Error> {
        let inner = &*self.inner;
        let endpoint = call.endpoint;
        self.precheck(endpoint)?;
        let url = self.url(&call.path);
        let mut retry = 0;
        loop {
            if endpoint == Endpoint::EventStream {
                // Every attempt counts against Lichess's limit on opens, retries included.
                inner.reconnects.lock().await.acquire().await;
            }
            let mut request = inner
                .http
                .request(call.method.clone(), url.clone())
                .header(AUTHORIZATION, inner.auth.clone())
                .header(USER_AGENT, inner.user_agent.clone());
            if !call.query.is_empty() {
                request = request.query(&call.query);
            }
            for (name, value) in &call.headers {
                request = request.header(name, value);
            }
            request = match &call.body {
                // An explicit empty body sends `Content-Length: 0` on POST, as `curl -d ''`.
                Body::Empty if call.method == Method::POST => request.header(CONTENT_LENGTH, "0"),
                Body::Empty => request,
                Body::Form(form) => request.form(form),
                Body::Text(text) => request.header(CONTENT_TYPE, "text/plain").body(text.clone()),
            };
            tracing::debug!(%endpoint, method = %call.method, path = url.path(), retry, "request");
            let attempt = if stream {
                match tokio::time::timeout(inner.config.idle_timeout, request.send()).await {
                    Ok(result) => self.outcome(endpoint, result).await?,
                    Err(_) => Err(Error::Idle { endpoint, idle: inner.config.idle_timeout }),
                }
            } else {
                self.outcome(endpoint, request.timeout(inner.config.request_timeout).send().await).await?
            };
            let failure = match attempt {
                Ok(response) => return Ok(response),
                Err(failure) => failure,
            };
            if retry >= inner.config.retry.max_retries
                || matches!(&failure, Error::Network { source, .. } if source.is_builder())
            {
                return Err(failure);
            }
            let delay = inner.config.retry.backoff(retry);
            retry += 1;
            tracing::warn!(%endpoint, retry, delay_ms = delay.as_millis() as u64, error = %failure, "retrying");
            tokio::time::sleep(delay).await;
        }
    }

    /// Sorts a response: `Ok(Ok(response))` is a success; `Ok(Err(failure))` a retryable failure
    /// (5xx, network); `Err(error)` a final one (4xx, 429).
    async fn outcome(
        &self,
        endpoint: Endpoint,
        result: reqwest::Result<Response>,
    ) -> Result<Result<Response, Error>, Error> {
        let response = match result {
            Ok(response) => response,
            Err(source) => return Ok(Err(Error::Network { endpoint, source })),
        };
        let status = response.status();
        if status.is_success() {
            return Ok(Ok(response));
        }
        let retry_after = response.headers().get(RETRY_AFTER).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body = self.error_body(response).await;
        if status.as_u16() == 429 {
            let hold = rate_limit_hold(retry_after.as_deref(), &body, self.inner.config.rate_limit_hold);
            self.inner.holds.hold(endpoint, hold);
            tracing::warn!(%endpoint, hold_s = hold.as_secs(), "HTTP 429: endpoint held");
            return Err(Error::RateLimited { endpoint, retry_after: hold, body });
        }
        let error = Error::Status { endpoint, status: status.as_u16(), body };
        if status.is_server_error() { Ok(Err(error)) } else { Err(error) }
    }

    /// Reads an error body, bounded in time and size, redacted.
    async fn error_body(&self, mut response: Response) -> String {
        let mut bytes = Vec::new();
        let read = async {
            while let Ok(Some(chunk)) = response.chunk().await {
                bytes.extend_from_slice(&chunk);
                if bytes.len() > MAX_ERROR_BODY * 2 {
                    break;
                }
            }
        };
        let _ = tokio::time::timeout(self.inner.config.request_timeout, read).await;
        truncate_body(self.inner.config.token.redact(&String::from_utf8_lossy(&bytes)))
    }

    /// Reads a whole success body.
    async fn bytes(&self, endpoint: Endpoint, response: Response) -> Result<bytes::Bytes, Error> {
        response.bytes().await.map_err(|source| Error::Network { endpoint, source })
    }

    /// Sends `call` and decodes its JSON answer.
    async fn json<T: DeserializeOwned>(&self, call: Call<'_>) -> Result<T, Error> {
        let endpoint = call.endpoint;
        let response = self.send(&call, false).await?;
        let body = self.bytes(endpoint, response).await?;
        serde_json::from_slice(&body).map_err(|e| Error::Decode {
            endpoint,
            message: e.to_string(),
            body: truncate_body(self.inner.config.token.redact(&String::from_utf8_lossy(&body))),
        })
    }

    /// Sends `call` and returns its body as text.
    async fn text(&self, call: Call<'_>) -> Result<String, Error> {
        let endpoint = call.endpoint;
        let response = self.send(&call, false).await?;
        let body = self.bytes(endpoint, response).await?;
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// Sends an action whose answer is `{"ok":true}`; the body is read so the connection can
    /// be reused, and otherwise ignored.
    async fn ok(&self, call: Call<'_>) -> Result<(), Error> {
        let endpoint = call.endpoint;
        let response = self.send(&call, false).await?;
        self.bytes(endpoint, response).await.map(drop)
    }

    fn stream_from<T: crate::stream::StreamMessage>(
        &self,
        endpoint: Endpoint,
        response: Response,
    ) -> crate::stream::NdjsonStream<T> {
        let ctx = LineContext { endpoint, platform: self.platform(), token: self.inner.config.token.clone() };
        ndjson(response.bytes_stream(), ctx, self.inner.config.idle_timeout)
    }
}

fn yes_no(accept: bool) -> &'static str {
    if accept { "yes" } else { "no" }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.inner.base.as_str())
            .field("platform", &self.inner.config.platform)
            .field("user_agent", &self.inner.user_agent)
            .field("token", &self.inner.config.token)
            .finish_non_exhaustive()
    }
}
