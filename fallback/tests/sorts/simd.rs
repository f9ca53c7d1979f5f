//! The vector keys-only sort on every instruction set this machine has, and the portable (radix)
//! path with it turned off, against an oracle: the standard library's sort on the ordered bits.
//! Results must match bit for bit (so float keys keep `total_cmp` order, NaN payloads included).

use crate::common::{keys_u32, small_lengths, Rng, ORDERS, PATTERNS};
use gpusort_cpu::simd::Isa;
use gpusort_cpu::{sort_keys_on, Order, SortKey};

fn isas() -> Vec<Isa> {
    let present: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.available()).collect();
    // So a green run says which sets it covered.
    eprintln!("instruction sets tested: {present:?}");
    present
}

fn check<K: SortKey>(input: &[K], what: &str) {
    for isa in isas() {
        for order in ORDERS {
            let mut ours = input.to_vec();
            sort_keys_on(&mut ours, order, isa).unwrap();
            let mut expected = input.to_vec();
            expected.sort_by_key(|k| k.to_ordered_bits());
            if order == Order::Descending {
                expected.reverse();
            }
            let first_bad = ours.iter().zip(&expected).position(|(a, b)| a.to_ordered_bits() != b.to_ordered_bits());
            if let Some(i) = first_bad {
                panic!(
                    "{what}, n = {}, {isa:?}, {order:?}: at {i} got {:?}, expected {:?}",
                    input.len(),
                    ours[i],
                    expected[i]
                );
            }
        }
    }
}

/// The suite's lengths, primes, and lengths around the vector sort's own edges: the network
/// sizes (multiples of 8 and 16 keys up to 256), the partition's batches, the parallel split.
fn lengths() -> Vec<usize> {
    let mut n = small_lengths();
    n.extend([11, 17, 19, 29, 37, 61, 127, 129, 191, 193, 255, 257, 383, 509, 1021, 8191, 65521, 65539, 200_003]);
    n.sort_unstable();
    n.dedup();
    n
}

/// Shapes that defeat a quicksort's pivot choice, on top of the suite's patterns.
fn extra_u32(pattern: &str, n: usize, seed: u64) -> Vec<u32> {
    let mut r = Rng::new(seed);
    let n32 = n as u32;
    match pattern {
        "organ-pipe" => (0..n32).map(|i| i.min(n32 - i)).collect(),
        "sawtooth" => (0..n32).map(|i| i % 1000).collect(),
        "alternating" => (0..n32).map(|i| if i % 2 == 0 { i } else { n32 - i }).collect(),
        "max-and-one-less" => (0..n).map(|_| u32::MAX - (r.next() % 2) as u32).collect(),
        "one-distinct-max" => {
            let mut v = vec![7u32; n];
            if n > 0 {
                v[n / 2] = u32::MAX;
            }
            v
        }
        _ => keys_u32(pattern, n, seed),
    }
}

fn patterns() -> Vec<&'static str> {
    let mut p = PATTERNS.to_vec();
    p.extend(["organ-pipe", "sawtooth", "alternating", "max-and-one-less", "one-distinct-max"]);
    p
}

#[test]
fn u32_and_i32_keys() {
    for n in lengths() {
        for pattern in patterns() {
            let keys = extra_u32(pattern, n, 31);
            check(&keys, pattern);
            let signed: Vec<i32> = keys.iter().map(|&k| k as i32).collect();
            check(&signed, pattern);
        }
    }
}

fn widen(pattern: &str, n: usize, seed: u64) -> Vec<u64> {
    let mut r = Rng::new(seed);
    match pattern {
        "random" => (0..n).map(|_| r.next()).collect(),
        "extremes" => (0..n).map(|_| if r.next().is_multiple_of(2) { 0 } else { u64::MAX }).collect(),
        "max-and-one-less" => (0..n).map(|_| u64::MAX - r.next() % 2).collect(),
        "high-32-bits" => (0..n).map(|_| r.next() << 32).collect(),
        _ => extra_u32(pattern, n, seed).into_iter().map(|k| (k as u64) << 17 | (k as u64 & 3)).collect(),
    }
}

#[test]
fn u64_and_i64_keys() {
    let mut p = patterns();
    p.push("high-32-bits");
    for n in lengths() {
        for &pattern in &p {
            let keys = widen(pattern, n, 32);
            check(&keys, pattern);
            let signed: Vec<i64> = keys.iter().map(|&k| k as i64).collect();
            check(&signed, pattern);
        }
    }
}

/// Floats of every class: both zeros, both infinities, NaNs of either sign with payloads,
/// subnormals, and any bit pattern at all.
fn f32_keys(n: usize, seed: u64, spread: bool) -> Vec<f32> {
    const SPECIAL: [u32; 10] =
        [0x7fc0_0000, 0xffc0_0000, 0x7f80_0001, 0xffa0_beef, 0x7f80_0000, 0xff80_0000, 0, 0x8000_0000, 1, 0x8000_0001];
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| match r.next() % 4 {
            0 => f32::from_bits(SPECIAL[(r.next() % SPECIAL.len() as u64) as usize]),
            1 => f32::from_bits(r.next() as u32),
            _ if spread => (r.next() % 2000) as f32 / 7.0 - 140.0,
            _ => 1.5,
        })
        .collect()
}

#[test]
fn f32_and_f64_keys_keep_total_cmp_order() {
    for n in lengths() {
        for spread in [true, false] {
            let keys = f32_keys(n, 33, spread);
            check(&keys, "f32");
            // f64 keys: the f32 values widened, plus raw 64-bit patterns (NaN payloads beyond f32's).
            let mut r = Rng::new(34);
            let wide: Vec<f64> = keys
                .iter()
                .map(|&k| if r.next().is_multiple_of(3) { f64::from_bits(r.next()) } else { k as f64 })
                .collect();
            check(&wide, "f64");
        }
    }
    // Independently of the ordered bits: the standard library's total order, at sizes that take
    // the network, the sequential quicksort and the parallel split.
    for n in [100, 5000, 300_007] {
        let keys = f32_keys(n, 35, true);
        for isa in isas() {
            let mut ours = keys.clone();
            sort_keys_on(&mut ours, Order::Ascending, isa).unwrap();
            let mut reference = keys.clone();
            reference.sort_by(f32::total_cmp);
            assert!(ours.iter().zip(&reference).all(|(a, b)| a.to_bits() == b.to_bits()), "{isa:?} n = {n}");
        }
    }
}

/// A float type of the tests of exact float keys: its raw bits and the special values among them.
trait ExactFloat: SortKey + Copy {
    /// +inf, -inf, the least and the greatest subnormal of each sign.
    const SPECIAL: [u64; 6];
    /// The exponent bits, the lowest of them, and the sign.
    const EXPONENT: u64;
    const EXPONENT_LOW: u64;
    const SIGN: u64;
    fn from_raw(b: u64) -> Self;
    fn from_int(i: i64) -> Self;
    fn total(&self, other: &Self) -> std::cmp::Ordering;
}

macro_rules! exact_float {
    ($t:ty, $bits:ty, $special:expr, $exp:expr, $low:expr) => {
        impl ExactFloat for $t {
            const SPECIAL: [u64; 6] = $special;
            const EXPONENT: u64 = $exp;
            const EXPONENT_LOW: u64 = $low;
            const SIGN: u64 = 1 << (<$bits>::BITS - 1);
            fn from_raw(b: u64) -> Self {
                <$t>::from_bits(b as $bits)
            }
            fn from_int(i: i64) -> Self {
                i as $t
            }
            fn total(&self, other: &Self) -> std::cmp::Ordering {
                self.total_cmp(other)
            }
        }
    };
}
exact_float!(
    f64,
    u64,
    [
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        1,
        0x8000_0000_0000_0001,
        0x000f_ffff_ffff_ffff,
        0x800f_ffff_ffff_ffff
    ],
    0x7ff0_0000_0000_0000,
    0x0010_0000_0000_0000
);
exact_float!(f32, u32, [0x7f80_0000, 0xff80_0000, 1, 0x8000_0001, 0x007f_ffff, 0x807f_ffff], 0x7f80_0000, 0x0080_0000);

/// Float keys without NaN, which the vector sort compares as floats: infinities, subnormals of
/// both signs, `zero` (or, for the patterns named "both zeros", both zeros), repeats, in several
/// orders.
fn exact_float_keys<F: ExactFloat>(pattern: &str, n: usize, seed: u64, zero: F) -> Vec<F> {
    let mask = F::SIGN | (F::SIGN - 1);
    let mut r = Rng::new(seed);
    let mut v: Vec<F> = (0..n)
        .map(|_| match r.next() % 8 {
            0 => F::from_raw(F::SPECIAL[(r.next() % F::SPECIAL.len() as u64) as usize]),
            1 => zero,
            2 => F::from_int((r.next() % 50) as i64 - 25),
            _ => {
                // Any finite pattern: a NaN's exponent replaced by a finite one.
                let b = r.next() & mask;
                let b = if b & F::EXPONENT == F::EXPONENT { b ^ F::EXPONENT_LOW } else { b };
                if b & !F::SIGN == 0 {
                    zero
                } else {
                    F::from_raw(b)
                }
            }
        })
        .collect();
    match pattern {
        "sorted" => v.sort_by(F::total),
        "reverse" => v.sort_by(|a, b| b.total(a)),
        "equal" => v.iter_mut().for_each(|x| *x = F::from_int(-3)),
        "zeros" => v.iter_mut().for_each(|x| *x = zero),
        // One key in three a zero of either sign, or every key.
        "both zeros" | "only both zeros" => {
            let every = if pattern == "only both zeros" { 1 } else { 3 };
            for x in v.iter_mut().step_by(every) {
                *x = F::from_raw(if r.next() & 1 == 0 { F::SIGN } else { 0 });
            }
        }
        "infinities" => {
            v.iter_mut().enumerate().for_each(|(i, x)| *x = F::from_raw(F::SPECIAL[usize::from(i % 3 == 0)]))
        }
        _ => {}
    }
    v
}

#[test]
fn float_keys_compared_as_floats() {
    fn both<F: ExactFloat>(zero: F, minus_zero: F) {
        for n in lengths() {
            for pattern in
                ["random", "sorted", "reverse", "equal", "zeros", "infinities", "both zeros", "only both zeros"]
            {
                for zero in [zero, minus_zero] {
                    check(&exact_float_keys(pattern, n, 40, zero), pattern);
                }
            }
        }
        for n in [(1 << 20) + 1, 300_007] {
            for pattern in ["random", "sorted", "zeros", "both zeros"] {
                check(&exact_float_keys(pattern, n, 41, minus_zero), pattern);
            }
        }
        // One zero of each sign among the keys (compared as floats, then put in order), or one
        // NaN at either end (which the scan must send to the ordered bits).
        for n in [2, 17, 1000, 65_537] {
            let mut keys = exact_float_keys("random", n, 42, zero);
            keys[n / 2] = minus_zero;
            keys[0] = zero;
            check(&keys, "both zeros");
            for at in [0, n - 1] {
                let mut keys = exact_float_keys("random", n, 43, zero);
                keys[at] = F::from_raw(F::EXPONENT | 1);
                check(&keys, "one NaN");
            }
        }
    }
    both(0.0f64, -0.0f64);
    both(0.0f32, -0.0f32);
}

/// Sizes that the parallel split and the default dispatch see (the vector sort and, above its
/// crossover, the radix sort or voracious).
#[test]
fn large_inputs() {
    for n in [(1 << 20) + 1, (1 << 22) + 3] {
        for pattern in ["random", "few-distinct", "sorted", "organ-pipe", "two-keys"] {
            let keys = extra_u32(pattern, n, 36);
            check(&keys, pattern);
            // Signed keys: mapped to ordered bits in registers, runs of one value mapped back by
            // the parallel split (few-distinct, two-keys).
            check(&keys.iter().map(|&k| k as i32).collect::<Vec<_>>(), pattern);
            check(&widen(pattern, n, 37), pattern);
        }
        check(&f32_keys(n, 38, true), "f32");
        let mut ours = f32_keys(n, 39, true);
        let mut expected = ours.clone();
        gpusort_cpu::sort_keys(&mut ours, Order::Descending).unwrap();
        expected.sort_by(|a, b| b.total_cmp(a));
        assert!(ours.iter().zip(&expected).all(|(a, b)| a.to_bits() == b.to_bits()), "sort_keys f32 n = {n}");
    }
}
