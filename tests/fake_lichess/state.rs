//! The rules that move the simulated world (`world.rs`) on: challenges, games, moves, clocks,
//! the opponents' turns, the lines the streams get, and injected faults.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use ferz_chess::{Color, DrawReason, Game, Move, Outcome, Position, SplitMix64, WinReason};

use super::clock::{after, epoch_ms};
use super::faults::{Fault, HttpFaults};
use super::opponents::OpponentRun;
use super::world::{ChallengeRec, End, GameSim, Out, State, Status, TimeControl, UserInfo, color_name, start_position};
use super::{
    ChallengeAnswer, ChallengeSpec, ChallengeState, FakeConfig, GameView, OutgoingChallenge, RecordedRequest, Shared,
};

impl GameSim {
    /// Queues the current `gameState`.
    pub(crate) fn push_state(&mut self, shared: &Shared, now: Instant) {
        let line = if shared.config.is_pychess() {
            super::pychess_json::game_state(self, now).to_string()
        } else {
            super::json::game_state(self, shared, now).to_string()
        };
        let prompt = self.prompt();
        self.push_line(line, prompt);
    }
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
            http: HttpFaults::default(),
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
            let line = super::pychess_json::game_end(g).to_string();
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
            return super::pychess_json::game_start(&self.games[gi]).to_string();
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
            let name = super::pychess_json::variant_name(&ch.variant);
            if self.advertised.last().is_some_and(|names| !names.contains(&name)) {
                ch.state = ChallengeState::NotOffered;
                self.challenges.push(ch);
                return id;
            }
        }
        let line = if shared.config.is_pychess() {
            super::pychess_json::challenge_event(&ch).to_string()
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

    /// Applies an injected fault.
    pub(crate) fn inject(&mut self, fault: Fault, shared: &Shared) {
        let now = Instant::now();
        let Some(fault) = self.http.arm(fault) else { return };
        match fault {
            Fault::CloseEventStream => {
                if let Some(slot) = &mut self.event_slot {
                    slot.end = Some(End::Clean);
                }
            }
            Fault::ForgetGameWhenOver { game_id } => {
                if let Some(gi) = self.game_index(&game_id) {
                    self.games[gi].forgotten_when_over = true;
                }
                // A challenge's game takes its id.
                self.forget_when_over.push(game_id);
            }
            Fault::SilenceEventStream(d) => {
                if let Some(slot) = &mut self.event_slot {
                    slot.silent_until = Some(after(now, d));
                }
            }
            // Armed in `self.http` above.
            Fault::ServerError { .. } | Fault::RateLimit { .. } | Fault::Malformed { .. } | Fault::Delay { .. } => {}
            Fault::EventLine(line) => self.emit_event_line(line),
            Fault::DuplicateGameStart { game_id } => {
                if let Some(gi) = self.game_index(&game_id) {
                    let line = self.game_event_line("gameStart", gi, shared, now);
                    self.emit_event_line(line);
                }
            }
            Fault::DropGameStream { game_id } => {
                if let Some(gi) = self.game_index(&game_id)
                    && let Some(slot) = &mut self.games[gi].slot
                {
                    slot.end = Some(End::Abrupt);
                }
            }
            Fault::RejectMove { game_id, times } => {
                if let Some(gi) = self.game_index(&game_id) {
                    self.games[gi].reject_moves += times;
                }
            }
        }
    }

    /// Writes a raw line to the event stream, or keeps it for the next connection.
    fn emit_event_line(&mut self, line: String) {
        match &mut self.event_slot {
            Some(slot) => slot.queue.push_back(Out { line, prompt: None }),
            None => self.pending_event_lines.push(line),
        }
    }

    /// The opponent of game `gi` acts, if it is on move and its time has come.
    pub(crate) fn opponent_turn(&mut self, gi: usize, now: Instant, shared: &Shared) {
        let pychess = self.pychess;
        let game = &mut self.games[gi];
        if game.status != Status::Started || game.turn() == game.bot_color {
            game.opp.due = None;
            return;
        }
        if game.opp.script.never_move
            || game.opp.gone_since.is_some()
            || (game.opp.script.held && game.opp.released == 0)
        {
            game.opp.due = None;
            return;
        }
        match game.opp.due {
            None => {
                let think = game.opp.think_time();
                game.opp.due = Some(after(now, think));
                return;
            }
            Some(due) if due <= now => game.opp.due = None,
            Some(_) => return,
        }
        let ply = game.ply();
        let bot = game.bot_color;
        let opp = !bot;
        let script = game.opp.script.clone();
        if let Some((at, _)) = script.gone
            && ply >= at
        {
            game.opp.gone_since = Some(now);
            // PyChess's Bot API has no opponentGone: the opponent just stops moving.
            if !pychess {
                let line = game.opponent_gone_line(now);
                game.push_line(line, None);
            }
            return;
        }
        if script.resign_at == Some(ply) {
            self.finish(gi, Status::Resign, Some(bot), shared, now);
            return;
        }
        if script.abort_at == Some(ply) && ply < 2 {
            self.finish(gi, Status::Aborted, None, shared, now);
            return;
        }
        if game.draw_offer[bot.index()] {
            if script.accepts_draws {
                self.finish(gi, Status::Draw, None, shared, now);
                return;
            }
            // Declined: the flag is gone from the next state.
            game.draw_offer[bot.index()] = false;
        }
        if script.offer_draw_at == Some(ply) && !game.opp.offered_draw {
            game.opp.offered_draw = true;
            game.draw_offer[opp.index()] = true;
            game.push_state(shared, now);
            let think = game.opp.think_time();
            game.opp.due = Some(after(now, think));
            return;
        }
        if game.takeback_offer[opp.index()] {
            let waited_enough = game.takeback_offered_at.is_none_or(|at| now >= after(at, script.takeback_wait));
            if !waited_enough {
                game.opp.due = game.takeback_offered_at.map(|at| after(at, script.takeback_wait));
                return;
            }
            game.takeback_offer[opp.index()] = false;
            game.takeback_offered_at = None;
            game.push_state(shared, now);
        }
        // The bot's own takeback proposals are ignored and withdrawn by this move.
        game.takeback_offer[bot.index()] = false;
        let m = choose_move(game);
        game.opp.played += 1;
        game.opp.released = game.opp.released.saturating_sub(1);
        let Some(m) = m else { return };
        let ended = self.apply_move(gi, m, shared, now);
        let game = &mut self.games[gi];
        if !ended && script.takeback_at.contains(&ply) && !game.opp.proposed_takeback.contains(&ply) {
            game.opp.proposed_takeback.push(ply);
            game.takeback_offer[opp.index()] = true;
            game.takeback_offered_at = Some(now);
            game.push_state(shared, now);
        }
    }
}

/// lila turns a `standard` challenge with a FEN into `fromPosition`.
fn normalize_variant(variant: &str, fen: Option<String>) -> (String, Option<String>) {
    match (variant, fen) {
        ("standard", Some(fen)) => ("fromPosition".to_owned(), Some(fen)),
        (v, fen) => (v.to_owned(), fen),
    }
}

/// The opponent's move: the scripted one when legal, else the engine's, else a random legal
/// move.
fn choose_move(game: &mut GameSim) -> Option<Move> {
    let position = *game.board.position();
    if let Some(text) = game.opp.script.script.get(game.opp.played)
        && let Ok(m) = position.parse_uci(text)
    {
        return Some(m);
    }
    if let Some(m) = game.opp.script.engine.as_ref().and_then(|engine| engine.choose(&game.board)) {
        return Some(m);
    }
    let legal = position.legal_moves();
    if legal.is_empty() {
        return None;
    }
    let index = game.opp.rng.index(legal.len());
    Some(legal[index])
}
