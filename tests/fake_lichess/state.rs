//! The simulated world: games, challenges, stream slots, and the rules that move them on.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ferz_chess::{
    CastlingMode, Color, DrawReason, Game, Move, Outcome, Position, SplitMix64, UciMove, Variant, WinReason,
};

use super::faults::{HttpDelay, HttpFault};
use super::opponents::OpponentRun;
use super::{
    Castling, ChallengeAnswer, ChallengeSpec, ChallengeState, ChatEntry, FakeConfig, GameView, OnlineBot, Opponent,
    OutgoingChallenge, RecordedRequest, Shared,
};

/// A clock value for "no clock": lila's `Int.MaxValue`.
pub(crate) const UNLIMITED_MS: i64 = 2_147_483_647;

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
    fn initial_ms(self) -> i64 {
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
    fn clock_runs(&self) -> bool {
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
    fn record_move(&mut self, m: Move) {
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
    fn take_back(&mut self, n: usize) {
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

    /// Queues the current `gameState`.
    pub(crate) fn push_state(&mut self, shared: &Shared, now: Instant) {
        let line = if shared.config.is_pychess() {
            super::pychess::game_state(self, now).to_string()
        } else {
            super::json::game_state(self, shared, now).to_string()
        };
        let prompt = self.prompt();
        self.push_line(line, prompt);
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
    pub(crate) http_faults: Vec<HttpFault>,
    pub(crate) http_delays: Vec<HttpDelay>,
    /// Requests held by a [`super::Fault::Delay`] so far.
    pub(crate) delayed_requests: usize,
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

/// `t + d`, with `d` capped at a year so that huge durations cannot overflow an `Instant`.
pub(crate) fn after(t: Instant, d: Duration) -> Instant {
    t + d.min(Duration::from_secs(365 * 86_400))
}

/// Milliseconds since the Unix epoch.
pub(crate) fn epoch_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// A colour as the API spells it.
pub(crate) fn color_name(color: Color) -> &'static str {
    if color == Color::White { "white" } else { "black" }
}

impl State {
    pub(crate) fn new(config: &FakeConfig) -> State {
        State {
            bot_is_bot: config.bot_is_bot,
            rng: SplitMix64::new(0x00fa_ce11_c4e5),
            games: Vec::new(),
            challenges: Vec::new(),
            event_slot: None,
            event_stream_connections: 0,
            pending_event_lines: Vec::new(),
            http_faults: Vec::new(),
            http_delays: Vec::new(),
            delayed_requests: 0,
            online_bots: Vec::new(),
            answers: HashMap::new(),
            latencies: Vec::new(),
            answer_due: Vec::new(),
            takeback_answer_due: Vec::new(),
            advertised: Vec::new(),
            missing_calls: Vec::new(),
            forget_when_over: Vec::new(),
            pychess: config.is_pychess(),
            bot_rating: config.bot_rating,
            text_files: HashMap::new(),
        }
    }

    /// A fresh 8-character id, unique on this server.
    pub(crate) fn new_id(&mut self) -> String {
        const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        loop {
            let id: String = (0..8).map(|_| ALPHABET[self.rng.index(ALPHABET.len())] as char).collect();
            if self.game_index(&id).is_none() && !self.challenges.iter().any(|c| c.id == id) {
                return id;
            }
        }
    }

    pub(crate) fn game_index(&self, id: &str) -> Option<usize> {
        self.games.iter().position(|g| g.id == id)
    }

    pub(crate) fn challenge_index(&self, id: &str) -> Option<usize> {
        self.challenges.iter().position(|c| c.id == id)
    }

    /// The bot as a user.
    pub(crate) fn bot_user(&self, shared: &Shared) -> UserInfo {
        UserInfo {
            id: shared.config.bot_id.to_lowercase(),
            name: shared.config.bot_id.clone(),
            title: self.bot_is_bot.then(|| "BOT".to_owned()),
            rating: self.bot_rating,
        }
    }

    /// Queues a line on the event stream: lost if none is open, as on lila; kept for the next
    /// connection on PyChess, whose event queue belongs to the user, not to the connection.
    pub(crate) fn emit_event(&mut self, line: String) {
        match &mut self.event_slot {
            Some(slot) => slot.queue.push_back(Out { line, prompt: None }),
            None if self.pychess => self.pending_event_lines.push(line),
            None => {}
        }
    }

    /// Runs everything that is due: flags, first-move timers, opponents, answers to the bot's
    /// challenges.
    pub(crate) fn tick(&mut self, now: Instant, shared: &Shared) {
        for gi in 0..self.games.len() {
            if self.games[gi].status != Status::Started {
                continue;
            }
            self.check_timers(gi, now, shared);
            self.opponent_turn(gi, now, shared);
        }
        let due: Vec<String> = self.answer_due.iter().filter(|(at, _)| *at <= now).map(|(_, id)| id.clone()).collect();
        self.answer_due.retain(|(at, _)| *at > now);
        for id in due {
            self.answer_outgoing(&id, shared, now);
        }
        let (due, later) = std::mem::take(&mut self.takeback_answer_due).into_iter().partition(|(at, ..)| *at <= now);
        self.takeback_answer_due = later;
        for (_, id, grant) in due {
            if let Some(gi) = self.game_index(&id)
                && self.games[gi].status == Status::Started
            {
                self.apply_takeback_answer(gi, grant, shared, now);
            }
        }
    }

    /// The bot's `/takeback/yes|no`: grants or declines the opponent's proposal; a yes without
    /// one proposes a takeback of the bot's own.
    pub(crate) fn apply_takeback_answer(&mut self, gi: usize, grant: bool, shared: &Shared, now: Instant) {
        let g = &mut self.games[gi];
        let bot = g.bot_color;
        let opp = !bot;
        if grant {
            if g.takeback_offer[opp.index()] {
                self.grant_takeback(gi, shared, now);
            } else if g.ply() >= 1 && !g.takeback_offer[bot.index()] {
                g.takeback_offer[bot.index()] = true;
                g.push_state(shared, now);
            }
        } else if g.takeback_offer[opp.index()] {
            g.takeback_offer[opp.index()] = false;
            g.takeback_offered_at = None;
            g.opp.due = None;
            g.push_state(shared, now);
        }
    }

    /// When [`State::tick`] has something to do next (at most 50 ms from now).
    pub(crate) fn next_wake(&self, now: Instant, shared: &Shared) -> Instant {
        let mut next = now + Duration::from_millis(50);
        for g in self.games.iter().filter(|g| g.status == Status::Started) {
            if let Some(due) = g.opp.due {
                next = next.min(due);
            }
            if g.clock_runs() {
                let left = g.times[g.turn().index()].max(0) as u64;
                next = next.min(after(g.last_switch, Duration::from_millis(left)));
            }
            if let Some(d) = shared.config.abort_on_no_first_move
                && g.ply() < 2
            {
                next = next.min(after(g.last_switch, d));
            }
        }
        for (at, _) in &self.answer_due {
            next = next.min(*at);
        }
        for (at, ..) in &self.takeback_answer_due {
            next = next.min(*at);
        }
        next.max(now)
    }

    /// Flag fall and lila's first-move timer.
    fn check_timers(&mut self, gi: usize, now: Instant, shared: &Shared) {
        let g = &self.games[gi];
        if g.clock_runs() {
            let turn = g.turn();
            if g.times_now(now)[turn.index()] <= 0 {
                self.finish(gi, Status::OutOfTime, Some(!turn), shared, now);
                return;
            }
        }
        if let Some(d) = shared.config.abort_on_no_first_move
            && g.ply() < 2
            && now >= after(g.last_switch, d)
        {
            self.finish(gi, Status::Aborted, None, shared, now);
        }
    }

    /// Plays a legal move of the side to move, with the clock; ends the game if the rules say
    /// so. Returns whether the game ended.
    pub(crate) fn apply_move(&mut self, gi: usize, m: Move, shared: &Shared, now: Instant) -> bool {
        let g = &mut self.games[gi];
        let mover = g.turn();
        match g.tc {
            TimeControl::Clock { inc, .. } if g.clock_runs() => {
                let left = g.times_now(now)[mover.index()];
                if left <= 0 {
                    self.finish(gi, Status::OutOfTime, Some(!mover), shared, now);
                    return true;
                }
                g.times[mover.index()] = left + i64::from(inc) * 1000;
            }
            TimeControl::Correspondence { .. } => g.times[mover.index()] = g.tc.initial_ms(),
            _ => {}
        }
        g.last_switch = now;
        g.record_move(m);
        // A move declines the other side's draw offer.
        let other = !mover;
        if g.draw_offer[other.index()] {
            g.draw_offer[other.index()] = false;
            if mover == g.bot_color {
                g.draw_offers_declined_by_bot += 1;
            }
        }
        g.bot_prompted_at = None;
        g.prompt_provisional = false;
        if let Some(outcome) = g.board.outcome() {
            let (status, winner) = match outcome {
                Outcome::Decisive { winner, reason: WinReason::Checkmate } => (Status::Mate, Some(winner)),
                // Shatranj: the stalemated side loses.
                Outcome::Decisive { winner, reason: WinReason::Stalemate } => (Status::Stalemate, Some(winner)),
                Outcome::Decisive { winner, reason: WinReason::BareKing } => (Status::VariantEnd, Some(winner)),
                Outcome::Draw(DrawReason::Stalemate) => (Status::Stalemate, None),
                Outcome::Draw(_) => (Status::Draw, None),
            };
            g.outcome = Some(outcome);
            self.finish(gi, status, winner, shared, now);
            return true;
        }
        if g.ply() >= shared.config.max_plies {
            self.finish(gi, Status::Draw, None, shared, now);
            return true;
        }
        g.push_state(shared, now);
        g.opp.due = None;
        false
    }

    /// Takes back plies after the bot granted the opponent's proposal.
    pub(crate) fn grant_takeback(&mut self, gi: usize, shared: &Shared, now: Instant) {
        let g = &mut self.games[gi];
        let opp = !g.bot_color;
        // The opponent's move, and the bot's reply if it already moved.
        let plies = if g.turn() == opp { 2 } else { 1 };
        g.take_back(plies);
        g.opp.played = g.opp.played.saturating_sub(1);
        g.takeback_offer = [false; 2];
        g.takeback_offered_at = None;
        g.draw_offer = [false; 2];
        g.takebacks_granted += 1;
        g.last_switch = now;
        g.bot_prompted_at = None;
        g.prompt_provisional = false;
        g.opp.due = None;
        g.push_state(shared, now);
    }

    /// Ends a game: final `gameState`, stream closed, `gameFinish` on the event stream. PyChess:
    /// `gameEnd` only (the move that ended the game is never sent); the stream stays open and
    /// nothing goes to the event stream.
    pub(crate) fn finish(&mut self, gi: usize, status: Status, winner: Option<Color>, shared: &Shared, now: Instant) {
        let g = &mut self.games[gi];
        if g.status != Status::Started {
            return;
        }
        g.times = g.times_now(now);
        g.status = status;
        g.winner = winner;
        g.draw_offer = [false; 2];
        g.takeback_offer = [false; 2];
        g.opp.due = None;
        g.bot_prompted_at = None;
        g.prompt_provisional = false;
        if shared.config.is_pychess() {
            if g.forgotten_when_over {
                // Dropped before the `gameEnd` went out: the stream falls silent for good.
                if let Some(slot) = &mut g.slot {
                    slot.silent_until = Some(after(now, Duration::from_secs(24 * 3600)));
                }
                return;
            }
            // No state with the last move: the bare `gameEnd` alone.
            let line = super::pychess::game_end(g).to_string();
            g.push_line(line, None);
            return;
        }
        g.push_state(shared, now);
        if let Some(slot) = &mut g.slot {
            slot.end = Some(End::Clean);
        }
        let line = self.game_event_line("gameFinish", gi, shared, now);
        self.emit_event(line);
    }

    /// A `gameStart`/`gameFinish` line for game `gi` (PyChess: its minimal `gameStart`).
    pub(crate) fn game_event_line(&self, kind: &str, gi: usize, shared: &Shared, now: Instant) -> String {
        if shared.config.is_pychess() {
            return super::pychess::game_start(&self.games[gi]).to_string();
        }
        let game = super::json::game_info(&self.games[gi], self, now);
        serde_json::json!({ "type": kind, "game": game }).to_string()
    }

    // ---- challenges and game creation ----

    fn challenge_from_spec(&mut self, spec: ChallengeSpec, shared: &Shared) -> ChallengeRec {
        let id = self.new_id();
        let challenger = UserInfo {
            id: spec.challenger.to_lowercase(),
            name: spec.challenger.clone(),
            title: spec.challenger_is_bot.then(|| "BOT".to_owned()),
            rating: spec.rating,
        };
        let final_color = self.final_color(&spec.color);
        let (variant, initial_fen) = if shared.config.is_pychess() {
            // PyChess has no fromPosition: a chess game simply starts from the FEN.
            (spec.variant.clone(), spec.initial_fen)
        } else {
            normalize_variant(&spec.variant, spec.initial_fen)
        };
        // lila picks a Chess960 position when the challenge is made and shows it.
        let initial_fen = match (variant.as_str(), initial_fen) {
            ("chess960", None) => {
                let mut rng = SplitMix64::derive(spec.opponent.seed, 960);
                Some(Position::random_chess960(|| rng.next_u64()).fen())
            }
            (_, fen) => fen,
        };
        ChallengeRec {
            id,
            outgoing: false,
            challenger,
            dest: self.bot_user(shared),
            variant,
            initial_fen,
            tc: TimeControl::from_spec(spec.clock, spec.days),
            rated: spec.rated,
            color: spec.color,
            final_color,
            state: ChallengeState::Pending,
            opponent: spec.opponent,
            fields: BTreeMap::new(),
            dest_name_in_url: String::new(),
        }
    }

    /// The challenger's colour for a requested colour.
    pub(crate) fn final_color(&mut self, requested: &str) -> Color {
        match requested {
            "white" => Color::White,
            "black" => Color::Black,
            _ => {
                if self.rng.below(2) == 0 {
                    Color::White
                } else {
                    Color::Black
                }
            }
        }
    }

    /// A challenge to the bot from a test.
    pub(crate) fn incoming_challenge(&mut self, spec: ChallengeSpec, shared: &Shared) -> String {
        let mut ch = self.challenge_from_spec(spec, shared);
        // Fail in the test, not later in a server thread.
        ch.initial_fen = ch.initial_fen.map(|fen| {
            start_position(&ch.variant, Some(&fen), &mut SplitMix64::new(0))
                .unwrap_or_else(|e| panic!("ChallengeSpec: bad FEN {fen:?}: {e}"));
            fen
        });
        let id = ch.id.clone();
        if shared.config.is_pychess() {
            // PyChess's lobby offers a BOT only the variants it announced.
            let name = super::pychess::variant_name(&ch.variant);
            if self.advertised.last().is_some_and(|names| !names.contains(&name)) {
                ch.state = ChallengeState::NotOffered;
                self.challenges.push(ch);
                return id;
            }
        }
        let line = if shared.config.is_pychess() {
            super::pychess::challenge_event(&ch).to_string()
        } else {
            super::json::challenge_event(&ch, self, shared)
        };
        self.challenges.push(ch);
        self.emit_event(line);
        id
    }

    /// The challenger cancels a pending challenge to the bot.
    pub(crate) fn cancel_incoming(&mut self, id: &str, shared: &Shared) {
        let Some(ci) = self.challenge_index(id) else { return };
        if self.challenges[ci].state != ChallengeState::Pending {
            return;
        }
        self.challenges[ci].state = ChallengeState::Canceled;
        let body = super::json::challenge(&self.challenges[ci], self, shared, None);
        let line = serde_json::json!({ "type": "challengeCanceled", "challenge": body }).to_string();
        self.emit_event(line);
    }

    pub(crate) fn challenge_state(&self, id: &str) -> Option<ChallengeState> {
        self.challenges.iter().find(|c| c.id == id).map(|c| c.state.clone())
    }

    /// A game started by a test without a challenge.
    pub(crate) fn start_game_directly(&mut self, spec: ChallengeSpec, shared: &Shared) -> String {
        let ch = self.challenge_from_spec(spec, shared);
        let gi = self.create_game(&ch, shared, Instant::now()).unwrap_or_else(|e| panic!("start_game: {e}"));
        self.games[gi].id.clone()
    }

    /// Creates the game of an accepted challenge (same id) and announces it with `gameStart`.
    pub(crate) fn create_game(&mut self, ch: &ChallengeRec, shared: &Shared, now: Instant) -> Result<usize, String> {
        let mut rng = SplitMix64::derive(ch.opponent.seed, 960);
        let (rules, start, initial_fen) = start_position(&ch.variant, ch.initial_fen.as_deref(), &mut rng)?;
        let bot_color = if ch.outgoing { ch.final_color } else { !ch.final_color };
        let opp_user = if ch.outgoing { ch.dest.clone() } else { ch.challenger.clone() };
        let initial = ch.tc.initial_ms();
        let game = GameSim {
            id: ch.id.clone(),
            variant: ch.variant.clone(),
            rules,
            start,
            initial_fen,
            board: Game::new(start),
            moves: Vec::new(),
            notation: Vec::new(),
            bot_color,
            opp_user,
            opp: OpponentRun::new(ch.opponent.clone()),
            rated: ch.rated,
            tc: ch.tc,
            times: [initial, initial],
            last_switch: now,
            created_at_ms: epoch_ms(),
            status: Status::Started,
            winner: None,
            outcome: None,
            draw_offer: [false; 2],
            takeback_offer: [false; 2],
            takeback_offered_at: None,
            last_bot_offer_ply: None,
            bot_draw_offers: 0,
            draw_offers_declined_by_bot: 0,
            takebacks_granted: 0,
            chat: Vec::new(),
            chat_log: Vec::new(),
            illegal_moves_from_bot: Vec::new(),
            slot: None,
            game_stream_connections: 0,
            duplicate_game_streams: 0,
            streams_requested_after_end: 0,
            forgotten_when_over: false,
            bot_prompted_at: None,
            prompt_provisional: false,
            reject_moves: 0,
            castling: shared.config.standard_castling,
        };
        self.games.push(game);
        let gi = self.games.len() - 1;
        self.games[gi].forgotten_when_over = self.forget_when_over.contains(&self.games[gi].id);
        let line = self.game_event_line("gameStart", gi, shared, now);
        self.emit_event(line);
        Ok(gi)
    }

    /// The challenged user answers one of the bot's challenges.
    fn answer_outgoing(&mut self, id: &str, shared: &Shared, now: Instant) {
        let Some(ci) = self.challenge_index(id) else { return };
        if self.challenges[ci].state != ChallengeState::Pending {
            return;
        }
        let user = self.challenges[ci].dest.id.clone();
        match self.answers.get(&user).cloned() {
            Some(ChallengeAnswer::Accept(opponent)) => {
                self.challenges[ci].opponent = opponent;
                let ch = self.challenges[ci].clone();
                match self.create_game(&ch, shared, now) {
                    Ok(gi) => {
                        let game_id = self.games[gi].id.clone();
                        self.challenges[ci].state = ChallengeState::Accepted { game_id };
                    }
                    Err(_) => self.decline_outgoing(ci, "generic", shared),
                }
            }
            Some(ChallengeAnswer::Decline(key)) => self.decline_outgoing(ci, &key, shared),
            _ => {}
        }
    }

    fn decline_outgoing(&mut self, ci: usize, key: &str, shared: &Shared) {
        let key = super::json::decline_key(key);
        self.challenges[ci].state = ChallengeState::Declined { reason: key.to_owned() };
        let body = super::json::challenge(&self.challenges[ci], self, shared, None);
        let line = serde_json::json!({ "type": "challengeDeclined", "challenge": body }).to_string();
        self.emit_event(line);
    }

    // ---- views ----

    pub(crate) fn game_view(&self, id: &str, _shared: &Shared) -> Option<GameView> {
        let g = self.games.iter().find(|g| g.id == id)?;
        let now = Instant::now();
        let times = g.times_now(now);
        let bot = g.bot_color.index();
        let opp = (!g.bot_color).index();
        Some(GameView {
            id: g.id.clone(),
            variant: g.variant.clone(),
            initial_fen: g.initial_fen.clone(),
            fen: g.board.position().fen(),
            bot_color: color_name(g.bot_color).to_owned(),
            opponent: g.opp_user.id.clone(),
            moves: g.notation.clone(),
            status: g.status.name().to_owned(),
            winner: g.winner.map(|c| color_name(c).to_owned()),
            outcome: g.outcome,
            bot_draw_offers: g.bot_draw_offers,
            draw_offers_declined_by_bot: g.draw_offers_declined_by_bot,
            takebacks_granted: g.takebacks_granted,
            chat: g.chat.clone(),
            chat_log: g.chat_log.clone(),
            illegal_moves_from_bot: g.illegal_moves_from_bot.clone(),
            wtime_ms: times[Color::White.index()],
            btime_ms: times[Color::Black.index()],
            game_stream_connections: g.game_stream_connections,
            duplicate_game_streams: g.duplicate_game_streams,
            streams_requested_after_end: g.streams_requested_after_end,
            game_stream_open: g.slot.is_some(),
            opponent_offers_draw: g.draw_offer[opp],
            bot_offers_draw: g.draw_offer[bot],
            opponent_proposes_takeback: g.takeback_offer[opp],
        })
    }

    pub(crate) fn game_views(&self, shared: &Shared) -> Vec<GameView> {
        self.games.iter().filter_map(|g| self.game_view(&g.id, shared)).collect()
    }

    pub(crate) fn outgoing_views(&self) -> Vec<OutgoingChallenge> {
        self.challenges
            .iter()
            .filter(|c| c.outgoing)
            .map(|c| OutgoingChallenge {
                id: c.id.clone(),
                dest: c.dest_name_in_url.clone(),
                fields: c.fields.clone(),
                state: c.state.clone(),
            })
            .collect()
    }

    /// The state as text, for failure messages.
    pub(crate) fn dump(&self, shared: &Shared, requests: &[RecordedRequest]) -> String {
        let mut out = String::new();
        let now = Instant::now();
        let _ = writeln!(
            out,
            "== fake {:?} at {} (bot {}, is_bot {}) ==",
            shared.config.platform, shared.base_url, shared.config.bot_id, self.bot_is_bot
        );
        if self.pychess {
            let _ = writeln!(
                out,
                "advertised variants: {:?}; missing endpoints called: {:?}",
                self.advertised, self.missing_calls
            );
        }
        let _ = writeln!(
            out,
            "event stream: {} (opened {} times)",
            if self.event_slot.is_some() { "open" } else { "closed" },
            self.event_stream_connections
        );
        let _ = writeln!(out, "games ({}):", self.games.len());
        for g in &self.games {
            let times = g.times_now(now);
            let _ = writeln!(
                out,
                "  {} {} {} bot={} vs {} status={} winner={:?} wtime={} btime={} stream={} (opened {}) \
                 draw={:?} takeback={:?} illegal={:?} chat={:?}\n    initial: {}\n    moves ({}): {}",
                g.id,
                g.variant,
                g.tc.speed(),
                color_name(g.bot_color),
                g.opp_user.id,
                g.status.name(),
                g.winner.map(color_name),
                times[0],
                times[1],
                if g.slot.is_some() { "open" } else { "closed" },
                g.game_stream_connections,
                g.draw_offer,
                g.takeback_offer,
                g.illegal_moves_from_bot,
                g.chat,
                g.initial_fen,
                g.notation.len(),
                g.notation.join(" ")
            );
        }
        let _ = writeln!(out, "challenges ({}):", self.challenges.len());
        for c in &self.challenges {
            let _ = writeln!(
                out,
                "  {} {} {} -> {} {} {:?} rated={} state={:?}",
                c.id,
                if c.outgoing { "out" } else { "in" },
                c.challenger.id,
                c.dest.id,
                c.variant,
                c.tc,
                c.rated,
                c.state
            );
        }
        let skip = requests.len().saturating_sub(30);
        let _ = writeln!(out, "last requests ({} in all):", requests.len());
        for r in &requests[skip..] {
            let query = if r.query.is_empty() { String::new() } else { format!("?{}", r.query) };
            let body = if r.body.len() > 120 {
                format!("{}…", &r.body[..r.body.floor_char_boundary(120)])
            } else {
                r.body.clone()
            };
            let _ = writeln!(
                out,
                "  +{:>6} ms {} {}{} -> {} {}",
                r.at.saturating_duration_since(requests[0].at).as_millis(),
                r.method,
                r.path,
                query,
                r.status,
                body
            );
        }
        out
    }
}

/// lila turns a `standard` challenge with a FEN into `fromPosition`.
fn normalize_variant(variant: &str, fen: Option<String>) -> (String, Option<String>) {
    match (variant, fen) {
        ("standard", Some(fen)) => ("fromPosition".to_owned(), Some(fen)),
        (v, fen) => (v.to_owned(), fen),
    }
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
