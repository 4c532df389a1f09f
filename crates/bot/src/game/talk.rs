//! The game's side of chat: sending a line (and counting it against the account's budget),
//! answering a command within the reply limits, and answering the opponent's commands for a
//! while after the game.
//!
//! Lichess closes a bot's game stream as soon as the game ends, so commands typed after the
//! end (the opponent's `!eval`, allowed then) never arrive on it: [`after_game`] reads the
//! player room's chat instead, for `[chat] after_game_s`, without holding a game slot.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ferz_lichess::ChatRoom;

use super::context::GameContext;
use crate::chat::{self, Command, EvalNote, Extension, Facts, GameChat, Parsed, Speaker};

/// How often the chat of a finished game is read.
const AFTER_GAME_POLL: Duration = Duration::from_secs(3);

/// Sends `text` to `room` of game `id` (cut to the chat limit) and counts it for the account.
pub(super) async fn send(ctx: &GameContext, id: &str, room: ChatRoom, text: &str) {
    if text.trim().is_empty() {
        return;
    }
    // The server refuses longer lines.
    let text = chat::fit(text);
    match ctx.client.chat(id, room, &text).await {
        Ok(()) => ctx.chat.note(&text, Instant::now()),
        Err(e) => tracing::warn!(game = %id, error = %e, "chat message not sent"),
    }
}

/// Sends `reply` to `command` from `user` in `room` if the game's budget and the account's
/// allow it now; otherwise logs why not (the first hold of a burst at info, the rest at debug).
pub(super) async fn answer(
    ctx: &GameContext,
    id: &str,
    budget: &mut GameChat,
    room: ChatRoom,
    user: &str,
    command: Command,
    reply: &str,
) {
    let now = Instant::now();
    if let Err(hold) = budget.check(&room, now).and_then(|()| ctx.chat.check(reply, now)) {
        if budget.log_hold() {
            tracing::info!(game = %id, user, command = ?command, reason = hold.reason(), "chat reply held back");
        } else {
            tracing::debug!(game = %id, user, command = ?command, reason = hold.reason(), "chat reply held back");
        }
        return;
    }
    budget.sent(&room, now);
    tracing::info!(game = %id, user, room = %room.as_str(), command = ?command, "answering a chat command");
    send(ctx, id, room, reply).await;
}

/// Logs an unknown command `word` from `user`: at info for the first few of a game, then at
/// debug, so that a flood of them does not flood the log.
pub(super) fn ignore_unknown(id: &str, budget: &mut GameChat, user: &str, word: &str) {
    // Debug-quoted: the word is someone else's text.
    if budget.log_unknown() {
        tracing::info!(game = %id, user, command = ?word, "ignoring an unknown chat command");
    } else {
        tracing::debug!(game = %id, user, command = ?word, "ignoring an unknown chat command");
    }
}

/// What a finished game knows for the commands that come after it.
#[derive(Clone, Debug)]
pub(super) struct AfterGame {
    /// The game's reply budget, as the game left it.
    pub budget: GameChat,
    /// Our last evaluation.
    pub eval: Option<EvalNote>,
    /// The opponent's name.
    pub opponent: String,
    /// The `!name` answer (the engine this game was played with).
    pub name: String,
}

/// Answers the opponent's commands in the player room of the finished game `id` for
/// `[chat] after_game_s`, reading the chat every few seconds. Lines already there when it
/// starts are not answered.
pub(super) async fn after_game(ctx: Arc<GameContext>, id: String, mut after: AfterGame) {
    let config = &ctx.config.chat;
    let until = Instant::now() + Duration::from_secs(config.after_game_s);
    let mut seen = match ctx.client.read_chat(&id).await {
        Ok(lines) => lines.len(),
        Err(e) => {
            tracing::info!(game = %id, error = %e, "cannot read the chat after the game; commands after it go unanswered");
            return;
        }
    };
    let mut exit_now = ctx.exit_now.clone();
    while Instant::now() + AFTER_GAME_POLL <= until {
        tokio::select! {
            () = tokio::time::sleep(AFTER_GAME_POLL) => {}
            _ = exit_now.changed() => return,
        }
        let lines = match ctx.client.read_chat(&id).await {
            Ok(lines) => lines,
            Err(e) => {
                tracing::debug!(game = %id, error = %e, "cannot read the chat after the game");
                continue;
            }
        };
        for line in lines.iter().skip(seen) {
            let speaker = Speaker::of(&line.user, &ChatRoom::Player, &ctx.me, &after.opponent);
            if speaker != Speaker::Opponent {
                continue;
            }
            let command = match Command::parse(&line.text) {
                Parsed::Chat => continue,
                Parsed::Unknown(word) => {
                    ignore_unknown(&id, &mut after.budget, &line.user, &word);
                    continue;
                }
                Parsed::Known(command) => command,
            };
            let queue = ctx.chat.queue();
            let facts = Facts {
                name: &after.name,
                eval: after.eval.as_ref(),
                game_over: true,
                extension: Extension::NotWaiting,
                wait_s: config.wait_s,
                queue: &queue,
            };
            let reply = chat::reply(command, speaker, config.eval, &facts);
            answer(&ctx, &id, &mut after.budget, ChatRoom::Player, &line.user, command, &reply).await;
        }
        seen = lines.len();
    }
}
