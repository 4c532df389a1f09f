//! Legal move generation.
//!
//! One generator serves both listing and counting: it reports moves to a [`Sink`], and the
//! counting sink adds up whole target sets with a popcount, which is what makes bulk-counted
//! perft fast. The generator is monomorphised for Shatranj, whose only slider is the rook.

use crate::attacks::{
    alfil_attacks, between, bishop_attacks, ferz_attacks, king_attacks, knight_attacks, line, pawn_attacks,
    rook_attacks,
};
use crate::position::CastlingSide;
use crate::{Bitboard, Color, File, Move, MoveList, Position, Rank, Role, Square};

/// Receives generated moves.
pub(crate) trait Sink {
    /// Moves of a non-pawn piece from `from` to each of `targets`.
    fn piece_moves(&mut self, from: Square, targets: Bitboard);
    /// Pawn moves to each of `targets`, each from the square `delta` indices behind it.
    fn pawn_moves(&mut self, targets: Bitboard, delta: i32);
    /// Pawn promotions to each of `targets` (every role in chess, the ferz in Shatranj).
    fn promotions<const SHATRANJ: bool>(&mut self, targets: Bitboard, delta: i32);
    /// One special move (castling, en passant).
    fn push(&mut self, m: Move);
    /// The origin squares of the moves the sink wants: the generator skips the other pieces.
    #[inline(always)]
    fn origins(&self) -> Bitboard {
        Bitboard::FULL
    }
}

impl Sink for MoveList {
    #[inline(always)]
    fn piece_moves(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.push(Move::normal(from, to));
        }
    }

    #[inline(always)]
    fn pawn_moves(&mut self, targets: Bitboard, delta: i32) {
        for to in targets {
            let from = Square::from_index_unchecked((to.index() as i32 - delta) as u32);
            self.push(Move::normal(from, to));
        }
    }

    #[inline(always)]
    fn promotions<const SHATRANJ: bool>(&mut self, targets: Bitboard, delta: i32) {
        for to in targets {
            let from = Square::from_index_unchecked((to.index() as i32 - delta) as u32);
            if SHATRANJ {
                self.push(Move::promotion(from, to, Role::Queen));
            } else {
                for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                    self.push(Move::promotion(from, to, role));
                }
            }
        }
    }

    #[inline(always)]
    fn push(&mut self, m: Move) {
        MoveList::push(self, m);
    }
}

/// Counts moves without listing them.
pub(crate) struct Counter(pub(crate) u64);

impl Sink for Counter {
    #[inline(always)]
    fn piece_moves(&mut self, _from: Square, targets: Bitboard) {
        self.0 += u64::from(targets.count());
    }

    #[inline(always)]
    fn pawn_moves(&mut self, targets: Bitboard, _delta: i32) {
        self.0 += u64::from(targets.count());
    }

    #[inline(always)]
    fn promotions<const SHATRANJ: bool>(&mut self, targets: Bitboard, _delta: i32) {
        self.0 += u64::from(targets.count()) * if SHATRANJ { 1 } else { 4 };
    }

    #[inline(always)]
    fn push(&mut self, _m: Move) {
        self.0 += 1;
    }
}

/// Looks for one move: the generator then produces only the moves of the piece on its origin
/// square, which makes a legality test a small part of a full generation.
struct Finder {
    target: Move,
    found: bool,
}

impl Sink for Finder {
    #[inline(always)]
    fn piece_moves(&mut self, from: Square, targets: Bitboard) {
        let to = self.target.to();
        self.found |= targets.contains(to) && Move::normal(from, to) == self.target;
    }

    #[inline(always)]
    fn pawn_moves(&mut self, targets: Bitboard, delta: i32) {
        let to = self.target.to();
        if targets.contains(to) {
            let from = Square::from_index_unchecked((to.index() as i32 - delta) as u32);
            self.found |= Move::normal(from, to) == self.target;
        }
    }

    #[inline(always)]
    fn promotions<const SHATRANJ: bool>(&mut self, targets: Bitboard, delta: i32) {
        let Some(role) = self.target.promotion_role() else {
            return;
        };
        // A promotion code names a queen, rook, bishop or knight, each legal in chess; in
        // Shatranj the pawn becomes a ferz only, which is stored as the queen.
        let to = self.target.to();
        if (!SHATRANJ || role == Role::Queen) && targets.contains(to) {
            let from = Square::from_index_unchecked((to.index() as i32 - delta) as u32);
            self.found |= Move::promotion(from, to, role) == self.target;
        }
    }

    #[inline(always)]
    fn push(&mut self, m: Move) {
        self.found |= m == self.target;
    }

    #[inline(always)]
    fn origins(&self) -> Bitboard {
        Bitboard::from_square(self.target.from())
    }
}

const NOT_A_FILE: Bitboard = Bitboard(!0x0101_0101_0101_0101);
const NOT_H_FILE: Bitboard = Bitboard(!0x8080_8080_8080_8080);

impl Position {
    /// All legal moves. Empty when the game is over by checkmate, stalemate or, in Shatranj,
    /// by the bare-king rule; draws by rule (repetition, move rules, material) do not stop
    /// move generation.
    #[must_use]
    pub fn legal_moves(&self) -> MoveList {
        let mut moves = MoveList::new();
        self.push_legal_moves(&mut moves);
        moves
    }

    /// Appends the [`legal_moves`](Position::legal_moves) to `moves`: for a caller that keeps
    /// its own list, which spares the copy of a returned one.
    #[inline]
    pub fn push_legal_moves(&self, moves: &mut MoveList) {
        self.generate(moves);
    }

    /// The number of legal moves, counted without listing them.
    #[must_use]
    #[inline]
    pub fn count_legal_moves(&self) -> u64 {
        let mut counter = Counter(0);
        self.generate(&mut counter);
        counter.0
    }

    /// Whether the side to move has no move at all by the movement rules, ignoring the Shatranj
    /// bare-king rule that may have ended the game already (what makes a check a mate in SAN).
    #[must_use]
    pub(crate) fn has_no_moves_by_movement(&self) -> bool {
        let mut counter = Counter(0);
        if self.variant.is_shatranj() {
            self.generate_generic::<true, false, Counter>(&mut counter);
        } else {
            self.generate_generic::<false, false, Counter>(&mut counter);
        }
        counter.0 == 0
    }

    /// Whether `m` is legal here (one of [`legal_moves`](Position::legal_moves)), for any
    /// move, however it was made: a search asks this of the table's move before generating the
    /// others, since that move often ends the node on its own.
    #[must_use]
    #[inline]
    pub fn is_legal(&self, m: Move) -> bool {
        let mut finder = Finder { target: m, found: false };
        self.generate(&mut finder);
        finder.found
    }

    /// The legal captures (en passant included) and promotions: the moves a quiescence search
    /// looks at. Empty when the game is over, like [`legal_moves`](Position::legal_moves).
    #[must_use]
    pub fn legal_captures_and_promotions(&self) -> MoveList {
        let mut moves = MoveList::new();
        self.push_legal_captures_and_promotions(&mut moves);
        moves
    }

    /// Appends the [`legal_captures_and_promotions`](Position::legal_captures_and_promotions)
    /// to `moves`, as [`push_legal_moves`](Position::push_legal_moves) does for all moves.
    #[inline]
    pub fn push_legal_captures_and_promotions(&self, moves: &mut MoveList) {
        self.generate_filtered::<true, MoveList>(moves);
    }

    #[inline(always)]
    pub(crate) fn generate<S: Sink>(&self, sink: &mut S) {
        self.generate_filtered::<false, S>(sink);
    }

    #[inline(always)]
    fn generate_filtered<const CAPTURES: bool, S: Sink>(&self, sink: &mut S) {
        if self.variant.is_shatranj() {
            if self.shatranj_bare_king_winner().is_none() {
                self.generate_generic::<true, CAPTURES, S>(sink);
            }
        } else {
            self.generate_generic::<false, CAPTURES, S>(sink);
        }
    }

    /// Under the Shatranj bare-king rule, the winner if the rule has ended the game (the
    /// Fairy-Stockfish semantics): the side that just moved is bare while the side to move has a
    /// piece left (side to move wins), or the side to move is bare and cannot bare the other
    /// king on this move because two or more pieces remain (side to move loses).
    #[must_use]
    pub fn shatranj_bare_king_winner(&self) -> Option<Color> {
        let us = self.board.by_color(self.turn).count();
        let them = self.board.by_color(!self.turn).count();
        if them <= 1 && us >= 2 {
            Some(self.turn)
        } else if us <= 1 && them >= 3 {
            Some(!self.turn)
        } else {
            None
        }
    }

    /// Our pieces pinned to our king.
    #[inline(always)]
    fn pinned<const SHATRANJ: bool>(&self, king: Square) -> Bitboard {
        let b = &self.board;
        let theirs = b.by_color(!self.turn);
        let mut snipers = rook_attacks(king, theirs)
            & (b.by_role(Role::Rook) | if SHATRANJ { Bitboard::EMPTY } else { b.by_role(Role::Queen) });
        if !SHATRANJ {
            snipers |= bishop_attacks(king, theirs) & (b.by_role(Role::Bishop) | b.by_role(Role::Queen));
        }
        snipers &= theirs;
        let mut pinned = Bitboard::EMPTY;
        for sniper in snipers {
            let blockers = between(king, sniper) & b.occupied();
            if !blockers.more_than_one() {
                pinned |= blockers;
            }
        }
        pinned & b.by_color(self.turn)
    }

    #[inline(always)]
    fn generate_generic<const SHATRANJ: bool, const CAPTURES: bool, S: Sink>(&self, sink: &mut S) {
        let b = &self.board;
        let us = self.turn;
        let them = !us;
        let king = self.our_king();
        let ours = b.by_color(us);
        let occupied = b.occupied();

        let theirs = b.by_color(them);
        // With CAPTURES only moves onto enemy pieces (and promotions, below) are generated.
        let destinations = if CAPTURES { theirs } else { !ours };
        let origins = sink.origins();
        let king_may_move = (origins & Bitboard::from_square(king)).is_nonempty();
        if king_may_move {
            let without_king = occupied.without(king);
            for to in king_attacks(king) & destinations {
                if self.attackers_to_generic::<SHATRANJ>(to, b.by_color(them), without_king).is_empty() {
                    sink.push(Move::normal(king, to));
                }
            }
        }
        if self.checkers.more_than_one() {
            return;
        }
        let mask = match self.checkers.first() {
            // Only sliders can be blocked; the Shatranj alfil leaps over the square between.
            Some(checker) if SHATRANJ && !b.by_role(Role::Rook).contains(checker) => Bitboard::from_square(checker),
            Some(checker) => between(king, checker).with(checker),
            None => Bitboard::FULL,
        };
        let targets = destinations & mask;
        let pinned = self.pinned::<SHATRANJ>(king);
        let movers = ours & origins;
        let free = movers & !pinned;

        // A pinned knight (or Shatranj leaper, pinned only orthogonally) can never move.
        for from in b.by_role(Role::Knight) & free {
            sink.piece_moves(from, knight_attacks(from) & targets);
        }
        if SHATRANJ {
            for from in b.by_role(Role::Bishop) & free {
                sink.piece_moves(from, alfil_attacks(from) & targets);
            }
            for from in b.by_role(Role::Queen) & free {
                sink.piece_moves(from, ferz_attacks(from) & targets);
            }
        } else {
            let diagonal = (b.by_role(Role::Bishop) | b.by_role(Role::Queen)) & movers;
            for from in diagonal & !pinned {
                sink.piece_moves(from, bishop_attacks(from, occupied) & targets);
            }
            for from in diagonal & pinned {
                sink.piece_moves(from, bishop_attacks(from, occupied) & targets & line(king, from));
            }
        }
        let orthogonal =
            (b.by_role(Role::Rook) | if SHATRANJ { Bitboard::EMPTY } else { b.by_role(Role::Queen) }) & movers;
        for from in orthogonal & !pinned {
            sink.piece_moves(from, rook_attacks(from, occupied) & targets);
        }
        for from in orthogonal & pinned {
            sink.piece_moves(from, rook_attacks(from, occupied) & targets & line(king, from));
        }

        self.generate_pawns::<SHATRANJ, CAPTURES, S>(sink, king, pinned, mask);

        if !SHATRANJ {
            if !CAPTURES && self.checkers.is_empty() && king_may_move {
                self.generate_castling(sink, king);
            }
            if let Some(ep) = self.ep_square {
                for from in pawn_attacks(them, ep) & b.pieces(us, Role::Pawn) & origins {
                    if self.ep_is_legal(from, ep) {
                        sink.push(Move::en_passant(from, ep));
                    }
                }
            }
        }
    }

    #[inline(always)]
    fn generate_pawns<const SHATRANJ: bool, const CAPTURES: bool, S: Sink>(
        &self,
        sink: &mut S,
        king: Square,
        pinned: Bitboard,
        mask: Bitboard,
    ) {
        let b = &self.board;
        let us = self.turn;
        let pawns = b.pieces(us, Role::Pawn) & sink.origins();
        if pawns.is_empty() {
            return;
        }
        let white = us.is_white();
        let theirs = b.by_color(!us);
        let empty = !b.occupied();
        let last_rank = Bitboard::from_rank(us.relative_rank(Rank::EIGHTH));
        let third_rank = Bitboard::from_rank(us.relative_rank(Rank::THIRD));
        let forward = |bb: Bitboard| if white { bb.shift_up() } else { bb.shift_down() };
        let (up, up_west, up_east) = if white { (8, 7, 9) } else { (-8, -9, -7) };

        let free = pawns & !pinned;
        let single = forward(free) & empty;
        if !SHATRANJ && !CAPTURES {
            let double = forward(single & third_rank) & empty & mask;
            sink.pawn_moves(double, 2 * up);
        }
        let single = single & mask;
        if !CAPTURES {
            sink.pawn_moves(single & !last_rank, up);
        }
        sink.promotions::<SHATRANJ>(single & last_rank, up);

        let west = forward(Bitboard((free & NOT_A_FILE).0 >> 1)) & theirs & mask;
        let east = forward(Bitboard((free & NOT_H_FILE).0 << 1)) & theirs & mask;
        sink.pawn_moves(west & !last_rank, up_west);
        sink.promotions::<SHATRANJ>(west & last_rank, up_west);
        sink.pawn_moves(east & !last_rank, up_east);
        sink.promotions::<SHATRANJ>(east & last_rank, up_east);

        for from in pawns & pinned {
            let allowed = line(king, from) & mask;
            let push = forward(Bitboard::from_square(from)) & empty;
            let mut targets = push | (pawn_attacks(us, from) & theirs);
            if !SHATRANJ && (push & third_rank).is_nonempty() {
                targets |= forward(push) & empty;
            }
            if CAPTURES {
                targets &= theirs | last_rank;
            }
            for to in targets & allowed {
                let delta = to.index() as i32 - from.index() as i32;
                let single = Bitboard::from_square(to);
                if last_rank.contains(to) {
                    sink.promotions::<SHATRANJ>(single, delta);
                } else {
                    sink.pawn_moves(single, delta);
                }
            }
        }
    }

    fn generate_castling<S: Sink>(&self, sink: &mut S, king: Square) {
        let us = self.turn;
        let back = Bitboard::from_rank(us.back_rank());
        let rooks = self.castling & self.board.by_color(us) & back;
        for rook in rooks {
            let side = if rook.file() > king.file() { CastlingSide::KingSide } else { CastlingSide::QueenSide };
            let (king_to, rook_to) = side.destinations(us);
            let movers = Bitboard::from_square(king) | Bitboard::from_square(rook);
            let king_path = between(king, king_to).with(king_to);
            let path = (king_path | between(rook, rook_to).with(rook_to)) & !movers;
            if (path & self.board.occupied()).is_nonempty() {
                continue;
            }
            // Both movers leave: a rook that shielded the king's final square does not count
            // (the Chess960 rule Stockfish and the perft references follow).
            let occupied = self.board.occupied() ^ movers;
            let theirs = self.board.by_color(!us);
            if king_path.into_iter().all(|sq| self.attackers_to_generic::<false>(sq, theirs, occupied).is_empty()) {
                sink.push(Move::castle(king, rook));
            }
        }
    }
}

/// The start position of Chess960 number `n` (Scharnagl numbering, 0..960; 518 is the standard
/// array), as the back-rank piece order from a to h.
#[must_use]
pub fn chess960_back_rank(n: u32) -> Option<[Role; 8]> {
    if n >= 960 {
        return None;
    }
    let mut rank: [Option<Role>; 8] = [None; 8];
    let mut n = n;
    // Light-squared bishop on b, d, f or h; dark-squared on a, c, e or g.
    rank[(n % 4 * 2 + 1) as usize] = Some(Role::Bishop);
    n /= 4;
    rank[(n % 4 * 2) as usize] = Some(Role::Bishop);
    n /= 4;
    let place_nth_empty = |rank: &mut [Option<Role>; 8], nth: u32, role: Role| {
        let index = (0..8).filter(|&i| rank[i].is_none()).nth(nth as usize).expect("enough empty squares");
        rank[index] = Some(role);
    };
    place_nth_empty(&mut rank, n % 6, Role::Queen);
    n /= 6;
    // The ten ways to choose two of the five remaining squares for the knights.
    const KNIGHTS: [(u32, u32); 10] = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
    let (first, second) = KNIGHTS[n as usize];
    place_nth_empty(&mut rank, second, Role::Knight);
    place_nth_empty(&mut rank, first, Role::Knight);
    for role in [Role::Rook, Role::King, Role::Rook] {
        place_nth_empty(&mut rank, 0, role);
    }
    Some(rank.map(|r| r.unwrap_or(Role::Pawn)))
}

impl Position {
    /// The Chess960 start position number `n` (0..960, Scharnagl numbering; 518 is the standard
    /// array), with all four castling rights; `None` for `n >= 960`.
    #[must_use]
    pub fn chess960(n: u32) -> Option<Position> {
        let back = chess960_back_rank(n)?;
        let mut board = crate::Board::empty();
        for (file, role) in File::ALL.into_iter().zip(back) {
            for color in Color::ALL {
                let rank = color.back_rank();
                board.set_piece_at(Square::from_coords(file, rank), crate::Piece { color, role });
                let pawn_rank = color.relative_rank(Rank::SECOND);
                board.set_piece_at(Square::from_coords(file, pawn_rank), crate::Piece { color, role: Role::Pawn });
            }
        }
        let rooks = board.by_role(Role::Rook) & Bitboard::BACKRANKS;
        let setup = crate::Setup {
            board,
            turn: Color::White,
            castling: rooks
                .map(|sq| crate::CastlingRight {
                    color: board.color_at(sq).unwrap_or(Color::White),
                    token: crate::CastlingToken::File(sq.file()),
                })
                .collect(),
            ep_square: None,
            halfmoves: 0,
            fullmoves: 1,
        };
        Position::from_setup(&setup, crate::Variant::Chess960).ok()
    }

    /// A Chess960 start position chosen uniformly with `random`, a source of random numbers.
    pub fn random_chess960(mut random: impl FnMut() -> u64) -> Position {
        // Rejection sampling keeps the 960 positions equally likely.
        loop {
            let n = (random() >> 54) as u32; // 0..1024
            if let Some(position) = Position::chess960(n) {
                return position;
            }
        }
    }
}
