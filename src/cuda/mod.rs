//! The CUDA backend. A host sort goes one way, each layer calling only the ones below it:
//! this module turns the job into `HostData` (how its items are staged) and a `DeviceSort`
//! (which kernels) and reads the budget, which makes the plan: one round trip (`incore`) or
//! runs and a merge (`outofcore`); both are built from the steps in `transfer` (chunks, pinned
//! staging, upload, download), and `dispatch` runs the kernels. The device-resident entry
//! points go to `dispatch` directly.

mod argsort;
pub(crate) mod columns;
mod counting;
mod device;
pub(crate) mod device_calls;
mod dispatch;
pub(crate) mod foreign;
mod host_keys;
mod hostdata;
mod incore;
mod inplace;
mod key_class;
pub(crate) mod lexsort;
mod lowmem;
mod modules;
pub(crate) mod multi;
mod needs;
pub(crate) mod network;
mod outofcore;
mod overlap;
mod pinned;
mod positions;
pub(crate) mod radix;
mod records;
pub(crate) mod scratch;
mod segments;
mod select;
mod small_keys;
#[cfg(test)]
mod smoke;
mod staging;
mod streams;
mod topk;
mod transfer;

use std::sync::Arc;

use rayon::prelude::*;

pub(crate) use device::{device_count, gpu, Gpu};
pub(crate) use device_calls::Lent;

use crate::backend::{with_keys, with_positions, with_view, BackendKind, Position, SortBackend, SortJob};
use crate::{Algorithm, Kvp, Order, SortError};
use dispatch::bytes_per_item;
use dispatch::{DeviceItem, DeviceSort, WideKey};
use host_keys::Bits32;
use hostdata::{Direct, HostData, SplitAsKvp};
use key_class::CudaKey;
use outofcore::need_bytes;
use radix::RadixKey;
use staging::Plain;

/// Device bytes per pair, and in all, of a radix sort of `n` split pairs of `K` keys sent as two
/// arrays.
fn split_need<K>(n: usize) -> (usize, usize) {
    // Split pairs of 32-bit keys take a second copy as (key, value) items (radix.rs `Run::second_items`).
    let second_items = if std::mem::size_of::<K>() == 4 { 8 } else { 0 };
    let per_item = bytes_per_item::<K>(Algorithm::Radix) + bytes_per_item::<u32>(Algorithm::Radix) + second_items;
    (per_item, n.saturating_mul(per_item).saturating_add(outofcore::FIXED_BYTES))
}

/// The most split pairs of `K` keys whose round trip as two arrays the held buffer takes: it keeps
/// both inputs, the second 64-byte aligned (`staging::split_offset`).
fn split_held_run<K>() -> usize {
    (staging::held_cap().saturating_sub(64) / (std::mem::size_of::<K>() + std::mem::size_of::<u32>())).max(1)
}

#[derive(Debug, Clone)]
pub(crate) struct CudaBackend {
    pub(crate) gpu: Arc<Gpu>,
    /// Device bytes a host sort may use; larger sorts run out of core (see `host_sort`).
    pub(crate) device_limit: Option<usize>,
    /// Out-of-core sorts of more runs fail with `OutOfMemory` instead (`Sorter::auto()` sets it,
    /// so that the CPU takes sorts it runs faster).
    pub(crate) max_runs: Option<usize>,
    /// The devices a large host sort is spread over, one share each, `gpu` first (a device listed
    /// twice takes two shares); empty: `gpu` alone.
    pub(crate) spread: Vec<Arc<Gpu>>,
    /// Host sorts of at least this many items are spread over `spread`.
    pub(crate) spread_from: usize,
}

/// Without a set limit, a sort runs in core when it needs at most 9/10 of the device's free
/// memory; otherwise the pool's idle memory is handed back and the sort runs out of core within
/// 8/10 of what is free then (other users and fragmentation take the rest).
const IN_CORE_SHARE: (usize, usize) = (9, 10);
const OUT_OF_CORE_SHARE: (usize, usize) = (8, 10);
/// Sorts needing at most this much device memory skip reading the free memory (30-100 us per
/// call on the H200 machine, a tenth of a 1M-pair host sort): on a device without even this much
/// free they fail with `OutOfMemory`, data untouched, and `auto()` sorts them on the CPU.
const ASSUME_FITS_BYTES: usize = 64 << 20;

impl CudaBackend {
    pub(crate) fn open(ordinal: usize) -> Result<Self, SortError> {
        Ok(CudaBackend::on(gpu(ordinal)?))
    }

    /// The device `gpu` alone, without limits.
    pub(crate) fn on(gpu: Arc<Gpu>) -> Self {
        CudaBackend {
            gpu,
            device_limit: None,
            max_runs: None,
            spread: Vec::new(),
            spread_from: crate::tuning::MULTI_GPU_FROM_ITEMS,
        }
    }

    /// The devices `ordinals`, the first one for everything but the host sorts spread over all
    /// (`multi`); peers are connected where the topology allows.
    pub(crate) fn open_devices(ordinals: &[usize]) -> Result<Self, SortError> {
        let Some(&first) = ordinals.first() else {
            return Err(SortError::InvalidArgument("a list of CUDA devices needs at least one".into()));
        };
        let mut backend = CudaBackend::open(first)?;
        if ordinals.len() > 1 {
            let gpus = ordinals.iter().map(|&o| gpu(o)).collect::<Result<Vec<_>, _>>()?;
            multi::connect(&gpus);
            backend.spread = gpus;
        }
        Ok(backend)
    }

    /// Frees what the backend keeps between calls: the pinned staging and the device memory the
    /// stream-ordered pool holds.
    pub(crate) fn release_memory(&self) {
        self.devices().into_iter().for_each(|g| g.release_memory());
    }

    /// Each device of the sorter once, the first one first.
    fn devices(&self) -> Vec<&Arc<Gpu>> {
        let mut all = vec![&self.gpu];
        for g in &self.spread {
            if !all.iter().any(|h| h.ordinal == g.ordinal) {
                all.push(g);
            }
        }
        all
    }

    /// Pinned host bytes kept between calls now.
    pub(crate) fn kept_host_bytes(&self) -> usize {
        self.devices().iter().map(|g| g.staging.kept_bytes()).sum()
    }

    /// The device budget for a host sort needing `need` bytes: the set limit, else none when the
    /// sort fits the free memory, else 80% of the free memory. The free memory is read at every
    /// call but the smallest: a device shared with other programs (or with the caller's own
    /// buffers) has less than its size.
    fn budget(&self, need: usize) -> Result<Option<usize>, SortError> {
        self.budget_on(&self.gpu, need)
    }

    /// `budget` on one device of the sorter.
    fn budget_on(&self, gpu: &Gpu, need: usize) -> Result<Option<usize>, SortError> {
        if let Some(limit) = self.device_limit {
            return Ok(Some(limit));
        }
        if need <= ASSUME_FITS_BYTES {
            return Ok(None);
        }
        gpu.ctx.bind_to_thread().map_err(SortError::driver("cuCtxSetCurrent", 0))?;
        let free = || gpu.ctx.mem_get_info().map(|(f, _)| f).map_err(SortError::driver("cuMemGetInfo", 0));
        if need <= free()? / IN_CORE_SHARE.1 * IN_CORE_SHARE.0 {
            return Ok(None);
        }
        // What the pool keeps from earlier sorts is free for this one.
        gpu.trim_pool();
        let usable = free()? / OUT_OF_CORE_SHARE.1 * OUT_OF_CORE_SHARE.0;
        Ok((need > usable).then_some(usable))
    }

    /// Sorts host data on the device: one pipelined round trip when the sort fits the budget,
    /// else out of core. Either way the data is left untouched when an error is returned.
    pub(crate) fn host_sort<H: HostData>(&self, data: &mut H, sort: DeviceSort) -> Result<(), SortError>
    where
        H::Item: DeviceItem,
    {
        if self.spreads::<H::Item>(data.len(), sort.algorithm)? {
            return multi::sort(&self.spread, data, sort.order);
        }
        let need = need_bytes::<H::Item>(data.len(), sort.algorithm);
        match self.budget(need)? {
            Some(limit) if need > limit => {
                let run = self.run_within(need, data.len(), outofcore::run_len::<H::Item>(limit, sort.algorithm))?;
                outofcore::sort(&self.gpu, data, run, &sort)
            }
            _ => incore::round_trip(&self.gpu, data, &sort),
        }
    }

    /// Whether a host sort of `n` items is spread over the sorter's devices (`multi`): radix
    /// sorts (stable, which the exchange needs) from `spread_from` items, when every device
    /// holds its shares in core; otherwise the first device sorts it alone, out of core if need be.
    fn spreads<T: DeviceItem>(&self, n: usize, algorithm: Algorithm) -> Result<bool, SortError> {
        let shares = self.spread.len();
        if T::SPREAD.is_none()
            || shares < 2
            || n < self.spread_from.max(shares)
            || !matches!(algorithm, Algorithm::Auto | Algorithm::Radix)
        {
            return Ok(false);
        }
        let per_share = need_bytes::<T>(n.div_ceil(shares), Algorithm::Radix);
        for gpu in &self.spread {
            let on_it = self.spread.iter().filter(|g| g.ordinal == gpu.ordinal).count();
            let need = per_share.saturating_mul(on_it);
            if self.budget_on(gpu, need)?.is_some_and(|limit| need > limit) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Split pairs of 32-bit keys. In core and within the held buffer, from
    /// `tuning::SPLIT_ROUND_TRIP_FROM` pairs up: one round trip of the two arrays as they are
    /// (`incore::round_trip_pairs`: plain copies both ways, the split-pairs kernels). Otherwise as
    /// `Kvp`s (`SplitAsKvp`), which every host path takes (out of core, several devices, the
    /// sorting networks).
    pub(crate) fn sort_pairs_narrow<K: Bits32 + DeviceItem + RadixKey + Plain>(
        &self,
        keys: &mut [K],
        values: &mut [u32],
        sort: DeviceSort,
    ) -> Result<(), SortError> {
        let n = keys.len();
        let from = crate::hooks::split_pairs_from().unwrap_or(crate::tuning::SPLIT_ROUND_TRIP_FROM);
        if matches!(sort.algorithm, Algorithm::Auto | Algorithm::Radix)
            && n >= from
            && !self.spreads::<Kvp>(n, sort.algorithm)?
        {
            let (_, need) = split_need::<K>(n);
            if n <= split_held_run::<K>() && self.budget(need)?.is_none_or(|limit| need <= limit) {
                return incore::round_trip_pairs(&self.gpu, keys, values, &sort);
            }
        }
        self.host_sort(&mut SplitAsKvp { keys, values }, sort)
    }

    /// Split pairs of 64-bit keys: one round trip of two arrays, or runs of them merged on the CPU
    /// (`outofcore::sort_split_wide`) past the budget or past what the held buffer takes (their
    /// round trip keeps both inputs there).
    pub(crate) fn sort_pairs_wide<K: WideKey>(
        &self,
        keys: &mut [K],
        values: &mut [u32],
        sort: DeviceSort,
    ) -> Result<(), SortError> {
        let n = keys.len();
        let (per_item, need) = split_need::<K>(n);
        let held_run = split_held_run::<K>();
        let run = match self.budget(need)? {
            Some(limit) if need > limit => self.run_within(need, n, outofcore::run_items(limit, per_item))?,
            _ => n,
        };
        if run.min(held_run) >= n {
            incore::round_trip_pairs(&self.gpu, keys, values, &sort)
        } else {
            outofcore::sort_split_wide(&self.gpu, keys, values, run.min(held_run), &sort)
        }
    }

    /// Argsort of 64-bit keys past the device budget: a copy of the keys sorted as split pairs
    /// with their positions as values (runs merged on the host), the positions then written to
    /// `out`, which holds what it held until then.
    pub(crate) fn argsort_wide<K: WideKey, P: Position>(
        &self,
        keys: &[K],
        out: &mut [P],
        sort: DeviceSort,
    ) -> Result<(), SortError> {
        let mut copy = hostdata::ZeroedBuf::<K>::new(keys.len())?;
        let mut positions = hostdata::ZeroedBuf::<u32>::new(keys.len())?;
        crate::hostcopy::par_copy(copy.as_mut_slice(), keys);
        // Positions fit u32: argsort takes at most 2^32 keys (`Sorter::argsort_into`).
        let sorted = positions.as_mut_slice();
        gpusort_cpu::install(|| sorted.par_iter_mut().enumerate().for_each(|(i, o)| *o = i as u32));
        self.sort_pairs_wide(copy.as_mut_slice(), sorted, sort)?;
        let sorted = positions.as_slice();
        gpusort_cpu::install(|| out.par_iter_mut().zip(sorted).for_each(|(o, &p)| *o = P::from_u32(p)));
        Ok(())
    }

    /// The run length of an out-of-core sort of `n` items needing `need` bytes, from the longest
    /// run that fits the budget (`run`, as `outofcore` computed it). A budget derived from the
    /// free memory that holds not even one run is the device being full: out of memory (so that
    /// `auto()` sorts on the CPU), not a bad limit; more runs than `max_runs` is out of memory too.
    fn run_within(&self, need: usize, n: usize, run: Result<usize, SortError>) -> Result<usize, SortError> {
        let run = run.map_err(|e| match self.device_limit {
            Some(_) => e,
            None => SortError::OutOfMemory { op: "out-of-core run (device memory)", bytes: need },
        })?;
        if self.max_runs.is_some_and(|most| n.div_ceil(run) > most) {
            return Err(SortError::OutOfMemory {
                op: "out of core in more runs than pay (device memory)",
                bytes: need,
            });
        }
        Ok(run)
    }

    /// The sorter's first device, its context bound to this thread.
    pub(crate) fn bound_gpu(&self) -> Result<&Gpu, SortError> {
        self.bind()?;
        Ok(&self.gpu)
    }

    fn device_sort(&self, order: Order, algorithm: Algorithm) -> Result<DeviceSort<'_>, SortError> {
        self.bind()?;
        Ok(DeviceSort::new(&self.gpu, order, algorithm))
    }

    /// Driver calls act on the calling thread's current context; `Sorter`s move between threads.
    pub(crate) fn bind(&self) -> Result<(), SortError> {
        self.gpu.check_process()?;
        self.gpu.ctx.bind_to_thread().map_err(SortError::driver("cuCtxSetCurrent", 0))
    }
}

impl SortBackend for CudaBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn describe(&self) -> String {
        let mut d = format!("cuda: {}", self.gpu.describe());
        for g in self.devices().iter().skip(1) {
            d += &format!(" + {}: {}", g.ordinal, g.describe());
        }
        if !self.spread.is_empty() {
            d += &format!("; host sorts from {} items in {} shares", self.spread_from, self.spread.len());
        }
        d
    }

    fn sort(&self, job: SortJob<'_>, order: Order, algorithm: Algorithm) -> Result<(), SortError> {
        if job.len() < 2 {
            return Ok(());
        }
        let sort = self.device_sort(order, algorithm)?;
        match job {
            SortJob::Kvp(v) => self.host_sort(&mut Direct(v), sort),
            SortJob::Keys(keys) => with_keys!(keys, k => CudaKey::host_keys(self, k, sort)),
            SortJob::Pairs(keys, values) => with_keys!(keys, k => CudaKey::host_pairs(self, k, values, sort)),
            // Argsort is stable: the radix sort only.
            SortJob::Argsort(..) if !matches!(algorithm, Algorithm::Auto | Algorithm::Radix) => {
                Err(SortError::Unsupported {
                    backend: "cuda",
                    what: format!("argsort with {algorithm:?}: argsort is stable; use Auto or Radix"),
                })
            }
            SortJob::Argsort(keys, out) => {
                with_view!(keys, k => with_positions!(out, o => CudaKey::host_argsort(self, k, o, sort)))
            }
            SortJob::Lexsort(columns, out) => with_positions!(out, o => self.lexsort_host(columns, o, order)),
        }
    }
}
