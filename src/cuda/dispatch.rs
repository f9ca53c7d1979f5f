//! The device sort of one call: which kernels sort a device buffer, per item type and algorithm.
//! The host pipeline and the device-resident entry points both end here.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};

use super::device::Gpu;
use super::network;
use super::radix::{self, RadixKey};
use super::scratch::Scratch;
use super::staging::{MergeKey, Plain};
use crate::{Algorithm, Kvp, Order, SortError};

/// What to run on the device: the order, the algorithm, the device, and where scratch comes from.
#[derive(Clone, Copy)]
pub(crate) struct DeviceSort<'g> {
    pub(crate) gpu: &'g Gpu,
    pub(crate) order: Order,
    pub(crate) algorithm: Algorithm,
    pub(crate) scratch: Scratch<'g>,
}

impl<'g> DeviceSort<'g> {
    /// Runs on the pool's scratch.
    pub(crate) fn new(gpu: &'g Gpu, order: Order, algorithm: Algorithm) -> DeviceSort<'g> {
        DeviceSort { gpu, order, algorithm, scratch: Scratch::POOL }
    }

    /// Sorts `data` in place, asynchronously on `stream`.
    pub(crate) fn run<T: DeviceItem>(
        &self,
        stream: &Arc<CudaStream>,
        data: &mut CudaSlice<T>,
    ) -> Result<(), SortError> {
        T::sort_on(self, stream, data)
    }

    /// Sorts split arrays in place (radix only), asynchronously on `stream`.
    pub(crate) fn run_pairs<K: RadixKey>(
        &self,
        stream: &Arc<CudaStream>,
        keys: &mut CudaSlice<K>,
        values: &mut CudaSlice<u32>,
    ) -> Result<(), SortError> {
        match self.algorithm {
            Algorithm::Auto | Algorithm::Radix => {
                radix::sort_pairs(self.gpu, stream, keys, values, self.order, self.scratch)
            }
            other => Err(SortError::Unsupported {
                backend: "cuda",
                what: format!("{other:?} on split arrays; sort Kvp structs with it instead"),
            }),
        }
    }

    fn is_radix(&self) -> bool {
        matches!(self.algorithm, Algorithm::Auto | Algorithm::Radix)
    }

    fn radix_only(&self, what: &str) -> SortError {
        SortError::Unsupported {
            backend: "cuda",
            what: format!("{what} with {:?}: the GPU sorting networks take 32-bit keys; use Radix", self.algorithm),
        }
    }
}

/// What a host round trip (`incore`) runs on the device between the upload and the download: a
/// sort by key (`DeviceSort`) or a segmented sort (`segments::SegmentedSort`).
pub(crate) trait DeviceStep {
    /// Runs on one device buffer in place, asynchronously on `stream`.
    fn run<T: DeviceItem>(&self, stream: &Arc<CudaStream>, data: &mut CudaSlice<T>) -> Result<(), SortError>;
    /// Runs on split arrays in place, values moving with their keys, asynchronously on `stream`.
    fn run_pairs<K: RadixKey>(
        &self,
        stream: &Arc<CudaStream>,
        keys: &mut CudaSlice<K>,
        values: &mut CudaSlice<u32>,
    ) -> Result<(), SortError>;
}

impl DeviceStep for DeviceSort<'_> {
    fn run<T: DeviceItem>(&self, stream: &Arc<CudaStream>, data: &mut CudaSlice<T>) -> Result<(), SortError> {
        DeviceSort::run(self, stream, data)
    }
    fn run_pairs<K: RadixKey>(
        &self,
        stream: &Arc<CudaStream>,
        keys: &mut CudaSlice<K>,
        values: &mut CudaSlice<u32>,
    ) -> Result<(), SortError> {
        DeviceSort::run_pairs(self, stream, keys, values)
    }
}

/// An item type a device buffer of which the GPU sorts, and that the out-of-core merge orders.
pub(crate) trait DeviceItem: DeviceRepr + MergeKey + 'static {
    /// The kernels a sort spread over several devices runs on these items (`multi`), if any.
    const SPREAD: Option<SpreadKernels>;
    fn sort_on(sort: &DeviceSort, stream: &Arc<CudaStream>, data: &mut CudaSlice<Self>) -> Result<(), SortError>;
}

/// The kernels of `multi.cu` for one item layout: `multi_count_below_<name>` (the keys of a
/// sorted buffer below given values) and `multi_merge_<name>` (two sorted runs merged); the key's
/// order flags (`RadixKey::ORDER_FLAGS`) and its width in bits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpreadKernels {
    pub(crate) count_below: &'static str,
    pub(crate) merge: &'static str,
    pub(crate) key_flags: i32,
    pub(crate) bits: u32,
}

impl SpreadKernels {
    const fn of<K: RadixKey>(count_below: &'static str, merge: &'static str, bits: u32) -> SpreadKernels {
        SpreadKernels { count_below, merge, key_flags: K::ORDER_FLAGS, bits }
    }
}

const KVP_SPREAD: SpreadKernels = SpreadKernels::of::<u32>("multi_count_below_kvp", "multi_merge_kvp", 32);
const U32_SPREAD: SpreadKernels = SpreadKernels::of::<u32>("multi_count_below_u32", "multi_merge_u32", 32);

impl DeviceItem for Kvp {
    const SPREAD: Option<SpreadKernels> = Some(KVP_SPREAD);
    fn sort_on(sort: &DeviceSort, stream: &Arc<CudaStream>, data: &mut CudaSlice<Kvp>) -> Result<(), SortError> {
        match sort.algorithm {
            Algorithm::Auto | Algorithm::Radix => radix::sort_kvp(sort.gpu, stream, data, sort.order, sort.scratch),
            Algorithm::Bitonic => network::bitonic_kvp(sort.gpu, stream, data, sort.order, sort.scratch),
            Algorithm::OddEvenMerge => network::odd_even_kvp(sort.gpu, stream, data, sort.order, sort.scratch),
        }
    }
}

impl DeviceItem for u32 {
    const SPREAD: Option<SpreadKernels> = Some(U32_SPREAD);
    fn sort_on(sort: &DeviceSort, stream: &Arc<CudaStream>, data: &mut CudaSlice<u32>) -> Result<(), SortError> {
        match sort.algorithm {
            Algorithm::Auto | Algorithm::Radix => radix::sort_keys(sort.gpu, stream, data, sort.order, sort.scratch),
            Algorithm::Bitonic => network::bitonic_keys_u32(sort.gpu, stream, data, sort.order, sort.scratch),
            Algorithm::OddEvenMerge => network::odd_even_keys_u32(sort.gpu, stream, data, sort.order, sort.scratch),
        }
    }
}

/// Signed, float and 64-bit keys go to the radix kernels as they are (the kernels flip their bits
/// on the fly); the sorting networks take signed and float keys as ordered u32 bits, converted on
/// the host before the pipeline (`CudaBackend::sort`).
macro_rules! radix_only_items {
    ($($t:ty: $name:literal, $bits:literal),*) => {$(
        impl DeviceItem for $t {
            const SPREAD: Option<SpreadKernels> =
                Some(SpreadKernels::of::<$t>(concat!("multi_count_below_", $name), concat!("multi_merge_", $name), $bits));
            fn sort_on(sort: &DeviceSort, stream: &Arc<CudaStream>, data: &mut CudaSlice<$t>) -> Result<(), SortError> {
                if !sort.is_radix() {
                    return Err(sort.radix_only(concat!(stringify!($t), " keys")));
                }
                radix::sort_keys(sort.gpu, stream, data, sort.order, sort.scratch)
            }
        }
    )*};
}
radix_only_items!(i32: "u32", 32, f32: "u32", 32, u64: "u64", 64, i64: "u64", 64, f64: "u64", 64);

/// 64-bit keys, which the `Kvp` layout cannot carry: their split pairs go up and come back as two
/// arrays (`incore::round_trip_pairs`), and out of core wait for the CPU merge beside their values.
pub(crate) trait WideKey: DeviceItem + RadixKey + Plain {}
impl WideKey for u64 {}
impl WideKey for i64 {}
impl WideKey for f64 {}

/// Device bytes per item a sort of `T` with `algorithm` needs: the data, plus for radix the
/// ping-pong copy and about half a byte per item of look-back status (rounded up to one), for
/// odd-even merge its second buffer; bitonic sorts in place.
pub(crate) fn bytes_per_item<T>(algorithm: Algorithm) -> usize {
    // The networks sort small keys as 32-bit ordered bits made beside them (`small_keys.rs`).
    let (own, size) = match (algorithm, std::mem::size_of::<T>()) {
        (Algorithm::Bitonic | Algorithm::OddEvenMerge, small @ ..4) => (small, 4),
        (_, size) => (0, size),
    };
    own + match algorithm {
        Algorithm::Bitonic => size,
        Algorithm::OddEvenMerge => 2 * size,
        _ => 2 * size + 1,
    }
}
