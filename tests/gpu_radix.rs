//! The GPU radix sort at its kernel boundaries: lengths around the one-block limit and the sweep
//! tiles, every input pattern that changes which digit passes run (and so which buffer holds the
//! result), both orders, Kvp and u32 keys, then every key type alone and with values,
//! device-resident through the public API. Each result is checked by the oracle: sorted, a
//! permutation with every value on its key, stable.

mod common;
use common::harness;
use common::{bits, skip_loudly, Pair, Rng, TestKey};
use std::sync::Arc;

use gpusort::cudarc::driver::{CudaContext, CudaStream, DeviceRepr};
use gpusort::{bf16, check, f16, Algorithm, Kvp, Order, SortError, Sorter};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

fn sorter() -> Option<(Sorter, Arc<CudaContext>)> {
    match Sorter::cuda() {
        Ok(s) => {
            let ctx = s.cuda_context().expect("a CUDA sorter has a context");
            Some((s, ctx))
        }
        Err(e) if std::env::var("GPUSORT_REQUIRE_GPU").as_deref() != Ok("1") => {
            skip_loudly(&format!("skipped: no CUDA device ({e})"));
            None
        }
        Err(e) => panic!("GPUSORT_REQUIRE_GPU=1 but no CUDA device: {e}"),
    }
}

#[derive(Clone, Copy, Debug)]
enum Pattern {
    Random,
    AllEqual,
    Extremes,
    Sorted,
    Reverse,
    /// 16 distinct keys spread over all four bytes: every pass runs, many ties.
    FewDistinct,
    /// Only the low byte varies: one pass runs (odd count, result copied back).
    LowByte,
    /// Bytes 0 and 2 vary: two passes run, two skipped.
    TwoBytes,
    /// Bytes 0, 1 and 3 vary: three passes run.
    ThreeBytes,
}

const PATTERNS: [Pattern; 9] = [
    Pattern::Random,
    Pattern::AllEqual,
    Pattern::Extremes,
    Pattern::Sorted,
    Pattern::Reverse,
    Pattern::FewDistinct,
    Pattern::LowByte,
    Pattern::TwoBytes,
    Pattern::ThreeBytes,
];

fn keys(n: usize, p: Pattern, seed: u64) -> Vec<u32> {
    let mut r = Rng(seed ^ (n as u64).rotate_left(21));
    let mut v: Vec<u32> = (0..n).map(|_| r.next_u32()).collect();
    match p {
        Pattern::Random => {}
        Pattern::AllEqual => v.iter_mut().for_each(|x| *x = 0xDEAD_BEEF),
        Pattern::Extremes => v.iter_mut().for_each(|x| *x = if *x & 1 == 0 { 0 } else { u32::MAX }),
        Pattern::Sorted => v.sort_unstable(),
        Pattern::Reverse => v.sort_unstable_by(|a, b| b.cmp(a)),
        Pattern::FewDistinct => v.iter_mut().for_each(|x| *x = (*x % 16).wrapping_mul(0x1111_1111)),
        Pattern::LowByte => v.iter_mut().for_each(|x| *x = 0x7000_0000 | (*x & 0xff)),
        Pattern::TwoBytes => v.iter_mut().for_each(|x| *x = 0x1200_3400 | (*x & 0x00ff_00ff)),
        Pattern::ThreeBytes => v.iter_mut().for_each(|x| *x = 0x0055_0000 | (*x & 0xff00_ffff)),
    }
    v
}

fn sort_kvp_on_device(s: &Sorter, stream: &Arc<CudaStream>, input: &[Kvp], order: Order) -> Vec<Kvp> {
    let mut d = stream.clone_htod(input).unwrap();
    s.clone()
        .with_order(order)
        .sort_kvp_device(&mut d, stream)
        .unwrap_or_else(|e| panic!("kvp n={} {order:?}: {e}", input.len()));
    let out = stream.clone_dtoh(&d).unwrap();
    stream.synchronize().unwrap();
    out
}

fn sort_keys_on_device(s: &Sorter, stream: &Arc<CudaStream>, input: &[u32], order: Order) -> Vec<u32> {
    let mut d = stream.clone_htod(input).unwrap();
    s.clone()
        .with_order(order)
        .sort_keys_device(&mut d, stream)
        .unwrap_or_else(|e| panic!("keys n={} {order:?}: {e}", input.len()));
    let out = stream.clone_dtoh(&d).unwrap();
    stream.synchronize().unwrap();
    out
}

fn check_one(s: &Sorter, stream: &Arc<CudaStream>, n: usize, p: Pattern, seed: u64) {
    let k = keys(n, p, seed);
    check_kvp(s, stream, &k, p);
    for order in ORDERS {
        let out = sort_keys_on_device(s, stream, &k, order);
        check::validate_keys(&k, &out, order).unwrap_or_else(|e| panic!("u32 n={n} {p:?} {order:?}: {e}"));
    }
}

/// `Kvp`s with the keys `k` (of pattern `p`) sorted on the device, both orders.
fn check_kvp(s: &Sorter, stream: &Arc<CudaStream>, k: &[u32], p: Pattern) {
    let n = k.len();
    // Values are input positions: unique witnesses for the permutation and stability checks.
    let input: Vec<Kvp> = k.iter().enumerate().map(|(i, &k)| Kvp::new(k, i as u32)).collect();
    for order in ORDERS {
        let out = sort_kvp_on_device(s, stream, &input, order);
        check::validate(&input, &out, order, true).unwrap_or_else(|e| panic!("Kvp n={n} {p:?} {order:?}: {e}"));
    }
}

/// Every edge length with every pattern: below, at and above the one-block limit (4K or 16K keys
/// depending on the GPU) and one to three sweep tiles past it (kernels-cuda/cuda/policy_radix.cuh; below
/// 8M on sm_90: `Kvp` and u32 keys 8192, split pairs 6144; 5120 and 6144 on other GPUs), primes.
fn edge_lengths_every_pattern() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let mut lengths = vec![0usize, 1, 2, 3, 5, 7, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 10007];
    for limit in [4096usize, 16384] {
        lengths.extend([limit - 1, limit, limit + 1]);
        for tile in [3072usize, 4096, 5120, 6144, 8192] {
            for tiles in [1, 2, 3] {
                let m = limit + tiles * tile;
                lengths.extend([m - 1, m, m + 1]);
            }
        }
    }
    lengths.extend([65535, 65536, 65537, 100_003, 131_071]);
    lengths.sort_unstable();
    lengths.dedup();
    for &n in &lengths {
        for p in PATTERNS {
            check_one(&s, &stream, n, p, 11);
        }
    }
}

/// Larger seeded inputs: many tiles, long look-back chains.
fn large_inputs() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    for (i, &n) in [1usize << 20, (1 << 20) + 1, 1_000_003, (1 << 22) - 1, 5_000_011].iter().enumerate() {
        for p in [Pattern::Random, Pattern::FewDistinct, Pattern::LowByte, Pattern::TwoBytes] {
            check_one(&s, &stream, n, p, 100 + i as u64);
        }
    }
    // One big run per type: 2^24 + 3 random pairs.
    let n = (1 << 24) + 3;
    check_one(&s, &stream, n, Pattern::Random, 5);
    // Kvp and keys change kernel sets at RADIX_MID_KEYS_BELOW, u32 keys on sm_90 and sm_100 at
    // RADIX_MID_U32_KEYS_BELOW_STAGED: both sides of each, sorted keys (those stage every lane of
    // a warp one digit run apart) and random ones.
    let mid = gpusort::tuning::RADIX_MID_KEYS_BELOW;
    let staged = gpusort::tuning::RADIX_MID_U32_KEYS_BELOW_STAGED;
    for n in [staged - 1, staged + 3, mid - 1, mid + 3] {
        for p in [Pattern::Random, Pattern::Sorted, Pattern::Reverse] {
            check_one(&s, &stream, n, p, 7);
        }
    }
}

/// `Kvp`, 32-bit keys alone and split u32 / i32 pairs from `RADIX_HUGE_FROM` take kernel sets of
/// their own: both sides of it, with a partial last tile above, random keys, sorted ones (the
/// pattern those sets are for) and one pass; `Kvp` in both orders, keys and split pairs in both
/// for random keys (each set's other orders and key types are in the unit test
/// `every_set_at_sanitizer_sizes`, src/cuda/radix.rs, at sizes compute-sanitizer covers).
fn huge_sets() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let huge = gpusort::tuning::RADIX_HUGE_FROM;
    for (n, p, orders) in [
        (huge - 1, Pattern::Sorted, &ORDERS[..1]),
        (huge + 3, Pattern::Random, &ORDERS[..]),
        (huge + 3, Pattern::Sorted, &ORDERS[..1]),
        (huge + 3, Pattern::LowByte, &ORDERS[..1]),
    ] {
        let k = keys(n, p, 11);
        check_kvp(&s, &stream, &k, p);
        let values: Vec<u32> = (0..n as u32).collect();
        for &order in orders {
            let out = sort_keys_on_device(&s, &stream, &k, order);
            check::validate_keys(&k, &out, order).unwrap_or_else(|e| panic!("u32 keys n={n} {p:?} {order:?}: {e}"));
            check_pairs(
                &s.clone().with_order(order),
                &stream,
                &k,
                &values,
                &format!("u32 pairs n={n} {p:?} {order:?}"),
            );
        }
    }
}

/// The same random input sorted twice gives the same bits (no race between tiles).
fn repeatable() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let k = keys(3_000_017, Pattern::FewDistinct, 9);
    let input: Vec<Kvp> = k.iter().enumerate().map(|(i, &k)| Kvp::new(k, i as u32)).collect();
    let a = sort_kvp_on_device(&s, &stream, &input, Order::Descending);
    let b = sort_kvp_on_device(&s, &stream, &input, Order::Descending);
    assert!(a == b, "two runs differ");
    check::validate(&input, &a, Order::Descending, true).unwrap();
}

/// Keys of one type and, beside them, their positions as values, sorted on the device in both
/// orders: keys against the oracle's order and multiset, pairs against a stable sort.
fn check_key_type<K: TestKey + DeviceRepr>(s: &Sorter, stream: &Arc<CudaStream>, n: usize, p: common::Pattern) {
    let keys: Vec<K> = bits(n, p, 23).into_iter().map(K::from_bits).collect();
    let values: Vec<u32> = (0..n as u32).collect();
    let what = std::any::type_name::<K>();
    for order in ORDERS {
        let s = s.clone().with_order(order);
        let mut d = stream.clone_htod(&keys).unwrap();
        s.sort_keys_device(&mut d, stream).unwrap_or_else(|e| panic!("{what} keys n={n} {p:?} {order:?}: {e}"));
        let out = stream.clone_dtoh(&d).unwrap();
        stream.synchronize().unwrap();
        check::validate_keys(&keys, &out, order).unwrap_or_else(|e| panic!("{what} keys n={n} {p:?} {order:?}: {e}"));
        check_pairs(&s, stream, &keys, &values, &format!("{what} pairs n={n} {p:?} {order:?}"));
    }
}

/// Split arrays sorted on the device by `s` (its order), checked against a stable sort.
fn check_pairs<K: TestKey + DeviceRepr>(s: &Sorter, stream: &Arc<CudaStream>, keys: &[K], values: &[u32], what: &str) {
    let (mut dk, mut dv) = (stream.clone_htod(keys).unwrap(), stream.clone_htod(values).unwrap());
    s.sort_pairs_device(&mut dk, &mut dv, stream).unwrap_or_else(|e| panic!("{what}: {e}"));
    let (ok, ov) = (stream.clone_dtoh(&dk).unwrap(), stream.clone_dtoh(&dv).unwrap());
    stream.synchronize().unwrap();
    let input: Vec<Pair<K>> = keys.iter().zip(values).map(|(&key, &value)| Pair { key, value }).collect();
    let out: Vec<Pair<K>> = ok.iter().zip(&ov).map(|(&key, &value)| Pair { key, value }).collect();
    check::validate(&input, &out, s.order(), true).unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// Every key type the device sorts take, keys alone and with values, at the edge lengths (the
/// one-block sort, a tile and a few, primes) and every pattern of the suite.
fn every_key_type() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let lengths = [0usize, 1, 2, 3, 31, 257, 4095, 4096, 4097, 16383, 16385, 20481, 65537, 1_000_003];
    // Keys alone and split pairs change kernel sets at RADIX_MID_KEYS_BELOW, u32 and i32 keys on
    // sm_90 and sm_100 at RADIX_MID_U32_KEYS_BELOW_STAGED: both sides of each, two patterns.
    let mid = gpusort::tuning::RADIX_MID_KEYS_BELOW;
    let staged = gpusort::tuning::RADIX_MID_U32_KEYS_BELOW_STAGED;
    let across: &[common::Pattern] = &[common::Pattern::Random, common::Pattern::FewDistinct];
    let sides = [staged - 1, staged + 3, mid - 1, mid + 3].map(|n| (n, across));
    let cases = lengths.iter().map(|&n| (n, common::PATTERNS)).chain(sides);
    for (n, patterns) in cases {
        for &p in patterns {
            check_key_type::<u32>(&s, &stream, n, p);
            check_key_type::<i32>(&s, &stream, n, p);
            check_key_type::<f32>(&s, &stream, n, p);
            check_key_type::<u64>(&s, &stream, n, p);
            check_key_type::<i64>(&s, &stream, n, p);
            check_key_type::<f64>(&s, &stream, n, p);
            // Small keys sort at their own width (a pass per byte): every pattern at the edge
            // sizes, and once large.
            if n <= 65537 || matches!(p, common::Pattern::Random) {
                check_key_type::<u16>(&s, &stream, n, p);
                check_key_type::<i16>(&s, &stream, n, p);
                check_key_type::<u8>(&s, &stream, n, p);
                check_key_type::<i8>(&s, &stream, n, p);
                check_key_type::<f16>(&s, &stream, n, p);
                check_key_type::<bf16>(&s, &stream, n, p);
            }
        }
    }
}

/// Split u32 pairs from `RADIX_MID_KEYS_BELOW` with digits held constant, so that 1, 2 or 3 of
/// the four passes run (the rest are skipped on the device): where the scratch buffer holds
/// (key, value) items, a pass's format follows the buffer it reads, and an odd number of passes
/// ends with the result split back from the scratch buffer.
fn split_pairs_skipped_passes() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let n = gpusort::tuning::RADIX_MID_KEYS_BELOW + 3;
    let mut r = Rng(41);
    let random: Vec<u32> = (0..n).map(|_| r.next_u32()).collect();
    let values: Vec<u32> = (0..n as u32).collect();
    for mask in [0x00FF_FFFFu32, 0xFFFF_FF00, 0x0000_FFFF, 0xFF00_00FF, 0x0000_FF00] {
        let keys: Vec<u32> = random.iter().map(|&k| (k & mask) | (0x5A5A_5A5A & !mask)).collect();
        for order in ORDERS {
            let what = format!("pairs n={n} mask {mask:#x} {order:?}");
            check_pairs(&s.clone().with_order(order), &stream, &keys, &values, &what);
        }
    }
}

/// 16-bit keys with one byte held constant (one of their two passes runs: the result is copied
/// back from the scratch buffer, an odd number of bytes at odd lengths) and 8-bit keys (their one
/// pass always ends there), past the one-block sort and a few tiles, alone and with values.
fn narrow_keys_skipped_passes() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    for n in [16_385usize, 20_481, 100_003] {
        let mut r = Rng(43);
        let random: Vec<u16> = (0..n).map(|_| r.next_u32() as u16).collect();
        let values: Vec<u32> = (0..n as u32).collect();
        for (mask, fill) in [(0x00FFu16, 0x3C00u16), (0xFF00, 0x0081), (0, 0x7E01)] {
            let keys: Vec<u16> = random.iter().map(|&k| (k & mask) | (fill & !mask)).collect();
            let halves: Vec<f16> = keys.iter().map(|&k| f16::from_bits(k)).collect();
            let signed: Vec<i16> = keys.iter().map(|&k| k as i16).collect();
            for order in ORDERS {
                let s = s.clone().with_order(order);
                let what = format!("n={n} mask {mask:#x} {order:?}");
                check_narrow(&s, &stream, &keys, &values, &format!("u16 {what}"));
                check_narrow(&s, &stream, &halves, &values, &format!("f16 {what}"));
                check_narrow(&s, &stream, &signed, &values, &format!("i16 {what}"));
            }
        }
        let bytes: Vec<u8> = random.iter().map(|&k| k as u8).collect();
        let signed: Vec<i8> = bytes.iter().map(|&k| k as i8).collect();
        for order in ORDERS {
            let s = s.clone().with_order(order);
            check_narrow(&s, &stream, &bytes, &values, &format!("u8 n={n} {order:?}"));
            check_narrow(&s, &stream, &signed, &values, &format!("i8 n={n} {order:?}"));
        }
    }
}

/// `keys` sorted on the device by `s` alone (against the oracle) and with `values` (stable).
fn check_narrow<K: TestKey + DeviceRepr>(s: &Sorter, stream: &Arc<CudaStream>, keys: &[K], values: &[u32], what: &str) {
    let mut d = stream.clone_htod(keys).unwrap();
    s.sort_keys_device(&mut d, stream).unwrap_or_else(|e| panic!("{what}: {e}"));
    let out = stream.clone_dtoh(&d).unwrap();
    stream.synchronize().unwrap();
    check::validate_keys(keys, &out, s.order()).unwrap_or_else(|e| panic!("{what} keys: {e}"));
    check_pairs(s, stream, keys, values, &format!("{what} pairs"));
}

/// What the device sorts refuse is refused before any work, the data untouched: a network with
/// 32-bit keys other than `u32`, split arrays of different lengths.
fn refused_device_keys_untouched() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let floats: Vec<f32> = (0..5000).map(|i| (i as f32 * 0.37).sin()).collect();
    let mut d = stream.clone_htod(&floats).unwrap();
    let e = s.clone().with_algorithm(Algorithm::Bitonic).sort_keys_device(&mut d, &stream).unwrap_err();
    assert!(matches!(e, SortError::Unsupported { .. }), "f32 keys through bitonic on the device: {e}");
    let back: Vec<u32> = stream.clone_dtoh(&d).unwrap().iter().map(|x: &f32| x.to_bits()).collect();
    assert_eq!(back, floats.iter().map(|x| x.to_bits()).collect::<Vec<_>>());

    let keys: Vec<u64> = (0..100u64).rev().collect();
    let (mut dk, mut dv) = (stream.clone_htod(&keys).unwrap(), stream.clone_htod(&[1u32; 99]).unwrap());
    let e = s.sort_pairs_device(&mut dk, &mut dv, &stream).unwrap_err();
    assert!(matches!(e, SortError::InvalidArgument(_)), "99 values for 100 keys: {e}");
    assert_eq!(stream.clone_dtoh(&dk).unwrap(), keys);
}

/// Small and medium sizes for the compute-sanitizer runs (memcheck, racecheck): the one-block path,
/// one sweep tile short of and past a boundary, a few tiles, every pass-skip parity.
fn sanitizer_sizes() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    for n in [2usize, 1000, 16385, 20481, 50_001] {
        for p in [Pattern::Random, Pattern::LowByte, Pattern::TwoBytes, Pattern::AllEqual] {
            check_one(&s, &stream, n, p, 3);
        }
        // The float kernels (f32 on their own, 64-bit flipping at run time), alone and with values;
        // the 16- and 8-bit sets.
        check_key_type::<f32>(&s, &stream, n, common::Pattern::Random);
        check_key_type::<f64>(&s, &stream, n, common::Pattern::Random);
        check_key_type::<f16>(&s, &stream, n, common::Pattern::Random);
        check_key_type::<u16>(&s, &stream, n, common::Pattern::LowByte);
        check_key_type::<i8>(&s, &stream, n, common::Pattern::Random);
    }
}

/// The kernel sets with the larger tiles, which start at RADIX_MID_KEYS_BELOW (u32 keys alone,
/// split u32 pairs and `Kvp`), for compute-sanitizer memcheck and racecheck, each with a partial
/// last tile.
fn sanitizer_large_sets() {
    let Some((s, ctx)) = sorter() else { return };
    let stream = ctx.new_stream().unwrap();
    let n = gpusort::tuning::RADIX_MID_KEYS_BELOW + 3;
    check_key_type::<u32>(&s, &stream, n, common::Pattern::Random);
    check_kvp(&s, &stream, &keys(n, Pattern::Random, 3), Pattern::Random);
}

fn main() -> std::process::ExitCode {
    harness::run(vec![
        harness::gpu("edge_lengths_every_pattern", edge_lengths_every_pattern),
        harness::gpu("large_inputs", large_inputs),
        harness::gpu("huge_sets", huge_sets),
        harness::gpu("repeatable", repeatable),
        harness::gpu("every_key_type", every_key_type),
        harness::gpu("split_pairs_skipped_passes", split_pairs_skipped_passes),
        harness::gpu("narrow_keys_skipped_passes", narrow_keys_skipped_passes),
        harness::gpu("refused_device_keys_untouched", refused_device_keys_untouched),
        harness::gpu("sanitizer_sizes", sanitizer_sizes),
        harness::gpu("sanitizer_large_sets", sanitizer_large_sets),
    ])
}
