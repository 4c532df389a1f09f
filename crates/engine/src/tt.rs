//! The transposition table: a lock-free hash of search results shared by all threads.
//!
//! Each entry is two atomic words, `key ^ data` and `data`. A reader accepts an entry only if
//! the two still combine to its key, so a torn write by another thread reads as a miss instead
//! of a wrong move (the lockless hashing of Hyatt and Mann). Four entries share a 64-byte bucket.

use std::sync::atomic::{AtomicU64, Ordering};

use ferz_chess::Move;

/// What a stored score says about the true value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at most the score (no move reached alpha).
    Upper = 1,
    /// The true value is at least the score (a move reached beta).
    Lower = 2,
    /// The score is exact (a PV node).
    Exact = 3,
}

/// A table hit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TtEntry {
    /// The best or refuting move, if one was found.
    pub mv: Option<Move>,
    /// The score, in table form (see [`crate::score::from_tt`]).
    pub score: i32,
    /// The static evaluation of the position.
    pub eval: i32,
    /// The depth searched.
    pub depth: i32,
    /// How the score bounds the true value.
    pub bound: Bound,
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

#[repr(align(64))]
#[derive(Default)]
struct Bucket([Slot; 4]);

/// Depths are stored with this offset so that quiescence entries (depth below 0) fit a byte.
const DEPTH_OFFSET: i32 = 8;

fn pack(entry: &TtEntry, age: u8) -> u64 {
    let mv = entry.mv.map_or(0, Move::to_u16);
    u64::from(mv)
        | u64::from(entry.score as i16 as u16) << 16
        | u64::from(entry.eval as i16 as u16) << 32
        | u64::from((entry.depth + DEPTH_OFFSET).clamp(0, 255) as u8) << 48
        | u64::from(entry.bound as u8) << 56
        | u64::from(age & 63) << 58
}

fn unpack(data: u64) -> Option<(TtEntry, u8)> {
    let bound = match (data >> 56) & 3 {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => return None,
    };
    let entry = TtEntry {
        mv: Move::from_u16(data as u16),
        score: i32::from((data >> 16) as u16 as i16),
        eval: i32::from((data >> 32) as u16 as i16),
        depth: i32::from((data >> 48) as u8) - DEPTH_OFFSET,
        bound,
    };
    Some((entry, (data >> 58) as u8))
}

/// The most MiB a hash table may take on this machine: three quarters of the memory the
/// system reports available (Linux `MemAvailable`, and the cgroup's `memory.max` headroom when
/// the process runs under one), so a large `Hash` leaves the machine usable instead of being
/// killed when its pages are touched. `None` where the system does not say.
#[must_use]
pub fn hash_limit_mb() -> Option<usize> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let available_kib = meminfo.as_deref().and_then(|text| {
        text.lines()
            .find_map(|line| line.strip_prefix("MemAvailable:")?.trim().strip_suffix("kB")?.trim().parse::<u64>().ok())
    });
    let cgroup_bytes = cgroup_headroom_bytes();
    let bytes = match (available_kib.map(|kib| kib.saturating_mul(1024)), cgroup_bytes) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => return None,
    };
    Some(usize::try_from((bytes / 4 * 3) >> 20).unwrap_or(usize::MAX).max(1))
}

/// What the cgroup (v2) still allows this process: `memory.max` less `memory.current`.
fn cgroup_headroom_bytes() -> Option<u64> {
    let read = |name: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{name}")).ok();
    let max = read("memory.max")?.trim().parse::<u64>().ok()?;
    let current = read("memory.current").and_then(|text| text.trim().parse::<u64>().ok()).unwrap_or(0);
    Some(max.saturating_sub(current))
}

/// Asks the kernel to back `memory` with huge pages where it can (Linux transparent huge
/// pages in their usual `madvise` mode; elsewhere nothing happens).
///
/// Every probe lands on a random bucket, so with 4 KiB pages nearly every probe and prefetch
/// also misses the TLB and waits for a page walk; 2 MiB pages cut the entries needed 512-fold.
/// Only the 2 MiB-aligned stretches inside `memory` can be made huge, which for a table of some
/// megabytes is nearly all of it.
fn advise_huge_pages<T>(memory: &mut [T]) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = memory.as_mut_ptr() as usize;
        let aligned = start.next_multiple_of(PAGE);
        let end = (start + size_of_val(memory)) / PAGE * PAGE;
        if end > aligned {
            // Safety: the range lies inside `memory`, which this process owns; the advice
            // changes how its pages are backed, never their contents. A refusal (no THP in the
            // kernel) leaves ordinary pages, so its result needs no handling.
            #[allow(unsafe_code)]
            unsafe {
                libc::madvise(aligned as *mut libc::c_void, end - aligned, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = memory;
}

/// The shared hash table.
pub struct TranspositionTable {
    buckets: Box<[Bucket]>,
    /// Incremented per search, so entries from earlier searches are replaced first.
    age: u8,
}

impl TranspositionTable {
    /// A table of about `megabytes` MiB (at least one bucket), or `None` when the memory
    /// cannot be had: the reservation is fallible, so an oversized `Hash` is an answer, not an
    /// abort.
    #[must_use]
    pub fn try_new(megabytes: usize) -> Option<TranspositionTable> {
        let count = (megabytes.max(1).checked_mul(1 << 20)? / std::mem::size_of::<Bucket>()).max(1);
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(count).ok()?;
        // Before the first write, so that the pages are made huge as they are first touched.
        advise_huge_pages(buckets.spare_capacity_mut());
        buckets.resize_with(count, Bucket::default);
        Some(TranspositionTable { buckets: buckets.into_boxed_slice(), age: 0 })
    }

    /// The largest table that fits both `megabytes` and [`hash_limit_mb`], halving the size
    /// until the memory is granted (a one-bucket table at worst).
    #[must_use]
    pub fn new(megabytes: usize) -> TranspositionTable {
        TranspositionTable::within(megabytes, hash_limit_mb())
    }

    /// [`new`](Self::new) with the machine's limit read by the caller (who reports it: read
    /// again after the table is made, the limit would be less by the table itself).
    #[must_use]
    pub fn within(megabytes: usize, limit_mb: Option<usize>) -> TranspositionTable {
        let mut size = megabytes.max(1).min(limit_mb.unwrap_or(usize::MAX)).max(1);
        loop {
            if let Some(table) = TranspositionTable::try_new(size) {
                return table;
            }
            if size == 1 {
                let bucket = vec![Bucket::default()].into_boxed_slice();
                return TranspositionTable { buckets: bucket, age: 0 };
            }
            size /= 2;
        }
    }

    /// The size in MiB.
    #[must_use]
    pub fn megabytes(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<Bucket>()) >> 20
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        for bucket in &mut *self.buckets {
            *bucket = Bucket::default();
        }
        self.age = 0;
    }

    /// Marks the start of a new search.
    pub fn new_search(&mut self) {
        self.age = (self.age + 1) & 63;
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        // Multiply-shift maps the key onto any table size without a modulo.
        let index = ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Tells the CPU to fetch the bucket of `key` ahead of a probe.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let pointer = std::ptr::from_ref(self.bucket(key)).cast::<i8>();
            // Safety: prefetching is only a hint; any address is allowed and nothing is read.
            #[allow(unsafe_code)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(pointer);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Looks up `key`.
    #[must_use]
    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        for slot in &self.bucket(key).0 {
            let data = slot.data.load(Ordering::Relaxed);
            if slot.check.load(Ordering::Relaxed) ^ data == key
                && let Some((entry, _)) = unpack(data)
            {
                return Some(entry);
            }
        }
        None
    }

    /// Stores a result, replacing the least useful entry of the bucket: the same position if
    /// present, else the shallowest and oldest.
    #[inline]
    pub fn store(&self, key: u64, entry: TtEntry) {
        let bucket = self.bucket(key);
        let mut victim = &bucket.0[0];
        let mut victim_worth = i32::MAX;
        let mut previous = None;
        for slot in &bucket.0 {
            let data = slot.data.load(Ordering::Relaxed);
            let unpacked = unpack(data);
            if slot.check.load(Ordering::Relaxed) ^ data == key && unpacked.is_some() {
                victim = slot;
                previous = unpacked.map(|(e, _)| e);
                break;
            }
            let worth = match unpacked {
                None => i32::MIN,
                Some((e, age)) => e.depth - 8 * i32::from(self.age.wrapping_sub(age) & 63),
            };
            if worth < victim_worth {
                victim = slot;
                victim_worth = worth;
            }
        }
        let mut entry = entry;
        if let Some(old) = previous {
            // Keep a deeper result for the same position unless the new one is exact.
            if entry.bound != Bound::Exact && old.depth > entry.depth + 3 {
                return;
            }
            if entry.mv.is_none() {
                entry.mv = old.mv;
            }
        }
        let data = pack(&entry, self.age);
        victim.check.store(key ^ data, Ordering::Relaxed);
        victim.data.store(data, Ordering::Relaxed);
    }

    /// Per mille of a sample of entries written in the current search (UCI `hashfull`).
    #[must_use]
    pub fn hashfull(&self) -> u32 {
        let sample = self.buckets.iter().take(250);
        let mut used = 0;
        let mut total = 0;
        for bucket in sample {
            for slot in &bucket.0 {
                total += 1;
                if let Some((_, age)) = unpack(slot.data.load(Ordering::Relaxed)) {
                    used += u32::from(age == self.age);
                }
            }
        }
        (used * 1000).checked_div(total).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferz_chess::Square;

    /// The advice covers only whole pages inside the memory given, whatever its size and
    /// alignment, and leaves what is written there intact.
    #[test]
    fn huge_page_advice_keeps_the_memory_as_written() {
        let mut memory: Vec<u8> = (0..5 * 4096 + 300).map(|i| (i % 251) as u8).collect();
        let len = memory.len();
        for (start, end) in [(0, 0), (3, 4), (1, 4095), (17, 3 * 4096 + 5), (0, len)] {
            advise_huge_pages(&mut memory[start..end]);
        }
        assert!(memory.iter().enumerate().all(|(i, &byte)| byte == (i % 251) as u8));
        let table = TranspositionTable::new(4);
        assert!((1..=10_000u64).all(|key| table.probe(key.wrapping_mul(0x9E37_79B9_7F4A_7C15)).is_none()));
    }

    #[test]
    fn stores_and_finds_entries() {
        let table = TranspositionTable::new(1);
        let mv = Move::normal(Square::E1, Square::E8);
        let entry = TtEntry { mv: Some(mv), score: -31_000, eval: 250, depth: -1, bound: Bound::Lower };
        assert_eq!(table.probe(42), None);
        table.store(42, entry);
        assert_eq!(table.probe(42), Some(entry));
        assert_eq!(table.probe(43), None);
        // A shallower bound for the same key does not push out a much deeper one.
        let deep = TtEntry { depth: 20, ..entry };
        table.store(42, deep);
        table.store(42, TtEntry { depth: 2, mv: None, ..entry });
        assert_eq!(table.probe(42), Some(deep));
        assert_eq!(table.megabytes(), 1);
    }

    #[test]
    fn hashfull_counts_this_search() {
        let mut table = TranspositionTable::new(1);
        assert_eq!(table.hashfull(), 0);
        for key in 0..100_000u64 {
            let key = key.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            table.store(key, TtEntry { mv: None, score: 0, eval: 0, depth: 1, bound: Bound::Exact });
        }
        assert!(table.hashfull() > 900);
        table.new_search();
        assert_eq!(table.hashfull(), 0);
    }
}
