//! Argsort on the GPU beyond what `tests/records.rs` checks on every backend: the device-resident
//! entry (`argsort_device`, both index widths), page-locked keys and output, out of core, and
//! every step of the host pipeline failing in turn. Every result must equal the CPU backend's
//! (the stable permutation is unique); a failed argsort leaves its output as it was or complete.

mod common;

use common::*;
use gpusort::cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};
use gpusort::hooks::{self, Step, STEPS};
use gpusort::{bf16, f16, ArgIndex, Order, SortError, Sorter};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

fn cpu_argsort<K: TestKey>(keys: &[K], order: Order) -> Vec<u64> {
    let p = Sorter::cpu().with_order(order).argsort(keys).expect("CPU argsort");
    p.into_iter().map(u64::from).collect()
}

fn device_case<K: TestKey + DeviceRepr + ValidAsZeroBits, I: ArgIndex + DeviceRepr + ValidAsZeroBits>(
    s: &Sorter,
    n: usize,
    p: Pattern,
    order: Order,
) {
    let keys: Vec<K> = bits(n, p, 41).into_iter().map(K::from_bits).collect();
    let what = format!(
        "{} -> {} device argsort n={n} {p:?} {order:?}",
        std::any::type_name::<K>(),
        std::any::type_name::<I>()
    );
    let stream = s.cuda_context().expect("a CUDA sorter").default_stream();
    let dk = stream.clone_htod(&keys).expect("upload");
    let mut out: CudaSlice<I> = stream.alloc_zeros(n).expect("alloc");
    s.clone().with_order(order).argsort_device(&dk, &mut out, &stream).unwrap_or_else(|e| panic!("{what}: {e}"));
    let got: Vec<u64> = stream.clone_dtoh(&out).expect("download").into_iter().map(|i: I| i.position()).collect();
    assert!(got == cpu_argsort::<K>(&keys, order), "{what}: not the CPU's permutation");
    let after: Vec<K> = stream.clone_dtoh(&dk).expect("download");
    assert!(after.iter().map(|k| k.id()).eq(keys.iter().map(|k| k.id())), "{what}: the keys changed");
}

fn device_argsort_matches_the_cpu() {
    let Some(s) = cuda_or_skip("device argsort") else { return };
    // (No empty case: the driver allocates no empty device buffer to pass.)
    let lengths = [1, 2, 3, 31, 255, 256, 257, 4097, 65537, 300_007, (1 << 20) + 3];
    for order in ORDERS {
        for &n in &lengths {
            for &p in PATTERNS {
                device_case::<u32, u32>(&s, n, p, order);
                device_case::<f32, u64>(&s, n, p, order);
                device_case::<i64, u64>(&s, n, p, order);
                device_case::<f64, u32>(&s, n, p, order);
            }
        }
        for n in [65537, 300_007] {
            device_case::<i32, u64>(&s, n, Pattern::Random, order);
            device_case::<u64, u32>(&s, n, Pattern::FewDistinct, order);
        }
        for &n in &lengths {
            for &p in PATTERNS {
                device_case::<u16, u32>(&s, n, p, order);
                device_case::<i8, u64>(&s, n, p, order);
                device_case::<f16, u64>(&s, n, p, order);
                device_case::<bf16, u32>(&s, n, p, order);
                device_case::<u8, u32>(&s, n, p, order);
                device_case::<i16, u64>(&s, n, p, order);
            }
        }
    }
}

fn device_argsort_refuses_bad_arguments() {
    let Some(s) = cuda_or_skip("device argsort arguments") else { return };
    let stream = s.cuda_context().expect("a CUDA sorter").default_stream();
    let keys = stream.clone_htod(&[3u32, 1, 2]).expect("upload");
    let mut short = stream.clone_htod(&[7u64; 2]).expect("upload");
    let e = s.argsort_device(&keys, &mut short, &stream).expect_err("two slots for three keys");
    assert!(matches!(e, SortError::InvalidArgument(_)), "{e}");
    assert_eq!(stream.clone_dtoh(&short).expect("download"), [7, 7], "a refused argsort wrote its output");
}

fn page_locked_keys_and_output() {
    let Some(s) = cuda_or_skip("page-locked argsort") else { return };
    // From the size where page-locked data goes in place (hooks lower it), and below it.
    for from in [1, usize::MAX] {
        hooks::set_in_place_from(from);
        for order in ORDERS {
            let n = 300_007;
            let keys: Vec<f32> =
                bits(n, Pattern::FewDistinct, 43).into_iter().map(<f32 as TestKey>::from_bits).collect();
            let pinned = page_locked(&s, &keys);
            let pinned_keys = &pinned.as_slice().expect("view")[..n];
            let mut out = page_locked(&s, &vec![u64::MAX; n]);
            let out = &mut out.as_mut_slice().expect("view")[..n];
            let before = hooks::in_place_sorts();
            s.clone().with_order(order).argsort_into(pinned_keys, out).expect("argsort");
            assert_eq!(hooks::in_place_sorts() - before, usize::from(from == 1), "in place from {from}");
            assert!(out.iter().copied().eq(cpu_argsort::<f32>(&keys, order)), "page-locked {order:?} from {from}");
        }
    }
    hooks::set_in_place_from(0);
}

fn out_of_core_matches_the_cpu() {
    let Some(base) = cuda_or_skip("out-of-core argsort") else { return };
    let n: usize = 1_000_003;
    for runs in [3, 7] {
        let s = base.clone().with_device_memory_limit(radix_limit_for_runs::<u64>(n.div_ceil(runs)));
        for order in ORDERS {
            let narrow: Vec<i32> = bits(n, Pattern::Random, 44).into_iter().map(<i32 as TestKey>::from_bits).collect();
            let wide: Vec<f64> =
                bits(n, Pattern::FewDistinct, 45).into_iter().map(<f64 as TestKey>::from_bits).collect();
            let mut p64 = vec![0u64; n];
            s.clone().with_order(order).argsort_into(&narrow, &mut p64).expect("i32");
            assert!(p64 == cpu_argsort::<i32>(&narrow, order), "i32 {runs} runs {order:?}");
            let p32 = s.clone().with_order(order).argsort(&wide).expect("f64");
            assert!(p32.iter().map(|&p| p as u64).eq(cpu_argsort::<f64>(&wide, order)), "f64 {runs} runs");
        }
    }
}

/// The host argsort with the `nth` `step` failing: `Err` with `out` as it was or complete, or
/// `Ok` with the right result. False once `nth` is past the last occurrence.
fn failure_case<K: TestKey>(s: &Sorter, what: &str, step: Step, nth: usize, keys: &[K], want: &[u64]) -> bool {
    let earlier: Vec<u64> = (0..keys.len() as u64).map(|i| i.wrapping_mul(0x9e37_79b9) | 1 << 63).collect();
    let mut out = earlier.clone();
    hooks::inject(step, nth);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.argsort_into(keys, &mut out)));
    let fired = hooks::clear();
    let r = r.unwrap_or_else(|_| panic!("{what}: {step:?} #{nth} panicked"));
    match (fired, r) {
        (true, Err(_)) => assert!(out == earlier || out == want, "{what}: {step:?} #{nth} left a mix in the output"),
        (_, Ok(())) => assert!(out == want, "{what}: {step:?} #{nth}: wrong result"),
        (false, Err(e)) => panic!("{what}: {step:?} #{nth} did not fire, yet the argsort failed: {e}"),
    }
    fired
}

/// Every occurrence of every step failing in turn, for an argsort of `keys` with `s`.
fn every_step_of<K: TestKey>(s: &Sorter, what: &str, keys: &[K], order: Order) {
    let want = cpu_argsort(keys, order);
    for step in STEPS {
        let mut nth = 0;
        while failure_case(s, what, step, nth, keys, &want) {
            nth += 1;
            assert!(nth < 10_000, "{what}: {step:?} keeps firing");
        }
        let expect_some = matches!(step, Step::DeviceAlloc | Step::Upload | Step::Sort | Step::Download);
        assert!(!expect_some || nth > 0, "{what}: {step:?} never happened");
    }
}

fn every_step_of_a_host_argsort_fails_cleanly() {
    let Some(base) = cuda_or_skip("argsort failure injection") else { return };
    let n = 100_003;
    let narrow: Vec<u32> = bits(n, Pattern::Random, 46).into_iter().map(<u32 as TestKey>::from_bits).collect();
    let small: Vec<i8> = bits(n, Pattern::Random, 47).into_iter().map(<i8 as TestKey>::from_bits).collect();
    let wide: Vec<f64> = bits(n, Pattern::Random, 48).into_iter().map(<f64 as TestKey>::from_bits).collect();
    // Many chunks each way; then the same past a small pinned cap (the ring alone).
    for cap in [0, 3 * (64 << 10)] {
        hooks::set_chunk_bytes(64 << 10);
        hooks::set_pinned_cap(cap);
        for order in ORDERS {
            let s = base.clone().with_order(order);
            every_step_of(&s, &format!("u32 cap {cap} {order:?}"), &narrow, order);
            every_step_of(&s, &format!("i8 cap {cap} {order:?}"), &small, order);
            every_step_of(&s, &format!("f64 cap {cap} {order:?}"), &wide, order);
        }
    }
    hooks::set_chunk_bytes(0);
    hooks::set_pinned_cap(0);
}

fn main() -> std::process::ExitCode {
    harness::run(vec![
        harness::gpu("device_argsort_matches_the_cpu", device_argsort_matches_the_cpu),
        harness::gpu("device_argsort_refuses_bad_arguments", device_argsort_refuses_bad_arguments),
        harness::gpu("page_locked_keys_and_output", page_locked_keys_and_output),
        harness::gpu("out_of_core_matches_the_cpu", out_of_core_matches_the_cpu),
        harness::gpu("every_step_of_a_host_argsort_fails_cleanly", every_step_of_a_host_argsort_fails_cleanly),
    ])
}
