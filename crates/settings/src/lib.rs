//! Settings plumbing shared by every ferz settings file (`config/bot.toml`,
//! `config/selfplay.toml`).
//!
//! - [`invalid`]: [`InvalidSetting`], the one error for a value that cannot work, and the
//!   checks ([`check`], [`in_range`], [`at_least`]) a settings struct's `validate` is made of.
//! - [`layers`]: [`load`], the struct's defaults, then a TOML file, then `FERZ__SECTION__KEY`
//!   environment overrides, with unknown keys rejected and errors that name the key and where
//!   the value came from.
//!
//! The settings structs themselves live with the crate they configure; what their fields mean
//! is theirs, how they are read and reported is this crate's.
//! It knows nothing of chess, the bot or self-play.

pub mod invalid;
pub mod layers;

pub use invalid::{InvalidSetting, at_least, check, in_range, within_limits};
pub use layers::{ENV_PREFIX, LoadError, load, load_among, sections_of};
