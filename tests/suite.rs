//! The shared suite: every backend present x every algorithm it has x both orders x every edge
//! case, each result checked by the oracle (sorted, a permutation with values attached to their
//! keys, and stable where the algorithm promises it).

mod common;

use common::*;
use gpusort::{bf16, check, f16, Algorithm, Kvp, Order, SortError, Sorter};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

fn kvps(n: usize, p: Pattern, seed: u64) -> Vec<Kvp> {
    // Values are the input positions: unique witnesses for the permutation and stability checks.
    bits(n, p, seed).into_iter().enumerate().map(|(i, b)| Kvp::new(u32::from_bits(b), i as u32)).collect()
}

fn check_kvp(name: &str, s: &Sorter, alg: Algorithm, n: usize, p: Pattern, order: Order) {
    let input = kvps(n, p, 1);
    let mut out = input.clone();
    let s = s.clone().with_algorithm(alg);
    s.clone()
        .with_order(order)
        .sort_kvp(&mut out)
        .unwrap_or_else(|e| panic!("{name} {alg:?} n={n} {p:?} {order:?}: {e}"));
    check::validate(&input, &out, order, alg.is_stable())
        .unwrap_or_else(|e| panic!("{name} {alg:?} Kvp n={n} {p:?} {order:?}: {e}"));
}

/// A backend may lack a type (64-bit keys in the GPU sorting networks, today): that must be
/// `Unsupported` with the data untouched, and it is reported, not hidden.
fn unsupported<T: PartialEq>(r: Result<(), SortError>, name: &str, what: &str, before: &[T], after: &[T]) -> bool {
    match r {
        Err(SortError::Unsupported { .. })
            if name == "cuda" && ["u64", "i64", "f64"].iter().any(|t| what.contains(t)) =>
        {
            assert!(before == after, "{name}: an unsupported sort changed the data");
            skip_loudly(&format!("skipped: {name} has no {what} sort: {}", r.unwrap_err()));
            true
        }
        Err(e) => panic!("{name} {what}: {e}"),
        Ok(()) => false,
    }
}

fn check_keys<K: TestKey>(name: &str, s: &Sorter, alg: Algorithm, n: usize, p: Pattern, order: Order) {
    let input: Vec<K> = bits(n, p, 2).into_iter().map(K::from_bits).collect();
    let mut out = input.clone();
    let s = s.clone().with_algorithm(alg);
    let what = format!("{alg:?} {} keys n={n} {p:?} {order:?}", std::any::type_name::<K>());
    let r = s.clone().with_order(order).sort_keys(&mut out);
    let ids = |v: &[K]| v.iter().map(|k| k.id()).collect::<Vec<_>>();
    if unsupported(r, name, &what, &ids(&input), &ids(&out)) {
        return;
    }
    let t = std::any::type_name::<K>();
    check::validate_keys(&input, &out, order)
        .unwrap_or_else(|e| panic!("{name} {alg:?} {t} n={n} {p:?} {order:?}: {e}"));
}

fn check_pairs<K: TestKey>(name: &str, s: &Sorter, alg: Algorithm, n: usize, p: Pattern, order: Order) {
    let keys: Vec<K> = bits(n, p, 3).into_iter().map(K::from_bits).collect();
    let values: Vec<u32> = (0..n as u32).collect();
    let (mut k, mut v) = (keys.clone(), values.clone());
    let s = s.clone().with_algorithm(alg);
    let what = format!("{alg:?} pairs of {} keys n={n} {p:?} {order:?}", std::any::type_name::<K>());
    let r = s.clone().with_order(order).sort_pairs(&mut k, &mut v);
    let ids = |k: &[K], v: &[u32]| k.iter().zip(v).map(|(k, &v)| (k.id(), v)).collect::<Vec<_>>();
    if unsupported(r, name, &what, &ids(&keys, &values), &ids(&k, &v)) {
        return;
    }
    let pack =
        |k: &[K], v: &[u32]| -> Vec<Pair<K>> { k.iter().zip(v).map(|(&key, &value)| Pair { key, value }).collect() };
    let t = std::any::type_name::<K>();
    check::validate(&pack(&keys, &values), &pack(&k, &v), order, alg.is_stable())
        .unwrap_or_else(|e| panic!("{name} {alg:?} pairs<{t}> n={n} {p:?} {order:?}: {e}"));
}

/// Split pairs with `u64` values (row ids past 2^32): unique values with their high bits set, so
/// a lost half shows. Always stable, whatever the algorithm (the GPU argsorts the keys with its
/// radix sort, then permutes on the host): the one stable result, the CPU oracle's, bit for bit.
fn check_pairs_u64<K: TestKey>(name: &str, s: &Sorter, alg: Algorithm, n: usize, p: Pattern, order: Order) {
    let keys: Vec<K> = bits(n, p, 5).into_iter().map(K::from_bits).collect();
    // An odd multiplier is a bijection of u64: the values stay unique.
    let values: Vec<u64> = (0..n as u64).map(|i| (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
    let (mut k, mut v) = (keys.clone(), values.clone());
    let t = std::any::type_name::<K>();
    s.clone()
        .with_algorithm(alg)
        .with_order(order)
        .sort_pairs(&mut k, &mut v)
        .unwrap_or_else(|e| panic!("{name} {alg:?} pairs<{t}, u64> n={n} {p:?} {order:?}: {e}"));
    let pack = |k: &[K], v: &[u64]| -> Vec<Pair<K, u64>> {
        k.iter().zip(v).map(|(&key, &value)| Pair { key, value }).collect()
    };
    check::validate(&pack(&keys, &values), &pack(&k, &v), order, true)
        .unwrap_or_else(|e| panic!("{name} {alg:?} pairs<{t}, u64> n={n} {p:?} {order:?}: {e}"));
}

/// Runs `f` for every algorithm of the backend x order x length x pattern.
fn sweep(
    b: &Backend,
    lengths: &[usize],
    patterns: &[Pattern],
    f: impl Fn(&str, &Sorter, Algorithm, usize, Pattern, Order),
) {
    for &alg in &b.algorithms {
        for order in ORDERS {
            for &n in lengths {
                for &p in patterns.iter().filter(|&&p| b.runs(n, p)) {
                    f(b.name, &b.sorter, alg, n, p, order);
                }
            }
        }
    }
}

fn kvp_edge_cases(b: &Backend) {
    sweep(b, SMALL_LENGTHS, PATTERNS, check_kvp);
}

fn kvp_large(b: &Backend) {
    sweep(b, LARGE_LENGTHS, &[Pattern::Random, Pattern::FewDistinct, Pattern::Reverse], check_kvp);
}

fn u32_keys(b: &Backend) {
    sweep(b, SMALL_LENGTHS, PATTERNS, check_keys::<u32>);
    sweep(b, &[65537, 1 << 20], &[Pattern::Random], check_keys::<u32>);
}

fn i32_f32_u64_keys(b: &Backend) {
    let lengths = &[0, 1, 2, 31, 257, 4097, 65537];
    sweep(b, lengths, PATTERNS, check_keys::<i32>);
    sweep(b, lengths, PATTERNS, check_keys::<f32>);
    sweep(b, lengths, PATTERNS, check_keys::<u64>);
    sweep(b, lengths, PATTERNS, check_keys::<i64>);
    sweep(b, lengths, PATTERNS, check_keys::<f64>);
    // Many tiles of 8-byte keys with 8 digit passes (some skipped), and signed/float keys on the
    // multi-block path.
    let large = &[(1 << 20) + 7];
    sweep(b, large, &[Pattern::Random, Pattern::LowByte], check_keys::<u64>);
    sweep(b, large, &[Pattern::Random], check_keys::<i32>);
    sweep(b, large, &[Pattern::Random], check_keys::<f32>);
    sweep(b, large, &[Pattern::Random, Pattern::LowByte], check_keys::<i64>);
    sweep(b, large, &[Pattern::Random], check_keys::<f64>);
}

fn split_pairs(b: &Backend) {
    let lengths = &[0, 1, 2, 31, 257, 4097, 65537];
    sweep(b, lengths, PATTERNS, check_pairs::<u32>);
    sweep(b, lengths, PATTERNS, check_pairs::<i32>);
    sweep(b, lengths, PATTERNS, check_pairs::<f32>);
    sweep(b, lengths, PATTERNS, check_pairs::<u64>);
    sweep(b, lengths, PATTERNS, check_pairs::<i64>);
    sweep(b, lengths, PATTERNS, check_pairs::<f64>);
    // From 1M pairs the GPU sends 32-bit split pairs as two arrays (tuning::SPLIT_ROUND_TRIP_FROM).
    let large = &[(1 << 20) + 7];
    sweep(b, large, &[Pattern::Random, Pattern::FewDistinct], check_pairs::<u64>);
    sweep(b, large, &[Pattern::Random], check_pairs::<f32>);
    sweep(b, large, &[Pattern::FewDistinct], check_pairs::<u32>);
    sweep(b, large, &[Pattern::Random], check_pairs::<i32>);
    sweep(b, large, &[Pattern::Random, Pattern::FewDistinct], check_pairs::<i64>);
    sweep(b, large, &[Pattern::Random], check_pairs::<f64>);
}

fn split_pairs_u64_values(b: &Backend) {
    let lengths = &[0, 1, 2, 3, 31, 255, 256, 257, 4097, 65537];
    sweep(b, lengths, PATTERNS, check_pairs_u64::<u32>);
    sweep(b, lengths, PATTERNS, check_pairs_u64::<i32>);
    sweep(b, lengths, PATTERNS, check_pairs_u64::<f32>);
    sweep(b, lengths, PATTERNS, check_pairs_u64::<u64>);
    sweep(b, lengths, PATTERNS, check_pairs_u64::<i64>);
    sweep(b, lengths, PATTERNS, check_pairs_u64::<f64>);
    sweep(b, lengths, PATTERNS, check_pairs_u64::<u16>);
    sweep(b, lengths, PATTERNS, check_pairs_u64::<i8>);
    let large = &[(1 << 20) + 7];
    sweep(b, large, &[Pattern::Random, Pattern::FewDistinct], check_pairs_u64::<u32>);
    sweep(b, large, &[Pattern::Random, Pattern::FewDistinct], check_pairs_u64::<u64>);
    sweep(b, large, &[Pattern::Random], check_pairs_u64::<f64>);
}

/// i64 and f64 values are moved bit for bit (NaN payloads, -0.0), as are the 4-byte i32 and f32
/// ones: the same permutation as u64 and u32 values of the same bits.
fn other_value_types_move_bit_for_bit(b: &Backend) {
    let n = 70_001;
    let keys: Vec<u32> = bits(n, Pattern::FewDistinct, 6).into_iter().map(|x| x as u32).collect();
    let raw: Vec<u64> = bits(n, Pattern::Random, 7);
    let mut specials = raw.clone();
    specials[..4].copy_from_slice(&[f64::NAN.to_bits() | 5, (-0.0f64).to_bits(), (-f64::NAN).to_bits(), 0]);
    let (mut k64, mut v64) = (keys.clone(), specials.clone());
    b.sorter.sort_pairs(&mut k64, &mut v64).unwrap();
    let (mut kf, mut vf) = (keys.clone(), specials.iter().map(|&x| f64::from_bits(x)).collect::<Vec<_>>());
    b.sorter.sort_pairs(&mut kf, &mut vf).unwrap();
    let (mut ki, mut vi) = (keys.clone(), specials.iter().map(|&x| x as i64).collect::<Vec<_>>());
    b.sorter.sort_pairs(&mut ki, &mut vi).unwrap();
    assert_eq!((&kf, &ki), (&k64, &k64), "{}", b.name);
    assert!(vf.iter().zip(&v64).all(|(f, &u)| f.to_bits() == u), "{}: f64 values changed bits", b.name);
    assert!(vi.iter().zip(&v64).all(|(&i, &u)| i as u64 == u), "{}: i64 values differ", b.name);
    let narrow: Vec<u32> = raw.iter().map(|&x| x as u32 | 0x7FC0_0001).collect();
    let (mut k32, mut v32) = (keys.clone(), narrow.clone());
    b.sorter.sort_pairs(&mut k32, &mut v32).unwrap();
    let (mut kf, mut vf) = (keys.clone(), narrow.iter().map(|&x| f32::from_bits(x)).collect::<Vec<_>>());
    b.sorter.sort_pairs(&mut kf, &mut vf).unwrap();
    assert_eq!(kf, k32, "{}", b.name);
    assert!(vf.iter().zip(&v32).all(|(f, &u)| f.to_bits() == u), "{}: f32 values changed bits", b.name);
}

/// u16, i16, u8 and i8 keys, alone and as split pairs, with every algorithm: lengths around one
/// 8-bit and one 16-bit digit's worth of keys and the CPU's serial cut-off; on the GPU they travel
/// as 32-bit ordered bits.
fn small_keys(b: &Backend) {
    let lengths = &[0, 1, 2, 31, 255, 256, 257, 4097, 65535, 65536, 65537, 100_003];
    sweep(b, lengths, PATTERNS, check_keys::<u16>);
    sweep(b, lengths, PATTERNS, check_keys::<i16>);
    sweep(b, lengths, PATTERNS, check_keys::<u8>);
    sweep(b, lengths, PATTERNS, check_keys::<i8>);
    sweep(b, lengths, PATTERNS, check_pairs::<u16>);
    sweep(b, lengths, PATTERNS, check_pairs::<i16>);
    sweep(b, lengths, PATTERNS, check_pairs::<u8>);
    sweep(b, lengths, PATTERNS, check_pairs::<i8>);
    let large = &[(1 << 20) + 7];
    sweep(b, large, &[Pattern::Random, Pattern::FewDistinct], check_keys::<i16>);
    sweep(b, large, &[Pattern::Random], check_keys::<u8>);
    sweep(b, large, &[Pattern::Random, Pattern::FewDistinct], check_pairs::<u16>);
    sweep(b, large, &[Pattern::Random], check_pairs::<i8>);
}

/// Small keys against the standard library's order (not the ordered-bits map the oracle shares
/// with the sorts), and argsort of them: the stable permutation.
fn small_keys_match_std(b: &Backend) {
    fn each<K: TestKey + Ord>(b: &Backend, input: &[K]) {
        for order in ORDERS {
            let s = b.sorter.clone().with_order(order);
            let mut perm: Vec<u32> = (0..input.len() as u32).collect();
            match order {
                Order::Ascending => perm.sort_by_key(|&i| input[i as usize]),
                Order::Descending => perm.sort_by(|&x, &y| input[y as usize].cmp(&input[x as usize])),
            }
            let want: Vec<K> = perm.iter().map(|&i| input[i as usize]).collect();
            let mut got = input.to_vec();
            s.sort_keys(&mut got).unwrap_or_else(|e| panic!("{}: {e}", b.name));
            assert!(got == want, "{} {order:?} {}: keys", b.name, std::any::type_name::<K>());
            let idx = s.argsort(input).unwrap_or_else(|e| panic!("{}: {e}", b.name));
            assert!(idx == perm, "{} {order:?} {}: argsort", b.name, std::any::type_name::<K>());
        }
    }
    for n in [3, 300, 70_001] {
        let r = bits(n, Pattern::Random, 31);
        each(b, &r.iter().map(|&x| u16::from_bits(x)).collect::<Vec<_>>());
        each(b, &r.iter().map(|&x| i16::from_bits(x)).collect::<Vec<_>>());
        each(b, &r.iter().map(|&x| u8::from_bits(x)).collect::<Vec<_>>());
        each(b, &r.iter().map(|&x| i8::from_bits(x)).collect::<Vec<_>>());
    }
    let mut v = [0i8, i8::MIN, -1, i8::MAX, 1, i8::MIN];
    b.sorter.sort_keys(&mut v).unwrap();
    assert_eq!(v, [i8::MIN, i8::MIN, -1, 0, 1, i8::MAX], "{}", b.name);
}

fn floats_follow_total_cmp(b: &Backend) {
    let special = [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 0.0, 1.0, -1.0, f32::MIN, f32::MAX];
    let mut v: Vec<f32> = special.iter().cycle().take(1000).copied().collect();
    let mut expect = v.clone();
    expect.sort_by(|a, b| a.total_cmp(b));
    b.sorter.sort_keys(&mut v).unwrap();
    assert!(v.iter().zip(&expect).all(|(a, b)| a.to_bits() == b.to_bits()), "{}: {:?}", b.name, &v[..12]);
    let special = [f64::NAN, -f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, 1.0, -1.0, f64::MIN, 5e-324];
    let mut v: Vec<f64> = special.iter().cycle().take(1000).copied().collect();
    let mut expect = v.clone();
    expect.sort_by(|a, b| a.total_cmp(b));
    b.sorter.sort_keys(&mut v).unwrap();
    assert!(v.iter().zip(&expect).all(|(a, b)| a.to_bits() == b.to_bits()), "{}: f64 {:?}", b.name, &v[..12]);
}

fn mismatched_split_lengths_are_an_error_and_touch_nothing(b: &Backend) {
    let mut k = vec![3u32, 1, 2];
    let mut v = vec![0u32, 1];
    let e = b.sorter.sort_pairs(&mut k, &mut v).expect_err(b.name);
    assert!(matches!(e, gpusort::SortError::InvalidArgument(_)), "{}: {e}", b.name);
    assert_eq!((&k, v), (&vec![3, 1, 2], vec![0, 1]));
    let mut v = vec![0u64, 1];
    let e = b.sorter.sort_pairs(&mut k, &mut v).expect_err(b.name);
    assert!(matches!(e, gpusort::SortError::InvalidArgument(_)), "{}: {e}", b.name);
    assert_eq!((k, v), (vec![3, 1, 2], vec![0, 1]));
}

fn auto_matches_the_cpu_backend_exactly() {
    // Stable sorts have one correct answer: whichever backend auto picks must give it.
    for n in [1000, 200_000] {
        let input = kvps(n, Pattern::FewDistinct, 9);
        let (mut a, mut c) = (input.clone(), input.clone());
        Sorter::auto().with_crossover(0).sort_kvp(&mut a).unwrap();
        Sorter::cpu().sort_kvp(&mut c).unwrap();
        assert!(a == c, "auto ({}) differs from cpu at n={n}", Sorter::auto().describe());
        let keys: Vec<f32> = bits(n, Pattern::FewDistinct, 10).into_iter().map(|b| f32::from_bits(b as u32)).collect();
        let rows: Vec<u64> = (0..n as u64).map(|i| i << 33 | i).collect();
        let (mut ak, mut av, mut ck, mut cv) = (keys.clone(), rows.clone(), keys, rows);
        Sorter::auto().with_crossover(0).sort_pairs(&mut ak, &mut av).unwrap();
        Sorter::cpu().sort_pairs(&mut ck, &mut cv).unwrap();
        let same = ak.iter().zip(&ck).all(|(a, c)| a.to_bits() == c.to_bits()) && av == cv;
        assert!(same, "auto ({}) differs from cpu for u64 values at n={n}", Sorter::auto().describe());
    }
}

/// Keys alone, split pairs with `u32` and `u64` values, for every type of the key list with every
/// algorithm of the backend: a type added to the list is tested here without a line of its own.
fn every_listed_key_type(b: &Backend) {
    let lengths = &[0, 1, 2, 127, 128, 129, 1009, 4096];
    macro_rules! each_key_type {
        ({} $($t:ident, $v:ident, $c:literal, $np:literal, $class:ident;)*) => {$(
            sweep(b, lengths, PATTERNS, check_keys::<$t>);
            sweep(b, lengths, PATTERNS, check_pairs::<$t>);
            sweep(b, lengths, &[Pattern::Random, Pattern::FewDistinct], check_pairs_u64::<$t>);
        )*};
    }
    gpusort::key_types!(each_key_type! {});
}

/// Small enough to run under compute-sanitizer (memcheck, racecheck) in a minute: `ci/gpu.sh run`
/// with GPUSORT_SANITIZE=1 runs every test whose name starts with `sanitizer_` that way.
fn sanitizer_small_sweep(b: &Backend) {
    let lengths = &[2, 33, 1025, 4097, 20_011, 70_001];
    sweep(b, lengths, &[Pattern::Random, Pattern::FewDistinct], check_kvp);
    sweep(b, lengths, &[Pattern::Random], check_keys::<u32>);
}

/// Each case of the sweep runs once per backend (`name::cpu`, `name::cuda`): the CUDA ones are
/// reported as ignored on a machine without a GPU.
/// A case of the sweep, run once per backend.
type PerBackend = (&'static str, fn(&Backend));

fn main() -> std::process::ExitCode {
    let per_backend: [PerBackend; 13] = [
        ("every_listed_key_type", every_listed_key_type),
        ("kvp_edge_cases", kvp_edge_cases),
        ("kvp_large", kvp_large),
        ("u32_keys", u32_keys),
        ("i32_f32_u64_keys", i32_f32_u64_keys),
        ("split_pairs", split_pairs),
        ("split_pairs_u64_values", split_pairs_u64_values),
        ("other_value_types_move_bit_for_bit", other_value_types_move_bit_for_bit),
        ("small_keys", small_keys),
        ("small_keys_match_std", small_keys_match_std),
        ("floats_follow_total_cmp", floats_follow_total_cmp),
        (
            "mismatched_split_lengths_are_an_error_and_touch_nothing",
            mismatched_split_lengths_are_an_error_and_touch_nothing,
        ),
        ("sanitizer_small_sweep", sanitizer_small_sweep),
    ];
    let mut trials = vec![harness::cpu("auto_matches_the_cpu_backend_exactly", auto_matches_the_cpu_backend_exactly)];
    for (name, f) in per_backend {
        trials.push(harness::cpu(&format!("{name}::cpu"), move || f(&cpu_backend())));
        trials.push(harness::gpu(&format!("{name}::cuda"), move || f(&cuda_backend())));
    }
    harness::run(trials)
}
