//! The default nets compiled into the binary (see `nets/README.md` and `build.rs`).

use crate::NetVariant;

#[cfg(ferz_net_chess)]
const CHESS: Option<&[u8]> = Some(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/nets/chess.nnue")));
#[cfg(not(ferz_net_chess))]
const CHESS: Option<&[u8]> = None;

#[cfg(ferz_net_shatranj)]
const SHATRANJ: Option<&[u8]> = Some(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/nets/shatranj.nnue")));
#[cfg(not(ferz_net_shatranj))]
const SHATRANJ: Option<&[u8]> = None;

/// The file bytes of the net embedded for `variant`, if the build found one.
#[must_use]
pub const fn bytes(variant: NetVariant) -> Option<&'static [u8]> {
    match variant {
        NetVariant::Chess => CHESS,
        NetVariant::Shatranj => SHATRANJ,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format;

    #[test]
    fn embedded_nets_decode_for_their_variant() {
        for variant in [NetVariant::Chess, NetVariant::Shatranj] {
            if let Some(bytes) = bytes(variant) {
                let net = format::parse(bytes, Some(variant)).expect("the embedded net decodes");
                assert_eq!(net.variant(), variant);
            }
        }
    }
}
