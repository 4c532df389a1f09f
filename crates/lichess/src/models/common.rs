//! Small types shared by events, games and challenges.

use serde::{Deserialize, Serialize};

string_enum! {
    /// A side, as the API spells it.
    Color {
        /// `white`
        White = "white",
        /// `black`
        Black = "black",
    }
}

string_enum! {
    /// A Lichess speed category (derived from the clock).
    Speed {
        /// `ultraBullet`
        UltraBullet = "ultraBullet",
        /// `bullet`
        Bullet = "bullet",
        /// `blitz`
        Blitz = "blitz",
        /// `rapid`
        Rapid = "rapid",
        /// `classical`
        Classical = "classical",
        /// `correspondence` (also unlimited games)
        Correspondence = "correspondence",
    }
}

string_enum! {
    /// The status name of a game (`GameStatusName` in the API).
    #[derive(Default)]
    GameStatus {
        /// `created`
        Created = "created",
        /// `started`: in progress
        #[default]
        Started = "started",
        /// `aborted`
        Aborted = "aborted",
        /// `mate`
        Mate = "mate",
        /// `resign`
        Resign = "resign",
        /// `stalemate`
        Stalemate = "stalemate",
        /// `timeout`: a player left and the other claimed
        Timeout = "timeout",
        /// `draw`
        Draw = "draw",
        /// `outoftime`: a clock flagged
        OutOfTime = "outoftime",
        /// `cheat`
        Cheat = "cheat",
        /// `noStart`: the first move was not made in time
        NoStart = "noStart",
        /// `unknownFinish`
        UnknownFinish = "unknownFinish",
        /// `insufficientMaterialClaim`
        InsufficientMaterialClaim = "insufficientMaterialClaim",
        /// `variantEnd`
        VariantEnd = "variantEnd",
    }
}

impl GameStatus {
    /// Whether the game is over. Any status but `created` and `started` counts as over,
    /// unknown ones included: a status added by the server is far likelier to be a new way
    /// to finish than a new way to be in progress.
    pub fn is_over(&self) -> bool {
        !matches!(self, GameStatus::Created | GameStatus::Started)
    }
}

/// A status as `{id, name}` (the event stream's form), or as its name alone (the game stream,
/// and `/api/account/playing` as the specification gives it): both decode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "StatusWire")]
pub struct StatusInfo {
    /// Numeric id (20 = started, 31 = resign, …).
    #[serde(default)]
    pub id: Option<i64>,
    /// The status name.
    pub name: GameStatus,
}

/// The two shapes of a status on the wire.
#[derive(Deserialize)]
#[serde(untagged)]
enum StatusWire {
    /// `"mate"`.
    Name(GameStatus),
    /// `{"id": 30, "name": "mate"}`.
    Object {
        #[serde(default)]
        id: Option<i64>,
        name: GameStatus,
    },
}

impl From<StatusWire> for StatusInfo {
    fn from(wire: StatusWire) -> StatusInfo {
        match wire {
            StatusWire::Name(name) => StatusInfo { id: None, name },
            StatusWire::Object { id, name } => StatusInfo { id, name },
        }
    }
}

/// A variant as `{key, name, short}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Variant {
    /// Machine key: `standard`, `chess960`, `fromPosition`, … (PyChess: `shatranj`, …).
    pub key: String,
    /// Display name (`Standard`); PyChess sends only this in `gameFull`.
    pub name: Option<String>,
    /// Short name (`Std`).
    pub short: Option<String>,
}

impl Variant {
    /// The key, or (PyChess `gameFull`, which sends only a name) the name.
    pub fn key_or_name(&self) -> &str {
        if self.key.is_empty() { self.name.as_deref().unwrap_or("") } else { &self.key }
    }
}

/// A rating category as `{icon, name}` (challenges) or `{name}` (`gameFull`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Perf {
    /// Icon glyph (private-use character).
    pub icon: Option<String>,
    /// Name (translated on `gameFull`).
    pub name: Option<String>,
}

/// Which APIs can play a game or challenge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Compat {
    /// Playable with the Bot API.
    pub bot: bool,
    /// Playable with the Board API.
    pub board: bool,
}
