//! candle on ferz-train's batch: (768 -> N) x 2 -> 1, SCReLU, sigmoid MSE, forward + backward.
//!
//! Two ways a dense framework can feed the sparse inputs: a dense one-hot matrix times the
//! feature weights (`matmul`), and a gather of the active rows summed per position
//! (`gather`). Usage: `bench-candle [batch] [hidden] [active] [iterations]`.

use std::time::Instant;

use candle_core::{DType, Device, Result, Tensor, Var};

fn main() -> Result<()> {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("a number")).collect();
    let batch = args.first().copied().unwrap_or(16384);
    let hidden = args.get(1).copied().unwrap_or(128);
    let active = args.get(2).copied().unwrap_or(30);
    let iterations = args.get(3).copied().unwrap_or(5);
    let device = Device::Cpu;
    println!(
        "candle {batch} x (768 -> {hidden}) x 2 -> 1, {active} active features, {} threads",
        candle_core::utils::get_num_threads()
    );

    // Seeded pseudo-random features: `active` distinct indices per position and perspective.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut indices = [Vec::new(), Vec::new()];
    let mut dense = [vec![0f32; batch * 768], vec![0f32; batch * 768]];
    for side in 0..2 {
        for b in 0..batch {
            let mut chosen = Vec::new();
            while chosen.len() < active {
                let f = (next() % 768) as u32;
                if !chosen.contains(&f) {
                    chosen.push(f);
                }
            }
            for &f in &chosen {
                dense[side][b * 768 + f as usize] = 1.0;
            }
            indices[side].extend(chosen);
        }
    }
    let targets: Vec<f32> = (0..batch).map(|_| (next() % 1000) as f32 / 1000.0).collect();
    let targets = Tensor::from_vec(targets, (batch, 1), &device)?;
    let x = [
        Tensor::from_vec(dense[0].clone(), (batch, 768), &device)?,
        Tensor::from_vec(dense[1].clone(), (batch, 768), &device)?,
    ];
    let idx = [
        Tensor::from_vec(indices[0].clone(), batch * active, &device)?,
        Tensor::from_vec(indices[1].clone(), batch * active, &device)?,
    ];

    let w1 = Var::from_tensor(&(Tensor::randn(0f32, 0.036, (768, hidden), &device)?))?;
    let b1 = Var::from_tensor(&Tensor::zeros(hidden, DType::F32, &device)?)?;
    let w2 = Var::from_tensor(&(Tensor::randn(0f32, 0.06, (2 * hidden, 1), &device)?))?;
    let b2 = Var::from_tensor(&Tensor::zeros(1, DType::F32, &device)?)?;

    for mode in ["matmul", "gather"] {
        let mut best = f64::MAX;
        for _ in 0..iterations {
            let start = Instant::now();
            let acc = |side: usize| -> Result<Tensor> {
                let a = if mode == "matmul" {
                    x[side].matmul(w1.as_tensor())?
                } else {
                    w1.as_tensor().index_select(&idx[side], 0)?.reshape((batch, active, hidden))?.sum(1)?
                };
                a.broadcast_add(b1.as_tensor())?.clamp(0f32, 1f32)?.sqr()
            };
            let h = Tensor::cat(&[acc(0)?, acc(1)?], 1)?;
            let out = h.matmul(w2.as_tensor())?.broadcast_add(b2.as_tensor())?;
            let p = candle_core::Tensor::ones_like(&out)?.broadcast_div(&(out.neg()?.exp()? + 1.0)?)?;
            let loss = (p - &targets)?.sqr()?.mean_all()?;
            let grads = loss.backward()?;
            let g = grads.get(&w1).expect("a gradient for w1");
            let _ = g.sum_all()?.to_scalar::<f32>()?;
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!("{mode}: best of {iterations}: {:.3} s a batch, {:.0} positions/s", best, batch as f64 / best);
    }
    Ok(())
}
