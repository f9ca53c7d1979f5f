//! Device-resident sorts of buffers that nearly fill the device (table `lowmem`, group
//! `lowmem-device`), against the normal sort of the same keys at a size that fits, extrapolated
//! at its per-key rate (the targets: u32 keys filling 80% of the free memory within 2.5x,
//! stable `Kvp`s filling 70% within 4x).
//!
//! Rows `<shape>-fill-<percent>`: the data (`GPUSORT_BENCH_LOWMEM_GIB`, default 8 GiB) beside
//! ballast that leaves free only what that fill leaves (`GPUSORT_BENCH_LOWMEM_FILLS`, percent,
//! default 60,80,90), 2 runs, the input uploaded again before each; rows `<shape>-full-<percent>`:
//! the data itself filling that share of the free memory (`GPUSORT_BENCH_LOWMEM_FULL=0` skips
//! them), one run. Rows `<shape>-normal`: the normal sort of the ballast rows' data, 5 runs. CUDA
//! events around the call; each result checked sorted and a permutation of the input (a
//! multiset hash), `Kvp`s also stable (values are positions).

use std::sync::Arc;

use gpusort::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
use gpusort::cudarc::driver::{result, sys, CudaSlice, CudaStream, DeviceRepr, DriverError};
use gpusort::{Kvp, Sorter};
use rayon::prelude::*;
use serde_json::json;

use crate::inputs::{env_count, env_sizes, splitmix};
use crate::record::emit_times;

const GIB: usize = 1 << 30;
/// Host chunks the full-size inputs are made, uploaded and checked in.
const CHUNK: usize = 1 << 28;

/// An item the table sorts: made from its index, with a key to check the order by.
trait Item: DeviceRepr + Copy + Default + Send + Sync {
    const NAME: &'static str;
    fn make(i: u64) -> Self;
    /// The key, and for `Kvp`s the position, as one word ordered as the sort orders them.
    fn order_word(&self) -> u64;
    fn hash(&self) -> u64;
    fn sort(s: &Sorter, d: &mut CudaSlice<Self>, stream: &Arc<CudaStream>) -> Result<(), gpusort::SortError>;
}

impl Item for u32 {
    const NAME: &'static str = "keys-u32";
    fn make(i: u64) -> u32 {
        splitmix(77, i) as u32
    }
    fn order_word(&self) -> u64 {
        *self as u64
    }
    fn hash(&self) -> u64 {
        splitmix(5, *self as u64)
    }
    fn sort(s: &Sorter, d: &mut CudaSlice<u32>, stream: &Arc<CudaStream>) -> Result<(), gpusort::SortError> {
        s.sort_keys_device(d, stream)
    }
}

impl Item for Kvp {
    const NAME: &'static str = "kvp";
    fn make(i: u64) -> Kvp {
        // Keys repeat (4 copies each at 2^30 pairs): stability is visible. Their low bits count
        // the value's wraps past 2^32 pairs, so that among equal keys the values ascend.
        Kvp::new(splitmix(78, i) as u32 & !15 | (i >> 32).min(15) as u32, i as u32)
    }
    fn order_word(&self) -> u64 {
        (self.key as u64) << 32 | self.value as u64
    }
    fn hash(&self) -> u64 {
        splitmix(6, self.order_word())
    }
    fn sort(s: &Sorter, d: &mut CudaSlice<Kvp>, stream: &Arc<CudaStream>) -> Result<(), gpusort::SortError> {
        s.sort_kvp_device(d, stream)
    }
}

pub fn run(gpu: &Sorter) {
    let fills = env_sizes("GPUSORT_BENCH_LOWMEM_FILLS", &[60, 80, 90]);
    let bytes = env_count("GPUSORT_BENCH_LOWMEM_GIB", 8) * GIB;
    let full = std::env::var("GPUSORT_BENCH_LOWMEM_FULL").as_deref() != Ok("0");
    shape::<u32>(gpu, bytes, &fills, full.then_some(80));
    shape::<Kvp>(gpu, bytes, &fills, full.then_some(70));
}

fn shape<T: Item>(gpu: &Sorter, bytes: usize, fills: &[usize], full: Option<usize>) {
    let n = bytes / size_of::<T>();
    let ms_per_item = match normal::<T>(gpu, n) {
        Ok(times) => emit_times((GROUP, &format!("{}-normal", T::NAME), "random", n), &times, None, &[]) / n as f64,
        Err(e) => {
            eprintln!("skipped: {GROUP}/{}-normal: {e}", T::NAME);
            emit_times((GROUP, &format!("{}-normal", T::NAME), "random", n), &[], Some(&e), &[]);
            f64::NAN
        }
    };
    for &fill in fills {
        let sort = format!("{}-fill-{fill}", T::NAME);
        let r = low::<T>(gpu, n, Some(fill), 2);
        row(&sort, n, fill, ms_per_item, r);
    }
    if let Some(fill) = full {
        let Some(s) = gpu.cuda_context() else { return };
        gpu.release_memory();
        let Ok((free, _)) = s.mem_get_info() else { return };
        let n = free / 100 * fill / size_of::<T>();
        let sort = format!("{}-full-{fill}", T::NAME);
        let r = low::<T>(gpu, n, None, 1);
        row(&sort, n, fill, ms_per_item, r);
    }
}

const GROUP: &str = "lowmem-device";

fn row(sort: &str, n: usize, fill: usize, ms_per_item: f64, r: Result<Vec<f64>, String>) {
    let id = (GROUP, sort, "random", n);
    match r {
        Ok(times) => {
            let normal = ms_per_item * n as f64;
            let extra = [("fill_percent", json!(fill)), ("normal_ms", json!(normal))];
            let med = emit_times(id, &times, None, &extra);
            eprintln!("{sort}: {n} items, {med:.1} ms, normal extrapolated {normal:.1} ms: {:.2}x", med / normal);
        }
        Err(e) => {
            eprintln!("skipped: {GROUP}/{sort}/{n}: {e}");
            emit_times(id, &[], Some(&e), &[]);
        }
    }
}

/// The normal sort of `n` items: 5 runs after one warm-up, the input restored from a copy.
fn normal<T: Item>(gpu: &Sorter, n: usize) -> Result<Vec<f64>, String> {
    let e = |e: DriverError| e.to_string();
    let ctx = gpu.cuda_context().ok_or("not a cuda sorter")?;
    let stream = ctx.new_stream().map_err(e)?;
    let host: Vec<T> = (0..n as u64).into_par_iter().map(T::make).collect();
    let pristine = stream.clone_htod(&host).map_err(e)?;
    let mut d = stream.clone_htod(&host).map_err(e)?;
    let want = Check::of(&host);
    drop(host);
    let (start, end) =
        (ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?, ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?);
    let mut times = Vec::new();
    for run in 0..6 {
        stream.memcpy_dtod(&pristine, &mut d).map_err(e)?;
        start.record(&stream).map_err(e)?;
        T::sort(gpu, &mut d, &stream).map_err(|e| e.to_string())?;
        end.record(&stream).map_err(e)?;
        end.synchronize().map_err(e)?;
        if run == 0 {
            want.verify(&stream, &d)?;
        } else {
            times.push(start.elapsed_ms(&end).map_err(e)? as f64);
        }
    }
    Ok(times)
}

/// `runs` sorts of `n` items, each on a fresh upload: beside ballast leaving `(100 - fill) /
/// fill` of the data's bytes free, or (`fill` `None`) with nothing else on the device.
fn low<T: Item>(gpu: &Sorter, n: usize, fill: Option<usize>, runs: usize) -> Result<Vec<f64>, String> {
    let e = |e: DriverError| e.to_string();
    let ctx = gpu.cuda_context().ok_or("not a cuda sorter")?;
    let stream = ctx.new_stream().map_err(e)?;
    gpu.release_memory();
    // SAFETY: every item is written by the uploads before anything reads it.
    let mut d = unsafe { stream.alloc::<T>(n) }.map_err(e)?;
    let mut times = Vec::new();
    let (start, end) =
        (ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?, ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?);
    let mut ballast = None;
    for run in 0..runs {
        let want = upload(&stream, &mut d)?;
        if run == 0 {
            if let Some(fill) = fill {
                ballast = Some(take_all_but(gpu, &stream, n * size_of::<T>() / fill * (100 - fill))?);
            }
        }
        start.record(&stream).map_err(e)?;
        T::sort(gpu, &mut d, &stream).map_err(|e| e.to_string())?;
        end.record(&stream).map_err(e)?;
        end.synchronize().map_err(e)?;
        times.push(start.elapsed_ms(&end).map_err(e)? as f64);
        want.verify(&stream, &d)?;
    }
    drop(ballast);
    Ok(times)
}

/// Device memory held until dropped (`cuMemAlloc`, exact to the 2 MiB page), leaving `left`
/// bytes free.
struct Ballast(Vec<sys::CUdeviceptr>);

impl Drop for Ballast {
    fn drop(&mut self) {
        for &p in &self.0 {
            // SAFETY: allocated by `take_all_but`, freed once.
            let _ = unsafe { result::free_sync(p) };
        }
    }
}

fn take_all_but(gpu: &Sorter, stream: &Arc<CudaStream>, left: usize) -> Result<Ballast, String> {
    const GRAIN: usize = 2 << 20;
    let ctx = gpu.cuda_context().ok_or("not a cuda sorter")?;
    gpu.release_memory();
    stream.synchronize().map_err(|e| e.to_string())?;
    ctx.bind_to_thread().map_err(|e| e.to_string())?;
    let mut taken = Ballast(Vec::new());
    for _ in 0..64 {
        let (free, _) = ctx.mem_get_info().map_err(|e| e.to_string())?;
        if free < left + GRAIN {
            return Ok(taken);
        }
        let mut want = (free - left) / GRAIN * GRAIN;
        // SAFETY (both): never read or written; freed on drop.
        let piece = loop {
            match unsafe { result::malloc_sync(want) } {
                Ok(p) => break p,
                Err(_) if want > GRAIN => want = (want / 2).next_multiple_of(GRAIN),
                Err(e) => return Err(format!("ballast: {e}")),
            }
        };
        taken.0.push(piece);
    }
    Err("ballast: the free memory did not come down".into())
}

/// The input made in host chunks and uploaded into `d`; what its sorted form must hash to.
fn upload<T: Item>(stream: &Arc<CudaStream>, d: &mut CudaSlice<T>) -> Result<Check, String> {
    let mut sum = 0u64;
    for at in (0..d.len()).step_by(CHUNK) {
        let len = CHUNK.min(d.len() - at);
        let chunk: Vec<T> = (at as u64..(at + len) as u64).into_par_iter().map(T::make).collect();
        sum = sum.wrapping_add(chunk.par_iter().map(T::hash).reduce(|| 0, u64::wrapping_add));
        stream.memcpy_htod(&chunk, &mut d.slice_mut(at..at + len)).map_err(|e| e.to_string())?;
    }
    stream.synchronize().map_err(|e| e.to_string())?;
    Ok(Check { sum })
}

/// A sorted result's check: in order chunk by chunk and across chunks, the same multiset hash.
struct Check {
    sum: u64,
}

impl Check {
    fn of<T: Item>(items: &[T]) -> Check {
        Check { sum: items.par_iter().map(T::hash).reduce(|| 0, u64::wrapping_add) }
    }

    fn verify<T: Item>(&self, stream: &Arc<CudaStream>, d: &CudaSlice<T>) -> Result<(), String> {
        let (mut sum, mut last) = (0u64, None::<u64>);
        for at in (0..d.len()).step_by(CHUNK) {
            let len = CHUNK.min(d.len() - at);
            let chunk = stream.clone_dtoh(&d.slice(at..at + len)).map_err(|e| e.to_string())?;
            let ordered = chunk.par_windows(2).all(|w| w[0].order_word() <= w[1].order_word());
            let joins = last.is_none_or(|l| chunk.first().is_none_or(|f| l <= f.order_word()));
            if !ordered || !joins {
                return Err(format!("not sorted in the chunk from item {at}"));
            }
            last = chunk.last().map(Item::order_word);
            sum = sum.wrapping_add(chunk.par_iter().map(T::hash).reduce(|| 0, u64::wrapping_add));
        }
        if sum != self.sum {
            return Err("not a permutation of the input".into());
        }
        Ok(())
    }
}
