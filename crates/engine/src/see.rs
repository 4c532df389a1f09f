//! Static exchange evaluation: the material balance of the capture sequence on one square.

use ferz_chess::{Bitboard, Color, Move, MoveKind, Position, Role, Square, Variant};

use crate::eval::piece_value;

/// Roles from the least to the most valuable (the king last), the order attackers join an
/// exchange; sorted at compile time, once per variant's values.
const fn roles_by_value(variant: Variant) -> [Role; 6] {
    const fn key(variant: Variant, role: Role) -> i32 {
        if matches!(role, Role::King) { i32::MAX } else { piece_value(variant, role) }
    }
    let mut roles = Role::ALL;
    // Insertion sort: stable, like the order of `Role::ALL` among equal values.
    let mut i = 1;
    while i < roles.len() {
        let mut j = i;
        while j > 0 && key(variant, roles[j - 1]) > key(variant, roles[j]) {
            let lighter = roles[j];
            roles[j] = roles[j - 1];
            roles[j - 1] = lighter;
            j -= 1;
        }
        i += 1;
    }
    roles
}

const CHESS_ROLES_BY_VALUE: [Role; 6] = roles_by_value(Variant::Chess);
const SHATRANJ_ROLES_BY_VALUE: [Role; 6] = roles_by_value(Variant::Shatranj);

/// Whether the exchange started by `m` wins at least `threshold` centipawns for the mover,
/// assuming both sides recapture with their least valuable piece and stop when it pays.
/// Pins are ignored.
#[must_use]
pub fn see_ge(pos: &Position, m: Move, threshold: i32) -> bool {
    if m.is_castle() {
        return threshold <= 0;
    }
    let variant = pos.variant();
    let board = pos.board();
    let (from, to) = (m.from(), m.to());
    let value = |role: Role| piece_value(variant, role);
    let mover = board.role_at(from).unwrap_or(Role::Pawn);
    let mut occupied = board.occupied();
    let mut gain = match m.kind() {
        MoveKind::EnPassant => {
            occupied = occupied.without(Square::from_coords(to.file(), from.rank()));
            value(Role::Pawn)
        }
        _ => board.role_at(to).map_or(0, value),
    };
    // The piece standing on `to` after the move, which the opponent may capture next.
    let mut on_square = mover;
    if let Some(promoted) = m.promotion_role() {
        gain += value(promoted) - value(Role::Pawn);
        on_square = promoted;
    }
    let mut swap = gain - threshold;
    if swap < 0 {
        return false;
    }
    swap = value(on_square) - swap;
    if swap <= 0 {
        return true;
    }
    occupied = occupied.without(from).with(to);
    let order = if variant.is_shatranj() { &SHATRANJ_ROLES_BY_VALUE } else { &CHESS_ROLES_BY_VALUE };
    let mut side: Color = pos.turn();
    let mut attackers = pos.attackers_to(to, board.occupied(), occupied) & occupied;
    let mut result = true;
    loop {
        side = !side;
        attackers &= occupied;
        let ours = attackers & board.by_color(side);
        if ours.is_empty() {
            break;
        }
        result = !result;
        let Some((role, sq)) = order.iter().find_map(|&r| (ours & board.by_role(r)).first().map(|sq| (r, sq))) else {
            break;
        };
        if role == Role::King {
            // The king may only take last: if the other side still attacks, it cannot.
            if (attackers & board.by_color(!side) & occupied).is_nonempty() {
                result = !result;
            }
            break;
        }
        swap = value(role) - swap;
        if swap < i32::from(result) {
            break;
        }
        occupied = occupied.without(sq);
        // Sliders behind the piece that just captured join in (x-rays).
        attackers |= pos.attackers_to(to, board.occupied(), occupied) & occupied & !Bitboard::from_square(to);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see(fen: &str, variant: Variant, uci: &str, threshold: i32) -> bool {
        let pos = Position::from_fen(fen, variant).unwrap();
        see_ge(&pos, pos.parse_uci(uci).unwrap(), threshold)
    }

    #[test]
    fn attackers_join_from_the_least_valuable() {
        use Role::{Bishop, King, Knight, Pawn, Queen, Rook};
        assert_eq!(CHESS_ROLES_BY_VALUE, [Pawn, Knight, Bishop, Rook, Queen, King]);
        // Shatranj's alfil (bishop) and ferz (queen) are worth less than its knight.
        assert_eq!(SHATRANJ_ROLES_BY_VALUE, [Pawn, Bishop, Queen, Knight, Rook, King]);
        for variant in [Variant::Chess, Variant::Chess960, Variant::Shatranj] {
            let order = roles_by_value(variant);
            assert!(order[..5].windows(2).all(|w| piece_value(variant, w[0]) <= piece_value(variant, w[1])));
        }
    }

    #[test]
    fn exchanges() {
        // Pawn takes an undefended knight: wins a knight.
        assert!(see("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", Variant::Chess, "e4d5", 200));
        // Queen takes a pawn defended by a pawn: loses the queen for a pawn.
        assert!(!see("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", Variant::Chess, "d1d5", 0));
        // Rook takes a rook defended by a rook, with our second rook behind (x-ray): even.
        assert!(see("3rk3/3r4/8/8/8/8/3R4/3RK3 w - - 0 1", Variant::Chess, "d2d7", 0));
        assert!(!see("3rk3/3r4/8/8/8/8/3R4/3RK3 w - - 0 1", Variant::Chess, "d2d7", 1));
        // Quiet move to an attacked square loses the piece.
        assert!(!see("4k3/8/8/2p5/8/8/2N5/4K3 w - - 0 1", Variant::Chess, "c2d4", -100));
        // Shatranj: an alfil leaps onto a square defended only by a ferz; ferz takes back.
        assert!(!see("4k3/8/8/4q3/3p4/8/1B6/4K3 w - - 0 1", Variant::Shatranj, "b2d4", 1));
    }
}
