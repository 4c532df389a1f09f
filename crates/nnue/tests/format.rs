//! Net files round-trip, and every kind of damage is reported as what it is.

use ferz_nnue::format::{self, FormatError};
use ferz_nnue::{Activation, FloatNetwork, InputLayout, NetVariant, Network};

fn net(variant: NetVariant, activation: Activation, hidden: usize) -> Network {
    bucketed_net(variant, activation, hidden, 1)
}

fn bucketed_net(variant: NetVariant, activation: Activation, hidden: usize, buckets: usize) -> Network {
    FloatNetwork::random(activation, hidden, buckets, hidden as u64).quantise(variant).unwrap()
}

fn parse_err(bytes: &[u8], expected: Option<NetVariant>) -> FormatError {
    format::parse(bytes, expected).expect_err("damaged file accepted")
}

/// Recomputes the trailing checksum after editing a header field, so the field's own check
/// is the one that fires.
fn reseal(bytes: &mut [u8]) {
    let end = bytes.len() - 4;
    let crc = crc32fast::hash(&bytes[..end]);
    bytes[end..].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn round_trips_through_bytes_and_files() {
    let dir = tempfile::tempdir().unwrap();
    for variant in [NetVariant::Chess, NetVariant::Shatranj] {
        for activation in [Activation::CReLU, Activation::SCReLU] {
            for (hidden, buckets) in [(1, 1), (17, 1), (64, 1), (17, 8), (64, 3)] {
                let original = bucketed_net(variant, activation, hidden, buckets);
                let bytes = format::to_bytes(&original);
                assert_eq!(bytes.len(), format::file_size(InputLayout::Plain, hidden, buckets));
                assert_eq!(bytes[22], (buckets - 1) as u8);
                assert_eq!(&bytes[..8], b"FERZNNUE");
                assert_eq!(format::parse(&bytes, Some(variant)).unwrap(), original);
                let mut written = Vec::new();
                format::write(&original, &mut written).unwrap();
                assert_eq!(written, bytes);
                assert_eq!(format::read(&bytes[..], None).unwrap(), original);
                let path = dir.path().join(format!("{variant}-{activation:?}-{hidden}-{buckets}.nnue"));
                format::save(&original, &path).unwrap();
                assert_eq!(std::fs::read(&path).unwrap(), bytes);
                assert_eq!(format::load(&path, Some(variant)).unwrap(), original);
            }
        }
    }
    // Nothing but the nets is left in the directory (no temporary files).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 20);
}

#[test]
fn every_input_layout_round_trips_and_is_named_in_the_header() {
    for inputs in InputLayout::ALL {
        for buckets in [1, 8] {
            let float = FloatNetwork::random_with_inputs(inputs, Activation::SCReLU, 24, buckets, 5);
            let original = float.quantise(NetVariant::Chess).unwrap();
            assert_eq!(original.inputs(), inputs);
            let bytes = format::to_bytes(&original);
            assert_eq!(bytes[23], inputs.code());
            assert_eq!(bytes.len(), format::file_size(inputs, 24, buckets));
            assert_eq!(bytes.len(), 32 + 2 * 768 * inputs.king_buckets() * 24 + 2 * 24 + buckets * (4 * 24 + 4) + 4);
            assert_eq!(format::parse(&bytes, Some(NetVariant::Chess)).unwrap(), original);
        }
    }
}

#[test]
fn header_layout_follows_the_contract() {
    let bytes = format::to_bytes(&net(NetVariant::Shatranj, Activation::SCReLU, 300));
    assert_eq!(u32::from_le_bytes(bytes[8..12].try_into().unwrap()), 1);
    assert_eq!(bytes[12], 1);
    assert_eq!(bytes[13], 1);
    assert_eq!(u16::from_le_bytes([bytes[14], bytes[15]]), 300);
    assert_eq!(u16::from_le_bytes([bytes[16], bytes[17]]), 255);
    assert_eq!(u16::from_le_bytes([bytes[18], bytes[19]]), 64);
    assert_eq!(u16::from_le_bytes([bytes[20], bytes[21]]), 400);
    assert_eq!(bytes[22..32], [0; 10]);
    assert_eq!(bytes.len(), 32 + 2 * 768 * 300 + 2 * 300 + 4 * 300 + 4 + 4);
    // Output buckets: one byte for their number minus one, then B × 2N output weights and B
    // biases where one net has 2N and one.
    let bucketed = format::to_bytes(&bucketed_net(NetVariant::Shatranj, Activation::SCReLU, 300, 8));
    assert_eq!((bucketed[22], &bucketed[23..32]), (7, &[0u8; 9][..]));
    // Input layouts: one byte for the layout's code; four king buckets hold four copies of the
    // 768 features' weights.
    let float = FloatNetwork::random_with_inputs(InputLayout::King4, Activation::SCReLU, 300, 1, 3);
    let king4 = format::to_bytes(&float.quantise(NetVariant::Chess).unwrap());
    assert_eq!((king4[22], king4[23], &king4[24..32]), (0, 2, &[0u8; 8][..]));
    assert_eq!(king4.len(), 32 + 2 * 4 * 768 * 300 + 2 * 300 + 4 * 300 + 4 + 4);
    assert_eq!(bucketed.len(), 32 + 2 * 768 * 300 + 2 * 300 + 8 * (4 * 300 + 4) + 4);
}

/// A net of one output bucket is written as every net was before buckets existed, so the nets
/// in the repository (and their SHA-256 in the loops' ledgers) stay as they are.
#[test]
fn the_embedded_nets_are_single_bucket_files_written_byte_for_byte_again() {
    for variant in [NetVariant::Chess, NetVariant::Shatranj] {
        let Some(bytes) = ferz_nnue::embedded::bytes(variant) else { continue };
        let net = format::parse(bytes, Some(variant)).unwrap();
        assert_eq!(net.output_buckets(), 1);
        assert_eq!(format::to_bytes(&net), bytes, "{variant}");
    }
}

#[test]
fn each_corruption_is_named() {
    let good = format::to_bytes(&net(NetVariant::Chess, Activation::CReLU, 32));

    let mut bad = good.clone();
    bad[0] = b'X';
    let e = parse_err(&bad, None);
    assert!(matches!(e, FormatError::BadMagic { .. }), "{e}");
    assert!(e.to_string().contains("not a ferz net file"), "{e}");
    assert!(matches!(parse_err(b"", None), FormatError::BadMagic { .. }));
    assert!(matches!(parse_err(b"FERZNNUE\x01", None), FormatError::TooShort { actual: 9 }));

    let mut bad = good.clone();
    bad[8] = 2;
    reseal(&mut bad);
    let e = parse_err(&bad, None);
    assert!(matches!(e, FormatError::Version { found: 2 }), "{e}");
    assert_eq!(e.to_string(), "net format version 2, but this build reads version 1");

    let e = parse_err(&good[..good.len() - 100], None);
    assert!(matches!(e, FormatError::Size { .. }), "{e}");
    assert!(e.to_string().contains("truncated"), "{e}");
    let mut long = good.clone();
    long.push(0);
    assert!(parse_err(&long, None).to_string().contains("trailing bytes"));

    let mut bad = good.clone();
    bad[14..16].copy_from_slice(&0u16.to_le_bytes());
    assert!(matches!(parse_err(&bad, None), FormatError::HiddenSize { found: 0 }));

    let mut bad = good.clone();
    bad[22] = 8;
    let e = parse_err(&bad, None);
    assert!(matches!(e, FormatError::OutputBuckets { found: 9 }), "{e}");
    assert_eq!(e.to_string(), "the header says 9 output buckets, expected 1..=8");
    // A bucket count the size does not match: the size check names both.
    let mut bad = good.clone();
    bad[22] = 1;
    let e = parse_err(&bad, None);
    assert!(
        e.to_string().contains("hidden size 32 and 2 output buckets") && e.to_string().contains("truncated"),
        "{e}"
    );

    // An unknown input layout, and a known one the size does not match.
    let mut bad = good.clone();
    bad[23] = 9;
    let e = parse_err(&bad, None);
    assert!(matches!(e, FormatError::UnknownInputLayout(9)), "{e}");
    assert!(e.to_string().contains("unknown input layout code 9"), "{e}");
    let mut bad = good.clone();
    bad[23] = 2;
    let e = parse_err(&bad, None);
    assert!(e.to_string().contains("a king4 net of hidden size 32") && e.to_string().contains("truncated"), "{e}");

    let e = parse_err(&good, Some(NetVariant::Shatranj));
    assert!(matches!(e, FormatError::WrongVariant { expected: NetVariant::Shatranj, found: NetVariant::Chess }));
    assert_eq!(e.to_string(), "this is a chess net, expected a shatranj net");

    // A flipped bit anywhere after the version, in the header or the parameters, breaks the
    // checksum.
    for at in [12, 13, 20, 25, 32, 1000, good.len() - 20, good.len() - 5, good.len() - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        let e = parse_err(&bad, None);
        assert!(matches!(e, FormatError::Checksum { .. }), "byte {at}: {e}");
        assert!(e.to_string().contains("corrupt file"), "{e}");
    }

    let mut bad = good.clone();
    bad[12] = 7;
    reseal(&mut bad);
    assert!(matches!(parse_err(&bad, None), FormatError::UnknownVariant(7)));
    let mut bad = good.clone();
    bad[13] = 9;
    reseal(&mut bad);
    assert!(matches!(parse_err(&bad, None), FormatError::UnknownActivation(9)));
    let mut bad = good.clone();
    bad[16] = 0;
    reseal(&mut bad);
    let e = parse_err(&bad, None);
    assert!(e.to_string().contains("QA is 0, but this build uses 255"), "{e}");
}

#[test]
fn loading_says_which_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.nnue");
    let e = format::load(&path, None).unwrap_err();
    assert!(e.to_string().starts_with("net file ") && e.to_string().contains("missing.nnue"), "{e}");
    let path = dir.path().join("text.nnue");
    std::fs::write(&path, "hello").unwrap();
    let e = format::load(&path, None).unwrap_err();
    assert!(e.to_string().contains("text.nnue") && e.to_string().contains("not a ferz net file"), "{e}");
}

#[test]
fn scrlu_output_weights_out_of_kernel_range_are_refused() {
    let good = net(NetVariant::Chess, Activation::SCReLU, 4);
    let mut ow = good.output_weights();
    ow[5] = 200;
    let bad = Network::from_parts(
        NetVariant::Chess,
        Activation::CReLU,
        InputLayout::Plain,
        4,
        &good.feature_weights(),
        &good.feature_bias(),
        &ow,
        good.output_biases(),
    )
    .unwrap();
    let mut bytes = format::to_bytes(&bad);
    bytes[13] = 1;
    reseal(&mut bytes);
    let e = parse_err(&bytes, None);
    assert!(e.to_string().contains("output weight 5 is 200"), "{e}");
}

#[test]
fn a_file_larger_than_any_net_is_refused_without_reading_it_all() {
    use std::io::Read;
    let largest = format::file_size(InputLayout::King4, ferz_nnue::MAX_HIDDEN, ferz_nnue::MAX_OUTPUT_BUCKETS);
    assert_eq!(format::MAX_FILE_SIZE, largest);
    // An endless stream (what `/dev/zero` is) stops at the bound.
    let endless = std::io::repeat(0).take(u64::MAX);
    assert!(matches!(format::read(endless, None), Err(FormatError::TooLarge)));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.nnue");
    std::fs::File::create(&path).unwrap().set_len(format::MAX_FILE_SIZE as u64 + 1).unwrap();
    let e = format::load(&path, None).unwrap_err();
    assert!(matches!(e.source, FormatError::TooLarge), "{e}");
    assert!(e.to_string().contains("huge.nnue") && e.to_string().contains("larger than any net file"), "{e}");
    #[cfg(unix)]
    {
        let e = format::load(std::path::Path::new("/dev/zero"), None).unwrap_err();
        assert!(matches!(e.source, FormatError::TooLarge), "{e}");
    }
}

/// A net's centipawn scale is its header's: written, read back, and refused outside its range
/// with the value named.
#[test]
fn a_rescaled_net_keeps_its_scale_and_a_bad_scale_is_named() {
    let trained = net(NetVariant::Chess, Activation::SCReLU, 32);
    assert_eq!(trained.scale(), 400);
    let rescaled = trained.clone().with_scale(300).unwrap();
    let bytes = format::to_bytes(&rescaled);
    assert_eq!(u16::from_le_bytes([bytes[20], bytes[21]]), 300);
    let read = format::parse(&bytes, Some(NetVariant::Chess)).unwrap();
    assert_eq!((read.scale(), &read), (300, &rescaled));
    // Only the header differs from the trained net's file.
    let original = format::to_bytes(&trained);
    assert_eq!(bytes[..20], original[..20]);
    assert_eq!(bytes[22..bytes.len() - 4], original[22..original.len() - 4]);

    for scale in [0, 4001] {
        let e = trained.clone().with_scale(scale).expect_err("scale accepted");
        assert_eq!(e.to_string(), format!("scale {scale} is outside 1..=4000 (the trainer writes 400)"));
        let mut bad = original.clone();
        bad[20..22].copy_from_slice(&scale.to_le_bytes());
        reseal(&mut bad);
        let e = parse_err(&bad, None);
        assert!(e.to_string().contains(&format!("scale {scale} is outside 1..=4000")), "{e}");
    }
}
