//! Embeds the default nets: `nets/chess.nnue` and `nets/shatranj.nnue`, each only if present.
//!
//! For each file found this sets the cfg `ferz_net_chess` / `ferz_net_shatranj`, which
//! `src/embedded.rs` turns into an `include_bytes!`. A file that is not a well-formed net of its
//! variant stops the build with a message, so a broken default net never ships.

use std::path::Path;

fn main() {
    // The directory always exists (it holds a README), so this does not rerun every build.
    println!("cargo::rerun-if-changed=nets");
    for (name, code) in [("chess", 0u8), ("shatranj", 1u8)] {
        println!("cargo::rustc-check-cfg=cfg(ferz_net_{name})");
        let path = Path::new("nets").join(format!("{name}.nnue"));
        println!("cargo::rerun-if-changed={}", path.display());
        let Ok(bytes) = std::fs::read(&path) else { continue };
        if let Err(problem) = check(&bytes, code) {
            panic!("{}: {problem}; fix or remove the file", path.display());
        }
        println!("cargo::rustc-cfg=ferz_net_{name}");
    }
}

/// The checks that need no decoding: magic, variant, size and checksum. The crate's tests decode
/// the embedded nets fully.
fn check(bytes: &[u8], variant: u8) -> Result<(), String> {
    if bytes.len() < 36 || &bytes[..8] != b"FERZNNUE" {
        return Err("not a ferz net file (magic)".to_owned());
    }
    if bytes[12] != variant {
        return Err(format!("variant code {} in the header, expected {variant}", bytes[12]));
    }
    let hidden = usize::from(u16::from_le_bytes([bytes[14], bytes[15]]));
    let buckets = usize::from(bytes[22]) + 1;
    let size = 32 + 2 * 768 * hidden + 2 * hidden + buckets * (4 * hidden + 4) + 4;
    if bytes.len() != size {
        return Err(format!(
            "{} bytes, expected {size} for hidden size {hidden} and {buckets} output buckets",
            bytes.len()
        ));
    }
    let (content, crc) = bytes.split_at(size - 4);
    if crc32fast::hash(content).to_le_bytes() != crc {
        return Err("checksum mismatch (corrupt file)".to_owned());
    }
    Ok(())
}
