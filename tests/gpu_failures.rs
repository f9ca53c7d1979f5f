//! Failure injection: every step of a host-to-host GPU sort (pinned copy, each upload chunk, the
//! sort launch, each download chunk, the out-of-core merge) is made to fail in turn. The sort
//! must return a `SortError` (no panic) and leave the caller's slice exactly as it was; a sort
//! whose injected step never came must succeed and be right. The next sort after a failure must
//! work again (nothing left locked or half-done).

mod common;

use common::*;
use gpusort::hooks::{self, Step, STEPS};
use gpusort::{check, Algorithm, Kvp, Order, Sorter};

/// How a case transfers: chunk bytes, pinned cap (0: tuned), out-of-core runs (0: one run).
#[derive(Clone, Copy, Debug)]
struct Shape {
    name: &'static str,
    chunk: usize,
    cap: usize,
    runs: usize,
}

const SHAPES: [Shape; 5] = [
    // The whole input staged: download chunks land in the caller's slice as they come, and a
    // failure after some of them must put the input back.
    Shape { name: "staged, 13 chunks", chunk: 64 << 10, cap: 0, runs: 0 },
    // Upload ring and download through host scratch.
    Shape { name: "ring", chunk: 64 << 10, cap: 3 * (64 << 10), runs: 0 },
    // Runs pipelined through the pinned buffer, then re-sorted in blocks on the GPU (a failure
    // there falls back to the CPU merge, which must leave the data sorted).
    Shape { name: "out-of-core, 5 runs", chunk: 64 << 10, cap: 0, runs: 5 },
    // Input larger than the pinned cap: runs round-trip one by one into host scratch.
    Shape { name: "out-of-core ring, 5 runs", chunk: 64 << 10, cap: 3 * (64 << 10), runs: 5 },
    Shape { name: "tuned sizes", chunk: 0, cap: 0, runs: 0 },
];

/// Runs `sort` with the `nth` occurrence of `step` failing; returns false once `nth` is past the
/// last occurrence (the sort then ran clean and must be right).
fn one_case<T: Clone + PartialEq + std::fmt::Debug>(
    what: &str,
    step: Step,
    nth: usize,
    input: &[T],
    sort: impl Fn(&mut Vec<T>) -> Result<(), gpusort::SortError>,
    valid: impl Fn(&[T]) -> Result<(), String>,
) -> bool {
    let mut data = input.to_vec();
    hooks::inject(step, nth);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sort(&mut data)));
    let fired = hooks::clear();
    let r = r.unwrap_or_else(|_| panic!("{what}: {step:?} #{nth} panicked instead of returning a SortError"));
    match (fired, r) {
        (true, Err(e)) => {
            assert!(data == input, "{what}: {step:?} #{nth} failed ({e}) but changed the caller's data");
            true
        }
        // Recovered: the out-of-core sort's second phase falls back to the CPU merge, which must
        // leave the data completely sorted.
        (true, Ok(())) => {
            valid(&data).unwrap_or_else(|e| panic!("{what}: {step:?} #{nth} was recovered from, but: {e}"));
            true
        }
        (false, Ok(())) => {
            valid(&data).unwrap_or_else(|e| panic!("{what}: clean run after {step:?} #{nth}: {e}"));
            false
        }
        (false, Err(e)) => panic!("{what}: {step:?} #{nth} did not fire, yet the sort failed: {e}"),
    }
}

fn every_step<T: Clone + PartialEq + std::fmt::Debug>(
    what: &str,
    input: &[T],
    sort: impl Fn(&mut Vec<T>) -> Result<(), gpusort::SortError> + Copy,
    valid: impl Fn(&[T]) -> Result<(), String> + Copy,
) {
    for step in STEPS {
        let mut nth = 0;
        while one_case(what, step, nth, input, sort, valid) {
            nth += 1;
            // Chunk-level steps occur a few dozen times at most here; more means a loop.
            assert!(nth < 10_000, "{what}: {step:?} keeps firing");
        }
        // The CPU merge is the path only when the runs do not fit the pinned buffer; staged
        // out-of-core sorts merge on the GPU and reach it only after a failure. Only sorts spread
        // over several devices exchange pieces (tests/multi_gpu.rs).
        let expect_some = match step {
            Step::Merge => what.contains("out-of-core ring"),
            Step::Exchange => false,
            _ => true,
        };
        assert!(!expect_some || nth > 0, "{what}: step {step:?} never happened");
        // And the machinery works again right after.
        let mut again = input.to_vec();
        sort(&mut again).unwrap_or_else(|e| panic!("{what}: sort after {step:?} failures: {e}"));
        valid(&again).unwrap();
    }
}

/// The GPU tests share one device's pinned staging and the test hooks' sizes: one at a time, each
/// sort takes the path its shape is set up for.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn sorter(base: &Sorter, shape: Shape, n: usize, item_bytes: usize, alg: Algorithm) -> Sorter {
    hooks::set_chunk_bytes(shape.chunk);
    hooks::set_pinned_cap(shape.cap);
    let s = base.clone().with_algorithm(alg);
    if shape.runs == 0 {
        return s;
    }
    s.with_device_memory_limit((64 << 10) + n.div_ceil(shape.runs) * (2 * item_bytes + 1))
}

fn every_step_of_a_kvp_sort_fails_cleanly() {
    let Some(base) = cuda_or_skip("failure injection, Kvp") else { return };
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let n = 100_003;
    let input = kvp_input(n, Pattern::Random, 31);
    for shape in SHAPES {
        for (alg, order) in [(Algorithm::Radix, Order::Ascending), (Algorithm::Bitonic, Order::Descending)] {
            let s = sorter(&base, shape, n, 8, alg);
            let what = format!("Kvp {} {alg:?} {order:?}", shape.name);
            let stable = alg.is_stable();
            every_step(
                &what,
                &input,
                |v: &mut Vec<Kvp>| s.clone().with_order(order).sort_kvp(v),
                |out: &[Kvp]| check::validate(&input, out, order, stable),
            );
        }
    }
    hooks::set_chunk_bytes(0);
    hooks::set_pinned_cap(0);
}

fn every_step_of_a_page_locked_sort_fails_cleanly() {
    // Page-locked data is copied in place, its backup made by the device (each upload copied
    // back down into the held buffer: the `PinnedCopy` step), and a failed download is undone
    // from that backup.
    let Some(base) = cuda_or_skip("failure injection, page-locked Kvp") else { return };
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let n = 100_003;
    let input = kvp_input(n, Pattern::Random, 34);
    let locked = std::cell::RefCell::new(page_locked(&base, &input));
    hooks::set_chunk_bytes(64 << 10);
    hooks::set_pinned_cap(0);
    hooks::set_in_place_from(1);
    for (alg, order) in [(Algorithm::Radix, Order::Ascending), (Algorithm::Bitonic, Order::Descending)] {
        let s = base.clone().with_algorithm(alg).with_order(order);
        let before = hooks::in_place_sorts();
        every_step(
            &format!("page-locked Kvp {alg:?} {order:?}"),
            &input,
            |v: &mut Vec<Kvp>| {
                let mut locked = locked.borrow_mut();
                let data = &mut locked.as_mut_slice().expect("page-locked view")[..n];
                data.copy_from_slice(v);
                let r = s.sort_kvp(data);
                v.copy_from_slice(data);
                r
            },
            |out: &[Kvp]| check::validate(&input, out, order, alg.is_stable()),
        );
        assert!(hooks::in_place_sorts() > before, "the page-locked sorts did not copy in place");
    }
    hooks::set_chunk_bytes(0);
    hooks::set_in_place_from(0);
}

fn every_step_of_a_keys_sort_fails_cleanly() {
    let Some(base) = cuda_or_skip("failure injection, keys") else { return };
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let n = 200_003;
    let input: Vec<u32> = bits(n, Pattern::FewDistinct, 32).into_iter().map(u32::from_bits).collect();
    for shape in SHAPES {
        let s = sorter(&base, shape, n, 4, Algorithm::Auto);
        let what = format!("u32 keys {}", shape.name);
        every_step(
            &what,
            &input,
            |v: &mut Vec<u32>| s.sort_keys(v),
            |out: &[u32]| check::validate_keys(&input, out, Order::Ascending),
        );
    }
    hooks::set_chunk_bytes(0);
    hooks::set_pinned_cap(0);
}

/// 8-bit keys alone: a counting sort in core (the keys go up, only their counts come back), out of
/// core the radix path.
fn every_step_of_an_8_bit_keys_sort_fails_cleanly() {
    let Some(base) = cuda_or_skip("failure injection, 8-bit keys") else { return };
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let n = 500_009;
    let input: Vec<i8> = bits(n, Pattern::Random, 33).into_iter().map(i8::from_bits).collect();
    for shape in SHAPES {
        let s = sorter(&base, shape, n, 1, Algorithm::Auto).with_order(Order::Descending);
        let what = format!("i8 keys {}", shape.name);
        every_step(
            &what,
            &input,
            |v: &mut Vec<i8>| s.sort_keys(v),
            |out: &[i8]| check::validate_keys(&input, out, Order::Descending),
        );
    }
    hooks::set_chunk_bytes(0);
    hooks::set_pinned_cap(0);
}

fn every_step_of_a_page_locked_split_pairs_sort_fails_cleanly() {
    // Split pairs whose keys and values both lie in page-locked memory go up and come back as two
    // arrays in place, both backups echoed into the held buffer: f32 keys (the exact bits must
    // come back after a failure) and u64 keys.
    let Some(base) = cuda_or_skip("failure injection, page-locked split pairs") else { return };
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let n = 150_001;
    let raw = bits(n, Pattern::Random, 35);
    let floats: Vec<(u32, u32)> = raw.iter().zip(0..n as u32).map(|(&b, v)| (b as u32, v)).collect();
    let wide: Vec<(u64, u32)> = raw.iter().zip(0..n as u32).map(|(&b, v)| (b, v)).collect();
    let float_keys = std::cell::RefCell::new(page_locked(&base, &vec![0f32; n]));
    let wide_keys = std::cell::RefCell::new(page_locked(&base, &vec![0u64; n]));
    let values = std::cell::RefCell::new(page_locked(&base, &vec![0u32; n]));
    hooks::set_chunk_bytes(64 << 10);
    hooks::set_pinned_cap(0);
    hooks::set_in_place_from(1);
    hooks::set_split_pairs_from(1);
    let before = hooks::in_place_sorts();
    let s = base.clone().with_order(Order::Descending);
    every_step(
        "page-locked f32 pairs",
        &floats,
        |v: &mut Vec<(u32, u32)>| {
            let (mut k, mut vals) = (float_keys.borrow_mut(), values.borrow_mut());
            let (k, vals) = (&mut k.as_mut_slice().unwrap()[..n], &mut vals.as_mut_slice().unwrap()[..n]);
            for (i, &(b, x)) in v.iter().enumerate() {
                (k[i], vals[i]) = (f32::from_bits(b), x);
            }
            let r = s.sort_pairs(k, vals);
            *v = k.iter().map(|f| f.to_bits()).zip(vals.iter().copied()).collect();
            r
        },
        |out: &[(u32, u32)]| {
            pairs_valid(&floats, out, |b| gpusort::SortKey::to_ordered_bits(f32::from_bits(b)) as u64, true)
        },
    );
    let s = base.clone();
    every_step(
        "page-locked u64 pairs",
        &wide,
        |v: &mut Vec<(u64, u32)>| {
            let (mut k, mut vals) = (wide_keys.borrow_mut(), values.borrow_mut());
            let (k, vals) = (&mut k.as_mut_slice().unwrap()[..n], &mut vals.as_mut_slice().unwrap()[..n]);
            for (i, &(b, x)) in v.iter().enumerate() {
                (k[i], vals[i]) = (b, x);
            }
            let r = s.sort_pairs(k, vals);
            *v = k.iter().copied().zip(vals.iter().copied()).collect();
            r
        },
        |out: &[(u64, u32)]| pairs_valid(&wide, out, |k| k, false),
    );
    assert!(hooks::in_place_sorts() > before, "the page-locked split pairs did not go in place");
    hooks::set_chunk_bytes(0);
    hooks::set_in_place_from(0);
    hooks::set_split_pairs_from(0);
}

fn every_step_of_a_split_pairs_sort_fails_cleanly() {
    // Split f32 pairs go up either as two arrays (in core, in the held buffer, from
    // `tuning::SPLIT_ROUND_TRIP_FROM` pairs) or staged as Kvp (keys as ordered bits): a failed
    // download must put the exact bits back (NaN and -0.0 included) either way. u64 keys take
    // the two-array round trip too (runs of them, merged on the CPU, out of core and past the
    // held cap).
    let Some(base) = cuda_or_skip("failure injection, split pairs") else { return };
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let n = 150_001;
    let raw = bits(n, Pattern::Random, 34);
    let values: Vec<u32> = (0..n as u32).collect();
    let floats: Vec<(u32, u32)> = raw.iter().zip(&values).map(|(&b, &v)| (b as u32, v)).collect();
    let wide: Vec<(u64, u32)> = raw.iter().zip(&values).map(|(&b, &v)| (b, v)).collect();
    let rows: Vec<(u32, u64)> = floats.iter().map(|&(b, v)| (b, (v as u64) << 32 | 0xABCD)).collect();
    let wide_rows: Vec<(u64, u64)> = wide.iter().map(|&(b, v)| (b, (v as u64) << 32 | 7)).collect();
    for shape in SHAPES {
        let s = sorter(&base, shape, n, 8, Algorithm::Auto);
        for (from, layout) in [(1, "two arrays"), (usize::MAX, "as Kvp")] {
            hooks::set_split_pairs_from(from);
            every_step(
                &format!("f32 pairs {layout} {}", shape.name),
                &floats,
                |v: &mut Vec<(u32, u32)>| {
                    let (mut k, mut vals): (Vec<f32>, Vec<u32>) =
                        v.iter().map(|&(b, x)| (f32::from_bits(b), x)).unzip();
                    let r = s.clone().with_order(Order::Descending).sort_pairs(&mut k, &mut vals);
                    *v = k.iter().map(|f| f.to_bits()).zip(vals).collect();
                    r
                },
                |out: &[(u32, u32)]| {
                    pairs_valid(&floats, out, |b| gpusort::SortKey::to_ordered_bits(f32::from_bits(b)) as u64, true)
                },
            );
        }
        hooks::set_split_pairs_from(0);
        every_step(
            &format!("u64 pairs {}", shape.name),
            &wide,
            |v: &mut Vec<(u64, u32)>| {
                let (mut k, mut vals): (Vec<u64>, Vec<u32>) = v.iter().copied().unzip();
                let r = s.sort_pairs(&mut k, &mut vals);
                *v = k.into_iter().zip(vals).collect();
                r
            },
            |out: &[(u64, u32)]| pairs_valid(&wide, out, |k| k, false),
        );
        // u64 values: keys and values in one round trip, the values as two-word records (a
        // failed download of the values puts the keys back too); past the pinned cap or the
        // device budget the keys' argsort, then the permute on the host. A failure anywhere
        // leaves both slices untouched.
        every_step(
            &format!("f32 keys, u64 values {}", shape.name),
            &rows,
            |v: &mut Vec<(u32, u64)>| {
                let (mut k, mut vals): (Vec<f32>, Vec<u64>) = v.iter().map(|&(b, x)| (f32::from_bits(b), x)).unzip();
                let r = s.clone().with_order(Order::Descending).sort_pairs(&mut k, &mut vals);
                *v = k.iter().map(|f| f.to_bits()).zip(vals).collect();
                r
            },
            |out: &[(u32, u64)]| {
                pairs_valid(&rows, out, |b| gpusort::SortKey::to_ordered_bits(f32::from_bits(b)) as u64, true)
            },
        );
        every_step(
            &format!("u64 keys, u64 values {}", shape.name),
            &wide_rows,
            |v: &mut Vec<(u64, u64)>| {
                let (mut k, mut vals): (Vec<u64>, Vec<u64>) = v.iter().copied().unzip();
                let r = s.sort_pairs(&mut k, &mut vals);
                *v = k.into_iter().zip(vals).collect();
                r
            },
            |out: &[(u64, u64)]| pairs_valid(&wide_rows, out, |k| k, false),
        );
    }
    hooks::set_chunk_bytes(0);
    hooks::set_pinned_cap(0);
}

fn every_step_of_a_records_sort_fails_cleanly() {
    // `sort_by_key` with the records put in order on the device (the hook lowers the threshold):
    // the keys up and sorted with their positions, the records up, the gather, the records down. A
    // failure anywhere leaves the records untouched; past the pinned cap ("ring" shapes) the
    // permutation falls back to the host gather, whose result must then be right.
    let Some(base) = cuda_or_skip("failure injection, records") else { return };
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let n = 70_001;
    let raw = bits(n, Pattern::Random, 36);
    // 24-byte records: key bits, position, two payload words.
    let input: Vec<(u32, u32, [u64; 2])> =
        raw.iter().enumerate().map(|(i, &b)| (b as u32, i as u32, [b, b.rotate_left(17)])).collect();
    hooks::set_records_on_device_from(1);
    // Records have no out-of-core form: the shapes with runs would only repeat the others.
    for shape in SHAPES {
        if shape.runs != 0 {
            continue;
        }
        let s = sorter(&base, shape, n, 24, Algorithm::Auto).with_order(Order::Descending);
        every_step(
            &format!("records {}", shape.name),
            &input,
            |v: &mut Vec<(u32, u32, [u64; 2])>| s.sort_by_key(v, |r| f32::from_bits(r.0)),
            |out: &[(u32, u32, [u64; 2])]| {
                let mut expect = input.clone();
                expect.sort_by_key(|r| std::cmp::Reverse(gpusort::SortKey::to_ordered_bits(f32::from_bits(r.0))));
                if out == expect.as_slice() {
                    Ok(())
                } else {
                    Err("records differ from the stable sort of the input".into())
                }
            },
        );
    }
    hooks::set_records_on_device_from(0);
    hooks::set_chunk_bytes(0);
    hooks::set_pinned_cap(0);
}

/// `out` is `input` sorted stably by `key` (descending when asked): values are unique indices.
fn pairs_valid<K: Copy + PartialEq, V: Copy + PartialEq>(
    input: &[(K, V)],
    out: &[(K, V)],
    key: impl Fn(K) -> u64,
    descending: bool,
) -> Result<(), String> {
    let mut expect = input.to_vec();
    if descending {
        expect.sort_by_key(|&(k, _)| std::cmp::Reverse(key(k)));
    } else {
        expect.sort_by_key(|&(k, _)| key(k));
    }
    if out.len() != expect.len() || out.iter().zip(&expect).any(|(a, b)| a != b) {
        return Err("split pairs differ from the stable sort of the input".into());
    }
    Ok(())
}

fn injection_hooks_are_inert_without_a_gpu_sort() {
    // Runs everywhere: the CPU backend passes no hook, so nothing fires and nothing fails.
    let input = kvp_input(10_000, Pattern::Random, 33);
    for step in STEPS {
        hooks::inject(step, 0);
        let mut v = input.clone();
        Sorter::cpu().sort_kvp(&mut v).unwrap();
        assert!(!hooks::clear(), "{step:?} fired on the CPU backend");
        check::validate(&input, &v, Order::Ascending, true).unwrap();
    }
}

fn main() -> std::process::ExitCode {
    harness::run(vec![
        harness::gpu("every_step_of_a_kvp_sort_fails_cleanly", every_step_of_a_kvp_sort_fails_cleanly),
        harness::gpu("every_step_of_a_keys_sort_fails_cleanly", every_step_of_a_keys_sort_fails_cleanly),
        harness::gpu("every_step_of_a_page_locked_sort_fails_cleanly", every_step_of_a_page_locked_sort_fails_cleanly),
        harness::gpu("every_step_of_an_8_bit_keys_sort_fails_cleanly", every_step_of_an_8_bit_keys_sort_fails_cleanly),
        harness::gpu("every_step_of_a_split_pairs_sort_fails_cleanly", every_step_of_a_split_pairs_sort_fails_cleanly),
        harness::gpu(
            "every_step_of_a_page_locked_split_pairs_sort_fails_cleanly",
            every_step_of_a_page_locked_split_pairs_sort_fails_cleanly,
        ),
        harness::gpu("every_step_of_a_records_sort_fails_cleanly", every_step_of_a_records_sort_fails_cleanly),
        harness::cpu("injection_hooks_are_inert_without_a_gpu_sort", injection_hooks_are_inert_without_a_gpu_sort),
    ])
}
