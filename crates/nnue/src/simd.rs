//! The integer kernels: accumulator updates and the output layer's dot products.
//!
//! Each kernel has a portable version and, on x86-64, an AVX2 version chosen at run time, so the
//! release binary runs on any x86-64 CPU and still builds on other architectures. All i16 and i32
//! arithmetic wraps, in both versions: wrapping addition is associative, so the two give the same
//! integers whatever order they sum in, even for a net whose values would overflow.

use std::sync::atomic::{AtomicU8, Ordering};

use arrayvec::ArrayVec;
use ferz_chess::Color;

use crate::features::{FeatureDelta, KingView, PieceSquare};
use crate::{LANE, Lane, Network, QA};

/// 0: not probed yet, 1: no AVX2, 2: AVX2.
static AVX2: AtomicU8 = AtomicU8::new(0);

/// Whether the CPU has AVX2, probed once and cached.
#[inline(always)]
pub(crate) fn avx2_available() -> bool {
    match AVX2.load(Ordering::Relaxed) {
        0 => {
            let found = probe_avx2();
            AVX2.store(if found { 2 } else { 1 }, Ordering::Relaxed);
            found
        }
        state => state == 2,
    }
}

#[cfg(target_arch = "x86_64")]
fn probe_avx2() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

#[cfg(not(target_arch = "x86_64"))]
fn probe_avx2() -> bool {
    false
}

/// `out = prev + Σ add - Σ sub`, lane by lane, for any number of columns (a refresh adds up to
/// 32). Always inlined so each caller compiles it for its own target features.
#[inline(always)]
pub(crate) fn update_portable(out: &mut [Lane], prev: &[Lane], add: &[&[Lane]], sub: &[&[Lane]]) {
    for (i, (o, p)) in out.iter_mut().zip(prev).enumerate() {
        let mut v = p.0;
        for column in add {
            let c = &column[i].0;
            for k in 0..LANE {
                v[k] = v[k].wrapping_add(c[k]);
            }
        }
        for column in sub {
            let c = &column[i].0;
            for k in 0..LANE {
                v[k] = v[k].wrapping_sub(c[k]);
            }
        }
        o.0 = v;
    }
}

/// `out = prev + Σ add - Σ sub`, with AVX2 when the CPU has it.
#[inline]
pub(crate) fn update(out: &mut [Lane], prev: &[Lane], add: &[&[Lane]], sub: &[&[Lane]]) {
    #[cfg(target_arch = "x86_64")]
    if avx2_available() {
        // Safety: the CPU was just checked to support AVX2.
        #[allow(unsafe_code)]
        unsafe {
            x86::update_avx2(out, prev, add, sub);
        }
        return;
    }
    update_portable(out, prev, add, sub);
}

/// [`update_portable`] for a number of columns known at compile time: the shapes a move makes.
/// The compiler unrolls the column loops and checks bounds once, where the general loop reloads
/// each column's address and checks it for every lane, several times the arithmetic's instructions
/// (docs/measurements.md).
#[inline(always)]
pub(crate) fn update_fixed_portable<const ADD: usize, const SUB: usize>(
    out: &mut [Lane],
    prev: &[Lane],
    add: [&[Lane]; ADD],
    sub: [&[Lane]; SUB],
) {
    let lanes = out.len();
    // Slicing every input to the output's length once lets the lane loop run without checks.
    let prev = &prev[..lanes];
    let add = add.map(|column| &column[..lanes]);
    let sub = sub.map(|column| &column[..lanes]);
    for i in 0..lanes {
        let mut v = prev[i].0;
        for column in add {
            for (value, weight) in v.iter_mut().zip(&column[i].0) {
                *value = value.wrapping_add(*weight);
            }
        }
        for column in sub {
            for (value, weight) in v.iter_mut().zip(&column[i].0) {
                *value = value.wrapping_sub(*weight);
            }
        }
        out[i].0 = v;
    }
}

/// A move's change of both perspectives' accumulators (`out` and `prev`: white's lanes, then
/// black's), each seen through its view: `out = prev + Σ` the added pieces' columns `- Σ` the
/// removed pieces' columns. A perspective whose view is `None` is left alone (its caller
/// refreshes it). Always inlined so that, called from [`update_delta`]'s AVX2 version, the
/// feature indices, the column lookups and the kernels of both perspectives compile into one
/// AVX2 function with no call or check in between.
#[inline(always)]
pub(crate) fn update_delta_portable(
    out: &mut [Lane],
    prev: &[Lane],
    net: &Network,
    delta: &FeatureDelta,
    views: [Option<KingView>; 2],
) {
    let lanes = net.lanes();
    let (out_white, out_black) = out.split_at_mut(lanes);
    let (prev_white, prev_black) = prev.split_at(lanes);
    let sides = [(Color::White, out_white, prev_white), (Color::Black, out_black, prev_black)];
    for ((perspective, out, prev), view) in sides.into_iter().zip(views) {
        let Some(view) = view else { continue };
        let column = |piece: &PieceSquare| net.feature_column(piece.feature(perspective, view));
        // The shapes moves make get kernels with the column count fixed at compile time: a
        // quiet move or a promotion, a capture (en passant too), castling.
        match (delta.added.as_slice(), delta.removed.as_slice()) {
            ([a], [s]) => update_fixed_portable(out, prev, [column(a)], [column(s)]),
            ([a], [s, t]) => update_fixed_portable(out, prev, [column(a)], [column(s), column(t)]),
            ([a, b], [s, t]) => update_fixed_portable(out, prev, [column(a), column(b)], [column(s), column(t)]),
            (added, removed) => {
                let add: ArrayVec<&[Lane], 2> = added.iter().map(column).collect();
                let sub: ArrayVec<&[Lane], 2> = removed.iter().map(column).collect();
                update_portable(out, prev, &add, &sub);
            }
        }
    }
}

/// [`update_delta_portable`], with AVX2 when the CPU has it.
#[inline]
pub(crate) fn update_delta(
    out: &mut [Lane],
    prev: &[Lane],
    net: &Network,
    delta: &FeatureDelta,
    views: [Option<KingView>; 2],
) {
    #[cfg(target_arch = "x86_64")]
    if avx2_available() {
        // Safety: the CPU was just checked to support AVX2.
        #[allow(unsafe_code)]
        unsafe {
            x86::update_delta_avx2(out, prev, net, delta, views);
        }
        return;
    }
    update_delta_portable(out, prev, net, delta, views);
}

/// The CReLU output sum `Σ clamp(a[i], 0, QA) * w[i]`, wrapping.
#[inline(always)]
pub(crate) fn crelu_dot_portable(acc: &[Lane], weights: &[Lane]) -> i32 {
    let mut sum = 0i32;
    for (a, w) in acc.iter().zip(weights) {
        for k in 0..LANE {
            let v = i32::from(a.0[k]).clamp(0, QA);
            sum = sum.wrapping_add(v * i32::from(w.0[k]));
        }
    }
    sum
}

/// The SCReLU output sum `Σ clamp(a[i], 0, QA)² * w[i]`, wrapping. `v * w` fits in i16 because
/// [`crate::Network`] keeps SCReLU output weights within ±128; the AVX2 kernel relies on it.
#[inline(always)]
pub(crate) fn screlu_dot_portable(acc: &[Lane], weights: &[Lane]) -> i32 {
    let mut sum = 0i32;
    for (a, w) in acc.iter().zip(weights) {
        for k in 0..LANE {
            let v = i32::from(a.0[k]).clamp(0, QA);
            sum = sum.wrapping_add(v * i32::from(w.0[k]) * v);
        }
    }
    sum
}

/// The AVX2 kernels.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) mod x86 {
    use std::arch::x86_64::{
        __m256i, _mm_add_epi32, _mm_cvtsi128_si32, _mm_shuffle_epi32, _mm256_add_epi32, _mm256_castsi256_si128,
        _mm256_extracti128_si256, _mm256_load_si256, _mm256_madd_epi16, _mm256_max_epi16, _mm256_min_epi16,
        _mm256_mullo_epi16, _mm256_set1_epi16, _mm256_setzero_si256,
    };

    use crate::features::{FeatureDelta, KingView};
    use crate::{Lane, Network, QA};

    /// One lane as a register.
    #[inline(always)]
    fn load(lane: &Lane) -> __m256i {
        // Safety: `Lane` is 32 bytes aligned to 32, exactly one `__m256i`; callers run with
        // AVX2 enabled.
        unsafe { _mm256_load_si256(std::ptr::from_ref(lane).cast::<__m256i>()) }
    }

    /// The portable update compiled for AVX2 (the compiler vectorises its lane loops).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn update_avx2(out: &mut [Lane], prev: &[Lane], add: &[&[Lane]], sub: &[&[Lane]]) {
        super::update_portable(out, prev, add, sub);
    }

    /// [`super::update_delta_portable`] compiled for AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn update_delta_avx2(
        out: &mut [Lane],
        prev: &[Lane],
        net: &Network,
        delta: &FeatureDelta,
        views: [Option<KingView>; 2],
    ) {
        super::update_delta_portable(out, prev, net, delta, views);
    }

    /// The sum of the eight i32 lanes, wrapping.
    #[target_feature(enable = "avx2")]
    fn horizontal_sum(v: __m256i) -> i32 {
        let quad = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        let pair = _mm_add_epi32(quad, _mm_shuffle_epi32::<0b01_00_11_10>(quad));
        let one = _mm_add_epi32(pair, _mm_shuffle_epi32::<0b10_11_00_01>(pair));
        _mm_cvtsi128_si32(one)
    }

    /// [`super::crelu_dot_portable`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn crelu_dot(acc: &[Lane], weights: &[Lane]) -> i32 {
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(QA as i16);
        let mut sum = zero;
        for (a, w) in acc.iter().zip(weights) {
            let v = _mm256_min_epi16(_mm256_max_epi16(load(a), zero), qa);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(v, load(w)));
        }
        horizontal_sum(sum)
    }

    /// [`super::screlu_dot_portable`] with AVX2: `(v * w)` in i16, then `madd` with `v`.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn screlu_dot(acc: &[Lane], weights: &[Lane]) -> i32 {
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(QA as i16);
        let mut sum = zero;
        for (a, w) in acc.iter().zip(weights) {
            let v = _mm256_min_epi16(_mm256_max_epi16(load(a), zero), qa);
            let vw = _mm256_mullo_epi16(v, load(w));
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
        }
        horizontal_sum(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::SplitMix64;

    fn random_lanes(rng: &mut SplitMix64, count: usize) -> Vec<Lane> {
        (0..count).map(|_| Lane(std::array::from_fn(|_| rng.next_u64() as i16))).collect()
    }

    /// Every shape of update, through the general kernel and (for the shapes moves make) the
    /// fixed ones, dispatched and portable, equals the wrapping sum written out value by value.
    #[test]
    fn every_update_shape_equals_the_sum_written_out() {
        let mut rng = SplitMix64::new(9);
        for (adds, subs) in [(0, 0), (1, 0), (0, 1), (1, 1), (1, 2), (2, 1), (2, 2), (3, 3), (32, 0)] {
            for lanes in [1, 3, 16] {
                let prev = random_lanes(&mut rng, lanes);
                let added: Vec<Vec<Lane>> = (0..adds).map(|_| random_lanes(&mut rng, lanes)).collect();
                let removed: Vec<Vec<Lane>> = (0..subs).map(|_| random_lanes(&mut rng, lanes)).collect();
                let add: Vec<&[Lane]> = added.iter().map(Vec::as_slice).collect();
                let sub: Vec<&[Lane]> = removed.iter().map(Vec::as_slice).collect();
                let expected: Vec<Lane> = (0..lanes)
                    .map(|i| {
                        Lane(std::array::from_fn(|k| {
                            let plus = add.iter().fold(prev[i].0[k], |v, c| v.wrapping_add(c[i].0[k]));
                            sub.iter().fold(plus, |v, c| v.wrapping_sub(c[i].0[k]))
                        }))
                    })
                    .collect();
                let run = |kernel: &dyn Fn(&mut [Lane])| {
                    let mut out = vec![Lane::default(); lanes];
                    kernel(&mut out);
                    out
                };
                let shape = format!("{adds} added, {subs} removed, {lanes} lanes");
                assert_eq!(run(&|out| update_portable(out, &prev, &add, &sub)), expected, "portable, {shape}");
                assert_eq!(run(&|out| update(out, &prev, &add, &sub)), expected, "dispatched, {shape}");
                let fixed = match (add.as_slice(), sub.as_slice()) {
                    (&[a], &[s]) => run(&|out| update_fixed_portable(out, &prev, [a], [s])),
                    (&[a], &[s, t]) => run(&|out| update_fixed_portable(out, &prev, [a], [s, t])),
                    (&[a, b], &[s, t]) => run(&|out| update_fixed_portable(out, &prev, [a, b], [s, t])),
                    _ => continue,
                };
                assert_eq!(fixed, expected, "fixed, {shape}");
            }
        }
    }

    /// A move's update of both perspectives through the dispatched kernel (AVX2 where the CPU
    /// has it) equals the portable one, for every legal move of positions with castling on both
    /// sides, en passant, promotions with and without capture, and plain captures.
    #[test]
    fn dispatched_move_update_equals_portable() {
        use crate::features::move_delta;
        use crate::{Accumulator, Activation, FloatNetwork, InputLayout, NetVariant};
        use ferz_chess::{Position, Variant};

        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/Pp2P3/2N2Q1p/1PPBBPPP/R3K2R b KQkq a3 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        ];
        let mut shapes = std::collections::BTreeSet::new();
        for inputs in InputLayout::ALL {
            let float = FloatNetwork::random_with_inputs(inputs, Activation::SCReLU, 40, 1, 3);
            let net = float.quantise(NetVariant::Chess).unwrap();
            for fen in fens {
                let pos = Position::from_fen(fen, Variant::Chess).unwrap();
                let mut before = Accumulator::new(&net);
                before.refresh(&net, &pos);
                let prev = before.perspective(Color::White).iter().chain(before.perspective(Color::Black));
                let prev: Vec<Lane> = prev.copied().collect();
                let views = Color::ALL.map(|perspective| inputs.view_of(pos.board(), perspective));
                // Both perspectives, and each alone (the other left as it was).
                for views in [views.map(Some), [Some(views[0]), None], [None, Some(views[1])]] {
                    for m in pos.legal_moves() {
                        let delta = move_delta(&pos, m);
                        shapes.insert((delta.added.len(), delta.removed.len()));
                        let mut portable = vec![Lane::default(); prev.len()];
                        let mut dispatched = vec![Lane::default(); prev.len()];
                        update_delta_portable(&mut portable, &prev, &net, &delta, views);
                        update_delta(&mut dispatched, &prev, &net, &delta, views);
                        assert_eq!(portable, dispatched, "{inputs} {fen}: {m:?}");
                        let untouched = views.iter().position(Option::is_none).map(|side| side * prev.len() / 2);
                        if let Some(start) = untouched {
                            let half = &portable[start..start + prev.len() / 2];
                            assert!(half.iter().all(|lane| *lane == Lane::default()), "{inputs} {fen}: {m:?}");
                        }
                    }
                }
            }
        }
        assert_eq!(shapes.into_iter().collect::<Vec<_>>(), [(1, 1), (1, 2), (2, 2)]);
    }
}
