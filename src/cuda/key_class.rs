//! How the CUDA backend carries each key type, by the class the key list gives it
//! (`key_types!`): which host staging a host sort uses, which device sort runs, and which
//! kernels the other families take. A key type of an existing class needs nothing here; a new
//! class is one more arm of `key_class!`.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use super::argsort::{self, DevicePosition};
use super::device::Gpu;
use super::dispatch::{DeviceItem, DeviceSort, SpreadKernels};
use super::hostdata::{self, Direct, KeysAsBits, ReadOnly};
use super::needs;
use super::records::Keys;
use super::scratch::Scratch;
use super::select;
use super::small_keys;
use super::staging::{MergeKey, Plain};
use super::topk;
use super::CudaBackend;
use crate::backend::RecordWord;
use crate::{Algorithm, Key, Order, SortError};
use half::{bf16, f16};

/// A key type as the CUDA backend sorts it (every type of the key list).
pub(crate) trait CudaKey: Key + Plain + DeviceItem {
    /// Sorts host keys on the device.
    fn host_keys(b: &CudaBackend, keys: &mut [Self], sort: DeviceSort) -> Result<(), SortError>;
    /// Sorts host keys and their `u32` values on the device.
    fn host_pairs(b: &CudaBackend, keys: &mut [Self], values: &mut [u32], sort: DeviceSort) -> Result<(), SortError>;
    /// The stable permutation of host keys, written to `out` (radix only; checked by the caller).
    fn host_argsort<P: DevicePosition>(
        b: &CudaBackend,
        keys: &[Self],
        out: &mut [P],
        sort: DeviceSort,
    ) -> Result<(), SortError>;
    /// The stable permutation of device-resident keys, which are only read, into `out` on `stream`.
    fn device_argsort<P: DevicePosition>(
        sort: &DeviceSort,
        stream: &Arc<CudaStream>,
        keys: &CudaSlice<Self>,
        out: &mut CudaSlice<P>,
    ) -> Result<(), SortError>;
    /// Sorts device-resident keys, with their `u32` values when given, on `stream`.
    fn device(
        sort: &DeviceSort,
        stream: &Arc<CudaStream>,
        keys: &mut CudaSlice<Self>,
        values: Option<&mut CudaSlice<u32>>,
    ) -> Result<(), SortError>;
    /// The scratch bytes `device` carves for `n` keys (with values when `pairs`).
    fn device_need(sort: &DeviceSort, n: usize, pairs: bool) -> Result<usize, SortError>;
    /// The scratch bytes `device_argsort` carves for `n` keys, into `u64` positions when `wide`.
    fn argsort_need(sort: &DeviceSort, n: usize, wide: bool) -> Result<usize, SortError>;
    /// The `k` first host keys in `order` and their positions (`CudaBackend::top_k_host`).
    fn top_k(
        b: &CudaBackend,
        keys: &[Self],
        k: usize,
        order: Order,
        out: &mut [Self],
        positions: &mut [u64],
    ) -> Result<(), SortError>;
    /// The `out.0.len()` first device-resident keys in `order` into `out` (keys, positions) on
    /// `stream`, scratch from `scratch` (`CudaBackend::top_k_device_into`).
    fn device_top_k(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        keys: &CudaSlice<Self>,
        order: Order,
        out: (&mut CudaSlice<Self>, &mut CudaSlice<u64>),
        scratch: Scratch,
    ) -> Result<(), SortError>;
    /// The scratch bytes `device_top_k` of `k` of `n` keys carves.
    fn top_k_need(gpu: &Gpu, n: usize, k: usize) -> Result<usize, SortError>;
    /// Records put in the order of `keys`, which are only read (`CudaBackend::sort_records`).
    fn records(b: &CudaBackend, keys: &[Self], records: &mut [RecordWord], order: Order) -> Result<(), SortError>;
    /// Keys sorted with values that are records of whole words (`CudaBackend::sort_pairs_by_records`).
    fn pairs_by_records(
        b: &CudaBackend,
        keys: &mut [Self],
        values: &mut [RecordWord],
        order: Order,
    ) -> Result<(), SortError>;
}

/// Why 64-bit keys cannot sort with the networks.
fn radix_only(algorithm: Algorithm) -> SortError {
    SortError::Unsupported {
        backend: "cuda",
        what: format!("64-bit keys with {algorithm:?}: the GPU sorting networks take 32-bit keys; use Radix"),
    }
}

fn is_radix(sort: &DeviceSort) -> bool {
    matches!(sort.algorithm, Algorithm::Auto | Algorithm::Radix)
}

/// Device-resident keys of a class that sorts on the device (keys alone, or split pairs).
fn device_sort<K: super::dispatch::DeviceItem + super::radix::RadixKey>(
    sort: &DeviceSort,
    stream: &Arc<CudaStream>,
    keys: &mut CudaSlice<K>,
    values: Option<&mut CudaSlice<u32>>,
) -> Result<(), SortError> {
    match values {
        Some(values) => sort.run_pairs(stream, keys, values),
        None => sort.run(stream, keys),
    }
}

macro_rules! key_class {
    // 32-bit keys that every kernel takes as they are.
    (@impl Word, $t:ident) => {
        impl CudaKey for $t {
            fn host_keys(b: &CudaBackend, keys: &mut [Self], sort: DeviceSort) -> Result<(), SortError> {
                b.host_sort(&mut Direct(keys), sort)
            }
            key_class!(@narrow $t);
        }
    };
    // 32-bit keys the radix kernels take as they are and the networks as ordered bits.
    (@impl Mapped, $t:ident) => {
        impl CudaKey for $t {
            fn host_keys(b: &CudaBackend, keys: &mut [Self], sort: DeviceSort) -> Result<(), SortError> {
                if is_radix(&sort) {
                    b.host_sort(&mut Direct(keys), sort)
                } else {
                    b.host_sort(&mut KeysAsBits(keys), sort)
                }
            }
            key_class!(@narrow $t);
        }
    };
    // The methods 32-bit keys share.
    (@narrow $t:ident) => {
        fn host_pairs(b: &CudaBackend, keys: &mut [Self], values: &mut [u32], sort: DeviceSort) -> Result<(), SortError> {
            b.sort_pairs_narrow(keys, values, sort)
        }
        key_class!(@argsort ReadOnly, argsort_kvp);
        key_class!(@device_argsort);
        fn device(
            sort: &DeviceSort,
            stream: &Arc<CudaStream>,
            keys: &mut CudaSlice<Self>,
            values: Option<&mut CudaSlice<u32>>,
        ) -> Result<(), SortError> {
            device_sort(sort, stream, keys, values)
        }
        key_class!(@selected $t);
    };
    // 64-bit keys, for the radix kernels only.
    (@impl Wide, $t:ident) => {
        impl CudaKey for $t {
            fn host_keys(b: &CudaBackend, keys: &mut [Self], sort: DeviceSort) -> Result<(), SortError> {
                if !is_radix(&sort) {
                    return Err(radix_only(sort.algorithm));
                }
                b.host_sort(&mut Direct(keys), sort)
            }
            fn host_pairs(b: &CudaBackend, keys: &mut [Self], values: &mut [u32], sort: DeviceSort) -> Result<(), SortError> {
                if !is_radix(&sort) {
                    return Err(radix_only(sort.algorithm));
                }
                b.sort_pairs_wide(keys, values, sort)
            }
            key_class!(@argsort ReadOnly, argsort_wide);
            key_class!(@device_argsort);
            fn device(
                sort: &DeviceSort,
                stream: &Arc<CudaStream>,
                keys: &mut CudaSlice<Self>,
                values: Option<&mut CudaSlice<u32>>,
            ) -> Result<(), SortError> {
                device_sort(sort, stream, keys, values)
            }
            key_class!(@selected $t);
        }
    };
    // The host argsort: the keys staged as `$source` in core, `CudaBackend::$beyond` past it.
    (@argsort $source:ident, $beyond:ident) => {
        fn host_argsort<P: DevicePosition>(
            b: &CudaBackend,
            keys: &[Self],
            out: &mut [P],
            sort: DeviceSort,
        ) -> Result<(), SortError> {
            b.argsort_host(keys, &$source(keys), out, sort, |out| b.$beyond(keys, out, sort))
        }
    };
    // The device argsort of keys with kernels of their own.
    (@device_argsort) => {
        fn device_argsort<P: DevicePosition>(
            sort: &DeviceSort,
            stream: &Arc<CudaStream>,
            keys: &CudaSlice<Self>,
            out: &mut CudaSlice<P>,
        ) -> Result<(), SortError> {
            argsort::device(sort, stream, keys, out)
        }
        fn device_need(sort: &DeviceSort, n: usize, pairs: bool) -> Result<usize, SortError> {
            needs::sort::<Self>(sort, n, pairs)
        }
        fn argsort_need(sort: &DeviceSort, n: usize, wide: bool) -> Result<usize, SortError> {
            needs::argsort::<Self>(sort, n, wide)
        }
    };
    // Top-k and records of keys with kernels of their own.
    (@selected $t:ident) => {
        fn top_k(
            b: &CudaBackend,
            keys: &[Self],
            k: usize,
            order: Order,
            out: &mut [Self],
            positions: &mut [u64],
        ) -> Result<(), SortError> {
            b.top_k_typed(keys, k, order, out, positions)
        }
        fn device_top_k(
            gpu: &Gpu,
            stream: &Arc<CudaStream>,
            keys: &CudaSlice<Self>,
            order: Order,
            out: (&mut CudaSlice<Self>, &mut CudaSlice<u64>),
            scratch: Scratch,
        ) -> Result<(), SortError> {
            select::top_k(gpu, stream, keys, order, out, scratch)
        }
        fn top_k_need(gpu: &Gpu, n: usize, k: usize) -> Result<usize, SortError> {
            select::need::<Self>(gpu, n, k)
        }
        fn records(b: &CudaBackend, keys: &[Self], records: &mut [RecordWord], order: Order) -> Result<(), SortError> {
            b.records_round_trip(Keys::Read(keys), records, order)
        }
        fn pairs_by_records(
            b: &CudaBackend,
            keys: &mut [Self],
            values: &mut [RecordWord],
            order: Order,
        ) -> Result<(), SortError> {
            b.records_round_trip(Keys::Sorted(keys), values, order)
        }
    };
    // 8- and 16-bit keys: sorted at their own width by the radix kernels, as 32-bit ordered bits
    // (made on the device, `small_keys.rs`) by the networks, top-k and the segmented sorts.
    (@impl Small, $t:ident) => {
        // Host keys go up and come back at their own width.
        impl DeviceItem for $t {
            const SPREAD: Option<SpreadKernels> = None;
            fn sort_on(sort: &DeviceSort, stream: &Arc<CudaStream>, data: &mut CudaSlice<Self>) -> Result<(), SortError> {
                small_keys::sort(sort, stream, data, None)
            }
        }
        impl CudaKey for $t {
            fn host_keys(b: &CudaBackend, keys: &mut [Self], sort: DeviceSort) -> Result<(), SortError> {
                // 8-bit keys alone: a counting sort, only the counts come back (`counting.rs`).
                if size_of::<Self>() == 1 && is_radix(&sort) && keys.len() > 1 && b.counts_fit(keys.len())? {
                    return b.count_sort(keys, sort);
                }
                b.host_sort(&mut Direct(keys), sort)
            }
            fn host_pairs(b: &CudaBackend, keys: &mut [Self], values: &mut [u32], sort: DeviceSort) -> Result<(), SortError> {
                b.sort_pairs_narrow(keys, values, sort)
            }
            key_class!(@argsort ReadOnly, argsort_kvp);
            fn device_argsort<P: DevicePosition>(
                sort: &DeviceSort,
                stream: &Arc<CudaStream>,
                keys: &CudaSlice<Self>,
                out: &mut CudaSlice<P>,
            ) -> Result<(), SortError> {
                argsort::device(sort, stream, keys, out)
            }
            fn device_need(sort: &DeviceSort, n: usize, pairs: bool) -> Result<usize, SortError> {
                needs::small_sort::<Self>(sort, n, pairs)
            }
            fn argsort_need(sort: &DeviceSort, n: usize, wide: bool) -> Result<usize, SortError> {
                needs::argsort::<Self>(sort, n, wide)
            }
            fn device(
                sort: &DeviceSort,
                stream: &Arc<CudaStream>,
                keys: &mut CudaSlice<Self>,
                values: Option<&mut CudaSlice<u32>>,
            ) -> Result<(), SortError> {
                small_keys::sort(sort, stream, keys, values)
            }
            fn top_k(
                b: &CudaBackend,
                keys: &[Self],
                k: usize,
                order: Order,
                out: &mut [Self],
                positions: &mut [u64],
            ) -> Result<(), SortError> {
                b.top_k_small(keys, k, order, out, positions)
            }
            fn device_top_k(
                gpu: &Gpu,
                stream: &Arc<CudaStream>,
                keys: &CudaSlice<Self>,
                order: Order,
                out: (&mut CudaSlice<Self>, &mut CudaSlice<u64>),
                scratch: Scratch,
            ) -> Result<(), SortError> {
                topk::small_device(gpu, stream, keys, order, out, scratch)
            }
            fn top_k_need(gpu: &Gpu, n: usize, k: usize) -> Result<usize, SortError> {
                topk::small_need(gpu, n, k)
            }
            fn records(b: &CudaBackend, keys: &[Self], records: &mut [RecordWord], order: Order) -> Result<(), SortError> {
                b.records_round_trip(Keys::Read(hostdata::widen(keys)?.as_slice()), records, order)
            }
            fn pairs_by_records(
                b: &CudaBackend,
                keys: &mut [Self],
                values: &mut [RecordWord],
                order: Order,
            ) -> Result<(), SortError> {
                b.narrow_pairs_by_records(keys, values, order)
            }
        }
    };
    ({} $($t:ident, $v:ident, $c:literal, $np:literal, $class:ident;)*) => {
        $(
            key_class!(@impl $class, $t);
            impl Plain for $t {}
            impl MergeKey for $t {
                fn merge_key(&self) -> u64 {
                    gpusort_cpu::SortKey::to_ordered_bits(*self).into()
                }
            }
        )*
    };
}
crate::key_types!(key_class! {});
