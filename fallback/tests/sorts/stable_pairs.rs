//! `sort_stable` on Kvp-like items (u32 key, u32 input index as witness), both orders.

use crate::common::{check_stable, items, keys_u32, small_lengths, Item, Rng, PATTERNS};

#[test]
fn every_pattern_at_small_and_threshold_lengths() {
    for n in small_lengths() {
        for (p, pattern) in PATTERNS.iter().enumerate() {
            let input = items(&keys_u32(pattern, n, 17 + p as u64));
            check_stable(&input, pattern);
        }
    }
}

/// Lengths on both sides of the internal switches: insertion sort (24), sequential LSD (2^16),
/// parallel MSD pass and L2-sized buckets (2^17 items of 8 bytes), parallel chunks (2^18).
#[test]
fn lengths_around_internal_thresholds() {
    for n in [32767, 32768, 32769, 65535, 65536, 65537, 131072, 131073, 262143, 262144, 262145, 524309] {
        for pattern in ["random", "few-distinct", "reverse-runs", "low-16-bits", "high-byte-only"] {
            check_stable(&items(&keys_u32(pattern, n, n as u64)), pattern);
        }
    }
}

/// Large inputs, where buckets themselves are bigger than L2 and take a second MSD pass.
#[test]
fn large_inputs() {
    let n = (1 << 20) + 7;
    for pattern in ["random", "two-keys", "sorted-runs", "reverse-runs", "low-16-bits"] {
        check_stable(&items(&keys_u32(pattern, n, 5)), pattern);
    }
    // 4M keys from 3 values: buckets of over a million items, all with constant low bytes.
    let mut r = Rng::new(9);
    let input: Vec<Item<u32>> =
        (0..1u32 << 22).map(|i| Item { key: [0, 0x0101_0101, u32::MAX][(r.next() % 3) as usize], index: i }).collect();
    check_stable(&input, "three keys, 4M");
}

/// Keys whose top bytes are skewed: one huge bucket next to many small ones.
#[test]
fn skewed_buckets() {
    let mut r = Rng::new(3);
    let n = 700_001;
    let keys: Vec<u32> =
        (0..n)
            .map(|_| {
                if r.next().is_multiple_of(4) {
                    r.next() as u32
                } else {
                    0x5500_0000 | (r.next() as u32 & 0x00ff_ffff)
                }
            })
            .collect();
    check_stable(&items(&keys), "skewed");
}
