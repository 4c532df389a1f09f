//! The rules of chess, Chess960 and Shatranj for ferz.
//!
//! Everything here is pure computation with no I/O: squares and bitboards, attack tables built
//! at compile time, validated positions, legal move generation, FEN, UCI and SAN notation,
//! outcomes, perft, and reading and writing PGN and position lists (EPD/FEN).
//! It depends on no other ferz crate and knows nothing of search, engines or files: every other
//! crate builds on it.
//!
//! ```
//! use ferz_chess::{perft, Position, Variant};
//!
//! let pos = Position::new(Variant::Chess);
//! assert_eq!(perft(&pos, 3), 8902);
//! let e4 = pos.parse_uci("e2e4").unwrap();
//! assert_eq!(pos.san(e4), "e4");
//!
//! let shatranj = Position::new(Variant::Shatranj);
//! assert_eq!(perft(&shatranj, 4), 68122);
//! ```

pub mod attacks;
mod bitboard;
mod board;
mod color;
mod epd;
mod game;
mod movegen;
mod mv;
mod outcome;
mod perft;
mod pgn;
mod position;
mod random;
mod role;
mod san;
mod setup;
mod square;
mod uci;
mod variant;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use board::Board;
pub use color::{ByColor, Color};
pub use epd::{EpdError, parse_positions};
pub use game::Game;
pub use movegen::chess960_back_rank;
pub use mv::{MAX_MOVES, Move, MoveKind, MoveList};
pub use outcome::{DrawReason, GameResult, Outcome, WinReason};
pub use perft::{
    CaseReport, PerftCase, SuiteError, SuiteFormat, check_case, divide, parse_suite, perft, perft_make_all,
};
pub use pgn::{PgnGame, PgnMove, civil_date, parse_pgn, pgn_date_today, setup_tags, wrap_movetext, write_pgn};
pub use position::{
    AttackLayers, CastlingNotation, CastlingSide, FenError, IllegalMoveError, Position, PositionError, STANDARD_FEN,
    ShatranjArray,
};
pub use random::SplitMix64;
pub use role::{ByRole, Piece, Role};
pub use san::SanError;
pub use setup::{CastlingRight, CastlingToken, ParseFenError, Setup};
pub use square::{File, ParseSquareError, Rank, Square};
pub use uci::{ParseUciMoveError, UciMove, UciMoveError};
pub use variant::{CastlingMode, ParseVariantError, Variant};
