//! Serde models of what the Bot API sends and accepts.
//!
//! Tolerance rules, because the server adds fields and values without notice: unknown fields
//! are ignored; every field the server may omit is an `Option` or has a default; enumerations of
//! strings keep unknown values as `Other(String)`; unknown stream message types are kept as
//! `Unknown` items rather than errors. Clock and rating numbers are `i64` (the server sends
//! `2147483647` for an unlimited clock).

macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal),* $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
            /// A value this client does not know, kept verbatim.
            Other(String),
        }

        impl $name {
            /// The wire spelling.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $text,)*
                    $name::Other(s) => s,
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $($text => $name::$variant,)*
                    other => $name::Other(other.to_owned()),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                Ok($name::from(&*s))
            }
        }
    };
}

mod account;
mod challenge;
mod common;
mod event;
mod game;
#[cfg(test)]
mod spec_tests;
#[cfg(test)]
mod tests;

pub use account::{ChatMessage, PerfStats, Playing, TokenInfo, User, UserStatus};
pub use challenge::{
    Challenge, ChallengeColor, ChallengeRequest, ChallengeStatus, ChallengeTime, ChallengeUser, DeclineReason,
    Direction, TimeControl,
};
pub use common::{Color, Compat, GameStatus, Perf, Speed, StatusInfo, Variant};
pub use event::{Event, GameEventInfo, Opponent};
pub use game::{
    ChatLine, ChatRoom, Clock, Expiration, GameEvent, GameFull, GameRecord, GameState, OpponentGone, Player,
};
