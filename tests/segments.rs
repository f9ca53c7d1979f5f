//! Segmented sorts on every backend: each segment comes out in the stable order of its own keys
//! (the oracle's `check::stable_order`), keys bit for bit and values with their keys, for every key
//! type, both orders, and segment layouts from one segment to thousands of tiny and empty ones;
//! bad offsets are refused before anything is written. Keys already on the device
//! (`sort_segments_device`) give the same result.

mod common;

use common::*;
use gpusort::check::stable_positions;
use gpusort::{Order, SortError, Sorter};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Segment layouts over n items: one segment, equal rows, random lengths from 0 to `max` (empty
/// segments included; the longest make the GPU sort segments of many radix tiles each), and a few
/// large segments with singles and empties between them.
fn layouts(n: usize, seed: u64) -> Vec<(&'static str, Vec<usize>)> {
    let mut out = vec![("one", vec![0, n])];
    for cols in [1, 7, 64, 1000] {
        if n.is_multiple_of(cols) {
            out.push(("rows", (0..=n / cols).map(|r| r * cols).collect()));
        }
    }
    for max in [3, 40, 5000, 200_000] {
        let mut r = Rng(seed ^ max as u64);
        let mut o = vec![0];
        while *o.last().unwrap() < n {
            let len = (r.next() % (max as u64 + 1)) as usize;
            o.push((o.last().unwrap() + len).min(n));
        }
        out.push(("random", o));
    }
    if n >= 2 {
        // As many segments as keys, one of them empty: one holds two keys.
        out.push(("empty, pair, singles", [0, 0].into_iter().chain(2..=n).collect()));
    }
    let q = n / 3;
    if q > 0 {
        out.push(("mixed", vec![0, 0, q, q, q + 1, 2 * q, 2 * q + 1, 2 * q + 1, n, n]));
    }
    out
}

/// The expected result: each segment sorted stably by its own on the directed ordered bits. The
/// stable order of all the keys, dealt out to the segments in that order, sorts each of them.
fn reference<K: TestKey, V: Copy>(keys: &[K], values: &[V], offsets: &[usize], order: Order) -> (Vec<u64>, Vec<V>) {
    let mut segment = vec![usize::MAX; keys.len()];
    for (i, w) in offsets.windows(2).enumerate() {
        segment[w[0]..w[1]].fill(i);
    }
    let mut next = offsets.to_vec();
    let mut at: Vec<usize> = (0..keys.len()).collect();
    for p in stable_positions(keys, order) {
        if let Some(cursor) = next.get_mut(segment[p]) {
            at[*cursor] = p;
            *cursor += 1;
        }
    }
    (at.iter().map(|&p| keys[p].id()).collect(), at.iter().map(|&p| values[p]).collect())
}

fn case<K: TestKey>(s: &Sorter, n: usize, p: Pattern, order: Order) {
    let keys: Vec<K> = bits(n, p, 41).into_iter().map(K::from_bits).collect();
    let values: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let s = s.clone().with_order(order);
    for (layout, offsets) in layouts(n, n as u64) {
        let what =
            format!("{} n={n} {p:?} {order:?} {layout} ({} segments)", std::any::type_name::<K>(), offsets.len() - 1);
        let (want_keys, want_values) = reference(&keys, &values, &offsets, order);
        let (mut k, mut v) = (keys.clone(), values.clone());
        s.sort_segments(&mut k, &mut v, &offsets).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(k.iter().map(|k| k.id()).eq(want_keys.iter().copied()), "{what}: keys");
        assert_eq!(v, want_values, "{what}: values");
        let mut k = keys.clone();
        s.sort_segments_keys(&mut k, &offsets).unwrap_or_else(|e| panic!("{what} (keys only): {e}"));
        assert!(k.iter().map(|k| k.id()).eq(want_keys.iter().copied()), "{what}: keys only");
    }
}

/// `case` with u64 values (row ids past 2^32, unique): they take the route of 64-bit keys, for
/// every key type.
fn case_u64_values<K: TestKey>(s: &Sorter, n: usize, p: Pattern, order: Order) {
    let keys: Vec<K> = bits(n, p, 42).into_iter().map(K::from_bits).collect();
    let values: Vec<u64> = (0..n as u64).map(|i| (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
    let s = s.clone().with_order(order);
    for (layout, offsets) in layouts(n, n as u64) {
        let what = format!("{} with u64 values n={n} {p:?} {order:?} {layout}", std::any::type_name::<K>());
        let (want_keys, want_values) = reference(&keys, &values, &offsets, order);
        let (mut k, mut v) = (keys.clone(), values.clone());
        s.sort_segments(&mut k, &mut v, &offsets).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(k.iter().map(|k| k.id()).eq(want_keys.iter().copied()), "{what}: keys");
        assert_eq!(v, want_values, "{what}: values");
    }
}

fn u64_values(b: &Backend) {
    for order in ORDERS {
        for &n in &[0, 1, 2, 3, 31, 256, 257, 4097, 65537] {
            let patterns =
                [Pattern::Random, Pattern::AllEqual, Pattern::FewDistinct, Pattern::Sorted, Pattern::Reverse];
            for &p in patterns.iter().filter(|&&p| b.runs(n, p)) {
                case_u64_values::<u32>(&b.sorter, n, p, order);
                case_u64_values::<i32>(&b.sorter, n, p, order);
                case_u64_values::<f32>(&b.sorter, n, p, order);
                case_u64_values::<u64>(&b.sorter, n, p, order);
                case_u64_values::<i64>(&b.sorter, n, p, order);
                case_u64_values::<f64>(&b.sorter, n, p, order);
            }
        }
    }
    let (mut k, mut v) = (vec![3u32, 1, 2], vec![0u64, 1]);
    let e = b.sorter.sort_segments(&mut k, &mut v, &[0, 3]).expect_err("two u64 values for three keys");
    assert!(matches!(e, SortError::InvalidArgument(_)), "{e}");
    let mut v = vec![0u64, 1, 2];
    let e = b.sorter.sort_segments(&mut k, &mut v, &[0, 2]).expect_err("offsets short of the keys");
    assert!(matches!(e, SortError::InvalidArgument(_)), "{e}");
    assert_eq!((k, v), (vec![3, 1, 2], vec![0, 1, 2]));
}

fn every_key_type_and_layout(b: &Backend) {
    for order in ORDERS {
        for &n in &[0, 1, 2, 3, 31, 256, 257, 4097, 65537] {
            for &p in PATTERNS.iter().filter(|&&p| b.runs(n, p)) {
                case::<u32>(&b.sorter, n, p, order);
                case::<i32>(&b.sorter, n, p, order);
                case::<f32>(&b.sorter, n, p, order);
                case::<u64>(&b.sorter, n, p, order);
                case::<i64>(&b.sorter, n, p, order);
                case::<f64>(&b.sorter, n, p, order);
                case::<u16>(&b.sorter, n, p, order);
                case::<i16>(&b.sorter, n, p, order);
                case::<u8>(&b.sorter, n, p, order);
                case::<i8>(&b.sorter, n, p, order);
            }
        }
        // Stable whatever algorithm the sorter was made with.
        for &a in &b.algorithms {
            let s = b.sorter.clone().with_algorithm(a);
            case::<u32>(&s, 65537, Pattern::FewDistinct, order);
            case::<i64>(&s, 65537, Pattern::FewDistinct, order);
        }
        case::<u32>(&b.sorter, 1_000_000, Pattern::Random, order);
        if b.name == "cpu" {
            continue; // one case this large on the CPU backend (see `Backend::runs`)
        }
        case::<f64>(&b.sorter, 1_000_000, Pattern::FewDistinct, order);
        case::<i16>(&b.sorter, 1_000_000, Pattern::Random, order);
    }
}

fn bad_offsets_are_refused_untouched(b: &Backend) {
    let keys0 = [5u64, 3, 9, 1];
    let bad: [&[usize]; 5] = [&[], &[1, 4], &[0, 3], &[0, 3, 2, 4], &[0, 5]];
    for offsets in bad {
        let (mut k, mut v) = (keys0, [0u32, 1, 2, 3]);
        let e = b.sorter.sort_segments(&mut k, &mut v, offsets).expect_err("bad offsets");
        assert!(matches!(e, SortError::InvalidArgument(_)), "{} {offsets:?}: {e}", b.name);
        assert_eq!((k, v), (keys0, [0, 1, 2, 3]), "{} {offsets:?}: a refused sort wrote", b.name);
        let mut k = keys0.map(|x| x as f32);
        assert!(b.sorter.sort_segments_keys(&mut k, offsets).is_err(), "{} {offsets:?}: keys only", b.name);
        assert_eq!(k, keys0.map(|x| x as f32));
    }
    let (mut k, mut v) = ([2u32, 1, 0], [0u32; 2]);
    let e = b.sorter.sort_segments(&mut k, &mut v, &[0, 3]).expect_err("two values for three keys");
    assert!(matches!(e, SortError::InvalidArgument(_)), "{}: {e}", b.name);
    assert_eq!(k, [2, 1, 0]);
}

/// Keys already on the device: the same expected result, for every key type, and bad offsets
/// leave the device data untouched.
#[cfg(feature = "cuda")]
mod device {
    use super::*;
    use gpusort::cudarc::driver::{CudaStream, DeviceRepr};
    use gpusort::{bf16, f16};
    use std::sync::Arc;

    fn device_case<K: TestKey + DeviceRepr>(s: &Sorter, stream: &Arc<CudaStream>, n: usize, p: Pattern, order: Order) {
        let mut all = layouts(n, n as u64 ^ 5);
        if n >= 64 * 1024 {
            all.extend(network_rows(n));
        }
        layouts_case::<K>(s, stream, n, p, order, all);
    }

    /// Rows of each network kernel's size class: lanes for 8, 16, 32, 64, 128 and 256 keys, one
    /// block of 512, 1024 and 2048 keys.
    fn network_rows(n: usize) -> Vec<(&'static str, Vec<usize>)> {
        let rows = [
            ("rows of 5", 5),
            ("rows of 16", 16),
            ("rows of 31", 31),
            ("rows of 64", 64),
            ("rows of 100", 100),
            ("rows of 256", 256),
            ("rows of 300", 300),
            ("rows of 1000", 1000),
            ("rows of 2048", 2048),
        ];
        let cut = |len: usize| (0..=n / len).map(|r| r * len).chain((!n.is_multiple_of(len)).then_some(n)).collect();
        rows.into_iter().map(|(name, len)| (name, cut(len))).collect()
    }

    /// Pairs and keys alone, sorted on the device with each layout, against `reference`.
    fn layouts_case<K: TestKey + DeviceRepr>(
        s: &Sorter,
        stream: &Arc<CudaStream>,
        n: usize,
        p: Pattern,
        order: Order,
        all: Vec<(&'static str, Vec<usize>)>,
    ) {
        let keys: Vec<K> = bits(n, p, 53).into_iter().map(K::from_bits).collect();
        let values: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
        let s = s.clone().with_order(order);
        for (layout, offsets) in all {
            let what = format!("device {} n={n} {p:?} {order:?} {layout}", std::any::type_name::<K>());
            let (want_keys, want_values) = reference(&keys, &values, &offsets, order);
            let o: Vec<u64> = offsets.iter().map(|&x| x as u64).collect();
            let d_offsets = stream.clone_htod(&o).expect("upload");
            let (mut dk, mut dv) =
                (stream.clone_htod(&keys).expect("upload"), stream.clone_htod(&values).expect("upload"));
            s.sort_segments_device(&mut dk, &mut dv, &d_offsets, stream).unwrap_or_else(|e| panic!("{what}: {e}"));
            let (k, v) = (stream.clone_dtoh(&dk).expect("download"), stream.clone_dtoh(&dv).expect("download"));
            assert!(k.iter().map(|k| k.id()).eq(want_keys.iter().copied()), "{what}: keys");
            assert_eq!(v, want_values, "{what}: values");
            let mut dk = stream.clone_htod(&keys).expect("upload");
            s.sort_segments_keys_device(&mut dk, &d_offsets, stream).unwrap_or_else(|e| panic!("{what} (keys): {e}"));
            let k = stream.clone_dtoh(&dk).expect("download");
            assert!(k.iter().map(|k| k.id()).eq(want_keys.iter().copied()), "{what}: keys only");
        }
    }

    /// Offsets that do not cut the 4 keys of `keys0` are refused, keys and values untouched.
    fn bad_offsets_leave_the_data<K: TestKey + DeviceRepr>(s: &Sorter, stream: &Arc<CudaStream>, keys0: [K; 4]) {
        let bad: [&[u64]; 4] = [&[1, 4], &[0, 3], &[0, 3, 2, 4], &[0, 5]];
        let ids = keys0.map(|k| k.id());
        for offsets in bad {
            let what = format!("{} {offsets:?}", std::any::type_name::<K>());
            let (mut k, mut v) = (stream.clone_htod(&keys0).unwrap(), stream.clone_htod(&[0u32, 1, 2, 3]).unwrap());
            let o = stream.clone_htod(offsets).unwrap();
            let e = s.sort_segments_device(&mut k, &mut v, &o, stream).expect_err("bad offsets");
            assert!(matches!(e, SortError::InvalidArgument(_)), "{what}: {e}");
            let e = s.sort_segments_keys_device(&mut k, &o, stream).expect_err("bad offsets, keys only");
            assert!(matches!(e, SortError::InvalidArgument(_)), "{what} (keys only): {e}");
            assert!(stream.clone_dtoh(&k).unwrap().iter().map(|k| k.id()).eq(ids), "{what}: a refused sort wrote");
            assert_eq!(stream.clone_dtoh(&v).unwrap(), [0, 1, 2, 3], "{what}: a refused sort wrote");
        }
    }

    /// Small enough for compute-sanitizer (memcheck, racecheck; `ci/gpu.sh run` with
    /// GPUSORT_SANITIZE=1): every network kernel, 32- and 64-bit keys, with and without values.
    pub fn sanitizer_networks(b: &Backend) {
        let stream = b.sorter.cuda_context().expect("a cuda sorter").new_stream().expect("a stream");
        let n = 8 * 1024 + 3;
        layouts_case::<u32>(&b.sorter, &stream, n, Pattern::FewDistinct, Order::Descending, network_rows(n));
        layouts_case::<f64>(&b.sorter, &stream, n, Pattern::FewDistinct, Order::Ascending, network_rows(n));
        layouts_case::<i64>(&b.sorter, &stream, n, Pattern::Random, Order::Descending, network_rows(n));
    }

    pub fn every_device_key_type(b: &Backend) {
        let stream = b.sorter.cuda_context().expect("a cuda sorter").new_stream().expect("a stream");
        for order in ORDERS {
            for &n in &[1, 2, 3, 31, 256, 257, 4097, 65537] {
                for &p in PATTERNS {
                    device_case::<u32>(&b.sorter, &stream, n, p, order);
                    device_case::<i32>(&b.sorter, &stream, n, p, order);
                    device_case::<f32>(&b.sorter, &stream, n, p, order);
                    device_case::<u64>(&b.sorter, &stream, n, p, order);
                    device_case::<i64>(&b.sorter, &stream, n, p, order);
                    device_case::<f64>(&b.sorter, &stream, n, p, order);
                    device_case::<u16>(&b.sorter, &stream, n, p, order);
                    device_case::<i8>(&b.sorter, &stream, n, p, order);
                    device_case::<f16>(&b.sorter, &stream, n, p, order);
                    device_case::<bf16>(&b.sorter, &stream, n, p, order);
                }
            }
            device_case::<u32>(&b.sorter, &stream, 1_000_003, Pattern::Random, order);
            device_case::<f32>(&b.sorter, &stream, 1_000_003, Pattern::FewDistinct, order);
            device_case::<i64>(&b.sorter, &stream, 1_000_003, Pattern::Random, order);
            device_case::<f64>(&b.sorter, &stream, 1_000_003, Pattern::FewDistinct, order);
        }
        bad_offsets_leave_the_data(&b.sorter, &stream, [5u32, 3, 9, 1]);
        bad_offsets_leave_the_data(&b.sorter, &stream, [5u64 << 40, 3, 9, 1]);
        bad_offsets_leave_the_data(&b.sorter, &stream, [-5i64, 3, i64::MIN, 1]);
        bad_offsets_leave_the_data(&b.sorter, &stream, [f64::NAN, -0.0, 9.5, f64::NEG_INFINITY]);
        bad_offsets_leave_the_data(&b.sorter, &stream, [5u16, 3, 9, 1]);
        bad_offsets_leave_the_data(&b.sorter, &stream, [-5i8, 3, 9, 1]);
    }
}

fn main() -> std::process::ExitCode {
    type PerBackend = (&'static str, fn(&Backend));
    let per_backend: [PerBackend; 3] = [
        ("every_key_type_and_layout", every_key_type_and_layout),
        ("u64_values", u64_values),
        ("bad_offsets_are_refused_untouched", bad_offsets_are_refused_untouched),
    ];
    let mut trials = Vec::new();
    for (name, f) in per_backend {
        trials.push(harness::cpu(&format!("{name}::cpu"), move || f(&cpu_backend())));
        trials.push(harness::gpu(&format!("{name}::cuda"), move || f(&cuda_backend())));
    }
    #[cfg(feature = "cuda")]
    trials.push(harness::gpu("device_resident::cuda", || device::every_device_key_type(&cuda_backend())));
    #[cfg(feature = "cuda")]
    trials.push(harness::gpu("sanitizer_networks::cuda", || device::sanitizer_networks(&cuda_backend())));
    harness::run(trials)
}
