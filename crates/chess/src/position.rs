//! Validated positions: construction, making moves, FEN output.

use std::fmt;

use crate::attacks::{
    alfil_attacks, bishop_attacks, ferz_attacks, king_attacks, knight_attacks, pawn_attacks, queen_attacks,
    rook_attacks,
};
use crate::setup::{CastlingRight, CastlingToken, ParseFenError, Setup};
use crate::{Bitboard, Board, CastlingMode, Color, File, Move, MoveKind, Piece, Rank, Role, Square, Variant, zobrist};

/// A legal position of one variant, with everything needed to generate moves.
///
/// Positions are small (under 200 bytes) and `Copy`: search and perft copy a position and
/// [`play_unchecked`](Position::play_unchecked) on the copy instead of undoing moves.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) board: Board,
    /// Squares of the rooks that may still castle.
    pub(crate) castling: Bitboard,
    /// Enemy pieces giving check to the side to move.
    pub(crate) checkers: Bitboard,
    pub(crate) key: u64,
    /// Set only when an en passant capture is legal, so equal positions have equal keys.
    pub(crate) ep_square: Option<Square>,
    pub(crate) turn: Color,
    pub(crate) variant: Variant,
    pub(crate) halfmoves: u32,
    pub(crate) fullmoves: u32,
}

/// Which side of the king a castling rook stands on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CastlingSide {
    /// Towards the h-file: O-O, king to g1/g8, rook to f1/f8.
    KingSide,
    /// Towards the a-file: O-O-O, king to c1/c8, rook to d1/d8.
    QueenSide,
}

impl CastlingSide {
    /// Where the king and the rook end up: `(king, rook)`.
    #[must_use]
    pub fn destinations(self, color: Color) -> (Square, Square) {
        let rank = color.back_rank();
        let (king, rook) = match self {
            CastlingSide::KingSide => (File::G, File::F),
            CastlingSide::QueenSide => (File::C, File::D),
        };
        (Square::from_coords(king, rank), Square::from_coords(rook, rank))
    }
}

/// Why a setup is not a legal position of its variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// A side has no king.
    #[error("no {color} king")]
    NoKing {
        /// The side without a king.
        color: Color,
    },
    /// A side has more than one king.
    #[error("{} {color} kings", count_word(*count))]
    TooManyKings {
        /// The side with several kings.
        color: Color,
        /// How many.
        count: u32,
    },
    /// A pawn stands on the first or last rank.
    #[error("{color} pawn on {square}: pawns cannot stand on rank {}", square.rank())]
    PawnOnBackRank {
        /// The pawn's colour.
        color: Color,
        /// Where it stands.
        square: Square,
    },
    /// More pieces than a game can have.
    #[error("{count} pieces on the board: at most 32 are allowed")]
    TooManyPieces {
        /// How many pieces the setup has.
        count: u32,
    },
    /// Castling rights in a variant without castling.
    #[error("castling right {right} but Shatranj has no castling: use '-'")]
    CastlingInShatranj {
        /// The first right given.
        right: char,
    },
    /// An en passant square in a variant without double steps.
    #[error("en passant square {square} but Shatranj has no double step: use '-'")]
    EnPassantInShatranj {
        /// The square given.
        square: Square,
    },
    /// A castling right while the king is not on its back rank.
    #[error("castling right {right} but the {color} king is not on rank {}", color.back_rank())]
    CastlingKingNotOnBackRank {
        /// Whose right.
        color: Color,
        /// The right as written.
        right: char,
    },
    /// In standard chess, a castling right without the king on the e-file and the rook in its
    /// corner (other set-ups castle only in Chess960).
    #[error(
        "castling right {right} in standard chess needs the {color} king on {king} and a rook on {rook}; other set-ups castle only in Chess960"
    )]
    CastlingNotStandard {
        /// Whose right.
        color: Color,
        /// The right as written.
        right: char,
        /// Where the king must stand.
        king: Square,
        /// Where the rook must stand.
        rook: Square,
    },
    /// A castling right naming a file without an own rook.
    #[error("castling right {right} but no {color} rook on {square}")]
    CastlingNoRookOnFile {
        /// Whose right.
        color: Color,
        /// The right as written.
        right: char,
        /// Where the rook should be.
        square: Square,
    },
    /// `K` or `Q` without an own rook on that side of the king.
    #[error("castling right {right} but no {color} rook on rank {} on the {side} of the king", color.back_rank())]
    CastlingNoRookOnSide {
        /// Whose right.
        color: Color,
        /// The right as written.
        right: char,
        /// `"h-side"` or `"a-side"`.
        side: &'static str,
    },
    /// A file letter naming the king's own file.
    #[error("castling right {right} names the file of the {color} king, not a rook")]
    CastlingOnKingFile {
        /// Whose right.
        color: Color,
        /// The right as written.
        right: char,
    },
    /// Two rooks on one side of the king both have the right.
    #[error("castling rights {first} and {second} both name a {color} rook on the {side} of the king")]
    CastlingTwoRooksOneSide {
        /// Whose rights.
        color: Color,
        /// The first right.
        first: char,
        /// The second right.
        second: char,
        /// `"h-side"` or `"a-side"`.
        side: &'static str,
    },
    /// The en passant square is on the wrong rank for the side to move.
    #[error("en passant square {square} is not on rank {expected} ({turn} to move)")]
    EnPassantWrongRank {
        /// The square given.
        square: Square,
        /// The rank it must be on.
        expected: Rank,
        /// Side to move.
        turn: Color,
    },
    /// No pawn stands where the double step would have put it.
    #[error("en passant square {square} but no {color} pawn on {pawn}")]
    EnPassantNoPawn {
        /// The square given.
        square: Square,
        /// The side that made the double step.
        color: Color,
        /// Where its pawn should be.
        pawn: Square,
    },
    /// The squares the double-stepping pawn crossed are not empty.
    #[error("en passant square {square} but {blocked} is occupied")]
    EnPassantBlocked {
        /// The square given.
        square: Square,
        /// The occupied square.
        blocked: Square,
    },
    /// The side that just moved left its king in check.
    #[error("side not to move ({color}) is in check")]
    OppositeCheck {
        /// The side in check.
        color: Color,
    },
}

fn count_word(count: u32) -> String {
    match count {
        2 => "two".to_owned(),
        3 => "three".to_owned(),
        n => n.to_string(),
    }
}

/// A FEN that could not be read or is not a legal position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// The text is malformed.
    #[error(transparent)]
    Parse(#[from] ParseFenError),
    /// The text describes an illegal position.
    #[error(transparent)]
    Position(#[from] PositionError),
}

/// A move that is not legal in the position it was played in.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {mv:?} in {fen}")]
pub struct IllegalMoveError {
    /// The move.
    pub mv: Move,
    /// The position, as FEN.
    pub fen: String,
}

/// The two Shatranj start arrays.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ShatranjArray {
    /// Kings on d1/d8, ferz on e1/e8: `startpos` in Fairy-Stockfish, cutechess and PyChess.
    KingOnD,
    /// Kings on e1/e8, ferz on d1/d8, as in the chess array.
    KingOnE,
}

impl ShatranjArray {
    /// The FEN of this array.
    #[must_use]
    pub const fn fen(self) -> &'static str {
        match self {
            ShatranjArray::KingOnD => "rnbkqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKQBNR w - - 0 1",
            ShatranjArray::KingOnE => "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        }
    }
}

/// The standard chess start position.
pub const STANDARD_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// The squares one side attacks, by the rank of the attackers; each set holds the ones before
/// it, so that a piece is attacked by something worth less than itself when it stands in the set
/// below its own rank ([`Position::attack_layers`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AttackLayers {
    /// The squares the pawns attack.
    pub pawns: Bitboard,
    /// The squares the pawns, knights and bishops (alfils) attack.
    pub minors: Bitboard,
    /// The squares the pawns, minor pieces and rooks attack.
    pub rooks: Bitboard,
    /// The squares any piece attacks.
    pub all: Bitboard,
}

impl Position {
    /// The start position of `variant`: the standard array for chess and Chess960 (Scharnagl
    /// 518), kings on the d-file for Shatranj.
    #[must_use]
    pub fn new(variant: Variant) -> Position {
        let fen = if variant.is_shatranj() { ShatranjArray::KingOnD.fen() } else { STANDARD_FEN };
        Position::from_fen(fen, variant).expect("start position is legal")
    }

    /// A Shatranj start position.
    #[must_use]
    pub fn shatranj(array: ShatranjArray) -> Position {
        Position::from_fen(array.fen(), Variant::Shatranj).expect("start position is legal")
    }

    /// Parses and validates a FEN.
    ///
    /// # Errors
    /// A [`FenError`] that says what is wrong and where.
    pub fn from_fen(fen: &str, variant: Variant) -> Result<Position, FenError> {
        Ok(Position::from_setup(&fen.parse()?, variant)?)
    }

    /// Validates a setup against the rules of `variant`.
    ///
    /// An en passant square is kept only when a legal en passant capture exists, so that
    /// positions that are the same under the repetition rule compare and hash equal.
    ///
    /// # Errors
    /// The first [`PositionError`] found.
    pub fn from_setup(setup: &Setup, variant: Variant) -> Result<Position, PositionError> {
        let board = setup.board;
        for color in Color::ALL {
            match board.pieces(color, Role::King).count() {
                0 => return Err(PositionError::NoKing { color }),
                1 => {}
                count => return Err(PositionError::TooManyKings { color, count }),
            }
        }
        if let Some(square) = (board.by_role(Role::Pawn) & Bitboard::BACKRANKS).first() {
            let color = board.color_at(square).expect("occupied");
            return Err(PositionError::PawnOnBackRank { color, square });
        }
        let count = board.occupied().count();
        if count > 32 {
            return Err(PositionError::TooManyPieces { count });
        }
        if variant.is_shatranj() {
            if let Some(right) = setup.castling.first() {
                return Err(PositionError::CastlingInShatranj { right: right.char() });
            }
            if let Some(square) = setup.ep_square {
                return Err(PositionError::EnPassantInShatranj { square });
            }
        }
        let castling = resolve_castling(&board, &setup.castling)?;
        if variant == Variant::Chess {
            check_standard_castling(&board, &setup.castling)?;
        }
        let mut pos = Position {
            board,
            castling,
            checkers: Bitboard::EMPTY,
            key: 0,
            ep_square: None,
            turn: setup.turn,
            variant,
            halfmoves: setup.halfmoves,
            fullmoves: setup.fullmoves.max(1),
        };
        let ep_candidate = match setup.ep_square {
            Some(square) => Some(validate_ep(&board, setup.turn, square)?),
            None => None,
        };
        let them = !pos.turn;
        let their_king = board.king_of(them).expect("validated");
        if pos.attackers_to(their_king, board.by_color(pos.turn), board.occupied()).is_nonempty() {
            return Err(PositionError::OppositeCheck { color: them });
        }
        pos.checkers = pos.attackers_to(pos.our_king(), board.by_color(them), board.occupied());
        pos.ep_square = ep_candidate.filter(|&ep| pos.ep_capture_exists(ep));
        pos.key = pos.compute_key();
        Ok(pos)
    }

    /// The variant whose rules apply.
    #[must_use]
    #[inline(always)]
    pub const fn variant(&self) -> Variant {
        self.variant
    }

    /// Switches between chess and Chess960 notation; the rules are the same.
    ///
    /// Returns `None` when asked to turn a Shatranj position into a chess one or back, or a
    /// Chess960 position whose castling rights are not standard chess's (king on e1/e8, corner
    /// rooks) into a standard chess one.
    #[must_use]
    pub fn with_variant(mut self, variant: Variant) -> Option<Position> {
        if variant.is_shatranj() != self.variant.is_shatranj() {
            return None;
        }
        // Standard chess castles only from the standard squares.
        let corners = Bitboard::from_square(Square::A1)
            | Bitboard::from_square(Square::H1)
            | Bitboard::from_square(Square::A8)
            | Bitboard::from_square(Square::H8);
        let kings_home = Color::ALL.into_iter().all(|color| {
            (self.castling & Bitboard::from_rank(color.back_rank())).is_empty()
                || self.board.king_of(color) == Some(Square::from_coords(File::E, color.back_rank()))
        });
        if variant == Variant::Chess && (!(self.castling & !corners).is_empty() || !kings_home) {
            return None;
        }
        self.variant = variant;
        Some(self)
    }

    /// The pieces.
    #[must_use]
    #[inline(always)]
    pub const fn board(&self) -> &Board {
        &self.board
    }

    /// Side to move.
    #[must_use]
    #[inline(always)]
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// Squares of the rooks that may still castle (both colours).
    #[must_use]
    #[inline(always)]
    pub const fn castling_rooks(&self) -> Bitboard {
        self.castling
    }

    /// The en passant square, present only when an en passant capture is legal.
    #[must_use]
    #[inline(always)]
    pub const fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    /// Halfmoves since the last capture or pawn move.
    #[must_use]
    #[inline(always)]
    pub const fn halfmoves(&self) -> u32 {
        self.halfmoves
    }

    /// The move number (1 at the start, incremented after black moves).
    #[must_use]
    #[inline(always)]
    pub const fn fullmoves(&self) -> u32 {
        self.fullmoves
    }

    /// The zobrist key: pieces, side to move, castling rights and a legal en passant square.
    #[must_use]
    #[inline(always)]
    pub const fn key(&self) -> u64 {
        self.key
    }

    /// Pieces giving check to the side to move.
    #[must_use]
    #[inline(always)]
    pub const fn checkers(&self) -> Bitboard {
        self.checkers
    }

    /// Whether the side to move is in check.
    #[must_use]
    #[inline(always)]
    pub const fn is_check(&self) -> bool {
        self.checkers.is_nonempty()
    }

    /// The side to move's king.
    #[must_use]
    #[inline(always)]
    pub(crate) fn our_king(&self) -> Square {
        // Every validated position has exactly one king per side and no move captures a king.
        self.board.king_of(self.turn).unwrap_or(Square::A1)
    }

    /// Pieces of `attackers` that attack `sq`, with `occupied` blocking sliders.
    #[must_use]
    #[inline(always)]
    pub fn attackers_to(&self, sq: Square, attackers: Bitboard, occupied: Bitboard) -> Bitboard {
        if self.variant.is_shatranj() {
            self.attackers_to_generic::<true>(sq, attackers, occupied)
        } else {
            self.attackers_to_generic::<false>(sq, attackers, occupied)
        }
    }

    #[inline(always)]
    pub(crate) fn attackers_to_generic<const SHATRANJ: bool>(
        &self,
        sq: Square,
        attackers: Bitboard,
        occupied: Bitboard,
    ) -> Bitboard {
        let b = &self.board;
        let diagonal = if SHATRANJ {
            (alfil_attacks(sq) & b.by_role(Role::Bishop)) | (ferz_attacks(sq) & b.by_role(Role::Queen))
        } else {
            bishop_attacks(sq, occupied) & (b.by_role(Role::Bishop) | b.by_role(Role::Queen))
        };
        let orthogonal_sliders =
            if SHATRANJ { b.by_role(Role::Rook) } else { b.by_role(Role::Rook) | b.by_role(Role::Queen) };
        let white_pawns = pawn_attacks(Color::Black, sq) & b.pieces(Color::White, Role::Pawn);
        let black_pawns = pawn_attacks(Color::White, sq) & b.pieces(Color::Black, Role::Pawn);
        (diagonal
            | (rook_attacks(sq, occupied) & orthogonal_sliders)
            | (knight_attacks(sq) & b.by_role(Role::Knight))
            | (king_attacks(sq) & b.by_role(Role::King))
            | white_pawns
            | black_pawns)
            & attackers
    }

    /// Every square `color`'s pawns attack.
    #[must_use]
    #[inline]
    pub fn pawn_attacks_by(&self, color: Color) -> Bitboard {
        // Pawns capture one file aside: shift the whole set forward, then sideways, dropping
        // what would wrap around the board's edge.
        let pawns = self.board.pieces(color, Role::Pawn);
        let forward = if color == Color::White { pawns.shift_up() } else { pawns.shift_down() };
        let not_a = !Bitboard::from_file(File::A).0;
        let not_h = !Bitboard::from_file(File::H).0;
        Bitboard(((forward.0 << 1) & not_a) | ((forward.0 >> 1) & not_h))
    }

    /// Every square `color`'s pieces attack, sliders blocked by the pieces on the board.
    #[must_use]
    pub fn attacks_by(&self, color: Color) -> Bitboard {
        self.attack_layers(color).all
    }

    /// The squares `color` attacks, gathered by the attackers' rank: pawns, then minor pieces,
    /// then rooks, then every piece (sliders blocked by the pieces on the board).
    #[must_use]
    pub fn attack_layers(&self, color: Color) -> AttackLayers {
        if self.variant.is_shatranj() {
            self.attack_layers_generic::<true>(color)
        } else {
            self.attack_layers_generic::<false>(color)
        }
    }

    #[inline(always)]
    fn attack_layers_generic<const SHATRANJ: bool>(&self, color: Color) -> AttackLayers {
        let b = &self.board;
        let occupied = b.occupied();
        let pawns = self.pawn_attacks_by(color);
        let mut minors = pawns;
        for sq in b.pieces(color, Role::Knight) {
            minors |= knight_attacks(sq);
        }
        for sq in b.pieces(color, Role::Bishop) {
            minors |= if SHATRANJ { alfil_attacks(sq) } else { bishop_attacks(sq, occupied) };
        }
        let mut rooks = minors;
        for sq in b.pieces(color, Role::Rook) {
            rooks |= rook_attacks(sq, occupied);
        }
        let mut all = rooks;
        for sq in b.pieces(color, Role::Queen) {
            all |= if SHATRANJ { ferz_attacks(sq) } else { queen_attacks(sq, occupied) };
        }
        for sq in b.pieces(color, Role::King) {
            all |= king_attacks(sq);
        }
        AttackLayers { pawns, minors, rooks, all }
    }

    /// Whether `color`'s pieces attack `sq` in this position.
    #[must_use]
    pub fn is_attacked_by(&self, sq: Square, color: Color) -> bool {
        self.attackers_to(sq, self.board.by_color(color), self.board.occupied()).is_nonempty()
    }

    /// The side of the king that the castling rook on `rook` stands on.
    #[must_use]
    pub fn castling_side(&self, rook: Square) -> CastlingSide {
        let king = self.board.king_of(self.board.color_at(rook).unwrap_or(self.turn)).unwrap_or(rook);
        if rook.file() > king.file() { CastlingSide::KingSide } else { CastlingSide::QueenSide }
    }

    /// Recomputes the zobrist key from scratch (the incremental key must always equal this).
    #[must_use]
    pub fn compute_key(&self) -> u64 {
        let mut key = zobrist::castling_key(self.castling);
        for (sq, piece) in self.board.iter() {
            key ^= zobrist::piece_key(piece.color, piece.role, sq);
        }
        if let Some(ep) = self.ep_square {
            key ^= zobrist::en_passant_key(ep);
        }
        if self.turn == Color::Black {
            key ^= zobrist::black_to_move_key();
        }
        key
    }

    /// Plays a move, checking that it is legal.
    ///
    /// # Errors
    /// [`IllegalMoveError`] if the move is not among the legal moves.
    pub fn play(&self, m: Move) -> Result<Position, IllegalMoveError> {
        if self.is_legal(m) {
            let mut next = *self;
            next.play_unchecked(m);
            Ok(next)
        } else {
            Err(IllegalMoveError { mv: m, fen: self.fen() })
        }
    }

    /// Whether the legal move `m` gives check, found without playing it: a search decides from
    /// this whether to prune a move before paying for the copy and the move itself.
    ///
    /// Equal to `play_unchecked(m)` followed by [`is_check`](Position::is_check) for every
    /// legal move, castling, en passant and promotions included.
    #[must_use]
    #[inline]
    pub fn gives_check(&self, m: Move) -> bool {
        if self.variant.is_shatranj() {
            self.gives_check_generic::<true>(m)
        } else {
            self.gives_check_generic::<false>(m)
        }
    }

    #[inline(always)]
    fn gives_check_generic<const SHATRANJ: bool>(&self, m: Move) -> bool {
        let b = &self.board;
        let us = self.turn;
        let Some(king) = b.king_of(!us) else { return false };
        let (from, to) = (m.from(), m.to());
        // Our pieces that may attack the king once the move is made, and the blockers then.
        let (mover, target, moved_role, occupied) = if m.is_castle() {
            // Castling moves the king onto its square and the rook (`to`) onto the other.
            let side = if to.file() > from.file() { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            let (king_to, rook_to) = side.destinations(us);
            let occupied = b.occupied().without(from).without(to).with(king_to).with(rook_to);
            (to, rook_to, Role::Rook, occupied)
        } else {
            let Some(role) = b.role_at(from) else { return false };
            let mut occupied = b.occupied().without(from).with(to);
            if m.is_en_passant() {
                occupied = occupied.without(Square::from_coords(to.file(), from.rank()));
            }
            (from, to, m.promotion_role().unwrap_or(role), occupied)
        };
        let direct = match moved_role {
            Role::Pawn => pawn_attacks(us, target),
            Role::Knight => knight_attacks(target),
            Role::Bishop if SHATRANJ => alfil_attacks(target),
            Role::Bishop => bishop_attacks(target, occupied),
            Role::Rook => rook_attacks(target, occupied),
            Role::Queen if SHATRANJ => ferz_attacks(target),
            Role::Queen => queen_attacks(target, occupied),
            Role::King => Bitboard::EMPTY,
        };
        if direct.contains(king) {
            return true;
        }
        // A discovered check: one of our other sliders sees the king through the square left.
        // Shatranj's alfil and ferz leap, so only its rooks can be uncovered.
        let ours = b.by_color(us).without(mover).without(from);
        let orthogonal = if SHATRANJ { b.by_role(Role::Rook) } else { b.by_role(Role::Rook) | b.by_role(Role::Queen) };
        let mut discovered = rook_attacks(king, occupied) & orthogonal & ours;
        if !SHATRANJ {
            discovered |= bishop_attacks(king, occupied) & (b.by_role(Role::Bishop) | b.by_role(Role::Queen)) & ours;
        }
        discovered.is_nonempty()
    }

    /// Passes the move to the opponent (a "null move", used by null-move pruning in search).
    /// Only call it when the side to move is not in check; the position is then still legal.
    pub fn play_null(&mut self) {
        debug_assert!(!self.is_check(), "null move while in check");
        let mut key = self.key ^ zobrist::black_to_move_key();
        if let Some(ep) = self.ep_square.take() {
            key ^= zobrist::en_passant_key(ep);
        }
        self.key = key;
        self.halfmoves = self.halfmoves.saturating_add(1);
        if self.turn == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !self.turn;
        // The side that passed was not in check, and the side now to move cannot be: the
        // position before the pass was legal.
        self.checkers = Bitboard::EMPTY;
    }

    /// Plays a move that must be legal in this position (as produced by
    /// [`legal_moves`](Position::legal_moves)). An illegal move leaves an inconsistent position
    /// but is memory safe.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) {
        if self.variant.is_shatranj() { self.play_generic::<true>(m) } else { self.play_generic::<false>(m) }
    }

    #[inline(always)]
    fn play_generic<const SHATRANJ: bool>(&mut self, m: Move) {
        let us = self.turn;
        let them = !us;
        let (from, to) = (m.from(), m.to());
        let mut key = self.key ^ zobrist::black_to_move_key();
        if let Some(ep) = self.ep_square.take() {
            key ^= zobrist::en_passant_key(ep);
        }
        let old_castling = self.castling;
        let mut ep_candidate = None;
        self.halfmoves = self.halfmoves.saturating_add(1);

        if m.is_castle() {
            let side = if to.file() > from.file() { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            let (king_to, rook_to) = side.destinations(us);
            self.board.toggle(from, us, Role::King);
            self.board.toggle(to, us, Role::Rook);
            self.board.toggle(king_to, us, Role::King);
            self.board.toggle(rook_to, us, Role::Rook);
            key ^= zobrist::piece_key(us, Role::King, from)
                ^ zobrist::piece_key(us, Role::King, king_to)
                ^ zobrist::piece_key(us, Role::Rook, to)
                ^ zobrist::piece_key(us, Role::Rook, rook_to);
            self.castling &= !Bitboard::from_rank(us.back_rank());
        } else {
            let Some(role) = self.board.role_at(from) else {
                debug_assert!(false, "no piece on {from} for {m:?}");
                return;
            };
            if m.is_en_passant() {
                let captured = Square::from_coords(to.file(), from.rank());
                self.board.toggle(captured, them, Role::Pawn);
                key ^= zobrist::piece_key(them, Role::Pawn, captured);
            } else if self.board.by_color(them).contains(to) {
                let captured = self.board.role_at(to).unwrap_or(Role::Pawn);
                self.board.toggle(to, them, captured);
                key ^= zobrist::piece_key(them, captured, to);
                self.halfmoves = 0;
            }
            self.board.shift(from, to, us, role);
            key ^= zobrist::piece_key(us, role, from) ^ zobrist::piece_key(us, role, to);
            match role {
                Role::Pawn => {
                    self.halfmoves = 0;
                    if let MoveKind::Promotion(promoted) = m.kind() {
                        self.board.toggle(to, us, Role::Pawn);
                        self.board.toggle(to, us, promoted);
                        key ^= zobrist::piece_key(us, Role::Pawn, to) ^ zobrist::piece_key(us, promoted, to);
                    } else if !SHATRANJ && from.index() ^ to.index() == 16 {
                        let passed = Square::from_index_unchecked(((from.index() + to.index()) / 2) as u32);
                        if (pawn_attacks(us, passed) & self.board.pieces(them, Role::Pawn)).is_nonempty() {
                            ep_candidate = Some(passed);
                        }
                    }
                }
                Role::King => self.castling &= !Bitboard::from_rank(us.back_rank()),
                _ => {}
            }
            self.castling &= !(Bitboard::from_square(from) | Bitboard::from_square(to));
        }

        if self.castling != old_castling {
            key ^= zobrist::castling_key(self.castling ^ old_castling);
        }
        if us == Color::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = them;
        let king = self.our_king();
        self.checkers = self.attackers_to_generic::<SHATRANJ>(king, self.board.by_color(us), self.board.occupied());
        if let Some(ep) = ep_candidate.filter(|&ep| self.ep_capture_exists(ep)) {
            self.ep_square = Some(ep);
            key ^= zobrist::en_passant_key(ep);
        }
        self.key = key;
    }

    /// Whether some pawn of the side to move can legally capture en passant on `ep`.
    fn ep_capture_exists(&self, ep: Square) -> bool {
        let capturers = pawn_attacks(!self.turn, ep) & self.board.pieces(self.turn, Role::Pawn);
        capturers.into_iter().any(|from| self.ep_is_legal(from, ep))
    }

    /// Whether the en passant capture `from` x `ep` leaves the king safe. Checked on the
    /// resulting occupancy, which covers the rank pin through both pawns and discovered checks.
    #[inline]
    pub(crate) fn ep_is_legal(&self, from: Square, ep: Square) -> bool {
        let captured = Square::from_coords(ep.file(), from.rank());
        let occupied = self.board.occupied()
            ^ Bitboard::from_square(from)
            ^ Bitboard::from_square(captured)
            ^ Bitboard::from_square(ep);
        let attackers = self.board.by_color(!self.turn).without(captured);
        self.attackers_to_generic::<false>(self.our_king(), attackers, occupied).is_empty()
    }

    /// The FEN, with castling rights in X-FEN (`KQkq`, a file letter only for an inner rook).
    #[must_use]
    pub fn fen(&self) -> String {
        self.fen_with(CastlingNotation::XFen)
    }

    /// The FEN with castling rights in the chosen notation.
    #[must_use]
    pub fn fen_with(&self, notation: CastlingNotation) -> String {
        let mut fen = String::with_capacity(90);
        crate::setup::write_board(&mut fen, &self.board).expect("writing to a string");
        fen.push(' ');
        fen.push(self.turn.char());
        fen.push(' ');
        let rights = self.castling_rights(notation);
        if rights.is_empty() {
            fen.push('-');
        }
        fen.extend(rights.iter().map(|r| r.char()));
        fen.push(' ');
        match self.ep_square {
            Some(sq) => fen.push_str(&sq.to_string()),
            None => fen.push('-'),
        }
        fen.push_str(&format!(" {} {}", self.halfmoves, self.fullmoves));
        fen
    }

    /// The castling rights written in `notation`, white's first, h-side before a-side.
    #[must_use]
    pub fn castling_rights(&self, notation: CastlingNotation) -> Vec<CastlingRight> {
        let mut rights = Vec::new();
        for color in Color::ALL {
            let back = Bitboard::from_rank(color.back_rank());
            let ours = self.castling & back;
            let Some(king) = self.board.king_of(color) else { continue };
            let rooks = self.board.pieces(color, Role::Rook) & back;
            for rook in ours.rev_iter() {
                let kingside = rook.file() > king.file();
                let outermost = if kingside { rooks.last() == Some(rook) } else { rooks.first() == Some(rook) };
                let token = match notation {
                    CastlingNotation::XFen if outermost && kingside => CastlingToken::KingSide,
                    CastlingNotation::XFen if outermost => CastlingToken::QueenSide,
                    _ => CastlingToken::File(rook.file()),
                };
                rights.push(CastlingRight { color, token });
            }
        }
        rights
    }

    /// The unvalidated setup this position corresponds to.
    #[must_use]
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board,
            turn: self.turn,
            castling: self.castling_rights(CastlingNotation::Shredder),
            ep_square: self.ep_square,
            halfmoves: self.halfmoves,
            fullmoves: self.fullmoves,
        }
    }

    /// The piece on `sq`, if any.
    #[must_use]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board.piece_at(sq)
    }
}

/// How [`Position::fen_with`] writes castling rights.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CastlingNotation {
    /// `KQkq` for the outermost rooks, a file letter for an inner rook.
    XFen,
    /// Always the rook's file letter, like `HAha`.
    Shredder,
}

impl From<CastlingMode> for CastlingNotation {
    fn from(mode: CastlingMode) -> CastlingNotation {
        match mode {
            CastlingMode::Standard => CastlingNotation::XFen,
            CastlingMode::Chess960 => CastlingNotation::Shredder,
        }
    }
}

fn side_name(kingside: bool) -> &'static str {
    if kingside { "h-side" } else { "a-side" }
}

/// Turns the castling rights as written into the squares of the rooks that may castle.
fn resolve_castling(board: &Board, rights: &[CastlingRight]) -> Result<Bitboard, PositionError> {
    let mut rooks = Bitboard::EMPTY;
    // Per colour and side: the right that claimed it, to reject two rooks on one side.
    let mut claimed: [[Option<(char, Square)>; 2]; 2] = [[None; 2]; 2];
    for &right in rights {
        let color = right.color;
        let back = color.back_rank();
        let king = board.king_of(color).expect("kings validated first");
        if king.rank() != back {
            return Err(PositionError::CastlingKingNotOnBackRank { color, right: right.char() });
        }
        let own_rooks = board.pieces(color, Role::Rook) & Bitboard::from_rank(back);
        let rook = match right.token {
            CastlingToken::KingSide => own_rooks
                .filter(|sq| sq.file() > king.file())
                .last()
                .ok_or(PositionError::CastlingNoRookOnSide { color, right: right.char(), side: side_name(true) })?,
            CastlingToken::QueenSide => own_rooks
                .into_iter()
                .find(|sq| sq.file() < king.file())
                .ok_or(PositionError::CastlingNoRookOnSide { color, right: right.char(), side: side_name(false) })?,
            CastlingToken::File(file) => {
                if file == king.file() {
                    return Err(PositionError::CastlingOnKingFile { color, right: right.char() });
                }
                let square = Square::from_coords(file, back);
                if !own_rooks.contains(square) {
                    return Err(PositionError::CastlingNoRookOnFile { color, right: right.char(), square });
                }
                square
            }
        };
        let kingside = rook.file() > king.file();
        let slot = &mut claimed[color.index()][usize::from(kingside)];
        match *slot {
            Some((_, earlier)) if earlier == rook => {}
            Some((first, _)) => {
                return Err(PositionError::CastlingTwoRooksOneSide {
                    color,
                    first,
                    second: right.char(),
                    side: side_name(kingside),
                });
            }
            None => *slot = Some((right.char(), rook)),
        }
        rooks = rooks.with(rook);
    }
    Ok(rooks)
}

/// Standard chess castles only from the starting squares: the king on the e-file, the rook
/// in the corner of its side.
fn check_standard_castling(board: &Board, rights: &[CastlingRight]) -> Result<(), PositionError> {
    for &right in rights {
        let color = right.color;
        let back = color.back_rank();
        let king_home = Square::from_coords(File::E, back);
        let king = board.king_of(color).expect("kings validated first");
        let kingside = match right.token {
            CastlingToken::KingSide => true,
            CastlingToken::QueenSide => false,
            CastlingToken::File(file) => file > king.file(),
        };
        let rook_home = Square::from_coords(if kingside { File::H } else { File::A }, back);
        let rook_there = board.pieces(color, Role::Rook).contains(rook_home);
        let named_elsewhere = matches!(right.token, CastlingToken::File(file) if file != rook_home.file());
        if king != king_home || !rook_there || named_elsewhere {
            return Err(PositionError::CastlingNotStandard {
                color,
                right: right.char(),
                king: king_home,
                rook: rook_home,
            });
        }
    }
    Ok(())
}

/// Checks an en passant square from a FEN and returns it.
fn validate_ep(board: &Board, turn: Color, square: Square) -> Result<Square, PositionError> {
    let expected = turn.relative_rank(Rank::SIXTH);
    if square.rank() != expected {
        return Err(PositionError::EnPassantWrongRank { square, expected, turn });
    }
    let forward = if turn.is_white() { 8 } else { -8 };
    let pawn = square.offset(-forward).expect("rank 6 or 3");
    let origin = square.offset(forward).expect("rank 6 or 3");
    if !board.pieces(!turn, Role::Pawn).contains(pawn) {
        return Err(PositionError::EnPassantNoPawn { square, color: !turn, pawn });
    }
    if let Some(blocked) = (board.occupied() & (Bitboard::from_square(square) | Bitboard::from_square(origin))).first()
    {
        return Err(PositionError::EnPassantBlocked { square, blocked });
    }
    Ok(square)
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({} {})", self.variant, self.fen())
    }
}

impl fmt::Display for Position {
    /// The FEN in the variant's own castling notation.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}
