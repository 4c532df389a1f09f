//! Writes a net with seeded random parameters, for measuring and testing the inference machinery
//! (its play is meaningless).
//!
//! `cargo run --release -p ferz-nnue --example random_net -- <out.nnue> <chess|shatranj> <hidden> [seed] [crelu|screlu] [output buckets] [plain|mirrored|king4]`

use std::path::Path;
use std::process::ExitCode;

use ferz_nnue::{Activation, FloatNetwork, InputLayout, NetVariant, format};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            eprintln!(
                "usage: random_net <out.nnue> <chess|shatranj> <hidden> [seed] [crelu|screlu] [output buckets] \
                 [plain|mirrored|king4]"
            );
            ExitCode::from(2)
        }
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let [out, variant, hidden, rest @ ..] = args else { return Err("missing arguments".to_owned()) };
    let variant = match variant.as_str() {
        "chess" => NetVariant::Chess,
        "shatranj" => NetVariant::Shatranj,
        other => return Err(format!("unknown variant {other:?}")),
    };
    let hidden: usize = hidden.parse().map_err(|_| format!("hidden size {hidden:?} is not a number"))?;
    let seed: u64 = match rest.first() {
        Some(s) => s.parse().map_err(|_| format!("seed {s:?} is not a number"))?,
        None => 1,
    };
    let activation = match rest.get(1).map(String::as_str) {
        None | Some("screlu") => Activation::SCReLU,
        Some("crelu") => Activation::CReLU,
        Some(other) => return Err(format!("unknown activation {other:?}")),
    };
    let buckets: usize = match rest.get(2) {
        Some(s) => s.parse().map_err(|_| format!("output buckets {s:?} is not a number"))?,
        None => 1,
    };
    let inputs = match rest.get(3) {
        Some(name) => name.parse().map_err(|e: ferz_nnue::features::UnknownInputLayout| e.to_string())?,
        None => InputLayout::Plain,
    };
    let float = FloatNetwork::random_with_inputs(inputs, activation, hidden, buckets, seed);
    let net = float.quantise(variant).map_err(|e| e.to_string())?;
    format::save(&net, Path::new(out)).map_err(|e| format!("cannot write {out}: {e}"))?;
    println!(
        "wrote {out}: {variant} net, {activation:?}, hidden {hidden}, {buckets} output buckets, {inputs} inputs, seed {seed}"
    );
    Ok(())
}
