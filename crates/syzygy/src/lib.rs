//! Syzygy endgame tablebases for ferz: win/draw/loss (`.rtbw`) and distance-to-zero
//! (`.rtbz`) probing, and the ranking of root moves an engine needs to convert a won
//! tablebase position and never spoil a won or drawn one.
//!
//! Written from the published description of the Syzygy format (see `docs/syzygy.md`). Tables
//! describe standard chess positions without castling rights (Chess960 positions without
//! castling rights are the same positions); Shatranj is never probed. Every file is checked
//! when opened and every read is bounds-checked, so a corrupt table is an error, not a panic.
//!
//! It knows positions and moves (`ferz-chess`) and nothing of search: when to probe is the
//! engine's decision.
//!
//! ```no_run
//! use ferz_chess::{Position, Variant};
//! use ferz_syzygy::{Tablebases, Wdl};
//!
//! let tables = Tablebases::open(&["tables/syzygy"]).unwrap();
//! let position = Position::from_fen("8/8/8/8/8/2k5/8/KQ6 w - - 0 1", Variant::Chess).unwrap();
//! assert_eq!(tables.probe_wdl(&position).unwrap(), Wdl::Win);
//! println!("DTZ {}", tables.probe_dtz(&position).unwrap());
//! ```

mod encoding;
mod error;
mod material;
mod pairs;
mod probe;
mod read;
mod root;
mod table;
mod value;

pub use error::{OpenError, ProbeError};
pub use material::Material;
pub use probe::Tablebases;
pub use root::RankedMove;
pub use value::{Dtz, Wdl};
