//! The host tables: host-to-host sorts of a caller's `Vec` against the PCIe floor
//! measured in the same run, and one large input out of core under device-memory budgets, each
//! beside the CPU backend on the same data.
//!
//! A plain timing loop, not criterion: criterion times at least 55 sorts per configuration, minutes
//! at 1G pairs. Before each sort the input is restored into the caller's buffer on every core (not
//! timed); wall time around the call; median. The first result and the last of every row are
//! checked: up to 16M items exactly (`check_pairs`, `check_keys`), past that for order and a
//! permutation signature, as the exact checks take seconds there.
//!
//! Records (one JSON line each, `GPUSORT_BENCH_JSON`; the common fields of `record::emit_times`):
//! - `host-bw`, sorts `h2d` and `d2h`, pattern `pinned`, n = bytes per copy: one pinned copy each
//!   way, CUDA events; `gb_s` (1e9 bytes per second at the median).
//! - `host`, sorts `cuda-kvp`, `cuda-kvp-page-locked` and `cuda-pairs-page-locked` (the caller's
//!   buffers page-locked; the latter at the split sizes), `cuda-pairs` (split u32 keys and
//!   values), `cuda-pairs-u64-values` (u32 keys, u64 values), `cuda-keys` (u32) and the same
//!   `cpu-` rows; `bytes` (each way: 8n, 8n, 12n, 4n); cuda rows `floor_ms`.
//! - `out-of-core`, Kvp: sorts `cuda-limit-<bytes>` and `cuda-no-limit` (`limit_bytes`, null for
//!   none), `cpu`, and `auto` (`Sorter::auto()`, with its `backend` for n and `describe`); `bytes`,
//!   `floor_ms` on every row.
//! - a meta line `host-seconds`: how long the whole section took.
//!
//! `GPUSORT_BENCH_TABLES` (comma separated: `in-core`, `small-keys`, `records`, `argsort`, `lexsort`,
//! `byte-keys`, `segments`, `topk`, `embed`, `lowmem`, `multi`, `out-of-core`) runs those tables
//! only. Unset, all of those run; the tuning tables run only when named: `first-call`, `crossover`,
//! `pool-kept` (`host_calls.rs`), `radix-device` (`radix_device.rs`), `networks` (`networks.rs`).

use std::time::Instant;

use gpusort::cudarc::driver::sys::CUevent_flags;
use gpusort::cudarc::driver::{DeviceRepr, DriverError, PinnedHostSlice, ValidAsZeroBits};
use gpusort::{SortError, Sorter};
use rayon::prelude::*;

use crate::inputs::{env_count, env_sizes, par_copy, splitmix};
use crate::record::{emit_meta, emit_times, json_num, median};
use serde_json::Value;

mod cases;
use cases::Split64Case;
pub use cases::{KvpCase, SplitCase};

const MIB: usize = 1 << 20;

/// Past this many items a result is checked for order and signature only.
const EXACT_CHECK_MAX: usize = 16 << 20;

/// Whether the host tables run, and whether anything else does.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    Off,
    On,
    Only,
}

/// `GPUSORT_BENCH_HOST` (0, 1, only) decides; unset, the tables run under `cargo bench` (criterion's
/// `--bench` mode, not `cargo test --benches`) with no filter or one starting with `host` or
/// `out-of-core`, so a filtered run of other groups does not wait a minute for them.
pub fn plan() -> Plan {
    match std::env::var("GPUSORT_BENCH_HOST").as_deref().map(str::trim) {
        Ok("0") => Plan::Off,
        Ok("1") => Plan::On,
        Ok("only") => Plan::Only,
        Ok(other) if !other.is_empty() => panic!("GPUSORT_BENCH_HOST={other}: expected 0, 1 or only"),
        _ => {
            let args: Vec<String> = std::env::args().skip(1).collect();
            let filter = args.iter().find(|a| !a.starts_with('-'));
            let ours = filter.is_none_or(|f| f.starts_with("host") || f.starts_with("out-of-core"));
            if args.iter().any(|a| a == "--bench") && ours {
                Plan::On
            } else {
                Plan::Off
            }
        }
    }
}

pub fn run() {
    let t0 = Instant::now();
    let Some(gpu) = crate::cuda_sorter("host") else { return };
    let open = *crate::FIRST_OPEN.get().expect("set by cuda_sorter");
    // A host-only run has no `cpu` group to say what the CPU column ran on.
    emit_meta("cpu", &Sorter::cpu().describe());
    // Measured once, when the first table that needs it runs (not before `first-call`).
    let floor = std::cell::OnceCell::new();
    let with_floor = |table: &dyn Fn(&Floor)| match floor.get_or_init(|| Floor::measure(&gpu)) {
        Ok(f) => table(f),
        Err(e) => eprintln!("skipped: host tables: the pinned bandwidth could not be measured: {e}"),
    };
    // Name, the table, and whether it runs when `GPUSORT_BENCH_TABLES` is unset (the report's
    // run); the others are tuning and sweep tables, run only when named.
    let tables: [(&str, &dyn Fn(), bool); 17] = [
        ("first-call", &|| crate::host_calls::first_call(&gpu, open), false),
        ("in-core", &|| with_floor(&|f| in_core(&gpu, f)), true),
        ("small-keys", &|| with_floor(&|f| crate::small_keys::run(&gpu, f)), true),
        ("records", &|| crate::records::run(&gpu), true),
        ("argsort", &|| with_floor(&|f| crate::argsort::run(&gpu, f)), true),
        ("lexsort", &|| with_floor(&|f| crate::lexsort::run(&gpu, f)), true),
        ("byte-keys", &|| with_floor(&|f| crate::byte_keys::run(&gpu, f)), true),
        ("segments", &|| crate::segments::run(&gpu), true),
        ("topk", &|| crate::topk::run(&gpu), true),
        ("embed", &|| crate::embed::run(&gpu), true),
        ("lowmem", &|| crate::lowmem::run(&gpu), true),
        ("multi", &|| crate::multi::run(&gpu), true),
        ("out-of-core", &|| with_floor(&|f| out_of_core(&gpu, f)), true),
        ("crossover", &|| crate::host_calls::crossover(&gpu), false),
        ("pool-kept", &|| crate::host_calls::pool_kept(&gpu), false),
        ("radix-device", &|| crate::radix_device::run(&gpu), false),
        ("networks", &|| crate::networks::run(&gpu), false),
    ];
    // `GPUSORT_BENCH_TABLES` (names, comma separated) runs those tables only.
    let only = std::env::var("GPUSORT_BENCH_TABLES").ok();
    for (name, table, default) in tables {
        let chosen = match only.as_deref() {
            Some(o) => o.split(',').any(|t| t.trim() == name),
            None => default,
        };
        if chosen {
            table();
        }
    }
    // The pinned copy of the largest input (8 GiB at 1G pairs) and the device pool would
    // otherwise stay for the criterion groups.
    gpu.release_memory();
    let secs = t0.elapsed().as_secs_f64();
    eprintln!("host tables: {secs:.0} s");
    emit_meta("host-seconds", &format!("{secs:.0}"));
}

// ---------------------------------------------------------------------------------------------
// The floor

/// The pinned copy rates of this run, bytes per millisecond each way.
pub struct Floor {
    up: f64,
    down: f64,
}

impl Floor {
    /// One upload and one download of `bytes` at the pinned rates, one after the other: no sort
    /// can send its first item back before its last one is up, so none can beat this.
    fn ms(&self, bytes: usize) -> f64 {
        self.ms_each(bytes, bytes)
    }

    /// `up` bytes up, then `down` bytes down (an argsort's keys and indices).
    pub fn ms_each(&self, up: usize, down: usize) -> f64 {
        up as f64 / self.up + down as f64 / self.down
    }

    /// Median of 7 copies each way (after 2) of `GPUSORT_BENCH_BW_MIB` (512) MiB between a pinned
    /// host buffer and the device, CUDA events around each copy.
    fn measure(s: &Sorter) -> Result<Floor, String> {
        let e = |e: DriverError| e.to_string();
        let bytes = env_count("GPUSORT_BENCH_BW_MIB", 512) * MIB;
        let ctx = s.cuda_context().ok_or("not a cuda sorter")?;
        let stream = ctx.new_stream().map_err(e)?;
        // Ordinary pinned memory (flags 0): write-combined memory, `alloc_pinned`'s default, is
        // not what the sort stages through.
        // SAFETY: the host buffer is filled before the first copy reads it; the device buffer is
        // written by the first upload before any download reads it.
        let mut host = unsafe { ctx.alloc_pinned_with_flags::<u8>(bytes, 0) }.map_err(e)?;
        host.as_mut_slice().map_err(e)?.fill(0xa5);
        let mut dev = unsafe { stream.alloc::<u8>(bytes) }.map_err(e)?;
        let start = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(e)?;
        let end = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT)).map_err(e)?;
        let mut rate = |up: bool| -> Result<f64, String> {
            let mut times = Vec::new();
            for r in 0..9 {
                start.record(&stream).map_err(e)?;
                if up {
                    stream.memcpy_htod(&host, &mut dev).map_err(e)?;
                } else {
                    stream.memcpy_dtoh(&dev, &mut host).map_err(e)?;
                }
                end.record(&stream).map_err(e)?;
                end.synchronize().map_err(e)?;
                if r >= 2 {
                    times.push(start.elapsed_ms(&end).map_err(e)? as f64);
                }
            }
            let per_ms = bytes as f64 / median(&times);
            let id = ("host-bw", if up { "h2d" } else { "d2h" }, "pinned", bytes);
            emit_times(id, &times, None, &[("gb_s", json_num(per_ms / 1e6))]);
            eprintln!("host-bw/{}: {:.1} GB/s", id.1, per_ms / 1e6);
            Ok(per_ms)
        };
        let up = rate(true)?;
        let down = rate(false)?;
        Ok(Floor { up, down })
    }
}

// ---------------------------------------------------------------------------------------------
// What is sorted, and how it is checked

/// Wrapping sums and xors of the keys and of the values, and a sum of a hash of each pair: the
/// same for every permutation, and almost surely not when an item is lost, duplicated or parted
/// from its value. One pass on every core.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Signature {
    key_sum: u64,
    key_xor: u64,
    value_sum: u64,
    value_xor: u64,
    pair_sum: u64,
}

impl Signature {
    fn of(items: impl ParallelIterator<Item = (u32, u32)>) -> Signature {
        items
            .fold(Signature::default, |s, (k, v)| {
                let one = Signature {
                    key_sum: k as u64,
                    key_xor: k as u64,
                    value_sum: v as u64,
                    value_xor: v as u64,
                    pair_sum: splitmix(k as u64, v as u64),
                };
                s.merge(one)
            })
            .reduce(Signature::default, Signature::merge)
    }

    fn merge(self, o: Signature) -> Signature {
        Signature {
            key_sum: self.key_sum.wrapping_add(o.key_sum),
            key_xor: self.key_xor ^ o.key_xor,
            value_sum: self.value_sum.wrapping_add(o.value_sum),
            value_xor: self.value_xor ^ o.value_xor,
            pair_sum: self.pair_sum.wrapping_add(o.pair_sum),
        }
    }
}

/// The large-input check: ascending keys (on every core) and the input's signature.
fn check_large<T: Sync>(
    v: &[T],
    key: impl Fn(&T) -> u32 + Sync,
    got: Signature,
    want: Signature,
) -> Result<(), String> {
    if let Some(i) = v.par_windows(2).position_any(|w| key(&w[0]) > key(&w[1])) {
        return Err(format!("not sorted at {}: key {} then {}", i + 1, key(&v[i]), key(&v[i + 1])));
    }
    if got != want {
        return Err(format!("not a permutation of the input: signature {got:?}, the input's {want:?}"));
    }
    Ok(())
}

/// One shape of host data: a pristine input and the caller's buffers it is restored into.
pub trait Case {
    fn len(&self) -> usize;
    /// Bytes the sort moves over the bus each way.
    fn bytes(&self) -> usize;
    fn restore(&mut self);
    fn sort(&mut self, s: &Sorter) -> Result<(), SortError>;
    fn check(&self) -> Result<(), String>;
}

/// The caller's buffer of a case: an ordinary `Vec`, or page-locked memory (as `cudaHostAlloc`
/// or torch's `pin_memory()` give it), which the GPU sorts copy in place from 64 MiB.
pub enum Work<T: DeviceRepr> {
    Plain(Vec<T>),
    Locked(PinnedHostSlice<T>, usize),
}

impl<T: DeviceRepr + ValidAsZeroBits + Copy + Send + Sync> Work<T> {
    /// A copy of `input`, page-locked in `locked`'s context when that is given.
    fn of(input: &[T], locked: Option<&Sorter>) -> Result<Work<T>, String> {
        let Some(s) = locked else {
            // Collected on every core: `clone` would fault 8 GiB in on one at 1G pairs.
            return Ok(Work::Plain(input.par_iter().copied().collect()));
        };
        let ctx = s.cuda_context().ok_or("not a cuda sorter")?;
        // Cached memory (flags 0): `alloc_pinned`'s default is write-combined, which the cores
        // read slowly. SAFETY: filled below before anything reads it.
        let buf = unsafe { ctx.alloc_pinned_with_flags::<T>(input.len().max(1), 0) }.map_err(|e| e.to_string())?;
        let mut w = Work::Locked(buf, input.len());
        par_copy(w.get_mut(), input);
        Ok(w)
    }

    fn get(&self) -> &[T] {
        match self {
            Work::Plain(v) => v,
            Work::Locked(b, n) => &b.as_slice().expect("page-locked view")[..*n],
        }
    }

    fn get_mut(&mut self) -> &mut [T] {
        match self {
            Work::Plain(v) => v,
            Work::Locked(b, n) => &mut b.as_mut_slice().expect("page-locked view")[..*n],
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Timing

/// (untimed warm-up runs, timed runs) at n; `GPUSORT_BENCH_HOST_REPS` sets the timed runs of
/// every row. The CPU backend gets fewer: about 1.7 s a sort at 512M pairs on 16 cores.
fn runs(n: usize, cpu: bool) -> (usize, usize) {
    if let Ok(r) = std::env::var("GPUSORT_BENCH_HOST_REPS") {
        return (1, r.trim().parse::<usize>().expect("GPUSORT_BENCH_HOST_REPS").max(1));
    }
    match (cpu, n) {
        (false, n) if n <= 64 * MIB => (2, 11),
        (false, n) if n <= 256 * MIB => (2, 7),
        (false, n) if n <= 512 * MIB => (1, 5),
        (false, _) => (1, 3),
        (true, n) if n <= 16 * MIB => (1, 7),
        (true, n) if n <= 64 * MIB => (1, 5),
        (true, _) => (1, 3),
    }
}

/// Times `s` on `case` and writes the record; the first result and the last are checked.
pub fn measure(group: &str, sort: &str, case: &mut dyn Case, s: &Sorter, cpu: bool, extra: &[(&str, Value)]) {
    let n = case.len();
    let (warm, reps) = runs(n, cpu);
    let mut times = Vec::with_capacity(reps);
    let mut error = None;
    for r in 0..warm + reps {
        case.restore();
        let t = Instant::now();
        let sorted = case.sort(s);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let checked = sorted.map_err(|e| e.to_string()).and_then(|()| match r == 0 || r + 1 == warm + reps {
            true => case.check(),
            false => Ok(()),
        });
        if let Err(e) = checked {
            eprintln!("failed: {group}/{sort}/random/{n}: {e}");
            error = Some(e);
            times.clear();
            break;
        }
        if r >= warm {
            times.push(ms);
        }
    }
    let med = emit_times((group, sort, "random", n), &times, error.as_deref(), extra);
    if error.is_none() {
        let extra: String = extra.iter().map(|(k, v)| format!(" {k}={v}")).collect();
        eprintln!("{group}/{sort}/random/{n}: {med:.3} ms, median of {}{extra}", times.len());
    }
}

/// The table's rows at one size: each shape on the GPU, then on the CPU backend up to
/// `GPUSORT_BENCH_HOST_CPU_MAX` items.
fn in_core(gpu: &Sorter, floor: &Floor) {
    let kvp = env_sizes("GPUSORT_BENCH_HOST_SIZES", &[MIB, 16 * MIB, 64 * MIB, 256 * MIB, 512 * MIB, 1024 * MIB]);
    let split = env_sizes("GPUSORT_BENCH_HOST_SPLIT_SIZES", &[64 * MIB, 256 * MIB]);
    let locked = env_sizes("GPUSORT_BENCH_HOST_LOCKED_SIZES", &[MIB, 16 * MIB, 64 * MIB, 256 * MIB, 512 * MIB]);
    let cpu_max = env_count("GPUSORT_BENCH_HOST_CPU_MAX", 256 * MIB);
    let mut sizes: Vec<usize> = kvp.iter().chain(&split).chain(&locked).copied().collect();
    sizes.sort_unstable();
    sizes.dedup();
    let cpu = Sorter::cpu();
    for n in sizes {
        let mut shapes = Vec::new();
        if locked.contains(&n) {
            shapes.push("kvp-page-locked");
        }
        if kvp.contains(&n) {
            shapes.push("kvp");
        }
        if split.contains(&n) {
            shapes.extend(["pairs-page-locked", "pairs", "pairs-u64-values", "keys"]);
        }
        for shape in shapes {
            let page_locked = shape.ends_with("-page-locked").then_some(gpu);
            let case: Result<Box<dyn Case>, String> = match shape.trim_end_matches("-page-locked") {
                "kvp" => KvpCase::new(n, page_locked).map(|c| Box::new(c) as Box<dyn Case>),
                "pairs-u64-values" => Ok(Box::new(Split64Case::new(n))),
                "keys" => SplitCase::new(n, false, None).map(|c| Box::new(c) as Box<dyn Case>),
                _ => SplitCase::new(n, true, page_locked).map(|c| Box::new(c) as Box<dyn Case>),
            };
            let mut case = match case {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("skipped: host/cuda-{shape}/{n}: {e}");
                    continue;
                }
            };
            let bytes = case.bytes();
            let b = ("bytes", Value::from(bytes));
            measure("host", &format!("cuda-{shape}"), &mut *case, gpu, false, &[b.clone(), floor_field(floor, bytes)]);
            if n <= cpu_max && page_locked.is_none() {
                measure("host", &format!("cpu-{shape}"), &mut *case, &cpu, true, &[b]);
            }
        }
    }
}

fn floor_field(floor: &Floor, bytes: usize) -> (&'static str, Value) {
    ("floor_ms", json_num(floor.ms(bytes)))
}

/// Device-memory budgets from `GPUSORT_BENCH_OOC_BUDGETS`: MiB, `none` for no limit.
fn budgets() -> Vec<Option<usize>> {
    let s = std::env::var("GPUSORT_BENCH_OOC_BUDGETS").unwrap_or_else(|_| "256,512,2048,none".into());
    s.split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| if t == "none" { None } else { Some(t.parse::<usize>().expect("GPUSORT_BENCH_OOC_BUDGETS") * MIB) })
        .collect()
}

/// `GPUSORT_BENCH_OOC_N` (512M) pairs on the CPU backend, on the GPU under each budget, and
/// through `Sorter::auto()`.
fn out_of_core(gpu: &Sorter, floor: &Floor) {
    let n = env_count("GPUSORT_BENCH_OOC_N", 512 * MIB);
    if n == 0 {
        return;
    }
    let mut case = KvpCase::new(n, None).expect("ordinary memory");
    let bytes = case.bytes();
    let common = [("bytes", Value::from(bytes)), floor_field(floor, bytes)];
    measure("out-of-core", "cpu", &mut case, &Sorter::cpu(), true, &common);
    for budget in budgets() {
        let (s, sort) = match budget {
            Some(b) => (gpu.clone().with_device_memory_limit(b), format!("cuda-limit-{b}")),
            None => (gpu.clone(), "cuda-no-limit".to_string()),
        };
        let limit = ("limit_bytes", Value::from(budget));
        measure("out-of-core", &sort, &mut case, &s, false, &[common[0].clone(), common[1].clone(), limit]);
    }
    let auto = Sorter::auto();
    let what = [("backend", Value::from(auto.backend_for(n).to_string())), ("describe", Value::from(auto.describe()))];
    let fields: Vec<_> = common.iter().chain(&what).cloned().collect();
    measure("out-of-core", "auto", &mut case, &auto, false, &fields);
}
