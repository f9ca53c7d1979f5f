//! Device-resident calls as programs that embed them make them (table `embed`, group
//! `embed-device`): each call (sorts, argsort, top-k) on the pool's scratch (`direct`; top-k
//! into new buffers, as `top_k_device` returns them), on scratch the caller lent
//! (`scratch`), and captured with that scratch into a CUDA graph and replayed (`graph`). CUDA
//! events around the call (or the graph's launch) alone, the input restored outside them;
//! 3 warm-ups, median of 15; the first result of each checked against the CPU backend.

use std::sync::Arc;

use gpusort::cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
use gpusort::cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use gpusort::cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, DriverError, ValidAsZeroBits};
use gpusort::{DeviceCall, Key, KeyType, SortError, Sorter};
use rayon::prelude::*;

use crate::inputs::{env_sizes, splitmix};
use crate::record::emit_times;

const MIB: usize = 1 << 20;
const WARMUPS: usize = 3;
const RUNS: usize = 15;

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Keys,
    Pairs,
    /// Into u64 indices.
    Argsort,
    /// The `TOP_K` first keys and their positions.
    TopK,
}

/// The k of the top-k rows (a typical beam or candidate list).
const TOP_K: usize = 1024;

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Direct,
    Scratch,
    Graph,
}

pub fn run(gpu: &Sorter) {
    for n in env_sizes("GPUSORT_BENCH_EMBED_SIZES", &[16 * MIB, 64 * MIB]) {
        let z = move |i: u64| splitmix(n as u64, i);
        let narrow: Vec<u32> = (0..n as u64).into_par_iter().map(|i| z(i) as u32).collect();
        let wide: Vec<u64> = (0..n as u64).into_par_iter().map(z).collect();
        rows(gpu, "keys-u32", Shape::Keys, &narrow);
        rows(gpu, "keys-u64", Shape::Keys, &wide);
        rows(gpu, "pairs-u32", Shape::Pairs, &narrow);
        rows(gpu, "argsort-u32-u64", Shape::Argsort, &narrow);
        rows(
            gpu,
            "topk-1024-f32",
            Shape::TopK,
            &narrow.par_iter().map(|&k| f32::from_bits(k >> 2)).collect::<Vec<_>>(),
        );
    }
}

fn rows<K: Key + DeviceRepr + ValidAsZeroBits>(gpu: &Sorter, name: &str, shape: Shape, keys: &[K]) {
    for (mode, label) in [(Mode::Direct, "direct"), (Mode::Scratch, "scratch"), (Mode::Graph, "graph")] {
        let sort = format!("{name}-{label}");
        let id = ("embed-device", sort.as_str(), "random", keys.len());
        match time(gpu, shape, mode, keys) {
            Ok(times) => emit_times(id, &times, None, &[]),
            Err(e) => {
                eprintln!("skipped: embed-device/{sort}/random/{}: {e}", keys.len());
                emit_times(id, &[], Some(&e), &[])
            }
        };
    }
}

/// The device buffers of one row: the input kept, the buffers the call works on.
struct Buffers<K> {
    pristine: CudaSlice<K>,
    keys: CudaSlice<K>,
    pristine_values: CudaSlice<u32>,
    values: CudaSlice<u32>,
    out: CudaSlice<u64>,
    /// A top-k's keys and positions.
    top: (CudaSlice<K>, CudaSlice<u64>),
    scratch: CudaSlice<u8>,
}

impl<K: Key + DeviceRepr + ValidAsZeroBits> Buffers<K> {
    fn call(&mut self, s: &Sorter, shape: Shape, lent: bool, stream: &Arc<CudaStream>) -> Result<(), SortError> {
        let Buffers { pristine, keys, values, out, top, scratch, .. } = self;
        match (shape, lent) {
            (Shape::TopK, false) => {
                let t = s.top_k_device(pristine, TOP_K, stream)?;
                *top = (t.keys, t.indices);
                Ok(())
            }
            (Shape::TopK, true) => s.top_k_device_with_scratch(pristine, &mut top.0, &mut top.1, scratch, stream),
            (Shape::Keys, false) => s.sort_keys_device(keys, stream),
            (Shape::Keys, true) => s.sort_keys_device_with_scratch(keys, scratch, stream),
            (Shape::Pairs, false) => s.sort_pairs_device(keys, values, stream),
            (Shape::Pairs, true) => s.sort_pairs_device_with_scratch(keys, values, scratch, stream),
            (Shape::Argsort, false) => s.argsort_device(pristine, out, stream),
            (Shape::Argsort, true) => s.argsort_device_with_scratch(pristine, out, scratch, stream),
        }
    }

    fn restore(&mut self, stream: &Arc<CudaStream>) -> Result<(), DriverError> {
        stream.memcpy_dtod(&self.pristine, &mut self.keys)?;
        stream.memcpy_dtod(&self.pristine_values, &mut self.values)
    }

    /// The result as positions: the values of a pairs sort, the indices of an argsort, the keys'
    /// ordered bits of a keys sort.
    fn result(&self, shape: Shape, stream: &Arc<CudaStream>) -> Result<Vec<u64>, DriverError> {
        Ok(match shape {
            Shape::Keys => stream.clone_dtoh(&self.keys)?.into_iter().map(|k: K| k.to_ordered_bits().into()).collect(),
            Shape::Pairs => stream.clone_dtoh(&self.values)?.into_iter().map(u64::from).collect(),
            Shape::Argsort => stream.clone_dtoh(&self.out)?,
            Shape::TopK => stream.clone_dtoh(&self.top.1)?,
        })
    }
}

fn expected<K: Key>(shape: Shape, keys: &[K]) -> Result<Vec<u64>, String> {
    let cpu = Sorter::cpu();
    Ok(match shape {
        Shape::Keys => {
            let mut v = keys.to_vec();
            cpu.sort_keys(&mut v).map_err(|e| e.to_string())?;
            v.into_iter().map(|k| k.to_ordered_bits().into()).collect()
        }
        Shape::TopK => cpu.argsort(keys).map_err(|e| e.to_string())?[..TOP_K].iter().map(|&i| u64::from(i)).collect(),
        _ => cpu.argsort(keys).map_err(|e| e.to_string())?.into_iter().map(u64::from).collect(),
    })
}

fn time<K: Key + DeviceRepr + ValidAsZeroBits>(
    s: &Sorter,
    shape: Shape,
    mode: Mode,
    keys: &[K],
) -> Result<Vec<f64>, String> {
    let e = |e: DriverError| e.to_string();
    let ctx = s.cuda_context().ok_or("not a cuda sorter")?;
    let stream: Arc<CudaStream> = ctx.new_stream().map_err(e)?;
    let n = keys.len();
    let call = match shape {
        Shape::Keys => DeviceCall::Keys(K::TYPE),
        Shape::Pairs => DeviceCall::Pairs(K::TYPE),
        Shape::Argsort => DeviceCall::Argsort { keys: K::TYPE, indices: KeyType::U64 },
        Shape::TopK => DeviceCall::TopK { keys: K::TYPE, k: TOP_K },
    };
    let bytes = s.device_scratch_bytes(call, n).map_err(|e| e.to_string())?;
    let positions: Vec<u32> = (0..n as u32).into_par_iter().collect();
    let mut b = Buffers {
        pristine: stream.clone_htod(keys).map_err(e)?,
        keys: stream.clone_htod(keys).map_err(e)?,
        pristine_values: stream.clone_htod(&positions).map_err(e)?,
        values: stream.clone_htod(&positions).map_err(e)?,
        out: stream.alloc_zeros(n).map_err(e)?,
        top: (stream.alloc_zeros(TOP_K).map_err(e)?, stream.alloc_zeros(TOP_K).map_err(e)?),
        scratch: stream.alloc_zeros(bytes.max(1)).map_err(e)?,
    };
    let graph = match mode {
        Mode::Graph => {
            stream.synchronize().map_err(e)?;
            stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL).map_err(e)?;
            let r = b.call(s, shape, true, &stream);
            let g = stream.end_capture(CUgraphInstantiate_flags(0)).map_err(e)?;
            r.map_err(|e| e.to_string())?;
            Some(g.ok_or("an empty graph")?)
        }
        _ => None,
    };
    let want = expected(shape, keys)?;
    let (start, end) =
        (ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?, ctx.new_event(Some(CU_EVENT_DEFAULT)).map_err(e)?);
    let mut times = Vec::with_capacity(RUNS);
    for run in 0..1 + WARMUPS + RUNS {
        b.restore(&stream).map_err(e)?;
        start.record(&stream).map_err(e)?;
        match &graph {
            Some(g) => g.launch().map_err(e)?,
            None => b.call(s, shape, mode == Mode::Scratch, &stream).map_err(|e| e.to_string())?,
        }
        end.record(&stream).map_err(e)?;
        end.synchronize().map_err(e)?;
        if run == 0 && b.result(shape, &stream).map_err(e)? != want {
            return Err("the result differs from the CPU backend's".into());
        } else if run > WARMUPS {
            times.push(start.elapsed_ms(&end).map_err(e)? as f64);
        }
    }
    Ok(times)
}
