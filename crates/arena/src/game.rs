//! One game between two players, arbitrated by the rules in `ferz-chess`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use ferz_chess::{Color, DrawReason, Game, GameResult, Move, Outcome, Position, Role, WinReason};

use ferz_uci::{EngineScore, Go, PonderStats};

use crate::engine::{MoveRequest, Player, PlayerError};
use crate::openings::Opening;
use crate::spec::{DrawAdjudication, Limit, ResignAdjudication};

/// The rules of a game beyond those of chess: limits, tolerance and adjudication.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameSettings {
    /// Time or work per move.
    pub limit: Limit,
    /// How far past its clock (or its move time) an engine may go before it loses on time,
    /// to absorb process and pipe latency.
    pub time_margin: Duration,
    /// How long to wait for a move under a node or depth limit before calling the engine stalled.
    pub stall_timeout: Duration,
    /// Draw the game once it is this many plies long (book plies included).
    pub max_plies: Option<u32>,
    /// Draw by agreement of both engines' scores.
    pub draw_adjudication: Option<DrawAdjudication>,
    /// Loss by an engine's own hopeless score.
    pub resign_adjudication: Option<ResignAdjudication>,
}

impl Default for GameSettings {
    fn default() -> GameSettings {
        GameSettings {
            limit: Limit::Nodes(1000),
            time_margin: Duration::from_millis(50),
            stall_timeout: Duration::from_secs(60),
            max_plies: None,
            draw_adjudication: None,
            resign_adjudication: None,
        }
    }
}

/// How the game ended, as in the PGN `Termination` tag.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// By the rules: mate, stalemate, bare king, repetition, move rule, material.
    Normal,
    /// An engine overstepped its clock or move time.
    TimeForfeit,
    /// An engine sent an illegal or malformed move.
    IllegalMove,
    /// An engine crashed or closed its pipes.
    Disconnect,
    /// An engine did not answer a node- or depth-limited search in time.
    Stall,
    /// Decided by score adjudication or the ply limit.
    Adjudication,
    /// Not finished: the match was stopped.
    Unterminated,
}

impl Termination {
    /// The PGN `Termination` value.
    #[must_use]
    pub const fn pgn(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::TimeForfeit => "time forfeit",
            Termination::IllegalMove => "illegal move",
            Termination::Disconnect => "abandoned",
            Termination::Stall => "stalled connection",
            Termination::Adjudication => "adjudication",
            Termination::Unterminated => "unterminated",
        }
    }

    /// The termination a PGN `Termination` value names ([`Termination::pgn`] read back).
    #[must_use]
    pub fn from_pgn(tag: &str) -> Option<Termination> {
        [
            Termination::Normal,
            Termination::TimeForfeit,
            Termination::IllegalMove,
            Termination::Disconnect,
            Termination::Stall,
            Termination::Adjudication,
            Termination::Unterminated,
        ]
        .into_iter()
        .find(|t| t.pgn() == tag)
    }
}

/// What an engine reported for the move it played.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MoveReport {
    /// Its evaluation, from its own side.
    pub score: Option<EngineScore>,
    /// The depth of that evaluation.
    pub depth: Option<u32>,
    /// Time it took.
    pub elapsed: Duration,
}

/// A move of the game; book moves have no thought.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// The move.
    pub mv: Move,
    /// The engine's report, `None` for an opening move.
    pub thought: Option<MoveReport>,
}

/// A finished (or abandoned) game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Name of the engine with white.
    pub white: String,
    /// Name of the engine with black.
    pub black: String,
    /// The start position (before the opening moves).
    pub start: Position,
    /// Opening and engine moves.
    pub moves: Vec<PlayedMove>,
    /// The result; `None` while the game is unfinished (the match stopped before it ended).
    pub result: Option<GameResult>,
    /// How it ended.
    pub termination: Termination,
    /// A sentence saying why, for the PGN and the log (`White mates`, `Black loses on time`).
    pub reason: String,
    /// How each colour's pondering went (white, black); zero for players that do not ponder.
    pub ponder: [PonderStats; 2],
}

impl GameRecord {
    /// Plies played by the engines (opening moves excluded).
    #[must_use]
    pub fn engine_plies(&self) -> usize {
        self.moves.iter().filter(|m| m.thought.is_some()).count()
    }
}

/// Capitalised colour name for sentences.
fn side(color: Color) -> &'static str {
    if color.is_white() { "White" } else { "Black" }
}

/// Plays one game from `opening`: `players[0]` has white. Stops early, unfinished, when `stop`
/// is set. Players that ponder think on their opponent's time about the reply they expect, and
/// are stopped when the game ends.
pub fn play_game(
    players: [&mut dyn Player; 2],
    opening: &Opening,
    settings: &GameSettings,
    stop: &AtomicBool,
) -> GameRecord {
    let mut players = players;
    let mut pondering = [None, None];
    let record = play_moves(&mut players, opening, settings, stop, &mut pondering);
    // A search still pondering when the game ends is stopped; it counts as neither hit nor miss.
    for (player, expected) in players.iter_mut().zip(pondering) {
        if expected.is_some() {
            let _ = player.ponder_miss();
        }
    }
    record
}

/// The moves of [`play_game`]; `pondering` holds, per colour, the reply a pondering player
/// expects and when its ponder search started.
fn play_moves(
    players: &mut [&mut dyn Player; 2],
    opening: &Opening,
    settings: &GameSettings,
    stop: &AtomicBool,
    pondering: &mut [Option<(Move, Instant)>; 2],
) -> GameRecord {
    let [white, black] = players;
    let mut record = GameRecord {
        white: white.name().to_owned(),
        black: black.name().to_owned(),
        start: opening.start,
        moves: Vec::new(),
        result: None,
        termination: Termination::Unterminated,
        reason: "match stopped".to_owned(),
        ponder: [PonderStats::default(); 2],
    };
    let mut game = Game::new(opening.start);
    for &m in &opening.moves {
        if game.play(m).is_err() {
            break;
        }
        record.moves.push(PlayedMove { mv: m, thought: None });
    }
    let mut clocks = match settings.limit {
        Limit::Clock { base, .. } => [base, base],
        _ => [Duration::ZERO; 2],
    };
    let mut adjudicator = Adjudicator::default();
    let end = |record: &mut GameRecord, result, termination, reason: String| {
        record.result = Some(result);
        record.termination = termination;
        record.reason = reason;
    };
    loop {
        if let Some(outcome) = game.outcome() {
            end(&mut record, outcome.game_result(), Termination::Normal, describe(outcome, game.position()));
            return record;
        }
        if let Some(limit) = settings.max_plies
            && game.moves().len() >= limit as usize
        {
            end(&mut record, GameResult::Draw, Termination::Adjudication, format!("Draw by the {limit}-ply limit"));
            return record;
        }
        if stop.load(Ordering::Relaxed) {
            return record;
        }
        let us = game.position().turn();
        let player: &mut dyn Player = if us.is_white() { &mut **white } else { &mut **black };
        let (go, timeout) = go_and_timeout(settings, clocks, us);
        let stats = &mut record.ponder[us.index()];
        let reply = match pondering[us.index()].take() {
            // The clock of a ponder hit runs from the hit: `elapsed` counts from there.
            Some((expected, since)) if game.moves().last() == Some(&expected) => {
                stats.hits += 1;
                stats.pondered += since.elapsed();
                player.ponder_hit(timeout)
            }
            Some(_) => {
                stats.misses += 1;
                // A miss: a player that cannot even stop will fail its next search as well.
                let _ = player.ponder_miss();
                player.play(&MoveRequest { game: &game, go, timeout })
            }
            None => player.play(&MoveRequest { game: &game, go, timeout }),
        };
        let reply = match reply {
            Ok(reply) => reply,
            Err(PlayerError::Disconnected(why)) => {
                end(
                    &mut record,
                    GameResult::Win(!us),
                    Termination::Disconnect,
                    format!("{} disconnects: {why}", side(us)),
                );
                return record;
            }
            Err(PlayerError::Timeout(_)) => {
                let (termination, reason) = match settings.limit {
                    Limit::Nodes(_) | Limit::Depth(_) => (
                        Termination::Stall,
                        format!("{}'s connection stalls (no move in {} s)", side(us), timeout.as_secs_f64()),
                    ),
                    _ => (Termination::TimeForfeit, format!("{} loses on time", side(us))),
                };
                let result = time_loss_result(game.position(), us, termination);
                end(&mut record, result, termination, reason);
                return record;
            }
        };
        let allowed = match settings.limit {
            Limit::Clock { .. } => Some(clocks[us.index()] + settings.time_margin),
            Limit::MoveTime(t) => Some(t + settings.time_margin),
            Limit::Nodes(_) | Limit::Depth(_) => None,
        };
        if let Some(allowed) = allowed
            && reply.elapsed > allowed
        {
            let reason = format!("{} loses on time ({} ms used)", side(us), reply.elapsed.as_millis());
            let result = time_loss_result(game.position(), us, Termination::TimeForfeit);
            end(&mut record, result, Termination::TimeForfeit, reason);
            return record;
        }
        if let Limit::Clock { increment, .. } = settings.limit {
            let clock = &mut clocks[us.index()];
            *clock = clock.saturating_sub(reply.elapsed) + increment;
        }
        let mv = match game.position().parse_uci(&reply.bestmove) {
            Ok(mv) => mv,
            Err(_) => {
                let reason =
                    format!("{} makes an illegal move: {:?} in {}", side(us), reply.bestmove, game.position().fen());
                end(&mut record, GameResult::Win(!us), Termination::IllegalMove, reason);
                return record;
            }
        };
        let fullmove = game.position().fullmoves();
        game.play(mv).expect("parse_uci returns legal moves");
        record.ponder[us.index()].moves += 1;
        record.moves.push(PlayedMove {
            mv,
            thought: Some(MoveReport { score: reply.score, depth: reply.depth, elapsed: reply.elapsed }),
        });
        if let Some((result, reason)) = adjudicator.after_move(settings, us, fullmove, reply.score) {
            end(&mut record, result, Termination::Adjudication, reason);
            return record;
        }
        // On the opponent's time: the reply this player expects, if it names one.
        if let Some(expected) = reply.ponder.as_deref().and_then(|text| game.position().parse_uci(text).ok()) {
            let mut pondered = game.clone();
            pondered.play(expected).expect("parse_uci returns legal moves");
            let (go, _) = go_and_timeout(settings, clocks, !us);
            let since = Instant::now();
            if pondered.outcome().is_none() && matches!(player.ponder(&pondered, &go), Ok(true)) {
                pondering[us.index()] = Some((expected, since));
            }
        }
    }
}

/// The `go` of the side `us` to move, and how long to wait for its answer.
fn go_and_timeout(settings: &GameSettings, clocks: [Duration; 2], us: Color) -> (Go, Duration) {
    match settings.limit {
        Limit::Clock { increment, .. } => (
            Go::Clock { wtime: clocks[0], btime: clocks[1], winc: increment, binc: increment },
            clocks[us.index()] + settings.time_margin,
        ),
        Limit::Nodes(n) => (Go::Nodes(n), settings.stall_timeout),
        Limit::Depth(d) => (Go::Depth(d), settings.stall_timeout),
        Limit::MoveTime(t) => (Go::MoveTime(t), t + settings.time_margin),
    }
}

/// The reason sentence for a game the rules ended.
fn describe(outcome: Outcome, position: &Position) -> String {
    match outcome {
        Outcome::Decisive { winner, reason: WinReason::Checkmate } => format!("{} mates", side(winner)),
        Outcome::Decisive { winner, reason: WinReason::Stalemate } => {
            format!("{} is stalemated and loses", side(!winner))
        }
        Outcome::Decisive { winner, reason: WinReason::BareKing } => format!("{} bares the king", side(winner)),
        Outcome::Draw(reason) => {
            let why = match reason {
                DrawReason::Stalemate => "stalemate".to_owned(),
                DrawReason::InsufficientMaterial => "insufficient material".to_owned(),
                DrawReason::BareKings => "bare kings".to_owned(),
                DrawReason::MoveRule => format!("the {}-move rule", position.variant().move_rule_plies() / 2),
                DrawReason::ThreefoldRepetition => "3-fold repetition".to_owned(),
            };
            format!("Draw by {why}")
        }
    }
}

/// A side that runs out of time loses, unless its opponent could never mate (FIDE 6.9): then
/// the game is drawn. Only the clear cases are recognised: the opponent has a bare king, or a
/// king and one minor piece against a bare king. Shatranj has no such rule.
fn time_loss_result(position: &Position, loser: Color, termination: Termination) -> GameResult {
    if termination != Termination::TimeForfeit || position.variant().is_shatranj() {
        return GameResult::Win(!loser);
    }
    let board = position.board();
    let winner_pieces = board.by_color(!loser);
    let loser_pieces = board.by_color(loser);
    let minors = board.by_role(Role::Knight) | board.by_role(Role::Bishop);
    let winner_extra = winner_pieces.count() - 1;
    let cannot_mate =
        winner_extra == 0 || (winner_extra == 1 && (winner_pieces & minors).count() == 1 && loser_pieces.count() == 1);
    if cannot_mate { GameResult::Draw } else { GameResult::Win(!loser) }
}

/// Counts towards score adjudication.
#[derive(Default)]
struct Adjudicator {
    /// Consecutive own moves with a hopeless score, per side.
    losing_streak: [u32; 2],
    /// Each side's last score, from its own side.
    last_score: [Option<i32>; 2],
    /// Consecutive plies with a near-zero score.
    drawish_plies: u32,
}

impl Adjudicator {
    /// Updates the counters with the score of the move `us` just played at move `fullmove`.
    fn after_move(
        &mut self,
        settings: &GameSettings,
        us: Color,
        fullmove: u32,
        score: Option<EngineScore>,
    ) -> Option<(GameResult, String)> {
        let cp = score.map(EngineScore::centipawns);
        self.last_score[us.index()] = cp;
        if let Some(rule) = settings.resign_adjudication {
            let opponent_agrees = !rule.two_sided || self.last_score[(!us).index()].is_some_and(|s| s >= rule.score);
            match cp {
                Some(cp) if cp <= -rule.score && opponent_agrees => self.losing_streak[us.index()] += 1,
                _ => self.losing_streak[us.index()] = 0,
            }
            if self.losing_streak[us.index()] >= rule.move_count {
                let reason = format!(
                    "{} resigns: score at most -{} cp for {} moves (adjudication)",
                    side(us),
                    rule.score,
                    rule.move_count
                );
                return Some((GameResult::Win(!us), reason));
            }
        }
        if let Some(rule) = settings.draw_adjudication {
            match cp {
                Some(cp) if fullmove >= rule.move_number && cp.abs() <= rule.score => self.drawish_plies += 1,
                _ => self.drawish_plies = 0,
            }
            if self.drawish_plies >= 2 * rule.move_count {
                let reason =
                    format!("Draw: both scores within {} cp for {} moves (adjudication)", rule.score, rule.move_count);
                return Some((GameResult::Draw, reason));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::Variant;
    use ferz_uci::Reply;

    /// A scripted player: plays the first legal move (or a given one) and misbehaves on cue.
    struct Scripted {
        name: &'static str,
        /// Per engine move: what to do.
        script: Vec<Action>,
        /// What to do once the script runs out.
        then: Action,
        /// Go commands received.
        seen: Vec<Go>,
    }

    #[derive(Clone, Debug)]
    enum Action {
        /// The first legal move, with this score and elapsed time.
        First(Option<EngineScore>, Duration),
        /// This text as the bestmove.
        Say(&'static str),
        Crash,
        Hang,
    }

    impl Scripted {
        fn new(name: &'static str, then: Action) -> Scripted {
            Scripted { name, script: Vec::new(), then, seen: Vec::new() }
        }

        fn with(mut self, script: Vec<Action>) -> Scripted {
            self.script = script;
            self
        }
    }

    fn quick() -> Action {
        Action::First(Some(EngineScore::Cp(0)), Duration::from_millis(1))
    }

    impl Player for Scripted {
        fn name(&self) -> &str {
            self.name
        }

        fn new_game(&mut self) -> Result<(), PlayerError> {
            Ok(())
        }

        fn play(&mut self, request: &MoveRequest<'_>) -> Result<Reply, PlayerError> {
            self.seen.push(request.go);
            let action = if self.script.is_empty() { self.then.clone() } else { self.script.remove(0) };
            let position = request.game.position();
            match action {
                Action::First(score, elapsed) => {
                    let m = position.legal_moves()[0];
                    Ok(Reply { bestmove: position.uci(m), elapsed, score, depth: Some(1), ..Reply::default() })
                }
                Action::Say(text) => Ok(Reply { bestmove: text.to_owned(), ..Reply::default() }),
                Action::Crash => Err(PlayerError::Disconnected("the engine exited (signal 11)".to_owned())),
                Action::Hang => Err(PlayerError::Timeout(request.timeout)),
            }
        }
    }

    /// A player that names the first legal reply as its ponder move and records what the
    /// arbiter asks of it; `pick` chooses its moves.
    struct Ponderer {
        pick: fn(&Position) -> Move,
        ponders: bool,
        /// `(hits, misses, ponder searches started)`.
        counts: (u32, u32, u32),
        /// The position of the running ponder search.
        pondering: Option<Game>,
        ponder_goes: Vec<Go>,
    }

    impl Ponderer {
        fn new(pick: fn(&Position) -> Move, ponders: bool) -> Ponderer {
            Ponderer { pick, ponders, counts: (0, 0, 0), pondering: None, ponder_goes: Vec::new() }
        }

        fn answer(&self, position: &Position, elapsed: Duration) -> Reply {
            let m = (self.pick)(position);
            let mut after = *position;
            after.play_unchecked(m);
            let ponder = after.legal_moves().first().map(|&r| after.uci(r));
            Reply { bestmove: position.uci(m), ponder, elapsed, depth: Some(1), ..Reply::default() }
        }
    }

    impl Player for Ponderer {
        fn name(&self) -> &str {
            "ponderer"
        }

        fn new_game(&mut self) -> Result<(), PlayerError> {
            Ok(())
        }

        fn play(&mut self, request: &MoveRequest<'_>) -> Result<Reply, PlayerError> {
            assert!(self.pondering.is_none(), "a search while pondering");
            Ok(self.answer(request.game.position(), Duration::from_millis(300)))
        }

        fn ponder(&mut self, game: &Game, go: &Go) -> Result<bool, PlayerError> {
            if self.ponders {
                self.counts.2 += 1;
                self.pondering = Some(game.clone());
                self.ponder_goes.push(*go);
            }
            Ok(self.ponders)
        }

        fn ponder_hit(&mut self, _: Duration) -> Result<Reply, PlayerError> {
            self.counts.0 += 1;
            let game = self.pondering.take().expect("pondering");
            // The time from the hit: the search had mostly been done on the opponent's time.
            Ok(self.answer(game.position(), Duration::from_millis(20)))
        }

        fn ponder_miss(&mut self) -> Result<(), PlayerError> {
            self.counts.1 += 1;
            self.pondering.take().expect("pondering");
            Ok(())
        }
    }

    fn first(position: &Position) -> Move {
        position.legal_moves()[0]
    }

    fn last(position: &Position) -> Move {
        *position.legal_moves().last().expect("a legal move")
    }

    #[test]
    fn pondering_players_continue_on_a_hit_and_are_stopped_on_a_miss_and_at_the_end() {
        let settings = GameSettings {
            limit: Limit::Clock { base: Duration::from_secs(10), increment: Duration::ZERO },
            max_plies: Some(20),
            ..GameSettings::default()
        };
        // The opponent plays the first legal move: exactly the reply expected.
        let mut white = Ponderer::new(first, true);
        let mut black = Ponderer::new(first, false);
        let record = play_game([&mut white, &mut black], &standard(), &settings, &AtomicBool::new(false));
        let (hits, misses, started) = white.counts;
        let white_moves = record.engine_plies().div_ceil(2) as u32;
        // A move whose expected reply ends the game starts no ponder search.
        assert!(
            hits >= 3 && hits + misses == started && started + 1 >= white_moves,
            "{:?} {}",
            white.counts,
            record.reason
        );
        assert!(misses <= 1, "only a ponder search still running at the game's end is stopped");
        assert!(white.pondering.is_none() && black.counts == (0, 0, 0));
        // The record counts the resolved ponder searches: every hit, and no miss here.
        assert_eq!((record.ponder[0].hits, record.ponder[0].misses), (hits, 0));
        assert!(record.ponder[0].pondered > Duration::ZERO);
        assert_eq!(record.ponder[0].moves, white_moves);
        assert_eq!(record.ponder[1].hits + record.ponder[1].misses, 0);
        // White's clock lost 300 ms for its first move, then 20 ms from each hit.
        let white_times: Vec<u128> =
            record.moves.iter().step_by(2).map(|m| m.thought.expect("engine move").elapsed.as_millis()).collect();
        assert_eq!(white_times[..3], [300, 20, 20]);
        // Each ponder search got the clocks as they stood after white's move.
        let Go::Clock { wtime, btime, .. } = white.ponder_goes[1] else { panic!("a clock go") };
        assert_eq!((wtime, btime), (Duration::from_millis(9680), Duration::from_millis(9700)));
        // Another reply every time: every ponder search is a miss and the move is searched anew.
        let mut white = Ponderer::new(first, true);
        let mut black = Ponderer::new(last, false);
        let record = play_game([&mut white, &mut black], &standard(), &settings, &AtomicBool::new(false));
        assert_eq!((white.counts.0, white.counts.1), (0, white.counts.2));
        let stats = record.ponder[0];
        assert!(stats.hits == 0 && stats.misses + 1 >= white.counts.1 && stats.misses > 0, "{stats:?}");
        assert_eq!((stats.hit_rate(), stats.pondered), (Some(0.0), Duration::ZERO));
    }

    fn opening(fen: &str, variant: Variant) -> Opening {
        Opening { start: Position::from_fen(fen, variant).unwrap(), moves: Vec::new() }
    }

    fn play(white: &mut Scripted, black: &mut Scripted, opening: &Opening, settings: &GameSettings) -> GameRecord {
        play_game([white, black], opening, settings, &AtomicBool::new(false))
    }

    fn standard() -> Opening {
        Opening { start: Position::new(Variant::Chess), moves: Vec::new() }
    }

    #[test]
    fn an_illegal_move_loses_and_is_reported_with_the_position() {
        let mut white = Scripted::new("w", quick());
        let mut black = Scripted::new("b", Action::Say("e7e4"));
        let record = play(&mut white, &mut black, &standard(), &GameSettings::default());
        assert_eq!(record.result.expect("a finished game"), GameResult::Win(Color::White));
        assert_eq!(record.termination, Termination::IllegalMove);
        assert!(record.reason.contains("\"e7e4\""), "{}", record.reason);
        assert!(record.reason.contains(" b KQkq - "), "{}", record.reason);
        assert_eq!(record.moves.len(), 1);
        // Also a null move, garbage and no move at all.
        for text in ["0000", "hello", "", "(none)"] {
            let mut white = Scripted::new("w", Action::Say(text));
            let mut black = Scripted::new("b", quick());
            let record = play(&mut white, &mut black, &standard(), &GameSettings::default());
            assert_eq!(
                (record.result.expect("a finished game"), record.termination),
                (GameResult::Win(Color::Black), Termination::IllegalMove)
            );
        }
    }

    #[test]
    fn a_crash_loses() {
        let mut white = Scripted::new("w", quick()).with(vec![quick(), quick()]);
        white.then = Action::Crash;
        let mut black = Scripted::new("b", quick());
        let record = play(&mut white, &mut black, &standard(), &GameSettings::default());
        assert_eq!(
            (record.result.expect("a finished game"), record.termination),
            (GameResult::Win(Color::Black), Termination::Disconnect)
        );
        assert!(record.reason.starts_with("White disconnects: the engine exited"), "{}", record.reason);
        assert_eq!(record.engine_plies(), 4);
    }

    #[test]
    fn no_answer_under_a_node_limit_is_a_stall() {
        let mut white = Scripted::new("w", quick());
        let mut black = Scripted::new("b", Action::Hang);
        let settings = GameSettings { stall_timeout: Duration::from_secs(7), ..GameSettings::default() };
        let record = play(&mut white, &mut black, &standard(), &settings);
        assert_eq!(
            (record.result.expect("a finished game"), record.termination),
            (GameResult::Win(Color::White), Termination::Stall)
        );
        assert!(record.reason.contains("7 s"), "{}", record.reason);
    }

    #[test]
    fn clocks_run_down_and_overstepping_them_loses() {
        let settings = GameSettings {
            limit: Limit::Clock { base: Duration::from_secs(1), increment: Duration::from_millis(100) },
            time_margin: Duration::from_millis(50),
            ..GameSettings::default()
        };
        // 400 ms per move: 1000 → 700 → 400 → 100, then 100 + 50 margin < 400.
        let slow = Action::First(None, Duration::from_millis(400));
        let mut white = Scripted::new("w", slow);
        let mut black = Scripted::new("b", quick());
        let record = play(&mut white, &mut black, &standard(), &settings);
        assert_eq!(
            (record.result.expect("a finished game"), record.termination),
            (GameResult::Win(Color::Black), Termination::TimeForfeit)
        );
        assert_eq!(record.engine_plies(), 6);
        assert_eq!(
            white.seen[..2],
            [
                Go::Clock {
                    wtime: Duration::from_secs(1),
                    btime: Duration::from_secs(1),
                    winc: Duration::from_millis(100),
                    binc: Duration::from_millis(100),
                },
                Go::Clock {
                    wtime: Duration::from_millis(700),
                    btime: Duration::from_millis(1099),
                    winc: Duration::from_millis(100),
                    binc: Duration::from_millis(100),
                },
            ]
        );
        // Within the margin is not a loss.
        let mut white = Scripted::new("w", Action::Crash).with(vec![Action::First(None, Duration::from_millis(1040))]);
        let mut black = Scripted::new("b", quick());
        let record = play(&mut white, &mut black, &standard(), &settings);
        assert_eq!(record.termination, Termination::Disconnect, "{}", record.reason);
        // A timeout reported by the player is a time forfeit under a clock.
        let mut white = Scripted::new("w", Action::Hang);
        let record = play(&mut white, &mut Scripted::new("b", quick()), &standard(), &settings);
        assert_eq!(
            (record.result.expect("a finished game"), record.termination),
            (GameResult::Win(Color::Black), Termination::TimeForfeit)
        );
    }

    #[test]
    fn losing_on_time_against_a_lone_king_is_a_draw() {
        let settings = GameSettings {
            limit: Limit::MoveTime(Duration::from_millis(100)),
            time_margin: Duration::from_millis(10),
            ..GameSettings::default()
        };
        let lone = opening("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", Variant::Chess);
        let mut white = Scripted::new("w", Action::First(None, Duration::from_millis(500)));
        let record = play(&mut white, &mut Scripted::new("b", quick()), &lone, &settings);
        assert_eq!(
            (record.result.expect("a finished game"), record.termination),
            (GameResult::Draw, Termination::TimeForfeit)
        );
        let strong = opening("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1", Variant::Chess);
        let mut black = Scripted::new("b", Action::First(None, Duration::from_millis(500)));
        let record = play(&mut Scripted::new("w", quick()), &mut black, &strong, &settings);
        assert_eq!(record.result.expect("a finished game"), GameResult::Win(Color::White));
    }

    #[test]
    fn rules_end_games() {
        // Fool's mate by scripted moves.
        let mut white = Scripted::new("w", quick()).with(vec![Action::Say("f2f3"), Action::Say("g2g4")]);
        let mut black = Scripted::new("b", quick()).with(vec![Action::Say("e7e5"), Action::Say("d8h4")]);
        let record = play(&mut white, &mut black, &standard(), &GameSettings::default());
        assert_eq!(
            (record.result.expect("a finished game"), record.termination),
            (GameResult::Win(Color::Black), Termination::Normal)
        );
        assert_eq!(record.reason, "Black mates");
        // Shatranj: a stalemated side loses. Ferz c5-b6 takes a7 from the king on a8; the black
        // pawn (so that black is not bared) is blocked.
        let shatranj = opening("k7/2K5/8/2Q5/8/7p/7P/8 w - - 0 1", Variant::Shatranj);
        let mut white = Scripted::new("w", quick()).with(vec![Action::Say("c5b6")]);
        let record = play(&mut white, &mut Scripted::new("b", quick()), &shatranj, &GameSettings::default());
        assert_eq!(
            (record.result.expect("a finished game"), record.reason.as_str()),
            (GameResult::Win(Color::White), "Black is stalemated and loses")
        );
        // Chess: the same kind of stalemate is a draw.
        let chess = opening("k7/8/1QK5/8/8/8/8/8 b - - 0 1", Variant::Chess);
        let record =
            play(&mut Scripted::new("w", quick()), &mut Scripted::new("b", quick()), &chess, &GameSettings::default());
        assert_eq!(
            (record.result.expect("a finished game"), record.reason.as_str()),
            (GameResult::Draw, "Draw by stalemate")
        );
        // Insufficient material ends at once.
        let bare = opening("4k3/8/8/8/8/8/8/4KN2 w - - 0 1", Variant::Chess);
        let record =
            play(&mut Scripted::new("w", quick()), &mut Scripted::new("b", quick()), &bare, &GameSettings::default());
        assert_eq!(
            (record.result.expect("a finished game"), record.reason.as_str()),
            (GameResult::Draw, "Draw by insufficient material")
        );
        assert_eq!(record.engine_plies(), 0);
    }

    #[test]
    fn repetition_and_the_ply_limit_draw() {
        let shuffle = |a: &'static str, b: &'static str| {
            let mut script = Vec::new();
            for _ in 0..4 {
                script.push(Action::Say(a));
                script.push(Action::Say(b));
            }
            script
        };
        let mut white = Scripted::new("w", quick()).with(shuffle("g1f3", "f3g1"));
        let mut black = Scripted::new("b", quick()).with(shuffle("g8f6", "f6g8"));
        let record = play(&mut white, &mut black, &standard(), &GameSettings::default());
        assert_eq!(
            (record.result.expect("a finished game"), record.reason.as_str()),
            (GameResult::Draw, "Draw by 3-fold repetition")
        );
        assert_eq!(record.moves.len(), 8);
        let settings = GameSettings { max_plies: Some(5), ..GameSettings::default() };
        let record = play(&mut Scripted::new("w", quick()), &mut Scripted::new("b", quick()), &standard(), &settings);
        assert_eq!(
            (record.result.expect("a finished game"), record.termination),
            (GameResult::Draw, Termination::Adjudication)
        );
        assert_eq!(record.moves.len(), 5);
    }

    #[test]
    fn score_adjudication() {
        let resign = GameSettings {
            resign_adjudication: Some(ResignAdjudication { move_count: 3, score: 500, two_sided: false }),
            ..GameSettings::default()
        };
        let losing = Action::First(Some(EngineScore::Cp(-600)), Duration::ZERO);
        let mut black = Scripted::new("b", losing.clone()).with(vec![losing.clone(), quick()]);
        let record = play(&mut Scripted::new("w", quick()), &mut black, &standard(), &resign);
        assert_eq!(
            (record.result.expect("a finished game"), record.termination),
            (GameResult::Win(Color::White), Termination::Adjudication)
        );
        // Streak broken at move 2: -600, 0, -600, -600, -600 ends at black's fifth move.
        assert_eq!(record.engine_plies(), 10);
        // Two-sided: white sees only +100, so black never resigns; the ply limit ends the game.
        let two_sided = GameSettings {
            resign_adjudication: Some(ResignAdjudication { move_count: 3, score: 500, two_sided: true }),
            max_plies: Some(20),
            ..GameSettings::default()
        };
        let mut white = Scripted::new("w", Action::First(Some(EngineScore::Cp(100)), Duration::ZERO));
        let mut black = Scripted::new("b", losing);
        let record = play(&mut white, &mut black, &standard(), &two_sided);
        assert!(!record.reason.contains("resigns"), "{}", record.reason);
        let mut white = Scripted::new("w", Action::First(Some(EngineScore::Mate(4)), Duration::ZERO));
        let mut black = Scripted::new("b", Action::First(Some(EngineScore::Mate(-4)), Duration::ZERO));
        let record = play(&mut white, &mut black, &standard(), &two_sided);
        assert_eq!(record.result.expect("a finished game"), GameResult::Win(Color::White));
        assert_eq!(record.moves.len(), 6);

        let draw = GameSettings {
            draw_adjudication: Some(DrawAdjudication { move_number: 3, move_count: 2, score: 10 }),
            ..GameSettings::default()
        };
        let record = play(&mut Scripted::new("w", quick()), &mut Scripted::new("b", quick()), &standard(), &draw);
        assert_eq!(
            (record.result.expect("a finished game"), record.termination),
            (GameResult::Draw, Termination::Adjudication)
        );
        // Plies from move 3 on: 3. w, 3... b, 4. w, 4... b.
        assert_eq!(record.moves.len(), 8);
    }

    #[test]
    fn book_moves_are_played_first_and_a_stop_leaves_the_game_unfinished() {
        let start = Position::new(Variant::Chess);
        let e4 = start.parse_uci("e2e4").unwrap();
        let opening = Opening { start, moves: vec![e4] };
        let stop = AtomicBool::new(true);
        let mut white = Scripted::new("w", quick());
        let mut black = Scripted::new("b", quick());
        let record = play_game([&mut white, &mut black], &opening, &GameSettings::default(), &stop);
        assert_eq!(record.result, None);
        assert_eq!(record.moves, vec![PlayedMove { mv: e4, thought: None }]);
        assert!(black.seen.is_empty());
    }
}
