//! Top-k on every backend: the result is the first k entries of the stable order of the directed
//! ordered bits (the oracle's `check::stable_order`), keys bit for bit with their input positions and
//! values, for every key type, both orders, k from 0 to n, and inputs where the k-th key has many
//! ties (all equal, few distinct, only the extremes); bad arguments are refused. Keys already on
//! the device (`top_k_device`) give the same result in device buffers.

mod common;

use common::*;
use gpusort::check::stable_positions;
use gpusort::{Order, SortError, Sorter};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// The positions of a stable sort by the directed bits: its first k are the expected top k.
fn reference<K: TestKey>(keys: &[K], order: Order) -> Vec<u64> {
    stable_positions(keys, order).into_iter().map(|at| at as u64).collect()
}

fn ks(n: usize) -> Vec<usize> {
    let mut ks = vec![0, 1, 2, 16, 1000, n / 2, n.saturating_sub(1), n];
    ks.retain(|&k| k <= n);
    ks.dedup();
    ks
}

fn case<K: TestKey>(s: &Sorter, n: usize, p: Pattern, order: Order, ks: &[usize]) {
    let keys: Vec<K> = bits(n, p, 43).into_iter().map(K::from_bits).collect();
    let values: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let s = s.clone().with_order(order);
    let sorted = reference(&keys, order);
    for &k in ks {
        let what = format!("{} n={n} k={k} {p:?} {order:?}", std::any::type_name::<K>());
        let want_at = &sorted[..k];
        let want_keys: Vec<u64> = want_at.iter().map(|&i| keys[i as usize].id()).collect();
        let top = s.top_k(&keys, k).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(top.keys.iter().map(|k| k.id()).eq(want_keys.iter().copied()), "{what}: keys");
        assert_eq!(top.indices, want_at, "{what}: indices");
        let (tk, tv) = s.top_k_pairs(&keys, &values, k).unwrap_or_else(|e| panic!("{what} (pairs): {e}"));
        assert!(tk.iter().map(|k| k.id()).eq(want_keys.iter().copied()), "{what}: pair keys");
        assert!(tv.iter().copied().eq(want_at.iter().map(|&i| values[i as usize])), "{what}: values");
        let rows: Vec<u64> = values.iter().map(|&v| (v as u64) << 32 | 0xFFFF_FFFF).collect();
        let (tk, tv) = s.top_k_pairs(&keys, &rows, k).unwrap_or_else(|e| panic!("{what} (u64 values): {e}"));
        assert!(tk.iter().map(|k| k.id()).eq(want_keys.iter().copied()), "{what}: keys beside u64 values");
        assert!(tv.iter().copied().eq(want_at.iter().map(|&i| rows[i as usize])), "{what}: u64 values");
    }
}

fn every_key_type_and_k(b: &Backend) {
    for order in ORDERS {
        // Around the selection's small-input cut (2^14) and its pieces.
        for &n in &[0, 1, 2, 3, 31, 257, 4097, 16383, 16384, 16385, 65537, 100_003] {
            for &p in PATTERNS.iter().filter(|&&p| b.runs(n, p)) {
                let ks = ks(n);
                case::<u32>(&b.sorter, n, p, order, &ks);
                case::<i32>(&b.sorter, n, p, order, &ks);
                case::<f32>(&b.sorter, n, p, order, &ks);
                case::<u64>(&b.sorter, n, p, order, &ks);
                case::<i64>(&b.sorter, n, p, order, &ks);
                case::<f64>(&b.sorter, n, p, order, &ks);
                case::<u16>(&b.sorter, n, p, order, &ks);
                case::<i16>(&b.sorter, n, p, order, &ks);
                case::<u8>(&b.sorter, n, p, order, &ks);
                case::<i8>(&b.sorter, n, p, order, &ks);
            }
        }
        // Ties stay in input order whatever algorithm the sorter was made with.
        for &a in &b.algorithms {
            let s = b.sorter.clone().with_algorithm(a);
            case::<u32>(&s, 65537, Pattern::FewDistinct, order, &[1000, 30000, 65537]);
            case::<f64>(&s, 65537, Pattern::FewDistinct, order, &[1000, 30000, 65537]);
        }
        let n = 2_000_003;
        case::<u32>(&b.sorter, n, Pattern::Random, order, &[16, 1000, 1 << 20]);
        if b.name == "cpu" {
            continue; // one case this large on the CPU backend (see `Backend::runs`)
        }
        case::<f32>(&b.sorter, n, Pattern::FewDistinct, order, &[16, 1000, 1 << 20]);
        case::<f64>(&b.sorter, n, Pattern::LowByte, order, &[1, 123_457]);
        // Small keys: many ties at every k, and the GPU's select of their widened bits.
        case::<i16>(&b.sorter, n, Pattern::Random, order, &[1, 1000, 1 << 20]);
        case::<u8>(&b.sorter, n, Pattern::Random, order, &[16, 123_457]);
    }
}

fn bad_arguments_are_refused(b: &Backend) {
    let keys = [5u32, 3, 9];
    let e = b.sorter.top_k(&keys, 4).expect_err("k above n");
    assert!(matches!(e, SortError::InvalidArgument(_)), "{}: {e}", b.name);
    let e = b.sorter.top_k_pairs(&keys, &[0, 1], 1).expect_err("two values for three keys");
    assert!(matches!(e, SortError::InvalidArgument(_)), "{}: {e}", b.name);
    let e = b.sorter.top_k_pairs(&keys, &[0, 1, 2], 5).expect_err("k above n (pairs)");
    assert!(matches!(e, SortError::InvalidArgument(_)), "{}: {e}", b.name);
}

/// `Sorter::auto()` selects small k on the host and larger k on the GPU: both sides of the cut.
fn auto_picks_either_side(_: &Backend) {
    let s = Sorter::auto();
    for order in ORDERS {
        for &n in &[16384, 100_003, 1 << 20] {
            let ks = [1, 16, 4096, 4097, 5000, n / 2, n];
            case::<u32>(&s, n, Pattern::Random, order, &ks);
            case::<f32>(&s, n, Pattern::FewDistinct, order, &ks);
            case::<i64>(&s, n, Pattern::Extremes, order, &ks);
        }
    }
}

/// Keys already on the device: the same expected result as from the host, in device buffers.
#[cfg(feature = "cuda")]
mod device {
    use super::*;
    use gpusort::cudarc::driver::DeviceRepr;
    use gpusort::{bf16, f16};

    fn device_case<K: TestKey + DeviceRepr>(s: &Sorter, n: usize, p: Pattern, order: Order, ks: &[usize]) {
        let keys: Vec<K> = bits(n, p, 47).into_iter().map(K::from_bits).collect();
        let s = s.clone().with_order(order);
        let stream = s.cuda_context().expect("a cuda sorter").new_stream().expect("a stream");
        let dev = if n == 0 { None } else { Some(stream.clone_htod(&keys).expect("upload")) };
        let sorted = reference(&keys, order);
        for &k in ks {
            let what = format!("device {} n={n} k={k} {p:?} {order:?}", std::any::type_name::<K>());
            let Some(dev) = dev.as_ref() else { continue };
            let top = s.top_k_device(dev, k, &stream).unwrap_or_else(|e| panic!("{what}: {e}"));
            let got_keys = if k == 0 { vec![] } else { stream.clone_dtoh(&top.keys).expect("download") };
            let got_at = if k == 0 { vec![] } else { stream.clone_dtoh(&top.indices).expect("download") };
            stream.synchronize().expect("sync");
            assert_eq!((top.keys.len(), top.indices.len()), (k, k), "{what}: lengths");
            assert_eq!(got_at, &sorted[..k], "{what}: indices");
            assert!(
                got_keys.iter().map(|k| k.id()).eq(sorted[..k].iter().map(|&i| keys[i as usize].id())),
                "{what}: keys"
            );
        }
    }

    pub fn every_key_type(b: &Backend) {
        for order in ORDERS {
            for &n in &[1, 2, 3, 31, 2047, 2048, 2049, 4095, 4096, 4097, 65537, 100_003] {
                for &p in PATTERNS {
                    let ks = ks(n);
                    device_case::<u32>(&b.sorter, n, p, order, &ks);
                    device_case::<i32>(&b.sorter, n, p, order, &ks);
                    device_case::<f32>(&b.sorter, n, p, order, &ks);
                    device_case::<u64>(&b.sorter, n, p, order, &ks);
                    device_case::<i64>(&b.sorter, n, p, order, &ks);
                    device_case::<f64>(&b.sorter, n, p, order, &ks);
                    device_case::<u16>(&b.sorter, n, p, order, &ks);
                    device_case::<i8>(&b.sorter, n, p, order, &ks);
                    device_case::<f16>(&b.sorter, n, p, order, &ks);
                    device_case::<bf16>(&b.sorter, n, p, order, &ks);
                }
            }
            let n = 3_000_017;
            device_case::<u32>(&b.sorter, n, Pattern::Random, order, &[1, 16, 1000, 1 << 20, n]);
            device_case::<f32>(&b.sorter, n, Pattern::FewDistinct, order, &[16, 1 << 20]);
            device_case::<u64>(&b.sorter, n, Pattern::Random, order, &[16, 123_457]);
        }
        let stream = b.sorter.cuda_context().expect("a cuda sorter").new_stream().expect("a stream");
        let dev = stream.clone_htod(&[5u32, 3, 9]).expect("upload");
        let e = b.sorter.top_k_device(&dev, 4, &stream).expect_err("k above n");
        assert!(matches!(e, SortError::InvalidArgument(_)), "{e}");
    }
}

fn main() -> std::process::ExitCode {
    type PerBackend = (&'static str, fn(&Backend));
    let per_backend: [PerBackend; 2] =
        [("every_key_type_and_k", every_key_type_and_k), ("bad_arguments_are_refused", bad_arguments_are_refused)];
    let mut trials = Vec::new();
    for (name, f) in per_backend {
        trials.push(harness::cpu(&format!("{name}::cpu"), move || f(&cpu_backend())));
        trials.push(harness::gpu(&format!("{name}::cuda"), move || f(&cuda_backend())));
    }
    trials.push(harness::gpu("auto_picks_either_side", || auto_picks_either_side(&cpu_backend())));
    #[cfg(feature = "cuda")]
    trials.push(harness::gpu("device_resident::cuda", || device::every_key_type(&cuda_backend())));
    harness::run(trials)
}
