//! The integer kernels: accumulator updates and the output layer's dot products.
//!
//! Each kernel has a portable version and, on x86-64, an AVX2 version chosen at run time, so the
//! release binary runs on any x86-64 CPU and still builds on other architectures. All i16 and i32
//! arithmetic wraps, in both versions: wrapping addition is associative, so the two give the same
//! integers whatever order they sum in, even for a net whose values would overflow.

use std::sync::atomic::{AtomicU8, Ordering};

use crate::{LANE, Lane, QA};

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

/// `out = prev + Σ add - Σ sub`, lane by lane. Always inlined so each caller compiles it for its
/// own target features.
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

    use crate::{Lane, QA};

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

    #[test]
    fn dispatched_update_equals_portable() {
        let mut rng = SplitMix64::new(9);
        for lanes in [1, 3, 8] {
            let prev = random_lanes(&mut rng, lanes);
            let columns: Vec<Vec<Lane>> = (0..4).map(|_| random_lanes(&mut rng, lanes)).collect();
            let add = [columns[0].as_slice(), columns[1].as_slice()];
            let sub = [columns[2].as_slice(), columns[3].as_slice()];
            let mut portable = vec![Lane::default(); lanes];
            let mut dispatched = vec![Lane::default(); lanes];
            update_portable(&mut portable, &prev, &add, &sub);
            update(&mut dispatched, &prev, &add, &sub);
            assert_eq!(portable, dispatched);
            // Spot check one value against wrapping arithmetic written out.
            let expected = prev[0].0[3]
                .wrapping_add(add[0][0].0[3])
                .wrapping_add(add[1][0].0[3])
                .wrapping_sub(sub[0][0].0[3])
                .wrapping_sub(sub[1][0].0[3]);
            assert_eq!(portable[0].0[3], expected);
        }
    }
}
