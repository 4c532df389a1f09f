//! The trainer's speed on a dataset: record decoding (direct against through a `Position`),
//! batch gradients per hidden size and thread count, the AdamW step, and how many feature rows
//! a batch touches. docs/train.md reports its output.
//!
//! `cargo run --release -p ferz-train --example throughput -- <shard or dataset dir> [batch]`

use std::hint::black_box;
use std::time::Instant;

use ferz_nnue::InputLayout;
use ferz_train::batch::{Workspace, gradient};
use ferz_train::config::{Activation, DataConfig, NetVariant, OptimizerConfig};
use ferz_train::dataset::load;
use ferz_train::model::{Layout, Network};
use ferz_train::optimizer::AdamW;
use ferz_train::record::decode;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("usage: throughput <shard or dataset dir> [batch]");
    let batch: usize = args.next().map_or(16_384, |b| b.parse().expect("a batch size"));
    let inputs = vec![dir.into()];
    let data =
        load(&DataConfig { inputs, variant: NetVariant::Chess, validation_fraction: 0.0, seed: 1 }).expect("a dataset");
    let records = &data.train;
    println!("{}", data.summary);
    let pieces: usize = records.iter().map(|r| decode(r, InputLayout::Plain).unwrap().len).sum();
    println!("{:.1} pieces a position on average", pieces as f64 / records.len() as f64);

    let start = Instant::now();
    for r in records {
        black_box(decode(black_box(r), InputLayout::Plain).unwrap());
    }
    let direct = records.len() as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    for r in records {
        black_box(decode(black_box(r), InputLayout::King4).unwrap());
    }
    let king4 = records.len() as f64 / start.elapsed().as_secs_f64();
    let start = Instant::now();
    for r in records {
        let pos = ferz_dataset::marlin::decode(black_box(r)).unwrap().position;
        let stm: Vec<usize> = ferz_nnue::features::active(InputLayout::Plain, &pos, pos.turn()).collect();
        let nstm: Vec<usize> = ferz_nnue::features::active(InputLayout::Plain, &pos, !pos.turn()).collect();
        black_box((stm, nstm));
    }
    let through_position = records.len() as f64 / start.elapsed().as_secs_f64();
    println!(
        "decoding, one thread: direct {direct:.0} records/s (four king buckets: {king4:.0}), through read_marlin + \
         Position {through_position:.0} records/s"
    );

    let order: Vec<u32> = (0..records.len().min(4 * batch) as u32).collect();
    for hidden in [32, 64, 128, 256] {
        for threads in [1, 2] {
            let net = Network::random(Layout::plain(hidden, 1), Activation::Screlu, 1);
            let mut work = Workspace::new(threads, net.params.len());
            let start = Instant::now();
            let mut done = 0;
            while start.elapsed().as_secs_f64() < 3.0 {
                for part in order.chunks(batch) {
                    black_box(gradient(&net, records, part, 0.3, &mut work));
                    done += part.len();
                }
            }
            let speed = done as f64 / start.elapsed().as_secs_f64();
            println!("gradient: hidden {hidden:>3}, {threads} threads: {speed:>9.0} positions/s");
        }
    }

    let mut net = Network::random(Layout::plain(128, 1), Activation::Screlu, 1);
    let mut work = Workspace::new(1, net.params.len());
    let part = &order[..batch.min(order.len())];
    let grad = gradient(&net, records, part, 0.3, &mut work).0.to_vec();
    let hidden = net.layout.hidden;
    let touched = grad[net.layout.feature_weights()].chunks(hidden).filter(|row| row.iter().any(|&g| g != 0.0)).count();
    println!("a batch of {} positions touches {touched} of 768 feature rows", part.len());
    let mut adam = AdamW::new(net.params.len());
    let config = OptimizerConfig::default();
    let steps = 200;
    let start = Instant::now();
    for _ in 0..steps {
        adam.update(&mut net.params, &grad, 1e-3, net.layout, &config);
    }
    println!(
        "AdamW step, hidden 128 (dense over all parameters): {:.3} ms",
        start.elapsed().as_secs_f64() * 1e3 / f64::from(steps)
    );
}
