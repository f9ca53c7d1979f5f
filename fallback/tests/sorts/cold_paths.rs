//! Sorts large enough for the out-of-cache paths (at least 4 MiB of items): write-combining MSD
//! scatter, per-thread LSD buffer, non-temporal copy-out. Item sizes that the write-combining
//! scatter takes (4, 8, 16 bytes) and one it does not (12), destinations off a line boundary,
//! both orders, stability witnessed by input positions.

use crate::common::{check_stable, items, keys_u32, Item, Rng, ORDERS};
use gpusort_cpu::{check, sort_keys, sort_stable, Keyed, Order};

/// 4 MiB of 8-byte items, where the cold paths start.
const COLD_8: usize = 1 << 19;

#[test]
fn eight_byte_items_around_the_threshold() {
    for n in [COLD_8 - 1, COLD_8, COLD_8 + 1, 3 * COLD_8 + 17] {
        for pattern in
            ["random", "few-distinct", "two-keys", "low-16-bits", "high-byte-only", "reverse-runs", "one-out-of-place"]
        {
            check_stable(&items(&keys_u32(pattern, n, n as u64 ^ 0x51)), pattern);
        }
    }
}

/// Top bytes drawn from a few values: buckets far above L2 take a second MSD pass (its buckets
/// land in the caller's slice, so some need the copy back from the per-thread buffer).
#[test]
fn huge_buckets_take_nested_passes() {
    let n = (1 << 21) + 3;
    let mut r = Rng::new(77);
    let keys: Vec<u32> = (0..n).map(|_| ((r.next() % 3) as u32) << 24 | (r.next() as u32 & 0x00ff_ffff)).collect();
    check_stable(&items(&keys), "3 top bytes");
    // Byte 1 constant: the nested buckets take one LSD pass, an odd count, so their result has to
    // come back from the per-thread buffer.
    let keys: Vec<u32> = (0..n).map(|_| ((r.next() % 2) as u32) << 24 | (r.next() as u32 & 0x00ff_00ff)).collect();
    check_stable(&items(&keys), "2 top bytes, byte 1 constant");
}

/// Below 48 occupied top-byte buckets the MSD pass scatters plainly, from 48 on through
/// write-combining buffers: both sides of that switch, with the low bytes random.
#[test]
fn occupied_buckets_around_the_write_combining_switch() {
    let n = COLD_8 + 3;
    for buckets in [47u64, 48] {
        let mut r = Rng::new(buckets);
        let keys: Vec<u32> = (0..n).map(|_| ((r.next() % buckets) as u32 * 5) << 24 | (r.next() as u32 >> 8)).collect();
        check_stable(&items(&keys), &format!("{buckets} top bytes"));
    }
}

/// 16-byte items: u64 keys with a u32 witness (padded to 16).
#[test]
fn sixteen_byte_items() {
    assert_eq!(std::mem::size_of::<Item<u64>>(), 16);
    let mut r = Rng::new(5);
    for n in [(1 << 18) - 1, (1 << 18) + 1, 400_009] {
        let random: Vec<u64> = (0..n).map(|_| r.next()).collect();
        check_stable(&items(&random), "random u64");
        let few: Vec<u64> = (0..n).map(|_| [3, u64::MAX, 1 << 40, 0][(r.next() % 4) as usize]).collect();
        check_stable(&items(&few), "few u64");
    }
}

/// 12 bytes: not a divisor of a cache line, so the MSD scatter goes item by item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Wide {
    key: u32,
    index: u32,
    check: u32,
}

impl Keyed for Wide {
    type Key = u32;
    fn sort_key(&self) -> u32 {
        self.key
    }
}

#[test]
fn twelve_byte_items() {
    assert_eq!(std::mem::size_of::<Wide>(), 12);
    let n = 400_003;
    for pattern in ["random", "few-distinct", "low-16-bits"] {
        let input: Vec<Wide> = keys_u32(pattern, n, 8)
            .into_iter()
            .enumerate()
            .map(|(i, key)| Wide { key, index: i as u32, check: key ^ i as u32 })
            .collect();
        check_stable(&input, pattern);
    }
}

/// 4-byte items, keys only: sorted and a permutation.
#[test]
fn four_byte_items() {
    let n = (1 << 20) + 5;
    let mut r = Rng::new(6);
    // f32 keys go through the radix sort at every size (voracious takes only integers).
    let floats: Vec<f32> = (0..n).map(|_| f32::from_bits(r.next() as u32)).collect();
    for order in ORDERS {
        let mut v = floats.clone();
        sort_keys(&mut v, order).unwrap();
        check::validate_keys(&floats, &v, order).unwrap_or_else(|e| panic!("f32, {order:?}: {e}"));
    }
    let keys = keys_u32("random", n, 7);
    for order in ORDERS {
        let mut v = keys.clone();
        sort_stable(&mut v, order).unwrap();
        check::validate_keys(&keys, &v, order).unwrap_or_else(|e| panic!("u32 sort_stable, {order:?}: {e}"));
    }
}

/// The caller's slice may start anywhere its item type allows: here 8-byte items at an address
/// that is 4 mod 8, and 16-byte items at 8 mod 16, so no bucket lines up with a cache line.
#[test]
fn destinations_off_line_boundaries() {
    let n = COLD_8 + 101;
    let input = items(&keys_u32("random", n, 12));
    for order in [Order::Ascending, Order::Descending] {
        let mut words = vec![0u32; 2 * n + 2];
        let at = (0..2).find(|&i| (words[i..].as_ptr() as usize) % 8 == 4).expect("a 4 mod 8 start");
        // SAFETY: Item<u32> is two u32s (align 4); the range lies inside `words`.
        let v: &mut [Item<u32>] = unsafe { std::slice::from_raw_parts_mut(words[at..].as_mut_ptr().cast(), n) };
        v.copy_from_slice(&input);
        sort_stable(v, order).unwrap();
        check::validate(&input, v, order, true).unwrap_or_else(|e| panic!("4 mod 8, {order:?}: {e}"));
    }
    let mut r = Rng::new(13);
    let input: Vec<Item<u64>> = (0..300_001u32).map(|i| Item { key: r.next() % 1000, index: i }).collect();
    let mut words = vec![0u64; 2 * input.len() + 2];
    let at = (0..2).find(|&i| (words[i..].as_ptr() as usize) % 16 == 8).expect("an 8 mod 16 start");
    // SAFETY: Item<u64> is 16 bytes with align 8; the range lies inside `words`.
    let v: &mut [Item<u64>] = unsafe { std::slice::from_raw_parts_mut(words[at..].as_mut_ptr().cast(), input.len()) };
    v.copy_from_slice(&input);
    sort_stable(v, Order::Ascending).unwrap();
    check::validate(&input, v, Order::Ascending, true).unwrap_or_else(|e| panic!("8 mod 16: {e}"));
}
