//! A small seeded random number generator whose streams never change.
//!
//! Self-play shards, match openings and tuning data must be reproducible from a seed, across
//! platforms and versions: a resumed shard replays exactly the games it would have played. A
//! general-purpose generator may change its algorithm between versions (`rand`'s `StdRng` says
//! so), so ferz uses SplitMix64, whose output is fixed by its published definition. It lives in
//! the rules crate because every crate that picks random positions or moves depends on it.

/// SplitMix64 (Steele, Lea and Flood, 2014).
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    #[must_use]
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// A generator for the `index`-th child of `seed` (a shard of a run, a game of a shard):
    /// children of one seed are independent streams.
    #[must_use]
    pub fn derive(seed: u64, index: u64) -> SplitMix64 {
        let mut parent = SplitMix64::new(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
        SplitMix64::new(parent.next_u64())
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform number below `bound` (which must be positive), without modulo bias.
    pub fn below(&mut self, bound: u64) -> u64 {
        assert!(bound > 0, "below(0)");
        // Reject the top partial block of the 64-bit range.
        let zone = u64::MAX - u64::MAX % bound;
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % bound;
            }
        }
    }

    /// A uniform index into a slice of `len` (positive) items.
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// Shuffles `items` uniformly (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            items.swap(i, self.index(i + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_reference_stream() {
        // The first outputs of SplitMix64 seeded with 1234567, from the reference C code.
        let mut rng = SplitMix64::new(1_234_567);
        assert_eq!(rng.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(rng.next_u64(), 3_203_168_211_198_807_973);
    }

    #[test]
    fn children_differ_and_repeat() {
        let a: Vec<u64> = (0..4).map(|i| SplitMix64::derive(7, i).next_u64()).collect();
        let b: Vec<u64> = (0..4).map(|i| SplitMix64::derive(7, i).next_u64()).collect();
        assert_eq!(a, b);
        for i in 0..4 {
            for j in i + 1..4 {
                assert_ne!(a[i], a[j]);
            }
        }
        let mut rng = SplitMix64::new(3);
        assert!((0..1000).all(|_| rng.below(7) < 7));
        assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
        let mut items: Vec<u32> = (0..50).collect();
        rng.shuffle(&mut items);
        assert_ne!(items, (0..50).collect::<Vec<_>>());
        items.sort_unstable();
        assert_eq!(items, (0..50).collect::<Vec<_>>());
    }
}
