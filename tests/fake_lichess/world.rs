//! The simulated world: games, challenges, stream slots, and everything the server knows (one
//! [`State`] behind a mutex). The rules that move it on are in `state.rs`; what the server
//! writes about it in `json.rs` and `pychess_json.rs`.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::{Duration, Instant};

use ferz_chess::{CastlingMode, Color, Game, Move, Outcome, Position, SplitMix64, UciMove, Variant};

use super::clock::UNLIMITED_MS;
use super::faults::HttpFaults;
use super::opponents::{Opponent, OpponentRun};
use super::{Castling, ChallengeAnswer, ChallengeState, ChatEntry, OnlineBot, Shared};

/// How a stream ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// With the last chunk.
    Clean,
    /// In the middle of a chunk.
    Abrupt,
}

/// One line waiting to be written to a stream.
#[derive(Debug, Clone)]
pub(crate) struct Out {
    /// The line, without its `\n`.
    pub(crate) line: String,
    /// For game streams: the ply at which this line puts the bot on move.
    pub(crate) prompt: Option<usize>,
}

/// The server side of an open stream; the connection thread with the same `conn` writes it.
#[derive(Debug)]
pub(crate) struct Slot {
    pub(crate) conn: u64,
    pub(crate) queue: VecDeque<Out>,
    pub(crate) end: Option<End>,
    pub(crate) silent_until: Option<Instant>,
}

impl Slot {
    pub(crate) fn new(conn: u64) -> Slot {
        Slot { conn, queue: VecDeque::new(), end: None, silent_until: None }
    }
}

/// A game status (lila's `GameStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    Started,
    Aborted,
    Mate,
    Resign,
    Stalemate,
    Timeout,
    Draw,
    OutOfTime,
    /// A variant's own ending: the Shatranj bare king.
    VariantEnd,
}

impl Status {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Status::Started => "started",
            Status::Aborted => "aborted",
            Status::Mate => "mate",
            Status::Resign => "resign",
            Status::Stalemate => "stalemate",
            Status::Timeout => "timeout",
            Status::Draw => "draw",
            Status::OutOfTime => "outoftime",
            Status::VariantEnd => "variantEnd",
        }
    }

    pub(crate) fn id(self) -> i64 {
        match self {
            Status::Started => 20,
            Status::Aborted => 25,
            Status::Mate => 30,
            Status::Resign => 31,
            Status::Stalemate => 32,
            Status::Timeout => 33,
            Status::Draw => 34,
            Status::OutOfTime => 35,
            Status::VariantEnd => 60,
        }
    }
}

/// A time control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeControl {
    Clock { limit: u32, inc: u32 },
    Correspondence { days: u32 },
    Unlimited,
}

impl TimeControl {
    pub(crate) fn from_spec(clock: Option<(u32, u32)>, days: Option<u32>) -> TimeControl {
        match (clock, days) {
            (Some((limit, inc)), _) => TimeControl::Clock { limit, inc },
            (None, Some(days)) => TimeControl::Correspondence { days },
            (None, None) => TimeControl::Unlimited,
        }
    }

    /// lila's speed: from `limit + 40 * increment` seconds.
    pub(crate) fn speed(self) -> &'static str {
        match self {
            TimeControl::Clock { limit, inc } => match u64::from(limit) + 40 * u64::from(inc) {
                0..30 => "ultraBullet",
                30..180 => "bullet",
                180..480 => "blitz",
                480..1500 => "rapid",
                1500..21600 => "classical",
                _ => "correspondence",
            },
            _ => "correspondence",
        }
    }

    /// Initial clock in ms (lila starts a `0+inc` clock at the increment, at least 3 s).
    pub(crate) fn initial_ms(self) -> i64 {
        match self {
            TimeControl::Clock { limit: 0, inc } => (i64::from(inc) * 1000).max(3000),
            TimeControl::Clock { limit, .. } => i64::from(limit) * 1000,
            TimeControl::Correspondence { days } => i64::from(days) * 86_400_000,
            TimeControl::Unlimited => UNLIMITED_MS,
        }
    }
}

/// A user as challenges and games show them.
#[derive(Debug, Clone)]
pub(crate) struct UserInfo {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) title: Option<String>,
    pub(crate) rating: i64,
}

/// A challenge, to the bot (`outgoing == false`) or from it.
#[derive(Debug, Clone)]
pub(crate) struct ChallengeRec {
    pub(crate) id: String,
    pub(crate) outgoing: bool,
    pub(crate) challenger: UserInfo,
    pub(crate) dest: UserInfo,
    /// Variant key as the challenge shows it.
    pub(crate) variant: String,
    pub(crate) initial_fen: Option<String>,
    pub(crate) tc: TimeControl,
    pub(crate) rated: bool,
    /// The challenger's requested colour.
    pub(crate) color: String,
    /// The challenger's actual colour.
    pub(crate) final_color: Color,
    pub(crate) state: ChallengeState,
    /// How the bot's opponent plays once the game starts.
    pub(crate) opponent: Opponent,
    /// Outgoing: the fields as sent.
    pub(crate) fields: BTreeMap<String, String>,
    pub(crate) dest_name_in_url: String,
}

/// A game being simulated.
#[derive(Debug)]
pub(crate) struct GameSim {
    pub(crate) id: String,
    pub(crate) variant: String,
    pub(crate) rules: Variant,
    pub(crate) start: Position,
    /// `startpos` or the FEN.
    pub(crate) initial_fen: String,
    pub(crate) board: Game,
    pub(crate) moves: Vec<Move>,
    /// The moves in the server's notation.
    pub(crate) notation: Vec<String>,
    pub(crate) bot_color: Color,
    pub(crate) opp_user: UserInfo,
    pub(crate) opp: OpponentRun,
    pub(crate) rated: bool,
    pub(crate) tc: TimeControl,
    /// Remaining ms per colour at the last switch of the clock.
    pub(crate) times: [i64; 2],
    /// When the side to move got the move (game start, last move, takeback).
    pub(crate) last_switch: Instant,
    pub(crate) created_at_ms: i64,
    pub(crate) status: Status,
    pub(crate) winner: Option<Color>,
    /// The rules' verdict, when the game ended on the board.
    pub(crate) outcome: Option<Outcome>,
    pub(crate) draw_offer: [bool; 2],
    pub(crate) takeback_offer: [bool; 2],
    pub(crate) takeback_offered_at: Option<Instant>,
    pub(crate) last_bot_offer_ply: Option<usize>,
    pub(crate) bot_draw_offers: usize,
    pub(crate) draw_offers_declined_by_bot: usize,
    pub(crate) takebacks_granted: usize,
    /// The bot's messages: (room, text).
    pub(crate) chat: Vec<(String, String)>,
    /// Every chat line, the bot's and everyone else's.
    pub(crate) chat_log: Vec<ChatEntry>,
    pub(crate) illegal_moves_from_bot: Vec<String>,
    pub(crate) slot: Option<Slot>,
    pub(crate) game_stream_connections: usize,
    /// PyChess: stream requests answered 200-then-broken because a stream was still open.
    pub(crate) duplicate_game_streams: usize,
    /// PyChess: stream requests (of any answer) after the game ended.
    pub(crate) streams_requested_after_end: usize,
    /// PyChess: the game is dropped once over ([`super::Fault::ForgetGameWhenOver`]).
    pub(crate) forgotten_when_over: bool,
    /// When the line that put the bot on move was written.
    pub(crate) bot_prompted_at: Option<Instant>,
    /// `bot_prompted_at` holds the time the line was taken for writing; the writer replaces it
    /// with the time the write finished (unless the move came first).
    pub(crate) prompt_provisional: bool,
    pub(crate) reject_moves: u32,
    pub(crate) castling: Castling,
}

impl GameSim {
    pub(crate) fn turn(&self) -> Color {
        self.board.position().turn()
    }

    pub(crate) fn ply(&self) -> usize {
        self.moves.len()
    }

    /// Whether the side to move's clock runs (lila: from the third ply on).
    pub(crate) fn clock_runs(&self) -> bool {
        self.status == Status::Started && self.ply() >= 2 && !matches!(self.tc, TimeControl::Unlimited)
    }

    /// Remaining ms of both sides now.
    pub(crate) fn times_now(&self, now: Instant) -> [i64; 2] {
        let mut times = self.times;
        if self.clock_runs() {
            let turn = self.turn().index();
            times[turn] -= now.saturating_duration_since(self.last_switch).as_millis() as i64;
        }
        times
    }

    /// Plays `m` on the board and records it in the server's notation.
    pub(crate) fn record_move(&mut self, m: Move) {
        let position = *self.board.position();
        let text = match (self.rules, self.castling) {
            (Variant::Chess, Castling::KingToRook) => UciMove::from_move(m, CastlingMode::Chess960).to_string(),
            _ => position.uci(m),
        };
        self.board.play(m).expect("only legal moves are played");
        self.moves.push(m);
        self.notation.push(text);
    }

    /// Replays the game without its last `n` plies.
    pub(crate) fn take_back(&mut self, n: usize) {
        let keep = self.ply().saturating_sub(n);
        let moves: Vec<Move> = self.moves[..keep].to_vec();
        let notation: Vec<String> = self.notation[..keep].to_vec();
        let mut board = Game::new(self.start);
        for &m in &moves {
            board.play(m).expect("replaying legal moves");
        }
        self.board = board;
        self.moves = moves;
        self.notation = notation;
    }

    /// Queues a line on the game stream, if one is open.
    pub(crate) fn push_line(&mut self, line: String, prompt: Option<usize>) {
        if let Some(slot) = &mut self.slot {
            slot.queue.push_back(Out { line, prompt });
        }
    }

    /// The ply at which the current state puts the bot on move, if it does.
    pub(crate) fn prompt(&self) -> Option<usize> {
        (self.status == Status::Started && self.turn() == self.bot_color).then_some(self.ply())
    }

    /// The `opponentGone` line while the opponent is gone.
    pub(crate) fn opponent_gone_line(&self, now: Instant) -> String {
        let seconds = self.opp.claim_in(now).unwrap_or(0);
        serde_json::json!({ "type": "opponentGone", "gone": true, "claimWinInSeconds": seconds }).to_string()
    }
}

/// Everything the server knows, behind one mutex.
pub(crate) struct State {
    pub(crate) bot_is_bot: bool,
    pub(crate) rng: SplitMix64,
    pub(crate) games: Vec<GameSim>,
    pub(crate) challenges: Vec<ChallengeRec>,
    pub(crate) event_slot: Option<Slot>,
    pub(crate) event_stream_connections: usize,
    /// Injected lines waiting for an event stream.
    pub(crate) pending_event_lines: Vec<String>,
    /// HTTP-level faults waiting for their requests.
    pub(crate) http: HttpFaults,
    pub(crate) online_bots: Vec<OnlineBot>,
    pub(crate) answers: HashMap<String, ChallengeAnswer>,
    pub(crate) latencies: Vec<Duration>,
    /// Outgoing challenges to answer: (when, challenge id).
    pub(crate) answer_due: Vec<(Instant, String)>,
    /// The bot's takeback answers still in flight: (when they apply, game id, yes).
    pub(crate) takeback_answer_due: Vec<(Instant, String, bool)>,
    /// PyChess: the variants each event-stream connection announced.
    pub(crate) advertised: Vec<Vec<String>>,
    /// PyChess: requests to endpoints it does not have, `METHOD /path`.
    pub(crate) missing_calls: Vec<String>,
    /// PyChess: games (by id, made or still to be made) the server drops once over.
    pub(crate) forget_when_over: Vec<String>,
    /// Whether the server speaks PyChess's dialect.
    pub(crate) pychess: bool,
    /// The bot's rating in every perf now (starts at [`FakeConfig::bot_rating`]).
    pub(crate) bot_rating: i64,
    /// Plain text files served at `GET /files/{name}` without a token (online block lists).
    pub(crate) text_files: HashMap<String, String>,
}

impl State {
    /// The bot as a user.
    pub(crate) fn bot_user(&self, shared: &Shared) -> UserInfo {
        UserInfo {
            id: shared.config.bot_id.to_lowercase(),
            name: shared.config.bot_id.clone(),
            title: self.bot_is_bot.then(|| "BOT".to_owned()),
            rating: self.bot_rating,
        }
    }
}

/// A colour as the API spells it.
pub(crate) fn color_name(color: Color) -> &'static str {
    if color == Color::White { "white" } else { "black" }
}

/// The rules, start position and `initialFen` of a game of `variant`.
pub(crate) fn start_position(
    variant: &str,
    fen: Option<&str>,
    rng: &mut SplitMix64,
) -> Result<(Variant, Position, String), String> {
    match variant {
        "chess960" => {
            let position = match fen {
                Some(fen) => Position::from_fen(fen, Variant::Chess960).map_err(|e| e.to_string())?,
                None => Position::random_chess960(|| rng.next_u64()),
            };
            let shown = fen.map_or_else(|| position.fen(), str::to_owned);
            Ok((Variant::Chess960, position, shown))
        }
        "fromPosition" => {
            let fen = fen.unwrap_or(ferz_chess::STANDARD_FEN);
            let position = Position::from_fen(fen, Variant::Chess960).map_err(|e| e.to_string())?;
            Ok((Variant::Chess960, position, fen.to_owned()))
        }
        "shatranj" => {
            let position = match fen {
                Some(fen) => Position::from_fen(fen, Variant::Shatranj).map_err(|e| e.to_string())?,
                None => Position::new(Variant::Shatranj),
            };
            Ok((Variant::Shatranj, position, fen.map_or_else(|| position.fen(), str::to_owned)))
        }
        // PyChess: chess from a position (Lichess turns these into fromPosition first).
        "standard" if fen.is_some() => {
            let fen = fen.unwrap_or(ferz_chess::STANDARD_FEN);
            let position = Position::from_fen(fen, Variant::Chess).map_err(|e| e.to_string())?;
            Ok((Variant::Chess, position, fen.to_owned()))
        }
        // Standard, and (played with standard rules) every variant the fake cannot simulate.
        _ => Ok((Variant::Chess, Position::new(Variant::Chess), "startpos".to_owned())),
    }
}
