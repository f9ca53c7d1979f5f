//! Device-resident sorts of buffers that nearly fill the device: ballast allocations leave free
//! beside the data only a share of its size (the data filling 60%, 80% or 90% of what is free),
//! too little for a normal sort's scratch (checked: that allocation fails), and the sort still
//! sorts, in the caller's buffer, every 32- and 64-bit key type and `Kvp`s, both orders, exactly
//! as the CPU backend (stably: `Kvp` values are positions). With almost nothing free the sort is
//! `OutOfMemory` and the data untouched.

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use gpusort::cudarc::driver::{result, sys, CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};
use gpusort::{DeviceCall, Order, SortError, Sorter};

const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];
/// The data's share of the free memory (after the data), as (numerator, denominator).
const FILLS: [(usize, usize); 3] = [(3, 5), (4, 5), (9, 10)];
const DATA_BYTES: usize = 256 << 20;

/// One case at a time: a case's ballast takes the device from every other.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

/// Device memory taken until dropped (`cuMemAlloc`, exact to the 2 MiB page), leaving `left`
/// bytes free as the driver counts them.
struct Ballast {
    pieces: Vec<sys::CUdeviceptr>,
}

impl Ballast {
    fn leaving(s: &Sorter, stream: &Arc<CudaStream>, left: usize) -> Option<Ballast> {
        const GRAIN: usize = 2 << 20;
        s.release_memory();
        stream.synchronize().expect("sync");
        let ctx = s.cuda_context().expect("a CUDA sorter");
        ctx.bind_to_thread().expect("bind");
        let mut taken = Ballast { pieces: Vec::new() };
        // Pieces, largest first, until what is free is within a page of `left`.
        for _ in 0..64 {
            let (free, _) = ctx.mem_get_info().expect("cuMemGetInfo");
            if free < left + GRAIN {
                return (free + GRAIN >= left).then_some(taken);
            }
            let mut want = (free - left) / GRAIN * GRAIN;
            // SAFETY (both): never read or written; freed on drop.
            let piece = loop {
                match unsafe { result::malloc_sync(want) } {
                    Ok(p) => break p,
                    Err(_) if want > GRAIN => want = (want / 2).next_multiple_of(GRAIN),
                    Err(_) => return None,
                }
            };
            taken.pieces.push(piece);
        }
        None
    }
}

impl Drop for Ballast {
    fn drop(&mut self) {
        for &p in &self.pieces {
            // SAFETY: allocated above, freed once.
            let _ = unsafe { result::free_sync(p) };
        }
    }
}

/// Sorts `data` (a copy on the device) with free memory of `data / fill - data` beside it, and
/// checks it against `want`.
fn case<T: DeviceRepr + ValidAsZeroBits + Copy>(
    s: &Sorter,
    what: &str,
    data: &[T],
    want: &[T],
    call: DeviceCall,
    fill: (usize, usize),
    sort: impl Fn(&Sorter, &mut CudaSlice<T>, &Arc<CudaStream>) -> Result<(), SortError>,
) {
    let stream = s.cuda_context().expect("a CUDA sorter").new_stream().expect("stream");
    let bytes = std::mem::size_of_val(data);
    let left = bytes * (fill.1 - fill.0) / fill.0;
    let what = format!("{what}, data {} MiB, {} MiB free beside it", bytes >> 20, left >> 20);
    let mut d = stream.clone_htod(data).expect("up");
    let need = s.device_scratch_bytes(call, data.len()).expect("scratch size");
    let Some(ballast) = Ballast::leaving(s, &stream, left) else {
        skip_loudly(&format!("skipped: {what}: the ballast could not leave that little free"));
        return;
    };
    // SAFETY: never read or written; dropped at once.
    let normal = unsafe { stream.alloc::<u8>(need) };
    assert!(normal.is_err(), "{what}: the normal sort's {need} bytes of scratch were free");
    drop(normal);
    let r = sort(s, &mut d, &stream);
    stream.synchronize().expect("sync");
    drop(ballast);
    r.unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = stream.clone_dtoh(&d).expect("down");
    assert!(bytes_of(&got) == bytes_of(want), "{what}: not the CPU's order");
}

/// The items' bytes: floats compared by their bits (a NaN equals itself).
fn bytes_of<T: DeviceRepr>(v: &[T]) -> &[u8] {
    // SAFETY: key words and `Kvp`s are plain data without padding.
    unsafe { std::slice::from_raw_parts(v.as_ptr().cast(), std::mem::size_of_val(v)) }
}

fn keys<K: TestKey + DeviceRepr + ValidAsZeroBits>(s: &Sorter, p: Pattern, fill: (usize, usize)) {
    let n = DATA_BYTES / size_of::<K>();
    let data: Vec<K> = bits(n, p, 7).into_iter().map(K::from_bits).collect();
    for order in ORDERS {
        let mut want = data.clone();
        Sorter::cpu().with_order(order).sort_keys(&mut want).expect("CPU");
        let s = s.clone().with_order(order);
        let what = format!("{} keys {p:?} {order:?}", std::any::type_name::<K>());
        case(&s, &what, &data, &want, DeviceCall::Keys(K::TYPE), fill, |s, d, st| s.sort_keys_device(d, st));
    }
}

fn kvps(s: &Sorter, n: usize, p: Pattern, fill: (usize, usize)) {
    let data = kvp_input(n, p, 8);
    for order in ORDERS {
        let mut want = data.clone();
        Sorter::cpu().with_order(order).sort_kvp(&mut want).expect("CPU");
        let s = s.clone().with_order(order);
        let what = format!("Kvp {p:?} {order:?} n={n}");
        case(&s, &what, &data, &want, DeviceCall::Kvp, fill, |s, d, st| s.sort_kvp_device(d, st));
    }
}

fn every_key_width_sorts_beside_little_free_memory() {
    let _one = serial();
    let Some(s) = cuda_or_skip("sorts in little free memory") else { return };
    for fill in FILLS {
        keys::<u32>(&s, Pattern::Random, fill);
        keys::<i32>(&s, Pattern::FewDistinct, fill);
        keys::<f32>(&s, Pattern::Random, fill);
        keys::<u64>(&s, Pattern::FewDistinct, fill);
        keys::<i64>(&s, Pattern::Random, fill);
        keys::<f64>(&s, Pattern::Random, fill);
        kvps(&s, DATA_BYTES / 8, Pattern::FewDistinct, fill);
    }
    // Lengths no run divides, and already sorted runs (the merges' early stop).
    kvps(&s, 16_777_259, Pattern::Random, (4, 5));
    keys::<u32>(&s, Pattern::Sorted, (4, 5));
    keys::<u64>(&s, Pattern::Reverse, (9, 10));
}

fn too_little_free_memory_is_out_of_memory_and_leaves_the_data() {
    let _one = serial();
    let Some(s) = cuda_or_skip("sorts without free memory") else { return };
    let stream = s.cuda_context().expect("a CUDA sorter").new_stream().expect("stream");
    let data: Vec<u32> = bits(DATA_BYTES / 4, Pattern::Random, 9).into_iter().map(|b| (b >> 32) as u32).collect();
    let mut d = stream.clone_htod(&data).expect("up");
    let Some(ballast) = Ballast::leaving(&s, &stream, 2 << 20) else {
        skip_loudly("skipped: the ballast could not leave 2 MiB free");
        return;
    };
    let r = s.sort_keys_device(&mut d, &stream);
    stream.synchronize().expect("sync");
    drop(ballast);
    assert!(matches!(r, Err(SortError::OutOfMemory { .. })), "{r:?}");
    assert!(stream.clone_dtoh(&d).expect("down") == data, "a refused sort wrote");
    // And the device sorts again once the memory is back.
    s.sort_keys_device(&mut d, &stream).expect("sort");
    let mut want = data.clone();
    want.sort_unstable();
    assert!(stream.clone_dtoh(&d).expect("down") == want);
}

fn main() -> std::process::ExitCode {
    harness::run(vec![
        harness::gpu(
            "every_key_width_sorts_beside_little_free_memory",
            every_key_width_sorts_beside_little_free_memory,
        ),
        harness::gpu(
            "too_little_free_memory_is_out_of_memory_and_leaves_the_data",
            too_little_free_memory_is_out_of_memory_and_leaves_the_data,
        ),
    ])
}
