//! Chat commands in the player and spectator rooms: `!help` (`!commands`), `!name`, `!eval`,
//! `!wait` and `!queue`, with replies Lichess will not take for a flood.
//!
//! Everything here is pure: the game task says who wrote what, where and when, and what it
//! knows (its last evaluation, whether the game is over, the queue), and gets back the reply or
//! why there is none. Lichess drops chat lines that come too fast (a sixth line within ten
//! seconds from one account) or repeat one of the account's last two, and mutes accounts that
//! keep flooding; so replies are held to one per room every `reply_interval_s`, a per-game
//! cap, and an account-wide budget shared by every game ([`ChatHub`]) of four lines in ten
//! seconds, one under Lichess's limit so that a greeting still gets through.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ferz_engine::Score;
use ferz_lichess::{Challenge, ChatRoom};
use tokio::sync::watch;

use crate::config::{ChatConfig, EngineChoice, EngineConfig, EngineKind, EvalAudience};

/// Lichess's longest chat line, in characters.
pub(crate) const MAX_CHAT_CHARS: usize = 140;
/// Replies the account may write within [`ACCOUNT_WINDOW`], greetings included (Lichess refuses
/// the sixth line; one is left for a greeting).
const ACCOUNT_BURST: usize = 4;
/// Unknown commands of a game logged at info; the rest go to debug.
const UNKNOWN_LOGGED: u32 = 3;
/// The window of Lichess's flood rule.
const ACCOUNT_WINDOW: Duration = Duration::from_secs(10);

/// A command the bot answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Command {
    /// `!help` or `!commands`: the list of commands.
    Help,
    /// `!name`: the engine, its version and settings.
    Name,
    /// `!eval`: our last evaluation, depth and principal variation.
    Eval,
    /// `!wait`: wait longer for the opponent's first move (once per game).
    Wait,
    /// `!queue`: the challenges waiting for a slot.
    Queue,
}

/// What a chat line is, as a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Parsed {
    /// Not a command (no leading `!`): ordinary chat.
    Chat,
    /// A command the bot does not know, by its lower-case word (at most 20 characters).
    Unknown(String),
    /// A command the bot answers.
    Known(Command),
}

impl Command {
    /// Reads a chat line: a `!` and a word, case-insensitive; what follows the word is ignored.
    #[must_use]
    pub(crate) fn parse(text: &str) -> Parsed {
        let Some(rest) = text.trim().strip_prefix('!') else { return Parsed::Chat };
        let word = rest.split_whitespace().next().unwrap_or("").to_lowercase();
        match word.as_str() {
            "help" | "commands" => Parsed::Known(Command::Help),
            "name" => Parsed::Known(Command::Name),
            "eval" => Parsed::Known(Command::Eval),
            "wait" => Parsed::Known(Command::Wait),
            "queue" => Parsed::Known(Command::Queue),
            // Only the word, cut short: the line is someone else's text and goes to the log.
            _ => Parsed::Unknown(word.chars().take(20).collect()),
        }
    }
}

/// Who wrote a chat line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Speaker {
    /// The bot itself (its lines come back on the game stream).
    Us,
    /// The server (`lichess`): notices such as "Draw offer accepted".
    Server,
    /// Our opponent, in either room.
    Opponent,
    /// Anyone else: a spectator.
    Spectator,
}

impl Speaker {
    /// Who `username` is in `room`, given our account id and the opponent's name.
    /// Only players write in the player room, so anyone there but us and the server is the
    /// opponent (whose name the task may not know yet).
    #[must_use]
    pub(crate) fn of(username: &str, room: &ChatRoom, me: &str, opponent: &str) -> Speaker {
        if username.eq_ignore_ascii_case(me) {
            Speaker::Us
        } else if username.eq_ignore_ascii_case("lichess") {
            Speaker::Server
        } else if matches!(room, ChatRoom::Player) || (!opponent.is_empty() && username.eq_ignore_ascii_case(opponent))
        {
            Speaker::Opponent
        } else {
            Speaker::Spectator
        }
    }
}

/// Our evaluation after our last searched move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct EvalNote {
    /// The score from white's point of view.
    pub white_score: Score,
    /// The depth of the search.
    pub depth: u32,
    /// The principal variation in SAN, from the position we searched, a move number before
    /// each white move (and before the first move): `14... Nf6`, `15. Bc4`, `e5`.
    pub pv: Vec<String>,
}

/// What `!wait` found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Extension {
    /// The abort timer was pushed back.
    Granted,
    /// This game's one extension was given already.
    AlreadyGranted,
    /// Nothing to wait for: the game is under way (or the bot never aborts).
    NotWaiting,
}

/// A challenge waiting for a slot, as `!queue` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Waiting {
    /// The challenger's name.
    pub challenger: String,
    /// `3+2`, `2d` or `∞`.
    pub time_control: String,
}

/// The bot loop's queue, as game tasks see it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct QueueView {
    /// Games in play (accepted challenges included).
    pub playing: usize,
    /// Challenges waiting for a slot, first in line first.
    pub waiting: Vec<Waiting>,
}

impl QueueView {
    /// The view of `playing` games and the `waiting` challenges.
    #[must_use]
    pub(crate) fn of<'a>(playing: usize, waiting: impl IntoIterator<Item = &'a Challenge>) -> QueueView {
        let waiting = waiting
            .into_iter()
            .map(|c| Waiting {
                challenger: if c.challenger.name.is_empty() {
                    c.challenger.user_id()
                } else {
                    c.challenger.name.clone()
                },
                time_control: time_control_text(c),
            })
            .collect();
        QueueView { playing, waiting }
    }
}

/// `3+2` for a clock of 180 s and 2 s, `2d` for two days a move, `∞` without a clock.
fn time_control_text(challenge: &Challenge) -> String {
    use ferz_lichess::models::TimeControl;
    match &challenge.time_control {
        Some(TimeControl::Clock { limit: Some(limit), increment, .. }) => {
            let minutes = match limit {
                15 => "¼".to_owned(),
                30 => "½".to_owned(),
                45 => "¾".to_owned(),
                90 => "1½".to_owned(),
                l => (l / 60).to_string(),
            };
            format!("{minutes}+{}", increment.unwrap_or(0))
        }
        Some(TimeControl::Correspondence { days_per_turn: Some(days) }) => format!("{days}d"),
        Some(TimeControl::Correspondence { days_per_turn: None }) => "corr".to_owned(),
        _ => "∞".to_owned(),
    }
}

/// What a game task knows when it answers.
#[derive(Clone, Debug)]
pub(crate) struct Facts<'a> {
    /// The `!name` answer ([`name_line`]).
    pub name: &'a str,
    /// Our last evaluation, if we searched a move.
    pub eval: Option<&'a EvalNote>,
    /// The game is over.
    pub game_over: bool,
    /// What `!wait` did (only read for `!wait`).
    pub extension: Extension,
    /// Seconds `!wait` adds.
    pub wait_s: u64,
    /// The bot loop's queue.
    pub queue: &'a QueueView,
}

/// The reply to `command` from `speaker`, under `audience`; at most [`MAX_CHAT_CHARS`].
#[must_use]
pub(crate) fn reply(command: Command, speaker: Speaker, audience: EvalAudience, facts: &Facts<'_>) -> String {
    let text = match command {
        Command::Help => "Commands: !name (engine and settings), !eval (my evaluation), !wait (wait longer for a first move), !queue (challenges waiting)".to_owned(),
        Command::Name => facts.name.to_owned(),
        Command::Eval => eval_reply(speaker, audience, facts),
        Command::Wait => match (speaker, facts.extension) {
            (Speaker::Spectator, _) => "Only my opponent can ask me to wait.".to_owned(),
            (_, Extension::Granted) => format!("OK, I'll wait {} more seconds for the first move.", facts.wait_s),
            (_, Extension::AlreadyGranted) => "I've already waited longer once in this game.".to_owned(),
            (_, Extension::NotWaiting) => "Nothing to wait for: the game is under way.".to_owned(),
        },
        Command::Queue => queue_reply(facts.queue),
    };
    fit(&text)
}

fn eval_reply(speaker: Speaker, audience: EvalAudience, facts: &Facts<'_>) -> String {
    let allowed = match audience {
        EvalAudience::Everyone => true,
        EvalAudience::Spectators => speaker != Speaker::Opponent || facts.game_over,
        EvalAudience::Nobody => false,
    };
    if !allowed {
        return match audience {
            EvalAudience::Nobody => "I keep my evaluation to myself.".to_owned(),
            _ => "I'll tell you my evaluation after the game.".to_owned(),
        };
    }
    let Some(eval) = facts.eval else {
        return "No evaluation yet: I haven't searched a move in this game.".to_owned();
    };
    let head = format!("Eval {} (white's view), depth {}", score_text(eval.white_score), eval.depth);
    let mut text = head.clone();
    // Whole moves only, as many as fit.
    for (i, mv) in eval.pv.iter().enumerate() {
        let next = format!("{text}{}{mv}", if i == 0 { ": " } else { " " });
        if next.chars().count() > MAX_CHAT_CHARS {
            break;
        }
        text = next;
    }
    text
}

fn queue_reply(queue: &QueueView) -> String {
    let games = match queue.playing {
        1 => "1 game".to_owned(),
        n => format!("{n} games"),
    };
    if queue.waiting.is_empty() {
        return format!("Playing {games}; no challenges waiting.");
    }
    let count = queue.waiting.len();
    let mut text = format!("Playing {games}; {count} waiting:");
    for (i, w) in queue.waiting.iter().enumerate() {
        let entry = format!("{} {} ({})", if i == 0 { "" } else { "," }, w.challenger, w.time_control);
        let left = count - i - 1;
        // Leave room for ", and N more" after this entry, unless it is the last.
        let tail = if left > 0 { format!(", and {left} more") } else { String::new() };
        if (text.clone() + &entry + &tail).chars().count() > MAX_CHAT_CHARS {
            let rest = count - i;
            return format!("{text}{} and {rest} more", if i == 0 { "" } else { "," });
        }
        text.push_str(&entry);
    }
    text
}

/// `+0.31`, `-1.20`, `#3` (white mates in 3), `#-2` (black mates in 2).
#[must_use]
pub(crate) fn score_text(score: Score) -> String {
    match score {
        Score::Cp(cp) => format!("{:+.2}", f64::from(cp) / 100.0),
        Score::Mate(n) => format!("#{n}"),
    }
}

/// `text` cut to [`MAX_CHAT_CHARS`] characters (Lichess refuses longer lines), with `…` when cut.
#[must_use]
pub(crate) fn fit(text: &str) -> String {
    if text.chars().count() <= MAX_CHAT_CHARS {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(MAX_CHAT_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// The `!name` answer: who we are, the engine that plays this game (`choice`, the variant's
/// engine) and a few settings. An external engine is named by its program's file name only:
/// the directories it lives in are the operator's business.
#[must_use]
pub(crate) fn name_line(my_name: &str, choice: &EngineChoice, engine: &EngineConfig, has_book: bool) -> String {
    let book = if has_book { "opening book" } else { "no book" };
    let text = match choice.kind {
        EngineKind::Ferz => {
            let threads =
                if engine.threads == 1 { "1 thread".to_owned() } else { format!("{} threads", engine.threads) };
            let mut parts = vec![format!("{} MB hash", engine.hash_mb), threads];
            if engine.nodes > 0 {
                parts.push(format!("{} nodes a move", engine.nodes));
            }
            parts.push(book.to_owned());
            format!(
                "{my_name} runs the ferz engine {} in process ({}). Type !help for commands.",
                env!("CARGO_PKG_VERSION"),
                parts.join(", ")
            )
        }
        EngineKind::Uci => {
            let program = choice.launch.program.file_name().map_or_else(
                || choice.launch.program.display().to_string(),
                |name| name.to_string_lossy().into_owned(),
            );
            format!(
                "{my_name} runs the UCI engine {program} through ferz {} ({book}). Type !help for commands.",
                env!("CARGO_PKG_VERSION")
            )
        }
    };
    fit(&text)
}

/// Why a reply was not sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hold {
    /// This room had a reply less than `reply_interval_s` ago.
    Interval,
    /// The game's reply budget is spent.
    GameCap,
    /// The account wrote four lines in the last ten seconds (all games).
    Account,
    /// The reply is (nearly) one of the account's last two lines, which Lichess drops.
    Repeat,
}

impl Hold {
    /// Why, for the log.
    #[must_use]
    pub(crate) fn reason(self) -> &'static str {
        match self {
            Hold::Interval => "one reply per room every reply_interval_s",
            Hold::GameCap => "max_replies_per_game reached",
            Hold::Account => "the account wrote 4 chat lines in the last 10 s (Lichess's flood rule)",
            Hold::Repeat => "Lichess drops a line like one of the account's last two",
        }
    }
}

/// One game's reply budget: one reply per room every `interval`, at most `cap` per game.
#[derive(Clone, Debug)]
pub(crate) struct GameChat {
    interval: Duration,
    cap: u32,
    /// When each room (player, spectator) last got a reply.
    last: [Option<Instant>; 2],
    sent: u32,
    /// A hold was logged at info since the last reply (a flood logs one line, not hundreds).
    hold_logged: bool,
    /// Unknown commands seen in this game.
    unknown: u32,
}

impl GameChat {
    /// The budget `[chat]` sets.
    #[must_use]
    pub(crate) fn new(config: &ChatConfig) -> GameChat {
        GameChat {
            interval: Duration::from_secs(config.reply_interval_s),
            cap: config.max_replies_per_game,
            last: [None, None],
            sent: 0,
            hold_logged: false,
            unknown: 0,
        }
    }

    /// Whether a reply may go to `room` at `now` (this game's rules only).
    ///
    /// # Errors
    /// The rule that holds it back.
    pub(crate) fn check(&self, room: &ChatRoom, now: Instant) -> Result<(), Hold> {
        if self.sent >= self.cap {
            return Err(Hold::GameCap);
        }
        match self.last[room_index(room)] {
            Some(at) if now.saturating_duration_since(at) < self.interval => Err(Hold::Interval),
            _ => Ok(()),
        }
    }

    /// A reply went to `room` at `now`.
    pub(crate) fn sent(&mut self, room: &ChatRoom, now: Instant) {
        self.last[room_index(room)] = Some(now);
        self.sent += 1;
        self.hold_logged = false;
    }

    /// Whether a hold should be logged at info: the first since the last reply (the rest go to
    /// debug, so a flood of commands does not flood the log either).
    pub(crate) fn log_hold(&mut self) -> bool {
        !std::mem::replace(&mut self.hold_logged, true)
    }

    /// An unknown command came: whether to log it at info (the first few of a game; the rest
    /// go to debug).
    pub(crate) fn log_unknown(&mut self) -> bool {
        self.unknown += 1;
        self.unknown <= UNKNOWN_LOGGED
    }
}

fn room_index(room: &ChatRoom) -> usize {
    usize::from(!matches!(room, ChatRoom::Player))
}

/// The account's recent chat lines, every game's: Lichess's flood rule counts per account.
#[derive(Clone, Debug, Default)]
pub(crate) struct AccountChat {
    /// (when, text), newest last; only the last four matter.
    recent: VecDeque<(Instant, String)>,
}

impl AccountChat {
    /// Whether the account may write `text` at `now`.
    ///
    /// # Errors
    /// [`Hold::Account`] when it wrote four lines within the last ten seconds,
    /// [`Hold::Repeat`] when `text` is nearly one of its last two lines.
    pub(crate) fn check(&self, text: &str, now: Instant) -> Result<(), Hold> {
        if self.recent.len() >= ACCOUNT_BURST
            && self
                .recent
                .iter()
                .rev()
                .nth(ACCOUNT_BURST - 1)
                .is_some_and(|(at, _)| now.saturating_duration_since(*at) < ACCOUNT_WINDOW)
        {
            return Err(Hold::Account);
        }
        if self.recent.iter().rev().take(2).any(|(_, last)| similar(last, text)) {
            return Err(Hold::Repeat);
        }
        Ok(())
    }

    /// The account wrote `text` at `now` (a reply, a greeting).
    pub(crate) fn note(&mut self, text: &str, now: Instant) {
        self.recent.push_back((now, text.to_owned()));
        while self.recent.len() > ACCOUNT_BURST {
            self.recent.pop_front();
        }
    }
}

/// Lichess's test for a repeated line: an edit distance below an eighth of the shorter line
/// (at least 2).
#[must_use]
pub(crate) fn similar(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let limit = (a.len().min(b.len()) >> 3).max(2);
    if a.len().abs_diff(b.len()) >= limit {
        return false;
    }
    // Levenshtein, one row at a time.
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()] < limit
}

/// What every game task shares for chat: the queue's view and the account's recent lines.
#[derive(Clone, Debug)]
pub(crate) struct ChatHub {
    queue: watch::Receiver<QueueView>,
    account: Arc<Mutex<AccountChat>>,
}

/// The bot loop's end of the queue view.
#[derive(Debug)]
pub(crate) struct QueuePublisher(watch::Sender<QueueView>);

/// A hub and the publisher that feeds its queue view.
#[must_use]
pub(crate) fn hub() -> (ChatHub, QueuePublisher) {
    let (tx, rx) = watch::channel(QueueView::default());
    (ChatHub { queue: rx, account: Arc::default() }, QueuePublisher(tx))
}

impl ChatHub {
    /// The queue as the bot loop last published it.
    #[must_use]
    pub(crate) fn queue(&self) -> QueueView {
        self.queue.borrow().clone()
    }

    /// Whether the account may write `text` now ([`AccountChat::check`]).
    ///
    /// # Errors
    /// The rule that holds it back.
    pub(crate) fn check(&self, text: &str, now: Instant) -> Result<(), Hold> {
        self.account.lock().unwrap_or_else(std::sync::PoisonError::into_inner).check(text, now)
    }

    /// The account wrote `text` at `now`.
    pub(crate) fn note(&self, text: &str, now: Instant) {
        self.account.lock().unwrap_or_else(std::sync::PoisonError::into_inner).note(text, now);
    }
}

impl QueuePublisher {
    /// Publishes the queue; game tasks see it at their next `!queue`. Cheap when unchanged.
    pub(crate) fn publish(&self, view: QueueView) {
        self.0.send_if_modified(|old| {
            let changed = *old != view;
            if changed {
                *old = view;
            }
            changed
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    fn facts<'a>(eval: Option<&'a EvalNote>, game_over: bool, queue: &'a QueueView) -> Facts<'a> {
        Facts { name: "ferzbot runs ferz", eval, game_over, extension: Extension::Granted, wait_s: 60, queue }
    }

    fn note() -> EvalNote {
        EvalNote { white_score: Score::Cp(-31), depth: 14, pv: vec!["14... Nf6".into(), "15. Bc4".into(), "e5".into()] }
    }

    #[test]
    fn commands_are_a_bang_and_a_word_in_any_case() {
        assert_eq!(Command::parse("!help"), Parsed::Known(Command::Help));
        assert_eq!(Command::parse("  !COMMANDS please"), Parsed::Known(Command::Help));
        assert_eq!(Command::parse("!Eval"), Parsed::Known(Command::Eval));
        assert_eq!(Command::parse("!name"), Parsed::Known(Command::Name));
        assert_eq!(Command::parse("!wAiT"), Parsed::Known(Command::Wait));
        assert_eq!(Command::parse("!queue"), Parsed::Known(Command::Queue));
        assert_eq!(Command::parse("good luck!"), Parsed::Chat);
        assert_eq!(Command::parse("eval"), Parsed::Chat);
        assert_eq!(Command::parse("!"), Parsed::Unknown(String::new()));
        assert_eq!(Command::parse("!Takeback now"), Parsed::Unknown("takeback".into()));
        let long = format!("!{}", "x".repeat(500));
        assert_eq!(Command::parse(&long), Parsed::Unknown("x".repeat(20)), "the log gets a short word");
    }

    #[test]
    fn speakers_by_name_and_room() {
        let who = |user: &str, room: ChatRoom| Speaker::of(user, &room, "ferzbot", "Alice");
        assert_eq!(who("FerzBot", ChatRoom::Player), Speaker::Us);
        assert_eq!(who("ferzbot", ChatRoom::Spectator), Speaker::Us);
        assert_eq!(who("lichess", ChatRoom::Player), Speaker::Server);
        assert_eq!(who("alice", ChatRoom::Player), Speaker::Opponent);
        assert_eq!(who("alice", ChatRoom::Spectator), Speaker::Opponent, "the opponent is never a spectator");
        assert_eq!(who("bob", ChatRoom::Spectator), Speaker::Spectator);
        assert_eq!(Speaker::of("bob", &ChatRoom::Player, "ferzbot", ""), Speaker::Opponent, "name not known yet");
    }

    #[test]
    fn the_opponent_gets_no_evaluation_during_the_game_by_default() {
        let queue = QueueView::default();
        let eval = note();
        let during = facts(Some(&eval), false, &queue);
        let after = facts(Some(&eval), true, &queue);
        let answer = "Eval -0.31 (white's view), depth 14: 14... Nf6 15. Bc4 e5";
        let spectators = EvalAudience::Spectators;
        assert_eq!(reply(Command::Eval, Speaker::Spectator, spectators, &during), answer);
        let withheld = reply(Command::Eval, Speaker::Opponent, spectators, &during);
        assert_eq!(withheld, "I'll tell you my evaluation after the game.");
        assert!(!withheld.contains("0.31") && !withheld.contains("Nf6"));
        assert_eq!(reply(Command::Eval, Speaker::Opponent, spectators, &after), answer);
        assert_eq!(reply(Command::Eval, Speaker::Opponent, EvalAudience::Everyone, &during), answer);
        for speaker in [Speaker::Opponent, Speaker::Spectator] {
            let none = reply(Command::Eval, speaker, EvalAudience::Nobody, &after);
            assert_eq!(none, "I keep my evaluation to myself.");
        }
        let nothing = facts(None, false, &queue);
        assert!(reply(Command::Eval, Speaker::Spectator, spectators, &nothing).starts_with("No evaluation yet"));
        let mate = EvalNote { white_score: Score::Mate(-2), depth: 30, pv: Vec::new() };
        assert_eq!(
            reply(Command::Eval, Speaker::Spectator, spectators, &facts(Some(&mate), false, &queue)),
            "Eval #-2 (white's view), depth 30"
        );
    }

    #[test]
    fn every_reply_fits_the_chat_limit() {
        let long_pv = EvalNote { pv: (0..80).map(|i| format!("{i}. Nf3")).collect(), ..note() };
        let waiting: Vec<Waiting> = (0..30)
            .map(|i| Waiting { challenger: format!("challenger_with_a_long_name_{i}"), time_control: "3+2".into() })
            .collect();
        let queue = QueueView { playing: 3, waiting };
        let long_name = "n".repeat(300);
        let mut facts = facts(Some(&long_pv), false, &queue);
        facts.name = &long_name;
        for command in [Command::Help, Command::Name, Command::Eval, Command::Wait, Command::Queue] {
            for speaker in [Speaker::Opponent, Speaker::Spectator] {
                let text = reply(command, speaker, EvalAudience::Everyone, &facts);
                assert!(text.chars().count() <= MAX_CHAT_CHARS, "{command:?}: {} chars: {text}", text.chars().count());
                assert!(!text.is_empty());
            }
        }
        // The PV is cut between moves, the queue between names with a count of the rest.
        let eval = reply(Command::Eval, Speaker::Spectator, EvalAudience::Everyone, &facts);
        assert!(eval.ends_with(". Nf3"), "{eval}");
        let queue_text = reply(Command::Queue, Speaker::Spectator, EvalAudience::Everyone, &facts);
        assert!(
            queue_text.starts_with("Playing 3 games; 30 waiting: challenger_with_a_long_name_0 (3+2),"),
            "{queue_text}"
        );
        assert!(queue_text.ends_with(" more"), "{queue_text}");
        assert_eq!(fit(&"é".repeat(200)).chars().count(), MAX_CHAT_CHARS);
    }

    #[test]
    fn queue_wait_help_and_name_answers() {
        let empty = QueueView { playing: 1, waiting: Vec::new() };
        let f = facts(None, false, &empty);
        let any = EvalAudience::Spectators;
        assert_eq!(reply(Command::Queue, Speaker::Opponent, any, &f), "Playing 1 game; no challenges waiting.");
        let two = QueueView {
            playing: 2,
            waiting: vec![
                Waiting { challenger: "alice".into(), time_control: "3+2".into() },
                Waiting { challenger: "bob".into(), time_control: "2d".into() },
            ],
        };
        assert_eq!(
            reply(Command::Queue, Speaker::Spectator, any, &facts(None, false, &two)),
            "Playing 2 games; 2 waiting: alice (3+2), bob (2d)"
        );
        assert!(reply(Command::Help, Speaker::Spectator, any, &f).contains("!eval"));
        let mut wait = f.clone();
        assert_eq!(
            reply(Command::Wait, Speaker::Opponent, any, &wait),
            "OK, I'll wait 60 more seconds for the first move."
        );
        assert_eq!(reply(Command::Wait, Speaker::Spectator, any, &wait), "Only my opponent can ask me to wait.");
        wait.extension = Extension::AlreadyGranted;
        assert!(reply(Command::Wait, Speaker::Opponent, any, &wait).contains("already"));
        wait.extension = Extension::NotWaiting;
        assert!(reply(Command::Wait, Speaker::Opponent, any, &wait).contains("under way"));
        let mut engine = EngineConfig::default();
        let ferz = engine.choice(crate::config::EngineVariant::Standard);
        let name = name_line("ferzbot", &ferz, &engine, false);
        assert!(
            name.starts_with("ferzbot runs the ferz engine ") && name.contains("(64 MB hash, 1 thread, no book)"),
            "{name}"
        );
        engine.threads = 4;
        engine.nodes = 1500;
        let name = name_line("ferzbot", &ferz, &engine, true);
        assert!(name.contains("4 threads, 1500 nodes a move, opening book"), "{name}");
        // Another engine plays: it is named, by its file name, and ferz's settings are not.
        engine.kind = EngineKind::Uci;
        engine.command = "/opt/engines/stockfish-17".into();
        let uci = engine.choice(crate::config::EngineVariant::Standard);
        let name = name_line("ferzbot", &uci, &engine, true);
        assert!(name.starts_with("ferzbot runs the UCI engine stockfish-17 through ferz "), "{name}");
        assert!(name.contains("(opening book)") && !name.contains("/opt") && !name.contains("hash"), "{name}");
    }

    #[test]
    fn a_game_replies_once_per_room_per_interval_up_to_its_cap() {
        let config = ChatConfig { reply_interval_s: 5, max_replies_per_game: 3, ..ChatConfig::default() };
        let mut budget = GameChat::new(&config);
        let t = Instant::now();
        let (player, spectator) = (ChatRoom::Player, ChatRoom::Spectator);
        assert_eq!(budget.check(&player, t), Ok(()));
        budget.sent(&player, t);
        assert_eq!(budget.check(&player, t + 4 * S), Err(Hold::Interval));
        assert_eq!(budget.check(&spectator, t + S), Ok(()), "rooms have their own interval");
        assert!(budget.log_hold() && !budget.log_hold(), "one info line per held burst");
        budget.sent(&spectator, t + S);
        assert!(budget.log_hold(), "a reply starts a new burst");
        assert_eq!(budget.check(&player, t + 5 * S), Ok(()));
        budget.sent(&player, t + 5 * S);
        assert_eq!(budget.check(&spectator, t + 100 * S), Err(Hold::GameCap));
        assert_eq!((0..5).map(|_| budget.log_unknown()).collect::<Vec<_>>(), [true, true, true, false, false]);
        let off = GameChat::new(&ChatConfig { max_replies_per_game: 0, ..ChatConfig::default() });
        assert_eq!(off.check(&player, t), Err(Hold::GameCap));
    }

    #[test]
    fn the_account_keeps_to_lichess_flood_rule() {
        let mut account = AccountChat::default();
        let t = Instant::now();
        for i in 0..4 {
            let text = format!("reply number {i} with different words {}", "x".repeat(i * 10));
            assert_eq!(account.check(&text, t + i as u32 * S), Ok(()));
            account.note(&text, t + i as u32 * S);
        }
        assert_eq!(account.check("a fifth line", t + 9 * S), Err(Hold::Account));
        assert_eq!(account.check("a fifth line", t + 10 * S), Ok(()), "the oldest left the window");
        // A line (nearly) like one of the last two is dropped by Lichess: not sent.
        let mut account = AccountChat::default();
        account.note("Eval +0.31 (white's view), depth 14: 14... Nf6", t);
        account.note("Playing 1 game; no challenges waiting.", t);
        assert_eq!(account.check("Eval +0.35 (white's view), depth 14: 14... Nf6", t + 60 * S), Err(Hold::Repeat));
        assert_eq!(account.check("Eval +1.35 (white's view), depth 15: 15. Bc4 e5", t + 60 * S), Ok(()));
        account.note("three", t);
        assert_eq!(
            account.check("Eval +0.31 (white's view), depth 14: 14... Nf6", t + 60 * S),
            Ok(()),
            "only the last two count"
        );
        assert!(similar("abc", "abd") && !similar("abc", "xyz") && similar("", "a"));
    }

    #[test]
    fn the_hub_shares_the_queue_and_the_account() {
        let (hub, publisher) = hub();
        let other = hub.clone();
        assert_eq!(hub.queue(), QueueView::default());
        let view =
            QueueView { playing: 2, waiting: vec![Waiting { challenger: "a".into(), time_control: "1+0".into() }] };
        publisher.publish(view.clone());
        assert_eq!(other.queue(), view);
        let t = Instant::now();
        hub.note("hello there", t);
        assert_eq!(other.check("hello there", t + S), Err(Hold::Repeat), "one account for every game");
    }
}
