//! `argsort`, `sort_by_key` and `sort_records` on every backend: the permutation sorts the keys,
//! is stable in both orders, and leaves the keys alone; records (typed, or rows of bytes) come
//! back in the stable order of their keys with every field intact.

mod common;

use common::*;
use gpusort::check::stable_positions;
use gpusort::{bf16, f16, Order, SortError, SortKey, Sorter};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Checks `p` against `keys`: a permutation under which the keys are in `order`, equal keys in
/// their input order.
fn check_permutation<K: TestKey>(keys: &[K], p: &[u64], order: Order, what: &str) {
    assert_eq!(p.len(), keys.len(), "{what}: length");
    let mut seen = vec![false; keys.len()];
    for &i in p {
        assert!((i as usize) < keys.len() && !seen[i as usize], "{what}: {i} is not from a permutation");
        seen[i as usize] = true;
    }
    let rank = |i: u64| order.directed(keys[i as usize].to_ordered_bits());
    for w in p.windows(2) {
        let (a, b) = (rank(w[0]), rank(w[1]));
        assert!(a < b || (a == b && w[0] < w[1]), "{what}: positions {} then {} are out of order", w[0], w[1]);
    }
}

fn argsort_case<K: TestKey>(s: &Sorter, n: usize, p: Pattern, order: Order) {
    let keys: Vec<K> = bits(n, p, 31).into_iter().map(K::from_bits).collect();
    let before: Vec<u64> = keys.iter().map(|k| k.id()).collect();
    let what = format!("{} argsort n={n} {p:?} {order:?}", std::any::type_name::<K>());
    let s = s.clone().with_order(order);
    let p32 = s.argsort(&keys).unwrap_or_else(|e| panic!("{what}: {e}"));
    check_permutation(&keys, &p32.iter().map(|&i| i as u64).collect::<Vec<_>>(), order, &what);
    let mut p64 = vec![u64::MAX; n];
    s.argsort_into(&keys, &mut p64).unwrap_or_else(|e| panic!("{what} (u64): {e}"));
    check_permutation(&keys, &p64, order, &format!("{what} (u64)"));
    assert!(keys.iter().map(|k| k.id()).eq(before), "{what}: the keys changed");
}

fn argsort_every_key_type(b: &Backend) {
    let lengths = [0, 1, 2, 3, 31, 255, 256, 257, 4097, 65537, 300_007];
    for order in ORDERS {
        for &n in &lengths {
            for &p in PATTERNS {
                // Every type of the key list, each through the same case.
                macro_rules! each_key_type {
                    ({} $($t:ident, $v:ident, $c:literal, $np:literal, $class:ident;)*) => {
                        $(argsort_case::<$t>(&b.sorter, n, p, order);)*
                    };
                }
                gpusort::key_types!(each_key_type! {});
            }
        }
        argsort_case::<u32>(&b.sorter, (1 << 20) + 3, Pattern::FewDistinct, order);
        argsort_case::<f64>(&b.sorter, (1 << 20) + 3, Pattern::Random, order);
        argsort_case::<i16>(&b.sorter, (1 << 20) + 3, Pattern::Random, order);
    }
}

fn argsort_refuses_a_wrong_output_length(b: &Backend) {
    let keys = [3u32, 1, 2];
    let mut out = [7u32; 2];
    let e = b.sorter.argsort_into(&keys, &mut out).expect_err("two slots for three keys");
    assert!(matches!(e, SortError::InvalidArgument(_)), "{}: {e}", b.name);
    assert_eq!(out, [7, 7], "{}: a refused argsort wrote its output", b.name);
}

/// A 32-byte record whose key is one of its fields; the other fields witness that each record
/// moved whole.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Row {
    id: u64,
    score: f64,
    tag: i32,
    check: u32,
    stamp: u64,
}

fn rows(n: usize, p: Pattern, seed: u64) -> Vec<Row> {
    bits(n, p, seed)
        .into_iter()
        .enumerate()
        .map(|(i, b)| Row {
            id: i as u64,
            score: f64::from_bits(b),
            tag: (b >> 32) as i32,
            check: (i as u32).wrapping_mul(0x9e37_79b9),
            stamp: b.rotate_left(9),
        })
        .collect()
}

/// The same records in the stable order of the key's directed ordered bits (the oracle's).
fn reference<K: SortKey>(v: &[Row], order: Order, key: impl Fn(&Row) -> K) -> Vec<Row> {
    let keys: Vec<K> = v.iter().map(key).collect();
    stable_positions(&keys, order).into_iter().map(|at| v[at]).collect()
}

fn same_bits(a: &[Row], b: &[Row]) -> bool {
    let bits = |r: &Row| (r.id, r.score.to_bits(), r.tag, r.check, r.stamp);
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| bits(x) == bits(y))
}

fn sort_by_key_records(b: &Backend) {
    for order in ORDERS {
        let s = b.sorter.clone().with_order(order);
        for &n in &[0, 1, 2, 7, 257, 4097, 65537, (1 << 20) + 1] {
            for &p in PATTERNS.iter().filter(|&&p| b.runs(n, p)) {
                let input = rows(n, p, 33);
                let what = format!("{} sort_by_key n={n} {p:?} {order:?}", b.name);
                let mut v = input.clone();
                s.sort_by_key(&mut v, |r| r.score).unwrap_or_else(|e| panic!("{what} (f64): {e}"));
                assert!(same_bits(&v, &reference(&input, order, |r| r.score)), "{what}: f64 key");
                let mut v = input.clone();
                s.sort_by_key(&mut v, |r| r.tag).unwrap_or_else(|e| panic!("{what} (i32): {e}"));
                assert!(same_bits(&v, &reference(&input, order, |r| r.tag)), "{what}: i32 key");
                let mut v = input.clone();
                s.sort_by_key(&mut v, |r| (r.stamp >> 60) as u32).unwrap_or_else(|e| panic!("{what} (u32): {e}"));
                assert!(same_bits(&v, &reference(&input, order, |r| (r.stamp >> 60) as u32)), "{what}: u32 key");
                // Small keys: few distinct values, so stability decides most of the order.
                let mut v = input.clone();
                s.sort_by_key(&mut v, |r| (r.tag >> 16) as i16).unwrap_or_else(|e| panic!("{what} (i16): {e}"));
                assert!(same_bits(&v, &reference(&input, order, |r| (r.tag >> 16) as i16)), "{what}: i16 key");
                let mut v = input.clone();
                s.sort_by_key(&mut v, |r| (r.stamp >> 58) as u8).unwrap_or_else(|e| panic!("{what} (u8): {e}"));
                assert!(same_bits(&v, &reference(&input, order, |r| (r.stamp >> 58) as u8)), "{what}: u8 key");
            }
        }
    }
}

/// Records put in order on the device (`gpusort::hooks::set_records_on_device_from` lowers the
/// threshold to every input): each width the gather kernel moves (32-byte `Row`s as 16-byte
/// units, 24-byte records as 8-byte units, 12-byte ones as 4-byte units), both orders, against
/// the standard library's stable sort. Records that are not whole words (`[u8; 9]`) take the
/// host path whatever the threshold. On the CPU backend the hook changes nothing.
fn sort_by_key_on_the_device(b: &Backend) {
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Wide {
        key: f32,
        id: u32,
        pay: [u64; 2],
    }
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Narrow {
        key: u16,
        id: u32,
        tail: u32,
    }
    // The hooks exist with the `cuda` feature only; without it there is no device path anyway.
    #[cfg(feature = "cuda")]
    gpusort::hooks::set_records_on_device_from(1);
    for order in ORDERS {
        let s = b.sorter.clone().with_order(order);
        // The CPU backend ignores the hook: its share of this test stays short.
        let sizes: &[usize] = if b.name == "cpu" { &[2, 3, 1000] } else { &[2, 3, 1000, 65537, (1 << 20) + 3] };
        for &n in sizes {
            for &p in PATTERNS {
                let what = format!("{} sort_by_key on the device n={n} {p:?} {order:?}", b.name);
                let input = rows(n, p, 35);
                let mut v = input.clone();
                s.sort_by_key(&mut v, |r| r.stamp).unwrap_or_else(|e| panic!("{what} (Row): {e}"));
                assert!(same_bits(&v, &reference(&input, order, |r| r.stamp)), "{what}: 32-byte rows");
                let wide: Vec<Wide> = input
                    .iter()
                    .map(|r| Wide { key: f32::from_bits(r.check), id: r.id as u32, pay: [r.stamp, !r.stamp] })
                    .collect();
                let mut v = wide.clone();
                s.sort_by_key(&mut v, |r| r.key).unwrap_or_else(|e| panic!("{what} (24 bytes): {e}"));
                let mut expect = wide.clone();
                expect.sort_by_key(|r| order.directed(r.key.to_ordered_bits() as u64));
                let bits = |v: &[Wide]| v.iter().map(|r| (r.key.to_bits(), r.id, r.pay)).collect::<Vec<_>>();
                assert!(bits(&v) == bits(&expect), "{what}: 24-byte records");
                let narrow: Vec<Narrow> =
                    input.iter().map(|r| Narrow { key: r.tag as u16, id: r.id as u32, tail: r.check }).collect();
                let mut v = narrow.clone();
                s.sort_by_key(&mut v, |r| r.key).unwrap_or_else(|e| panic!("{what} (12 bytes): {e}"));
                let mut expect = narrow.clone();
                expect.sort_by_key(|r| order.directed(r.key as u64));
                assert!(v == expect, "{what}: 12-byte records");
                let bytes: Vec<[u8; 9]> =
                    input.iter().map(|r| std::array::from_fn(|i| (r.stamp >> (i * 7)) as u8)).collect();
                let mut v = bytes.clone();
                s.sort_by_key(&mut v, |r| r[0]).unwrap_or_else(|e| panic!("{what} ([u8; 9]): {e}"));
                let mut expect = bytes.clone();
                expect.sort_by_key(|r| order.directed(r[0] as u64));
                assert!(v == expect, "{what}: 9-byte records");
            }
        }
    }
    #[cfg(feature = "cuda")]
    gpusort::hooks::set_records_on_device_from(0);
}

/// A table of rows of `size` bytes, each holding the key `keys[i]` at byte `offset` in native
/// byte order and, around it, bytes made from `i` (so a row that did not move whole shows).
fn table<K: TestKey>(keys: &[K], size: usize, offset: usize) -> Vec<u8> {
    let width = size_of::<K>();
    let mut t = Vec::with_capacity(keys.len() * size);
    for (i, k) in keys.iter().enumerate() {
        let stamp = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes();
        let row = t.len();
        t.extend((0..size).map(|b| stamp[b % 8] ^ b as u8));
        // SAFETY: `width` bytes of a plain integer or float key.
        let bytes = unsafe { std::slice::from_raw_parts((k as *const K).cast::<u8>(), width) };
        t[row + offset..row + offset + width].copy_from_slice(bytes);
    }
    t
}

/// The table's rows in the stable order of their keys.
fn table_reference<K: TestKey>(keys: &[K], t: &[u8], size: usize, order: Order) -> Vec<u8> {
    let at = stable_positions(keys, order);
    at.iter().flat_map(|&i| t[i * size..(i + 1) * size].iter().copied()).collect()
}

fn records_case<K: TestKey>(s: &Sorter, n: usize, p: Pattern, layout: (usize, usize), misalign: bool, what: &str) {
    let (size, offset) = layout;
    let keys: Vec<K> = bits(n, p, 37).into_iter().map(K::from_bits).collect();
    let input = table(&keys, size, offset);
    // One byte in front moves the rows off a 4-byte boundary: the host path whatever the size.
    let mut buf = vec![0xa5u8; input.len() + misalign as usize];
    let t = &mut buf[misalign as usize..];
    t.copy_from_slice(&input);
    let what = format!("{what} sort_records::<{}> {size}-byte rows, key at {offset}", std::any::type_name::<K>());
    s.sort_records::<K>(t, size, offset).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(*t == table_reference(&keys, &input, size, s.order()), "{what}: rows out of order or changed");
}

/// Tables of rows sorted by a field: aligned rows of whole words (the device path's shape),
/// packed rows with unaligned keys, a size the gather has no fixed copy for, one-byte rows.
fn sort_records_tables(b: &Backend) {
    for order in ORDERS {
        let s = b.sorter.clone().with_order(order);
        for &n in &[0, 1, 2, 7, 257, 4097, 65537] {
            for &p in PATTERNS {
                let what = format!("{} n={n} {p:?} {order:?}", b.name);
                records_case::<f64>(&s, n, p, (32, 8), false, &what);
                records_case::<i64>(&s, n, p, (13, 4), false, &what);
                records_case::<u16>(&s, n, p, (12, 10), false, &what);
                records_case::<f32>(&s, n, p, (20, 1), true, &what);
                records_case::<u32>(&s, n, p, (4, 0), false, &what);
                records_case::<u8>(&s, n, p, (1, 0), false, &what);
                records_case::<i8>(&s, n, p, (3, 2), false, &what);
            }
        }
    }
}

/// Tables put in order on the device (the hook lowers the threshold to every input): rows of
/// 32, 24 and 12 bytes (each unit the gather kernel moves), 64-bit and 16-bit keys; a
/// misaligned table of the same shape takes the host path. The CPU backend ignores the hook.
fn sort_records_on_the_device(b: &Backend) {
    #[cfg(feature = "cuda")]
    gpusort::hooks::set_records_on_device_from(1);
    let sizes: &[usize] = if b.name == "cpu" { &[2, 1000] } else { &[2, 3, 1000, 65537, (1 << 20) + 3] };
    for order in ORDERS {
        let s = b.sorter.clone().with_order(order);
        for &n in sizes {
            for &p in PATTERNS {
                let what = format!("{} on the device n={n} {p:?} {order:?}", b.name);
                records_case::<u64>(&s, n, p, (32, 24), false, &what);
                records_case::<f32>(&s, n, p, (24, 4), false, &what);
                records_case::<i16>(&s, n, p, (12, 6), false, &what);
                records_case::<u64>(&s, n, p, (32, 24), true, &what);
            }
        }
    }
    #[cfg(feature = "cuda")]
    gpusort::hooks::set_records_on_device_from(0);
}

fn sort_records_refuses_bad_layouts(b: &Backend) {
    let mut t: Vec<u8> = (0..24u8).rev().collect();
    let before = t.clone();
    for (size, offset, why) in [(0, 0, "record_size is 0"), (8, 5, "runs past the end"), (5, 0, "whole number")] {
        let e = b.sorter.sort_records::<u32>(&mut t, size, offset).expect_err(why);
        assert!(matches!(&e, SortError::InvalidArgument(m) if m.contains(why)), "{}: {e}", b.name);
        assert_eq!(t, before, "{}: a refused sort_records wrote the rows", b.name);
    }
    let e = b.sorter.sort_records::<u64>(&mut [], 4, 0).expect_err("an 8-byte key in 4-byte rows, no rows");
    assert!(matches!(e, SortError::InvalidArgument(_)), "{}: {e}", b.name);
}

fn main() -> std::process::ExitCode {
    type PerBackend = (&'static str, fn(&Backend));
    let per_backend: [PerBackend; 7] = [
        ("argsort_every_key_type", argsort_every_key_type),
        ("argsort_refuses_a_wrong_output_length", argsort_refuses_a_wrong_output_length),
        ("sort_by_key_records", sort_by_key_records),
        ("sort_by_key_on_the_device", sort_by_key_on_the_device),
        ("sort_records_tables", sort_records_tables),
        ("sort_records_on_the_device", sort_records_on_the_device),
        ("sort_records_refuses_bad_layouts", sort_records_refuses_bad_layouts),
    ];
    let mut trials = Vec::new();
    for (name, f) in per_backend {
        trials.push(harness::cpu(&format!("{name}::cpu"), move || f(&cpu_backend())));
        trials.push(harness::gpu(&format!("{name}::cuda"), move || f(&cuda_backend())));
    }
    harness::run(trials)
}
