//! The validation loss of a written net (integer inference) against the hand-tuned evaluation's
//! on the same held-out games, with the same target. docs/train.md reports its output.
//!
//! `cargo run --release -p ferz-train --example compare -- <net.nnue> <lambda> <dataset dir>...`
//! (the split uses the defaults of `config/train.toml`: 5 % of the games, seed 1).

use ferz_dataset::marlin::decode as read_marlin;
use ferz_train::config::{DataConfig, NetVariant};
use ferz_train::dataset::load;
use ferz_train::record::{decode, sigmoid};

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: compare <net.nnue> <lambda> <dataset dir>...";
    let net_path = args.next().expect(usage);
    let lambda: f32 = args.next().expect(usage).parse().expect("lambda is a number");
    let inputs: Vec<std::path::PathBuf> = args.map(Into::into).collect();
    let data = load(&DataConfig { inputs, variant: NetVariant::Chess, ..DataConfig::default() }).expect("a dataset");
    let net = ferz_nnue::format::load(std::path::Path::new(&net_path), Some(ferz_nnue::NetVariant::Chess))
        .expect("a chess net");
    let (mut net_loss, mut hce_loss, mut mid_loss) = (0.0f64, 0.0f64, 0.0f64);
    for record in &data.validation {
        let target = decode(record, net.inputs()).expect("checked when loaded").target(lambda, 400.0);
        let pos = read_marlin(record).expect("checked when loaded").position;
        let mut acc = ferz_nnue::Accumulator::new(&net);
        acc.refresh(&net, &pos);
        let net_cp = ferz_nnue::evaluate(&net, &acc, &pos) as f32;
        let hce_cp = ferz_engine::eval::evaluate(&pos) as f32;
        net_loss += f64::from((sigmoid(net_cp / 400.0) - target).powi(2));
        hce_loss += f64::from((sigmoid(hce_cp / 400.0) - target).powi(2));
        mid_loss += f64::from((0.5 - target).powi(2));
    }
    let n = data.validation.len() as f64;
    println!("{} held-out positions ({})", data.validation.len(), data.summary);
    println!(
        "validation loss, lambda {lambda}: net {:.6}, hand-tuned evaluation {:.6}, constant 0.5 {:.6}",
        net_loss / n,
        hce_loss / n,
        mid_loss / n
    );
}
