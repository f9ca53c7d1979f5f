//! Lexsort on the GPU beyond what `tests/lexsort.rs` checks against its oracle on every backend:
//! device-resident columns (`lexsort_device`, both index widths, every key type, nulls on the
//! device), page-locked columns and output, sorts past the device budget, and every step of the
//! host pipeline failing in turn. Every result must equal the CPU backend's (the stable
//! permutation is unique); a failed lexsort leaves its output as it was or complete.

mod common;

use common::*;
use gpusort::cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};
use gpusort::hooks::{self, Step, STEPS};
use gpusort::{f16, ArgIndex, Column, DeviceColumn, FloatOrder, NullPlacement, Order, SortError, Sorter};
use std::sync::Arc;

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// Host columns of five shapes: (u32, u32) packed, (f32 NaN last, i64 descending with nulls) in
/// two words, (u8, i16, f64 with nulls first, u16) with a split 64-bit field, f16 in torch's order
/// (one 16-bit word) and u8 descending (one 8-bit word).
struct Table {
    a: Vec<u32>,
    b: Vec<u32>,
    f: Vec<f32>,
    i: Vec<i64>,
    u8s: Vec<u8>,
    i16s: Vec<i16>,
    d: Vec<f64>,
    u16s: Vec<u16>,
    h: Vec<f16>,
    nulls: Vec<bool>,
}

impl Table {
    fn new(n: usize, p: Pattern, seed: u64) -> Table {
        let col = |s: u64| bits(n, p, seed + s);
        let mut r = Rng(seed);
        Table {
            a: col(1).into_iter().map(<u32 as TestKey>::from_bits).collect(),
            b: col(2).into_iter().map(<u32 as TestKey>::from_bits).collect(),
            f: col(3).into_iter().map(<f32 as TestKey>::from_bits).collect(),
            i: col(4).into_iter().map(<i64 as TestKey>::from_bits).collect(),
            u8s: col(5).into_iter().map(<u8 as TestKey>::from_bits).collect(),
            i16s: col(6).into_iter().map(<i16 as TestKey>::from_bits).collect(),
            d: col(7).into_iter().map(<f64 as TestKey>::from_bits).collect(),
            u16s: col(8).into_iter().map(<u16 as TestKey>::from_bits).collect(),
            h: col(9).into_iter().map(<f16 as TestKey>::from_bits).collect(),
            nulls: (0..n).map(|_| r.next().is_multiple_of(4)).collect(),
        }
    }

    fn shapes(&self) -> [Vec<Column<'_>>; 5] {
        let nulls = NullPlacement::Last;
        [
            vec![Column::new(&self.a), Column::new(&self.b)],
            vec![
                Column::new(&self.f).with_float_order(FloatOrder::NanLast),
                Column::new(&self.i).with_order(Order::Descending).with_nulls(&self.nulls, nulls),
            ],
            vec![
                Column::new(&self.u8s),
                Column::new(&self.i16s).with_order(Order::Descending),
                Column::new(&self.d)
                    .with_float_order(FloatOrder::NanLargest)
                    .with_nulls(&self.nulls, NullPlacement::First),
                Column::new(&self.u16s),
            ],
            vec![Column::new(&self.h).with_float_order(FloatOrder::NanLargest)],
            vec![Column::new(&self.u8s).with_order(Order::Descending)],
        ]
    }
}

fn cpu_lexsort(columns: &[Column<'_>], order: Order) -> Vec<u64> {
    let p = Sorter::cpu().with_order(order).lexsort(columns).expect("CPU lexsort");
    p.into_iter().map(u64::from).collect()
}

fn up<T: DeviceRepr>(stream: &Arc<CudaStream>, v: &[T]) -> CudaSlice<T> {
    stream.clone_htod(v).expect("upload")
}

fn device_case<I: ArgIndex + DeviceRepr + ValidAsZeroBits>(s: &Sorter, t: &Table, n: usize, order: Order) {
    let stream = s.cuda_context().expect("a CUDA sorter").default_stream();
    let nulls: Vec<u8> = t.nulls.iter().map(|&b| b as u8).collect();
    let (a, b, f, i) = (up(&stream, &t.a), up(&stream, &t.b), up(&stream, &t.f), up(&stream, &t.i));
    let (u8s, i16s, d, u16s, m) =
        (up(&stream, &t.u8s), up(&stream, &t.i16s), up(&stream, &t.d), up(&stream, &t.u16s), up(&stream, &nulls));
    let h = up(&stream, &t.h);
    let device = [
        vec![DeviceColumn::new(&a), DeviceColumn::new(&b)],
        vec![
            DeviceColumn::new(&f).with_float_order(FloatOrder::NanLast),
            DeviceColumn::new(&i).with_order(Order::Descending).with_nulls(&m, NullPlacement::Last),
        ],
        vec![
            DeviceColumn::new(&u8s),
            DeviceColumn::new(&i16s).with_order(Order::Descending),
            DeviceColumn::new(&d).with_float_order(FloatOrder::NanLargest).with_nulls(&m, NullPlacement::First),
            DeviceColumn::new(&u16s),
        ],
        vec![DeviceColumn::new(&h).with_float_order(FloatOrder::NanLargest)],
        vec![DeviceColumn::new(&u8s).with_order(Order::Descending)],
    ];
    for (shape, (dev, host)) in device.iter().zip(t.shapes()).enumerate() {
        let what = format!("{} device lexsort shape {shape} n={n} {order:?}", std::any::type_name::<I>());
        let mut out: CudaSlice<I> = stream.alloc_zeros(n).expect("alloc");
        s.clone().with_order(order).lexsort_device(dev, &mut out, &stream).unwrap_or_else(|e| panic!("{what}: {e}"));
        let got: Vec<u64> = stream.clone_dtoh(&out).expect("download").into_iter().map(|i: I| i.position()).collect();
        assert!(got == cpu_lexsort(&host, order), "{what}: not the CPU's permutation");
    }
    assert_eq!(stream.clone_dtoh(&a).expect("download"), t.a, "the columns changed");
}

fn device_lexsort_matches_the_cpu() {
    let Some(s) = cuda_or_skip("device lexsort") else { return };
    for order in ORDERS {
        for n in [1, 2, 3, 255, 256, 257, 4097, 65537, 300_007, (1 << 20) + 3] {
            for p in [Pattern::Random, Pattern::FewDistinct, Pattern::Extremes, Pattern::Sorted] {
                let t = Table::new(n, p, 61);
                device_case::<u32>(&s, &t, n, order);
                device_case::<u64>(&s, &t, n, order);
            }
        }
    }
}

/// Byte-string columns on the device: 16-byte keys alone and 5-byte keys (nulls last, descending)
/// before a u32, random and with a shared prefix; both index widths.
fn device_byte_columns_match_the_cpu() {
    let Some(s) = cuda_or_skip("device byte lexsort") else { return };
    let stream = s.cuda_context().expect("a CUDA sorter").default_stream();
    for n in [1, 2, 257, 65537, 300_007, (1 << 20) + 3] {
        for shared in [0usize, 12] {
            let mut r = Rng(n as u64 ^ shared as u64);
            let wide: Vec<u8> = (0..16 * n).map(|i| if i % 16 < shared { 0x5a } else { r.next() as u8 }).collect();
            let narrow: Vec<u8> = (0..5 * n).map(|_| [0u8, 0x80, 0xff][r.next() as usize % 3]).collect();
            let last: Vec<u32> = (0..n).map(|_| r.next() as u32 % 8).collect();
            let nulls: Vec<u8> = (0..n).map(|i| (i % 11 == 4) as u8).collect();
            let (dw, dn, dl, dm) = (up(&stream, &wide), up(&stream, &narrow), up(&stream, &last), up(&stream, &nulls));
            let null_flags: Vec<bool> = nulls.iter().map(|&b| b != 0).collect();
            let host = [
                vec![Column::byte_rows(&wide, 16)],
                vec![
                    Column::byte_rows(&narrow, 5)
                        .with_order(Order::Descending)
                        .with_nulls(&null_flags, NullPlacement::Last),
                    Column::new(&last),
                ],
            ];
            let device = [
                vec![DeviceColumn::bytes(&dw, 16)],
                vec![
                    DeviceColumn::bytes(&dn, 5).with_order(Order::Descending).with_nulls(&dm, NullPlacement::Last),
                    DeviceColumn::new(&dl),
                ],
            ];
            for order in ORDERS {
                for (dev, host) in device.iter().zip(&host) {
                    let want = cpu_lexsort(host, order);
                    let mut out: CudaSlice<u64> = stream.alloc_zeros(n).expect("alloc");
                    s.clone().with_order(order).lexsort_device(dev, &mut out, &stream).expect("device lexsort");
                    assert!(stream.clone_dtoh(&out).expect("download") == want, "u64, n={n} shared {shared} {order:?}");
                    let mut out: CudaSlice<u32> = stream.alloc_zeros(n).expect("alloc");
                    s.clone().with_order(order).lexsort_device(dev, &mut out, &stream).expect("device lexsort");
                    let got: Vec<u64> = stream.clone_dtoh(&out).expect("download").into_iter().map(u64::from).collect();
                    assert!(got == want, "u32, n={n} shared {shared} {order:?}");
                }
            }
        }
    }
    let odd = up(&stream, &[1u8; 7]);
    let mut out: CudaSlice<u32> = stream.alloc_zeros(3).expect("alloc");
    let e = s.lexsort_device(&[DeviceColumn::bytes(&odd, 2)], &mut out, &stream).expect_err("7 bytes in rows of 2");
    assert!(matches!(e, SortError::InvalidArgument(_)), "{e}");
}

fn device_lexsort_refuses_bad_arguments() {
    let Some(s) = cuda_or_skip("device lexsort arguments") else { return };
    let stream = s.cuda_context().expect("a CUDA sorter").default_stream();
    let (a, b) = (up(&stream, &[3u32, 1, 2]), up(&stream, &[1.0f32, 2.0]));
    let mut out = up(&stream, &[7u64; 3]);
    let e = s.lexsort_device(&[DeviceColumn::new(&a), DeviceColumn::new(&b)], &mut out, &stream).expect_err("lengths");
    assert!(matches!(e, SortError::InvalidArgument(_)), "{e}");
    let e = s.lexsort_device(&[], &mut out, &stream).expect_err("no columns");
    assert!(matches!(e, SortError::InvalidArgument(_)), "{e}");
    assert_eq!(stream.clone_dtoh(&out).expect("download"), [7, 7, 7], "a refused lexsort wrote its output");
}

fn page_locked_columns_and_output() {
    let Some(s) = cuda_or_skip("page-locked lexsort") else { return };
    for from in [1, usize::MAX] {
        hooks::set_in_place_from(from);
        for order in ORDERS {
            let n = 300_007;
            let t = Table::new(n, Pattern::FewDistinct, 62);
            let (a, f) = (page_locked(&s, &t.a), page_locked(&s, &t.f));
            let (a, f) = (&a.as_slice().expect("view")[..n], &f.as_slice().expect("view")[..n]);
            let mut out = page_locked(&s, &vec![u64::MAX; n]);
            let out = &mut out.as_mut_slice().expect("view")[..n];
            let columns = [Column::new(a), Column::new(f).with_order(Order::Descending)];
            let before = hooks::in_place_sorts();
            s.clone().with_order(order).lexsort_into(&columns, out).expect("lexsort");
            let in_place = hooks::in_place_sorts() - before;
            assert!(if from == 1 { in_place >= 2 } else { in_place == 0 }, "{in_place} in place from {from}");
            assert!(out.iter().copied().eq(cpu_lexsort(&columns, order)), "page-locked {order:?} from {from}");
        }
    }
    hooks::set_in_place_from(0);
}

fn past_the_device_budget_matches_the_cpu() {
    let Some(base) = cuda_or_skip("lexsort past the device budget") else { return };
    let n = 1_000_003;
    let t = Table::new(n, Pattern::Random, 63);
    let s = base.with_device_memory_limit(n);
    for (shape, columns) in t.shapes().iter().enumerate() {
        let got = s.lexsort(columns).expect("lexsort");
        assert!(got.iter().map(|&p| p as u64).eq(cpu_lexsort(columns, Order::Ascending)), "shape {shape}");
    }
}

/// The host lexsort with the `nth` `step` failing: `Err` with `out` as it was or complete, or
/// `Ok` with the right result. False once `nth` is past the last occurrence.
fn failure_case(s: &Sorter, what: &str, step: Step, nth: usize, columns: &[Column<'_>], want: &[u64]) -> bool {
    let n = want.len();
    let earlier: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9e37_79b9) | 1 << 63).collect();
    let mut out = earlier.clone();
    hooks::inject(step, nth);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.lexsort_into(columns, &mut out)));
    let fired = hooks::clear();
    let r = r.unwrap_or_else(|_| panic!("{what}: {step:?} #{nth} panicked"));
    match (fired, r) {
        (true, Err(_)) => assert!(out == earlier || out == want, "{what}: {step:?} #{nth} left a mix in the output"),
        (_, Ok(())) => assert!(out == want, "{what}: {step:?} #{nth}: wrong result"),
        (false, Err(e)) => panic!("{what}: {step:?} #{nth} did not fire, yet the lexsort failed: {e}"),
    }
    fired
}

fn every_step_of_a_host_lexsort_fails_cleanly() {
    let Some(base) = cuda_or_skip("lexsort failure injection") else { return };
    let t = Table::new(100_003, Pattern::Random, 64);
    hooks::set_chunk_bytes(64 << 10);
    for order in ORDERS {
        let s = base.clone().with_order(order);
        for (shape, columns) in t.shapes().iter().enumerate() {
            let want = cpu_lexsort(columns, order);
            let what = format!("shape {shape} {order:?}");
            for step in STEPS {
                let mut nth = 0;
                while failure_case(&s, &what, step, nth, columns, &want) {
                    nth += 1;
                    assert!(nth < 10_000, "{what}: {step:?} keeps firing");
                }
                let expect_some = matches!(step, Step::DeviceAlloc | Step::Upload | Step::Sort | Step::Download);
                assert!(!expect_some || nth > 0, "{what}: {step:?} never happened");
            }
        }
    }
    hooks::set_chunk_bytes(0);
}

fn main() -> std::process::ExitCode {
    harness::run(vec![
        harness::gpu("device_lexsort_matches_the_cpu", device_lexsort_matches_the_cpu),
        harness::gpu("device_lexsort_refuses_bad_arguments", device_lexsort_refuses_bad_arguments),
        harness::gpu("device_byte_columns_match_the_cpu", device_byte_columns_match_the_cpu),
        harness::gpu("page_locked_columns_and_output", page_locked_columns_and_output),
        harness::gpu("past_the_device_budget_matches_the_cpu", past_the_device_budget_matches_the_cpu),
        harness::gpu("every_step_of_a_host_lexsort_fails_cleanly", every_step_of_a_host_lexsort_fails_cleanly),
    ])
}
