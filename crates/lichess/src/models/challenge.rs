//! Challenges: what the event stream and the challenge endpoints send, and what we send back.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::common::{Color, Perf, Speed, Variant};

string_enum! {
    /// The state of a challenge.
    ChallengeStatus {
        /// `created`: waiting for an answer
        Created = "created",
        /// `offline`: the destination is offline
        Offline = "offline",
        /// `canceled`
        Canceled = "canceled",
        /// `declined`
        Declined = "declined",
        /// `accepted`
        Accepted = "accepted",
    }
}

string_enum! {
    /// Whether a listed challenge is to us or from us.
    Direction {
        /// `in`: someone challenges us
        In = "in",
        /// `out`: we challenge someone
        Out = "out",
    }
}

string_enum! {
    /// The colour a challenger asks for.
    ChallengeColor {
        /// `white`
        White = "white",
        /// `black`
        Black = "black",
        /// `random`
        Random = "random",
    }
}

/// A player in a challenge.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ChallengeUser {
    /// Lower-case user id (absent on PyChess).
    pub id: Option<String>,
    /// Display name.
    pub name: String,
    /// Rating in the challenge's perf.
    pub rating: Option<i64>,
    /// Title (`GM`, …, `BOT`); null or absent for most users, `""` on PyChess.
    pub title: Option<String>,
    /// Whether the rating is provisional.
    pub provisional: Option<bool>,
    /// Whether the user is online.
    pub online: Option<bool>,
    /// Network lag in centiseconds.
    pub lag: Option<i64>,
}

impl ChallengeUser {
    /// The user id; where the platform sends none (PyChess), the lower-cased name.
    pub fn user_id(&self) -> String {
        self.id.clone().unwrap_or_else(|| self.name.to_lowercase())
    }

    /// Whether the user is a bot account (`title` `BOT`).
    pub fn is_bot(&self) -> bool {
        self.title.as_deref() == Some("BOT")
    }
}

/// The time control of a challenge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum TimeControl {
    /// A real-time clock.
    Clock {
        /// Initial time in seconds (optional in the specification).
        #[serde(default)]
        limit: Option<i64>,
        /// Increment in seconds (optional in the specification).
        #[serde(default)]
        increment: Option<i64>,
        /// Display form, `5+2`.
        #[serde(default)]
        show: Option<String>,
    },
    /// Correspondence.
    Correspondence {
        /// Days per move.
        #[serde(rename = "daysPerTurn", default)]
        days_per_turn: Option<i64>,
    },
    /// No clock at all.
    Unlimited,
    /// A type this client does not know.
    #[serde(other)]
    Other,
}

/// A challenge (`ChallengeJson`, plus the fields of `ChallengeDeclinedJson`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Challenge {
    /// Challenge id (also the game id once accepted).
    pub id: String,
    /// Web address.
    #[serde(default)]
    pub url: Option<String>,
    /// State (absent on PyChess).
    #[serde(default)]
    pub status: Option<ChallengeStatus>,
    /// Who challenges.
    #[serde(default)]
    pub challenger: ChallengeUser,
    /// Who is challenged; `None` for open challenges and on PyChess.
    #[serde(default)]
    pub dest_user: Option<ChallengeUser>,
    /// Variant.
    #[serde(default)]
    pub variant: Variant,
    /// Rated or casual.
    #[serde(default)]
    pub rated: bool,
    /// Speed category.
    #[serde(default)]
    pub speed: Option<Speed>,
    /// Time control.
    #[serde(default)]
    pub time_control: Option<TimeControl>,
    /// The colour the challenger asked for.
    #[serde(default)]
    pub color: Option<ChallengeColor>,
    /// The challenger's actual colour.
    #[serde(default)]
    pub final_color: Option<Color>,
    /// Rating category.
    #[serde(default)]
    pub perf: Option<Perf>,
    /// `in`/`out`, only on list, create and show responses.
    #[serde(default)]
    pub direction: Option<Direction>,
    /// Starting position for `fromPosition`, `chess960`, … challenges.
    #[serde(default)]
    pub initial_fen: Option<String>,
    /// The game this challenge is a rematch of.
    #[serde(default)]
    pub rematch_of: Option<String>,
    /// Translated decline text (declined challenges only).
    #[serde(default)]
    pub decline_reason: Option<String>,
    /// Decline key, lower case (`toofast`); see [`DeclineReason::from_key`].
    #[serde(default)]
    pub decline_reason_key: Option<String>,
    /// Special rules (`noAbort`, …).
    #[serde(default)]
    pub rules: Vec<String>,
    /// PyChess's separate Chess960 flag (its variant key stays `chess`/`standard`).
    #[serde(default)]
    pub chess960: Option<bool>,
}

/// Why we decline a challenge; translated by Lichess for the challenger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeclineReason {
    /// "I'm not accepting challenges at the moment."
    Generic,
    /// "This is not the right time for me, please ask again later."
    Later,
    /// "This time control is too fast for me, …"
    TooFast,
    /// "This time control is too slow for me, …"
    TooSlow,
    /// "I'm not accepting challenges with this time control."
    TimeControl,
    /// "Please send me a rated challenge instead."
    Rated,
    /// "Please send me a casual challenge instead."
    Casual,
    /// "I'm not accepting variant challenges right now."
    Standard,
    /// "I'm not willing to play this variant right now."
    Variant,
    /// "I'm not accepting challenges from bots."
    NoBot,
    /// "I'm only accepting challenges from bots."
    OnlyBot,
}

impl DeclineReason {
    /// Every reason, in the API's order.
    pub const ALL: [DeclineReason; 11] = [
        DeclineReason::Generic,
        DeclineReason::Later,
        DeclineReason::TooFast,
        DeclineReason::TooSlow,
        DeclineReason::TimeControl,
        DeclineReason::Rated,
        DeclineReason::Casual,
        DeclineReason::Standard,
        DeclineReason::Variant,
        DeclineReason::NoBot,
        DeclineReason::OnlyBot,
    ];

    /// The request spelling (`tooFast`).
    pub fn as_str(self) -> &'static str {
        match self {
            DeclineReason::Generic => "generic",
            DeclineReason::Later => "later",
            DeclineReason::TooFast => "tooFast",
            DeclineReason::TooSlow => "tooSlow",
            DeclineReason::TimeControl => "timeControl",
            DeclineReason::Rated => "rated",
            DeclineReason::Casual => "casual",
            DeclineReason::Standard => "standard",
            DeclineReason::Variant => "variant",
            DeclineReason::NoBot => "noBot",
            DeclineReason::OnlyBot => "onlyBot",
        }
    }

    /// Parses a reason in any case: the request form (`tooFast`) and the lower-case
    /// `declineReasonKey` of declined challenges (`toofast`) alike.
    pub fn from_key(key: &str) -> Option<DeclineReason> {
        DeclineReason::ALL.into_iter().find(|r| r.as_str().eq_ignore_ascii_case(key))
    }
}

impl fmt::Display for DeclineReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The time control of a challenge we create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeTime {
    /// Real time: initial seconds (0, 15, 30, 45, 60, 90 or a multiple of 60 up to 10800) and
    /// increment seconds (0–60).
    Clock {
        /// Initial time in seconds.
        limit_secs: u32,
        /// Increment in seconds.
        increment_secs: u32,
    },
    /// Correspondence: days per move (1, 2, 3, 5, 7, 10, 14).
    Correspondence {
        /// Days per move.
        days: u32,
    },
    /// No clock.
    Unlimited,
}

/// A challenge to create with `POST /api/challenge/{username}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengeRequest {
    /// Rated or casual.
    pub rated: bool,
    /// Time control.
    pub time: ChallengeTime,
    /// Our colour.
    pub color: ChallengeColor,
    /// Variant key (`standard`, `chess960`, `fromPosition`).
    pub variant: String,
    /// Starting position (X-FEN; casual only).
    pub fen: Option<String>,
    /// Special rules (`noAbort`, …); Lichess refuses rules in challenges to bots.
    pub rules: Vec<String>,
}

impl ChallengeRequest {
    /// A casual standard challenge with a real-time clock and a random colour.
    pub fn clock(limit_secs: u32, increment_secs: u32) -> Self {
        ChallengeRequest {
            rated: false,
            time: ChallengeTime::Clock { limit_secs, increment_secs },
            color: ChallengeColor::Random,
            variant: "standard".to_owned(),
            fen: None,
            rules: Vec::new(),
        }
    }

    /// The url-encoded form fields.
    pub(crate) fn form(&self) -> Vec<(&'static str, String)> {
        let mut form = vec![("rated", self.rated.to_string())];
        match self.time {
            ChallengeTime::Clock { limit_secs, increment_secs } => {
                form.push(("clock.limit", limit_secs.to_string()));
                form.push(("clock.increment", increment_secs.to_string()));
            }
            ChallengeTime::Correspondence { days } => form.push(("days", days.to_string())),
            ChallengeTime::Unlimited => {}
        }
        form.push(("color", self.color.as_str().to_owned()));
        form.push(("variant", self.variant.clone()));
        if let Some(fen) = &self.fen {
            form.push(("fen", fen.clone()));
        }
        if !self.rules.is_empty() {
            form.push(("rules", self.rules.join(",")));
        }
        form
    }
}
