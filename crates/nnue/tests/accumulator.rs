//! Incremental accumulator updates equal a full refresh after every ply of random games, in all
//! three variants, and the move kinds that need special handling all occur.

mod common;

use ferz_chess::{MoveKind, SplitMix64, Variant};
use ferz_nnue::features::move_delta;
use ferz_nnue::{Accumulator, Activation, FloatNetwork, InputLayout, NetVariant, Network, evaluate};

/// Counts of the move kinds a test played, to show the special cases were exercised.
#[derive(Default, Debug)]
struct Seen {
    captures: u32,
    en_passant: u32,
    castles: u32,
    promotions: u32,
    /// Castles where the king or the rook lands on a square one of them started on.
    overlapping_castles: u32,
    /// Moves after which a perspective's king view changed (another king bucket, or across the
    /// mirror line), so the update refreshed that perspective.
    view_changes: u32,
}

fn check_variant(variant: Variant, net: &Network, games: u64, seed: u64) -> Seen {
    let mut rng = SplitMix64::new(seed);
    let mut seen = Seen::default();
    let mut incremental = Accumulator::new(net);
    let mut next = Accumulator::new(net);
    let mut fresh = Accumulator::new(net);
    for game in 0..games {
        let start = common::start(variant, game, &mut rng);
        incremental.refresh(net, &start);
        for (ply, (pos, m)) in common::random_game(start, 300, &mut rng).into_iter().enumerate() {
            match m.kind() {
                MoveKind::EnPassant => seen.en_passant += 1,
                MoveKind::Castle => {
                    seen.castles += 1;
                    if move_delta(&pos, m).removed.len() < 2 {
                        seen.overlapping_castles += 1;
                    }
                }
                MoveKind::Promotion(_) => seen.promotions += 1,
                MoveKind::Normal => {}
            }
            if !m.is_castle() && pos.piece_at(m.to()).is_some() {
                seen.captures += 1;
            }
            let mut after = pos;
            after.play_unchecked(m);
            let inputs = net.inputs();
            if ferz_chess::Color::ALL
                .iter()
                .any(|&p| inputs.view_of(pos.board(), p) != inputs.view_of(after.board(), p))
            {
                seen.view_changes += 1;
            }
            next.update_from(net, &incremental, &move_delta(&pos, m), &after);
            std::mem::swap(&mut incremental, &mut next);
            fresh.refresh(net, &after);
            assert_eq!(incremental, fresh, "{variant} game {game} ply {ply}: {m:?} from {}", pos.fen());
            assert_eq!(evaluate(net, &incremental, &after), evaluate(net, &fresh, &after));
        }
    }
    seen
}

fn nets(variant: NetVariant) -> Vec<Network> {
    vec![
        // A hidden size that is not a whole number of lanes, to cover the padding.
        FloatNetwork::random(Activation::SCReLU, 40, 1, 1).quantise(variant).unwrap(),
        common::random_extreme_net(variant, Activation::CReLU, InputLayout::Plain, 16, 8, 2),
        FloatNetwork::random_with_inputs(InputLayout::Mirrored, Activation::SCReLU, 24, 1, 3)
            .quantise(variant)
            .unwrap(),
        common::random_extreme_net(variant, Activation::CReLU, InputLayout::King4, 16, 8, 4),
    ]
}

/// Whether the games made a layout that depends on the king refresh perspectives.
fn check_view_changes(net: &Network, seen: &Seen) {
    if net.inputs() == InputLayout::Plain {
        assert_eq!(seen.view_changes, 0);
    } else {
        assert!(seen.view_changes > 20, "{:?}: {seen:?}", net.inputs());
    }
}

#[test]
fn chess_incremental_equals_refresh() {
    for net in nets(NetVariant::Chess) {
        let seen = check_variant(Variant::Chess, &net, 60, 11);
        assert!(seen.captures > 100 && seen.en_passant > 0 && seen.castles > 0 && seen.promotions > 0, "{seen:?}");
        check_view_changes(&net, &seen);
    }
}

#[test]
fn chess960_incremental_equals_refresh() {
    for net in nets(NetVariant::Chess) {
        let seen = check_variant(Variant::Chess960, &net, 150, 12);
        assert!(seen.captures > 100 && seen.en_passant > 0 && seen.castles > 0 && seen.promotions > 0, "{seen:?}");
        assert!(seen.overlapping_castles > 0, "{seen:?}");
        check_view_changes(&net, &seen);
    }
}

#[test]
fn shatranj_incremental_equals_refresh() {
    for net in nets(NetVariant::Shatranj) {
        let seen = check_variant(Variant::Shatranj, &net, 60, 13);
        assert!(seen.captures > 100 && seen.promotions > 0, "{seen:?}");
        check_view_changes(&net, &seen);
    }
}

#[test]
fn apply_in_place_matches_update_from() {
    let net = &nets(NetVariant::Chess)[3];
    let mut rng = SplitMix64::new(5);
    let start = common::start(Variant::Chess, 0, &mut rng);
    let mut acc = Accumulator::new(net);
    acc.refresh(net, &start);
    for (pos, m) in common::random_game(start, 80, &mut rng) {
        let mut after = pos;
        after.play_unchecked(m);
        acc.apply(net, &move_delta(&pos, m), &after);
        let mut fresh = Accumulator::new(net);
        fresh.refresh(net, &after);
        assert_eq!(acc, fresh);
    }
}
