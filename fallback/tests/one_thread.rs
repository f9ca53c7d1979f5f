//! Keys-only sorts with a pool of one thread (`RAYON_NUM_THREADS=1`, set before the pool is
//! made: this file is its own process): the vector sort then runs on the calling thread, key
//! maps included, and must give what the standard library's sort of the ordered bits gives.

mod common;

use std::time::Duration;

use common::{keys_u32, ORDERS, PATTERNS};
use gpusort_cpu::{check, sort_keys, Order, SortKey};

fn check<K: SortKey>(input: &[K], what: &str) {
    for order in ORDERS {
        let mut ours = input.to_vec();
        sort_keys(&mut ours, order).unwrap();
        let mut expected = input.to_vec();
        expected.sort_by_key(|k| k.to_ordered_bits());
        if order == Order::Descending {
            expected.reverse();
        }
        let same = ours.iter().zip(&expected).all(|(a, b)| a.to_ordered_bits() == b.to_ordered_bits());
        assert!(same, "{what}, n = {}, {order:?}: differs from the oracle", input.len());
    }
}

/// `b` as a double that is not NaN (a NaN's exponent made finite).
fn finite(b: u64) -> f64 {
    const EXP: u64 = 0x7ff0_0000_0000_0000;
    f64::from_bits(if b & EXP == EXP { b ^ (1 << 52) } else { b })
}

/// As [`finite`], for f32 bits.
fn finite32(b: u32) -> f32 {
    const EXP: u32 = 0x7f80_0000;
    f32::from_bits(if b & EXP == EXP { b ^ (1 << 23) } else { b })
}

/// `b` as a double as [`finite`] does, one key in four a zero of the sign that bit 5 gives.
fn with_zeros(b: u64) -> f64 {
    if b & 3 == 0 {
        f64::from_bits((b >> 5 & 1) << 63)
    } else {
        finite(b)
    }
}

#[test]
fn one_thread_sorts_every_key_type() {
    // SAFETY: the only test of this process, before any thread or pool exists.
    unsafe { std::env::set_var("RAYON_NUM_THREADS", "1") };
    assert_eq!(gpusort_cpu::threads(), 1);
    // Past the pool threshold and past the key maps' parallel threshold (2 x 64K keys).
    for n in [1000, 65_537, 300_007] {
        for pattern in PATTERNS {
            let bits = keys_u32(pattern, n, n as u64);
            check(&bits, &format!("u32 {pattern}"));
            check(&bits.iter().map(|&b| b as i32).collect::<Vec<_>>(), &format!("i32 {pattern}"));
            check(&bits.iter().map(|&b| f32::from_bits(b)).collect::<Vec<_>>(), &format!("f32 {pattern}"));
            let wide: Vec<u64> = bits.iter().map(|&b| (b as u64) << 32 | b.rotate_left(7) as u64).collect();
            check(&wide, &format!("u64 {pattern}"));
            check(&wide.iter().map(|&b| f64::from_bits(b)).collect::<Vec<_>>(), &format!("f64 {pattern}"));
            // Without NaN, float keys are compared as floats (`simd/float.rs`), on one thread
            // only; the zeros of both signs are put in order after.
            check(&wide.iter().map(|&b| finite(b)).collect::<Vec<_>>(), &format!("finite f64 {pattern}"));
            check(&bits.iter().map(|&b| finite32(b)).collect::<Vec<_>>(), &format!("finite f32 {pattern}"));
            let zeros: Vec<f64> = wide.iter().map(|&b| with_zeros(b)).collect();
            check(&zeros, &format!("f64 with zeros {pattern}"));
            check(&zeros.iter().map(|&x| x as f32).collect::<Vec<_>>(), &format!("f32 with zeros {pattern}"));
        }
    }
    sorts_on_one_thread_never_wait_on_rayons_global_pool();
}

/// The calling thread sorts alone here, outside any pool: a parallel iterator on its path (the
/// check for sorted input) would go to rayon's global pool, whose one thread is held.
fn sorts_on_one_thread_never_wait_on_rayons_global_pool() {
    assert_eq!(rayon::current_num_threads(), 1);
    // Past the length from which the checks for sorted input split into tasks (2 x 64K).
    let random = keys_u32("random", 300_007, 7);
    let input = random.clone();
    let outcome = check::with_global_pool_held(Duration::from_secs(120), move || {
        let mut sorted = input.clone();
        sort_keys(&mut sorted, Order::Ascending).unwrap();
        // Input in order, then in reverse order: the checks that finish it in a pass or two.
        let mut again = sorted.clone();
        sort_keys(&mut again, Order::Ascending).unwrap();
        let mut reversed = sorted.clone();
        sort_keys(&mut reversed, Order::Descending).unwrap();
        (sorted, again, reversed)
    });
    let (sorted, again, reversed) = outcome.expect("a one-thread sort waited on rayon's global pool");
    let mut expected = random;
    expected.sort_unstable();
    assert_eq!(sorted, expected);
    assert_eq!(again, expected);
    expected.reverse();
    assert_eq!(reversed, expected);
}
