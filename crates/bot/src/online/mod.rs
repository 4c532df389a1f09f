//! Online move sources: chessdb.cn, Lichess cloud evaluations and the Lichess opening
//! explorer, asked in that order (lichess-bot's) after the Polyglot books and before the
//! self-play cache (the `book` module's `Books::choose`, which asks this one, decides that order).
//!
//! Each service is asked only for the variants it knows, while the game is shorter than its
//! `max_depth`, while our clock shows at least its `min_time_s`, and never for longer than its
//! `timeout_ms` nor, for all of them together, than a twentieth of our clock (at most 10 s): the
//! move's time pays for the wait, and the engine searches on what is left. The HTTP goes through the bot's
//! [`Client`] (its User-Agent, connection pool and 429 holds: a 429 pauses that service for the
//! server's `Retry-After`, else 60 s, and the game goes on without it). A move from a service is
//! played only if it is legal in the game's position; anything else (a malformed answer, an
//! illegal move, an error) is a log line, and the next source answers. A game whose positions
//! the sources have not known `max_out_of_book_moves` times stops asking them
//! ([`out_of_book`]).

pub(crate) mod chessdb;
pub(crate) mod cloud;
pub(crate) mod explorer;
pub(crate) mod out_of_book;

use std::fmt;
use std::time::{Duration, Instant};

use ferz_chess::{Game, Move};
use ferz_lichess::{Client, Endpoint, Error};
use serde::de::DeserializeOwned;

use crate::config::Variant;
use crate::config::online::OnlineConfig;
use crate::setup::{Rules, parse_server_move};

use self::out_of_book::OutOfBook;

/// One online service.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Service {
    /// chessdb.cn's query API.
    ChessDb,
    /// Lichess cloud evaluation.
    CloudEval,
    /// The opening explorer's masters database.
    ExplorerMasters,
    /// The opening explorer's Lichess games database.
    ExplorerLichess,
}

impl Service {
    /// The order the services are asked in.
    pub(crate) const ORDER: [Service; 4] =
        [Service::ChessDb, Service::CloudEval, Service::ExplorerMasters, Service::ExplorerLichess];

    /// The client's name for it: its 429 holds and errors go by this endpoint.
    #[must_use]
    pub(crate) fn endpoint(self) -> Endpoint {
        match self {
            Service::ChessDb => Endpoint::ChessDb,
            Service::CloudEval => Endpoint::CloudEval,
            Service::ExplorerMasters => Endpoint::ExplorerMasters,
            Service::ExplorerLichess => Endpoint::ExplorerLichess,
        }
    }

    /// Whether the service knows positions of `chess`.
    #[must_use]
    pub(crate) fn knows(self, chess: Chess) -> bool {
        match self {
            Service::ChessDb | Service::ExplorerMasters => chess == Chess::Standard,
            Service::CloudEval | Service::ExplorerLichess => true,
        }
    }
}

impl fmt::Display for Service {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.endpoint().name())
    }
}

/// The chess of a game, as the services tell variants apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Chess {
    /// Standard rules (standard and From Position games).
    Standard,
    /// Chess960.
    Chess960,
}

impl Chess {
    /// The chess of a variant key; `None` for one no service knows (Shatranj).
    #[must_use]
    pub(crate) fn of_key(key: &str) -> Option<Chess> {
        match Variant::from_key(key)? {
            Variant::Standard | Variant::FromPosition => Some(Chess::Standard),
            Variant::Chess960 => Some(Chess::Chess960),
            Variant::Shatranj => None,
        }
    }

    /// The services' name of the variant.
    #[must_use]
    pub(crate) fn key(self) -> &'static str {
        match self {
            Chess::Standard => "standard",
            Chess::Chess960 => "chess960",
        }
    }
}

/// A service's score for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Eval {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: we are mated).
    Mate(i32),
}

impl Eval {
    /// A number that orders evaluations: mates beyond every centipawn score, shorter ones
    /// first.
    #[must_use]
    pub(crate) fn rank(self) -> i64 {
        match self {
            Eval::Cp(cp) => i64::from(cp),
            Eval::Mate(n) if n > 0 => 1_000_000 - i64::from(n),
            Eval::Mate(n) => -1_000_000 - i64::from(n),
        }
    }
}

impl fmt::Display for Eval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Eval::Cp(cp) => write!(f, "{cp} cp"),
            Eval::Mate(n) => write!(f, "mate in {n}"),
        }
    }
}

/// What a service knows of the move it proposes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Evidence {
    /// An engine's evaluation (cloud, chessdb), for the side to move.
    Eval {
        /// The score.
        eval: Eval,
        /// The depth behind it.
        depth: u32,
    },
    /// Games played (the explorer).
    Games {
        /// Games with this move.
        games: u64,
        /// Their score for the side to move, in per cent.
        score_pct: u32,
        /// How many moves it was chosen among.
        candidates: usize,
    },
}

/// A move a service proposes, as the service wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Proposal {
    /// The move in UCI (either castling notation).
    pub uci: String,
    /// What the service knows of it.
    pub evidence: Evidence,
}

/// A move from a service, for the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct OnlineMove {
    /// The service.
    pub service: Service,
    /// What it knew of the move.
    pub evidence: Evidence,
}

impl fmt::Display for OnlineMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.evidence {
            Evidence::Eval { eval, depth } => write!(f, "{} (depth {depth}, {eval})", self.service),
            Evidence::Games { games, score_pct, candidates } => {
                write!(f, "{} ({games} games, {score_pct}% for us, {candidates} candidates)", self.service)
            }
        }
    }
}

/// The longest share of our clock all services together may cost one move.
const CLOCK_SHARE: u32 = 20;
/// The longest all services together may cost one move of a game with a clock, whatever the
/// clock: a first move must come within Lichess's 30 s.
const MAX_WAIT: Duration = Duration::from_secs(10);
/// A wait shorter than this is not worth a request.
const MIN_WAIT: Duration = Duration::from_millis(50);

/// The online sources, ready to ask. The default asks nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct Online {
    /// `None` when every source is off: then nothing is done at all.
    client: Option<Client>,
    config: OnlineConfig,
    /// Each game's turns the sources knew no move for.
    out_of_book: OutOfBook,
}

/// When a service may be asked.
struct Gate<'a> {
    enabled: bool,
    url: &'a str,
    min_time: Duration,
    max_depth: u32,
    timeout: Duration,
}

impl Online {
    /// The sources `config` turns on, asked through `client`.
    #[must_use]
    pub(crate) fn new(config: &OnlineConfig, client: &Client) -> Online {
        Online {
            client: config.any_enabled().then(|| client.clone()),
            config: config.clone(),
            out_of_book: OutOfBook::new(config.max_out_of_book_moves),
        }
    }

    /// Whether no source is on.
    #[must_use]
    pub(crate) fn is_off(&self) -> bool {
        self.client.is_none()
    }

    fn gate(&self, service: Service) -> Gate<'_> {
        let secs = Duration::from_secs;
        let ms = Duration::from_millis;
        let (db, cloud, ex) = (&self.config.chessdb, &self.config.cloud_eval, &self.config.explorer);
        match service {
            Service::ChessDb => Gate {
                enabled: db.enabled,
                url: &db.url,
                min_time: secs(db.min_time_s),
                max_depth: db.max_depth,
                timeout: ms(db.timeout_ms),
            },
            Service::CloudEval => Gate {
                enabled: cloud.enabled,
                url: &cloud.url,
                min_time: secs(cloud.min_time_s),
                max_depth: cloud.max_depth,
                timeout: ms(cloud.timeout_ms),
            },
            Service::ExplorerMasters | Service::ExplorerLichess => Gate {
                enabled: if service == Service::ExplorerMasters { ex.masters } else { ex.lichess },
                url: if service == Service::ExplorerMasters { &ex.masters_url } else { &ex.lichess_url },
                min_time: secs(ex.min_time_s),
                max_depth: ex.max_depth,
                timeout: ms(ex.timeout_ms),
            },
        }
    }

    /// The game `id` is over: its count of turns out of book goes.
    pub(crate) fn game_over(&self, id: &str) {
        self.out_of_book.forget(id);
    }

    /// A legal move for the position of the game `id` from the first service that has one,
    /// with where it came from. `clock` is our time left (`None` without a clock). Nothing is
    /// asked once the game has been out of the sources' books `max_out_of_book_moves` times.
    pub(crate) async fn choose(
        &self,
        id: &str,
        rules: &Rules,
        game: &Game,
        clock: Option<Duration>,
        rng: &mut fastrand::Rng,
    ) -> Option<(Move, OnlineMove)> {
        let client = self.client.as_ref()?;
        let chess = Chess::of_key(&rules.key)?;
        if !self.out_of_book.asks(id) {
            return None;
        }
        // Whether a source said it knows no move here (not merely failed to answer).
        let mut not_known = false;
        let plies = game.moves().len();
        let started = Instant::now();
        let budget = clock.map_or(Duration::MAX, |c| (c / CLOCK_SHARE).min(MAX_WAIT));
        let mut fen = None;
        for service in Service::ORDER {
            let gate = self.gate(service);
            if !gate.enabled
                || !service.knows(chess)
                || plies >= gate.max_depth as usize
                || clock.is_some_and(|c| c < gate.min_time)
            {
                continue;
            }
            if let Some(held) = client.held_for(service.endpoint()) {
                tracing::debug!(source = %service, held_s = held.as_secs(), "online source paused after a 429");
                continue;
            }
            let timeout = gate.timeout.min(budget.saturating_sub(started.elapsed()));
            if timeout < MIN_WAIT {
                tracing::debug!(source = %service, "no time left on this move for online sources");
                break;
            }
            let fen = fen.get_or_insert_with(|| game.position().fen());
            let asked = Instant::now();
            let proposal = match self.ask(client, service, &gate, chess, fen.as_str(), timeout, rng).await {
                Ok(Some(proposal)) => proposal,
                Ok(None) => {
                    tracing::debug!(source = %service, "online source has no move here");
                    not_known = true;
                    continue;
                }
                Err(e) => {
                    report(service, &e, asked.elapsed());
                    continue;
                }
            };
            match parse_server_move(game.position(), &proposal.uci) {
                Ok(mv) => return Some((mv, OnlineMove { service, evidence: proposal.evidence })),
                Err(e) => tracing::warn!(
                    source = %service,
                    mv = %proposal.uci,
                    error = %e,
                    "online source proposed a move that is not legal here; ignored"
                ),
            }
        }
        if not_known {
            let count = self.out_of_book.missed(id);
            if count == self.config.max_out_of_book_moves {
                tracing::info!(
                    game = %id,
                    positions = count,
                    "online sources knew no move for this many positions of the game; not asked again in it"
                );
            }
        }
        None
    }

    /// Asks one service; `Ok(None)` when it knows no move it is willing to give.
    #[allow(clippy::too_many_arguments)] // one call site; a struct would only rename them
    async fn ask(
        &self,
        client: &Client,
        service: Service,
        gate: &Gate<'_>,
        chess: Chess,
        fen: &str,
        timeout: Duration,
        rng: &mut fastrand::Rng,
    ) -> Result<Option<Proposal>, Error> {
        async fn get<T: DeserializeOwned>(
            client: &Client,
            service: Service,
            url: &str,
            query: &[(&str, String)],
            timeout: Duration,
        ) -> Result<T, Error> {
            client.get_service_json(service.endpoint(), url, query, timeout).await
        }
        let not_found = |e: &Error| e.status() == Some(404);
        match service {
            Service::ChessDb => match get(client, service, gate.url, &chessdb::query(fen), timeout).await {
                Ok(answer) => Ok(chessdb::pick(&answer, self.config.chessdb.min_depth)),
                Err(e) if not_found(&e) => Ok(None),
                Err(e) => Err(e),
            },
            Service::CloudEval => {
                let config = &self.config.cloud_eval;
                let query = cloud::query(fen, chess, config.multipv);
                match get(client, service, gate.url, &query, timeout).await {
                    Ok(answer) => Ok(cloud::pick(&answer, fen_turn_white(fen), config, rng)),
                    Err(e) if not_found(&e) => Ok(None),
                    Err(e) => Err(e),
                }
            }
            Service::ExplorerMasters | Service::ExplorerLichess => {
                let config = &self.config.explorer;
                let query = explorer::query(service == Service::ExplorerMasters, fen, chess, config);
                match get(client, service, gate.url, &query, timeout).await {
                    Ok(answer) => Ok(explorer::pick(&answer, fen_turn_white(fen), config, rng)),
                    Err(e) if not_found(&e) => Ok(None),
                    Err(e) => Err(e),
                }
            }
        }
    }
}

/// Whether white moves in `fen`.
fn fen_turn_white(fen: &str) -> bool {
    fen.split_whitespace().nth(1) != Some("b")
}

/// The log line of a service that gave no answer.
fn report(service: Service, error: &Error, waited: Duration) {
    let waited_ms = waited.as_millis() as u64;
    match error {
        Error::Timeout { .. } => {
            tracing::info!(source = %service, waited_ms, "online source timed out; the engine moves");
        }
        Error::RateLimited { retry_after, .. } => tracing::warn!(
            source = %service,
            paused_s = retry_after.as_secs(),
            "online source rate limited (HTTP 429); paused"
        ),
        Error::Decode { .. } => {
            tracing::warn!(source = %service, error = %error, "online source sent a malformed answer; ignored");
        }
        _ => tracing::warn!(source = %service, error = %error, waited_ms, "online source failed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn services_know_their_variants() {
        let standard = Chess::of_key("standard").unwrap();
        assert_eq!(Chess::of_key("fromPosition"), Some(standard));
        assert_eq!(Chess::of_key("chess960"), Some(Chess::Chess960));
        assert_eq!(Chess::of_key("shatranj"), None);
        let for960: Vec<Service> = Service::ORDER.into_iter().filter(|s| s.knows(Chess::Chess960)).collect();
        assert_eq!(for960, [Service::CloudEval, Service::ExplorerLichess]);
        assert!(Service::ORDER.iter().all(|s| s.knows(Chess::Standard)));
        assert_eq!(Service::ExplorerMasters.to_string(), "explorer-masters");
    }

    #[test]
    fn evals_order_mates_beyond_centipawns() {
        let mut evals = [Eval::Cp(30), Eval::Mate(-2), Eval::Mate(3), Eval::Cp(-5000), Eval::Mate(1), Eval::Mate(-6)];
        evals.sort_by_key(|e| std::cmp::Reverse(e.rank()));
        assert_eq!(
            evals,
            [Eval::Mate(1), Eval::Mate(3), Eval::Cp(30), Eval::Cp(-5000), Eval::Mate(-6), Eval::Mate(-2)]
        );
        let shown =
            OnlineMove { service: Service::CloudEval, evidence: Evidence::Eval { eval: Eval::Cp(25), depth: 40 } };
        assert_eq!(shown.to_string(), "cloud-eval (depth 40, 25 cp)");
    }

    #[tokio::test]
    async fn nothing_is_asked_when_every_source_is_off() {
        let online = Online::default();
        assert!(online.is_off());
        let rules = Rules::new("standard", false, "startpos").unwrap();
        let game = rules.replay("").unwrap();
        assert_eq!(online.choose("g1", &rules, &game, None, &mut fastrand::Rng::with_seed(1)).await, None);
    }
}
